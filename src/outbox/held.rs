//! What a tab holds of its store ([`Held`]): a snapshot, never written back. Only what the store
//! says changes it (`store.rs`), a read older than what is held is passed over, and an entry leaves
//! only once the store says it is gone.

use super::entry::{Entry, Record, State, NEVER};
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::Cell;

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
    pub(crate) fn get(&self, key: &str) -> Option<&Entry> {
        self.entries.iter().map(|kept| &kept.entry).find(|entry| entry.key == key)
    }

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
