//! When a tab of an outbox sends, as one machine ([`Tab`]): the page's life (shown, hidden,
//! frozen or cached, gone), the Web Lock, the round and its senders, the timer. [`Tab::on`] takes
//! what happened ([`Input`], at a time the shell reads) and gives what the shell does next
//! ([`Do`]), in order (both in `tab_io.rs`; a round's life is `round.rs`); it touches no store and reads no clock, so `cargo test` runs every case
//! natively, and checks docs/outbox.md's table of the tab against it. What an entry becomes is
//! the records' table (`table.rs`); this one decides only *when*.
//!
//! A round: the lock is asked for (or none is needed), the keys due are read, and up to
//! `concurrency` senders each take the next key ([`Tab::next`]) until none is left; then the
//! retention is purged and the lock given back. A page that hides gives the lock back at once and
//! takes nothing more, but lets its sends finish and record their answers; one that freezes or
//! goes into the back/forward cache aborts them and ends its store's transactions; one that
//! leaves for good gives the lock back and still writes.

use super::tab_io::{Do, Input};
use alloc::string::String;
use alloc::vec::Vec;

/// How long a page that hid leaves the sending to the visible tabs, before it sends on.
pub(crate) const YIELD_MS: f64 = 1_000.0;
/// The least wait for an entry already due: one a round left, or that the tab that added it is
/// taking.
pub(crate) const AGAIN_MS: f64 = 1_000.0;

/// Where the page stands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Page {
    Shown,
    /// Hidden: it sends on once `yielding` (its second) is over.
    Hidden,
    Frozen,
    Gone,
    Closed,
}

/// Who sends beside a tab.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Senders {
    /// This tab alone: its rounds are as good as locked.
    Alone,
    /// The tabs that share the store, one round at a time: each round holds the Web Lock.
    ByTurns,
    /// Every tab at once: no Web Locks, or a request for one failed.
    All,
}

/// Where this tab stands with the Web Lock.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Lock {
    Free,
    Asked,
    Held,
}

/// A round: asked for (the lock requested), or begun (it holds the lock, or needs none).
#[derive(Debug)]
pub(crate) struct Round {
    pub(crate) number: u32,
    pub(crate) begun: bool,
    pub(crate) locked: bool,
    pub(crate) force: bool,
    /// It takes more (false once the page hid, or the app paused).
    pub(crate) going: bool,
    pub(crate) queue: Vec<String>,
    pub(crate) tried: Vec<String>,
    pub(crate) senders: usize,
    pub(crate) feeding: bool,
    /// Feed once more when the feed under way is over.
    pub(crate) again: bool,
    pub(crate) purging: bool,
    /// The `flush()` calls it answers when it ends.
    pub(crate) flushes: usize,
}

impl Round {
    /// Reads the keys due for the round.
    pub(crate) fn feed(&mut self) -> Do {
        self.feeding = true;
        Do::Feed { round: self.number, force: self.force, lock: self.locked }
    }
}

/// A round asked for while one runs (`flush()`, `online`): it begins when that one ends.
#[derive(Debug, Default)]
pub(crate) struct Wanted {
    pub(crate) force: bool,
    pub(crate) flushes: usize,
}

/// The machine of one tab of an outbox.
#[derive(Debug)]
pub(crate) struct Tab {
    pub(crate) page: Page,
    pub(crate) paused: bool,
    pub(crate) online: bool,
    /// Who sends with this tab: no other (a store of the app's), the tabs that hold the Web Lock
    /// by turns, or every tab at once (no Web Locks).
    pub(crate) senders: Senders,
    pub(crate) lock: Lock,
    pub(crate) round: Option<Round>,
    pub(crate) wanted: Option<Wanted>,
    pub(crate) rounds: u32,
    pub(crate) concurrency: usize,
    /// Until when a page that hid leaves the sending to the others.
    pub(crate) yielding: Option<f64>,
    /// When what this tab holds is next due.
    pub(crate) next: f64,
    pub(crate) armed: Option<f64>,
}

