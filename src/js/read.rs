//! JavaScript values read without trusting them: a NewPlant into the model's input (the model's
//! rules then judge it, every field at once), and the options object into a [`Client`].
//!
//! Own properties only, so a value inherited from a polluted `Object.prototype` is not the
//! caller's; nothing is coerced; each field is read once, so the value judged is the value sent. A
//! getter or Proxy trap that throws is an `unreadable` issue in a NewPlant, a `config` error with
//! the failure as `cause` in the options.
//!
//! By hand, not with serde-wasm-bindgen: it reads fields through the prototype chain, never sees
//! unknown keys, replaces a lone surrogate with U+FFFD without a word, stops at the first error,
//! and needs std (README, "Where the contract is silent").

use super::{error_to_js, fields};
use crate::config::{self, After, Before, Credential, Headers, Hook, Settings};
use crate::error::{text, Draft};
use crate::{Attempt, AttemptOutcome, CallOptions, Client, IdempotencyKey, Retry};
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use js_sys::{Array, Function, JsString, Reflect};
use plant_store_model::{
    suggest, validate_new_plant, Field, Issue, IssueCode, NewPlant, RawNewPlant,
};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::AbortSignal;

/// A NewPlant candidate as read: what the rules judge, and the values themselves.
pub(crate) struct Reading {
    raw: RawNewPlant,
    values: [JsValue; 3],
}

/// The keys of a NewPlant, in the order of its fields.
const FIELDS: [&str; 3] = ["id", "name", "tag"];

impl Reading {
    /// Reads `value`; a value that is not a plain object, or whose keys cannot be listed, is one
    /// issue about the whole.
    pub(crate) fn new(value: &JsValue) -> Result<Reading, Vec<Issue>> {
        plain(value).map_err(|got| alloc::vec![Issue::not_an_object(got)])?;
        let keys = own_keys(value).map_err(|_| {
            alloc::vec![Issue {
                path: String::new(),
                code: IssueCode::Unreadable,
                message: "the NewPlant's keys could not be listed: listing them threw".into(),
            }]
        })?;
        let mut listed = [false; 3];
        let mut unknown = Vec::new();
        for key in keys {
            match FIELDS.iter().position(|field| *field == key) {
                Some(at) => listed[at] = true,
                None => unknown.push(key),
            }
        }
        let candidate = value.unchecked_ref::<Candidate>();
        let id = read_field(candidate, "id", listed[0], Candidate::id);
        let name = read_field(candidate, "name", listed[1], Candidate::name);
        let tag = read_field(candidate, "tag", listed[2], Candidate::tag);
        Ok(Reading {
            raw: RawNewPlant {
                id: id.1,
                name: name.1,
                tag: tag.1,
                unknown,
            },
            values: [id.0, name.0, tag.0],
        })
    }

    /// The NewPlant, or every issue.
    pub(crate) fn judge(self) -> Result<NewPlant, Vec<Issue>> {
        validate_new_plant(self.raw)
    }

    /// For `validateNewPlant`: a fresh `{ id, name, tag? }` when valid (`id` keeps its type;
    /// -0 becomes 0), or every issue.
    pub(crate) fn value(self) -> Result<JsValue, Vec<Issue>> {
        let Reading { raw, values } = self;
        validate_new_plant(raw)?;
        let [id, name, tag] = values;
        // -0 is 0: a fresh value, not the caller's -0.
        let id = match id.as_f64() {
            Some(0.0) => JsValue::from_f64(0.0),
            _ => id,
        };
        let fresh = super::fields();
        fresh.set_id(&id);
        fresh.set_name(&name);
        if !tag.is_undefined() {
            fresh.set_tag(&tag);
        }
        Ok(fresh.into())
    }
}

