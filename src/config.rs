//! The settings of a client ([`Config`]) and of one call ([`CallOptions`], [`Retry`],
//! [`IdempotencyKey`]), from Rust or from a JS options object (`js::api` fills the same structs),
//! checked in one place: [`Config::check`] gives [`Settings`]. Its messages name each setting as
//! the caller wrote it (`names.rs`).

use crate::error::{decimal, Draft, Error};
use crate::hooks::{After, Attempt, AttemptOutcome, Before, Callback};
use crate::names::{Names, RUST};
use crate::redact::theirs;
use crate::token::{Credential, TokenSource};
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::OnceCell;
use core::fmt;
use core::future::Future;
use js_sys::futures::future_to_promise;
use js_sys::{Function, Promise, Reflect};
use plant_store_model::{Token, TokenError};
use wasm_bindgen::prelude::*;
use web_sys::{AbortSignal, RequestInit};

/// The timeout of one call when none is given: 10 s.
pub const DEFAULT_TIMEOUT_MS: u32 = 10_000;
/// The longest timeout: 2^31 − 1 ms (about 24.8 days), the most `setTimeout` holds.
pub const MAX_TIMEOUT_MS: u32 = 2_147_483_647;
/// How long a server keeps an idempotency key when none is said: 24 hours (Stripe keeps keys at
/// least that long; node-idempotency and hono-idempotency that long).
pub const DEFAULT_KEY_LIFETIME_MS: f64 = 86_400_000.0;

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
    pub(crate) base_url: Option<String>,
    pub(crate) auth: Option<Auth>,
    pub(crate) fetch: Option<Function>,
    pub(crate) signal: Option<AbortSignal>,
    pub(crate) timeout_ms: u32,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) retry: Option<Retry>,
    pub(crate) idempotency_key: IdempotencyKey,
    pub(crate) key_format: KeyFormat,
    pub(crate) key_lifetime_ms: f64,
    pub(crate) before: Option<Callback<Before>>,
    pub(crate) after: Option<Callback<After>>,
    /// What its messages call each setting.
    pub(crate) names: &'static Names,
}

/// How the `Idempotency-Key` header carries the key: the same bytes on every attempt.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KeyFormat {
    /// A Structured Fields string, `"key"` (the IETF httpapi draft's form).
    #[default]
    Quoted,
    /// The key's bytes alone, `key`: what most servers and UUID-checking middlewares expect.
    Bare,
}

/// Where the bearer token comes from, as given (checked into a [`Credential`]).
#[derive(Clone)]
pub(crate) enum Auth {
    Token(String),
    /// `getToken({ refresh })`, which the shell calls.
    Source(Function),
}

impl fmt::Debug for Auth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Auth::Token(_) => "Token([redacted])",
            Auth::Source(_) => "Source(..)",
        })
    }
}

impl Config {
    /// Settings for the Plant Store at `base_url`: an absolute `http(s)` URL, which may carry a
    /// path prefix (`https://host/api/v1`); `/plants` is appended. Add a token before use.
    pub fn new(base_url: impl Into<String>) -> Config {
        Config::named(Some(base_url.into()), &RUST)
    }

    /// The default settings, whose messages call each setting by `names`.
    pub(crate) fn named(base_url: Option<String>, names: &'static Names) -> Config {
        Config {
            base_url,
            auth: None,
            fetch: None,
            signal: None,
            timeout_ms: DEFAULT_TIMEOUT_MS,
            headers: Vec::new(),
            retry: None,
            idempotency_key: IdempotencyKey::Off,
            key_format: KeyFormat::Quoted,
            key_lifetime_ms: DEFAULT_KEY_LIFETIME_MS,
            before: None,
            after: None,
            names,
        }
    }

    /// A fixed bearer token (an RFC 6750 `b64token`), never refreshed.
    pub fn token(mut self, token: impl Into<String>) -> Config {
        self.auth = Some(Auth::Token(token.into()));
        self
    }

