//! What an entry is outside Rust: a record (what the store keeps) and a view (what the app's
//! JavaScript sees), both plain objects. The schema is this file's alone, read and written through
//! [`Fields`] and [`Sink`] (a JS object in the driver, a map in the tests), so that `cargo test`
//! reads it natively. A record read back is judged like any outside value: one the outbox cannot
//! read is set aside, never fatal.
//!
//! ```text
//! { v: 1, key, id, plant: { id, name, tag? }, idType, state, revision, attempts, maybeCreated,
//!   addedAt, updatedAt, nextAttemptAt?, notBefore?, sendingUntil?, sender?, firstSentAt?,
//!   sentKey?, error?: { kind, status?, code?, message }, created?: { name, tag? }, dueAt?,
//!   expiresAt? }
//! ```
//!
//! Times are whole milliseconds. `id` (also the plant's) is a decimal string, every digit of an
//! int64; `idType` gives it back as it was added. `id`, `dueAt` and `expiresAt` are what the
//! IndexedDB indexes read. A record of another `v` is a newer release's, or not the outbox's.

use super::entry::{Entry, EntryError, Record, State};
use crate::error::decimal;
use crate::Kind;
use alloc::string::String;
use alloc::vec::Vec;
use js_sys::{Array, Object, Reflect};
use plant_store_model::{NewPlant, Plant};
use wasm_bindgen::{JsCast, JsValue};

/// The schema this release writes.
pub(crate) const SCHEMA: f64 = 1.0;

/// The fields of a record as read.
pub(crate) trait Fields: Sized {
    fn text(&self, name: &str) -> Option<String>;
    fn number(&self, name: &str) -> Option<f64>;
    fn flag(&self, name: &str) -> Option<bool>;
    fn object(&self, name: &str) -> Option<Self>;
    /// Whether the field is there at all (`tag: null` is, and is wrong).
    fn has(&self, name: &str) -> bool;
}

/// Where a record or a view is written, field by field.
pub(crate) trait Sink: Sized {
    fn new() -> Self;
    fn text(&mut self, name: &str, value: &str);
    fn number(&mut self, name: &str, value: f64);
    fn flag(&mut self, name: &str, value: bool);
    /// A plant's id for JavaScript: a number, or a BigInt past the safe integers.
    fn id(&mut self, name: &str, id: i64, bigint: bool);
    fn object(&mut self, name: &str, value: Self);
}

/// The record a store keeps of `entry`.
pub(crate) fn write<S: Sink>(entry: &Entry) -> S {
    let (mut out, id) = (S::new(), decimal(entry.plant.id));
    out.number("v", SCHEMA);
    out.text("key", &entry.key);
    out.text("id", &id);
    let mut plant = S::new();
    plant.text("id", &id);
    out.object("plant", named(plant, &entry.plant.name, &entry.plant.tag));
    out.text("idType", if entry.bigint { "bigint" } else { "number" });
    fields(&mut out, entry);
    entry.sender.iter().for_each(|sender| out.text("sender", sender));
    entry.sent_key.iter().for_each(|key| out.text("sentKey", key));
    optional(&mut out, "sendingUntil", entry.sending_until);
    optional(&mut out, "firstSentAt", entry.first_sent_at);
    optional(&mut out, "dueAt", entry.due_at());
    optional(&mut out, "expiresAt", entry.expires_at);
    out
}

/// The entry as JavaScript sees it (`OutboxEntry`): its `plant.id` of the type it was added with.
pub(crate) fn view<S: Sink>(entry: &Entry) -> S {
    let mut out = S::new();
    out.text("key", &entry.key);
    let mut plant = S::new();
    plant.id("id", entry.plant.id, entry.bigint);
    out.object("plant", named(plant, &entry.plant.name, &entry.plant.tag));
    fields(&mut out, entry);
    out
}

