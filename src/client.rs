//! The client: its settings, checked once and shared by its clones, and [`Client::create_plant`],
//! which starts a [`Call`] (reading what it needs of the world: the fetch, the signals, the page's
//! origin) and runs it in the JS shell (`shell.rs`). Also here: [`plant_object`], a plant as the JS
//! object its callers hand on.

use crate::answer::PLATFORM;
use crate::call::Call;
use crate::config::{CallOptions, Config, Settings};
use crate::error::{Draft, Error};
use crate::shell;
use crate::token::Credential;
use alloc::rc::Rc;
use js_sys::Object;
use plant_store_model::{NewPlant, Plant};
use wasm_bindgen::prelude::*;

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
pub struct Client(pub(crate) Rc<Settings>);

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
    /// Dropping the future before it is done aborts the call, and its request. With a token
    /// source, a 401 makes the client ask it once for a new token (called with `true`), shared by
    /// every call of the client refused with the same token, and send the request once more with
    /// it.
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
    /// As [`Client::create_plant`]; a `config` error for a wrong [`crate::Retry`] or key.
    pub async fn create_plant_with(
        &self,
        plant: &NewPlant,
        options: &CallOptions,
    ) -> Result<Plant, Error> {
        let outcome = Rc::new(core::cell::RefCell::new(None));
        let kept = outcome.clone();
        let end = move |result| {
            *kept.borrow_mut() = Some(result);
            Ok(JsValue::UNDEFINED)
        };
        let mut call = self.start(plant, options)?;
        // Dropped, the future aborts the call, as reqwest's guard does.
        let dropped = AbortOnDrop(web_sys::AbortController::new().ok());
        call.signals.extend(dropped.0.as_ref().map(|controller| controller.signal()));
        let running = shell::run(call, end);
        let _ = js_sys::futures::JsFuture::from(running).await;
        let ended = outcome.borrow_mut().take();
        ended.unwrap_or_else(|| Err(Error::config("the call ended without an outcome")))
    }

    /// `draft` as an error of this client before any request: redacted against its fixed token.
    pub(crate) fn redact(&self, draft: Draft) -> Error {
        match &self.0.credential {
            Credential::Fixed(token) => draft.redact(&[token.expose()]),
            Credential::Source(_) => draft.redact(&[]),
        }
    }

    /// Starts a call, at once (its timeout counts from here): the request body, the fetch to call,
    /// the retries and the key, the signals. Fails without sending when an option of the call is
    /// wrong or there is no fetch.
    pub(crate) fn start(&self, plant: &NewPlant, options: &CallOptions) -> Result<Call, Error> {
        let config = &self.0.config;
        let redact = |draft| self.redact(draft);
        let checked = options.check(config).map_err(redact)?;
        let fetch = shell::fetch_of(config.fetch.as_ref(), config.names).map_err(redact)?;
        let mut call = Call::new(self.0.clone(), plant, checked, options.after.clone(), &PLATFORM);
        call.fetch = fetch;
        let signals = [config.signal.as_ref(), options.signal.as_ref()];
        call.signals = signals.into_iter().flatten().cloned().collect();
        call.cross_origin = shell::reach(&self.0).1;
        Ok(call)
    }
}

/// Aborts a call when dropped (the Rust API's future dropped before the call is over).
struct AbortOnDrop(Option<web_sys::AbortController>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some(controller) = &self.0 {
            controller.abort();
        }
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