    /// A source of the token: an async closure called before every request with `false`, and
    /// once with `true` after a 401 (see [`Client::create_plant`](crate::Client::create_plant)); an
    /// `Err` ends the call with a `config` error whose cause is its value (`unauthorized` for the
    /// refresh after a 401). For a JS function:
    /// `move |refresh| JsFuture::from(Promise::resolve(&f.call1(..)?))`, then `as_string`.
    ///
    /// ```no_run
    /// # use plant_store_client::Config;
    /// let config = Config::new("https://plants.example/api/v1")
    ///     .token_source(|refresh: bool| async move { Ok(fresh_or_cached(refresh).await) });
    /// # async fn fresh_or_cached(_refresh: bool) -> String { String::new() }
    /// ```
    pub fn token_source<F, Fut>(mut self, source: F) -> Config
    where
        F: Fn(bool) -> Fut + 'static,
        Fut: Future<Output = Result<String, JsValue>> + 'static,
    {
        // Called by the shell as `getToken({ refresh })` is.
        let get = move |asked: JsValue| {
            let refresh = Reflect::get(&asked, &"refresh".into()).is_ok_and(|r| r.is_truthy());
            let token = source(refresh);
            future_to_promise(async move { token.await.map(JsValue::from) })
        };
        let get = Closure::<dyn Fn(JsValue) -> Promise>::new(get).into_js_value();
        self.auth = Some(Auth::Source(get.unchecked_into()));
        self
    }

    /// A fetch to call instead of the global one, with the URL and the init, for its promise of a
    /// `Response` (a JS function of your own: `move |url, init| f.call2(..)`, `Promise::resolve`).
    pub fn fetch(mut self, fetch: impl Fn(&str, &RequestInit) -> Promise + 'static) -> Config {
        let fetch = move |url: String, init: RequestInit| fetch(&url, &init);
        let fetch = Closure::<dyn Fn(String, RequestInit) -> Promise>::new(fetch).into_js_value();
        self.fetch = Some(fetch.unchecked_into());
        self
    }

    /// A signal that aborts every call of the client.
    pub fn signal(mut self, signal: AbortSignal) -> Config {
        self.signal = Some(signal);
        self
    }

    /// The timeout of one call, from 1 to [`MAX_TIMEOUT_MS`]; [`DEFAULT_TIMEOUT_MS`] otherwise: the
    /// whole call, getting the token, every attempt, the waits between them, reading the answer.
    pub fn timeout_ms(mut self, timeout_ms: u32) -> Config {
        self.timeout_ms = timeout_ms;
        self
    }

    /// An extra request header. It cannot be `Authorization`, `Content-Type`, `Idempotency-Key` or
    /// one of the connection or the message's framing (`Content-Length`, `Connection`, `Host`, …).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Config {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Retries for every call (see [`Retry`]); off by default.
    pub fn retry(mut self, retry: Retry) -> Config {
        self.retry = Some(retry);
        self
    }

    /// Sends a generated `Idempotency-Key` with every call (see [`IdempotencyKey`]). The server's
    /// CORS must allow the header for browser callers.
    pub fn idempotency_key(mut self, on: bool) -> Config {
        self.idempotency_key = if on { IdempotencyKey::Generated } else { IdempotencyKey::Off };
        self
    }

    /// How the `Idempotency-Key` header carries the key ([`KeyFormat::Quoted`] unless told).
    pub fn idempotency_key_format(mut self, format: KeyFormat) -> Config {
        self.key_format = format;
        self
    }

    /// How long the server keeps an idempotency key, in whole milliseconds from 1, or
    /// `f64::INFINITY` ([`DEFAULT_KEY_LIFETIME_MS`] unless told): a call with a key does not send
    /// it again once its first request that may have reached the store is older than that (it
    /// ends with that attempt's error, the plant maybe created).
    pub fn key_lifetime_ms(mut self, ms: f64) -> Config {
        self.key_lifetime_ms = ms;
        self
    }

