//! What a [`Client`](crate::Client) is made of: the base URL, the token, and the options that
//! apply to every call. [`Config`] is what a Rust caller writes; the JS-facing layer reads the
//! options object into the same checks, one option at a time, so both get the same messages.

use crate::error::{decimal, text, Draft, Error};
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::Cell;
use core::fmt;
use js_sys::{Function, Object, Promise, Reflect};
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
    /// A JavaScript function called before every request with `{ refresh: false }`, and once with
    /// `{ refresh: true }` after a 401 (see [`Client::create_plant`](crate::Client::create_plant));
    /// it returns the token or a promise of it. From Rust:
    /// `Closure::new(..).into_js_value().unchecked_into()`.
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
    retry: Retry,
    idempotency_key: bool,
    before: Option<Hook<Before>>,
    after: Option<Hook<After>>,
}

/// The retries of a call: off unless given (it is a POST). Only what cannot have created the
/// plant, or was asked for, is retried: fetch rejected (no answer), an attempt over
/// `attempt_timeout_ms`, 429 and 503, and 502 and 504 with [`Retry::gateway_errors`]. Waits are
/// exponential with full jitter, capped at `max_delay_ms`; a `Retry-After` (seconds or an
/// HTTP-date) is waited exactly, unless it asks for more than the cap or the time left: then the
/// call ends at once and [`Error::retry_after_ms`] holds the wait.
///
/// ```
/// # use plant_store_client::Retry;
/// let retry = Retry::new(3).base_delay_ms(100).max_delay_ms(2_000).gateway_errors(true);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retry {
    pub(crate) attempts: u32,
    pub(crate) base_delay_ms: u32,
    pub(crate) max_delay_ms: u32,
    pub(crate) gateway_errors: bool,
    pub(crate) attempt_timeout_ms: Option<u32>,
}

impl Retry {
    /// One attempt: no retries.
    pub const OFF: Retry = Retry::new(1);

    /// Up to `attempts` requests in all (the first included), from 1 to 10; waits start at 100 ms
    /// and are capped at 2 s.
    pub const fn new(attempts: u32) -> Retry {
        Retry {
            attempts,
            base_delay_ms: 100,
            max_delay_ms: 2_000,
            gateway_errors: false,
            attempt_timeout_ms: None,
        }
    }

    /// The cap of the first backoff wait, doubled at each retry.
    pub const fn base_delay_ms(mut self, ms: u32) -> Retry {
        self.base_delay_ms = ms;
        self
    }

    /// The cap of every wait, a `Retry-After` included.
    pub const fn max_delay_ms(mut self, ms: u32) -> Retry {
        self.max_delay_ms = ms;
        self
    }

    /// Also retry 502 and 504, which a gateway may send after passing the request on.
    pub const fn gateway_errors(mut self, on: bool) -> Retry {
        self.gateway_errors = on;
        self
    }

    /// Gives up on an attempt after `ms` and retries: a `timeout` that may have created the plant.
    /// Without it each attempt has what is left of the call's timeout.
    pub const fn attempt_timeout_ms(mut self, ms: u32) -> Retry {
        self.attempt_timeout_ms = Some(ms);
        self
    }

    /// Checks the numbers.
    pub(crate) fn check(self) -> Result<Retry, Draft> {
        let limit = self.attempt_timeout_ms.map(f64::from);
        let numbers = [self.attempts, self.base_delay_ms, self.max_delay_ms].map(f64::from);
        Retry::checked(numbers, limit, self.gateway_errors)
    }

    /// The retries from numbers as a caller gave them (`[attempts, baseDelayMs, maxDelayMs]` and
    /// `attemptTimeoutMs`), each checked: a `config` error names the first wrong one.
    pub(crate) fn checked(
        [attempts, base, max]: [f64; 3],
        limit: Option<f64>,
        gateway_errors: bool,
    ) -> Result<Retry, Draft> {
        let ms = " of milliseconds";
        Ok(Retry {
            attempts: whole(attempts, "retry.attempts", "", 1, 10)?,
            base_delay_ms: whole(base, "retry.baseDelayMs", ms, 0, MAX_TIMEOUT_MS)?,
            max_delay_ms: whole(max, "retry.maxDelayMs", ms, 0, MAX_TIMEOUT_MS)?,
            gateway_errors,
            attempt_timeout_ms: match limit {
                Some(limit) => Some(whole(
                    limit,
                    "retry.attemptTimeoutMs",
                    ms,
                    1,
                    MAX_TIMEOUT_MS,
                )?),
                None => None,
            },
        })
    }
}

