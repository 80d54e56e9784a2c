//! What an outbox's operations share ([`Core`]): its settings, its store, the entries it holds in
//! memory, and the one way an entry changes ([`Core::change`]): the table's step written to the
//! store first, only over the revision it was made from, then taken in memory, told to the
//! listeners and to the other tabs.

use super::entry::{Entry, Event, Step};
use super::record::{self, Unreadable, Write};
use super::schedule::{message, Scheduler};
use super::store::{failure, Opened, Turns};
use super::{Change, OnChange, OutboxConfig};
use crate::{CallOptions, Client, Error, IdempotencyKey, MAX_TIMEOUT_MS};
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::{Cell, RefCell};
use js_sys::{Date, Math, Reflect};
use plant_store_model::NewPlant;
use wasm_bindgen::JsValue;
use web_sys::AbortController;

/// What an outbox's operations share.
pub(crate) struct Core {
    pub(super) client: Client,
    pub(super) store: Opened,
    pub(super) name: String,
    pub(super) concurrency: u32,
    pub(super) retention_ms: f64,
    /// The listener of its changes, let go when it closes (a listener that holds the outbox would
    /// otherwise keep it alive for good).
    on_change: RefCell<Option<OnChange>>,
    /// The entries not created, and the created ones it holds until their retention, in the order
    /// they were added: what the store holds, as far as this outbox knows.
    pub(super) entries: RefCell<Vec<Entry>>,
    /// The records set aside.
    pub(super) unreadable: RefCell<Vec<Unreadable>>,
    /// The last [`GONE_KEPT`] keys removed: a message of another tab that comes after a removal
    /// does not bring its entry back (a key is never used again).
    gone: RefCell<Vec<String>>,
    /// One change at a time per entry.
    pub(super) turns: Turns,
    /// Aborts the calls in flight when the outbox closes.
    pub(super) abort: AbortController,
    pub(super) paused: Cell<bool>,
    pub(super) closed: Cell<bool>,
    /// When the last entry added here was.
    pub(super) last_added: Cell<f64>,
    /// What `send.rs` keeps: the lock, the round under way, the timer, the listeners.
    pub(super) sending: RefCell<Scheduler>,
}

/// How many removed keys an outbox remembers: a late message comes within moments of the removal.
const GONE_KEPT: usize = 256;

/// Why a change was not made.
pub(super) enum Failed {
    /// The outbox holds no entry of that key.
    Unknown,
    /// The table refused the event: why.
    Refused(&'static str),
    /// The store failed.
    Store(JsValue),
}

impl Core {
    /// Opens the outbox of `config` ([`Outbox::open`]).
    pub(super) async fn open(config: OutboxConfig) -> Result<Rc<Core>, Error> {
        let OutboxConfig { client, name, store, concurrency, retention_ms, on_change } = config;
        let client = Client::new(client)?;
        if name.is_empty() || !(1..=64).contains(&concurrency) {
            let message = "the outbox needs a name, and a concurrency from 1 to 64";
            return Err(Error::config(message));
        }
        if retention_ms > MAX_TIMEOUT_MS {
            let message = "retentionMs must be a whole number of milliseconds from 0 to 2147483647";
            return Err(Error::config(message));
        }
        // The store tells when it closes under the outbox: the outbox closes too (and when that is
        // before the outbox is made, open fails).
        let slot: Rc<RefCell<Option<alloc::rc::Weak<Core>>>> = Rc::default();
        let closed_early: Rc<Cell<Option<&'static str>>> = Rc::default();
        let closed = Rc::new({
            let (slot, closed_early) = (slot.clone(), closed_early.clone());
            move |reason: &'static str| match slot.borrow().as_ref().and_then(|c| c.upgrade()) {
                Some(core) => core.close(Some(reason)),
                None => closed_early.set(Some(reason)),
            }
        });
        let store = Opened::open(store, &name, closed).await?;
        let could_not = |cause: JsValue| {
            let message = ["the outbox could not read its store: ", &failure(&cause)].concat();
            Error::config(message).with_cause(cause)
        };
        let records = store.load().await.map_err(could_not)?;
        if let Some(reason) = closed_early.get() {
            return Err(Error::config(["the outbox closed as it opened: ", reason].concat()));
        }
        let abort = AbortController::new()
            .map_err(|cause| Error::config("the outbox needs AbortController").with_cause(cause))?;
        let core = Rc::new(Core {
            client,
            store,
            name,
            concurrency,
            retention_ms: f64::from(retention_ms),
            on_change: RefCell::new(on_change),
            entries: RefCell::default(),
            unreadable: RefCell::default(),
            gone: RefCell::default(),
            turns: Turns::default(),
            abort,
            paused: Cell::new(false),
            closed: Cell::new(false),
            last_added: Cell::new(0.0),
            sending: RefCell::default(),
        });
        *slot.borrow_mut() = Some(Rc::downgrade(&core));
        core.opened(records);
        Ok(core)
    }

