//! One call's state, and the closures every call shares that act on it: settling a wait, the
//! watch that arms the timer late, the timeout, a caller's signal aborting, and the lazy
//! `init.signal`. Each closure is made once per wasm instance and bound to a call's key.

use crate::local::{Global, Key, Table};
use crate::sys;
use alloc::vec::Vec;
use core::cell::RefCell;
use core::task::Waker;
use js_sys::{Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{AbortController, AbortSignal, ReadableStreamDefaultReader};

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
pub(super) struct State {
    /// What the awaited promise settled with, until the wait takes it.
    pub(super) settled: Option<Result<JsValue, JsValue>>,
    pub(super) stop: Option<Stop>,
    /// Woken when the awaited promise settles or the call stops.
    pub(super) waker: Option<Waker>,
    /// The shared settle closures bound to this call, made at its first wait.
    pub(super) hooks: Option<(Function, Function)>,
    /// Made when fetch reads `init.signal`.
    pub(super) controller: Option<AbortController>,
    pub(super) reader: Option<ReadableStreamDefaultReader>,
    /// When the call started (`Date.now()`), and its timeout: the timer is armed late (see
    /// `watch`), for what is left.
    pub(super) started: f64,
    pub(super) timeout_ms: u32,
    pub(super) timer: Option<JsValue>,
    /// Settles seen so far, and how many the watch saw at its last look.
    pub(super) progress: u32,
    pub(super) watched: u32,
    /// The shared watch closure bound to this call.
    pub(super) watch: Option<Function>,
    /// The shared abort listener bound to this call, and the caller's signals it listens to.
    pub(super) listener: Option<Function>,
    pub(super) signals: Vec<AbortSignal>,
}

/// The closures every call shares, the table of calls, and property names made once.
pub(super) struct Shared {
    pub(super) calls: RefCell<Table<State>>,
    pub(super) on_fulfilled: Function,
    pub(super) on_rejected: Function,
    pub(super) on_timeout: Function,
    pub(super) on_watch: Function,
    pub(super) on_abort: Function,
    /// `Promise.resolve()`: the watch hops on it.
    pub(super) resolved: Promise,
    pub(super) signal_of: Function,
    /// Does nothing: the rejection handler of promises whose outcome does not matter.
    pub(super) ignore: Function,
    /// `{ get, enumerable: true, configurable: true }`, its `get` set before each use.
    pub(super) getter: Object,
    pub(super) names: Names,
}

/// Property names, each made once as a JS string.
pub(super) struct Names {
    pub(super) signal: JsValue,
    pub(super) get: JsValue,
    pub(super) body: JsValue,
    pub(super) headers: JsValue,
}

static SHARED: Global<Shared> = Global::new();

pub(super) fn shared() -> &'static Shared {
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
pub(super) fn with_state<R>(key: Key, f: impl FnOnce(&mut State) -> R) -> Option<R> {
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
            let timer = sys::set_timeout(&sys::bind_key(&shared.on_timeout, key.to_js()), left);
            with_state(key, |state| state.timer = Some(timer));
        }
        None => {}
    }
}

/// A caller's signal aborted: stops the call with the reason of the first aborted signal.
fn aborted(key: f64) {
    let Some(key) = Key::from_js(key) else { return };
    let signals = with_state(key, |state| state.signals.clone()).unwrap_or_default();
    let reason = first_abort(&signals).unwrap_or(JsValue::UNDEFINED);
    stop(key, Stop::Aborted(reason));
}

/// The reason of the first of `signals` that is aborted (`undefined` when reading it throws), or
/// `None` when none is.
pub(super) fn first_abort(signals: &[AbortSignal]) -> Option<JsValue> {
    signals
        .iter()
        .find(|signal| sys::try_aborted(signal).unwrap_or(false))
        .map(|signal| sys::try_reason(signal).unwrap_or(JsValue::UNDEFINED))
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
pub(super) fn ignore(pending: Result<JsValue, JsValue>) {
    if let Ok(Ok(promise)) = pending.map(|value| sys::promise_resolve(&value)) {
        let _ = sys::then_with(&promise, &JsValue::UNDEFINED, &shared().ignore);
    }
}
