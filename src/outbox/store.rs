//! Where an outbox keeps its entries: IndexedDB ([`Idb`], browsers and workers), or a store of the
//! caller's, a JS object with `getAll()`, `put(record)` and `delete(key)`, each returning a promise
//! (or a value); the npm package's `MemoryStore` is one, for tests and one process:
//!
//! ```ts
//! interface OutboxStore {
//!   getAll(): Promise<object[]>;             // every record put and not deleted
//!   put(record: { key: string }): Promise<void>; // resolves once the record is durable
//!   delete(key: string): Promise<void>;
//! }
//! ```
//!
//! A record is a plain object of strings, numbers and booleans (`outbox::entry`); the token is
//! never in one.

use super::idb::Idb;
use crate::error::{theirs, Draft};
use alloc::string::String;
use alloc::vec::Vec;
use js_sys::futures::JsFuture;
use js_sys::{Array, Function, Object, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};

/// The store an outbox opens: see the module.
#[derive(Clone, Debug, Default)]
pub enum Store {
    /// IndexedDB, one database per outbox name (`plant-store-outbox:{name}`).
    #[default]
    IndexedDb,
    /// A JS object with `getAll`, `put` and `delete`.
    Js(JsValue),
}

/// A store opened.
pub(crate) enum Opened {
    Idb(Idb),
    Js(Object),
}

impl Opened {
    /// Opens `store` for the outbox `name`: a `config` error that names the cause when it cannot.
    pub(crate) async fn open(store: Store, name: &str) -> Result<Opened, Draft> {
        match store {
            Store::IndexedDb => Idb::open(name).await.map(Opened::Idb),
            Store::Js(object) => {
                let has = |method: &str| {
                    Reflect::get(&object, &method.into()).is_ok_and(|f| f.is_function())
                };
                if object.is_object() && ["getAll", "put", "delete"].into_iter().all(has) {
                    return Ok(Opened::Js(object.unchecked_into()));
                }
                let message = "options.store must have the methods getAll(), put(record) and \
                               delete(key), each returning a promise";
                Err(Draft::config(message))
            }
        }
    }

    /// Every record.
    pub(crate) async fn get_all(&self) -> Result<Vec<JsValue>, JsValue> {
        let records = match self {
            Opened::Idb(idb) => idb.get_all().await?,
            Opened::Js(object) => call(object, "getAll", &[]).await?,
        };
        match records.dyn_into::<Array>() {
            Ok(records) => Ok(records.to_vec()),
            Err(_) => Err(js_sys::TypeError::new("getAll() did not give an array").into()),
        }
    }

    /// Keeps `record`, durably when the store can tell.
    pub(crate) async fn put(&self, record: &JsValue) -> Result<(), JsValue> {
        match self {
            Opened::Idb(idb) => idb.put(record).await,
            Opened::Js(object) => {
                call(object, "put", core::slice::from_ref(record)).await.map(drop)
            }
        }
    }

    /// Forgets the record of `key`.
    pub(crate) async fn delete(&self, key: &str) -> Result<(), JsValue> {
        match self {
            Opened::Idb(idb) => idb.delete(key).await,
            Opened::Js(object) => call(object, "delete", &[key.into()]).await.map(drop),
        }
    }

    /// The database, where one can keep a lease (IndexedDB).
    pub(crate) fn idb(&self) -> Option<&Idb> {
        match self {
            Opened::Idb(idb) => Some(idb),
            _ => None,
        }
    }

    /// Lets go of the store.
    pub(crate) fn close(&self) {
        if let Opened::Idb(idb) = self {
            idb.close();
        }
    }
}

/// `object[method](...args)`, awaited.
async fn call(object: &Object, method: &str, args: &[JsValue]) -> Result<JsValue, JsValue> {
    let function: Function = Reflect::get(object, &method.into())?.unchecked_into();
    let args: Array = args.iter().collect();
    let value = function.apply(object, &args)?;
    JsFuture::from(Promise::resolve(&value)).await
}

/// What a store's failure says, from outside: `Name: message`, or the value.
pub(crate) fn failure(cause: &JsValue) -> String {
    let read = |key: &str| Reflect::get(cause, &key.into()).ok().and_then(|v| v.as_string());
    let said = match (read("name"), read("message")) {
        (Some(name), Some(message)) => [name, String::from(": "), message].concat(),
        (_, Some(message)) => message,
        _ => cause.as_string().unwrap_or_else(|| "a value that is not an Error".into()),
    };
    // Its own full stop would end the client's sentence early.
    theirs(said.trim_end_matches('.'))
}