    /// Takes the records `open` read (IndexedDB's active entries; every record of a caller's store,
    /// whose created entries past their retention the first round removes): entries in memory,
    /// the unreadable set aside.
    fn opened(&self, records: Vec<JsValue>) {
        for record in &records {
            match Entry::from_record(record) {
                Ok(entry) => place(&mut self.entries.borrow_mut(), entry),
                Err(unreadable) => self.unreadable.borrow_mut().push(unreadable),
            }
        }
    }

    pub(super) async fn add(&self, plant: NewPlant, bigint: bool) -> Result<Entry, Error> {
        if self.closed.get() {
            return Err(Error::config("the outbox is closed"));
        }
        // Two adds of one id are ordered: the second sees the first's entry.
        let _turn = self.turns.take(&["id ", &record::decimal(plant.id)].concat()).await;
        let held = self.entries.borrow().iter().find(|e| e.plant.id == plant.id).cloned();
        if let Some(held) = held {
            if held.plant == plant {
                return Ok(held);
            }
            let message = [
                "the outbox already holds another plant with this id (entry ",
                &held.key,
                ", ",
                held.state.as_str(),
                "): remove it first to add this one",
            ];
            return Err(Error::config(message.concat()));
        }
        // A key of its own, stored with the plant: every request that sends it carries it.
        let IdempotencyKey::Given(key) = IdempotencyKey::random()? else {
            return Err(Error::config("the outbox could not draw a key"));
        };
        // Each later than the last, so that the order they were added in survives a reload.
        let added_at = Date::now().max(self.last_added.get() + 0.001);
        self.last_added.set(added_at);
        let entry = Entry::new(key.clone(), plant, bigint, added_at);
        let write = Write { key, expected: None, record: Some(entry.to_record()) };
        match self.commit(&write).await {
            Ok(None) => {
                self.took(&write, Some(entry.clone()));
                Ok(entry)
            }
            Ok(Some(_)) => Err(Error::config("the outbox store already holds that key")),
            Err(cause) => Err(store_failed("store the entry", cause)),
        }
    }

    /// An operation of the app on the entry of `key`, named `operation` in its error.
    pub(super) async fn act(
        &self,
        operation: &str,
        key: &str,
        event: Event,
    ) -> Result<Option<Entry>, Error> {
        self.change(key, &event).await.map_err(|failed| match failed {
            Failed::Unknown => unknown(operation),
            Failed::Refused(why) => Error::config([operation, ": not now, ", why].concat()),
            Failed::Store(cause) => store_failed(operation, cause),
        })
    }

    pub(super) async fn remove(&self, key: &str) -> Result<(), Error> {
        let unreadable = self.unreadable.borrow().iter().any(|u| u.key.as_deref() == Some(key));
        if !unreadable {
            return self.act("remove", key, Event::Removed).await.map(drop);
        }
        let write = Write { key: key.into(), expected: None, record: None };
        let done = match &self.store {
            Opened::Js(object) => Opened::put(object, &write).await,
            Opened::Idb(idb) => idb.remove(key).await,
        };
        done.map_err(|cause| store_failed("remove", cause))?;
        self.unreadable.borrow_mut().retain(|u| u.key.as_deref() != Some(key));
        self.changed(Change::Removed(key));
        Ok(())
    }

