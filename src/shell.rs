//! What crosses between a [`Call`] and its JS shell (`js/call.js`, a wasm-bindgen snippet, so that
//! a Rust app gets it too): [`run`] hands the shell a `step` function, which turns what the shell
//! tells into the call's [`Input`], steps the call, and turns its [`Action`] into what the shell
//! does. Here too what a call reads of the world when it starts: the fetch to call, whether the
//! page is on another origin. A value from outside is read through `catch` bindings: a Response
//! subclass or a Proxy can throw where Web IDL says nothing throws, and a JS exception must never
//! unwind wasm.

use crate::call::{Action, Call, Head, Input, Stop, Value};
use crate::error::{Draft, Error, Kind};
use crate::hooks::{self, Attempt};
use alloc::string::String;
use alloc::vec::Vec;
use js_sys::{Array, Function, Promise, Reflect, Uint8Array};
use plant_store_model::Plant;
use wasm_bindgen::prelude::*;
use web_sys::{Headers, RequestCredentials, RequestInit, RequestRedirect};

/// Runs `call` in the shell: a promise that settles as `end` makes of the call's outcome: resolved
/// with its `Ok`, rejected with its `Err` (the JS API's Plant and PlantStoreError; the Rust API
/// keeps the outcome and resolves with nothing; the outbox resolves with its `settled` event).
pub(crate) fn run(
    mut call: Call,
    mut end: impl FnMut(Result<Plant, Error>) -> Result<JsValue, JsValue> + 'static,
) -> Promise {
    let signals: Array = call.signals.iter().collect();
    let timeout_ms = call.settings.config.timeout_ms;
    let step = move |kind: u32, a: JsValue, b: JsValue, c: JsValue, d: JsValue, e: JsValue| {
        let mut input = decode(kind, a, b, c, d, e);
        loop {
            let action = match call.step(input) {
                Action::Await(asked) => Array::of2(&0.into(), &asked),
                Action::Fetch { headers, authorization, attempt_ms } => {
                    match request(&call, headers, &authorization) {
                        Ok(init) => {
                            let url = JsValue::from(call.settings.url.as_str());
                            let attempt_ms = attempt_ms.map_or(JsValue::UNDEFINED, JsValue::from);
                            let read = JsValue::from("retry-after");
                            let fetch: &JsValue = &call.fetch;
                            let parts = [&JsValue::from(1), fetch, &url, &init, &attempt_ms, &read];
                            parts.into_iter().collect()
                        }
                        Err(draft) => {
                            input = Input::Refused(draft);
                            continue;
                        }
                    }
                }
                Action::Read(limit) => Array::of2(&2.into(), &(limit as f64).into()),
                Action::Wait(ms) => Array::of2(&3.into(), &ms.into()),
                Action::Done(outcome) => match end(outcome) {
                    Ok(value) => Array::of2(&4.into(), &value),
                    Err(error) => Array::of2(&5.into(), &error),
                },
            };
            return action;
        }
    };
    let step =
        Closure::<dyn FnMut(u32, JsValue, JsValue, JsValue, JsValue, JsValue) -> Array>::new(step);
    run_in_shell(step.into_js_value(), &signals, timeout_ms)
}

/// What the shell tells (`js/call.js`: VALUE, THREW, STOPPED, ANSWER, BODY, WAITED) as an input.
fn decode(kind: u32, a: JsValue, b: JsValue, c: JsValue, d: JsValue, e: JsValue) -> Input {
    match kind {
        0 => {
            let what = if a.is_null() {
                "null".into()
            } else {
                a.js_typeof().as_string().unwrap_or_default()
            };
            Input::Value(Value { text: a.as_string(), kind: what })
        }
        1 => {
            let said = said(&a);
            Input::Threw(a, said)
        }
        2 => Input::Stopped(match a.as_f64() {
            Some(1.0) => Stop::TimedOut,
            Some(2.0) => Stop::AttemptTimedOut,
            _ => Stop::Aborted((!b.is_undefined()).then_some(b)),
        }),
        3 => Input::Answer(a.is_truthy().then(|| Head {
            status: b.as_f64(),
            kind: c.as_string(),
            headers: d,
            retry_after: e.as_string(),
        })),
        4 => Input::Body(a.unchecked_into::<Uint8Array>().to_vec(), b.is_truthy()),
        _ => Input::Waited,
    }
}

