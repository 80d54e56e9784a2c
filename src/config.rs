//! What a [`Client`](crate::Client) is made of: the base URL, the token, and the options that
//! apply to every call. [`Config`] is what a Rust caller writes; the JS-facing layer reads the
//! options object into the same checks, one option at a time, so both get the same messages.

use crate::error::{text, Draft, Error};
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use js_sys::{Function, Object, Reflect};
use plant_store_model::{check_bearer_token, Token};
use wasm_bindgen::JsValue;
use web_sys::AbortSignal;

/// The timeout of one call when none is given: 10 s.
pub const DEFAULT_TIMEOUT_MS: u32 = 10_000;
/// The longest timeout: 2^31 − 1 ms (about 24.8 days), the most `setTimeout` holds.
pub const MAX_TIMEOUT_MS: u32 = 2_147_483_647;

/// Where the bearer token comes from.
#[derive(Clone)]
pub enum Auth {
    /// A fixed token, an RFC 6750 `b64token`.
    Token(String),
    /// A JavaScript function called before every request, with no arguments; it returns the
    /// token or a promise of it. From Rust: `Closure::new(..).into_js_value().unchecked_into()`.
    Source(Function),
}

impl fmt::Debug for Auth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Auth::Token(_) => f.write_str("Token([redacted])"),
            Auth::Source(_) => f.write_str("Source(..)"),
        }
    }
}

/// The settings of a [`Client`](crate::Client), checked by [`Client::new`](crate::Client::new).
///
/// ```no_run
/// # use plant_store_client::Config;
/// let config = Config::new("https://plants.example/api/v1")
///     .token("my-access-token")
///     .timeout_ms(5_000)
///     .header("X-Trace", "t-1");
/// ```
#[derive(Clone, Debug)]
pub struct Config {
    base_url: String,
    auth: Option<Auth>,
    fetch: Option<Function>,
    signal: Option<AbortSignal>,
    timeout_ms: u32,
    headers: Vec<(String, String)>,
}

impl Config {
    /// Settings for the Plant Store at `base_url`: an absolute `http(s)` URL, which may carry a
    /// path prefix (`https://host/api/v1`); `/plants` is appended. Add a token before use.
    pub fn new(base_url: impl Into<String>) -> Config {
        Config {
            base_url: base_url.into(),
            auth: None,
            fetch: None,
            signal: None,
            timeout_ms: DEFAULT_TIMEOUT_MS,
            headers: Vec::new(),
        }
    }

    /// A fixed bearer token.
    pub fn token(mut self, token: impl Into<String>) -> Config {
        self.auth = Some(Auth::Token(token.into()));
        self
    }

    /// A function that gives the token before every request (see [`Auth::Source`]).
    pub fn token_source(mut self, get_token: Function) -> Config {
        self.auth = Some(Auth::Source(get_token));
        self
    }

    /// A fetch to call instead of the global one, as `fetch(url, init)`.
    pub fn fetch(mut self, fetch: Function) -> Config {
        self.fetch = Some(fetch);
        self
    }

    /// A signal that aborts every call of the client.
    pub fn signal(mut self, signal: AbortSignal) -> Config {
        self.signal = Some(signal);
        self
    }

    /// The timeout of one call, from 1 to [`MAX_TIMEOUT_MS`]; [`DEFAULT_TIMEOUT_MS`] otherwise.
    /// It covers getting the token, the request and reading the answer.
    pub fn timeout_ms(mut self, timeout_ms: u32) -> Config {
        self.timeout_ms = timeout_ms;
        self
    }

    /// An extra request header. It cannot be `Authorization` or `Content-Type`.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Config {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Checks every setting, in the order of the JS options; an error holds no piece of the token.
    pub(crate) fn check(self) -> Result<Settings, Error> {
        let secret = match &self.auth {
            Some(Auth::Token(token)) => token.clone(),
            _ => String::new(),
        };
        self.settings().map_err(|draft| draft.redact(&secret))
    }

