//! The client and its one call, read top to bottom after ureq's `run.rs`: [`Call::run`] is a loop
//! of attempts; [`Call::attempt`] gets the token, builds the headers, exchanges (`exchange.rs`)
//! and says what the answer means (`answer.rs`); after a failed attempt [`answer::next`] says what
//! comes next. Every error the call ends with leaves through [`Call::fail`]. Also here:
//! [`plant_object`], a plant as the JS object its callers hand on.

use crate::answer::{self, Budget, Learnt, Next, PLATFORM};
use crate::config::{CallOptions, Config, IdempotencyKey, Retry, Settings};
use crate::error::{Draft, Error};
use crate::exchange::{self, Failure, Guard, Stop, Stops};
use crate::hooks::{self, After, Attempt, AttemptOutcome, Callback, Fetch};
use crate::token::Credential;
use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use core::{future::Future, pin::Pin};
use js_sys::{Date, Object};
use plant_store_model::{NewPlant, Plant, Token};
use wasm_bindgen::prelude::*;
use web_sys::Headers;

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
pub struct Client(Rc<Settings>);

impl core::fmt::Debug for Client {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Client")
            .field("url", &self.0.url)
            .field("timeout_ms", &self.0.config.timeout_ms)
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
        Ok(Client(Rc::new(config.check()?)))
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

