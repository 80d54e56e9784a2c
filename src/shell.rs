//! The seam between a [`Call`] and its JS shell (`js/call.js`, a wasm-bindgen snippet, so that a
//! Rust app gets it too), typed on both sides by wasm-bindgen: its one definition is the `extern`
//! block at the end of this file. Rust asks through the methods of the call's `Shell`, one for each
//! [`Action`]; a method only records what to do, and the shell does it once Rust has returned, so
//! the caller's code (fetch, the token source, the hooks) never runs while a call is borrowed. The
//! shell tells what came of it through `Told`, Rust functions made once per thread that take the
//! call's number: [`tell`] steps that call and hands its next action to its shell. Here too what a
//! call reads of the world: the fetch to call, and, once per client, the request its calls send
//! and whether the page is on another origin. A value from outside is read through `catch`
//! bindings: a Response subclass or a Proxy can throw where Web IDL says nothing throws, and a JS
//! exception must never unwind wasm.

use crate::call::{Action, Call, Head, Input, Said, Seen, Stop, Value};
use crate::config::{Settings, FRAMING};
use crate::error::{Draft, Error, Kind};
use crate::hooks::{Attempt, AttemptOutcome};
use crate::names::Names;
use crate::token::Credential;
use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::RefCell;
use js_sys::{Array, Function, Promise, Reflect};
use plant_store_model::Plant;
use wasm_bindgen::prelude::*;
use web_sys::{AbortSignal, Headers};

/// What makes a call's outcome the value its promise settles with: resolved with its `Ok`, rejected
/// with its `Err` (the JS API's Plant and PlantStoreError; the Rust API keeps the outcome and
/// resolves with nothing; the outbox resolves with its `settled` event).
type End = Box<dyn FnMut(Result<Plant, Error>) -> Result<JsValue, JsValue>>;

/// A call under way: its state, its shell, its end, and the hooks its shell runs next.
struct Running {
    call: Call,
    shell: Shell,
    end: End,
    hooks: Option<Hooks>,
}

/// The hooks a call asked for: the before hook on these headers, or the after hooks.
enum Hooks {
    Before(Headers),
    After(Seen),
}

/// The calls under way on this thread, each at its number, and the functions their shells tell.
struct Calls {
    running: Vec<Option<Running>>,
    told: Option<Told>,
}

#[cfg(feature = "std")]
std::thread_local!(static CALLS: RefCell<Calls> = const { RefCell::new(Calls::new()) });
#[cfg(not(feature = "std"))]
static CALLS: crate::bare::Local<RefCell<Calls>> = crate::bare::Local(RefCell::new(Calls::new()));

/// Runs `call` in a shell of its own: the promise that settles as `end` makes of its outcome.
pub(crate) fn run(
    call: Call,
    end: impl FnMut(Result<Plant, Error>) -> Result<JsValue, JsValue> + 'static,
) -> Promise {
    let shell = CALLS.with(|calls| calls.borrow_mut().start(call, Box::new(end)));
    shell.begin()
}

impl Calls {
    const fn new() -> Calls {
        Calls { running: Vec::new(), told: None }
    }

    /// Keeps `call` at a free number, with a shell of its own, which it gives back.
    fn start(&mut self, call: Call, end: End) -> Shell {
        let at = self.running.iter().position(Option::is_none).unwrap_or(self.running.len());
        let shell = Shell::new(self.told.get_or_insert_with(told), at as u32, call.ends_at);
        for signal in &call.signals {
            shell.listen(signal);
        }
        let running = Some(Running { call, shell: shell.clone(), end, hooks: None });
        match self.running.get_mut(at) {
            Some(slot) => *slot = running,
            None => self.running.push(running),
        }
        shell
    }
}

/// What the shell of call number `at` told: the call steps, and its shell is handed what to do.
fn tell(at: u32, input: Input) {
    CALLS.with(|calls| {
        let mut calls = calls.borrow_mut();
        let Some(slot) = calls.running.get_mut(at as usize) else { return };
        let Some(running) = slot else { return };
        let action = running.call.step(input);
        if running.ask(action) {
            *slot = None;
        }
    });
}

