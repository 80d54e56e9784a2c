//! What one tab of an outbox decides for its JS shell ([`Rules`]): the tab's machine (`tab.rs`),
//! what it holds (`held.rs`), and the changes of the store it asks the shell to write. A change
//! names records and events; the shell reads each record in one transaction of the store and
//! writes what [`table::apply`] makes of it, then tells [`Rules::written`], which takes what
//! changed, tells the app and the other tabs, and gives what comes next (a send, an add's entry,
//! an operation's refusal). `shell.rs` is the seam: the shell's methods and the rules' own.

use super::config::{Change as Told, OnChange, OutboxConfig, Store};
use super::entry::{Entry, NEVER};
use super::held::{Held, Taken};
use super::record::{self, Fields};
use super::shell::{hint, nav, said, set, Shell, GLOBAL};
use super::tab::{Do, Input, Senders, Tab, Take};
use super::table::{self, Context, Event, Sent, Step};
use crate::error::{decimal, Draft};
use crate::redact::theirs;
use crate::{CallOptions, Client, Error, IdempotencyKey};
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::{Cell, RefCell};
use js_sys::{Array, Date, Math, Object, Promise};
use plant_store_model::NewPlant;
use wasm_bindgen::prelude::*;

/// What a change of the store is for.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum For {
    /// The app's add; its `retry`, `markCreated` or `remove`.
    Add,
    Act(&'static str),
    /// A sender of round number `round`: the answer of its last send, and its next take.
    Sender(u32),
    /// The retention; the answers a frozen page could not write.
    Other,
}

/// A change being written: its events, and what the table made of each, with the record read.
struct Pending {
    number: u32,
    purpose: For,
    events: Vec<(String, Event)>,
    steps: Vec<Option<(Step, JsValue)>>,
}

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

