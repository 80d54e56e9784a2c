//! The NewPlant rules against an independent oracle, over generated inputs.
//!
//! The oracle below restates the README's rules without sharing code with `validate.rs`: a NewPlant
//! is valid iff `id` is an int64 or a safe-integer number, `name` a well-formed string, `tag` absent
//! or a well-formed string, and there are no unknown keys. Each property runs `CASES` generated
//! inputs (proptest shrinks any failure to a minimal one).

use plant_store_model::{validate_new_plant, Field, Issue, NewPlant, RawNewPlant};
use proptest::prelude::*;
use serde_json::Value;

/// Generated inputs per property.
const CASES: u32 = 10_000;
const MAX_SAFE: f64 = 9_007_199_254_740_991.0;
const OTHER_TYPES: [&str; 7] =
    ["object", "array", "function", "symbol", "bigint", "an object that is not plain", "date"];

/// Numbers a JavaScript caller can pass, weighted towards the edges of the rules.
fn number() -> impl Strategy<Value = f64> {
    let edges = prop::sample::select(vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        MAX_SAFE,
        -MAX_SAFE,
        MAX_SAFE + 1.0,
        -(MAX_SAFE + 1.0),
        MAX_SAFE + 2.0,
        1e21,
        -1e21,
        9_223_372_036_854_775_808.0, // 2^63: i64::MAX as an f64 rounds up to it
        f64::MAX,
        f64::MIN,
        f64::MIN_POSITIVE,
        f64::EPSILON,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        4_503_599_627_370_495.5,
    ]);
    prop_oneof![
        edges,
        any::<f64>(),
        (-MAX_SAFE as i64..=MAX_SAFE as i64).prop_map(|n| n as f64),
        (-1_000_000i64..1_000_000).prop_map(|n| n as f64 / 4.0),
        (-(1i64 << 62)..(1i64 << 62)).prop_map(|n| n as f64),
    ]
}

/// Strings with any Unicode, control characters, quotes, and now and then a long one.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => any::<String>(),
        2 => "[\\x00-\\x1f\"\\\\/\u{7f}\u{2028}\u{fffd}\u{10ffff}a-z]{0,12}",
        1 => (0usize..2000).prop_map(|n| "é".repeat(n)),
    ]
}

fn field() -> impl Strategy<Value = Field> {
    prop_oneof![
        1 => Just(Field::Absent),
        1 => Just(Field::Null),
        1 => Just(Field::Bool),
        1 => Just(Field::IntOutOfRange),
        1 => Just(Field::MalformedStr),
        1 => Just(Field::Unreadable),
        1 => prop::sample::select(OTHER_TYPES.to_vec()).prop_map(Field::Other),
        3 => number().prop_map(Field::Number),
        3 => prop_oneof![any::<i64>(), Just(i64::MAX), Just(i64::MIN), Just(0)].prop_map(Field::Int),
        3 => text().prop_map(Field::Str),
    ]
}

/// Keys other than id/name/tag: typos, prototype names, long and odd Unicode.
fn unknown_key() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "tags",
            "Name",
            "ID",
            "nme",
            "idx",
            "__proto__",
            "constructor",
            "prototype",
            "",
            " id",
            "id\0"
        ])
        .prop_map(str::to_owned),
        any::<String>(),
        (30usize..200, any::<char>()).prop_map(|(n, c)| c.to_string().repeat(n)),
    ]
    .prop_filter("a known field", |k| !matches!(k.as_str(), "id" | "name" | "tag"))
}

/// Inputs that are more often valid than a uniform draw would be, so both sides are exercised.
fn raw() -> impl Strategy<Value = RawNewPlant> {
    let valid_id = prop_oneof![
        any::<i64>().prop_map(Field::Int),
        (-MAX_SAFE as i64..=MAX_SAFE as i64).prop_map(|n| Field::Number(n as f64))
    ];
    let id = prop_oneof![field(), valid_id];
    let name = prop_oneof![field(), text().prop_map(Field::Str)];
    let tag = prop_oneof![field(), Just(Field::Absent), text().prop_map(Field::Str)];
    let unknown = prop_oneof![3 => Just(vec![]), 1 => prop::collection::vec(unknown_key(), 1..4)];
    (id, name, tag, unknown).prop_map(|(id, name, tag, unknown)| RawNewPlant {
        id,
        name,
        tag,
        unknown,
    })
}

// ---- the oracle ----

/// The code the oracle expects for `id`, or `None` when it is a valid id.
fn expected_id(field: &Field) -> Option<&'static str> {
    match field {
        Field::Int(_) => None,
        Field::Number(n) if n.is_nan() || n.is_infinite() || n.fract() != 0.0 => {
            Some("not_integer")
        }
        Field::Number(n) if n.abs() > MAX_SAFE => Some("unsafe_integer"),
        Field::Number(_) => None,
        Field::IntOutOfRange => Some("out_of_range"),
        Field::Absent => Some("required"),
        Field::Unreadable => Some("unreadable"),
        _ => Some("invalid_type"),
    }
}

