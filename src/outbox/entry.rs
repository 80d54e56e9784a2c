//! One plant in the outbox: an [`Entry`] and its [`State`], as the table (`table.rs`) changes them;
//! what a store gave for a key ([`Record`]); what one send told of an entry ([`Sent`]); and what a
//! tab holds of its store ([`Held`]): a snapshot, never written back, that only the store's word
//! changes (`store.rs`); a read older than what is held is passed over.

use crate::{Error, Kind};
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::Cell;
use plant_store_model::{NewPlant, Plant};

/// Where an entry stands (its `state` for JavaScript): waiting to be sent; a request with its key
/// out, or out when its tab let go; created (removed after the retention); refused, no request
/// having created it; refused after a request that may have created it. The last two are never
/// sent again on their own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum State {
    #[default]
    Pending,
    Sending,
    Created,
    Rejected,
    Uncertain,
}

impl State {
    pub(crate) const ALL: [State; 5] =
        [State::Pending, State::Sending, State::Created, State::Rejected, State::Uncertain];

    pub(crate) fn as_str(self) -> &'static str {
        ["pending", "sending", "created", "rejected", "uncertain"][self as usize]
    }
}

/// What an entry keeps of its last failed attempt: never the token (its message is redacted).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct EntryError {
    pub(crate) kind: Kind,
    pub(crate) status: Option<u16>,
    pub(crate) code: Option<i32>,
    pub(crate) message: String,
}

/// One plant in the outbox. Times are whole milliseconds since the epoch.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Entry {
    /// A UUID v4, the `Idempotency-Key` of its requests (unless a retry drew `sent_key`).
    pub(crate) key: String,
    pub(crate) plant: NewPlant,
    /// Its id was a BigInt (JavaScript gets one back).
    pub(crate) bigint: bool,
    pub(crate) state: State,
    /// Each change gives the next (1 when added): a write applies only over the revision it read.
    pub(crate) revision: u32,
    /// Each request sent, each send cut short by its tab, each send whose token source failed.
    pub(crate) attempts: u32,
    /// A request may have created the plant unseen; never true of a created entry.
    pub(crate) maybe_created: bool,
    pub(crate) added_at: f64,
    pub(crate) updated_at: f64,
    pub(crate) next_attempt_at: Option<f64>,
    /// The server's `Retry-After`: only the app's `retry` sends it earlier.
    pub(crate) not_before: Option<f64>,
    pub(crate) error: Option<EntryError>,
    pub(crate) created: Option<Plant>,
    /// While sending: when its call has surely ended, and the tab sending it (while that tab's own
    /// lock is held, no round takes it).
    pub(crate) sending_until: Option<f64>,
    pub(crate) sender: Option<String>,
    /// When a request with its key may first have reached the store: its lifetime counts from then.
    pub(crate) first_sent_at: Option<f64>,
    /// The key its requests carry since a retry drew a new one.
    pub(crate) sent_key: Option<String>,
    /// Once created: when the retention removes it.
    pub(crate) expires_at: Option<f64>,
}

/// The due time of an entry nothing sends on its own (rejected, uncertain): the last time a
/// JavaScript `Date` holds, so that the store's index of due entries still lists it.
pub(crate) const NEVER: f64 = 8.64e15;

impl Entry {
    /// A new pending entry.
    pub(crate) fn new(key: String, plant: NewPlant, bigint: bool, now: f64) -> Entry {
        Entry {
            key,
            plant,
            bigint,
            revision: 1,
            added_at: now,
            updated_at: now,
            ..Entry::default()
        }
    }

    pub(crate) fn idempotency_key(&self) -> &str {
        self.sent_key.as_deref().unwrap_or(&self.key)
    }

    /// When a round may take it (the store's `due` index): a pending one at its next attempt and
    /// the server's wait, a sending one from when it was taken, [`NEVER`] for one refused, none
    /// for a created one.
    pub(crate) fn due_at(&self) -> Option<f64> {
        let at = self.next_attempt_at.unwrap_or(self.added_at);
        match self.state {
            State::Pending => Some(self.not_before.map_or(at, |asked| asked.max(at))),
            State::Sending => Some(self.updated_at),
            State::Rejected | State::Uncertain => Some(NEVER),
            State::Created => None,
        }
    }
}

/// What a store holds under a key, as read: an entry, or a record the outbox cannot read (set
/// aside: why, and the record as it is, for the app to see).
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)] // one lives at a time
pub(crate) enum Record<V> {
    Entry(Entry),
    Aside { key: String, reason: String, raw: V },
}

impl<V> Record<V> {
    pub(crate) fn key(&self) -> &str {
        match self {
            Record::Entry(entry) => &entry.key,
            Record::Aside { key, .. } => key,
        }
    }
}

/// What one call told of an entry: the Plant or the error, the requests it sent, whether one may
/// have created the plant unseen, the wait the last answer's `Retry-After` asked for.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Sent {
    pub(crate) outcome: Result<Plant, EntryError>,
    pub(crate) requests: u32,
    pub(crate) maybe_created: bool,
    pub(crate) retry_after_ms: Option<u32>,
}

