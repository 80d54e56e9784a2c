//! A tab's round ([`Round`]): the Web Lock asked for, then the keys due read and sent by up to
//! `concurrency` senders (each writes its last answer with its next take, in one transaction, then
//! calls), the retention purged, and the lock given back. A page that hides, `pause()` and going
//! offline end it early: it takes nothing more and gives the lock back; its calls finish.

use super::entry::{Entry, Sent, NEVER};
use super::tab::{Action, Answer, Op, Page, Plan, Round, Tab, Why};
use super::table::Event;
use alloc::string::String;
use alloc::vec::Vec;

impl<V: Clone> Tab<V> {
    /// Says, in the console, that every tab sends, and why: once, since a tab without the Web
    /// Locks API, or whose request for one failed, asks for none again.
    pub(crate) fn warn(&mut self, why: &str) {
        let message = [
            "plant-store-client/outbox: ",
            why,
            ", so every tab of the outbox sends: an entry being sent when its tab closes is sent \
             again once its call has surely ended, with the same Idempotency-Key",
        ];
        self.out.push(Action::Warn(message.concat()));
    }

    /// A round is asked for: it begins, or the one asking or sending takes this plan in (sending,
    /// it reads the keys due again, once for a burst), or it comes after the one ending. A service
    /// worker's rounds are its events' (`flush`): the browser may end it outside them.
    pub(crate) fn ask(&mut self, plan: Plan) {
        if self.rules.worker && plan.flushes.is_empty() {
            return;
        }
        if !self.sends() {
            return self.flushed(Some(plan));
        }
        match &mut self.round {
            Round::Idle if self.locks => {
                self.round = Round::Asking(plan);
                self.out.push(Action::Lock { tab: false });
            }
            Round::Idle => self.begin(plan),
            Round::Asking(asked) => asked.join(plan),
            // An entry this round took counts as tried for a flush that comes meanwhile: it is
            // not sent again at once, before its backoff.
            Round::Sending { plan: sending, feeding, .. } => {
                sending.join(plan);
                match feeding {
                    Some(again) => *again = true,
                    None => self.feed(),
                }
            }
            _ => self.wanted.get_or_insert_with(Plan::default).join(plan),
        }
    }

    pub(crate) fn granted(&mut self) {
        if let Round::Asking(plan) = &mut self.round {
            let plan = core::mem::take(plan);
            self.begin(plan);
        }
    }

    pub(crate) fn begin(&mut self, plan: Plan) {
        self.round = Round::Sending { plan, keys: Vec::new(), next: 0, feeding: None };
        self.feed();
    }

    /// Reads the keys due (every one waiting, for a forced round), and the tabs alive.
    fn feed(&mut self) {
        let Round::Sending { plan, feeding, .. } = &mut self.round else { return };
        *feeding = Some(false);
        let until = if plan.force { NEVER - 1.0 } else { self.now };
        let n = self.op(Op::Feed);
        self.out.push(Action::Feed { n, until, locks: self.locks });
    }

    pub(crate) fn fed(&mut self, mut keys: Vec<String>, live: Option<Vec<String>>) {
        if let Some(live) = live {
            self.live = live.into_iter().filter(|id| *id != self.id).collect();
        }
        let Round::Sending { keys: fed, feeding, .. } = &mut self.round else { return };
        keys.retain(|key| !fed.contains(key));
        fed.extend(keys);
        match feeding.take() {
            Some(true) => self.feed(),
            _ => self.fill(),
        }
        self.end();
    }

    /// An entry added here goes into the round sending, else asks for one.
    pub(crate) fn added(&mut self, key: String) {
        match &mut self.round {
            Round::Sending { keys, .. } => {
                if !keys.contains(&key) {
                    keys.push(key);
                }
                self.fill();
            }
            _ => self.ask(Plan::default()),
        }
    }

    /// The senders at work: a sender's write under way, or its call.
    pub(crate) fn senders(&self) -> usize {
        let sender =
            |(_, op): &&(u32, Op)| matches!(op, Op::Call { .. } | Op::Write { why: Why::Send, .. });
        self.ops.iter().filter(sender).count()
    }

    /// Starts senders up to the concurrency while there is something to take.
    fn fill(&mut self) {
        while matches!(&self.round, Round::Sending { keys, next, .. } if *next < keys.len())
            && self.senders() < self.rules.concurrency
        {
            self.send(None);
        }
    }

