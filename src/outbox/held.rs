//! A tab's [`State`], and what it holds of its outbox's store ([`Held`]): the entries, in the
//! order they were added, their views for JavaScript, and the records set aside; and the changes
//! being written ([`Pending`], which `changes.rs` makes and ends). A snapshot, never written back:
//! only what the store says changes it (a change this tab wrote, a record read again). A read
//! older than the entry held (it came in after a newer one) is passed over, and an entry leaves
//! only once the store says it is gone.

use super::entry::{Entry, NEVER};
use super::record::{self, Aside};
use super::tab::Tab;
use super::table::{Event, Step};
use crate::Error;
use alloc::string::String;
use alloc::vec::Vec;
use js_sys::{Array, Function, Object};
use wasm_bindgen::JsValue;

/// A tab's state: its machine, what it holds, and the changes and answers under way.
pub(crate) struct State {
    pub(crate) tab: Tab,
    /// This tab's id while it lives (a new one after each resume): the sender of what it takes.
    pub(crate) id: String,
    pub(crate) held: Held,
    /// The other tabs alive, as read when the round last fed.
    pub(crate) live: Vec<String>,
    pub(crate) pending: Vec<Pending>,
    /// The `flush()` calls waiting, in the order they came: what resolves each.
    pub(crate) flushes: Vec<Function>,
    /// The answers of sends, by number, until their sender writes them.
    pub(crate) answers: Vec<(u32, String, Event)>,
    pub(crate) numbers: u32,
    /// Answers of calls aborted while the store could not write: written once it can.
    pub(crate) left: Vec<(String, Event)>,
    pub(crate) suspended: bool,
    pub(crate) closed: bool,
    pub(crate) warned: bool,
    pub(crate) last_added: f64,
    /// For the Rust API: the error the shell was handed to throw, the entry an add gave.
    pub(crate) thrown: Option<Error>,
    pub(crate) added: Option<Entry>,
}

/// An entry held, and its view once made.
struct Kept {
    entry: Entry,
    view: Option<JsValue>,
}

/// What a tab holds.
#[derive(Default)]
pub(crate) struct Held {
    entries: Vec<Kept>,
    pub(crate) aside: Vec<Aside>,
    /// `entries()`'s frozen array, until something changes.
    list: Option<JsValue>,
    /// When the next created entry expires, as the store's purge said.
    pub(crate) expiry: Option<f64>,
}

/// What taking a step changed, to tell the app. (Unboxed: one lives at a time.)
#[allow(clippy::large_enum_variant)]
pub(crate) enum Taken {
    /// An entry as it now is.
    Entry(Entry),
    /// The entry or record set aside of the key left the store.
    Removed,
    /// A record was set aside.
    Aside,
}

impl Held {
    /// Takes what the store holds of `key`: a step a change made, or a record read (`raw`).
    pub(crate) fn take(&mut self, key: &str, step: &Step, raw: JsValue) -> Option<Taken> {
        let at = self.entries.iter().position(|kept| kept.entry.key == key);
        let aside = self.aside.iter().position(|aside| aside.key == key);
        let taken = match step {
            Step::Put(entry) | Step::Keep(entry) => {
                if at.is_some_and(|at| self.entries[at].entry.revision >= entry.revision) {
                    return None;
                }
                aside.map(|at| self.aside.remove(at));
                let kept = Kept { entry: entry.clone(), view: None };
                match at {
                    Some(at) => self.entries[at] = kept,
                    None => {
                        let order = (entry.added_at, &entry.key);
                        let at = self
                            .entries
                            .partition_point(|k| (k.entry.added_at, &k.entry.key) < order);
                        self.entries.insert(at, kept);
                    }
                }
                Taken::Entry(entry.clone())
            }
            Step::Aside(reason) => {
                let was = at.map(|at| self.entries.remove(at)).is_some();
                let record = Aside { key: key.into(), reason: reason.clone(), record: raw };
                match aside {
                    Some(aside) => self.aside[aside] = record,
                    None => self.aside.push(record),
                }
                if was {
                    Taken::Removed
                } else {
                    Taken::Aside
                }
            }
            Step::Delete => {
                let was = at.map(|at| self.entries.remove(at)).is_some();
                match was || aside.map(|at| self.aside.remove(at)).is_some() {
                    true => Taken::Removed,
                    false => return None,
                }
            }
            Step::Refused(_) => return None,
        };
        self.list = None;
        Some(taken)
    }

    /// When something held is next due: an entry, or the next created one's expiry.
    pub(crate) fn due(&self) -> f64 {
        let due = self.entries.iter().filter_map(|kept| kept.entry.due_at());
        due.filter(|at| *at < NEVER).fold(self.expiry.unwrap_or(f64::INFINITY), f64::min)
    }

    /// The keys of the entries due by `until`, in the order they were added (for a store that
    /// is all held).
    pub(crate) fn due_by(&self, until: f64) -> Vec<String> {
        let due = self.entries.iter().filter(|k| k.entry.due_at().is_some_and(|at| at <= until));
        due.map(|kept| kept.entry.key.clone()).collect()
    }

    /// Every key held, entries and records set aside.
    pub(crate) fn keys(&self) -> Vec<String> {
        let keys = self.entries.iter().map(|kept| kept.entry.key.clone());
        keys.chain(self.aside.iter().map(|aside| aside.key.clone())).collect()
    }

    pub(crate) fn entries(&self) -> Vec<Entry> {
        self.entries.iter().map(|kept| kept.entry.clone()).collect()
    }

    /// The view of the entry of `key`, made once.
    pub(crate) fn view(&mut self, key: &str) -> JsValue {
        let Some(kept) = self.entries.iter_mut().find(|kept| kept.entry.key == key) else {
            return JsValue::UNDEFINED;
        };
        kept.view.get_or_insert_with(|| record::view::<Object>(&kept.entry).into()).clone()
    }

    /// `entries()` for JavaScript: a frozen array of the views, the same until something changes.
    pub(crate) fn list(&mut self) -> JsValue {
        if self.list.is_none() {
            let keys: Vec<String> = self.entries.iter().map(|k| k.entry.key.clone()).collect();
            let views: Array = keys.iter().map(|key| self.view(key)).collect();
            self.list = Some(Object::freeze(&views).into());
        }
        self.list.clone().unwrap_or_default()
    }
}

/// What a change of the store is for.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum For {
    /// The app's add; its `retry`, `markCreated` or `remove`.
    Add,
    Act(&'static str),
    /// A sender of round number `round`: the answer of its last send, and its next take.
    Sender(u32),
    /// The retention; the answers a frozen page could not write.
    Other,
}

/// A change being written: its events, and what the table made of each, with the record read.
pub(crate) struct Pending {
    pub(crate) number: u32,
    pub(crate) purpose: For,
    pub(crate) events: Vec<(String, Event)>,
    pub(crate) steps: Vec<Option<(Step, JsValue)>>,
}
