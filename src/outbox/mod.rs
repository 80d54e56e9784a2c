//! A durable outbox (cargo feature `outbox`): plants added while offline, across reloads and tabs,
//! each sent until the store answers, with one `Idempotency-Key` per plant, so that a server that
//! honours it creates each plant once. Rust decides, the browser does; read in this order:
//! - `config.rs`: how an outbox is opened, and what it tells;
//! - `entry.rs`: an entry and its state;
//! - `table.rs`: the one table of rules that changes what the store holds;
//! - `record.rs`: a record, an entry's view and an event, as the JSON text Rust and the shell trade;
//! - `shell.rs`: the JS shell (`js/outbox/`: the store, the tabs, the `PlantOutbox`) and the rules
//!   it is handed;
//! - this file: the Rust API over the shell.

mod config;
mod entry;
mod record;
mod shell;
mod table;

pub use config::{Change, OutboxConfig, Store, DEFAULT_CONCURRENCY, DEFAULT_RETENTION_MS};
pub use entry::{Entry, EntryError, State};
pub(crate) use shell::{start, Rules};
pub use table::RETRY_AFTER_CEILING_MS;

use crate::{Client, Error};
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use js_sys::futures::JsFuture;
use js_sys::Reflect;
use plant_store_model::NewPlant;
use shell::{held, insert, stored, Shell};
use table::Held;
use wasm_bindgen::prelude::*;

/// A record of the store the outbox cannot read, set aside: listed, and removable by its key.
#[derive(Clone, Debug)]
pub struct Unreadable {
    /// Its key, when it has one that is a string.
    pub key: Option<String>,
    /// What is wrong with it.
    pub reason: String,
    /// The record as the store gave it.
    pub record: JsValue,
}

/// A durable outbox of plants: see the module. Its clones share it.
#[derive(Clone)]
pub struct Outbox {
    shell: Shell,
    rules: Rc<Rules>,
}

impl fmt::Debug for Outbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Outbox").finish_non_exhaustive()
    }
}

impl Outbox {
    /// Opens the outbox: its store and what it holds (the entries not created, the newest created
    /// ones, the records set aside), then sends what is due. With the Web Locks API the tabs of
    /// the outbox send one round at a time, and a tab that hides, freezes or closes lets go at
    /// once; without it every tab sends (open says so in the console).
    ///
    /// # Errors
    /// [`Kind::Config`](crate::Kind::Config) for a wrong setting, or a store that cannot be opened
    /// or read (IndexedDB missing, refused, of a newer release, or held at an older version by
    /// another tab: the message names the cause and the fix).
    pub async fn open(config: OutboxConfig) -> Result<Outbox, Error> {
        let (opening, rules) = start(config, |_| None)?;
        let shell = JsFuture::from(opening).await.map_err(from_js)?;
        Ok(Outbox { shell: shell.unchecked_into(), rules })
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
        let record = self.rules.record(plant.clone(), false)?;
        let stored = JsFuture::from(insert(&self.shell, &record)).await.map_err(from_js)?;
        read_entry(&stored).ok_or_else(|| Error::config("the outbox's store gave back no entry"))
    }

    /// The entries this tab holds of the store, in the order they were added: every entry not
    /// created, and the created ones (the newest at open, and all those created since, until the
    /// retention removes them). [`Outbox::get`] reads any other.
    pub fn entries(&self) -> Vec<Entry> {
        let mut entries: Vec<Entry> =
            held(&self.shell).iter().filter_map(|r| read_entry(&r)).collect();
        entries.sort_by(|a, b| a.added_at.total_cmp(&b.added_at).then_with(|| a.key.cmp(&b.key)));
        entries
    }

    /// The entry of `key` as the store holds it now, within the retention.
    ///
    /// # Errors
    /// [`Kind::Config`](crate::Kind::Config) when the store cannot be read.
    pub async fn get(&self, key: &str) -> Result<Option<Entry>, Error> {
        Ok(read_entry(&JsFuture::from(stored(&self.shell, key)).await.map_err(from_js)?))
    }

    /// The records of the store the outbox cannot read (written by a newer release, or not by the
    /// outbox), set aside: [`Outbox::remove`] takes one out by its key.
    pub fn unreadable(&self) -> Vec<Unreadable> {
        let text = |of: &JsValue, key: &str| Reflect::get(of, &key.into()).ok()?.as_string();
        let set_aside = self.shell.unreadable();
        let set_aside = set_aside.iter().map(|set| Unreadable {
            key: text(&set, "key"),
            reason: text(&set, "reason").unwrap_or_default(),
            record: Reflect::get(&set, &"record".into()).unwrap_or_default(),
        });
        set_aside.collect()
    }

    /// Sends every entry that waits now, whatever its wait but the server's, and resolves once each
    /// was tried (at once while paused, closed or offline, and in the second after the page hid).
    pub async fn flush(&self) {
        let _ = JsFuture::from(self.shell.flush()).await;
    }

    /// Sends a `rejected`, `uncertain` or waiting entry again, now, with its key.
    ///
    /// # Errors
    /// [`Kind::Config`](crate::Kind::Config) for a key the outbox does not hold, an entry being
    /// sent or created, or a store that refuses the change.
    pub async fn retry(&self, key: &str) -> Result<(), Error> {
        JsFuture::from(self.shell.retry(key)).await.map(drop).map_err(from_js)
    }

    /// Records what the app found out about an entry that waits, was refused or is `uncertain`:
    /// the plant is in the store. The entry becomes `created`, its Plant the one it sent (a Plant is
    /// the echo of its NewPlant's name and tag), and is never sent again.
    ///
    /// # Errors
    /// As [`Outbox::retry`].
    pub async fn mark_created(&self, key: &str) -> Result<(), Error> {
        JsFuture::from(self.shell.mark_created(key)).await.map(drop).map_err(from_js)
    }

    /// Removes an entry, or a record set aside (a request already sent for it is not recalled).
    ///
    /// # Errors
    /// [`Kind::Config`](crate::Kind::Config) for a key the outbox does not hold, or a store that
    /// refuses.
    pub async fn remove(&self, key: &str) -> Result<(), Error> {
        JsFuture::from(self.shell.remove(key)).await.map(drop).map_err(from_js)
    }

    /// Stops sending from here (the requests in flight finish, and another tab may take over);
    /// [`Outbox::resume`] starts again.
    pub fn pause(&self) {
        self.shell.pause();
    }

    /// Sends again what is due.
    pub fn resume(&self) {
        self.shell.resume();
    }

    /// The client the outbox sends with.
    pub fn client(&self) -> &Client {
        &self.rules.client
    }

    /// Closes the outbox: the calls in flight are aborted (an answer that came is recorded), and
    /// their entries are sent again, with the same key, by the next sender.
    pub fn close(&self) {
        self.shell.close();
    }
}

/// The entry a record (JSON text, or undefined) holds.
fn read_entry(record: &JsValue) -> Option<Entry> {
    match record::read(&record.as_string()?) {
        Held::Entry(entry) => Some(entry),
        _ => None,
    }
}

/// The error of an operation of the shell that failed (a `PlantStoreError` in JavaScript).
fn from_js(error: JsValue) -> Error {
    let message = Reflect::get(&error, &"message".into()).ok().and_then(|m| m.as_string());
    Error::config(message.unwrap_or_else(|| "the outbox failed".into())).with_cause(error)
}