/// The init of the call's request: `POST`, its headers, then what the before hook adds, then
/// `authorization`; the body; `credentials: 'omit'` and `redirect: 'manual'`.
fn request(
    call: &Call,
    pairs: Vec<(String, String)>,
    authorization: &str,
) -> Result<RequestInit, Draft> {
    let threw =
        |cause| Draft::new(Kind::Network, "could not make the request's headers").with_cause(cause);
    let headers = Headers::new().map_err(threw)?;
    for (name, value) in &pairs {
        let _ = headers.set(name, value);
    }
    let settings = &call.settings;
    if let Some(before) = &settings.config.before {
        let attempt = Attempt { url: &settings.url, number: call.attempt(), headers: &headers };
        before.0(&attempt).map_err(|cause| hooks::threw("options.beforeAttempt", cause))?;
        let content_type = headers.get("content-type").ok().flatten();
        if headers.has("authorization").unwrap_or(true)
            || content_type.as_deref() != Some("application/json")
        {
            return Err(Draft::config(
                "options.beforeAttempt may not set Authorization or change Content-Type",
            ));
        }
    }
    let _ = headers.set("Authorization", authorization);
    let init = RequestInit::new();
    init.set_method("POST");
    init.set_headers(&headers);
    init.set_body(&call.body.as_str().into());
    init.set_credentials(RequestCredentials::Omit);
    init.set_redirect(RequestRedirect::Manual);
    Ok(init)
}

/// The fetch a call makes: `options.fetch`, or else the global one, read when the call starts (a
/// mock installed later is seen); a `config` error when there is none, `network` if reading threw.
pub(crate) fn fetch_of(given: Option<&Function>) -> Result<Function, Draft> {
    if let Some(fetch) = given {
        return Ok(fetch.clone());
    }
    let fetch = GLOBAL.with(|global| Reflect::get(global, &"fetch".into())).map_err(|thrown| {
        let message = "could not read globalThis.fetch: reading it threw";
        Draft::new(Kind::Network, message).with_cause(thrown)
    })?;
    fetch
        .dyn_into()
        .map_err(|_| Draft::config("this runtime has no global fetch; pass options.fetch"))
}

/// What the runtime said of a failed fetch (for `answer::why`): the `message` and `code` of `cause`
/// and of its causes, four levels at most; `None` for a value that is not an Error.
pub(crate) fn said(cause: &JsValue) -> Option<Vec<(String, String)>> {
    let text = |value: &JsValue, key: &str| Reflect::get(value, &key.into()).ok()?.as_string();
    text(cause, "message")?;
    let (mut levels, mut level) = (Vec::new(), cause.clone());
    while levels.len() < 4 {
        let (message, code) = (text(&level, "message"), text(&level, "code"));
        levels.push((message.unwrap_or_default(), code.unwrap_or_default()));
        match Reflect::get(&level, &JsValue::from_str("cause")) {
            Ok(next) if next.is_object() => level = next,
            _ => break,
        }
    }
    Some(levels)
}

/// Whether a page or a worker (`location` has an origin) calls another origin than `url`'s: a
/// request its CORS must allow, whose refusal a browser hides behind "Failed to fetch". An opaque
/// origin ("null": a sandboxed frame, a file: page) is never the store's.
pub(crate) fn cross_origin(url: &str) -> bool {
    let location = GLOBAL.with(|global| Reflect::get(global, &"location".into()));
    let origin = location.and_then(|l| Reflect::get(&l, &"origin".into()));
    let Some(origin) = origin.ok().and_then(|origin| origin.as_string()) else {
        return false;
    };
    let own = url.get(..origin.len()).is_some_and(|head| head.eq_ignore_ascii_case(&origin));
    !(own && url.as_bytes().get(origin.len()) == Some(&b'/'))
}

#[wasm_bindgen]
extern "C" {
    /// `globalThis` (no `window` needed), where fetch and `location` are found.
    #[wasm_bindgen(thread_local_v2, js_name = globalThis)]
    static GLOBAL: JsValue;
}

#[wasm_bindgen(module = "/js/call.js")]
extern "C" {
    /// `run(step, signals, timeoutMs)`: the shell drives the call, and settles as its end does.
    #[wasm_bindgen(js_name = run)]
    fn run_in_shell(step: JsValue, signals: &Array, timeout_ms: u32) -> Promise;
}
