//! The one table of rules that changes what an outbox's store holds: [`apply`], pure Rust over what
//! the store holds under a key, an [`Event`] and a [`Context`], so that `cargo test` checks every
//! pair natively (against docs/outbox.md's table, cell by cell). *When* an event happens is the
//! tab's (`tab.rs`).
//!
//! ```text
//!   add ──► pending ──take──► sending ──settled: 200──────► created ──retention──► (gone)
//!            ▲   ▲               │  │   settled: refused ─► rejected, or uncertain if maybe created
//!            │   └── after a wait┘  │   settled: else ────► pending, after a wait
//!            └── retry (also rejected, uncertain)   take again: its sender gone
//!   resolve: pending, rejected, uncertain ─► created     remove: any ─► gone
//! ```

use super::config::Rules;
use super::entry::{Entry, EntryError, Record, Sent, State};
use crate::Kind;
use alloc::string::String;
use plant_store_model::Plant;

/// What happens to a record: a plant is added (this new entry, offered to what the store holds
/// under its plant's id); a round offers it to be sent (`lock`: the round holds the Web Lock;
/// `force`: for `flush()` and `online`, whatever its wait but the server's); the call that took it
/// at revision `taken` ended (`left`: its tab cut it short); the app's `retry` (with `key`, drawn
/// for it, for an entry `uncertain` because its own key's lifetime is over), `markCreated`,
/// `remove`.
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)] // one lives at a time
pub(crate) enum Event {
    Add(Entry),
    Take { lock: bool, force: bool },
    Settled { taken: u32, left: bool, sent: Sent },
    Retry { key: String },
    Resolve,
    Remove,
}

/// What [`apply`] makes of a record and an event: the entry as it now is, to write; as the store
/// holds it, unchanged (a plant added again); the record leaves the store; or the event does not
/// apply to the record as it is (why, for the caller who asked).
#[derive(Clone, Debug, PartialEq)]
#[allow(clippy::large_enum_variant)] // a write's few
pub(crate) enum Step {
    Put(Entry),
    Keep(Entry),
    Delete,
    Refused(String),
}

/// What the rules read from the world, passed in so that tests choose it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Context<'a> {
    pub(crate) now: f64,
    /// A number in [0, 1), the backoff's jitter.
    pub(crate) random: f64,
    /// The tab's settings: how long a send may take, the retention, how long a server keeps a key.
    pub(crate) rules: &'a Rules,
    /// This tab while it holds its own Web Lock (a take makes it the sender), and the other tabs
    /// holding theirs: a round with the lock takes no entry whose sender is among them.
    pub(crate) tab: Option<&'a str>,
    pub(crate) live: &'a [String],
}

/// The first wait after a failed attempt, doubled after each: 1 s.
pub(crate) const BACKOFF_BASE_MS: f64 = 1_000.0;
/// The longest backoff: 5 minutes.
pub(crate) const BACKOFF_MAX_MS: f64 = 300_000.0;
/// The longest `Retry-After` honoured: 1 hour. A server that asks for more is asked again then.
pub(crate) const RETRY_AFTER_CEILING_MS: u32 = 3_600_000;

fn refused(why: &str) -> Step {
    Step::Refused(why.into())
}

