//! Bindings to JavaScript. Every import that can throw is declared `catch`: a JS exception must never
//! unwind through wasm frames, or a call could hang with its promise never settled.

use crate::answer::Engine;
use alloc::string::String;
use js_sys::{Array, Function, Object, Promise};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/js/runtime.js")]
extern "C" {
    /// `PlantStoreError` from `js/runtime.js`.
    pub type PlantStoreError;
    #[wasm_bindgen(constructor)]
    pub fn new(kind: &str, message: &str, details: &JsValue) -> PlantStoreError;

    /// A NewPlant candidate read once by `js/runtime.js`; its constructor never throws.
    pub type Reading;
    #[wasm_bindgen(constructor)]
    pub fn new(value: &JsValue) -> Reading;
    /// What was found, packed as `input::State` reads it.
    #[wasm_bindgen(method, getter)]
    pub fn state(this: &Reading) -> u32;
    #[wasm_bindgen(method, getter, js_name = idNumber)]
    pub fn id_number(this: &Reading) -> f64;
    #[wasm_bindgen(method, getter, js_name = idInt)]
    pub fn id_int(this: &Reading) -> i64;
    #[wasm_bindgen(method, getter, js_name = unknownKeys)]
    pub fn unknown_keys(this: &Reading) -> Array;
    /// The valid NewPlant as a fresh object.
    #[wasm_bindgen(method)]
    pub fn value(this: &Reading) -> JsValue;

    /// One client's request path (token, fetch, timeout, abort, bounded body read).
    pub type Sender;
    #[allow(clippy::too_many_arguments)]
    #[wasm_bindgen(constructor)]
    pub fn new(
        engine: Engine,
        url: &str,
        headers: &Object,
        token: Option<String>,
        get_token: Option<Function>,
        fetch: Option<Function>,
        signal: Option<AbortSignal>,
        timeout_ms: u32,
        ok_limit: u32,
        error_limit: u32,
    ) -> Sender;
    /// Sends a valid NewPlant; the promise settles with the Plant or a PlantStoreError.
    #[wasm_bindgen(method)]
    pub fn send(this: &Sender, reading: &Reading, signal: Option<AbortSignal>) -> Promise;
}

#[wasm_bindgen]
extern "C" {
    /// The DOM's `AbortSignal` (only its type is needed: `instanceof` checks it).
    #[wasm_bindgen(typescript_type = "AbortSignal")]
    #[derive(Debug, Clone)]
    pub type AbortSignal;

    /// The fetch standard's `Headers`, to check a header name and value the way fetch will.
    pub type Headers;
    #[wasm_bindgen(constructor, catch)]
    pub fn new() -> Result<Headers, JsValue>;
    #[wasm_bindgen(method, catch)]
    pub fn set(this: &Headers, name: &str, value: &str) -> Result<(), JsValue>;

    /// `Object.keys`: a Proxy's `ownKeys` trap may throw.
    #[wasm_bindgen(catch, js_namespace = Object, js_name = keys)]
    pub fn object_keys(value: &JsValue) -> Result<Array, JsValue>;

    /// `Array.isArray`: throws for a revoked Proxy.
    #[wasm_bindgen(catch, js_namespace = Array, js_name = isArray)]
    pub fn is_array(value: &JsValue) -> Result<bool, JsValue>;

    /// `Object.getPrototypeOf`: a Proxy's `getPrototypeOf` trap may throw.
    #[wasm_bindgen(catch, js_namespace = Object, js_name = getPrototypeOf)]
    pub fn prototype_of(value: &JsValue) -> Result<JsValue, JsValue>;
}
