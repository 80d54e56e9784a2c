//! The NewPlant rules, checked over a small, language-neutral picture of the input.
//!
//! The wasm client builds a [`RawNewPlant`] from a JavaScript object and the server builds one from
//! parsed JSON; both then call [`validate_new_plant`], so the two sides cannot drift apart. Every
//! problem is reported at once, each naming its field. Nothing is coerced: a string is never read as
//! a number, and a lone surrogate is never replaced.

use crate::shapes::NewPlant;
use alloc::borrow::ToOwned;
use alloc::string::String;
use alloc::vec::Vec;

/// The largest integer a JavaScript number holds exactly: 2^53 − 1.
pub const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// One field of the input, as far as the rules care.
#[derive(Debug, Clone, PartialEq)]
pub enum Field {
    /// Not there (in JavaScript: absent or `undefined`).
    Absent,
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool,
    /// A floating-point number (a JavaScript number, or a JSON number with a fraction or exponent).
    Number(f64),
    /// An exact integer inside the int64 range (a BigInt, or a JSON integer).
    Int(i64),
    /// An exact integer outside the int64 range.
    IntOutOfRange,
    /// A well-formed string.
    Str(String),
    /// A string holding a lone UTF-16 surrogate: not well-formed Unicode.
    MalformedStr,
    /// Reading the field failed (a getter or a Proxy trap threw).
    Unreadable,
    /// Any other kind of value; the text names it for messages ("object", "array", "function", …).
    Other(&'static str),
}

impl Field {
    /// The name of this value's type, as messages show it.
    pub fn type_name(&self) -> &'static str {
        match self {
            Field::Absent => "undefined",
            Field::Null => "null",
            Field::Bool => "boolean",
            Field::Number(_) => "number",
            Field::Int(_) | Field::IntOutOfRange => "integer",
            Field::Str(_) | Field::MalformedStr => "string",
            Field::Unreadable => "unreadable value",
            Field::Other(name) => name,
        }
    }
}

/// The input of [`validate_new_plant`]: the three known fields and the names of any others.
#[derive(Debug, Clone, PartialEq)]
pub struct RawNewPlant {
    /// The `id` field.
    pub id: Field,
    /// The `name` field.
    pub name: Field,
    /// The `tag` field.
    pub tag: Field,
    /// Keys the contract does not name, in the order they were found.
    pub unknown: Vec<String>,
}

/// What kind of problem an [`Issue`] is; stable strings for code to branch on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IssueCode {
    /// The value has the wrong type (including a root that is not a plain object).
    InvalidType,
    /// A required field is missing.
    Required,
    /// A key the contract does not name.
    UnknownField,
    /// A number that is not an integer: a fraction, NaN or ±Infinity.
    NotInteger,
    /// A number beyond ±(2^53 − 1): its digits may already be lost.
    UnsafeInteger,
    /// An integer outside the int64 range.
    OutOfRange,
    /// A string that is not well-formed Unicode (a lone surrogate).
    MalformedString,
    /// The field could not be read (a getter or Proxy trap threw).
    Unreadable,
}

impl IssueCode {
    /// The code as the string JavaScript sees.
    pub fn as_str(self) -> &'static str {
        match self {
            IssueCode::InvalidType => "invalid_type",
            IssueCode::Required => "required",
            IssueCode::UnknownField => "unknown_field",
            IssueCode::NotInteger => "not_integer",
            IssueCode::UnsafeInteger => "unsafe_integer",
            IssueCode::OutOfRange => "out_of_range",
            IssueCode::MalformedString => "malformed_string",
            IssueCode::Unreadable => "unreadable",
        }
    }
}

/// One problem with the input: where, what kind, and a sentence for a person.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Issue {
    /// The field's name (`""` for the value as a whole).
    pub path: String,
    /// The kind of problem.
    pub code: IssueCode,
    /// A sentence that names the field.
    pub message: String,
}

