//! One tab of an outbox as a machine ([`Tab`]): [`Tab::handle`] takes what happened ([`Input`]) at a
//! time and gives what its driver does next ([`Action`]). It reads no clock and touches no store,
//! so `cargo test` runs it natively: docs/outbox.md's table of the tab, and the seeded simulation
//! of several tabs (`sim.rs`). What a record becomes is the table's (`table.rs`); a round,
//! `round.rs`; what the tab holds of the store and the store's answers, `held.rs`.
//!
//! `V` is a value of the platform the machine passes on unread: a record it cannot read, the cause
//! of a failure. `n` numbers an action the tab asked for, `reply` an app's call.

use super::entry::{Entry, Record, Sent};
use super::held::Held;
use super::round::{Plan, Round};
use super::table::{Context, Event, Step};
use alloc::string::String;
use alloc::vec::Vec;

/// What happened to a tab.
#[derive(Debug)]
pub(crate) enum Input<V> {
    // The app's: open (this tab's id), its calls, pause() and resume(), close().
    Open { reply: u32, id: String },
    Add { reply: u32, entry: Entry },
    Get { reply: u32, key: String },
    Act { reply: u32, key: String, event: Event, name: &'static str },
    Flush { reply: u32 },
    Paused(bool),
    Close,
    // The store's: opened; the records read (none: no record); a write's failures, by record; the
    // keys due and the tabs alive; the created records expired and deleted, and the next expiry.
    Opened { n: u32 },
    Read { n: u32, records: Vec<Option<Record<V>>> },
    Written { n: u32, failures: Vec<Option<Failure<V>>> },
    Fed { n: u32, keys: Vec<String>, live: Option<Vec<String>> },
    Purged { n: u32, keys: Vec<String>, next: Option<f64> },
    Failed { n: u32, failure: Failure<V> },
    // A Web Lock (`tab`: this tab's own, else the one of rounds) held, or refused.
    Granted { tab: bool },
    Refused { tab: bool, why: String },
    Timer,
    // An event of the page, the network or the store (`hidden`: the page's visibility now, `id`: a
    // new one for a page that comes back); another tab's hint: these records changed, or it let go.
    Event { kind: String, persisted: bool, hidden: bool, id: String },
    Hint { keys: Vec<String>, released: bool },
    // Call `n` ended; `left` when this tab cut it short.
    Answered { n: u32, sent: Sent, left: bool },
}

/// What the driver does.
#[derive(Debug)]
pub(crate) enum Action<V> {
    // The store: open it; read the records of `keys` (none: each not created, and the newest
    // created); the keys due by `until` (with `locks`, the tabs alive); delete the created records
    // expired by `now`; abort its transactions but inserts; shut it.
    Open { n: u32 },
    Read { n: u32, keys: Option<Vec<String>> },
    Feed { n: u32, until: f64, locks: bool },
    Purge { n: u32, now: f64 },
    Abandon,
    Shut,
    // A write: read the records of `keys` (`by_id`: an add's, by plant id, durable before it
    // completes) in one transaction, tell them, put what the tab says (`Apply`), tell `Written`.
    Write { n: u32, keys: Vec<String>, by_id: bool },
    Apply { n: u32, puts: Vec<Put> },
    // Add a new record, committed as it is made.
    Insert { n: u32, entry: Entry },
    // A Web Lock (`tab`: this tab's own, while it lives; else the one of rounds) asked, given back.
    Lock { tab: bool },
    Release { tab: bool },
    // Tell the other tabs: these records changed, or this tab let go of the lock.
    Post { keys: Vec<String>, released: bool },
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

/// What a write puts in place of a record it read.
#[derive(Debug)]
pub(crate) enum Put {
    Keep,
    Entry(Entry),
    Delete,
}

/// What an app's call resolves to, or why it fails (a `config` error): the outbox could not do
/// `what` (the platform's `failure`), or refused.
#[derive(Debug)]
pub(crate) enum Answer<V> {
    Done,
    Entry(Option<Entry>),
    Refused(String),
    Failed { what: &'static str, failure: Failure<V> },
}

/// A failure of the platform: what it said on one line, and what it failed with.
#[derive(Clone, Debug)]
pub(crate) struct Failure<V> {
    pub(crate) said: String,
    pub(crate) cause: Option<V>,
}

/// Where the page stands: hidden, it leaves the sending to the visible tabs until `.0`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) enum Page {
    Opening { hidden: bool },
    #[default]
    Shown,
    Hidden(f64),
    Frozen,
    Gone,
    Closed,
    /// Closed, its store shut.
    Shut,
}

/// A tab's settings.
#[derive(Clone, Debug, Default)]
pub(crate) struct Rules {
    pub(crate) concurrency: usize,
    pub(crate) send_ms: f64,
    pub(crate) retention_ms: f64,
    pub(crate) key_lifetime_ms: f64,
}

/// How long a page that hid leaves the sending to the visible tabs.
pub(crate) const YIELD_MS: f64 = 1_000.0;
/// The least wait for an entry due already: a round left it, or another tab is sending it.
pub(crate) const AGAIN_MS: f64 = 1_000.0;

/// What an action under way is for.
#[derive(Debug)]
pub(crate) enum Op {
    Open { reply: u32 },
    Read { reply: Option<u32>, keys: Option<Vec<String>> },
    // A write: why, its events by key (an add's, by plant id), what the table made of each.
    Write { why: Why, events: Vec<(String, Event)>, steps: Vec<Option<Step>> },
    Call { key: String, taken: u32 },
    Feed,
    Purge,
}

/// What a write is for: an add (inserted at once, or applied to the record of its plant's id the
/// store holds), an app's call, a sender's (its last answer and its next take), the answers a
/// frozen page could not write.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Why {
    Insert(u32),
    Add(u32),
    Act(u32, &'static str),
    Send,
    Left,
}

/// One tab.
#[derive(Debug, Default)]
pub(crate) struct Tab<V> {
    pub(crate) rules: Rules,
    pub(crate) page: Page,
    pub(crate) paused: bool,
    pub(crate) online: bool,
    /// Rounds hold the Web Lock: the API is there, and no request for it failed.
    pub(crate) locks: bool,
    /// This tab's id; whether its own Web Lock is held (the other tabs see it alive); the other
    /// tabs alive, as the last feed read them.
    pub(crate) id: String,
    pub(crate) alive: bool,
    pub(crate) live: Vec<String>,
    pub(crate) round: Round,
    /// A round asked for while one runs (`flush()`, `online`): it begins when that one ends.
    pub(crate) wanted: Option<Plan>,
    pub(crate) timer: Option<f64>,
    pub(crate) held: Held<V>,
    pub(crate) ops: Vec<(u32, Op)>,
    /// The answers a frozen page could not write: written once it is back.
    pub(crate) left: Vec<(String, Event)>,
    n: u32,
    pub(crate) now: f64,
    seed: u64,
    warned: bool,
    pub(crate) out: Vec<Action<V>>,
}

impl<V: Clone> Tab<V> {
    /// A tab, online or not, whose rounds hold the Web Lock when `locks`, on a page `hidden` or
    /// not; `seed` draws the backoffs' jitter.
    pub(crate) fn new(rules: Rules, locks: bool, online: bool, hidden: bool, seed: u64) -> Self
    where
        V: Default,
    {
        let page = Page::Opening { hidden };
        Tab { rules, page, online, locks, seed: seed | 1, ..Default::default() }
    }

