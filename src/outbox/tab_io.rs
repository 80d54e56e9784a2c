//! What goes into a tab's machine (`tab.rs`) and what comes out: [`Input`], what happened to
//! the tab, and [`Do`], what its shell does next; [`Take`], what a sender takes.

use alloc::string::String;
use alloc::vec::Vec;

/// What happened.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Input {
    /// A round is asked for: on open and when the page is back, on `retry`, and after an answer
    /// the store could not record.
    Ask,
    /// An entry was added here, due now: into the round under way, else a round is asked for.
    Added(String),
    /// `flush()`: a round that takes every entry waiting, after the one under way.
    Flush,
    /// The Web Lock is held; the request for it failed (this tab sends without it from now on).
    Granted,
    LockFailed,
    /// The keys due, read for round number `round`.
    Fed {
        round: u32,
        keys: Vec<String>,
    },
    /// A sender of round number `round` has nothing more to take, its last answer written.
    SenderDone {
        round: u32,
    },
    /// The retention's purge is over.
    Purged,
    /// When what this tab holds is next due (an entry, or a created one's expiry).
    Due(f64),
    /// The timer went off.
    Timer,
    /// The page hid, was shown again, froze (or went into the back/forward cache), came back, or
    /// left for good.
    Hidden,
    Shown,
    Frozen,
    Resumed,
    Left,
    /// The network is back, or gone.
    Online,
    Offline,
    /// Another tab let go of the lock.
    Released,
    /// The app's `pause()`, `resume()` and `close()`.
    Pause,
    Resume,
    Close,
}

/// What the shell does.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Do {
    /// Request the Web Lock (the shell tells `Granted` or `LockFailed`).
    AskLock,
    /// Give the lock back now, or drop the request for it.
    Release,
    /// Tell the other tabs that this one let go, so that one of them takes over.
    Tell,
    /// Read the keys due for round number `round` (`force`: every one waiting), and when it holds
    /// the `lock` the tabs alive, then tell `Fed`.
    Feed {
        round: u32,
        force: bool,
        lock: bool,
    },
    /// Start this many senders of round number `round`: each takes `Tab::next` (`round.rs`)
    /// until it gives none, writing each answer with the next take, then tells `SenderDone`.
    Senders {
        round: u32,
        count: usize,
    },
    /// Abort the calls in flight: their entries are given back as left once the store can write.
    Abort,
    /// End the store's transactions and begin none; begin again, and read the store anew.
    Suspend,
    Reload,
    /// Remove the created entries past their retention, then tell `Purged`.
    Purge,
    /// Arm the timer for this time (replacing the one armed), or disarm it.
    Arm(f64),
    Disarm,
    /// Resolve this many `flush()` calls, in the order they came.
    Flushed(usize),
}

/// One entry to take, and how: with the lock, forced.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Take {
    pub(crate) key: String,
    pub(crate) lock: bool,
    pub(crate) force: bool,
}
