//! One exchange with the Plant Store, and what ends a call. As reqwest's wasm backend, a [`Guard`]
//! owns an attempt: it calls fetch, reads the body up to a bound, lets go of all in `Drop`. As
//! gloo-timers, [`Stops`] holds the call's deadline (a [`Timer`]) and the caller's signals: every
//! wait of the call ends when one fires, even if fetch or getToken ignore their signal. What a
//! caller's fetch or a server hands in is read through `catch` bindings: a Response subclass or a
//! Proxy can throw where Web IDL says nothing throws, and a JS exception must never unwind wasm.

use crate::error::{decimal, Draft, Kind};
use crate::hooks::{Callback, Fetch};
use alloc::{boxed::Box, rc::Rc, string::String, vec::Vec};
use core::future::{poll_fn, Future};
use core::{cell::Cell, pin::Pin, task::Poll, task::Waker};
use js_sys::{Date, Function, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use web_sys::{AbortController, AbortSignal, Headers, RequestCredentials, RequestInit};

/// Why a call, or one of its attempts, stopped before it was done.
#[derive(Clone)]
pub(crate) enum Stop {
    /// A caller's signal aborted; its reason.
    Aborted(JsValue),
    /// The call's timeout passed.
    TimedOut,
    /// The attempt's own time (`retry.attemptTimeoutMs`) passed.
    AttemptTimedOut,
}

/// Why a wait ended without a value: the call or the attempt stopped, or what was awaited rejected
/// (or starting it threw) with a value.
pub(crate) enum Failure {
    Stopped(Stop),
    Threw(JsValue),
}

/// A one-shot timer (gloo-timers' `Timeout`): `callback` runs after `ms` ms unless dropped first.
#[must_use]
pub(crate) struct Timer {
    id: JsValue,
    _callback: Closure<dyn FnMut()>,
}

impl Timer {
    pub(crate) fn new(ms: u32, callback: Box<dyn FnMut()>) -> Timer {
        let callback = Closure::wrap(callback);
        let id = set_timeout(callback.as_ref().unchecked_ref(), f64::from(ms));
        Timer { id, _callback: callback }
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        clear_timeout(&self.id);
    }
}

/// What the timers and the listeners tell a waiting call (Cells: nothing is borrowed across it).
#[derive(Default)]
struct State {
    stop: Cell<Option<Stop>>,
    waker: Cell<Option<Waker>>,
}

impl State {
    fn stopped(&self) -> Option<Stop> {
        let stop = self.stop.take();
        self.stop.set(stop.clone());
        stop
    }

    /// Records `stop` (an abort or the call's timeout is final) and wakes the call.
    fn stop(&self, stop: Stop) {
        if matches!(self.stopped(), None | Some(Stop::AttemptTimedOut)) {
            self.stop.set(Some(stop));
        }
        if let Some(waker) = self.waker.take() {
            waker.wake();
        }
    }
}

/// What ends a whole call: its deadline and the caller's signals, both let go of on drop.
pub(crate) struct Stops {
    state: Rc<State>,
    _deadline: Timer,
    timeout_ms: u32,
    /// When the call times out, in milliseconds since the epoch.
    pub(crate) ends_at: f64,
    _listening: Option<Listening>,
}

impl Stops {
    /// Arms the call's timeout and listens to `signals`. Fails when one is already aborted.
    pub(crate) fn start(timeout_ms: u32, signals: Vec<AbortSignal>) -> Result<Stops, Draft> {
        let state = Rc::new(State::default());
        let listening =
            if signals.is_empty() { None } else { Some(Listening::start(signals, &state)?) };
        let ends_at = Date::now() + f64::from(timeout_ms);
        let timed_out = state.clone();
        let deadline = Timer::new(timeout_ms, Box::new(move || timed_out.stop(Stop::TimedOut)));
        Ok(Stops { state, _deadline: deadline, timeout_ms, ends_at, _listening: listening })
    }

    /// The error of a call that stopped.
    pub(crate) fn draft(&self, stop: Stop) -> Draft {
        let message = match stop {
            Stop::Aborted(reason) => return aborted(reason),
            Stop::TimedOut => {
                let ms = decimal(self.timeout_ms.into());
                ["no answer from the Plant Store within ", &ms, " ms"].concat()
            }
            Stop::AttemptTimedOut => {
                "no answer to the attempt within retry.attemptTimeoutMs".into()
            }
        };
        Draft::new(Kind::Timeout, message)
    }

    /// Waits for `value` (a promise, a thenable or a value) to settle, or for the call to stop.
    pub(crate) async fn wait(&self, value: &JsValue) -> Result<JsValue, Failure> {
        let promise = resolve(value).map_err(Failure::Threw)?;
        let mut settled = js_sys::futures::JsFuture::from(promise);
        let state = &self.state;
        let waited = poll_fn(|cx| {
            if let Some(stop) = state.stopped() {
                return Poll::Ready(Err(Failure::Stopped(stop)));
            }
            state.waker.set(Some(cx.waker().clone()));
            Pin::new(&mut settled).poll(cx).map(|settled| settled.map_err(Failure::Threw))
        });
        waited.await
    }

    /// Sleeps `ms` milliseconds (a timer that resolves a promise), unless the call stops first.
    pub(crate) async fn sleep(&self, ms: u32) -> Result<(), Stop> {
        let mut timer = None;
        let rang = Promise::new(&mut |resolve, _| {
            let ring = move || drop(resolve.call0(&JsValue::UNDEFINED));
            timer = Some(Timer::new(ms, Box::new(ring)));
        });
        match self.wait(&rang).await {
            Err(Failure::Stopped(stop)) => Err(stop),
            _ => Ok(()),
        }
    }
}

/// The caller's signals and the one `abort` listener on each, removed on drop.
struct Listening {
    signals: Vec<AbortSignal>,
    on_abort: Closure<dyn FnMut()>,
}

impl Listening {
    fn start(signals: Vec<AbortSignal>, state: &Rc<State>) -> Result<Listening, Draft> {
        if let Some(reason) = first_abort(&signals) {
            return Err(aborted(reason));
        }
        let (state, listened) = (state.clone(), signals.clone());
        let on_abort = Closure::<dyn FnMut()>::new(move || {
            state.stop(Stop::Aborted(first_abort(&listened).unwrap_or(JsValue::UNDEFINED)));
        });
        let listener = on_abort.as_ref().unchecked_ref();
        for signal in &signals {
            let _ = signal.add_event_listener_with_callback("abort", listener);
        }
        Ok(Listening { signals, on_abort })
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        for signal in &self.signals {
            let listener = self.on_abort.as_ref().unchecked_ref();
            let _ = signal.remove_event_listener_with_callback("abort", listener);
        }
    }
}

/// The error of a call a signal aborted, with its reason as the cause.
pub(crate) fn aborted(reason: JsValue) -> Draft {
    let draft = Draft::new(Kind::Aborted, "the call was aborted by its AbortSignal");
    match reason.is_undefined() {
        true => draft,
        false => draft.with_cause(reason),
    }
}

/// The reason of the first of `signals` that is aborted (`undefined` when reading it throws): read
/// through `Reflect.get` (catch), since a forgery can pass `instanceof AbortSignal`.
fn first_abort(signals: &[AbortSignal]) -> Option<JsValue> {
    let get = |signal: &AbortSignal, key: &str| Reflect::get(signal, &JsValue::from_str(key));
    let signal =
        signals.iter().find(|signal| get(signal, "aborted").is_ok_and(|a| a.is_truthy()))?;
    Some(get(signal, "reason").unwrap_or(JsValue::UNDEFINED))
}

/// The head of an answer: its status, whether it is a redirect (3xx, or an opaque one, status 0),
/// its headers, and its body, read by [`Guard::read`].
pub(crate) struct Head {
    pub(crate) status: u16,
    pub(crate) redirect: bool,
    pub(crate) headers: Option<Headers>,
    body: Option<JsValue>,
}

/// What one attempt holds: its AbortController (fetch's signal), its own timer and the body reader.
/// Dropping it clears the timer and, unless the answer was read to its end, aborts fetch's signal
/// (with the stop's reason) and cancels the body: an error, a stop and a dropped Rust future all
/// end here, as in reqwest's `AbortGuard`.
pub(crate) struct Guard<'a> {
    stops: &'a Stops,
    controller: AbortController,
    _timer: Option<Timer>,
    reader: Option<JsValue>,
    /// fetch was called: the request may have left.
    pub(crate) sent: bool,
    done: bool,
}

