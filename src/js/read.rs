//! JavaScript values read without trusting them: a NewPlant into the model's input, which the
//! model's rules judge, and the options into [`Config`] and [`CallOptions`], which their `check`
//! judges: a typed getter for each kind of value, one line per option.
//!
//! Own properties only, so a value inherited from a polluted `Object.prototype` is not the
//! caller's; nothing is coerced; each property is read once, so the value judged is the value
//! sent. A getter or Proxy trap that throws is an `unreadable` issue in a NewPlant, a `config`
//! error with the failure as `cause` in the options.
//!
//! By hand, not with serde-wasm-bindgen: it reads fields through the prototype chain, never sees
//! unknown keys, replaces a lone surrogate with U+FFFD without a word, stops at the first error,
//! and needs std (README, "Where the contract is silent").

use crate::config::{Auth, DEFAULT_TIMEOUT_MS};
use crate::error::{theirs, Draft, Error};
use crate::fetch;
use crate::js::callbacks;
use crate::{CallOptions, Client, Config, IdempotencyKey, Retry};
use alloc::string::String;
use alloc::vec::Vec;
use js_sys::{Array, Function, JsString, Reflect};
use plant_store_model::{suggest, validate_new_plant, Field, Issue, IssueCode};
use plant_store_model::{NewPlant, RawNewPlant};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::AbortSignal;

/// The keys of a NewPlant, in the order of its fields.
const FIELDS: [&str; 3] = ["id", "name", "tag"];

/// A NewPlant, judged by the model's rules: the plant, and whether its id was a BigInt; or every
/// issue.
pub(crate) fn new_plant(value: &JsValue) -> Result<(NewPlant, bool), Vec<Issue>> {
    plain(value).map_err(|got| alloc::vec![Issue::not_an_object(got)])?;
    let keys = keys(value).map_err(|_| {
        let message = "the NewPlant's keys could not be listed: listing them threw";
        let code = IssueCode::Unreadable;
        alloc::vec![Issue { path: String::new(), code, message: message.into() }]
    })?;
    let listed = FIELDS.map(|field| keys.iter().any(|key| key == field));
    let unknown = keys.into_iter().filter(|key| !FIELDS.contains(&key.as_str()));
    // A field `Object.keys` listed is an own property, read through its getter binding; another
    // one is looked for with `Object.hasOwn`.
    let candidate = value.unchecked_ref::<Candidate>();
    let getters = [Candidate::id, Candidate::name, Candidate::tag];
    let [id, name, tag] = [0, 1, 2].map(|i| {
        let read = match listed[i] {
            true => getters[i](candidate).map(|v| (!v.is_undefined()).then_some(v)),
            false => own(value, FIELDS[i]),
        };
        match read {
            Ok(None) => Field::Absent,
            Ok(Some(value)) => field(&value, i == 0),
            Err(_) => Field::Unreadable,
        }
    });
    let bigint = matches!(id, Field::Int(_));
    let raw = RawNewPlant { id, name, tag, unknown: unknown.collect() };
    validate_new_plant(raw).map(|plant| (plant, bigint))
}

/// What the rules make of one value.
fn field(value: &JsValue, id: bool) -> Field {
    if id && value.is_string() {
        // The rules name only its type.
        return Field::Str(String::new());
    }
    if let Some(number) = value.as_f64() {
        return Field::Number(number);
    }
    if value.is_bigint() {
        return i64::try_from(value.clone()).map_or(Field::IntOutOfRange, Field::Int);
    }
    match string(value) {
        Ok(text) => Field::Str(text),
        Err(MALFORMED) => Field::MalformedStr,
        Err("undefined") => Field::Absent,
        Err("null") => Field::Null,
        Err("boolean") => Field::Bool,
        Err(other) => Field::Other(other),
    }
}

const CLIENT_OPTIONS: [&str; 11] = [
    "baseUrl",
    "token",
    "getToken",
    "fetch",
    "signal",
    "timeoutMs",
    "headers",
    "retry",
    "idempotencyKey",
    "beforeAttempt",
    "afterAttempt",
];
const CALL_OPTIONS: [&str; 3] = ["signal", "retry", "idempotencyKey"];
const RETRY_OPTIONS: [&str; 5] =
    ["attempts", "baseDelayMs", "maxDelayMs", "gatewayErrors", "attemptTimeoutMs"];

/// The client `options` describe. `options.token` is read first, so that an error about any
/// option is redacted against it.
pub(crate) fn client(options: &JsValue) -> Result<Client, Error> {
    let o = Options::new(options.clone(), "options".into()).map_err(|e| e.redact(&[]))?;
    let token = o.string("token");
    let secret = token.as_ref().ok().cloned().flatten().unwrap_or_default();
    let config = o.known(&CLIENT_OPTIONS).and_then(|()| config(&o, token));
    Client::new(config.map_err(|e| e.redact(&[&secret]))?)
}

