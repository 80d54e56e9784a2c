//! The JavaScript API (`createPlant`, `PlantStoreClient`, `validateNewPlant`; its TypeScript is
//! `types.d.ts`) over [`Client`]: JS values in, the call as a promise, JS values out. JS values are
//! read by hand, not trusted: a NewPlant into the model's input, which its rules judge; the options
//! through one generic getter ([`Options::get`]) into [`Config`] and [`CallOptions`], which
//! `Config::check` judges. Own properties only, nothing coerced, each read once (the value judged
//! is the value sent); a getter that throws is an `unreadable` issue, or a `config` error with the
//! failure as `cause`. Not serde-wasm-bindgen: it reads through the prototype chain, never sees
//! unknown keys, replaces a lone surrogate with U+FFFD silently, and stops at the first error.

use crate::client::{plant_object, Client};
use crate::config::{Auth, CallOptions, Config, IdempotencyKey, KeyFormat, Retry};
use crate::config::{DEFAULT_KEY_LIFETIME_MS, DEFAULT_TIMEOUT_MS};
use crate::error::{Draft, Error};
use crate::js::callbacks;
use crate::js::error::{issues_to_js, object};
use crate::names::JS;
use crate::redact::theirs;
use alloc::string::String;
use alloc::vec::Vec;
use js_sys::{Array, Function, JsString, Promise, Reflect};
use plant_store_model::{suggest, validate, Field, Issue, IssueCode, NewPlant, Plant, RawNewPlant};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::AbortSignal;

/// The TypeScript of the API, by hand (the exports are `skip_typescript`): wasm-bindgen cannot write
/// a union discriminated by `kind`, and would declare `[Symbol.dispose]` (an ESNext `lib`).
#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = include_str!("types.d.ts");

/// Validates `plant` locally, then sends it to `POST {baseUrl}/plants`: the created Plant, or a
/// `PlantStoreError`. The options are checked on every call (a `PlantStoreClient`'s, once).
#[wasm_bindgen(js_name = createPlant, skip_typescript)]
pub fn create_plant(plant: JsValue, options: JsValue) -> Promise {
    match client(&options) {
        Ok(client) => submit(&client, &plant, &CallOptions::new()),
        Err(error) => Promise::reject(&error.to_js()),
    }
}

/// Checks a NewPlant without sending anything (for forms): every issue at once, or the plant as it
/// would be sent, its `id` of the type it was given.
#[wasm_bindgen(js_name = validateNewPlant, skip_typescript)]
pub fn validate_new_plant(plant: JsValue) -> JsValue {
    let (ok, key, value) = match new_plant(&plant) {
        Ok((plant, bigint)) => {
            // Exact: a number id is a safe integer.
            let id = if bigint { JsValue::from(plant.id) } else { JsValue::from(plant.id as f64) };
            (true, "value", plant_object(Some(&id), &plant.name, plant.tag.as_deref()).into())
        }
        Err(issues) => (false, "issues", issues_to_js(&issues)),
    };
    object(&[("ok", ok.into()), (key, value)]).into()
}

/// A client with checked options, for many calls.
#[wasm_bindgen(skip_typescript)]
#[derive(Debug)]
pub struct PlantStoreClient(Client);

#[wasm_bindgen]
impl PlantStoreClient {
    /// Checks the options once; throws a `PlantStoreError` of kind `config`.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<PlantStoreClient, JsValue> {
        client(&options).map(PlantStoreClient).map_err(|error| error.to_js())
    }

    /// Validates and sends `plant`; `options` may change this call's signal, retries and key.
    #[wasm_bindgen(js_name = createPlant)]
    pub fn create_plant(&self, plant: JsValue, options: JsValue) -> Promise {
        match call_options(&options) {
            Ok(options) => submit(&self.0, &plant, &options),
            Err(draft) => Promise::reject(&self.0.redact(draft).to_js()),
        }
    }
}

/// Reads `plant` and, when the rules accept it, starts the call at once: the promise of its Plant
/// as a fresh `{ name, tag? }`, already rejected for a call that fails before it sends anything.
fn submit(client: &Client, plant: &JsValue, options: &CallOptions) -> Promise {
    let started = new_plant(plant)
        .map_err(|issues| client.redact(Draft::validation(issues)))
        .and_then(|(plant, _)| client.start(&plant, options));
    let end = |outcome: Result<Plant, Error>| match outcome {
        Ok(plant) => Ok(plant_object(None, &plant.name, plant.tag.as_deref()).into()),
        Err(error) => Err(error.to_js()),
    };
    match started {
        Ok(call) => crate::shell::run(call, end),
        Err(error) => Promise::reject(&error.to_js()),
    }
}

/// The keys of a NewPlant, in the order of its fields.
const FIELDS: [&str; 3] = ["id", "name", "tag"];