fn expected_string(field: &Field, required: bool) -> Option<&'static str> {
    match field {
        Field::Str(_) => None,
        Field::Absent if required => Some("required"),
        Field::Absent => None,
        Field::MalformedStr => Some("malformed_string"),
        Field::Unreadable => Some("unreadable"),
        _ => Some("invalid_type"),
    }
}

/// The (path, code) list the oracle expects, in field order then key order.
fn expected_issues(input: &RawNewPlant) -> Vec<(String, &'static str)> {
    let known = [
        ("id", expected_id(&input.id)),
        ("name", expected_string(&input.name, true)),
        ("tag", expected_string(&input.tag, false)),
    ];
    let mut out: Vec<_> =
        known.into_iter().filter_map(|(p, c)| c.map(|c| (p.to_owned(), c))).collect();
    out.extend(input.unknown.iter().map(|k| (k.clone(), "unknown_field")));
    out
}

fn exact_id(field: &Field) -> i64 {
    match field {
        Field::Int(i) => *i,
        Field::Number(n) => *n as i64,
        other => panic!("not a valid id: {other:?}"),
    }
}

fn text_of(field: &Field) -> Option<String> {
    match field {
        Field::Str(s) => Some(s.clone()),
        _ => None,
    }
}

fn check_issue_message(issue: &Issue) {
    let shown: String = issue.path.chars().take(40).collect();
    assert!(
        issue.message.contains(&shown),
        "the message does not name {shown:?}: {}",
        issue.message
    );
    assert!(
        issue.message.chars().count() <= 400,
        "an unbounded message: {} chars",
        issue.message.chars().count()
    );
    if matches!(issue.path.as_str(), "id" | "name" | "tag") {
        assert!(issue.message.starts_with(&format!("{} ", issue.path)), "{}", issue.message);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES, ..ProptestConfig::default() })]

    /// Valid exactly when the oracle says so, with exactly the oracle's issues otherwise; and the
    /// same answer every time (no hidden state between calls).
    #[test]
    fn validation_agrees_with_the_oracle(input in raw()) {
        let expected = expected_issues(&input);
        let result = validate_new_plant(input.clone());
        prop_assert_eq!(&result, &validate_new_plant(input.clone()), "not deterministic");
        match result {
            Ok(plant) => {
                prop_assert!(expected.is_empty(), "accepted, the oracle expected {expected:?}");
                prop_assert_eq!(plant.id, exact_id(&input.id));
                if let Field::Number(n) = input.id {
                    prop_assert_eq!(plant.id as f64, n, "a safe number converts exactly");
                }
                prop_assert_eq!(Some(plant.name), text_of(&input.name));
                prop_assert_eq!(plant.tag, text_of(&input.tag));
            }
            Err(issues) => {
                prop_assert!(!issues.is_empty(), "Err with no issue");
                let got: Vec<_> = issues.iter().map(|i| (i.path.clone(), i.code.as_str())).collect();
                prop_assert_eq!(got, expected);
                for issue in &issues {
                    check_issue_message(issue);
                }
            }
        }
    }

    /// A valid NewPlant's JSON is an object whose id carries every digit and whose strings come back unchanged.
    #[test]
    fn json_body_round_trips_exactly(id in any::<i64>(), name in text(), tag in prop::option::of(text())) {
        let plant = NewPlant { id, name: name.clone(), tag: tag.clone() };
        let json = plant.to_json();
        let value: Value = serde_json::from_str(&json).expect("the body is JSON");
        prop_assert_eq!(value["id"].as_i64(), Some(id), "{}", json);
        prop_assert!(value["id"].is_i64(), "id is a JSON integer, not a float: {}", json);
        prop_assert_eq!(value["name"].as_str(), Some(name.as_str()));
        prop_assert_eq!(value.get("tag").and_then(Value::as_str), tag.as_deref());
        prop_assert_eq!(value.as_object().map(|o| o.len()), Some(2 + usize::from(tag.is_some())));
    }
}

/// The server's reading of JSON (feature `json-value`, on under `cargo test --workspace`) and the
/// rules agree with the client's body: what the client sends, the server stores unchanged.
#[cfg(feature = "json-value")]
mod through_json {
    use super::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: CASES, ..ProptestConfig::default() })]

        #[test]
        fn a_sent_body_validates_to_the_same_plant(id in any::<i64>(), name in text(), tag in prop::option::of(text())) {
            let plant = NewPlant { id, name, tag };
            let value: Value = serde_json::from_str(&plant.to_json()).expect("the body is JSON");
            let raw = RawNewPlant::from_json_value(value).expect("an object");
            prop_assert_eq!(validate_new_plant(raw), Ok(plant));
        }
    }
}

#[test]
fn the_oracle_itself_knows_the_edges() {
    assert_eq!(expected_id(&Field::Number(-0.0)), None);
    assert_eq!(expected_id(&Field::Number(MAX_SAFE + 1.0)), Some("unsafe_integer"));
    assert_eq!(expected_id(&Field::Number(f64::NAN)), Some("not_integer"));
    assert_eq!(expected_string(&Field::Absent, false), None);
    assert_eq!(expected_string(&Field::Null, false), Some("invalid_type"));
}
