//! The client and its one call, read top to bottom after ureq's `run.rs`: [`Call::run`] is a loop
//! over [`Call::attempt`], whose one value, what the attempt learnt, [`answer::next`] turns into
//! what comes next. Every error the call ends with leaves through [`Call::fail`].

use crate::answer::{self, Budget, Learnt, Next, PLATFORM};
use crate::config::{CallOptions, Config, Settings};
use crate::error::{Draft, Error};
use crate::fetch::{self, AbortGuard};
use crate::hooks::{self, Attempt, AttemptOutcome};
use crate::hooks::{After, Callback, Fetch};
use crate::stops::{Failure, Stops};
use crate::token::Credential;
use crate::Retry;
use alloc::boxed::Box;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use core::{future::Future, pin::Pin};
use js_sys::Date;
use plant_store_model::{NewPlant, Plant, Token};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{AbortSignal, Headers};

/// A Plant Store client: checked settings, shared by its clones and by every call.
///
/// ```no_run
/// use plant_store_client::{Client, Config, Kind, NewPlant};
///
/// # async fn run() -> Result<(), plant_store_client::Error> {
/// let config = Config::new("https://plants.example/api/v1").token("my-access-token");
/// let client = Client::new(config)?;
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
pub struct Client(Rc<Shared>);

/// What a client's calls share: its checked settings, and what every request sends made JS
/// strings once: the URL, and the headers every attempt starts from (`Accept`, `Content-Type` and
/// the extra ones).
struct Shared {
    settings: Settings,
    url: JsValue,
    headers: Vec<(JsValue, JsValue)>,
}

impl core::fmt::Debug for Client {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Client")
            .field("url", &self.0.settings.url)
            .field("timeout_ms", &self.0.settings.timeout_ms)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// A client for the Plant Store `config` names.
    ///
    /// # Errors
    /// A [`Kind::Config`](crate::Kind::Config) error naming the first wrong setting: the base URL,
    /// a missing or malformed token, the timeout, an extra header, or the retries.
    pub fn new(config: Config) -> Result<Client, Error> {
        let settings = config.check()?;
        let json = "application/json";
        let fixed = [("Accept", json), ("Content-Type", json)].into_iter();
        let extra = settings.headers.iter().map(|(name, value)| (&**name, &**value));
        let headers = fixed.chain(extra).map(|(name, value)| (name.into(), value.into())).collect();
        let url = JsValue::from_str(&settings.url);
        Ok(Client(Rc::new(Shared { settings, url, headers })))
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

    /// `draft` as an error of this client before any request: redacted against its fixed token.
    pub(crate) fn redact(&self, draft: Draft) -> Error {
        match &self.0.settings.credential {
            Credential::Fixed(token) => draft.redact(&[token.expose()]),
            Credential::Source(_) => draft.redact(&[]),
        }
    }

    /// Starts a call, at once (its timeout counts from here): the request body, the fetch to call,
    /// the key, the timeout and the signals. Fails without sending when a signal is already
    /// aborted, an option of the call is wrong, or there is no fetch.
    pub(crate) fn start(&self, plant: &NewPlant, options: &CallOptions) -> Result<Call, Error> {
        let settings = &self.0.settings;
        let (retry, key) = options.check(settings).map_err(|e| self.redact(e))?;
        let key = key.header().map_err(|e| self.redact(e))?;
        let fetch = match (&settings.fetch, fetch::global()) {
            (Some(fetch), _) => fetch.clone(),
            (None, Ok(Some(fetch))) => fetch,
            (None, Ok(None)) => {
                let message = "this runtime has no global fetch; pass options.fetch";
                return Err(self.redact(Draft::config(message)));
            }
            (None, Err(thrown)) => {
                let message = "could not read globalThis.fetch: reading it threw";
                return Err(
                    self.redact(Draft::new(crate::Kind::Network, message).with_cause(thrown))
                );
            }
        };
        let signals = [settings.signal.as_ref(), options.signal.as_ref()];
        let signals: Vec<AbortSignal> = signals.into_iter().flatten().cloned().collect();
        let stops = Stops::start(settings.timeout_ms, signals).map_err(|e| self.redact(e))?;
        Ok(Call {
            client: self.clone(),
            body: JsValue::from_str(&plant.to_json()),
            echoed: plant.name.len() + plant.tag.as_ref().map_or(0, String::len),
            fetch,
            stops,
            retry,
            key,
            after: options.after.clone(),
            sent: 0,
            maybe_created: false,
            refreshed: false,
            fresh: None,
            tokens: Vec::new(),
            last: None,
        })
    }
}

/// One call, started: run it to its Plant or its error. Dropping it aborts the request.
pub(crate) struct Call {
    client: Client,
    /// The NewPlant as JSON, sent by every attempt.
    body: JsValue,
    /// The bytes of the name and tag, which a 200 echoes.
    echoed: usize,
    fetch: Callback<Fetch>,
    /// The call's timeout and signals.
    stops: Stops,
    retry: Retry,
    /// The `Idempotency-Key` header's value, the same on every attempt.
    key: Option<String>,
    /// The call's own after hook, called after the client's.
    after: Option<Callback<After>>,
    /// Requests sent so far.
    sent: u32,
    /// One of them may have created the plant without the call learning it.
    maybe_created: bool,
    /// The token was refreshed once.
    refreshed: bool,
    /// The refreshed token, which the next attempt sends.
    fresh: Option<Token>,
    /// Every token from a token source that the call sent.
    tokens: Vec<Token>,
    /// The error of the latest attempt that failed: the next error's `earlier`.
    last: Option<Error>,
}

/// What one attempt learnt: how it ended, what the decision reads, the token it sent, and what
/// the after hook sees of the answer.
struct Tried {
    outcome: Result<Plant, Draft>,
    learnt: Learnt,
    token: Token,
    headers: Option<Headers>,
    duration_ms: f64,
}

impl Call {
    /// Runs the call: its attempts, the waits between them and a token refresh after a 401. Boxed,
    /// so that one copy of the call's code serves every caller (the JS exports, the Rust API, the
    /// outbox), where each would inline its own.
    pub(crate) fn run(self) -> Pin<Box<dyn Future<Output = Result<Plant, Error>>>> {
        Box::pin(self.drive())
    }

