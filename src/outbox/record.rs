//! An entry's record: the plain object a store keeps, written and read here only, and the entry as
//! JavaScript sees it. A record read back is judged like any outside value: a store may hand back
//! what it likes, and one the outbox cannot read is set aside ([`Unreadable`]), never fatal.
//!
//! ```text
//! { v: 2, key, revision, seq?, plant: { id, name, tag? }, idType, state, attempts, maybeCreated,
//!   addedAt, updatedAt, nextAttemptAt?, notBefore?, error?: { kind, status?, code?, message },
//!   created?: { name, tag? }, active?: addedAt, doneAt?: updatedAt }
//! ```
//!
//! - In a store the `id` is a decimal string (every digit of an int64), with `idType` to give it back
//!   as it was added, a number or a BigInt.
//! - `active` (every entry not created) and `doneAt` (a created one) are what the IndexedDB indexes
//!   read: `open` loads the active entries only, the retention purge finds the expired ones.
//! - `seq` is the store's: the order of its writes, by which a tab reads what changed.
//! - Schema versions: 1 (before revisions: no `v`, `revision`, `updatedAt`, `active`, `doneAt`) is
//!   read as revision 0; a version above [`SCHEMA`] is set aside as written by a newer release.

use super::entry::{Entry, EntryError, State};
use crate::{plant_object, Kind};
use alloc::string::String;
use js_sys::{Object, Reflect};
use plant_store_model::{NewPlant, Plant};
use wasm_bindgen::{JsCast, JsValue};

/// The schema version this release writes.
pub(crate) const SCHEMA: u32 = 2;

/// A record the outbox cannot read: kept where it is, listed, and removable by its key.
#[derive(Clone, Debug)]
pub struct Unreadable {
    /// Its key, when it has one that is a string.
    pub key: Option<String>,
    /// What is wrong with it.
    pub reason: String,
    /// The record as the store gave it.
    pub record: JsValue,
}

/// A write the store makes only if it still holds what the writer read: the record of `key` at
/// revision `expected` (`None`: no record), replaced by `record` (`None`: deleted).
#[derive(Debug)]
pub(crate) struct Write {
    pub(crate) key: String,
    pub(crate) expected: Option<u32>,
    pub(crate) record: Option<JsValue>,
}

/// Whether `current` (a store's record, `undefined` when there is none) is what a write expects.
pub(crate) fn holds(current: &JsValue, expected: Option<u32>) -> bool {
    match expected {
        None => current.is_undefined(),
        Some(revision) => !current.is_undefined() && revision_of(current) == revision,
    }
}

/// A record's revision: 0 for one written before revisions (schema 1).
fn revision_of(record: &JsValue) -> u32 {
    number(record, "revision").map_or(0, |n| n as u32)
}

impl Entry {
    /// The record a store keeps.
    pub(crate) fn to_record(&self) -> JsValue {
        let record = self.to_js_with(true);
        set(&record, "v", &SCHEMA.into());
        let id_type = if self.bigint { "bigint" } else { "number" };
        set(&record, "idType", &id_type.into());
        match self.state {
            State::Created => set(&record, "doneAt", &self.updated_at.into()),
            _ => set(&record, "active", &self.added_at.into()),
        }
        record.into()
    }

    /// The entry as JavaScript sees it, its `plant.id` a number or a BigInt as it was added.
    #[cfg(feature = "js")]
    pub(crate) fn to_js(&self) -> JsValue {
        self.to_js_with(false).into()
    }

    fn to_js_with(&self, for_store: bool) -> Object {
        let id = match (for_store, self.bigint) {
            (true, _) => JsValue::from(decimal(self.plant.id)),
            (false, true) => JsValue::from(self.plant.id),
            // Exact: a number id is a safe integer.
            (false, false) => JsValue::from_f64(self.plant.id as f64),
        };
        let plant = plant_object(Some(&id), &self.plant.name, self.plant.tag.as_deref());
        let record = Object::new();
        set(&record, "key", &self.key.as_str().into());
        set(&record, "revision", &self.revision.into());
        set(&record, "plant", &plant);
        set(&record, "state", &self.state.as_str().into());
        set(&record, "attempts", &self.attempts.into());
        set(&record, "maybeCreated", &self.maybe_created.into());
        set(&record, "addedAt", &self.added_at.into());
        set(&record, "updatedAt", &self.updated_at.into());
        if let Some(at) = self.next_attempt_at {
            set(&record, "nextAttemptAt", &at.into());
        }
        if let Some(at) = self.not_before {
            set(&record, "notBefore", &at.into());
        }
        if let Some(error) = &self.error {
            let seen = Object::new();
            set(&seen, "kind", &error.kind.as_str().into());
            if let Some(status) = error.status {
                set(&seen, "status", &status.into());
            }
            if let Some(code) = error.code {
                set(&seen, "code", &code.into());
            }
            set(&seen, "message", &error.message.as_str().into());
            set(&record, "error", &seen);
        }
        if let Some(created) = &self.created {
            set(&record, "created", &plant_object(None, &created.name, created.tag.as_deref()));
        }
        record
    }

