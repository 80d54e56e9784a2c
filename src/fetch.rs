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

/// Why a call stopped before it was done.
#[derive(Clone)]
pub(crate) enum Stop {
    /// A caller's signal aborted; its reason.
    Aborted(JsValue),
    /// The timeout passed.
    TimedOut,
}

/// Why a wait ended without a value.
pub(crate) enum Failure {
    /// The call stopped.
    Stopped(Stop),
    /// What was awaited rejected, or starting it threw; the value thrown.
    Threw(JsValue),
}

/// The resources of one call in flight (see the module). Dropping it clears the timer and the
/// listeners, and, unless the answer was read to its end, aborts fetch's signal (with the stop's
/// reason) and cancels the body: a timeout, an abort, an error and a dropped Rust future all end
/// here.
pub(crate) struct Guard {
    controller: AbortController,
    signals: Vec<AbortSignal>,
    /// Called by the timer (with no argument) and by a signal's `abort` event.
    on_stop: Closure<dyn FnMut(JsValue)>,
    timer: JsValue,
    state: Rc<State>,
    reader: Option<JsValue>,
    done: bool,
}

/// What the timer and the listeners tell a waiting call. Cells, not RefCells: nothing here is
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
        let controller = AbortController::new().map_err(Failure::Threw)?;
        let state = Rc::new(State::default());
        let on_stop = Closure::new({
            let (state, signals) = (state.clone(), signals.clone());
            move |event: JsValue| {
                let stop = match event.is_undefined() {
                    true => Stop::TimedOut,
                    false => Stop::Aborted(first_abort(&signals).unwrap_or(JsValue::UNDEFINED)),
                };
                if state.stopped().is_none() {
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
            controller,
            signals,
            on_stop,
            timer,
            state,
            reader: None,
            done: false,
        })
    }

    /// The signal handed to fetch.
    pub(crate) fn signal(&self) -> AbortSignal {
        self.controller.signal()
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

impl Drop for Guard {
    fn drop(&mut self) {
        clear_timeout(&self.timer);
        let handler = self.on_stop.as_ref().unchecked_ref();
        for signal in &self.signals {
            let _ = signal.unchecked_ref::<Signal>().unlisten("abort", handler);
        }
        if self.done {
            return;
        }
        let reason = match self.state.stop.take() {
            Some(Stop::Aborted(reason)) => reason,
            Some(Stop::TimedOut) => {
                web_sys::DomException::new_with_message_and_name("timed out", "TimeoutError")
                    .map_or(JsValue::UNDEFINED, JsValue::from)
            }
            None => JsValue::UNDEFINED,
        };
        self.controller.abort_with_reason(&reason);
        if let Some(reader) = &self.reader {
            ignore(reader.unchecked_ref::<Stream>().cancel());
        }
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
    fn resolve(value: &JsValue) -> Result<Promise, JsValue>;

    /// A native promise, whose rejection may be ignored.
    type Pending;

    #[wasm_bindgen(method)]
    fn catch(this: &Pending, on_rejected: &Function) -> Promise;

    /// `setTimeout(handler, ms)`: a number in browsers and workerd, an object in Node.
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(handler: &Function, ms: f64) -> JsValue;

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
