//! What one call holds on the JavaScript side, after reqwest's wasm backend: a [`Guard`] that owns
//! the AbortController handed to fetch, the timer, the listeners on the caller's signals and the
//! body reader, and cleans them up on `Drop`; the waits on promises, which a stop ends at once
//! (also when fetch or getToken ignore their signal); and the bounded read of the body.
//!
//! Every binding that touches a value a caller or a server hands in is `catch` (the `extern`
//! block below): a Response subclass, a forgery that passes `instanceof`, or a Proxy can throw
//! where Web IDL says nothing throws, and a JS exception must never unwind through wasm frames.

use alloc::rc::Rc;
use alloc::vec::Vec;
use core::cell::Cell;
use core::future::{poll_fn, Future};
use core::pin::Pin;
use core::task::{Poll, Waker};
use js_sys::{Function, Promise, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{AbortController, AbortSignal};

/// Why a call, or its attempt or wait, stopped before it was done.
#[derive(Clone)]
pub(crate) enum Stop {
    /// A caller's signal aborted; its reason.
    Aborted(JsValue),
    /// The call's timeout passed.
    TimedOut,
    /// The attempt's own timer passed: the attempt timed out, or a wait is over.
    Tick,
}

/// Why a wait ended without a value.
pub(crate) enum Failure {
    /// The call stopped.
    Stopped(Stop),
    /// What was awaited rejected, or starting it threw; the value thrown.
    Threw(JsValue),
}

/// The resources of one call in flight (see the module). Dropping it clears the timers and the
/// listeners, and, unless the answer was read to its end, aborts fetch's signal (with the stop's
/// reason) and cancels the body: a timeout, an abort, an error and a dropped Rust future all end
/// here. Each attempt gets its own AbortController ([`Guard::attempt`]); the one before is ended
/// the same way.
pub(crate) struct Guard {
    controller: Option<AbortController>,
    signals: Vec<AbortSignal>,
    /// Called by the timers (the call's with no argument, the attempt's with 0) and by a
    /// signal's `abort` event.
    on_stop: Closure<dyn FnMut(JsValue)>,
    timer: JsValue,
    tick: Cell<JsValue>,
    state: Rc<State>,
    reader: Option<JsValue>,
    done: bool,
}

/// What the timers and the listeners tell a waiting call. Cells, not RefCells: nothing here is
/// borrowed across a call, and a RefCell's borrow check would bring its panic into the .wasm.
#[derive(Default)]
struct State {
    stop: Cell<Option<Stop>>,
    waker: Cell<Option<Waker>>,
}

impl State {
    /// Why the call stopped, if it did.
    fn stopped(&self) -> Option<Stop> {
        let stop = self.stop.take();
        self.stop.set(stop.clone());
        stop
    }
}

impl Guard {
    /// Starts the timeout and listens to the caller's signals. Fails when one is already aborted.
    pub(crate) fn start(timeout_ms: u32, signals: Vec<AbortSignal>) -> Result<Guard, Failure> {
        if let Some(reason) = first_abort(&signals) {
            return Err(Failure::Stopped(Stop::Aborted(reason)));
        }
        let state = Rc::new(State::default());
        let on_stop = Closure::new({
            let (state, signals) = (state.clone(), signals.clone());
            move |event: JsValue| {
                let stop = match (event.is_undefined(), event.as_f64()) {
                    (true, _) => Stop::TimedOut,
                    (_, Some(_)) => Stop::Tick,
                    _ => Stop::Aborted(first_abort(&signals).unwrap_or(JsValue::UNDEFINED)),
                };
                // An abort or the timeout is final; a tick gives way to them.
                if matches!(state.stopped(), None | Some(Stop::Tick)) {
                    state.stop.set(Some(stop));
                }
                if let Some(waker) = state.waker.take() {
                    waker.wake();
                }
            }
        });
        let handler = on_stop.as_ref().unchecked_ref();
        let timer = set_timeout(handler, f64::from(timeout_ms));
        for signal in &signals {
            let _ = signal.unchecked_ref::<Signal>().listen("abort", handler);
        }
        Ok(Guard {
            controller: None,
            signals,
            on_stop,
            timer,
            tick: Cell::default(),
            state,
            reader: None,
            done: true,
        })
    }

    /// Starts an attempt: ends the one before (see [`Guard`]), and returns the signal of a fresh
    /// AbortController for fetch. With `limit`, the attempt times out (a [`Stop::Tick`]) after
    /// that many milliseconds.
    pub(crate) fn attempt(&mut self, limit: Option<u32>) -> Result<AbortSignal, Failure> {
        self.end_attempt();
        let controller = AbortController::new().map_err(Failure::Threw)?;
        let signal = controller.signal();
        self.controller = Some(controller);
        self.done = false;
        if let Some(ms) = limit {
            self.arm(ms);
        }
        Ok(signal)
    }

    /// The attempt's network part is over, answered or not: it is ended (see [`Guard`]) and a
    /// tick of its timer forgotten.
    /// Returns whether the attempt ran out of its own time.
    pub(crate) fn settle(&mut self) -> bool {
        self.end_attempt();
        self.forget_tick()
    }

    /// Clears the attempt's timer and forgets its tick; whether there was one.
    fn forget_tick(&self) -> bool {
        self.disarm();
        let ticked = matches!(self.state.stopped(), Some(Stop::Tick));
        if ticked {
            self.state.stop.set(None);
        }
        ticked
    }

    /// Waits `ms` milliseconds, or until the call stops, whichever comes first.
    pub(crate) async fn sleep(&self, ms: u32) -> Result<(), Failure> {
        self.arm(ms);
        let slept = poll_fn(|cx| match self.state.stopped() {
            Some(Stop::Tick) => Poll::Ready(Ok(())),
            Some(stop) => Poll::Ready(Err(Failure::Stopped(stop))),
            None => {
                self.state.waker.set(Some(cx.waker().clone()));
                Poll::Pending
            }
        })
        .await;
        self.forget_tick();
        slept
    }

    /// Clears the attempt's timer (`clearTimeout(undefined)` when none is set).
    fn disarm(&self) {
        clear_timeout(&self.tick.take());
    }

    /// Starts the attempt's timer (the handler gets 0, not `undefined`, from it).
    fn arm(&self, ms: u32) {
        let handler = self.on_stop.as_ref().unchecked_ref();
        let tick = set_timeout_with(handler, f64::from(ms), 0);
        clear_timeout(&self.tick.replace(tick));
    }

    /// Waits for `value` (a promise, a thenable or a plain value) to settle, or for the call to
    /// stop, whichever comes first.
    pub(crate) async fn wait(&self, value: JsValue) -> Result<JsValue, Failure> {
        let mut settled = js_sys::futures::JsFuture::from(resolve(&value).map_err(Failure::Threw)?);
        poll_fn(|cx| {
            if let Some(stop) = self.state.stopped() {
                return Poll::Ready(Err(Failure::Stopped(stop)));
            }
            let polled = Pin::new(&mut settled).poll(cx);
            if polled.is_pending() {
                self.state.waker.set(Some(cx.waker().clone()));
            }
            polled.map(|result| result.map_err(Failure::Threw))
        })
        .await
    }

    /// Reads `body` (a ReadableStream) to its end or up to `limit` bytes, cancelling the rest.
    /// Returns the bytes and whether they are all of it.
    pub(crate) async fn read(
        &mut self,
        body: &JsValue,
        limit: usize,
    ) -> Result<(Vec<u8>, bool), Failure> {
        let reader = body
            .unchecked_ref::<Stream>()
            .get_reader()
            .map_err(Failure::Threw)?;
        self.reader = Some(reader.clone());
        let reader = reader.unchecked_ref::<Stream>();
        let mut bytes = Vec::new();
        loop {
            let result = self.wait(reader.read().map_err(Failure::Threw)?).await?;
            let result = result.unchecked_ref::<ReadResult>();
            if result.done().map_err(Failure::Threw)? {
                self.done = true;
                return Ok((bytes, true));
            }
            let chunk: Uint8Array =
                result
                    .value()
                    .map_err(Failure::Threw)?
                    .dyn_into()
                    .map_err(|_| {
                        let message = "the body stream yielded a chunk that is not bytes";
                        Failure::Threw(js_sys::TypeError::new(message).into())
                    })?;
            // One byte past the room tells whether the chunk is over it; at most that is copied.
            let room = limit.saturating_sub(bytes.len());
            let end = u32::try_from(room.saturating_add(1)).unwrap_or(u32::MAX);
            let mut piece = chunk
                .unchecked_ref::<Chunk>()
                .head(0, end)
                .map_err(Failure::Threw)?;
            let over = piece.len() > room;
            piece.truncate(room);
            match bytes.is_empty() {
                true => bytes = piece,
                false => bytes.extend_from_slice(&piece),
            }
            if over {
                ignore(reader.cancel());
                self.done = true;
                return Ok((bytes, false));
            }
        }
    }

    /// A body that will not be read (a redirect's): cancelled, and the call is done.
    pub(crate) fn discard(&mut self, body: &JsValue) {
        ignore(body.unchecked_ref::<Stream>().cancel());
        self.done = true;
    }

    /// The answer needs no more reading (it has no body).
    pub(crate) fn finish(&mut self) {
        self.done = true;
    }
}

impl Guard {
    /// Ends the current attempt: unless its answer was read to its end, aborts its fetch (with
    /// the stop's reason) and cancels its body.
    fn end_attempt(&mut self) {
        if core::mem::replace(&mut self.done, true) {
            return;
        }
        let reason = match self.state.stopped() {
            Some(Stop::Aborted(reason)) => reason,
            Some(Stop::TimedOut | Stop::Tick) => {
                web_sys::DomException::new_with_message_and_name("timed out", "TimeoutError")
                    .map_or(JsValue::UNDEFINED, JsValue::from)
            }
            None => JsValue::UNDEFINED,
        };
        if let Some(controller) = &self.controller {
            controller.abort_with_reason(&reason);
        }
        if let Some(reader) = self.reader.take() {
            ignore(reader.unchecked_ref::<Stream>().cancel());
        }
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        clear_timeout(&self.timer);
        let handler = self.on_stop.as_ref().unchecked_ref();
        for signal in &self.signals {
            let _ = signal.unchecked_ref::<Signal>().unlisten("abort", handler);
        }
        self.disarm();
        self.end_attempt();
    }
}

/// The reason of the first of `signals` that is aborted (`undefined` when reading it throws), or
/// `None` when none is.
fn first_abort(signals: &[AbortSignal]) -> Option<JsValue> {
    signals
        .iter()
        .map(|signal| signal.unchecked_ref::<Signal>())
        .find(|signal| signal.aborted().unwrap_or(false))
        .map(|signal| signal.reason().unwrap_or(JsValue::UNDEFINED))
}

/// Lets a promise whose outcome does not matter (a cancel) reject without an unhandled rejection.
fn ignore(pending: Result<JsValue, JsValue>) {
    if let Ok(Ok(promise)) = pending.map(|value| resolve(&value)) {
        let _ = NOOP.with(|noop| promise.unchecked_ref::<Pending>().catch(noop));
    }
}

/// The headers of an answer; `None` when reading them throws (a forgery's getter).
pub(crate) fn headers(response: &JsValue) -> Option<web_sys::Headers> {
    let headers = response.unchecked_ref::<Answer>().headers().ok()?;
    headers.dyn_into().ok()
}

/// The head of an answer: its status, whether it is a redirect (3xx, or an opaque redirect with
/// status 0), and its body stream. `None` when the status is not an HTTP status (a forgery that
/// passes `instanceof Response`). A getter that throws fails the call like a broken connection.
pub(crate) fn head(response: &JsValue) -> Result<Option<(u16, bool, Option<JsValue>)>, Failure> {
    let response = response.unchecked_ref::<Answer>();
    let status = match response.status().map_err(Failure::Threw)?.as_f64() {
        Some(n) if (0.0..=999.0).contains(&n) && n == f64::from(n as u16) => n as u16,
        _ => return Ok(None),
    };
    let redirect = (300..400).contains(&status)
        || (status == 0 && response.kind().map_err(Failure::Threw)? == "opaqueredirect");
    let body = response.body().map_err(Failure::Threw)?;
    let body = (!body.is_null() && !body.is_undefined()).then_some(body);
    Ok(Some((status, redirect, body)))
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

    /// `setTimeout(handler, ms, argument)`: the handler is called with `argument`.
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout_with(handler: &Function, ms: f64, argument: u32) -> JsValue;

    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(id: &JsValue);

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

    /// What `reader.read()` resolves to.
    type ReadResult;

    #[wasm_bindgen(method, catch, getter)]
    fn done(this: &ReadResult) -> Result<bool, JsValue>;

    #[wasm_bindgen(method, catch, getter)]
    fn value(this: &ReadResult) -> Result<JsValue, JsValue>;

    /// A caller's AbortSignal (it passed `instanceof`, which a forgery can).
    type Signal;

    #[wasm_bindgen(method, catch, getter)]
    fn aborted(this: &Signal) -> Result<bool, JsValue>;

    #[wasm_bindgen(method, catch, getter)]
    fn reason(this: &Signal) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(method, catch, js_name = addEventListener)]
    fn listen(this: &Signal, kind: &str, listener: &Function) -> Result<(), JsValue>;

    #[wasm_bindgen(method, catch, js_name = removeEventListener)]
    fn unlisten(this: &Signal, kind: &str, listener: &Function) -> Result<(), JsValue>;
}
