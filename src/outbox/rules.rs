//! What one tab of an outbox decides for its JS shell ([`Rules`]): the tab's machine (`tab.rs`),
//! what it holds (`held.rs`), and the changes of the store it asks the shell to write. A change
//! names records and events; the shell reads each record in one transaction of the store and
//! writes what [`table::apply`] makes of it, then tells [`Rules::written`], which takes what
//! changed, tells the app and the other tabs, and gives what comes next (a send, an add's entry,
//! an operation's refusal). `shell.rs` and `exports.rs` are the seam.

use super::config::{Change as Told, OnChange, OutboxConfig, Store};
use super::entry::{Entry, NEVER};
use super::held::{Held, State, Taken};
use super::record;
use super::shell::{hint, nav, said, set, Shell, GLOBAL};
use super::tab::{Senders, Tab};
use super::tab_io::{Do, Input};
use super::table::{self, Context, Event, Step};
use crate::error::Draft;
use crate::redact::theirs;
use crate::{Client, Error};
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::RefCell;
use js_sys::{Date, Function, Math, Object};
use wasm_bindgen::prelude::*;

pub(crate) struct Rules {
    /// The client the entries are sent with; let go on close, with the app's hooks.
    client: RefCell<Option<Client>>,
    pub(crate) name: String,
    send_ms: f64,
    retention_ms: f64,
    key_lifetime_ms: f64,
    /// The store is IndexedDB, which the origin's other tabs share.
    pub(crate) shared: bool,
    pub(crate) platform: JsValue,
    /// The JS API's: changes are told to the shell with their views.
    pub(crate) js: bool,
    on_change: Option<OnChange>,
    pub(crate) shell: RefCell<Option<Shell>>,
    pub(crate) state: RefCell<State>,
}

impl Rules {
    /// Checks an outbox's settings: its rules, and the store for the shell (undefined for
    /// IndexedDB). `js`: the JS API's.
    pub(crate) fn new(config: OutboxConfig, js: bool) -> Result<(Rc<Rules>, JsValue), Error> {
        let OutboxConfig { client, name, store, concurrency, retention_ms, platform, on_change } =
            config;
        let send_ms = f64::from(client.timeout_ms) + 1_000.0;
        let client = Client::new(client)?;
        let key_lifetime_ms = client.0.key_lifetime_ms.unwrap_or(f64::INFINITY);
        if name.is_empty() || !(1..=64).contains(&concurrency) {
            return Err(Error::config("the outbox needs a name, and a concurrency from 1 to 64"));
        }
        if retention_ms > crate::MAX_TIMEOUT_MS {
            let message = "retentionMs must be a whole number of milliseconds from 0 to 2147483647";
            return Err(Error::config(message));
        }
        let platform = platform.unwrap_or_else(|| GLOBAL.with(JsValue::clone));
        let (store, shared) = match store {
            Store::IndexedDb => (JsValue::UNDEFINED, true),
            Store::Js(store) => (store, false),
        };
        let senders = match (shared, nav(&platform, "locks").is_undefined()) {
            (false, _) => Senders::Alone,
            (true, false) => Senders::ByTurns,
            (true, true) => Senders::All,
        };
        let rules = Rules {
            client: RefCell::new(Some(client)),
            name,
            send_ms,
            retention_ms: retention_ms.into(),
            key_lifetime_ms,
            shared,
            js,
            on_change,
            shell: RefCell::new(None),
            state: RefCell::new(State {
                tab: Tab::new(senders, true, concurrency as usize),
                id: String::new(),
                held: Held::default(),
                live: Vec::new(),
                pending: Vec::new(),
                flushes: Vec::new(),
                answers: Vec::new(),
                numbers: 0,
                left: Vec::new(),
                suspended: false,
                closed: false,
                warned: false,
                last_added: 0.0,
                thrown: None,
                added: None,
            }),
            platform,
        };
        Ok((Rc::new(rules), store))
    }

