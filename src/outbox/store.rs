//! What a tab asks of its store, and what comes of it: a read (the tab's load, the app's `get`,
//! another tab's changes), a write (the table's step over each record it read, in one transaction,
//! and what it was for), an add written at once, the purge; and what the tab makes of a failure.

use super::entry::{Entry, Record, State};
use super::tab::{Action, Answer, Failure, Input, Op, Page, Tab, Why, YIELD_MS};
use super::table::{apply, Context, Event, Step};
use crate::error::decimal;
use alloc::string::String;
use alloc::vec::Vec;

impl<V: Clone> Tab<V> {
    /// Keeps `op` under the next number.
    pub(crate) fn op(&mut self, op: Op) -> u32 {
        self.n += 1;
        self.ops.push((self.n, op));
        self.n
    }

    /// The action of number `n`, over.
    pub(crate) fn done(&mut self, n: u32) -> Option<Op> {
        let at = self.ops.iter().position(|(m, _)| *m == n)?;
        Some(self.ops.remove(at).1)
    }

    /// 53 random bits, as xorshift64* draws them from the tab's seed: the backoffs' jitter, its ids.
    fn draw(&mut self) -> u64 {
        self.seed ^= self.seed >> 12;
        self.seed ^= self.seed << 25;
        self.seed ^= self.seed >> 27;
        self.seed.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11
    }

    /// A new id for this tab, as it opens or comes back (53 random bits, in decimal).
    pub(crate) fn new_id(&mut self) -> String {
        decimal(self.draw() as i64)
    }