/// The table of rules: what `event` makes of what the store holds.
pub(crate) fn apply<V>(held: Option<Record<V>>, event: Event, cx: &Context<'_>) -> Step {
    use State::*;
    let (entry, event) = match (held, event) {
        (None, Event::Add(new)) => return Step::Put(new),
        (None, _) => return refused("the outbox holds no entry of this key"),
        (Some(Record::Aside { .. }), Event::Remove) => return Step::Delete,
        // Maybe a newer release's entry of that plant: it stands until the app removes it.
        (Some(Record::Aside { key, reason, .. }), Event::Add(_)) => {
            let message = "a record of this plant's id that the outbox cannot read is in the way (";
            let key: String = key.chars().take(100).collect();
            let fix = "); remove it, by its key (";
            return Step::Refused([message, &reason, fix, &key, "), to add the plant"].concat());
        }
        (Some(Record::Aside { reason, .. }), _) => {
            let message = "it is a record the outbox cannot read (";
            return Step::Refused([message, &reason, "): remove it"].concat());
        }
        (Some(Record::Entry(entry)), event) => (entry, event),
    };
    let mut next = entry.clone();
    (next.revision, next.updated_at) = (entry.revision.saturating_add(1), cx.now);
    match (entry.state, event) {
        (_, Event::Add(new)) if new.plant == entry.plant => return Step::Keep(entry),
        (_, Event::Add(_)) => {
            let message = [
                "the outbox already holds another plant with this id (entry ",
                &entry.key,
                ", ",
                entry.state.as_str(),
                "): remove it first to add this one",
            ];
            return Step::Refused(message.concat());
        }
        (_, Event::Remove) => return Step::Delete,
        // A Plant is the truth, whatever was made of the entry meanwhile, but its removal.
        (
            Pending | Sending | Rejected | Uncertain,
            Event::Settled { sent: Sent { outcome: Ok(plant), requests, .. }, .. },
        ) => {
            created(&mut next, plant, cx);
            next.attempts = entry.attempts.saturating_add(requests);
        }
        (Created, _) => return refused("it was created"),
        (Pending, Event::Take { force, .. }) => {
            let now = cx.now;
            let due = entry.not_before.is_none_or(|at| at <= now)
                && (force || entry.next_attempt_at.is_none_or(|at| at <= now));
            if !due {
                return refused("it is not due");
            }
            sent_by(&mut next, cx);
        }
        (Sending, Event::Take { lock, .. }) => {
            // With the lock, once its sender's own lock is gone (closed, frozen, cached, crashed);
            // without the lock, or with no sender named (its tab's own lock was refused), once its
            // call has surely ended. That send counts one request, which may have created the plant.
            let busy = match (&entry.sender, lock) {
                (Some(tab), true) => cx.live.contains(tab),
                _ => entry.sending_until.is_some_and(|at| at > cx.now),
            };
            if busy {
                return refused("it is being sent");
            }
            (next.attempts, next.maybe_created) = (entry.attempts.saturating_add(1), true);
            next.first_sent_at.get_or_insert(entry.updated_at);
            sent_by(&mut next, cx);
        }
        (_, Event::Take { .. }) => return refused("it was refused"),
        (Sending, Event::Settled { taken, left: true, sent }) if taken == entry.revision => {
            // Its tab let go: due as it was before the take (no new backoff), counting what went
            // out.
            next.attempts = entry.attempts.saturating_add(sent.requests);
            lost(&mut next, sent.maybe_created, entry.updated_at);
            next.state = Pending;
        }
        (Sending, Event::Settled { taken, left: false, sent }) if taken == entry.revision => {
            failed(&mut next, &sent, cx, entry.updated_at)
        }
        (_, Event::Settled { .. }) => return refused("it is no longer being sent from here"),
        (Sending, Event::Retry { .. } | Event::Resolve) => {
            return refused("it is being sent: wait for its answer")
        }
        (_, Event::Retry { key }) => {
            // A new key only for an entry set `uncertain` for its key's age: an app's retry of a
            // pending one sends nothing that the take would not.
            if entry.state == Uncertain && expired(&entry, cx) {
                (next.sent_key, next.first_sent_at) = (Some(key), None);
            }
            (next.state, next.next_attempt_at, next.not_before) = (Pending, None, None)
        }
        (_, Event::Resolve) => {
            // A Plant is the echo of its NewPlant's name and tag.
            let plant = Plant { name: entry.plant.name.clone(), tag: entry.plant.tag.clone() };
            created(&mut next, plant, cx);
        }
    }
    Step::Put(next)
}

/// The entry is taken by this tab: sent now, unless its key may be gone from the server, which
/// could then create the plant twice: `uncertain`, for the app to look.
fn sent_by(entry: &mut Entry, cx: &Context<'_>) {
    if expired(entry, cx) {
        let why = "not sent again: its Idempotency-Key is older than keyLifetimeMs, and the \
                   server may have forgotten it; look for the plant, then markCreated, retry \
                   (a new key) or remove";
        let last = entry.error.take();
        let (kind, status) = last.map_or((Kind::Timeout, None), |e| (e.kind, e.status));
        entry.error = Some(EntryError { kind, status, code: None, message: why.into() });
        (entry.state, entry.sending_until, entry.sender) = (State::Uncertain, None, None);
        (entry.next_attempt_at, entry.not_before) = (None, None);
        return;
    }
    (entry.state, entry.sending_until) = (State::Sending, Some(cx.now + cx.rules.send_ms));
    entry.sender = cx.tab.map(String::from);
}

