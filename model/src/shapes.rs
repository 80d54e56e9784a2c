//! The three shapes of the contract, their serde form and their JSON form.
//!
//! The serde derives are the one definition shared by the client, the server and any Rust user:
//! `tag` is left out when absent, and reading refuses `tag: null` (the contract says "string") and,
//! as serde's derive does, a field given twice. Fields the contract does not name are ignored in a
//! Plant and an Error (a server may add some) and refused in a NewPlant.
//!
//! A response body is read by [`Plant::from_json`] and [`ApiError::from_json`] (through
//! [`crate::json::members`]) as strictly as serde_json reads these derives, with no serde_json in
//! the wasm client.

use crate::json::{self, BodyError, Member};
use alloc::string::String;
use serde::{Deserialize, Deserializer, Serialize};

/// The request body of plant creation: a Plant plus its `id`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewPlant {
    /// Identification number of the plant (int64; written to JSON with all its digits).
    pub id: i64,
    /// The name of the plant.
    pub name: String,
    /// Tag that specifies the type of the plant; left out of the JSON when absent.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub tag: Option<String>,
}

/// The success body of plant creation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plant {
    /// The name of the plant.
    pub name: String,
    /// Tag that specifies the type of the plant.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
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

/// A string member: `Some` when present once and well-formed, `None` when absent and not
/// `required`, or why not.
fn string(
    member: Member,
    field: &'static str,
    required: bool,
) -> Result<Option<String>, BodyError> {
    match member {
        Member::Str(text) => Ok(Some(text)),
        Member::LoneSurrogate => Err(BodyError::LoneSurrogate(field)),
        Member::Absent if !required => Ok(None),
        Member::Repeated => Err(BodyError::Repeated(field)),
        member => Err(BodyError::Shape(match (field, member) {
            ("name", Member::Absent) => "name is missing",
            ("message", Member::Absent) => "message is missing",
            ("name", _) => "name is not a string",
            ("tag", _) => "tag is not a string",
            _ => "message is not a string",
        })),
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

impl Plant {
    /// Reads a Plant from a response body as strictly as serde_json reads the derive: `name` a
    /// string, `tag` a string or absent, each once and well-formed; other members ignored.
    ///
    /// # Errors
    /// What is wrong, naming the field, or where the body stops being JSON.
    pub fn from_json(body: &[u8]) -> Result<Plant, BodyError> {
        let [name, tag] = json::members(body, ["name", "tag"])?;
        Ok(Plant {
            name: string(name, "name", true)?.unwrap_or_default(),
            tag: string(tag, "tag", false)?,
        })
    }
}

impl ApiError {
    /// Reads an Error from a response body: `error` an integer that fits an int32, `message` a
    /// string, each once and well-formed; other members ignored.
    ///
    /// # Errors
    /// What is wrong, naming the field, or where the body stops being JSON.
    pub fn from_json(body: &[u8]) -> Result<ApiError, BodyError> {
        let [error, message] = json::members(body, ["error", "message"])?;
        let error = match error {
            Member::Int(n) => {
                i32::try_from(n).map_err(|_| BodyError::Shape("error is not an int32"))?
            }
            Member::Absent => return Err(BodyError::Shape("error is missing")),
            Member::Repeated => return Err(BodyError::Repeated("error")),
            _ => return Err(BodyError::Shape("error is not an integer")),
        };
        let message = string(message, "message", true)?.unwrap_or_default();
        Ok(ApiError { error, message })
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;

    fn why(e: BodyError) -> String {
        let mut why = String::new();
        e.describe(&mut why);
        why
    }

    #[test]
    fn new_plant_json_keeps_every_digit_of_the_id() {
        let p = NewPlant { id: i64::MAX, name: "Fern".into(), tag: None };
        assert_eq!(p.to_json(), r#"{"id":9223372036854775807,"name":"Fern"}"#);
        let p = NewPlant { id: i64::MIN, name: "\"q\"\n".into(), tag: Some("t".into()) };
        assert_eq!(p.to_json(), r#"{"id":-9223372036854775808,"name":"\"q\"\n","tag":"t"}"#);
    }

    /// The reader gives the answer serde_json gives over the derives: the same bodies accepted, the
    /// same Plant. (They part on a JSON array, which serde's derive reads as the fields in order and
    /// the contract does not allow, and on a lone surrogate, which both refuse for their reasons.)
    #[test]
    fn plant_reading_agrees_with_serde_json_on_the_derive() {
        for body in [
            r#"{"name":"Fern"}"#,
            r#"{"name":"Fern","tag":"x","id":3,"extra":[1,{"a":null}]}"#,
            r#"{"tag":"x","name":"F\u00e9rn \ud83c\udf3f \/"}"#,
            r#"{"name":""}"#,
            r#"{"name":null}"#,
            r#"{"name":"a","tag":null}"#,
            r#"{"name":"a","tag":5}"#,
            r#"{"tag":"x"}"#,
            r#"{"name":"a","name":"b"}"#,
            r#"{"name":"a","\u006eame":"b"}"#,
            r#"{"name":"a","tag":"x","tag":"x"}"#,
            r#"{"x":1,"name":"a","x":2}"#,
            r#"{"name":"a"} trailing"#,
            r#"{"name":"a\u0000b\n"}"#,
            r#"{"name":"\ud800"}"#,
            "",
            "<html>",
        ] {
            let ours = Plant::from_json(body.as_bytes()).ok();
            let theirs = serde_json::from_str::<Plant>(body).ok();
            assert_eq!(ours, theirs, "{body}");
        }
        assert!(Plant::from_json(br#"["name"]"#).is_err());
        assert!(serde_json::from_str::<Plant>(r#"["name"]"#).is_ok());
    }

    #[test]
    fn plant_errors_name_the_field_or_the_byte() {
        for (body, reason) in [
            (r#"{"name":"a","name":"b"}"#, "name appears more than once"),
            (r#"{"name":"a","\u006eame":"a"}"#, "name appears more than once"),
            (r#"{"tag":"x","name":"a","tag":"x"}"#, "tag appears more than once"),
            (r#"{"name":"a","tag":null}"#, "tag is not a string"),
            (r#"{"name":5}"#, "name is not a string"),
            (r#"{"tag":"t"}"#, "name is missing"),
            (r#"[1]"#, "not a JSON object"),
            (
                r#"{"name":"\ud800"}"#,
                "name holds an escaped lone surrogate, not well-formed Unicode",
            ),
            (r#"{"name":s3cret}"#, "not JSON (at byte 8)"),
        ] {
            assert_eq!(why(Plant::from_json(body.as_bytes()).unwrap_err()), reason, "{body}");
        }
        assert_eq!(
            why(Plant::from_json(b"{\"name\":\"\xff\"}").unwrap_err()),
            "not UTF-8 (at byte 9)"
        );
        // A repeated key no shape reads is left alone, as RFC 8259 allows it.
        assert_eq!(
            Plant::from_json(br#"{"x":1,"name":"Fern","x":[2],"x":{"y":3}}"#),
            Ok(Plant { name: "Fern".into(), tag: None })
        );
    }

    #[test]
    fn api_error_needs_both_fields_and_an_int32() {
        let read = |body: &str| ApiError::from_json(body.as_bytes());
        assert_eq!(
            read(r#"{"error":3,"message":"dup"}"#),
            Ok(ApiError { error: 3, message: "dup".into() })
        );
        assert_eq!(
            read(r#"{"message":"m","error":-2147483648,"x":1.5}"#).map(|e| e.error),
            Ok(i32::MIN)
        );
        for body in [
            r#"{"error":3}"#,
            r#"{"message":"m"}"#,
            r#"{"error":2147483648,"message":"m"}"#,
            r#"{"error":"3","message":"m"}"#,
            r#"{"error":1.5,"message":"m"}"#,
            r#"{"error":1,"message":"a","message":"b"}"#,
            r#"{"error":1,"message":null}"#,
        ] {
            assert!(read(body).is_err(), "{body}");
            assert_eq!(read(body).ok(), serde_json::from_str::<ApiError>(body).ok(), "{body}");
        }
    }

    /// The hand-written request body is byte for byte what serde_json writes from the derive.
    #[test]
    fn to_json_is_what_serde_json_writes() {
        for plant in [
            NewPlant { id: i64::MAX, name: "Fern".into(), tag: None },
            NewPlant {
                id: i64::MIN,
                name: "\"q\"\n\u{0}\u{1f}\u{7f}é🌿\u{2028}".into(),
                tag: Some(String::new()),
            },
            NewPlant { id: 0, name: String::new(), tag: Some("t\\/".into()) },
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
}
