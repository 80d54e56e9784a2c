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

mod state;

pub(crate) use state::{Failure, Stop};

use crate::local::Key;
use crate::sys;
use alloc::vec::Vec;
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};
use js_sys::{Object, Reflect, Uint8Array};
use state::{first_abort, ignore, shared, with_state, State};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{AbortSignal, ReadableStream, ReadableStreamDefaultReader};

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
        if let Some(reason) = first_abort(&signals) {
            return Err(Failure::Stopped(Stop::Aborted(reason)));
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
            let listener = sys::bind_key(&shared.on_abort, js_key);
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
        let getter = sys::bind_key(&shared.signal_of, self.key.to_js());
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
                sys::bind_key(&shared.on_fulfilled, js_key),
                sys::bind_key(&shared.on_rejected, js_key),
            );
            with_state(key, |state| state.hooks = Some(hooks.clone()));
            hooks
        }
    };
    let _ = sys::then_with(&promise, &hooks.0, &hooks.1);
    // The call's first wait: the watch starts one hop behind it.
    let watch = sys::bind_key(&shared.on_watch, key.to_js());
    let _ = sys::then_with(&shared.resolved, &watch, &JsValue::UNDEFINED);
    with_state(key, |state| state.watch = Some(watch));
    Ok(())
}
