//! How and when an outbox sends. [`kick`] starts a drain (or asks the one under way for one more
//! round); a drain takes the outbox's lock across tabs (the Web Locks API; else a lease in the
//! IndexedDB database; a store of one process needs none), reloads the entries from the store
//! (another tab may have sent some, and an entry left `sending` there is one a closed page sent),
//! then runs `concurrency` workers, each sending the next due entry until none is due. An entry is
//! marked `sending` and stored before its fetch; what the attempt made of it is stored after.
//!
//! The wake-ups: open, `add`, `resume`, the `online` event (every pending entry, whatever its
//! wait), the page becoming visible, the timer of the earliest next attempt, and `flush`. While
//! `navigator.onLine` is false nothing is sent, so being offline spends no attempt.

use super::{Core, Entry, State};
use crate::exchange::{set_timeout, Timer, GLOBAL};
use alloc::boxed::Box;
use alloc::rc::{Rc, Weak};
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::{Cell, RefCell};
use core::future::Future;
use core::pin::Pin;
use js_sys::futures::{future_to_promise, spawn_local, JsFuture};
use js_sys::{Array, Date, Function, Math, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{BroadcastChannel, EventTarget, MessageEvent};

/// How long a lease holds without being renewed.
const LEASE_MS: f64 = 10_000.0;

/// What an outbox keeps for sending: the drain under way, the waits, the listeners.
#[derive(Default)]
pub(crate) struct Sending {
    /// A drain is under way; `again` asks it for one more round, `forced` for one that sends every
    /// pending entry once, whatever its wait.
    draining: Cell<bool>,
    again: Cell<bool>,
    forced: Cell<bool>,
    /// The `resolve` of each `flush()` waiting for the drain to end.
    waiters: RefCell<Vec<Function>>,
    /// The timer of the earliest next attempt.
    timer: RefCell<Option<Timer>>,
    /// The `online` and `visibilitychange` listeners.
    listeners: RefCell<Vec<Listener>>,
    /// The channel to the other tabs of this outbox (IndexedDB only).
    channel: RefCell<Option<Channel>>,
}

/// A listener added to a target, to be removed when the outbox closes.
type Listener = (EventTarget, &'static str, Closure<dyn FnMut()>);
/// A channel and its listener.
type Channel = (BroadcastChannel, Closure<dyn FnMut(MessageEvent)>);

/// Starts a drain, or asks the one under way for one more round (`force`: a round that sends
/// every pending entry once). Closed or paused, it only lets `flush()` go.
pub(crate) fn kick(core: &Rc<Core>, force: bool) {
    let sending = &core.sending;
    if stopped(core) {
        release_waiters(core);
        return;
    }
    sending.forced.set(sending.forced.get() | force);
    if sending.draining.replace(true) {
        sending.again.set(true);
        return;
    }
    spawn_local(drain(core.clone()));
}

/// Resolves once every pending entry was tried (at once when closed or paused).
pub(crate) async fn flush(core: &Rc<Core>) {
    let done =
        Promise::new(&mut |resolve: Function, _| core.sending.waiters.borrow_mut().push(resolve));
    kick(core, true);
    let _ = JsFuture::from(done).await;
}

fn stopped(core: &Core) -> bool {
    core.closed.get() || core.paused.get()
}

fn release_waiters(core: &Core) {
    for waiter in core.sending.waiters.take() {
        let _ = waiter.call0(&JsValue::UNDEFINED);
    }
}

async fn drain(core: Rc<Core>) {
    loop {
        core.sending.again.set(false);
        let force = core.sending.forced.replace(false);
        locked(&core, force).await;
        if !core.sending.again.get() || stopped(&core) {
            break;
        }
    }
    core.sending.draining.set(false);
    release_waiters(&core);
    schedule(&core);
}

/// One round under the outbox's lock across tabs.
async fn locked(core: &Rc<Core>, force: bool) {
    if let Some(locks) = web_locks() {
        let name = ["plant-store-outbox:", &core.name].concat();
        let round = Closure::once_into_js({
            let core = core.clone();
            move |_lock: JsValue| promise(round(core, force))
        });
        if let Ok(held) = locks.request(&name, round.unchecked_ref()) {
            let _ = JsFuture::from(held).await;
        }
        return;
    }
    let Some(idb) = core.store.idb() else {
        let _ = round(core.clone(), force).await;
        return;
    };
    // No Web Locks: the lease, renewed before each send, let go of at the end.
    while !matches!(idb.lease(&core.owner, Date::now(), Date::now() + LEASE_MS).await, Ok(true)) {
        if stopped(core) {
            return;
        }
        sleep(LEASE_MS / 4.0).await;
    }
    let _ = round(core.clone(), force).await;
    let _ = idb.lease(&core.owner, Date::now(), 0.0).await;
}

/// Reloads the entries, then sends what is due with `concurrency` workers.
async fn round(core: Rc<Core>, force: bool) -> Result<JsValue, JsValue> {
    reload(&core).await;
    let tried = Rc::new(RefCell::new(Vec::new()));
    let workers: Array = (0..core.concurrency)
        .map(|_| JsValue::from(promise(worker(core.clone(), force, tried.clone()))))
        .collect();
    let _ = JsFuture::from(Promise::all(&workers)).await;
    Ok(JsValue::UNDEFINED)
}

async fn worker(
    core: Rc<Core>,
    force: bool,
    tried: Rc<RefCell<Vec<String>>>,
) -> Result<JsValue, JsValue> {
    while let Some(entry) = due(&core, force, &tried) {
        if let Some(idb) = core.store.idb().filter(|_| web_locks().is_none()) {
            let _ = idb.lease(&core.owner, Date::now(), Date::now() + LEASE_MS).await;
        }
        send(&core, entry).await;
    }
    Ok(JsValue::UNDEFINED)
}

/// The next entry to send, taken: pending, not in flight, not yet tried in this round, and due
/// (or any of those in a forced round). None while closed, paused or offline.
fn due(core: &Core, force: bool, tried: &RefCell<Vec<String>>) -> Option<Entry> {
    if stopped(core) || offline() {
        return None;
    }
    let now = Date::now();
    let entries = core.entries.borrow();
    let mut in_flight = core.in_flight.borrow_mut();
    let mut tried = tried.borrow_mut();
    let entry = entries.iter().find(|e| {
        e.state == State::Pending
            && (force || e.next_attempt_at.is_none_or(|at| at <= now))
            && !in_flight.contains(&e.key)
            && tried.binary_search(&e.key).is_err()
    })?;
    in_flight.push(entry.key.clone());
    insert_sorted(&mut tried, entry.key.clone());
    Some(entry.clone())
}

/// One attempt: the entry marked `sending` and stored, the call with its key, what it made of
/// the entry stored. A closed outbox leaves it `sending`, to be sent again on the next open.
async fn send(core: &Rc<Core>, mut entry: Entry) {
    entry.state = State::Sending;
    entry.attempts += 1;
    if core.save(&entry).await.is_ok() {
        let options = core.call_options(&entry.key);
        let outcome = core.client.create_plant_with(&entry.plant, &options).await;
        if !core.closed.get() && core.entry(&entry.key).is_some() {
            entry.settle(&outcome, Date::now(), Math::random());
            if core.save(&entry).await.is_err() {
                // The store still says `sending`: the next open sends it again, with its key.
                core.remember(entry.clone());
            }
        }
    }
    core.in_flight.borrow_mut().retain(|key| *key != entry.key);
}

/// Takes the store's records as the truth, but for the entries in flight here. Under the lock, a
/// record left `sending` is one a page that is gone sent: pending again, maybe created.
async fn reload(core: &Core) {
    let Ok(records) = core.store.get_all().await else {
        return;
    };
    let mut kept = Vec::with_capacity(records.len());
    for record in &records {
        let Ok(mut entry) = Entry::from_js(record) else {
            continue;
        };
        insert_sorted(&mut kept, entry.key.clone());
        if core.in_flight.borrow().contains(&entry.key) {
            continue;
        }
        if entry.state == State::Sending {
            (entry.state, entry.maybe_created) = (State::Pending, true);
        }
        if core.entry(&entry.key).as_ref() != Some(&entry) {
            core.remember(entry);
        }
    }
    let gone: Vec<String> = core
        .entries
        .borrow()
        .iter()
        .filter(|e| kept.binary_search(&e.key).is_err())
        .map(|e| e.key.clone())
        .collect();
    for key in gone {
        core.forget(&key);
    }
}

/// Inserts `key` where `keys` (sorted) keeps it sorted.
pub(crate) fn insert_sorted(keys: &mut Vec<String>, key: String) {
    if let Err(at) = keys.binary_search(&key) {
        keys.insert(at, key);
    }
}

/// Arms the timer of the earliest next attempt.
fn schedule(core: &Rc<Core>) {
    let next = core
        .entries
        .borrow()
        .iter()
        .filter(|e| e.state == State::Pending)
        .filter_map(|e| e.next_attempt_at)
        .reduce(f64::min);
    let timer = next.filter(|_| !stopped(core)).map(|at| {
        let core = Rc::downgrade(core);
        let ms = (at - Date::now()).clamp(0.0, 2_147_483_647.0) as u32;
        Timer::new(ms, Box::new(move || wake(&core, false)))
    });
    *core.sending.timer.borrow_mut() = timer;
}

fn wake(core: &Weak<Core>, force: bool) {
    if let Some(core) = core.upgrade() {
        kick(&core, force);
    }
}

/// Listens for the wake-ups of the page or worker (`online`, `visibilitychange`), and, with
/// IndexedDB, to the other tabs' changes.
pub(crate) fn listen(core: &Rc<Core>) {
    let global = GLOBAL.with(JsValue::clone);
    let document = Reflect::get(&global, &"document".into()).unwrap_or_default();
    let mut listeners = core.sending.listeners.borrow_mut();
    for (target, event, force) in
        [(global, "online", true), (document.clone(), "visibilitychange", false)]
    {
        let Some(target) = target.dyn_ref::<EventTarget>() else {
            continue;
        };
        let weak = Rc::downgrade(core);
        let document = document.clone();
        let listener = Closure::<dyn FnMut()>::new(move || {
            let state = Reflect::get(&document, &"visibilityState".into()).unwrap_or_default();
            if event == "online" || state.as_string().as_deref() == Some("visible") {
                wake(&weak, force);
            }
        });
        let _ = target.add_event_listener_with_callback(event, listener.as_ref().unchecked_ref());
        listeners.push((target.clone(), event, listener));
    }
    if core.store.idb().is_some() {
        let Ok(channel) = BroadcastChannel::new(&["plant-store-outbox:", &core.name].concat())
        else {
            return;
        };
        let weak = Rc::downgrade(core);
        let listener = Closure::<dyn FnMut(MessageEvent)>::new(move |message: MessageEvent| {
            if let Some(core) = weak.upgrade() {
                heard(&core, &message.data());
            }
        });
        channel.set_onmessage(Some(listener.as_ref().unchecked_ref()));
        *core.sending.channel.borrow_mut() = Some((channel, listener));
    }
}

/// Another tab's change: an entry's record, or the key of one removed.
fn heard(core: &Core, data: &JsValue) {
    match data.as_string() {
        Some(key) => core.forget(&key),
        None => match Entry::from_js(data) {
            Ok(entry) if !core.in_flight.borrow().contains(&entry.key) => core.remember(entry),
            _ => {}
        },
    }
}

/// Tells the other tabs of a change: `message` is the entry's record, or the removed key.
pub(crate) fn tell_tabs(core: &Core, message: &JsValue) {
    if let Some((channel, _)) = &*core.sending.channel.borrow() {
        let _ = channel.post_message(message);
    }
}

/// Stops listening and waiting: the outbox is closed.
pub(crate) fn stop(core: &Core) {
    for (target, event, listener) in core.sending.listeners.take() {
        let _ =
            target.remove_event_listener_with_callback(event, listener.as_ref().unchecked_ref());
    }
    if let Some((channel, _)) = core.sending.channel.take() {
        channel.close();
    }
    core.sending.timer.take();
    release_waiters(core);
}

/// Whether the runtime says it is offline (`navigator.onLine` false).
fn offline() -> bool {
    let navigator =
        GLOBAL.with(|global| Reflect::get(global, &"navigator".into())).unwrap_or_default();
    Reflect::get(&navigator, &"onLine".into()).is_ok_and(|online| online == JsValue::FALSE)
}

/// `navigator.locks`, where there is one.
fn web_locks() -> Option<LockManager> {
    let navigator = GLOBAL.with(|global| Reflect::get(global, &"navigator".into())).ok()?;
    let locks = Reflect::get(&navigator, &"locks".into()).ok()?;
    locks.is_object().then(|| locks.unchecked_into())
}

/// The promise of `future`, through one boxed type: the outbox's futures share one copy of the
/// glue that polls them, where each would bring its own.
pub(crate) fn promise(future: impl Future<Output = Result<JsValue, JsValue>> + 'static) -> Promise {
    let future: Pin<Box<dyn Future<Output = Result<JsValue, JsValue>>>> = Box::pin(future);
    future_to_promise(future)
}

/// Resolves after `ms` milliseconds.
async fn sleep(ms: f64) {
    let done = Promise::new(&mut |resolve: Function, _| {
        set_timeout(&resolve, ms);
    });
    let _ = JsFuture::from(done).await;
}

#[wasm_bindgen]
extern "C" {
    /// The Web Locks API (web-sys has it only among its unstable APIs).
    type LockManager;
    /// `locks.request(name, callback)`: `callback` runs holding the lock until its promise settles.
    #[wasm_bindgen(method, catch)]
    fn request(this: &LockManager, name: &str, callback: &Function) -> Result<Promise, JsValue>;
}
