//! Judging a NewPlant candidate. `Reading` (js/runtime.js) reads it once without trusting it (every
//! getter or Proxy trap that throws is caught, nothing is coerced, no string is copied into wasm)
//! and says what each field is; the model's rules decide here.

use crate::error::Error;
use crate::js;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use plant_store_model::{validate_new_plant, Field, Issue, IssueCode, RawNewPlant};

// What `Reading` (js/runtime.js) found, packed in its `state`: the root in bits 0-7, the kinds of
// id, name and tag in bits 8-11, 12-15 and 16-19, and a flag for keys the contract does not name.
// The numbers are the same in js/runtime.js.
const ROOT_PLAIN: u32 = 0;
const ROOT_KEYS_UNLISTABLE: u32 = 13;
const UNKNOWN_KEYS: u32 = 1 << 20;
// Kinds of a field whose value the rules read.
const NUMBER: u32 = 3;
const INT: u32 = 4;

/// One field, from its `Reading` kind. The rules never look at a string's content (only whether it
/// is well-formed), so a string stays in JavaScript and is written to the body from there. Only the
/// id's number (`number`, `int`) is read; for name and tag it does not matter which number they hold.
fn field(kind: u32, number: f64, int: i64) -> Field {
    match kind {
        0 => Field::Absent,
        1 => Field::Null,
        2 => Field::Bool,
        NUMBER => Field::Number(number),
        INT => Field::Int(int),
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

/// The candidate of a plain object's `state`: `id_number` is the id when it is a number,
/// `id_int` when it is a BigInt inside int64 (each is ignored otherwise).
fn raw(state: u32, id_number: f64, id_int: i64, unknown: Vec<String>) -> RawNewPlant {
    RawNewPlant {
        id: field(state >> 8 & 0xf, id_number, id_int),
        name: field(state >> 12 & 0xf, 0.0, 0),
        tag: field(state >> 16 & 0xf, 0.0, 0),
        unknown,
    }
}

/// Whether a `Reading`'s state and id make a valid NewPlant: the contract's rules, with numbers
/// only, for the call path. `judge` gives the issues when it is not.
pub fn is_valid(state: u32, id_number: f64, id_int: i64) -> bool {
    state & 0xff == ROOT_PLAIN
        && state & UNKNOWN_KEYS == 0
        && validate_new_plant(raw(state, id_number, id_int, Vec::new())).is_ok()
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
        _ => {
            let got = reading.root_phrase();
            return Err(Error::validation(vec![Issue::not_an_object(&got)]));
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
    let (id_number, id_int) = match state >> 8 & 0xf {
        NUMBER => (reading.id_number(), 0),
        INT => (0.0, reading.id_int()),
        _ => (0.0, 0),
    };
    validate_new_plant(raw(state, id_number, id_int, unknown))
        .map(drop)
        .map_err(Error::validation)
}
