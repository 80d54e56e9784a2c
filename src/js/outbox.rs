//! The outbox in JavaScript: `openOutbox(options)`, which checks the options in Rust and resolves
//! to the shell's `PlantOutbox` (`js/outbox/outbox.js`, an `EventTarget`), re-exported under its
//! name. Its TypeScript is `outbox.d.ts`.

use super::api;
use crate::error::Draft;
use crate::outbox::{start, OutboxConfig, Store, DEFAULT_CONCURRENCY, DEFAULT_RETENTION_MS};
use crate::Error;
use alloc::string::String;
use js_sys::Promise;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = include_str!("outbox.d.ts");

/// Opens the outbox `options` describe: the promise of its `PlantOutbox`.
#[wasm_bindgen(js_name = openOutbox, skip_typescript)]
pub fn open_outbox(options: JsValue) -> Promise {
    let opened = read_options(&options).and_then(|config| {
        // `add(plant)`: the plant JavaScript gives, validated, as a new entry's record.
        let add = |rules: alloc::rc::Rc<crate::outbox::Rules>| {
            let add = move |plant: JsValue| match api::new_plant(&plant) {
                Ok((plant, bigint)) => rules.record(plant, bigint).map_err(|e| e.to_js()),
                Err(issues) => Err(rules.client.redact(Draft::validation(issues)).to_js()),
            };
            Some(Closure::<dyn Fn(JsValue) -> Result<String, JsValue>>::new(add).into_js_value())
        };
        start(config, add)
    });
    match opened {
        Ok((opening, _)) => opening,
        Err(error) => Promise::reject(&error.to_js()),
    }
}

/// An outbox's `options`: the client's, and its `name`, `store`, `concurrency` and `retentionMs`.
fn read_options(options: &JsValue) -> Result<OutboxConfig, Error> {
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

#[wasm_bindgen(module = "/js/outbox/outbox.js")]
extern "C" {
    /// `PlantOutbox`, the shell's class, re-exported by the generated module under its name (as a
    /// function: wasm-bindgen writes an `unknown` type for a re-exported type; the class is
    /// declared in `outbox.d.ts`).
    #[wasm_bindgen(reexport, skip_typescript, js_name = PlantOutbox)]
    fn plant_outbox_class();
}
