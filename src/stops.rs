//! What ends a call, after gloo-timers and reqwest's `AbortGuard`: [`Stops`] holds the call's
//! deadline (one timer, armed when the call starts) and the caller's signals, each heard through
//! its own callback; every wait of the call, on a promise ([`Stops::wait`]) or a sleep
//! ([`Stops::sleep`]), ends at once when one of them fires, also when fetch or getToken ignore
//! their signal. The attempt's own timer is the request's (`fetch::AbortGuard`).

use crate::answer;
use crate::error::Draft;
use alloc::{boxed::Box, rc::Rc, vec::Vec};
use core::future::{poll_fn, Future};
use core::{cell::Cell, pin::Pin, task::Context, task::Poll, task::Waker};
use js_sys::{Date, Function, Promise, Reflect};
use wasm_bindgen::prelude::*;
use web_sys::AbortSignal;

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

/// What the timers and the listeners tell a waiting call. Cells, not RefCells: nothing here is
/// borrowed across a call.
#[derive(Default)]
pub(crate) struct State {
    stop: Cell<Option<Stop>>,
    /// A sleep's timer rang.
    rang: Cell<bool>,
    waker: Cell<Option<Waker>>,
}

impl State {
    pub(crate) fn stopped(&self) -> Option<Stop> {
        let stop = self.stop.take();
        self.stop.set(stop.clone());
        stop
    }

    /// Records `stop` and wakes the call. An abort or the call's timeout is final; the attempt's
    /// timeout gives way to them.
    pub(crate) fn stop(&self, stop: Stop) {
        if matches!(self.stopped(), None | Some(Stop::AttemptTimedOut)) {
            self.stop.set(Some(stop));
        }
        self.wake();
    }

    /// The attempt's own timeout ends with the attempt.
    pub(crate) fn attempt_over(&self) {
        if matches!(self.stopped(), Some(Stop::AttemptTimedOut)) {
            self.stop.set(None);
        }
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
    pub(crate) state: Rc<State>,
    _deadline: Timer,
    timeout_ms: u32,
    /// When the call times out, in milliseconds since the epoch.
    pub(crate) ends_at: f64,
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

/// The reason of the first of `signals` that is aborted (`undefined` when reading it throws), or
/// `None` when none is. A signal passed `instanceof`, which a forgery can: its getters are read
/// through `Reflect.get` (catch).
fn first_abort(signals: &[AbortSignal]) -> Option<JsValue> {
    let get = |signal: &AbortSignal, key: &str| Reflect::get(signal, &JsValue::from_str(key));
    let signal =
        signals.iter().find(|signal| get(signal, "aborted").is_ok_and(|a| a.is_truthy()))?;
    Some(get(signal, "reason").unwrap_or(JsValue::UNDEFINED))
}

#[wasm_bindgen]
extern "C" {
    /// `Promise.resolve(value)`: adopts a thenable (reading its `then` may throw).
    #[wasm_bindgen(catch, js_namespace = Promise, js_name = resolve)]
    pub(crate) fn resolve(value: &JsValue) -> Result<Promise, JsValue>;

    /// `setTimeout(handler, ms)`: a number in browsers and workerd, an object in Node.
    #[wasm_bindgen(js_name = setTimeout)]
    pub(crate) fn set_timeout(handler: &Function, ms: f64) -> JsValue;
    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(id: &JsValue);
}
