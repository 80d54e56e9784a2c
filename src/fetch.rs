//! The request, after reqwest's wasm backend: [`AbortGuard::fetch`] calls fetch for one attempt
//! and [`AbortGuard::read`] reads the answer's body up to a bound; the guard owns what the attempt
//! holds and lets go of it in `Drop`. What a caller's fetch or a server hands in is read through
//! `catch` bindings (below): a Response subclass, a forgery or a Proxy can throw where Web IDL says
//! nothing throws, and a JS exception must never unwind through wasm frames.

use crate::hooks::{Callback, Fetch};
use crate::stops::{resolve, Failure, Stop, Stops, Timer};
use alloc::{boxed::Box, rc::Rc, string::String, vec::Vec};
use js_sys::{Function, JsString, Promise, Uint8Array};
use wasm_bindgen::prelude::*;
use web_sys::{AbortController, Headers, RequestCredentials, RequestInit};

/// The head of an answer: its status, whether it is a redirect (3xx, or an opaque redirect with
/// status 0), its headers, and its body, read by [`AbortGuard::read`].
pub(crate) struct Head {
    pub(crate) status: u16,
    pub(crate) redirect: bool,
    pub(crate) headers: Option<Headers>,
    body: Option<JsValue>,
}

/// What one attempt holds: its AbortController, whose signal fetch gets, its own timer
/// (`retry.attemptTimeoutMs`) and the body reader. Dropping it clears the timer and, unless the
/// answer was read to its end, aborts fetch's signal (with the stop's reason) and cancels the
/// body: an error, a stop and a dropped Rust future all end here, as in reqwest's `AbortGuard`.
pub(crate) struct AbortGuard<'a> {
    stops: &'a Stops,
    controller: AbortController,
    _timer: Option<Timer>,
    reader: Option<JsValue>,
    /// fetch was called: the request may have left.
    pub(crate) sent: bool,
    done: bool,
}

impl<'a> AbortGuard<'a> {
    /// A fresh AbortController for one attempt of the call `stops` ends, and the attempt's timer
    /// when it has a time of its own.
    pub(crate) fn new(stops: &'a Stops, limit_ms: Option<u32>) -> Result<AbortGuard<'a>, Failure> {
        let controller = AbortController::new().map_err(Failure::Threw)?;
        let timer = limit_ms.map(|ms| {
            let state = stops.state.clone();
            Timer::new(ms, Box::new(move || state.stop(Stop::AttemptTimedOut)))
        });
        let (reader, sent, done) = (None, false, false);
        Ok(AbortGuard { stops, controller, _timer: timer, reader, sent, done })
    }

    /// `POST url` through `fetch`, with `headers`, `body`, `credentials: 'omit'`, `redirect:
    /// 'manual'` and the guard's signal: the head of the answer, `None` when fetch resolved to
    /// something that is not a Response.
    pub(crate) async fn fetch(
        &mut self,
        fetch: &Fetch,
        url: &JsValue,
        headers: &Headers,
        body: &JsValue,
    ) -> Result<Option<Head>, Failure> {
        let init = RequestInit::new();
        init.set_method("POST");
        init.set_headers(headers);
        init.set_body(body);
        init.set_credentials(RequestCredentials::Omit);
        init.set_redirect(web_sys::RequestRedirect::Manual);
        init.set_signal(Some(&self.controller.signal()));
        let pending = fetch(url, &init);
        self.sent = pending.is_ok();
        let answer = self.stops.wait(&pending.map_err(Failure::Threw)?).await?;
        if !answer.is_instance_of::<web_sys::Response>() {
            return Ok(None);
        }
        let answer = answer.unchecked_ref::<Answer>();
        let status = match answer.status().map_err(Failure::Threw)?.as_f64() {
            Some(n) if (0.0..=999.0).contains(&n) && n == f64::from(n as u16) => n as u16,
            // A forgery that passes `instanceof Response`.
            _ => return Ok(None),
        };
        let opaque = || answer.kind().map(|kind| kind == "opaqueredirect");
        let redirect =
            (300..400).contains(&status) || (status == 0 && opaque().map_err(Failure::Threw)?);
        let headers = answer.headers().ok().and_then(|h| h.dyn_into().ok());
        let body = answer.body().map_err(Failure::Threw)?;
        let body = (!body.is_null() && !body.is_undefined()).then_some(body);
        Ok(Some(Head { status, redirect, headers, body }))
    }

    /// Reads the body of `head` to its end or up to `limit` bytes, cancelling the rest. Returns the
    /// bytes and whether they are all of it. A redirect's body is not read.
    pub(crate) async fn read(
        &mut self,
        head: Head,
        limit: usize,
    ) -> Result<(Vec<u8>, bool), Failure> {
        let body = match head.body {
            Some(body) if !head.redirect => body,
            unread => {
                if let Some(body) = unread {
                    ignore(body.unchecked_ref::<Stream>().cancel());
                }
                self.done = true;
                return Ok((Vec::new(), true));
            }
        };
        let reader = body.unchecked_ref::<Stream>().get_reader().map_err(Failure::Threw)?;
        let reader = self.reader.insert(reader).clone();
        let reader = reader.unchecked_ref::<Stream>();
        let mut bytes = Vec::new();
        loop {
            let result = self.stops.wait(&reader.read().map_err(Failure::Threw)?).await?;
            let result = result.unchecked_ref::<ReadResult>();
            if result.done().map_err(Failure::Threw)? {
                self.done = true;
                return Ok((bytes, true));
            }
            let chunk = result.value().map_err(Failure::Threw)?;
            let chunk = chunk.dyn_into::<Uint8Array>().map_err(|_| {
                let message = "the body stream yielded a chunk that is not bytes";
                Failure::Threw(js_sys::TypeError::new(message).into())
            })?;
            // One byte past the room tells whether the chunk is over it; at most that is copied.
            let room = limit.saturating_sub(bytes.len());
            let end = u32::try_from(room.saturating_add(1)).unwrap_or(u32::MAX);
            let piece = chunk.unchecked_ref::<Chunk>().head(0, end).map_err(Failure::Threw)?;
            bytes.extend_from_slice(piece.get(..room).unwrap_or(&piece));
            if piece.len() > room {
                ignore(reader.cancel());
                self.done = true;
                return Ok((bytes, false));
            }
        }
    }

    /// Whether the attempt ran out of its own time.
    pub(crate) fn timed_out(&self) -> bool {
        matches!(self.stops.state.stopped(), Some(Stop::AttemptTimedOut))
    }
}

impl Drop for AbortGuard<'_> {
    fn drop(&mut self) {
        let state = &self.stops.state;
        if !self.done {
            let reason = match state.stopped() {
                Some(Stop::Aborted(reason)) => reason,
                Some(Stop::TimedOut | Stop::AttemptTimedOut) => {
                    web_sys::DomException::new_with_message_and_name("timed out", "TimeoutError")
                        .map_or(JsValue::UNDEFINED, JsValue::from)
                }
                None => JsValue::UNDEFINED,
            };
            self.controller.abort_with_reason(&reason);
            if let Some(reader) = self.reader.take() {
                ignore(reader.unchecked_ref::<Stream>().cancel());
            }
        }
        state.attempt_over();
    }
}