/// A NewPlant, judged by the model's rules: it and whether its id was a BigInt, or every issue.
pub(crate) fn new_plant(value: &JsValue) -> Result<(NewPlant, bool), Vec<Issue>> {
    plain(value).map_err(|got| alloc::vec![Issue::not_an_object(got)])?;
    let keys = keys(value).map_err(|_| {
        let message = "the NewPlant's keys could not be listed: listing them threw";
        let code = IssueCode::Unreadable;
        alloc::vec![Issue { path: String::new(), code, message: message.into() }]
    })?;
    let listed = FIELDS.map(|field| keys.iter().any(|key| key == field));
    let unknown = keys.into_iter().filter(|key| !FIELDS.contains(&key.as_str()));
    // A field `Object.keys` listed is read through its getter binding, another with `own`.
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
    validate::validate_new_plant(raw).map(|plant| (plant, bigint))
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
    match String::read(value.clone()) {
        Ok(text) => Field::Str(text),
        Err(MALFORMED) => Field::MalformedStr,
        Err("undefined") => Field::Absent,
        Err("null") => Field::Null,
        Err("boolean") => Field::Bool,
        Err(other) => Field::Other(other),
    }
}

/// The client's options: how to reach the store, and what each attempt sends and runs.
const REACH: [&str; 6] = ["baseUrl", "token", "getToken", "fetch", "signal", "timeoutMs"];
const ATTEMPT: [&str; 7] = [
    "headers",
    "retry",
    "idempotencyKey",
    "idempotencyKeyFormat",
    "keyLifetimeMs",
    "beforeAttempt",
    "afterAttempt",
];

/// The client `options` describe, checked.
pub(crate) fn client(options: &JsValue) -> Result<Client, Error> {
    let o = Options::of(options.clone(), "options").map_err(|draft| draft.redact(&[]))?;
    Client::new(config(&o, &[])?)
}

/// The client's options as a [`Config`], for `Config::check` to judge; `more` keys allowed.
pub(crate) fn config(o: &Options, more: &[&str]) -> Result<Config, Error> {
    let mut config = Config::named(None, &JS);
    // The token first: an error about any option is redacted against it.
    let token = o.get::<String>("token");
    let token = token.map(|token| config.auth = token.map(Auth::Token));
    let read = (|| {
        o.known(&[&REACH[..], &ATTEMPT, more].concat())?;
        token?;
        if let Some(get) = o.get::<Function>("getToken")? {
            if config.auth.is_some() {
                return Err(Draft::config("pass options.token or options.getToken, not both"));
            }
            config.auth = Some(Auth::Source(get));
        }
        config.base_url = o.get::<String>("baseUrl")?;
        config.fetch = o.get::<Function>("fetch")?;
        config.signal = o.get::<AbortSignal>("signal")?;
        config.timeout_ms = o.get::<u32>("timeoutMs")?.unwrap_or(DEFAULT_TIMEOUT_MS);
        if let Some(headers) = o.value("headers")? {
            config.headers = Options::of(headers, "options.headers")?.record()?;
        }
        if let Some(retry_options) = o.value("retry")? {
            config.retry = Some(retry(&Options::of(retry_options, "options.retry")?)?);
        }
        if o.get::<bool>("idempotencyKey")? == Some(true) {
            config.idempotency_key = IdempotencyKey::Generated;
        }
        config.key_format = match o.get::<String>("idempotencyKeyFormat")?.as_deref() {
            None | Some("quoted") => KeyFormat::Quoted,
            Some("bare") => KeyFormat::Bare,
            Some(other) => {
                let got = theirs(&other.chars().take(40).collect::<String>());
                let message =
                    ["options.idempotencyKeyFormat must be 'quoted' or 'bare', got '", &got];
                return Err(Draft::config([&message.concat(), "'"].concat()));
            }
        };
        config.key_lifetime_ms = o.get::<f64>("keyLifetimeMs")?.unwrap_or(DEFAULT_KEY_LIFETIME_MS);
        config.before = o.get::<Function>("beforeAttempt")?.map(callbacks::before);
        config.after = o.get::<Function>("afterAttempt")?.map(callbacks::after);
        Ok(())
    })();
    read.map_err(|draft: Draft| draft.redact(&[config.secret()]))?;
    Ok(config)
}

/// The options of `client.createPlant(plant, { signal, retry, idempotencyKey })`; `undefined` or
/// `null` for the client's. `retry: null` is no retries.
pub(crate) fn call_options(options: &JsValue) -> Result<CallOptions, Draft> {
    if options.is_undefined() || options.is_null() {
        return Ok(CallOptions::new());
    }
    let o = Options::of(options.clone(), "call options")?;
    o.known(&["signal", "retry", "idempotencyKey"])?;
    let signal = o.get::<AbortSignal>("signal")?;
    let retry = match o.value("retry")? {
        Some(value) if value.is_null() => Some(Retry::OFF),
        Some(value) => Some(retry(&Options::of(value, "call options.retry")?)?),
        None => None,
    };
    let idempotency_key = o.get::<IdempotencyKey>("idempotencyKey")?;
    Ok(CallOptions { signal, retry, idempotency_key, after: None })
}

