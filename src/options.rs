//! The client's options, checked once: a bad option is a `config` error before anything is sent.

use crate::answer::{Engine, ERROR_BODY_LIMIT, SUCCESS_BODY_LIMIT};
use crate::error::Error;
use crate::input::{type_name, well_formed_string, PlainObject};
use crate::js::{self, AbortSignal};
use alloc::borrow::ToOwned;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use js_sys::Function;
use plant_store_model::{plants_url, suggest, Token};
use wasm_bindgen::{JsCast, JsValue};

/// The timeout when `timeoutMs` is not given: 10 seconds.
pub const DEFAULT_TIMEOUT_MS: u32 = 10_000;
/// The longest timeout `setTimeout` can hold (2^31 − 1 ms, about 24.8 days).
const MAX_TIMEOUT_MS: f64 = 2_147_483_647.0;

const CLIENT_OPTIONS: [&str; 7] = [
    "baseUrl",
    "token",
    "getToken",
    "fetch",
    "signal",
    "timeoutMs",
    "headers",
];
const CALL_OPTIONS: [&str; 1] = ["signal"];

/// Where the token comes from.
pub enum Auth {
    /// A fixed token, checked at construction.
    Token(Token),
    /// A function called before each request; its answer is checked each time.
    Getter(Function),
}

impl fmt::Debug for Auth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Auth::Token(token) => write!(f, "{token:?}"),
            Auth::Getter(_) => f.write_str("getToken(…)"),
        }
    }
}

/// Checked options of a client.
pub struct Config {
    /// `{baseUrl}/plants`.
    pub url: String,
    /// The token source.
    pub auth: Auth,
    /// The injected fetch, or `None` for the global one.
    pub fetch: Option<Function>,
    /// The client-wide signal.
    pub signal: Option<AbortSignal>,
    /// The timeout of one call, in milliseconds.
    pub timeout_ms: u32,
    /// The request headers as a frozen plain object: Content-Type, Accept, the extra headers, and
    /// Authorization when the token is fixed. Built once; fetch copies it.
    pub headers: js_sys::Object,
    /// The names of the extra headers, for `Debug` (values may be secrets too).
    pub extra_header_names: Vec<String>,
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Config")
            .field("url", &self.url)
            .field("auth", &self.auth)
            .field("fetch", &self.fetch.as_ref().map(|_| "injected"))
            .field("timeout_ms", &self.timeout_ms)
            .field("extra_headers", &self.extra_header_names)
            .finish()
    }
}

fn options_object<'a>(
    value: &'a JsValue,
    what: &str,
    known: &[&str],
) -> Result<PlainObject<'a>, Error> {
    let object = PlainObject::new(value)
        .map_err(|got| Error::config([what, " must be a plain object, got ", got].concat()))?;
    let keys = object
        .keys()
        .map_err(|e| Error::config([what, "' keys could not be listed"].concat()).with_cause(e))?;
    if let Some(key) = keys.iter().find(|k| !known.contains(&k.as_str())) {
        let shown: String = key.chars().take(40).collect();
        let mut message = ["unknown option \"", &shown, "\" in ", what].concat();
        if let Some(near) = suggest(key, known) {
            message.push_str(&[" (did you mean \"", near, "\"?)"].concat());
        }
        return Err(Error::config(message));
    }
    Ok(object)
}

fn read(object: &PlainObject<'_>, key: &str) -> Result<Option<JsValue>, Error> {
    let value = object.get(key).map_err(|e| {
        Error::config(["options.", key, " could not be read: reading it threw"].concat())
            .with_cause(e)
    })?;
    Ok((!value.is_undefined()).then_some(value))
}

fn wrong_type(key: &str, expected: &str, got: &JsValue) -> Error {
    Error::config(
        [
            "options.",
            key,
            " must be ",
            expected,
            ", got ",
            type_name(got),
        ]
        .concat(),
    )
}

fn signal(object: &PlainObject<'_>) -> Result<Option<AbortSignal>, Error> {
    match read(object, "signal")? {
        None => Ok(None),
        Some(value) => match value.dyn_into::<AbortSignal>() {
            Ok(signal) => Ok(Some(signal)),
            Err(value) => Err(wrong_type("signal", "an AbortSignal", &value)),
        },
    }
}

/// Checks a token string (from `token` or from `getToken`); the error never holds the token.
pub fn token_from(value: &JsValue, source: &str) -> Result<Token, Error> {
    match well_formed_string(value) {
        Some(Ok(s)) => {
            Token::new(s).map_err(|e| Error::config([source, ": ", e.reason()].concat()))
        }
        Some(Err(())) => Err(Error::config(
            [
                source,
                ": token is not well-formed Unicode; its value is not shown",
            ]
            .concat(),
        )),
        None => Err(Error::config(
            [source, " must be a string, got ", type_name(value)].concat(),
        )),
    }
}