    /// What the table reads of the world now. A tab names itself the sender of what it takes only
    /// while its own lock shows it alive and its rounds hold the lock of rounds: a tab whose round
    /// took an entry without it could be missing from the tabs alive that a round with it read.
    pub(crate) fn context(&mut self) -> Context<'_> {
        let random = self.draw() as f64 / (1u64 << 53) as f64;
        let tab = (self.own_lock && self.locks).then_some(self.id.as_str());
        Context { now: self.now, random, rules: &self.rules, tab, live: &self.live }
    }

    /// What the store said of an action this tab asked for.
    pub(crate) fn store(&mut self, input: Input<V>) {
        let (Input::Opened { n, .. }
        | Input::Read { n, .. }
        | Input::Written { n, .. }
        | Input::Fed { n, .. }
        | Input::Purged { n, .. }
        | Input::Failed { n, .. }
        | Input::Synced { n }) = input
        else {
            return;
        };
        let Some(op) = self.done(n) else { return };
        match (op, input) {
            (Op::Open { reply }, Input::Opened { hidden, .. }) => {
                let Page::Opening = self.page else { return };
                self.page = if hidden { Page::Hidden(self.now + YIELD_MS) } else { Page::Shown };
                self.out.push(Action::Lock { tab: true });
                self.read(Some(reply), None);
            }
            (Op::Read { reply, keys: None }, Input::Read { records, .. }) => {
                self.held.loads += 1;
                let mut unseen: Vec<String> =
                    self.held.aside.iter().map(|(key, ..)| key.clone()).collect();
                for record in records.into_iter().flatten() {
                    unseen.retain(|key| key != record.key());
                    self.told(&String::from(record.key()), Some(record));
                }
                let loads = self.held.loads;
                let old = self.held.entries.iter().filter(|kept| kept.load != loads);
                unseen.extend(old.map(|kept| kept.entry.key.clone()));
                if !unseen.is_empty() {
                    self.read(None, Some(unseen));
                }
                if let Some(reply) = reply {
                    self.reply(reply, Answer::Done);
                }
                self.ask(Default::default());
            }
            (Op::Read { reply: Some(reply), .. }, Input::Read { mut records, .. }) => {
                let entry = match records.pop().flatten() {
                    Some(Record::Entry(entry)) => Some(entry),
                    _ => None,
                };
                self.reply(reply, Answer::Entry(entry));
            }
            (Op::Read { keys: Some(keys), .. }, Input::Read { records, .. }) => {
                for (key, record) in keys.iter().zip(records) {
                    self.told(key, record);
                }
            }
            (Op::Write { why, events, mut steps }, Input::Read { records, .. }) => {
                for ((_, event), record) in events.iter().zip(records) {
                    steps.push(apply(record, event.clone(), &self.context()));
                }
                self.out.push(Action::Apply { n, steps: steps.clone() });
                self.ops.push((n, Op::Write { why, events, steps }));
            }
            (Op::Write { why, events, steps }, Input::Written { failures, .. }) => {
                self.written(n, why, events, steps, failures)
            }
            (Op::Added { reply, entry }, Input::Synced { .. }) => {
                self.reply(reply, Answer::Entry(Some(entry)))
            }
            (Op::Feed, Input::Fed { keys, live, .. }) => self.fed(keys, live),
            (Op::Purge, Input::Purged { keys, next, .. }) => {
                self.held.expiry = next;
                for key in &keys {
                    self.told(key, None);
                }
                if !keys.is_empty() {
                    self.out.push(Action::Post { keys, released: false });
                }
                self.purged();
            }
            (op, Input::Failed { failure, .. }) => self.failed(n, op, failure),
            _ => {}
        }
    }

    /// What an action that failed was for.
    fn failed(&mut self, n: u32, op: Op, failure: Failure<V>) {
        // What a tab that let go aborted is no failure to warn of.
        let quiet = !matches!(self.page, Page::Shown | Page::Hidden(_));
        let warn = |what: &str| {
            let message =
                ["plant-store-client/outbox: it could not ", what, " (", &failure.said, ")"];
            (!quiet).then(|| Action::Warn(message.concat()))
        };
        match op {
            Op::Open { reply } => {
                self.reply(reply, Answer::Failed { what: "open", failure });
                self.page = Page::Closed;
            }
            Op::Read { reply: Some(reply), keys } => {
                self.reply(reply, Answer::Failed { what: "read its store", failure });
                if keys.is_none() {
                    self.close(None);
                }
            }
            Op::Write { why, events, steps } => {
                let failures = events.iter().map(|_| Some(failure.clone())).collect();
                self.written(n, why, events, steps, failures);
            }
            Op::Read { reply: None, keys } => {
                self.out.extend(warn("read its store"));
                if keys.is_none() {
                    self.ask(Default::default());
                }
            }
            Op::Feed => {
                self.out.extend(warn("read the entries due"));
                self.fed(Vec::new(), None);
            }
            Op::Purge => {
                self.out.extend(warn("remove the created entries past their retention"));
                self.purged();
            }
            Op::Call { .. } | Op::Added { .. } => {}
        }
    }

    /// Write `n` is over: what it changed is held and told, the other tabs hinted; then what it was
    /// for: the answer of an app's call (an add's once the page's worker was asked to deliver it),
    /// the sender's call or next take.
    fn written(
        &mut self,
        n: u32,
        why: Why,
        events: Vec<(String, Event)>,
        steps: Vec<Step>,
        failures: Vec<Option<Failure<V>>>,
    ) {
        let held = |f: &Option<Failure<V>>| {
            f.as_ref().is_some_and(|f| f.said.starts_with("ConstraintError"))
        };
        if let (Why::Insert(reply, _), Some(true)) = (why, failures.first().map(held)) {
            // The store holds the key or the plant's id: the add is applied to what it holds.
            let keys = events.iter().map(|(id, _)| id.clone()).collect();
            let n = self.op(Op::Write { why: Why::Add(reply), events, steps: Vec::new() });
            return self.out.push(Action::Write { n, keys, by_id: true });
        }
        let (mut hinted, mut taken, mut outcome) = (Vec::new(), None, None);
        let (mut steps, mut failures) = (steps.into_iter(), failures.into_iter());
        for (key, event) in events {
            let step = match (steps.next(), failures.next().flatten()) {
                (Some(step), None) => step,
                (_, failure) => {
                    let said = "no record was read".into();
                    let failure = failure.unwrap_or(Failure { said, cause: None });
                    if let Event::Settled { .. } = event {
                        self.unrecorded(key, event, &failure);
                    }
                    outcome = Some(Err(failure));
                    continue;
                }
            };
            match &step {
                Step::Put(entry) | Step::Keep(entry) => {
                    if matches!(event, Event::Take { .. }) && entry.state == State::Sending {
                        taken = Some(entry.clone());
                    }
                    if self.told(&entry.key, Some(Record::Entry(entry.clone()))) {
                        hinted.push(entry.key.clone());
                    }
                }
                // Told the other tabs even when this one held no record of it.
                Step::Delete => {
                    self.told(&key, None);
                    hinted.push(key);
                }
                _ => {}
            }
            outcome = Some(Ok(step));
        }
        if !hinted.is_empty() {
            self.out.push(Action::Post { keys: hinted, released: false });
        }
        let answer = match (why, outcome) {
            (Why::Send, _) => return self.sent(taken),
            (Why::Left, _) | (_, None) => return,
            (Why::Act(_, name), Some(Ok(Step::Refused(refusal)))) => {
                Answer::Refused(["outbox.", name, ": not now, ", &refusal].concat())
            }
            (Why::Act(_, name), Some(Err(failure))) => Answer::Failed { what: name, failure },
            (Why::Act(_, name), _) => {
                if name == "retry" {
                    self.ask(Default::default());
                }
                Answer::Done
            }
            (Why::Insert(reply, true), Some(Ok(Step::Put(entry)))) => {
                self.added(entry.key.clone());
                return self.ops.push((n, Op::Added { reply, entry }));
            }
            (_, Some(Ok(Step::Put(entry)))) => {
                self.added(entry.key.clone());
                Answer::Entry(Some(entry))
            }
            (_, Some(Ok(Step::Keep(entry)))) => Answer::Entry(Some(entry)),
            (_, Some(Ok(Step::Refused(refusal)))) => Answer::Refused(refusal),
            (_, Some(Ok(Step::Delete))) => return,
            (_, Some(Err(failure))) => Answer::Failed { what: "store the entry", failure },
        };
        if let Why::Insert(reply, _) | Why::Add(reply) | Why::Act(reply, _) = why {
            self.reply(reply, answer);
        }
    }

    /// Holds what the store holds under `key` now, and tells the app when it changed.
    fn told(&mut self, key: &str, record: Option<Record<V>>) -> bool {
        let changed = self.held.hold(key, record);
        if changed {
            self.out.push(Action::Changed { key: key.into() });
        }
        changed
    }

    /// Stores a new entry at once, in a transaction of its own.
    pub(crate) fn add(&mut self, reply: u32, entry: Entry) {
        let events = Vec::from([(decimal(entry.plant.id), Event::Add(entry.clone()))]);
        let steps = Vec::from([Step::Put(entry.clone())]);
        let sync = self.syncs();
        let n = self.op(Op::Write { why: Why::Insert(reply, sync), events, steps });
        self.out.push(Action::Insert { n, entry, sync });
    }

    /// Writes `events` to the records of their keys, in one transaction.
    pub(crate) fn write(&mut self, why: Why, events: Vec<(String, Event)>) {
        let keys = events.iter().map(|(key, _)| key.clone()).collect();
        let n = self.op(Op::Write { why, events, steps: Vec::new() });
        self.out.push(Action::Write { n, keys, by_id: false });
    }

    /// Reads the records of `keys` (none: what the tab holds, on open and when the page is back),
    /// for the app's `get` (`reply`), else to hold them.
    pub(crate) fn read(&mut self, reply: Option<u32>, keys: Option<Vec<String>>) {
        let n = self.op(Op::Read { reply, keys: keys.clone() });
        self.out.push(Action::Read { n, keys });
    }
}
