//! When an outbox sends, and from which tab: the "when" around the table of rules.
//!
//! - **Which tab.** With IndexedDB, one tab of an outbox sends: the one that holds its Web Lock
//!   (`plant-store-outbox:{name}`). Every tab asks for the lock when it opens and keeps the request
//!   queued, so that when the sending tab closes (or pauses), the next one takes over at once: it
//!   reads what changed, sends again what the other left `sending`, and goes on. Without the Web
//!   Locks API every tab sends (the compare-and-write of each change still lets one tab mark an
//!   entry `sending`), and open says what that means. A caller's store serves one process: it
//!   always sends.
//! - **When.** A round reads the store's active entries (what another tab changed), removes the
//!   created entries past their retention, then runs `concurrency` workers, each sending the next
//!   due entry until none is due. Rounds start on open, `add`, `resume`, `retry`, a message from
//!   another tab, the `online` event (every pending entry, whatever its wait), the page coming into
//!   view, the timer of the earliest next attempt, and `flush`. While `navigator.onLine` is false
//!   nothing is sent, so being offline spends no attempt.
//! - **Tabs** tell each other each write over a BroadcastChannel; a tab that missed one reads it
//!   with the store's active entries, at its next round or when its page comes into view.

use super::browser::{deferred, offline, promise, warn, web_locks, Timer, GLOBAL};
use super::entry::{Event, Sent};
use super::held::{Core, Failed};
use super::record::get;
use super::schedule::{message, wait_ms, Lock};
use super::store::failure;
use super::{Entry, State};
use alloc::boxed::Box;
use alloc::rc::{Rc, Weak};
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::{Cell, RefCell};
use js_sys::futures::{spawn_local, JsFuture};
use js_sys::{Array, Date, Math, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{BroadcastChannel, EventTarget, MessageEvent};

/// The most created entries one round removes from IndexedDB.
const PURGE_PER_ROUND: u32 = 100;

/// Starts sending from here (open, resume): listens, then sends, or asks for the lock.
pub(crate) fn start(core: &Rc<Core>) {
    if core.closed.get() {
        return;
    }
    if core.with(|s| s.listeners.is_empty() && s.channel.is_none()) {
        listen(core);
    }
    if core.with(|s| s.leader) {
        return kick(core, false);
    }
    match (core.store.idb().is_some(), web_locks()) {
        (true, Some(locks)) => {
            if core.with(|s| matches!(s.lock, Lock::None)) && !core.paused.get() {
                core.with(|s| s.lock = Lock::Asked);
                let name = ["plant-store-outbox:", &core.name].concat();
                let weak = Rc::downgrade(core);
                let granted = Closure::once_into_js(move |_lock: JsValue| granted(&weak));
                if locks.request(&name, granted.unchecked_ref()).is_err() {
                    core.with(|s| s.lock = Lock::None);
                }
            }
        }
        (idb, locks) => {
            if idb && locks.is_none() {
                warn(
                    "plant-store-client/outbox: this browser has no Web Locks API, so every tab \
                      of the outbox sends: an entry being sent when another tab opens is sent \
                      again by that tab, with the same Idempotency-Key",
                );
            }
            took_over(core);
        }
    }
}

/// The lock is this tab's: it leads until it closes or pauses. Returns the promise that holds the
/// lock until then.
fn granted(core: &Weak<Core>) -> Promise {
    let Some(core) = core.upgrade().filter(|core| !core.stopped()) else {
        if let Some(core) = core.upgrade() {
            core.with(|s| s.lock = Lock::None);
        }
        return Promise::resolve(&JsValue::UNDEFINED);
    };
    let (held, release, _) = deferred();
    core.with(|s| s.lock = Lock::Held(release));
    took_over(&core);
    held
}

/// This tab sends from now on: it reads what changed, sends again what a sender that is gone left
/// `sending`, then starts a round.
fn took_over(core: &Rc<Core>) {
    core.with(|s| s.leader = true);
    let core = core.clone();
    spawn_local(async move {
        reload(&core).await;
        resend_left(&core).await;
        // Whoever waited for a flush, here or in another tab: this round is it.
        kick(&core, core.with(|s| !s.waiters.is_empty() || !s.asked.is_empty()));
    });
}

/// Marks for sending again what is left `sending` with no call of this tab under way: what a
/// sender that is gone left, or what this tab's store failed to record the answer of.
async fn resend_left(core: &Core) {
    let left: Vec<String> = core.with(|s| {
        let entries = core.entries.borrow();
        let gone = entries.iter().filter(|e| e.state == State::Sending);
        gone.filter(|e| !s.in_flight.contains(&e.key)).map(|e| e.key.clone()).collect()
    });
    for key in left {
        let _ = core.change(&key, &Event::Abandoned).await;
    }
}

/// Lets go of the Web Lock, when held: the next tab takes over. (Without one, a tab keeps
/// sending once it resumes.)
fn yield_lock(core: &Core) {
    core.with(|s| s.release());
}

/// Starts a round, or asks the one under way for one more (`force`: a round that sends every
/// pending entry once). A tab that does not send only lets `flush()` go when closed; one paused
/// lets go of the lock once its requests are done.
pub(crate) fn kick(core: &Rc<Core>, force: bool) {
    if core.closed.get() {
        return release_waiters(core);
    }
    let start = core.with(|s| {
        if !s.leader {
            return false;
        }
        s.forced |= force;
        if s.running {
            s.again = true;
            return false;
        }
        s.running = true;
        true
    });
    if start {
        spawn_local(rounds(core.clone()));
    }
}

/// Resolves once every pending entry was tried: at once when closed or paused; in a tab that does
/// not send, once the one that does tells that it tried them.
pub(crate) async fn flush(core: &Rc<Core>) {
    if core.stopped() {
        return;
    }
    let (done, resolve, _) = deferred();
    let id = Math::random();
    core.with(|s| s.waiters.push((id, resolve)));
    if core.with(|s| s.leader) {
        kick(core, true);
    } else {
        core.with(|s| s.post(&message("flush", &id.into())));
    }
    let _ = JsFuture::from(done).await;
}

fn release_waiters(core: &Core) {
    core.with(|s| s.release_waiters());
}

async fn rounds(core: Rc<Core>) {
    loop {
        let force = core.with(|s| {
            s.again = false;
            core::mem::take(&mut s.forced)
        });
        round(&core, force).await;
        if !core.with(|s| s.again) || core.stopped() {
            break;
        }
    }
    let asked = core.with(|s| {
        s.running = false;
        core::mem::take(&mut s.asked)
    });
    release_waiters(&core);
    if !asked.is_empty() {
        let ids: Array = asked.into_iter().map(JsValue::from).collect();
        core.with(|s| s.post(&message("flushed", &ids)));
    }
    schedule(&core);
    if core.paused.get() && !core.closed.get() {
        yield_lock(&core);
    }
}

/// One round: what changed, what is left `sending` (where this tab is the one sender), the
/// purge, then `concurrency` workers.
async fn round(core: &Rc<Core>, force: bool) {
    reload(core).await;
    if sole_sender(core) {
        resend_left(core).await;
    }
    purge(core).await;
    let tried = Rc::new(RefCell::new(Vec::new()));
    let workers: Array = (0..core.concurrency)
        .map(|_| JsValue::from(promise(worker(core.clone(), force, tried.clone()))))
        .collect();
    let _ = JsFuture::from(Promise::all(&workers)).await;
}

async fn worker(
    core: Rc<Core>,
    force: bool,
    tried: Rc<RefCell<Vec<String>>>,
) -> Result<JsValue, JsValue> {
    while let Some(entry) = due(&core, force, &tried) {
        send(&core, entry).await;
    }
    Ok(JsValue::UNDEFINED)
}

/// The next entry to send, taken: pending, not in flight, not yet tried in this round, and due (or
/// any of those in a forced round), past the wait its server asked for. None while closed, paused
/// or offline.
fn due(core: &Core, force: bool, tried: &RefCell<Vec<String>>) -> Option<Entry> {
    if core.stopped() || offline() || !core.with(|s| s.leader) {
        return None;
    }
    let now = Date::now();
    let entries = core.entries.borrow();
    let mut tried = tried.borrow_mut();
    core.with(|s| {
        let entry = entries.iter().find(|e| {
            e.state == State::Pending
                && (force || e.next_attempt_at.is_none_or(|at| at <= now))
                && e.not_before.is_none_or(|at| at <= now)
                && !s.in_flight.contains(&e.key)
                && tried.binary_search(&e.key).is_err()
        })?;
        s.in_flight.push(entry.key.clone());
        if let Err(at) = tried.binary_search(&entry.key) {
            tried.insert(at, entry.key.clone());
        }
        Some(entry.clone())
    })
}

/// One send: the entry marked `sending` and stored, the call with its key, what the call made of
/// it stored. A closed outbox, or a store that fails to record the answer, leaves it `sending`:
/// the next sender, or this one's next round, sends it again.
async fn send(core: &Rc<Core>, entry: Entry) {
    let key = entry.key;
    if let Ok(Some(sending)) = core.change(&key, &Event::Sending).await {
        let requests = Rc::new(Cell::new(0));
        let options = core.call_options(&key, requests.clone());
        let outcome = core.client.create_plant_with(&sending.plant, &options).await;
        let settled = Event::Settled(Sent::of(&outcome, requests.get()));
        if core.closed.get() {
            // Left `sending`: the next sender sends it again.
        } else if let Err(Failed::Store(cause)) = core.change(&key, &settled).await {
            let said = failure(&cause);
            warn(&[
                "plant-store-client/outbox: its store could not record the answer to entry ",
                &key,
                " (",
                &said,
                "): the entry stays `sending` until it is sent again, with the same Idempotency-Key",
            ]
            .concat());
        }
    }
    core.with(|s| s.in_flight.retain(|k| *k != key));
}

/// This tab is the one that sends: it holds the Web Lock, or the store is the caller's (one
/// process). An entry it finds `sending` with no call of its own under way is then left over.
fn sole_sender(core: &Core) -> bool {
    core.store.idb().is_none() || core.with(|s| matches!(s.lock, Lock::Held(_)))
}

/// Reads the store's active entries (IndexedDB): what another tab changed, or removed, and this
/// one did not hear. A round costs the entries not created, however many were created before.
async fn reload(core: &Core) {
    let Some(idb) = core.store.idb() else {
        return;
    };
    let known: Vec<String> = core
        .entries
        .borrow()
        .iter()
        .filter(|e| e.state != State::Created)
        .map(|e| e.key.clone())
        .collect();
    let Ok(records) = idb.active().await else {
        return;
    };
    let mut held = Vec::with_capacity(records.len());
    for record in &records {
        if let Some(key) = get(record, "key").as_string() {
            held.push(key);
        }
        core.heard_record(record);
    }
    held.sort_unstable();
    // Known before the read as not created, and no longer active: created or removed elsewhere.
    for key in known.iter().filter(|key| held.binary_search(key).is_err()) {
        match idb.get(key).await {
            Ok(record) if record.is_undefined() => core.forget(key),
            Ok(record) => core.heard_record(&record),
            Err(_) => {}
        }
    }
    core.unreadable
        .borrow_mut()
        .retain(|u| u.key.as_ref().is_some_and(|k| held.binary_search(k).is_ok()));
}

/// Removes the created entries past their retention: from the store (IndexedDB: a few at a time,
/// by its index of created entries, each removal told to the other tabs; a caller's store: those
/// the outbox holds), and from memory.
async fn purge(core: &Core) {
    let before = Date::now() - core.retention_ms;
    let expired: Vec<String> = core
        .entries
        .borrow()
        .iter()
        .filter(|e| e.state == State::Created && e.updated_at <= before)
        .map(|e| e.key.clone())
        .collect();
    match core.store.idb() {
        Some(idb) => {
            for key in idb.purge(before, PURGE_PER_ROUND).await.unwrap_or_default() {
                core.tell_tabs(&key, None);
            }
            for key in expired {
                core.forget(&key);
            }
        }
        None => {
            for key in expired {
                let _ = core.change(&key, &Event::Expired(core.retention_ms)).await;
            }
        }
    }
}

/// Arms the timer of the next round, for the earliest entry due ([`wait_ms`]): a pending one at
/// its next attempt, and, where this tab is the one sender, one left `sending` with no call under
/// way (its store failed to record an answer) at once.
fn schedule(core: &Rc<Core>) {
    let now = Date::now();
    let left = sole_sender(core);
    let due: Vec<f64> = core.with(|s| {
        let entries = core.entries.borrow();
        let due = entries.iter().filter_map(|e| match e.state {
            State::Pending => {
                let at = e.next_attempt_at.unwrap_or(now);
                Some(e.not_before.map_or(at, |asked| asked.max(at)))
            }
            State::Sending if left && !s.in_flight.contains(&e.key) => Some(now),
            _ => None,
        });
        due.collect()
    });
    let wait = wait_ms(due, now, offline()).filter(|_| !core.stopped() && core.with(|s| s.leader));
    let timer = wait.map(|ms| {
        let core = Rc::downgrade(core);
        Timer::new(ms, Box::new(move || wake(&core, false)))
    });
    core.with(|s| s.timer = timer);
}

fn wake(core: &Weak<Core>, force: bool) {
    if let Some(core) = core.upgrade() {
        kick(&core, force);
    }
}

/// Listens for the wake-ups of the page or worker (`online`, `visibilitychange`), and, with
/// IndexedDB, to the other tabs.
fn listen(core: &Rc<Core>) {
    let global = GLOBAL.with(JsValue::clone);
    let document = Reflect::get(&global, &"document".into()).unwrap_or_default();
    let mut listeners = Vec::new();
    for (target, event) in [(global, "online"), (document.clone(), "visibilitychange")] {
        let Some(target) = target.dyn_ref::<EventTarget>() else {
            continue;
        };
        let weak = Rc::downgrade(core);
        let document = document.clone();
        let listener = Closure::<dyn FnMut()>::new(move || {
            let Some(core) = weak.upgrade() else { return };
            if event == "online" {
                return kick(&core, true);
            }
            // In view again: what changed meanwhile (a tab that does not send learns it too).
            if get(&document, "visibilityState").as_string().as_deref() == Some("visible") {
                spawn_local(async move {
                    reload(&core).await;
                    kick(&core, false);
                });
            }
        });
        let _ = target.add_event_listener_with_callback(event, listener.as_ref().unchecked_ref());
        listeners.push((target.clone(), event, listener));
    }
    let channel = core.store.idb().and_then(|_| {
        let channel = BroadcastChannel::new(&["plant-store-outbox:", &core.name].concat()).ok()?;
        let weak = Rc::downgrade(core);
        let listener = Closure::<dyn FnMut(MessageEvent)>::new(move |message: MessageEvent| {
            if let Some(core) = weak.upgrade() {
                heard(&core, &message.data());
            }
        });
        channel.set_onmessage(Some(listener.as_ref().unchecked_ref()));
        Some((channel, listener))
    });
    core.with(|s| (s.listeners, s.channel) = (listeners, channel));
}

/// Another tab's message: a record it wrote, a key it removed, a flush it asks for, or the
/// flushes it answered.
fn heard(core: &Rc<Core>, data: &JsValue) {
    if let Some(id) = get(data, "flush").as_f64() {
        core.with(|s| s.asked.push(id));
        kick(core, true);
    } else if let Some(ids) = get(data, "flushed").dyn_ref::<Array>() {
        let ids: Vec<f64> = ids.iter().filter_map(|id| id.as_f64()).collect();
        core.with(|s| s.answered(&ids));
    } else if get(data, "removed").is_truthy() {
        if let Some(key) = get(data, "key").as_string() {
            core.forget(&key);
        }
    } else {
        core.heard_record(data);
        kick(core, false);
    }
}