/// Whether `value` is a plain object: its prototype is `null` or a realm's `Object.prototype`
/// (whose own prototype is `null`). If not, what it is, in words.
fn plain(value: &JsValue) -> Result<(), &'static str> {
    if !value.is_object() {
        return Err(type_name(value));
    }
    match prototype_of(value) {
        Ok(proto) if proto.is_null() || OBJECT_PROTOTYPE.with(|own| proto == *own) => return Ok(()),
        Ok(proto) => {
            if matches!(prototype_of(&proto), Ok(up) if up.is_null()) {
                return Ok(());
            }
        }
        Err(_) => {
            return Err(match is_array(value) {
                Err(_) => "a revoked Proxy",
                Ok(_) => "an object whose prototype cannot be read",
            })
        }
    }
    Err(match is_array(value) {
        Ok(true) => "array",
        Err(_) => "a revoked Proxy",
        Ok(false) => "an object that is not plain (a class instance, Date, Map, …)",
    })
}

/// One field: its value (undefined when absent or unreadable) and what the rules make of it.
/// `listed`: `Object.keys` named it, so it is an own property; else `Object.hasOwn` is asked.
fn read_field(
    object: &Candidate,
    key: &str,
    listed: bool,
    get: fn(&Candidate) -> Result<JsValue, JsValue>,
) -> (JsValue, Field) {
    let own = listed || {
        match has_own(object, &key.into()) {
            Ok(own) => own,
            // A Proxy trap threw: as unreadable as a throwing getter.
            Err(_) => return (JsValue::UNDEFINED, Field::Unreadable),
        }
    };
    if !own {
        return (JsValue::UNDEFINED, Field::Absent);
    }
    match get(object) {
        Ok(value) => {
            let field = field(&value, key == "id");
            (value, field)
        }
        Err(_) => (JsValue::UNDEFINED, Field::Unreadable),
    }
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
    match well_formed_string(value) {
        Ok(text) => Field::Str(text),
        Err(None) => Field::MalformedStr,
        Err(Some(type_name)) => match type_name {
            "undefined" => Field::Absent,
            "null" => Field::Null,
            "boolean" => Field::Bool,
            other => Field::Other(other),
        },
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

const RETRY_OPTIONS: [&str; 5] = [
    "attempts",
    "baseDelayMs",
    "maxDelayMs",
    "gatewayErrors",
    "attemptTimeoutMs",
];

/// The client `options` describe; a `config` error for the first wrong option. `options.token` is
/// read first (once), so that the error holds no piece of it, whatever it is about.
pub(crate) fn client(options: &JsValue) -> Result<Client, crate::Error> {
    let token = own(options, "token");
    let secret = token
        .as_ref()
        .ok()
        .and_then(JsValue::as_string)
        .unwrap_or_default();
    settings(options, token)
        .map(Client::from_settings)
        .map_err(|draft| draft.redact(&secret))
}

fn settings(options: &JsValue, token: Result<JsValue, JsValue>) -> Result<Settings, Draft> {
    let options = Options::new(options, "options", &CLIENT_OPTIONS)?;
    let base = options.get("baseUrl")?;
    if base.is_undefined() {
        return Err(Draft::config(
            "options.baseUrl is required, for example https://plants.example/api",
        ));
    }
    let base = well_formed_string(&base).map_err(|got| match got {
        Some(type_name) => wrong_type("baseUrl", "a string", type_name),
        None => Draft::config("options.baseUrl is not well-formed Unicode"),
    })?;
    let url = config::plants_url(&base)?;
    let token = token.map_err(|cause| unreadable("options", "token", cause))?;
    let get_token = options.get("getToken")?;
    let credential = match (token.is_undefined(), get_token.is_undefined()) {
        (false, false) => {
            return Err(Draft::config(
                "pass options.token or options.getToken, not both",
            ))
        }
        (true, true) => return Err(config::missing_token()),
        (false, true) => {
            let token = well_formed_string(&token).map_err(|got| match got {
                Some(type_name) => wrong_type("token", "a string", type_name),
                None => Draft::config(
                    "options.token: token is not well-formed Unicode; its value is not shown",
                ),
            })?;
            Credential::Fixed(config::checked_token(token, "options.token")?)
        }
        (true, false) => Credential::Source(function(get_token, "getToken")?),
    };
    let fetch = options.get("fetch")?;
    let fetch = match fetch.is_undefined() {
        true => None,
        false => Some(function(fetch, "fetch")?),
    };
    let timeout = options.get("timeoutMs")?;
    let timeout_ms = match timeout.as_f64() {
        _ if timeout.is_undefined() => config::DEFAULT_TIMEOUT_MS,
        Some(ms) => config::timeout(ms)?,
        None => return Err(wrong_type("timeoutMs", "a number", type_name(&timeout))),
    };
    let headers = headers(&options.get("headers")?)?;
    let signal = signal(options.get("signal")?)?;
    let mut settings = Settings::new(url, headers, credential, fetch, signal, timeout_ms);
    if let Some(retry) = retry(&options.get("retry")?, "options.retry")? {
        settings.retry = retry;
    }
    let key = options.get("idempotencyKey")?;
    settings.idempotency_key = match key.as_bool() {
        Some(on) => on,
        None if key.is_undefined() => false,
        None => return Err(wrong_type("idempotencyKey", "a boolean", type_name(&key))),
    };
    let before = options.get("beforeAttempt")?;
    if !before.is_undefined() {
        settings.before = Some(before_attempt(function(before, "beforeAttempt")?));
    }
    let after = options.get("afterAttempt")?;
    if !after.is_undefined() {
        settings.after = Some(after_attempt(function(after, "afterAttempt")?));
    }
    Ok(settings)
}

/// The options of `client.createPlant(plant, { signal, retry, idempotencyKey })`; `undefined` or
/// `null` for the client's.
pub(crate) fn call_options(options: &JsValue) -> Result<CallOptions, Draft> {
    let mut call = CallOptions::new();
    if options.is_undefined() || options.is_null() {
        return Ok(call);
    }
    let options = Options::new(
        options,
        "call options",
        &["signal", "retry", "idempotencyKey"],
    )?;
    call.signal = signal(options.get("signal")?)?;
    let retry = options.get("retry")?;
    call.retry = match retry.is_null() {
        true => Some(Retry::OFF),
        false => self::retry(&retry, "call options.retry")?,
    };
    let key = options.get("idempotencyKey")?;
    call.idempotency_key = match (key.as_bool(), key.as_string()) {
        (Some(true), _) => Some(IdempotencyKey::Generated),
        (Some(false), _) => Some(IdempotencyKey::Off),
        (_, Some(key)) => Some(IdempotencyKey::Given(key)),
        _ if key.is_undefined() => None,
        _ => {
            let got = type_name(&key);
            let message = [
                "call options.idempotencyKey must be a string or a boolean, got ",
                got,
            ];
            return Err(Draft::config(text(&message)));
        }
    };
    Ok(call)
}

/// `retry: { attempts, baseDelayMs, maxDelayMs, gatewayErrors, attemptTimeoutMs }`, named `what`
/// in messages; `None` for `undefined`. Every key may be left out (3 attempts, 100 ms, 2 s).
fn retry(value: &JsValue, what: &str) -> Result<Option<Retry>, Draft> {
    if value.is_undefined() {
        return Ok(None);
    }
    let options = Options::new(value, what, &RETRY_OPTIONS)?;
    let number = |key: &str| -> Result<Option<f64>, Draft> {
        let value = options.get(key)?;
        match value.as_f64() {
            Some(n) => Ok(Some(n)),
            None if value.is_undefined() => Ok(None),
            None => Err(Draft::config(text(&[
                "retry.",
                key,
                " must be a number, got ",
                type_name(&value),
            ]))),
        }
    };
    let default = Retry::new(3);
    let numbers = [
        number("attempts")?.unwrap_or(3.0),
        number("baseDelayMs")?.unwrap_or(default.base_delay_ms.into()),
        number("maxDelayMs")?.unwrap_or(default.max_delay_ms.into()),
    ];
    let limit = number("attemptTimeoutMs")?;
    let gateway = options.get("gatewayErrors")?;
    let gateway = match gateway.as_bool() {
        Some(on) => on,
        None if gateway.is_undefined() => false,
        None => {
            let got = type_name(&gateway);
            return Err(Draft::config(text(&[
                "retry.gatewayErrors must be a boolean, got ",
                got,
            ])));
        }
    };
    Retry::checked(numbers, limit, gateway).map(Some)
}

/// A JS `beforeAttempt(attempt)`, called with `{ url, attempt, headers }`.
fn before_attempt(hook: Function) -> Hook<Before> {
    Hook(Rc::new(move |attempt: &Attempt<'_>| {
        let seen = fields();
        seen.set_url(attempt.url);
        seen.set_attempt(attempt.number);
        seen.set_headers(attempt.headers);
        hook.call1(&JsValue::UNDEFINED, &seen).map(drop)
    }))
}

/// A JS `afterAttempt(outcome)`, called with `{ url, attempt, durationMs, status?, headers?,
/// error? }`.
fn after_attempt(hook: Function) -> Hook<After> {
    Hook(Rc::new(move |outcome: &AttemptOutcome<'_>| {
        let seen = fields();
        seen.set_url(outcome.url);
        seen.set_attempt(outcome.number);
        seen.set_duration_ms(outcome.duration_ms);
        if let Some(status) = outcome.status {
            seen.set_status(status);
        }
        if let Some(headers) = outcome.headers {
            seen.set_headers(headers);
        }
        if let Some(error) = outcome.error {
            seen.set_error(&error_to_js(error));
        }
        hook.call1(&JsValue::UNDEFINED, &seen).map(drop)
    }))
}

