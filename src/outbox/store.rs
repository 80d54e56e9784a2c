//! Where an outbox keeps its entries: IndexedDB (`idb.rs`, browsers and workers), or a store of the
//! caller's, a JS object with `getAll()`, `put(record)` and `delete(key)`, each returning a promise
//! (or a value); the npm package's `MemoryStore` is one, for tests and one process:
//!
//! ```ts
//! interface OutboxStore {
//!   getAll(): Promise<object[]>;                 // every record put and not deleted
//!   put(record: { key: string }): Promise<void>; // resolves once the record is durable
//!   delete(key: string): Promise<void>;
//! }
//! ```
//!
//! A caller's store serves one outbox in one process: the outbox is its only writer, so what the
//! outbox holds in memory is what the store holds, and a write is compared with that. A record is a
//! plain object of strings, numbers and booleans (`record.rs`); the token is never in one.

use super::browser::deferred;
use super::idb::{Idb, Refusal};
use super::record::Write;
use crate::Error;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::RefCell;
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

/// What an IndexedDB error message ends with.
const USE_A_STORE: &str = "; pass options.store (a MemoryStore, or a store of your own)";

impl Opened {
    /// Opens `store` for the outbox `name`; `closed` is told why when IndexedDB closes it.
    pub(crate) async fn open(
        store: Store,
        name: &str,
        closed: Rc<dyn Fn(&'static str)>,
    ) -> Result<Opened, Error> {
        let object = match store {
            Store::Js(object) => object,
            Store::IndexedDb => {
                return Idb::open(name, closed).await.map(Opened::Idb).map_err(|refusal| {
                    let (why, cause) = match refusal {
                        Refusal::Missing => ("this runtime has no IndexedDB".into(), None),
                        Refusal::Blocked => (
                            String::from(
                                "the outbox's database is open in another tab of an older release \
                                 of this app, which keeps it from being upgraded: close or reload \
                                 that tab, then open the outbox again",
                            ),
                            None,
                        ),
                        Refusal::Refused(cause) => (
                            ["IndexedDB refused to open: ", &failure(&cause)].concat(),
                            Some(cause),
                        ),
                    };
                    let error = Error::config([&why, USE_A_STORE].concat());
                    match cause {
                        Some(cause) => error.with_cause(cause),
                        None => error,
                    }
                });
            }
        };
        let has =
            |method: &str| Reflect::get(&object, &method.into()).is_ok_and(|f| f.is_function());
        if object.is_object() && ["getAll", "put", "delete"].into_iter().all(has) {
            return Ok(Opened::Js(object.unchecked_into()));
        }
        let message = "options.store must have the methods getAll(), put(record) and delete(key), \
                       each returning a promise";
        Err(Error::config(message))
    }

    /// What `open` reads: the active entries (IndexedDB), or every record (a caller's store).
    pub(crate) async fn load(&self) -> Result<Vec<JsValue>, JsValue> {
        match self {
            Opened::Idb(idb) => idb.active().await,
            Opened::Js(object) => match call(object, "getAll", &[]).await?.dyn_into::<Array>() {
                Ok(records) => Ok(records.to_vec()),
                Err(_) => Err(js_sys::TypeError::new("getAll() did not give an array").into()),
            },
        }
    }

    /// Writes `write` into a caller's store, which the caller's memory said it holds.
    pub(crate) async fn put(object: &Object, write: &Write) -> Result<(), JsValue> {
        match &write.record {
            Some(record) => call(object, "put", core::slice::from_ref(record)).await.map(drop),
            None => call(object, "delete", &[write.key.as_str().into()]).await.map(drop),
        }
    }

    /// The database, where there is one.
    pub(crate) fn idb(&self) -> Option<&Idb> {
        match self {
            Opened::Idb(idb) => Some(idb),
            Opened::Js(_) => None,
        }
    }

    /// Lets go of the store.
    pub(crate) fn close(&self) {
        if let Opened::Idb(idb) = self {
            idb.close();
        }
    }
}

/// One change at a time per entry: a turn is held from reading what the outbox knows of an entry to
/// taking what the store wrote, so that two changes of one entry are ordered (and a caller's
/// store, which holds what the outbox holds, is written over what it holds). Changes of other
/// entries go on meanwhile.
#[derive(Default)]
pub(crate) struct Turns {
    /// For each entry (or plant id) with a turn held: the promise the next turn waits for.
    last: RefCell<Vec<(String, Promise)>>,
}

/// A turn, given back when dropped: it resolves the promise the next turn of its entry waits for.
pub(crate) struct Turn<'a> {
    turns: &'a Turns,
    of: String,
    mine: Promise,
    end: Function,
}

impl Turns {
    /// The turn of `of`, once the turns taken before it of the same `of` are given back.
    pub(crate) async fn take(&self, of: &str) -> Turn<'_> {
        let (mine, end, _) = deferred();
        let before = {
            let mut last = self.last.borrow_mut();
            match last.iter_mut().find(|(key, _)| key == of) {
                Some((_, held)) => Some(core::mem::replace(held, mine.clone())),
                None => {
                    last.push((of.into(), mine.clone()));
                    None
                }
            }
        };
        if let Some(before) = before {
            let _ = JsFuture::from(before).await;
        }
        Turn { turns: self, of: of.into(), mine, end }
    }
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        // The last turn of its entry leaves no trace.
        let mine = |key: &String, last: &Promise| key == &self.of && Object::is(last, &self.mine);
        self.turns.last.borrow_mut().retain(|(key, last)| !mine(key, last));
        let _ = self.end.call0(&JsValue::UNDEFINED);
    }
}

/// `object[method](...args)`, awaited.
async fn call(object: &Object, method: &str, args: &[JsValue]) -> Result<JsValue, JsValue> {
    let function: Function = Reflect::get(object, &method.into())?.dyn_into()?;
    let args: Array = args.iter().collect();
    let value = function.apply(object, &args)?;
    JsFuture::from(Promise::resolve(&value)).await
}

/// What a store's failure says, from outside: `Name: message`, or the value, without its full
/// stop (the client's sentence goes on).
pub(crate) fn failure(cause: &JsValue) -> String {
    let read = |key: &str| Reflect::get(cause, &key.into()).ok().and_then(|v| v.as_string());
    let said = match (read("name"), read("message")) {
        (Some(name), Some(message)) => [name, String::from(": "), message].concat(),
        (_, Some(message)) => message,
        _ => cause.as_string().unwrap_or_else(|| "a value that is not an Error".into()),
    };
    let said = said.trim_end_matches('.');
    // One line, whatever the store said.
    said.chars().map(|c| if c.is_control() { ' ' } else { c }).collect()
}
