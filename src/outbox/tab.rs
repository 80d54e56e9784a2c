//! One tab of an outbox as a machine ([`Tab`]): [`Tab::handle`] takes what happened ([`Input`]) at a
//! time and gives what its driver does next ([`Action`]). It reads no clock and touches no store,
//! so `cargo test` runs it natively: docs/outbox.md's table of the tab, and the seeded simulation
//! of several tabs (`sim.rs`). What a record becomes is the table's (`table.rs`); a round,
//! `round.rs`; the store's answers, `store.rs`, over what the tab holds of it (`entry.rs`).
//!
//! `V` is a value of the platform the machine passes on unread: a record it cannot read, the cause
//! of a failure. `n` numbers an action the tab asked for, `reply` an app's call.

use super::config::Rules;
use super::entry::{Entry, Held, Record, Sent};
use super::table::{Event, Step};
use alloc::string::String;
use alloc::vec::Vec;

/// What happened to a tab.
#[derive(Debug)]
pub(crate) enum Input<V> {
    // The app's: open, its calls, pause() and resume(), close().
    Open { reply: u32 },
    Add { reply: u32, entry: Entry },
    Get { reply: u32, key: String },
    Act { reply: u32, key: String, event: Event, name: &'static str },
    Flush { reply: u32 },
    Paused(bool),
    Close,
    // The store's: opened (and the page hidden then, or not); the records read (none: no
    // record); a write's failures, by record; the keys due and the tabs alive; the created
    // records expired and deleted, and the next expiry.
    Opened { n: u32, hidden: bool },
    Read { n: u32, records: Vec<Option<Record<V>>> },
    Written { n: u32, failures: Vec<Option<Failure<V>>> },
    Fed { n: u32, keys: Vec<String>, live: Option<Vec<String>> },
    Purged { n: u32, keys: Vec<String>, next: Option<f64> },
    Failed { n: u32, failure: Failure<V> },
    // The page's service worker was asked to deliver what insert `n` added (or a second went by).
    Synced { n: u32 },
    // A Web Lock (`tab`: this tab's own, else the one of rounds) held, or refused.
    Granted { tab: bool },
    Refused { tab: bool, why: String },
    Timer,
    // An event of the page, the network or the store (`hidden`: the page's visibility now);
    // another tab's hint: these records changed, or it let go.
    Event { kind: String, persisted: bool, hidden: bool },
    Hint { keys: Vec<String>, released: bool },
    // Call `n` ended; `left` when this tab cut it short.
    Answered { n: u32, sent: Sent, left: bool },
}

/// What the driver does.
#[derive(Debug)]
pub(crate) enum Action<V> {
    // The store: open it; read the records of `keys` (none: each not created, and the newest
    // created); the keys due by `until` (with `locks`, the tabs alive); delete the created records
    // of this schema expired by `now`; abort its transactions but inserts; shut it.
    Open { n: u32 },
    Read { n: u32, keys: Option<Vec<String>> },
    Feed { n: u32, until: f64, locks: bool },
    Purge { n: u32, now: f64 },
    Abandon,
    Shut,
    // A write: read the records of `keys` (`by_id`: an add's, by plant id, durable before it
    // completes) in one transaction, tell them, put what the tab says (`Apply`), tell `Written`.
    Write { n: u32, keys: Vec<String>, by_id: bool },
    Apply { n: u32, steps: Vec<Step> },
    // Add a new record, committed as it is made (`sync`: and ask the page's service worker to
    // deliver it, as below).
    Insert { n: u32, entry: Entry, sync: bool },
    // A Web Lock (`tab`: this tab's own, while it lives and hears the hints; else the one of
    // rounds) asked, given back.
    Lock { tab: bool },
    Release { tab: bool },
    // Tell the other tabs: these records changed, or this tab let go of the lock. Ask the page's
    // service worker to deliver (Background Sync), where one does.
    Post { keys: Vec<String>, released: bool },
    Sync,
    Arm { at: Option<f64> },
    // Send `entry` with its key (`Answered` tells the end of call `n`); abort every call.
    Call { n: u32, entry: Entry },
    Abort,
    // Tell the app: the record of `key` changed, the outbox closed on its own, a warning, the
    // answer of its call.
    Changed { key: String },
    Closed { why: &'static str },
    Warn(String),
    Reply { reply: u32, answer: Answer<V> },
}

/// What an app's call resolves to, or why it fails (a `config` error): done, an entry, a flush done
/// with so many entries still waiting; or refused, or the outbox could not do `what` (the
/// platform's `failure`).
#[derive(Debug)]
#[allow(clippy::large_enum_variant)] // one lives at a time
pub(crate) enum Answer<V> {
    Done,
    Entry(Option<Entry>),
    Flushed(usize),
    Refused(String),
    Failed { what: &'static str, failure: Failure<V> },
}

/// A failure of the platform: what it said on one line, and what it failed with.
#[derive(Clone, Debug)]
pub(crate) struct Failure<V> {
    pub(crate) said: String,
    pub(crate) cause: Option<V>,
}

/// Where the page stands: its store opening; hidden, it leaves the sending to the visible tabs
/// until `.0`; `Shut`: closed, its store shut.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) enum Page {
    Opening,
    #[default]
    Shown,
    Hidden(f64),
    Frozen,
    Gone,
    Closed,
    Shut,
}

/// What a round is asked for: to take every entry waiting (`force`), for these `flush()` calls.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Plan {
    pub(crate) force: bool,
    pub(crate) flushes: Vec<u32>,
}

impl Plan {
    /// Takes `plan` in: a round asked for while this one asks, sends or waits.
    pub(crate) fn join(&mut self, plan: Plan) {
        self.force |= plan.force;
        self.flushes.extend(plan.flushes);
    }
}

/// Where a tab's round stands.
#[derive(Debug, Default)]
pub(crate) enum Round {
    #[default]
    Idle,
    /// The Web Lock is asked for.
    Asking(Plan),
    /// The lock held (or none needed): the keys fed, each taken once in the order it came
    /// (`keys[next..]` wait); `feeding`: the keys due are being read (`Some(true)`: read them
    /// again after, for a burst of asks).
    Sending { plan: Plan, keys: Vec<String>, next: usize, feeding: Option<bool> },
    /// It takes nothing more; its senders finish their calls and write their answers.
    Ending(Plan),
    /// The retention's purge, the lock still held.
    Purging(Plan),
}

/// What an action under way is for.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)] // a few live at a time
pub(crate) enum Op {
    Open { reply: u32 },
    Read { reply: Option<u32>, keys: Option<Vec<String>> },
    // A write: why, its events by key (an add's, by plant id), what the table made of each.
    Write { why: Why, events: Vec<(String, Event)>, steps: Vec<Step> },
    Call { key: String, taken: u32 },
    Feed,
    Purge,
    // An add's entry, held and answered once its insert's `Synced` comes.
    Added { reply: u32, entry: Entry },
}

/// What a write is for: an add (inserted at once, or applied to the record of its plant's id the
/// store holds), an app's call, a sender's (its last answer and its next take), the answers a
/// frozen page could not write.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Why {
    Insert(u32, bool),
    Add(u32),
    Act(u32, &'static str),
    Send,
    Left,
}

/// How long a page that hid leaves the sending to the visible tabs.
pub(crate) const YIELD_MS: f64 = 1_000.0;
/// The least wait for an entry due already: a round left it, or another tab is sending it.
pub(crate) const AGAIN_MS: f64 = 1_000.0;

/// One tab.
#[derive(Debug, Default)]
pub(crate) struct Tab<V> {
    pub(crate) rules: Rules,
    pub(crate) page: Page,
    pub(crate) paused: bool,
    pub(crate) online: bool,
    /// Rounds hold the Web Lock: the API is there, and no request for it failed.
    pub(crate) locks: bool,
    /// This tab's id (a new one each time it opens or comes back); whether its own Web Lock is
    /// held (the other tabs see it alive); the other tabs alive, as the last feed read them.
    pub(crate) id: String,
    pub(crate) own_lock: bool,
    pub(crate) live: Vec<String>,
    pub(crate) round: Round,
    /// A round asked for while one ends or purges: it begins once that one is over.
    pub(crate) wanted: Option<Plan>,
    pub(crate) timer: Option<f64>,
    pub(crate) held: Held<V>,
    pub(crate) ops: Vec<(u32, Op)>,
    /// The answers a frozen page could not write: written once it is back.
    pub(crate) left: Vec<(String, Event)>,
    pub(crate) n: u32,
    pub(crate) now: f64,
    pub(crate) seed: u64,
    pub(crate) out: Vec<Action<V>>,
}

impl<V: Clone> Tab<V> {
    /// A tab, online or not, whose rounds hold the Web Lock when `locks`; `seed` draws the
    /// backoffs' jitter and the tab's ids. Whether its page is hidden is told once its store is
    /// open, as its events are heard from then on.
    pub(crate) fn new(rules: Rules, locks: bool, online: bool, seed: u64) -> Self
    where
        V: Default,
    {
        let page = Page::Opening;
        Tab { rules, page, online, locks, seed: seed | 1, ..Default::default() }
    }