/// An options object: a plain object whose keys are all among the known ones.
struct Options<'a> {
    value: &'a JsValue,
    what: &'a str,
}

impl<'a> Options<'a> {
    /// `what` names the object in messages.
    fn new(value: &'a JsValue, what: &'a str, known: &[&str]) -> Result<Options<'a>, Draft> {
        for key in plain_keys(value, what, "a plain object")? {
            if !known.contains(&key.as_str()) {
                let shown: String = key.chars().take(40).collect();
                let mut message = text(&["unknown option \"", &shown, "\" in ", what]);
                if let Some(near) = suggest(&key, known) {
                    message.push_str(&text(&[" (did you mean \"", near, "\"?)"]));
                }
                return Err(Draft::config(message));
            }
        }
        Ok(Options { value, what })
    }

    /// The option `key`: `undefined` unless it is an own property.
    fn get(&self, key: &str) -> Result<JsValue, Draft> {
        own(self.value, key).map_err(|cause| unreadable(self.what, key, cause))
    }
}

fn unreadable(what: &str, key: &str, cause: JsValue) -> Draft {
    let message = [what, ".", key, " could not be read: reading it threw"];
    Draft::config(text(&message)).with_cause(cause)
}

/// The own property `key` of `object`, `undefined` when it has none; what a getter or trap threw.
fn own(object: &JsValue, key: &str) -> Result<JsValue, JsValue> {
    let key = JsString::from(key);
    match has_own(object, &key)? {
        true => Reflect::get(object, &key),
        false => Ok(JsValue::UNDEFINED),
    }
}

