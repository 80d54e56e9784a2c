//! The outbox in JavaScript: `openOutbox(options)`, which checks the options in Rust and opens
//! the shell's `PlantOutbox` (`js/outbox/outbox.js`, an `EventTarget`) over the outbox's rules,
//! re-exported under its name. Its TypeScript is `outbox.d.ts`.

use super::api;
use crate::error::Draft;
use crate::outbox::{open, OutboxConfig, Rules, Store};
use crate::outbox::{DEFAULT_CONCURRENCY, DEFAULT_RETENTION_MS};
use crate::Error;
use alloc::string::String;
use js_sys::{Promise, Reflect};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = include_str!("outbox.d.ts");

/// Opens the outbox `options` describe: the promise of its `PlantOutbox`.
#[wasm_bindgen(js_name = openOutbox, skip_typescript)]
pub fn open_outbox(options: JsValue) -> Promise {
    let opened = read_options(&options).and_then(|config| {
        let (rules, store) = Rules::new(config, true)?;
        open(&rules, &store)
    });
    opened.unwrap_or_else(|error| Promise::reject(&error.to_js()))
}

/// An outbox's `options`: the client's, and its `name`, `store`, `concurrency`, `retentionMs`
/// and `platform`.
fn read_options(options: &JsValue) -> Result<OutboxConfig, Error> {
    let o = api::Options::of(options.clone(), "options").map_err(|draft| draft.redact(&[]))?;
    let more = ["name", "store", "concurrency", "retentionMs", "platform"];
    let config = api::config(&o, &more)?;
    let redact = |draft: Draft| draft.redact(&[config.secret()]);
    let name = o.get::<String>("name").map_err(redact)?.unwrap_or_default();
    let store = o.value("store").map_err(redact)?;
    let has = |s: &JsValue, m: &str| Reflect::get(s, &m.into()).is_ok_and(|f| f.is_function());
    if store.as_ref().is_some_and(|s| !["getAll", "put", "delete"].iter().all(|m| has(s, m))) {
        let message = "options.store must have the methods getAll(), put(record) and \
                       delete(key), each returning a promise";
        return Err(Error::config(message));
    }
    let concurrency = o.get("concurrency").map_err(redact)?.unwrap_or(DEFAULT_CONCURRENCY);
    let retention = o.get("retentionMs").map_err(redact)?.unwrap_or(DEFAULT_RETENTION_MS);
    let platform = o.value("platform").map_err(redact)?;
    let outbox = OutboxConfig::new(config, name).concurrency(concurrency);
    let outbox = outbox.store(store.map_or(Store::IndexedDb, Store::Js)).retention_ms(retention);
    Ok(match platform {
        Some(platform) => outbox.platform(platform),
        None => outbox,
    })
}

#[wasm_bindgen(module = "/js/outbox/outbox.js")]
extern "C" {
    /// `PlantOutbox`, the shell's class, re-exported by the generated module under its name (as a
    /// function: wasm-bindgen writes an `unknown` type for a re-exported type; the class is
    /// declared in `outbox.d.ts`).
    #[wasm_bindgen(reexport, skip_typescript, js_name = PlantOutbox)]
    fn plant_outbox_class();
}
