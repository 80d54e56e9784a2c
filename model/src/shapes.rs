//! The three shapes of the contract, their serde form and their JSON form.
//!
//! The serde derives are the one definition shared by the client, the server and any Rust user:
//! `tag` is left out when absent, and reading refuses `tag: null` (the contract says "string") and,
//! as serde's derive does, a field given twice. Fields the contract does not name are ignored in a
//! Plant and an Error (a server may add some) and refused in a NewPlant.
//!
//! A response body is parsed by a full JSON parser (the host's `JSON.parse` in the wasm client);
//! [`Plant::check`] and [`ApiError::check`] judge its members, read by [`crate::json::members`],
//! as strictly as serde_json reads these derives.

use crate::json::{self, Member};
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodyError {
    /// Not UTF-8: the first bad byte is at this offset.
    NotUtf8(usize),
    /// Not JSON, as the parser said (its words).
    NotJson(String),
    /// JSON, but not an object, or a field is missing or of the wrong type.
    Shape(&'static str),
    /// The field it names appears more than once.
    Repeated(&'static str),
    /// The field it names holds an escaped lone surrogate (`"\ud800"`): not well-formed Unicode.
    LoneSurrogate(&'static str),
}

impl BodyError {
    /// Appends a sentence saying what is wrong.
    pub fn describe(&self, out: &mut String) {
        match self {
            BodyError::NotUtf8(at) => {
                out.push_str("not UTF-8 (at byte ");
                json::write_int(out, *at as i64);
                out.push(')');
            }
            BodyError::NotJson(why) => {
                out.push_str("not JSON: ");
                out.push_str(why);
            }
            BodyError::Shape(why) => out.push_str(why),
            BodyError::Repeated(field) => {
                out.push_str(field);
                out.push_str(" appears more than once");
            }
            BodyError::LoneSurrogate(field) => {
                out.push_str(field);
                out.push_str(" holds an escaped lone surrogate, not well-formed Unicode");
            }
        }
    }
}

/// A string member: present once and well-formed, or why not.
fn string(member: Member, field: &'static str, required: bool) -> Result<bool, BodyError> {
    match member {
        Member::String {
            lone_surrogate: false,
        } => Ok(true),
        Member::String {
            lone_surrogate: true,
        } => Err(BodyError::LoneSurrogate(field)),
        Member::Absent if !required => Ok(false),
        Member::Repeated => Err(BodyError::Repeated(field)),
        _ => Err(BodyError::Shape(match (field, member) {
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
    /// The members a Plant is read from, for [`json::members`].
    pub const MEMBERS: [&'static str; 2] = ["name", "tag"];

    /// Checks the members of a parsed body (`None`: not an object): `name` a string, `tag` a
    /// string or absent, each once and well-formed. Returns whether `tag` is there.
    ///
    /// # Errors
    /// What is wrong, naming the field.
    pub fn check(members: Option<[Member; 2]>) -> Result<bool, BodyError> {
        let [name, tag] = members.ok_or(BodyError::Shape("not a JSON object"))?;
        string(name, "name", true)?;
        string(tag, "tag", false)
    }
}

impl ApiError {
    /// The members an Error is read from, for [`json::members`].
    pub const MEMBERS: [&'static str; 2] = ["error", "message"];

    /// Checks the members of a parsed body (`None`: not an object) and returns its `error`:
    /// an integer that fits an int32, and `message` a string, each once and well-formed.
    ///
    /// # Errors
    /// What is wrong, naming the field.
    pub fn check(members: Option<[Member; 2]>) -> Result<i32, BodyError> {
        let [error, message] = members.ok_or(BodyError::Shape("not a JSON object"))?;
        let error = match error {
            Member::Int(n) => {
                i32::try_from(n).map_err(|_| BodyError::Shape("error is not an int32"))?
            }
            Member::Absent => return Err(BodyError::Shape("error is missing")),
            Member::Repeated => return Err(BodyError::Repeated("error")),
            _ => return Err(BodyError::Shape("error is not an integer")),
        };
        string(message, "message", true)?;
        Ok(error)
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::json::members;
    use std::string::ToString;

    /// What a client makes of a body: parsed by a full JSON parser (serde_json here, standing in
    /// for `JSON.parse`), then its members checked.
    fn plant(body: &str) -> Result<bool, BodyError> {
        serde_json::from_str::<serde_json::Value>(body)
            .map_err(|e| BodyError::NotJson(e.to_string()))?;
        Plant::check(members(body.as_bytes(), &Plant::MEMBERS))
    }

    fn api_error(body: &str) -> Result<i32, BodyError> {
        serde_json::from_str::<serde_json::Value>(body)
            .map_err(|e| BodyError::NotJson(e.to_string()))?;
        ApiError::check(members(body.as_bytes(), &ApiError::MEMBERS))
    }

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

    /// The checks over the scan give the answer serde_json gives over the derives: the same
    /// bodies accepted. (They part on a JSON array, which serde's derive reads as the fields in
    /// order and the contract does not allow.)
    #[test]
    fn plant_checks_agree_with_serde_json_on_the_derive() {
        for body in [
            r#"{"name":"Fern"}"#,
            r#"{"name":"Fern","tag":"x","id":3,"extra":[1,{"a":null}]}"#,
            r#"{"tag":"x","name":"F\u00e9rn \ud83c\udf3f"}"#,
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
            "",
            "<html>",
        ] {
            let ours = plant(body).is_ok();
            let theirs = serde_json::from_str::<Plant>(body).is_ok();
            assert_eq!(ours, theirs, "{body}");
        }
        assert!(plant(r#"["name"]"#).is_err());
        assert!(serde_json::from_str::<Plant>(r#"["name"]"#).is_ok());
    }

    #[test]
    fn plant_errors_name_the_field() {
        for (body, reason) in [
            (r#"{"name":"a","name":"b"}"#, "name appears more than once"),
            (
                r#"{"name":"a","\u006eame":"a"}"#,
                "name appears more than once",
            ),
            (
                r#"{"tag":"x","name":"a","tag":"x"}"#,
                "tag appears more than once",
            ),
            (r#"{"name":"a","tag":null}"#, "tag is not a string"),
            (r#"{"name":5}"#, "name is not a string"),
            (r#"{"tag":"t"}"#, "name is missing"),
            (r#"[1]"#, "not a JSON object"),
        ] {
            let mut why = String::new();
            plant(body).unwrap_err().describe(&mut why);
            assert_eq!(why, reason, "{body}");
        }
        // serde_json refuses an escaped lone surrogate outright; JSON.parse does not, so the
        // scan must: checked on the members alone.
        let mut why = String::new();
        Plant::check(members(br#"{"name":"\ud800"}"#, &Plant::MEMBERS))
            .unwrap_err()
            .describe(&mut why);
        assert_eq!(
            why,
            "name holds an escaped lone surrogate, not well-formed Unicode"
        );
        let mut why = String::new();
        BodyError::NotUtf8(12).describe(&mut why);
        assert_eq!(why, "not UTF-8 (at byte 12)");
        // A repeated key no shape reads is left alone, as RFC 8259 allows it.
        assert_eq!(
            plant(r#"{"x":1,"name":"Fern","x":[2],"x":{"y":3}}"#),
            Ok(false)
        );
        assert_eq!(plant(r#"{"name":"Fern","tag":"t"}"#), Ok(true));
    }

    #[test]
    fn api_error_needs_both_fields_and_an_int32() {
        assert_eq!(api_error(r#"{"error":3,"message":"dup"}"#), Ok(3));
        assert_eq!(
            api_error(r#"{"message":"m","error":-2147483648,"x":1.5}"#),
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
            assert!(api_error(body).is_err(), "{body}");
            assert_eq!(
                api_error(body).is_ok(),
                serde_json::from_str::<ApiError>(body).is_ok(),
                "{body}"
            );
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
}