/// The own enumerable keys of `value` when it is a plain object; else a `config` error:
/// "{what} must be {expected}, got …".
fn plain_keys(value: &JsValue, what: &str, expected: &str) -> Result<Vec<String>, Draft> {
    plain(value)
        .map_err(|got| Draft::config(text(&[what, " must be ", expected, ", got ", got])))?;
    own_keys(value).map_err(|cause| {
        Draft::config(text(&[what, "' keys could not be listed"])).with_cause(cause)
    })
}

fn wrong_type(key: &str, expected: &str, got: &str) -> Draft {
    Draft::config(text(&[
        "options.",
        key,
        " must be ",
        expected,
        ", got ",
        got,
    ]))
}

fn function(value: JsValue, key: &str) -> Result<Function, Draft> {
    let got = type_name(&value);
    value
        .dyn_into::<Function>()
        .map_err(|_| wrong_type(key, "a function", got))
}

fn signal(value: JsValue) -> Result<Option<AbortSignal>, Draft> {
    if value.is_undefined() {
        return Ok(None);
    }
    let got = type_name(&value);
    value
        .dyn_into::<AbortSignal>()
        .map(Some)
        .map_err(|_| wrong_type("signal", "an AbortSignal", got))
}

/// `options.headers`: a plain object of strings, each name checked before its value is read.
fn headers(extra: &JsValue) -> Result<Headers, Draft> {
    let mut headers = Headers::new();
    if extra.is_undefined() {
        return Ok(headers);
    }
    for name in plain_keys(extra, "options.headers", "a plain object of strings")? {
        let shown = Headers::settable(&name)?;
        let value = own(extra, &name).map_err(|cause| {
            Draft::config(text(&[
                "options.headers[\"",
                &shown,
                "\"] could not be read",
            ]))
            .with_cause(cause)
        })?;
        let value = well_formed_string(&value).map_err(|got| {
            let got = got.unwrap_or("string");
            Draft::config(text(&[
                "options.headers[\"",
                &shown,
                "\"] must be a string, got ",
                got,
            ]))
        })?;
        headers.set(&shown, &name, &value)?;
    }
    Ok(headers)
}

