//! The outbox's JS shell (`js/outbox/`, a wasm-bindgen snippet, so that a Rust app gets it too)
//! and the [`Rules`] it is handed: the table, a new entry's record, and a send through the public
//! [`Client`]. [`start`] checks an outbox's settings and composes the shell's three files (store,
//! tabs, outbox), which is also what makes wasm-bindgen ship each: it ships the snippets Rust
//! imports from.

use super::config::{Change, OnChange, OutboxConfig, Store};
use super::entry::Entry;
use super::record;
use super::table::{self, Clock, Held, Sent, Step};
use crate::{CallOptions, Client, Error, IdempotencyKey, MAX_TIMEOUT_MS};
use alloc::rc::Rc;
use alloc::string::String;
use core::cell::Cell;
use js_sys::{Array, Date, Math, Object, Promise, Reflect};
use plant_store_model::{NewPlant, Plant};
use wasm_bindgen::prelude::*;
use web_sys::AbortSignal;

/// What an outbox's shell is handed.
pub(crate) struct Rules {
    pub(crate) client: Client,
    /// How long a send may take: the client's timeout, and a second to record its answer.
    send_ms: f64,
    retention_ms: f64,
    /// When the last entry added here was: each is later, so that the order survives a reload.
    last_added: Cell<f64>,
}

impl Rules {
    /// The step that the event `name` (with its `detail`: `record::event`) makes of `record` (JSON;
    /// `None` when the store holds none), as the shell reads it: `[kind, record, view, due]` for
    /// `put` and `keep`, `[kind, why]` for `aside` and `refused`, `["delete"]`.
    fn apply(&self, record: Option<String>, name: &str, detail: &str) -> Array {
        let held = record.map_or(Held::None, |record| record::read(&record));
        let (now, random) = (Date::now(), Math::random());
        let clock = Clock { now, random, send_ms: self.send_ms, retention_ms: self.retention_ms };
        let step = match record::event(name, detail) {
            Some(event) => table::apply(held, event, &clock),
            None => Step::Refused("it is not an event of the outbox".into()),
        };
        let (kind, entry, why) = match step {
            Step::Put(entry) => ("put", Some(entry), String::new()),
            Step::Keep(entry) => ("keep", Some(entry), String::new()),
            Step::Delete => ("delete", None, String::new()),
            Step::Aside(why) => ("aside", None, why),
            Step::Refused(why) => ("refused", None, why),
        };
        let Some(entry) = entry else { return Array::of2(&kind.into(), &why.into()) };
        let due = entry.due_at().map_or(JsValue::UNDEFINED, JsValue::from);
        let [record, view] = [record::write(&entry), record::view(&entry)];
        Array::of4(&kind.into(), &record.into(), &view.into(), &due)
    }

    /// The record of a new entry of `plant` (its id given as a BigInt when `bigint`), with a key of
    /// its own, which every request that sends it carries.
    pub(crate) fn record(&self, plant: NewPlant, bigint: bool) -> Result<String, Error> {
        let IdempotencyKey::Given(key) = IdempotencyKey::random()? else {
            return Err(Error::config("the outbox could not draw a key"));
        };
        let added_at = Date::now().max(self.last_added.get() + 1.0);
        self.last_added.set(added_at);
        Ok(record::write(&Entry::new(key, plant, bigint, added_at)))
    }

    /// Sends the entry `record` holds, with its key: the promise of its `settled` event. `signal`
    /// is the shell's, aborted when its tab lets go (the entry is then left for the next sender).
    fn send(&self, record: &str, signal: AbortSignal) -> Promise {
        let Held::Entry(entry) = record::read(record) else {
            return Promise::reject(&"the outbox cannot send a record it cannot read".into());
        };
        let requests = Rc::new(Cell::new(0));
        let counted = requests.clone();
        let options = CallOptions::new()
            .idempotency_key(IdempotencyKey::Given(entry.key.clone()))
            .signal(signal.clone())
            .after_attempt(move |attempt| {
                counted.set(attempt.number);
                Ok(())
            });
        let settled = move |outcome: Result<Plant, Error>| {
            let sent = Sent::of(&outcome, requests.get());
            Ok(record::settled(entry.revision, signal.aborted(), &sent).into())
        };
        match self.client.start(&entry.plant, &options) {
            Ok(call) => crate::shell::run(call, settled),
            Err(error) => Promise::resolve(&settled.clone()(Err(error)).unwrap_or_default()),
        }
    }
}