impl Running {
    /// Hands `action` to the shell; true when the call is over.
    fn ask(&mut self, action: Action) -> bool {
        let (call, shell) = (&self.call, &self.shell);
        let settings = &call.settings;
        match action {
            Action::Ask { refresh } => {
                if let Credential::Source(source) = &settings.credential {
                    shell.ask(&source.get, refresh);
                }
            }
            Action::Settle(value) => shell.settle(&value),
            Action::Before { key } => {
                self.hooks = Some(Hooks::Before(shell.headers(reach(settings).0, key.as_deref())));
                shell.hook();
            }
            Action::Send { key, headers, authorization, ends_at } => {
                let (request, body) = (reach(settings).0, &call.body);
                let headers = headers.unwrap_or_default();
                shell.send(
                    &call.fetch,
                    request,
                    body,
                    key.as_deref(),
                    &headers,
                    &authorization,
                    ends_at,
                );
            }
            Action::Read(limit) => shell.read(limit),
            Action::After(seen) => {
                self.hooks = Some(Hooks::After(seen));
                shell.hook();
            }
            Action::Wait(ms) => shell.wait(ms),
            Action::Done(outcome) => {
                match (self.end)(outcome) {
                    Ok(value) => shell.done(true, &value),
                    Err(error) => shell.done(false, &error),
                }
                return true;
            }
        }
        false
    }
}

/// Runs the hooks call number `at` asked for, once its step has returned (the shell calls this):
/// the after hooks, or the before hook, which gives back a copy of its headers when the copy keeps
/// its rules (no `Authorization` nor a header of the connection or the framing, `Content-Type`
/// unchanged), else null; what a hook threw. The copy is what is sent, with the call's
/// `Idempotency-Key` and `Authorization` set on it: a hook that keeps its headers never holds the
/// token.
fn hooks(at: u32) -> Result<JsValue, JsValue> {
    let asked = CALLS.with(|calls| {
        let mut calls = calls.borrow_mut();
        let running = calls.running.get_mut(at as usize)?.as_mut()?;
        let call = &running.call;
        Some((call.settings.clone(), call.after.clone(), call.attempt(), running.hooks.take()?))
    });
    let Some((settings, after, number, hooks)) = asked else { return Ok(JsValue::NULL) };
    let url = &settings.url;
    match hooks {
        Hooks::Before(headers) => {
            if let Some(before) = &settings.config.before {
                before.0(&Attempt { url, number, headers: &headers })?;
            }
            let sent = Headers::new_with_headers(&headers)?;
            let content_type = sent.get("content-type").ok().flatten();
            let set = |name: &str| sent.has(name).unwrap_or(true);
            let kept = !set("authorization")
                && !FRAMING.iter().any(|name| set(name))
                && content_type.as_deref() == Some("application/json");
            Ok(if kept { sent.into() } else { JsValue::NULL })
        }
        Hooks::After(seen) => {
            let told = AttemptOutcome {
                url,
                number: seen.number,
                duration_ms: seen.duration_ms,
                status: seen.status,
                headers: seen.headers.dyn_ref(),
                error: seen.error.as_ref(),
            };
            let hooks = [&settings.config.after, &after];
            hooks.into_iter().flatten().try_for_each(|hook| hook.0(&told))?;
            Ok(JsValue::NULL)
        }
    }
}

/// The functions a shell tells, made once per thread.
fn told() -> Told {
    let now = |input: fn() -> Input| Closure::<dyn Fn(u32)>::new(move |at| tell(at, input()));
    let with = |input: fn(JsValue) -> Input| {
        Closure::<dyn Fn(u32, JsValue)>::new(move |at, value| tell(at, input(value)))
    };
    let started = now(|| Input::Start);
    let returned = with(Input::Returned);
    let hooked =
        with(|value| Input::Hooked(Some(value).filter(|v| !v.is_null() && !v.is_undefined())));
    let settled = with(|value| {
        let kind = match value.is_null() {
            true => "null".into(),
            false => value.js_typeof().as_string().unwrap_or_default(),
        };
        Input::Settled(Value { text: value.as_string(), kind })
    });
    let threw = with(|cause| {
        let said = Said { chain: said(&cause), offline: offline() };
        Input::Threw(cause, said)
    });
    let aborted =
        with(|reason| Input::Stopped(Stop::Aborted(Some(reason).filter(|r| !r.is_undefined()))));
    let answered = Closure::<dyn Fn(u32, f64, JsValue, JsValue, JsValue)>::new(
        |at, status: f64, kind: JsValue, headers, retry_after: JsValue| {
            // Only a status of 0 is told apart by its type, and only a 429's or a 503's
            // Retry-After is read.
            let kind = (status == 0.0).then(|| kind.as_string()).flatten();
            let retry_after = matches!(status as u16, 429 | 503).then(|| retry_after.as_string());
            let head = Head { status, kind, headers, retry_after: retry_after.flatten() };
            tell(at, Input::Answer(head))
        },
    );
    let body = Closure::<dyn Fn(u32, Vec<u8>, bool)>::new(|at, bytes, complete| {
        tell(at, Input::Body(bytes, complete))
    });
    let hooks = Closure::<dyn Fn(u32) -> Result<JsValue, JsValue>>::new(hooks);
    let waited = now(|| Input::Waited);
    let timed_out = now(|| Input::Stopped(Stop::TimedOut));
    let attempt_timed_out = now(|| Input::Stopped(Stop::AttemptTimedOut));
    let told = Told::new(
        &started,
        &returned,
        &hooks,
        &hooked,
        &settled,
        &threw,
        &aborted,
        &answered,
        &body,
        &waited,
        &timed_out,
        &attempt_timed_out,
    );
    // They serve every call of the thread, for as long as it runs.
    for closure in [started, waited, timed_out, attempt_timed_out] {
        closure.forget();
    }
    for closure in [returned, hooked, settled, threw, aborted] {
        closure.forget();
    }
    hooks.forget();
    answered.forget();
    body.forget();
    told
}

