//! The life of a tab's page: what each event of the page, the network and the store means (hidden,
//! shown, frozen or cached, back, gone, offline, online), when a round may begin, what becomes of
//! an answer the store could not record, the timer, and how a tab lets go and closes.

use super::tab::{
    Action, Answer, Failure, Input, Op, Page, Plan, Round, Tab, Why, AGAIN_MS, YIELD_MS,
};
use super::table::Event;
use alloc::string::String;
use alloc::vec::Vec;

impl<V: Clone> Tab<V> {
    /// What an event means: the page hid or was shown, froze (or went into the back/forward
    /// cache), came back, or left for good; the network came or went; the store closed under it.
    pub(crate) fn event(&mut self, kind: &str, persisted: bool, hidden: bool) {
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
                self.let_go(true);
            }
            ("resume", Page::Frozen) => {
                (self.page, self.id) = (Page::Shown, self.new_id());
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
            ("deleted", _) => self.close(Some("the outbox's database is being deleted")),
            ("close", _) => self.close(Some(
                "the browser closed the outbox's database (storage cleared, or a disk error)",
            )),
            _ => {}
        }
    }

    /// A request for a Web Lock failed: without the lock of rounds every tab sends; without either,
    /// what this tab sends is taken over only once its call has surely ended.
    pub(crate) fn refused(&mut self, tab: bool, why: &str) {
        if tab {
            let message = [
                "plant-store-client/outbox: this tab's own Web Lock was refused (",
                why,
                "): what it is sending is sent again by another tab only once its call has surely \
                 ended, with the same Idempotency-Key",
            ];
            return self.out.push(Action::Warn(message.concat()));
        }
        self.warn(&["a request for its Web Lock failed (", why, ")"].concat());
        self.locks = false;
        self.granted();
    }

    /// A round may begin now.
    pub(crate) fn sends(&self) -> bool {
        self.awake() && !matches!(self.page, Page::Hidden(until) if until > self.now)
    }

    /// The page shown or hidden, and the tab neither paused nor offline.
    fn awake(&self) -> bool {
        matches!(self.page, Page::Shown | Page::Hidden(_)) && !self.paused && self.online
    }

    /// What a closed tab still does: its writes end, its calls' answers are written, the store
    /// shuts once none is under way; an app's call is refused.
    pub(crate) fn closed(&mut self, input: Input<V>) {
        let (reply, name) = match input {
            Input::Add { reply, .. } => (reply, "add"),
            Input::Get { reply, .. } => (reply, "get"),
            Input::Act { reply, name, .. } => (reply, name),
            Input::Answered { n, sent, left } => return self.answered(n, sent, left),
            input => return self.store(input),
        };
        self.reply(reply, Answer::Refused(["outbox.", name, ": the outbox is closed"].concat()));
    }

    /// Closes the tab: its round dropped, its calls aborted (their answers written), its locks
    /// given back, the store shut once its writes are over. When the store closed on its own
    /// (`why`, told to the app), only the app's writes are waited for.
    pub(crate) fn close(&mut self, why: Option<&'static str>) {
        if matches!(self.page, Page::Closed | Page::Shut) {
            return;
        }
        if !matches!(self.page, Page::Opening | Page::Frozen) {
            // The app's own writes under way end before the store shuts; the calls do not.
            self.let_go(false);
        }
        self.page = Page::Closed;
        let wanted = self.wanted.take();
        self.flushed(wanted);
        if let Some(why) = why {
            // The senders' writes and calls are dropped, and the round ends with no sender; the
            // app's own writes under way are still answered, as the store ends them.
            self.out.push(Action::Closed { why });
            let sender = |op: &Op| {
                matches!(op, Op::Call { .. } | Op::Write { why: Why::Send | Why::Left, .. })
            };
            self.ops.retain(|(_, op)| !sender(op));
            self.end();
        }
        self.shut();
    }

    pub(crate) fn shut(&mut self) {
        let busy = |(_, op): &(u32, Op)| matches!(op, Op::Write { .. } | Op::Call { .. });
        if self.page == Page::Closed && !self.ops.iter().any(busy) {
            self.page = Page::Shut;
            self.out.push(Action::Shut);
        }
    }

    /// A frozen (`abandon`) or closing page lets go: its calls aborted, the lock of rounds and its
    /// own, and when frozen the store's transactions but inserts; another tab takes over what it was
    /// sending.
    fn let_go(&mut self, abandon: bool) {
        self.out.push(Action::Abort);
        self.stop();
        if abandon {
            self.out.push(Action::Abandon);
        }
        self.own_lock = false;
        self.out.push(Action::Release { tab: true });
    }

    /// An answer the store could not record: the entry stays `sending`, to be sent again with its
    /// key. A frozen page writes it once back; a page that left, never.
    pub(crate) fn unrecorded(&mut self, key: String, event: Event, failure: &Failure<V>) {
        match self.page {
            Page::Frozen => self.left.push((key, event)),
            Page::Gone | Page::Closed | Page::Shut => {}
            _ => {
                let message = [
                    "plant-store-client/outbox: its store could not record the answer to entry ",
                    &key,
                    ": it stays sending, and is sent again with the same Idempotency-Key (",
                    &failure.said,
                    ")",
                ];
                self.out.push(Action::Warn(message.concat()));
            }
        }
    }

    /// Arms the timer for the next round, when none runs and one may (never in a service worker,
    /// whose rounds are its events'): at the earliest entry due or created entry expiring (one due
    /// already, a second on at the latest: a round left it, another tab is sending it or told of
    /// it), and on a hidden page not before the end of its second.
    pub(crate) fn arm(&mut self) {
        let may = self.awake() && !self.rules.worker;
        let at = match (&self.round, self.held.next_due(), self.page) {
            (Round::Idle, Some(at), Page::Hidden(until)) if may => Some(at.max(until)),
            (Round::Idle, at, _) if may => at,
            _ => None,
        };
        let at = match (at, self.timer) {
            (Some(at), Some(armed)) if at <= self.now && armed > self.now => {
                Some(armed.min(self.now + AGAIN_MS))
            }
            (Some(at), _) if at <= self.now => Some(self.now + AGAIN_MS),
            (at, _) => at,
        };
        if at != self.timer {
            self.timer = at;
            self.out.push(Action::Arm { at });
        }
    }

    /// Whether a page asks its service worker to deliver (Background Sync, where one does): with
    /// an add and after a failed send, so that a plant left waiting when the page goes is sent with
    /// none open. Not while paused: `pause()` holds the sending back.
    pub(crate) fn syncs(&self) -> bool {
        !self.rules.worker && !self.paused
    }

    pub(crate) fn sync(&mut self) {
        if self.syncs() {
            self.out.push(Action::Sync);
        }
    }
}
