//! A caller's JS hooks as the Rust closures a client keeps (`hooks::Callback`), each called with a
//! fresh plain object. (fetch and `getToken` need none: the shell, `js/call.js`, calls them.)

use crate::error::Error;
use crate::hooks::{After, Attempt, AttemptOutcome, Before, Callback, RETURNED_A_PROMISE};
use crate::js::error::object;
use alloc::rc::Rc;
use js_sys::{Function, Reflect};
use wasm_bindgen::JsValue;

/// A JS `beforeAttempt(attempt)`, called with `{ url, attempt, headers }`.
pub(crate) fn before(hook: Function) -> Callback<Before> {
    Callback(Rc::new(move |attempt: &Attempt<'_>| {
        let seen = [
            ("url", attempt.url.into()),
            ("attempt", attempt.number.into()),
            ("headers", attempt.headers.clone().into()),
        ];
        hook.call1(&JsValue::UNDEFINED, &object(&seen)).and_then(done)
    }))
}

/// A JS `afterAttempt(outcome)`, called with `{ url, attempt, durationMs, status?, headers?,
/// error? }`.
pub(crate) fn after(hook: Function) -> Callback<After> {
    Callback(Rc::new(move |outcome: &AttemptOutcome<'_>| {
        let seen = [
            ("url", outcome.url.into()),
            ("attempt", outcome.number.into()),
            ("durationMs", outcome.duration_ms.into()),
            ("status", outcome.status.map_or(JsValue::UNDEFINED, JsValue::from)),
            ("headers", outcome.headers.map_or(JsValue::UNDEFINED, |h| h.clone().into())),
            ("error", outcome.error.map_or(JsValue::UNDEFINED, Error::to_js)),
        ];
        hook.call1(&JsValue::UNDEFINED, &object(&seen)).and_then(done)
    }))
}

/// What a hook returned: nothing, else a promise (an async hook), which ends the call as a throw
/// does (its rejection, if it rejects, is the app's own, as any async callback's).
fn done(returned: JsValue) -> Result<(), JsValue> {
    match Reflect::get(&returned, &"then".into()) {
        Ok(then) if then.is_function() => Err(RETURNED_A_PROMISE.into()),
        _ => Ok(()),
    }
}
