//! What the outbox's JS shell asks of Rust: the methods of [`OutboxRules`], the rules of one open
//! outbox as the shell holds them (wasm-bindgen writes their TypeScript). The other way, what Rust
//! asks of the shell, is `shell.rs`; the page's events, `page.rs`. [`open`] opens a store, then the
//! shell over it.

use super::entry::NEVER;
use super::held::For;
use super::record::Fields;
use super::rules::Rules;
use super::shell::{nav, open_shell, open_store, said, set};
use super::tab_io::Input;
use super::table::{self, Event, Step};
use crate::error::Draft;
use crate::redact::theirs;
use crate::Error;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use js_sys::{Array, Function, Object, Promise};
use wasm_bindgen::prelude::*;

/// The rules of one open outbox, as its JS shell holds them.
#[wasm_bindgen(skip_typescript)]
pub struct OutboxRules(pub(crate) Rc<Rules>);

#[wasm_bindgen]
impl OutboxRules {
    /// The shell opened: it is told what Rust decides from now on.
    pub fn opened(&self, shell: JsValue) {
        *self.0.shell.borrow_mut() = Some(shell.unchecked_into());
        if self.0.shared && nav(&self.0.platform, "locks").is_undefined() {
            self.0.warn("this browser has no Web Locks API");
        }
        self.0.live_again();
    }

    /// A round is asked for (on open, and when the page is back, whose `visibility` it is).
    pub fn ask(&self, visibility: Option<String>) {
        if visibility.as_deref() == Some("hidden") {
            self.0.on(Input::Hidden);
        }
        self.0.on(Input::Ask);
    }

    /// The Web Lock is held, or its request failed with `cause`.
    pub fn lock(&self, granted: bool, cause: JsValue) {
        if !granted {
            let name = cause.text("name").unwrap_or_else(|| said(&cause));
            self.0.warn(&["a request for its Web Lock failed (", &name, ")"].concat());
        }
        self.0.on(if granted { Input::Granted } else { Input::LockFailed });
    }

    /// The keys due for round number `round`, and the Web Locks held.
    pub fn fed(&self, round: u32, keys: Vec<String>, locks: Vec<String>) {
        let (prefix, mine) = (self.0.outbox_name("/tab/"), self.0.state.borrow().id.clone());
        // The other tabs alive (this one takes again what it no longer sends).
        let live = locks.iter().filter_map(|name| name.strip_prefix(prefix.as_str()));
        self.0.state.borrow_mut().live = live.filter(|id| *id != mine).map(String::from).collect();
        self.0.on(Input::Fed { round, keys });
    }

    /// The next change of a sender: `answer` the number of its last send's answer.
    pub fn next(&self, round: u32, answer: Option<u32>) -> Option<Object> {
        self.0.next(round, answer)
    }

    /// The `i`th record of `change` as the store read it: what to write in its place.
    pub fn apply(&self, change: &JsValue, i: usize, record: JsValue) -> JsValue {
        self.0.apply(change, i, record)
    }

    /// `change` was written but for its `failures`: what it gives, or the error it throws.
    pub fn written(&self, change: &JsValue, failures: Vec<JsValue>) -> Result<JsValue, JsValue> {
        self.0.written(change, failures).map_err(|error| self.throw(error))
    }

    /// The change of the answers a frozen page could not write, if any.
    pub fn left(&self) -> Option<Object> {
        let left = core::mem::take(&mut self.0.state.borrow_mut().left);
        (!left.is_empty()).then(|| self.0.change(For::Other, left, false))
    }

    /// What a load read (on open, and when the page is back): the keys of the others held, to
    /// read again by key (a load reads only the newest created entries).
    pub fn loaded(&self, records: Vec<JsValue>) -> Vec<String> {
        let mut unseen = self.0.state.borrow().held.keys();
        for record in records {
            let key = record.text("key").unwrap_or_default();
            unseen.retain(|held| *held != key);
            self.0.read(&key, record);
        }
        unseen
    }

    /// The record of `key`, read again (undefined: gone).
    pub fn read(&self, key: String, record: JsValue) {
        self.0.read(&key, record);
    }

    /// The change that removes the created entries of `keys` whose retention is over.
    pub fn expire(&self, keys: Vec<String>) -> Object {
        let expire = keys.into_iter().map(|key| (key, Event::Expire)).collect();
        self.0.change(For::Other, expire, false)
    }

    /// The purge is over; the next created entry expires at `next`.
    pub fn purged(&self, next: Option<f64>) {
        let due = {
            let held = &mut self.0.state.borrow_mut().held;
            held.expiry = next;
            held.due()
        };
        self.0.on(Input::Due(due));
        self.0.on(Input::Purged);
    }

    pub fn timer(&self) {
        self.0.on(Input::Timer);
    }

    /// `flush()`: `resolve` is called once the round it asks for has ended (at once when none
    /// can run: paused, offline, closed, or in the second after the page hid).
    pub fn flush(&self, resolve: Function) {
        self.0.state.borrow_mut().flushes.push(resolve);
        self.0.on(Input::Flush);
    }

    pub fn paused(&self, paused: bool) {
        self.0.on(if paused { Input::Pause } else { Input::Resume });
    }

    pub fn close(&self) {
        self.0.close(None);
    }

    /// The browser closed the database under the outbox (`event`: `versionchange` or `close`).
    pub fn lost(&self, event: JsValue) {
        self.0.close(Some(match event.text("type").as_deref() {
            Some("versionchange") => "another page opened a newer version of the outbox's database",
            _ => "the browser closed the outbox's database (storage cleared, or a disk error)",
        }));
    }