/// An outbox's `options`: the client's, and its `name`, `store`, `concurrency` and
/// `retentionMs`.
#[cfg(feature = "outbox")]
pub(crate) fn outbox(options: &JsValue) -> Result<crate::outbox::OutboxConfig, Error> {
    use crate::outbox::{OutboxConfig, Store, DEFAULT_CONCURRENCY, DEFAULT_RETENTION_MS};
    let o = Options::new(options.clone(), "options".into()).map_err(|e| e.redact(&[]))?;
    let token = o.string("token");
    let secret = token.as_ref().ok().cloned().flatten().unwrap_or_default();
    let read = || {
        let own = ["name", "store", "concurrency", "retentionMs"];
        o.known(&[&CLIENT_OPTIONS[..], &own].concat())?;
        let name = o.string("name")?.unwrap_or_default();
        let store = o.get("store")?.map_or(Store::IndexedDb, Store::Js);
        let concurrency = o.whole("concurrency")?.unwrap_or(DEFAULT_CONCURRENCY);
        let retention = o.whole("retentionMs")?.unwrap_or(DEFAULT_RETENTION_MS);
        let retention = crate::config::whole(
            retention,
            "options.retentionMs",
            " of milliseconds",
            0,
            crate::MAX_TIMEOUT_MS,
        )?;
        let config = OutboxConfig::new(config(&o, token)?, name);
        Ok(config.store(store).concurrency(concurrency).retention_ms(retention))
    };
    read().map_err(|e: Draft| e.redact(&[&secret]))
}

/// A Plant `{ name, tag? }` the app gives (the outbox's `markCreated`): `None` when it is none.
#[cfg(feature = "outbox")]
pub(crate) fn plant(value: &JsValue) -> Option<plant_store_model::Plant> {
    plain(value).ok()?;
    let text = |key: &str| own(value, key).ok().map(|v| v.map(|v| string(&v).ok()));
    let name = text("name")?.flatten()?;
    let tag = match text("tag")? {
        None => None,
        Some(tag) => Some(tag?),
    };
    Some(plant_store_model::Plant { name, tag })
}

/// The options as a [`Config`], each read by its type; [`Config::check`] judges the values.
fn config(o: &Options, token: Result<Option<String>, Draft>) -> Result<Config, Draft> {
    let auth = match (token?, o.function("getToken")?) {
        (Some(_), Some(_)) => {
            return Err(Draft::config("pass options.token or options.getToken, not both"))
        }
        (Some(token), None) => Some(Auth::Token(token)),
        (None, Some(source)) => Some(Auth::Source(callbacks::token_source(source))),
        (None, None) => None,
    };
    Ok(Config {
        base_url: o.string("baseUrl")?,
        auth,
        fetch: o.function("fetch")?.map(fetch::calling),
        signal: o.signal("signal")?,
        timeout_ms: o.whole("timeoutMs")?.unwrap_or(DEFAULT_TIMEOUT_MS),
        headers: o.record("headers")?.unwrap_or_default(),
        retry: o.object("retry")?.map(|r| retry(&r)).transpose()?.unwrap_or(Retry::OFF),
        idempotency_key: o.bool("idempotencyKey")?.unwrap_or(false),
        before: o.function("beforeAttempt")?.map(callbacks::before),
        after: o.function("afterAttempt")?.map(callbacks::after),
    })
}

/// The options of `client.createPlant(plant, { signal, retry, idempotencyKey })`; `undefined` or
/// `null` for the client's. `retry: null` is no retries.
pub(crate) fn call_options(options: &JsValue) -> Result<CallOptions, Draft> {
    if options.is_undefined() || options.is_null() {
        return Ok(CallOptions::new());
    }
    let o = Options::new(options.clone(), "call options".into())?;
    o.known(&CALL_OPTIONS)?;
    let signal = o.signal("signal")?;
    let retry = match o.get("retry")? {
        Some(value) if value.is_null() => Some(Retry::OFF),
        Some(value) => Some(retry(&Options::new(value, "call options.retry".into())?)?),
        None => None,
    };
    let key = o.typed("idempotencyKey", "a string or a boolean", |v| match v.as_bool() {
        Some(true) => Ok(IdempotencyKey::Generated),
        Some(false) => Ok(IdempotencyKey::Off),
        None => string(&v).map(IdempotencyKey::Given),
    })?;
    Ok(CallOptions { signal, retry, idempotency_key: key, after: None })
}

