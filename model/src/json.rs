//! A small, strict JSON reader for the flat objects of the contract, and the writer of a NewPlant.
//!
//! The wasm client reads every response with it instead of serde_json, which would cost it over
//! 30 KB (its parser, and float formatting for its error messages). Strict as RFC 8259 says: the whole
//! input is one value, UTF-8, no trailing data, no raw control characters in strings, escapes
//! well-formed, and an escaped lone surrogate is an error (it would otherwise be silently replaced).
//! Nested values are checked and skipped; numbers are kept exact only as integers that fit an
//! `i64`. A key may repeat, as RFC 8259 allows: the reader says so, and a shape refuses a repeated
//! field that it reads (see `shapes`). Differential tests against serde_json keep it honest.

use alloc::borrow::Cow;
use alloc::string::String;

/// A member value, as far as the contract's shapes care. A string borrows from the input unless it
/// holds an escape, so checking a body allocates nothing for its strings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value<'a> {
    /// A string.
    Str(Cow<'a, str>),
    /// An integer written without fraction or exponent, inside the `i64` range.
    Int(i64),
    /// Any other number.
    OtherNumber,
    /// `true`, `false` or `null`, by name.
    Literal(&'static str),
    /// An array or object (checked, not kept).
    Composite,
}

/// Why a body is not the JSON object expected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JsonError {
    /// What is wrong.
    pub reason: &'static str,
    /// The byte offset where it was found.
    pub at: usize,
}

/// Nesting deeper than this is refused rather than followed (the stack is small in wasm).
const MAX_DEPTH: usize = 64;

/// What an object holds under one of the field names asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Field<'a> {
    /// The key does not appear.
    Absent,
    /// The key appears once, with this value.
    Once(Value<'a>),
    /// The key appears more than once (RFC 8259 allows it; the shapes decide).
    Repeated,
}

/// Reads `bytes` as one JSON object and returns what it holds under each name in `fields`, by
/// position. Every other member is checked and dropped, so reading allocates nothing but the
/// strings that hold an escape.
///
/// # Errors
/// A [`JsonError`] for anything that is not exactly one well-formed JSON object.
pub fn read_fields<'a, const N: usize>(
    bytes: &'a [u8],
    fields: &[&str; N],
) -> Result<[Field<'a>; N], JsonError> {
    let mut found = [const { Field::Absent }; N];
    read_object(bytes, fields, &mut found)?;
    Ok(found)
}

