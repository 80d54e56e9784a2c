//! JSON for the contract's bodies: the writer of a NewPlant's request body, and a reader of a
//! response body that finds the members a Plant or an Error is made of.
//!
//! The reader checks the whole text against RFC 8259 and decodes only the top-level members it is
//! asked for. By hand, because what the contract needs is what general parsers do not report:
//! `JSON.parse` and serde_json's `Value` keep one value of a repeated name without a word, and
//! `JSON.parse` hands an escaped lone surrogate (`"\ud800"`) through as a string that is not
//! well-formed. serde's derives refuse both, but serde_json would cost the wasm client many times
//! this reader, and an engine's parse error quotes the body (which may hold the token); this one
//! says where.
//! Nesting is limited to 128 levels, as serde_json's.

use alloc::string::String;

/// What an object holds under one of the names the reader was asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Member {
    /// The name does not appear.
    Absent,
    /// A well-formed string, decoded.
    Str(String),
    /// A string holding an escaped lone surrogate: not well-formed Unicode.
    LoneSurrogate,
    /// A number with no fractional part (`3`, `3.0`, `3e2`), inside the `i64` range.
    Int(i64),
    /// Any other value, by its JSON type: "number", "boolean", "null", "array" or "object".
    Other(&'static str),
    /// The name appears more than once.
    Repeated,
}

/// Why a body is not the shape expected. Its sentence says what is wrong and where, never what the
/// body holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodyError {
    /// Not UTF-8: the first bad byte is at this offset.
    NotUtf8(usize),
    /// Not JSON: reading stopped at this byte.
    NotJson(usize),
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
        let at = |out: &mut String, what: &str, at: usize| {
            out.push_str(what);
            out.push_str(" (at byte ");
            write_int(out, at as i64);
            out.push(')');
        };
        match self {
            BodyError::NotUtf8(n) => at(out, "not UTF-8", *n),
            BodyError::NotJson(n) => at(out, "not JSON", *n),
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

/// The deepest nesting of arrays and objects read.
const MAX_DEPTH: u32 = 128;

/// Reads `text` as one JSON object and returns its members under each of `names`, by position.
///
/// # Errors
/// [`BodyError::NotUtf8`] or [`BodyError::NotJson`] (with the byte where reading stopped),
/// [`BodyError::Shape`] for JSON that is not an object or nests too deep.
pub fn members<const N: usize>(text: &[u8], names: [&str; N]) -> Result<[Member; N], BodyError> {
    let mut found = [const { Member::Absent }; N];
    read_object(text, &names, &mut found)?;
    Ok(found)
}

/// [`members`] without the array size in its type, so it is compiled once.
fn read_object(bytes: &[u8], names: &[&str], found: &mut [Member]) -> Result<(), BodyError> {
    let text = core::str::from_utf8(bytes).map_err(|e| BodyError::NotUtf8(e.valid_up_to()))?;
    let mut r = Reader { text, at: 0 };
    r.ws();
    if !r.eat(b'{') {
        r.value(0)?;
        r.end()?;
        return Err(BodyError::Shape("not a JSON object"));
    }
    r.members(|r, key| {
        match names.iter().position(|name| *name == key) {
            Some(i) => {
                let member = r.member()?;
                if let Some(slot) = found.get_mut(i) {
                    *slot = match slot {
                        Member::Absent => member,
                        _ => Member::Repeated,
                    };
                }
            }
            None => {
                r.value(1)?;
            }
        }
        Ok(())
    })?;
    r.end()
}

struct Reader<'a> {
    text: &'a str,
    at: usize,
}