    /// Applies `event` to the entry of `key` and writes the result, in a turn: if the store holds
    /// a newer revision than the outbox knew, the outbox takes it and applies the event again.
    /// The entry as it now is, `None` once gone.
    pub(super) async fn change(&self, key: &str, event: &Event) -> Result<Option<Entry>, Failed> {
        let _turn = self.turns.take(key).await;
        // Each round but the first follows another tab's write; a few are plenty.
        for _ in 0..8 {
            let current = self.entry(key).ok_or(Failed::Unknown)?;
            let (record, next) = match current.apply(event, Date::now(), Math::random()) {
                Step::Refused(why) => return Err(Failed::Refused(why)),
                Step::Gone => (None, None),
                Step::Next(next) => (Some(next.to_record()), Some(next)),
            };
            let write = Write { key: key.into(), expected: Some(current.revision), record };
            match self.commit(&write).await.map_err(Failed::Store)? {
                None => {
                    self.took(&write, next.clone());
                    return Ok(next);
                }
                // Another tab wrote first: its record is the truth.
                Some(now) => self.learn(&now, key),
            }
        }
        Err(Failed::Refused("it keeps changing in another tab"))
    }

    /// Makes `write` in the store if it holds what the write expects: `None` once done, else what
    /// the store holds (`undefined`: nothing). A caller's store holds what the outbox holds: the
    /// turn orders every write to it.
    async fn commit(&self, write: &Write) -> Result<Option<JsValue>, JsValue> {
        match &self.store {
            Opened::Idb(idb) => idb.commit(write).await,
            Opened::Js(object) => Opened::put(object, write).await.map(|()| None),
        }
    }

    /// Takes a write the store made: in memory, to the listeners and to the other tabs.
    fn took(&self, write: &Write, entry: Option<Entry>) {
        match entry {
            Some(entry) => self.remember(entry),
            None => self.forget(&write.key),
        }
        self.tell_tabs(&write.key, write.record.as_ref());
    }

    /// Tells the other tabs of a write: the record of `key` written, or (`None`) removed.
    pub(super) fn tell_tabs(&self, key: &str, record: Option<&JsValue>) {
        let message = match record {
            Some(record) => record.clone(),
            None => {
                let removed = message("removed", &true.into());
                let _ = Reflect::set(&removed, &"key".into(), &key.into());
                removed
            }
        };
        self.with(|s| s.post(&message));
    }

    /// What the scheduler keeps, borrowed for `f`.
    pub(super) fn with<T>(&self, f: impl FnOnce(&mut Scheduler) -> T) -> T {
        f(&mut self.sending.borrow_mut())
    }

    /// Closed or paused: nothing is sent from here.
    pub(super) fn stopped(&self) -> bool {
        self.closed.get() || self.paused.get()
    }

    /// Takes what the store holds for `key`, read in a turn: a record, or `undefined`.
    fn learn(&self, record: &JsValue, key: &str) {
        if record.is_undefined() {
            return self.forget(key);
        }
        match Entry::from_record(record) {
            Ok(entry) => {
                place(&mut self.entries.borrow_mut(), entry.clone());
                self.changed(Change::Entry(&entry));
            }
            Err(unreadable) => {
                self.drop_entry(key);
                self.set_aside(unreadable);
            }
        }
    }

    /// The entry of `key`, as this outbox knows it.
    pub(super) fn entry(&self, key: &str) -> Option<Entry> {
        self.entries.borrow().iter().find(|e| e.key == key).cloned()
    }

    /// Takes `entry` in memory unless it holds that revision or a newer one (a message of another
    /// tab can come after a later write), and tells the listeners.
    pub(super) fn remember(&self, entry: Entry) {
        let gone = self.gone.borrow().contains(&entry.key);
        let newer = self
            .entries
            .borrow()
            .iter()
            .any(|e| e.key == entry.key && e.revision >= entry.revision);
        if !gone && !newer {
            place(&mut self.entries.borrow_mut(), entry.clone());
            self.changed(Change::Entry(&entry));
        }
    }