/// [`read_fields`] without the array size in its type, so the reader is compiled once.
fn read_object<'a>(
    bytes: &'a [u8],
    fields: &[&str],
    found: &mut [Field<'a>],
) -> Result<(), JsonError> {
    let mut reader = Reader { bytes, at: 0 };
    reader.skip_ws();
    if reader.peek() != Some(b'{') {
        return Err(reader.error("expected a JSON object"));
    }
    reader.object(0, fields, found)?;
    reader.skip_ws();
    if reader.at != bytes.len() {
        return Err(reader.error("unexpected data after the JSON value"));
    }
    Ok(())
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn error(&self, reason: &'static str) -> JsonError {
        JsonError {
            reason,
            at: self.at,
        }
    }

    /// The bytes from `start` up to the current position.
    #[inline(always)]
    fn since(&self, start: usize) -> &'a [u8] {
        self.bytes.get(start..self.at).unwrap_or_default()
    }

    /// The bytes from the current position on.
    fn rest(&self) -> &'a [u8] {
        self.bytes.get(self.at..).unwrap_or_default()
    }

    #[inline(always)]
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    #[inline(always)]
    fn next(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.at += 1;
        Some(b)
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn expect(&mut self, b: u8, reason: &'static str) -> Result<(), JsonError> {
        self.skip_ws();
        if self.next() == Some(b) {
            Ok(())
        } else {
            self.at = self.at.saturating_sub(1);
            Err(self.error(reason))
        }
    }

    /// An object at `{`: its members named in `fields` go to `found`, at the same position (a nested
    /// object passes no fields). Everything else is checked and dropped.
    fn object(
        &mut self,
        depth: usize,
        fields: &[&str],
        found: &mut [Field<'a>],
    ) -> Result<(), JsonError> {
        self.at += 1;
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(());
        }
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(self.error("expected a string key"));
            }
            let key = self.string()?;
            self.expect(b':', "expected ':' after a key")?;
            let value = self.value(depth + 1)?;
            let slot = fields
                .iter()
                .zip(found.iter_mut())
                .find(|(f, _)| **f == key);
            if let Some((_, slot)) = slot {
                *slot = match slot {
                    Field::Absent => Field::Once(value),
                    _ => Field::Repeated,
                };
            }
            self.skip_ws();
            match self.next() {
                Some(b',') => continue,
                Some(b'}') => return Ok(()),
                _ => {
                    self.at -= 1;
                    return Err(self.error("expected ',' or '}'"));
                }
            }
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value<'a>, JsonError> {
        if depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        self.skip_ws();
        match self.peek() {
            Some(b'"') => self.string().map(Value::Str),
            Some(b'{') => self.object(depth, &[], &mut []).map(|()| Value::Composite),
            Some(b'[') => self.array(depth).map(|()| Value::Composite),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b't') => self.literal("true"),
            Some(b'f') => self.literal("false"),
            Some(b'n') => self.literal("null"),
            _ => Err(self.error("expected a JSON value")),
        }
    }

    fn array(&mut self, depth: usize) -> Result<(), JsonError> {
        self.at += 1;
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(());
        }
        loop {
            self.value(depth + 1)?;
            self.skip_ws();
            match self.next() {
                Some(b',') => continue,
                Some(b']') => return Ok(()),
                _ => {
                    self.at -= 1;
                    return Err(self.error("expected ',' or ']'"));
                }
            }
        }
    }

    fn literal(&mut self, word: &'static str) -> Result<Value<'a>, JsonError> {
        if self.rest().starts_with(word.as_bytes()) {
            self.at += word.len();
            Ok(Value::Literal(word))
        } else {
            Err(self.error("expected a JSON value"))
        }
    }

    /// Skips a run of ASCII digits and returns it.
    fn digits(&mut self) -> &'a [u8] {
        let start = self.at;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.at += 1;
        }
        self.since(start)
    }

    fn number(&mut self) -> Result<Value<'a>, JsonError> {
        let negative = self.peek() == Some(b'-');
        if negative {
            self.at += 1;
        }
        let int_start = self.at;
        let int_digits = self.digits();
        match int_digits {
            [] => return Err(self.error("expected a digit")),
            [b'0', _, ..] => {
                return Err(JsonError {
                    reason: "a number may not start with 0",
                    at: int_start,
                })
            }
            _ => {}
        }
        let mut integer = true;
        if self.peek() == Some(b'.') {
            self.at += 1;
            if self.digits().is_empty() {
                return Err(self.error("expected a digit after '.'"));
            }
            integer = false;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if self.digits().is_empty() {
                return Err(self.error("expected a digit in the exponent"));
            }
            integer = false;
        }
        if !integer {
            return Ok(Value::OtherNumber);
        }
        // Accumulate negatively so that i64::MIN fits; overflow means "not an i64".
        let mut n: i64 = 0;
        for &d in int_digits {
            match n
                .checked_mul(10)
                .and_then(|n| n.checked_sub(i64::from(d - b'0')))
            {
                Some(next) => n = next,
                None => return Ok(Value::OtherNumber),
            }
        }
        Ok(if negative {
            Value::Int(n)
        } else {
            n.checked_neg().map_or(Value::OtherNumber, Value::Int)
        })
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let mut v = 0u32;
        for _ in 0..4 {
            let d = match self.next() {
                Some(c @ b'0'..=b'9') => c - b'0',
                Some(c @ b'a'..=b'f') => c - b'a' + 10,
                Some(c @ b'A'..=b'F') => c - b'A' + 10,
                _ => return Err(self.error("expected 4 hex digits after \\u")),
            };
            v = v * 16 + u32::from(d);
        }
        Ok(v)
    }

    /// A run of string bytes up to a quote, a backslash or a control character, which must be UTF-8.
    /// This is the only UTF-8 check: outside strings the grammar allows only ASCII, and a run ends
    /// only at an ASCII byte, which is never inside a UTF-8 sequence.
    fn run(&mut self) -> Result<&'a str, JsonError> {
        let start = self.at;
        while matches!(self.peek(), Some(b) if b != b'"' && b != b'\\' && b >= 0x20) {
            self.at += 1;
        }
        core::str::from_utf8(self.since(start)).map_err(|e| JsonError {
            reason: "a string that is not UTF-8",
            at: start + e.valid_up_to(),
        })
    }

    /// A string at `"`: borrowed from the input when it holds no escape, else decoded.
    fn string(&mut self) -> Result<Cow<'a, str>, JsonError> {
        self.at += 1;
        let first = self.run()?;
        if self.peek() == Some(b'"') {
            self.at += 1;
            return Ok(Cow::Borrowed(first));
        }
        let mut out = String::from(first);
        loop {
            match self.next() {
                Some(b'"') => return Ok(Cow::Owned(out)),
                Some(b'\\') => {}
                Some(_) => {
                    self.at -= 1;
                    return Err(self.error("a control character inside a string"));
                }
                None => return Err(self.error("unterminated string")),
            }
            let c = match self.next() {
                Some(b'"') => '"',
                Some(b'\\') => '\\',
                Some(b'/') => '/',
                Some(b'b') => '\u{8}',
                Some(b'f') => '\u{c}',
                Some(b'n') => '\n',
                Some(b'r') => '\r',
                Some(b't') => '\t',
                Some(b'u') => {
                    let at = self.at;
                    let unit = self.hex4()?;
                    let code = match unit {
                        0xD800..=0xDBFF => {
                            let low = match (self.next(), self.next()) {
                                (Some(b'\\'), Some(b'u')) => self.hex4()?,
                                _ => 0,
                            };
                            if !(0xDC00..=0xDFFF).contains(&low) {
                                return Err(JsonError {
                                    reason: "an escaped lone surrogate",
                                    at,
                                });
                            }
                            0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                        }
                        0xDC00..=0xDFFF => {
                            return Err(JsonError {
                                reason: "an escaped lone surrogate",
                                at,
                            })
                        }
                        _ => unit,
                    };
                    char::from_u32(code).ok_or(JsonError {
                        reason: "an invalid escape",
                        at,
                    })?
                }
                _ => {
                    self.at -= 1;
                    return Err(self.error("an invalid escape"));
                }
            };
            out.push(c);
            out.push_str(self.run()?);
        }
    }
}

