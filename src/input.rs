//! Reading caller values without trusting them: every read that can run caller code (a getter, a
//! Proxy trap) is caught, and nothing is coerced. Options are read here; a NewPlant is read by
//! `Reading` in js/runtime.js (one pass, no strings copied into wasm) and judged here.

use crate::error::Error;
use crate::js;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use js_sys::{JsString, Reflect};
use plant_store_model::{validate_new_plant, Field, Issue, IssueCode, RawNewPlant};
use wasm_bindgen::{JsCast, JsValue};

/// A JS object known to be plain: its prototype is `null` or a realm's `Object.prototype`.
#[derive(Debug)]
pub struct PlainObject<'a>(&'a JsValue);

impl<'a> PlainObject<'a> {
    /// Checks that `value` is a plain object.
    ///
    /// # Errors
    /// A phrase naming what the value is instead ("null", "array", "a Date or class instance", …).
    pub fn new(value: &'a JsValue) -> Result<PlainObject<'a>, &'static str> {
        if !value.is_object() {
            return Err(type_name(value));
        }
        match js::is_array(value) {
            Ok(false) => {}
            Ok(true) => return Err("array"),
            Err(_) => return Err("a revoked Proxy"),
        }
        // A plain object's prototype is null or has no prototype itself (Object.prototype of any realm).
        let proto =
            js::prototype_of(value).map_err(|_| "an object whose prototype cannot be read")?;
        if proto.is_null() || js::prototype_of(&proto).is_ok_and(|p| p.is_null()) {
            Ok(PlainObject(value))
        } else {
            Err("an object that is not plain (a class instance, Date, Map, …)")
        }
    }

    /// Its own enumerable string keys.
    ///
    /// # Errors
    /// When listing them threw (a Proxy's `ownKeys` trap).
    pub fn keys(&self) -> Result<Vec<String>, JsValue> {
        let keys = js::object_keys(self.0)?;
        Ok(keys.iter().filter_map(|k| k.as_string()).collect())
    }

    /// The value of the own property `key` (`undefined` when it is not an own property: a value
    /// inherited from a polluted `Object.prototype` is not the caller's).
    ///
    /// # Errors
    /// When reading it threw (a getter, or a Proxy's `getOwnPropertyDescriptor` or `get` trap).
    pub fn get(&self, key: &str) -> Result<JsValue, JsValue> {
        let key = JsValue::from_str(key);
        if Reflect::get_own_property_descriptor(self.0.unchecked_ref::<js_sys::Object>(), &key)?
            .is_undefined()
        {
            return Ok(JsValue::UNDEFINED);
        }
        Reflect::get(self.0, &key)
    }
}

/// `typeof`, in words, for messages.
pub fn type_name(value: &JsValue) -> &'static str {
    if value.is_undefined() {
        "undefined"
    } else if value.is_null() {
        "null"
    } else if value.is_string() {
        "string"
    } else if value.as_f64().is_some() {
        "number"
    } else if value.is_bigint() {
        "bigint"
    } else if value.as_bool().is_some() {
        "boolean"
    } else if value.is_symbol() {
        "symbol"
    } else if value.is_function() {
        "function"
    } else if js::is_array(value).unwrap_or(false) {
        "array"
    } else {
        "object"
    }
}

/// A string, unless it holds a lone surrogate (which `as_string` would silently replace).
pub fn well_formed_string(value: &JsValue) -> Option<Result<String, ()>> {
    let s = value.dyn_ref::<JsString>()?;
    Some(if s.is_well_formed() {
        s.as_string().ok_or(())
    } else {
        Err(())
    })
}

// What `Reading` (js/runtime.js) found, packed in its `state`: the root in bits 0-7, the kinds of
// id, name and tag in bits 8-11, 12-15 and 16-19, and a flag for keys the contract does not name.
// The numbers are the same in js/runtime.js.
const ROOT_PLAIN: u32 = 0;
const UNKNOWN_KEYS: u32 = 1 << 20;

/// What the root value is when it is not a plain object, by its `Reading` code.
fn root_type(code: u32) -> &'static str {
    match code {
        1 => "undefined",
        2 => "null",
        3 => "boolean",
        4 => "number",
        5 => "bigint",
        6 => "string",
        7 => "symbol",
        8 => "function",
        9 => "array",
        10 => "a revoked Proxy",
        11 => "an object whose prototype cannot be read",
        _ => "an object that is not plain (a class instance, Date, Map, …)",
    }
}
const ROOT_KEYS_UNLISTABLE: u32 = 13;

/// One field, from its `Reading` kind. The rules never look at a string's content (only whether it
/// is well-formed), so a string stays in JavaScript and is written to the body from there. Only the
/// id's number is read (`value`); for name and tag it does not matter which number they hold.
fn field(kind: u32, value: Option<&js::Reading>) -> Field {
    match kind {
        0 => Field::Absent,
        1 => Field::Null,
        2 => Field::Bool,
        3 => Field::Number(value.map_or(0.0, js::Reading::id_number)),
        4 => Field::Int(value.map_or(0, js::Reading::id_int)),
        5 => Field::IntOutOfRange,
        6 => Field::Str(String::new()),
        7 => Field::MalformedStr,
        8 => Field::Unreadable,
        9 => Field::Other("symbol"),
        10 => Field::Other("function"),
        11 => Field::Other("array"),
        _ => Field::Other("object"),
    }
}

/// Judges a NewPlant candidate read by `Reading`: the contract's rules, every issue at once.
///
/// # Errors
/// A `validation` error listing the issues.
pub fn judge(reading: &js::Reading) -> Result<(), Error> {
    let state = reading.state();
    match state & 0xff {
        ROOT_PLAIN => {}
        ROOT_KEYS_UNLISTABLE => {
            return Err(Error::validation(vec![Issue {
                path: String::new(),
                code: IssueCode::Unreadable,
                message: "the NewPlant's keys could not be listed: listing them threw".into(),
            }]))
        }
        root => {
            return Err(Error::validation(vec![Issue::not_an_object(root_type(
                root,
            ))]))
        }
    }
    let unknown = if state & UNKNOWN_KEYS == 0 {
        Vec::new()
    } else {
        reading
            .unknown_keys()
            .iter()
            .map(|k| k.as_string().unwrap_or_default())
            .collect()
    };
    let raw = RawNewPlant {
        id: field(state >> 8 & 0xf, Some(reading)),
        name: field(state >> 12 & 0xf, None),
        tag: field(state >> 16 & 0xf, None),
        unknown,
    };
    validate_new_plant(raw).map(drop).map_err(Error::validation)
}
