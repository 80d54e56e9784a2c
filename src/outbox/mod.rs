//! A durable outbox (cargo feature `outbox`): plants added while offline, across reloads and tabs,
//! each sent until the store answers, with one `Idempotency-Key` per plant, so that a server that
//! honours it creates each plant once.
//!
//! An [`Outbox`] keeps its entries in memory and in a [`Store`]; every change is written to the
//! store before it is acted on (an entry is marked `sending`, with its attempt count, before fetch
//! is called), so a page closed at any point loses nothing. What an attempt makes of its entry is
//! [`Entry::settle`]; how and when entries are sent (the lock across tabs, the workers, the wake-ups)
//! is `send.rs`.

mod entry;
mod idb;
mod send;
mod store;

pub use entry::{Entry, EntryError, State};
#[cfg(feature = "js")]
pub(crate) use send::promise;
pub use store::Store;

use crate::config::{uuid, CallOptions};
use crate::error::{Draft, Error};
use crate::hooks::Callback;
use crate::{Client, Config, IdempotencyKey};
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::{Cell, RefCell};
use js_sys::Date;
use plant_store_model::NewPlant;
use store::{failure, Opened};
use wasm_bindgen::JsValue;
use web_sys::AbortController;

/// The default number of entries sent at once.
pub const DEFAULT_CONCURRENCY: u32 = 4;

