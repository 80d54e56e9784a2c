//! Where a call's token comes from: a fixed one, or a source (`getToken`) asked before every
//! request and, after a 401, once more with `{ refresh: true }`: one refresh shared by every call
//! of the client refused with the same token. The calls ask; the shell awaits what they are given;
//! what a source gave is checked here, and what its failure means.

use crate::error::{Draft, Kind};
use crate::hooks::{Ask, Callback};
use alloc::string::String;
use core::cell::RefCell;
use js_sys::Promise;
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
    /// The token refused, and what asking for its successor gave (a promise, or a value), which
    /// every call refused with that token awaits.
    refresh: RefCell<Option<(Token, JsValue)>>,
}

impl TokenSource {
    pub(crate) fn new(ask: Callback<Ask>) -> TokenSource {
        TokenSource { ask, refresh: RefCell::new(None) }
    }

    /// `getToken({ refresh })`: what it returned (the token or a promise of it), or what it threw.
    pub(crate) fn ask(&self, refresh: bool) -> Result<JsValue, JsValue> {
        (self.ask.0)(refresh)
    }

    /// The token that follows `stale`, once refused: the refresh under way for it, or a new one
    /// (one that threw, as a rejected promise).
    pub(crate) fn refreshed(&self, stale: &Token) -> JsValue {
        if let Some((token, asked)) = &*self.refresh.borrow() {
            if token == stale {
                return asked.clone();
            }
        }
        let asked = self.ask(true).unwrap_or_else(|thrown| Promise::reject(&thrown).into());
        *self.refresh.borrow_mut() = Some((stale.clone(), asked.clone()));
        asked
    }

    /// The refresh for `stale` failed: forgotten, so that a later 401 asks again.
    pub(crate) fn forget(&self, stale: &Token) {
        let mut refresh = self.refresh.borrow_mut();
        if refresh.as_ref().is_some_and(|(token, _)| token == stale) {
            *refresh = None;
        }
    }
}

/// The token a source gave (its `text` when a string, else its `kind`), checked; the error never
/// holds it.
pub(crate) fn returned(text: Option<String>, kind: &str) -> Result<Token, Draft> {
    let Some(token) = text else {
        let got = ["options.getToken returned ", kind, "; it must return the token, a string"];
        return Err(Draft::config(got.concat()));
    };
    Token::new(token).map_err(|e| Draft::config(["options.getToken: ", e.reason()].concat()))
}

/// The error of a token source that threw or rejected: before a request, or for a refresh.
pub(crate) fn failed(refresh: bool) -> Draft {
    if !refresh {
        return Draft::config("options.getToken failed; the call stopped before its next request");
    }
    let message =
        "the Plant Store refused the token (401), and options.getToken({ refresh: true }) failed";
    Draft::new(Kind::Unauthorized, message).with_status(401)
}