    /// Throws a `config` error when the outbox is closed.
    pub fn usable(&self, operation: String) -> Result<(), JsValue> {
        self.0.usable(&operation).map_err(|error| self.throw(error))
    }

    /// The error of what the outbox could not do, and why.
    pub fn failed(&self, what: String, cause: JsValue) -> JsValue {
        self.throw(self.0.failed(&what, cause))
    }

    /// The error of a store that could not be opened, in words that name the cause and the fix.
    pub fn opening(&self, cause: JsValue) -> JsValue {
        let message = match cause.text("type").or_else(|| cause.text("name")).as_deref() {
            Some("blocked") => {
                "the outbox's database is open in another tab of an older release of this app, \
                 which keeps it from being upgraded: close or reload that tab, then open the \
                 outbox again"
            }
            Some("VersionError") => {
                "the outbox's database was made by a newer release of this app: reload the page \
                 to run that release"
            }
            _ if cause.is_undefined() => {
                "this runtime has no IndexedDB; pass options.store (a MemoryStore keeps the \
                 entries of one process)"
            }
            _ => {
                let message = [
                    "IndexedDB refused to open: ",
                    &theirs(&said(&cause)),
                    "; where it is not allowed (a sandboxed frame, blocked storage), pass \
                     options.store",
                ];
                return self
                    .throw(self.0.redact(Draft::config(message.concat()).with_cause(cause)));
            }
        };
        let draft = Draft::config(message);
        let draft = if cause.is_undefined() { draft } else { draft.with_cause(cause) };
        self.throw(self.0.redact(draft))
    }

    /// The record an upgrade rewrites from `record` (an older release's, `duplicate` when an
    /// entry of the same plant id was rewritten first), or for one it cannot read the same record
    /// with a due time, so that a load finds it and lists it.
    pub fn migrate(&self, record: JsValue, duplicate: bool) -> JsValue {
        let held = super::record::read(&record);
        match self.0.context(|cx| table::apply(held, Event::Migrate { duplicate }, cx)) {
            Step::Put(entry) => super::record::write::<Object>(&entry).into(),
            _ => {
                let copy = Object::assign(&Object::new(), record.unchecked_ref());
                set(&copy, "dueAt", NEVER);
                copy.into()
            }
        }
    }

    /// The view of the entry `record` holds, if any.
    pub fn view(&self, record: JsValue) -> JsValue {
        self.0.entry_of(&record).map_or(JsValue::UNDEFINED, |entry| self.0.view_of(&entry))
    }

    pub fn entries(&self) -> JsValue {
        self.0.state.borrow_mut().held.list()
    }

    pub fn unreadable(&self) -> Array {
        let state = self.0.state.borrow();
        let each = state.held.aside.iter().map(|aside| {
            let one = Object::new();
            set(&one, "key", aside.key.as_str());
            set(&one, "reason", aside.reason.as_str());
            set(&one, "record", aside.record.clone());
            one
        });
        each.collect()
    }

    /// How many created entries a load reads, newest first: the others are read by key.
    #[wasm_bindgen(getter)]
    pub fn shown(&self) -> u32 {
        100
    }

    /// The JS API's add of `plant`, validated: the change that stores it.
    #[cfg(feature = "js")]
    pub fn add(&self, plant: JsValue) -> Result<Object, JsValue> {
        match crate::js::api::new_plant(&plant) {
            Ok((plant, bigint)) => self.0.add(plant, bigint).map_err(|e| self.throw(e)),
            Err(issues) => Err(self.throw(self.0.redact(Draft::validation(issues)))),
        }
    }

    /// The JS API's `retry`, `markCreated` and `remove` of `key`: the change that makes it.
    #[cfg(feature = "js")]
    pub fn retry(&self, key: String) -> Result<Object, JsValue> {
        self.0.act(&key, "retry").map_err(|e| self.throw(e))
    }

    #[cfg(feature = "js")]
    #[wasm_bindgen(js_name = markCreated)]
    pub fn mark_created(&self, key: String) -> Result<Object, JsValue> {
        self.0.act(&key, "markCreated").map_err(|e| self.throw(e))
    }

    #[cfg(feature = "js")]
    pub fn remove(&self, key: String) -> Result<Object, JsValue> {
        self.0.act(&key, "remove").map_err(|e| self.throw(e))
    }
}

impl core::fmt::Debug for OutboxRules {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("OutboxRules")
    }
}

impl OutboxRules {
    /// `error` as the shell throws it: a PlantStoreError in the JS API; for the Rust API it is
    /// kept, for it to read.
    fn throw(&self, error: Error) -> JsValue {
        #[cfg(feature = "js")]
        if self.0.js {
            return error.to_js();
        }
        let message = JsValue::from(error.message());
        self.0.state.borrow_mut().thrown = Some(error);
        message
    }
}

/// Opens the outbox of `rules` (its store, `store` or IndexedDB, then the shell over it, which
/// reads it): the promise of its `PlantOutbox`.
pub(crate) fn open(rules: &Rc<Rules>, store: &JsValue) -> Result<Promise, Error> {
    let handle = OutboxRules(rules.clone());
    let migrate = Closure::<dyn Fn(JsValue, bool) -> JsValue>::new({
        let handle = OutboxRules(rules.clone());
        move |record, duplicate| handle.migrate(record, duplicate)
    });
    let failed = |cause| rules.failed("open its store", cause);
    let opening =
        open_store(&rules.platform, &rules.outbox_name(""), store, &migrate.into_js_value());
    open_shell(handle.into(), &rules.platform, &opening.map_err(failed)?).map_err(failed)
}
