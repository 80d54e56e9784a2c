//! What an outbox keeps for sending (`send.rs` decides what to do with it): the Web Lock, the
//! round under way, the keys in flight, the `flush()`es waiting, the timer, the listeners and the
//! channel to the other tabs. Dropping it, when the outbox closes, lets go of all of them.

use super::browser::Timer;
use crate::MAX_TIMEOUT_MS;
use alloc::string::String;
use alloc::vec::Vec;
use js_sys::{Function, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{BroadcastChannel, EventTarget, MessageEvent};

/// What an outbox keeps for sending; dropped (when the outbox closes), it stops listening and
/// waiting, lets `flush()` go and gives the Web Lock back.
#[derive(Default)]
pub(crate) struct Scheduler {
    /// This tab sends: it holds the lock, or there is none to hold.
    pub(super) leader: bool,
    /// The Web Lock: asked for (queued), or held until its `release` is called.
    pub(super) lock: Lock,
    /// A round is under way; `again` asks it for one more, `forced` for one that sends every
    /// pending entry once, whatever its wait.
    pub(super) running: bool,
    pub(super) again: bool,
    pub(super) forced: bool,
    /// The keys being sent from here.
    pub(super) in_flight: Vec<String>,
    /// Each `flush()` waiting for a round to end: its id (the one it asked another tab with) and
    /// its `resolve`.
    pub(super) waiters: Vec<(f64, Function)>,
    /// The flushes other tabs asked for and no tab has answered yet: the sending tab answers them
    /// when its round ends, and a tab that takes over answers those it heard.
    pub(super) asked: Vec<f64>,
    /// The timer of the earliest next attempt.
    pub(super) timer: Option<Timer>,
    /// The `online` and `visibilitychange` listeners.
    pub(super) listeners: Vec<Listener>,
    /// The channel to the other tabs of this outbox (IndexedDB only).
    pub(super) channel: Option<Channel>,
}

/// A listener added to a target, removed when the outbox closes.
pub(super) type Listener = (EventTarget, &'static str, Closure<dyn FnMut()>);
/// A channel and its listener.
pub(super) type Channel = (BroadcastChannel, Closure<dyn FnMut(MessageEvent)>);

#[derive(Default)]
pub(super) enum Lock {
    #[default]
    None,
    Asked,
    Held(Function),
}

impl Scheduler {
    /// Lets go of the Web Lock, when held: the next tab takes over.
    pub(super) fn release(&mut self) {
        if let Lock::Held(release) = core::mem::take(&mut self.lock) {
            self.leader = false;
            let _ = release.call0(&JsValue::UNDEFINED);
        }
    }

    /// Lets every `flush()` waiting go.
    pub(super) fn release_waiters(&mut self) {
        for (_, waiter) in self.waiters.drain(..) {
            let _ = waiter.call0(&JsValue::UNDEFINED);
        }
    }

    /// Another tab answered the flushes `ids`: lets go of this tab's among them, and forgets them.
    pub(super) fn answered(&mut self, ids: &[f64]) {
        self.asked.retain(|id| !ids.contains(id));
        self.waiters.retain(|(id, waiter)| {
            let done = ids.contains(id);
            if done {
                let _ = waiter.call0(&JsValue::UNDEFINED);
            }
            !done
        });
    }

    /// Tells the other tabs of this outbox `message` (IndexedDB only).
    pub(super) fn post(&self, message: &JsValue) {
        if let Some((channel, _)) = &self.channel {
            let _ = channel.post_message(message);
        }
    }
}

impl Drop for Scheduler {
    fn drop(&mut self) {
        for (target, event, listener) in self.listeners.drain(..) {
            let _ = target
                .remove_event_listener_with_callback(event, listener.as_ref().unchecked_ref());
        }
        if let Some((channel, _)) = self.channel.take() {
            channel.close();
        }
        self.release_waiters();
        self.release();
    }
}

/// `{ [kind]: value }`, a message between tabs.
pub(super) fn message(kind: &str, value: &JsValue) -> JsValue {
    let message = Object::new();
    let _ = Reflect::set(&message, &kind.into(), value);
    message.into()
}

/// The least wait before a round for an entry that is already due: the round that just ended
/// could not send it (its store failed), and a store that keeps failing is tried again this often.
const AGAIN_MS: f64 = 1_000.0;

/// How long to wait for the next round, from when each entry is due (its next attempt; now for
/// one left `sending` with no call under way): none while offline, where the `online` event wakes
/// the outbox; at least [`AGAIN_MS`] for an entry already due, so that a round that cannot send
/// is not started again at once.
pub(super) fn wait_ms(due: impl IntoIterator<Item = f64>, now: f64, offline: bool) -> Option<f64> {
    if offline {
        return None;
    }
    let waits = due.into_iter().map(|at| if at <= now { AGAIN_MS } else { at - now });
    // The longest a timer waits.
    waits.reduce(f64::min).map(|ms| ms.min(f64::from(MAX_TIMEOUT_MS)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wait_for_the_next_round() {
        let now = 1_000_000.0;
        let table: [(&[f64], bool, Option<f64>); 7] = [
            (&[], false, None),
            (&[now + 300.0], false, Some(300.0)),
            (&[now + 300.0, now + 50.0], false, Some(50.0)),
            (&[now + 300.0], true, None),
            (&[now, now + 5_000.0], false, Some(AGAIN_MS)),
            (&[now - 60_000.0, now + 20.0], false, Some(20.0)),
            (&[now + 1e12], false, Some(2_147_483_647.0)),
        ];
        for (due, offline, wait) in table {
            assert_eq!(
                wait_ms(due.iter().copied(), now, offline),
                wait,
                "{due:?} offline {offline}"
            );
        }
    }
}
