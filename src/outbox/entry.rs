//! One plant in the outbox: an [`Entry`] and its [`State`], as the table of rules (`table.rs`)
//! changes them and a record (`record.rs`) keeps them; and [`Sent`], what a send told of it.

use crate::{Error, Kind};
use alloc::string::String;
use plant_store_model::{NewPlant, Plant};

/// Where an entry stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Waiting to be sent, now or at its `next_attempt_at`.
    Pending,
    /// A request with its key is out, or was when its tab let go: the next round sends it again,
    /// with the same key.
    Sending,
    /// The store created it: [`Entry::created`] is the Plant. Removed after the retention.
    Created,
    /// The store refused it and no attempt may have created it: [`Entry::error`] says why. Never
    /// sent again on its own.
    Rejected,
    /// A request may have created it and a later one was refused (a "duplicate id" after a lost
    /// answer, from a server that ignores `Idempotency-Key`): the plant most likely exists. Never
    /// sent again on its own: the app looks, then resolves it or sends it again.
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

/// What an entry keeps of its last failed attempt: never the token (the message is redacted, the
/// `cause` is not kept).
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

/// One plant in the outbox. Times are milliseconds since the epoch.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Entry {
    /// A UUID v4: also the `Idempotency-Key` of every request that sends it.
    pub key: String,
    /// The plant, as it was added.
    pub plant: NewPlant,
    /// Where it stands.
    pub state: State,
    /// The tries made for it: each request sent, a send cut short by its tab, and a send that
    /// failed before its request went out (its token source failed).
    pub attempts: u32,
    /// A request may have created the plant unseen; never true of a created entry.
    pub maybe_created: bool,
    /// When it was added: the order it is listed and sent in.
    pub added_at: f64,
    /// When it last changed.
    pub updated_at: f64,
    /// When it is next sent, after a failed attempt.
    pub next_attempt_at: Option<f64>,
    /// Until when the server asked it to wait (`Retry-After`): nothing sends it earlier but
    /// [`retry`](super::Outbox::retry).
    pub not_before: Option<f64>,
    /// The last failed attempt's error.
    pub error: Option<EntryError>,
    /// The Plant the store created.
    pub created: Option<Plant>,
    /// How many times it changed since it was added (1 when added).
    pub revision: u32,
    /// Its id was given as a BigInt (JavaScript gets it back as one).
    pub(crate) bigint: bool,
    /// While sending: when its call has surely ended, after which a round without the lock may
    /// take it again.
    pub(crate) sending_until: Option<f64>,
    /// While sending: the tab that sends it (while that tab is alive, no other takes it).
    pub(crate) sender: Option<String>,
    /// When it was first sent: the server's memory of its key counts from then.
    pub(crate) first_sent_at: Option<f64>,
    /// The key its requests carry when a retry drew a new one (the first's lifetime was over).
    pub(crate) sent_key: Option<String>,
    /// When created: when the retention removes it.
    pub(crate) expires_at: Option<f64>,
    /// The store finds it by its plant's id (not the second entry of an id that an older release
    /// let in: it keeps its place, the first keeps the id).
    pub(crate) by_id: bool,
}

/// The due time of an entry nothing sends on its own (rejected, uncertain): the last time a
/// JavaScript `Date` holds, so that the store's index of due entries still lists it.
pub(crate) const NEVER: f64 = 8.64e15;

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
            sending_until: None,
            sender: None,
            first_sent_at: None,
            sent_key: None,
            expires_at: None,
            by_id: true,
        }
    }

    /// The `Idempotency-Key` of its requests: its own key, or the one a retry drew.
    pub(crate) fn idempotency_key(&self) -> &str {
        self.sent_key.as_deref().unwrap_or(&self.key)
    }

    /// When a round may take it, for the store's index of due entries and this tab's timer: a
    /// pending one at its next attempt and the server's wait, a sending one from when it was taken
    /// (a round that holds the lock takes it again once its sender is gone; one without, once its
    /// call has surely ended), [`NEVER`] for one refused, none for a created one.
    pub(crate) fn due_at(&self) -> Option<f64> {
        match self.state {
            State::Pending => {
                let at = self.next_attempt_at.unwrap_or(self.added_at);
                Some(self.not_before.map_or(at, |asked| asked.max(at)))
            }
            State::Sending => Some(self.updated_at),
            State::Rejected | State::Uncertain => Some(NEVER),
            State::Created => None,
        }
    }
}

/// What one call told of an entry.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Sent {
    /// The Plant, or the error's summary.
    pub(crate) outcome: Result<Plant, EntryError>,
    /// The requests the call sent.
    pub(crate) requests: u32,
    /// One of them may have created the plant unseen.
    pub(crate) maybe_created: bool,
    /// The wait the last answer's `Retry-After` asked for.
    pub(crate) retry_after_ms: Option<u32>,
}

impl Sent {
    /// What the client's call `outcome` tells, its requests counted by the call's after hook.
    pub(crate) fn of(outcome: &Result<Plant, Error>, requests: u32) -> Sent {
        let (maybe_created, retry_after_ms) = (false, None);
        match outcome {
            Ok(plant) => {
                Sent { outcome: Ok(plant.clone()), requests, maybe_created, retry_after_ms }
            }
            Err(e) => Sent {
                outcome: Err(e.into()),
                requests: requests.max(e.attempts()),
                maybe_created: e.maybe_created(),
                retry_after_ms: e.retry_after_ms(),
            },
        }
    }
}
