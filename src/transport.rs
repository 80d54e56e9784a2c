//! The JavaScript side of one call: waiting on promises, the timeout, the caller's signals, the
//! `AbortController` handed to fetch, and the bounded read of the answer's body.
//!
//! A [`Call`] is a key into a table of call states, and a handful of closures made once per wasm
//! instance do the JavaScript-facing work for every call: each is bound to a call's key with
//! `Function.prototype.bind`. So waiting on a promise ([`Call::wait`]) costs a `then` and two
//! bound functions per call, where `wasm-bindgen-futures`' `JsFuture` makes two closures (each
//! with a FinalizationRegistry entry) per await, which measured up to twice the cost of a call.
//!
//! A stop (the timeout, a caller's signal) ends the call at once: the pending [`Call::wait`]
//! returns it, also when fetch or getToken ignore their signal. It aborts the `AbortController`
//! and cancels the body reader. The controller is made only when fetch reads `init.signal`
//! (every real fetch does; an in-memory one need not), since Node's costs ~4 µs. Dropping a
//! `Call` unfinished (a Rust caller dropped its future) aborts it the same way.

use crate::local::{Global, Key, Table};
use crate::sys;
use alloc::vec::Vec;
use core::cell::RefCell;
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll, Waker};
use js_sys::{Function, Object, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{AbortController, AbortSignal, ReadableStream, ReadableStreamDefaultReader};

/// Why a call stopped before it was done.
#[derive(Debug, Clone)]
pub(crate) enum Stop {
    /// A caller's signal aborted; its reason.
    Aborted(JsValue),
    /// The timeout passed.
    TimedOut,
}

/// Why a wait ended without a value.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The call stopped.
    Stopped(Stop),
    /// What was awaited rejected, or starting it threw; the value thrown.
    Threw(JsValue),
}

impl From<Stop> for Failure {
    fn from(stop: Stop) -> Failure {
        Failure::Stopped(stop)
    }
}

/// One call's state, kept in the table so that the shared closures can reach it by key.
#[derive(Default)]
struct State {
    /// What the awaited promise settled with, until the wait takes it.
    settled: Option<Result<JsValue, JsValue>>,
    stop: Option<Stop>,
    /// Woken when the awaited promise settles or the call stops.
    waker: Option<Waker>,
    /// The shared settle closures bound to this call, made at its first wait.
    hooks: Option<(Function, Function)>,
    /// Made when fetch reads `init.signal`.
    controller: Option<AbortController>,
    reader: Option<ReadableStreamDefaultReader>,
    /// When the call started (`Date.now()`), and its timeout: the timer is armed late (see
    /// `watch`), for what is left.
    started: f64,
    timeout_ms: u32,
    timer: Option<JsValue>,
    /// Settles seen so far, and how many the watch saw at its last look.
    progress: u32,
    watched: u32,
    /// The shared watch closure bound to this call.
    watch: Option<Function>,
    /// The shared abort listener bound to this call, and the caller's signals it listens to.
    listener: Option<Function>,
    signals: Vec<AbortSignal>,
}

/// The closures every call shares, the table of calls, and property names made once.
struct Shared {
    calls: RefCell<Table<State>>,
    on_fulfilled: Function,
    on_rejected: Function,
    on_timeout: Function,
    on_watch: Function,
    on_abort: Function,
    /// `Promise.resolve()`: the watch hops on it.
    resolved: Promise,
    signal_of: Function,
    /// Does nothing: the rejection handler of promises whose outcome does not matter.
    ignore: Function,
    /// `{ get, enumerable: true, configurable: true }`, its `get` set before each use.
    getter: Object,
    names: Names,
}

/// Property names, each made once as a JS string.
struct Names {
    signal: JsValue,
    get: JsValue,
    body: JsValue,
    headers: JsValue,
}

static SHARED: Global<Shared> = Global::new();

fn shared() -> &'static Shared {
    SHARED.get(Shared::new)
}

/// A JS function made from a Rust closure, owned by JavaScript for the life of the instance.
fn function<F: ?Sized + wasm_bindgen::closure::WasmClosure>(closure: Closure<F>) -> Function {
    closure.into_js_value().unchecked_into()
}

