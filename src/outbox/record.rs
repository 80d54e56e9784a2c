//! What Rust and the JS shell trade, as JSON text: a record (what a store keeps of an entry), an
//! entry's view (what JavaScript sees), and an event. The shell hands a record over with
//! `JSON.stringify` and takes one back with `JSON.parse`, so the schema is Rust's alone and `cargo
//! test` reads every version of it natively. A record read back is judged like any outside value: a
//! store may hand back what it likes, and one the outbox cannot read is set aside, never fatal.
//!
//! ```text
//! { v: 3, key, id?, plant: { id, name, tag? }, idType, state, revision, attempts, maybeCreated,
//!   addedAt, updatedAt, nextAttemptAt?, notBefore?, sendingUntil?,
//!   error?: { kind, status?, code?, message }, created?: { name, tag? }, dueAt?, expiresAt? }
//! ```
//!
//! Times are whole milliseconds. The `id` is a decimal string (every digit of an int64), `idType`
//! gives it back as it was added. `id`, `dueAt` and `expiresAt` are what the IndexedDB indexes read.
//! Schemas 2 (`active`, `doneAt`, times with a fraction) and 1 (no `v`, `revision`, `updatedAt`)
//! are read as they are, 1 as revision 0; a version above [`SCHEMA`] is a newer release's.

use super::entry::{Entry, EntryError, State};
use super::table::{Event, Held, Sent};
use crate::Kind;
use alloc::string::String;
use plant_store_model::json::{integer_of, raw_members, string_of, write_int, write_string};
use plant_store_model::{NewPlant, Plant};

/// The schema this release writes.
pub(crate) const SCHEMA: i64 = 3;

/// The record a store keeps of `entry`.
pub(crate) fn write(entry: &Entry) -> String {
    let (mut out, id) = (Json::new(), decimal(entry.plant.id));
    out.int("v", SCHEMA).str("key", &entry.key);
    if entry.by_id {
        out.str("id", &id);
    }
    out.raw("plant", &plant(Json::new().str("id", &id), &entry.plant.name, &entry.plant.tag));
    out.str("idType", if entry.bigint { "bigint" } else { "number" });
    fields(&mut out, entry);
    out.time("sendingUntil", entry.sending_until).time("dueAt", entry.due_at());
    out.time("expiresAt", entry.expires_at).end()
}

/// The entry as JavaScript sees it (`OutboxEntry`): its `plant.id` a JSON number, or for a BigInt
/// a string (JSON has no BigInt), which the shell turns back into one.
pub(crate) fn view(entry: &Entry) -> String {
    let (mut out, mut id) = (Json::new(), Json::new());
    match entry.bigint {
        true => id.str("id", &decimal(entry.plant.id)),
        false => id.int("id", entry.plant.id),
    };
    out.str("key", &entry.key).raw("plant", &plant(&mut id, &entry.plant.name, &entry.plant.tag));
    fields(&mut out, entry);
    out.end()
}

/// What a record and a view share.
fn fields(out: &mut Json, entry: &Entry) {
    out.str("state", entry.state.as_str()).int("revision", entry.revision.into());
    out.int("attempts", entry.attempts.into()).bool("maybeCreated", entry.maybe_created);
    out.time("addedAt", Some(entry.added_at)).time("updatedAt", Some(entry.updated_at));
    out.time("nextAttemptAt", entry.next_attempt_at).time("notBefore", entry.not_before);
    if let Some(error) = &entry.error {
        out.raw("error", &error_json(error));
    }
    if let Some(created) = &entry.created {
        out.raw("created", &plant(&mut Json::new(), &created.name, &created.tag));
    }
}

fn error_json(error: &EntryError) -> String {
    let mut out = Json::new();
    out.str("kind", error.kind.as_str());
    out.opt("status", error.status.map(i64::from)).opt("code", error.code.map(i64::from));
    out.str("message", &error.message).end()
}

