//! How an outbox is opened: the options of `PlantOutbox.open`, a client's and the outbox's own
//! (`name`, `concurrency`, `retentionMs`, `platform`), checked into [`Settings`].

use super::tab::Rules;
use crate::error::Draft;
use crate::js::api::{config, Options};
use crate::{Client, Error, MAX_TIMEOUT_MS};
use alloc::string::String;
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

/// Checks `options`: a `config` error that names the option and the fix.
pub(crate) fn settings(options: &JsValue) -> Result<Settings, Error> {
    let o = Options::of(options.clone(), "options").map_err(|draft| draft.redact(&[]))?;
    let config = config(&o, &["name", "concurrency", "retentionMs", "platform"])?;
    let redact = |draft: Draft| draft.redact(&[config.secret()]);
    let name = o.get::<String>("name").map_err(redact)?.filter(|name| !name.is_empty());
    let concurrency = o.get::<u32>("concurrency").map_err(redact)?.unwrap_or(4);
    let retention_ms = o.get::<u32>("retentionMs").map_err(redact)?.unwrap_or(86_400_000);
    let platform = o.value("platform").map_err(redact)?;
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
    let send_ms = f64::from(config.timeout_ms) + 1_000.0;
    let client = Client::new(config)?;
    let rules = Rules {
        concurrency: concurrency as usize,
        send_ms,
        retention_ms: retention_ms.into(),
        key_lifetime_ms: client.0.key_lifetime_ms.unwrap_or(f64::INFINITY),
    };
    let platform = platform.unwrap_or_else(|| js_sys::global().into());
    Ok(Settings { client, name, rules, platform })
}