/// `retry: { attempts, baseDelayMs, maxDelayMs, gatewayErrors, attemptTimeoutMs }`, all optional.
fn retry(o: &Options) -> Result<Retry, Draft> {
    o.known(&["attempts", "baseDelayMs", "maxDelayMs", "gatewayErrors", "attemptTimeoutMs"])?;
    let mut retry = Retry::new(o.get::<u32>("attempts")?.unwrap_or(3));
    retry.base_delay_ms = o.get::<u32>("baseDelayMs")?.unwrap_or(retry.base_delay_ms);
    retry.max_delay_ms = o.get::<u32>("maxDelayMs")?.unwrap_or(retry.max_delay_ms);
    retry.gateway_errors = o.get::<bool>("gatewayErrors")?.unwrap_or(false);
    retry.attempt_timeout_ms = o.get::<u32>("attemptTimeoutMs")?;
    Ok(retry)
}

/// An options object, named in messages (`options`, `options.retry`, …).
pub(crate) struct Options {
    value: JsValue,
    name: String,
}

impl Options {
    /// `value` as the options object `name`: a `config` error when it is not a plain object.
    pub(crate) fn of(value: JsValue, name: &str) -> Result<Options, Draft> {
        match plain(&value) {
            Ok(()) => Ok(Options { value, name: name.into() }),
            Err(got) => Err(Draft::config([name, " must be a plain object, got ", got].concat())),
        }
    }

    /// A `config` error for the first key that is not among `known` ("did you mean").
    fn known(&self, known: &[&str]) -> Result<(), Draft> {
        let listed = self.keys()?;
        let Some(key) = listed.iter().find(|key| !known.contains(&key.as_str())) else {
            return Ok(());
        };
        let shown = theirs(&key.chars().take(40).collect::<String>());
        let near = suggest(key, known).map(|near| [" (did you mean \"", near, "\"?)"].concat());
        let client = self.name == "call options"
            && (REACH.contains(&key.as_str()) || ATTEMPT.contains(&key.as_str()));
        let near = near.or_else(|| client.then(|| " (an option of new PlantStoreClient)".into()));
        let message =
            ["unknown option \"", &shown, "\" in ", &self.name, &near.unwrap_or_default()];
        Err(Draft::config(message.concat()))
    }

    /// The option `key` as a `T` (`None` when absent); a `config` error "{name}.{key} must be
    /// {T::EXPECTED}, got {what it is}". Generic only in `T::read`: one copy of the rest.
    pub(crate) fn get<T: Read>(&self, key: &str) -> Result<Option<T>, Draft> {
        let value = self.value(key)?;
        value.map(T::read).transpose().map_err(|got| self.wrong(key, T::EXPECTED, got))
    }

    /// The option `key` (`None` when absent); a `config` error whose cause is what reading threw.
    pub(crate) fn value(&self, key: &str) -> Result<Option<JsValue>, Draft> {
        own(&self.value, key).map_err(|cause| {
            let message = [&self.name, ".", key, " could not be read: reading it threw"];
            Draft::config(message.concat()).with_cause(cause)
        })
    }

    fn wrong(&self, key: &str, expected: &str, got: &str) -> Draft {
        let message = [&self.name, ".", key, " must be ", expected, ", got ", got];
        Draft::config(message.concat())
    }

    /// A plain object of strings, as name and value pairs.
    fn record(&self) -> Result<Vec<(String, String)>, Draft> {
        let names = self.keys()?;
        let mut pairs = Vec::with_capacity(names.len());
        for name in names {
            let value = self.get::<String>(&name)?;
            pairs.push((name, value.unwrap_or_default()));
        }
        Ok(pairs)
    }

    /// The object's own enumerable string keys; a `config` error when listing them threw.
    fn keys(&self) -> Result<Vec<String>, Draft> {
        keys(&self.value).map_err(|cause| {
            Draft::config([&self.name, "' keys could not be listed"].concat()).with_cause(cause)
        })
    }
}

/// A value an option may hold, read from JS without coercion: `Err` says what it is instead.
pub(crate) trait Read: Sized {
    /// What the option must be, in words, for the message.
    const EXPECTED: &'static str;
    fn read(value: JsValue) -> Result<Self, &'static str>;
}

/// What a string that is not well-formed is, in words.
const MALFORMED: &str = "a string that is not well-formed Unicode (a lone surrogate)";