/// What a record and a view share.
fn fields<S: Sink>(out: &mut S, entry: &Entry) {
    out.text("state", entry.state.as_str());
    out.number("revision", entry.revision.into());
    out.number("attempts", entry.attempts.into());
    out.flag("maybeCreated", entry.maybe_created);
    out.number("addedAt", entry.added_at);
    out.number("updatedAt", entry.updated_at);
    optional(out, "nextAttemptAt", entry.next_attempt_at);
    optional(out, "notBefore", entry.not_before);
    if let Some(error) = &entry.error {
        let mut e = S::new();
        e.text("kind", error.kind.as_str());
        optional(&mut e, "status", error.status.map(f64::from));
        optional(&mut e, "code", error.code.map(f64::from));
        e.text("message", &error.message);
        out.object("error", e);
    }
    if let Some(created) = &entry.created {
        out.object("created", named(S::new(), &created.name, &created.tag));
    }
}

/// A plant's fields: `out` (its id, for a NewPlant), its name and its tag.
fn named<S: Sink>(mut out: S, name: &str, tag: &Option<String>) -> S {
    out.text("name", name);
    if let Some(tag) = tag {
        out.text("tag", tag);
    }
    out
}

/// The number `value`, when there is one.
fn optional<S: Sink>(out: &mut S, name: &str, value: Option<f64>) {
    if let Some(value) = value {
        out.number(name, value);
    }
}

/// What a record holds: its entry, or why it cannot be read (none without a key).
pub(crate) fn read<F: Fields + Clone>(raw: &F) -> Option<Record<F>> {
    let key = raw.text("key").filter(|key| !key.is_empty())?;
    let aside =
        |reason: &str| Record::Aside { key: key.clone(), reason: reason.into(), raw: raw.clone() };
    Some(match (raw.number("v"), entry(raw, &key)) {
        (Some(SCHEMA), Ok(entry)) => Record::Entry(entry),
        (Some(SCHEMA), Err(why)) => aside(why),
        (Some(v), _) if v > SCHEMA => {
            let release = "it was written by a newer release of plant-store-client (schema ";
            aside(&[release, &decimal(v as i64), "): open the outbox with that release"].concat())
        }
        _ => aside("it was not written by plant-store-client's outbox (no schema 1)"),
    })
}

fn entry<F: Fields>(r: &F, key: &str) -> Result<Entry, &'static str> {
    let plant = r.object("plant").ok_or("it has no plant")?;
    let id = plant.text("id").and_then(|id| id.parse().ok()).ok_or("its plant has no id")?;
    let name = plant.text("name").ok_or("its plant has no name")?;
    let tag = plant.has("tag").then(|| plant.text("tag").ok_or("its plant's tag is not a string"));
    let tag = tag.transpose()?;
    let state = r.text("state").ok_or("it has no state")?;
    let state = State::ALL.into_iter().find(|s| s.as_str() == state);
    let state = state.ok_or("its state is none of the outbox's")?;
    let error = r.object("error").map(|e| read_error(&e).ok_or("its error has no kind"));
    let made = |c: F| Some(Plant { name: c.text("name")?, tag: c.text("tag") });
    let created = r.object("created").map(|c| made(c).ok_or("its created plant has no name"));
    let (error, created) = (error.transpose()?, created.transpose()?);
    if (state == State::Created) != created.is_some() {
        return Err("its state and its created plant disagree");
    }
    let at = |name| r.number(name).and_then(whole).map(|at| at as f64);
    let added_at = at("addedAt").ok_or("it has no addedAt")?;
    let count = |name| r.number(name).and_then(whole).and_then(|n| u32::try_from(n).ok());
    Ok(Entry {
        bigint: r.text("idType").as_deref() == Some("bigint"),
        state,
        revision: count("revision").ok_or("it has no revision")?,
        attempts: count("attempts").ok_or("it has no attempts")?,
        maybe_created: r.flag("maybeCreated") == Some(true),
        updated_at: at("updatedAt").ok_or("it has no updatedAt")?,
        next_attempt_at: at("nextAttemptAt"),
        not_before: at("notBefore"),
        error,
        created,
        sending_until: at("sendingUntil"),
        sender: r.text("sender"),
        first_sent_at: at("firstSentAt"),
        sent_key: r.text("sentKey"),
        expires_at: at("expiresAt"),
        ..Entry::new(key.into(), NewPlant { id, name, tag }, false, added_at)
    })
}