impl Issue {
    fn new(path: &str, code: IssueCode, message: String) -> Issue {
        Issue { path: path.to_owned(), code, message }
    }

    /// The issue for an input that is not a plain object at all; `got` names what it is.
    pub fn not_an_object(got: &str) -> Issue {
        Issue::new(
            "",
            IssueCode::InvalidType,
            ["a NewPlant must be a plain object like { id, name, tag }, got ", got].concat(),
        )
    }
}

/// Checks a NewPlant against the contract and returns it, or every problem found.
///
/// Only what the contract states is enforced: an empty name and a negative id are valid.
///
/// # Errors
/// The list of issues, never empty, in field order (`id`, `name`, `tag`, then unknown keys).
pub fn validate_new_plant(raw: RawNewPlant) -> Result<NewPlant, Vec<Issue>> {
    let mut issues = Vec::new();
    let id = check_id(raw.id, &mut issues);
    let name = check_string("name", raw.name, true, &mut issues);
    let tag = check_string("tag", raw.tag, false, &mut issues);
    for key in &raw.unknown {
        issues.push(Issue::new(key, IssueCode::UnknownField, unknown_field_message(key)));
    }
    match (id, name, issues.is_empty()) {
        (Some(id), Some(name), true) => Ok(NewPlant { id, name, tag }),
        _ => Err(issues),
    }
}

fn check_id(field: Field, issues: &mut Vec<Issue>) -> Option<i64> {
    let problem = match field {
        Field::Int(id) => return Some(id),
        Field::Number(n) if is_integer(n) && n.abs() <= MAX_SAFE_INTEGER => {
            // Exact: a safe integer converts without loss (and -0 is 0).
            return Some(n as i64);
        }
        Field::Number(n) if n.is_nan() => {
            (IssueCode::NotInteger, "id must be an integer, got NaN".to_owned())
        }
        Field::Number(n) if n.is_infinite() => {
            let sign = if n < 0.0 { "-" } else { "" };
            (IssueCode::NotInteger, ["id must be an integer, got ", sign, "Infinity"].concat())
        }
        Field::Number(n) if !is_integer(n) => (
            IssueCode::NotInteger,
            "id must be an integer, got a number with a fractional part".to_owned(),
        ),
        Field::Number(_) => (
            IssueCode::UnsafeInteger,
            "id is beyond ±(2^53−1) (Number.MAX_SAFE_INTEGER), so as a floating-point number its \
             digits may already be lost; pass it as a BigInt (for example 9007199254740993n)"
                .to_owned(),
        ),
        Field::IntOutOfRange => (
            IssueCode::OutOfRange,
            "id must fit in int64 (from -9223372036854775808 to 9223372036854775807)".to_owned(),
        ),
        Field::Absent => (IssueCode::Required, "id is required".to_owned()),
        Field::Unreadable => {
            (IssueCode::Unreadable, "id could not be read: reading it threw".to_owned())
        }
        other => (
            IssueCode::InvalidType,
            ["id must be an integer (a number or a BigInt), got ", other.type_name()].concat(),
        ),
    };
    issues.push(Issue::new("id", problem.0, problem.1));
    None
}

/// Whether `n` is finite and without a fractional part (`f64::trunc` is in std, not in core).
fn is_integer(n: f64) -> bool {
    /// 2^52: from here on floats are at least 1 apart, so every finite one is an integer.
    const ONLY_INTEGERS: f64 = 4_503_599_627_370_496.0;
    if n.abs() < ONLY_INTEGERS {
        // Exact: the cast truncates towards zero into an i64 that holds it (and -0.0 == 0.0).
        n == (n as i64) as f64
    } else {
        // NaN lands here as well (every comparison with it is false).
        n.is_finite()
    }
}

