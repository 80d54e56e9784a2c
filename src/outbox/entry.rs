//! One plant in the outbox ([`Entry`]), its [`State`], and its record: the plain object a store
//! keeps and JavaScript sees, written and read here only. A record read back is judged like any
//! outside value: a store may hand back what it likes.
//!
//! ```text
//! { key, plant: { id, name, tag? }, state, attempts, maybeCreated, addedAt,
//!   nextAttemptAt?, error?: { kind, status?, code?, message }, created?: { name, tag? } }
//! ```
//!
//! In the store the `id` is a decimal string (every store keeps a string, and every digit of an
//! int64), with `idType` to give it back as it was added: a number or a BigInt.

use crate::error::Error;
use crate::Kind;
use alloc::string::String;
use js_sys::{Object, Reflect};
use plant_store_model::{NewPlant, Plant};
use wasm_bindgen::{JsCast, JsValue};

/// Where an entry stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Waiting to be sent, now or at its `next_attempt_at`.
    Pending,
    /// A request with its key was (or is being) sent, and its answer is not in: on open, it is
    /// sent again with the same key.
    Sending,
    /// The store created it: [`Entry::created`] is the Plant.
    Created,
    /// The store refused it and no attempt may have created it: [`Entry::error`] says why. Never
    /// sent again on its own.
    Rejected,
    /// An attempt may have created it, and a later one was refused (a "duplicate id" after a
    /// timeout, from a server that does not honour `Idempotency-Key`): the app decides. Never sent
    /// again on its own.
    Uncertain,
}

impl State {
    /// `"pending"`, `"sending"`, `"created"`, `"rejected"` or `"uncertain"`.
    pub fn as_str(self) -> &'static str {
        match self {
            State::Pending => "pending",
            State::Sending => "sending",
            State::Created => "created",
            State::Rejected => "rejected",
            State::Uncertain => "uncertain",
        }
    }

    fn from_name(name: &str) -> Option<State> {
        let states =
            [State::Pending, State::Sending, State::Created, State::Rejected, State::Uncertain];
        states.into_iter().find(|state| state.as_str() == name)
    }
}

/// What an entry keeps of its last failed attempt: never the token (the error's text is redacted,
/// and its `cause` is not kept).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryError {
    /// The error's kind.
    pub kind: Kind,
    /// The HTTP status, when an answer came.
    pub status: Option<u16>,
    /// The service's `error` value, when it sent an Error body.
    pub code: Option<i32>,
    /// The error's message.
    pub message: String,
}

impl From<&Error> for EntryError {
    fn from(error: &Error) -> EntryError {
        let (kind, status, code) = (error.kind(), error.status(), error.code());
        EntryError { kind, status, code, message: error.message().into() }
    }
}

/// One plant in the outbox.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Entry {
    /// The entry's key, a UUID v4: also the `Idempotency-Key` of every request that sends it.
    pub key: String,
    /// The plant, as it was added (valid: it passed the contract's rules).
    pub plant: NewPlant,
    /// Where it stands.
    pub state: State,
    /// How many requests were sent for it.
    pub attempts: u32,
    /// One of them may have created the plant without the outbox learning it.
    pub maybe_created: bool,
    /// When it was added, in milliseconds since the epoch: the order it is sent in.
    pub added_at: f64,
    /// When it is next sent, when it waits after a failure (milliseconds since the epoch).
    pub next_attempt_at: Option<f64>,
    /// The last failed attempt's error.
    pub error: Option<EntryError>,
    /// The Plant the store created.
    pub created: Option<Plant>,
    /// Its id was given as a BigInt (JavaScript gets it back as one).
    pub(crate) bigint: bool,
}

impl Entry {
    /// A new pending entry for `plant`.
    pub(crate) fn new(key: String, plant: NewPlant, bigint: bool, added_at: f64) -> Entry {
        Entry {
            key,
            plant,
            state: State::Pending,
            attempts: 0,
            maybe_created: false,
            added_at,
            next_attempt_at: None,
            error: None,
            created: None,
            bigint,
        }
    }

