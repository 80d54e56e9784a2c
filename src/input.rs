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
    let raw = RawNewPlant {
        id: field(state >> 8 & 0xf, Some(reading)),
        name: field(state >> 12 & 0xf, None),
        tag: field(state >> 16 & 0xf, None),
        unknown,
    };
    validate_new_plant(raw).map(drop).map_err(Error::validation)
}
