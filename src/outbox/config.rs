//! How an outbox is opened: the options of `PlantOutbox.open`, a client's and the outbox's own
//! (`name`, `concurrency`, `retentionMs`, `platform`), checked into [`Settings`] and the tab's
//! [`Rules`].

use super::record::{field, set};
use crate::error::Draft;
use crate::js::api::{config, keys, Options};
use crate::redact::theirs;
use crate::{Client, Error, MAX_TIMEOUT_MS};
use alloc::string::String;
use plant_store_model::suggest;
use wasm_bindgen::JsValue;

/// An open outbox's settings.
pub(crate) struct Settings {
    pub(crate) client: Client,
    pub(crate) name: String,
    pub(crate) rules: Rules,
    /// The platform APIs' holder: `options.platform`, else `globalThis`.
    pub(crate) platform: JsValue,
}

impl Settings {
    /// `plant-store-outbox:<name>`, then `more`: the outbox's database, its channel and its locks.
    pub(crate) fn named(&self, more: &str) -> String {
        ["plant-store-outbox:", &self.name, more].concat()
    }
}

/// A tab's settings; `worker`: a service worker's, with no page life, that leaves to the pages an
/// entry it cannot send for want of a token.
#[derive(Clone, Debug, Default)]
pub(crate) struct Rules {
    pub(crate) concurrency: usize,
    pub(crate) send_ms: f64,
    pub(crate) retention_ms: f64,
    pub(crate) key_lifetime_ms: f64,
    pub(crate) worker: bool,
}

/// Checks `options`: a `config` error that names the option and the fix.
pub(crate) fn settings(options: &JsValue) -> Result<Settings, Error> {
    let o = Options::of(options.clone(), "options").map_err(|draft| draft.redact(&[]))?;
    let config = config(&o, &["name", "concurrency", "retentionMs", "platform"])?;
    let redact = |draft: Draft| draft.redact(&[config.secret()]);
    let name = o.get::<String>("name").map_err(redact)?.filter(|name| !name.is_empty());
    let concurrency = o.get::<u32>("concurrency").map_err(redact)?.unwrap_or(4);
    let retention_ms = o.get::<u32>("retentionMs").map_err(redact)?.unwrap_or(86_400_000);
    let platform = o.value("platform").map_err(redact)?;
    if config.signal.is_some() {
        let message = "options.signal is not an outbox's option: close() ends its calls (an \
                       aborted signal would fail every send, for good)";
        return Err(redact(Draft::config(message)));
    }
    let Some(name) = name else {
        let message = "options.name must be a non-empty string: the outbox's name, one IndexedDB \
                       database each";
        return Err(redact(Draft::config(message)));
    };
    if !(1..=64).contains(&concurrency) {
        let message = "options.concurrency must be a whole number from 1 to 64 (default 4)";
        return Err(redact(Draft::config(message)));
    }
    if retention_ms > MAX_TIMEOUT_MS {
        let message = "options.retentionMs must be a whole number of milliseconds from 0 to \
                       2147483647 (default 86400000, a day)";
        return Err(redact(Draft::config(message)));
    }
    let platform = resolve(platform).map_err(redact)?;
    let send_ms = f64::from(config.timeout_ms) + 1_000.0;
    let client = Client::new(config)?;
    let rules = Rules {
        concurrency: concurrency as usize,
        send_ms,
        retention_ms: retention_ms.into(),
        key_lifetime_ms: client.0.config.key_lifetime_ms,
        worker: false,
    };
    Ok(Settings { client, name, rules, platform })
}

/// The platform APIs of `options.platform`, each `globalThis`'s where left out:
/// `{ indexedDB, navigator, BroadcastChannel, document, events }`, `events` what the page's own
/// events (`pagehide`, `online`, …) are heard on. A member of the wrong kind is a `config` error.
fn resolve(given: Option<JsValue>) -> Result<JsValue, Draft> {
    let global: JsValue = js_sys::global().into();
    let given = given.unwrap_or_default();
    if !given.is_undefined() && !given.is_object() {
        return Err(Draft::config("options.platform must be an object of platform APIs"));
    }
    let names = ["indexedDB", "navigator", "BroadcastChannel", "document", LISTENS[0], LISTENS[1]];
    // Not a class of another case (a window's `Navigator`), nor a key beside its right name.
    let keys = keys(&given).unwrap_or_default();
    for key in &keys {
        let class =
            |near: &&str| near.eq_ignore_ascii_case(key) && field(&given, key).is_function();
        let near = suggest(key, &names).filter(|near| !class(near));
        if let Some(near) = near.filter(|near| !keys.iter().any(|key| key == near)) {
            let key = theirs(&key.chars().take(40).collect::<String>());
            let message = ["options.platform.", &key, " is none of its APIs (did you mean \""];
            return Err(Draft::config([&message.concat(), near, "\"?)"].concat()));
        }
    }
    let out = js_sys::Object::new();
    let kinds = [
        ("indexedDB", "an IDBFactory (with open())", &["open"][..]),
        ("navigator", "an object (its locks and onLine)", &[]),
        ("BroadcastChannel", "a class", &[]),
        ("document", "an EventTarget with a visibilityState", &LISTENS),
    ];
    for (name, kind, methods) in kinds {
        let own = field(&given, name);
        let value = if own.is_undefined() { field(&global, name) } else { own.clone() };
        let fits = match name {
            "BroadcastChannel" => value.is_function(),
            _ => value.is_object() && has(&value, methods),
        };
        if !own.is_undefined() && !fits {
            let message = ["options.platform.", name, " must be ", kind, ", or left out"];
            return Err(Draft::config(message.concat()));
        }
        set(&out, name, if fits { value } else { JsValue::UNDEFINED });
    }
    let navigator = field(&out, "navigator");
    let locks = field(&navigator, "locks");
    if !locks.is_null_or_undefined() && !has(&locks, &["request", "query"]) {
        let message = "options.platform.navigator.locks must be a LockManager (with request() and \
                       query()), null, or left out";
        return Err(Draft::config(message));
    }
    let on_line = field(&navigator, "onLine");
    if !on_line.is_undefined() && on_line.as_bool().is_none() {
        return Err(Draft::config("options.platform.navigator.onLine must be a boolean"));
    }
    if !field(&given, "addEventListener").is_undefined() && !has(&given, &LISTENS) {
        let message = "options.platform.addEventListener and removeEventListener must be \
                       functions (the page's events are heard on them), or left out";
        return Err(Draft::config(message));
    }
    let events = [&given, &global].into_iter().find(|on| has(on, &LISTENS));
    set(&out, "events", events.cloned().unwrap_or_default());
    Ok(out.into())
}

/// What an EventTarget has.
const LISTENS: [&str; 2] = ["addEventListener", "removeEventListener"];

/// Whether `value` has each of `methods`.
fn has(value: &JsValue, methods: &[&str]) -> bool {
    methods.iter().all(|method| field(value, method).is_function())
}
