//! The Rust side of the outbox's JS shell (`js/outbox/outbox.js`, the `PlantOutbox`): [`Rules`]
//! holds what this tab holds of the store and its tab machine (`tab.rs`), and decides for the
//! shell, which does the IO. What the shell asks is a Rust function of `rules` (each a closure:
//! `fed`, `next`, `apply`, `written`, `event`, …); what Rust asks of the shell is one of its
//! methods (`feed`, `senders`, `askLock`, …), bound below. Every record the outbox changes goes
//! through a [`Change`]: Rust names the records and the events, the shell reads each in one
//! transaction of the store and writes what [`table::apply`] makes of it.

use super::config::{Change as Told, OnChange, OutboxConfig, Store};
use super::entry::{Entry, NEVER};
use super::record::{self, Fields, Sink};
use super::tab::{Do, Input, Senders, Tab, Take};
use super::table::{self, Context, Event, Held, Sent, Step};
use crate::error::{decimal, Draft};
use crate::redact::theirs;
use crate::{CallOptions, Client, Error, IdempotencyKey};
use alloc::boxed::Box;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::{Cell, RefCell};
use js_sys::{Array, Date, Math, Object, Promise, Reflect};
use plant_store_model::NewPlant;
use wasm_bindgen::prelude::*;

/// How many created entries a load reads, newest first: the others are read by key.
const CREATED_SHOWN: u32 = 100;
/// The events of the page's life the tab hears: on the document, and on the window.
const DOCUMENT_EVENTS: [&str; 3] = ["visibilitychange", "freeze", "resume"];
const WINDOW_EVENTS: [&str; 4] = ["pagehide", "pageshow", "online", "offline"];
/// A hint on the channel: `{ type, v: 1, keys?, released? }`, the keys to read again, never the
/// data.
const HINT: &str = "plant-store-outbox";

/// A record set aside: its key, why, and the record as the store gave it.
pub(crate) struct Aside {
    pub(crate) key: String,
    pub(crate) reason: String,
    pub(crate) record: JsValue,
}

/// An entry this tab holds, and its view for JavaScript once asked for.
struct Kept {
    entry: Entry,
    view: Option<JsValue>,
}