    /// What to do after `input`, at `now`.
    pub(crate) fn handle(&mut self, input: Input<V>, now: f64) -> Vec<Action<V>> {
        self.now = now;
        match input {
            Input::Open { reply } => {
                self.id = self.new_id();
                let n = self.op(Op::Open { reply });
                self.out.push(Action::Open { n });
            }
            Input::Close => self.close(None),
            // A tab that cannot send (closed, too) answers a flush at once.
            Input::Flush { reply } => self.ask(Plan { force: true, flushes: Vec::from([reply]) }),
            input if matches!(self.page, Page::Closed | Page::Shut) => {
                self.closed(input);
                self.shut();
            }
            Input::Add { reply, entry } => self.add(reply, entry),
            Input::Get { reply, key } => self.read(Some(reply), Some(Vec::from([key]))),
            Input::Act { reply, key, event, name } => {
                self.write(Why::Act(reply, name), Vec::from([(key, event)]))
            }
            Input::Paused(true) => {
                self.paused = true;
                self.stop();
            }
            Input::Paused(false) => {
                self.paused = false;
                self.ask(Plan::default());
            }
            Input::Granted { tab: true } => self.own_lock = true,
            Input::Granted { tab: false } => self.granted(),
            Input::Refused { tab, why } => self.refused(tab, &why),
            Input::Timer => {
                self.timer = None;
                self.ask(Plan::default());
            }
            Input::Event { kind, persisted, hidden } => self.event(&kind, persisted, hidden),
            Input::Hint { keys, released } => {
                if !keys.is_empty() {
                    self.read(None, Some(keys));
                }
                if released {
                    self.ask(Plan::default());
                }
            }
            Input::Answered { n, sent, left } => self.answered(n, sent, left),
            input => self.store(input),
        }
        self.arm();
        core::mem::take(&mut self.out)
    }

