//! JSON for the contract's bodies: the writer of a NewPlant's request body, and a scan of a
//! response body that a JSON parser has already accepted, for the two things no parser reports.
//!
//! Responses are parsed by a full JSON parser: the host's `JSON.parse` in the wasm client,
//! serde_json elsewhere. Both keep one of the values of a repeated name without a word
//! (`JSON.parse` the last, other parsers the first), and `JSON.parse` hands an escaped lone
//! surrogate (`"\\ud800"`) through as a string that is not well-formed. serde's derives refuse
//! both, but serde_json would cost the wasm client tens of KB. [`members`] reports them: it reads
//! only the top level of an object, and trusts the parser with everything else.

use alloc::string::String;

/// What an object holds under one of the names asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Member {
    /// The name does not appear.
    Absent,
    /// A string. `lone_surrogate`: it holds an escaped lone surrogate, so it is not well-formed.
    String {
        /// Whether an escape in it is a lone surrogate.
        lone_surrogate: bool,
    },
    /// An integer written without fraction or exponent, inside the `i64` range.
    Int(i64),
    /// Any other value, by its JSON type: "number", "boolean", "null", "array" or "object".
    Other(&'static str),
    /// The name appears more than once.
    Repeated,
}

/// The members of the JSON object `text` under each of `names`, by position; `None` when `text`
/// is not an object. `text` must be a JSON text a parser has accepted: this does not check it,
/// and on anything else its answer means nothing (it never panics).
pub fn members<const N: usize>(text: &[u8], names: &[&str; N]) -> Option<[Member; N]> {
    let mut found = [Member::Absent; N];
    scan(text, names, &mut found).then_some(found)
}

/// [`members`] without the array size in its type, so the scan is compiled once.
fn scan(text: &[u8], names: &[&str], found: &mut [Member]) -> bool {
    let mut at = skip_ws(text, 0);
    if text.get(at) != Some(&b'{') {
        return false;
    }
    at += 1;
    loop {
        at = skip_ws(text, at);
        if text.get(at) != Some(&b'"') {
            return true; // `}` of an empty object
        }
        let (key, end) = key(text, at + 1);
        at = skip_ws(text, end);
        at = skip_ws(text, at + 1); // the `:`
        let (member, end) = value(text, at);
        if let Some(slot) = names.iter().position(|name| *name == key) {
            if let Some(slot) = found.get_mut(slot) {
                *slot = match slot {
                    Member::Absent => member,
                    _ => Member::Repeated,
                };
            }
        }
        at = skip_ws(text, end);
        if text.get(at) != Some(&b',') {
            return true;
        }
        at += 1;
    }
}