impl Read for String {
    const EXPECTED: &'static str = "a string";
    /// A string, or [`MALFORMED`] for one with a lone surrogate, which a plain conversion would
    /// silently replace with U+FFFD (so only a string that holds U+FFFD is asked `isWellFormed()`).
    fn read(value: JsValue) -> Result<String, &'static str> {
        let text = value.as_string().ok_or_else(|| type_name(&value))?;
        // A byte scan: `str::contains(char)` brings a string searcher (docs/performance.md).
        let replaced = text.as_bytes().windows(3).any(|w| w == "\u{FFFD}".as_bytes());
        if replaced && !value.unchecked_ref::<JsString>().is_well_formed() {
            return Err(MALFORMED);
        }
        Ok(text)
    }
}

impl Read for bool {
    const EXPECTED: &'static str = "a boolean";
    fn read(value: JsValue) -> Result<bool, &'static str> {
        value.as_bool().ok_or_else(|| type_name(&value))
    }
}

impl Read for u32 {
    const EXPECTED: &'static str = "a number";
    /// A number as a `u32` for `Config::check` to judge: one that is no `u32` (a fraction, a
    /// negative, NaN, past 2^32 − 1) is read as `u32::MAX`, which every range refuses.
    fn read(value: JsValue) -> Result<u32, &'static str> {
        let n = value.as_f64().ok_or_else(|| type_name(&value))?;
        Ok(if f64::from(n as u32) == n { n as u32 } else { u32::MAX })
    }
}

impl Read for f64 {
    const EXPECTED: &'static str = "a number";
    fn read(value: JsValue) -> Result<f64, &'static str> {
        value.as_f64().ok_or_else(|| type_name(&value))
    }
}

impl Read for Function {
    const EXPECTED: &'static str = "a function";
    fn read(value: JsValue) -> Result<Function, &'static str> {
        value.dyn_into().map_err(|value| type_name(&value))
    }
}

impl Read for AbortSignal {
    const EXPECTED: &'static str = "an AbortSignal";
    fn read(value: JsValue) -> Result<AbortSignal, &'static str> {
        value.dyn_into().map_err(|value| type_name(&value))
    }
}

impl Read for IdempotencyKey {
    const EXPECTED: &'static str = "a string or a boolean";
    fn read(value: JsValue) -> Result<IdempotencyKey, &'static str> {
        match value.as_bool() {
            Some(true) => Ok(IdempotencyKey::Generated),
            Some(false) => Ok(IdempotencyKey::Off),
            None => String::read(value).map(IdempotencyKey::Given),
        }
    }
}

/// `typeof`, in words, for messages: `null` and `array` by their names.
fn type_name(value: &JsValue) -> &'static str {
    if value.is_null() {
        return "null";
    }
    if value.is_object() {
        return if is_array(value).unwrap_or(false) { "array" } else { "object" };
    }
    let types = ["undefined", "boolean", "number", "bigint", "string", "symbol", "function"];
    let name = value.js_typeof().as_string();
    types.into_iter().find(|&t| name.as_deref() == Some(t)).unwrap_or("object")
}

/// Whether `value` is a plain object (its prototype `null` or a realm's `Object.prototype`), or
/// else what it is, in words.
fn plain(value: &JsValue) -> Result<(), &'static str> {
    if !value.is_object() {
        return Err(type_name(value));
    }
    let plain = match Reflect::get_prototype_of(value) {
        Ok(proto) => {
            proto.is_null() || matches!(Reflect::get_prototype_of(&proto), Ok(up) if up.is_null())
        }
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

/// The own property `key` of `object`, `None` when absent or `undefined`; or what reading threw.
fn own(object: &JsValue, key: &str) -> Result<Option<JsValue>, JsValue> {
    let key = JsString::from(key);
    match has_own(object, &key)? {
        true => Reflect::get(object, &key).map(|value| (!value.is_undefined()).then_some(value)),
        false => Ok(None),
    }
}

/// The own enumerable string keys of `value`; what listing them threw.
pub(crate) fn keys(value: &JsValue) -> Result<Vec<String>, JsValue> {
    Ok(object_keys(value)?.iter().map(|key| key.as_string().unwrap_or_default()).collect())
}

#[wasm_bindgen]
extern "C" {
    /// A NewPlant as passed: anything, read through `catch` getters named in the glue.
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

    /// `Object.keys(value)`: own enumerable string keys; a Proxy trap may throw.
    #[wasm_bindgen(catch, js_namespace = Object, js_name = keys)]
    fn object_keys(value: &JsValue) -> Result<Array, JsValue>;

    /// `Object.hasOwn(value, key)`; a Proxy trap may throw.
    #[wasm_bindgen(catch, js_namespace = Object, js_name = hasOwn)]
    fn has_own(value: &JsValue, key: &JsValue) -> Result<bool, JsValue>;
}