/// What a client's calls read of the world once: the request they send but for its body, key and
/// token (`request` in `js/call.js`), and whether the page is on another origin than the store.
pub(crate) fn reach(settings: &Settings) -> (&JsValue, bool) {
    let (request, cross) = settings.reach.get_or_init(|| {
        let json = "application/json";
        let headers =
            Array::of4(&"Accept".into(), &json.into(), &"Content-Type".into(), &json.into());
        for (name, value) in &settings.config.headers {
            headers.push(&name.into());
            headers.push(&value.into());
        }
        let (key, authorization) = ("Idempotency-Key", "Authorization");
        let url = &settings.url;
        let request =
            request(url, "POST", "omit", "manual", &headers, key, authorization, "Retry-After");
        (request, cross_origin(&settings.url))
    });
    (request, *cross)
}

/// The fetch a call makes: `options.fetch`, or else the global one, read when the call starts (a
/// mock installed later is seen); a `config` error when there is none (naming the setting, as
/// `names` does), `network` if reading threw.
pub(crate) fn fetch_of(given: Option<&Function>, names: &Names) -> Result<Function, Draft> {
    if let Some(fetch) = given {
        return Ok(fetch.clone());
    }
    let fetch = GLOBAL.with(|global| Reflect::get(global, &"fetch".into())).map_err(|thrown| {
        let message = "could not read globalThis.fetch: reading it threw";
        Draft::new(Kind::Network, message).with_cause(thrown)
    })?;
    fetch.dyn_into().map_err(|_| {
        Draft::config(["this runtime has no global fetch; pass ", names.fetch].concat())
    })
}

/// What the runtime said of a failed fetch (for `answer::why`): the `message` and `code` of `cause`
/// and of its causes, four levels at most; `None` for a value that is not an Error.
pub(crate) fn said(cause: &JsValue) -> Option<Vec<(String, String)>> {
    let text = |value: &JsValue, key: &str| Reflect::get(value, &key.into()).ok()?.as_string();
    if !cause.is_object() {
        return None;
    }
    text(cause, "message")?;
    let (mut levels, mut level) = (Vec::new(), cause.clone());
    while levels.len() < 4 {
        let (message, code) = (text(&level, "message"), text(&level, "code"));
        levels.push((message.unwrap_or_default(), code.unwrap_or_default()));
        match Reflect::get(&level, &JsValue::from_str("cause")) {
            Ok(next) if next.is_object() => level = next,
            _ => break,
        }
    }
    Some(levels)
}

/// Whether the browser says it is offline: `navigator.onLine` is false (a page's or a worker's;
/// where there is no `navigator.onLine`, as in Node, it does not say).
fn offline() -> bool {
    let navigator = GLOBAL.with(|global| Reflect::get(global, &"navigator".into()));
    let navigator = navigator.ok().filter(JsValue::is_object);
    let on_line = navigator.and_then(|n| Reflect::get(&n, &"onLine".into()).ok());
    on_line.and_then(|on_line| on_line.as_bool()) == Some(false)
}

/// Whether a page or a worker (`location` has an origin) calls another origin than `url`'s: a
/// request its CORS must allow, whose refusal a browser hides behind "Failed to fetch". An opaque
/// origin ("null": a sandboxed frame, a file: page) is never the store's.
fn cross_origin(url: &str) -> bool {
    let location = GLOBAL.with(|global| Reflect::get(global, &"location".into()));
    let location = location.ok().filter(JsValue::is_object);
    let origin = location.and_then(|l| Reflect::get(&l, &"origin".into()).ok());
    let Some(origin) = origin.and_then(|origin| origin.as_string()) else {
        return false;
    };
    let own = url.get(..origin.len()).is_some_and(|head| head.eq_ignore_ascii_case(&origin));
    !(own && url.as_bytes().get(origin.len()) == Some(&b'/'))
}

#[wasm_bindgen]
extern "C" {
    /// `globalThis` (no `window` needed), where fetch and `location` are found.
    #[wasm_bindgen(thread_local_v2, js_name = globalThis)]
    static GLOBAL: JsValue;
}