fn skip_ws(text: &[u8], mut at: usize) -> usize {
    while matches!(text.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// A key from just after its opening quote: decoded (so `"\\u006eame"` is `name`), and where it
/// ends.
fn key(text: &[u8], start: usize) -> (String, usize) {
    let mut key = String::new();
    let mut at = start;
    while let Some(&b) = text.get(at) {
        match b {
            b'"' => return (key, at + 1),
            b'\\' => {
                let (c, next) = escape(text, at + 1);
                key.push(c);
                at = next;
            }
            _ => {
                // A run of plain bytes: UTF-8 (the parser accepted the text), copied whole.
                let run = at;
                while matches!(text.get(at), Some(&b) if b != b'"' && b != b'\\') {
                    at += 1;
                }
                key.push_str(
                    core::str::from_utf8(text.get(run..at).unwrap_or_default()).unwrap_or_default(),
                );
            }
        }
    }
    (key, at)
}

/// The character of the escape after a backslash (a lone surrogate is U+FFFD), and where it ends.
fn escape(text: &[u8], at: usize) -> (char, usize) {
    let c = match text.get(at) {
        Some(b'u') => {
            let unit = hex4(text, at + 1);
            if (0xD800..0xDC00).contains(&unit) && text.get(at + 5..at + 7) == Some(&b"\\u"[..]) {
                let low = hex4(text, at + 7);
                if (0xDC00..0xE000).contains(&low) {
                    let code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                    return (
                        char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER),
                        at + 11,
                    );
                }
            }
            return (
                char::from_u32(unit).unwrap_or(char::REPLACEMENT_CHARACTER),
                at + 5,
            );
        }
        Some(b'n') => '\n',
        Some(b't') => '\t',
        Some(b'r') => '\r',
        Some(b'b') => '\u{8}',
        Some(b'f') => '\u{c}',
        Some(&b) => char::from(b), // `"`, `\\`, `/`
        None => char::REPLACEMENT_CHARACTER,
    };
    (c, at + 1)
}

fn hex4(text: &[u8], at: usize) -> u32 {
    text.get(at..at + 4).map_or(0, |digits| {
        digits
            .iter()
            .fold(0, |n, &d| n * 16 + char::from(d).to_digit(16).unwrap_or(0))
    })
}

/// The value starting at `at`, and where it ends.
fn value(text: &[u8], at: usize) -> (Member, usize) {
    match text.get(at) {
        Some(b'"') => {
            let (lone_surrogate, end) = string(text, at + 1);
            (Member::String { lone_surrogate }, end)
        }
        Some(b'{') => (Member::Other("object"), nested(text, at)),
        Some(b'[') => (Member::Other("array"), nested(text, at)),
        Some(b't') => (Member::Other("boolean"), at + 4),
        Some(b'f') => (Member::Other("boolean"), at + 5),
        Some(b'n') => (Member::Other("null"), at + 4),
        _ => number(text, at),
    }
}

/// Skips a string from just after its opening quote; says whether an escape in it is a lone
/// surrogate.
fn string(text: &[u8], mut at: usize) -> (bool, usize) {
    let mut lone = false;
    while let Some(&b) = text.get(at) {
        match b {
            b'"' => return (lone, at + 1),
            b'\\' if text.get(at + 1) == Some(&b'u') => {
                let unit = hex4(text, at + 2);
                let paired = (0xD800..0xDC00).contains(&unit)
                    && text.get(at + 6..at + 8) == Some(&b"\\u"[..])
                    && (0xDC00..0xE000).contains(&hex4(text, at + 8));
                if paired {
                    at += 12;
                } else {
                    lone |= (0xD800..0xE000).contains(&unit);
                    at += 6;
                }
            }
            b'\\' => at += 2,
            _ => at += 1,
        }
    }
    (lone, at)
}

/// Skips an object or array from its opening bracket, strings and all.
fn nested(text: &[u8], mut at: usize) -> usize {
    let mut depth = 0usize;
    while let Some(&b) = text.get(at) {
        match b {
            b'"' => {
                at = string(text, at + 1).1;
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return at + 1;
                }
            }
            _ => {}
        }
        at += 1;
    }
    at
}

