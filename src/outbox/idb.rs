//! The outbox's IndexedDB database, `plant-store-outbox:{name}`, version 2:
//! - `entries`: the records by `key` (`record.rs`), with two indexes: `active` (the entries not
//!   created, which `open` and each round read) and `done` (the created ones, by when: the
//!   retention purge).
//!
//! Version 1 (before revisions) had `entries` alone and a `lease` store: its records are rewritten
//! in the upgrade, each with the fields the indexes read (one it cannot read is kept, marked active,
//! so that `open` finds and lists it). Every write compares the record's revision inside its own
//! readwrite transaction and resolves once that transaction is complete, with `strict` durability.
//!
//! Hand-written over web-sys rather than with the `idb` or `indexed_db_futures` crates: both need
//! std, which the npm package is built without (docs/performance.md has the measure).

use super::browser::{deferred, GLOBAL};
use super::entry::Entry;
use super::record::{holds, Write};
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::{Cell, RefCell};
use js_sys::futures::JsFuture;
use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{
    IdbCursorWithValue, IdbDatabase, IdbFactory, IdbKeyRange, IdbObjectStoreParameters,
    IdbOpenDbRequest, IdbRequest, IdbTransaction, IdbVersionChangeEvent,
};

const VERSION: u32 = 2;
const ENTRIES: &str = "entries";
/// Version 1's store of the lease a tab held to send without Web Locks: no longer used.
const LEASE: &str = "lease";

/// Why the database could not be opened.
pub(crate) enum Refusal {
    /// This runtime has no IndexedDB.
    Missing,
    /// Another tab holds it open at version 1 (a page of an older release) and does not let go.
    Blocked,
    /// IndexedDB refused (a sandboxed frame, a private window, storage blocked, a database of a
    /// newer release): what it said.
    Refused(JsValue),
}

/// An open database, and the listeners that close it when another page asks for a newer version
/// or the browser closes it.
pub(crate) struct Idb {
    db: IdbDatabase,
    _listeners: [Closure<dyn FnMut()>; 2],
}

impl Idb {
    /// Opens (and creates or upgrades) the database of the outbox `name`; `closed` is told why when
    /// the database closes under the outbox.
    pub(crate) async fn open(name: &str, closed: Rc<dyn Fn(&'static str)>) -> Result<Idb, Refusal> {
        let factory = GLOBAL.with(|global| Reflect::get(global, &"indexedDB".into()));
        let factory = match factory {
            Ok(factory) if factory.is_object() => factory.unchecked_into::<IdbFactory>(),
            Ok(_) => return Err(Refusal::Missing),
            Err(cause) => return Err(Refusal::Refused(cause)),
        };
        let database = ["plant-store-outbox:", name].concat();
        let request = factory.open_with_u32(&database, VERSION).map_err(Refusal::Refused)?;
        // The handlers of the upgrade (the migration's cursor among them), kept until it is done.
        let handlers = Handlers::default();
        let on_upgrade = Closure::<dyn FnMut(IdbVersionChangeEvent)>::new({
            let (request, handlers) = (request.clone(), handlers.clone());
            move |event: IdbVersionChangeEvent| upgrade(&request, event.old_version(), &handlers)
        });
        request.set_onupgradeneeded(Some(on_upgrade.as_ref().unchecked_ref()));
        let blocked = Rc::new(Cell::new(false));
        let (opened, resolve, reject) = deferred();
        request.set_onsuccess(Some(&resolve));
        request.set_onerror(Some(&reject));
        let on_blocked = Closure::<dyn FnMut()>::new({
            let blocked = blocked.clone();
            move || {
                blocked.set(true);
                let _ = reject.call0(&JsValue::UNDEFINED);
            }
        });
        request.set_onblocked(Some(on_blocked.as_ref().unchecked_ref()));
        let opened = JsFuture::from(opened).await;
        request.set_onblocked(None);
        drop(on_blocked);
        if let Err(event) = opened {
            if blocked.get() {
                // The upgrade stays queued: when the other page lets go, it runs (its handlers
                // live on) and what it opens is closed.
                core::mem::forget((on_upgrade, handlers));
                let late = Closure::once_into_js({
                    let request = request.clone();
                    move || {
                        let _ =
                            request.result().map(|db| db.unchecked_into::<IdbDatabase>().close());
                    }
                });
                request.set_onsuccess(Some(late.unchecked_ref()));
                return Err(Refusal::Blocked);
            }
            return Err(Refusal::Refused(
                request.error().ok().flatten().map_or(event, JsValue::from),
            ));
        }
        let db: IdbDatabase = request.result().map_err(Refusal::Refused)?.unchecked_into();
        let on = |reason: &'static str| {
            let (db, closed) = (db.clone(), closed.clone());
            Closure::<dyn FnMut()>::new(move || {
                db.close();
                closed(reason);
            })
        };
        let listeners = [
            on("another page opened a newer version of the outbox's database"),
            on("the browser closed the outbox's database (storage cleared, or a disk error)"),
        ];
        db.set_onversionchange(Some(listeners[0].as_ref().unchecked_ref()));
        db.set_onclose(Some(listeners[1].as_ref().unchecked_ref()));
        Ok(Idb { db, _listeners: listeners })
    }

