//! What an outbox keeps for sending (`send.rs` decides what to do with it): the Web Lock, the
//! round under way, the keys in flight, the `flush()`es waiting, the timer, the listeners and the
//! channel to the other tabs. Dropping it, when the outbox closes, lets go of all of them.

use super::browser::Timer;
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
    /// The `resolve` of each `flush()` waiting for a round to end.
    pub(super) waiters: Vec<Function>,
    /// Another tab asked for a flush: tell it when the round ends.
    pub(super) asked: bool,
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
        for waiter in self.waiters.drain(..) {
            let _ = waiter.call0(&JsValue::UNDEFINED);
        }
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

/// `{ [flag]: true }`, a message between tabs.
pub(super) fn message(flag: &str) -> JsValue {
    let message = Object::new();
    let _ = Reflect::set(&message, &flag.into(), &true.into());
    message.into()
}
