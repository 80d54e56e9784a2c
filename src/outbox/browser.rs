//! The browser APIs the outbox uses beyond IndexedDB, bound once: `globalThis` (its `navigator`
//! and `document`), a timer, a promise resolved from Rust, the promise of a future, `console.warn`,
//! and the Web Locks API (which web-sys has only among its unstable APIs).

use super::record::get;
use alloc::boxed::Box;
use core::future::Future;
use core::pin::Pin;
use js_sys::futures::future_to_promise;
use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// A promise, and the `resolve` and `reject` that settle it.
pub(crate) fn deferred() -> (Promise, Function, Function) {
    let (mut resolve, mut reject) = (None, None);
    let promise = Promise::new(&mut |yes, no| (resolve, reject) = (Some(yes), Some(no)));
    // The executor runs before `Promise::new` returns.
    let noop = || NOOP.with(Function::clone);
    (promise, resolve.unwrap_or_else(noop), reject.unwrap_or_else(noop))
}

/// Whether the runtime says it is offline (`navigator.onLine` false).
pub(crate) fn offline() -> bool {
    let navigator = GLOBAL.with(|global| get(global, "navigator"));
    get(&navigator, "onLine") == JsValue::FALSE
}

/// `navigator.locks`, where there is one.
pub(crate) fn web_locks() -> Option<LockManager> {
    let locks = GLOBAL.with(|global| get(&get(global, "navigator"), "locks"));
    locks.is_object().then(|| locks.unchecked_into())
}

/// A one-shot timer, after gloo-timers' `Timeout`: `callback` runs once after `ms` milliseconds,
/// unless the timer is dropped first.
#[must_use]
pub(crate) struct Timer {
    id: JsValue,
    _callback: Closure<dyn FnMut()>,
}

impl Timer {
    pub(crate) fn new(ms: f64, callback: Box<dyn FnMut()>) -> Timer {
        let callback = Closure::wrap(callback);
        let id = set_timeout(callback.as_ref().unchecked_ref(), ms);
        Timer { id, _callback: callback }
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        clear_timeout(&self.id);
    }
}

#[wasm_bindgen]
extern "C" {
    /// `globalThis`: `indexedDB`, `navigator`, `document`, and the `online` event.
    #[wasm_bindgen(thread_local_v2, js_name = globalThis)]
    pub(crate) static GLOBAL: JsValue;

    /// `Function.prototype`: a function that does nothing.
    #[wasm_bindgen(thread_local_v2, js_namespace = Function, js_name = prototype)]
    static NOOP: Function;

    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(handler: &Function, ms: f64) -> JsValue;
    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(id: &JsValue);

    #[wasm_bindgen(js_namespace = console)]
    pub(crate) fn warn(message: &str);

    /// The Web Locks API.
    pub(crate) type LockManager;
    /// `locks.request(name, callback)`: `callback` runs holding the lock until its promise settles.
    #[wasm_bindgen(method, catch)]
    pub(crate) fn request(
        this: &LockManager,
        name: &str,
        callback: &Function,
    ) -> Result<Promise, JsValue>;
}

/// The promise of `future`, through one boxed type: the outbox's futures share one copy of the
/// glue that polls them, where each would bring its own.
pub(crate) fn promise(future: impl Future<Output = Result<JsValue, JsValue>> + 'static) -> Promise {
    let future: Pin<Box<dyn Future<Output = Result<JsValue, JsValue>>>> = Box::pin(future);
    future_to_promise(future)
}