/// Whether a request with the entry's key may have reached the store longer ago than the server
/// keeps keys.
fn expired(entry: &Entry, cx: &Context<'_>) -> bool {
    let first = entry.first_sent_at.filter(|_| entry.maybe_created);
    first.is_some_and(|at| at + cx.rules.key_lifetime_ms <= cx.now)
}

/// The send taken at `taken_at` ended; `maybe` when it may have created the plant.
fn lost(entry: &mut Entry, maybe: bool, taken_at: f64) {
    if maybe {
        entry.first_sent_at.get_or_insert(taken_at);
    }
    entry.maybe_created |= maybe;
    (entry.sending_until, entry.sender) = (None, None);
}

fn created(entry: &mut Entry, plant: Plant, cx: &Context<'_>) {
    (entry.state, entry.created, entry.error) = (State::Created, Some(plant), None);
    (entry.maybe_created, entry.next_attempt_at, entry.not_before) = (false, None, None);
    (entry.sending_until, entry.sender) = (None, None);
    entry.expires_at = Some(cx.now + cx.rules.retention_ms);
}

/// A call that failed:
/// - a refusal (a 400, or another 4xx that waiting cannot change): `rejected`, or `uncertain` when
///   this call or an earlier one may have created the plant;
/// - anything else (no answer, a timeout, 401 after the refresh, 408, 409, 425, 429, 5xx, an answer
///   outside the contract, a token source that failed): `pending` again, next
///   sent after the backoff or the `Retry-After` (up to [`RETRY_AFTER_CEILING_MS`]), whichever is
///   longer.
fn failed(entry: &mut Entry, sent: &Sent, cx: &Context<'_>, taken_at: f64) {
    let Err(error) = &sent.outcome else { return };
    // A send that failed before its request went out (its token source failed) counts one, so
    // that the backoff grows for it too.
    entry.attempts = entry.attempts.saturating_add(sent.requests.max(1));
    lost(entry, sent.maybe_created, taken_at);
    entry.error = Some(error.clone());
    let refused = match (error.kind, error.status) {
        (Kind::Rejected, _) | (Kind::InvalidResponse, Some(400)) => true,
        (Kind::UnexpectedStatus, Some(status @ 400..=499)) => {
            !matches!(status, 401 | 408 | 409 | 425 | 429)
        }
        _ => false,
    };
    entry.state = match (refused, entry.maybe_created) {
        (true, true) => State::Uncertain,
        (true, false) => State::Rejected,
        (false, _) => State::Pending,
    };
    let asked = sent.retry_after_ms.filter(|_| !refused);
    entry.not_before = asked.map(|ms| cx.now + f64::from(ms.min(RETRY_AFTER_CEILING_MS)));
    entry.next_attempt_at = (!refused).then(|| {
        let backoff = cx.now + backoff(entry.attempts, cx.random);
        entry.not_before.map_or(backoff, |asked| asked.max(backoff))
    });
}

/// The wait after attempt number `attempts` failed: half of the doubled cap plus a random half
/// ("equal jitter"), so that tabs and reloads do not all come back at once; whole milliseconds,
/// as an entry's times are.
fn backoff(attempts: u32, random: f64) -> f64 {
    let doubled = BACKOFF_BASE_MS * f64::from(1u32 << attempts.clamp(1, 20).saturating_sub(1));
    let cap = doubled.min(BACKOFF_MAX_MS);
    f64::from((cap / 2.0 + random * cap / 2.0) as u32)
}

