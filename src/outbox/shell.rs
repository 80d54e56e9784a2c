//! What the outbox's Rust asks of its JS shell (`js/outbox/outbox.js`, the `PlantOutbox`, over
//! `js/outbox/store.js`): the methods of [`Shell`], bound below, typed once; what the shell asks
//! of Rust is `exports.rs`. A record or a view crosses as a plain object, read and written here
//! through [`Fields`] and [`Sink`].

use super::record::{Fields, Sink};
use alloc::string::String;
use js_sys::{Object, Promise, Reflect};
use wasm_bindgen::prelude::*;

/// A hint on the channel: `{ type, v: 1, [name]: value }`, the keys to read again (never the
/// data), or that a tab let go.
pub(crate) const HINT: &str = "plant-store-outbox";

pub(crate) fn hint(name: &str, value: JsValue) -> Object {
    let hint = Object::new();
    set(&hint, "type", HINT);
    set(&hint, "v", 1);
    set(&hint, name, value);
    hint
}

pub(crate) fn set(object: &Object, name: &str, value: impl Into<JsValue>) {
    let _ = Reflect::set(object, &name.into(), &value.into());
}

/// What a failure says, on one line: its name and message.
pub(crate) fn said(cause: &JsValue) -> String {
    let text = match (cause.text("name"), cause.text("message")) {
        (Some(name), Some(message)) if !name.is_empty() => [name.as_str(), ": ", &message].concat(),
        (_, Some(message)) => message,
        _ => cause.as_string().unwrap_or_else(|| "an unknown failure".into()),
    };
    let line: String = text.chars().map(|c| if c == '\n' || c == '\r' { ' ' } else { c }).collect();
    line.trim_end_matches('.').into()
}

/// `platform.navigator[name]` (undefined when it has none).
pub(crate) fn nav(platform: &JsValue, name: &str) -> JsValue {
    let value = field(&field(platform, "navigator"), name);
    if value.is_null() {
        JsValue::UNDEFINED
    } else {
        value
    }
}

/// The field `name` of `value` (undefined when it has none, or reading it threw).
fn field(value: &JsValue, name: &str) -> JsValue {
    match value.is_object() {
        true => Reflect::get(value, &name.into()).unwrap_or_default(),
        false => JsValue::UNDEFINED,
    }
}

impl Fields for JsValue {
    fn text(&self, name: &str) -> Option<String> {
        field(self, name).as_string()
    }
    fn number(&self, name: &str) -> Option<f64> {
        field(self, name).as_f64()
    }
    fn flag(&self, name: &str) -> Option<bool> {
        field(self, name).as_bool()
    }
    fn object(&self, name: &str) -> Option<JsValue> {
        Some(field(self, name)).filter(JsValue::is_object)
    }
    fn has(&self, name: &str) -> bool {
        !field(self, name).is_undefined()
    }
}

impl Sink for Object {
    fn new() -> Object {
        Object::new()
    }
    fn text(&mut self, name: &str, value: &str) {
        set(self, name, value);
    }
    fn number(&mut self, name: &str, value: f64) {
        set(self, name, value);
    }
    fn flag(&mut self, name: &str, value: bool) {
        set(self, name, value);
    }
    fn id(&mut self, name: &str, id: i64, bigint: bool) {
        match bigint {
            true => set(self, name, id),
            false => set(self, name, id as f64),
        }
    }
    fn object(&mut self, name: &str, value: Object) {
        set(self, name, value);
    }
}

#[wasm_bindgen]
extern "C" {
    /// `globalThis`: the platform unless the app gives another.
    #[wasm_bindgen(thread_local_v2, js_name = globalThis)]
    pub(crate) static GLOBAL: JsValue;
}

#[wasm_bindgen(module = "/js/outbox/store.js")]
extern "C" {
    /// The store: the IndexedDB database `name` (`plant-store-outbox:<name>`) of `platform` when
    /// `store` is undefined, else the app's; an upgrade rewrites each record with `migrate`.
    #[wasm_bindgen(catch, js_name = openStore)]
    pub(crate) fn open_store(
        platform: &JsValue,
        name: &str,
        store: &JsValue,
        migrate: &JsValue,
    ) -> Result<Promise, JsValue>;
}

#[wasm_bindgen(module = "/js/outbox/outbox.js")]
extern "C" {
    /// `open(rules, platform, opening)`: the shell reads the store `opening` gives and listens;
    /// the promise of its `PlantOutbox`.
    #[wasm_bindgen(catch, js_name = open)]
    pub(crate) fn open_shell(
        rules: JsValue,
        platform: &JsValue,
        opening: &Promise,
    ) -> Result<Promise, JsValue>;
    /// The `PlantOutbox`: what Rust asks of the shell.
    #[derive(Clone)]
    pub(crate) type Shell;
    #[wasm_bindgen(method, js_name = askLock)]
    pub(crate) fn ask_lock(this: &Shell, name: &str);
    #[wasm_bindgen(method)]
    pub(crate) fn release(this: &Shell);
    #[wasm_bindgen(method)]
    pub(crate) fn live(this: &Shell, name: Option<&str>);
    #[wasm_bindgen(method)]
    pub(crate) fn post(this: &Shell, hint: &Object);
    #[wasm_bindgen(method)]
    pub(crate) fn feed(this: &Shell, round: u32, until: f64, locked: bool);
    #[wasm_bindgen(method)]
    pub(crate) fn senders(this: &Shell, round: u32, count: u32);
    #[wasm_bindgen(method)]
    pub(crate) fn signal(this: &Shell) -> web_sys::AbortSignal;
    #[wasm_bindgen(method)]
    pub(crate) fn abort(this: &Shell);
    #[wasm_bindgen(method)]
    pub(crate) fn suspend(this: &Shell);
    #[wasm_bindgen(method)]
    pub(crate) fn back(this: &Shell);
    #[wasm_bindgen(method)]
    pub(crate) fn reread(this: &Shell, key: &JsValue);
    #[wasm_bindgen(method)]
    pub(crate) fn purge(this: &Shell, now: f64);
    #[wasm_bindgen(method)]
    pub(crate) fn arm(this: &Shell, ms: f64);
    #[wasm_bindgen(method)]
    pub(crate) fn disarm(this: &Shell);
    #[wasm_bindgen(method)]
    pub(crate) fn changed(this: &Shell, detail: &JsValue);
    #[wasm_bindgen(method)]
    pub(crate) fn closed(this: &Shell, why: Option<&str>);
    /// The Rust API's: writes a change (the promise of what `written` gave), reads a record,
    /// flushes.
    #[wasm_bindgen(method)]
    pub(crate) fn write(this: &Shell, change: &Object) -> Promise;
    #[wasm_bindgen(method)]
    pub(crate) fn record(this: &Shell, key: &str) -> Promise;
    #[wasm_bindgen(method)]
    pub(crate) fn flush(this: &Shell) -> Promise;
}
