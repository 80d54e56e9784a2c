//! Where a call's token comes from: a fixed one, or a source (`getToken`) asked before every
//! request and, after a 401, once more with `{ refresh: true }`: one refresh shared by the calls of
//! the client refused with the same token while one of them still waits for it. The calls ask; the
//! shell calls the source and awaits what it returned; what it settled with is checked here, and
//! what its failure means.

use crate::error::{Draft, Kind};
use crate::names::Names;
use alloc::string::String;
use core::cell::RefCell;
use js_sys::Function;
use plant_store_model::Token;
use wasm_bindgen::JsValue;

/// Where a checked client's token comes from.
pub(crate) enum Credential {
    Fixed(Token),
    Source(TokenSource),
}

/// A function that gives the token, and the refresh under way.
pub(crate) struct TokenSource {
    /// `getToken({ refresh })`, which the shell calls: the token, or a promise of it.
    pub(crate) get: Function,
    /// The token refused, and what the source returned when asked for its successor, which the
    /// calls refused with that token await.
    refresh: RefCell<Option<(Token, JsValue)>>,
}

impl TokenSource {
    pub(crate) fn new(get: Function) -> TokenSource {
        TokenSource { get, refresh: RefCell::new(None) }
    }

    /// What the source returned for the refresh of `stale` that another call waits for.
    pub(crate) fn shared(&self, stale: &Token) -> Option<JsValue> {
        let refresh = self.refresh.borrow();
        refresh.as_ref().filter(|(token, _)| token == stale).map(|(_, asked)| asked.clone())
    }

    /// `asked` is the refresh of `stale`: later calls refused with `stale` await it too.
    pub(crate) fn share(&self, stale: Token, asked: JsValue) {
        *self.refresh.borrow_mut() = Some((stale, asked));
    }

    /// The refresh of `stale` failed, or the call that waited for it stopped: forgotten, so that
    /// the next call refused with `stale` asks again.
    pub(crate) fn forget(&self, stale: &Token) {
        let mut refresh = self.refresh.borrow_mut();
        if refresh.as_ref().is_some_and(|(token, _)| token == stale) {
            *refresh = None;
        }
    }
}

/// The token a source's promise settled with (its `text` when a string, else its `kind`: a
/// function, an object, a number are named), checked; the error never holds it.
pub(crate) fn returned(text: Option<String>, kind: &str, names: &Names) -> Result<Token, Draft> {
    let Some(token) = text else {
        let got = [names.get_token, " returned ", kind, "; it must return the token, a string"];
        return Err(Draft::config(got.concat()));
    };
    Token::new(token).map_err(|e| Draft::config([names.get_token, ": ", e.reason()].concat()))
}

/// The error of a token source that threw or rejected: before a request, or for a refresh.
pub(crate) fn failed(refresh: bool, names: &Names) -> Draft {
    if !refresh {
        let message = [names.get_token, " failed; the call stopped before its next request"];
        return Draft::config(message.concat());
    }
    let message = ["the Plant Store refused the token (401), and ", names.refresh, " failed"];
    Draft::new(Kind::Unauthorized, message.concat()).with_status(401)
}
