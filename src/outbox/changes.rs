//! A change of an outbox's store, from the records it names to what it gives ([`Rules::change`],
//! [`Rules::apply`], [`Rules::written`]): Rust names the records and their events, the shell reads
//! each in one transaction of the store and writes what the table makes of it, then Rust takes
//! what changed and says what comes next: a send (a sender's next change writes its answer with
//! the take of the next entry), an add's entry, an operation's refusal.

use super::entry::{Entry, Sent};
use super::held::{For, Pending};
use super::record::{self, Fields};
use super::rules::{console_warn, Rules};
use super::shell::{hint, said, set};
use super::tab_io::{Input, Take};
use super::table::{self, Event, Step};
use crate::error::decimal;
use crate::{CallOptions, Error, IdempotencyKey};
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::Cell;
use js_sys::{Array, Date, Object, Promise};
use plant_store_model::NewPlant;
use wasm_bindgen::prelude::*;

impl Rules {
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
                    self.on(Input::Ask);
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
                    self.on(Input::Ask);
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
}
