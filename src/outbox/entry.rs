//! One plant in the outbox ([`Entry`]), its [`State`], and the one table of rules that changes it:
//! [`Entry::apply`], pure Rust over an [`Event`] and the clock, so that `cargo test` checks every
//! (state, event) pair natively. The code around it only decides *when* an event happens.
//!
//! ```text
//!             sending            settled: 200 ─────────────────────────► created ──► (expired: gone)
//!   pending ───────────► sending settled: refused ─► rejected, or uncertain if maybe created
//!      ▲                    │    settled: anything else ─► pending, next attempt after a wait
//!      └── abandoned ───────┘    (a page that closed, a sender that lost its lease)
//!   retried: rejected, uncertain, pending ─► pending, due now
//!   resolved (the app found the plant): pending, rejected, uncertain ─► created
//!   removed: any ─► gone
//! ```
//!
//! Every change gives the entry the next revision; the store writes it only over the revision it
//! was made from, so that no write undoes a newer one (`store.rs`).

use crate::{Error, Kind};
use alloc::string::String;
use plant_store_model::{NewPlant, Plant};

/// Where an entry stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Waiting to be sent, now or at its `next_attempt_at`.
    Pending,
    /// A request with its key is out, or was when its page closed: it is sent again, with the same
    /// key, by the next sender.
    Sending,
    /// The store created it: [`Entry::created`] is the Plant. Removed after the retention.
    Created,
    /// The store refused it and no attempt may have created it: [`Entry::error`] says why. Never
    /// sent again on its own.
    Rejected,
    /// A request may have created it and a later one was refused (a "duplicate id" after a lost
    /// answer, from a server that does not honour `Idempotency-Key`): the plant most likely exists.
    /// Never sent again on its own: the app looks, then resolves it or sends it again.
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

    pub(crate) const ALL: [State; 5] =
        [State::Pending, State::Sending, State::Created, State::Rejected, State::Uncertain];
}

/// What an entry keeps of its last failed attempt: never the token (the error's message is
/// redacted, and its `cause` is not kept).
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
    /// The plant, as it was added.
    pub plant: NewPlant,
    /// Where it stands.
    pub state: State,
    /// The requests sent for it (a send that its page's closing cut short counts one).
    pub attempts: u32,
    /// A request may have created the plant without the outbox learning it; never true of a
    /// created entry.
    pub maybe_created: bool,
    /// When it was added, in milliseconds since the epoch: the order it is sent in (entries added
    /// within one millisecond by one outbox are a thousandth of one apart).
    pub added_at: f64,
    /// When it last changed, in milliseconds since the epoch.
    pub updated_at: f64,
    /// When it is next sent, when it waits after a failure (milliseconds since the epoch).
    pub next_attempt_at: Option<f64>,
    /// Until when the server asked it to wait (`Retry-After`): nothing sends it earlier, neither
    /// [`flush`](super::Outbox::flush) nor the `online` event, but [`retry`](super::Outbox::retry).
    pub not_before: Option<f64>,
    /// The last failed attempt's error.
    pub error: Option<EntryError>,
    /// The Plant the store created.
    pub created: Option<Plant>,
    /// How many times it changed since it was added (1 when added): a write made from an older
    /// revision than the store holds is not taken.
    pub revision: u32,
    /// Its id was given as a BigInt (JavaScript gets it back as one).
    pub(crate) bigint: bool,
}

/// What happens to an entry.
#[derive(Clone, Debug)]
pub(crate) enum Event {
    /// A sender takes it, before its request leaves.
    Sending,
    /// Its call ended.
    Settled(Sent),
    /// It was found `sending` with no sender left: a page closed mid-request, a lease lost.
    Abandoned,
    /// The app asks for it to be sent again, now.
    Retried,
    /// The app found the plant in the store.
    Resolved(Plant),
    /// The app removes it.
    Removed,
    /// The retention of created entries, in milliseconds: checked against when it was created.
    Expired(f64),
}