/// What changed in an outbox: an entry, as it now is, or the key of one removed.
#[derive(Debug)]
pub enum Change<'a> {
    /// An entry was added, or its state changed.
    Entry(&'a Entry),
    /// The entry of this key was removed.
    Removed(&'a str),
}

/// A listener of an outbox's changes.
type OnChange = Callback<dyn Fn(Change<'_>)>;

/// How to open an [`Outbox`].
#[derive(Clone, Debug)]
pub struct OutboxConfig {
    client: Config,
    name: String,
    store: Store,
    concurrency: u32,
    on_change: Option<OnChange>,
}

impl OutboxConfig {
    /// The outbox `name` (one database each), sending through a client of `client`.
    pub fn new(client: Config, name: impl Into<String>) -> OutboxConfig {
        let name = name.into();
        OutboxConfig {
            client,
            name,
            store: Store::default(),
            concurrency: DEFAULT_CONCURRENCY,
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

    /// Called after every change, with the entry as it now is.
    pub fn on_change(mut self, listener: impl Fn(Change<'_>) + 'static) -> OutboxConfig {
        self.on_change = Some(Callback(Rc::new(listener)));
        self
    }
}

/// A durable outbox of plants: see the module. Its clones share it.
#[derive(Clone)]
pub struct Outbox(pub(crate) Rc<Core>);

impl core::fmt::Debug for Outbox {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Outbox").field("name", &self.0.name).finish_non_exhaustive()
    }
}

/// What an outbox's operations share.
pub(crate) struct Core {
    client: Client,
    store: Opened,
    name: String,
    concurrency: u32,
    /// This outbox's own id, for the lease and the messages between tabs.
    owner: String,
    on_change: Option<OnChange>,
    /// Every entry, in the order they were added.
    entries: RefCell<Vec<Entry>>,
    /// The keys being sent from here.
    in_flight: RefCell<Vec<String>>,
    /// Aborts the calls in flight when the outbox closes.
    abort: AbortController,
    paused: Cell<bool>,
    closed: Cell<bool>,
    /// What `send.rs` keeps: the drain under way, the timer, the listeners.
    sending: send::Sending,
}

impl Outbox {
    /// Opens the outbox: its store, its entries, and its wake-ups; then sends what is due.
    ///
    /// # Errors
    /// [`Kind::Config`](crate::Kind::Config) for a wrong setting, a store that cannot be opened
    /// (IndexedDB missing or blocked: the message names the cause), or a record in it that is no
    /// entry.
    pub async fn open(config: OutboxConfig) -> Result<Outbox, Error> {
        let OutboxConfig { client, name, store, concurrency, on_change } = config;
        let client = Client::new(client)?;
        if name.is_empty() || !(1..=64).contains(&concurrency) {
            let message = "the outbox needs a name, and a concurrency from 1 to 64";
            return Err(client.redact(Draft::config(message)));
        }
        let store = Opened::open(store, &name).await.map_err(|e| client.redact(e))?;
        let records = store.get_all().await.map_err(|cause| {
            let message = ["the outbox could not read its store: ", &failure(&cause)].concat();
            client.redact(Draft::config(message).with_cause(cause))
        })?;
        let mut entries: Vec<Entry> = Vec::with_capacity(records.len());
        for record in &records {
            let entry = Entry::from_js(record).map_err(|why| {
                let message = ["the outbox store holds a record that is no entry: ", why].concat();
                client.redact(Draft::config(message))
            })?;
            place(&mut entries, entry);
        }
        let abort = AbortController::new().map_err(|cause| {
            client.redact(Draft::config("the outbox needs AbortController").with_cause(cause))
        })?;
        let owner = uuid().map_err(|e| client.redact(e))?;
        let core = Rc::new(Core {
            client,
            store,
            name,
            concurrency,
            owner,
            on_change,
            entries: RefCell::new(entries),
            in_flight: RefCell::new(Vec::new()),
            abort,
            paused: Cell::new(false),
            closed: Cell::new(false),
            sending: send::Sending::default(),
        });
        send::listen(&core);
        send::kick(&core, false);
        Ok(Outbox(core))
    }

    /// Adds `plant`: resolves once its entry is durably stored, then sends it when it can.
    ///
    /// # Errors
    /// [`Kind::Config`](crate::Kind::Config) when the outbox is closed or the store refuses the
    /// entry; nothing was added.
    pub async fn add(&self, plant: &NewPlant) -> Result<Entry, Error> {
        self.0.add(plant.clone(), false).await
    }

    /// Every entry, in the order they were added.
    pub fn entries(&self) -> Vec<Entry> {
        self.0.entries.borrow().clone()
    }

    /// Sends every pending entry now, whatever its next attempt time, and resolves once each was
    /// tried (at once while paused or closed).
    pub async fn flush(&self) {
        send::flush(&self.0).await;
    }

    /// Sends a `rejected`, `uncertain` or waiting entry again, now.
    ///
    /// # Errors
    /// [`Kind::Config`](crate::Kind::Config) for a key the outbox does not hold, an entry being
    /// sent or created, or a store that refuses the change.
    pub async fn retry(&self, key: &str) -> Result<(), Error> {
        let core = &self.0;
        let entry = core.entry(key).filter(|e| !matches!(e.state, State::Sending | State::Created));
        let Some(mut entry) = entry.filter(|_| !core.in_flight.borrow().iter().any(|k| k == key))
        else {
            let message = "retry: no entry of that key waits or was refused";
            return Err(core.client.redact(Draft::config(message)));
        };
        entry.state = State::Pending;
        entry.next_attempt_at = None;
        core.save(&entry).await.map_err(|e| core.client.redact(e))?;
        send::kick(core, false);
        Ok(())
    }

    /// Removes an entry (a request already sent for it is not recalled).
    ///
    /// # Errors
    /// [`Kind::Config`](crate::Kind::Config) when the store refuses.
    pub async fn remove(&self, key: &str) -> Result<(), Error> {
        let core = &self.0;
        core.store.delete(key).await.map_err(|cause| {
            let message = ["the outbox could not remove the entry: ", &failure(&cause)].concat();
            core.client.redact(Draft::config(message).with_cause(cause))
        })?;
        core.forget(key);
        send::tell_tabs(core, &JsValue::from_str(key));
        Ok(())
    }

    /// Stops sending (the requests in flight finish); [`Outbox::resume`] starts again.
    pub fn pause(&self) {
        self.0.paused.set(true);
    }

    /// Sends again what is due.
    pub fn resume(&self) {
        self.0.paused.set(false);
        send::kick(&self.0, false);
    }

    /// `draft` as an error of this outbox's client.
    #[cfg(feature = "js")]
    pub(crate) fn redact(&self, draft: Draft) -> Error {
        self.0.client.redact(draft)
    }

    /// Closes the outbox: the calls in flight are aborted, and their entries, still `sending` in
    /// the store, are sent again with the same key when it is next opened.
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
    pub(crate) async fn add(
        self: &Rc<Core>,
        plant: NewPlant,
        bigint: bool,
    ) -> Result<Entry, Error> {
        if self.closed.get() {
            return Err(self.client.redact(Draft::config("the outbox is closed")));
        }
        let key = uuid().map_err(|e| self.client.redact(e))?;
        let entry = Entry::new(key, plant, bigint, Date::now());
        self.save(&entry).await.map_err(|e| self.client.redact(e))?;
        send::kick(self, false);
        Ok(entry)
    }

    /// The entry of `key`, as it now is.
    fn entry(&self, key: &str) -> Option<Entry> {
        self.entries.borrow().iter().find(|e| e.key == key).cloned()
    }

    /// Writes `entry` to the store, then to memory, and tells the listeners and the other tabs.
    async fn save(&self, entry: &Entry) -> Result<(), Draft> {
        let record = entry.to_js(true);
        self.store.put(&record).await.map_err(|cause| {
            let message = ["the outbox could not store the entry: ", &failure(&cause)].concat();
            Draft::config(message).with_cause(cause)
        })?;
        self.remember(entry.clone());
        send::tell_tabs(self, &record);
        Ok(())
    }

    /// Takes `entry` in memory (added or changed) and tells the listeners.
    fn remember(&self, entry: Entry) {
        place(&mut self.entries.borrow_mut(), entry.clone());
        self.changed(Change::Entry(&entry));
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

    /// The call options of one attempt: the entry's key, and the outbox's abort.
    fn call_options(&self, key: &str) -> CallOptions {
        let key = IdempotencyKey::Given(key.into());
        CallOptions::new().idempotency_key(key).signal(self.abort.signal())
    }
}

/// Puts `entry` in `entries`: in place of the one of its key, else where the order they were
/// added keeps it (a store, and another tab, give them in their own order), after those added in
/// the same millisecond.
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
