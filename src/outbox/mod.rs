//! A durable outbox (cargo feature `outbox`): plants added while offline, across reloads and tabs,
//! each sent until the store answers, with one `Idempotency-Key` per plant, so that a server that
//! honours it creates each plant once. A layer on the public client: it sends with
//! [`Client::create_plant_with`], as any Rust app could.
//!
//! Read in this order:
//! - `entry.rs`: an entry and the one table of rules that changes it (`Entry::apply`);
//! - `record.rs`: an entry as a store keeps it, and as JavaScript sees it;
//! - this file: the operations, each a change written to the store before it is acted on, and
//!   only over the revision it was made from (`Core::change`);
//! - `store.rs` and `idb.rs`: where the records are kept;
//! - `send.rs`: when entries are sent, and by which tab.

mod browser;
mod entry;
mod idb;
mod record;
mod send;
mod store;

pub use entry::{Entry, EntryError, State, RETRY_AFTER_CEILING_MS};
pub use record::Unreadable;
#[cfg(feature = "js")]
pub(crate) use send::promise;
pub use store::Store;

use crate::{CallOptions, Client, Config, Error, IdempotencyKey, MAX_TIMEOUT_MS};
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::{Cell, RefCell};
use core::fmt;
use entry::{Event, Step};
use js_sys::{Date, Math};
use plant_store_model::{NewPlant, Plant};
use record::Write;
use store::{failure, Opened, Turns};
use wasm_bindgen::JsValue;
use web_sys::AbortController;

/// The default number of entries sent at once.
pub const DEFAULT_CONCURRENCY: u32 = 4;
/// How long a created entry is kept by default: 24 hours.
pub const DEFAULT_RETENTION_MS: u32 = 86_400_000;