    fn settings(self) -> Result<Settings, Draft> {
        let url = plants_url(&self.base_url)?;
        let credential = match self.auth {
            None => return Err(missing_token()),
            Some(Auth::Token(token)) => Credential::Fixed(checked_token(token, "options.token")?),
            Some(Auth::Source(get_token)) => Credential::Source(get_token),
        };
        let timeout_ms = timeout(f64::from(self.timeout_ms))?;
        let mut headers = Headers::new();
        for (name, value) in &self.headers {
            headers.add(name, value)?;
        }
        Ok(Settings::new(
            url,
            headers,
            credential,
            self.fetch,
            self.signal,
            timeout_ms,
        ))
    }
}

/// The checked settings a client keeps.
pub(crate) struct Settings {
    /// `{baseUrl}/plants`, as a JS string and as text for messages.
    pub(crate) url: JsValue,
    pub(crate) url_text: String,
    /// The request headers, frozen: with a fixed token's `Authorization`; a token from `getToken`
    /// is added to a copy per call.
    pub(crate) headers: Object,
    pub(crate) credential: Credential,
    pub(crate) fetch: Option<Function>,
    pub(crate) signal: Option<AbortSignal>,
    pub(crate) timeout_ms: u32,
}

/// Where a checked client's token comes from.
pub(crate) enum Credential {
    Fixed(Token),
    Source(Function),
}

impl Settings {
    /// Settings from checked parts.
    pub(crate) fn new(
        url: String,
        headers: Headers,
        credential: Credential,
        fetch: Option<Function>,
        signal: Option<AbortSignal>,
        timeout_ms: u32,
    ) -> Settings {
        let fixed = match &credential {
            Credential::Fixed(token) => Some(token.expose()),
            Credential::Source(_) => None,
        };
        let headers = headers.finish(fixed);
        Settings {
            url: JsValue::from_str(&url),
            url_text: url,
            headers,
            credential,
            fetch,
            signal,
            timeout_ms,
        }
    }
}

impl Settings {
    /// The fixed token, `""` for a token source: what an error before the call is redacted against.
    pub(crate) fn fixed_token(&self) -> &str {
        match &self.credential {
            Credential::Fixed(token) => token.expose(),
            Credential::Source(_) => "",
        }
    }
}

/// `{base}/plants`, or a `config` error saying what is wrong with the base URL.
pub(crate) fn plants_url(base: &str) -> Result<String, Draft> {
    plant_store_model::plants_url(base).map_err(|e| {
        let mut message = String::from("options.");
        e.describe(&mut message);
        Draft::config(message)
    })
}

/// The error when neither a token nor a token source is given.
pub(crate) fn missing_token() -> Draft {
    Draft::config("options.token (a string) or options.getToken (a function) is required")
}

/// A checked bearer token from `source` (`options.token`); the error never holds it.
pub(crate) fn checked_token(token: String, source: &str) -> Result<Token, Draft> {
    Token::new(token).map_err(|e| Draft::config(text(&[source, ": ", e.reason()])))
}

/// Checks a bearer token from `source` (`options.getToken`); the error never holds it.
pub(crate) fn check_token(token: &str, source: &str) -> Result<(), Draft> {
    check_bearer_token(token).map_err(|e| Draft::config(text(&[source, ": ", e.reason()])))
}

/// A timeout in whole milliseconds from 1 to [`MAX_TIMEOUT_MS`].
pub(crate) fn timeout(ms: f64) -> Result<u32, Draft> {
    if ms >= 1.0 && ms <= f64::from(MAX_TIMEOUT_MS) && ms == (ms as u32) as f64 {
        Ok(ms as u32)
    } else {
        Err(Draft::config(
            "options.timeoutMs must be a whole number of milliseconds from 1 to 2147483647",
        ))
    }
}