    /// Takes a record another tab wrote, as it told or as the store's active entries give it: an
    /// entry, or one set aside (its entry, if this outbox held one, is dropped).
    pub(super) fn heard_record(&self, record: &JsValue) {
        match Entry::from_record(record) {
            Ok(entry) => self.remember(entry),
            Err(unreadable) => {
                if let Some(key) = &unreadable.key {
                    self.drop_entry(key);
                }
                self.set_aside(unreadable);
            }
        }
    }

    /// Sets aside a record it cannot read (once per key).
    fn set_aside(&self, unreadable: Unreadable) {
        let mut set_aside = self.unreadable.borrow_mut();
        if !set_aside.iter().any(|u| u.key.is_some() && u.key == unreadable.key) {
            set_aside.push(unreadable);
        }
    }

    /// The entry of `key` is gone from the store: drops it from memory, tells the listeners, and
    /// keeps the key among the gone.
    pub(super) fn forget(&self, key: &str) {
        self.drop_entry(key);
        let mut gone = self.gone.borrow_mut();
        if !gone.iter().any(|k| k == key) {
            if gone.len() == GONE_KEPT {
                gone.remove(0);
            }
            gone.push(key.into());
        }
    }

    /// Drops the entry of `key` from memory and tells the listeners.
    fn drop_entry(&self, key: &str) {
        let before = self.entries.borrow().len();
        self.entries.borrow_mut().retain(|e| e.key != key);
        if self.entries.borrow().len() != before {
            self.changed(Change::Removed(key));
        }
    }

    pub(super) fn changed(&self, change: Change<'_>) {
        // Out of its cell first: the listener may close the outbox.
        let listener = self.on_change.borrow().clone();
        if let Some(listener) = listener {
            listener.0(change);
        }
    }

    /// Closes the outbox, once: aborts the calls in flight, stops sending (the Web Lock, the
    /// listeners, the timer: `Scheduler`'s drop), closes the store, tells the listener `why` when
    /// it closes on its own, and lets the listener go.
    pub(super) fn close(&self, why: Option<&'static str>) {
        if self.closed.replace(true) {
            return;
        }
        // A reason that is not an Error: an Error made here would keep this call's frames, and
        // with them the app's outbox object, for as long as the controller lives.
        self.abort.abort_with_reason(&"the outbox was closed".into());
        self.sending.take();
        self.store.close();
        if let Some(why) = why {
            self.changed(Change::Closed(why));
        }
        self.on_change.take();
    }

    /// The options of one call of an entry: its key, the outbox's abort, and a count of the
    /// requests it sends.
    pub(super) fn call_options(&self, key: &str, requests: Rc<Cell<u32>>) -> CallOptions {
        CallOptions::new()
            .idempotency_key(IdempotencyKey::Given(key.into()))
            .signal(self.abort.signal())
            .after_attempt(move |attempt| {
                requests.set(attempt.number);
                Ok(())
            })
    }
}

/// The error of an `operation` on a key the outbox does not hold.
pub(super) fn unknown(operation: &str) -> Error {
    Error::config([operation, ": the outbox holds no entry of that key"].concat())
}

/// The error of an `operation` the store failed.
fn store_failed(operation: &str, cause: JsValue) -> Error {
    let message = ["the outbox could not ", operation, ": its store failed: ", &failure(&cause)];
    Error::config(message.concat()).with_cause(cause)
}

/// Puts `entry` in `entries`: in place of the one of its key, else where the order they were
/// added keeps it, after those added in the same millisecond.
fn place(entries: &mut Vec<Entry>, entry: Entry) {
    match entries.iter_mut().find(|e| e.key == entry.key) {
        Some(old) => *old = entry,
        None => {
            let at = entries.partition_point(|e| e.added_at <= entry.added_at);
            entries.insert(at, entry);
        }
    }
}
