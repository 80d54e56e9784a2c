//! The driver of one open outbox ([`Driver`]): it tells its tab's machine (`tab.rs`) one input at a
//! time and performs what the machine asks (`seam.rs`), never re-entering it: an input that comes
//! while it works (from an app's listener, or a shell that answers at once) waits in its queue. It
//! does itself what is Rust's: a call through the client, the answer of an app's promise, its views.

use super::config::Settings;
use super::entry::{Entry, Kept, Sent};
use super::record::{self, set, Fields};
use super::tab::{Answer, Input, Tab};
use crate::error::Draft;
use crate::redact::theirs;
use crate::{CallOptions, Error, IdempotencyKey};
use alloc::collections::VecDeque;
use alloc::rc::{Rc, Weak};
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::{Cell, RefCell};
use js_sys::{Array, Date, Function, Object, Promise};
use wasm_bindgen::prelude::*;
use web_sys::AbortController;

/// One open outbox, in Rust.
pub(crate) struct Driver {
    pub(crate) settings: Settings,
    pub(crate) tab: RefCell<Tab<JsValue>>,
    inputs: RefCell<VecDeque<Input<JsValue>>>,
    working: Cell<bool>,
    /// The JS shell, until the store is shut.
    pub(crate) shell: RefCell<Option<Shell>>,
    /// The app's calls waiting: reply number, resolve, reject.
    replies: RefCell<Vec<(u32, Function, Function)>>,
    /// Aborts the calls out (a new one after each abort); what each call told, by number, until
    /// the promise of its number resolves.
    calls: RefCell<AbortController>,
    answers: RefCell<Vec<(u32, Sent, bool)>>,
    answered: Closure<dyn FnMut(JsValue)>,
    /// `entries()`'s frozen array, and the version of what the tab held when it was made.
    list: RefCell<(u64, JsValue)>,
    pub(crate) online: Cell<bool>,
    pub(crate) last_added: Cell<f64>,
}

impl Driver {
    pub(crate) fn new(settings: Settings, tab: Tab<JsValue>) -> Rc<Driver> {
        let online = Cell::new(tab.online);
        Rc::new_cyclic(|me: &Weak<Driver>| {
            let me = me.clone();
            let answered = Closure::new(move |n: JsValue| {
                let Some(driver) = me.upgrade() else { return };
                let n = n.as_f64().unwrap_or_default() as u32;
                let mut answers = driver.answers.borrow_mut();
                let Some(at) = answers.iter().position(|(m, ..)| *m == n) else { return };
                let (_, sent, left) = answers.remove(at);
                drop(answers);
                driver.tell(Input::Answered { n, sent, left });
            });
            let (inputs, working, shell, replies, answers, last_added) = Default::default();
            let calls = RefCell::new(controller());
            let list = RefCell::new((u64::MAX, JsValue::UNDEFINED));
            let tab = RefCell::new(tab);
            Driver {
                settings,
                tab,
                inputs,
                working,
                shell,
                replies,
                calls,
                answers,
                answered,
                list,
                online,
                last_added,
            }
        })
    }

    /// Tells the tab `input`, and does what it asks, then what any input queued meanwhile asks.
    pub(crate) fn tell(self: &Rc<Self>, input: Input<JsValue>) {
        self.inputs.borrow_mut().push_back(input);
        if self.working.replace(true) {
            return;
        }
        loop {
            // Neither the queue nor the tab is borrowed while an action runs: the app's listeners
            // may call the outbox then.
            let Some(input) = self.inputs.borrow_mut().pop_front() else { break };
            let actions = self.tab.borrow_mut().handle(input, Date::now());
            actions.into_iter().for_each(|action| self.perform(action));
        }
        self.working.set(false);
    }

    /// Tells the tab `input`; an app's call gets its reply number here, and the promise of its
    /// answer back (else undefined).
    pub(crate) fn input(self: &Rc<Self>, mut input: Input<JsValue>) -> JsValue {
        let mut promise = JsValue::UNDEFINED;
        if let Input::Open { reply, .. }
        | Input::Add { reply, .. }
        | Input::Get { reply, .. }
        | Input::Act { reply, .. }
        | Input::Flush { reply } = &mut input
        {
            let mut replies = self.replies.borrow_mut();
            let n = replies.last().map_or(1, |(n, ..)| n + 1);
            *reply = n;
            promise =
                Promise::new(&mut |resolve, reject| replies.push((n, resolve, reject))).into();
        }
        self.tell(input);
        promise
    }

    /// Sends `entry` with its key: its answer is told as the end of call `n`.
    pub(crate) fn send(self: &Rc<Self>, n: u32, entry: Entry) {
        let signal = self.calls.borrow().signal();
        let requests = Rc::new(Cell::new(0));
        let counted = requests.clone();
        let options = CallOptions::new()
            .idempotency_key(IdempotencyKey::Given(entry.idempotency_key().into()))
            .signal(signal.clone())
            .after_attempt(move |attempt| {
                counted.set(attempt.number);
                Ok(())
            });
        let me = Rc::downgrade(self);
        let end = move |outcome| {
            let sent = Sent::of(outcome, requests.get());
            if let Some(driver) = me.upgrade() {
                driver.answers.borrow_mut().push((n, sent, signal.aborted()));
            }
            Ok(n.into())
        };
        match self.settings.client.start(&entry.plant, &options) {
            Ok(call) => drop(crate::shell::run(call, end).then(&self.answered)),
            Err(error) => {
                self.tell(Input::Answered { n, sent: Sent::of(Err(error), 0), left: false })
            }
        }
    }

    pub(crate) fn abort(&self) {
        self.calls.replace(controller()).abort();
    }