/// `retry: { attempts, baseDelayMs, maxDelayMs, gatewayErrors, attemptTimeoutMs }`; each key may
/// be left out (3 attempts, 100 ms, 2 s).
fn retry(o: &Options) -> Result<Retry, Draft> {
    o.known(&RETRY_OPTIONS)?;
    let mut retry = Retry::new(o.whole("attempts")?.unwrap_or(3));
    retry.base_delay_ms = o.whole("baseDelayMs")?.unwrap_or(retry.base_delay_ms);
    retry.max_delay_ms = o.whole("maxDelayMs")?.unwrap_or(retry.max_delay_ms);
    retry.gateway_errors = o.bool("gatewayErrors")?.unwrap_or(false);
    retry.attempt_timeout_ms = o.whole("attemptTimeoutMs")?;
    Ok(retry)
}

/// An options object, named in messages (`options`, `retry`, …), read through typed getters.
struct Options {
    value: JsValue,
    name: String,
}

impl Options {
    /// `value` as an options object: a `config` error when it is not a plain object.
    fn new(value: JsValue, name: String) -> Result<Options, Draft> {
        match plain(&value) {
            Ok(()) => Ok(Options { value, name }),
            Err(got) => Err(Draft::config([&name, " must be a plain object, got ", got].concat())),
        }
    }

    /// A `config` error for the first key that is not among `known` ("did you mean").
    fn known(&self, known: &[&str]) -> Result<(), Draft> {
        let listed = keys(&self.value).map_err(|cause| {
            Draft::config([&self.name, "' keys could not be listed"].concat()).with_cause(cause)
        })?;
        let Some(key) = listed.iter().find(|key| !known.contains(&key.as_str())) else {
            return Ok(());
        };
        let shown = theirs(&key.chars().take(40).collect::<String>());
        let near = suggest(key, known).map(|near| [" (did you mean \"", near, "\"?)"].concat());
        let message =
            ["unknown option \"", &shown, "\" in ", &self.name, &near.unwrap_or_default()];
        Err(Draft::config(message.concat()))
    }

    /// The option `key`, `None` unless it is an own property other than `undefined`.
    fn get(&self, key: &str) -> Result<Option<JsValue>, Draft> {
        own(&self.value, key).map_err(|cause| {
            let message = [&self.name, ".", key, " could not be read: reading it threw"];
            Draft::config(message.concat()).with_cause(cause)
        })
    }

    /// The option `key` as `cast` reads it; a `config` error "{name}.{key} must be {expected}, got
    /// {what it is}".
    fn typed<T>(
        &self,
        key: &str,
        expected: &str,
        cast: impl FnOnce(JsValue) -> Result<T, &'static str>,
    ) -> Result<Option<T>, Draft> {
        let Some(value) = self.get(key)? else {
            return Ok(None);
        };
        cast(value).map(Some).map_err(|got| self.wrong(key, expected, got))
    }

    fn wrong(&self, key: &str, expected: &str, got: &str) -> Draft {
        let message = [&self.name, ".", key, " must be ", expected, ", got ", got];
        Draft::config(message.concat())
    }

    /// The option `key` when it is an instance of `T` (a function, an AbortSignal).
    fn instance<T: JsCast>(&self, key: &str, expected: &str) -> Result<Option<T>, Draft> {
        self.typed(key, expected, |v| {
            let got = type_name(&v);
            v.dyn_into().map_err(|_| got)
        })
    }

    fn string(&self, key: &str) -> Result<Option<String>, Draft> {
        self.typed(key, "a string", |v| string(&v))
    }

    fn bool(&self, key: &str) -> Result<Option<bool>, Draft> {
        self.typed(key, "a boolean", |v| v.as_bool().ok_or(type_name(&v)))
    }

    /// A number as a `u32` for `check` to judge: one that is no `u32` (a fraction, a negative,
    /// NaN, past 2^32 − 1) is read as `u32::MAX`, which every range refuses.
    fn whole(&self, key: &str) -> Result<Option<u32>, Draft> {
        let number = self.typed(key, "a number", |v| v.as_f64().ok_or(type_name(&v)))?;
        Ok(number.map(|n| match n as u32 {
            whole if f64::from(whole) == n => whole,
            _ => u32::MAX,
        }))
    }

    fn function(&self, key: &str) -> Result<Option<Function>, Draft> {
        self.instance(key, "a function")
    }

    fn signal(&self, key: &str) -> Result<Option<AbortSignal>, Draft> {
        self.instance(key, "an AbortSignal")
    }

    /// A nested options object.
    fn object(&self, key: &str) -> Result<Option<Options>, Draft> {
        let name = || [&self.name, ".", key].concat();
        self.get(key)?.map(|value| Options::new(value, name())).transpose()
    }

    /// A plain object of strings, as name and value pairs.
    fn record(&self, key: &str) -> Result<Option<Vec<(String, String)>>, Draft> {
        let Some(record) = self.object(key)? else {
            return Ok(None);
        };
        let names = keys(&record.value).map_err(|cause| {
            Draft::config([&record.name, "' keys could not be listed"].concat()).with_cause(cause)
        })?;
        let mut pairs = Vec::with_capacity(names.len());
        for name in names {
            let value = record.string(&name)?;
            pairs.push((name, value.unwrap_or_default()));
        }
        Ok(Some(pairs))
    }
}