/// What one call told of an entry.
#[derive(Clone, Debug)]
pub(crate) struct Sent {
    /// The Plant, or the error's summary.
    pub(crate) outcome: Result<Plant, EntryError>,
    /// The requests the call sent.
    pub(crate) requests: u32,
    /// The call's own view: one of its requests may have created the plant unseen.
    pub(crate) maybe_created: bool,
    /// The wait the last answer's `Retry-After` asked for.
    pub(crate) retry_after_ms: Option<u32>,
}

impl Sent {
    /// What the client's call `outcome` tells, its requests counted by the call's after hook.
    pub(crate) fn of(outcome: &Result<Plant, Error>, requests: u32) -> Sent {
        match outcome {
            Ok(plant) => Sent {
                outcome: Ok(plant.clone()),
                requests,
                maybe_created: false,
                retry_after_ms: None,
            },
            Err(e) => Sent {
                outcome: Err(e.into()),
                requests: requests.max(e.attempts()),
                maybe_created: e.maybe_created(),
                retry_after_ms: e.retry_after_ms(),
            },
        }
    }
}

/// What [`Entry::apply`] makes of an entry and an event. (Unboxed: one lives at a time.)
#[derive(Clone, Debug, PartialEq)]
#[allow(clippy::large_enum_variant)]
pub(crate) enum Step {
    /// The entry as it now is, at the next revision.
    Next(Entry),
    /// The entry leaves the store.
    Gone,
    /// The event does not apply to the entry as it is: why, for the caller who asked.
    Refused(&'static str),
}

/// The first wait after a failed attempt, doubled after each: 1 s.
pub(crate) const BACKOFF_BASE_MS: f64 = 1_000.0;
/// The longest backoff: 5 minutes.
pub(crate) const BACKOFF_MAX_MS: f64 = 300_000.0;
/// The longest `Retry-After` honoured: 1 hour. A server that asks for more is asked again then.
pub const RETRY_AFTER_CEILING_MS: u32 = 3_600_000;

impl Entry {
    /// A new pending entry, at revision 1.
    pub(crate) fn new(key: String, plant: NewPlant, bigint: bool, now: f64) -> Entry {
        Entry {
            key,
            plant,
            state: State::Pending,
            attempts: 0,
            maybe_created: false,
            added_at: now,
            updated_at: now,
            next_attempt_at: None,
            not_before: None,
            error: None,
            created: None,
            revision: 1,
            bigint,
        }
    }

    /// The table of rules: what `event` makes of the entry at `now` (`random` in [0, 1) is the
    /// backoff's jitter).
    pub(crate) fn apply(&self, event: &Event, now: f64, random: f64) -> Step {
        use State::*;
        let mut next = self.clone();
        (next.revision, next.updated_at) = (self.revision + 1, now);
        match (self.state, event) {
            (_, Event::Removed) => return Step::Gone,
            (Created, Event::Expired(retention)) if self.updated_at + retention <= now => {
                return Step::Gone
            }
            (Created, _) => return Step::Refused("it was created"),
            (_, Event::Expired(_)) => return Step::Refused("it was not created"),
            (Pending, Event::Sending) => next.state = Sending,
            (Sending, Event::Sending) => return Step::Refused("it is being sent"),
            // A late Plant is the truth, whatever was made of the entry meanwhile.
            (_, Event::Settled(Sent { outcome: Ok(plant), requests, .. })) => {
                next.set_created(plant.clone());
                next.attempts = self.attempts.saturating_add(*requests);
            }
            (Sending, Event::Settled(sent)) => next.failed(sent, now, random),
            // A late failure: the newer state stands.
            (_, Event::Settled(_)) => return Step::Refused("it is no longer being sent"),
            (Sending, Event::Abandoned) => {
                (next.state, next.maybe_created, next.next_attempt_at) = (Pending, true, None);
                next.attempts = self.attempts.saturating_add(1);
            }
            (_, Event::Abandoned) => return Step::Refused("it is not being sent"),
            (Sending, Event::Retried | Event::Resolved(_)) => {
                return Step::Refused("it is being sent: wait for its answer")
            }
            (Pending | Rejected | Uncertain, Event::Retried) => {
                (next.state, next.next_attempt_at, next.not_before) = (Pending, None, None);
            }
            (Pending | Rejected | Uncertain, Event::Resolved(plant)) => {
                next.set_created(plant.clone())
            }
            (Rejected | Uncertain, Event::Sending) => return Step::Refused("it was refused"),
        }
        Step::Next(next)
    }