fn check_string(
    path: &str,
    field: Field,
    required: bool,
    issues: &mut Vec<Issue>,
) -> Option<String> {
    let (code, message) = match field {
        Field::Str(s) => return Some(s),
        Field::Absent if !required => return None,
        Field::Absent => (IssueCode::Required, [path, " is required"].concat()),
        Field::MalformedStr => (
            IssueCode::MalformedString,
            [path, " is not well-formed Unicode: it holds a lone surrogate"].concat(),
        ),
        Field::Unreadable => {
            (IssueCode::Unreadable, [path, " could not be read: reading it threw"].concat())
        }
        other if required => {
            (IssueCode::InvalidType, [path, " must be a string, got ", other.type_name()].concat())
        }
        other => (
            IssueCode::InvalidType,
            [path, " must be a string or be left out, got ", other.type_name()].concat(),
        ),
    };
    issues.push(Issue::new(path, code, message));
    None
}

const KNOWN_FIELDS: [&str; 3] = ["id", "name", "tag"];
/// How much of an unknown key a message repeats; the issue's `path` keeps the whole key.
const KEY_SHOWN: usize = 40;

/// The message of an `unknown_field` issue about `key` (which a client rebuilds from the key it
/// shows, when it redacts a piece of its token from it).
pub fn unknown_field_message(key: &str) -> String {
    let mut message = String::from("unknown field \"");
    let mut chars = key.chars();
    message.extend(chars.by_ref().take(KEY_SHOWN));
    if chars.next().is_some() {
        message.push('…');
    }
    message.push_str("\": a NewPlant has only id, name and tag");
    if let Some(known) = suggest(key, &KNOWN_FIELDS) {
        message.push_str(" (did you mean \"");
        message.push_str(known);
        message.push_str("\"?)");
    }
    message
}

/// The known name that `key` is most likely a typo of, if any.
pub fn suggest<'a>(key: &str, known: &[&'a str]) -> Option<&'a str> {
    known.iter().copied().find(|k| is_near(key, k))
}

/// A likely typo, ignoring ASCII case: past the longest common start and end, what is left of each
/// side is one edit (insert, delete, substitute), two letters swapped, or, after four letters in
/// common, a unit or a plural (`timeout` for `timeoutMs`, `retries` for `retry`).
fn is_near(key: &str, known: &str) -> bool {
    let same = |(a, b): (&u8, &u8)| a.eq_ignore_ascii_case(b);
    let (key, known) = (key.as_bytes(), known.as_bytes());
    let start = key.iter().zip(known).take_while(|&pair| same(pair)).count();
    let (key, known) = (key.get(start..), known.get(start..));
    let (key, known) = (key.unwrap_or_default(), known.unwrap_or_default());
    let end = key.iter().rev().zip(known.iter().rev()).take_while(|&pair| same(pair)).count();
    let (key, known) = (&key[..key.len() - end], &known[..known.len() - end]);
    let longer = start >= 4 && key.len().min(known.len()) == 0 && key.len().max(known.len()) <= 2;
    let swapped = matches!((key, known), ([a, b], [c, d]) if same((a, d)) && same((b, c)));
    (key.len() <= 1 && known.len() <= 1)
        || swapped
        || longer
        || (start >= 4 && key == b"ies" && known == b"y")
}

#[cfg(feature = "json-value")]
mod json_value {
    use super::{is_integer, Field, Issue, RawNewPlant};
    use serde_json::Value;

    impl RawNewPlant {
        /// Reads parsed JSON into the validation input, keeping integers exact.
        ///
        /// # Errors
        /// An issue when the JSON value is not an object.
        pub fn from_json_value(value: Value) -> Result<RawNewPlant, Issue> {
            let Value::Object(mut map) = value else {
                return Err(Issue::not_an_object(json_type(&value)));
            };
            let mut take = |key: &str| map.remove(key).map_or(Field::Absent, field_of);
            let (id, name, tag) = (take("id"), take("name"), take("tag"));
            Ok(RawNewPlant { id, name, tag, unknown: map.keys().cloned().collect() })
        }
    }