/// What [`Config::before_attempt`]'s hook is given.
#[derive(Debug)]
#[non_exhaustive]
pub struct Attempt<'a> {
    /// `{baseUrl}/plants`.
    pub url: &'a str,
    /// 1 for the first request of the call.
    pub number: u32,
    /// The headers to send, without `Authorization`. The hook may add some; it may not set
    /// `Authorization` or change `Content-Type`.
    pub headers: &'a web_sys::Headers,
}

/// What [`Config::after_attempt`]'s hook is given.
#[derive(Debug)]
#[non_exhaustive]
pub struct AttemptOutcome<'a> {
    /// `{baseUrl}/plants`.
    pub url: &'a str,
    /// 1 for the first request of the call.
    pub number: u32,
    /// From the request to the end of the answer (or of the failure), in milliseconds.
    pub duration_ms: f64,
    /// The status, when an answer came.
    pub status: Option<u16>,
    /// The answer's headers, as the server sent them.
    pub headers: Option<&'a web_sys::Headers>,
    /// The attempt's error, when it failed (retried or not).
    pub error: Option<&'a Error>,
}

/// A hook as a client keeps it: what it returns is awaited (a JS hook may return a promise); what
/// it throws ends the call.
pub(crate) type Before = dyn Fn(&Attempt<'_>) -> Result<(), JsValue>;
pub(crate) type After = dyn Fn(&AttemptOutcome<'_>) -> Result<(), JsValue>;

/// A hook, shown as `..` by `Debug`.
pub(crate) struct Hook<F: ?Sized>(pub(crate) Rc<F>);

impl<F: ?Sized> Clone for Hook<F> {
    fn clone(&self) -> Self {
        Hook(self.0.clone())
    }
}

impl<F: ?Sized> fmt::Debug for Hook<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("..")
    }
}

/// The `Idempotency-Key` of a call (IETF httpapi draft "The Idempotency-Key HTTP Header Field"):
/// the same on every attempt, so a server that knows the header creates the plant once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdempotencyKey {
    /// No header.
    Off,
    /// A random UUID v4, from `crypto.getRandomValues`.
    Generated,
    /// This key: 1 to 255 printable ASCII characters, without `"` or `\`.
    Given(String),
}

/// What one call may change: its signal, its retries and its idempotency key.
///
/// ```no_run
/// # use plant_store_client::{CallOptions, IdempotencyKey, Retry};
/// let options = CallOptions::new().retry(Retry::new(3)).idempotency_key(IdempotencyKey::Generated);
/// ```
#[derive(Clone, Debug, Default)]
pub struct CallOptions {
    pub(crate) signal: Option<AbortSignal>,
    pub(crate) retry: Option<Retry>,
    pub(crate) idempotency_key: Option<IdempotencyKey>,
}

impl CallOptions {
    /// The client's settings.
    pub fn new() -> CallOptions {
        CallOptions::default()
    }

    /// A signal that also aborts this call.
    pub fn signal(mut self, signal: AbortSignal) -> CallOptions {
        self.signal = Some(signal);
        self
    }

    /// This call's retries instead of the client's ([`Retry::OFF`] for none).
    pub fn retry(mut self, retry: Retry) -> CallOptions {
        self.retry = Some(retry);
        self
    }

    /// This call's idempotency key instead of the client's.
    pub fn idempotency_key(mut self, key: IdempotencyKey) -> CallOptions {
        self.idempotency_key = Some(key);
        self
    }
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
            retry: Retry::OFF,
            idempotency_key: false,
            before: None,
            after: None,
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
    /// It covers the whole call as the caller sees it: getting the token, every attempt, the
    /// waits between them and reading the answer.
    pub fn timeout_ms(mut self, timeout_ms: u32) -> Config {
        self.timeout_ms = timeout_ms;
        self
    }

