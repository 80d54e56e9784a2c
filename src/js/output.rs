//! The shapes and errors of the Rust API as the JavaScript values the exports hand back: a Plant
//! as a fresh `{ name, tag? }`, issues as `[{ path, code, message }]`, an [`Error`] as a
//! `PlantStoreError`.
//!
//! By hand rather than with serde-wasm-bindgen, which needs std: the npm package is built
//! without it (see `bare`), and serde-wasm-bindgen with std costs the `.wasm` the figure in
//! docs/performance.md.

use crate::body::Created;
use crate::error::Error;
use crate::local::Global;
use js_sys::{Array, Object, Reflect};
use plant_store_model::Issue;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/js/error.js")]
extern "C" {
    /// `PlantStoreError`, the error class of `js/error.js`.
    pub type PlantStoreError;

    #[wasm_bindgen(constructor)]
    fn new(kind: &str, message: &str, details: &JsValue) -> PlantStoreError;

    /// The same class, re-exported by the generated module under its name. Imported as a
    /// function because wasm-bindgen writes an `unknown` type for a re-exported type; the class
    /// is declared in the TypeScript section of `js/mod.rs`.
    #[wasm_bindgen(reexport, skip_typescript, js_name = PlantStoreError)]
    fn plant_store_error_class();
}

/// Property names, each made once as a JS string.
pub(crate) struct Names {
    pub(crate) id: JsValue,
    pub(crate) name: JsValue,
    pub(crate) tag: JsValue,
    pub(crate) ok: JsValue,
    pub(crate) value: JsValue,
    pub(crate) issues: JsValue,
    path: JsValue,
    code: JsValue,
    message: JsValue,
    status: JsValue,
    cause: JsValue,
    /// This realm's `Object.prototype`: a plain object's prototype, checked without a second call.
    pub(crate) object_prototype: JsValue,
}

static NAMES: Global<Names> = Global::new();

pub(crate) fn names() -> &'static Names {
    NAMES.get(|| {
        let name = JsValue::from_str;
        Names {
            id: name("id"),
            name: name("name"),
            tag: name("tag"),
            ok: name("ok"),
            value: name("value"),
            issues: name("issues"),
            path: name("path"),
            code: name("code"),
            message: name("message"),
            status: name("status"),
            cause: name("cause"),
            object_prototype: crate::sys::prototype_of(&Object::new()).unwrap_or(JsValue::NULL),
        }
    })
}

/// A fresh plain object with `entries`.
pub(crate) fn object(entries: &[(&JsValue, &JsValue)]) -> Object {
    let object = Object::new();
    for (key, value) in entries {
        let _ = Reflect::set(&object, key, value);
    }
    object
}

/// The created Plant as a fresh `{ name, tag? }`.
pub(crate) fn plant(created: Created) -> JsValue {
    let names = names();
    match created.fields(&names.name, &names.tag) {
        (name, Some(tag)) => object(&[(&names.name, &name), (&names.tag, &tag)]),
        (name, None) => object(&[(&names.name, &name)]),
    }
    .into()
}

/// `[{ path, code, message }, …]`.
pub(crate) fn issues(issues: &[Issue]) -> JsValue {
    let names = names();
    let array = Array::new();
    for issue in issues {
        array.push(&object(&[
            (&names.path, &JsValue::from_str(&issue.path)),
            (&names.code, &JsValue::from_str(issue.code.as_str())),
            (&names.message, &JsValue::from_str(&issue.message)),
        ]));
    }
    array.into()
}

/// The `PlantStoreError` of `error`: its kind and message, and status, code, issues and cause
/// where they apply.
pub(crate) fn error(error: &Error) -> JsValue {
    let names = names();
    let details = Object::new();
    if let Some(status) = error.status() {
        let _ = Reflect::set(&details, &names.status, &status.into());
    }
    if let Some(code) = error.code() {
        let _ = Reflect::set(&details, &names.code, &code.into());
    }
    if !error.issues().is_empty() {
        let _ = Reflect::set(&details, &names.issues, &issues(error.issues()));
    }
    if let Some(cause) = error.cause() {
        let _ = Reflect::set(&details, &names.cause, cause);
    }
    PlantStoreError::new(error.kind().as_str(), error.message(), &details).into()
}
