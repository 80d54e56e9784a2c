//! The client and its one call, read top to bottom: `POST {baseUrl}/plants` with the bearer token,
//! from the NewPlant to the Plant or the error. Rust callers and the JS-facing layer both come
//! through [`Client::start`] and [`Call::run`].

use crate::answer::{self, ERROR_BODY_LIMIT};
use crate::config::{
    check_token, Attempt, AttemptOutcome, CallOptions, Config, Credential, IdempotencyKey, Retry,
    Settings,
};
use crate::error::{text, Draft, Error, Kind};
use crate::fetch::{self, Failure, Guard};
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use js_sys::{Date, Function, Object, Promise, Reflect};
use plant_store_model::{NewPlant, Plant};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{AbortSignal, RequestCredentials, RequestInit, RequestRedirect, Response};

/// A Plant Store client: checked settings, shared by its clones and by every call.
///
/// ```no_run
/// use plant_store_client::{Client, Config, Kind, NewPlant};
///
/// # async fn run() -> Result<(), plant_store_client::Error> {
/// let client = Client::new(Config::new("https://plants.example/api/v1").token("my-access-token"))?;
/// let plant = NewPlant { id: 9_007_199_254_740_993, name: "Monstera".into(), tag: None };
/// match client.create_plant(&plant).await {
///     Ok(created) => assert_eq!(created.name, "Monstera"),
///     Err(e) if e.kind() == Kind::Rejected => { /* the store said no: e.code(), e.message() */ }
///     Err(e) => return Err(e),
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct Client(Rc<Settings>);

impl core::fmt::Debug for Client {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Client")
            .field("url", &self.0.url_text)
            .field("timeout_ms", &self.0.timeout_ms)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// A client for the Plant Store `config` names.
    ///
    /// # Errors
    /// A [`Kind::Config`](crate::Kind::Config) error naming the first wrong setting: the base
    /// URL, a missing or malformed token, the timeout, an extra header, or the retries.
    pub fn new(config: Config) -> Result<Client, Error> {
        config.check().map(Client::from_settings)
    }

    pub(crate) fn from_settings(settings: Settings) -> Client {
        Client(Rc::new(settings))
    }

    /// Sends `plant` to `POST {baseUrl}/plants` and returns the Plant the store created.
    ///
    /// Dropping the future before it is done aborts the request. With a token source, a 401
    /// makes the client ask it once for a new token (`{ refresh: true }`), shared by every call
    /// of the client refused with the same token, and send the request once more with it.
    ///
    /// # Errors
    /// An [`Error`] of kind `network` (fetch failed), `timeout`, `aborted` (the client's signal),
    /// `rejected` (a 400 with an Error body), `unauthorized` (a 401, or a failed refresh),
    /// `unexpected_status` (any other status but 200, a redirect), `invalid_response` (an
    /// answer that breaks the contract) or `config` (a token source or a hook that failed, or no
    /// fetch to call). [`Error::attempts`] says how many requests were sent.
    pub async fn create_plant(&self, plant: &NewPlant) -> Result<Plant, Error> {
        self.create_plant_with(plant, &CallOptions::new()).await
    }

    /// [`Client::create_plant`], which `signal` also aborts.
    ///
    /// # Errors
    /// As [`Client::create_plant`].
    pub async fn create_plant_with_signal(
        &self,
        plant: &NewPlant,
        signal: &AbortSignal,
    ) -> Result<Plant, Error> {
        let options = CallOptions::new().signal(signal.clone());
        self.create_plant_with(plant, &options).await
    }

    /// [`Client::create_plant`] with this call's signal, retries or idempotency key.
    ///
    /// # Errors
    /// As [`Client::create_plant`]; a `config` error for a wrong [`Retry`] or key.
    pub async fn create_plant_with(
        &self,
        plant: &NewPlant,
        options: &CallOptions,
    ) -> Result<Plant, Error> {
        self.start(plant, options)?.run().await
    }

    /// What `error` shows when this client's token is known.
    pub(crate) fn redact(&self, error: Draft) -> Error {
        error.redact(self.0.fixed_token())
    }