/// A plant's JSON: `out` (its id, for a NewPlant), its name and its tag.
fn plant(out: &mut Json, name: &str, tag: &Option<String>) -> String {
    out.str("name", name);
    if let Some(tag) = tag {
        out.str("tag", tag);
    }
    out.end()
}

/// What a record holds: its entry, or why it cannot be read.
pub(crate) fn read(text: &str) -> Held {
    entry(text).map_or_else(Held::Unreadable, Held::Entry)
}

#[rustfmt::skip]
const NAMES: [&str; 17] = ["v", "key", "id", "plant", "idType", "state", "revision", "attempts",
    "maybeCreated", "addedAt", "updatedAt", "nextAttemptAt", "notBefore", "sendingUntil", "error",
    "created", "expiresAt"];

fn entry(text: &str) -> Result<Entry, String> {
    let found = raw_members(text, NAMES).map_err(|_| "it is not a JSON object")?;
    let [v, key, id, plant, id_type, state, revision, attempts, maybe, added, updated, next, not_before, until, error, created, expires] =
        found;
    let schema = int(v).unwrap_or(1);
    if schema > SCHEMA {
        let release = "it was written by a newer release of plant-store-client (schema ";
        return Err([release, &decimal(schema), "): open the outbox with that release"].concat());
    }
    let key = string(key).filter(|key| !key.is_empty()).ok_or("it has no key")?;
    let [plant_id, name, tag] = object(plant, ["id", "name", "tag"]).ok_or("it has no plant")?;
    let plant_id = string(plant_id).and_then(|id| id.parse().ok()).or_else(|| int(plant_id));
    let tag = match tag {
        None => None,
        tag => Some(string(tag).ok_or("its plant's tag is not a string")?),
    };
    let plant_id = plant_id.ok_or("its plant has no id")?;
    let plant = NewPlant { id: plant_id, name: string(name).ok_or("its plant has no name")?, tag };
    let state = string(state).and_then(|name| State::ALL.into_iter().find(|s| s.as_str() == name));
    let state = state.ok_or("it has no state")?;
    let error = match error {
        None => None,
        error => Some(read_error(error).ok_or("its error has no kind")?),
    };
    let created = match created {
        None => None,
        created => Some(read_plant(created).ok_or("its created plant has no name")?),
    };
    if (state == State::Created) != created.is_some() {
        return Err("its state and its created plant disagree".into());
    }
    let added_at = time(added).ok_or("it has no addedAt")?;
    Ok(Entry {
        attempts: whole(attempts).ok_or("it has no attempts")?,
        maybe_created: maybe == Some("true"),
        updated_at: time(updated).unwrap_or(added_at),
        next_attempt_at: time(next),
        not_before: time(not_before),
        error,
        created,
        revision: whole(revision).unwrap_or(0),
        bigint: id_type == Some(r#""bigint""#),
        sending_until: time(until),
        expires_at: time(expires),
        // Schema 3 writes the plant's id beside it while the store finds the entry by it.
        by_id: schema < SCHEMA || id.is_some(),
        state,
        ..Entry::new(key, plant, false, added_at)
    })
}

fn read_error(raw: Option<&str>) -> Option<EntryError> {
    let [kind, status, code, message] = object(raw, ["kind", "status", "code", "message"])?;
    Some(EntryError {
        kind: string(kind)?.parse::<Kind>().ok()?,
        status: int(status).and_then(|n| u16::try_from(n).ok()),
        code: int(code).and_then(|n| i32::try_from(n).ok()),
        message: string(message).unwrap_or_default(),
    })
}

fn read_plant(raw: Option<&str>) -> Option<Plant> {
    let [name, tag] = object(raw, ["name", "tag"])?;
    Some(Plant { name: string(name)?, tag: string(tag) })
}

/// The event the shell names, with its detail: `take` (`lock force`, `lock`, `force` or none),
/// `migrate` (`duplicate` or none), `add` (a new entry's record), `settled` ([`settled`]'s text),
/// and `retry`, `resolve`, `remove`, `expire` and `check`.
pub(crate) fn event(name: &str, detail: &str) -> Option<Event> {
    let lock = detail.starts_with("lock");
    Some(match name {
        "add" => match read(detail) {
            Held::Entry(entry) => Event::Add(entry),
            _ => return None,
        },
        "take" => Event::Take { lock, force: detail.ends_with("force") },
        "settled" => {
            let names =
                ["taken", "yielded", "requests", "maybeCreated", "retryAfterMs", "plant", "error"];
            let [taken, yielded, requests, maybe, after, plant, error] =
                raw_members(detail, names).ok()?;
            let outcome = match read_plant(plant) {
                Some(plant) => Ok(plant),
                None => Err(read_error(error)?),
            };
            let sent = Sent {
                outcome,
                requests: whole(requests)?,
                maybe_created: maybe == Some("true"),
                retry_after_ms: whole(after),
            };
            Event::Settled { taken: whole(taken)?, yielded: yielded == Some("true"), sent }
        }
        "migrate" => Event::Migrate { duplicate: detail == "duplicate" },
        "retry" => Event::Retry,
        "resolve" => Event::Resolve,
        "remove" => Event::Remove,
        "expire" => Event::Expire,
        "check" => Event::Check,
        _ => return None,
    })
}

/// The detail of the `settled` event of a call that sent an entry taken at revision `taken`: what
/// it `sent`, and whether its tab aborted it on the way out (`yielded`).
pub(crate) fn settled(taken: u32, yielded: bool, sent: &Sent) -> String {
    let mut out = Json::new();
    out.int("taken", taken.into()).bool("yielded", yielded).int("requests", sent.requests.into());
    out.bool("maybeCreated", sent.maybe_created)
        .opt("retryAfterMs", sent.retry_after_ms.map(i64::from));
    match &sent.outcome {
        Ok(created) => out.raw("plant", &plant(&mut Json::new(), &created.name, &created.tag)),
        Err(error) => out.raw("error", &error_json(error)),
    };
    out.end()
}

/// The members `names` of a member that is an object.
fn object<'a, const N: usize>(
    raw: Option<&'a str>,
    names: [&str; N],
) -> Option<[Option<&'a str>; N]> {
    raw_members(raw?, names).ok()
}