impl Tab {
    /// A tab on a shown page that is `online`, sending `concurrency` entries at once, beside the
    /// `senders`.
    pub(crate) fn new(senders: Senders, online: bool, concurrency: usize) -> Tab {
        Tab {
            page: Page::Shown,
            paused: false,
            online,
            senders,
            lock: Lock::Free,
            round: None,
            wanted: None,
            rounds: 0,
            concurrency,
            yielding: None,
            next: f64::INFINITY,
            armed: None,
        }
    }

    /// What to do after `input`, at `now`.
    pub(crate) fn on(&mut self, input: Input, now: f64) -> Vec<Do> {
        let mut out = Vec::new();
        if self.page == Page::Closed {
            if input == Input::Flush {
                out.push(Do::Flushed(1));
            }
            return out;
        }
        match input {
            Input::Ask => self.ask(false, 0, now, &mut out),
            Input::Added(key) => match &mut self.round {
                Some(round) if round.begun && round.going => {
                    if !round.tried.contains(&key) {
                        round.queue.push(key);
                    }
                    self.fill(&mut out);
                }
                _ => self.ask(false, 0, now, &mut out),
            },
            Input::Flush if !self.sends(now) => out.push(Do::Flushed(1)),
            Input::Flush => self.ask(true, 1, now, &mut out),
            Input::Granted => match (&mut self.round, self.lock) {
                (Some(round), Lock::Asked) if !round.begun => {
                    (round.locked, self.lock) = (true, Lock::Held);
                    self.begin(&mut out);
                }
                (_, Lock::Held) => {}
                // A grant that came after the request was dropped goes back at once.
                _ => {
                    self.lock = Lock::Free;
                    out.push(Do::Release);
                }
            },
            Input::LockFailed => {
                (self.senders, self.lock) = (Senders::All, Lock::Free);
                if self.round.as_ref().is_some_and(|round| !round.begun) {
                    self.begin(&mut out);
                }
            }
            Input::Fed { round: number, keys } => {
                let Some(round) = self.round.as_mut().filter(|r| r.number == number && r.begun)
                else {
                    return out;
                };
                round.feeding = false;
                for key in keys {
                    if !round.tried.contains(&key) && !round.queue.contains(&key) {
                        round.queue.push(key);
                    }
                }
                if core::mem::take(&mut round.again) && round.going {
                    out.push(round.feed());
                }
                self.fill(&mut out);
                self.end(now, &mut out);
            }
            Input::SenderDone { round: number } => {
                if let Some(round) = self.round.as_mut().filter(|r| r.number == number) {
                    round.senders = round.senders.saturating_sub(1);
                    self.end(now, &mut out);
                }
            }
            Input::Purged => {
                if let Some(round) = &mut self.round {
                    round.purging = false;
                }
                self.end(now, &mut out);
            }
            Input::Due(at) => {
                self.next = at;
                self.schedule(now, &mut out);
            }
            Input::Timer => {
                self.armed = None;
                if self.yielding.is_some_and(|until| until <= now) {
                    self.yielding = None;
                }
                self.ask(false, 0, now, &mut out);
            }
            Input::Hidden if self.page == Page::Shown => {
                self.page = Page::Hidden;
                self.yielding = Some(now + YIELD_MS);
                self.stop(&mut out);
                self.schedule(now, &mut out);
            }
            Input::Shown if self.page == Page::Hidden => {
                self.page = Page::Shown;
                self.yielding = None;
                self.ask(false, 0, now, &mut out);
            }
            Input::Frozen if matches!(self.page, Page::Shown | Page::Hidden) => {
                self.page = Page::Frozen;
                self.drop_round(true, &mut out);
                out.push(Do::Suspend);
                self.disarm(&mut out);
            }
            Input::Resumed if self.page == Page::Frozen => {
                self.page = Page::Shown;
                self.yielding = None;
                out.push(Do::Reload);
            }
            Input::Left if matches!(self.page, Page::Shown | Page::Hidden) => {
                self.page = Page::Gone;
                self.stop(&mut out);
                self.disarm(&mut out);
            }
            Input::Online => {
                self.online = true;
                self.ask(true, 0, now, &mut out);
            }
            Input::Offline => {
                self.online = false;
                self.disarm(&mut out);
            }
            Input::Released => self.ask(false, 0, now, &mut out),
            Input::Pause => {
                self.paused = true;
                self.stop(&mut out);
                self.disarm(&mut out);
                self.end(now, &mut out);
            }
            Input::Resume => {
                self.paused = false;
                self.ask(false, 0, now, &mut out);
            }
            Input::Close => {
                self.drop_round(true, &mut out);
                self.page = Page::Closed;
                self.disarm(&mut out);
            }
            _ => {}
        }
        out
    }