    async fn drive(mut self) -> Result<Plant, Error> {
        let client = self.client.clone();
        loop {
            let tried = match self.attempt().await {
                Ok(tried) => tried,
                Err(draft) => return Err(self.fail(draft)),
            };
            let learnt = &tried.learnt;
            self.sent += u32::from(learnt.sent);
            // Only a 4xx, a 503 or a connection never made says that the store did not create
            // the plant.
            self.maybe_created |= learnt.sent
                && !learnt.refused
                && tried.outcome.is_err()
                && !matches!(learnt.status, Some(400..=499 | 503));
            let next = answer::next(&tried.outcome, learnt, &self.budget(), &PLATFORM);
            let asked = match next {
                Next::Stop(asked) => asked,
                _ => None,
            };
            let outcome = tried.outcome.map_err(|e| self.fail(e.with_retry_after(asked)));
            let seen = (tried.headers.as_ref(), tried.duration_ms);
            if let Err(cause) = self.after(&tried.learnt, seen, &outcome) {
                // The plant exists after a Plant; the attempt's error is the earlier one.
                self.maybe_created |= outcome.is_ok();
                self.last = outcome.err();
                return Err(self.fail(hooks::threw("options.afterAttempt", cause)));
            }
            let error = match outcome {
                Ok(plant) => return Ok(plant),
                Err(error) => error,
            };
            match (next, &client.0.settings.credential) {
                (Next::Refresh, Credential::Source(source)) => {
                    self.last = Some(error);
                    self.refreshed = true;
                    let token = source.refresh(tried.token, &self.stops).await;
                    self.fresh = Some(token.map_err(|draft| self.fail(draft))?);
                }
                (Next::Wait(ms), _) => {
                    self.last = Some(error);
                    if let Err(stop) = self.stops.sleep(ms).await {
                        return Err(self.fail(self.stops.draft(stop)));
                    }
                }
                _ => return Err(error),
            }
        }
    }

    /// One attempt: the token, the headers, fetch, the answer read up to its bound, and what it
    /// means. An `Err` is an attempt that never got to send (no token, a hook said no, the call
    /// stopped), which ends the call.
    async fn attempt(&mut self) -> Result<Tried, Draft> {
        let client = self.client.clone();
        let token = self.token().await?;
        let headers = self.headers(&token)?;
        let limit_ms = self.retry.attempt_timeout_ms;
        let mut guard = AbortGuard::new(&self.stops, limit_ms).map_err(|f| self.failed(f))?;
        let began = Date::now();
        let head = guard.fetch(&*self.fetch.0, &client.0.url, &headers, &self.body).await;
        let mut refused = false;
        let (status, answered) = match &head {
            Ok(Some(head)) => (Some(head.status), head.headers.clone()),
            _ => (None, None),
        };
        let outcome = match head {
            Err(Failure::Threw(cause)) => {
                let (why, never_connected) = fetch::why(&cause);
                refused = never_connected;
                let url = &client.0.settings.url;
                let cors = fetch::cross_origin(url).then(|| self.preflight());
                Err(answer::unreachable(url, &why, cause).cors(cors.as_deref()))
            }
            Err(failure) => Err(self.failed(failure)),
            Ok(None) => Err(answer::not_a_response()),
            Ok(Some(head)) => {
                let (status, redirect) = (head.status, head.redirect);
                let limit = answer::limit(status, self.echoed);
                match guard.read(head, limit).await {
                    Ok(_) if redirect => Err(answer::redirect(status)),
                    Ok((body, complete)) => {
                        answer::outcome(status, &body, complete, limit, &client.0.settings.url)
                    }
                    Err(failure) => Err(self.failed(failure)),
                }
            }
        };
        let retry_after = match (status, &answered) {
            (Some(429 | 503), Some(headers)) => headers.get("retry-after").ok().flatten(),
            _ => None,
        };
        let timed_out = guard.timed_out();
        let learnt = Learnt { sent: guard.sent, refused, status, retry_after, timed_out };
        drop(guard);
        let duration_ms = Date::now() - began;
        Ok(Tried { outcome, learnt, token, headers: answered, duration_ms })
    }