    /// A hook called before each attempt, which may add headers (a W3C `traceparent`); an `Err`
    /// ends the call with a `config` error whose cause is its value.
    pub fn before_attempt(
        mut self,
        hook: impl Fn(&Attempt<'_>) -> Result<(), JsValue> + 'static,
    ) -> Config {
        self.before = Some(Callback(Rc::new(hook)));
        self
    }

    /// A hook called after each attempt that sent a request, with its status, duration and the
    /// answer's headers; an `Err` ends the call as [`Config::before_attempt`]'s does.
    pub fn after_attempt(
        mut self,
        hook: impl Fn(&AttemptOutcome<'_>) -> Result<(), JsValue> + 'static,
    ) -> Config {
        self.after = Some(Callback(Rc::new(hook)));
        self
    }

    /// The fixed token as given, which every error about these settings is redacted against.
    pub(crate) fn secret(&self) -> &str {
        match &self.auth {
            Some(Auth::Token(token)) => token,
            _ => "",
        }
    }

    /// Checks every setting, in the order of the JS options: the one validator of both APIs. The
    /// error names the first wrong one and holds no piece of the token.
    pub(crate) fn check(mut self) -> Result<Settings, Error> {
        let (url, credential) = self.checked().map_err(|draft| draft.redact(&[self.secret()]))?;
        self.auth = None;
        Ok(Settings { url, credential, config: self, reach: OnceCell::new() })
    }

    /// What checking makes of the base URL and the token; an error names the first wrong setting.
    fn checked(&self) -> Result<(String, Credential), Draft> {
        let names = self.names;
        let required = [names.base_url, " is required, for example https://plants.example/api"];
        let base = self.base_url.as_deref().ok_or_else(|| Draft::config(required.concat()))?;
        let url = plant_store_model::plants_url(base).map_err(|e| {
            let mut message = String::from(names.base_url);
            e.describe_after(&mut message);
            Draft::config(message)
        })?;
        let credential = match &self.auth {
            Some(Auth::Token(token)) => {
                let wrong = |e: TokenError| Draft::config([names.token, ": ", e.reason()].concat());
                Credential::Fixed(Token::new(token.clone()).map_err(wrong)?)
            }
            Some(Auth::Source(get)) => Credential::Source(TokenSource::new(get.clone())),
            None => return Err(Draft::config(names.no_token)),
        };
        whole(self.timeout_ms, names.timeout_ms, MS, 1, MAX_TIMEOUT_MS)?;
        self.headers.iter().try_for_each(|(name, value)| check_header(names, name, value))?;
        self.retry.map(|retry| retry.check(names)).transpose()?;
        let ms = self.key_lifetime_ms;
        if ms != f64::INFINITY
            && !((1.0..=MAX_SAFE_INTEGER).contains(&ms) && ms == ms as u64 as f64)
        {
            let message = [names.key_lifetime_ms, " must be a whole number of milliseconds from 1"];
            let message = [&message.concat(), " to 9007199254740991, or ", names.infinity].concat();
            return Err(Draft::config(message));
        }
        Ok((url, credential))
    }
}

/// The largest integer a JS number holds exactly, 2^53 − 1.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// A checked [`Config`], as a client keeps it: what checking made of it beside the rest as given.
pub(crate) struct Settings {
    /// `{baseUrl}/plants`.
    pub(crate) url: String,
    pub(crate) credential: Credential,
    /// The settings, without the token (`auth`), which is in `credential`.
    pub(crate) config: Config,
    /// What the client's calls read of the world once (`shell::reach`): the request they send,
    /// and whether the page is on another origin than the store.
    pub(crate) reach: OnceCell<(JsValue, bool)>,
}

/// An extra header, checked by fetch's `Headers` rules (by hand: the `http` crate's are stricter, a
/// dependency for ten lines): a `config` error names `Authorization`, `Content-Type` and
/// `Idempotency-Key` (the client's), one of the connection or the message's framing (the
/// runtime's), a name that is no RFC 9110 token, or a value that, trimmed, holds NUL, CR, LF or a
/// char > U+00FF.
fn check_header(names: &Names, name: &str, value: &str) -> Result<(), Draft> {
    let shown = theirs(&name.chars().take(40).collect::<String>());
    let [before, after] = names.header;
    let client = ["authorization", "content-type", "idempotency-key"];
    if client.iter().any(|own| own.eq_ignore_ascii_case(name)) {
        let message = [names.headers, " cannot set ", &shown, ": the client sets it"];
        return Err(Draft::config(message.concat()));
    }
    if FRAMING.iter().any(|framing| framing.eq_ignore_ascii_case(name)) {
        let message = [names.headers, " cannot set ", &shown, FRAMED];
        return Err(Draft::config(message.concat()));
    }
    let tchar = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
    let value = value.trim_matches(|c| matches!(c, ' ' | '\t' | '\r' | '\n'));
    let byte = |c: char| c <= '\u{ff}' && !matches!(c, '\0' | '\r' | '\n');
    let wrong = if name.is_empty() || !name.bytes().all(tchar) {
        " has a name that is not a header's (letters, digits and !#$%&'*+-.^_`|~)"
    } else if !value.chars().all(byte) {
        " has a value that is not a header's (Latin-1 without NUL, CR or LF)"
    } else {
        return Ok(());
    };
    Err(Draft::config([before, &shown, after, wrong].concat()))
}

/// The headers of the connection and the message's framing (RFC 9110 7.6.1, 8.6, 6.5), which the
/// runtime sets: Node's fetch fails or hangs a request that sets one, a browser drops it.
pub(crate) const FRAMING: [&str; 9] = [
    "connection",
    "content-length",
    "expect",
    "host",
    "keep-alive",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];
const FRAMED: &str = ": the runtime sets it (it frames the request or its connection)";

const MS: &str = " of milliseconds";

/// `n` when it is from `min` to `max`; else a `config` error: "{what} must be a whole number{unit}
/// from {min} to {max}" (also for a JS number that is no `u32`, which `js::api` reads as `u32::MAX`).
fn whole(n: u32, what: &str, unit: &str, min: u32, max: u32) -> Result<u32, Draft> {
    if (min..=max).contains(&n) {
        return Ok(n);
    }
    let (min, max) = (decimal(min.into()), decimal(max.into()));
    let message = [what, " must be a whole number", unit, " from ", &min, " to ", &max];
    Err(Draft::config(message.concat()))
}

/// The retries of a call: off unless given (it is a POST). Only what cannot have created the
/// plant, or was asked for, is retried: fetch rejected (no answer), an attempt over
/// `attempt_timeout_ms`, 429 and 503, and 502 and 504 with [`Retry::gateway_errors`]. Waits are
/// exponential with full jitter, capped at `max_delay_ms`; a `Retry-After` (seconds or an
/// HTTP-date) is waited exactly, unless it asks for more than the cap or the time left: then the
/// call ends at once and [`Error::retry_after_ms`](crate::Error::retry_after_ms) holds the wait.
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

    /// Up to `attempts` requests in all (the first included; not the one sent again after a token
    /// refresh), from 1 to 10; waits start at 100 ms and are capped at 2 s.
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

    /// The retries, each number checked: a `config` error names the first wrong one.
    fn check(self, names: &Names) -> Result<Retry, Draft> {
        whole(self.attempts, names.attempts, "", 1, 10)?;
        whole(self.base_delay_ms, names.base_delay_ms, MS, 0, MAX_TIMEOUT_MS)?;
        whole(self.max_delay_ms, names.max_delay_ms, MS, 0, MAX_TIMEOUT_MS)?;
        if let Some(limit) = self.attempt_timeout_ms {
            whole(limit, names.attempt_timeout_ms, MS, 1, MAX_TIMEOUT_MS)?;
        }
        Ok(self)
    }
}

/// What one call may change: its signal, its retries, its idempotency key, a hook of its own.
///
/// ```no_run
/// # use plant_store_client::{CallOptions, IdempotencyKey, Retry};
/// let key = IdempotencyKey::Generated;
/// let options = CallOptions::new().retry(Retry::new(3)).idempotency_key(key);
/// ```
#[derive(Clone, Debug, Default)]
pub struct CallOptions {
    pub(crate) signal: Option<AbortSignal>,
    pub(crate) retry: Option<Retry>,
    pub(crate) idempotency_key: Option<IdempotencyKey>,
    pub(crate) after: Option<Callback<After>>,
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

