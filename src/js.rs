//! Bindings to JavaScript. Every import that can throw is declared `catch`: a JS exception must never
//! unwind through wasm frames, or a call could hang with its promise never settled.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/js/runtime.js")]
extern "C" {
    /// `PlantStoreError` from `js/runtime.js`.
    pub type PlantStoreError;
    #[wasm_bindgen(constructor)]
    pub fn new(kind: &str, message: &str, details: &JsValue) -> PlantStoreError;

    /// One call's cancellation: the caller's signals plus the timeout.
    pub type CallGuard;
    #[wasm_bindgen(constructor)]
    pub fn new(signals: &js_sys::Array, timeout_ms: u32) -> CallGuard;
    #[wasm_bindgen(method, getter)]
    pub fn signal(this: &CallGuard) -> web_sys::AbortSignal;
    /// 0 while running, 1 when a caller's signal aborted, 2 when the timeout fired.
    #[wasm_bindgen(method, getter)]
    pub fn reason(this: &CallGuard) -> u8;
    /// The aborting signal's `reason`.
    #[wasm_bindgen(method, getter)]
    pub fn cause(this: &CallGuard) -> JsValue;
    #[wasm_bindgen(method)]
    pub fn race(this: &CallGuard, promise: &js_sys::Promise) -> js_sys::Promise;
    #[wasm_bindgen(method)]
    pub fn dispose(this: &CallGuard);

    /// `stream.getReader()`: throws when the body is locked or already read.
    #[wasm_bindgen(catch, js_name = getReader)]
    pub fn get_reader(stream: &web_sys::ReadableStream) -> Result<web_sys::ReadableStreamDefaultReader, JsValue>;

    /// Settles `promise` quietly: for a cancelled body nobody waits for.
    pub fn ignore(promise: &js_sys::Promise);
}

#[wasm_bindgen]
extern "C" {
    /// `Object.keys`: a Proxy's `ownKeys` trap may throw.
    #[wasm_bindgen(catch, js_namespace = Object, js_name = keys)]
    pub fn object_keys(value: &JsValue) -> Result<js_sys::Array, JsValue>;

    /// `Array.isArray`: throws for a revoked Proxy.
    #[wasm_bindgen(catch, js_namespace = Array, js_name = isArray)]
    pub fn is_array(value: &JsValue) -> Result<bool, JsValue>;

    /// `Object.getPrototypeOf`: a Proxy's `getPrototypeOf` trap may throw.
    #[wasm_bindgen(catch, js_namespace = Object, js_name = getPrototypeOf)]
    pub fn prototype_of(value: &JsValue) -> Result<JsValue, JsValue>;

    /// `Promise.resolve`, to treat a fetch that returns a plain value like one that returns a promise.
    #[wasm_bindgen(js_namespace = Promise, js_name = resolve)]
    pub fn promise_resolve(value: &JsValue) -> js_sys::Promise;
}
