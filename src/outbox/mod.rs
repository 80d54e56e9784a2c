//! A durable outbox (cargo feature `outbox`): plants added while offline, across reloads and tabs,
//! each sent until the store answers, with one `Idempotency-Key` per plant, so that a server that
//! honours it creates each plant once. Rust decides, the browser does; read in this order:
//! - `config.rs`: how an outbox is opened, and what it tells;
//! - `entry.rs`: an entry and its state, and what a send told of it;
//! - `table.rs`: the one table of rules that changes what the store holds;
//! - `tab_io.rs`, `tab.rs` and `round.rs`: when a tab sends: what happens to it and what its
//!   shell does; the page's life, the lock; the round, the timer;
//! - `record.rs`: a record (what the store keeps) and an entry's view, plain JS objects;
//! - `held.rs`: a tab's state, and what it holds of the store;
//! - `rules.rs`: what a tab decides for its JS shell (`js/outbox/`: the `PlantOutbox` and its
//!   store), which does the IO: the tab's actions and what it holds;
//! - `changes.rs`: a change of the store, from the records it names to what it gives, the
//!   app's operations (add, retry, markCreated, remove) and a send;
//! - `shell.rs`, `exports.rs` and `page.rs`: the seam, typed once each way: what Rust asks of
//!   the shell, and what the shell asks of Rust (the page's events, what each means, in
//!   `page.rs`);
//! - this file: the Rust API over the shell.

mod changes;
mod config;
mod entry;
mod exports;
mod held;
mod page;
mod record;
mod round;
mod rules;
mod shell;
mod tab;
mod tab_io;
mod table;

pub use config::{Change, OutboxConfig, Store, DEFAULT_CONCURRENCY, DEFAULT_RETENTION_MS};
pub use entry::{Entry, EntryError, State};
pub(crate) use exports::open;
pub(crate) use rules::Rules;
pub(crate) use shell::Shell;
pub(crate) use tab_io::Input;
pub use table::RETRY_AFTER_CEILING_MS;

use crate::{Client, Error};
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use js_sys::futures::JsFuture;
use js_sys::Promise;
use plant_store_model::NewPlant;
use wasm_bindgen::{JsCast, JsValue};

/// A record of the store the outbox cannot read, set aside: listed, and removable by its key.
#[derive(Clone, Debug)]
pub struct Unreadable {
    /// Its key.
    pub key: Option<String>,
    /// What is wrong with it.
    pub reason: String,
    /// The record as the store gave it.
    pub record: JsValue,
}

/// A durable outbox of plants: see the module. Its clones share it.
#[derive(Clone)]
pub struct Outbox {
    rules: Rc<Rules>,
    shell: Shell,
    client: Client,
}

impl fmt::Debug for Outbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Outbox").finish_non_exhaustive()
    }
}

impl Outbox {
    /// Opens the outbox: its store and what it holds (the entries not created, the newest created
    /// ones, the records set aside), then sends what is due. With the Web Locks API the tabs of
    /// the outbox send one round at a time; a tab that hides lets go of the lock at once (its
    /// sends finish), one that freezes or is cached aborts them; without it every tab sends (open
    /// says so in the console).
    ///
    /// # Errors
    /// [`Kind::Config`](crate::Kind::Config) for a wrong setting, or a store that cannot be opened
    /// or read (IndexedDB missing, refused, of a newer release, or held at an older version by
    /// another tab: the message names the cause and the fix).
    pub async fn open(config: OutboxConfig) -> Result<Outbox, Error> {
        let (rules, store) = Rules::new(config, false)?;
        let shell = JsFuture::from(open(&rules, &store)?).await;
        let thrown =
            |e| rules.state.borrow_mut().thrown.take().unwrap_or_else(|| rules.failed("open", e));
        let shell = shell.map_err(thrown)?;
        let shell: Shell = shell.unchecked_into();
        let client = rules.client().ok_or_else(|| Error::config("the outbox is closed"))?;
        Ok(Outbox { rules, shell, client })
    }