impl Sent {
    /// What the client's call `outcome` tells, its requests counted by the call's after hook.
    pub(crate) fn of(outcome: Result<Plant, Error>, requests: u32) -> Sent {
        let e = match outcome {
            Ok(plant) => return Sent { outcome: Ok(plant), requests, ..Sent::unsent() },
            Err(e) => e,
        };
        let (kind, status, code, message) = (e.kind(), e.status(), e.code(), e.message().into());
        let outcome = Err(EntryError { kind, status, code, message });
        let (maybe_created, retry_after_ms) = (e.maybe_created(), e.retry_after_ms());
        Sent { outcome, requests: requests.max(e.attempts()), maybe_created, retry_after_ms }
    }

    /// A call cut short before its request went out.
    pub(crate) fn unsent() -> Sent {
        let message = "not sent: its tab let go first".into();
        let error = EntryError { kind: Kind::Aborted, status: None, code: None, message };
        Sent { outcome: Err(error), requests: 0, maybe_created: false, retry_after_ms: None }
    }
}

/// The entries a tab holds, in the order they were added (by `added_at`, then key), each with its
/// view for the app once made; and the records it set aside (key, why, the record as it is).
#[derive(Debug)]
pub(crate) struct Held<V> {
    pub(crate) entries: Vec<Kept<V>>,
    pub(crate) aside: Vec<(String, String, V)>,
    /// When the next created entry expires, as the store's purge said.
    pub(crate) expiry: Option<f64>,
    /// Counts the changes: what the app lists is made again only after one.
    pub(crate) version: u64,
    /// Counts the loads: an entry the last load did not read is read again by its key.
    pub(crate) loads: u32,
    /// When the next entry is due, as of a version.
    due: Cell<(u64, Option<f64>)>,
}

#[derive(Debug)]
pub(crate) struct Kept<V> {
    pub(crate) entry: Entry,
    pub(crate) view: Option<V>,
    pub(crate) load: u32,
}

impl<V> Default for Held<V> {
    fn default() -> Held<V> {
        let due = Cell::new((u64::MAX, None));
        Held { entries: Vec::new(), aside: Vec::new(), expiry: None, version: 0, loads: 0, due }
    }
}

impl<V> Held<V> {
    /// How many entries wait to be sent (pending or sending).
    pub(crate) fn waiting(&self) -> usize {
        let waiting = |kept: &&Kept<V>| matches!(kept.entry.state, State::Pending | State::Sending);
        self.entries.iter().filter(waiting).count()
    }

    /// When something held is next due: an entry, or the next created one's expiry.
    pub(crate) fn next_due(&self) -> Option<f64> {
        if self.due.get().0 != self.version {
            let due = self.entries.iter().filter_map(|kept| kept.entry.due_at());
            self.due.set((self.version, due.filter(|at| *at < NEVER).reduce(f64::min)));
        }
        self.due.get().1.into_iter().chain(self.expiry).reduce(f64::min)
    }

    /// Where `entry` is held, or would be.
    pub(crate) fn position(&self, entry: &Entry) -> Result<usize, usize> {
        self.entries.binary_search_by(|kept| {
            let (at, key) = (kept.entry.added_at, kept.entry.key.as_str());
            at.total_cmp(&entry.added_at).then_with(|| key.cmp(&entry.key))
        })
    }

    /// Takes what the store holds under `key` now (none: gone): true when it changed what is held.
    pub(crate) fn hold(&mut self, key: &str, record: Option<Record<V>>) -> bool
    where
        V: Clone,
    {
        match &record {
            Some(Record::Entry(new)) => {
                if let Ok(at) = self.position(new) {
                    self.entries[at].load = self.loads;
                    if new.revision <= self.entries[at].entry.revision {
                        return false;
                    }
                }
            }
            // Set aside already: read again by a reload, kept as the store has it now, with no
            // change told (unreadable, it is still unreadable).
            Some(Record::Aside { reason, raw, .. }) => {
                if let Some(kept) = self.aside.iter_mut().find(|(k, ..)| k == key) {
                    (kept.1, kept.2) = (reason.clone(), raw.clone());
                    return false;
                }
            }
            None => {}
        }
        let had = match self.entries.iter().position(|kept| kept.entry.key == key) {
            Some(at) => {
                self.entries.remove(at);
                true
            }
            None => {
                let aside = self.aside.iter().position(|(k, ..)| k == key);
                aside.map(|at| self.aside.remove(at)).is_some()
            }
        };
        match record {
            Some(Record::Entry(entry)) => {
                let (Ok(at) | Err(at)) = self.position(&entry);
                self.entries.insert(at, Kept { entry, view: None, load: self.loads });
            }
            Some(Record::Aside { key, reason, raw }) => self.aside.push((key, reason, raw)),
            None if !had => return false,
            None => {}
        }
        self.version += 1;
        true
    }
}