impl<'a> Guard<'a> {
    /// A fresh AbortController, and the attempt's timer when it has a time of its own.
    pub(crate) fn new(stops: &'a Stops, limit_ms: Option<u32>) -> Result<Guard<'a>, Failure> {
        let controller = AbortController::new().map_err(Failure::Threw)?;
        let timer = limit_ms.map(|ms| {
            let state = stops.state.clone();
            Timer::new(ms, Box::new(move || state.stop(Stop::AttemptTimedOut)))
        });
        Ok(Guard { stops, controller, _timer: timer, reader: None, sent: false, done: false })
    }

    /// `POST url` through `fetch` (`credentials: 'omit'`, `redirect: 'manual'`, the guard's signal):
    /// the head of the answer, `None` when fetch resolved to something that is not a Response.
    pub(crate) async fn fetch(
        &mut self,
        fetch: &Fetch,
        url: &str,
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
        let pending = fetch(&JsValue::from_str(url), &init);
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
        let opaque = || Reflect::get(answer, &"type".into()).map(|kind| kind == "opaqueredirect");
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
}

impl Drop for Guard<'_> {
    fn drop(&mut self) {
        let state = &self.stops.state;
        let stopped = state.stopped();
        if !self.done {
            let reason = match &stopped {
                Some(Stop::Aborted(reason)) => reason.clone(),
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
        // The attempt's own timeout ends with the attempt.
        if matches!(stopped, Some(Stop::AttemptTimedOut)) {
            state.stop.set(None);
        }
    }
}

/// The fetch a call makes: `options.fetch`, or else the global one, read when the call starts (a
/// mock installed later is seen); a `config` error when there is none, `network` if reading threw.
pub(crate) fn fetch_of(given: Option<&Callback<Fetch>>) -> Result<Callback<Fetch>, Draft> {
    if let Some(fetch) = given {
        return Ok(fetch.clone());
    }
    let fetch = GLOBAL.with(|global| Reflect::get(global, &"fetch".into())).map_err(|thrown| {
        let message = "could not read globalThis.fetch: reading it threw";
        Draft::new(Kind::Network, message).with_cause(thrown)
    })?;
    let none = |_| Draft::config("this runtime has no global fetch; pass options.fetch");
    fetch.dyn_into().map(calling).map_err(none)
}

/// A JS fetch function (the global one, or `options.fetch`) as a client calls it.
pub(crate) fn calling(fetch: Function) -> Callback<Fetch> {
    Callback(Rc::new(move |url: &JsValue, init: &RequestInit| {
        fetch.call2(&JsValue::UNDEFINED, url, init)
    }))
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

/// Lets a promise whose outcome does not matter (a cancel) reject without an unhandled rejection.
fn ignore(pending: Result<JsValue, JsValue>) {
    if let Ok(Ok(promise)) = pending.map(|value| resolve(&value)) {
        let _ = NOOP.with(|noop| promise.unchecked_ref::<Pending>().catch(noop));
    }
}

#[wasm_bindgen]
extern "C" {
    /// `globalThis` (no `window` needed), where fetch and `location` are found.
    #[wasm_bindgen(thread_local_v2, js_name = globalThis)]
    static GLOBAL: JsValue;
    /// `Promise.resolve(value)`: adopts a thenable (reading its `then` may throw).
    #[wasm_bindgen(catch, js_namespace = Promise, js_name = resolve)]
    pub(crate) fn resolve(value: &JsValue) -> Result<Promise, JsValue>;
    /// `setTimeout(handler, ms)`: a number in browsers and workerd, an object in Node.
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(handler: &Function, ms: f64) -> JsValue;
    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(id: &JsValue);
    /// `Function.prototype`: a function that does nothing, the handler of ignored rejections.
    #[wasm_bindgen(thread_local_v2, js_namespace = Function, js_name = prototype)]
    static NOOP: Function;
    /// A promise whose rejection may be ignored.
    type Pending;
    #[wasm_bindgen(method)]
    fn catch(this: &Pending, on_rejected: &Function) -> Promise;

    /// A ReadableStream or its reader, or what a Response subclass calls one.
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

    /// A chunk of the body: a Uint8Array, or a subclass that may throw.
    type Chunk;
    /// `chunk.subarray(begin, end)`, copied into wasm memory.
    #[wasm_bindgen(method, catch, js_name = subarray)]
    fn head(this: &Chunk, begin: u32, end: u32) -> Result<Vec<u8>, JsValue>;
}
