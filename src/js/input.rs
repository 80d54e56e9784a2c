//! A NewPlant from JavaScript: read once, without trusting it, into the model's input; the model's
//! rules then judge it, every field at once.
//!
//! Own properties only, so a value inherited from a polluted `Object.prototype` is not the
//! caller's; every getter or Proxy trap that throws becomes an `unreadable` issue; nothing is
//! coerced. Each field is read once, so the value judged is the value sent.
//!
//! By hand, not with serde-wasm-bindgen: it reads fields through the prototype chain, never sees
//! unknown keys, replaces a lone surrogate with U+FFFD without a word, and stops at the first
//! error, where the contract's rules report every issue. (It also needs std; see `output`.)

use super::output::names;
use crate::sys;
use alloc::string::String;
use alloc::vec::Vec;
use js_sys::Reflect;
use plant_store_model::{validate_new_plant, Field, Issue, IssueCode, NewPlant, RawNewPlant};
use wasm_bindgen::JsValue;

/// A NewPlant candidate as read: what the rules judge, and the values themselves.
pub(crate) struct Reading {
    raw: RawNewPlant,
    id: JsValue,
    name: JsValue,
    tag: JsValue,
}

impl Reading {
    /// Reads `value`; a value that is not a plain object, or whose keys cannot be listed, is one
    /// issue about the whole.
    pub(crate) fn new(value: &JsValue) -> Result<Reading, Vec<Issue>> {
        plain(value).map_err(|got| alloc::vec![Issue::not_an_object(got)])?;
        let keys = sys::keys(value).map_err(|_| {
            alloc::vec![Issue {
                path: String::new(),
                code: IssueCode::Unreadable,
                message: "the NewPlant's keys could not be listed: listing them threw".into(),
            }]
        })?;
        let (listed, unknown) = sort_keys(&keys);
        let names = names();
        let [id, name, tag] = [&names.id, &names.name, &names.tag];
        let (id, id_field) = read_field(value, id, listed[0], true);
        let (name, name_field) = read_field(value, name, listed[1], false);
        let (tag, tag_field) = read_field(value, tag, listed[2], false);
        Ok(Reading {
            raw: RawNewPlant {
                id: id_field,
                name: name_field,
                tag: tag_field,
                unknown,
            },
            id,
            name,
            tag,
        })
    }

    /// The NewPlant, or every issue.
    pub(crate) fn judge(self) -> Result<NewPlant, Vec<Issue>> {
        validate_new_plant(self.raw)
    }

    /// For `validateNewPlant`: a fresh `{ id, name, tag? }` when valid (`id` keeps its type;
    /// -0 becomes 0), or every issue.
    pub(crate) fn value(self) -> Result<JsValue, Vec<Issue>> {
        let Reading { raw, id, name, tag } = self;
        validate_new_plant(raw)?;
        // -0 is 0: a fresh value, not the caller's -0.
        let id = match id.as_f64() {
            Some(0.0) => JsValue::from_f64(0.0),
            _ => id,
        };
        let names = names();
        let fields = [(&names.id, &id), (&names.name, &name), (&names.tag, &tag)];
        let fields = if tag.is_undefined() {
            &fields[..2]
        } else {
            &fields[..]
        };
        Ok(super::output::object(fields).into())
    }
}

/// The keys of a NewPlant, in the order of its fields.
const FIELDS: [&str; 3] = ["id", "name", "tag"];

/// Which fields `keys` names, and the keys that are none of them. The keys come over as one string
/// (`keys.join()`), split here: exact when there are as many parts as keys, since a key with a
/// comma would make more. Otherwise, and whenever there are unknown keys to report, one by one.
fn sort_keys(keys: &js_sys::Array) -> ([bool; 3], Vec<String>) {
    let mut listed = [false; 3];
    let (count, joined) = sys::count_and_join(keys);
    let joined = joined.as_string().unwrap_or_default();
    let parts = if joined.is_empty() {
        0
    } else {
        joined.split(',').count()
    };
    if parts == count as usize {
        let known = joined
            .split(',')
            .all(|key| match FIELDS.iter().position(|f| *f == key) {
                Some(at) => !core::mem::replace(&mut listed[at], true),
                None => false,
            });
        if known {
            return (listed, Vec::new());
        }
    }
    listed = [false; 3];
    let mut unknown = Vec::new();
    for key in sys::strings(keys) {
        match FIELDS.iter().position(|field| *field == key) {
            Some(at) => listed[at] = true,
            None => unknown.push(key),
        }
    }
    (listed, unknown)
}

/// Whether `value` is a plain object: its prototype is `null` or a realm's `Object.prototype`
/// (whose own prototype is `null`). If not, what it is, in words.
pub(crate) fn plain(value: &JsValue) -> Result<(), &'static str> {
    if !value.is_object() {
        return Err(sys::type_name(value));
    }
    match sys::prototype_of(value) {
        Ok(proto) if proto.is_null() || proto == names().object_prototype => return Ok(()),
        Ok(proto) => {
            if matches!(sys::prototype_of(&proto), Ok(up) if up.is_null()) {
                return Ok(());
            }
        }
        Err(_) => {
            return Err(match sys::is_array(value) {
                Err(_) => "a revoked Proxy",
                Ok(_) => "an object whose prototype cannot be read",
            })
        }
    }
    Err(match sys::is_array(value) {
        Ok(true) => "array",
        Err(_) => "a revoked Proxy",
        Ok(false) => "an object that is not plain (a class instance, Date, Map, …)",
    })
}

/// One field: its value (undefined when absent or unreadable) and what the rules make of it.
/// `listed`: `Object.keys` named it, so it is an own property. `id`: numbers are the likely kind.
fn read_field(object: &JsValue, key: &JsValue, listed: bool, id: bool) -> (JsValue, Field) {
    let own = listed || {
        match sys::has_own(object, key) {
            Ok(own) => own,
            // A Proxy trap threw: as unreadable as a throwing getter.
            Err(_) => return (JsValue::UNDEFINED, Field::Unreadable),
        }
    };
    if !own {
        return (JsValue::UNDEFINED, Field::Absent);
    }
    match Reflect::get(object, key) {
        Ok(value) => {
            let field = field(&value, id);
            (value, field)
        }
        Err(_) => (JsValue::UNDEFINED, Field::Unreadable),
    }
}

/// What the rules make of one value.
fn field(value: &JsValue, id: bool) -> Field {
    if id {
        if let Some(number) = value.as_f64() {
            return Field::Number(number);
        }
        if value.is_bigint() {
            return i64::try_from(value.clone()).map_or(Field::IntOutOfRange, Field::Int);
        }
        if value.is_string() {
            // The rules name only its type.
            return Field::Str(String::new());
        }
    }
    match sys::well_formed_string(value) {
        Ok(text) => Field::Str(text),
        Err(None) => Field::MalformedStr,
        Err(Some(type_name)) => match type_name {
            "undefined" => Field::Absent,
            "null" => Field::Null,
            "boolean" => Field::Bool,
            "number" => Field::Number(value.as_f64().unwrap_or(f64::NAN)),
            "bigint" => i64::try_from(value.clone()).map_or(Field::IntOutOfRange, Field::Int),
            other => Field::Other(other),
        },
    }
}