    /// Whether rounds hold the Web Lock.
    pub(crate) fn locks(&self) -> bool {
        self.senders == Senders::ByTurns
    }

    /// The network is there or not, as the platform says now (a page may not tell it with an
    /// event): a round begins only online.
    pub(crate) fn online(&mut self, online: bool) {
        self.online = online;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outbox::table::docs_table;
    use alloc::format;

    /// A tab in the situation of a column of docs/outbox.md's table of the tab, at time 0.
    fn tab(column: &str) -> Tab {
        let mut tab = Tab::new(Senders::ByTurns, true, 4);
        let inputs: &[Input] = match column {
            "idle" => &[],
            "asking" => &[Input::Ask],
            "sending" => &[
                Input::Ask,
                Input::Granted,
                Input::Fed { round: 1, keys: Vec::from(["a".into(), "b".into()]) },
            ],
            "sending, hidden" => &[
                Input::Ask,
                Input::Granted,
                Input::Fed { round: 1, keys: Vec::from(["a".into(), "b".into()]) },
                Input::Hidden,
            ],
            "ending" => &[
                Input::Ask,
                Input::Granted,
                Input::Fed { round: 1, keys: Vec::from(["a".into()]) },
            ],
            "purging" => &[
                Input::Ask,
                Input::Granted,
                Input::Fed { round: 1, keys: Vec::from(["a".into()]) },
                Input::SenderDone { round: 1 },
            ],
            "hidden" => &[Input::Hidden],
            "frozen" => &[Input::Frozen],
            "gone" => &[Input::Left],
            "paused" => &[Input::Pause],
            "offline" => &[Input::Offline],
            "closed" => &[Input::Close],
            other => panic!("a column the test does not know: {other}"),
        };
        for input in inputs {
            tab.on(input.clone(), 0.0);
            // Its senders take what was fed.
            while tab.next(1).is_some() {}
        }
        tab
    }

    /// The input of a row of the table.
    fn input(row: &str) -> Input {
        match row {
            "ask" => Input::Ask,
            "added" => Input::Added("c".into()),
            "flush" => Input::Flush,
            "granted" => Input::Granted,
            "lock failed" => Input::LockFailed,
            "fed" => Input::Fed { round: 1, keys: Vec::from(["c".into()]) },
            "sender done" => Input::SenderDone { round: 1 },
            "purged" => Input::Purged,
            "due" => Input::Due(5_000.0),
            "timer" => Input::Timer,
            "hidden" => Input::Hidden,
            "shown" => Input::Shown,
            "frozen" => Input::Frozen,
            "resumed" => Input::Resumed,
            "left" => Input::Left,
            "online" => Input::Online,
            "offline" => Input::Offline,
            "released" => Input::Released,
            "pause" => Input::Pause,
            "resume" => Input::Resume,
            "close" => Input::Close,
            other => panic!("a row the test does not know: {other}"),
        }
    }

    /// What the shell does, in the table's words.
    fn said(actions: &[Do]) -> String {
        let words: Vec<String> = actions
            .iter()
            .map(|action| match action {
                Do::AskLock => "lock".into(),
                Do::Release => "release".into(),
                Do::Tell => "tell".into(),
                Do::Feed { force: false, .. } => "feed".into(),
                Do::Feed { force: true, .. } => "feed all".into(),
                Do::Senders { count, .. } => format!("send {count}"),
                Do::Abort => "abort".into(),
                Do::Suspend => "suspend".into(),
                Do::Reload => "reload".into(),
                Do::Purge => "purge".into(),
                Do::Arm(at) => format!("timer {} s", at / 1_000.0),
                Do::Disarm => "no timer".into(),
                Do::Flushed(_) => "flushed".into(),
            })
            .collect();
        if words.is_empty() {
            "–".into()
        } else {
            words.join(", ")
        }
    }

    /// docs/outbox.md's table of the tab, cell by cell, is what `Tab::on` does.
    #[test]
    fn the_table_of_the_tab_in_the_docs_is_the_code() {
        let (columns, rows) = docs_table("<!-- the table of the tab");
        let mut checked = 0;
        for cells in rows {
            for (column, expected) in columns.iter().zip(&cells).skip(1) {
                let actions = tab(column).on(input(&cells[0]), 0.0);
                assert_eq!(said(&actions), *expected, "{} in {column}: {actions:?}", cells[0]);
                checked += 1;
            }
        }
        assert_eq!(checked, 21 * 12, "every row and column of the table");
    }

    /// What `tab` does after each of `inputs`, at time `now`, in the table's words.
    fn run(tab: &mut Tab, now: f64, inputs: &[Input]) -> Vec<String> {
        inputs.iter().map(|input| said(&tab.on(input.clone(), now))).collect()
    }

    #[test]
    fn a_hidden_page_sends_on_once_its_second_is_over() {
        let mut tab = tab("idle");
        assert_eq!(run(&mut tab, 0.0, &[Input::Hidden, Input::Due(0.0)]), ["–", "timer 1 s"]);
        assert_eq!(run(&mut tab, 1_000.0, &[Input::Timer]), ["lock"]);
    }

    #[test]
    fn a_flush_during_a_round_is_the_next_rounds_and_resolves_when_that_one_ends() {
        let mut tab = tab("ending");
        let fed = Input::Fed { round: 2, keys: Vec::new() };
        let steps = run(
            &mut tab,
            0.0,
            &[Input::Flush, Input::SenderDone { round: 1 }, Input::Purged, Input::Granted, fed],
        );
        assert_eq!(steps, ["–", "purge", "release, lock", "feed all", "purge"]);
        assert_eq!(run(&mut tab, 0.0, &[Input::Purged]), ["release, flushed"]);
    }

    #[test]
    fn adds_go_into_the_round_under_way_and_a_burst_of_asks_reads_the_keys_once_more() {
        let mut tab = tab("sending");
        let adds: Vec<Input> = ["c", "d", "c"].map(|key| Input::Added(key.into())).into();
        assert_eq!(run(&mut tab, 0.0, &adds), ["send 1", "send 1", "–"]);
        let asks = [Input::Ask, Input::Ask, Input::Timer];
        assert_eq!(run(&mut tab, 0.0, &asks), ["feed", "–", "–"]);
        let fed = Input::Fed { round: 1, keys: Vec::from(["e".into()]) };
        // Read once more for the burst; `concurrency` (4) senders at work: `e` waits its turn.
        assert_eq!(run(&mut tab, 0.0, &[fed]), ["feed"]);
        assert_eq!(tab.next(1).map(|take| take.key).as_deref(), Some("c"));
    }

    #[test]
    fn a_failed_lock_request_sends_without_the_lock_from_then_on() {
        let mut tab = tab("asking");
        let fed = Input::Fed { round: 1, keys: Vec::new() };
        let steps = run(&mut tab, 0.0, &[Input::LockFailed, fed, Input::Purged]);
        assert_eq!(steps, ["feed", "purge", "–"]);
        assert_eq!(run(&mut tab, 0.0, &[Input::Ask]), ["feed"]);
    }
}