/// Appends `s` as a JSON string literal (quotes included), escaping as RFC 8259 requires.
pub fn write_string(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\0'..='\u{1f}' => {
                let b = c as u8;
                out.push_str("\\u00");
                out.push(char::from(HEX[usize::from(b >> 4)]));
                out.push(char::from(HEX[usize::from(b & 0xf)]));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Appends the decimal digits of `n` (without core::fmt, which costs the wasm build kilobytes).
pub fn write_int(out: &mut String, n: i64) {
    if n < 0 {
        out.push('-');
    }
    write_digits(out, n.unsigned_abs());
}

/// Appends the digits of `n`, most significant first (at most 20 calls deep).
fn write_digits(out: &mut String, n: u64) {
    if n >= 10 {
        write_digits(out, n / 10);
    }
    out.push(char::from(b'0' + (n % 10) as u8));
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::{format, string::ToString, vec};

    #[test]
    fn reads_flat_objects_exactly() {
        let fields = read_fields(
            br#" {"name":"F\u00e9rn \ud83c\udf3f","n":-9223372036854775808,"x":[1,{"a":null}],"t":true, "f":1.5e3} "#,
            &["name", "n", "x", "t", "f"],
        )
        .unwrap();
        assert_eq!(
            fields,
            [
                Field::Once(Value::Str("Férn 🌿".into())),
                Field::Once(Value::Int(i64::MIN)),
                Field::Once(Value::Composite),
                Field::Once(Value::Literal("true")),
                Field::Once(Value::OtherNumber),
            ]
        );
        assert_eq!(read_fields(b"{}", &["a"]).unwrap(), [Field::Absent]);
        // A repeated key is reported as such (RFC 8259 allows it; the shapes decide).
        assert_eq!(
            read_fields(br#"{"a":1,"a":"x"}"#, &["a", "b"]).unwrap(),
            [Field::Repeated, Field::Absent]
        );
        assert_eq!(
            read_fields(br#"{"n":9223372036854775808}"#, &["n"]).unwrap(),
            [Field::Once(Value::OtherNumber)]
        );
        assert_eq!(
            read_fields(br#"{"n":-0}"#, &["n"]).unwrap(),
            [Field::Once(Value::Int(0))]
        );
    }

    #[test]
    fn read_fields_keeps_only_the_fields_named_and_checks_the_rest() {
        assert_eq!(
            read_fields(
                br#"{"x":1,"name":"a","y":[2],"\u0078":3,"tag":"t"}"#,
                &["name", "tag"]
            )
            .unwrap(),
            [
                Field::Once(Value::Str("a".into())),
                Field::Once(Value::Str("t".into()))
            ]
        );
        // Keys are compared once decoded: \u006e is "n".
        assert_eq!(
            read_fields(br#"{"name":"a","\u006eame":"b"}"#, &["name"]).unwrap(),
            [Field::Repeated]
        );
        for bad in [
            &br#"{"x":01,"name":"a"}"#[..],
            br#"{"x":"\ud800","name":"a"}"#,
        ] {
            assert!(read_fields(bad, &["name"]).is_err());
        }
    }

    #[test]
    fn refuses_what_is_not_one_json_object() {
        for bad in [
            &b""[..],
            b" ",
            b"[]",
            b"\"s\"",
            b"1",
            b"null",
            b"{",
            b"{\"a\"}",
            b"{\"a\":}",
            b"{\"a\":1,}",
            b"{\"a\":1}x",
            b"{\"a\":1}{}",
            b"{a:1}",
            b"{'a':1}",
            b"{\"a\":01}",
            b"{\"a\":1.}",
            b"{\"a\":.5}",
            b"{\"a\":1e}",
            b"{\"a\":-}",
            b"{\"a\":tru}",
            b"{\"a\":\"\\x\"}",
            b"{\"a\":\"\\u12\"}",
            b"{\"a\":\"\x01\"}",
            b"{\"a\":\"\\ud800\"}",
            b"{\"a\":\"\\udc00\"}",
            b"{\"a\":\"\\ud800\\u0041\"}",
            b"{\"a\":\"\xff\"}",
            b"{\"a\":[1,]}",
            b"{\"a\":[1 2]}",
            b"{\"a\":\"x}",
        ] {
            assert!(
                read_fields(bad, &["a"]).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        // RFC 8259 allows numbers beyond f64 (serde_json refuses them): just "another number".
        assert_eq!(
            read_fields(br#"{"n":1e400}"#, &["n"]).unwrap(),
            [Field::Once(Value::OtherNumber)]
        );
        let deep = format!("{{\"a\":{}{}}}", "[".repeat(1000), "]".repeat(1000));
        assert_eq!(
            read_fields(deep.as_bytes(), &["a"]).unwrap_err().reason,
            "nested too deeply"
        );
    }

    /// UTF-8 is checked only inside strings (`Reader::run`): a document is refused whenever its bytes
    /// are not UTF-8, wherever the bad byte sits, and a string's bad byte is reported where it is.
    #[test]
    fn refuses_every_document_that_is_not_utf8() {
        let doc = "{\"name\":\"é🌿x\",\"tag\":\"a\\nb\",\"x\":[\"ü\",{\"k\":1}]} ".as_bytes();
        assert!(read_fields(doc, &["name", "tag"]).is_ok());
        for at in 0..doc.len() {
            for byte in [0x80, 0xa9, 0xbf, 0xc3, 0xe2, 0xed, 0xf0, 0xf5, 0xff] {
                let mut bad = doc.to_vec();
                bad[at] = byte;
                if read_fields(&bad, &["name", "tag"]).is_ok() {
                    assert!(
                        core::str::from_utf8(&bad).is_ok(),
                        "accepted with {byte:#x} at {at}"
                    );
                }
            }
        }
        assert_eq!(
            read_fields(b"{\"name\":\"caf\xe9!\"}", &["name"]),
            Err(JsonError {
                reason: "a string that is not UTF-8",
                at: 12
            })
        );
        assert_eq!(
            read_fields(b"{\"name\":\"a\\n\xf0\x9f\x8c\"}", &["name"]),
            Err(JsonError {
                reason: "a string that is not UTF-8",
                at: 12
            })
        );
        assert!(read_fields(b"{\"name\":1}\xc2\xa0", &["name"]).is_err());
    }

    /// Every document serde_json accepts as an object with unique keys, this reader accepts with the
    /// same strings and integers, and the other way round.
    #[test]
    fn agrees_with_serde_json() {
        let strings = [
            "",
            "plain",
            "é🌿",
            "\\\"",
            "\\n\\t\\b\\f\\r\\/",
            "\\u0000\\u001f\\u007f",
            "\\ud83c\\udf3f",
            "\\ud800",
            "\\udfff",
            "\\uD83C\\uDF3F",
            "tab\there",
            "\\u00e9",
            "before\\nafter\\u00e9end",
            "\\uffff",
        ];
        let numbers = [
            "0",
            "-0",
            "12",
            "-12",
            "1.0",
            "1e3",
            "1E-3",
            "-1.25e+2",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775808",
            "-9223372036854775809",
            "00",
            "1.",
            "+1",
            "0x1",
        ];
        let mut docs: vec::Vec<String> = vec::Vec::new();
        for s in strings {
            docs.push(format!(r#"{{"name":"{s}"}}"#));
        }
        for n in numbers {
            docs.push(format!(r#"{{"error":{n},"message":"m"}}"#));
        }
        for doc in &docs {
            let keys = ["name", "error", "message"];
            let ours = read_fields(doc.as_bytes(), &keys);
            let theirs: Result<serde_json::Map<String, serde_json::Value>, _> =
                serde_json::from_str(doc);
            assert_eq!(
                ours.is_ok(),
                theirs.is_ok(),
                "{doc}: {ours:?} vs {theirs:?}"
            );
            if let (Ok(ours), Ok(theirs)) = (ours, theirs) {
                for (key, field) in keys.into_iter().zip(ours) {
                    let value = match field {
                        Field::Absent => continue,
                        Field::Once(value) => value,
                        Field::Repeated => panic!("{doc}: {key} repeated"),
                    };
                    match (value, &theirs[key]) {
                        (Value::Str(a), serde_json::Value::String(b)) => assert_eq!(&a, b, "{doc}"),
                        // serde_json keeps -0 as a float; it is the integer 0 (JSON Schema agrees).
                        (Value::Int(0), serde_json::Value::Number(b))
                            if b.as_f64() == Some(0.0) => {}
                        (Value::Int(a), serde_json::Value::Number(b)) => {
                            assert_eq!(Some(a), b.as_i64(), "{doc}")
                        }
                        (Value::OtherNumber, serde_json::Value::Number(b)) => {
                            assert!(b.as_i64().is_none() || b.is_f64(), "{doc}")
                        }
                        (ours, theirs) => panic!("{doc}: {ours:?} vs {theirs:?}"),
                    }
                }
            }
        }
    }

    #[test]
    fn writes_strings_as_serde_json_does() {
        for s in [
            "",
            "Fern",
            "q\"uote\\",
            "\n\r\t\u{8}\u{c}",
            "\u{0}\u{1f}\u{7f}",
            "é🌿/",
            "\u{2028}",
            &(0..=0x7f).map(char::from).collect::<String>(),
        ] {
            let mut ours = String::new();
            write_string(&mut ours, s);
            assert_eq!(ours, serde_json::to_string(s).unwrap(), "{s:?}");
        }
        for n in [0, 7, -7, 10, i64::MAX, i64::MIN, -1_000_000] {
            let mut ours = String::new();
            write_int(&mut ours, n);
            assert_eq!(ours, n.to_string());
        }
    }
}