/// A number: an `i64` when written as a plain integer that fits, else "number".
fn number(text: &[u8], start: usize) -> (Member, usize) {
    let mut at = start;
    let negative = text.get(at) == Some(&b'-');
    if negative {
        at += 1;
    }
    // Accumulate negatively so that i64::MIN fits; overflow means "not an i64".
    let mut n: Option<i64> = Some(0);
    while let Some(&d) = text.get(at).filter(|d| d.is_ascii_digit()) {
        n = n.and_then(|n| n.checked_mul(10)?.checked_sub(i64::from(d - b'0')));
        at += 1;
    }
    let plain = !matches!(text.get(at), Some(b'.' | b'e' | b'E'));
    while matches!(
        text.get(at),
        Some(b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')
    ) {
        at += 1;
    }
    let n = if negative {
        n
    } else {
        n.and_then(i64::checked_neg)
    };
    match n {
        Some(n) if plain => (Member::Int(n), at),
        _ => (Member::Other("number"), at),
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
    use std::{format, string::ToString, vec::Vec};

    const PLANT: [&str; 2] = ["name", "tag"];

    fn scan2(text: &str) -> Option<[Member; 2]> {
        members(text.as_bytes(), &PLANT)
    }

    #[test]
    fn reads_the_top_level_members_asked_for() {
        let string = Member::String {
            lone_surrogate: false,
        };
        assert_eq!(
            scan2(
                r#" {"id":3,"name":"F\u00e9rn \ud83c\udf3f","x":[1,{"tag":"inner"}],"tag":"t"} "#
            ),
            Some([string, string])
        );
        assert_eq!(scan2("{}"), Some([Member::Absent; 2]));
        assert_eq!(
            scan2(r#"{"name":null,"tag":[]}"#),
            Some([Member::Other("null"), Member::Other("array")])
        );
        assert_eq!(
            scan2(r#"{"name":{"a":"}"},"tag":true}"#),
            Some([Member::Other("object"), Member::Other("boolean")])
        );
        for text in ["[]", r#""s""#, "1", "null", ""] {
            assert_eq!(scan2(text), None, "{text}");
        }
        let error = ["error", "message"];
        for (text, member) in [
            (r#"{"error":-9223372036854775808}"#, Member::Int(i64::MIN)),
            (r#"{"error":9223372036854775807}"#, Member::Int(i64::MAX)),
            (r#"{"error":9223372036854775808}"#, Member::Other("number")),
            (r#"{"error":1.0}"#, Member::Other("number")),
            (r#"{"error":1e3}"#, Member::Other("number")),
            (r#"{"error":-0}"#, Member::Int(0)),
        ] {
            assert_eq!(
                members(text.as_bytes(), &error).map(|m| m[0]),
                Some(member),
                "{text}"
            );
        }
    }

    #[test]
    fn finds_a_repeated_name_also_when_escaped() {
        for text in [
            r#"{"name":"a","name":"b"}"#,
            r#"{"name":"a","\u006eame":"a"}"#,
            r#"{"n\u0061me":1,"name":"a"}"#,
        ] {
            assert_eq!(scan2(text).map(|m| m[0]), Some(Member::Repeated), "{text}");
        }
        // A repeated name no shape reads, and one inside a nested value, are left alone.
        assert_eq!(
            scan2(r#"{"x":1,"name":"a","x":2,"y":{"name":1,"name":2}}"#).map(|m| m[0]),
            Some(Member::String {
                lone_surrogate: false
            })
        );
    }

    #[test]
    fn finds_an_escaped_lone_surrogate() {
        for (text, lone) in [
            (r#"{"name":"\ud800"}"#, true),
            (r#"{"name":"a\udc00b"}"#, true),
            (r#"{"name":"\ud800\u0041"}"#, true),
            (r#"{"name":"\udc00\ud800"}"#, true),
            (r#"{"name":"\ud83c\udf3f"}"#, false),
            (r#"{"name":"\\ud800"}"#, false),
            (r#"{"name":"\uD83C\uDF3F \u00e9"}"#, false),
        ] {
            assert_eq!(
                scan2(text).map(|m| m[0]),
                Some(Member::String {
                    lone_surrogate: lone
                }),
                "{text}"
            );
        }
    }

    /// On every body serde_json parses, a repeated field of a Plant is found exactly where
    /// serde_json's derive refuses it.
    #[test]
    fn agrees_with_serde_json_on_repeats_and_surrogates() {
        let values = [
            r#""a""#,
            r#""\ud800""#,
            r#""\ud83c\udf3f""#,
            "1",
            "null",
            "[\"name\"]",
        ];
        let keys = ["name", "tag", "\\u006eame", "x"];
        let mut docs = Vec::new();
        for a in keys {
            for b in keys {
                for va in values {
                    for vb in values {
                        docs.push(format!(r#"{{"{a}":{va},"{b}":{vb}}}"#));
                    }
                }
            }
        }
        for doc in &docs {
            let Ok(parsed) = serde_json::from_str::<serde_json::Value>(doc) else {
                continue; // serde_json refuses a lone surrogate outright; JSON.parse does not.
            };
            let _ = parsed;
            let ours = scan2(doc).expect("an object");
            let repeated = ours.contains(&Member::Repeated);
            let theirs = serde_json::from_str::<crate::Plant>(doc);
            let duplicate = theirs
                .as_ref()
                .err()
                .is_some_and(|e| e.to_string().contains("duplicate field"));
            // serde reports a duplicate only when the first value had the right type; it refuses
            // the document either way.
            assert!(!duplicate || repeated, "{doc}: {ours:?}");
            assert!(!repeated || theirs.is_err(), "{doc}: {ours:?}");
        }
    }

    #[test]
    fn never_panics_on_what_is_not_json() {
        for text in [
            &b"{"[..],
            b"{\"",
            b"{\"name",
            b"{\"name\":",
            b"{\"name\":\"\\u12",
            b"{\"a\":[",
            b"{\"name\":-",
        ] {
            let _ = members(text, &PLANT);
        }
        let mut bytes = Vec::new();
        let mut seed = 0x9e37_79b9_u32;
        for _ in 0..20_000 {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            bytes.push(b"{}[]\",:\\u0d8nametg1.-e "[(seed % 22) as usize]);
            let _ = members(&bytes, &PLANT);
            if bytes.len() > 64 {
                bytes.clear();
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
