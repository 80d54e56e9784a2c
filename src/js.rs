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

    /// One request and its bounded body read; see `exchange` in `js/runtime.js`. Rejects with what
    /// fetch or the body threw.
    #[allow(clippy::too_many_arguments)]
    pub fn exchange(
        fetch: &js_sys::Function,
        url: &str,
        headers: &js_sys::Object,
        authorization: Option<String>,
        body: &str,
        guard: &CallGuard,
        ok_limit: u32,
        error_limit: u32,
    ) -> js_sys::Promise;

    /// What the server answered.
    pub type Exchange;
    /// The status; -1 when fetch resolved to something that is not a Response.
    #[wasm_bindgen(method, getter)]
    pub fn status(this: &Exchange) -> i32;
    /// A redirect (3xx or an opaque redirect); its body was not read.
    #[wasm_bindgen(method, getter)]
    pub fn redirect(this: &Exchange) -> bool;
    /// The body read, at most the limit.
    #[wasm_bindgen(method, getter)]
    pub fn body(this: &Exchange) -> js_sys::Uint8Array;
    /// Whether the whole body was read.
    #[wasm_bindgen(method, getter)]
    pub fn complete(this: &Exchange) -> bool;
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
}
