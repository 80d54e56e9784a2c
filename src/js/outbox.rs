//! The outbox in JavaScript: `openOutbox(options, onChange)` and the `OutboxCore` it resolves to,
//! which the npm entry's `PlantOutbox` wraps (an `EventTarget` subclass, which wasm-bindgen cannot
//! write: `js/entries/outbox.js`, with the `MemoryStore`). Its TypeScript is `outbox.d.ts`.

use super::api;
use crate::error::Draft;
use crate::outbox::promise;
use crate::outbox::{Change, Outbox};
use alloc::string::String;
use js_sys::{Array, Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = include_str!("outbox.d.ts");

/// Opens the outbox `options` describe; `on_change` is called with each change's `detail`: an
/// entry as it now is, or `{ key, removed: true }`.
#[wasm_bindgen(js_name = openOutbox, skip_typescript)]
pub fn open_outbox(options: JsValue, on_change: Function) -> Promise {
    let config = match api::outbox(&options) {
        Ok(config) => config,
        Err(error) => return Promise::reject(&error.to_js()),
    };
    let config = config.on_change(move |change| {
        let detail = match change {
            Change::Entry(entry) => entry.to_js(false),
            Change::Removed(key) => {
                let removed = Object::new();
                let _ = Reflect::set(&removed, &"key".into(), &key.into());
                let _ = Reflect::set(&removed, &"removed".into(), &true.into());
                removed.into()
            }
        };
        let _ = on_change.call1(&JsValue::UNDEFINED, &detail);
    });
    promise(async move {
        match Outbox::open(config).await {
            Ok(outbox) => Ok(OutboxCore { outbox }.into()),
            Err(error) => Err(error.to_js()),
        }
    })
}

/// An open outbox, as `PlantOutbox` calls it.
#[wasm_bindgen(skip_typescript)]
#[derive(Debug)]
pub struct OutboxCore {
    outbox: Outbox,
}

#[wasm_bindgen]
impl OutboxCore {
    /// Validates `plant`, then stores it: resolves to its entry once it is durable.
    pub fn add(&self, plant: JsValue) -> Promise {
        let (plant, bigint) = match api::new_plant(&plant) {
            Ok(read) => read,
            Err(issues) => {
                return Promise::reject(&self.outbox.redact(Draft::validation(issues)).to_js())
            }
        };
        let core = self.outbox.0.clone();
        promise(async move {
            match core.add(plant, bigint).await {
                Ok(entry) => Ok(entry.to_js(false)),
                Err(error) => Err(error.to_js()),
            }
        })
    }

    /// Every entry, in the order they were added.
    pub fn entries(&self) -> Array {
        self.outbox.entries().iter().map(|entry| entry.to_js(false)).collect()
    }

    /// Sends every pending entry now; resolves once each was tried.
    pub fn flush(&self) -> Promise {
        let outbox = self.outbox.clone();
        promise(async move {
            outbox.flush().await;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Sends a refused or waiting entry again.
    pub fn retry(&self, key: String) -> Promise {
        let outbox = self.outbox.clone();
        promise(async move {
            outbox.retry(&key).await.map(|()| JsValue::UNDEFINED).map_err(|e| e.to_js())
        })
    }

    /// Removes an entry.
    pub fn remove(&self, key: String) -> Promise {
        let outbox = self.outbox.clone();
        promise(async move {
            outbox.remove(&key).await.map(|()| JsValue::UNDEFINED).map_err(|e| e.to_js())
        })
    }

    /// Stops sending until `resume()`.
    pub fn pause(&self) {
        self.outbox.pause();
    }

    /// Sends again what is due.
    pub fn resume(&self) {
        self.outbox.resume();
    }

    /// Closes the outbox; what is being sent is sent again on the next open.
    pub fn close(&self) {
        self.outbox.close();
    }
}
