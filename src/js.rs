//! Bindings to JavaScript. Every import that can throw is declared `catch`: a JS exception must never
//! unwind through wasm frames, or a call could hang with its promise never settled.

use crate::answer::Engine;
use alloc::string::String;
use js_sys::{Array, Promise};
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
    /// What was found, packed as `input::judge` reads it.
    #[wasm_bindgen(method, getter)]
    pub fn state(this: &Reading) -> u32;
    #[wasm_bindgen(method, getter, js_name = idNumber)]
    pub fn id_number(this: &Reading) -> f64;
    #[wasm_bindgen(method, getter, js_name = idInt)]
    pub fn id_int(this: &Reading) -> i64;
    #[wasm_bindgen(method, getter, js_name = unknownKeys)]
    pub fn unknown_keys(this: &Reading) -> Array;
    /// What the root value is, in words, when it is not a plain object.
    #[wasm_bindgen(method, getter, js_name = rootPhrase)]
    pub fn root_phrase(this: &Reading) -> String;
    /// The valid NewPlant as a fresh object.
    #[wasm_bindgen(method)]
    pub fn value(this: &Reading) -> JsValue;

    /// One client's request path (token, fetch, timeout, abort, bounded body read).
    pub type Sender;
    /// The signal of one call's options; throws a `config` PlantStoreError.
    #[wasm_bindgen(method, catch, js_name = callSignal)]
    pub fn call_signal(this: &Sender, options: &JsValue) -> Result<JsValue, JsValue>;
    /// Sends a valid NewPlant; the promise settles with the Plant or a PlantStoreError.
    #[wasm_bindgen(method)]
    pub fn send(this: &Sender, reading: &Reading, signal: &JsValue) -> Promise;

    /// Checks the options once and returns the client's Sender; throws a `config` PlantStoreError.
    #[wasm_bindgen(catch)]
    pub fn configure(
        options: &JsValue,
        engine: Engine,
        ok_limit: u32,
        error_limit: u32,
    ) -> Result<Sender, JsValue>;
}