impl Reader<'_> {
    /// Reads an object's members up to its closing `}` (its `{` already read), giving each key to
    /// `each`, which reads the value after it.
    fn members(
        &mut self,
        mut each: impl FnMut(&mut Self, &str) -> Result<(), BodyError>,
    ) -> Result<(), BodyError> {
        let mut key = String::new();
        self.ws();
        if self.eat(b'}') {
            return Ok(());
        }
        loop {
            self.expect(b'"')?;
            key.clear();
            self.string(Some(&mut key))?;
            self.ws();
            self.expect(b':')?;
            self.ws();
            each(self, &key)?;
            self.ws();
            if self.eat(b'}') {
                return Ok(());
            }
            self.expect(b',')?;
            self.ws();
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn eat(&mut self, byte: u8) -> bool {
        let found = self.peek() == Some(byte);
        self.at += usize::from(found);
        found
    }

    fn expect(&mut self, byte: u8) -> Result<(), BodyError> {
        if self.eat(byte) {
            Ok(())
        } else {
            self.fail()
        }
    }

    fn fail<T>(&self) -> Result<T, BodyError> {
        Err(BodyError::NotJson(self.at))
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    /// Nothing but whitespace is left.
    fn end(&mut self) -> Result<(), BodyError> {
        self.ws();
        if self.at == self.text.len() {
            Ok(())
        } else {
            self.fail()
        }
    }

    /// A member asked for: a string decoded, an integer read, anything else by its type.
    fn member(&mut self) -> Result<Member, BodyError> {
        match self.peek() {
            Some(b'"') => {
                self.at += 1;
                let mut text = String::new();
                Ok(match self.string(Some(&mut text))? {
                    true => Member::LoneSurrogate,
                    false => Member::Str(text),
                })
            }
            Some(b'-' | b'0'..=b'9') => {
                Ok(self.number()?.map_or(Member::Other("number"), Member::Int))
            }
            _ => self.value(1).map(Member::Other),
        }
    }

    /// Any value, checked and skipped; its type.
    fn value(&mut self, depth: u32) -> Result<&'static str, BodyError> {
        let Some(first) = self.peek() else {
            return self.fail();
        };
        let (close, kind) = match first {
            b'"' => {
                self.at += 1;
                self.string(None)?;
                return Ok("string");
            }
            b'-' | b'0'..=b'9' => return self.number().map(|_| "number"),
            b't' => return self.word("true", "boolean"),
            b'f' => return self.word("false", "boolean"),
            b'n' => return self.word("null", "null"),
            b'{' => (b'}', "object"),
            b'[' => (b']', "array"),
            _ => return self.fail(),
        };
        if depth >= MAX_DEPTH {
            return Err(BodyError::Shape("nests deeper than 128 levels"));
        }
        self.at += 1;
        self.ws();
        if self.eat(close) {
            return Ok(kind);
        }
        loop {
            if close == b'}' {
                self.expect(b'"')?;
                self.string(None)?;
                self.ws();
                self.expect(b':')?;
                self.ws();
            }
            self.value(depth + 1)?;
            self.ws();
            if self.eat(close) {
                return Ok(kind);
            }
            self.expect(b',')?;
            self.ws();
        }
    }

    fn word(&mut self, word: &str, kind: &'static str) -> Result<&'static str, BodyError> {
        match self.text.get(self.at..self.at + word.len()) {
            Some(found) if found == word => {
                self.at += word.len();
                Ok(kind)
            }
            _ => self.fail(),
        }
    }

    /// A number; its value when it is an integer (JSON Schema's: no fractional part once its
    /// exponent applies, so `3.0` and `3e2` are integers too) that fits an `i64`.
    fn number(&mut self) -> Result<Option<i64>, BodyError> {
        let start = self.at;
        let _ = self.eat(b'-');
        match self.peek() {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => self.digits()?,
            _ => return self.fail(),
        }
        if self.eat(b'.') {
            self.digits()?;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.at += 1;
            let _ = self.eat(b'+') || self.eat(b'-');
            self.digits()?;
        }
        Ok(integral(&self.text.as_bytes()[start..self.at]))
    }

    /// One or more digits.
    fn digits(&mut self) -> Result<(), BodyError> {
        let start = self.at;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.at += 1;
        }
        if self.at == start {
            self.fail()
        } else {
            Ok(())
        }
    }

    /// A string from just after its opening quote to just after its closing one, decoded into
    /// `out` when given (a lone surrogate as U+FFFD). Returns whether it holds a lone surrogate.
    fn string(&mut self, mut out: Option<&mut String>) -> Result<bool, BodyError> {
        let mut lone = false;
        loop {
            let start = self.at;
            while matches!(self.peek(), Some(b) if b != b'"' && b != b'\\' && b >= 0x20) {
                self.at += 1;
            }
            if let Some(out) = out.as_deref_mut() {
                // The run ends at an ASCII byte, so it ends on a character boundary.
                out.push_str(self.text.get(start..self.at).unwrap_or_default());
            }
            match self.peek() {
                Some(b'"') => {
                    self.at += 1;
                    return Ok(lone);
                }
                Some(b'\\') => {
                    self.at += 1;
                    let c = self.escape(&mut lone)?;
                    if let Some(out) = out.as_deref_mut() {
                        out.push(c);
                    }
                }
                // A control character, or the end of the text.
                _ => return self.fail(),
            }
        }
    }

    /// The character of an escape, from just after its backslash; a lone surrogate is U+FFFD and
    /// sets `lone`.
    fn escape(&mut self, lone: &mut bool) -> Result<char, BodyError> {
        let Some(b) = self.peek() else {
            return self.fail();
        };
        self.at += 1;
        Ok(match b {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let unit = self.hex4()?;
                let pair = (0xD800..0xDC00).contains(&unit)
                    && self.text.get(self.at..self.at + 2) == Some("\\u")
                    && matches!(hex4(self.text.as_bytes(), self.at + 2), Some(0xDC00..=0xDFFF));
                let code = if pair {
                    self.at += 2;
                    let low = self.hex4()?;
                    0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                } else {
                    unit
                };
                char::from_u32(code).unwrap_or_else(|| {
                    *lone = true;
                    char::REPLACEMENT_CHARACTER
                })
            }
            _ => return Err(BodyError::NotJson(self.at - 1)),
        })
    }

    fn hex4(&mut self) -> Result<u32, BodyError> {
        let unit = hex4(self.text.as_bytes(), self.at).map_or_else(|| self.fail(), Ok)?;
        self.at += 4;
        Ok(unit)
    }
}