    /// Every entry not created, and the records set aside, in the order they were added.
    pub(crate) async fn active(&self) -> Result<Vec<JsValue>, JsValue> {
        let index =
            self.db.transaction_with_str(ENTRIES)?.object_store(ENTRIES)?.index("active")?;
        Ok(settled(&index.get_all()?).await?.unchecked_into::<Array>().to_vec())
    }

    /// The record of `key` (`undefined`: none).
    pub(crate) async fn get(&self, key: &str) -> Result<JsValue, JsValue> {
        let entries = self.db.transaction_with_str(ENTRIES)?.object_store(ENTRIES)?;
        settled(&entries.get(&key.into())?).await
    }

    /// Deletes up to `limit` created entries done before `before`: their retention is over (a
    /// created entry never changes, so none of them can be newer than what the index says).
    /// Resolves to their keys.
    pub(crate) async fn purge(&self, before: f64, limit: u32) -> Result<Vec<String>, JsValue> {
        let index = self.db.transaction_with_str(ENTRIES)?.object_store(ENTRIES)?.index("done")?;
        let range = IdbKeyRange::upper_bound(&before.into())?;
        let keys = settled(&index.get_all_keys_with_key_and_limit(&range, limit)?).await?;
        let keys = keys.unchecked_into::<Array>();
        if keys.length() == 0 {
            return Ok(Vec::new());
        }
        let transaction = self.write(ENTRIES)?;
        let entries = transaction.object_store(ENTRIES)?;
        for key in keys.iter() {
            entries.delete(&key)?;
        }
        complete(&transaction).await?;
        Ok(keys.iter().filter_map(|key| key.as_string()).collect())
    }

    /// Makes `write` if the store holds what it expects: `None` once it is durable, else the
    /// record the store holds (`undefined`: none).
    pub(crate) async fn commit(&self, write: &Write) -> Result<Option<JsValue>, JsValue> {
        let transaction = self.write(ENTRIES)?;
        let entries = transaction.object_store(ENTRIES)?;
        let current = entries.get(&write.key.as_str().into())?;
        let stale = Rc::new(RefCell::new(None));
        // The write is made when the record is read, while the transaction is still active.
        let on_read = Closure::once_into_js({
            let (read, stale) = (current.clone(), stale.clone());
            let (key, expected, record) = (write.key.clone(), write.expected, write.record.clone());
            move || {
                let now = read.result().unwrap_or_default();
                if !holds(&now, expected) {
                    *stale.borrow_mut() = Some(now);
                    return;
                }
                let _ = match record {
                    Some(record) => entries.put(&record),
                    None => entries.delete(&key.into()),
                };
            }
        });
        current.set_onsuccess(Some(on_read.unchecked_ref()));
        complete(&transaction).await?;
        Ok(stale.take())
    }

    /// Deletes the record of `key`, whatever it holds (one set aside).
    pub(crate) async fn remove(&self, key: &str) -> Result<(), JsValue> {
        let transaction = self.write(ENTRIES)?;
        transaction.object_store(ENTRIES)?.delete(&key.into())?;
        complete(&transaction).await
    }

