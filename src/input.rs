//! Reading caller values without trusting them: every read that can run caller code (a getter, a
//! Proxy trap) is caught, and nothing is coerced.

use crate::js;
use js_sys::{JsString, Reflect};
use plant_store_model::{Field, Issue, IssueCode, RawNewPlant};
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
        if Reflect::get_own_property_descriptor(self.0.unchecked_ref::<js_sys::Object>(), &key)?.is_undefined() {
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

fn field(read: Result<JsValue, JsValue>) -> Field {
    let Ok(value) = read else {
        return Field::Unreadable;
    };
    if value.is_undefined() {
        return Field::Absent;
    }
    if let Some(s) = well_formed_string(&value) {
        return s.map_or(Field::MalformedStr, Field::Str);
    }
    if let Some(n) = value.as_f64() {
        return Field::Number(n);
    }
    if value.is_bigint() {
        return i64::try_from(value).map_or(Field::IntOutOfRange, Field::Int);
    }
    match type_name(&value) {
        "null" => Field::Null,
        "boolean" => Field::Bool,
        other => Field::Other(other),
    }
}

/// What `validateNewPlant` and `createPlant` read from the caller's value.
#[derive(Debug)]
pub struct Input {
    /// The fields, ready for the rules.
    pub raw: RawNewPlant,
    /// Whether `id` was given as a BigInt, so a validated value hands it back the same way.
    pub id_is_bigint: bool,
}

/// Reads a NewPlant candidate.
///
/// # Errors
/// The issue when the value is not a plain object or its keys cannot be listed.
pub fn read_new_plant(value: &JsValue) -> Result<Input, Issue> {
    let object = PlainObject::new(value).map_err(Issue::not_an_object)?;
    let keys = object.keys().map_err(|_| Issue {
        path: String::new(),
        code: IssueCode::Unreadable,
        message: "the NewPlant's keys could not be listed: listing them threw".into(),
    })?;
    let unknown = keys
        .into_iter()
        .filter(|k| !matches!(k.as_str(), "id" | "name" | "tag"))
        .collect();
    let id = field(object.get("id"));
    let id_is_bigint = matches!(id, Field::Int(_) | Field::IntOutOfRange);
    let raw = RawNewPlant {
        id,
        name: field(object.get("name")),
        tag: field(object.get("tag")),
        unknown,
    };
    Ok(Input { raw, id_is_bigint })
}