    /// The token this attempt sends: the fixed one, the refreshed one, or the source's.
    async fn token(&mut self) -> Result<Token, Draft> {
        let token = match (&self.client.0.settings.credential, self.fresh.take()) {
            (Credential::Fixed(token), _) => return Ok(token.clone()),
            (Credential::Source(_), Some(token)) => token,
            (Credential::Source(source), None) => source.token(&self.stops).await?,
        };
        self.tokens.push(token.clone());
        Ok(token)
    }

    /// The attempt's request headers, one `Headers`: `Accept`, `Content-Type`, the extra ones and
    /// the `Idempotency-Key`, then what the before hook adds, then `Authorization`.
    fn headers(&self, token: &Token) -> Result<Headers, Draft> {
        let Shared { settings, headers: base, .. } = &*self.client.0;
        let headers = Headers::new().map_err(|cause| self.failed(Failure::Threw(cause)))?;
        for (name, value) in base {
            // Each was checked by `Config::check`.
            let _ = headers.unchecked_ref::<HeaderList>().set(name, value);
        }
        if let Some(key) = &self.key {
            let _ = headers.set("Idempotency-Key", key);
        }
        if let Some(before) = &settings.before {
            let number = self.sent + 1;
            let attempt = Attempt { url: &settings.url, number, headers: &headers };
            before.0(&attempt).map_err(|cause| hooks::threw("options.beforeAttempt", cause))?;
            let content_type = headers.get("content-type").ok().flatten();
            let json = Some("application/json");
            if headers.has("authorization").unwrap_or(true) || content_type.as_deref() != json {
                let message =
                    "options.beforeAttempt may not set Authorization or change Content-Type";
                return Err(Draft::config(message));
            }
        }
        let _ = headers.set("Authorization", &["Bearer ", token.expose()].concat());
        Ok(headers)
    }

    /// The request headers a browser asks the server's CORS preflight to allow: every one the
    /// call sets but `Accept` (CORS-safelisted). A `beforeAttempt` hook may add more.
    fn preflight(&self) -> String {
        let mut names = String::from("Authorization, Content-Type");
        for (name, _) in &self.client.0.settings.headers {
            names.push_str(", ");
            names.push_str(name);
        }
        if self.key.is_some() {
            names.push_str(", Idempotency-Key");
        }
        names
    }

    /// Calls the after hook, if there is one and a request was sent, with the attempt's outcome,
    /// the answer's headers and the attempt's duration; what it threw.
    fn after(
        &self,
        learnt: &Learnt,
        (headers, duration_ms): (Option<&Headers>, f64),
        outcome: &Result<Plant, Error>,
    ) -> Result<(), JsValue> {
        let settings = &self.client.0.settings;
        if !learnt.sent {
            return Ok(());
        }
        let seen = AttemptOutcome {
            url: &settings.url,
            number: self.sent,
            duration_ms,
            status: learnt.status,
            headers,
            error: outcome.as_ref().err(),
        };
        for hook in [&settings.after, &self.after].into_iter().flatten() {
            hook.0(&seen)?;
        }
        Ok(())
    }

    /// Where the call stands, for the decision.
    fn budget(&self) -> Budget {
        Budget {
            retry: self.retry,
            sent: self.sent,
            refreshable: matches!(self.client.0.settings.credential, Credential::Source(_)),
            refreshed: self.refreshed,
            ends_at: self.stops.ends_at,
        }
    }

    /// The error of a failed exchange or wait.
    fn failed(&self, failure: Failure) -> Draft {
        match failure {
            Failure::Threw(cause) => {
                let (why, _) = fetch::why(&cause);
                answer::unreachable(&self.client.0.settings.url, &why, cause)
            }
            Failure::Stopped(stop) => self.stops.draft(stop),
        }
    }

    /// The one way out for an error of the call: redacted against every token it sent, with the
    /// requests made, whether one may have created the plant, and the error of the attempt before.
    fn fail(&mut self, draft: Draft) -> Error {
        let mut secrets: Vec<&str> = self.tokens.iter().map(Token::expose).collect();
        if let Credential::Fixed(token) = &self.client.0.settings.credential {
            secrets.push(token.expose());
        }
        let error = draft.redact(&secrets);
        error.in_call(self.sent, self.maybe_created, self.last.take())
    }
}

#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// A `Headers`, set with names and values that are JS strings already.
    #[wasm_bindgen(extends = Headers)]
    type HeaderList;
    #[wasm_bindgen(method, catch)]
    fn set(this: &HeaderList, name: &JsValue, value: &JsValue) -> Result<(), JsValue>;
}