    fn set_created(&mut self, plant: Plant) {
        (self.state, self.created, self.error) = (State::Created, Some(plant), None);
        (self.maybe_created, self.next_attempt_at, self.not_before) = (false, None, None);
    }

    /// A call that failed:
    /// - a refusal (a 400, or another 4xx that waiting cannot change): `rejected`, or `uncertain`
    ///   when this call or an earlier one may have created the plant;
    /// - anything else (no answer, a timeout, 401 after the refresh, 408, 409, 425, 429, 5xx, an
    ///   answer outside the contract, a token source that failed): `pending` again, next sent after
    ///   the backoff or the `Retry-After` (up to [`RETRY_AFTER_CEILING_MS`]), whichever is longer.
    fn failed(&mut self, sent: &Sent, now: f64, random: f64) {
        let Err(error) = &sent.outcome else { return };
        self.attempts = self.attempts.saturating_add(sent.requests);
        self.maybe_created |= sent.maybe_created;
        self.error = Some(error.clone());
        let refused = match (error.kind, error.status) {
            (Kind::Rejected, _) | (Kind::InvalidResponse, Some(400)) => true,
            (Kind::UnexpectedStatus, Some(status @ 400..=499)) => {
                !matches!(status, 401 | 408 | 409 | 425 | 429)
            }
            _ => false,
        };
        self.state = match (refused, self.maybe_created) {
            (true, true) => State::Uncertain,
            (true, false) => State::Rejected,
            (false, _) => State::Pending,
        };
        let asked = sent.retry_after_ms.filter(|_| !refused);
        self.not_before = asked.map(|ms| now + f64::from(ms.min(RETRY_AFTER_CEILING_MS)));
        self.next_attempt_at = (!refused).then(|| {
            let backoff = now + backoff(self.attempts, random);
            self.not_before.map_or(backoff, |asked| asked.max(backoff))
        });
    }
}

/// The wait after attempt number `attempts` failed: half of the doubled cap plus a random half
/// ("equal jitter"), so that tabs and reloads do not all come back at once.
fn backoff(attempts: u32, random: f64) -> f64 {
    let doubled = BACKOFF_BASE_MS * f64::from(1u32 << attempts.clamp(1, 20).saturating_sub(1));
    let cap = doubled.min(BACKOFF_MAX_MS);
    cap / 2.0 + random * cap / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    const NOW: f64 = 1_000_000.0;
    const DAY: f64 = 86_400_000.0;

    fn fern() -> Plant {
        Plant { name: "Fern".into(), tag: None }
    }

    /// An entry in `state`, added at 0 and last changed at 10, once attempted.
    fn entry(state: State) -> Entry {
        let plant = NewPlant { id: 1, name: "Fern".into(), tag: None };
        let mut e = Entry::new("k".into(), plant, false, 0.0);
        (e.state, e.attempts, e.updated_at, e.revision) = (state, 1, 10.0, 3);
        if state == State::Created {
            e.created = Some(fern());
        }
        e
    }

    fn failure(kind: Kind, status: Option<u16>) -> EntryError {
        EntryError { kind, status, code: None, message: "failed".into() }
    }

    fn settled(outcome: Result<Plant, EntryError>) -> Event {
        Event::Settled(Sent { outcome, requests: 1, maybe_created: false, retry_after_ms: None })
    }

    /// Each event of the table, by name.
    fn events() -> Vec<(&'static str, Event)> {
        Vec::from([
            ("sending", Event::Sending),
            ("settled 200", settled(Ok(fern()))),
            ("settled 400", settled(Err(failure(Kind::Rejected, Some(400))))),
            ("settled 503", settled(Err(failure(Kind::UnexpectedStatus, Some(503))))),
            ("abandoned", Event::Abandoned),
            ("retried", Event::Retried),
            ("resolved", Event::Resolved(fern())),
            ("removed", Event::Removed),
            ("expired", Event::Expired(DAY)),
        ])
    }

    /// The state an event leads to, `gone`, or `refused`.
    fn outcome(step: &Step) -> &'static str {
        match step {
            Step::Next(e) => e.state.as_str(),
            Step::Gone => "gone",
            Step::Refused(_) => "refused",
        }
    }