    /// The view of `entry` for JavaScript.
    pub(crate) fn view_of(&self, entry: &Entry) -> JsValue {
        record::view::<Object>(entry).into()
    }

    pub(crate) fn shell(&self) -> Option<Shell> {
        self.shell.borrow().clone()
    }

    /// Tells the tab `input` (and what the platform says of the network now), and asks the shell
    /// to do what it says.
    pub(crate) fn on(self: &Rc<Self>, input: Input) {
        let online = nav(&self.platform, "onLine").as_bool() != Some(false);
        let actions = {
            let tab = &mut self.state.borrow_mut().tab;
            tab.online(online);
            tab.on(input, Date::now())
        };
        let shell = self.shell();
        for action in actions {
            // The flush() calls are answered after the outbox closed too, when no shell is left.
            if let Do::Flushed(count) = action {
                let count = count.min(self.state.borrow().flushes.len());
                let done: Vec<Function> = self.state.borrow_mut().flushes.drain(..count).collect();
                done.iter().for_each(|resolve| drop(resolve.call0(&JsValue::UNDEFINED)));
                continue;
            }
            let Some(shell) = &shell else { continue };
            match action {
                Do::AskLock => shell.ask_lock(&self.outbox_name("")),
                Do::Release => shell.release(),
                Do::Tell => shell.post(&hint("released", true.into())),
                Do::Feed { round, force, lock } => {
                    let until = if force { NEVER - 1.0 } else { Date::now() };
                    if self.shared {
                        shell.feed(round, until, lock);
                    } else {
                        // A store of the app's is all held here: what is due is read off it.
                        let keys = self.state.borrow().held.due_by(until);
                        self.on(Input::Fed { round, keys });
                    }
                }
                Do::Senders { round, count } => shell.senders(round, count as u32),
                Do::Abort => shell.abort(),
                // A frozen or cached page is no live sender: the others take what it sent.
                Do::Suspend => {
                    self.state.borrow_mut().suspended = true;
                    shell.live(None);
                    shell.suspend();
                }
                Do::Reload => {
                    self.state.borrow_mut().suspended = false;
                    self.live_again();
                    shell.back();
                }
                Do::Purge => shell.purge(Date::now()),
                Do::Arm(at) => shell.arm((at - Date::now()).clamp(0.0, 2_147_483_647.0)),
                Do::Disarm => shell.disarm(),
                Do::Flushed(_) => {}
            }
        }
    }