    /// Adds `plant`: resolves once its entry is durably stored, then sends it when it can. A plant
    /// whose id the outbox holds (in any tab, within the retention) is not added twice: the same
    /// plant gives back its entry as it is.
    ///
    /// # Errors
    /// [`Kind::Config`](crate::Kind::Config) when the outbox is closed, holds another plant with
    /// that id (or a record it cannot read holds the id), or the store refuses the entry; nothing
    /// was added.
    pub async fn add(&self, plant: &NewPlant) -> Result<Entry, Error> {
        // JavaScript gets a BigInt back for an id past its safe integers.
        let bigint = plant.id.unsigned_abs() > 9_007_199_254_740_991;
        let change = self.rules.add(plant.clone(), bigint)?;
        self.write(self.shell.write(&change)).await?;
        let added = self.rules.state.borrow_mut().added.take();
        added.ok_or_else(|| Error::config("the outbox's store gave back no entry"))
    }

    /// The entries this tab holds of the store, in the order they were added: every entry not
    /// created, and the created ones (the newest at open, and all those created since, until the
    /// retention removes them). [`Outbox::get`] reads any other.
    pub fn entries(&self) -> Vec<Entry> {
        self.rules.state.borrow().held.entries()
    }

    /// The entry of `key` as the store holds it now, within the retention.
    ///
    /// # Errors
    /// [`Kind::Config`](crate::Kind::Config) when the store cannot be read.
    pub async fn get(&self, key: &str) -> Result<Option<Entry>, Error> {
        let raw = self.write(self.shell.record(key)).await?;
        Ok(self.rules.entry_of(&raw))
    }

    /// The records of the store the outbox cannot read (written by a newer release, or not by the
    /// outbox), set aside: [`Outbox::remove`] takes one out by its key.
    pub fn unreadable(&self) -> Vec<Unreadable> {
        let aside = &self.rules.state.borrow().held.aside;
        let each = aside.iter().map(|aside| Unreadable {
            key: Some(aside.key.clone()),
            reason: aside.reason.clone(),
            record: aside.record.clone(),
        });
        each.collect()
    }

    /// Sends every entry that waits now, whatever its wait but the server's, and resolves once each
    /// was tried (at once while paused, closed or offline, and in the second after the page hid).
    pub async fn flush(&self) {
        let _ = JsFuture::from(self.shell.flush()).await;
    }

    /// Sends a `rejected`, `uncertain` or waiting entry again, now: with its key, or with a new
    /// one if a request with its key may have reached the store longer ago than the key lifetime.
    ///
    /// # Errors
    /// [`Kind::Config`](crate::Kind::Config) for a key the outbox does not hold, an entry being
    /// sent or created, or a store that refuses the change.
    pub async fn retry(&self, key: &str) -> Result<(), Error> {
        self.act(key, "retry").await
    }

    /// Records what the app found out about an entry that waits, was refused or is `uncertain`:
    /// the plant is in the store. The entry becomes `created`, its Plant the one it sent (a Plant is
    /// the echo of its NewPlant's name and tag), and is never sent again.
    ///
    /// # Errors
    /// As [`Outbox::retry`].
    pub async fn mark_created(&self, key: &str) -> Result<(), Error> {
        self.act(key, "markCreated").await
    }

    /// Removes an entry, or a record set aside (a request already sent for it is not recalled).
    ///
    /// # Errors
    /// [`Kind::Config`](crate::Kind::Config) for a key the outbox does not hold, or a store that
    /// refuses.
    pub async fn remove(&self, key: &str) -> Result<(), Error> {
        self.act(key, "remove").await
    }

    /// Stops sending from here (the requests in flight finish, and another tab may take over);
    /// [`Outbox::resume`] starts again.
    pub fn pause(&self) {
        self.rules.on(Input::Pause);
    }

    /// Sends again what is due.
    pub fn resume(&self) {
        self.rules.on(Input::Resume);
    }

    /// The client the outbox sends with.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Closes the outbox: the calls in flight are aborted (an answer that came is recorded), and
    /// their entries are sent again, with the same key, by the next sender.
    pub fn close(&self) {
        self.rules.close(None);
    }

    async fn act(&self, key: &str, operation: &'static str) -> Result<(), Error> {
        let change = self.rules.act(key, operation)?;
        self.write(self.shell.write(&change)).await.map(drop)
    }

    /// What the shell's promise gives: its value, or the error Rust gave it to throw.
    async fn write(&self, promise: Promise) -> Result<JsValue, Error> {
        let outcome = JsFuture::from(promise).await;
        match self.rules.state.borrow_mut().thrown.take() {
            Some(error) => Err(error),
            None => outcome.map_err(|cause| self.rules.failed("do it", cause)),
        }
    }
}
