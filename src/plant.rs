//! The contract's plant as a JavaScript object: one function builds `{ id?, name, tag? }` for the
//! JS API (a created Plant, a checked NewPlant) and for the outbox's records, and for a Rust app
//! that hands a plant to JavaScript.

use js_sys::Object;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// A fresh plain object `{ id, name, tag }`: `id` when given (a number, a BigInt or a string, as
/// the reader needs it), `tag` when there is one.
///
/// ```no_run
/// # use plant_store_client::plant_object;
/// let fern = plant_object(Some(&42.into()), "Fern", None); // { id: 42, name: "Fern" }
/// ```
pub fn plant_object(id: Option<&JsValue>, name: &str, tag: Option<&str>) -> Object {
    let object = Object::new().unchecked_into::<Named>();
    if let Some(id) = id {
        object.set_id(id);
    }
    object.set_name(name);
    if let Some(tag) = tag {
        object.set_tag(tag);
    }
    object.into()
}

#[wasm_bindgen]
extern "C" {
    /// A plant being made, through setters whose property names are in the glue rather than
    /// passed on each call.
    #[wasm_bindgen(extends = Object)]
    type Named;
    #[wasm_bindgen(method, setter)]
    fn set_id(this: &Named, id: &JsValue);
    #[wasm_bindgen(method, setter)]
    fn set_name(this: &Named, name: &str);
    #[wasm_bindgen(method, setter)]
    fn set_tag(this: &Named, tag: &str);
}