/// What changed in an outbox.
#[derive(Debug)]
#[non_exhaustive]
pub enum Change<'a> {
    /// An entry was added, or changed: as it now is.
    Entry(&'a Entry),
    /// The entry of this key was removed (by the app, or after its retention).
    Removed(&'a str),
    /// The outbox closed on its own, for this reason: another page opened a newer version of its
    /// database, or the browser closed it. Its entries are safe in the store.
    Closed(&'static str),
}

/// A listener of an outbox's changes.
#[derive(Clone)]
struct OnChange(Rc<dyn Fn(Change<'_>)>);

impl fmt::Debug for OnChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("..")
    }
}

/// How to open an [`Outbox`].
#[derive(Clone, Debug)]
pub struct OutboxConfig {
    client: Config,
    name: String,
    store: Store,
    concurrency: u32,
    retention_ms: u32,
    on_change: Option<OnChange>,
}

impl OutboxConfig {
    /// The outbox `name` (one database each), sending through a client of `client`.
    pub fn new(client: Config, name: impl Into<String>) -> OutboxConfig {
        OutboxConfig {
            client,
            name: name.into(),
            store: Store::default(),
            concurrency: DEFAULT_CONCURRENCY,
            retention_ms: DEFAULT_RETENTION_MS,
            on_change: None,
        }
    }

    /// Where the entries are kept (IndexedDB unless told).
    pub fn store(mut self, store: Store) -> OutboxConfig {
        self.store = store;
        self
    }

    /// How many entries are sent at once, from 1 to 64 ([`DEFAULT_CONCURRENCY`] unless told).
    pub fn concurrency(mut self, concurrency: u32) -> OutboxConfig {
        self.concurrency = concurrency;
        self
    }

    /// How long a created entry stays in the store, in milliseconds from when it was created, up to
    /// [`MAX_TIMEOUT_MS`] ([`DEFAULT_RETENTION_MS`] unless told; 0 removes it at the next round).
    pub fn retention_ms(mut self, retention_ms: u32) -> OutboxConfig {
        self.retention_ms = retention_ms;
        self
    }

    /// Called after every change.
    pub fn on_change(mut self, listener: impl Fn(Change<'_>) + 'static) -> OutboxConfig {
        self.on_change = Some(OnChange(Rc::new(listener)));
        self
    }
}

/// A durable outbox of plants: see the module. Its clones share it.
#[derive(Clone)]
pub struct Outbox(pub(crate) Rc<Core>);

impl fmt::Debug for Outbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Outbox").field("name", &self.0.name).finish_non_exhaustive()
    }
}

/// What an outbox's operations share.
pub(crate) struct Core {
    client: Client,
    store: Opened,
    name: String,
    concurrency: u32,
    retention_ms: f64,
    on_change: Option<OnChange>,
    /// The entries not created, and those seen created since the outbox opened, in the order they
    /// were added: what the store holds, as far as this outbox knows.
    entries: RefCell<Vec<Entry>>,
    /// The records set aside.
    unreadable: RefCell<Vec<Unreadable>>,
    /// One change at a time.
    turns: Turns,
    /// Aborts the calls in flight when the outbox closes.
    abort: AbortController,
    paused: Cell<bool>,
    closed: Cell<bool>,
    /// When the last entry added here was.
    last_added: Cell<f64>,
    /// What `send.rs` keeps: the lock, the round under way, the timer, the listeners.
    sending: send::Sending,
}

/// Why a change was not made.
enum Failed {
    /// The outbox holds no entry of that key.
    Unknown,
    /// The table refused the event: why.
    Refused(&'static str),
    /// The store failed.
    Store(JsValue),
}

impl Outbox {
    /// Opens the outbox: its store, its entries (those not created, and the records it cannot
    /// read, set aside), and its sending: with the Web Locks API one tab of the outbox sends at a
    /// time, and another takes over at once when it closes; without it (browsers before 2022),
    /// every tab sends, and a tab that opens while another is sending an entry sends it again, with
    /// the same key (open says so in the console).
    ///
    /// # Errors
    /// [`Kind::Config`](crate::Kind::Config) for a wrong setting, or a store that cannot be opened
    /// or read (IndexedDB missing, refused, or held at an older version by another tab: the message
    /// names the cause).
    pub async fn open(config: OutboxConfig) -> Result<Outbox, Error> {
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
        // The store tells when it closes under the outbox: the outbox closes too.
        let core: Rc<RefCell<Option<alloc::rc::Weak<Core>>>> = Rc::default();
        let closed = Rc::new({
            let core = core.clone();
            move |reason: &'static str| {
                if let Some(core) = core.borrow().as_ref().and_then(|c| c.upgrade()) {
                    if !core.closed.replace(true) {
                        core.abort.abort();
                        send::stop(&core);
                        core.changed(Change::Closed(reason));
                    }
                }
            }
        });
        let store = Opened::open(store, &name, closed).await?;
        let could_not = |cause: JsValue| {
            let message = ["the outbox could not read its store: ", &failure(&cause)].concat();
            Error::config(message).with_cause(cause)
        };
        let records = store.load().await.map_err(could_not)?;
        let abort = AbortController::new()
            .map_err(|cause| Error::config("the outbox needs AbortController").with_cause(cause))?;
        let outbox = Outbox(Rc::new(Core {
            client,
            store,
            name,
            concurrency,
            retention_ms: f64::from(retention_ms),
            on_change,
            entries: RefCell::default(),
            unreadable: RefCell::default(),
            turns: Turns::default(),
            abort,
            paused: Cell::new(false),
            closed: Cell::new(false),
            last_added: Cell::new(0.0),
            sending: send::Sending::default(),
        }));
        *core.borrow_mut() = Some(Rc::downgrade(&outbox.0));
        outbox.0.opened(records);
        send::start(&outbox.0);
        Ok(outbox)
    }

    /// Adds `plant`: resolves once its entry is durably stored, then sends it when it can. A plant
    /// whose id the outbox already holds is not added twice: the same plant gives back its entry as
    /// it is.
    ///
    /// # Errors
    /// [`Kind::Config`](crate::Kind::Config) when the outbox is closed, holds another plant with
    /// that id, or the store refuses the entry; nothing was added.
    pub async fn add(&self, plant: &NewPlant) -> Result<Entry, Error> {
        self.0.add(plant.clone(), false).await
    }

    /// Every entry not created, and the created ones the outbox holds until their retention (with
    /// IndexedDB those created since it opened; a store of the caller's gives all), in the order
    /// they were added.
    pub fn entries(&self) -> Vec<Entry> {
        self.0.entries.borrow().clone()
    }

    /// The records of the store the outbox cannot read (written by a newer release, or not by the
    /// outbox), set aside: [`Outbox::remove`] takes one out by its key.
    pub fn unreadable(&self) -> Vec<Unreadable> {
        self.0.unreadable.borrow().clone()
    }

    /// Sends every pending entry now, whatever its next attempt time, and resolves once each was
    /// tried (at once while paused or closed; from another tab than the one sending, once that one
    /// tried them).
    pub async fn flush(&self) {
        send::flush(&self.0).await;
    }

    /// Sends a `rejected`, `uncertain` or waiting entry again, now, with its key.
    ///
    /// # Errors
    /// [`Kind::Config`](crate::Kind::Config) for a key the outbox does not hold, an entry being
    /// sent or created, or a store that refuses the change.
    pub async fn retry(&self, key: &str) -> Result<(), Error> {
        self.0.act("retry", key, Event::Retried).await?;
        send::kick(&self.0, false);
        Ok(())
    }

    /// Records what the app found out about an entry that waits, was refused or is `uncertain`:
    /// the plant is in the store. The entry becomes `created`, its Plant the one it sent (a Plant is
    /// the echo of its NewPlant's name and tag), and is never sent again.
    ///
    /// # Errors
    /// As [`Outbox::retry`].
    pub async fn mark_created(&self, key: &str) -> Result<(), Error> {
        let Some(entry) = self.0.entry(key) else {
            return Err(unknown("markCreated"));
        };
        let plant = Plant { name: entry.plant.name, tag: entry.plant.tag };
        self.0.act("markCreated", key, Event::Resolved(plant)).await.map(drop)
    }

    /// Removes an entry, or a record set aside (a request already sent for it is not recalled).
    ///
    /// # Errors
    /// [`Kind::Config`](crate::Kind::Config) for a key the outbox does not hold, or a store that
    /// refuses.
    pub async fn remove(&self, key: &str) -> Result<(), Error> {
        self.0.remove(key).await
    }

    /// Stops sending from here (the requests in flight finish, and another tab may take over);
    /// [`Outbox::resume`] starts again.
    pub fn pause(&self) {
        self.0.paused.set(true);
        send::kick(&self.0, false);
    }

    /// Sends again what is due.
    pub fn resume(&self) {
        self.0.paused.set(false);
        send::start(&self.0);
    }

    /// The client the outbox sends with.
    pub fn client(&self) -> &Client {
        &self.0.client
    }

    /// Closes the outbox: the calls in flight are aborted, and their entries, still `sending` in
    /// the store, are sent again with the same key by the next sender.
    pub fn close(&self) {
        let core = &self.0;
        if !core.closed.replace(true) {
            core.abort.abort();
            send::stop(core);
            core.store.close();
        }
    }
}

impl Core {
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

    pub(crate) async fn add(
        self: &Rc<Core>,
        plant: NewPlant,
        bigint: bool,
    ) -> Result<Entry, Error> {
        if self.closed.get() {
            return Err(Error::config("the outbox is closed"));
        }
        // Two adds of one id are ordered: the second sees the first's entry.
        let turn = self.turns.take(&["id ", &record::decimal(plant.id)].concat()).await;
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
                drop(turn);
                // This tab sends it, or the one that sends heard of it.
                send::kick(self, false);
                Ok(entry)
            }
            Ok(Some(_)) => Err(Error::config("the outbox store already holds that key")),
            Err(cause) => Err(store_failed("store the entry", cause)),
        }
    }

    /// An operation of the app on the entry of `key`, named `operation` in its error.
    async fn act(&self, operation: &str, key: &str, event: Event) -> Result<Option<Entry>, Error> {
        self.change(key, &event).await.map_err(|failed| match failed {
            Failed::Unknown => unknown(operation),
            Failed::Refused(why) => Error::config([operation, ": not now, ", why].concat()),
            Failed::Store(cause) => store_failed(operation, cause),
        })
    }

    async fn remove(&self, key: &str) -> Result<(), Error> {
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
    async fn change(&self, key: &str, event: &Event) -> Result<Option<Entry>, Failed> {
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
        send::tell_tabs(self, write);
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
                self.forget(key);
                self.unreadable.borrow_mut().push(unreadable);
            }
        }
    }

    /// The entry of `key`, as this outbox knows it.
    fn entry(&self, key: &str) -> Option<Entry> {
        self.entries.borrow().iter().find(|e| e.key == key).cloned()
    }

    /// Takes `entry` in memory unless it holds that revision or a newer one (a message of another
    /// tab can come after a later write), and tells the listeners.
    pub(crate) fn remember(&self, entry: Entry) {
        let newer = self
            .entries
            .borrow()
            .iter()
            .any(|e| e.key == entry.key && e.revision >= entry.revision);
        if !newer {
            place(&mut self.entries.borrow_mut(), entry.clone());
            self.changed(Change::Entry(&entry));
        }
    }

    /// Drops the entry of `key` from memory and tells the listeners.
    fn forget(&self, key: &str) {
        let before = self.entries.borrow().len();
        self.entries.borrow_mut().retain(|e| e.key != key);
        if self.entries.borrow().len() != before {
            self.changed(Change::Removed(key));
        }
    }

    fn changed(&self, change: Change<'_>) {
        if let Some(listener) = &self.on_change {
            listener.0(change);
        }
    }

    /// The options of one call of an entry: its key, the outbox's abort, and a count of the
    /// requests it sends.
    fn call_options(&self, key: &str, requests: Rc<Cell<u32>>) -> CallOptions {
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
fn unknown(operation: &str) -> Error {
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

impl Drop for Core {
    fn drop(&mut self) {
        send::stop(self);
        self.store.close();
    }
}