/// What a string that is not well-formed is, in words.
const MALFORMED: &str = "a string that is not well-formed Unicode (a lone surrogate)";

/// `value` as a Rust string, or what it is in words: its type, or [`MALFORMED`] for a string
/// with a lone surrogate, which a plain conversion would silently replace with U+FFFD (so only a
/// string that holds U+FFFD is asked `isWellFormed()`).
fn string(value: &JsValue) -> Result<String, &'static str> {
    let text = value.as_string().ok_or_else(|| type_name(value))?;
    // A byte scan: `str::contains(char)` brings a string searcher into the .wasm (its price is in
    // docs/performance.md).
    let replaced = text.as_bytes().windows(3).any(|w| w == "\u{FFFD}".as_bytes());
    if replaced && !value.unchecked_ref::<JsString>().is_well_formed() {
        return Err(MALFORMED);
    }
    Ok(text)
}

/// `typeof`, in words, for messages: `null` and `array` by their names.
fn type_name(value: &JsValue) -> &'static str {
    if value.is_null() {
        return "null";
    }
    if value.is_object() {
        return if is_array(value).unwrap_or(false) { "array" } else { "object" };
    }
    match value.js_typeof().as_string().as_deref() {
        Some("undefined") => "undefined",
        Some("boolean") => "boolean",
        Some("number") => "number",
        Some("bigint") => "bigint",
        Some("string") => "string",
        Some("symbol") => "symbol",
        Some("function") => "function",
        _ => "object",
    }
}

/// Whether `value` is a plain object: its prototype is `null` or a realm's `Object.prototype`
/// (whose own prototype is `null`). If not, what it is, in words.
fn plain(value: &JsValue) -> Result<(), &'static str> {
    if !value.is_object() {
        return Err(type_name(value));
    }
    let plain = match prototype_of(value) {
        Ok(proto) => proto.is_null() || matches!(prototype_of(&proto), Ok(up) if up.is_null()),
        Err(_) if is_array(value).is_err() => return Err("a revoked Proxy"),
        Err(_) => return Err("an object whose prototype cannot be read"),
    };
    match (plain, is_array(value)) {
        (true, _) => Ok(()),
        (false, Ok(true)) => Err("array"),
        (false, Err(_)) => Err("a revoked Proxy"),
        (false, Ok(false)) => Err("an object that is not plain (a class instance, Date, Map, …)"),
    }
}

/// The own property `key` of `object`, `None` when it has none or it is `undefined`; what a
/// getter or a Proxy trap threw.
fn own(object: &JsValue, key: &str) -> Result<Option<JsValue>, JsValue> {
    let key = JsString::from(key);
    match has_own(object, &key)? {
        true => Reflect::get(object, &key).map(|value| (!value.is_undefined()).then_some(value)),
        false => Ok(None),
    }
}

/// The own enumerable string keys of `value`; what listing them threw.
fn keys(value: &JsValue) -> Result<Vec<String>, JsValue> {
    let keys = object_keys(value)?;
    Ok(keys.iter().map(|key| key.as_string().unwrap_or_default()).collect())
}

#[wasm_bindgen]
extern "C" {
    /// A NewPlant as the caller passed it: anything, read through `catch` getters, whose property
    /// names are in the glue rather than passed on each call.
    type Candidate;
    #[wasm_bindgen(method, catch, getter)]
    fn id(this: &Candidate) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, getter)]
    fn name(this: &Candidate) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, getter)]
    fn tag(this: &Candidate) -> Result<JsValue, JsValue>;

    /// `Array.isArray(value)`; throws for a revoked Proxy.
    #[wasm_bindgen(catch, js_namespace = Array, js_name = isArray)]
    fn is_array(value: &JsValue) -> Result<bool, JsValue>;

    /// `Object.getPrototypeOf(value)`; a Proxy trap may throw.
    #[wasm_bindgen(catch, js_namespace = Object, js_name = getPrototypeOf)]
    fn prototype_of(value: &JsValue) -> Result<JsValue, JsValue>;

    /// `Object.keys(value)`: own enumerable string keys; a Proxy trap may throw.
    #[wasm_bindgen(catch, js_namespace = Object, js_name = keys)]
    fn object_keys(value: &JsValue) -> Result<Array, JsValue>;

    /// `Object.hasOwn(value, key)`; a Proxy trap may throw.
    #[wasm_bindgen(catch, js_namespace = Object, js_name = hasOwn)]
    fn has_own(value: &JsValue, key: &JsValue) -> Result<bool, JsValue>;
}