/// Checks `config` and opens its outbox: the promise of the shell's `PlantOutbox`, and the rules
/// it was handed. `add`, for the JS API, gives the function that validates a plant JavaScript
/// gives and makes its record.
pub(crate) fn start(
    config: OutboxConfig,
    add: impl FnOnce(Rc<Rules>) -> Option<JsValue>,
) -> Result<(Promise, Rc<Rules>), Error> {
    let OutboxConfig { client, name, store, concurrency, retention_ms, on_change } = config;
    let send_ms = f64::from(client.timeout_ms) + 1_000.0;
    let client = Client::new(client)?;
    if name.is_empty() || !(1..=64).contains(&concurrency) {
        return Err(Error::config("the outbox needs a name, and a concurrency from 1 to 64"));
    }
    if retention_ms > MAX_TIMEOUT_MS {
        let message = "retentionMs must be a whole number of milliseconds from 0 to 2147483647";
        return Err(Error::config(message));
    }
    let retention_ms = f64::from(retention_ms);
    let rules = Rc::new(Rules { client, send_ms, retention_ms, last_added: Cell::new(0.0) });
    let object = Object::new();
    let set = |name: &str, function: JsValue| drop(Reflect::set(&object, &name.into(), &function));
    let held = rules.clone();
    let apply = move |record: Option<String>, name: String, detail: String| {
        held.apply(record, &name, &detail)
    };
    let apply = Closure::<dyn Fn(Option<String>, String, String) -> Array>::new(apply);
    set("apply", apply.into_js_value());
    let held = rules.clone();
    let send = move |record: String, signal: AbortSignal| held.send(&record, signal);
    set("send", Closure::<dyn Fn(String, AbortSignal) -> Promise>::new(send).into_js_value());
    if let Some(add) = add(rules.clone()) {
        set("add", add);
    }
    if let Some(OnChange(listener)) = on_change {
        let told = listener.clone();
        let changed =
            move |key: String, record: Option<String>| match record.map(|r| record::read(&r)) {
                Some(Held::Entry(entry)) => told(Change::Entry(&entry)),
                _ => told(Change::Removed(&key)),
            };
        set("changed", Closure::<dyn Fn(String, Option<String>)>::new(changed).into_js_value());
        let closed = move |why: String| listener(Change::Closed(&why));
        set("closed", Closure::<dyn Fn(String)>::new(closed).into_js_value());
    }
    let (store, shared) = match store {
        Store::IndexedDb => (JsValue::UNDEFINED, true),
        Store::Js(store) => (store, false),
    };
    let opening = open_store(&name, &store, &object);
    Ok((open(&opening, &tabs(&name, shared), concurrency, &object), rules))
}

#[wasm_bindgen(module = "/js/outbox/store.js")]
extern "C" {
    /// The outbox's store: the IndexedDB database `plant-store-outbox:{name}` when `store` is
    /// undefined, else the app's.
    #[wasm_bindgen(js_name = openStore)]
    fn open_store(name: &str, store: &JsValue, rules: &Object) -> Promise;
}

#[wasm_bindgen(module = "/js/outbox/tabs.js")]
extern "C" {
    /// What the tabs of the outbox `name` share (`shared`: when others may open it).
    fn tabs(name: &str, shared: bool) -> JsValue;
}

#[wasm_bindgen(module = "/js/outbox/outbox.js")]
extern "C" {
    /// The shell's `PlantOutbox`.
    #[derive(Clone)]
    pub(crate) type Shell;
    fn open(store: &Promise, tabs: &JsValue, concurrency: u32, rules: &Object) -> Promise;
    /// The Rust API's: stores a new entry's record; the records this tab holds; the record the
    /// store holds under `key`.
    pub(super) fn insert(outbox: &Shell, record: &str) -> Promise;
    pub(super) fn held(outbox: &Shell) -> Array;
    pub(super) fn stored(outbox: &Shell, key: &str) -> Promise;
    #[wasm_bindgen(method)]
    pub(super) fn unreadable(this: &Shell) -> Array;
    #[wasm_bindgen(method)]
    pub(super) fn flush(this: &Shell) -> Promise;
    #[wasm_bindgen(method)]
    pub(super) fn retry(this: &Shell, key: &str) -> Promise;
    #[wasm_bindgen(method, js_name = markCreated)]
    pub(super) fn mark_created(this: &Shell, key: &str) -> Promise;
    #[wasm_bindgen(method)]
    pub(super) fn remove(this: &Shell, key: &str) -> Promise;
    #[wasm_bindgen(method)]
    pub(super) fn pause(this: &Shell);
    #[wasm_bindgen(method)]
    pub(super) fn resume(this: &Shell);
    #[wasm_bindgen(method)]
    pub(super) fn close(this: &Shell);
}