    /// The table: every (state, event) pair, at a time past the retention.
    #[test]
    fn every_state_and_event() {
        #[rustfmt::skip]
        let table: [(State, [&str; 9]); 5] = [
            //          sending    200        400         503        abandoned  retried    resolved   removed expired
            (State::Pending,   ["sending", "created", "refused", "refused", "refused", "pending", "created", "gone", "refused"]),
            (State::Sending,   ["refused", "created", "rejected", "pending", "pending", "refused", "refused", "gone", "refused"]),
            (State::Created,   ["refused", "refused", "refused", "refused", "refused", "refused", "refused", "gone", "gone"]),
            (State::Rejected,  ["refused", "created", "refused", "refused", "refused", "pending", "created", "gone", "refused"]),
            (State::Uncertain, ["refused", "created", "refused", "refused", "refused", "pending", "created", "gone", "refused"]),
        ];
        for (state, expected) in table {
            for ((name, event), expected) in events().into_iter().zip(expected) {
                let step = entry(state).apply(&event, NOW + DAY, 0.5);
                assert_eq!(outcome(&step), expected, "{} + {name}", state.as_str());
                if let Step::Next(next) = step {
                    assert_eq!((next.revision, next.updated_at), (4, NOW + DAY), "{name}");
                }
            }
        }
    }

    #[test]
    fn a_created_entry_expires_only_after_the_retention() {
        let created = entry(State::Created);
        assert_eq!(
            created.apply(&Event::Expired(DAY), 10.0 + DAY - 1.0, 0.5),
            Step::Refused("it was created")
        );
        assert_eq!(created.apply(&Event::Expired(DAY), 10.0 + DAY, 0.5), Step::Gone);
        assert_eq!(created.apply(&Event::Expired(0.0), 10.0, 0.5), Step::Gone);
    }

