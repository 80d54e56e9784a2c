//! Runs a call's future for JavaScript and settles the `Promise` the caller holds.
//!
//! The future is polled at once, so everything up to the first wait (options, validation, the
//! request) happens inside the export's own call, and a call that fails early returns a promise
//! that is already rejected. Otherwise it is kept in a table, and its waker polls it again right
//! where it is woken: in the callback of the promise it waited on (see `transport`), with no
//! microtask in between. `wasm-bindgen-futures`' `future_to_promise` would add a closure, a task
//! allocation and a `queueMicrotask` hop per wake, which this call does not need.

use crate::local::{Global, Key, Table};
use crate::sys;
use alloc::boxed::Box;
use alloc::sync::Arc;
use alloc::task::Wake;
use core::cell::RefCell;
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll, Waker};
use js_sys::{Function, Promise};
use wasm_bindgen::JsValue;

type Job = Pin<Box<dyn Future<Output = Result<JsValue, JsValue>>>>;

struct Task {
    /// The future, out of the table while it is being polled.
    job: Option<Job>,
    waker: Waker,
    /// The caller's promise's functions.
    settle: Option<(Function, Function)>,
    /// Woken while being polled: poll again before leaving it.
    woken: bool,
}

static TASKS: Global<RefCell<Table<Task>>> = Global::new();

fn tasks() -> &'static RefCell<Table<Task>> {
    TASKS.get(|| RefCell::new(Table::new()))
}

/// Wakes a task by polling it. Holds only the task's key, so it is `Send` and `Sync` as a
/// `Waker` must be; it is only ever used on the one thread.
struct TaskWaker(Key);

impl Wake for TaskWaker {
    fn wake(self: Arc<Self>) {
        run(self.0);
    }

    fn wake_by_ref(self: &Arc<Self>) {
        run(self.0);
    }
}

/// A promise for what `job` resolves or rejects with.
pub(crate) fn spawn(job: impl Future<Output = Result<JsValue, JsValue>> + 'static) -> Promise {
    let Ok(key) = tasks().try_borrow_mut().map(|mut tasks| {
        tasks.insert(Task {
            job: None,
            waker: Waker::noop().clone(),
            settle: None,
            woken: false,
        })
    }) else {
        return Promise::reject(&JsValue::UNDEFINED);
    };
    let waker = Waker::from(Arc::new(TaskWaker(key)));
    with_task(key, |task| task.waker = waker.clone());
    let mut job: Job = Box::pin(job);
    loop {
        let result = job.as_mut().poll(&mut Context::from_waker(&waker));
        let woken = with_task(key, |task| core::mem::take(&mut task.woken)).unwrap_or(false);
        match result {
            Poll::Ready(result) => {
                remove(key);
                return match result {
                    Ok(value) => {
                        sys::promise_resolve(&value).unwrap_or_else(|e| Promise::reject(&e))
                    }
                    Err(error) => Promise::reject(&error),
                };
            }
            Poll::Pending if woken => continue,
            Poll::Pending => break,
        }
    }
    let mut settle = None;
    let promise = Promise::new(&mut |resolve, reject| settle = Some((resolve, reject)));
    with_task(key, |task| {
        task.job = Some(job);
        task.settle = settle;
    });
    promise
}

fn with_task<R>(key: Key, f: impl FnOnce(&mut Task) -> R) -> Option<R> {
    tasks().try_borrow_mut().ok()?.get_mut(key).map(f)
}

fn remove(key: Key) -> Option<Task> {
    tasks().try_borrow_mut().ok()?.remove(key)
}

/// Polls the task of `key` until it waits again, and settles its promise when it is done. A
/// wake while it is being polled (its job is out) only marks it to be polled once more.
fn run(key: Key) {
    let Some(Some((mut job, waker))) = with_task(key, |task| {
        let job = task.job.take();
        if job.is_none() {
            task.woken = true;
        }
        job.map(|job| (job, task.waker.clone()))
    }) else {
        return;
    };
    loop {
        let result = job.as_mut().poll(&mut Context::from_waker(&waker));
        let woken = with_task(key, |task| core::mem::take(&mut task.woken)).unwrap_or(false);
        match result {
            Poll::Ready(result) => {
                let settle = remove(key).and_then(|task| task.settle);
                drop(job);
                if let Some((resolve, reject)) = settle {
                    let _ = match result {
                        Ok(value) => sys::call(&resolve, &value, &JsValue::UNDEFINED),
                        Err(error) => sys::call(&reject, &error, &JsValue::UNDEFINED),
                    };
                }
                return;
            }
            Poll::Pending if woken => continue,
            Poll::Pending => {
                with_task(key, |task| task.job = Some(job));
                return;
            }
        }
    }
}
