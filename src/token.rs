//! Where a call's token comes from: a fixed one, or a source (`getToken`) asked before every
//! request and, after a 401, once more with `{ refresh: true }`: one refresh shared by every call
//! of the client refused with the same token.

use crate::error::{Draft, Kind};
use crate::exchange::{resolve, Failure, Stops};
use crate::hooks::{Ask, Callback};
use core::cell::Cell;
use js_sys::{Object, Promise};
use plant_store_model::Token;
use wasm_bindgen::JsValue;

/// Where a checked client's token comes from.
pub(crate) enum Credential {
    Fixed(Token),
    Source(TokenSource),
}

/// A function that gives the token, and its last refresh.
pub(crate) struct TokenSource {
    ask: Callback<Ask>,
    /// The token refused, and the promise of its successor, which every call refused with that
    /// token awaits.
    refresh: Cell<Option<(Token, Promise)>>,
}

impl TokenSource {
    pub(crate) fn new(ask: Callback<Ask>) -> TokenSource {
        TokenSource { ask, refresh: Cell::new(None) }
    }

    /// The token for one request: `getToken({ refresh: false })`, awaited until the call stops.
    pub(crate) async fn token(&self, stops: &Stops) -> Result<Token, Draft> {
        let got = (self.ask.0)(false);
        match settle(got, stops).await {
            Ok(value) => returned(value),
            Err(Failure::Threw(cause)) => {
                let message = "options.getToken failed; the call stopped before its next request";
                Err(Draft::config(message).with_cause(cause))
            }
            Err(Failure::Stopped(stop)) => Err(stops.draft(stop)),
        }
    }

    /// A new token after `stale` was refused: one `getToken({ refresh: true })` for every call
    /// refused with `stale`, whose promise they all await. A failed one is forgotten, so that a
    /// later 401 asks again; its error is `unauthorized`.
    pub(crate) async fn refresh(&self, stale: Token, stops: &Stops) -> Result<Token, Draft> {
        let promise = match self.refresh.take() {
            Some((token, promise)) if token == stale => promise,
            _ => match (self.ask.0)(true) {
                Ok(value) => resolve(&value).unwrap_or_else(|e| Promise::reject(&e)),
                Err(thrown) => Promise::reject(&thrown),
            },
        };
        self.refresh.set(Some((stale, promise.clone())));
        let token = match settle(Ok(promise.clone().into()), stops).await {
            Ok(value) => returned(value),
            Err(Failure::Threw(cause)) => {
                let message = "the Plant Store refused the token (401), \
                               and options.getToken({ refresh: true }) failed";
                let draft = Draft::new(Kind::Unauthorized, message).with_status(401);
                Err(draft.with_cause(cause))
            }
            Err(Failure::Stopped(stop)) => Err(stops.draft(stop)),
        };
        if token.is_err() {
            match self.refresh.take() {
                Some((_, last)) if Object::is(&last, &promise) => {}
                last => self.refresh.set(last),
            }
        }
        token
    }
}

/// What the source returned (or threw), settled, unless the call stops first.
async fn settle(got: Result<JsValue, JsValue>, stops: &Stops) -> Result<JsValue, Failure> {
    stops.wait(&got.map_err(Failure::Threw)?).await
}

/// The source's token, checked; the error never holds it.
fn returned(value: JsValue) -> Result<Token, Draft> {
    let Some(token) = value.as_string() else {
        let got = match value.is_null() {
            true => "null".into(),
            false => value.js_typeof().as_string().unwrap_or_default(),
        };
        let message = ["options.getToken returned ", &got, "; it must return the token, a string"];
        return Err(Draft::config(message.concat()));
    };
    Token::new(token).map_err(|e| Draft::config(["options.getToken: ", e.reason()].concat()))
}