    /// What to do after `input`, at `now`.
    pub(crate) fn handle(&mut self, input: Input<V>, now: f64) -> Vec<Action<V>> {
        self.now = now;
        match input {
            Input::Open { reply, id } => {
                self.id = id;
                let n = self.op(Op::Open { reply });
                self.out.push(Action::Open { n });
            }
            Input::Close => self.close(None),
            input if matches!(self.page, Page::Closed | Page::Shut) => self.closed(input),
            Input::Add { reply, entry } => self.add(reply, entry),
            Input::Get { reply, key } => self.read(Some(reply), Some(Vec::from([key]))),
            Input::Act { reply, key, event, name } => {
                self.write(Why::Act(reply, name), Vec::from([(key, event)]))
            }
            Input::Flush { reply } => self.ask(Plan { force: true, flushes: Vec::from([reply]) }),
            Input::Paused(true) => {
                self.paused = true;
                self.stop();
            }
            Input::Paused(false) => {
                self.paused = false;
                self.ask(Plan::default());
            }
            Input::Granted { tab: true } => self.alive = true,
            Input::Granted { tab: false } => self.granted(),
            Input::Refused { tab, why } => self.refused(tab, &why),
            Input::Timer => {
                self.timer = None;
                self.ask(Plan::default());
            }
            Input::Event { kind, persisted, hidden, id } => self.event(&kind, persisted, hidden, id),
            Input::Hint { keys, released } => {
                self.read(None, Some(keys));
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

    /// What an event means: the page hid or was shown, froze (or went into the back/forward
    /// cache), came back, or left for good; the network came or went; the store closed under it.
    fn event(&mut self, kind: &str, persisted: bool, hidden: bool, id: String) {
        let kind = match (kind, persisted) {
            ("pagehide", true) => "freeze",
            ("pageshow", true) => "resume",
            (kind, _) => kind,
        };
        match (kind, self.page) {
            ("visibilitychange", Page::Shown) if hidden => {
                self.page = Page::Hidden(self.now + YIELD_MS);
                self.stop();
            }
            ("visibilitychange", Page::Hidden(_)) if !hidden => {
                self.page = Page::Shown;
                self.ask(Plan::default());
            }
            ("freeze", Page::Shown | Page::Hidden(_)) => {
                self.page = Page::Frozen;
                self.let_go();
            }
            ("resume", Page::Frozen) => {
                (self.page, self.id) = (Page::Shown, id);
                self.out.push(Action::Lock { tab: true });
                let left = core::mem::take(&mut self.left);
                if !left.is_empty() {
                    self.write(Why::Left, left);
                }
                self.read(None, None);
            }
            // The store's transactions end, so that an add made as the page goes is written at
            // once; the calls out finish, their answers written if the page lives on.
            ("pagehide", Page::Shown | Page::Hidden(_)) => {
                self.page = Page::Gone;
                self.stop();
                self.out.push(Action::Abandon);
            }
            ("online", _) => {
                self.online = true;
                self.ask(Plan { force: true, flushes: Vec::new() });
            }
            ("offline", _) => {
                self.online = false;
                self.stop();
            }
            ("versionchange", _) => {
                self.close(Some("another page opened a newer version of the outbox's database"))
            }
            ("close", _) => self.close(Some(
                "the browser closed the outbox's database (storage cleared, or a disk error)",
            )),
            _ => {}
        }
    }

    /// A request for a Web Lock failed: without the lock of rounds every tab sends; without its
    /// own, what this tab sends is taken over only once its call has surely ended.
    fn refused(&mut self, tab: bool, why: &str) {
        let message = match tab {
            true => ["its tab's own Web Lock was refused (", why, ")"].concat(),
            false => ["a request for its Web Lock failed (", why, ")"].concat(),
        };
        self.warn(&message);
        if !tab {
            self.locks = false;
            if let Round::Asking(plan) = core::mem::take(&mut self.round) {
                self.begin(plan);
            }
        }
    }

    /// A round may begin now.
    pub(crate) fn sends(&self) -> bool {
        let page = match self.page {
            Page::Shown => true,
            Page::Hidden(until) => until <= self.now,
            _ => false,
        };
        page && !self.paused && self.online
    }

    /// What a closed tab still does: its writes end, its calls' answers are written, the store
    /// shuts once none is under way; an app's call is refused.
    fn closed(&mut self, input: Input<V>) {
        let refused = match input {
            Input::Add { reply, .. } => Some((reply, "add")),
            Input::Get { reply, .. } => Some((reply, "get")),
            Input::Act { reply, name, .. } => Some((reply, name)),
            Input::Flush { reply } => return self.reply(reply, Answer::Done),
            Input::Answered { n, sent, left } => {
                self.answered(n, sent, left);
                None
            }
            input => {
                self.store(input);
                None
            }
        };
        if let Some((reply, name)) = refused {
            let message = ["outbox.", name, ": the outbox is closed"].concat();
            self.reply(reply, Answer::Refused(message));
        }
        self.shut();
    }

    /// Closes the tab: its round dropped, its calls aborted (their answers written), its locks
    /// given back, the store shut once its writes are over; at once when it closed on its own
    /// (`why`, told to the app).
    pub(crate) fn close(&mut self, why: Option<&'static str>) {
        if matches!(self.page, Page::Closed | Page::Shut) {
            return;
        }
        if !matches!(self.page, Page::Opening { .. } | Page::Frozen) {
            self.let_go();
        }
        self.page = Page::Closed;
        let wanted = self.wanted.take();
        self.flushed(wanted);
        if let Some(why) = why {
            self.out.push(Action::Closed { why });
            self.ops.retain(|(_, op)| !matches!(op, Op::Write { .. } | Op::Call { .. }));
        }
        self.shut();
    }

    fn shut(&mut self) {
        let busy = |(_, op): &(u32, Op)| matches!(op, Op::Write { .. } | Op::Call { .. });
        if self.page == Page::Closed && !self.ops.iter().any(busy) {
            self.page = Page::Shut;
            self.out.push(Action::Shut);
        }
    }

    /// A frozen or closing page lets go: its calls aborted, the lock of rounds and its own, the
    /// store's transactions but inserts; another tab takes over what it was sending.
    fn let_go(&mut self) {
        self.out.push(Action::Abort);
        self.stop();
        self.out.push(Action::Abandon);
        self.alive = false;
        self.out.push(Action::Release { tab: true });
    }

    /// Arms the timer for the next round, when none runs and one may: at the earliest entry due or
    /// created entry expiring (one due already, a second on: a round left it, or another tab is
    /// sending it), and on a hidden page not before the end of its second.
    fn arm(&mut self) {
        let may = matches!(self.page, Page::Shown | Page::Hidden(_)) && !self.paused && self.online;
        let at = match (&self.round, self.held.next_due(), self.page) {
            (Round::Idle, Some(at), Page::Hidden(until)) if may => Some(at.max(until)),
            (Round::Idle, at, _) if may => at,
            _ => None,
        };
        let at = match (at, self.timer) {
            (Some(at), Some(armed)) if at <= self.now && armed > self.now => Some(armed),
            (Some(at), _) if at <= self.now => Some(self.now + AGAIN_MS),
            (at, _) => at,
        };
        if at != self.timer {
            self.timer = at;
            self.out.push(Action::Arm { at });
        }
    }

    /// Says once, in the console, that every tab sends, and why.
    pub(crate) fn warn(&mut self, why: &str) {
        if !core::mem::replace(&mut self.warned, true) {
            let message = [
                "plant-store-client/outbox: ",
                why,
                ", so every tab of the outbox sends: an entry being sent when its tab closes is \
                 sent again once its call has surely ended, with the same Idempotency-Key",
            ];
            self.out.push(Action::Warn(message.concat()));
        }
    }

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

    pub(crate) fn reply(&mut self, reply: u32, answer: Answer<V>) {
        self.out.push(Action::Reply { reply, answer });
    }

    /// What the table reads of the world now.
    pub(crate) fn context(&mut self) -> Context<'_> {
        // xorshift64*: the backoffs' jitter, the same for a seed.
        (self.seed ^= self.seed >> 12, self.seed ^= self.seed << 25, self.seed ^= self.seed >> 27);
        let random = (self.seed.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64;
        Context {
            now: self.now,
            random,
            send_ms: self.rules.send_ms,
            retention_ms: self.rules.retention_ms,
            key_lifetime_ms: self.rules.key_lifetime_ms,
            tab: self.alive.then_some(self.id.as_str()),
            live: &self.live,
        }
    }
}