fn string(raw: Option<&str>) -> Option<String> {
    string_of(raw?)
}

fn int(raw: Option<&str>) -> Option<i64> {
    integer_of(raw?)
}

fn whole(raw: Option<&str>) -> Option<u32> {
    int(raw).and_then(|n| u32::try_from(n).ok())
}

/// A time: schema 2 kept some with a fraction, of which the whole part is read.
fn time(raw: Option<&str>) -> Option<f64> {
    let raw = raw?;
    let whole = raw.get(..raw.bytes().position(|b| b == b'.').unwrap_or(raw.len()));
    int(whole).map(|n| n as f64)
}

/// `n` in decimal, by the model's JSON writer (`format!` would bring core's formatting).
pub(crate) fn decimal(n: i64) -> String {
    let mut out = String::new();
    write_int(&mut out, n);
    out
}

/// A JSON object being written, member by member.
struct Json(String);

impl Json {
    fn new() -> Json {
        Json(String::from("{"))
    }

    fn name(&mut self, name: &str) -> &mut String {
        if self.0.len() > 1 {
            self.0.push(',');
        }
        write_string(&mut self.0, name);
        self.0.push(':');
        &mut self.0
    }

    fn str(&mut self, name: &str, value: &str) -> &mut Json {
        write_string(self.name(name), value);
        self
    }

    fn int(&mut self, name: &str, n: i64) -> &mut Json {
        write_int(self.name(name), n);
        self
    }

    fn opt(&mut self, name: &str, n: Option<i64>) -> &mut Json {
        if let Some(n) = n {
            self.int(name, n);
        }
        self
    }

    /// A time, in whole milliseconds.
    fn time(&mut self, name: &str, at: Option<f64>) -> &mut Json {
        self.opt(name, at.map(|at| at as i64))
    }

    fn bool(&mut self, name: &str, value: bool) -> &mut Json {
        self.name(name).push_str(if value { "true" } else { "false" });
        self
    }