impl Shared {
    fn new() -> Shared {
        let name = JsValue::from_str;
        let getter = Object::new();
        let _ = Reflect::set(&getter, &name("enumerable"), &JsValue::TRUE);
        let _ = Reflect::set(&getter, &name("configurable"), &JsValue::TRUE);
        Shared {
            calls: RefCell::new(Table::new()),
            on_fulfilled: function(Closure::<dyn Fn(f64, JsValue)>::new(|key, value| {
                settle(key, Ok(value))
            })),
            on_rejected: function(Closure::<dyn Fn(f64, JsValue)>::new(|key, reason| {
                settle(key, Err(reason))
            })),
            on_timeout: function(Closure::<dyn Fn(f64)>::new(|key| {
                if let Some(key) = Key::from_js(key) {
                    stop(key, Stop::TimedOut);
                }
            })),
            on_watch: function(Closure::<dyn Fn(f64)>::new(watch)),
            resolved: sys::promise_resolve(&JsValue::UNDEFINED)
                .unwrap_or_else(|_| Promise::new(&mut |_, _| {})),
            on_abort: function(Closure::<dyn Fn(f64)>::new(aborted)),
            signal_of: function(Closure::<dyn Fn(f64) -> JsValue>::new(signal_of)),
            ignore: function(Closure::<dyn Fn(JsValue)>::new(|_| {})),
            getter,
            names: Names {
                signal: name("signal"),
                get: name("get"),
                body: name("body"),
                headers: name("headers"),
            },
        }
    }
}

/// Runs `f` on the state of `key`, if the call is still there. Never while JavaScript runs: no
/// JS is called inside `f`, so a callback can never find the table borrowed.
fn with_state<R>(key: Key, f: impl FnOnce(&mut State) -> R) -> Option<R> {
    let mut calls = shared().calls.try_borrow_mut().ok()?;
    calls.get_mut(key).map(f)
}

/// A promise the call waited on settled.
fn settle(key: f64, result: Result<JsValue, JsValue>) {
    let Some(key) = Key::from_js(key) else { return };
    let waker = with_state(key, |state| {
        state.progress = state.progress.wrapping_add(1);
        if state.stop.is_none() {
            state.settled = Some(result);
        }
        state.waker.take()
    });
    if let Some(waker) = waker.flatten() {
        waker.wake();
    }
}

/// The watch of a call: one microtask hop after the call's first wait, and again after each hop in
/// which the call made progress (a promise it waited on settled). When a hop passes without
/// progress the call is waiting on something that does not settle within the current microtask
/// checkpoint (a real fetch waits for a task), and the timer is armed, for what is left of the
/// timeout since the call started. No timer can fire before the current task ends, so the timeout
/// is the same as with a timer armed at the start; a call answered in memory never arms one, which
/// saves the cost of `setTimeout` and `clearTimeout` (about 2 µs a call in Chromium).
fn watch(key: f64) {
    let Some(key) = Key::from_js(key) else { return };
    enum Next {
        Again(Function),
        Arm(f64),
    }
    let next = with_state(key, |state| {
        if state.stop.is_some() || state.timer.is_some() {
            return None;
        }
        if state.progress != state.watched {
            state.watched = state.progress;
            return state.watch.clone().map(Next::Again);
        }
        let elapsed = js_sys::Date::now() - state.started;
        Some(Next::Arm((f64::from(state.timeout_ms) - elapsed).max(0.0)))
    });
    match next.flatten() {
        Some(Next::Again(watch)) => {
            let _ = sys::then_with(&shared().resolved, &watch, &JsValue::UNDEFINED);
        }
        Some(Next::Arm(left)) => {
            let shared = shared();
            let timer = sys::set_timeout(
                &sys::bind_key(&shared.on_timeout, &JsValue::NULL, key.to_js()),
                left,
            );
            with_state(key, |state| state.timer = Some(timer));
        }
        None => {}
    }
}

/// A caller's signal aborted: stops the call with the reason of the first aborted signal.
fn aborted(key: f64) {
    let Some(key) = Key::from_js(key) else { return };
    let signals = with_state(key, |state| state.signals.clone()).unwrap_or_default();
    let reason = signals
        .iter()
        .find(|signal| sys::try_aborted(signal).unwrap_or(false))
        .map_or(JsValue::UNDEFINED, |signal| {
            sys::try_reason(signal).unwrap_or(JsValue::UNDEFINED)
        });
    stop(key, Stop::Aborted(reason));
}

/// Ends the call of `key` with `why`, unless it already stopped: aborts fetch's signal, cancels
/// the body reader and wakes the wait, which returns the stop.
fn stop(key: Key, why: Stop) {
    let taken = with_state(key, |state| {
        if state.stop.is_some() {
            return None;
        }
        state.stop = Some(why.clone());
        Some((
            state.waker.take(),
            state.controller.clone(),
            state.reader.take(),
        ))
    });
    let Some(Some((waker, controller, reader))) = taken else {
        return;
    };
    if let Some(controller) = controller {
        controller.abort_with_reason(&reason(&why));
    }
    if let Some(reader) = reader {
        ignore(sys::try_cancel(&reader));
    }
    if let Some(waker) = waker {
        waker.wake();
    }
}

