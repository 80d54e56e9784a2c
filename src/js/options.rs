//! The options object of `createPlant` and `new PlantStoreClient`, read into a [`Client`]: each
//! option in turn, its JavaScript type first, then the same check [`Config`](crate::Config) makes,
//! so the `config` error names the first wrong option. Own properties only; a getter or Proxy trap
//! that throws is a `config` error with the failure as `cause`.

use super::input::plain;
use crate::config::{self, Credential, Headers, Settings};
use crate::error::Error;
use crate::sys;
use crate::Client;
use alloc::string::String;
use alloc::vec::Vec;
use js_sys::{Function, JsString, Reflect};
use plant_store_model::suggest;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::AbortSignal;

const CLIENT_OPTIONS: [&str; 7] = [
    "baseUrl",
    "token",
    "getToken",
    "fetch",
    "signal",
    "timeoutMs",
    "headers",
];

/// The client `options` describe; a `config` error for the first wrong option.
pub(crate) fn client(options: &JsValue) -> Result<Client, Error> {
    let options = Options::new(options, "options", &CLIENT_OPTIONS)?;
    let base = options.get("baseUrl")?;
    if base.is_undefined() {
        return Err(Error::config(
            "options.baseUrl is required, for example https://plants.example/api",
        ));
    }
    let base = sys::well_formed_string(&base).map_err(|got| match got {
        Some(type_name) => wrong_type("baseUrl", "a string", type_name),
        None => Error::config("options.baseUrl is not well-formed Unicode"),
    })?;
    let url = config::plants_url(&base)?;
    let token = options.get("token")?;
    let get_token = options.get("getToken")?;
    let credential = match (token.is_undefined(), get_token.is_undefined()) {
        (false, false) => {
            return Err(Error::config(
                "pass options.token or options.getToken, not both",
            ))
        }
        (true, true) => return Err(config::missing_token()),
        (false, true) => {
            let token = sys::well_formed_string(&token).map_err(|got| match got {
                Some(type_name) => wrong_type("token", "a string", type_name),
                None => Error::config(
                    "options.token: token is not well-formed Unicode; its value is not shown",
                ),
            })?;
            Credential::Fixed(config::checked_token(token, "options.token")?)
        }
        (true, false) => Credential::Source(function(get_token, "getToken")?),
    };
    let fetch = options.get("fetch")?;
    let fetch = if fetch.is_undefined() {
        None
    } else {
        Some(function(fetch, "fetch")?)
    };
    let timeout = options.get("timeoutMs")?;
    let timeout_ms = match timeout.as_f64() {
        _ if timeout.is_undefined() => config::DEFAULT_TIMEOUT_MS,
        Some(ms) => config::timeout(ms)?,
        None => {
            return Err(wrong_type(
                "timeoutMs",
                "a number",
                sys::type_name(&timeout),
            ))
        }
    };
    let headers = headers(&options.get("headers")?)?;
    let signal = signal(options.get("signal")?)?;
    Ok(Client::from_settings(Settings::new(
        url, headers, credential, fetch, signal, timeout_ms,
    )))
}

/// The signal of `client.createPlant(plant, { signal })`: none for `undefined` or `null`.
pub(crate) fn call_signal(options: &JsValue) -> Result<Option<AbortSignal>, Error> {
    if options.is_undefined() || options.is_null() {
        return Ok(None);
    }
    signal(Options::new(options, "call options", &["signal"])?.get("signal")?)
}

/// An options object: a plain object whose keys are all among the known ones.
struct Options<'a> {
    value: &'a JsValue,
}

impl<'a> Options<'a> {
    /// `what` names the object in messages.
    fn new(value: &'a JsValue, what: &str, known: &[&str]) -> Result<Options<'a>, Error> {
        for key in plain_keys(value, what, "a plain object")? {
            if !known.contains(&key.as_str()) {
                let shown: String = key.chars().take(40).collect();
                let mut message = ["unknown option \"", &shown, "\" in ", what].concat();
                if let Some(near) = suggest(&key, known) {
                    message.push_str(&[" (did you mean \"", near, "\"?)"].concat());
                }
                return Err(Error::config(message));
            }
        }
        Ok(Options { value })
    }

    /// The option `key`: `undefined` unless it is an own property.
    fn get(&self, key: &str) -> Result<JsValue, Error> {
        let name = JsString::from(key);
        let own = sys::has_own(self.value, &name);
        own.and_then(|own| match own {
            true => Reflect::get(self.value, &name),
            false => Ok(JsValue::UNDEFINED),
        })
        .map_err(|cause| {
            Error::config(["options.", key, " could not be read: reading it threw"].concat())
                .with_cause(cause)
        })
    }
}

/// The own enumerable keys of `value` when it is a plain object; else a `config` error:
/// "{what} must be {expected}, got …".
fn plain_keys(value: &JsValue, what: &str, expected: &str) -> Result<Vec<String>, Error> {
    plain(value)
        .map_err(|got| Error::config([what, " must be ", expected, ", got ", got].concat()))?;
    let keys = sys::keys(value).map_err(|cause| {
        Error::config([what, "' keys could not be listed"].concat()).with_cause(cause)
    })?;
    Ok(sys::strings(&keys).collect())
}

fn wrong_type(key: &str, expected: &str, got: &str) -> Error {
    Error::config(["options.", key, " must be ", expected, ", got ", got].concat())
}

fn function(value: JsValue, key: &str) -> Result<Function, Error> {
    let got = sys::type_name(&value);
    value
        .dyn_into::<Function>()
        .map_err(|_| wrong_type(key, "a function", got))
}

fn signal(value: JsValue) -> Result<Option<AbortSignal>, Error> {
    if value.is_undefined() {
        return Ok(None);
    }
    let got = sys::type_name(&value);
    value
        .dyn_into::<AbortSignal>()
        .map(Some)
        .map_err(|_| wrong_type("signal", "an AbortSignal", got))
}

/// `options.headers`: a plain object of strings, each name checked before its value is read.
fn headers(extra: &JsValue) -> Result<Headers, Error> {
    let mut headers = Headers::new();
    if extra.is_undefined() {
        return Ok(headers);
    }
    for name in plain_keys(extra, "options.headers", "a plain object of strings")? {
        let shown = Headers::settable(&name)?;
        let key = JsString::from(name.as_str());
        let value = sys::has_own(extra, &key)
            .and_then(|own| match own {
                true => Reflect::get(extra, &key),
                false => Ok(JsValue::UNDEFINED),
            })
            .map_err(|cause| {
                Error::config(["options.headers[\"", &shown, "\"] could not be read"].concat())
                    .with_cause(cause)
            })?;
        let value = sys::well_formed_string(&value).map_err(|got| {
            let got = got.unwrap_or("string");
            Error::config(
                [
                    "options.headers[\"",
                    &shown,
                    "\"] must be a string, got ",
                    got,
                ]
                .concat(),
            )
        })?;
        headers.set(&shown, &name, &value)?;
    }
    Ok(headers)
}