    /// Starts a call, at once: the request body, fetch to call, the timeout and the signals.
    /// Fails without sending when a signal is already aborted, an option is wrong, or there is
    /// no fetch.
    pub(crate) fn start(&self, plant: &NewPlant, options: &CallOptions) -> Result<Call, Error> {
        let settings = &self.0;
        let retry = match options.retry {
            Some(retry) => retry.check(),
            None => Ok(settings.retry),
        };
        let key = match &options.idempotency_key {
            Some(key) => key,
            None if settings.idempotency_key => &IdempotencyKey::Generated,
            None => &IdempotencyKey::Off,
        };
        let (retry, key) = retry
            .and_then(|retry| Ok((retry, idempotency_key(key)?)))
            .map_err(|e| self.redact(e))?;
        let fetch = match &settings.fetch {
            Some(fetch) => fetch.clone(),
            None => self.global_fetch().map_err(|e| self.redact(e))?,
        };
        let signals: Vec<AbortSignal> = [settings.signal.as_ref(), options.signal.as_ref()]
            .into_iter()
            .flatten()
            .cloned()
            .collect();
        let guard =
            Guard::start(settings.timeout_ms, signals).map_err(|e| self.redact(self.failed(e)))?;
        Ok(Call {
            client: self.clone(),
            body: JsValue::from_str(&plant.to_json()),
            echoed: plant.name.len() + plant.tag.as_ref().map_or(0, String::len),
            fetch,
            guard,
            retry,
            key,
            deadline: Date::now() + f64::from(settings.timeout_ms),
        })
    }

    /// The global `fetch`, read per call (so a polyfill or a mock installed later is seen): a
    /// `config` error when there is none, a `network` one when reading it throws.
    fn global_fetch(&self) -> Result<Function, Draft> {
        let fetch = GLOBAL.with(|global| Reflect::get(global, &JsValue::from_str("fetch")));
        fetch
            .map_err(|thrown| self.failed(Failure::Threw(thrown)))?
            .dyn_into::<Function>()
            .map_err(|_| Draft::config("this runtime has no global fetch; pass options.fetch"))
    }

    fn failed(&self, failure: Failure) -> Draft {
        answer::failure(failure, &self.0.url_text, self.0.timeout_ms)
    }
}

/// The `Idempotency-Key` header's value for `key`: a Structured Fields string (quoted).
fn idempotency_key(key: &IdempotencyKey) -> Result<Option<JsValue>, Draft> {
    let key = match key {
        IdempotencyKey::Off => return Ok(None),
        IdempotencyKey::Generated => uuid()?,
        IdempotencyKey::Given(key) => {
            let printable = |b: &u8| (b' '..=b'~').contains(b) && *b != b'"' && *b != b'\\';
            if key.is_empty() || key.len() > 255 || !key.bytes().all(|b| printable(&b)) {
                return Err(Draft::config(
                    "idempotencyKey must be 1 to 255 printable ASCII characters, without \" or \\",
                ));
            }
            key.clone()
        }
    };
    Ok(Some(JsValue::from_str(&text(&["\"", &key, "\""]))))
}