/// The reason fetch's signal is aborted with: the caller's, or a `TimeoutError`.
fn reason(why: &Stop) -> JsValue {
    match why {
        Stop::Aborted(reason) => reason.clone(),
        Stop::TimedOut => {
            web_sys::DomException::new_with_message_and_name("timed out", "TimeoutError")
                .map_or(JsValue::UNDEFINED, JsValue::from)
        }
    }
}

/// `init.signal`: the call's AbortController, made on this first read; aborted at once if the
/// call already stopped. A read after the call is over gets a signal that is already aborted.
fn signal_of(key: f64) -> JsValue {
    let Some(state) = Key::from_js(key).and_then(|key| {
        with_state(key, |state| (state.controller.clone(), state.stop.clone())).map(|s| (key, s))
    }) else {
        return AbortSignal::abort().into();
    };
    let (key, (controller, stopped)) = state;
    if let Some(controller) = controller {
        return controller.signal().into();
    }
    let Ok(controller) = AbortController::new() else {
        return JsValue::UNDEFINED;
    };
    with_state(key, |state| state.controller = Some(controller.clone()));
    if let Some(why) = stopped {
        controller.abort_with_reason(&reason(&why));
    }
    controller.signal().into()
}

/// Lets a promise whose outcome does not matter (a cancel) reject without an unhandled rejection.
fn ignore(pending: Result<JsValue, JsValue>) {
    if let Ok(Ok(promise)) = pending.map(|value| sys::promise_resolve(&value)) {
        let _ = sys::then_with(&promise, &JsValue::UNDEFINED, &shared().ignore);
    }
}

/// One call in flight: its key in the table. Dropping it unfinished aborts it (see the module).
pub(crate) struct Call {
    key: Key,
    finished: bool,
}

impl Call {
    /// Starts a call: the timeout counts from here. Fails without starting when one of the
    /// caller's signals is already aborted.
    pub(crate) fn start(
        timeout_ms: u32,
        signals: [Option<&AbortSignal>; 2],
    ) -> Result<Call, Failure> {
        let signals: Vec<AbortSignal> = signals.into_iter().flatten().cloned().collect();
        for signal in &signals {
            if sys::try_aborted(signal).unwrap_or(false) {
                let reason = sys::try_reason(signal).unwrap_or(JsValue::UNDEFINED);
                return Err(Failure::Stopped(Stop::Aborted(reason)));
            }
        }
        let shared = shared();
        let key = shared
            .calls
            .try_borrow_mut()
            .map_err(|_| unavailable())?
            .insert(State::default());
        let call = Call {
            key,
            finished: false,
        };
        let js_key = key.to_js();
        let started = js_sys::Date::now();
        let listener = if signals.is_empty() {
            None
        } else {
            let listener = sys::bind_key(&shared.on_abort, &JsValue::NULL, js_key);
            for signal in &signals {
                let _ = sys::try_listen(signal, "abort", &listener);
            }
            Some(listener)
        };
        with_state(key, |state| {
            state.started = started;
            state.timeout_ms = timeout_ms;
            state.listener = listener;
            state.signals = signals;
        });
        Ok(call)
    }

    /// Waits for `value` (a promise, a thenable or a plain value) to settle, or for the call to
    /// stop, whichever comes first.
    pub(crate) fn wait(&self, value: JsValue) -> Wait<'_> {
        Wait {
            call: self,
            value: Some(value),
        }
    }

    /// fetch's `init`: a copy of `template` with `body` (and `headers`, when given), and
    /// `signal` as an own, enumerable getter that makes the call's AbortController when read
    /// (so a wrapper that copies `init` with `{ ...init }` hands the signal on).
    pub(crate) fn init(
        &self,
        template: &Object,
        headers: Option<&Object>,
        body: &JsValue,
    ) -> Object {
        let shared = shared();
        let init = sys::assign(&Object::new(), template);
        if let Some(headers) = headers {
            let _ = Reflect::set(&init, &shared.names.headers, headers);
        }
        let _ = Reflect::set(&init, &shared.names.body, body);
        let getter = sys::bind_key(&shared.signal_of, &JsValue::NULL, self.key.to_js());
        let _ = Reflect::set(&shared.getter, &shared.names.get, &getter);
        sys::define_property(&init, &shared.names.signal, &shared.getter);
        init
    }

    /// Reads `body` to its end or up to `limit` bytes, cancelling the rest. Returns the bytes and
    /// whether they are all of it.
    pub(crate) async fn read(
        &self,
        body: ReadableStream,
        limit: usize,
    ) -> Result<(Vec<u8>, bool), Failure> {
        // Not checked with `instanceof`: every use below is `catch`, so a forgery only fails.
        let reader: ReadableStreamDefaultReader = sys::try_get_reader(&body)
            .map_err(Failure::Threw)?
            .unchecked_into();
        with_state(self.key, |state| state.reader = Some(reader.clone()));
        let mut bytes = Vec::new();
        loop {
            let pending = sys::try_read(&reader).map_err(Failure::Threw)?;
            let result = self.wait(pending).await?;
            if sys::try_done(&result).map_err(Failure::Threw)? {
                break;
            }
            let chunk: Uint8Array = sys::try_value(&result)
                .map_err(Failure::Threw)?
                .dyn_into()
                .map_err(|_| {
                    Failure::Threw(type_error(
                        "the body stream yielded a chunk that is not bytes",
                    ))
                })?;
            // `to_vec`, not `copy_to`, whose length assertion would bring core's formatting.
            let room = limit.saturating_sub(bytes.len());
            let over = chunk.length() as usize > room;
            let piece = if over {
                chunk.subarray(0, room as u32).to_vec()
            } else {
                chunk.to_vec()
            };
            if bytes.is_empty() {
                bytes = piece;
            } else {
                bytes.extend_from_slice(&piece);
            }
            if over {
                if let Some(reader) = with_state(self.key, |state| state.reader.take()).flatten() {
                    ignore(sys::try_cancel(&reader));
                }
                return Ok((bytes, false));
            }
        }
        with_state(self.key, |state| state.reader = None);
        Ok((bytes, true))
    }

    /// Ends a call that ran to its end: clears the timer and the listeners, without aborting.
    pub(crate) fn finish(mut self) {
        self.finished = true;
    }
}