    /// The entry a store's record holds, or the record set aside with what is wrong with it.
    pub(crate) fn from_record(record: &JsValue) -> Result<Entry, Unreadable> {
        read(record).map_err(|reason| Unreadable {
            key: text(record, "key"),
            reason,
            record: record.clone(),
        })
    }
}

fn read(record: &JsValue) -> Result<Entry, String> {
    let schema = number(record, "v").unwrap_or(1.0);
    if schema > f64::from(SCHEMA) {
        let release = "it was written by a newer release of plant-store-client (schema ";
        let then = "): open the outbox with that release";
        return Err([release, &decimal(schema as i64), then].concat());
    }
    let key = text(record, "key").filter(|key| !key.is_empty()).ok_or("it has no key")?;
    let plant = get(record, "plant");
    let tag = match get(&plant, "tag") {
        tag if tag.is_undefined() => None,
        tag => Some(tag.as_string().ok_or("its plant's tag is not a string")?),
    };
    let id = text(&plant, "id").and_then(|id| id.parse().ok()).ok_or("its plant has no id")?;
    let name = text(&plant, "name").ok_or("its plant has no name")?;
    let state = text(record, "state")
        .and_then(|name| State::ALL.into_iter().find(|state| state.as_str() == name));
    let state = state.ok_or("it has no state")?;
    let attempts = number(record, "attempts").filter(|n| (0.0..=f64::from(u32::MAX)).contains(n));
    let added_at = number(record, "addedAt").ok_or("it has no addedAt")?;
    let error = match get(record, "error") {
        error if error.is_undefined() => None,
        error => Some(EntryError {
            kind: text(&error, "kind")
                .and_then(|kind| kind.parse::<Kind>().ok())
                .ok_or("its error has no kind")?,
            status: number(&error, "status").map(|status| status as u16),
            code: number(&error, "code").map(|code| code as i32),
            message: text(&error, "message").unwrap_or_default(),
        }),
    };
    let created = match get(record, "created") {
        created if created.is_undefined() => None,
        created => Some(Plant {
            name: text(&created, "name").ok_or("its created plant has no name")?,
            tag: text(&created, "tag"),
        }),
    };
    if (state == State::Created) != created.is_some() {
        return Err("its state and its created plant disagree".into());
    }
    Ok(Entry {
        key,
        plant: NewPlant { id, name, tag },
        state,
        attempts: attempts.ok_or("it has no attempts")? as u32,
        maybe_created: get(record, "maybeCreated").is_truthy(),
        added_at,
        updated_at: number(record, "updatedAt").unwrap_or(added_at),
        next_attempt_at: number(record, "nextAttemptAt"),
        not_before: number(record, "notBefore"),
        error,
        created,
        revision: revision_of(record),
        bigint: text(record, "idType").as_deref() == Some("bigint"),
    })
}

/// `n` in decimal (the model's JSON writer: `format!` would bring core's formatting into the
/// `.wasm`).
pub(crate) fn decimal(n: i64) -> String {
    let mut out = String::new();
    plant_store_model::json::write_int(&mut out, n);
    out
}

fn set(object: &Object, key: &str, value: &JsValue) {
    let _ = Reflect::set(object, &key.into(), value);
}

/// `of[key]`, `undefined` when `of` is no object or reading it throws.
pub(crate) fn get(of: &JsValue, key: &str) -> JsValue {
    match of.dyn_ref::<Object>() {
        Some(object) => Reflect::get(object, &key.into()).unwrap_or_default(),
        None => JsValue::UNDEFINED,
    }
}

fn text(of: &JsValue, key: &str) -> Option<String> {
    get(of, key).as_string()
}

fn number(of: &JsValue, key: &str) -> Option<f64> {
    get(of, key).as_f64()
}
