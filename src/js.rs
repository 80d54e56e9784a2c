//! Bindings to js/runtime.js (public for the crate's browser tests, which reach the package's entry
//! points through them). Every import that can throw is declared `catch`: a JS exception must never
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

    /// Hands the Engine and the body limits to js/runtime.js (see `crate::start`).
    pub fn install(engine: Engine, ok_limit: u32, error_limit: u32);

    /// `createPlant` of the package, entered in JavaScript (for Rust callers: the tests).
    #[wasm_bindgen(js_name = createPlant)]
    pub fn create_plant(plant: &JsValue, options: &JsValue) -> Promise;

    /// `validateNewPlant` of the package, entered in JavaScript (for Rust callers: the tests).
    #[wasm_bindgen(js_name = validateNewPlant, catch)]
    pub fn validate_new_plant(plant: &JsValue) -> Result<JsValue, JsValue>;

    /// `PlantStoreClient` of the package, entered in JavaScript (for Rust callers: the tests).
    pub type PlantStoreClient;
    /// Checks the options once; throws a `config` PlantStoreError.
    #[wasm_bindgen(constructor, catch)]
    pub fn new(options: &JsValue) -> Result<PlantStoreClient, JsValue>;
    #[wasm_bindgen(method, js_name = createPlant)]
    pub fn create_plant(this: &PlantStoreClient, plant: &JsValue, options: &JsValue) -> Promise;
}