/// The four hex digits at `at`, as a number.
fn hex4(text: &[u8], at: usize) -> Option<u32> {
    let digits = text.get(at..at + 4)?;
    digits.iter().try_fold(0, |n, &d| Some(n * 16 + char::from(d).to_digit(16)?))
}

/// The JSON text of the top-level members `names` of the object `text` (`None` where absent), the
/// whole text checked: for a reader that decodes each itself (the outbox's records, which nest
/// objects and hold booleans), with [`string_of`] and [`integer_of`]. Apart from [`members`], so
/// that a reader of the contract's bodies carries none of it.
///
/// # Errors
/// As [`members`]; [`BodyError::Shape`] when a name asked for appears more than once.
pub fn raw_members<'a, const N: usize>(
    text: &'a str,
    names: [&str; N],
) -> Result<[Option<&'a str>; N], BodyError> {
    let mut found = [None; N];
    read_raw(text, &names, &mut found)?;
    Ok(found)
}

/// [`raw_members`] without the array size in its type, so it is compiled once.
fn read_raw<'a>(
    text: &'a str,
    names: &[&str],
    found: &mut [Option<&'a str>],
) -> Result<(), BodyError> {
    let mut r = Reader { text, at: 0 };
    r.ws();
    r.expect(b'{')?;
    r.members(|r, key| {
        let start = r.at;
        r.value(1)?;
        let slot = names.iter().position(|name| *name == key).and_then(|i| found.get_mut(i));
        if let Some(slot) = slot {
            if slot.replace(text.get(start..r.at).unwrap_or_default()).is_some() {
                return Err(BodyError::Shape("a member appears more than once"));
            }
        }
        Ok(())
    })?;
    r.end()
}

/// A JSON string's text (the member [`raw_members`] gave), decoded; `None` for anything else, or a
/// string holding an escaped lone surrogate.
pub fn string_of(raw: &str) -> Option<String> {
    let mut r = Reader { text: raw, at: 0 };
    let mut out = String::new();
    let lone = r.eat(b'"').then(|| r.string(Some(&mut out))).and_then(Result::ok)?;
    (!lone && r.at == raw.len()).then_some(out)
}

/// The value of a well-formed JSON number when it has no fractional part and fits an `i64`.
fn integral(text: &[u8]) -> Option<i64> {
    let (negative, text) = text.strip_prefix(b"-").map_or((false, text), |rest| (true, rest));
    let e = text.iter().position(|b| matches!(b, b'e' | b'E')).unwrap_or(text.len());
    let (mantissa, exponent) = (&text[..e], text.get(e + 1..).unwrap_or_default());
    // Where the point falls among the mantissa's digits once the exponent applies (far past any
    // digit an i64 holds, the exponent is held at a million).
    let ten = |n: i64, d: &u8| (n * 10 + i64::from(d - b'0')).min(1_000_000);
    let shift = exponent.iter().filter(|d| d.is_ascii_digit()).fold(0, ten);
    let dot = mantissa.iter().position(|b| *b == b'.').unwrap_or(mantissa.len());
    let point = dot as i64 + if exponent.first() == Some(&b'-') { -shift } else { shift };
    let count = (mantissa.len() - usize::from(dot < mantissa.len())) as i64;
    // Accumulated negatively so that i64::MIN fits: the digits before the point, then the zeros
    // the exponent appends (19 overflow any i64 but 0).
    let mut n = 0i64;
    for (at, d) in (0..).zip(mantissa.iter().filter(|d| d.is_ascii_digit())) {
        match at < point {
            true => n = n.checked_mul(10)?.checked_sub(i64::from(d - b'0'))?,
            false if *d != b'0' => return None,
            false => {}
        }
    }
    for _ in count..point.min(count + 19) {
        n = n.checked_mul(10)?;
    }
    if negative {
        Some(n)
    } else {
        n.checked_neg()
    }
}