    pub(crate) fn close(&self) {
        self.db.close();
    }

    fn write(&self, store: &str) -> Result<IdbTransaction, JsValue> {
        let options = Object::new();
        let _ = Reflect::set(&options, &"durability".into(), &"strict".into());
        self.db.unchecked_ref::<Database>().transaction(store, "readwrite", &options)
    }
}

impl Drop for Idb {
    /// Closes the connection with its listeners, so that none is left to block a newer version
    /// (an outbox whose open failed after the database opened).
    fn drop(&mut self) {
        self.db.set_onversionchange(None);
        self.db.set_onclose(None);
        self.db.close();
    }
}

/// Closures that must outlive the call that made them, until the database is open.
type Handlers = Rc<RefCell<Vec<Closure<dyn FnMut()>>>>;

/// Creates or upgrades the database, in its `upgradeneeded` event, from `old` (0: none).
fn upgrade(request: &IdbOpenDbRequest, old: f64, handlers: &Handlers) {
    let (Ok(db), Some(transaction)) = (request.result(), request.transaction()) else {
        return;
    };
    let db = db.unchecked_into::<IdbDatabase>();
    if old < 1.0 {
        let by_key = IdbObjectStoreParameters::new();
        by_key.set_key_path(&"key".into());
        let _ = db.create_object_store_with_optional_parameters(ENTRIES, &by_key);
    } else {
        let _ = db.delete_object_store(LEASE);
    }
    let Ok(entries) = transaction.object_store(ENTRIES) else {
        return;
    };
    for (index, path) in [("active", "active"), ("done", "doneAt")] {
        let _ = entries.create_index_with_str(index, path);
    }
    if old >= 1.0 {
        migrate(&entries, handlers);
    }
}

/// Rewrites every record of version 1 as version 2 (`record.rs` reads both): a record it cannot
/// read is only marked active, so that it is found and listed as set aside.
fn migrate(entries: &web_sys::IdbObjectStore, handlers: &Handlers) {
    let Ok(cursor) = entries.open_cursor() else {
        return;
    };
    let next = Closure::<dyn FnMut()>::new({
        let cursor = cursor.clone();
        move || {
            let at = cursor.result().ok().and_then(|c| c.dyn_into::<IdbCursorWithValue>().ok());
            if let Some(at) = at {
                let old = at.value().unwrap_or_default();
                let new = match Entry::from_record(&old) {
                    Ok(entry) => entry.to_record(),
                    Err(_) => {
                        let _ = Reflect::set(&old, &"active".into(), &0.into());
                        old
                    }
                };
                let _ = at.update(&new);
                let _ = at.continue_();
            }
        }
    });
    cursor.set_onsuccess(Some(next.as_ref().unchecked_ref()));
    handlers.borrow_mut().push(next);
}

/// The request's result once it succeeds; its error when it fails.
async fn settled(request: &IdbRequest) -> Result<JsValue, JsValue> {
    let (done, resolve, reject) = deferred();
    request.set_onsuccess(Some(&resolve));
    request.set_onerror(Some(&reject));
    match JsFuture::from(done).await {
        Ok(_) => request.result(),
        Err(event) => Err(request.error().ok().flatten().map_or(event, JsValue::from)),
    }
}

/// Resolves once `transaction` is complete; its error when it fails or aborts.
async fn complete(transaction: &IdbTransaction) -> Result<(), JsValue> {
    let (done, resolve, reject) = deferred();
    transaction.set_oncomplete(Some(&resolve));
    transaction.set_onerror(Some(&reject));
    transaction.set_onabort(Some(&reject));
    match JsFuture::from(done).await {
        Ok(_) => Ok(()),
        Err(event) => Err(transaction.error().map_or(event, JsValue::from)),
    }
}

#[wasm_bindgen]
extern "C" {
    /// An `IDBDatabase`, whose `transaction(stores, mode, { durability })` web-sys has only among
    /// its unstable APIs.
    #[wasm_bindgen(extends = IdbDatabase)]
    type Database;
    #[wasm_bindgen(method, catch)]
    fn transaction(
        this: &Database,
        store: &str,
        mode: &str,
        options: &Object,
    ) -> Result<IdbTransaction, JsValue>;
}