/// What a change of the store is for: what its outcome tells.
#[derive(Clone, Copy, PartialEq)]
enum For {
    /// The app's add; its `retry`, `markCreated` or `remove`.
    Add,
    Act(&'static str),
    /// A sender of round number `round`: the answer of its last send, and its next take.
    Sender(u32),
    /// The retention; the answers a frozen page could not write.
    Expire,
    Left,
}

/// A change being written: its events (taken as the store applies them), and what each became.
struct Pending {
    number: u32,
    purpose: For,
    events: Vec<Option<(String, Event)>>,
    steps: Vec<Option<(Step, JsValue)>>,
}

/// What one outbox's tab holds and decides.
pub(crate) struct Rules {
    /// The client the entries are sent with; let go on close, with the app's hooks.
    client: RefCell<Option<Client>>,
    name: String,
    send_ms: f64,
    retention_ms: f64,
    key_lifetime_ms: f64,
    /// The store may be shared with other tabs (IndexedDB): they get hints and share the lock.
    shared: bool,
    platform: JsValue,
    /// The JS API's outbox: each change is told to the shell with its view.
    js: bool,
    on_change: Option<OnChange>,
    shell: RefCell<Option<Shell>>,
    state: RefCell<State>,
}

struct State {
    tab: Tab,
    /// This tab's id while it is alive (a new one after each resume): the sender of what it takes.
    id: String,
    /// What this tab holds, in the order the entries were added.
    held: Vec<Kept>,
    /// `entries()`'s array, until something changes.
    list: Option<JsValue>,
    aside: Vec<Aside>,
    /// The tabs alive, as read when the round last fed.
    live: Vec<String>,
    /// When the next created entry expires (the store's purge says).
    expiry: f64,
    /// Changes being written, and the answers of sends not yet written.
    pending: Vec<Pending>,
    answers: Vec<(u32, String, Event)>,
    numbers: u32,
    /// Answers of calls aborted while the store could not write: written once it can.
    left: Vec<(String, Event)>,
    suspended: bool,
    closed: bool,
    warned: bool,
    last_added: f64,
    /// The error the shell was last handed to throw, and the entry an add gave, for the Rust API
    /// to read.
    thrown: Option<Error>,
    added: Option<Entry>,
}

impl Rules {
    /// Checks an outbox's settings: its rules, and its store and platform for the shell.
    pub(crate) fn new(
        config: OutboxConfig,
        js: bool,
    ) -> Result<(Rc<Rules>, JsValue, JsValue), Error> {
        let OutboxConfig { client, name, store, concurrency, retention_ms, platform, on_change } =
            config;
        let send_ms = f64::from(client.timeout_ms) + 1_000.0;
        let client = Client::new(client)?;
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
        let locks = shared && !nav(&platform, "locks").is_undefined();
        let senders = match (shared, locks) {
            (false, _) => Senders::Alone,
            (true, true) => Senders::ByTurns,
            (true, false) => Senders::All,
        };
        let online = nav(&platform, "onLine").as_bool() != Some(false);
        let rules = Rules {
            client: RefCell::new(Some(client)),
            name,
            send_ms,
            retention_ms: retention_ms.into(),
            key_lifetime_ms: 86_400_000.0,
            shared,
            platform: platform.clone(),
            js,
            on_change,
            shell: RefCell::new(None),
            state: RefCell::new(State {
                tab: Tab::new(senders, online, concurrency as usize),
                id: String::new(),
                held: Vec::new(),
                list: None,
                aside: Vec::new(),
                live: Vec::new(),
                expiry: f64::INFINITY,
                pending: Vec::new(),
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
        };
        if shared && !locks {
            rules.warn("this browser has no Web Locks API");
        }
        Ok((Rc::new(rules), store, platform))
    }

    /// The shell opened: it is told what Rust decides from now on.
    pub(crate) fn opened(self: &Rc<Self>, shell: Shell) {
        *self.shell.borrow_mut() = Some(shell);
        self.live_again();
    }

    pub(crate) fn shell(&self) -> Option<Shell> {
        self.shell.borrow().clone()
    }

    /// Tells the tab `input`, and asks the shell to do what it says.
    pub(crate) fn on(self: &Rc<Self>, input: Input) {
        let online = nav(&self.platform, "onLine").as_bool() != Some(false);
        let actions = {
            let tab = &mut self.state.borrow_mut().tab;
            tab.online(online);
            tab.on(input, Date::now())
        };
        let Some(shell) = self.shell() else { return };
        for action in actions {
            match action {
                Do::AskLock => shell.ask_lock(&self.lock_name("")),
                Do::Release => shell.release(),
                Do::Tell => {
                    let hint = hint();
                    set(&hint, "released", true);
                    shell.post(&hint);
                }
                Do::Feed { round, force, lock } => {
                    let until = if force { NEVER - 1.0 } else { Date::now() };
                    if self.shared {
                        shell.feed(round, until, lock);
                        continue;
                    }
                    // A store of the app's is all held here: what is due is read off what is held.
                    let state = self.state.borrow();
                    let due = state.held.iter().filter_map(|kept| {
                        let at = kept.entry.due_at().filter(|at| *at <= until)?;
                        Some((at, kept.entry.key.clone()))
                    });
                    let mut due: Vec<(f64, String)> = due.collect();
                    drop(state);
                    due.sort_by(|a, b| a.0.total_cmp(&b.0));
                    let keys = due.into_iter().map(|(_, key)| key).collect();
                    self.on(Input::Fed { round, keys });
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
                Do::Flushed(count) => shell.flushed(count as u32),
            }
        }
    }

    /// The next change of a sender of round number `round`: the answer of its last send (by its
    /// number), and the next entry the tab gives, taken; none once there is neither.
    fn next(self: &Rc<Self>, round: u32, answer: Option<u32>) -> Option<Object> {
        let mut state = self.state.borrow_mut();
        let take = state.tab.next(round);
        let at = answer.and_then(|n| state.answers.iter().position(|(m, ..)| *m == n));
        let answer = at.map(|at| state.answers.remove(at));
        drop(state);
        let mut events: Vec<(String, Event)> =
            answer.map(|(_, key, event)| (key, event)).into_iter().collect();
        if let Some(Take { key, lock, force }) = take {
            events.push((key, Event::Take { lock, force }));
        }
        if events.is_empty() {
            self.on(Input::SenderDone { round });
            return None;
        }
        Some(self.change(For::Sender(round), events, false, false))
    }

    /// A change of the store for `purpose`: the records of `events` (by key, or for an add by the
    /// plant's id: `by_id`), each to be changed by its event in one transaction (`strict`: on disk
    /// before it resolves), as the object the shell writes: `{ n, targets, byId, strict }`.
    fn change(
        &self,
        purpose: For,
        events: Vec<(String, Event)>,
        by_id: bool,
        strict: bool,
    ) -> Object {
        let targets: Array = events.iter().map(|(key, _)| JsValue::from(key.as_str())).collect();
        let mut state = self.state.borrow_mut();
        state.numbers += 1;
        let number = state.numbers;
        let steps = events.iter().map(|_| None).collect();
        let events = events.into_iter().map(Some).collect();
        state.pending.push(Pending { number, purpose, events, steps });
        let change = Object::new();
        set(&change, "n", number);
        set(&change, "targets", targets);
        set(&change, "byId", by_id);
        set(&change, "strict", strict);
        change
    }

    /// The `i`th record of `change`, as the store read it: what to write in its place (a record, or
    /// null to delete it; undefined to leave it).
    fn apply(&self, change: &JsValue, i: u32, raw: JsValue) -> JsValue {
        let number = change.number("n").unwrap_or_default() as u32;
        let mut state = self.state.borrow_mut();
        let Some(pending) = state.pending.iter_mut().find(|p| p.number == number) else {
            return JsValue::UNDEFINED;
        };
        let Some(Some((_, event))) = pending.events.get(i as usize).cloned() else {
            return JsValue::UNDEFINED;
        };
        let found = if raw.is_object() { record::read(&raw) } else { Held::None };
        let cx = Context {
            now: Date::now(),
            random: Math::random(),
            send_ms: self.send_ms,
            retention_ms: self.retention_ms,
            key_lifetime_ms: self.key_lifetime_ms,
            tab: &state.id,
            live: &state.live,
        };
        let step = table::apply(found, event, &cx);
        let out = match &step {
            Step::Put(entry) => record::write::<Object>(entry).into(),
            Step::Delete => JsValue::NULL,
            _ => JsValue::UNDEFINED,
        };
        let pending = state.pending.iter_mut().find(|p| p.number == number);
        if let Some(slot) = pending.and_then(|p| p.steps.get_mut(i as usize)) {
            *slot = Some((step, raw));
        }
        out
    }

    /// `change` was written, each record but those that `failures` name (its `i`th failure, or
    /// undefined): what changed is taken here, told, and hinted to the other tabs. What it gives
    /// the shell: an add's entry (JS API), a sender's next call (the promise of its answer's
    /// number), else nothing; a refusal or a failure is thrown (`Err`).
    fn written(self: &Rc<Self>, change: &JsValue, failures: &JsValue) -> Result<JsValue, JsValue> {
        let number = change.number("n").unwrap_or_default() as u32;
        let mut state = self.state.borrow_mut();
        let Some(at) = state.pending.iter().position(|p| p.number == number) else {
            return Ok(JsValue::UNDEFINED);
        };
        let Pending { purpose, events, steps, .. } = state.pending.remove(at);
        drop(state);
        let keys: Vec<String> = change.object("targets").map_or(Vec::new(), |targets| {
            Array::from(&targets).iter().map(|key| key.as_string().unwrap_or_default()).collect()
        });
        let failure = |i: usize| Some(Reflect::get_u32(failures, i as u32).unwrap_or_default());
        let failure = |i: usize| failure(i).filter(|f| !f.is_undefined() && !f.is_null());
        let hinted = Array::new();
        let mut outcomes = Vec::new();
        for (i, step) in steps.into_iter().enumerate() {
            let key = keys.get(i).cloned().unwrap_or_default();
            let outcome = match (step, failure(i)) {
                // Not applied: the transaction failed before it read the record.
                (None, failed) => Err(failed.unwrap_or_default()),
                (Some(_), Some(failed)) => Err(failed),
                (Some((step, raw)), None) => {
                    let key = match &step {
                        Step::Put(entry) | Step::Keep(entry) => entry.key.clone(),
                        _ => key,
                    };
                    if matches!(step, Step::Put(_) | Step::Delete | Step::Aside(_)) {
                        hinted.push(&key.as_str().into());
                    }
                    self.take(&key, &step, raw);
                    Ok(step)
                }
            };
            outcomes.push((events.get(i).cloned().flatten(), keys.get(i).cloned(), outcome));
        }
        if hinted.length() > 0 {
            let hint = hint();
            set(&hint, "keys", hinted);
            if let Some(shell) = self.shell() {
                shell.post(&hint);
            }
        }
        self.outcome(purpose, outcomes)
    }

    /// What a written change tells, by its purpose.
    fn outcome(
        self: &Rc<Self>,
        purpose: For,
        outcomes: Vec<(Option<(String, Event)>, Option<String>, Result<Step, JsValue>)>,
    ) -> Result<JsValue, JsValue> {
        let mut outcomes = outcomes.into_iter();
        let told = match purpose {
            For::Add => match outcomes.next().map(|(.., outcome)| outcome) {
                Some(Ok(Step::Put(entry))) => {
                    self.on(Input::Added(entry.key.clone()));
                    Ok(entry)
                }
                Some(Ok(Step::Keep(entry))) => Ok(entry),
                Some(Ok(Step::Refused(why))) => Err(Error::config(why)),
                Some(Err(cause)) => Err(self.failed("store the entry", cause)),
                _ => Err(Error::config("the outbox's store gave back no entry")),
            },
            For::Act(operation) => match outcomes.next().map(|(.., outcome)| outcome) {
                Some(Ok(Step::Refused(why))) => {
                    Err(Error::config(["outbox.", operation, ": not now, ", &why].concat()))
                }
                Some(Err(cause)) => Err(self.failed(operation, cause)),
                _ => {
                    if operation == "retry" {
                        self.on(Input::Ask { force: false });
                    }
                    return Ok(JsValue::UNDEFINED);
                }
            },
            For::Sender(round) => {
                let mut call = JsValue::UNDEFINED;
                for (event, _, outcome) in outcomes {
                    match (event, outcome) {
                        (Some((key, event @ Event::Settled { .. })), Err(cause)) => {
                            self.unrecorded(key, event, &cause)
                        }
                        (Some((key, Event::Take { .. })), Ok(Step::Put(entry))) => {
                            let mine = entry.sender.as_ref() == Some(&self.state.borrow().id);
                            if mine {
                                call = self.send(round, key, entry).into();
                            }
                        }
                        _ => {}
                    }
                }
                return Ok(call);
            }
            For::Expire | For::Left => return Ok(JsValue::UNDEFINED),
        };
        self.tell_outcome(told)
    }

    /// An add's entry, or an operation's error, as the shell gives it back: the entry's view and
    /// a PlantStoreError in the JS API; in the Rust API the outcome is kept for it to read.
    fn tell_outcome(&self, told: Result<Entry, Error>) -> Result<JsValue, JsValue> {
        #[cfg(feature = "js")]
        if self.js {
            return told.map(|entry| self.view_of(&entry)).map_err(|e| e.to_js());
        }
        let mut state = self.state.borrow_mut();
        match told {
            Ok(entry) => state.added = Some(entry),
            Err(error) => state.thrown = Some(error),
        }
        Ok(JsValue::UNDEFINED)
    }

    /// Sends `entry` (taken at its revision) with its key: the promise of its answer's number,
    /// which the sender's next change writes.
    fn send(self: &Rc<Self>, _round: u32, key: String, entry: Entry) -> Promise {
        let (Some(client), Some(shell)) = (self.client(), self.shell()) else {
            return Promise::resolve(&JsValue::UNDEFINED);
        };
        let signal = shell.signal();
        let requests = Rc::new(Cell::new(0));
        let counted = requests.clone();
        let options = CallOptions::new()
            .idempotency_key(IdempotencyKey::Given(entry.idempotency_key().into()))
            .signal(signal.clone())
            .after_attempt(move |attempt| {
                counted.set(attempt.number);
                Ok(())
            });
        let (rules, taken) = (self.clone(), entry.revision);
        let end = move |outcome: Result<_, Error>| {
            let sent = Sent::of(&outcome, requests.get());
            let event = Event::Settled { taken, left: signal.aborted(), sent };
            let mut state = rules.state.borrow_mut();
            state.numbers += 1;
            let number = state.numbers;
            state.answers.push((number, key.clone(), event));
            Ok(number.into())
        };
        match client.start(&entry.plant, &options) {
            Ok(call) => crate::shell::run(call, end),
            Err(error) => Promise::resolve(&end.clone()(Err(error)).unwrap_or_default()),
        }
    }

    /// Takes what the store holds of `key` into what this tab holds: a step a change made, or a
    /// record read (`raw`). A read older than the entry held (it came in after a newer one) is
    /// passed over.
    fn take(self: &Rc<Self>, key: &str, step: &Step, raw: JsValue) {
        let mut state = self.state.borrow_mut();
        let at = state.held.iter().position(|kept| kept.entry.key == key);
        let aside = state.aside.iter().position(|aside| aside.key == key);
        let (entry, removed) = match step {
            Step::Put(entry) | Step::Keep(entry) => {
                if at.is_some_and(|at| state.held[at].entry.revision >= entry.revision) {
                    return;
                }
                if let Some(aside) = aside {
                    state.aside.remove(aside);
                }
                let kept = Kept { entry: entry.clone(), view: None };
                match at {
                    Some(at) => state.held[at] = kept,
                    None => {
                        let order = (entry.added_at, &entry.key);
                        let at = state
                            .held
                            .partition_point(|k| (k.entry.added_at, &k.entry.key) < order);
                        state.held.insert(at, kept);
                    }
                }
                (Some(entry.clone()), false)
            }
            Step::Aside(reason) => {
                let was = at.map(|at| state.held.remove(at)).is_some();
                let record = Aside { key: key.into(), reason: reason.clone(), record: raw };
                match aside {
                    Some(aside) => state.aside[aside] = record,
                    None => state.aside.push(record),
                }
                (None, was)
            }
            Step::Delete => {
                let was = at.map(|at| state.held.remove(at)).is_some();
                (None, was || aside.map(|at| state.aside.remove(at)).is_some())
            }
            Step::Refused(_) => return,
        };
        state.list = None;
        let due = state.held.iter().filter_map(|kept| kept.entry.due_at());
        let due = due.filter(|at| *at < NEVER).fold(state.expiry, f64::min);
        drop(state);
        self.tell(key, entry.as_ref(), removed);
        self.on(Input::Due(due));
    }

    /// Tells the app of a change: an entry as it now is, or one `removed`, or (neither) a record
    /// set aside.
    fn tell(&self, key: &str, entry: Option<&Entry>, removed: bool) {
        if let Some(OnChange(listener)) = &self.on_change {
            match entry {
                Some(entry) => listener(Told::Entry(entry)),
                None if removed => listener(Told::Removed(key)),
                None => {}
            }
        }
        let Some(shell) = self.shell().filter(|_| self.js) else { return };
        let detail = match entry {
            Some(_) => self.view(key),
            None if removed => {
                let gone = Object::new();
                set(&gone, "key", key);
                set(&gone, "removed", true);
                gone.into()
            }
            None => JsValue::UNDEFINED,
        };
        shell.changed(&detail);
    }

    /// The view of the entry held under `key`, made once.
    fn view(&self, key: &str) -> JsValue {
        let mut state = self.state.borrow_mut();
        let Some(kept) = state.held.iter_mut().find(|kept| kept.entry.key == key) else {
            return JsValue::UNDEFINED;
        };
        kept.view.get_or_insert_with(|| record::view::<Object>(&kept.entry).into()).clone()
    }

    /// The view of `entry` for JavaScript.
    pub(crate) fn view_of(&self, entry: &Entry) -> JsValue {
        record::view::<Object>(entry).into()
    }

    /// What a load read (on open, and when the page is back): each record taken, and the keys of
    /// the others held, to read again by key (the load reads only the newest created ones).
    fn loaded(self: &Rc<Self>, records: &JsValue) -> Array {
        let keys: Vec<String> = {
            let state = self.state.borrow();
            let held = state.held.iter().map(|kept| kept.entry.key.clone());
            held.chain(state.aside.iter().map(|aside| aside.key.clone())).collect()
        };
        let loaded = js_sys::Set::new(&JsValue::UNDEFINED);
        for raw in Array::from(records).iter() {
            let key = raw.text("key").unwrap_or_default();
            loaded.add(&key.as_str().into());
            self.read(&key, raw);
        }
        keys.into_iter()
            .filter(|key| !loaded.has(&key.as_str().into()))
            .map(JsValue::from)
            .collect()
    }

    /// A record read from the store, through the table's check; undefined once it is gone.
    fn read(self: &Rc<Self>, key: &str, raw: JsValue) {
        let step = match raw.is_undefined() || raw.is_null() {
            true => Step::Delete,
            false => self.check(&raw),
        };
        self.take(key, &step, raw);
    }

    fn check(&self, raw: &JsValue) -> Step {
        let state = self.state.borrow();
        let cx = Context {
            now: Date::now(),
            random: 0.0,
            send_ms: self.send_ms,
            retention_ms: self.retention_ms,
            key_lifetime_ms: self.key_lifetime_ms,
            tab: &state.id,
            live: &state.live,
        };
        table::apply(record::read(raw), Event::Check, &cx)
    }

    /// The entry a record read by `get` holds, if any.
    pub(crate) fn entry_of(&self, raw: &JsValue) -> Option<Entry> {
        match raw.is_object().then(|| self.check(raw)) {
            Some(Step::Keep(entry)) => Some(entry),
            _ => None,
        }
    }

    /// The store could not record the answer to `key`: it stays sending, and the next round
    /// sends it again, with its key. A frozen or cached page's store writes nothing, by design:
    /// the answer is written once the page is back.
    fn unrecorded(self: &Rc<Self>, key: String, event: Event, cause: &JsValue) {
        let mut state = self.state.borrow_mut();
        if state.suspended {
            return state.left.push((key, event));
        }
        drop(state);
        let what = [
            "plant-store-client/outbox: its store could not record the answer to entry ",
            &key,
            ": it stays sending, and is sent again with the same Idempotency-Key (",
            &said(cause),
            ")",
        ];
        console_warn(&what.concat());
        self.on(Input::Ask { force: false });
    }

    /// The change that adds `plant` (its id a BigInt when `bigint`), or why not.
    pub(crate) fn add(&self, plant: NewPlant, bigint: bool) -> Result<Object, Error> {
        self.usable("add")?;
        let Ok(IdempotencyKey::Given(key)) = IdempotencyKey::random() else {
            return Err(Error::config("the outbox could not draw a key"));
        };
        let added_at = {
            let mut state = self.state.borrow_mut();
            state.last_added = Date::now().max(state.last_added + 1.0);
            state.last_added
        };
        let id = decimal(plant.id);
        let event = Event::Add(Entry::new(key, plant, bigint, added_at));
        Ok(self.change(For::Add, Vec::from([(id, event)]), true, true))
    }

    /// The change of the app's `retry`, `markCreated` or `remove` of `key`.
    pub(crate) fn act(&self, key: &str, operation: &'static str) -> Result<Object, Error> {
        self.usable(operation)?;
        let event = match operation {
            "retry" => match IdempotencyKey::random()? {
                IdempotencyKey::Given(key) => Event::Retry { key },
                _ => Event::Retry { key: key.into() },
            },
            "markCreated" => Event::Resolve,
            _ => Event::Remove,
        };
        Ok(self.change(For::Act(operation), Vec::from([(key.into(), event)]), false, false))
    }

    /// What the Rust API reads after an add or an operation: its error, or an add's entry.
    pub(crate) fn thrown(&self) -> Option<Error> {
        self.state.borrow_mut().thrown.take()
    }

    pub(crate) fn added(&self) -> Option<Entry> {
        self.state.borrow_mut().added.take()
    }

    /// The entries held, in the order they were added.
    pub(crate) fn entries(&self) -> Vec<Entry> {
        self.state.borrow().held.iter().map(|kept| kept.entry.clone()).collect()
    }

    /// `entries()` for JavaScript: a frozen array of views, the same until something changes.
    fn list(&self) -> JsValue {
        if let Some(list) = &self.state.borrow().list {
            return list.clone();
        }
        let keys: Vec<String> = self.entries().into_iter().map(|entry| entry.key).collect();
        let list: Array = keys.iter().map(|key| self.view(key)).collect();
        let list: JsValue = Object::freeze(&list).into();
        self.state.borrow_mut().list = Some(list.clone());
        list
    }

    /// The records set aside.
    pub(crate) fn unreadable(&self, each: &mut dyn FnMut(&Aside)) {
        self.state.borrow().aside.iter().for_each(each);
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
    /// lock and the tab's own lock given back, the shell's listeners and channel let go, its
    /// store closed once its last write is over. `why`: it closed on its own (another page
    /// upgraded the database, or the browser closed it).
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

    fn usable(&self, operation: &str) -> Result<(), Error> {
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
    fn warn(&self, why: &str) {
        if core::mem::replace(&mut self.state.borrow_mut().warned, true) {
            return;
        }
        let message = [
            "plant-store-client/outbox: ",
            why,
            ", so every tab of the outbox sends: \
                        an entry being sent when its tab closes is sent again once its call has \
                        surely ended, with the same Idempotency-Key",
        ];
        console_warn(&message.concat());
    }

    /// This tab takes a new id, and holds its own lock while it is alive.
    fn live_again(&self) {
        let id = crate::config::uuid().unwrap_or_default();
        let name = self.lock_name(&["/tab/", &id].concat());
        self.state.borrow_mut().id = id;
        if let Some(shell) = self.shell().filter(|_| self.state.borrow().tab.locks()) {
            shell.live(Some(&name));
        }
    }

    fn lock_name(&self, more: &str) -> String {
        ["plant-store-outbox:", &self.name, more].concat()
    }

    /// What an event of the page, the network or the channel is to the tab (`visibility`: the
    /// document's `visibilityState`); a hint's keys are read again.
    fn event(self: &Rc<Self>, event: &JsValue, visibility: Option<String>) -> Option<Input> {
        let persisted = event.flag("persisted") == Some(true);
        Some(match event.text("type")?.as_str() {
            "visibilitychange" if visibility.as_deref() == Some("hidden") => Input::Hidden,
            "visibilitychange" => Input::Shown,
            "freeze" => Input::Frozen,
            "pagehide" if persisted => Input::Frozen,
            "pagehide" => Input::Left,
            "resume" => Input::Resumed,
            "pageshow" if persisted => Input::Resumed,
            "online" => Input::Online,
            "offline" => Input::Offline,
            "message" => {
                let data = event.object("data")?;
                if data.text("type").as_deref() != Some(HINT) || data.number("v") != Some(1.0) {
                    return None;
                }
                let keys =
                    data.object("keys").filter(Array::is_array).map(|keys| Array::from(&keys));
                if let (Some(keys), Some(shell)) = (keys, self.shell()) {
                    keys.iter().filter(JsValue::is_string).for_each(|key| shell.reread(&key));
                }
                return (data.flag("released") == Some(true)).then_some(Input::Released);
            }
            _ => return None,
        })
    }

    /// The functions of the outbox's `rules` object, which the shell calls.
    pub(crate) fn functions(self: &Rc<Self>) -> Object {
        let object = Object::new();
        let rules = self.clone();
        let method =
            |name: &str, f: Box<dyn Fn(JsValue, JsValue, JsValue) -> Result<JsValue, JsValue>>| {
                let f =
                    Closure::<dyn Fn(JsValue, JsValue, JsValue) -> Result<JsValue, JsValue>>::new(
                        f,
                    );
                set(&object, name, f.into_js_value());
            };
        let r = rules.clone();
        method(
            "opened",
            Box::new(move |shell, _, _| {
                r.opened(shell.unchecked_into());
                Ok(JsValue::UNDEFINED)
            }),
        );
        let r = rules.clone();
        method(
            "ask",
            Box::new(move |visibility, _, _| {
                if visibility.as_string().as_deref() == Some("hidden") {
                    r.on(Input::Hidden);
                }
                r.on(Input::Ask { force: false });
                Ok(JsValue::UNDEFINED)
            }),
        );
        let r = rules.clone();
        method(
            "lock",
            Box::new(move |granted, cause, _| {
                if granted.is_falsy() {
                    let name = cause.text("name").unwrap_or_else(|| said(&cause));
                    r.warn(&["a request for its Web Lock failed (", &name, ")"].concat());
                }
                r.on(if granted.is_truthy() { Input::Granted } else { Input::LockFailed });
                Ok(JsValue::UNDEFINED)
            }),
        );
        let r = rules.clone();
        method(
            "fed",
            Box::new(move |round, keys, locks| {
                let prefix = r.lock_name("/tab/");
                let strings = |list: &JsValue| {
                    let list = Array::from(list);
                    list.iter().filter_map(|v| v.as_string()).collect::<Vec<String>>()
                };
                // The other tabs alive (this one takes again what it no longer sends).
                let mine = r.state.borrow().id.clone();
                let live = strings(&locks)
                    .into_iter()
                    .filter_map(|n| Some(String::from(n.strip_prefix(prefix.as_str())?)))
                    .filter(|id| *id != mine);
                r.state.borrow_mut().live = live.collect();
                let round = round.as_f64().unwrap_or_default() as u32;
                r.on(Input::Fed { round, keys: strings(&keys) });
                Ok(JsValue::UNDEFINED)
            }),
        );
        let r = rules.clone();
        method(
            "next",
            Box::new(move |round, answer, _| {
                let round = round.as_f64().unwrap_or_default() as u32;
                let change = r.next(round, answer.as_f64().map(|n| n as u32));
                Ok(change.map_or(JsValue::UNDEFINED, JsValue::from))
            }),
        );
        let r = rules.clone();
        method(
            "apply",
            Box::new(move |change, i, raw| {
                Ok(r.apply(&change, i.as_f64().unwrap_or_default() as u32, raw))
            }),
        );
        let r = rules.clone();
        method("written", Box::new(move |change, failures, _| r.written(&change, &failures)));
        let r = rules.clone();
        method(
            "left",
            Box::new(move |_, _, _| {
                let left = core::mem::take(&mut r.state.borrow_mut().left);
                Ok(match left.is_empty() {
                    true => JsValue::UNDEFINED,
                    false => r.change(For::Left, left, false, false).into(),
                })
            }),
        );
        let r = rules.clone();
        method("loaded", Box::new(move |records, _, _| Ok(r.loaded(&records).into())));
        let r = rules.clone();
        method(
            "read",
            Box::new(move |key, raw, _| {
                r.read(&key.as_string().unwrap_or_default(), raw);
                Ok(JsValue::UNDEFINED)
            }),
        );
        let r = rules.clone();
        method(
            "expire",
            Box::new(move |keys, _, _| {
                let keys = Array::from(&keys);
                let expire = keys.iter().filter_map(|key| Some((key.as_string()?, Event::Expire)));
                Ok(r.change(For::Expire, expire.collect(), false, false).into())
            }),
        );
        let r = rules.clone();
        method(
            "purged",
            Box::new(move |next, _, _| {
                let mut state = r.state.borrow_mut();
                state.expiry = next.as_f64().unwrap_or(f64::INFINITY);
                let due = state.held.iter().filter_map(|kept| kept.entry.due_at());
                let due = due.filter(|at| *at < NEVER).fold(state.expiry, f64::min);
                drop(state);
                r.on(Input::Due(due));
                r.on(Input::Purged);
                Ok(JsValue::UNDEFINED)
            }),
        );
        let r = rules.clone();
        method(
            "timer",
            Box::new(move |_, _, _| {
                r.on(Input::Timer);
                Ok(JsValue::UNDEFINED)
            }),
        );
        let r = rules.clone();
        method(
            "flush",
            Box::new(move |_, _, _| {
                r.on(Input::Flush);
                Ok(JsValue::UNDEFINED)
            }),
        );
        let r = rules.clone();
        method(
            "paused",
            Box::new(move |paused, _, _| {
                r.on(if paused.is_truthy() { Input::Pause } else { Input::Resume });
                Ok(JsValue::UNDEFINED)
            }),
        );
        let r = rules.clone();
        method(
            "close",
            Box::new(move |_, _, _| {
                r.close(None);
                Ok(JsValue::UNDEFINED)
            }),
        );
        let r = rules.clone();
        method(
            "lost",
            Box::new(move |event, _, _| {
                let why = match event.text("type").as_deref() {
                Some("versionchange") => {
                    "another page opened a newer version of the outbox's database"
                }
                _ => "the browser closed the outbox's database (storage cleared, or a disk error)",
            };
                r.close(Some(why));
                Ok(JsValue::UNDEFINED)
            }),
        );
        let r = rules.clone();
        method(
            "event",
            Box::new(move |event, visibility, _| {
                if let Some(input) = r.event(&event, visibility.as_string()) {
                    r.on(input);
                }
                Ok(JsValue::UNDEFINED)
            }),
        );
        let r = rules.clone();
        method(
            "usable",
            Box::new(move |operation, _, _| {
                let operation = operation.as_string().unwrap_or_default();
                r.usable(&operation).map(|()| JsValue::UNDEFINED).map_err(|e| r.throw(e))
            }),
        );
        let r = rules.clone();
        method(
            "failed",
            Box::new(move |what, cause, _| {
                let error = r.failed(&what.as_string().unwrap_or_default(), cause);
                Ok(r.throw(error))
            }),
        );
        let r = rules.clone();
        method("opening", Box::new(move |cause, _, _| Ok(r.throw(opening(&r, cause)))));
        let retention_ms = self.retention_ms;
        method(
            "migrate",
            Box::new(move |raw, duplicate, _| {
                Ok(migrate(&raw, duplicate.is_truthy(), retention_ms))
            }),
        );
        let r = rules.clone();
        method(
            "view",
            Box::new(move |raw, _, _| {
                Ok(r.entry_of(&raw).map_or(JsValue::UNDEFINED, |entry| r.view_of(&entry)))
            }),
        );
        let r = rules.clone();
        method("entries", Box::new(move |_, _, _| Ok(r.list())));
        let r = rules.clone();
        method(
            "unreadable",
            Box::new(move |_, _, _| {
                let all = Array::new();
                r.unreadable(&mut |aside| {
                    let one = Object::new();
                    set(&one, "key", aside.key.as_str());
                    set(&one, "reason", aside.reason.as_str());
                    set(&one, "record", aside.record.clone());
                    all.push(&one);
                });
                Ok(all.into())
            }),
        );
        #[cfg(feature = "js")]
        {
            let r = rules.clone();
            method(
                "add",
                Box::new(move |plant, _, _| match crate::js::api::new_plant(&plant) {
                    Ok((plant, bigint)) => {
                        r.add(plant, bigint).map(JsValue::from).map_err(|e| e.to_js())
                    }
                    Err(issues) => Err(r.redact(Draft::validation(issues)).to_js()),
                }),
            );
            for operation in ["retry", "markCreated", "remove"] {
                let r = rules.clone();
                method(
                    operation,
                    Box::new(move |key, _, _| {
                        let key = key.as_string().unwrap_or_default();
                        r.act(&key, operation).map(JsValue::from).map_err(|e| e.to_js())
                    }),
                );
            }
        }
        set(&object, "shown", CREATED_SHOWN);
        let events =
            |names: &[&str]| names.iter().map(|name| JsValue::from(*name)).collect::<Array>();
        set(&object, "documentEvents", events(&DOCUMENT_EVENTS));
        set(&object, "windowEvents", events(&WINDOW_EVENTS));
        if self.shared {
            set(&object, "channel", self.lock_name(""));
        }
        object
    }

    /// `error` as the shell throws it: a PlantStoreError in the JS API; for the Rust API it is
    /// kept, for it to read ([`Rules::thrown`]).
    fn throw(&self, error: Error) -> JsValue {
        #[cfg(feature = "js")]
        if self.js {
            return error.to_js();
        }
        let message = JsValue::from(error.message());
        self.state.borrow_mut().thrown = Some(error);
        message
    }
}

fn hint() -> Object {
    let hint = Object::new();
    set(&hint, "type", HINT);
    set(&hint, "v", 1);
    hint
}

fn set(object: &Object, name: &str, value: impl Into<JsValue>) {
    let _ = Reflect::set(object, &name.into(), &value.into());
}

/// The record an upgrade rewrites from `raw` (an older release's), or for one it cannot read the
/// same record with a due time, so that a load finds it and lists it.
fn migrate(raw: &JsValue, duplicate: bool, retention_ms: f64) -> JsValue {
    let cx = Context {
        now: Date::now(),
        random: 0.0,
        send_ms: 0.0,
        retention_ms,
        key_lifetime_ms: f64::INFINITY,
        tab: "",
        live: &[],
    };
    match table::apply(record::read(raw), Event::Migrate { duplicate }, &cx) {
        Step::Put(entry) => record::write::<Object>(&entry).into(),
        _ => {
            let copy = Object::assign(&Object::new(), raw.unchecked_ref());
            set(&copy, "dueAt", NEVER);
            copy.into()
        }
    }
}

/// The error of a store that could not be opened, in words that name the cause and the fix.
fn opening(rules: &Rules, cause: JsValue) -> Error {
    let message = match cause.text("type").or_else(|| cause.text("name")).as_deref() {
        Some("blocked") => {
            "the outbox's database is open in another tab of an older release of \
                            this app, which keeps it from being upgraded: close or reload that \
                            tab, then open the outbox again"
        }
        Some("VersionError") => {
            "the outbox's database was made by a newer release of this app: \
                                 reload the page to run that release"
        }
        _ if cause.is_undefined() => {
            "this runtime has no IndexedDB; pass options.store (a \
                                      MemoryStore keeps the entries of one process)"
        }
        _ => {
            let message = [
                "IndexedDB refused to open: ",
                &theirs(&said(&cause)),
                "; where it is \
                            not allowed (a sandboxed frame, blocked storage), pass options.store",
            ];
            return rules.redact(Draft::config(message.concat()).with_cause(cause));
        }
    };
    let draft = Draft::config(message);
    rules.redact(if cause.is_undefined() { draft } else { draft.with_cause(cause) })
}

/// What a failure says, on one line: its name and message.
fn said(cause: &JsValue) -> String {
    let text = match (cause.text("name"), cause.text("message")) {
        (Some(name), Some(message)) if !name.is_empty() => [name.as_str(), ": ", &message].concat(),
        (_, Some(message)) => message,
        _ => cause.as_string().unwrap_or_else(|| "an unknown failure".into()),
    };
    let line: String = text.chars().map(|c| if c == '\n' || c == '\r' { ' ' } else { c }).collect();
    line.trim_end_matches('.').into()
}

/// `platform.navigator[name]`.
fn nav(platform: &JsValue, name: &str) -> JsValue {
    let navigator = field(platform, "navigator");
    let value = field(&navigator, name);
    if value.is_null() {
        JsValue::UNDEFINED
    } else {
        value
    }
}

impl Fields for JsValue {
    fn text(&self, name: &str) -> Option<String> {
        field(self, name).as_string()
    }
    fn number(&self, name: &str) -> Option<f64> {
        field(self, name).as_f64()
    }
    fn flag(&self, name: &str) -> Option<bool> {
        field(self, name).as_bool()
    }
    fn object(&self, name: &str) -> Option<JsValue> {
        Some(field(self, name)).filter(JsValue::is_object)
    }
    fn has(&self, name: &str) -> bool {
        !field(self, name).is_undefined()
    }
}

/// The field `name` of `value` (undefined when it has none, or reading it threw).
fn field(value: &JsValue, name: &str) -> JsValue {
    match value.is_object() {
        true => Reflect::get(value, &name.into()).unwrap_or_default(),
        false => JsValue::UNDEFINED,
    }
}

impl Sink for Object {
    fn new() -> Object {
        Object::new()
    }
    fn text(&mut self, name: &str, value: &str) {
        set(self, name, value);
    }
    fn number(&mut self, name: &str, value: f64) {
        set(self, name, value);
    }
    fn flag(&mut self, name: &str, value: bool) {
        set(self, name, value);
    }
    fn id(&mut self, name: &str, id: i64, bigint: bool) {
        match bigint {
            true => set(self, name, id),
            false => set(self, name, id as f64),
        }
    }
    fn object(&mut self, name: &str, value: Object) {
        set(self, name, value);
    }
}

#[wasm_bindgen]
extern "C" {
    /// `globalThis`: the platform unless the app gives another.
    #[wasm_bindgen(thread_local_v2, js_name = globalThis)]
    static GLOBAL: JsValue;
    #[wasm_bindgen(js_namespace = console, js_name = warn)]
    fn console_warn(message: &str);
}

#[wasm_bindgen(module = "/js/outbox/store.js")]
extern "C" {
    /// The outbox's store: the IndexedDB database `plant-store-outbox:{name}` of `platform` when
    /// `store` is undefined, else the app's; an upgrade rewrites each record with `migrate`.
    #[wasm_bindgen(catch, js_name = openStore)]
    fn open_store(
        platform: &JsValue,
        name: &str,
        store: &JsValue,
        migrate: &JsValue,
    ) -> Result<Promise, JsValue>;
}

/// Opens the outbox of `rules` (its store, then its shell, which reads it): the promise of its
/// `PlantOutbox`.
pub(crate) fn open(
    rules: &Rc<Rules>,
    store: &JsValue,
    platform: &JsValue,
) -> Result<Promise, Error> {
    let functions = rules.functions();
    let migrate = Reflect::get(&functions, &"migrate".into()).unwrap_or_default();
    let failed = |cause| rules.failed("open its store", cause);
    let opening = open_store(platform, &rules.name, store, &migrate).map_err(failed)?;
    open_shell(&functions, platform, &opening).map_err(failed)
}

#[wasm_bindgen(module = "/js/outbox/outbox.js")]
extern "C" {
    /// `open(rules, platform, opening)`: the shell reads the store `opening` gives and listens;
    /// the promise of its `PlantOutbox`.
    #[wasm_bindgen(catch, js_name = open)]
    fn open_shell(
        rules: &Object,
        platform: &JsValue,
        opening: &Promise,
    ) -> Result<Promise, JsValue>;
    /// The `PlantOutbox`: what Rust asks of the shell.
    #[derive(Clone)]
    pub(crate) type Shell;
    #[wasm_bindgen(method, js_name = askLock)]
    fn ask_lock(this: &Shell, name: &str);
    #[wasm_bindgen(method)]
    fn release(this: &Shell);
    #[wasm_bindgen(method)]
    fn live(this: &Shell, name: Option<&str>);
    #[wasm_bindgen(method)]
    fn post(this: &Shell, hint: &Object);
    #[wasm_bindgen(method)]
    fn feed(this: &Shell, round: u32, until: f64, locked: bool);
    #[wasm_bindgen(method)]
    fn senders(this: &Shell, round: u32, count: u32);
    #[wasm_bindgen(method)]
    fn signal(this: &Shell) -> web_sys::AbortSignal;
    #[wasm_bindgen(method)]
    fn abort(this: &Shell);
    #[wasm_bindgen(method)]
    fn suspend(this: &Shell);
    #[wasm_bindgen(method)]
    fn back(this: &Shell);
    #[wasm_bindgen(method)]
    fn reread(this: &Shell, key: &JsValue);
    #[wasm_bindgen(method)]
    fn purge(this: &Shell, now: f64);
    #[wasm_bindgen(method)]
    fn arm(this: &Shell, ms: f64);
    #[wasm_bindgen(method)]
    fn disarm(this: &Shell);
    #[wasm_bindgen(method)]
    fn flushed(this: &Shell, count: u32);
    #[wasm_bindgen(method)]
    fn changed(this: &Shell, detail: &JsValue);
    #[wasm_bindgen(method)]
    fn closed(this: &Shell, why: Option<&str>);
    /// Writes a change (the Rust API's add and operations): the promise of what `written` gave.
    #[wasm_bindgen(method)]
    pub(crate) fn write(this: &Shell, change: &Object) -> Promise;
    #[wasm_bindgen(method)]
    pub(crate) fn record(this: &Shell, key: &str) -> Promise;
    #[wasm_bindgen(method)]
    pub(crate) fn flush(this: &Shell) -> Promise;
}