    /// The entry's record: its `plant.id` a decimal string for a store, or for JavaScript a
    /// number or a BigInt as it was added.
    pub(crate) fn to_js(&self, for_store: bool) -> JsValue {
        let record = Object::new();
        let plant = named(&self.plant.name, self.plant.tag.as_deref());
        let id = match (for_store, self.bigint) {
            (true, _) => JsValue::from(crate::error::decimal(self.plant.id)),
            (false, true) => JsValue::from(self.plant.id),
            // Exact: a number id is a safe integer.
            (false, false) => JsValue::from_f64(self.plant.id as f64),
        };
        set(&plant, "id", &id);
        set(&record, "key", &self.key.as_str().into());
        set(&record, "plant", &plant);
        set(&record, "state", &self.state.as_str().into());
        set(&record, "attempts", &self.attempts.into());
        set(&record, "maybeCreated", &self.maybe_created.into());
        set(&record, "addedAt", &self.added_at.into());
        if for_store {
            set(&record, "idType", &(if self.bigint { "bigint" } else { "number" }).into());
        }
        if let Some(at) = self.next_attempt_at {
            set(&record, "nextAttemptAt", &at.into());
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
            set(&record, "created", &named(&created.name, created.tag.as_deref()));
        }
        record.into()
    }

    /// The entry a store's record holds; what is wrong with it, when it holds none.
    pub(crate) fn from_js(record: &JsValue) -> Result<Entry, &'static str> {
        let text = |of: &JsValue, key: &str| get(of, key).as_string();
        let number = |of: &JsValue, key: &str| get(of, key).as_f64();
        let plant = get(record, "plant");
        let tag = match get(&plant, "tag") {
            tag if tag.is_undefined() => None,
            tag => Some(tag.as_string().ok_or("its plant's tag is not a string")?),
        };
        let id = text(&plant, "id").and_then(|id| id.parse().ok()).ok_or("its plant has no id")?;
        let name = text(&plant, "name").ok_or("its plant has no name")?;
        let state = text(record, "state").and_then(|state| State::from_name(&state));
        let attempts =
            number(record, "attempts").filter(|n| *n >= 0.0 && *n <= f64::from(u32::MAX));
        let error = match get(record, "error") {
            error if error.is_undefined() => None,
            error => Some(EntryError {
                kind: text(&error, "kind")
                    .and_then(|kind| kind_named(&kind))
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
        Ok(Entry {
            key: text(record, "key").filter(|key| !key.is_empty()).ok_or("it has no key")?,
            plant: NewPlant { id, name, tag },
            state: state.ok_or("it has no state")?,
            attempts: attempts.ok_or("it has no attempts")? as u32,
            maybe_created: get(record, "maybeCreated").is_truthy(),
            added_at: number(record, "addedAt").unwrap_or_default(),
            next_attempt_at: number(record, "nextAttemptAt"),
            error,
            created,
            bigint: text(record, "idType").as_deref() == Some("bigint"),
        })
    }
}

impl Entry {
    /// What an attempt's `outcome` makes of the entry, at `now` (`random` in [0, 1), the
    /// backoff's jitter):
    /// - a Plant: `created`;
    /// - a refusal (a 400, or another 4xx that waiting cannot change): `rejected`, or `uncertain`
    ///   when an earlier attempt may have created the plant;
    /// - anything else (no answer, a timeout, 401 after the refresh, 408, 409, 425, 429, 5xx, an
    ///   answer outside the contract, a token source that failed): `pending` again, next sent
    ///   after the backoff (or a longer `Retry-After`), which the record keeps across reloads.
    pub fn settle(&mut self, outcome: &Result<Plant, Error>, now: f64, random: f64) {
        self.next_attempt_at = None;
        let error = match outcome {
            Ok(plant) => {
                (self.state, self.created, self.error) =
                    (State::Created, Some(plant.clone()), None);
                return;
            }
            Err(error) => error,
        };
        self.error = Some(error.into());
        let refused = match (error.kind(), error.status()) {
            (Kind::Rejected, _) | (Kind::InvalidResponse, Some(400)) => true,
            (Kind::UnexpectedStatus, Some(status @ 400..=499)) => {
                !matches!(status, 401 | 408 | 409 | 425 | 429)
            }
            _ => false,
        };
        if refused {
            self.state = if self.maybe_created { State::Uncertain } else { State::Rejected };
            return;
        }
        self.state = State::Pending;
        self.maybe_created |= error.maybe_created();
        let asked = error.retry_after_ms().map_or(0.0, f64::from);
        self.next_attempt_at = Some(now + asked.max(backoff(self.attempts, random)));
    }
}

/// The first wait after a failed attempt, doubled after each: 1 s.
const BACKOFF_BASE_MS: f64 = 1_000.0;
/// The longest wait: 5 minutes.
const BACKOFF_MAX_MS: f64 = 300_000.0;

/// The wait after attempt number `attempts` failed: half of the doubled cap plus a random half
/// ("equal jitter"), so that tabs and reloads do not all come back at once.
fn backoff(attempts: u32, random: f64) -> f64 {
    let doubled = BACKOFF_BASE_MS * f64::from(1u32 << attempts.clamp(1, 20).saturating_sub(1));
    let cap = doubled.min(BACKOFF_MAX_MS);
    cap / 2.0 + random * cap / 2.0
}

/// The kind `err.kind` names (the stored error's).
fn kind_named(name: &str) -> Option<Kind> {
    let kinds = [
        Kind::Validation,
        Kind::Config,
        Kind::Network,
        Kind::Timeout,
        Kind::Aborted,
        Kind::Rejected,
        Kind::Unauthorized,
        Kind::UnexpectedStatus,
        Kind::InvalidResponse,
    ];
    kinds.into_iter().find(|kind| kind.as_str() == name)
}

/// `{ name, tag? }`.
fn named(name: &str, tag: Option<&str>) -> Object {
    let object = Object::new();
    set(&object, "name", &name.into());
    if let Some(tag) = tag {
        set(&object, "tag", &tag.into());
    }
    object
}

fn set(object: &Object, key: &str, value: &JsValue) {
    let _ = Reflect::set(object, &key.into(), value);
}

/// `of[key]`, `undefined` when `of` is no object or reading it throws.
fn get(of: &JsValue, key: &str) -> JsValue {
    match of.dyn_ref::<Object>() {
        Some(object) => Reflect::get(object, &key.into()).unwrap_or_default(),
        None => JsValue::UNDEFINED,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Draft;
    use alloc::string::ToString;

    fn entry() -> Entry {
        let plant = NewPlant { id: 1, name: "Fern".into(), tag: None };
        Entry { attempts: 1, ..Entry::new("k".into(), plant, false, 0.0) }
    }

    fn error(draft: Draft, maybe_created: bool) -> Error {
        draft.redact(&[]).in_call(1, maybe_created, None)
    }

    #[test]
    fn a_plant_is_created_and_the_last_error_forgotten() {
        let mut e = entry();
        e.error = Some((&error(Draft::config("x"), false)).into());
        e.settle(&Ok(Plant { name: "Fern".into(), tag: None }), 10.0, 0.5);
        assert_eq!((e.state, e.error.is_none(), e.next_attempt_at), (State::Created, true, None));
        assert_eq!(e.created.map(|p| p.name), Some("Fern".to_string()));
    }

    #[test]
    fn a_refusal_is_rejected_or_uncertain_after_an_attempt_that_may_have_created_it() {
        let refusals = [
            Draft::new(Kind::Rejected, "duplicate").with_status(400).with_code(3),
            Draft::new(Kind::UnexpectedStatus, "gone").with_status(422),
            Draft::new(Kind::InvalidResponse, "no Error body").with_status(400),
        ];
        for refusal in refusals {
            let refusal = error(refusal, false);
            let mut e = entry();
            e.settle(&Err(refusal.clone()), 10.0, 0.5);
            assert_eq!((e.state, e.next_attempt_at), (State::Rejected, None), "{refusal}");
            assert_eq!(e.error.as_ref().map(|e| e.kind), Some(refusal.kind()));
            let mut e = entry();
            e.maybe_created = true;
            e.settle(&Err(refusal.clone()), 10.0, 0.5);
            assert_eq!(e.state, State::Uncertain, "{refusal}");
        }
    }

    #[test]
    fn anything_else_waits_with_a_backoff_the_record_keeps() {
        let timeout = error(Draft::new(Kind::Timeout, "slow"), true);
        let mut e = entry();
        e.settle(&Err(timeout.clone()), 1_000.0, 0.0);
        assert_eq!((e.state, e.maybe_created), (State::Pending, true));
        assert_eq!(e.next_attempt_at, Some(1_500.0), "half of 1 s at the least");
        e.attempts = 4;
        e.settle(&Err(timeout.clone()), 1_000.0, 1.0);
        assert_eq!(e.next_attempt_at, Some(9_000.0), "8 s after the 4th");
        e.attempts = 40;
        e.settle(&Err(timeout.clone()), 0.0, 1.0);
        assert_eq!(e.next_attempt_at, Some(BACKOFF_MAX_MS), "at most 5 minutes");
        let statuses = [401, 408, 409, 425, 429, 500, 503];
        for status in statuses {
            let kind = if status == 401 { Kind::Unauthorized } else { Kind::UnexpectedStatus };
            let mut e = entry();
            e.settle(&Err(error(Draft::new(kind, "later").with_status(status), false)), 0.0, 0.0);
            assert_eq!(e.state, State::Pending, "{status}");
        }
        let busy = Draft::new(Kind::UnexpectedStatus, "busy").with_status(503);
        let asked = error(busy.with_retry_after(Some(60_000)), false);
        let mut e = entry();
        e.settle(&Err(asked.clone()), 0.0, 0.0);
        assert_eq!(e.next_attempt_at, Some(60_000.0), "a longer Retry-After wins");
    }
}
