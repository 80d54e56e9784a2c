//! The hooks around each attempt: what `beforeAttempt` and `afterAttempt` are given, and the error
//! of one that fails. A client keeps a hook as a Rust closure (`config::Callback`, a JS function
//! wrapped by `js::callbacks`); the call runs them (`Call::headers`, `Call::after`).

use crate::error::{Draft, Error};
use wasm_bindgen::JsValue;

/// What [`Config::before_attempt`](crate::Config::before_attempt)'s hook is given.
#[derive(Debug)]
#[non_exhaustive]
pub struct Attempt<'a> {
    /// `{baseUrl}/plants`.
    pub url: &'a str,
    /// 1 for the first request of the call.
    pub number: u32,
    /// The headers to send, without `Authorization`. The hook may add some; it may not set
    /// `Authorization` or change `Content-Type`.
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

/// The error of a hook (`options.beforeAttempt`, `options.afterAttempt`) that threw: it ends the
/// call.
pub(crate) fn threw(name: &str, cause: JsValue) -> Draft {
    Draft::config([name, " threw; the call was stopped"].concat()).with_cause(cause)
}