    /// [`Client::create_plant`] with this call's signal, retries, idempotency key or hook.
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
        match &self.0.credential {
            Credential::Fixed(token) => draft.redact(&[token.expose()]),
            Credential::Source(_) => draft.redact(&[]),
        }
    }

    /// Starts a call, at once (its timeout counts from here): the request body, the fetch to call,
    /// the retries and the key, the timeout and the signals. Fails without sending when an option
    /// of the call is wrong, there is no fetch, or a signal is already aborted.
    pub(crate) fn start(&self, plant: &NewPlant, options: &CallOptions) -> Result<Call, Error> {
        let config = &self.0.config;
        let redact = |draft| self.redact(draft);
        let (retry, key) = options.check(config).map_err(redact)?;
        let fetch = exchange::fetch_of(config.fetch.as_ref()).map_err(redact)?;
        let signals = [config.signal.as_ref(), options.signal.as_ref()];
        let signals = signals.into_iter().flatten().cloned().collect();
        let stops = Stops::start(config.timeout_ms, signals).map_err(redact)?;
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
    /// `Off`, or the key every attempt sends.
    key: IdempotencyKey,
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

/// What one attempt learnt: how it ended, what the decision reads, the source's token it sent,
/// and what the after hook sees of the answer.
struct Tried {
    outcome: Result<Plant, Draft>,
    learnt: Learnt,
    token: Option<Token>,
    headers: Option<Headers>,
    duration_ms: f64,
}

impl Call {
    /// Runs the call: its attempts, the waits between them and a token refresh after a 401. Boxed,
    /// so that one copy of the call's code serves every caller (the JS exports, the Rust API, the
    /// outbox), where each would inline its own.
    pub(crate) fn run(mut self) -> Pin<Box<dyn Future<Output = Result<Plant, Error>>>> {
        Box::pin(async move {
            let client = self.client.clone();
            loop {
                let tried = match self.attempt().await {
                    Ok(tried) => tried,
                    Err(draft) => return Err(self.fail(draft)),
                };
                let Tried { outcome, learnt, token, headers, duration_ms } = tried;
                self.sent += u32::from(learnt.sent);
                // Only a 4xx, a 503 or a connection never made says that the store did not create
                // the plant.
                self.maybe_created |= learnt.sent
                    && !learnt.refused
                    && outcome.is_err()
                    && !matches!(learnt.status, Some(400..=499 | 503));
                let (next, outcome) = match outcome {
                    Ok(plant) => (None, Ok(plant)),
                    Err(draft) => {
                        let budget = Budget {
                            retry: self.retry,
                            sent: self.sent,
                            refreshable: matches!(client.0.credential, Credential::Source(_)),
                            refreshed: self.refreshed,
                            ends_at: self.stops.ends_at,
                        };
                        let next = answer::next(&draft, &learnt, &budget, &PLATFORM);
                        let asked = if let Next::Stop(asked) = next { asked } else { None };
                        (Some(next), Err(self.fail(draft.with_retry_after(asked))))
                    }
                };
                let hooks = [&client.0.config.after, &self.after];
                if learnt.sent && hooks.iter().any(|hook| hook.is_some()) {
                    let seen = AttemptOutcome {
                        url: &client.0.url,
                        number: self.sent,
                        duration_ms,
                        status: learnt.status,
                        headers: headers.as_ref(),
                        error: outcome.as_ref().err(),
                    };
                    let said = hooks.into_iter().flatten().try_for_each(|hook| hook.0(&seen));
                    if let Err(cause) = said {
                        // The plant exists after a Plant; the attempt's error is the earlier one.
                        self.maybe_created |= outcome.is_ok();
                        self.last = outcome.err();
                        return Err(self.fail(hooks::threw("options.afterAttempt", cause)));
                    }
                }
                let error = match outcome {
                    Ok(plant) => return Ok(plant),
                    Err(error) => error,
                };
                match (next, &client.0.credential, token) {
                    (Some(Next::Refresh), Credential::Source(source), Some(stale)) => {
                        self.last = Some(error);
                        self.refreshed = true;
                        let token = source.refresh(stale, &self.stops).await;
                        self.fresh = Some(token.map_err(|draft| self.fail(draft))?);
                    }
                    (Some(Next::Wait(ms)), _, _) => {
                        self.last = Some(error);
                        if let Err(stop) = self.stops.sleep(ms).await {
                            return Err(self.fail(self.stops.draft(stop)));
                        }
                    }
                    _ => return Err(error),
                }
            }
        })
    }

    /// One attempt: the token, the headers, fetch, the answer read up to its bound, and what it
    /// means. An `Err` is an attempt that never got to send (no token, a hook said no, the call
    /// stopped), which ends the call.
    async fn attempt(&mut self) -> Result<Tried, Draft> {
        let client = self.client.clone();
        let settings = &*client.0;
        let url = &settings.url;
        let token = match &settings.credential {
            Credential::Fixed(token) => Cow::Borrowed(token),
            Credential::Source(source) => {
                let token = match self.fresh.take() {
                    Some(token) => token,
                    None => source.token(&self.stops).await?,
                };
                self.tokens.push(token.clone());
                Cow::Owned(token)
            }
        };
        let headers = self.headers(settings, &token)?;
        let mut timed_out = false;
        let mut failed = |failure: Failure| {
            timed_out = matches!(failure, Failure::Stopped(Stop::AttemptTimedOut));
            self.failed(failure)
        };
        let mut guard =
            Guard::new(&self.stops, self.retry.attempt_timeout_ms).map_err(&mut failed)?;
        let began = Date::now();
        let head = guard.fetch(&*self.fetch.0, url, &headers, &self.body).await;
        let (status, answered) = match &head {
            Ok(Some(head)) => (Some(head.status), head.headers.clone()),
            _ => (None, None),
        };
        let mut refused = false;
        let outcome = match head {
            Err(Failure::Threw(cause)) => {
                let (why, never_connected) = answer::why(exchange::said(&cause).as_deref());
                refused = never_connected;
                let preflight = exchange::cross_origin(url).then(|| self.preflight(settings));
                Err(answer::unreachable(url, &why, cause, preflight.as_deref()))
            }
            Err(failure) => Err(failed(failure)),
            Ok(None) => Err(answer::not_a_response()),
            Ok(Some(head)) => {
                let (status, redirect) = (head.status, head.redirect);
                let limit = answer::limit(status, self.echoed);
                match guard.read(head, limit).await {
                    Ok(_) if redirect => Err(answer::redirect(status)),
                    Ok((body, complete)) => answer::outcome(status, &body, complete, limit, url),
                    Err(failure) => Err(failed(failure)),
                }
            }
        };
        let retry_after = match (status, &answered) {
            (Some(429 | 503), Some(headers)) => headers.get("retry-after").ok().flatten(),
            _ => None,
        };
        let learnt = Learnt { sent: guard.sent, refused, status, retry_after, timed_out };
        drop(guard);
        let duration_ms = Date::now() - began;
        let token = match token {
            Cow::Owned(token) => Some(token),
            Cow::Borrowed(_) => None,
        };
        Ok(Tried { outcome, learnt, token, headers: answered, duration_ms })
    }

    /// The attempt's request headers, one `Headers` built from the settings: `Accept`,
    /// `Content-Type`, the extra ones (checked by `Config::check`) and the `Idempotency-Key`, then
    /// what the before hook adds, then `Authorization`.
    fn headers(&self, settings: &Settings, token: &Token) -> Result<Headers, Draft> {
        let headers = Headers::new().map_err(|cause| self.failed(Failure::Threw(cause)))?;
        let json = "application/json";
        let _ = headers.set("Accept", json);
        let _ = headers.set("Content-Type", json);
        for (name, value) in &settings.config.headers {
            let _ = headers.set(name, value);
        }
        if let IdempotencyKey::Given(key) = &self.key {
            let _ = headers.set("Idempotency-Key", &["\"", key, "\""].concat());
        }
        if let Some(before) = &settings.config.before {
            let attempt = Attempt { url: &settings.url, number: self.sent + 1, headers: &headers };
            before.0(&attempt).map_err(|cause| hooks::threw("options.beforeAttempt", cause))?;
            let content_type = headers.get("content-type").ok().flatten();
            if headers.has("authorization").unwrap_or(true) || content_type.as_deref() != Some(json)
            {
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
    fn preflight(&self, settings: &Settings) -> String {
        let mut names = String::from("Authorization, Content-Type");
        for (name, _) in &settings.config.headers {
            names.push_str(", ");
            names.push_str(name);
        }
        if self.key != IdempotencyKey::Off {
            names.push_str(", Idempotency-Key");
        }
        names
    }

    /// The error of a failed exchange or wait.
    fn failed(&self, failure: Failure) -> Draft {
        match failure {
            Failure::Threw(cause) => {
                let (why, _) = answer::why(exchange::said(&cause).as_deref());
                answer::unreachable(&self.client.0.url, &why, cause, None)
            }
            Failure::Stopped(stop) => self.stops.draft(stop),
        }
    }

    /// The one way out for an error of the call: redacted against every token it sent, with the
    /// requests made, whether one may have created the plant, and the error of the attempt before.
    fn fail(&mut self, draft: Draft) -> Error {
        let mut secrets: Vec<&str> = self.tokens.iter().map(Token::expose).collect();
        if let Credential::Fixed(token) = &self.client.0.credential {
            secrets.push(token.expose());
        }
        let error = draft.redact(&secrets);
        error.in_call(self.sent, self.maybe_created, self.last.take())
    }
}

/// A fresh plain object `{ id, name, tag }`, the one builder of a plant for JavaScript: the
/// created Plant and a checked NewPlant of the JS API, the outbox's records, a Rust app's plant
/// handed on. `id` when given (a number, a BigInt or a string, as the reader needs it), `tag`
/// when there is one.
///
/// ```no_run
/// # use plant_store_client::plant_object;
/// let fern = plant_object(Some(&42.into()), "Fern", None); // { id: 42, name: "Fern" }
/// ```
pub fn plant_object(id: Option<&JsValue>, name: &str, tag: Option<&str>) -> Object {
    let object = Object::new().unchecked_into::<Named>();
    if let Some(id) = id {
        object.set_id(id);
    }
    object.set_name(name);
    if let Some(tag) = tag {
        object.set_tag(tag);
    }
    object.into()
}

#[wasm_bindgen]
extern "C" {
    /// A plant being made, through setters whose property names are in the glue rather than
    /// passed on each call.
    #[wasm_bindgen(extends = Object)]
    type Named;
    #[wasm_bindgen(method, setter)]
    fn set_id(this: &Named, id: &JsValue);
    #[wasm_bindgen(method, setter)]
    fn set_name(this: &Named, name: &str);
    #[wasm_bindgen(method, setter)]
    fn set_tag(this: &Named, tag: &str);
}
