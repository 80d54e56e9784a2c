//! How an outbox is opened ([`OutboxConfig`]: its client, its name, its store, how many entries
//! are sent at once, how long a created one is kept) and what it tells a listener ([`Change`]).

use super::entry::Entry;
use crate::Config;
use alloc::rc::Rc;
use alloc::string::String;
use core::fmt;
use wasm_bindgen::JsValue;

/// The default number of entries sent at once.
pub const DEFAULT_CONCURRENCY: u32 = 4;
/// How long a created entry is kept by default: 24 hours.
pub const DEFAULT_RETENTION_MS: u32 = 86_400_000;

/// What changed in an outbox.
#[derive(Debug)]
#[non_exhaustive]
pub enum Change<'a> {
    /// An entry was added, or changed (here or in another tab): as it now is.
    Entry(&'a Entry),
    /// The entry of this key was removed (by the app, or after its retention).
    Removed(&'a str),
    /// The outbox closed on its own, for this reason: another page opened a newer version of its
    /// database, or the browser closed it. Its entries are safe in the store.
    Closed(&'a str),
}

/// A listener of an outbox's changes.
#[derive(Clone)]
pub(crate) struct OnChange(pub(crate) Rc<dyn Fn(Change<'_>)>);

impl fmt::Debug for OnChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("..")
    }
}

/// Where an outbox keeps its entries.
#[derive(Clone, Debug, Default)]
pub enum Store {
    /// The IndexedDB database `plant-store-outbox:{name}`, shared by the tabs of the origin.
    #[default]
    IndexedDb,
    /// A JS object of one outbox, with the methods `getAll()`, `put(record)` and `delete(key)` (and
    /// `get(key)`, if it has one), each returning a promise or a value; JS's `MemoryStore` is one.
    Js(JsValue),
}

/// How to open an [`Outbox`](super::Outbox).
#[derive(Clone, Debug)]
pub struct OutboxConfig {
    pub(crate) client: Config,
    pub(crate) name: String,
    pub(crate) store: Store,
    pub(crate) concurrency: u32,
    pub(crate) retention_ms: u32,
    pub(crate) on_change: Option<OnChange>,
    pub(crate) platform: Option<JsValue>,
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
            platform: None,
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

    /// The object whose platform APIs the outbox uses in place of `globalThis`'s: `indexedDB`
    /// and `IDBKeyRange`, `navigator.locks` and `navigator.onLine`, `BroadcastChannel`,
    /// `document` (its `visibilityState` and lifecycle events), and its own `pagehide`,
    /// `pageshow`, `online` and `offline` events. For tests, with fakes.
    pub fn platform(mut self, platform: JsValue) -> OutboxConfig {
        self.platform = Some(platform);
        self
    }

    /// Called after every change, this tab's and those it learns of from the others.
    pub fn on_change(mut self, listener: impl Fn(Change<'_>) + 'static) -> OutboxConfig {
        self.on_change = Some(OnChange(Rc::new(listener)));
        self
    }
}
