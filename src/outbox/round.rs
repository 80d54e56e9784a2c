//! A round of a tab (`tab.rs`): asked for (the Web Lock requested, or none needed), begun, fed
//! the keys due, sent by up to `concurrency` senders, purged, and ended once, the lock given back;
//! or dropped, when the page freezes or the outbox closes; and when the next may begin (the
//! timer). What asks for one, and what stops it, is the tab's.

use super::tab::{Lock, Page, Round, Senders, Tab, Wanted, AGAIN_MS};
use super::tab_io::{Do, Take};
use alloc::vec::Vec;

impl Tab {
    /// The next entry a sender of round number `round` takes, if the round takes more.
    pub(crate) fn next(&mut self, number: u32) -> Option<Take> {
        let round = self.round.as_mut().filter(|round| round.number == number && round.going)?;
        if round.queue.is_empty() {
            return None;
        }
        let key = round.queue.remove(0);
        round.tried.push(key.clone());
        Some(Take { key, lock: round.locked, force: round.force })
    }

    /// A round is asked for (`flushes`: by that many `flush()` calls).
    pub(crate) fn ask(&mut self, force: bool, flushes: usize, now: f64, out: &mut Vec<Do>) {
        if !self.sends(now) {
            if flushes > 0 {
                out.push(Do::Flushed(flushes));
            }
            return;
        }
        match &mut self.round {
            Some(round) if !round.begun => {
                round.force |= force;
                round.flushes += flushes;
            }
            // An ask, the timer, another tab letting go, the page shown or resumed: the round under
            // way reads the keys due again, once for a burst of asks.
            Some(round) if round.going && !round.purging && !force && flushes == 0 => {
                if round.feeding {
                    round.again = true;
                } else {
                    out.push(round.feed());
                }
            }
            Some(_) => {
                let wanted = self.wanted.get_or_insert_with(Wanted::default);
                wanted.force |= force;
                wanted.flushes += flushes;
            }
            None => self.start(force, flushes, out),
        }
    }

    /// A new round: it asks for the lock, or begins at once without one.
    fn start(&mut self, force: bool, flushes: usize, out: &mut Vec<Do>) {
        self.rounds += 1;
        self.round = Some(Round {
            number: self.rounds,
            begun: false,
            locked: false,
            force,
            going: true,
            queue: Vec::new(),
            tried: Vec::new(),
            senders: 0,
            feeding: false,
            again: false,
            purging: false,
            flushes,
        });
        self.disarm(out);
        match self.senders {
            Senders::ByTurns => {
                self.lock = Lock::Asked;
                out.push(Do::AskLock);
            }
            Senders::Alone => {
                if let Some(round) = &mut self.round {
                    round.locked = true;
                }
                self.begin(out);
            }
            Senders::All => self.begin(out),
        }
    }

    pub(crate) fn begin(&mut self, out: &mut Vec<Do>) {
        let Some(round) = &mut self.round else { return };
        round.begun = true;
        out.push(round.feed());
    }

    /// Starts senders up to the concurrency, while there is something to take.
    pub(crate) fn fill(&mut self, out: &mut Vec<Do>) {
        let Some(round) = self.round.as_mut().filter(|round| round.going) else { return };
        let count = round.queue.len().min(self.concurrency.saturating_sub(round.senders));
        if count > 0 {
            round.senders += count;
            out.push(Do::Senders { round: round.number, count });
        }
    }

    /// The round ends once nothing is fed, queued, sent or purged: a round that went to its end
    /// purges the retention first; then the lock is given back, and the next round asked for.
    pub(crate) fn end(&mut self, now: f64, out: &mut Vec<Do>) {
        let Some(round) = &mut self.round else { return };
        let idle = round.senders == 0 && !round.feeding && !round.purging;
        if !idle || (round.going && !round.queue.is_empty()) || !round.begun {
            return;
        }
        if core::mem::take(&mut round.again) && round.going {
            return out.push(round.feed());
        }
        if round.going && (round.locked || self.senders == Senders::All) {
            round.going = false;
            round.purging = true;
            out.push(Do::Purge);
            return;
        }
        let flushes = round.flushes;
        self.round = None;
        self.release(false, out);
        if flushes > 0 {
            out.push(Do::Flushed(flushes));
        }
        match self.wanted.take() {
            Some(wanted) => self.ask(wanted.force, wanted.flushes, now, out),
            None => self.schedule(now, out),
        }
    }

    /// The page hid or left: the lock goes back now, and the round takes nothing more (its sends
    /// finish, and their answers are written).
    pub(crate) fn stop(&mut self, out: &mut Vec<Do>) {
        match &mut self.round {
            Some(round) if round.begun => {
                round.going = false;
                round.queue.clear();
                round.again = false;
            }
            Some(_) => self.drop_round(false, out),
            None => {}
        }
        self.release(true, out);
        self.drop_wanted(out);
    }

    /// The round is dropped, and its `flush()` calls resolved: its calls aborted when `abort`
    /// (the page froze, or the outbox closed), and the lock given back.
    pub(crate) fn drop_round(&mut self, abort: bool, out: &mut Vec<Do>) {
        if let Some(round) = self.round.take() {
            if abort && round.begun {
                out.push(Do::Abort);
            }
            if round.flushes > 0 {
                out.push(Do::Flushed(round.flushes));
            }
        }
        if abort {
            self.release(true, out);
            self.drop_wanted(out);
        }
    }

    fn drop_wanted(&mut self, out: &mut Vec<Do>) {
        if let Some(Wanted { flushes: flushes @ 1.., .. }) = self.wanted.take() {
            out.push(Do::Flushed(flushes));
        }
    }

    /// Gives the lock back (or the request for it), telling the other tabs when `tell` and it
    /// was held.
    pub(crate) fn release(&mut self, tell: bool, out: &mut Vec<Do>) {
        let was = core::mem::replace(&mut self.lock, Lock::Free);
        if was != Lock::Free {
            out.push(Do::Release);
        }
        if tell && was == Lock::Held {
            out.push(Do::Tell);
        }
    }

    /// Whether a round may begin now.
    pub(crate) fn sends(&self, now: f64) -> bool {
        let page = matches!(self.page, Page::Shown | Page::Hidden);
        page && !self.paused && self.online && self.yielding.is_none_or(|until| until <= now)
    }

    /// Arms the timer for the next thing due (or the end of the hidden page's second), when
    /// nothing runs: an entry already due waits [`AGAIN_MS`] (a round left it, or another tab is
    /// taking it).
    pub(crate) fn schedule(&mut self, now: f64, out: &mut Vec<Do>) {
        if self.round.is_some() {
            return;
        }
        let live = matches!(self.page, Page::Shown | Page::Hidden) && !self.paused && self.online;
        let at = self.yielding.map_or(self.next, |until| until.max(self.next));
        let at = if at <= now { now + AGAIN_MS } else { at };
        if !live || at == f64::INFINITY {
            return self.disarm(out);
        }
        if self.armed != Some(at) {
            self.armed = Some(at);
            out.push(Do::Arm(at));
        }
    }

    pub(crate) fn disarm(&mut self, out: &mut Vec<Do>) {
        if self.armed.take().is_some() {
            out.push(Do::Disarm);
        }
    }
}
