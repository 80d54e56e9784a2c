//! The three shapes of the contract and their JSON form.
//!
//! JSON is read strictly: a field of the wrong type, a `null` where the contract says "string", a
//! duplicate key or a string with an escaped lone surrogate is an error, never silently repaired.
//! Fields the contract does not name are ignored, as the contract allows a server to add them.

use serde::{Deserialize, Deserializer, Serialize};

/// The request body of plant creation: a Plant plus its `id`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NewPlant {
    /// Identification number of the plant (int64; written to JSON with all its digits).
    pub id: i64,
    /// The name of the plant.
    pub name: String,
    /// Tag that specifies the type of the plant; left out of the JSON when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
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
        deserialize_with = "present_string"
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

/// An optional field that, when present, must be a string: `"tag": null` is not a string.
fn present_string<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    String::deserialize(d).map(Some)
}

impl NewPlant {
    /// The JSON request body, with `id` as a JSON integer carrying every digit.
    pub fn to_json(&self) -> String {
        // Serializing a struct of integers and strings cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }
}

impl Plant {
    /// Reads a Plant from a JSON body.
    ///
    /// # Errors
    /// When the bytes are not JSON or not a Plant; the error says what is wrong.
    pub fn from_json(bytes: &[u8]) -> Result<Plant, serde_json::Error> {
        from_json_object(bytes)
    }
}

impl ApiError {
    /// Reads an Error from a JSON body.
    ///
    /// # Errors
    /// When the bytes are not JSON or not Error-shaped (`error` must fit an int32).
    pub fn from_json(bytes: &[u8]) -> Result<ApiError, serde_json::Error> {
        from_json_object(bytes)
    }
}

/// serde's derive also reads a struct from a JSON array (`["Fern"]`); the contract says object.
fn from_json_object<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, serde_json::Error> {
    if bytes.trim_ascii_start().first() != Some(&b'{') {
        return Err(serde::de::Error::custom("expected a JSON object"));
    }
    serde_json::from_slice(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_plant_json_keeps_every_digit_of_the_id() {
        let p = NewPlant { id: i64::MAX, name: "Fern".into(), tag: None };
        assert_eq!(p.to_json(), r#"{"id":9223372036854775807,"name":"Fern"}"#);
        let p = NewPlant { id: i64::MIN, name: "\"q\"\n".into(), tag: Some("t".into()) };
        assert_eq!(p.to_json(), r#"{"id":-9223372036854775808,"name":"\"q\"\n","tag":"t"}"#);
    }

    #[test]
    fn plant_is_read_strictly() {
        assert_eq!(
            Plant::from_json(br#"{"name":"Fern","tag":"x","id":3,"extra":[1]}"#).unwrap(),
            Plant { name: "Fern".into(), tag: Some("x".into()) }
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
            assert!(Plant::from_json(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn api_error_needs_both_fields_and_an_int32() {
        assert_eq!(
            ApiError::from_json(br#"{"error":3,"message":"dup"}"#).unwrap(),
            ApiError { error: 3, message: "dup".into() }
        );
        for bad in [
            &br#"{"error":3}"#[..],
            br#"{"message":"m"}"#,
            br#"{"error":2147483648,"message":"m"}"#,
            br#"{"error":"3","message":"m"}"#,
            br#"{"error":1.5,"message":"m"}"#,
        ] {
            assert!(ApiError::from_json(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }
}