pub(crate) struct State {
    pub(crate) tab: Tab,
    /// This tab's id while it lives (a new one after each resume): the sender of what it takes.
    pub(crate) id: String,
    pub(crate) held: Held,
    /// The other tabs alive, as read when the round last fed.
    pub(crate) live: Vec<String>,
    pending: Vec<Pending>,
    /// The answers of sends, by number, until their sender writes them.
    answers: Vec<(u32, String, Event)>,
    numbers: u32,
    /// Answers of calls aborted while the store could not write: written once it can.
    pub(crate) left: Vec<(String, Event)>,
    pub(crate) suspended: bool,
    closed: bool,
    warned: bool,
    last_added: f64,
    /// For the Rust API: the error the shell was handed to throw, the entry an add gave.
    pub(crate) thrown: Option<Error>,
    pub(crate) added: Option<Entry>,
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
        let Some(shell) = self.shell() else { return };
        for action in actions {
            match action {
                Do::AskLock => shell.ask_lock(&self.lock_name("")),
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
                Do::Flushed(count) => shell.flushed(count as u32),
            }
        }
    }

    /// The next change of a sender of round number `round`: the answer of its last send (by its
    /// number), and the next entry the tab gives, to take; none once there is neither.
    pub(crate) fn next(self: &Rc<Self>, round: u32, answer: Option<u32>) -> Option<Object> {
        let mut state = self.state.borrow_mut();
        let take = state.tab.next(round);
        let at = answer.and_then(|n| state.answers.iter().position(|(m, ..)| *m == n));
        let mut events: Vec<(String, Event)> =
            at.map(|at| state.answers.remove(at)).map(|(_, k, e)| (k, e)).into_iter().collect();
        drop(state);
        if let Some(Take { key, lock, force }) = take {
            events.push((key, Event::Take { lock, force }));
        }
        if events.is_empty() {
            self.on(Input::SenderDone { round });
            return None;
        }
        Some(self.change(For::Sender(round), events, false))
    }

    /// A change of the records of `events` (by key; for an add, by the plant's id: `by_id`), as
    /// the object the shell writes: `{ n, targets, byId, strict }` (an add is `strict`: on disk
    /// before it resolves).
    pub(crate) fn change(&self, purpose: For, events: Vec<(String, Event)>, by_id: bool) -> Object {
        let targets: Array = events.iter().map(|(key, _)| JsValue::from(key.as_str())).collect();
        let mut state = self.state.borrow_mut();
        state.numbers += 1;
        let number = state.numbers;
        let steps = events.iter().map(|_| None).collect();
        state.pending.push(Pending { number, purpose, events, steps });
        let change = Object::new();
        set(&change, "n", number);
        set(&change, "targets", targets);
        set(&change, "byId", by_id);
        set(&change, "strict", purpose == For::Add);
        change
    }

    /// The `i`th record of `change` as the store read it: what to write in its place (a record,
    /// or null to delete it; undefined to leave it).
    pub(crate) fn apply(&self, change: &JsValue, i: usize, raw: JsValue) -> JsValue {
        let number = change.number("n").unwrap_or_default() as u32;
        let Some(event) = self.pending(number, |p| p.events.get(i).map(|(_, e)| e.clone())) else {
            return JsValue::UNDEFINED;
        };
        let held = if raw.is_object() { record::read(&raw) } else { table::Held::None };
        let step = self.context(|cx| table::apply(held, event, cx));
        let out = match &step {
            Step::Put(entry) => record::write::<Object>(entry).into(),
            Step::Delete => JsValue::NULL,
            _ => JsValue::UNDEFINED,
        };
        self.pending(number, |p| p.steps.get_mut(i).map(|slot| *slot = Some((step, raw))));
        out
    }

    fn pending<T>(&self, number: u32, f: impl FnOnce(&mut Pending) -> Option<T>) -> Option<T> {
        self.state.borrow_mut().pending.iter_mut().find(|p| p.number == number).and_then(f)
    }

    /// `change` was written, each record but those whose `failures` hold one: what changed is
    /// taken, told to the app and hinted to the other tabs; then what the change was for.
    pub(crate) fn written(
        self: &Rc<Self>,
        change: &JsValue,
        failures: Vec<JsValue>,
    ) -> Result<JsValue, Error> {
        let number = change.number("n").unwrap_or_default() as u32;
        let mut state = self.state.borrow_mut();
        let Some(at) = state.pending.iter().position(|p| p.number == number) else {
            return Ok(JsValue::UNDEFINED);
        };
        let Pending { purpose, events, steps, .. } = state.pending.remove(at);
        drop(state);
        let hinted = Array::new();
        let mut outcomes = Vec::new();
        for (i, ((key, event), step)) in events.into_iter().zip(steps).enumerate() {
            let failed = failures.get(i).filter(|f| !f.is_undefined() && !f.is_null());
            let outcome = match (step, failed) {
                (Some((step, raw)), None) => {
                    let key = match &step {
                        Step::Put(entry) | Step::Keep(entry) => entry.key.clone(),
                        _ => key.clone(),
                    };
                    if matches!(step, Step::Put(_) | Step::Delete | Step::Aside(_)) {
                        hinted.push(&key.as_str().into());
                    }
                    self.take(&key, &step, raw);
                    Ok(step)
                }
                // Not applied: the transaction failed before it read the record.
                (_, failed) => Err(failed.or(failures.first()).cloned().unwrap_or_default()),
            };
            outcomes.push((key, event, outcome));
        }
        if let Some(shell) = self.shell().filter(|_| hinted.length() > 0) {
            shell.post(&hint("keys", hinted.into()));
        }
        if let For::Sender(_) = purpose {
            return Ok(self.sent(outcomes.into_iter()));
        }
        let first = outcomes.into_iter().next().map(|(.., outcome)| outcome);
        let told = match (purpose, first) {
            (For::Add, Some(Ok(Step::Put(entry)))) => {
                self.on(Input::Added(entry.key.clone()));
                entry
            }
            (For::Add, Some(Ok(Step::Keep(entry)))) => entry,
            (For::Add, Some(Ok(Step::Refused(why)))) => return Err(Error::config(why)),
            (For::Act(operation), Some(Ok(Step::Refused(why)))) => {
                let message = ["outbox.", operation, ": not now, ", &why];
                return Err(Error::config(message.concat()));
            }
            (For::Add, Some(Err(cause))) => return Err(self.failed("store the entry", cause)),
            (For::Act(operation), Some(Err(cause))) => return Err(self.failed(operation, cause)),
            (For::Act(operation), _) => {
                if operation == "retry" {
                    self.on(Input::Ask { force: false });
                }
                return Ok(JsValue::UNDEFINED);
            }
            _ => return Ok(JsValue::UNDEFINED),
        };
        match self.js {
            true => Ok(self.view_of(&told)),
            false => {
                self.state.borrow_mut().added = Some(told);
                Ok(JsValue::UNDEFINED)
            }
        }
    }

    /// A sender's change written: an answer the store could not record stays sending (a frozen
    /// page keeps it to write on return), and an entry now taken by this tab is sent: the promise
    /// of its answer's number.
    fn sent(
        self: &Rc<Self>,
        outcomes: impl Iterator<Item = (String, Event, Result<Step, JsValue>)>,
    ) -> JsValue {
        let mut call = JsValue::UNDEFINED;
        for (key, event, outcome) in outcomes {
            match (event, outcome) {
                (event @ Event::Settled { .. }, Err(cause)) => {
                    let mut state = self.state.borrow_mut();
                    if state.suspended {
                        state.left.push((key, event));
                        continue;
                    }
                    drop(state);
                    let what = [
                        "plant-store-client/outbox: its store could not record the \
                        answer to entry ",
                        &key,
                        ": it stays sending, and is sent again with the \
                        same Idempotency-Key (",
                        &said(&cause),
                        ")",
                    ];
                    console_warn(&what.concat());
                    self.on(Input::Ask { force: false });
                }
                (Event::Take { .. }, Ok(Step::Put(entry)))
                    if entry.sender.as_ref() == Some(&self.state.borrow().id) =>
                {
                    call = self.send(key, entry).into();
                }
                _ => {}
            }
        }
        call
    }

    /// Sends `entry` (taken at its revision) with its key: the promise of its answer's number,
    /// which the sender's next change writes.
    fn send(self: &Rc<Self>, key: String, entry: Entry) -> Promise {
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

    /// The change that adds `plant` (its id a BigInt when `bigint`), or why not.
    pub(crate) fn add(&self, plant: NewPlant, bigint: bool) -> Result<Object, Error> {
        self.usable("add")?;
        let IdempotencyKey::Given(key) = IdempotencyKey::random()? else {
            return Err(Error::config("the outbox could not draw a key"));
        };
        let added_at = {
            let mut state = self.state.borrow_mut();
            state.last_added = Date::now().max(state.last_added + 1.0);
            state.last_added
        };
        let id = decimal(plant.id);
        let event = Event::Add(Entry::new(key, plant, bigint, added_at));
        Ok(self.change(For::Add, Vec::from([(id, event)]), true))
    }

    /// The change of the app's `retry`, `markCreated` or `remove` of `key`.
    pub(crate) fn act(&self, key: &str, operation: &'static str) -> Result<Object, Error> {
        self.usable(operation)?;
        let event = match operation {
            "retry" => match IdempotencyKey::random()? {
                IdempotencyKey::Given(fresh) => Event::Retry { key: fresh },
                _ => Event::Retry { key: key.into() },
            },
            "markCreated" => Event::Resolve,
            _ => Event::Remove,
        };
        Ok(self.change(For::Act(operation), Vec::from([(key.into(), event)]), false))
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
            ", so every tab of the outbox sends: \
                        an entry being sent when its tab closes is sent again once its call has \
                        surely ended, with the same Idempotency-Key",
        ];
        console_warn(&message.concat());
    }

    /// This tab takes a new id, and holds its own lock while it lives.
    pub(crate) fn live_again(&self) {
        let id = crate::config::uuid("the outbox").unwrap_or_default();
        let name = self.lock_name(&["/tab/", &id].concat());
        self.state.borrow_mut().id = id;
        if let Some(shell) = self.shell().filter(|_| self.state.borrow().tab.locks()) {
            shell.live(Some(&name));
        }
    }

    pub(crate) fn lock_name(&self, more: &str) -> String {
        ["plant-store-outbox:", &self.name, more].concat()
    }
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = warn)]
    fn console_warn(message: &str);
}
