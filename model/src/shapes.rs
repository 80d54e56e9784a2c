//! The three shapes of the contract, their serde form and their JSON form.
//!
//! The serde derives are the one definition shared by the client, the server and any Rust user:
//! `tag` is left out when absent, and reading refuses `tag: null` (the contract says "string") and,
//! as serde's derive does, a field given twice. Fields the contract does not name are ignored in a
//! Plant and an Error (a server may add some) and refused in a NewPlant.
//!
//! [`Plant::from_json`] and [`ApiError::from_json`] read a body with [`crate::json`], as strictly
//! as `serde_json` reads these derives (a test holds the two to the same answers), in a fraction of
//! the size for the wasm client.

use crate::json::{self, Field, JsonError, Value};
use alloc::borrow::Cow;
use alloc::string::String;
use serde::{Deserialize, Deserializer, Serialize};

/// The request body of plant creation: a Plant plus its `id`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewPlant {
    /// Identification number of the plant (int64; written to JSON with all its digits).
    pub id: i64,
    /// The name of the plant.
    pub name: String,
    /// Tag that specifies the type of the plant; left out of the JSON when absent.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub tag: Option<String>,
}

/// The success body of plant creation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plant {
    /// The name of the plant.
    pub name: String,
    /// Tag that specifies the type of the plant.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub tag: Option<String>,
}

/// The failure body: a numeric error value and a message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiError {
    /// Numeric error value (int32).
    pub error: i32,
    /// Error message text.
    pub message: String,
}

/// An optional string that, when present, must be a string: `null` is refused, not read as absent
/// (serde reads `null` into `Option` as `None` by default). Absence is `#[serde(default)]`'s.
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    String::deserialize(deserializer).map(Some)
}