    fn raw(&mut self, name: &str, json: &str) -> &mut Json {
        self.name(name).push_str(json);
        self
    }

    fn end(&mut self) -> String {
        self.0.push('}');
        core::mem::take(&mut self.0)
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;

    fn entry(text: &str) -> Entry {
        match read(text) {
            Held::Entry(entry) => entry,
            Held::Unreadable(why) => panic!("{why}: {text}"),
            Held::None => unreachable!(),
        }
    }

    fn unreadable(text: &str) -> String {
        match read(text) {
            Held::Unreadable(why) => why,
            held => panic!("{held:?}: {text}"),
        }
    }

    fn every_field() -> Entry {
        let plant =
            NewPlant { id: i64::MAX, name: "Fern \"🌿\"\n".into(), tag: Some("green".into()) };
        let mut e = Entry::new("k-1".into(), plant, true, 1_700_000_000_000.0);
        e.state = State::Pending;
        (e.attempts, e.maybe_created, e.revision, e.updated_at) = (2, true, 5, 1_700_000_000_500.0);
        (e.next_attempt_at, e.not_before) = (Some(1_700_000_002_000.0), Some(1_700_000_001_000.0));
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
        assert_eq!(entry(&write(&e)), e);
        let mut created =
            Entry::new("k-2".into(), NewPlant { id: -4, name: "A".into(), tag: None }, false, 5.0);
        created.state = State::Created;
        (created.created, created.expires_at, created.by_id) =
            (Some(Plant { name: "A".into(), tag: None }), Some(9.0), false);
        assert_eq!(entry(&write(&created)), created);
        let mut sending = created.clone();
        (sending.state, sending.created, sending.expires_at, sending.sending_until) =
            (State::Sending, None, None, Some(7.0));
        assert_eq!(entry(&write(&sending)), sending);
    }

    #[test]
    fn a_record_holds_what_the_indexes_read() {
        let e = every_field();
        let text = write(&e);
        assert!(text.starts_with(r#"{"v":3,"key":"k-1","id":"9223372036854775807","plant":{"id":"9223372036854775807","#), "{text}");
        assert!(text.ends_with(r#","dueAt":1700000002000}"#), "{text}");
        let mut created = e;
        (created.state, created.created, created.expires_at) =
            (State::Created, Some(Plant { name: "x".into(), tag: None }), Some(8.0));
        assert!(write(&created).ends_with(r#","expiresAt":8}"#));
    }

    #[test]
    fn a_view_is_what_javascript_sees() {
        let e = every_field();
        assert_eq!(
            view(&e),
            format!(
                "{{\"key\":\"k-1\",\"plant\":{{\"id\":\"9223372036854775807\",\"name\":\"Fern \\\"🌿\\\"\\n\",\"tag\":\"green\"}},\
                 \"state\":\"pending\",\"revision\":5,\"attempts\":2,\"maybeCreated\":true,\"addedAt\":1700000000000,\
                 \"updatedAt\":1700000000500,\"nextAttemptAt\":1700000002000,\"notBefore\":1700000001000,\
                 \"error\":{{\"kind\":\"unexpected_status\",\"status\":429,\"code\":7,\"message\":\"the Plant Store answered 429\"}}}}"
            )
        );
        let number =
            Entry::new("k".into(), NewPlant { id: 42, name: "n".into(), tag: None }, false, 1.0);
        assert!(view(&number).starts_with(r#"{"key":"k","plant":{"id":42,"name":"n"},"#));
    }

    #[test]
    fn schema_1_is_read_as_revision_0() {
        let e = entry(
            r#"{"key":"6f1c","plant":{"name":"Old","id":"9600"},"state":"sending","attempts":1,"maybeCreated":false,"addedAt":1700000000000,"idType":"number"}"#,
        );
        assert_eq!((e.revision, e.state, e.attempts, e.plant.id), (0, State::Sending, 1, 9600));
        assert_eq!((e.updated_at, e.sending_until, e.by_id, e.bigint), (1.7e12, None, true, false));
    }

    #[test]
    fn schema_2_is_read_its_times_whole() {
        let e = entry(
            r#"{"key":"k","revision":3,"plant":{"id":"12","name":"Fern","tag":"t"},"state":"created","attempts":1,"maybeCreated":false,"addedAt":1732800000000.001,"updatedAt":1732800000500,"created":{"name":"Fern","tag":"t"},"v":2,"idType":"bigint","doneAt":1732800000500}"#,
        );
        assert_eq!(
            (e.revision, e.added_at, e.bigint, e.expires_at),
            (3, 1_732_800_000_000.0, true, None)
        );
        assert_eq!(e.created, Some(Plant { name: "Fern".into(), tag: Some("t".into()) }));
    }

    #[test]
    fn what_cannot_be_read_says_why() {
        for (text, why) in [
            ("?", "it is not a JSON object"),
            ("[1]", "it is not a JSON object"),
            (r#"{"v":4,"key":"k"}"#, "it was written by a newer release of plant-store-client (schema 4): open the outbox with that release"),
            (r#"{"state":"flying"}"#, "it has no key"),
            (r#"{"key":"junk","state":"flying"}"#, "it has no plant"),
            (r#"{"key":"k","plant":{"id":"x","name":"n"}}"#, "its plant has no id"),
            (r#"{"key":"k","plant":{"id":"1","name":"n","tag":null}}"#, "its plant's tag is not a string"),
            (r#"{"key":"k","plant":{"id":"1","name":"n"},"state":"flying"}"#, "it has no state"),
            (r#"{"key":"k","plant":{"id":"1","name":"n"},"state":"created","attempts":1,"addedAt":1}"#, "its state and its created plant disagree"),
            (r#"{"key":"k","plant":{"id":"1","name":"n"},"state":"pending","attempts":-1,"addedAt":1}"#, "it has no attempts"),
            (r#"{"key":"k","plant":{"id":"1","name":"n"},"state":"pending","error":{"kind":"nope"}}"#, "its error has no kind"),
        ] {
            assert_eq!(unreadable(text), why, "{text}");
        }
    }

    #[test]
    fn events_are_read_from_their_name_and_detail() {
        let taken = |detail: &str| match event("take", detail) {
            Some(Event::Take { lock, force }) => (lock, force),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            [taken("lock"), taken("force"), taken("lock force"), taken("")],
            [(true, false), (false, true), (true, true), (false, false)]
        );
        for (name, detail, debug) in [
            ("retry", "", "Retry"),
            ("resolve", "", "Resolve"),
            ("remove", "", "Remove"),
            ("expire", "", "Expire"),
            ("check", "", "Check"),
            ("migrate", "duplicate", "Migrate { duplicate: true }"),
            ("migrate", "", "Migrate { duplicate: false }"),
        ] {
            assert_eq!(format!("{:?}", event(name, detail).unwrap()), debug);
        }
        assert!(
            matches!(event("add", &write(&every_field())), Some(Event::Add(e)) if e == every_field())
        );
        for (name, detail) in [("", ""), ("fly", ""), ("add", r#"{"key":"k"}"#), ("settled", "{}")]
        {
            assert!(event(name, detail).is_none(), "{name} {detail}");
        }
    }

    #[test]
    fn a_settled_event_is_read_back_as_it_was_written() {
        let error =
            EntryError { kind: Kind::Network, status: None, code: None, message: "no".into() };
        for sent in [
            Sent {
                outcome: Ok(Plant { name: "F".into(), tag: Some("t".into()) }),
                requests: 1,
                maybe_created: false,
                retry_after_ms: None,
            },
            Sent {
                outcome: Err(error),
                requests: 3,
                maybe_created: true,
                retry_after_ms: Some(2_000),
            },
        ] {
            match event("settled", &settled(7, true, &sent)) {
                Some(Event::Settled { taken: 7, yielded: true, sent: read }) => {
                    assert_eq!(read, sent)
                }
                other => panic!("{other:?}"),
            }
        }
    }
}
