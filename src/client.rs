//! The client and its one call, read top to bottom: `POST {baseUrl}/plants` with the bearer token,
//! from the NewPlant to the Plant or the error. Rust callers and the JS-facing layer both come
//! through [`Client::start`] and [`Call::run`].

use crate::answer::{self, ERROR_BODY_LIMIT};
use crate::config::{check_token, Config, Credential, Settings};
use crate::error::{text, Draft, Error};
use crate::fetch::{self, Failure, Guard};
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use js_sys::{Function, Object, Reflect};
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
    /// URL, a missing or malformed token, the timeout, or an extra header.
    pub fn new(config: Config) -> Result<Client, Error> {
        config.check().map(Client::from_settings)
    }

    pub(crate) fn from_settings(settings: Settings) -> Client {
        Client(Rc::new(settings))
    }

    /// Sends `plant` to `POST {baseUrl}/plants` and returns the Plant the store created.
    ///
    /// Dropping the future before it is done aborts the request.
    ///
    /// # Errors
    /// An [`Error`] of kind `network` (fetch failed), `timeout`, `aborted` (the client's signal),
    /// `rejected` (a 400 with an Error body), `unexpected_status` (any status but 200 and 400, a
    /// redirect), `invalid_response` (an answer that breaks the contract) or `config` (a token
    /// source that failed, or no fetch to call).
    pub async fn create_plant(&self, plant: &NewPlant) -> Result<Plant, Error> {
        self.start(plant, None)?.run().await
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
        self.start(plant, Some(signal))?.run().await
    }

    /// What `error` shows when this client's token is known.
    pub(crate) fn redact(&self, error: Draft) -> Error {
        error.redact(self.0.fixed_token())
    }

    /// Starts a call, at once: the request body, fetch to call, the timeout and the signals.
    /// Fails without sending when a signal is already aborted or there is no fetch.
    pub(crate) fn start(
        &self,
        plant: &NewPlant,
        signal: Option<&AbortSignal>,
    ) -> Result<Call, Error> {
        let settings = &self.0;
        let fetch = match &settings.fetch {
            Some(fetch) => fetch.clone(),
            None => self.global_fetch().map_err(|e| self.redact(e))?,
        };
        let signals: Vec<AbortSignal> = [settings.signal.as_ref(), signal]
            .into_iter()
            .flatten()
            .cloned()
            .collect();
        let guard =
            Guard::start(settings.timeout_ms, signals).map_err(|e| self.redact(self.failed(e)))?;
        Ok(Call {
            client: self.clone(),
            body: plant.to_json(),
            echoed: plant.name.len() + plant.tag.as_ref().map_or(0, String::len),
            fetch,
            guard,
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

#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// `globalThis`, where the global fetch is looked up (no `window` needed).
    #[wasm_bindgen(thread_local_v2, js_name = globalThis)]
    static GLOBAL: JsValue;
}

/// One call, started: run it to its Plant or its error. Dropping it aborts the request.
pub(crate) struct Call {
    client: Client,
    body: String,
    /// The bytes of the name and tag, which a 200 echoes.
    echoed: usize,
    fetch: Function,
    guard: Guard,
}

impl Call {
    /// Runs the call. Every error it ends with passes through [`Draft::redact`] with the token
    /// the request carried.
    pub(crate) async fn run(mut self) -> Result<Plant, Error> {
        let mut token = None;
        let result = self.exchange(&mut token).await;
        let secret = token.as_deref().unwrap_or(self.client.0.fixed_token());
        result.map_err(|draft| draft.redact(secret))
    }

    /// The token, fetch, the head of the answer, its body, the Plant or the error.
    async fn exchange(&mut self, token: &mut Option<String>) -> Result<Plant, Draft> {
        let client = self.client.clone();
        let settings = &*client.0;
        let headers = match &settings.credential {
            Credential::Fixed(_) => settings.headers.clone(),
            Credential::Source(get_token) => {
                let got = self.token(get_token).await?;
                let headers = Object::assign(&Object::new(), &settings.headers);
                let bearer = JsValue::from_str(&text(&["Bearer ", &got]));
                let _ = Reflect::set(&headers, &JsValue::from_str("Authorization"), &bearer);
                *token = Some(got);
                headers
            }
        };
        let init = RequestInit::new();
        init.set_method("POST");
        init.set_headers(&headers);
        init.set_body(&JsValue::from_str(&self.body));
        init.set_signal(Some(&self.guard.signal()));
        init.set_credentials(RequestCredentials::Omit);
        init.set_redirect(RequestRedirect::Manual);
        let pending = self.fetch.call2(&JsValue::UNDEFINED, &settings.url, &init);
        let answer = match pending {
            Ok(pending) => self.guard.wait(pending).await,
            Err(thrown) => Err(Failure::Threw(thrown)),
        }
        .map_err(|e| client.failed(e))?;
        let response: Response = answer.dyn_into().map_err(|_| answer::not_a_response())?;
        let head = fetch::head(&response).map_err(|e| client.failed(e))?;
        let Some((status, redirect, body)) = head else {
            return Err(answer::not_a_response());
        };
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

    /// The token from `get_token`, checked; its failure is a `config` error with the cause.
    async fn token(&self, get_token: &Function) -> Result<String, Draft> {
        let got = match get_token.call0(&JsValue::UNDEFINED) {
            Ok(value) => self.guard.wait(value).await,
            Err(thrown) => Err(Failure::Threw(thrown)),
        };
        let value = match got {
            Ok(value) => value,
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
