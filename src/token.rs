//! Where a call's token comes from: a fixed one, or a source (`getToken`) asked before every
//! request and, after a 401, once more with `{ refresh: true }`: one refresh shared by every call
//! of the client refused with the same token. The calls ask; the shell awaits what they are given.

use crate::hooks::{Ask, Callback};
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
