//! The outbox's IndexedDB database, `plant-store-outbox:{name}`: the object store `entries`
//! (records by `key`), and `lease`, one record that says which tab sends while there is no Web
//! Locks API. Each request is a promise whose `resolve` and `reject` are the request's own
//! `onsuccess` and `onerror`; a write resolves once its transaction is complete, with `strict`
//! durability (flushed to disk where the browser tells them apart).

use super::store::failure;
use crate::error::Draft;
use crate::exchange::GLOBAL;
use alloc::rc::Rc;
use alloc::string::String;
use core::cell::Cell;
use js_sys::futures::JsFuture;
use js_sys::{Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{
    IdbDatabase, IdbFactory, IdbObjectStore, IdbObjectStoreParameters, IdbOpenDbRequest,
    IdbRequest, IdbTransaction,
};

const ENTRIES: &str = "entries";
const LEASE: &str = "lease";

/// An open database.
pub(crate) struct Idb {
    db: IdbDatabase,
}

impl Idb {
    /// Opens (and on first use creates) the database of the outbox `name`. A `config` error that
    /// names the cause when IndexedDB is missing, or refuses (a sandboxed frame, a private
    /// window, storage blocked by the user).
    pub(crate) async fn open(name: &str) -> Result<Idb, Draft> {
        let database = ["plant-store-outbox:", name].concat();
        let refused = |why: &str, cause: JsValue| {
            let message = ["IndexedDB ", why, ": ", &failure(&cause), USE_A_STORE];
            Draft::config(message.concat()).with_cause(cause)
        };
        let factory = GLOBAL.with(|global| Reflect::get(global, &"indexedDB".into()));
        let factory = match factory {
            Ok(factory) if factory.is_object() => factory.unchecked_into::<IdbFactory>(),
            Ok(_) => {
                return Err(Draft::config(["this runtime has no IndexedDB", USE_A_STORE].concat()))
            }
            Err(cause) => return Err(refused("cannot be reached here", cause)),
        };
        let request =
            factory.open_with_u32(&database, 1).map_err(|e| refused("refused to open", e))?;
        let upgrade = Closure::once_into_js({
            let request = request.clone();
            move || create_stores(&request)
        });
        request.set_onupgradeneeded(Some(upgrade.unchecked_ref()));
        match settled(&request).await {
            Ok(db) => Ok(Idb { db: db.unchecked_into() }),
            Err(cause) => Err(refused(&["could not open ", &database].concat(), cause)),
        }
    }

    /// Every record of `entries`.
    pub(crate) async fn get_all(&self) -> Result<JsValue, JsValue> {
        let transaction = self.db.transaction_with_str(ENTRIES)?;
        settled(&transaction.object_store(ENTRIES)?.get_all()?).await
    }

    /// Keeps `record` under its key; resolves once the transaction is complete.
    pub(crate) async fn put(&self, record: &JsValue) -> Result<(), JsValue> {
        let transaction = self.write(ENTRIES)?;
        transaction.object_store(ENTRIES)?.put(record)?;
        complete(&transaction).await
    }

    /// Forgets the record of `key`; resolves once the transaction is complete.
    pub(crate) async fn delete(&self, key: &str) -> Result<(), JsValue> {
        let transaction = self.write(ENTRIES)?;
        transaction.object_store(ENTRIES)?.delete(&key.into())?;
        complete(&transaction).await
    }

    /// Takes (or renews) the lease for `owner` until `until` when it is free, expired or already
    /// `owner`'s, in one transaction (the read and the write cannot interleave with another tab's);
    /// whether `owner` holds it. `until` 0 lets go of it.
    pub(crate) async fn lease(&self, owner: &str, now: f64, until: f64) -> Result<bool, JsValue> {
        let transaction = self.write(LEASE)?;
        let store = transaction.object_store(LEASE)?;
        let read = store.get(&LEASE.into())?;
        let held = Rc::new(Cell::new(false));
        // The write must be made in the read's success event, while the transaction is active.
        let on_read = Closure::once_into_js({
            let (read, held, owner) = (read.clone(), held.clone(), String::from(owner));
            move || {
                let lease = read.result().unwrap_or_default();
                let holder = Reflect::get(&lease, &"owner".into()).ok().and_then(|o| o.as_string());
                let expires = Reflect::get(&lease, &"until".into()).ok().and_then(|u| u.as_f64());
                if holder.as_deref() == Some(&owner) || expires.is_none_or(|at| at <= now) {
                    let mine = Object::new();
                    let _ = Reflect::set(&mine, &"owner".into(), &owner.into());
                    let _ = Reflect::set(&mine, &"until".into(), &until.into());
                    held.set(store.put_with_key(&mine, &LEASE.into()).is_ok());
                }
            }
        });
        read.set_onsuccess(Some(on_read.unchecked_ref()));
        complete(&transaction).await?;
        Ok(held.get())
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

/// What an `IndexedDB` error message ends with.
const USE_A_STORE: &str = "; pass options.store (a MemoryStore, or a store of your own)";

/// Creates the object stores of a new database, in its `upgradeneeded` event.
fn create_stores(request: &IdbOpenDbRequest) {
    let Some(db) = request.result().ok().and_then(|db| db.dyn_into::<IdbDatabase>().ok()) else {
        return;
    };
    let by_key = IdbObjectStoreParameters::new();
    by_key.set_key_path(&"key".into());
    let _ = db.create_object_store_with_optional_parameters(ENTRIES, &by_key);
    let _: Result<IdbObjectStore, _> = db.create_object_store(LEASE);
}

/// The request's result once it succeeds; its error when it fails.
async fn settled(request: &IdbRequest) -> Result<JsValue, JsValue> {
    let done = Promise::new(&mut |resolve: Function, reject: Function| {
        request.set_onsuccess(Some(&resolve));
        request.set_onerror(Some(&reject));
    });
    match JsFuture::from(done).await {
        Ok(_) => request.result(),
        Err(event) => Err(request.error().ok().flatten().map_or(event, JsValue::from)),
    }
}

/// Resolves once `transaction` is complete; its error when it fails or aborts.
async fn complete(transaction: &IdbTransaction) -> Result<(), JsValue> {
    let done = Promise::new(&mut |resolve: Function, reject: Function| {
        transaction.set_oncomplete(Some(&resolve));
        transaction.set_onerror(Some(&reject));
        transaction.set_onabort(Some(&reject));
    });
    match JsFuture::from(done).await {
        Ok(_) => Ok(()),
        Err(event) => Err(transaction.error().map_or(event, JsValue::from)),
    }
}

#[wasm_bindgen]
extern "C" {
    /// An `IDBDatabase`, whose `transaction(store, mode, { durability })` web-sys has only among
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