/// The global `fetch` as a client calls it, read per call (so a polyfill or a mock installed later
/// is seen); `None` when there is none, and what reading it threw when it throws.
pub(crate) fn global() -> Result<Option<Callback<Fetch>>, JsValue> {
    let fetch = GLOBAL.with(|global| js_sys::Reflect::get(global, &JsValue::from_str("fetch")))?;
    Ok(fetch.dyn_into::<Function>().ok().map(calling))
}

/// A JS fetch function (the global one, or `options.fetch`) as a client calls it.
pub(crate) fn calling(fetch: Function) -> Callback<Fetch> {
    Callback(Rc::new(move |url: &JsValue, init: &RequestInit| {
        fetch.call2(&JsValue::UNDEFINED, url, init)
    }))
}

/// What the runtime said of a fetch that failed with `cause`, and whether it says that no
/// connection was made, so that nothing reached the store. fetch's own message says little
/// ("fetch failed", "Failed to fetch"): Node and Bun name the reason in a `code`, Node and Deno in
/// the message of a `cause` (Deno's connect failures read "client error (Connect)"); browsers tell
/// nothing more, on purpose. Hand-written: it reads the runtimes' own error objects.
pub(crate) fn why(cause: &JsValue) -> (String, bool) {
    let text = |got: Result<JsValue, JsValue>| got.ok().and_then(|value| value.as_string());
    let Some(said) = text(cause.unchecked_ref::<Thrown>().message()) else {
        return ("a value that is not an Error".into(), false);
    };
    // The deepest message (or else code) down the cause chain.
    let (mut detail, mut refused) = (String::new(), false);
    let mut level = cause.clone();
    for depth in 0..4 {
        let thrown = level.unchecked_ref::<Thrown>();
        let code = text(thrown.code()).unwrap_or_default();
        let message = text(thrown.message()).unwrap_or_default();
        refused |= NOT_CONNECTED.contains(&code.as_str())
            || JsString::from(message.as_str()).includes("client error (Connect)", 0);
        if depth > 0 && !(message.is_empty() && code.is_empty()) {
            detail = if message.is_empty() { code } else { message };
        }
        match thrown.cause() {
            Ok(next) if next.is_object() => level = next,
            _ => break,
        }
    }
    match detail.is_empty() {
        true => (said, refused),
        false => ([&*said, " (", detail.trim_end(), ")"].concat(), refused),
    }
}