/// A JSON integer's value (the member [`raw_members`] gave): a number with no fractional part,
/// inside the `i64` range; `None` for anything else.
pub fn integer_of(raw: &str) -> Option<i64> {
    let mut r = Reader { text: raw, at: 0 };
    r.number().ok().flatten().filter(|_| r.at == raw.len())
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

    fn plant(text: &str) -> Result<[Member; 2], BodyError> {
        members(text.as_bytes(), ["name", "tag"])
    }

    fn s(text: &str) -> Member {
        Member::Str(text.into())
    }

    #[test]
    fn reads_the_top_level_members_asked_for() {
        assert_eq!(
            plant(
                r#" {"id":3,"name":"F\u00e9rn \ud83c\udf3f","x":[1,{"tag":"inner"}],"tag":"t\/\n"} "#
            ),
            Ok([s("Férn 🌿"), s("t/\n")])
        );
        assert_eq!(plant("{}"), Ok([Member::Absent, Member::Absent]));
        assert_eq!(
            plant(r#"{"name":null,"tag":[]}"#),
            Ok([Member::Other("null"), Member::Other("array")])
        );
        assert_eq!(
            plant(r#"{"name":{"a":"}"},"tag":true}"#),
            Ok([Member::Other("object"), Member::Other("boolean")])
        );
        for text in ["[]", r#""s""#, "1", "null"] {
            assert_eq!(plant(text), Err(BodyError::Shape("not a JSON object")), "{text}");
        }
        for (text, member) in [
            (r#"{"error":-9223372036854775808}"#, Member::Int(i64::MIN)),
            (r#"{"error":9223372036854775807}"#, Member::Int(i64::MAX)),
            (r#"{"error":9223372036854775808}"#, Member::Other("number")),
            (r#"{"error":-0}"#, Member::Int(0)),
            // JSON Schema's integers (OpenAPI 3.1's): no fractional part once the exponent applies.
            (r#"{"error":1.0}"#, Member::Int(1)),
            (r#"{"error":1e3}"#, Member::Int(1000)),
            (r#"{"error":-2.50E+1}"#, Member::Int(-25)),
            (r#"{"error":1500e-2}"#, Member::Int(15)),
            (r#"{"error":0.1e1}"#, Member::Int(1)),
            (r#"{"error":-0.0e-7}"#, Member::Int(0)),
            (r#"{"error":0e999999999999}"#, Member::Int(0)),
            (r#"{"error":9.223372036854775807e18}"#, Member::Int(i64::MAX)),
            (r#"{"error":-92233720368547758.08e2}"#, Member::Int(i64::MIN)),
            (r#"{"error":1.5}"#, Member::Other("number")),
            (r#"{"error":15e-1}"#, Member::Other("number")),
            (r#"{"error":1e19}"#, Member::Other("number")),
            (r#"{"error":1e999999999999}"#, Member::Other("number")),
        ] {
            assert_eq!(members(text.as_bytes(), ["error"]), Ok([member]), "{text}");
        }
    }

    #[test]
    fn raw_members_are_the_text_of_each_and_decode_on_their_own() {
        let text = r#"{"a":"x\u00e9","n":-12.5,"t":true,"o":{"b":[1,{}]},"i":7}"#;
        let [a, n, t, o, i, gone] = raw_members(text, ["a", "n", "t", "o", "i", "gone"]).unwrap();
        assert_eq!(
            [a, n, t, o, i],
            [Some(r#""x\u00e9""#), Some("-12.5"), Some("true"), Some(r#"{"b":[1,{}]}"#), Some("7")]
        );
        assert_eq!(gone, None);
        assert_eq!(string_of(a.unwrap()), Some("xé".into()));
        assert_eq!(
            [integer_of("7"), integer_of("-0"), integer_of("-9223372036854775808")],
            [Some(7), Some(0), Some(i64::MIN)]
        );
        assert_eq!([integer_of("1e3"), integer_of("7.00")], [Some(1000), Some(7)]);
        for not in ["-12.5", "1.", "7 ", "x", "true", r#""7""#, "9223372036854775808", "1e-3"] {
            assert_eq!(integer_of(not), None, "{not}");
        }
        for not in ["7", r#""\ud800""#, r#""a" "#, "null"] {
            assert_eq!(string_of(not), None, "{not}");
        }
        assert_eq!(
            raw_members(r#"{"a":1,"a":2}"#, ["a"]),
            Err(BodyError::Shape("a member appears more than once"))
        );
        assert!(raw_members("[1]", ["a"]).is_err() && raw_members(r#"{"a":1} x"#, ["a"]).is_err());
        assert_eq!(raw_members("{}", ["a"]), Ok([None]));
    }

    #[test]
    fn finds_a_repeated_name_also_when_escaped() {
        for text in [
            r#"{"name":"a","name":"b"}"#,
            r#"{"name":"a","\u006eame":"a"}"#,
            r#"{"n\u0061me":1,"name":"a","name":"c"}"#,
        ] {
            assert_eq!(plant(text).map(|[n, _]| n), Ok(Member::Repeated), "{text}");
        }
        // A repeated name no shape reads, and one inside a nested value, are left alone.
        assert_eq!(
            plant(r#"{"x":1,"name":"a","x":2,"y":{"name":1,"name":2}}"#).map(|[n, _]| n),
            Ok(s("a"))
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
            let [name, _] = plant(text).unwrap();
            assert_eq!(name == Member::LoneSurrogate, lone, "{text}");
        }
    }

    #[test]
    fn says_where_a_text_stops_being_json() {
        for (text, at) in [
            ("", 0),
            ("{", 1),
            (r#"{"name""#, 7),
            (r#"{"name":"a"} x"#, 13),
            (r#"{"name":tok3n}"#, 8),
            (r#"{"name":"a\x"}"#, 11),
            ("{\"name\":\"a\nb\"}", 10),
            (r#"{"name":01}"#, 9),
            (r#"{"a":[1,]}"#, 8),
            (r#"{"a":1,}"#, 7),
            (r#"{"a":-}"#, 6),
            (r#"{"a":1.}"#, 7),
            (r#"{"a":tru}"#, 5),
            (r#"{"a":"\u12"}"#, 8),
        ] {
            assert_eq!(plant(text), Err(BodyError::NotJson(at)), "{text}");
        }
        assert_eq!(members(b"{\"a\":\"\xff\"}", ["a"]), Err(BodyError::NotUtf8(6)));
        let deep = format!("{{\"a\":{}{}}}", "[".repeat(127), "]".repeat(127));
        assert!(plant(&deep).is_ok());
        let deeper = format!("{{\"a\":{}{}}}", "[".repeat(128), "]".repeat(128));
        assert_eq!(plant(&deeper), Err(BodyError::Shape("nests deeper than 128 levels")));
    }

    /// Over every document in a generated family, the reader accepts exactly what serde_json
    /// accepts (serde_json refuses a lone surrogate; this reader reports it on a member).
    #[test]
    fn accepts_what_serde_json_accepts() {
        let values = [
            r#""a""#,
            r#""\ud83c\udf3f""#,
            r#""\\""#,
            "1",
            "-0",
            "1.5e3",
            "01",
            "1.",
            "-",
            "null",
            "nul",
            "true",
            "[]",
            "[1,]",
            "[1,[2,{}]]",
            "{}",
            r#"{"a":}"#,
            r#"{"a" 1}"#,
            "\"\t\"",
        ];
        let keys = ["name", "tag", "\\u006eame", "x"];
        let mut docs = Vec::new();
        for a in keys {
            for va in values {
                docs.push(format!(r#"{{"{a}":{va}}}"#));
                for vb in values {
                    docs.push(format!(r#"{{"{a}":{va},"tag":{vb}}}"#));
                }
            }
        }
        docs.extend(values.iter().map(|v| v.to_string()));
        for doc in &docs {
            let ours = plant(doc);
            let theirs = serde_json::from_str::<serde_json::Value>(doc);
            let json = !matches!(ours, Err(BodyError::NotJson(_)));
            assert_eq!(json, theirs.is_ok(), "{doc}: {ours:?}");
        }
    }

    #[test]
    fn never_panics() {
        let mut bytes = Vec::new();
        let mut seed = 0x9e37_79b9_u32;
        for _ in 0..50_000 {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            bytes.push(b"{}[]\",:\\u0d8nametg1.-e \xff\xc3"[(seed % 24) as usize]);
            let _ = members(&bytes, ["name", "tag"]);
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