/// `typeof`, in words, for messages: `null` and `array` by their names.
pub(crate) fn type_name(value: &JsValue) -> &'static str {
    if value.is_null() {
        return "null";
    }
    if value.is_object() {
        return if is_array(value).unwrap_or(false) {
            "array"
        } else {
            "object"
        };
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

/// `value` as a Rust string when it is a well-formed JS string. `Err(Some(type))` for a value
/// that is not a string, `Err(None)` for one with a lone surrogate (which a plain conversion
/// would silently replace with U+FFFD): only a string holding U+FFFD is asked `isWellFormed()`.
pub(crate) fn well_formed_string(value: &JsValue) -> Result<String, Option<&'static str>> {
    let Some(text) = value.as_string() else {
        return Err(Some(type_name(value)));
    };
    // A byte scan: `str::contains(char)` would bring core's slicing panics and their formatting.
    let replaced = text
        .as_bytes()
        .windows(3)
        .any(|w| w == "\u{FFFD}".as_bytes());
    if replaced && !value.unchecked_ref::<JsString>().is_well_formed() {
        return Err(None);
    }
    Ok(text)
}

/// The own enumerable string keys of `value`, as Rust strings; what listing them threw.
fn own_keys(value: &JsValue) -> Result<Vec<String>, JsValue> {
    let keys = keys(value)?;
    Ok(keys
        .iter()
        .map(|key| key.as_string().unwrap_or_default())
        .collect())
}

#[wasm_bindgen]
extern "C" {
    /// A NewPlant as the caller passed it: anything, read through `catch` getters.
    type Candidate;

    #[wasm_bindgen(method, catch, getter)]
    fn id(this: &Candidate) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, getter)]
    fn name(this: &Candidate) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, getter)]
    fn tag(this: &Candidate) -> Result<JsValue, JsValue>;

    /// This realm's `Object.prototype`.
    #[wasm_bindgen(thread_local_v2, js_namespace = Object, js_name = prototype)]
    static OBJECT_PROTOTYPE: JsValue;

    /// `Array.isArray(value)`; throws for a revoked Proxy.
    #[wasm_bindgen(catch, js_namespace = Array, js_name = isArray)]
    fn is_array(value: &JsValue) -> Result<bool, JsValue>;

    /// `Object.getPrototypeOf(value)`; a Proxy trap may throw.
    #[wasm_bindgen(catch, js_namespace = Object, js_name = getPrototypeOf)]
    fn prototype_of(value: &JsValue) -> Result<JsValue, JsValue>;

    /// `Object.keys(value)`: own enumerable string keys; a Proxy trap may throw.
    #[wasm_bindgen(catch, js_namespace = Object, js_name = keys)]
    fn keys(value: &JsValue) -> Result<Array, JsValue>;

    /// `Object.hasOwn(value, key)`; a Proxy trap may throw.
    #[wasm_bindgen(catch, js_namespace = Object, js_name = hasOwn)]
    fn has_own(value: &JsValue, key: &JsValue) -> Result<bool, JsValue>;
}