/// Whether the code runs in a page or a worker (`location` has an origin) whose origin is not
/// that of `url`: a request a browser sends only if the server's CORS allows it, and whose refusal
/// it hides behind fetch's usual "Failed to fetch". (An opaque origin, `"null"`, is never the
/// store's; a URL written with capitals may be taken for another origin, which only adds a hint.)
pub(crate) fn cross_origin(url: &str) -> bool {
    let location = GLOBAL.with(|global| js_sys::Reflect::get(global, &"location".into()));
    let origin = location.and_then(|l| js_sys::Reflect::get(&l, &"origin".into()));
    let Some(origin) = origin.ok().and_then(|origin| origin.as_string()) else {
        return false;
    };
    !(url.starts_with(&origin) && url.as_bytes().get(origin.len()) == Some(&b'/'))
}

/// The `code`s of Node and Bun for a connection never made: refused, no such host, no route, a
/// connect timeout, a certificate refused in the handshake.
const NOT_CONNECTED: [&str; 12] = [
    "ECONNREFUSED",
    "ENOTFOUND",
    "EAI_AGAIN",
    "ENETUNREACH",
    "EHOSTUNREACH",
    "UND_ERR_CONNECT_TIMEOUT",
    "CERT_HAS_EXPIRED",
    "DEPTH_ZERO_SELF_SIGNED_CERT",
    "SELF_SIGNED_CERT_IN_CHAIN",
    "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
    "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
    "ERR_TLS_CERT_ALTNAME_INVALID",
];

/// Lets a promise whose outcome does not matter (a cancel) reject without an unhandled rejection.
fn ignore(pending: Result<JsValue, JsValue>) {
    if let Ok(Ok(promise)) = pending.map(|value| resolve(&value)) {
        let _ = NOOP.with(|noop| promise.unchecked_ref::<Pending>().catch(noop));
    }
}

#[wasm_bindgen]
extern "C" {
    /// `globalThis`, where the global fetch is looked up (no `window` needed), and the outbox's
    /// `indexedDB` and `navigator`.
    #[wasm_bindgen(thread_local_v2, js_name = globalThis)]
    pub(crate) static GLOBAL: JsValue;

    /// `Function.prototype`: a function that does nothing, the handler of ignored rejections.
    #[wasm_bindgen(thread_local_v2, js_namespace = Function, js_name = prototype)]
    static NOOP: Function;

    /// A native promise, whose rejection may be ignored.
    type Pending;
    #[wasm_bindgen(method)]
    fn catch(this: &Pending, on_rejected: &Function) -> Promise;

    /// A ReadableStream or its reader (or what a Response subclass calls one).
    type Stream;
    #[wasm_bindgen(method, catch, js_name = getReader)]
    fn get_reader(this: &Stream) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn read(this: &Stream) -> Result<JsValue, JsValue>;
    /// `cancel()` of a stream and of a reader alike.
    #[wasm_bindgen(method, catch)]
    fn cancel(this: &Stream) -> Result<JsValue, JsValue>;

    /// fetch's answer: a Response, or a subclass or forgery of one.
    type Answer;
    #[wasm_bindgen(method, catch, getter)]
    fn status(this: &Answer) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, getter, js_name = type)]
    fn kind(this: &Answer) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, getter)]
    fn body(this: &Answer) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, getter)]
    fn headers(this: &Answer) -> Result<JsValue, JsValue>;

    /// What `reader.read()` resolves to.
    type ReadResult;
    #[wasm_bindgen(method, catch, getter)]
    fn done(this: &ReadResult) -> Result<bool, JsValue>;
    #[wasm_bindgen(method, catch, getter)]
    fn value(this: &ReadResult) -> Result<JsValue, JsValue>;

    /// What fetch threw or rejected with: an Error, often with a `cause` and a `code`, or any
    /// value.
    type Thrown;
    #[wasm_bindgen(method, catch, getter)]
    fn message(this: &Thrown) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, getter)]
    fn code(this: &Thrown) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, getter)]
    fn cause(this: &Thrown) -> Result<JsValue, JsValue>;

    /// A chunk of the body: a Uint8Array, or a subclass that may throw.
    type Chunk;
    /// `chunk.subarray(begin, end)`, copied into wasm memory.
    #[wasm_bindgen(method, catch, js_name = subarray)]
    fn head(this: &Chunk, begin: u32, end: u32) -> Result<Vec<u8>, JsValue>;
}
