//! A complete response body read with the host's `JSON.parse`, exact for the contract's answers
//! (a Plant and an Error hold no int64), and the created plant it holds.
//!
//! What `JSON.parse` does not report (a repeated member, an escaped lone surrogate) the model's
//! scan of the same bytes does (`plant_store_model::json::members`, judged in `answer`).

use crate::answer::Parsed;
use crate::error::js_message;
use core::cell::OnceCell;
use js_sys::{Reflect, JSON};
use plant_store_model::{BodyError, Plant};
use wasm_bindgen::JsValue;

/// A body, parsed when first asked: UTF-8, then `JSON.parse`.
pub(crate) struct Body<'a> {
    bytes: &'a [u8],
    parsed: OnceCell<Result<JsValue, BodyError>>,
}

impl<'a> Body<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Body<'a> {
        Body {
            bytes,
            parsed: OnceCell::new(),
        }
    }

    fn parsed(&self) -> &Result<JsValue, BodyError> {
        self.parsed.get_or_init(|| {
            let text = core::str::from_utf8(self.bytes)
                .map_err(|e| BodyError::NotUtf8(e.valid_up_to()))?;
            JSON::parse(text).map_err(|e| BodyError::NotJson(js_message(&e)))
        })
    }

    /// The created plant of a body that `answer::outcome` accepted as a Plant.
    pub(crate) fn created(self, tag: bool) -> Created {
        Created {
            value: self
                .parsed
                .into_inner()
                .and_then(Result::ok)
                .unwrap_or(JsValue::NULL),
            tag,
        }
    }
}

impl Parsed for Body<'_> {
    fn not_json(&self) -> Option<BodyError> {
        self.parsed().as_ref().err().cloned()
    }

    fn string(&self, name: &str) -> alloc::string::String {
        match self.parsed() {
            Ok(value) => member(value, &name.into()).as_string().unwrap_or_default(),
            Err(_) => alloc::string::String::new(),
        }
    }
}

/// The member `name` of a parsed object: `JSON.parse` makes own properties, and the scan has
/// found the member there, so a plain read cannot reach the prototype.
fn member(value: &JsValue, name: &JsValue) -> JsValue {
    Reflect::get(value, name).unwrap_or(JsValue::UNDEFINED)
}

/// The plant the store created: its JSON as `JSON.parse` made it, its `name` and `tag` checked to
/// be well-formed strings. A Rust caller gets a [`Plant`]; a JS caller gets the same strings in a
/// fresh object, with no copy through wasm memory.
pub(crate) struct Created {
    value: JsValue,
    tag: bool,
}

impl Created {
    /// `name`, and `tag` when there is one, as JS strings.
    pub(crate) fn fields(&self, name: &JsValue, tag: &JsValue) -> (JsValue, Option<JsValue>) {
        let value = &self.value;
        (member(value, name), self.tag.then(|| member(value, tag)))
    }

    /// As the Rust API's [`Plant`].
    pub(crate) fn into_plant(self) -> Plant {
        let string = |name: &str| {
            member(&self.value, &name.into())
                .as_string()
                .unwrap_or_default()
        };
        Plant {
            name: string("name"),
            tag: self.tag.then(|| string("tag")),
        }
    }
}