fn read_error<F: Fields>(error: &F) -> Option<EntryError> {
    let code = |name| error.number(name).and_then(whole);
    Some(EntryError {
        kind: error.text("kind")?.parse::<Kind>().ok()?,
        status: code("status").and_then(|n| u16::try_from(n).ok()),
        code: code("code").and_then(|n| i32::try_from(n).ok()),
        message: error.text("message").unwrap_or_default(),
    })
}

/// `n` when it is an integer that a JS number holds exactly.
fn whole(n: f64) -> Option<i64> {
    ((n as i64) as f64 == n && n.abs() <= 9.007_199_254_740_991e15).then_some(n as i64)
}

/// The fields of a JS object, read and written as they are.
pub(crate) fn set(object: &Object, name: &str, value: impl Into<JsValue>) {
    let _ = Reflect::set(object, &name.into(), &value.into());
}

/// The field `name` of `value` (undefined when it has none, or reading it threw).
pub(crate) fn field(value: &JsValue, name: &str) -> JsValue {
    match value.is_object() {
        true => Reflect::get(value, &name.into()).unwrap_or_default(),
        false => JsValue::UNDEFINED,
    }
}

impl Fields for JsValue {
    fn text(&self, name: &str) -> Option<String> {
        field(self, name).as_string()
    }
    fn number(&self, name: &str) -> Option<f64> {
        field(self, name).as_f64()
    }
    fn flag(&self, name: &str) -> Option<bool> {
        field(self, name).as_bool()
    }
    fn object(&self, name: &str) -> Option<JsValue> {
        Some(field(self, name)).filter(JsValue::is_object)
    }
    fn has(&self, name: &str) -> bool {
        !field(self, name).is_undefined()
    }
}

impl Sink for Object {
    fn new() -> Object {
        Object::new()
    }
    fn text(&mut self, name: &str, value: &str) {
        set(self, name, value);
    }
    fn number(&mut self, name: &str, value: f64) {
        set(self, name, value);
    }
    fn flag(&mut self, name: &str, value: bool) {
        set(self, name, value);
    }
    fn id(&mut self, name: &str, id: i64, bigint: bool) {
        set(self, name, if bigint { JsValue::from(id) } else { JsValue::from(id as f64) });
    }
    fn object(&mut self, name: &str, value: Object) {
        set(self, name, value);
    }
}

/// `value` as an array (empty if it is none).
pub(crate) fn list(value: &JsValue) -> Array {
    value.clone().dyn_into().unwrap_or_default()
}

/// The strings of the array `value`.
pub(crate) fn strings(value: &JsValue) -> Vec<String> {
    list(value).iter().filter_map(|key| key.as_string()).collect()
}

