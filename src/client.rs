//! The client and its one call: `POST {baseUrl}/plants` with the bearer token, from the NewPlant
//! to the Plant or the error. Rust callers and the JS-facing layer both come through
//! [`Client::create_plant`] and its signal-taking twin.

use crate::answer::{self, ERROR_BODY_LIMIT};
use crate::body::{Body, Created};
use crate::config::{check_token, Config, Credential, Settings};
use crate::error::Error;
use crate::sys;
use crate::transport::{self, Call, Failure};
use alloc::borrow::Cow;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use js_sys::{Function, JsString, Object, Reflect};
use plant_store_model::{NewPlant, Plant};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{AbortSignal, ReadableStream, Response};

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
        self.send(plant, None).await.map(Created::into_plant)
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
        self.send(plant, Some(signal))
            .await
            .map(Created::into_plant)
    }

    /// The call: the timeout and the signals start here; then the token, fetch, the answer.
    pub(crate) async fn send(
        &self,
        plant: &NewPlant,
        signal: Option<&AbortSignal>,
    ) -> Result<Created, Error> {
        let settings = &*self.0;
        let body = plant.to_json();
        let call = Call::start(settings.timeout_ms, [settings.signal.as_ref(), signal])
            .map_err(|failure| self.failed(failure, ""))?;
        let outcome = self.exchange(&call, &body).await;
        call.finish();
        outcome
    }

    async fn exchange(&self, call: &Call, body: &str) -> Result<Created, Error> {
        let settings = &*self.0;
        let (headers, secret) = match &settings.credential {
            Credential::Fixed(token) => (None, Cow::Borrowed(token.expose())),
            Credential::Source(get_token) => {
                let token = self.token(call, get_token).await?;
                let headers = sys::assign(&Object::new(), &settings.headers);
                let value = ["Bearer ", &token].concat();
                let _ = Reflect::set(&headers, &"Authorization".into(), &value.as_str().into());
                (Some(headers), Cow::Owned(token))
            }
        };
        let fetch = match &settings.fetch {
            Some(fetch) => fetch.clone(),
            None => self.global_fetch(&secret)?,
        };
        let init = call.init(&settings.template, headers.as_ref(), &body.into());
        let answer = match sys::call(&fetch, &settings.url, &init) {
            Ok(pending) => call.wait(pending).await,
            Err(thrown) => Err(Failure::Threw(thrown)),
        }
        .map_err(|failure| self.failed(failure, &secret))?;
        let response: Response = answer.dyn_into().map_err(|_| answer::not_a_response())?;
        let head = read_head(&response).map_err(|failure| self.failed(failure, &secret))?;
        let Some((status, redirect, stream)) = head else {
            return Err(answer::not_a_response());
        };
        if redirect {
            if let Some(stream) = stream {
                transport::discard(&stream);
            }
            return Err(answer::redirect(status));
        }
        let limit = if status == 200 {
            answer::success_limit(body.len())
        } else {
            ERROR_BODY_LIMIT
        };
        let (bytes, complete) = match stream {
            None => (Vec::new(), true),
            Some(stream) => call
                .read(stream, limit)
                .await
                .map_err(|failure| self.failed(failure, &secret))?,
        };
        let parsed = Body::new(&bytes);
        match answer::outcome(status, &bytes, complete, limit, &secret, &parsed) {
            Ok(tag) => Ok(parsed.created(tag)),
            Err(e) => Err(e.redact(&secret)),
        }
    }

    /// The token from `get_token`, checked; a failure is a `config` error with the cause.
    async fn token(&self, call: &Call, get_token: &Function) -> Result<String, Error> {
        let got = match sys::call(get_token, &JsValue::UNDEFINED, &JsValue::UNDEFINED) {
            Ok(value) => call.wait(value).await,
            Err(thrown) => Err(Failure::Threw(thrown)),
        };
        let value = match got {
            Ok(value) => value,
            Err(Failure::Threw(cause)) => {
                return Err(
                    Error::config("options.getToken failed; no request was sent").with_cause(cause),
                )
            }
            Err(stopped) => return Err(self.failed(stopped, "")),
        };
        let token = sys::well_formed_string(&value).map_err(|got| {
            Error::config(match got {
                Some(type_name) => ["options.getToken must be a string, got ", type_name].concat(),
                None => {
                    "options.getToken: token is not well-formed Unicode; its value is not shown"
                        .into()
                }
            })
        })?;
        check_token(&token, "options.getToken")?;
        Ok(token)
    }

    /// The global `fetch`, read per call (so a polyfill or a mock installed later is seen): a
    /// `config` error when there is none, a `network` one when reading it throws.
    fn global_fetch(&self, secret: &str) -> Result<Function, Error> {
        sys::GLOBAL
            .with(|global| Reflect::get(global, &JsString::from("fetch")))
            .map_err(|thrown| self.failed(Failure::Threw(thrown), secret))?
            .dyn_into::<Function>()
            .map_err(|_| Error::config("this runtime has no global fetch; pass options.fetch"))
    }

    fn failed(&self, failure: Failure, secret: &str) -> Error {
        answer::failure(failure, &self.0.url_text, self.0.timeout_ms, secret)
    }
}

/// The status, whether it is a redirect (3xx, or an opaque redirect with status 0), and the body.
/// `None` when the status is not an HTTP status (a forgery that passes `instanceof Response`). A
/// getter that throws fails the call like a broken connection.
fn read_head(response: &Response) -> Result<Option<(u16, bool, Option<ReadableStream>)>, Failure> {
    let status = sys::try_status(response).map_err(Failure::Threw)?;
    let status = match status.as_f64() {
        Some(n) if (0.0..=999.0).contains(&n) && n == f64::from(n as u16) => n as u16,
        _ => return Ok(None),
    };
    let redirect = (300..400).contains(&status)
        || (status == 0 && sys::try_type(response).map_err(Failure::Threw)? == "opaqueredirect");
    let body = sys::try_body(response).map_err(Failure::Threw)?;
    if body.is_null() || body.is_undefined() {
        return Ok(Some((status, redirect, None)));
    }
    // Not checked with `instanceof`: reading it is all `catch`, so anything else only fails.
    Ok(Some((status, redirect, Some(body.unchecked_into()))))
}