    fn next(step: Step) -> Entry {
        match step {
            Step::Next(entry) => entry,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_plant_is_created_its_doubt_and_error_forgotten() {
        let mut sending = entry(State::Sending);
        sending.maybe_created = true;
        sending.error = Some(failure(Kind::Timeout, None));
        let sent =
            Sent { outcome: Ok(fern()), requests: 2, maybe_created: false, retry_after_ms: None };
        let e = next(sending.apply(&Event::Settled(sent), NOW, 0.5));
        assert_eq!((e.state, e.attempts, e.maybe_created), (State::Created, 3, false));
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
            let e = next(entry(State::Sending).apply(&Event::Settled(plain.clone()), NOW, 0.5));
            assert_eq!((e.state, e.next_attempt_at), (State::Rejected, None), "{refusal:?}");
            assert_eq!(e.error.as_ref(), Some(&refusal));
            // An earlier send of the entry may have created it.
            let mut doubtful = entry(State::Sending);
            doubtful.maybe_created = true;
            let e = next(doubtful.apply(&Event::Settled(plain.clone()), NOW, 0.5));
            assert_eq!(e.state, State::Uncertain, "{refusal:?}");
            // This very call may have: its first answer lost, its retry refused as a duplicate.
            let call = Sent { maybe_created: true, requests: 2, ..plain };
            let e = next(entry(State::Sending).apply(&Event::Settled(call), NOW, 0.5));
            assert_eq!(
                (e.state, e.maybe_created, e.attempts),
                (State::Uncertain, true, 3),
                "{refusal:?}"
            );
        }
    }

    #[test]
    fn anything_else_waits_with_a_backoff() {
        let timeout = |requests| {
            Event::Settled(Sent {
                outcome: Err(failure(Kind::Timeout, None)),
                requests,
                maybe_created: true,
                retry_after_ms: None,
            })
        };
        let e = next(entry(State::Sending).apply(&timeout(1), 1_000.0, 0.0));
        assert_eq!((e.state, e.maybe_created, e.attempts), (State::Pending, true, 2));
        assert_eq!(e.next_attempt_at, Some(2_000.0), "half of 2 s after the 2nd attempt");
        let mut fourth = entry(State::Sending);
        fourth.attempts = 3;
        assert_eq!(next(fourth.apply(&timeout(1), 1_000.0, 1.0)).next_attempt_at, Some(9_000.0));
        fourth.attempts = 40;
        let most = next(fourth.apply(&timeout(1), 0.0, 1.0)).next_attempt_at;
        assert_eq!(most, Some(BACKOFF_MAX_MS), "at most 5 minutes");
        for status in [401, 408, 409, 425, 429, 500, 502, 503, 504] {
            let kind = if status == 401 { Kind::Unauthorized } else { Kind::UnexpectedStatus };
            let e = next(entry(State::Sending).apply(
                &settled(Err(failure(kind, Some(status)))),
                0.0,
                0.0,
            ));
            assert_eq!(e.state, State::Pending, "{status}");
        }
        for kind in [Kind::Network, Kind::Config, Kind::Aborted, Kind::InvalidResponse] {
            let e = next(entry(State::Sending).apply(&settled(Err(failure(kind, None))), 0.0, 0.0));
            assert_eq!(e.state, State::Pending, "{kind}");
        }
    }

    #[test]
    fn a_retry_after_sets_the_next_attempt_no_earlier_than_asked_up_to_the_ceiling() {
        let busy = |ms| {
            Event::Settled(Sent {
                outcome: Err(failure(Kind::UnexpectedStatus, Some(429))),
                requests: 1,
                maybe_created: false,
                retry_after_ms: Some(ms),
            })
        };
        for (asked, at) in
            [(2_000, NOW + 2_000.0), (60_000, NOW + 60_000.0), (u32::MAX, NOW + 3_600_000.0)]
        {
            let e = next(entry(State::Sending).apply(&busy(asked), NOW, 0.0));
            assert_eq!((e.next_attempt_at, e.not_before), (Some(at), Some(at)), "{asked} ms");
        }
        // A shorter one than the backoff: the backoff, and nothing sends it before the server's.
        let e = next(entry(State::Sending).apply(&busy(10), NOW, 1.0));
        assert_eq!((e.next_attempt_at, e.not_before), (Some(NOW + 2_000.0), Some(NOW + 10.0)));
        // The app may send it now.
        let retried = next(e.apply(&Event::Retried, NOW, 0.5));
        assert_eq!((retried.next_attempt_at, retried.not_before), (None, None));
    }

    #[test]
    fn a_send_cut_short_counts_one_request_and_may_have_created_it() {
        let e = next(entry(State::Sending).apply(&Event::Abandoned, NOW, 0.5));
        assert_eq!(
            (e.state, e.attempts, e.maybe_created, e.next_attempt_at),
            (State::Pending, 2, true, None)
        );
    }

    #[test]
    fn the_app_retries_or_resolves_an_entry_that_waits_or_was_refused() {
        for state in [State::Pending, State::Rejected, State::Uncertain] {
            let mut waiting = entry(state);
            waiting.next_attempt_at = Some(NOW + 60_000.0);
            let e = next(waiting.apply(&Event::Retried, NOW, 0.5));
            assert_eq!((e.state, e.next_attempt_at), (State::Pending, None), "{state:?}");
            waiting.maybe_created = true;
            let e = next(waiting.apply(&Event::Resolved(fern()), NOW, 0.5));
            assert_eq!(
                (e.state, e.maybe_created, e.created),
                (State::Created, false, Some(fern()))
            );
        }
        let refused = entry(State::Sending).apply(&Event::Retried, NOW, 0.5);
        assert_eq!(refused, Step::Refused("it is being sent: wait for its answer"));
    }

    #[test]
    fn the_refusals_say_why() {
        for state in State::ALL {
            for (name, event) in events() {
                if let Step::Refused(why) = entry(state).apply(&event, NOW + DAY, 0.5) {
                    assert!(why.starts_with("it "), "{state:?} {name}: {why}");
                }
            }
        }
    }
}