impl Config {
    /// Checks the options of `createPlant` or `new PlantStoreClient`.
    ///
    /// # Errors
    /// A `config` error naming the first wrong option.
    pub fn from_js(options: &JsValue) -> Result<Config, Error> {
        let object = options_object(options, "options", &CLIENT_OPTIONS)?;
        let url = match read(&object, "baseUrl")? {
            None => {
                return Err(Error::config(
                    "options.baseUrl is required, for example https://plants.example/api",
                ))
            }
            Some(value) => match well_formed_string(&value) {
                Some(Ok(base)) => plants_url(&base).map_err(|e| {
                    let mut message = String::from("options.");
                    e.describe(&mut message);
                    Error::config(message)
                })?,
                Some(Err(())) => {
                    return Err(Error::config("options.baseUrl is not well-formed Unicode"))
                }
                None => return Err(wrong_type("baseUrl", "a string", &value)),
            },
        };
        let auth = match (read(&object, "token")?, read(&object, "getToken")?) {
            (Some(_), Some(_)) => {
                return Err(Error::config(
                    "pass options.token or options.getToken, not both",
                ))
            }
            (None, None) => {
                return Err(Error::config(
                    "options.token (a string) or options.getToken (a function) is required",
                ))
            }
            (Some(token), None) => Auth::Token(token_from(&token, "options.token")?),
            (None, Some(getter)) => match getter.dyn_into::<Function>() {
                Ok(getter) => Auth::Getter(getter),
                Err(value) => return Err(wrong_type("getToken", "a function", &value)),
            },
        };
        let fetch = match read(&object, "fetch")? {
            None => None,
            Some(value) => match value.dyn_into::<Function>() {
                Ok(fetch) => Some(fetch),
                Err(value) => return Err(wrong_type("fetch", "a function", &value)),
            },
        };
        let timeout_ms = match read(&object, "timeoutMs")? {
            None => DEFAULT_TIMEOUT_MS,
            Some(value) => match value.as_f64() {
                // Inside the range, a whole number converts to u32 and back unchanged.
                Some(ms) if (1.0..=MAX_TIMEOUT_MS).contains(&ms) && f64::from(ms as u32) == ms => {
                    ms as u32
                }
                Some(_) => return Err(Error::config(
                    "options.timeoutMs must be a whole number of milliseconds from 1 to 2147483647",
                )),
                None => return Err(wrong_type("timeoutMs", "a number", &value)),
            },
        };
        let extra = match read(&object, "headers")? {
            None => Vec::new(),
            Some(value) => extra_headers(&value)?,
        };
        let headers = request_headers(&extra, &auth);
        let extra_header_names = extra.into_iter().map(|(name, _)| name).collect();
        Ok(Config {
            url,
            auth,
            fetch,
            signal: signal(&object)?,
            timeout_ms,
            headers,
            extra_header_names,
        })
    }

    /// The request path of a client with these options (js/runtime.js).
    pub fn sender(&self) -> js::Sender {
        let (token, get_token) = match &self.auth {
            Auth::Token(token) => (Some(token.expose().to_owned()), None),
            Auth::Getter(getter) => (None, Some(getter.clone())),
        };
        js::Sender::new(
            Engine::default(),
            &self.url,
            &self.headers,
            token,
            get_token,
            self.fetch.clone(),
            self.signal.clone(),
            self.timeout_ms,
            SUCCESS_BODY_LIMIT as u32,
            ERROR_BODY_LIMIT as u32,
        )
    }
}

/// The per-call options of `client.createPlant(plant, { signal })`.
///
/// # Errors
/// A `config` error for anything but an optional `signal`.
pub fn call_signal(options: Option<JsValue>) -> Result<Option<AbortSignal>, Error> {
    match options {
        None => Ok(None),
        Some(value) if value.is_undefined() || value.is_null() => Ok(None),
        Some(value) => signal(&options_object(&value, "call options", &CALL_OPTIONS)?),
    }
}

/// The `Authorization` header value for `token`.
pub fn bearer(token: &Token) -> String {
    let mut value = String::with_capacity(7 + token.expose().len());
    value.push_str("Bearer ");
    value.push_str(token.expose());
    value
}

fn request_headers(extra: &[(String, String)], auth: &Auth) -> js_sys::Object {
    let headers = js_sys::Object::new();
    let set = |name: &str, value: &str| {
        let _ = js_sys::Reflect::set(
            &headers,
            &JsValue::from_str(name),
            &JsValue::from_str(value),
        );
    };
    set("Accept", "application/json");
    for (name, value) in extra {
        set(name, value);
    }
    set("Content-Type", "application/json");
    if let Auth::Token(token) = auth {
        set("Authorization", &bearer(token));
    }
    js_sys::Object::freeze(&headers)
}

fn extra_headers(value: &JsValue) -> Result<Vec<(String, String)>, Error> {
    let object = PlainObject::new(value).map_err(|got| {
        Error::config(
            [
                "options.headers must be a plain object of strings, got ",
                got,
            ]
            .concat(),
        )
    })?;
    let keys = object
        .keys()
        .map_err(|e| Error::config("options.headers' keys could not be listed").with_cause(e))?;
    let check =
        js::Headers::new().map_err(|e| Error::config("cannot create Headers").with_cause(e))?;
    let mut headers = Vec::with_capacity(keys.len());
    for name in keys {
        let shown: String = name.chars().take(40).collect();
        if name.eq_ignore_ascii_case("authorization") || name.eq_ignore_ascii_case("content-type") {
            return Err(Error::config(
                [
                    "options.headers cannot set ",
                    &shown,
                    ": the client sets it",
                ]
                .concat(),
            ));
        }
        let value = object.get(&name).map_err(|e| {
            Error::config(["options.headers[\"", &shown, "\"] could not be read"].concat())
                .with_cause(e)
        })?;
        let Some(Ok(text)) = well_formed_string(&value) else {
            return Err(Error::config(
                [
                    "options.headers[\"",
                    &shown,
                    "\"] must be a string, got ",
                    type_name(&value),
                ]
                .concat(),
            ));
        };
        check.set(&name, &text).map_err(|e| {
            Error::config(
                [
                    "options.headers[\"",
                    &shown,
                    "\"] is not a valid header name and value",
                ]
                .concat(),
            )
            .with_cause(e)
        })?;
        headers.push((name, text));
    }
    Ok(headers)
}
