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

/// `[{ path, code, message }, …]`.
pub(crate) fn issues_to_js(issues: &[Issue]) -> JsValue {
    let array = Array::new();
    for issue in issues {
        let (path, code, message) = (&*issue.path, issue.code.as_str(), &*issue.message);
        array.push(&object(&[
            ("path", path.into()),
            ("code", code.into()),
            ("message", message.into()),
        ]));
    }
    array.into()
}

/// A fresh plain object of `fields`, leaving out the undefined ones.
pub(crate) fn object(fields: &[(&str, JsValue)]) -> Object {
    let object = Object::new();
    for (key, value) in fields.iter().filter(|(_, value)| !value.is_undefined()) {
        let _ = Reflect::set(&object, &(*key).into(), value);
    }
    object
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
