//! An [`Error`] as JavaScript sees it: a `PlantStoreError`, the class of `js/error.js`, with the
//! same kind, message, status, code, issues and cause.

use crate::Error;
use js_sys::{Array, Object, Reflect};
use plant_store_model::Issue;
use wasm_bindgen::prelude::*;

impl Error {
    /// The `PlantStoreError` of this error: its kind and message, and its status, code, issues,
    /// cause, attempts, `maybeCreated` and `retryAfterMs` where they apply. The cause is the JS
    /// failure, or else the error of the attempt before.
    pub(crate) fn to_js(&self) -> JsValue {
        let details = Object::new();
        let cause = match (self.cause(), self.earlier()) {
            (Some(cause), _) => Some(cause.clone()),
            (None, earlier) => earlier.map(Error::to_js),
        };
        let fields = [
            ("status", self.status().map(JsValue::from)),
            ("code", self.code().map(JsValue::from)),
            ("issues", (!self.issues().is_empty()).then(|| issues_to_js(self.issues()))),
            ("cause", cause),
            ("attempts", Some(self.attempts().into())),
            ("maybeCreated", Some(self.maybe_created().into())),
            ("retryAfterMs", self.retry_after_ms().map(JsValue::from)),
        ];
        for (key, value) in fields.into_iter().filter_map(|(key, v)| Some((key, v?))) {
            let _ = Reflect::set(&details, &key.into(), &value);
        }
        PlantStoreError::new(self.kind().as_str(), self.message(), &details).into()
    }
}

impl Error {
    /// [`Error::to_js`] for the error a call's task settles with: its stack keeps the one frame
    /// that made it (`Error.stackTraceLimit` is 1 meanwhile, then restored). The frames below are
    /// the .wasm's and the task queue's, never the caller's, since the call runs in a task of its
    /// own; Node prints them all when nobody catches the error.
    pub(crate) fn to_js_in_task(&self) -> JsValue {
        let limit = JsValue::from_str("stackTraceLimit");
        let kept = ERROR.with(|class| Reflect::get(class, &limit)).unwrap_or(JsValue::UNDEFINED);
        let _ = ERROR.with(|class| Reflect::set(class, &limit, &1.into()));
        let error = self.to_js();
        let _ = ERROR.with(|class| Reflect::set(class, &limit, &kept));
        error
    }
}

/// `[{ path, code, message }, …]`.
pub(crate) fn issues_to_js(issues: &[Issue]) -> JsValue {
    let array = Array::new();
    for issue in issues {
        let object = Object::new();
        let code = issue.code.as_str();
        let fields = [("path", &*issue.path), ("code", code), ("message", &*issue.message)];
        for (key, value) in fields {
            let _ = Reflect::set(&object, &key.into(), &value.into());
        }
        array.push(&object);
    }
    array.into()
}

#[wasm_bindgen]
extern "C" {
    /// The global `Error` class, whose `stackTraceLimit` (V8's) bounds the frames of a new error.
    #[wasm_bindgen(thread_local_v2, js_name = Error)]
    static ERROR: JsValue;
}

#[wasm_bindgen(module = "/js/error.js")]
extern "C" {
    /// `PlantStoreError`, the error class of `js/error.js`, which every error becomes in
    /// JavaScript: it is JavaScript because a class that extends `Error` is the one thing
    /// wasm-bindgen cannot write.
    pub type PlantStoreError;

    #[wasm_bindgen(constructor)]
    fn new(kind: &str, message: &str, details: &JsValue) -> PlantStoreError;

    /// The same class, re-exported by the generated module under its name. Imported as a
    /// function because wasm-bindgen writes an `unknown` type for a re-exported type; the class
    /// is declared in `src/js/types.d.ts`.
    #[wasm_bindgen(reexport, skip_typescript, js_name = PlantStoreError)]
    fn plant_store_error_class();
}