    /// A hook of this call alone, called after each of its attempts that sent a request, after
    /// the client's own ([`Config::after_attempt`]); an `Err` ends the call as that one's does.
    pub fn after_attempt(
        mut self,
        hook: impl Fn(&AttemptOutcome<'_>) -> Result<(), JsValue> + 'static,
    ) -> CallOptions {
        self.after = Some(Callback(Rc::new(hook)));
        self
    }

    /// The call's retries (checked) and key (drawn if generated; checked), over the client's.
    pub(crate) fn check(&self, config: &Config) -> Result<(Retry, IdempotencyKey), Draft> {
        let names = config.names;
        let retry = self.retry.map(|retry| retry.check(names)).transpose()?;
        let retry = retry.unwrap_or(config.retry.unwrap_or(Retry::OFF));
        let key = match self.idempotency_key.as_ref().unwrap_or(&config.idempotency_key) {
            IdempotencyKey::Off => IdempotencyKey::Off,
            IdempotencyKey::Generated => IdempotencyKey::Given(uuid(names.key)?),
            IdempotencyKey::Given(key) => {
                let printable = |b: u8| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\';
                if key.is_empty() || key.len() > 255 || !key.bytes().all(printable) {
                    let message = " must be 1 to 255 printable ASCII characters, without \" or \\";
                    return Err(Draft::config([names.key, message].concat()));
                }
                IdempotencyKey::Given(key.clone())
            }
        };
        Ok((retry, key))
    }
}

/// The `Idempotency-Key` of a call (IETF httpapi draft), a Structured Fields string (quoted), the
/// same on every attempt: a server that knows the header creates the plant once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdempotencyKey {
    /// No header.
    Off,
    /// A random UUID v4, from `crypto.getRandomValues`, drawn when the call starts.
    Generated,
    /// This key: 1 to 255 printable ASCII characters, without `"` or `\`.
    Given(String),
}

impl IdempotencyKey {
    /// A random UUID v4 drawn now, for a caller that stores it with the plant before the first
    /// attempt, so that a send after a reload or a crash carries the same key (as the outbox does).
    ///
    /// # Errors
    /// [`Kind::Config`](crate::Kind::Config) where the runtime has no `crypto.getRandomValues`.
    pub fn random() -> Result<IdempotencyKey, Error> {
        uuid("IdempotencyKey::random()").map(IdempotencyKey::Given).map_err(|e| e.redact(&[]))
    }
}

/// A random UUID v4 (RFC 9562), by hand: 16 bytes from `crypto.getRandomValues` (every runtime has
/// it, unlike `crypto.randomUUID`), in hex; the `uuid` crate would reach them through getrandom.
/// Its error names `what` wanted it.
pub(crate) fn uuid(what: &str) -> Result<String, Draft> {
    let mut bytes = [0u8; 16];
    random_values(&mut bytes).map_err(|cause| {
        let message = [what, " needs crypto.getRandomValues, which this runtime lacks"];
        Draft::config(message.concat()).with_cause(cause)
    })?;
    bytes[6] = bytes[6] & 0x0f | 0x40;
    bytes[8] = bytes[8] & 0x3f | 0x80;
    let mut out = String::with_capacity(36);
    for (i, byte) in bytes.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            out.push('-');
        }
        for nibble in [byte >> 4, byte & 15] {
            out.push(char::from_digit(nibble.into(), 16).unwrap_or('0'));
        }
    }
    Ok(out)
}

