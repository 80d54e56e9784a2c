//! The request, after reqwest's wasm backend: [`AbortGuard::fetch`] calls fetch for one attempt
//! and [`AbortGuard::read`] reads the answer's body up to a bound; the guard owns what the attempt
//! holds and lets go of it in `Drop`. [`Stops`] owns what ends a whole call, its deadline and the
//! caller's signals: every wait of a call ends at once when one fires, also when fetch or getToken
//! ignore their signal. What a caller's fetch or a server hands in is read with `catch`
//! (`Reflect.get` and the bindings below): a Response subclass, a forgery or a Proxy can throw
//! where Web IDL says nothing throws, and a JS exception must never unwind through wasm frames.

use crate::answer;
use crate::error::Draft;
use alloc::{boxed::Box, rc::Rc, vec::Vec};
use core::future::{poll_fn, Future};
use core::{cell::Cell, pin::Pin, task::Context, task::Poll, task::Waker};
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

/// Why a wait ended without a value.
pub(crate) enum Failure {
    /// The call or the attempt stopped.
    Stopped(Stop),
    /// What was awaited rejected, or starting it threw; the value thrown.
    Threw(JsValue),
}

/// A one-shot timer, after gloo-timers' `Timeout`: `callback` runs once after `ms` milliseconds,
/// unless the timer is dropped first.
#[must_use]
struct Timer {
    id: JsValue,
    _callback: Closure<dyn FnMut()>,
}