    /// An extra request header. It cannot be `Authorization` or `Content-Type`.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Config {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Retries for every call (see [`Retry`]); off by default.
    pub fn retry(mut self, retry: Retry) -> Config {
        self.retry = retry;
        self
    }

    /// Sends a generated `Idempotency-Key` with every call (see [`IdempotencyKey`]). The
    /// server's CORS must allow the header for browser callers.
    pub fn idempotency_key(mut self, on: bool) -> Config {
        self.idempotency_key = on;
        self
    }

    /// A hook called before each attempt, which may add headers (a W3C `traceparent`); an `Err`
    /// ends the call with a `config` error whose cause is its value.
    pub fn before_attempt(
        mut self,
        hook: impl Fn(&Attempt<'_>) -> Result<(), JsValue> + 'static,
    ) -> Config {
        self.before = Some(Hook(Rc::new(hook)));
        self
    }

    /// A hook called after each attempt that sent a request, with its status, duration and
    /// answer's headers; an `Err` ends the call as [`Config::before_attempt`]'s does.
    pub fn after_attempt(
        mut self,
        hook: impl Fn(&AttemptOutcome<'_>) -> Result<(), JsValue> + 'static,
    ) -> Config {
        self.after = Some(Hook(Rc::new(hook)));
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
        let mut settings = Settings::new(
            url,
            headers,
            credential,
            self.fetch,
            self.signal,
            timeout_ms,
        );
        settings.retry = self.retry.check()?;
        settings.idempotency_key = self.idempotency_key;
        settings.before = self.before;
        settings.after = self.after;
        Ok(settings)
    }
}

/// The checked settings a client keeps.
pub(crate) struct Settings {
    /// `{baseUrl}/plants`, as a JS string and as text for messages.
    pub(crate) url: JsValue,
    pub(crate) url_text: String,
    /// The request headers but `Authorization`, frozen; each attempt sends a copy.
    pub(crate) headers: Object,
    pub(crate) credential: Credential,
    pub(crate) fetch: Option<Function>,
    pub(crate) signal: Option<AbortSignal>,
    pub(crate) timeout_ms: u32,
    pub(crate) retry: Retry,
    pub(crate) idempotency_key: bool,
    pub(crate) before: Option<Hook<Before>>,
    pub(crate) after: Option<Hook<After>>,
    /// The last refresh of a token source's token: the token refused, and the promise of its
    /// successor, which every call refused with that token awaits (one refresh, not one per call).
    pub(crate) refresh: Cell<Option<(String, Promise)>>,
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
        Settings {
            url: JsValue::from_str(&url),
            url_text: url,
            headers: headers.finish(),
            credential,
            fetch,
            signal,
            timeout_ms,
            retry: Retry::OFF,
            idempotency_key: false,
            before: None,
            after: None,
            refresh: Cell::new(None),
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
    whole(
        ms,
        "options.timeoutMs",
        " of milliseconds",
        1,
        MAX_TIMEOUT_MS,
    )
}

/// `n` when it is a whole number from `min` to `max`; else a `config` error: "{what} must be a
/// whole number{unit} from {min} to {max}".
pub(crate) fn whole(n: f64, what: &str, unit: &str, min: u32, max: u32) -> Result<u32, Draft> {
    if n >= f64::from(min) && n <= f64::from(max) && n == (n as u32) as f64 {
        return Ok(n as u32);
    }
    let (min, max) = (decimal(min.into()), decimal(max.into()));
    let message = [
        what,
        " must be a whole number",
        unit,
        " from ",
        &min,
        " to ",
        &max,
    ];
    Err(Draft::config(text(&message)))
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

    /// The headers as a frozen plain object, with `Content-Type`.
    fn finish(self) -> Object {
        let object = self.object;
        let _ = Reflect::set(&object, &"Content-Type".into(), &"application/json".into());
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