/// The seam's one definition: what Rust asks of a call's shell, and what the shell tells.
#[wasm_bindgen(module = "/js/call.js")]
extern "C" {
    /// The request `url` a client's calls send, its `method`, `credentials` and `redirect`, its
    /// headers (names and values), to which each attempt adds its `Idempotency-Key` value if it has
    /// one, then its `Authorization`; and `Retry-After`, the header of an answer the shell reads.
    #[allow(clippy::too_many_arguments)]
    fn request(
        url: &str,
        method: &str,
        credentials: &str,
        redirect: &str,
        headers: &Array,
        key: &str,
        authorization: &str,
        retry_after: &str,
    ) -> JsValue;

    /// What the shells tell Rust, each with their call's number: the call `started` (no signal had
    /// aborted it); the token source `returned` a value; `hooks` runs the hooks the call asked for,
    /// which ran (`hooked`: the before hook gives the headers, or null when they break its rules);
    /// what it asked to await `settled` with a value; what was called or awaited `threw`; a signal
    /// `aborted` the call (its reason); fetch `answered` (the head: its status, NaN for what is not
    /// a Response, its type, headers and `Retry-After`); the `body` was read (its bytes, and
    /// whether that is all of it); a wait is over (`waited`); the call's deadline passed
    /// (`timed_out`) or the attempt's (`attempt_timed_out`).
    type Told;
    #[allow(clippy::too_many_arguments)]
    #[wasm_bindgen(constructor)]
    fn new(
        started: &Closure<dyn Fn(u32)>,
        returned: &Closure<dyn Fn(u32, JsValue)>,
        hooks: &Closure<dyn Fn(u32) -> Result<JsValue, JsValue>>,
        hooked: &Closure<dyn Fn(u32, JsValue)>,
        settled: &Closure<dyn Fn(u32, JsValue)>,
        threw: &Closure<dyn Fn(u32, JsValue)>,
        aborted: &Closure<dyn Fn(u32, JsValue)>,
        answered: &Closure<dyn Fn(u32, f64, JsValue, JsValue, JsValue)>,
        body: &Closure<dyn Fn(u32, Vec<u8>, bool)>,
        waited: &Closure<dyn Fn(u32)>,
        timed_out: &Closure<dyn Fn(u32)>,
        attempt_timed_out: &Closure<dyn Fn(u32)>,
    ) -> Told;

    /// The shell of call number `call`, which times out at `ends_at` (ms since the epoch).
    #[derive(Clone)]
    type Shell;
    #[wasm_bindgen(constructor)]
    fn new(told: &Told, call: u32, ends_at: f64) -> Shell;
    /// A signal that aborts the call.
    #[wasm_bindgen(method)]
    fn listen(this: &Shell, signal: &AbortSignal);
    /// Starts the call: the shell tells that it started, or that a signal had aborted it. The
    /// promise of its end.
    #[wasm_bindgen(method)]
    fn begin(this: &Shell) -> Promise;
    /// [`Action::Ask`]: `get_token({ refresh })`.
    #[wasm_bindgen(method)]
    fn ask(this: &Shell, get_token: &Function, refresh: bool);
    /// [`Action::Settle`].
    #[wasm_bindgen(method)]
    fn settle(this: &Shell, value: &JsValue);
    /// The headers of `request` with this `Idempotency-Key` value: what the before hook is given.
    #[wasm_bindgen(method)]
    fn headers(this: &Shell, request: &JsValue, key: Option<&str>) -> Headers;
    /// [`Action::Before`] and [`Action::After`]: `Told`'s `hooks` for the call.
    #[wasm_bindgen(method)]
    fn hook(this: &Shell);
    /// [`Action::Send`]: `fetch(url, init)` of `request` (or the copy of the `headers` the before
    /// hook was given) with `body`, then its `key` and `authorization`; the attempt times out at
    /// `ends_at`.
    #[allow(clippy::too_many_arguments)]
    #[wasm_bindgen(method)]
    fn send(
        this: &Shell,
        fetch: &Function,
        request: &JsValue,
        body: &str,
        key: Option<&str>,
        headers: &JsValue,
        authorization: &str,
        ends_at: f64,
    );
    /// [`Action::Read`].
    #[wasm_bindgen(method)]
    fn read(this: &Shell, limit: usize);
    /// [`Action::Wait`].
    #[wasm_bindgen(method)]
    fn wait(this: &Shell, ms: u32);
    /// [`Action::Done`]: the promise resolves with `value` when `ok`, else rejects with it.
    #[wasm_bindgen(method)]
    fn done(this: &Shell, ok: bool, value: &JsValue);
}