/// Cancels a body that will not be read (a redirect's).
pub(crate) fn discard(body: &ReadableStream) {
    ignore(sys::try_cancel(body));
}

/// The failure of a call whose state cannot be reached: a bug, reported rather than trapped on.
fn unavailable() -> Failure {
    Failure::Threw(type_error(
        "plant-store-client: the call's state is not available",
    ))
}

fn type_error(message: &str) -> JsValue {
    js_sys::TypeError::new(message).into()
}

impl Drop for Call {
    fn drop(&mut self) {
        let Ok(mut calls) = shared().calls.try_borrow_mut() else {
            return;
        };
        let Some(state) = calls.remove(self.key) else {
            return;
        };
        drop(calls);
        if let Some(timer) = &state.timer {
            sys::clear_timeout(timer);
        }
        if let Some(listener) = &state.listener {
            for signal in &state.signals {
                let _ = sys::try_unlisten(signal, "abort", listener);
            }
        }
        if !self.finished && state.stop.is_none() {
            if let Some(controller) = &state.controller {
                controller.abort_with_reason(&JsValue::UNDEFINED);
            }
            if let Some(reader) = &state.reader {
                ignore(sys::try_cancel(reader));
            }
        }
    }
}

/// The future of [`Call::wait`].
pub(crate) struct Wait<'a> {
    call: &'a Call,
    value: Option<JsValue>,
}

impl Future for Wait<'_> {
    type Output = Result<JsValue, Failure>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let key = this.call.key;
        if let Some(value) = this.value.take() {
            if let Err(thrown) = hook(key, &value) {
                return Poll::Ready(Err(Failure::Threw(thrown)));
            }
        }
        with_state(key, |state| {
            if let Some(why) = &state.stop {
                return Poll::Ready(Err(Failure::Stopped(why.clone())));
            }
            if let Some(result) = state.settled.take() {
                return Poll::Ready(result.map_err(Failure::Threw));
            }
            match &state.waker {
                Some(waker) if waker.will_wake(cx.waker()) => {}
                _ => state.waker = Some(cx.waker().clone()),
            }
            Poll::Pending
        })
        .unwrap_or_else(|| Poll::Ready(Err(unavailable())))
    }
}

/// Has `value` settle into the call's state: `Promise.resolve(value).then(fulfilled, rejected)`,
/// with the shared settle closures bound to the call (once per call).
fn hook(key: Key, value: &JsValue) -> Result<(), JsValue> {
    let promise = sys::promise_resolve(value)?;
    let shared = shared();
    let hooks = match with_state(key, |state| state.hooks.clone()).flatten() {
        Some(hooks) => {
            let _ = sys::then_with(&promise, &hooks.0, &hooks.1);
            return Ok(());
        }
        None => {
            let js_key = key.to_js();
            let hooks = (
                sys::bind_key(&shared.on_fulfilled, &JsValue::NULL, js_key),
                sys::bind_key(&shared.on_rejected, &JsValue::NULL, js_key),
            );
            with_state(key, |state| state.hooks = Some(hooks.clone()));
            hooks
        }
    };
    let _ = sys::then_with(&promise, &hooks.0, &hooks.1);
    // The call's first wait: the watch starts one hop behind it.
    let watch = sys::bind_key(&shared.on_watch, &JsValue::NULL, key.to_js());
    let _ = sys::then_with(&shared.resolved, &watch, &JsValue::UNDEFINED);
    with_state(key, |state| state.watch = Some(watch));
    Ok(())
}