/// The request headers being built: `Accept`, the extra ones, then (in [`Headers::finish`])
/// `Content-Type` and a fixed token's `Authorization`. Each extra header is checked the way
/// fetch will check it, by setting it on a `Headers`.
pub(crate) struct Headers {
    object: Object,
    check: Option<web_sys::Headers>,
}

impl Headers {
    pub(crate) fn new() -> Headers {
        let object = Object::new();
        let _ = Reflect::set(&object, &"Accept".into(), &"application/json".into());
        Headers {
            object,
            check: None,
        }
    }

    /// Adds an extra header; a `config` error for `Authorization`, `Content-Type`, or a name or
    /// value fetch would refuse.
    pub(crate) fn add(&mut self, name: &str, value: &str) -> Result<(), Draft> {
        let shown = Headers::settable(name)?;
        self.set(&shown, name, value)
    }

    /// `name` as messages show it (its first 40 characters); a `config` error when it is
    /// `Authorization` or `Content-Type`, which the client sets. The JS options check this before
    /// reading the header's value.
    pub(crate) fn settable(name: &str) -> Result<String, Draft> {
        let shown: String = name.chars().take(40).collect();
        if name.eq_ignore_ascii_case("authorization") || name.eq_ignore_ascii_case("content-type") {
            return Err(Draft::config(text(&[
                "options.headers cannot set ",
                &shown,
                ": the client sets it",
            ])));
        }
        Ok(shown)
    }

    /// Adds a header whose name [`Headers::settable`] passed (`shown` is what it returned); a
    /// `config` error for a name or value fetch would refuse.
    pub(crate) fn set(&mut self, shown: &str, name: &str, value: &str) -> Result<(), Draft> {
        let invalid = |cause: JsValue| {
            Draft::config(text(&[
                "options.headers[\"",
                shown,
                "\"] is not a valid header name and value",
            ]))
            .with_cause(cause)
        };
        let check = match &self.check {
            Some(check) => check,
            None => self.check.insert(web_sys::Headers::new().map_err(invalid)?),
        };
        check.set(name, value).map_err(invalid)?;
        let _ = Reflect::set(&self.object, &name.into(), &value.into());
        Ok(())
    }

    /// The headers as a frozen plain object (fetch copies it), with `Content-Type` and, for a
    /// fixed token, `Authorization`.
    fn finish(self, token: Option<&str>) -> Object {
        let object = self.object;
        let _ = Reflect::set(&object, &"Content-Type".into(), &"application/json".into());
        if let Some(token) = token {
            let value = text(&["Bearer ", token]);
            let _ = Reflect::set(&object, &"Authorization".into(), &value.as_str().into());
        }
        Object::freeze(&object);
        object
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_are_whole_milliseconds_in_range() {
        for ok in [1.0, 100.0, 10_000.0, 2_147_483_647.0] {
            assert_eq!(timeout(ok).ok(), Some(ok as u32));
        }
        for bad in [
            0.0,
            -1.0,
            0.5,
            1.5,
            2_147_483_648.0,
            f64::NAN,
            f64::INFINITY,
        ] {
            assert!(timeout(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn config_errors_name_the_option_and_never_the_token() {
        let e = plants_url("ftp://h.example").unwrap_err().redact("");
        assert!(e.message().starts_with("options.baseUrl must start with"));
        let e = checked_token("s3cret\r\nX-Evil: 1".into(), "options.token")
            .unwrap_err()
            .redact("");
        assert!(
            e.message().starts_with("options.token: "),
            "{}",
            e.message()
        );
        assert!(!e.message().contains("s3cret"));
        assert_eq!(missing_token().redact("").kind(), crate::Kind::Config);
    }

    #[test]
    fn debug_never_shows_the_token() {
        let config = Config::new("https://h.example").token("s3cret-token");
        assert!(!alloc::format!("{config:?}").contains("s3cret"));
    }
}