    /// Runs `f` with what the table reads of the world now.
    pub(crate) fn context<T>(&self, f: impl FnOnce(&Context<'_>) -> T) -> T {
        let state = self.state.borrow();
        f(&Context {
            now: Date::now(),
            random: Math::random(),
            send_ms: self.send_ms,
            retention_ms: self.retention_ms,
            key_lifetime_ms: self.key_lifetime_ms,
            tab: &state.id,
            live: &state.live,
        })
    }

    /// Takes what the store holds of `key` into what this tab holds, and tells the app.
    pub(crate) fn take(self: &Rc<Self>, key: &str, step: &Step, raw: JsValue) {
        let mut state = self.state.borrow_mut();
        let Some(taken) = state.held.take(key, step, raw) else { return };
        let (due, detail) = (state.held.due(), self.js.then(|| state.held.view(key)));
        // A closed outbox tells nothing more (its last answers are still written).
        if state.closed {
            return;
        }
        drop(state);
        if let Some(OnChange(listener)) = &self.on_change {
            match &taken {
                Taken::Entry(entry) => listener(Told::Entry(entry)),
                Taken::Removed => listener(Told::Removed(key)),
                Taken::Aside => {}
            }
        }
        if let Some(shell) = self.shell().filter(|_| self.js) {
            let detail = match taken {
                Taken::Entry(_) => detail.unwrap_or_default(),
                Taken::Removed => {
                    let gone = Object::new();
                    set(&gone, "key", key);
                    set(&gone, "removed", true);
                    gone.into()
                }
                Taken::Aside => JsValue::UNDEFINED,
            };
            shell.changed(&detail);
        }
        self.on(Input::Due(due));
    }

    /// A record read from the store, through the table's check; undefined once it is gone.
    pub(crate) fn read(self: &Rc<Self>, key: &str, raw: JsValue) {
        let step = match raw.is_object() {
            true => self.context(|cx| table::apply(record::read(&raw), Event::Check, cx)),
            false => Step::Delete,
        };
        self.take(key, &step, raw);
    }

    /// The entry a record holds, if any.
    pub(crate) fn entry_of(&self, raw: &JsValue) -> Option<Entry> {
        let step = raw
            .is_object()
            .then(|| self.context(|cx| table::apply(record::read(raw), Event::Check, cx)));
        if let Some(Step::Keep(entry)) = step {
            Some(entry)
        } else {
            None
        }
    }

    /// `draft` as an error of this outbox's client: redacted against its fixed token.
    pub(crate) fn redact(&self, draft: Draft) -> Error {
        match self.client() {
            Some(client) => client.redact(draft),
            None => draft.redact(&[]),
        }
    }

    /// The client the entries are sent with, until the outbox closes.
    pub(crate) fn client(&self) -> Option<Client> {
        self.client.borrow().clone()
    }

    /// Closes the outbox: the calls in flight are aborted (their answers written as left), the
    /// lock given back, the client let go; the shell lets go of the rest. `why`: it closed on its
    /// own (another page upgraded the database, or the browser closed it).
    pub(crate) fn close(self: &Rc<Self>, why: Option<&str>) {
        if core::mem::replace(&mut self.state.borrow_mut().closed, true) {
            return;
        }
        self.on(Input::Close);
        *self.client.borrow_mut() = None;
        if let (Some(OnChange(listener)), Some(why)) = (&self.on_change, why) {
            listener(Told::Closed(why));
        }
        if let Some(shell) = self.shell.borrow_mut().take() {
            shell.closed(why);
        }
    }

    pub(crate) fn usable(&self, operation: &str) -> Result<(), Error> {
        match self.state.borrow().closed {
            true => Err(Error::config(["outbox.", operation, ": the outbox is closed"].concat())),
            false => Ok(()),
        }
    }

    /// The `config` error of what the outbox could not do, and why (the cause's own words,
    /// redacted against the client's token).
    pub(crate) fn failed(&self, what: &str, cause: JsValue) -> Error {
        let message = ["the outbox could not ", what, ": ", &theirs(&said(&cause))];
        self.redact(Draft::config(message.concat()).with_cause(cause))
    }

    /// Says once, in the console, that every tab sends (no Web Locks), and why.
    pub(crate) fn warn(&self, why: &str) {
        if core::mem::replace(&mut self.state.borrow_mut().warned, true) {
            return;
        }
        let message = [
            "plant-store-client/outbox: ",
            why,
            ", so every tab of the outbox sends: an entry being sent when its tab closes is sent \
             again once its call has surely ended, with the same Idempotency-Key",
        ];
        console_warn(&message.concat());
    }

    /// This tab takes a new id, and holds its own lock while it lives.
    pub(crate) fn live_again(&self) {
        let id = crate::config::uuid("the outbox").unwrap_or_default();
        let name = self.outbox_name(&["/tab/", &id].concat());
        self.state.borrow_mut().id = id;
        if let Some(shell) = self.shell().filter(|_| self.state.borrow().tab.locks()) {
            shell.live(Some(&name));
        }
    }

    /// `plant-store-outbox:<name>`, then `more`: the outbox's database, its channel and its locks.
    pub(crate) fn outbox_name(&self, more: &str) -> String {
        ["plant-store-outbox:", &self.name, more].concat()
    }
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = warn)]
    pub(crate) fn console_warn(message: &str);
}