    fn json_type(value: &Value) -> &'static str {
        match value {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }

    fn field_of(value: Value) -> Field {
        match value {
            Value::Null => Field::Null,
            Value::Bool(_) => Field::Bool,
            Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
                (Some(i), _, _) => Field::Int(i),
                (None, Some(_), _) => Field::IntOutOfRange,
                (_, _, Some(f)) => float_field(f),
                _ => Field::Other("number"),
            },
            Value::String(s) => Field::Str(s),
            Value::Array(_) => Field::Other("array"),
            Value::Object(_) => Field::Other("object"),
        }
    }

    /// A JSON number written with a fraction or exponent. `1.0` and `1e3` are integers (as JSON
    /// Schema says) when the float holds them exactly; beyond 2^53 it may not, so it stays a float
    /// and the rules reject it rather than guess digits.
    fn float_field(f: f64) -> Field {
        if is_integer(f) && f.abs() > 9.3e18 {
            Field::IntOutOfRange
        } else {
            Field::Number(f)
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec;

    fn raw(id: Field, name: Field, tag: Field) -> RawNewPlant {
        RawNewPlant { id, name, tag, unknown: vec![] }
    }

    fn codes(result: Result<NewPlant, Vec<Issue>>) -> Vec<(String, &'static str)> {
        result.unwrap_err().into_iter().map(|i| (i.path, i.code.as_str())).collect()
    }

    #[test]
    fn accepts_what_the_contract_allows() {
        let ok = validate_new_plant(raw(Field::Int(-5), Field::Str(String::new()), Field::Absent));
        assert_eq!(ok, Ok(NewPlant { id: -5, name: String::new(), tag: None }));
        let ok = validate_new_plant(raw(
            Field::Number(-0.0),
            Field::Str("a".into()),
            Field::Str("t".into()),
        ));
        assert_eq!(ok.unwrap(), NewPlant { id: 0, name: "a".into(), tag: Some("t".into()) });
        for id in [MAX_SAFE_INTEGER, -MAX_SAFE_INTEGER] {
            let ok =
                validate_new_plant(raw(Field::Number(id), Field::Str("a".into()), Field::Absent));
            assert_eq!(ok.unwrap().id as f64, id);
        }
        for id in [i64::MAX, i64::MIN] {
            let ok = validate_new_plant(raw(Field::Int(id), Field::Str("a".into()), Field::Absent));
            assert_eq!(ok.unwrap().id, id);
        }
    }

    #[test]
    fn id_rules() {
        let cases = [
            (Field::Number(f64::NAN), "not_integer"),
            (Field::Number(f64::INFINITY), "not_integer"),
            (Field::Number(f64::NEG_INFINITY), "not_integer"),
            (Field::Number(1.5), "not_integer"),
            (Field::Number(9_007_199_254_740_992.0), "unsafe_integer"),
            (Field::Number(-9_007_199_254_740_992.0), "unsafe_integer"),
            (Field::Number(1e21), "unsafe_integer"),
            (Field::IntOutOfRange, "out_of_range"),
            (Field::Str("12".into()), "invalid_type"),
            (Field::Null, "invalid_type"),
            (Field::Bool, "invalid_type"),
            (Field::Other("object"), "invalid_type"),
            (Field::Absent, "required"),
            (Field::Unreadable, "unreadable"),
        ];
        for (id, code) in cases {
            let got =
                codes(validate_new_plant(raw(id.clone(), Field::Str("a".into()), Field::Absent)));
            assert_eq!(got, vec![("id".to_owned(), code)], "{id:?}");
        }
    }

    #[test]
    fn unsafe_number_message_says_to_pass_a_bigint() {
        let issues = validate_new_plant(raw(
            Field::Number(2f64.powi(53)),
            Field::Str("a".into()),
            Field::Absent,
        ))
        .unwrap_err();
        assert!(issues[0].message.contains("BigInt"), "{}", issues[0].message);
        assert!(issues[0].message.starts_with("id "));
    }

    #[test]
    fn every_problem_is_reported_at_once_and_names_its_field() {
        let mut input = raw(Field::Str("12".into()), Field::Null, Field::Null);
        input.unknown = vec!["tags".into(), "__proto__".into()];
        let issues = validate_new_plant(input).unwrap_err();
        let got: Vec<_> = issues.iter().map(|i| (i.path.as_str(), i.code.as_str())).collect();
        assert_eq!(
            got,
            [
                ("id", "invalid_type"),
                ("name", "invalid_type"),
                ("tag", "invalid_type"),
                ("tags", "unknown_field"),
                ("__proto__", "unknown_field"),
            ]
        );
        for issue in &issues {
            assert!(issue.message.contains(&issue.path[..]), "{issue:?}");
        }
        assert!(issues[3].message.contains("did you mean \"tag\""), "{}", issues[3].message);
        assert!(!issues[4].message.contains("did you mean"), "{}", issues[4].message);
        assert_eq!(issues[2].message, "tag must be a string or be left out, got null");
    }

    #[test]
    fn strings_must_be_well_formed() {
        let got =
            codes(validate_new_plant(raw(Field::Int(1), Field::MalformedStr, Field::MalformedStr)));
        assert_eq!(
            got,
            [("name".to_owned(), "malformed_string"), ("tag".to_owned(), "malformed_string")]
        );
        let got = codes(validate_new_plant(raw(Field::Int(1), Field::Absent, Field::Int(3))));
        assert_eq!(got, [("name".to_owned(), "required"), ("tag".to_owned(), "invalid_type")]);
    }

    #[test]
    fn long_unknown_keys_are_cut_in_the_message_but_kept_in_the_path() {
        let key = "k".repeat(10_000);
        let mut input = raw(Field::Int(1), Field::Str("a".into()), Field::Absent);
        input.unknown = vec![key.clone()];
        let issue = &validate_new_plant(input).unwrap_err()[0];
        assert_eq!(issue.path, key);
        assert!(issue.message.len() < 200);
    }

    /// Every message, byte for byte: they are shown to people and built without `format!`.
    #[test]
    fn messages_word_for_word() {
        let first_message =
            |input: RawNewPlant| validate_new_plant(input).unwrap_err()[0].message.clone();
        let name = || Field::Str("a".into());
        for (id, message) in [
            (Field::Number(f64::NAN), "id must be an integer, got NaN"),
            (Field::Number(f64::INFINITY), "id must be an integer, got Infinity"),
            (Field::Number(f64::NEG_INFINITY), "id must be an integer, got -Infinity"),
            (Field::Number(-0.5), "id must be an integer, got a number with a fractional part"),
            (
                Field::Number(-1e300),
                "id is beyond ±(2^53−1) (Number.MAX_SAFE_INTEGER), so as a floating-point number its \
                 digits may already be lost; pass it as a BigInt (for example 9007199254740993n)",
            ),
            (
                Field::IntOutOfRange,
                "id must fit in int64 (from -9223372036854775808 to 9223372036854775807)",
            ),
            (Field::Absent, "id is required"),
            (Field::Unreadable, "id could not be read: reading it threw"),
            (Field::Null, "id must be an integer (a number or a BigInt), got null"),
            (Field::MalformedStr, "id must be an integer (a number or a BigInt), got string"),
            (Field::Other("symbol"), "id must be an integer (a number or a BigInt), got symbol"),
        ] {
            assert_eq!(first_message(raw(id, name(), Field::Absent)), message);
        }
        assert_eq!(
            first_message(raw(Field::Int(1), Field::Absent, Field::Absent)),
            "name is required"
        );
        for (field, name_message, tag_message) in [
            (
                Field::MalformedStr,
                "name is not well-formed Unicode: it holds a lone surrogate",
                "tag is not well-formed Unicode: it holds a lone surrogate",
            ),
            (
                Field::Unreadable,
                "name could not be read: reading it threw",
                "tag could not be read: reading it threw",
            ),
            (
                Field::Bool,
                "name must be a string, got boolean",
                "tag must be a string or be left out, got boolean",
            ),
            (
                Field::Number(1.0),
                "name must be a string, got number",
                "tag must be a string or be left out, got number",
            ),
        ] {
            assert_eq!(
                first_message(raw(Field::Int(1), field.clone(), Field::Absent)),
                name_message
            );
            assert_eq!(first_message(raw(Field::Int(1), name(), field)), tag_message);
        }
        let forty = "é".repeat(40);
        for (key, message) in [
            (
                "tags".to_owned(),
                "unknown field \"tags\": a NewPlant has only id, name and tag (did you mean \"tag\"?)"
                    .to_owned(),
            ),
            (
                "__proto__".to_owned(),
                "unknown field \"__proto__\": a NewPlant has only id, name and tag".to_owned(),
            ),
            (
                forty.clone(),
                ["unknown field \"", &forty, "\": a NewPlant has only id, name and tag"].concat(),
            ),
            (
                [&forty, "🌿tail"].concat(),
                ["unknown field \"", &forty, "…\": a NewPlant has only id, name and tag"].concat(),
            ),
        ] {
            let mut input = raw(Field::Int(1), name(), Field::Absent);
            input.unknown = vec![key];
            assert_eq!(first_message(input), message);
        }
        assert_eq!(
            Issue::not_an_object("array").message,
            "a NewPlant must be a plain object like { id, name, tag }, got array"
        );
    }

    /// `is_integer` is `n.is_finite() && n.trunc() == n`, at the edges and over random bit patterns.
    #[test]
    fn is_integer_is_trunc_without_std() {
        let two = |e: i32| 2f64.powi(e);
        let mut values = vec![
            0.0,
            0.5,
            1.0,
            1.5,
            MAX_SAFE_INTEGER,
            two(52) - 0.5,
            two(52),
            two(52) + 1.0,
            two(53),
            two(53) + 2.0,
            two(63) - 1024.0,
            two(63),
            two(64),
            1e300,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::EPSILON,
            f64::from_bits(1),
            f64::NAN,
            f64::INFINITY,
        ];
        let edges = values.clone();
        for v in edges {
            values.push(f64::from_bits(v.to_bits().wrapping_sub(1)));
            values.push(f64::from_bits(v.to_bits() + 1));
        }
        let mut bits = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..100_000 {
            // xorshift64: every exponent, sign and mantissa is drawn.
            bits ^= bits << 13;
            bits ^= bits >> 7;
            bits ^= bits << 17;
            values.push(f64::from_bits(bits));
        }
        for v in values {
            for n in [v, -v] {
                assert_eq!(is_integer(n), n.is_finite() && n.trunc() == n, "{n:e}");
            }
        }
    }

    #[test]
    fn typo_detection() {
        for (key, near) in [
            ("tags", true),
            ("Name", true),
            ("nme", true),
            ("ID", true),
            ("idx", true),
            ("color", false),
            ("", false),
            ("nametag", false),
            ("nmae", true),
            ("naem", true),
            ("tga", true),
            ("tagg", true),
            ("tagss", false),
        ] {
            assert_eq!(KNOWN_FIELDS.iter().any(|k| is_near(key, k)), near, "{key}");
        }
        let options = ["timeoutMs", "retry", "keyLifetimeMs", "baseUrl"];
        for (key, near) in [
            ("timeout", Some("timeoutMs")),
            ("tiemoutMs", Some("timeoutMs")),
            ("retries", Some("retry")),
            ("keyLifetime", Some("keyLifetimeMs")),
            ("baseURL", Some("baseUrl")),
            ("time", None),
            ("retryAfter", None),
            ("timeoutMsecs", None),
        ] {
            assert_eq!(suggest(key, &options), near, "{key}");
        }
    }
}