/// `keys` as a JS array.
pub(crate) fn to_js(keys: Vec<String>) -> Array {
    keys.into_iter().map(JsValue::from).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::collections::BTreeMap;
    use alloc::string::ToString;
    use alloc::vec::Vec;

    /// A record as a plain JS object holds it, natively: a map of values.
    #[derive(Clone, Debug, PartialEq)]
    enum Value {
        Text(String),
        Number(f64),
        Flag(bool),
        BigInt(i64),
        Null,
        Object(BTreeMap<String, Value>),
    }
    use Value::*;

    impl Fields for Value {
        fn text(&self, name: &str) -> Option<String> {
            match self.get(name)? {
                Text(text) => Some(text.clone()),
                _ => None,
            }
        }
        fn number(&self, name: &str) -> Option<f64> {
            match self.get(name)? {
                Number(n) => Some(*n),
                _ => None,
            }
        }
        fn flag(&self, name: &str) -> Option<bool> {
            match self.get(name)? {
                Flag(b) => Some(*b),
                _ => None,
            }
        }
        fn object(&self, name: &str) -> Option<Value> {
            Some(self.get(name)?.clone()).filter(|value| matches!(value, Object(_)))
        }
        fn has(&self, name: &str) -> bool {
            self.get(name).is_some()
        }
    }

    impl Value {
        fn get(&self, name: &str) -> Option<&Value> {
            match self {
                Object(fields) => fields.get(name),
                _ => None,
            }
        }
        fn set(&mut self, name: &str, value: Value) {
            if let Object(fields) = self {
                fields.insert(name.into(), value);
            }
        }
    }

    impl Sink for Value {
        fn new() -> Value {
            Object(BTreeMap::new())
        }
        fn text(&mut self, name: &str, value: &str) {
            self.set(name, Text(value.into()));
        }
        fn number(&mut self, name: &str, value: f64) {
            self.set(name, Number(value));
        }
        fn flag(&mut self, name: &str, value: bool) {
            self.set(name, Flag(value));
        }
        fn id(&mut self, name: &str, id: i64, bigint: bool) {
            self.set(name, if bigint { BigInt(id) } else { Number(id as f64) });
        }
        fn object(&mut self, name: &str, value: Value) {
            self.set(name, value);
        }
    }

    /// An object of `fields`, each `name=value` with a value in JSON's words: `"text"`, a
    /// number, `true`, `false`, `null`, or `{...}` of more.
    fn object(fields: &[(&str, Value)]) -> Value {
        Object(fields.iter().map(|(name, value)| (name.to_string(), value.clone())).collect())
    }

    fn text(s: &str) -> Value {
        Text(s.into())
    }

    fn entry(record: &Value) -> Entry {
        match read(record) {
            Some(Record::Entry(entry)) => entry,
            other => panic!("{other:?}: {record:?}"),
        }
    }

    fn every_field() -> Entry {
        let plant =
            NewPlant { id: i64::MAX, name: "Fern \"🌿\"\n".into(), tag: Some("green".into()) };
        let mut e = Entry::new("k-1".into(), plant, true, 1_700_000_000_000.0);
        (e.attempts, e.maybe_created, e.revision, e.updated_at) = (2, true, 5, 1_700_000_000_500.0);
        (e.next_attempt_at, e.not_before) = (Some(1_700_000_002_000.0), Some(1_700_000_001_000.0));
        (e.first_sent_at, e.sent_key) = (Some(1_699_000_000_000.0), Some("k-2".into()));
        let message = "the Plant Store answered 429".into();
        e.error = Some(EntryError {
            kind: Kind::UnexpectedStatus,
            status: Some(429),
            code: Some(7),
            message,
        });
        e
    }

    #[test]
    fn a_record_is_read_back_as_it_was_written() {
        let e = every_field();
        assert_eq!(entry(&write::<Value>(&e)), e);
        let mut created =
            Entry::new("k-2".into(), NewPlant { id: -4, name: "A".into(), tag: None }, false, 5.0);
        created.state = State::Created;
        (created.created, created.expires_at) =
            (Some(Plant { name: "A".into(), tag: None }), Some(9.0));
        assert_eq!(entry(&write::<Value>(&created)), created);
        let mut sending = created.clone();
        (sending.state, sending.created, sending.expires_at) = (State::Sending, None, None);
        (sending.sending_until, sending.sender) = (Some(7.0), Some("tab-1".into()));
        assert_eq!(entry(&write::<Value>(&sending)), sending);
    }

    #[test]
    fn a_record_holds_what_the_indexes_read() {
        let e = every_field();
        let record = write::<Value>(&e);
        let id = text("9223372036854775807");
        assert_eq!((record.get("v"), record.get("id")), (Some(&Number(1.0)), Some(&id)));
        assert_eq!(record.get("plant").and_then(|p| p.get("id")), Some(&id));
        assert_eq!(record.get("dueAt"), Some(&Number(1_700_000_002_000.0)));
        let mut created = e;
        (created.state, created.created, created.expires_at) =
            (State::Created, Some(Plant { name: "x".into(), tag: None }), Some(8.0));
        let record = write::<Value>(&created);
        assert_eq!((record.get("expiresAt"), record.get("dueAt")), (Some(&Number(8.0)), None));
    }

    #[test]
    fn a_view_is_what_javascript_sees() {
        let seen = view::<Value>(&every_field());
        let plant = object(&[
            ("id", BigInt(i64::MAX)),
            ("name", text("Fern \"🌿\"\n")),
            ("tag", text("green")),
        ]);
        let error = object(&[
            ("kind", text("unexpected_status")),
            ("status", Number(429.0)),
            ("code", Number(7.0)),
            ("message", text("the Plant Store answered 429")),
        ]);
        let expected = object(&[
            ("key", text("k-1")),
            ("plant", plant),
            ("state", text("pending")),
            ("revision", Number(5.0)),
            ("attempts", Number(2.0)),
            ("maybeCreated", Flag(true)),
            ("addedAt", Number(1_700_000_000_000.0)),
            ("updatedAt", Number(1_700_000_000_500.0)),
            ("nextAttemptAt", Number(1_700_000_002_000.0)),
            ("notBefore", Number(1_700_000_001_000.0)),
            ("error", error),
        ]);
        assert_eq!(seen, expected);
        let number =
            Entry::new("k".into(), NewPlant { id: 42, name: "n".into(), tag: None }, false, 1.0);
        let plant = view::<Value>(&number).get("plant").cloned();
        assert_eq!(plant, Some(object(&[("id", Number(42.0)), ("name", text("n"))])));
    }

    #[test]
    fn what_cannot_be_read_says_why() {
        let plant = |id: Value, tag: Option<Value>| {
            let mut plant = object(&[("id", id), ("name", text("n"))]);
            tag.into_iter().for_each(|tag| plant.set("tag", tag));
            plant
        };
        let with = |fields: &[(&str, Value)]| {
            let mut record = write::<Value>(&every_field());
            record.set("key", text("k"));
            fields.iter().for_each(|(name, value)| record.set(name, value.clone()));
            record
        };
        assert!(read(&Null).is_none(), "no key: not a record to set aside");
        assert!(read(&object(&[("key", text(""))])).is_none());
        let cases: Vec<(Value, &str)> = Vec::from([
            (object(&[("key", text("k")), ("state", text("flying"))]), "it was not written by plant-store-client's outbox (no schema 1)"),
            (object(&[("v", Number(4.0)), ("key", text("k"))]), "it was written by a newer release of plant-store-client (schema 4): open the outbox with that release"),
            (with(&[("plant", Null)]), "it has no plant"),
            (with(&[("plant", plant(text("x"), None))]), "its plant has no id"),
            (with(&[("plant", plant(Number(1.0), None))]), "its plant has no id"),
            (with(&[("plant", plant(text("1"), Some(Null)))]), "its plant's tag is not a string"),
            (with(&[("state", Null)]), "it has no state"),
            (with(&[("state", text("flying"))]), "its state is none of the outbox's"),
            (with(&[("state", text("created"))]), "its state and its created plant disagree"),
            (with(&[("attempts", Number(-1.0))]), "it has no attempts"),
            (with(&[("revision", Number(1.5))]), "it has no revision"),
            (with(&[("updatedAt", text("soon"))]), "it has no updatedAt"),
            (with(&[("error", object(&[("kind", text("nope"))]))]), "its error has no kind"),
        ]);
        for (record, why) in cases {
            match read(&record) {
                Some(Record::Aside { key, reason, raw }) => {
                    assert_eq!((key.as_str(), reason.as_str()), ("k", why), "{record:?}");
                    assert_eq!(raw, record, "the record set aside as it was");
                }
                other => panic!("{other:?}: {record:?}"),
            }
        }
    }
}