/// Why a body is not the shape expected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyError {
    /// Not one well-formed JSON object.
    Json(JsonError),
    /// A JSON object, but a field is missing or of the wrong type.
    Shape(&'static str),
    /// A JSON object, but the field it names appears more than once.
    Repeated(&'static str),
}

impl BodyError {
    /// Appends a sentence saying what is wrong.
    pub fn describe(&self, out: &mut String) {
        match self {
            BodyError::Json(e) => {
                out.push_str("not JSON: ");
                out.push_str(e.reason);
                out.push_str(" at byte ");
                json::write_int(out, e.at as i64);
            }
            BodyError::Shape(why) => out.push_str(why),
            BodyError::Repeated(field) => {
                out.push_str(field);
                out.push_str(" appears more than once");
            }
        }
    }
}

impl NewPlant {
    /// The JSON request body, with `id` as a JSON integer carrying every digit.
    pub fn to_json(&self) -> String {
        let mut out =
            String::with_capacity(32 + self.name.len() + self.tag.as_ref().map_or(0, String::len));
        out.push_str("{\"id\":");
        json::write_int(&mut out, self.id);
        out.push_str(",\"name\":");
        json::write_string(&mut out, &self.name);
        if let Some(tag) = &self.tag {
            out.push_str(",\"tag\":");
            json::write_string(&mut out, tag);
        }
        out.push('}');
        out
    }
}

/// The value of the field `key`, if present. A field that appears twice is refused: which value is
/// meant is ambiguous (`JSON.parse` keeps the last, other readers the first). A repeated key that no
/// shape reads is left alone, as RFC 8259 allows it.
fn once<'a>(field: Field<'a>, key: &'static str) -> Result<Option<Value<'a>>, BodyError> {
    match field {
        Field::Absent => Ok(None),
        Field::Once(value) => Ok(Some(value)),
        Field::Repeated => Err(BodyError::Repeated(key)),
    }
}

/// The name and tag of a Plant body, borrowed from it where they hold no escape.
fn plant_fields(bytes: &[u8]) -> Result<(Cow<'_, str>, Option<Cow<'_, str>>), BodyError> {
    let [name, tag] = json::read_fields(bytes, &["name", "tag"]).map_err(BodyError::Json)?;
    let name = match once(name, "name")? {
        Some(Value::Str(name)) => name,
        Some(_) => return Err(BodyError::Shape("name is not a string")),
        None => return Err(BodyError::Shape("name is missing")),
    };
    let tag = match once(tag, "tag")? {
        Some(Value::Str(tag)) => Some(tag),
        Some(_) => return Err(BodyError::Shape("tag is not a string")),
        None => None,
    };
    Ok((name, tag))
}

impl Plant {
    /// Reads a Plant from a JSON body.
    ///
    /// # Errors
    /// When the bytes are not one JSON object or not a Plant.
    pub fn from_json(bytes: &[u8]) -> Result<Plant, BodyError> {
        let (name, tag) = plant_fields(bytes)?;
        Ok(Plant {
            name: name.into_owned(),
            tag: tag.map(Cow::into_owned),
        })
    }

    /// Checks that a JSON body is a Plant, as [`Plant::from_json`] would, without copying its
    /// strings.
    ///
    /// # Errors
    /// When the bytes are not one JSON object or not a Plant.
    pub fn check_json(bytes: &[u8]) -> Result<(), BodyError> {
        plant_fields(bytes).map(drop)
    }
}

impl ApiError {
    /// Reads an Error from a JSON body.
    ///
    /// # Errors
    /// When the bytes are not one JSON object or not Error-shaped (`error` must fit an int32).
    pub fn from_json(bytes: &[u8]) -> Result<ApiError, BodyError> {
        let [error, message] =
            json::read_fields(bytes, &["error", "message"]).map_err(BodyError::Json)?;
        let error = match once(error, "error")? {
            Some(Value::Int(n)) => {
                i32::try_from(n).map_err(|_| BodyError::Shape("error is not an int32"))?
            }
            Some(_) => return Err(BodyError::Shape("error is not an integer")),
            None => return Err(BodyError::Shape("error is missing")),
        };
        let message = match once(message, "message")? {
            Some(Value::Str(message)) => message.into_owned(),
            Some(_) => return Err(BodyError::Shape("message is not a string")),
            None => return Err(BodyError::Shape("message is missing")),
        };
        Ok(ApiError { error, message })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_plant_json_keeps_every_digit_of_the_id() {
        let p = NewPlant {
            id: i64::MAX,
            name: "Fern".into(),
            tag: None,
        };
        assert_eq!(p.to_json(), r#"{"id":9223372036854775807,"name":"Fern"}"#);
        let p = NewPlant {
            id: i64::MIN,
            name: "\"q\"\n".into(),
            tag: Some("t".into()),
        };
        assert_eq!(
            p.to_json(),
            r#"{"id":-9223372036854775808,"name":"\"q\"\n","tag":"t"}"#
        );
    }

    #[test]
    fn plant_is_read_strictly() {
        assert_eq!(
            Plant::from_json(br#"{"name":"Fern","tag":"x","id":3,"extra":[1]}"#).unwrap(),
            Plant {
                name: "Fern".into(),
                tag: Some("x".into())
            }
        );
        assert_eq!(Plant::from_json(br#"{"name":""}"#).unwrap().tag, None);
        for bad in [
            &br#"{"name":null}"#[..],
            br#"{"tag":"x"}"#,
            br#"{"name":"a","tag":null}"#,
            br#"{"name":"a","tag":5}"#,
            br#"{"name":"a","name":"b"}"#,
            br#"{"name":"\ud800"}"#,
            br#"["name"]"#,
            b"",
            b"<html>",
            br#"{"name":"a"} trailing"#,
        ] {
            assert!(
                Plant::from_json(bad).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        let mut why = String::new();
        Plant::from_json(br#"{"name":"a","tag":null}"#)
            .unwrap_err()
            .describe(&mut why);
        assert_eq!(why, "tag is not a string");
        why.clear();
        Plant::from_json(b"{\"name\" 1}")
            .unwrap_err()
            .describe(&mut why);
        assert_eq!(why, "not JSON: expected ':' after a key at byte 8");
    }

    #[test]
    fn a_field_that_appears_twice_is_refused_and_another_repeated_key_is_not() {
        for (body, reason) in [
            (
                &br#"{"name":"a","name":"b"}"#[..],
                "name appears more than once",
            ),
            // Keys are compared once decoded: \u006e is "n".
            (
                br#"{"name":"a","\u006eame":"a"}"#,
                "name appears more than once",
            ),
            (
                br#"{"tag":"x","name":"a","tag":"x"}"#,
                "tag appears more than once",
            ),
        ] {
            let mut why = String::new();
            Plant::from_json(body).unwrap_err().describe(&mut why);
            assert_eq!(why, reason, "{}", String::from_utf8_lossy(body));
            assert_eq!(Plant::check_json(body).map_err(|_| ()), Err(()));
        }
        let body = br#"{"x":1,"name":"Fern","x":[2],"x":{"y":3}}"#;
        assert_eq!(Plant::from_json(body).unwrap().name, "Fern");
        assert_eq!(Plant::check_json(body), Ok(()));
        let body = br#"{"error":1,"message":"a","message":"b"}"#;
        let mut why = String::new();
        ApiError::from_json(body).unwrap_err().describe(&mut why);
        assert_eq!(why, "message appears more than once");
    }

    #[test]
    fn check_json_agrees_with_from_json() {
        for body in [
            &br#"{"name":"Fern","tag":"x"}"#[..],
            br#"{"name":"F\u00e9rn \ud83c\udf3f","tag":"a\"b"}"#,
            br#"{"name":"a","tag":null}"#,
            br#"{"tag":"x"}"#,
            br#"{"name":"\ud800"}"#,
            b"{}",
            b"[]",
        ] {
            assert_eq!(
                Plant::check_json(body),
                Plant::from_json(body).map(drop),
                "{}",
                String::from_utf8_lossy(body)
            );
        }
    }

    /// The serde derives, read by serde_json, and the strict reader agree on every body here: the
    /// same accepted, the same values. They part where serde_json is stricter than RFC 8259 in
    /// members no shape reads (numbers beyond f64, nesting past 64), and on a JSON array, which
    /// serde's derive reads as the fields in order and the contract does not allow.
    #[test]
    fn the_strict_reader_agrees_with_serde_json_on_the_derives() {
        extern crate std;
        let plants = [
            &br#"{"name":"Fern"}"#[..],
            br#"{"name":"Fern","tag":"x","id":3,"extra":[1,{"a":null}]}"#,
            br#"{"tag":"x","name":"F\u00e9rn \ud83c\udf3f"}"#,
            br#"{"name":""}"#,
            br#"{"name":null}"#,
            br#"{"name":"a","tag":null}"#,
            br#"{"name":"a","tag":5}"#,
            br#"{"tag":"x"}"#,
            br#"{"name":"a","name":"b"}"#,
            br#"{"name":"a","\u006eame":"b"}"#,
            br#"{"name":"a","tag":"x","tag":"x"}"#,
            br#"{"x":1,"name":"a","x":2}"#,
            br#"{"name":"\ud800"}"#,
            br#"{"name":"\udc00x"}"#,
            br#"{"name":"a"} trailing"#,
            b"",
            b"<html>",
            b"{\"name\":\"caf\xe9\"}",
            br#"{"name":"a\u0000b\n"}"#,
        ];
        for body in plants {
            let ours = Plant::from_json(body).ok();
            let theirs = serde_json::from_slice::<Plant>(body).ok();
            assert_eq!(ours, theirs, "{}", String::from_utf8_lossy(body));
        }
        assert!(Plant::from_json(br#"["name"]"#).is_err());
        assert!(serde_json::from_slice::<Plant>(br#"["name"]"#).is_ok());
        let errors = [
            &br#"{"error":3,"message":"dup"}"#[..],
            br#"{"message":"m","error":-2147483648,"x":1.5}"#,
            br#"{"error":2147483648,"message":"m"}"#,
            br#"{"error":"3","message":"m"}"#,
            br#"{"error":1.5,"message":"m"}"#,
            br#"{"error":1e0,"message":"m"}"#,
            br#"{"error":3}"#,
            br#"{"error":1,"message":"a","message":"b"}"#,
            br#"{"error":1,"message":null}"#,
        ];
        for body in errors {
            let ours = ApiError::from_json(body).ok();
            let theirs = serde_json::from_slice::<ApiError>(body).ok();
            assert_eq!(ours, theirs, "{}", String::from_utf8_lossy(body));
        }
    }

    /// The hand-written request body is byte for byte what serde_json writes from the derive.
    #[test]
    fn to_json_is_what_serde_json_writes() {
        for plant in [
            NewPlant {
                id: i64::MAX,
                name: "Fern".into(),
                tag: None,
            },
            NewPlant {
                id: i64::MIN,
                name: "\"q\"\n\u{0}\u{1f}\u{7f}é🌿\u{2028}".into(),
                tag: Some(String::new()),
            },
            NewPlant {
                id: 0,
                name: String::new(),
                tag: Some("t\\/".into()),
            },
        ] {
            assert_eq!(plant.to_json(), serde_json::to_string(&plant).unwrap());
        }
        // And a NewPlant's serde form refuses what the rules refuse.
        for bad in [
            r#"{"id":1,"name":"a","tags":"x"}"#,
            r#"{"id":1,"name":"a","tag":null}"#,
            r#"{"id":1.5,"name":"a"}"#,
            r#"{"id":9223372036854775808,"name":"a"}"#,
            r#"{"name":"a"}"#,
        ] {
            assert!(serde_json::from_str::<NewPlant>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn api_error_needs_both_fields_and_an_int32() {
        assert_eq!(
            ApiError::from_json(br#"{"error":3,"message":"dup"}"#).unwrap(),
            ApiError {
                error: 3,
                message: "dup".into()
            }
        );
        for bad in [
            &br#"{"error":3}"#[..],
            br#"{"message":"m"}"#,
            br#"{"error":2147483648,"message":"m"}"#,
            br#"{"error":"3","message":"m"}"#,
            br#"{"error":1.5,"message":"m"}"#,
        ] {
            assert!(
                ApiError::from_json(bad).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }
}
