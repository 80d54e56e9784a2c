//! The hooks around each attempt: what `beforeAttempt` and `afterAttempt` are given, how a client
//! keeps them (a Rust closure, or a JS function wrapped in one) and the error of one that fails.
//! The call runs them (`Call::headers`, `Call::after`).

use crate::error::{Draft, Error};
use alloc::rc::Rc;
use core::fmt;
use js_sys::{Function, Object, Reflect};
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

/// A hook, shown as `..` by `Debug`.
pub(crate) struct Hook<F: ?Sized>(pub(crate) Rc<F>);

impl<F: ?Sized> Clone for Hook<F> {
    fn clone(&self) -> Self {
        Hook(self.0.clone())
    }
}

impl<F: ?Sized> fmt::Debug for Hook<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("..")
    }
}

/// A JS `beforeAttempt(attempt)`, called with `{ url, attempt, headers }`.
pub(crate) fn js_before(hook: Function) -> Hook<Before> {
    Hook(Rc::new(move |attempt: &Attempt<'_>| {
        let seen = [
            ("url", attempt.url.into()),
            ("attempt", attempt.number.into()),
            ("headers", attempt.headers.clone().into()),
        ];
        hook.call1(&JsValue::UNDEFINED, &object(&seen)).map(drop)
    }))
}

/// A JS `afterAttempt(outcome)`, called with `{ url, attempt, durationMs, status?, headers?,
/// error? }`.
pub(crate) fn js_after(hook: Function) -> Hook<After> {
    Hook(Rc::new(move |outcome: &AttemptOutcome<'_>| {
        let seen = [
            ("url", outcome.url.into()),
            ("attempt", outcome.number.into()),
            ("durationMs", outcome.duration_ms.into()),
            ("status", outcome.status.map_or(JsValue::UNDEFINED, JsValue::from)),
            ("headers", outcome.headers.map_or(JsValue::UNDEFINED, |h| h.clone().into())),
            ("error", outcome.error.map_or(JsValue::UNDEFINED, Error::to_js)),
        ];
        hook.call1(&JsValue::UNDEFINED, &object(&seen)).map(drop)
    }))
}

/// The error of a hook (`options.beforeAttempt`, `options.afterAttempt`) that threw: it ends the
/// call.
pub(crate) fn threw(name: &str, cause: JsValue) -> Draft {
    Draft::config([name, " threw; the call was stopped"].concat()).with_cause(cause)
}

/// A fresh plain object of `fields`, leaving out the undefined ones.
fn object(fields: &[(&str, JsValue)]) -> Object {
    let object = Object::new();
    for (key, value) in fields.iter().filter(|(_, value)| !value.is_undefined()) {
        let _ = Reflect::set(&object, &(*key).into(), value);
    }
    object
}
