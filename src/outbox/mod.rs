//! A durable outbox (cargo feature `outbox`): plants added while offline, across reloads and tabs,
//! each sent until the store answers, with one `Idempotency-Key` per plant, so that a server that
//! honours it creates each plant once. A layer on the public client: it sends with
//! [`Client::create_plant_with`], as any Rust app could.
//!
//! Read in this order:
//! - `entry.rs`: an entry and the one table of rules that changes it (`Entry::apply`);
//! - `record.rs`: an entry as a store keeps it, and as JavaScript sees it;
//! - `browser.rs`, `idb.rs` and `store.rs`: the browser's APIs, and where the records are kept;
//! - `schedule.rs` and `held.rs`: what an outbox keeps, and the one way an entry changes
//!   (`Core::change`): written to the store first, only over the revision it was made from;
//! - `send.rs`: when entries are sent, and by which tab;
//! - this file: the operations.

mod browser;
mod entry;
mod held;
mod idb;
mod record;
mod schedule;
mod send;
mod store;

#[cfg(feature = "js")]
pub(crate) use browser::promise;
pub use entry::{Entry, EntryError, State, RETRY_AFTER_CEILING_MS};
pub use record::Unreadable;
pub use store::Store;

use crate::{Client, Config, Error};
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use entry::Event;
use held::{unknown, Core};
use plant_store_model::{NewPlant, Plant};

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
    /// [`MAX_TIMEOUT_MS`](crate::MAX_TIMEOUT_MS) ([`DEFAULT_RETENTION_MS`] unless told; 0 removes it at
    /// the next round).
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
pub struct Outbox(Rc<Core>);

impl fmt::Debug for Outbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Outbox").field("name", &self.0.name).finish_non_exhaustive()
    }
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
        let core = Core::open(config).await?;
        send::start(&core);
        Ok(Outbox(core))
    }

    /// Adds `plant`: resolves once its entry is durably stored, then sends it when it can. A plant
    /// whose id the outbox already holds is not added twice: the same plant gives back its entry as
    /// it is.
    ///
    /// # Errors
    /// [`Kind::Config`](crate::Kind::Config) when the outbox is closed, holds another plant with
    /// that id, or the store refuses the entry; nothing was added.
    pub async fn add(&self, plant: &NewPlant) -> Result<Entry, Error> {
        self.add_plant(plant.clone(), false).await
    }

    /// [`Outbox::add`] of a plant whose id JavaScript gave as a BigInt when `bigint`.
    pub(crate) async fn add_plant(&self, plant: NewPlant, bigint: bool) -> Result<Entry, Error> {
        let entry = self.0.add(plant, bigint).await?;
        // This tab sends it, or the one that sends heard of it.
        send::kick(&self.0, false);
        Ok(entry)
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
        self.0.close(None);
    }
}