    pub(crate) fn reply(&mut self, reply: u32, answer: Answer<V>) {
        self.out.push(Action::Reply { reply, answer });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outbox::entry::{EntryError, State};
    use crate::outbox::table::docs_table;
    use crate::Kind;
    use alloc::format;
    use alloc::string::ToString;
    use plant_store_model::{NewPlant, Plant};

    const RULES: Rules = Rules {
        concurrency: 4,
        send_ms: 11_000.0,
        retention_ms: 1e9,
        key_lifetime_ms: f64::INFINITY,
        worker: false,
    };

    /// A tab and a store of its own that answers at once, but for the actions held: what a test
    /// drives a tab through.
    struct Harness {
        tab: Tab<()>,
        store: Vec<Entry>,
        now: f64,
        /// The actions not answered while held (by their word: "lock", "write 1", "purge"), and
        /// those waiting; the calls out; the replies given.
        hold: Vec<&'static str>,
        waiting: Vec<Action<()>>,
        calls: Vec<(u32, Entry)>,
        replied: Vec<u32>,
        /// The actions of the last input, before the store answered any, in the table's words.
        said: Vec<String>,
    }

    impl Harness {
        /// An open tab, shown and online, whose store holds an entry due for each of `keys`.
        fn new(keys: &[&str], hold: &[&'static str]) -> Harness {
            Harness::with(RULES.clone(), keys, hold)
        }

        /// The same, of a tab with these rules.
        fn with(rules: Rules, keys: &[&str], hold: &[&'static str]) -> Harness {
            let store = keys.iter().enumerate().map(|(i, key)| entry(key, i as i64)).collect();
            let tab = Tab::new(rules, true, true, 7);
            let (hold, waiting, calls, replied, said) =
                (hold.to_vec(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
            let mut h = Harness { tab, store, now: 1_000.0, hold, waiting, calls, replied, said };
            h.tell(Input::Open { reply: 1 });
            h
        }

        /// Tells the tab `input`; the store answers what it asks, until nothing is left.
        fn tell(&mut self, input: Input<()>) -> &mut Self {
            let actions = self.tab.handle(input, self.now);
            self.said = actions.iter().map(word).filter(|w| !w.is_empty()).collect();
            self.run(actions);
            self
        }

        /// Answers the actions held as `word` from now on.
        fn go(&mut self, word: &str) -> &mut Self {
            self.hold.retain(|held| *held != word);
            let (now, later) =
                core::mem::take(&mut self.waiting).into_iter().partition(|a| self::word(a) == word);
            self.waiting = later;
            self.run(now);
            self
        }

        fn run(&mut self, mut queue: Vec<Action<()>>) {
            while !queue.is_empty() {
                let action = queue.remove(0);
                if self.hold.contains(&word(&action).as_str()) {
                    self.waiting.push(action);
                    continue;
                }
                let answer = match action {
                    Action::Open { n } => Input::Opened { n, hidden: false },
                    Action::Read { n, keys: None } => {
                        let records = self.store.iter().map(|e| Some(Record::Entry(e.clone())));
                        Input::Read { n, records: records.collect() }
                    }
                    Action::Read { n, keys: Some(keys) } => {
                        Input::Read { n, records: keys.iter().map(|k| self.record(k)).collect() }
                    }
                    Action::Feed { n, until, .. } => {
                        let due =
                            self.store.iter().filter(|e| e.due_at().is_some_and(|at| at <= until));
                        Input::Fed {
                            n,
                            keys: due.map(|e| e.key.clone()).collect(),
                            live: Some(Vec::new()),
                        }
                    }
                    Action::Purge { n, .. } => Input::Purged { n, keys: Vec::new(), next: None },
                    Action::Insert { n, entry, sync } => {
                        self.store.push(entry);
                        let written = Input::Written { n, failures: Vec::from([None]) };
                        queue.extend(self.tab.handle(written, self.now));
                        if !sync {
                            continue;
                        }
                        Input::Synced { n }
                    }
                    Action::Write { n, keys, .. } => {
                        let records = keys.iter().map(|k| self.record(k)).collect();
                        for action in self.tab.handle(Input::Read { n, records }, self.now) {
                            let Action::Apply { steps, .. } = action else {
                                queue.push(action);
                                continue;
                            };
                            for (step, key) in steps.into_iter().zip(&keys) {
                                if let Step::Put(entry) = step {
                                    self.store.retain(|e| e.key != *key);
                                    self.store.push(entry);
                                } else if let Step::Delete = step {
                                    self.store.retain(|e| e.key != *key);
                                }
                            }
                        }
                        Input::Written { n, failures: keys.iter().map(|_| None).collect() }
                    }
                    Action::Lock { tab } => Input::Granted { tab },
                    Action::Call { n, entry } => {
                        self.calls.push((n, entry));
                        continue;
                    }
                    Action::Reply { reply, .. } => {
                        self.replied.push(reply);
                        continue;
                    }
                    _ => continue,
                };
                queue.extend(self.tab.handle(answer, self.now));
            }
        }

        fn record(&self, key: &str) -> Option<Record<()>> {
            self.store.iter().find(|e| e.key == key).cloned().map(Record::Entry)
        }

        /// Answers the oldest call: the plant created.
        fn answer(&mut self) -> &mut Self {
            let (n, entry) = self.calls.remove(0);
            self.tell(Input::Answered { n, sent: created(&entry.plant.name), left: false })
        }

        fn event(&mut self, kind: &str, hidden: bool) -> &mut Self {
            self.tell(event(kind, hidden))
        }

        fn stored(&self, key: &str) -> &Entry {
            self.store.iter().find(|e| e.key == key).unwrap()
        }
    }

    fn entry(key: &str, i: i64) -> Entry {
        Entry::new(
            key.into(),
            NewPlant { id: 100 + i, name: key.into(), tag: None },
            false,
            i as f64,
        )
    }

    fn created(name: &str) -> Sent {
        let plant = Plant { name: name.into(), tag: None };
        Sent { outcome: Ok(plant), requests: 1, maybe_created: false, retry_after_ms: None }
    }

    fn event(kind: &str, hidden: bool) -> Input<()> {
        Input::Event { kind: kind.into(), persisted: false, hidden }
    }

    /// What the tab asks, in the words of docs/outbox.md's table of the tab.
    fn word(action: &Action<()>) -> String {
        match action {
            Action::Lock { tab: false } => "lock".into(),
            Action::Lock { tab: true } => "live".into(),
            Action::Release { tab: false } => "release".into(),
            Action::Release { tab: true } => "unlive".into(),
            Action::Post { released: true, .. } => "tell".into(),
            Action::Feed { until, .. } if *until > 1e15 => "feed all".into(),
            Action::Feed { .. } => "feed".into(),
            Action::Write { keys, .. } => format!("write {}", keys.len()),
            Action::Call { .. } => "call".into(),
            Action::Insert { sync: true, .. } => "insert, sync".into(),
            Action::Insert { .. } => "insert".into(),
            Action::Purge { .. } => "purge".into(),
            Action::Abort => "abort".into(),
            Action::Abandon => "abandon".into(),
            Action::Read { keys: None, .. } => "reload".into(),
            Action::Arm { at: Some(at) } => format!("timer {} s", at / 1_000.0),
            Action::Arm { at: None } => "no timer".into(),
            Action::Reply { answer: Answer::Flushed(_), .. } => "flushed".into(),
            Action::Shut => "shut".into(),
            Action::Sync => "sync".into(),
            _ => String::new(),
        }
    }

    /// A tab in the situation of a column of the table, at 1 s.
    fn situation(column: &str) -> Harness {
        let (keys, hold): (&[&str], &[&str]) = match column {
            "asking" => (&["a"], &["lock"]),
            "sending" | "ending" => (&["a", "b"], &[]),
            "purging" => (&["a"], &["purge"]),
            _ => (&[], &[]),
        };
        let mut h = Harness::new(keys, hold);
        match column {
            "ending" | "hidden" => drop(h.event("visibilitychange", true)),
            "purging" => drop(h.answer()),
            "frozen" | "gone" | "offline" => {
                let kind = match column {
                    "frozen" => "freeze",
                    "gone" => "pagehide",
                    _ => "offline",
                };
                h.event(kind, false);
            }
            "paused" => drop(h.tell(Input::Paused(true))),
            "closed" => drop(h.tell(Input::Close)),
            _ => {}
        }
        h
    }

    /// The input of a row of the table.
    fn row(name: &str, h: &Harness) -> Input<()> {
        match name {
            "add" => Input::Add { reply: 5, entry: entry("c", 9) },
            "flush" => Input::Flush { reply: 6 },
            "granted" => Input::Granted { tab: false },
            "refused" => Input::Refused { tab: false, why: "InvalidStateError".into() },
            "answered" => match h.calls.first() {
                Some((n, _)) => Input::Answered { n: *n, sent: created("a"), left: false },
                None => Input::Answered { n: 999, sent: Sent::unsent(), left: false },
            },
            "purged" => {
                let purge = h.tab.ops.iter().find(|(_, op)| matches!(op, Op::Purge));
                Input::Purged { n: purge.map_or(999, |(n, _)| *n), keys: Vec::new(), next: None }
            }
            "timer" => Input::Timer,
            "hidden" => event("visibilitychange", true),
            "shown" => event("visibilitychange", false),
            "freeze" | "resume" | "pagehide" | "online" | "offline" => event(name, false),
            "released" => Input::Hint { keys: Vec::new(), released: true },
            "pause" => Input::Paused(true),
            "resume()" => Input::Paused(false),
            "close" => Input::Close,
            other => panic!("a row the test does not know: {other}"),
        }
    }

    /// docs/outbox.md's table of the tab, cell by cell, is what the tab does.
    #[test]
    fn the_table_of_the_tab_in_the_docs_is_the_code() {
        let (columns, rows) = docs_table("<!-- the table of the tab");
        for cells in &rows {
            for (column, expected) in columns.iter().zip(cells).skip(1) {
                let mut h = situation(column);
                let actions = h.tab.handle(row(&cells[0], &h), h.now);
                let words: Vec<String> =
                    actions.iter().map(word).filter(|w| !w.is_empty()).collect();
                let said = if words.is_empty() { "–".to_string() } else { words.join(", ") };
                assert_eq!(said, *expected, "{} in {column}: {actions:?}", cells[0]);
            }
        }
        assert_eq!((rows.len(), columns.len()), (18, 12), "every row and column of the table");
    }

    #[test]
    fn a_hidden_pages_timer_that_fires_early_is_armed_again_for_the_end_of_its_second() {
        let mut h = Harness::new(&[], &[]);
        h.event("visibilitychange", true).tell(Input::Add { reply: 5, entry: entry("c", 9) });
        assert_eq!(h.tab.timer, Some(2_000.0), "the end of its second");
        h.now = 1_999.0; // Node's timers fire up to a millisecond early
        h.tell(Input::Timer);
        assert_eq!(h.said, ["timer 2 s"], "armed again, not left with nothing armed");
        h.now = 2_000.0;
        h.tell(Input::Timer);
        assert_eq!(h.said, ["lock"]);
    }

    #[test]
    fn an_entry_taken_as_its_tab_lets_go_is_given_back_with_no_try_counted() {
        for stop in ["freeze", "close"] {
            // The take is written, but not yet told, when the tab lets go.
            let mut h = Harness::new(&["a"], &["write 1"]);
            assert_eq!(h.waiting.len(), 1, "the take's write");
            let n = h.tab.ops.iter().find(|(_, op)| matches!(op, Op::Write { .. })).unwrap().0;
            let records = Vec::from([h.record("a")]);
            let Some(Action::Apply { steps, .. }) =
                h.tab.handle(Input::Read { n, records }, h.now).pop()
            else {
                panic!()
            };
            let Some(Step::Put(taken)) = steps.into_iter().next() else { panic!() };
            assert_eq!(taken.state, State::Sending);
            h.store = Vec::from([taken]);
            h.waiting.clear();
            match stop {
                "freeze" => drop(h.event("freeze", false)),
                _ => drop(h.tell(Input::Close)),
            }
            h.hold.clear();
            h.tell(Input::Written { n, failures: Vec::from([None]) });
            assert!(h.calls.is_empty(), "{stop}: nothing sent");
            if stop == "freeze" {
                h.event("resume", false); // its answer written, then it is sent
                assert_eq!(h.calls.len(), 1);
            }
            let a = h.stored("a");
            assert_eq!((a.attempts, a.maybe_created), (0, false), "{stop}: no try counted");
        }
    }

    #[test]
    fn a_flush_resolves_when_its_own_round_ends_not_an_earlier_one() {
        let mut h = Harness::new(&["a"], &["lock"]);
        h.tell(Input::Flush { reply: 7 }); // into the round asking
        h.go("lock");
        h.hold.extend(["lock", "purge"]);
        assert_eq!(h.calls.len(), 1, "the round sends `a`");
        h.tell(Input::Flush { reply: 8 }); // into the round sending
        h.answer();
        h.tell(Input::Flush { reply: 9 }); // the round purges: the round after this one
        assert_eq!(h.replied, [1], "open's: the round purges");
        h.go("purge");
        assert_eq!(h.replied, [1, 7, 8], "the round's flushes, not the next one's");
        h.go("lock");
        assert_eq!(h.replied, [1, 7, 8, 9]);
    }

    #[test]
    fn a_tab_whose_own_lock_is_refused_sends_as_no_live_sender() {
        let mut h = Harness::new(&[], &["live"]);
        h.tell(Input::Refused { tab: true, why: "AbortError".into() });
        h.tell(Input::Add { reply: 5, entry: entry("c", 9) });
        let (_, taken) = h.calls.first().unwrap();
        assert_eq!(taken.sender, None, "no sender that a check of the live tabs could call dead");
        let until = Some(h.now + RULES.send_ms);
        assert_eq!(taken.sending_until, until, "taken over only once its call has surely ended");
    }

    #[test]
    fn a_read_aborted_as_its_tab_lets_go_warns_of_nothing() {
        let mut h = Harness::new(&["a"], &["feed"]);
        let n = h.tab.ops.iter().find(|(_, op)| matches!(op, Op::Feed)).unwrap().0;
        h.event("freeze", false);
        let failure = Failure { said: "AbortError".into(), cause: None };
        let actions = h.tab.handle(Input::Failed { n, failure }, h.now);
        assert!(!actions.iter().any(|a| matches!(a, Action::Warn(_))), "{actions:?}");
    }

    #[test]
    fn a_service_worker_arms_no_timer_its_rounds_are_its_events() {
        let rules = Rules { worker: true, ..RULES.clone() };
        let mut h = Harness::with(rules, &["a"], &[]);
        assert_eq!((h.tab.timer, h.calls.len()), (None, 0), "an entry due, no event yet");
        h.tell(Input::Flush { reply: 5 });
        assert_eq!(h.calls.len(), 1, "its event's round sends it");
        h.tell(Input::Answered { n: h.calls[0].0, sent: Sent::unsent(), left: false });
        h.tell(Input::Timer);
        assert_eq!(h.tab.timer, None, "due again, left to the next event");
    }

    #[test]
    fn a_service_worker_that_sent_nothing_leaves_the_entry_to_the_pages_counting_no_try() {
        let rules = Rules { worker: true, ..RULES.clone() };
        for kind in [Kind::Config, Kind::Timeout] {
            // Its getToken failed, or never settled.
            let mut h = Harness::with(rules.clone(), &["a"], &[]);
            h.tell(Input::Flush { reply: 5 });
            let error = EntryError { kind, status: None, code: None, message: "no token".into() };
            let sent = Sent { outcome: Err(error), ..Sent::unsent() };
            h.tell(Input::Answered { n: h.calls[0].0, sent, left: false });
            let a = h.stored("a");
            assert_eq!(
                (a.state, a.attempts, a.next_attempt_at),
                (State::Pending, 0, None),
                "{kind:?}"
            );
        }
    }

    #[test]
    fn a_page_hidden_while_its_store_opens_is_hidden_once_open() {
        // The page's events are heard once the store is open: it says how the page is then.
        let mut tab = Tab::<()>::new(RULES.clone(), true, true, 7);
        let Some(Action::Open { n }) = tab.handle(Input::Open { reply: 1 }, 0.0).pop() else {
            panic!()
        };
        tab.handle(Input::Opened { n, hidden: true }, 0.0);
        assert_eq!(tab.page, Page::Hidden(YIELD_MS), "its second to yield");
    }

    #[test]
    fn a_tab_whose_round_lock_was_refused_names_no_sender_its_entries_wait_for_their_time() {
        let mut h = Harness::new(&["a"], &["lock"]);
        h.tell(Input::Refused { tab: false, why: "InvalidStateError".into() });
        assert_eq!(h.calls.len(), 1, "its rounds go on without the lock");
        // A round with the lock, whose tabs alive were read before this tab opened, must not
        // take it as its sender's.
        let a = h.stored("a");
        assert_eq!((a.sender.as_deref(), a.sending_until), (None, Some(h.now + RULES.send_ms)));
    }

    #[test]
    fn a_feed_of_a_round_stopped_is_not_taken_by_the_next_round() {
        let mut h = Harness::new(&["a"], &["feed"]);
        let feed = |h: &Harness| {
            h.tab.ops.iter().rev().find(|(_, op)| matches!(op, Op::Feed)).map(|(n, _)| *n)
        };
        let old = feed(&h).unwrap();
        h.tell(Input::Paused(true)).tell(Input::Paused(false));
        assert_ne!(feed(&h), Some(old), "the next round's feed under way");
        // Read while another tab, not yet alive then, could take it since.
        h.tell(Input::Fed { n: old, keys: Vec::from(["a".into()]), live: Some(Vec::new()) });
        assert!(h.calls.is_empty(), "nothing taken on the stopped round's word");
        h.go("feed");
        assert_eq!(h.calls.len(), 1, "the next round's own feed");
    }

    #[test]
    fn an_entry_due_read_from_another_tab_is_not_left_to_a_far_timer() {
        let mut h = Harness::new(&["a"], &["purge"]);
        h.answer();
        let n = h.tab.ops.iter().find(|(_, op)| matches!(op, Op::Purge)).unwrap().0;
        h.tell(Input::Purged { n, keys: Vec::new(), next: Some(1e9) });
        assert_eq!(h.tab.timer, Some(1e9), "armed for the next created entry's expiry");
        h.store.push(entry("b", 1)); // added by a tab that left as it added
        h.tell(Input::Hint { keys: Vec::from(["b".into()]), released: false });
        assert_eq!(h.tab.timer, Some(h.now + AGAIN_MS), "a second on");
        h.now += AGAIN_MS;
        h.tell(Input::Timer);
        assert_eq!(h.calls.len(), 1, "sent");
    }

    #[test]
    fn a_record_set_aside_is_told_as_it_comes_and_goes_not_at_each_reload() {
        let mut tab = Tab::new(RULES.clone(), true, true, 7);
        let aside = Record::Aside { key: "x".into(), reason: "a newer schema".into(), raw: () };
        // Answers the full read that `input` asks with `records`: what changed.
        let mut load = |input: Input<()>, records: Vec<Option<Record<()>>>| {
            let mut actions = tab.handle(input, 0.0);
            if let Some(Action::Open { n }) = actions.first() {
                actions = tab.handle(Input::Opened { n: *n, hidden: false }, 0.0);
            }
            let n = actions.iter().find_map(|a| match a {
                Action::Read { n, keys: None } => Some(*n),
                _ => None,
            });
            let mut actions = tab.handle(Input::Read { n: n.unwrap(), records }, 0.0);
            if let Some(Action::Read { n, keys: Some(keys) }) = actions.first() {
                let records = keys.iter().map(|_| None).collect();
                actions = tab.handle(Input::Read { n: *n, records }, 0.0);
            }
            tab.handle(event("freeze", false), 0.0);
            let changed = actions.iter().filter(|a| matches!(a, Action::Changed { .. })).count();
            (changed, tab.held.aside.len())
        };
        let open = Input::Open { reply: 1 };
        assert_eq!(load(open, Vec::from([Some(aside.clone())])), (1, 1), "set aside, told");
        let resume = || event("resume", false);
        assert_eq!(load(resume(), Vec::from([Some(aside)])), (0, 1), "read again, no change");
        assert_eq!(load(resume(), Vec::new()), (1, 0), "gone from the store, told");
    }

    #[test]
    fn a_store_closed_under_a_round_with_calls_out_ends_it_and_answers_its_flush() {
        let mut h = Harness::new(&["a"], &["lock"]);
        h.tell(Input::Flush { reply: 7 });
        h.go("lock");
        assert_eq!((h.calls.len(), h.replied.as_slice()), (1, &[1][..]), "the flush's round sends");
        h.event("versionchange", false);
        assert_eq!(h.replied, [1, 7], "the flush answered, not left waiting for a call dropped");
    }

    #[test]
    fn an_add_under_way_as_the_store_closes_under_it_is_answered() {
        let mut h = Harness::new(&[], &["insert, sync"]);
        h.tell(Input::Add { reply: 5, entry: entry("c", 9) });
        h.event("versionchange", false);
        assert_eq!(h.said, ["abort", "unlive"].map(String::from), "no shut before the insert");
        h.go("insert, sync");
        assert_eq!(h.replied, [1, 5], "the add answered once its insert is written");
    }

    #[test]
    fn a_tab_that_comes_back_has_a_new_id() {
        let mut h = Harness::new(&[], &[]);
        let first = h.tab.id.clone();
        h.event("freeze", false).event("resume", false);
        assert!(!first.is_empty() && h.tab.id != first, "{first} then {}", h.tab.id);
    }

    #[test]
    fn going_offline_ends_the_sending_and_lets_the_calls_out_finish() {
        let mut h = Harness::new(&["a", "b", "c", "d", "e", "f"], &[]);
        assert_eq!(h.calls.len(), 4, "the concurrency");
        h.event("offline", false);
        assert_eq!(h.said, ["release", "tell"]);
        h.answer();
        assert_eq!((h.calls.len(), h.stored("a").state), (3, State::Created), "no take after it");
        assert_eq!(h.stored("e").state, State::Pending);
    }

    #[test]
    fn a_flush_while_the_round_sends_joins_it_an_entry_it_tried_waits_for_its_backoff() {
        let mut h = Harness::new(&[], &[]);
        h.tell(Input::Add { reply: 2, entry: entry("k", 1) }); // the round sends it at once
        h.tell(Input::Flush { reply: 3 });
        let (n, _) = h.calls.remove(0);
        let message = "the network failed".into();
        let error = EntryError { kind: Kind::Network, status: None, code: None, message };
        let sent =
            Sent { outcome: Err(error), requests: 1, maybe_created: true, retry_after_ms: None };
        h.tell(Input::Answered { n, sent, left: false });
        assert!(h.calls.is_empty(), "not sent again before its backoff");
        assert_eq!((h.stored("k").state, h.replied.as_slice()), (State::Pending, &[1, 2, 3][..]));
        h.tell(Input::Flush { reply: 4 }); // a flush of its own: sent now
        assert_eq!(h.calls.len(), 1);
    }
}
