//! The hooks around each attempt, each kept as a Rust closure ([`Callback`]; a JS function is
//! wrapped by `js::callbacks`), with what `beforeAttempt` and `afterAttempt` are given and the
//! error of one that fails. They are the caller's synchronous code: the call asks for them
//! (`call.rs`), and the shell runs them once the step that asked has returned (`shell.rs`). A call
//! without hooks runs nothing of this file.

use crate::error::{Draft, Error};
use alloc::rc::Rc;
use core::fmt;
use wasm_bindgen::JsValue;

/// A function the caller gave (a token source, a hook), shown as `..` by `Debug`.
pub(crate) struct Callback<F: ?Sized>(pub(crate) Rc<F>);

impl<F: ?Sized> Clone for Callback<F> {
    fn clone(&self) -> Self {
        Callback(self.0.clone())
    }
}

impl<F: ?Sized> fmt::Debug for Callback<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("..")
    }
}

/// What [`Config::before_attempt`](crate::Config::before_attempt)'s hook is given.
#[derive(Debug)]
#[non_exhaustive]
pub struct Attempt<'a> {
    /// `{baseUrl}/plants`.
    pub url: &'a str,
    /// 1 for the first request of the call.
    pub number: u32,
    /// The headers to send, without `Authorization`. The hook may add some; it may not set
    /// `Authorization` or the connection's and framing's headers (`Content-Length`, `Host`, …), nor
    /// change `Content-Type`. A copy of them as the hook left them is sent, with the call's
    /// `Idempotency-Key` and `Authorization` set on the copy: these never hold the token.
    pub headers: &'a web_sys::Headers,
}

/// What [`Config::after_attempt`](crate::Config::after_attempt)'s hook is given.
#[derive(Debug)]
#[non_exhaustive]
pub struct AttemptOutcome<'a> {
    /// `{baseUrl}/plants`.
    pub url: &'a str,
    /// 1 for the first request of the call.
    pub number: u32,
    /// From the request to the end of the answer (or of the failure), in milliseconds.
    pub duration_ms: f64,
    /// The status, when an answer came.
    pub status: Option<u16>,
    /// The answer's headers, as the server sent them.
    pub headers: Option<&'a web_sys::Headers>,
    /// The attempt's error, when it failed (retried or not).
    pub error: Option<&'a Error>,
}

/// The hooks as a client keeps them: what they return in `Err` ends the call.
pub(crate) type Before = dyn Fn(&Attempt<'_>) -> Result<(), JsValue>;
pub(crate) type After = dyn Fn(&AttemptOutcome<'_>) -> Result<(), JsValue>;

/// What a JS hook that returned a promise (an async function) is told, after its name.
pub(crate) const RETURNED_A_PROMISE: &str =
    "returned a promise: hooks run synchronously, so make it a plain function; the call was stopped";

/// The error of a hook (`options.beforeAttempt`, `options.afterAttempt`) that threw, or returned an
/// `Err`, said as `failed` says it: it ends the call.
pub(crate) fn threw(name: &str, failed: &str, cause: JsValue) -> Draft {
    // (Natively, where the tests run, no JS hook can return a promise, nor JS be asked.)
    if cfg!(target_arch = "wasm32") && cause.as_string().as_deref() == Some(RETURNED_A_PROMISE) {
        return Draft::config([name, " ", RETURNED_A_PROMISE].concat());
    }
    Draft::config([name, " ", failed, "; the call was stopped"].concat()).with_cause(cause)
}