    pub(crate) fn reply(&self, reply: u32, answer: Answer<JsValue>) {
        let mut replies = self.replies.borrow_mut();
        let Some(at) = replies.iter().position(|(n, ..)| *n == reply) else { return };
        let (_, resolve, reject) = replies.remove(at);
        drop(replies);
        let value = match answer {
            Answer::Done => Ok(JsValue::UNDEFINED),
            Answer::Flushed(waiting) => Ok((waiting as u32).into()),
            Answer::Entry(entry) => Ok(entry.map_or(JsValue::UNDEFINED, |entry| self.view(&entry))),
            Answer::Refused(message) => Err(Draft::config(message)),
            Answer::Failed { what: "open", failure } => Err(opening(failure.cause)),
            Answer::Failed { what, failure } => {
                let draft = Draft::config(
                    ["the outbox could not ", what, ": ", &theirs(&failure.said)].concat(),
                );
                Err(failure.cause.into_iter().fold(draft, Draft::with_cause))
            }
        };
        let _ = match value {
            Ok(value) => resolve.call1(&JsValue::UNDEFINED, &value),
            Err(draft) => reject.call1(&JsValue::UNDEFINED, &self.redact(draft).to_js()),
        };
    }

    /// `draft` as an error of this outbox's client: redacted against its fixed token.
    pub(crate) fn redact(&self, draft: Draft) -> Error {
        self.settings.client.redact(draft)
    }

    /// What a `change` event tells of `key`: the entry's view, `{ key, removed: true }`, or nothing
    /// for a record set aside.
    pub(crate) fn changed(&self, key: &str) -> JsValue {
        let mut tab = self.tab.borrow_mut();
        if let Some(kept) = tab.held.entries.iter_mut().find(|kept| kept.entry.key == key) {
            return shown(kept);
        }
        if tab.held.aside.iter().any(|(aside, ..)| aside == key) {
            return JsValue::UNDEFINED;
        }
        let gone = Object::new();
        set(&gone, "key", key);
        set(&gone, "removed", true);
        gone.into()
    }

    /// The view of `entry`: the one held beside it when it is held at its revision or a later one
    /// (an add answered once its entry was sent already), made once.
    pub(crate) fn view(&self, entry: &Entry) -> JsValue {
        let mut tab = self.tab.borrow_mut();
        let held = &mut tab.held;
        let kept = held.position(entry).ok().map(|at| &mut held.entries[at]);
        match kept.filter(|kept| kept.entry.revision >= entry.revision) {
            Some(kept) => shown(kept),
            None => frozen(record::view::<Object>(entry)),
        }
    }

    /// `entries()`: a frozen array of the views, the same until what the tab holds changes.
    pub(crate) fn entries(&self) -> JsValue {
        let (mut tab, mut list) = (self.tab.borrow_mut(), self.list.borrow_mut());
        if list.0 != tab.held.version {
            let version = tab.held.version;
            let views = tab.held.entries.iter_mut().map(shown);
            *list = (version, Object::freeze(&views.collect::<Array>()).into());
        }
        list.1.clone()
    }
}

/// The view of `kept`, made once.
fn shown(kept: &mut Kept<JsValue>) -> JsValue {
    kept.view.get_or_insert_with(|| frozen(record::view::<Object>(&kept.entry))).clone()
}

/// A view the app cannot change, as its objects are shared (`add`, `get`, `entries()`, events).
/// `Object.freeze` of what is not an object (an entry's missing `error`) returns it unchanged.
fn frozen(view: Object) -> JsValue {
    for name in ["plant", "error", "created"] {
        Object::freeze(record::field(&view, name).unchecked_ref::<Object>());
    }
    Object::freeze(&view).into()
}

/// The error of a store that could not be opened, in words that name the cause and the fix.
fn opening(cause: Option<JsValue>) -> Draft {
    let Some(cause) = cause else {
        let message = "this runtime has no IndexedDB: pass options.platform with an indexedDB (in \
                       Node and tests, fake-indexeddb's)";
        return Draft::config(message);
    };
    let message = match cause.text("name").as_deref() {
        Some("VersionError") => "the outbox's database was made by a newer release of this app: \
                                 reload the page to run that release"
            .into(),
        _ => {
            let fix = "; where it is not allowed (a sandboxed frame, blocked storage), pass \
                       options.platform with an indexedDB of your own";
            ["IndexedDB refused to open: ", &theirs(&said(&cause)), fix].concat()
        }
    };
    Draft::config(message).with_cause(cause)
}

fn controller() -> AbortController {
    // Creating an AbortController does not fail where fetch exists.
    AbortController::new().unwrap_or_else(|_| JsValue::UNDEFINED.unchecked_into())
}

#[wasm_bindgen]
extern "C" {
    /// The outbox's JS shell (`js/outbox/shell.js`): it performs one action at a time.
    #[derive(Clone)]
    pub(crate) type Shell;
    #[wasm_bindgen(method)]
    pub(crate) fn perform(this: &Shell, kind: &str, n: u32, a: &JsValue, b: &JsValue);

    #[wasm_bindgen(js_namespace = console, js_name = warn)]
    pub(crate) fn console_warn(message: &str);
}

/// What a failure says, on one line: its name and message.
pub(crate) fn said(cause: &JsValue) -> String {
    let text = match (cause.text("name"), cause.text("message")) {
        (Some(name), Some(message)) if !name.is_empty() => [name.as_str(), ": ", &message].concat(),
        (_, Some(message)) => message,
        _ => cause.as_string().unwrap_or_else(|| "an unknown failure".into()),
    };
    let line: String = text.chars().map(|c| if c == '\n' || c == '\r' { ' ' } else { c }).collect();
    line.trim_end_matches('.').into()
}