    /// A sender's next write: the answer of its last call, and the next key to take while the
    /// round sends. Nothing left: the sender is done.
    fn send(&mut self, answer: Option<(String, Event)>) {
        let mut events: Vec<(String, Event)> = answer.into_iter().collect();
        if let Round::Sending { plan, keys, next, .. } = &mut self.round {
            if let Some(key) = keys.get(*next) {
                *next += 1;
                events.push((key.clone(), Event::Take { lock: self.locks, force: plan.force }));
            }
        }
        match events.is_empty() {
            true => self.end(),
            false => self.write(Why::Send, events),
        }
    }

    /// A sender's write is over: it calls what it took, or takes the next key. An entry taken as
    /// the round stopped is given back: no request was made.
    pub(crate) fn sent(&mut self, taken: Option<Entry>) {
        match taken {
            Some(entry) if matches!(self.round, Round::Sending { .. }) => {
                let n = self.op(Op::Call { key: entry.key.clone(), taken: entry.revision });
                self.out.push(Action::Call { n, entry });
            }
            Some(entry) => {
                let (taken, sent) = (entry.revision, Sent::unsent());
                self.give_back(entry.key, Event::Settled { taken, left: true, sent })
            }
            None => self.send(None),
        }
    }

    /// Call number `n` ended: its answer is written with the sender's next take; one that failed
    /// asks for Background Sync (`sync`). In a worker, a call that failed before its request went
    /// out (its `getToken` failed or never answered) leaves the entry to the pages, counting no try.
    pub(crate) fn answered(&mut self, n: u32, sent: Sent, left: bool) {
        let unsent = sent.outcome.is_err() && sent.requests == 0;
        let left = left || (self.rules.worker && unsent);
        if let Some(Op::Call { key, taken }) = self.done(n) {
            if sent.outcome.is_err() {
                self.sync();
            }
            self.give_back(key, Event::Settled { taken, left, sent });
        }
    }

    /// Writes an answer, or keeps it until the frozen page is back.
    fn give_back(&mut self, key: String, event: Event) {
        match self.page {
            Page::Frozen => {
                self.left.push((key, event));
                self.end();
            }
            _ => self.send(Some((key, event))),
        }
    }

    /// The round takes nothing more and gives the lock back at once, telling the other tabs; its
    /// calls finish. The round wanted after it is dropped, and its feed under way: what it read
    /// under the lock may be stale once the lock is given back.
    pub(crate) fn stop(&mut self) {
        self.ops.retain(|(_, op)| !matches!(op, Op::Feed));
        let round = core::mem::take(&mut self.round);
        let held = matches!(round, Round::Sending { .. } | Round::Purging(_)) && self.locks;
        if held || matches!(round, Round::Asking(_)) {
            self.out.push(Action::Release { tab: false });
        }
        if held {
            self.out.push(Action::Post { keys: Vec::new(), released: true });
        }
        self.round = match round {
            Round::Idle => Round::Idle,
            Round::Asking(plan) | Round::Purging(plan) | Round::Ending(plan) => Round::Ending(plan),
            Round::Sending { plan, .. } => Round::Ending(plan),
        };
        let wanted = self.wanted.take();
        self.flushed(wanted);
        self.end();
    }

    /// The round ends once nothing is fed, waiting or sent: one that went to its end purges the
    /// retention first; then the lock goes back, its `flush()` calls are answered, and the round
    /// wanted begins.
    pub(crate) fn end(&mut self) {
        if self.senders() > 0 {
            return;
        }
        match core::mem::take(&mut self.round) {
            Round::Sending { plan, keys, next, feeding: None } if next == keys.len() => {
                self.round = Round::Purging(plan);
                let n = self.op(Op::Purge);
                self.out.push(Action::Purge { n, now: self.now });
            }
            Round::Ending(plan) => self.finish(plan),
            round => self.round = round,
        }
    }

    /// The purge is over: the round ends.
    pub(crate) fn purged(&mut self) {
        if let Round::Purging(plan) = &mut self.round {
            let plan = core::mem::take(plan);
            self.round = Round::Idle;
            if self.locks {
                self.out.push(Action::Release { tab: false });
            }
            self.finish(plan);
        }
    }

    fn finish(&mut self, plan: Plan) {
        self.flushed(Some(plan));
        if let Some(plan) = self.wanted.take() {
            self.ask(plan);
        }
    }

    /// Answers the `flush()` calls of `plan`.
    pub(crate) fn flushed(&mut self, plan: Option<Plan>) {
        for reply in plan.into_iter().flat_map(|plan| plan.flushes) {
            self.reply(reply, Answer::Flushed(self.held.waiting()));
        }
    }
}
