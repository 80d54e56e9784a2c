//! The outbox in JavaScript: `openOutbox(options, onChange)` and the `OutboxCore` it resolves to,
//! which the npm entry's `PlantOutbox` wraps (an `EventTarget` subclass, which wasm-bindgen cannot
//! write: `js/entries/outbox.js`, with the `MemoryStore`). Its TypeScript is `outbox.d.ts`.

use super::api;
use crate::error::Draft;
use crate::outbox::{promise, Change, Outbox};
use crate::Error;
use alloc::string::String;
use js_sys::{Array, Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = include_str!("outbox.d.ts");

/// Opens the outbox `options` describe; `on_change` is called with each change: `("change", an
/// entry as it now is, or { key, removed: true })`, or `("close", reason)` when the outbox closes
/// on its own.
#[wasm_bindgen(js_name = openOutbox, skip_typescript)]
pub fn open_outbox(options: JsValue, on_change: Function) -> Promise {
    let config = match read_options(&options) {
        Ok(config) => config,
        Err(error) => return Promise::reject(&error.to_js()),
    };
    let config = config.on_change(move |change| {
        let (event, detail) = match change {
            Change::Entry(entry) => ("change", entry.to_js()),
            Change::Removed(key) => {
                let removed = Object::new();
                let _ = Reflect::set(&removed, &"key".into(), &key.into());
                let _ = Reflect::set(&removed, &"removed".into(), &true.into());
                ("change", removed.into())
            }
            Change::Closed(reason) => ("close", reason.into()),
        };
        let _ = on_change.call2(&JsValue::UNDEFINED, &event.into(), &detail);
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
                let error = self.outbox.client().redact(Draft::validation(issues));
                return Promise::reject(&error.to_js());
            }
        };
        let outbox = self.outbox.clone();
        promise(async move {
            outbox.add_plant(plant, bigint).await.map(|e| e.to_js()).map_err(|e| e.to_js())
        })
    }

    /// Every entry, in the order they were added.
    pub fn entries(&self) -> Array {
        self.outbox.entries().iter().map(|entry| entry.to_js()).collect()
    }

    /// The records set aside: `{ key?, reason, record }`.
    pub fn unreadable(&self) -> Array {
        let set_aside = self.outbox.unreadable().into_iter().map(|unreadable| {
            let seen = Object::new();
            if let Some(key) = unreadable.key {
                let _ = Reflect::set(&seen, &"key".into(), &key.into());
            }
            let _ = Reflect::set(&seen, &"reason".into(), &unreadable.reason.into());
            let _ = Reflect::set(&seen, &"record".into(), &unreadable.record);
            JsValue::from(seen)
        });
        set_aside.collect()
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
        promise(async move { done(outbox.retry(&key).await) })
    }

    /// Records that the plant of an entry is in the store.
    #[wasm_bindgen(js_name = markCreated)]
    pub fn mark_created(&self, key: String) -> Promise {
        let outbox = self.outbox.clone();
        promise(async move { done(outbox.mark_created(&key).await) })
    }

    /// Removes an entry, or a record set aside.
    pub fn remove(&self, key: String) -> Promise {
        let outbox = self.outbox.clone();
        promise(async move { done(outbox.remove(&key).await) })
    }

    /// Stops sending from here until `resume()`.
    pub fn pause(&self) {
        self.outbox.pause();
    }

    /// Sends again what is due.
    pub fn resume(&self) {
        self.outbox.resume();
    }

    /// Closes the outbox; what is being sent is sent again by the next sender.
    pub fn close(&self) {
        self.outbox.close();
    }
}

/// `undefined`, or the error as a `PlantStoreError`.
fn done(result: Result<(), Error>) -> Result<JsValue, JsValue> {
    result.map(|()| JsValue::UNDEFINED).map_err(|e| e.to_js())
}

/// An outbox's `options`: the client's, and its `name`, `store`, `concurrency` and `retentionMs`.
fn read_options(options: &JsValue) -> Result<crate::outbox::OutboxConfig, Error> {
    use crate::outbox::{OutboxConfig, Store, DEFAULT_CONCURRENCY, DEFAULT_RETENTION_MS};
    let o = api::Options::of(options.clone(), "options").map_err(|draft| draft.redact(&[]))?;
    let config = api::config(&o, &["name", "store", "concurrency", "retentionMs"])?;
    let redact = |draft: Draft| draft.redact(&[config.secret()]);
    let name = o.get::<String>("name").map_err(redact)?.unwrap_or_default();
    let store = o.value("store").map_err(redact)?.map_or(Store::IndexedDb, Store::Js);
    let concurrency = o.get("concurrency").map_err(redact)?.unwrap_or(DEFAULT_CONCURRENCY);
    let retention = o.get("retentionMs").map_err(redact)?.unwrap_or(DEFAULT_RETENTION_MS);
    let outbox = OutboxConfig::new(config, name).store(store).concurrency(concurrency);
    Ok(outbox.retention_ms(retention))
}