impl Timer {
    fn new(ms: u32, callback: Box<dyn FnMut()>) -> Timer {
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

/// What the timers and the listeners tell a waiting call. Cells, not RefCells: nothing here is
/// borrowed across a call.
#[derive(Default)]
struct State {
    stop: Cell<Option<Stop>>,
    /// A sleep's timer rang.
    rang: Cell<bool>,
    waker: Cell<Option<Waker>>,
}

impl State {
    fn stopped(&self) -> Option<Stop> {
        let stop = self.stop.take();
        self.stop.set(stop.clone());
        stop
    }

    /// Records `stop` and wakes the call. An abort or the call's timeout is final; the attempt's
    /// timeout gives way to them.
    fn stop(&self, stop: Stop) {
        if matches!(self.stopped(), None | Some(Stop::AttemptTimedOut)) {
            self.stop.set(Some(stop));
        }
        self.wake();
    }

    fn wake(&self) {
        if let Some(waker) = self.waker.take() {
            waker.wake();
        }
    }

    /// A sleep's timer rang: the sleep is over.
    fn ring(&self) {
        self.rang.set(true);
        self.wake();
    }

    fn rung(&self) -> Poll<()> {
        match self.rang.take() {
            true => Poll::Ready(()),
            false => Poll::Pending,
        }
    }

    /// Polls `ready` unless the call has stopped, with the waker kept for the stops.
    fn poll<T>(
        &self,
        cx: &mut Context<'_>,
        ready: impl FnOnce(&mut Context<'_>) -> Poll<T>,
    ) -> Poll<Result<T, Stop>> {
        if let Some(stop) = self.stopped() {
            return Poll::Ready(Err(stop));
        }
        self.waker.set(Some(cx.waker().clone()));
        ready(cx).map(Ok)
    }
}

/// What ends a whole call: its deadline, one timer armed when the call starts, and the caller's
/// signals, heard through one `abort` listener. Dropping it clears the timer and the listeners.
pub(crate) struct Stops {
    state: Rc<State>,
    _deadline: Timer,
    timeout_ms: u32,
    ends_at: f64,
    signals: Vec<AbortSignal>,
    on_abort: Option<Closure<dyn FnMut()>>,
}

impl Stops {
    /// Arms the call's timeout and listens to `signals`. Fails when one is already aborted.
    pub(crate) fn start(timeout_ms: u32, signals: Vec<AbortSignal>) -> Result<Stops, Draft> {
        if let Some(reason) = first_abort(&signals) {
            return Err(answer::aborted(reason));
        }
        let state = Rc::new(State::default());
        let ends_at = Date::now() + f64::from(timeout_ms);
        let timed_out = state.clone();
        let deadline = Timer::new(timeout_ms, Box::new(move || timed_out.stop(Stop::TimedOut)));
        let on_abort = (!signals.is_empty()).then(|| {
            let (state, signals) = (state.clone(), signals.clone());
            Closure::<dyn FnMut()>::new(move || {
                let reason = first_abort(&signals).unwrap_or(JsValue::UNDEFINED);
                state.stop(Stop::Aborted(reason));
            })
        });
        for (signal, listener) in signals.iter().zip(&on_abort) {
            let listener = listener.as_ref().unchecked_ref();
            let _ = signal.add_event_listener_with_callback("abort", listener);
        }
        Ok(Stops { state, _deadline: deadline, timeout_ms, ends_at, signals, on_abort })
    }

    /// The error of a call that stopped.
    pub(crate) fn draft(&self, stop: Stop) -> Draft {
        match stop {
            Stop::Aborted(reason) => answer::aborted(reason),
            Stop::TimedOut => answer::timed_out(Some(self.timeout_ms)),
            Stop::AttemptTimedOut => answer::timed_out(None),
        }
    }

    /// The milliseconds left before the call's timeout.
    pub(crate) fn left_ms(&self) -> f64 {
        self.ends_at - Date::now()
    }

    /// Waits for `value` (a promise, a thenable or a plain value) to settle, or for the call to
    /// stop, whichever comes first.
    pub(crate) async fn wait(&self, value: &JsValue) -> Result<JsValue, Failure> {
        let promise = resolve(value).map_err(Failure::Threw)?;
        let mut settled = js_sys::futures::JsFuture::from(promise);
        let waited = poll_fn(|cx| self.state.poll(cx, |cx| Pin::new(&mut settled).poll(cx)));
        match waited.await {
            Ok(settled) => settled.map_err(Failure::Threw),
            Err(stop) => Err(Failure::Stopped(stop)),
        }
    }

    /// Sleeps `ms` milliseconds, a timer future, unless the call stops first.
    pub(crate) async fn sleep(&self, ms: u32) -> Result<(), Stop> {
        let state = self.state.clone();
        let _timer = Timer::new(ms, Box::new(move || state.ring()));
        poll_fn(|cx| self.state.poll(cx, |_| self.state.rung())).await
    }
}

impl Drop for Stops {
    fn drop(&mut self) {
        for (signal, listener) in self.signals.iter().zip(&self.on_abort) {
            let listener = listener.as_ref().unchecked_ref();
            let _ = signal.remove_event_listener_with_callback("abort", listener);
        }
    }
}

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
        fetch: &Function,
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
        let pending = fetch.call2(&JsValue::UNDEFINED, &JsValue::from_str(url), &init);
        self.sent = pending.is_ok();
        let answer = self.stops.wait(&pending.map_err(Failure::Threw)?).await?;
        if !answer.is_instance_of::<web_sys::Response>() {
            return Ok(None);
        }
        let status = match get(&answer, "status").map_err(Failure::Threw)?.as_f64() {
            Some(n) if (0.0..=999.0).contains(&n) && n == f64::from(n as u16) => n as u16,
            // A forgery that passes `instanceof Response`.
            _ => return Ok(None),
        };
        let opaque = || get(&answer, "type").map(|kind| kind == "opaqueredirect");
        let redirect =
            (300..400).contains(&status) || (status == 0 && opaque().map_err(Failure::Threw)?);
        let headers = get(&answer, "headers").ok().and_then(|h| h.dyn_into().ok());
        let body = get(&answer, "body").map_err(Failure::Threw)?;
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
            if get(&result, "done").map_err(Failure::Threw)?.is_truthy() {
                self.done = true;
                return Ok((bytes, true));
            }
            let chunk = get(&result, "value").map_err(Failure::Threw)?;
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
        // The attempt's own timeout ends with it.
        if matches!(state.stopped(), Some(Stop::AttemptTimedOut)) {
            state.stop.set(None);
        }
    }
}

/// The reason of the first of `signals` that is aborted (`undefined` when reading it throws), or
/// `None` when none is.
fn first_abort(signals: &[AbortSignal]) -> Option<JsValue> {
    let aborted = |signal: &&AbortSignal| get(signal, "aborted").is_ok_and(|a| a.is_truthy());
    let signal = signals.iter().find(aborted)?;
    Some(get(signal, "reason").unwrap_or(JsValue::UNDEFINED))
}

/// `object[key]`; what a getter or a Proxy trap threw.
fn get(object: &JsValue, key: &str) -> Result<JsValue, JsValue> {
    Reflect::get(object, &JsValue::from_str(key))
}

/// Lets a promise whose outcome does not matter (a cancel) reject without an unhandled rejection.
fn ignore(pending: Result<JsValue, JsValue>) {
    if let Ok(Ok(promise)) = pending.map(|value| resolve(&value)) {
        let _ = NOOP.with(|noop| promise.unchecked_ref::<Pending>().catch(noop));
    }
}

#[wasm_bindgen]
extern "C" {
    /// `Function.prototype`: a function that does nothing, the handler of ignored rejections.
    #[wasm_bindgen(thread_local_v2, js_namespace = Function, js_name = prototype)]
    static NOOP: Function;

    /// `Promise.resolve(value)`: adopts a thenable (reading its `then` may throw).
    #[wasm_bindgen(catch, js_namespace = Promise, js_name = resolve)]
    pub(crate) fn resolve(value: &JsValue) -> Result<Promise, JsValue>;

    /// A native promise, whose rejection may be ignored.
    type Pending;
    #[wasm_bindgen(method)]
    fn catch(this: &Pending, on_rejected: &Function) -> Promise;

    /// `setTimeout(handler, ms)`: a number in browsers and workerd, an object in Node.
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(handler: &Function, ms: f64) -> JsValue;
    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(id: &JsValue);

    /// A ReadableStream or its reader (or what a Response subclass calls one).
    type Stream;
    #[wasm_bindgen(method, catch, js_name = getReader)]
    fn get_reader(this: &Stream) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn read(this: &Stream) -> Result<JsValue, JsValue>;
    /// `cancel()` of a stream and of a reader alike.
    #[wasm_bindgen(method, catch)]
    fn cancel(this: &Stream) -> Result<JsValue, JsValue>;

    /// A chunk of the body: a Uint8Array, or a subclass that may throw.
    type Chunk;
    /// `chunk.subarray(begin, end)`, copied into wasm memory.
    #[wasm_bindgen(method, catch, js_name = subarray)]
    fn head(this: &Chunk, begin: u32, end: u32) -> Result<Vec<u8>, JsValue>;
}