#[cfg(test)]
pub(crate) use tests::docs_table;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outbox::entry::NEVER;
    use alloc::string::ToString;
    use alloc::vec::Vec;
    use plant_store_model::NewPlant;

    const NOW: f64 = 1_000_000.0;
    const DAY: f64 = 86_400_000.0;
    /// Past every entry's retention and wait; this tab is `me`, and `other` is alive.
    const LATER: Context<'static> = Context {
        now: NOW + DAY,
        random: 0.5,
        rules: &Rules {
            send_ms: 11_000.0,
            retention_ms: DAY,
            key_lifetime_ms: 2.0 * DAY,
            concurrency: 4,
            worker: false,
        },
        tab: Some("me"),
        live: &[],
    };

    fn fern() -> Plant {
        Plant { name: "Fern".into(), tag: None }
    }

    fn new_plant() -> NewPlant {
        NewPlant { id: 1, name: "Fern".into(), tag: None }
    }

    /// An entry in `state`, added at 0 and last changed at 10, at revision 3, once attempted.
    fn entry(state: State) -> Entry {
        let mut e = Entry::new("k".into(), new_plant(), false, 0.0);
        (e.state, e.attempts, e.updated_at, e.revision) = (state, 1, 10.0, 3);
        match state {
            State::Created => (e.created, e.expires_at) = (Some(fern()), Some(20.0)),
            // Its call has not ended by LATER, and its sender's own lock is gone: only a round with
            // the lock takes it.
            State::Sending => {
                (e.sending_until, e.sender) = (Some(NOW + DAY + 1_000.0), Some("gone".into()))
            }
            _ => {}
        }
        e
    }

    fn failure(kind: Kind, status: Option<u16>) -> EntryError {
        EntryError { kind, status, code: None, message: "failed".into() }
    }

    fn settled(outcome: Result<Plant, EntryError>, left: bool) -> Event {
        let sent = Sent { outcome, requests: 1, maybe_created: false, retry_after_ms: None };
        Event::Settled { taken: 3, left, sent }
    }

    fn held_entry(entry: Entry) -> Option<Record<()>> {
        Some(Record::Entry(entry))
    }

    /// The held record of a row of the table.
    fn held(row: &str) -> Option<Record<()>> {
        let state = |state| held_entry(entry(state));
        match row {
            "nothing" => None,
            "pending" => state(State::Pending),
            "sending" => state(State::Sending),
            "sending, maybe created" => {
                let mut e = entry(State::Sending);
                e.maybe_created = true;
                held_entry(e)
            }
            "sending, its sender alive" => {
                let mut e = entry(State::Sending);
                e.sender = Some("alive".into());
                held_entry(e)
            }
            "sending, no sender" => {
                let mut e = entry(State::Sending);
                e.sender = None;
                held_entry(e)
            }
            "sending, its time up" => {
                let mut e = entry(State::Sending);
                e.sending_until = Some(20.0);
                held_entry(e)
            }
            "created" => state(State::Created),
            "rejected" => state(State::Rejected),
            "uncertain" => state(State::Uncertain),
            "unreadable" => {
                Some(Record::Aside { key: "k".into(), reason: "it has no key".into(), raw: () })
            }
            other => panic!("a row the test does not know: {other}"),
        }
    }

    /// The event of a column of the table.
    fn event(column: &str) -> Event {
        let mut other = Entry::new("other".into(), new_plant(), false, NOW);
        match column {
            "add" => Event::Add(other),
            "add another" => {
                other.plant.name = "Palm".into();
                Event::Add(other)
            }
            "take" => Event::Take { lock: false, force: false },
            "take, locked" => Event::Take { lock: true, force: false },
            "settled: 200" => settled(Ok(fern()), false),
            "settled: refused" => settled(Err(failure(Kind::Rejected, Some(400))), false),
            "settled: else" => settled(Err(failure(Kind::UnexpectedStatus, Some(503))), false),
            "settled: left" => settled(Err(failure(Kind::Aborted, None)), true),
            "retry" => Event::Retry { key: "fresh".into() },
            "resolve" => Event::Resolve,
            "remove" => Event::Remove,
            other => panic!("a column the test does not know: {other}"),
        }
    }

    /// A step as the table writes it.
    fn cell(step: &Step) -> &str {
        match step {
            Step::Put(e) => e.state.as_str(),
            Step::Keep(_) => "kept",
            Step::Delete => "gone",
            Step::Refused(_) => "–",
        }
    }

    /// The table of docs/outbox.md after the comment `marker`: its header, then its rows, each
    /// row's cells trimmed (the line under the header left out).
    pub(crate) fn docs_table(marker: &str) -> (Vec<String>, Vec<Vec<String>>) {
        let docs = include_str!("../../docs/outbox.md");
        let table = docs.split(marker).nth(1).expect("the table's marker");
        let mut lines = table.lines().skip(1).take_while(|line| line.starts_with('|'));
        let split = |line: &str| -> Vec<String> {
            line.trim_matches('|').split('|').map(|cell| cell.trim().to_string()).collect()
        };
        let header = split(lines.next().expect("the header"));
        (header, lines.skip(1).map(split).collect())
    }

    /// docs/outbox.md's table of rules, cell by cell, is what `apply` does.
    #[test]
    fn the_table_of_the_docs_is_the_code() {
        let (columns, rows) = docs_table("<!-- the table of rules");
        let mut checked = 0;
        for cells in rows {
            for (column, expected) in columns.iter().zip(&cells).skip(1) {
                let live = [String::from("alive")];
                let step = apply(held(&cells[0]), event(column), &Context { live: &live, ..LATER });
                assert_eq!(cell(&step), expected, "{} + {column}: {step:?}", cells[0]);
                if let Step::Put(next) = &step {
                    if cells[0] != "nothing" {
                        assert_eq!((next.revision, next.updated_at), (4, LATER.now), "{column}");
                    }
                }
                checked += 1;
            }
        }
        assert_eq!(checked, 11 * 11, "every row and column of the table");
    }

    fn put(step: Step) -> Entry {
        match step {
            Step::Put(entry) => entry,
            other => panic!("{other:?}"),
        }
    }

    fn at(now: f64, random: f64) -> Context<'static> {
        Context { now, random, ..LATER }
    }

    #[test]
    fn a_plant_is_created_its_doubt_and_error_forgotten_and_kept_a_retention() {
        let mut sending = entry(State::Sending);
        sending.maybe_created = true;
        sending.error = Some(failure(Kind::Timeout, None));
        let sent =
            Sent { outcome: Ok(fern()), requests: 2, maybe_created: false, retry_after_ms: None };
        let e = put(apply(
            held_entry(sending),
            Event::Settled { taken: 3, left: false, sent },
            &at(NOW, 0.5),
        ));
        assert_eq!((e.state, e.attempts, e.maybe_created), (State::Created, 3, false));
        assert_eq!((e.sending_until, e.expires_at, e.due_at()), (None, Some(NOW + DAY), None));
        assert_eq!((e.error, e.next_attempt_at, e.created), (None, None, Some(fern())));
    }

    #[test]
    fn a_refusal_is_rejected_or_uncertain_when_a_request_may_have_created_it() {
        let refusals = [
            failure(Kind::Rejected, Some(400)),
            failure(Kind::UnexpectedStatus, Some(422)),
            failure(Kind::InvalidResponse, Some(400)),
        ];
        for refusal in refusals {
            let plain = Sent {
                outcome: Err(refusal.clone()),
                requests: 1,
                maybe_created: false,
                retry_after_ms: None,
            };
            let settle = |sent: &Sent| Event::Settled { taken: 3, left: false, sent: sent.clone() };
            let e = put(apply(held_entry(entry(State::Sending)), settle(&plain), &LATER));
            assert_eq!((e.state, e.next_attempt_at), (State::Rejected, None), "{refusal:?}");
            assert_eq!((e.error.as_ref(), e.due_at()), (Some(&refusal), Some(NEVER)));
            // This very call may have: its first answer lost, its retry refused as a duplicate.
            let call = Sent { maybe_created: true, requests: 2, ..plain };
            let e = put(apply(held_entry(entry(State::Sending)), settle(&call), &LATER));
            assert_eq!(
                (e.state, e.maybe_created, e.attempts),
                (State::Uncertain, true, 3),
                "{refusal:?}"
            );
        }
    }

    #[test]
    fn anything_else_waits_with_a_backoff() {
        let timeout = |requests| Event::Settled {
            taken: 3,
            left: false,
            sent: Sent {
                outcome: Err(failure(Kind::Timeout, None)),
                requests,
                maybe_created: true,
                retry_after_ms: None,
            },
        };
        let e = put(apply(held_entry(entry(State::Sending)), timeout(1), &at(1_000.0, 0.0)));
        assert_eq!((e.state, e.maybe_created, e.attempts), (State::Pending, true, 2));
        assert_eq!(e.next_attempt_at, Some(2_000.0), "half of 2 s after the 2nd attempt");
        assert_eq!(e.due_at(), Some(2_000.0));
        let mut fourth = entry(State::Sending);
        fourth.attempts = 3;
        let e = put(apply(held_entry(fourth.clone()), timeout(1), &at(1_000.0, 1.0)));
        assert_eq!(e.next_attempt_at, Some(9_000.0));
        fourth.attempts = 40;
        let most = put(apply(held_entry(fourth), timeout(1), &at(0.0, 1.0))).next_attempt_at;
        assert_eq!(most, Some(BACKOFF_MAX_MS), "at most 5 minutes");
        let e = put(apply(held_entry(entry(State::Sending)), timeout(1), &at(1_000.0, 0.3337)));
        assert_eq!(e.next_attempt_at, Some(2_333.0), "whole milliseconds");
        // No request went out (the token source failed): the wait still doubles, try after try.
        let mut unsent = entry(State::Sending);
        unsent.attempts = 0;
        for (tried, wait) in [(1, 1_000.0), (2, 2_000.0), (3, 4_000.0)] {
            let e = put(apply(held_entry(unsent.clone()), timeout(0), &at(0.0, 1.0)));
            assert_eq!((e.attempts, e.next_attempt_at), (tried, Some(wait)));
            (unsent.attempts, unsent.revision) = (e.attempts, 3);
        }
        for status in [401, 408, 409, 425, 429, 500, 502, 503, 504] {
            let kind = if status == 401 { Kind::Unauthorized } else { Kind::UnexpectedStatus };
            let event = settled(Err(failure(kind, Some(status))), false);
            assert_eq!(
                put(apply(held_entry(entry(State::Sending)), event, &LATER)).state,
                State::Pending,
                "{status}"
            );
        }
        for kind in [Kind::Network, Kind::Config, Kind::Aborted, Kind::InvalidResponse] {
            let event = settled(Err(failure(kind, None)), false);
            assert_eq!(
                put(apply(held_entry(entry(State::Sending)), event, &LATER)).state,
                State::Pending,
                "{kind}"
            );
        }
    }

    #[test]
    fn a_retry_after_sets_the_next_attempt_no_earlier_than_asked_up_to_the_ceiling() {
        let busy = |ms| Event::Settled {
            taken: 3,
            left: false,
            sent: Sent {
                outcome: Err(failure(Kind::UnexpectedStatus, Some(429))),
                requests: 1,
                maybe_created: false,
                retry_after_ms: Some(ms),
            },
        };
        let sending = || held_entry(entry(State::Sending));
        for (asked, then) in
            [(2_000, NOW + 2_000.0), (60_000, NOW + 60_000.0), (u32::MAX, NOW + 3_600_000.0)]
        {
            let e = put(apply(sending(), busy(asked), &at(NOW, 0.0)));
            assert_eq!((e.next_attempt_at, e.not_before), (Some(then), Some(then)), "{asked} ms");
        }
        // A shorter one than the backoff: the backoff, and nothing takes it before the server's.
        let e = put(apply(sending(), busy(10), &at(NOW, 1.0)));
        assert_eq!((e.next_attempt_at, e.not_before), (Some(NOW + 2_000.0), Some(NOW + 10.0)));
        let take = |force| Event::Take { lock: true, force };
        assert!(matches!(
            apply(held_entry(e.clone()), take(false), &at(NOW + 1_000.0, 0.5)),
            Step::Refused(_)
        ));
        assert!(matches!(
            apply(held_entry(e.clone()), take(true), &at(NOW + 5.0, 0.5)),
            Step::Refused(_)
        ));
        let forced = put(apply(held_entry(e.clone()), take(true), &at(NOW + 10.0, 0.5)));
        assert_eq!(
            (forced.state, forced.sending_until),
            (State::Sending, Some(NOW + 10.0 + LATER.rules.send_ms))
        );
        // The app may send it now.
        let retried = put(apply(held_entry(e), Event::Retry { key: "k2".into() }, &at(NOW, 0.5)));
        assert_eq!(
            (retried.next_attempt_at, retried.not_before, retried.due_at()),
            (None, None, Some(0.0))
        );
    }

    #[test]
    fn a_send_left_by_its_tab_is_taken_again_and_counts_one_request_that_may_have_created_it() {
        let locked = Event::Take { lock: true, force: false };
        let e = put(apply(held_entry(entry(State::Sending)), locked, &LATER));
        assert_eq!((e.state, e.attempts, e.maybe_created), (State::Sending, 2, true));
        // Without the lock, once its call has surely ended.
        let mut left = entry(State::Sending);
        left.sending_until = Some(LATER.now);
        let e = put(apply(held_entry(left), Event::Take { lock: false, force: false }, &LATER));
        assert_eq!((e.attempts, e.sending_until), (2, Some(LATER.now + LATER.rules.send_ms)));
        // Its first call's failure comes late: the second send stands.
        let late = settled(Err(failure(Kind::Network, None)), false);
        assert!(matches!(apply(held_entry(e), late, &LATER), Step::Refused(_)));
    }

    #[test]
    fn a_key_past_its_lifetime_is_not_sent_again_and_the_entry_is_due_never() {
        // Its first request may have reached the store two days ago (the lifetime), its backoff ahead.
        let mut e = entry(State::Pending);
        (e.maybe_created, e.first_sent_at) = (true, Some(NOW - DAY));
        (e.next_attempt_at, e.not_before) = (Some(LATER.now + 5_000.0), Some(NOW));
        let e = put(apply(held_entry(e), Event::Take { lock: true, force: true }, &LATER));
        assert_eq!((e.state, e.sender.as_deref(), e.sending_until), (State::Uncertain, None, None));
        assert_eq!((e.next_attempt_at, e.not_before, e.due_at()), (None, None, Some(NEVER)));
        assert!(e.error.is_some_and(|error| error.message.starts_with("not sent again")));
    }

    #[test]
    fn an_entry_its_tab_let_go_waits_as_it_did_before_its_take() {
        // Taken by a flush before its backoff's end, then left unsent (a worker with no token).
        let mut e = entry(State::Pending);
        e.next_attempt_at = Some(LATER.now + 60_000.0);
        let taken = put(apply(held_entry(e), Event::Take { lock: true, force: true }, &LATER));
        let sent = Sent::unsent();
        let left = Event::Settled { taken: taken.revision, left: true, sent };
        let e = put(apply(held_entry(taken), left, &LATER));
        assert_eq!((e.state, e.attempts), (State::Pending, 1), "no try counted");
        assert_eq!(e.next_attempt_at, Some(LATER.now + 60_000.0), "its backoff kept");
    }

    #[test]
    fn a_retry_draws_a_new_key_only_for_an_entry_the_app_was_told_to_look_at() {
        // Its first request may have reached the store two days ago (the lifetime).
        let mut e = entry(State::Pending);
        (e.maybe_created, e.first_sent_at) = (true, Some(NOW - DAY));
        let retry = || Event::Retry { key: "fresh".into() };
        let pending = put(apply(held_entry(e.clone()), retry(), &LATER));
        assert_eq!((&pending.sent_key, pending.first_sent_at), (&None, Some(NOW - DAY)), "its key");
        let taken =
            put(apply(held_entry(pending), Event::Take { lock: true, force: true }, &LATER));
        assert_eq!(taken.state, State::Uncertain, "not sent: for the app to look");
        let drawn = put(apply(held_entry(taken), retry(), &LATER));
        assert_eq!((drawn.state, drawn.sent_key.as_deref()), (State::Pending, Some("fresh")));
    }

    #[test]
    fn an_add_of_a_plant_held_gives_its_entry_back_and_another_plant_is_refused() {
        let created = entry(State::Created);
        let again = Entry::new("new".into(), new_plant(), true, NOW);
        assert_eq!(
            apply(held_entry(created.clone()), Event::Add(again.clone()), &LATER),
            Step::Keep(created.clone())
        );
        let born = put(apply(None::<Record<()>>, Event::Add(again.clone()), &LATER));
        assert_eq!((born.key.as_str(), born.revision), ("new", 1));
        let other = Entry { plant: NewPlant { tag: Some("x".into()), ..new_plant() }, ..again };
        let Step::Refused(why) = apply(held_entry(created), Event::Add(other), &LATER) else {
            panic!()
        };
        assert_eq!(why, "the outbox already holds another plant with this id (entry k, created): remove it first to add this one");
    }

    #[test]
    fn the_refusals_say_why() {
        for state in State::ALL {
            for column in ["take", "settled: refused", "retry", "resolve"] {
                if let Step::Refused(why) = apply(held_entry(entry(state)), event(column), &LATER) {
                    assert!(why.starts_with("it "), "{state:?} {column}: {why}");
                }
            }
        }
    }
}