/// A random UUID v4 (RFC 9562), by hand: 16 bytes from `crypto.getRandomValues` (which every
/// runtime has, unlike `crypto.randomUUID` outside secure contexts) and their hex.
fn uuid() -> Result<String, Draft> {
    let mut bytes = [0u8; 16];
    random_values(&mut bytes).map_err(|cause| {
        Draft::config("idempotencyKey needs crypto.getRandomValues, which this runtime lacks")
            .with_cause(cause)
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

#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// `globalThis`, where the global fetch is looked up (no `window` needed).
    #[wasm_bindgen(thread_local_v2, js_name = globalThis)]
    static GLOBAL: JsValue;

    /// `crypto.getRandomValues(bytes)`; throws where there is no `crypto`.
    #[wasm_bindgen(catch, js_namespace = crypto, js_name = getRandomValues)]
    fn random_values(bytes: &mut [u8]) -> Result<JsValue, JsValue>;
}

/// One call, started: run it to its Plant or its error. Dropping it aborts the request.
pub(crate) struct Call {
    client: Client,
    /// The NewPlant as JSON, sent by every attempt.
    body: JsValue,
    /// The bytes of the name and tag, which a 200 echoes.
    echoed: usize,
    fetch: Function,
    guard: Guard,
    retry: Retry,
    /// The `Idempotency-Key` header's value, the same on every attempt.
    key: Option<JsValue>,
    /// When the call times out, in `Date.now()` milliseconds.
    deadline: f64,
}

/// What one attempt learnt besides its outcome.
#[derive(Default)]
struct Facts {
    /// The token from the token source that the attempt sent.
    token: Option<String>,
    /// fetch was called: the request may have left.
    sent: bool,
    /// The answer's status, when one came.
    status: Option<u16>,
    /// The answer's headers, when a hook or a `Retry-After` needs them.
    headers: Option<web_sys::Headers>,
    /// The wait a `Retry-After` asked for.
    retry_after: Option<u32>,
    /// The attempt ran out of its own time (`retry.attemptTimeoutMs`).
    ticked: bool,
    duration_ms: f64,
}

impl Call {
    /// Runs the call: its attempts, the waits between them and a token refresh after a 401.
    /// Every error it ends with passes through [`Draft::redact`] with every token it sent.
    pub(crate) async fn run(mut self) -> Result<Plant, Error> {
        let client = self.client.clone();
        let settings = &*client.0;
        let mut tokens = String::from(settings.fixed_token());
        let (mut sent, mut maybe, mut refreshed) = (0, false, false);
        let mut earlier: Option<Error> = None;
        let mut fresh = None;
        loop {
            let mut facts = Facts::default();
            let outcome = self.attempt(sent + 1, fresh.take(), &mut facts).await;
            if let Some(token) = &facts.token {
                tokens.push(' ');
                tokens.push_str(token);
            }
            if facts.sent {
                sent += 1;
                // Only a 4xx or a 503 says the store did not create the plant.
                maybe |= outcome.is_err() && !matches!(facts.status, Some(400..=499 | 503));
            }
            let outcome =
                outcome.map_err(|e| e.redact(&tokens).in_call(sent, maybe, earlier.take()));
            if let (true, Some(after)) = (facts.sent, &settings.after) {
                let seen = AttemptOutcome {
                    url: &settings.url_text,
                    number: sent,
                    duration_ms: facts.duration_ms,
                    status: facts.status,
                    headers: facts.headers.as_ref(),
                    error: outcome.as_ref().err(),
                };
                if let Err(e) = Call::hook(after.0(&seen), "options.afterAttempt") {
                    let created = maybe || outcome.is_ok();
                    return Err(e.redact(&tokens).in_call(sent, created, outcome.err()));
                }
            }
            let error = match outcome {
                Ok(plant) => return Ok(plant),
                Err(error) => error,
            };
            if let (Kind::Unauthorized, Some(stale), false, Credential::Source(get_token)) =
                (error.kind(), &facts.token, refreshed, &settings.credential)
            {
                refreshed = true;
                match self.refresh(get_token, stale).await {
                    Ok(token) => fresh = Some(token),
                    Err(e) => return Err(e.redact(&tokens).in_call(sent, maybe, Some(error))),
                }
                earlier = Some(error);
                continue;
            }
            let retry = &self.retry;
            let retried = match (error.kind(), facts.status) {
                (Kind::Aborted, _) => false,
                (Kind::Timeout, _) => facts.ticked,
                (_, Some(429 | 503)) => true,
                (_, Some(502 | 504)) => retry.gateway_errors,
                (Kind::Network, None) => facts.sent,
                _ => false,
            };
            if !retried || sent >= retry.attempts + u32::from(refreshed) {
                return Err(error);
            }
            // A wait past the cap (a Retry-After's) or past the deadline ends the call now.
            let wait = facts.retry_after.unwrap_or_else(|| backoff(retry, sent));
            if wait > retry.max_delay_ms || f64::from(wait) >= self.deadline - Date::now() {
                return Err(match facts.retry_after {
                    Some(asked) => error.with_retry_after(asked),
                    None => error,
                });
            }
            if let Err(stop) = self.guard.sleep(wait).await {
                let stopped = client.failed(stop).redact(&tokens);
                return Err(stopped.in_call(sent, maybe, Some(error)));
            }
            earlier = Some(error);
        }
    }

    /// One attempt: the token, the headers (and the hook that may add some), fetch, the head of
    /// the answer, its body, the Plant or the error.
    async fn attempt(
        &mut self,
        number: u32,
        fresh: Option<String>,
        facts: &mut Facts,
    ) -> Result<Plant, Draft> {
        let client = self.client.clone();
        let settings = &*client.0;
        let token = match (&settings.credential, fresh) {
            (Credential::Fixed(token), _) => token.expose(),
            (Credential::Source(_), Some(token)) => facts.token.insert(token),
            (Credential::Source(get_token), None) => {
                let got = get_token.call1(&JsValue::UNDEFINED, &refresh_context(false));
                facts.token.insert(self.token(got, false).await?)
            }
        };
        let mut headers = Object::assign(&Object::new(), &settings.headers);
        if let Some(key) = &self.key {
            let _ = Reflect::set(&headers, &JsValue::from_str("Idempotency-Key"), key);
        }
        if let Some(before) = &settings.before {
            headers = self.before(before, number, &headers)?;
        }
        let bearer = JsValue::from_str(&text(&["Bearer ", token]));
        let _ = Reflect::set(&headers, &JsValue::from_str("Authorization"), &bearer);
        let init = RequestInit::new();
        init.set_method("POST");
        init.set_headers(&headers);
        init.set_body(&self.body);
        init.set_credentials(RequestCredentials::Omit);
        init.set_redirect(RequestRedirect::Manual);
        let signal = self.guard.attempt(self.retry.attempt_timeout_ms);
        let began = Date::now();
        let outcome = match signal {
            Ok(signal) => {
                init.set_signal(Some(&signal));
                self.exchange(&init, facts).await
            }
            Err(e) => Err(client.failed(e)),
        };
        facts.duration_ms = Date::now() - began;
        facts.ticked = self.guard.settle();
        outcome
    }

    /// The headers after `before`, the hook, saw them (as a `Headers`) and maybe added some.
    fn before(
        &self,
        before: &crate::config::Hook<crate::config::Before>,
        number: u32,
        headers: &Object,
    ) -> Result<Object, Draft> {
        let refused = || {
            Draft::config("options.beforeAttempt may not set Authorization or change Content-Type")
        };
        let given = web_sys::Headers::new_with_record_from_str_to_str(headers)
            .map_err(|cause| refused().with_cause(cause))?;
        let attempt = Attempt {
            url: &self.client.0.url_text,
            number,
            headers: &given,
        };
        Call::hook(before.0(&attempt), "options.beforeAttempt")?;
        let content_type = given.get("content-type").ok().flatten();
        if given.has("authorization").unwrap_or(true)
            || content_type.as_deref() != Some("application/json")
        {
            return Err(refused());
        }
        Object::from_entries(&given).map_err(|cause| refused().with_cause(cause))
    }

    /// What a hook threw ends the call.
    fn hook(returned: Result<(), JsValue>, name: &str) -> Result<(), Draft> {
        returned.map_err(|cause| {
            Draft::config(text(&[name, " threw; the call was stopped"])).with_cause(cause)
        })
    }

    /// fetch, the head of the answer, its body, the Plant or the error.
    async fn exchange(&mut self, init: &RequestInit, facts: &mut Facts) -> Result<Plant, Draft> {
        let client = self.client.clone();
        let settings = &*client.0;
        let pending = self.fetch.call2(&JsValue::UNDEFINED, &settings.url, init);
        let answer = match pending {
            Ok(pending) => {
                facts.sent = true;
                self.guard.wait(pending).await
            }
            Err(thrown) => Err(Failure::Threw(thrown)),
        }
        .map_err(|e| client.failed(e))?;
        let response: Response = answer.dyn_into().map_err(|_| answer::not_a_response())?;
        let head = fetch::head(&response).map_err(|e| client.failed(e))?;
        let Some((status, redirect, body)) = head else {
            return Err(answer::not_a_response());
        };
        facts.status = Some(status);
        if settings.after.is_some() || matches!(status, 429 | 503) {
            facts.headers = fetch::headers(&response);
            let asked = facts
                .headers
                .as_ref()
                .and_then(|h| h.get("retry-after").ok().flatten());
            facts.retry_after = asked.as_deref().and_then(retry_after);
        }
        if redirect {
            match &body {
                Some(body) => self.guard.discard(body),
                None => self.guard.finish(),
            }
            return Err(answer::redirect(status));
        }
        let Some(body) = body else {
            self.guard.finish();
            return answer::outcome(status, &[], true, 0);
        };
        let limit = match status {
            200 => answer::success_limit(self.echoed),
            _ => ERROR_BODY_LIMIT,
        };
        let (bytes, complete) = self
            .guard
            .read(&body, limit)
            .await
            .map_err(|e| client.failed(e))?;
        answer::outcome(status, &bytes, complete, limit)
    }

    /// A new token after `stale` was refused: one `getToken({ refresh: true })` for every call of
    /// the client refused with `stale`, whose promise they all await. A failed one is forgotten,
    /// so that a later 401 asks again.
    async fn refresh(&self, get_token: &Function, stale: &str) -> Result<String, Draft> {
        let settings = &*self.client.0;
        let promise = match settings.refresh.take() {
            Some((token, promise)) if token == stale => promise,
            _ => match get_token.call1(&JsValue::UNDEFINED, &refresh_context(true)) {
                Ok(value) => fetch::resolve(&value).unwrap_or_else(|e| Promise::reject(&e)),
                Err(thrown) => Promise::reject(&thrown),
            },
        };
        settings.refresh.set(Some((stale.into(), promise.clone())));
        let token = self.token(Ok(promise.clone().into()), true).await;
        if token.is_err() {
            match settings.refresh.take() {
                Some((_, last)) if Object::is(&last, &promise) => {}
                last => settings.refresh.set(last),
            }
        }
        token
    }

    /// The token a token source returned (or threw), checked. Its failure is a `config` error
    /// with the cause; for a refresh (`refreshing`), an `unauthorized` one.
    async fn token(
        &self,
        got: Result<JsValue, JsValue>,
        refreshing: bool,
    ) -> Result<String, Draft> {
        let got = match got {
            Ok(value) => self.guard.wait(value).await,
            Err(thrown) => Err(Failure::Threw(thrown)),
        };
        let value = match got {
            Ok(value) => value,
            Err(Failure::Threw(cause)) if refreshing => {
                let message = "the Plant Store refused the token (401), and options.getToken({ refresh: true }) failed";
                return Err(Draft::new(Kind::Unauthorized, message)
                    .with_status(401)
                    .with_cause(cause));
            }
            Err(Failure::Threw(cause)) => {
                let message = "options.getToken failed; no request was sent";
                return Err(Draft::config(message).with_cause(cause));
            }
            Err(stopped) => return Err(self.client.failed(stopped)),
        };
        let token = crate::js::well_formed_string(&value).map_err(|got| {
            Draft::config(match got {
                Some(type_name) => text(&["options.getToken must be a string, got ", type_name]),
                None => {
                    "options.getToken: token is not well-formed Unicode; its value is not shown"
                        .into()
                }
            })
        })?;
        check_token(&token, "options.getToken")?;
        Ok(token)
    }
}

/// What a token source is called with: `{ refresh }`.
fn refresh_context(refresh: bool) -> JsValue {
    let context = crate::js::fields();
    context.set_refresh(refresh);
    context.into()
}

/// The wait before retry number `retries`: full jitter over an exponential cap (AWS's
/// "Exponential Backoff And Jitter"), at most `max_delay_ms`.
fn backoff(retry: &Retry, retries: u32) -> u32 {
    let doubled = f64::from(retry.base_delay_ms) * f64::from(1u32 << (retries - 1).min(30));
    let cap = doubled.min(f64::from(retry.max_delay_ms));
    (js_sys::Math::random() * cap) as u32
}

/// A `Retry-After` value as a wait in milliseconds: delay-seconds, or an HTTP-date (read by
/// `Date.parse`, which takes the three forms of RFC 9110) from now; `None` for anything else.
fn retry_after(value: &str) -> Option<u32> {
    let value = value.trim_ascii();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        let seconds = value.bytes().fold(0u64, |n, b| {
            n.saturating_mul(10).saturating_add(u64::from(b - b'0'))
        });
        return Some(u32::try_from(seconds.saturating_mul(1000)).unwrap_or(u32::MAX));
    }
    // The shortest HTTP-date (asctime's) has 24 characters; Date.parse takes much else.
    if value.len() < 24 {
        return None;
    }
    let at = Date::parse(value);
    (!at.is_nan()).then(|| (at - Date::now()).clamp(0.0, f64::from(u32::MAX)) as u32)
}