#[wasm_bindgen]
extern "C" {
    /// `crypto.getRandomValues(bytes)`; throws where there is no `crypto`.
    #[wasm_bindgen(catch, js_namespace = crypto, js_name = getRandomValues)]
    pub(crate) fn random_values(bytes: &mut [u8]) -> Result<JsValue, JsValue>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::names::JS;
    use crate::Kind;
    use alloc::string::ToString;

    fn message(config: Config) -> String {
        match config.checked() {
            Ok(_) => String::from("ok"),
            Err(draft) => draft.redact(&[]).message().into(),
        }
    }

    /// The same settings in each voice: as the Rust API makes them, and as `js::api` does.
    fn both(url: &str) -> [Config; 2] {
        [Config::new(url), Config::named(Some(url.into()), &JS)].map(|c| c.token("t"))
    }

    #[test]
    fn timeouts_are_checked_in_range() {
        for ok in both("https://h.example") {
            for ms in [1, 100, 10_000, MAX_TIMEOUT_MS] {
                assert_eq!(message(ok.clone().timeout_ms(ms)), "ok");
            }
        }
        let rule = " must be a whole number of milliseconds from 1 to 2147483647";
        for ms in [0, MAX_TIMEOUT_MS + 1, u32::MAX] {
            let [rust, js] = both("https://h.example").map(|c| message(c.timeout_ms(ms)));
            assert_eq!(
                [rust, js],
                [["Config::timeout_ms(..)", rule].concat(), ["options.timeoutMs", rule].concat()]
            );
        }
    }

    #[test]
    fn config_errors_name_the_setting_in_the_callers_voice_and_never_the_token() {
        let [rust, js] = both("ftp://h.example").map(message);
        assert!(
            rust.starts_with("the base URL of Config::new(..) must start with http://"),
            "{rust}"
        );
        assert!(js.starts_with("options.baseUrl must start with http://"), "{js}");
        for (config, name) in
            both("https://h.example").into_iter().zip(["Config::token(..): ", "options.token: "])
        {
            let e =
                config.token("s3cret\r\nX-Evil: 1").check().err().expect("a bad token is refused");
            assert!(e.message().starts_with(name), "{}", e.message());
            assert!(!e.message().contains("s3cret"));
        }
        let e = Config::new("https://h.example").check().err().map(|e| (e.kind(), e.to_string()));
        let none = "Config::token(..) or Config::token_source(..) is required";
        assert_eq!(e, Some((Kind::Config, none.into())));
        let missing = Config::named(None, &JS).token("t");
        assert!(message(missing).starts_with("options.baseUrl is required"));
    }

    #[test]
    fn headers_are_checked_as_fetch_checks_them() {
        let with = |name: &str, value: &str| {
            message(Config::new("https://h.example").token("t").header(name, value))
        };
        for (name, value) in
            [("X-Trace", "t-1"), ("x_a.b~", " padded \r\n"), ("X-Latin", "é"), ("X-E", "")]
        {
            assert_eq!(with(name, value), "ok", "{name}: {value:?}");
        }
        for (name, value, wrong) in [
            ("bad name", "x", "name"),
            ("", "x", "name"),
            ("X-Ü", "x", "name"),
            ("X-A", "a\r\nX-Evil: 1", "value"),
            ("X-A", "\0", "value"),
            ("X-A", "🌿", "value"),
        ] {
            let e = with(name, value);
            assert!(e.contains(&[" has a ", wrong, " that is not a header's"].concat()), "{e}");
        }
        assert_eq!(
            with("bad name", "x"),
            "Config::header(\"bad name\", ..) has a name that is not a header's (letters, digits \
             and !#$%&'*+-.^_`|~)"
        );
        let [rust, js] = both("https://h.example").map(|c| message(c.header("content-TYPE", "x")));
        assert_eq!(rust, "Config::header(..) cannot set content-TYPE: the client sets it");
        assert_eq!(js, "options.headers cannot set content-TYPE: the client sets it");
        let [_, js] = both("https://h.example").map(|c| message(c.header("Idempotency-Key", "k")));
        assert_eq!(js, "options.headers cannot set Idempotency-Key: the client sets it");
        for name in ["Content-Length", "expect", "Transfer-Encoding", "upgrade", "Host"] {
            let [_, js] = both("https://h.example").map(|c| message(c.header(name, "5")));
            assert_eq!(js, ["options.headers cannot set ", name, FRAMED].concat());
        }
        let [rust, js] = both("https://h.example").map(|c| message(c.header("X-Proxied-By", "1")));
        assert_eq!([rust, js], ["ok", "ok"]);
    }

    #[test]
    fn retries_name_their_setting() {
        for (retry, rust, js) in [
            (
                Retry::new(0),
                "the attempts of Retry::new(..) must be a whole number from 1 to 10",
                "retry.attempts must be a whole number from 1 to 10",
            ),
            (Retry::new(11), "the attempts of Retry::new(..) ", "retry.attempts "),
            (
                Retry::new(3).base_delay_ms(u32::MAX),
                "Retry::base_delay_ms(..) ",
                "retry.baseDelayMs ",
            ),
            (
                Retry::new(3).max_delay_ms(MAX_TIMEOUT_MS + 1),
                "Retry::max_delay_ms(..) ",
                "retry.maxDelayMs ",
            ),
            (
                Retry::new(3).attempt_timeout_ms(0),
                "Retry::attempt_timeout_ms(..) ",
                "retry.attemptTimeoutMs ",
            ),
        ] {
            let [r, j] = both("https://h.example").map(|c| message(c.retry(retry)));
            assert!(r.starts_with(rust) && j.starts_with(js), "{r} | {j}");
        }
    }

    #[test]
    fn a_key_lifetime_is_whole_milliseconds_from_one_or_infinity() {
        for ms in [1.0, 86_400_000.0, MAX_SAFE_INTEGER, f64::INFINITY] {
            assert_eq!(
                message(Config::new("https://h.example").token("t").key_lifetime_ms(ms)),
                "ok"
            );
        }
        for ms in [0.0, 0.5, -1.0, 1.5, f64::NAN, f64::NEG_INFINITY, MAX_SAFE_INTEGER + 2.0] {
            let [rust, js] = both("https://h.example").map(|c| message(c.key_lifetime_ms(ms)));
            let rule = " must be a whole number of milliseconds from 1 to 9007199254740991, or ";
            assert_eq!(
                rust,
                ["Config::key_lifetime_ms(..)", rule, "f64::INFINITY"].concat(),
                "{ms}"
            );
            assert_eq!(js, ["options.keyLifetimeMs", rule, "Infinity"].concat(), "{ms}");
        }
        let settings = |ms| Config::new("https://h.example").token("t").key_lifetime_ms(ms).check();
        assert_eq!(settings(5.0).ok().map(|s| s.config.key_lifetime_ms), Some(5.0));
        assert_eq!(
            settings(f64::INFINITY).ok().map(|s| s.config.key_lifetime_ms),
            Some(f64::INFINITY)
        );
    }

    #[test]
    fn a_calls_key_is_checked_in_the_callers_voice() {
        let key = CallOptions::new().idempotency_key(IdempotencyKey::Given("a\"b".into()));
        let [rust, js] = both("https://h.example").map(|c| match key.check(&c) {
            Ok(_) => String::from("ok"),
            Err(draft) => draft.redact(&[]).to_string(),
        });
        let rule = " must be 1 to 255 printable ASCII characters, without \" or \\";
        assert_eq!(
            [rust, js],
            [
                ["CallOptions::idempotency_key(..)", rule].concat(),
                ["idempotencyKey", rule].concat()
            ]
        );
    }

    #[test]
    fn debug_never_shows_the_token() {
        let config = Config::new("https://h.example").token("s3cret-token");
        assert!(!alloc::format!("{config:?}").contains("s3cret"));
    }
}
