//! One call, sans IO: [`Call::step`] takes what happened ([`Input`]) and says what to do next
//! ([`Action`]), synchronously, so that `cargo test` runs a whole call natively. It reads top to
//! bottom as ureq's loop does: an attempt gets its token, runs the before hook, is sent, its answer
//! read up to a bound and judged (`answer.rs`), the after hooks told; after a failed one,
//! [`answer::next`] says whether to refresh the token, wait and try again, or stop. The caller's
//! code (the token source, the hooks) is never run here: the call asks for it, and the shell runs
//! it once the step has returned. Every error the call ends with leaves through [`Call::fail`].
//! What does the IO is the JS shell (`js/call.js`, driven by `shell.rs`); what starts a call and
//! runs it there is the client (`client.rs`).

use crate::answer::{self, Budget, Clock, Learnt, Next};
use crate::config::{IdempotencyKey, KeyFormat, Retry, Settings};
use crate::error::{decimal, Draft, Error, Kind};
use crate::hooks::{self, After, Callback};
use crate::redact::theirs;
use crate::token::{self, Credential};
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use js_sys::Function;
use plant_store_model::{NewPlant, Plant, Token};
use wasm_bindgen::prelude::*;
use web_sys::AbortSignal;

/// What happened, as the shell tells it.
pub(crate) enum Input {
    /// The call begins.
    Start,
    /// The token source returned this: its token, or a promise of it.
    Returned(JsValue),
    /// The hooks ran; the before hook gives the headers if they keep the rules.
    Hooked(Option<JsValue>),
    /// What the call asked to await (a token's promise) settled with this value.
    Settled(Value),
    /// What was called or awaited (the token source, a hook, fetch, the body's read) threw or
    /// rejected: with what, and what the runtime said of it.
    Threw(JsValue, Said),
    /// The call or its attempt stopped before what it awaited settled.
    Stopped(Stop),
    /// fetch resolved: the head of its answer.
    Answer(Head),
    /// The body, up to the limit; and whether that is all of it.
    Body(Vec<u8>, bool),
    /// A wait is over.
    Waited,
}

/// A value JavaScript gave, as the call judges it: its text when it is a string, else its type.
pub(crate) struct Value {
    pub(crate) text: Option<String>,
    pub(crate) kind: String,
}

/// The head of an answer, as read: its status (NaN when fetch resolved to what is not a Response;
/// a forgery may give any number), its `type`, its headers and the `Retry-After` among them.
pub(crate) struct Head {
    pub(crate) status: f64,
    pub(crate) kind: Option<String>,
    pub(crate) headers: JsValue,
    pub(crate) retry_after: Option<String>,
}

/// Why a call, or one of its attempts, stopped before it was done.
#[derive(Clone)]
pub(crate) enum Stop {
    /// A caller's signal aborted; its reason, when it has one.
    Aborted(Option<JsValue>),
    /// The call's deadline passed.
    TimedOut,
    /// The attempt's own deadline (`retry.attemptTimeoutMs`) passed.
    AttemptTimedOut,
}

/// What the shell does next.
pub(crate) enum Action {
    /// Call the token source with `{ refresh }`, then tell what it returned.
    Ask { refresh: bool },
    /// Await this (what the token source returned, or the refresh another call shares), then
    /// tell what it settled with.
    Settle(JsValue),
    /// Run the before hook on the attempt's headers (the client's, and this `Idempotency-Key`
    /// value), then tell what it returned.
    Before { key: Option<String> },
    /// Send the attempt's request: the client's headers and this `Idempotency-Key` value (or a
    /// copy of the headers the before hook was given), then `authorization`; the body; the
    /// attempt's own deadline when it has one. Then tell the answer's head.
    Send { key: Option<String>, headers: Option<JsValue>, authorization: String, ends_at: f64 },
    /// Read the body, up to this many bytes.
    Read(usize),
    /// Run the after hooks on what the attempt came to, then tell that they returned.
    After(Seen),
    /// Wait this many milliseconds, then tell that the wait is over.
    Wait(u32),
    /// The call is over.
    Done(Result<Plant, Error>),
}

/// What the after hooks are told of an attempt that sent a request (`hooks::AttemptOutcome`).
pub(crate) struct Seen {
    pub(crate) number: u32,
    pub(crate) duration_ms: f64,
    pub(crate) status: Option<u16>,
    pub(crate) headers: JsValue,
    pub(crate) error: Option<Error>,
}

/// Where a call stands: what its next input answers. An attempt's own state is its token (when a
/// source's), when it began, and once its head came, the status, headers and `Retry-After`.
enum At {
    /// The next attempt begins.
    Start,
    /// A token source's token is asked for, then awaited; after a 401, its new one, for the stale
    /// one.
    Token(Option<Token>),
    /// The before hook runs.
    Before(Option<Token>),
    /// fetch is awaited.
    Fetch(Option<Token>, f64),
    /// The body is read, up to the limit.
    Body(Option<Token>, f64, u16, JsValue, Option<String>, usize),
    /// The after hooks run: what the attempt came to, and what comes next.
    After(Result<Plant, Error>, Next, Option<Token>),
    /// A wait before the next attempt.
    Wait,
    /// The call is over.
    Done,
}

/// What the runtime said as something threw (`shell::said`): the `message` and `code` down the
/// cause chain of what it threw (`None` for a value that is not an Error), and whether the browser
/// said it was offline (`navigator.onLine` false).
#[derive(Default)]
pub(crate) struct Said {
    pub(crate) chain: Option<Vec<(String, String)>>,
    pub(crate) offline: bool,
}

/// One call, started: step it to its Plant or its error.
pub(crate) struct Call {
    pub(crate) settings: Rc<Settings>,
    /// The NewPlant as JSON, sent by every attempt.
    pub(crate) body: String,
    /// The bytes of the name and tag, which a 200 echoes.
    echoed: usize,
    /// What the call reads of the world as it starts (`Client::start`): the fetch to call
    /// (`options.fetch`, or the global one), the caller's signals that abort the call, and whether
    /// the page is on another origin than the store (a failed fetch may be its CORS).
    pub(crate) fetch: Function,
    pub(crate) signals: Vec<AbortSignal>,
    pub(crate) cross_origin: bool,
    retry: Retry,
    /// `Off`, or the key every attempt sends.
    key: IdempotencyKey,
    /// The call's own after hook, called after the client's.
    pub(crate) after: Option<Callback<After>>,
    clock: &'static Clock,
    /// When the call times out, in milliseconds since the epoch: its one deadline, which the
    /// shell is handed.
    pub(crate) ends_at: f64,
    /// Requests sent so far.
    sent: u32,
    /// One of them may have created the plant without the call learning it.
    maybe_created: bool,
    /// When the first of those was sent.
    maybe_since: f64,
    /// The token was refreshed once.
    refreshed: bool,
    /// The refreshed token, which the next attempt sends.
    fresh: Option<Token>,
    /// Every token from a token source that the call sent.
    tokens: Vec<Token>,
    /// The error of the latest attempt that failed: the next error's `earlier`.
    last: Option<Error>,
    at: At,
}

impl Call {
    /// A call of `settings` sending `plant`, with the call's checked retries and key and its own
    /// after hook, on `clock`: its timeout counts from now.
    pub(crate) fn new(
        settings: Rc<Settings>,
        plant: &NewPlant,
        (retry, key): (Retry, IdempotencyKey),
        after: Option<Callback<After>>,
        clock: &'static Clock,
    ) -> Call {
        Call {
            body: plant.to_json(),
            echoed: plant.name.len() + plant.tag.as_ref().map_or(0, String::len),
            fetch: JsValue::UNDEFINED.unchecked_into(),
            signals: Vec::new(),
            cross_origin: false,
            retry,
            key,
            after,
            clock,
            ends_at: (clock.now)() + f64::from(settings.config.timeout_ms),
            settings,
            sent: 0,
            maybe_created: false,
            maybe_since: f64::INFINITY,
            refreshed: false,
            fresh: None,
            tokens: Vec::new(),
            last: None,
            at: At::Start,
        }
    }

    /// The number of the attempt being sent (1 for the first).
    pub(crate) fn attempt(&self) -> u32 {
        self.sent + 1
    }

    /// What to do after `input`.
    pub(crate) fn step(&mut self, input: Input) -> Action {
        let url = self.settings.url.clone();
        match (core::mem::replace(&mut self.at, At::Done), input) {
            (At::Start, Input::Start) | (At::Wait, Input::Waited) => self.begin(),
            (At::Token(stale), Input::Returned(asked)) => {
                if let (Some(stale), Credential::Source(source)) =
                    (&stale, &self.settings.credential)
                {
                    source.share(stale.clone(), asked.clone());
                }
                self.at = At::Token(stale);
                Action::Settle(asked)
            }
            (At::Token(stale), Input::Settled(value)) => {
                match token::returned(value.text, &value.kind, self.settings.config.names) {
                    Ok(token) if stale.is_none() => self.ready(Some(token)),
                    Ok(token) => {
                        self.fresh = Some(token);
                        self.begin()
                    }
                    Err(draft) => self.forget(stale, draft),
                }
            }
            (At::Token(stale), Input::Threw(cause, _)) => {
                let names = self.settings.config.names;
                let mut draft = token::failed(stale.is_some(), names).with_cause(cause);
                // A refresh's: the 401's code stays, as a second 401 would give it.
                let refused = self.last.as_ref().and_then(Error::code);
                if let Some(code) = refused.filter(|_| stale.is_some()) {
                    draft = draft.with_code(code);
                }
                self.forget(stale, draft)
            }
            (At::Token(stale), Input::Stopped(stop)) => {
                let draft = match stop {
                    Stop::TimedOut => {
                        let (config, names) = (&self.settings.config, self.settings.config.names);
                        let ms = decimal(config.timeout_ms.into());
                        let within = [names.get_token, " gave no token within ", names.timeout_ms];
                        Draft::new(Kind::Timeout, [&within.concat(), " (", &ms, " ms)"].concat())
                    }
                    stop => self.stopped(stop),
                };
                self.forget(stale, draft)
            }
            (At::Before(token), Input::Hooked(Some(headers))) => self.send(token, Some(headers)),
            (At::Before(_), Input::Hooked(None)) => {
                let rule = " may not set Authorization or the connection's and framing's headers, \
                            nor change Content-Type";
                self.end(Draft::config([self.settings.config.names.before, rule].concat()))
            }
            (At::Before(_), Input::Threw(cause, _)) => {
                let names = self.settings.config.names;
                self.end(hooks::threw(names.before, names.failed, cause))
            }
            (At::Fetch(token, began), Input::Threw(cause, said)) => {
                let (why, refused) = answer::why(said.chain.as_deref());
                let preflight = self.cross_origin.then(|| self.preflight());
                let draft = answer::unreachable(
                    &url,
                    &why,
                    Some(cause),
                    said.offline,
                    preflight.as_deref(),
                );
                let learnt = Learnt { refused, ..Learnt::default() };
                self.attempted(Err(draft), learnt, JsValue::UNDEFINED, token, began)
            }
            (At::Fetch(token, began), Input::Answer(head))
                if head.kind.as_deref() == Some("error") =>
            {
                // fetch's network error as a Response (`Response.error()`, a mock's outage): as
                // if fetch rejected, the request may have gone out.
                let why = "fetch resolved to Response.error()";
                let draft = answer::unreachable(&url, why, None, false, None);
                let learnt = Learnt::default();
                self.attempted(Err(draft), learnt, JsValue::UNDEFINED, token, began)
            }
            (At::Fetch(token, began), Input::Answer(head)) => {
                let valid = |n: &f64| (0.0..=999.0).contains(n) && *n == f64::from(*n as u16);
                let Some(head) = Some(head).filter(|head| valid(&head.status)) else {
                    let learnt = Learnt::default();
                    let draft = answer::not_a_response();
                    return self.attempted(Err(draft), learnt, JsValue::UNDEFINED, token, began);
                };
                let status = head.status as u16;
                let retry_after = head.retry_after.filter(|_| matches!(status, 429 | 503));
                let opaque = status == 0 && head.kind.as_deref() == Some("opaqueredirect");
                if (300..400).contains(&status) || opaque {
                    let learnt = Learnt { status: Some(status), retry_after, ..Learnt::default() };
                    let draft = answer::redirect(status);
                    return self.attempted(Err(draft), learnt, head.headers, token, began);
                }
                let limit = answer::limit(status, self.echoed);
                self.at = At::Body(token, began, status, head.headers, retry_after, limit);
                Action::Read(limit)
            }
            (At::Body(token, began, status, headers, retry_after, limit), input) => {
                let mut learnt = Learnt { status: Some(status), retry_after, ..Learnt::default() };
                let outcome = match input {
                    Input::Body(bytes, complete) => {
                        let base = self.settings.config.names.base_url;
                        answer::outcome(status, &bytes, complete, limit, (&url, base))
                    }
                    Input::Threw(cause, said) => {
                        let (why, _) = answer::why(said.chain.as_deref());
                        let broke =
                            ["the answer broke off after its status, ", &decimal(status.into())];
                        let draft = Draft::new(Kind::Network, broke.concat()).with_status(status);
                        let message = [": ", &theirs(&why), " (", &url, ")"].concat();
                        Err(draft.append(&message).with_cause(cause))
                    }
                    Input::Stopped(stop) => {
                        learnt.timed_out = matches!(stop, Stop::AttemptTimedOut);
                        Err(self.stopped(stop))
                    }
                    _ => Err(Draft::config("the call was told what it did not ask for")),
                };
                self.attempted(outcome, learnt, headers, token, began)
            }
            (At::Fetch(token, began), Input::Stopped(stop)) => {
                let timed_out = matches!(stop, Stop::AttemptTimedOut);
                let learnt = Learnt { timed_out, ..Learnt::default() };
                self.attempted(Err(self.stopped(stop)), learnt, JsValue::UNDEFINED, token, began)
            }
            (At::After(outcome, next, token), Input::Hooked(_)) => self.then(outcome, next, token),
            (At::After(outcome, _, _), Input::Threw(cause, _)) => {
                // The plant exists after a Plant; the attempt's error is the earlier one.
                self.maybe_created |= outcome.is_ok();
                self.last = outcome.err();
                let names = self.settings.config.names;
                self.end(hooks::threw(names.after, names.failed, cause))
            }
            // A stop told while the after hooks ran (one of them aborted the call) comes after
            // what the attempt came to: a Plant, or its error when nothing was to follow.
            (At::After(Ok(plant), ..), Input::Stopped(_)) => Action::Done(Ok(plant)),
            (At::After(Err(error), Next::Stop(_), _), Input::Stopped(_)) => {
                Action::Done(Err(error))
            }
            (At::After(Err(error), ..), Input::Stopped(stop)) => {
                self.last = Some(error);
                self.end(self.stopped(stop))
            }
            (_, Input::Stopped(stop)) => self.end(self.stopped(stop)),
            (At::Done, _) => Action::Done(Err(Draft::config("the call is over").redact(&[]))),
            _ => self.end(Draft::config("the call was told what it did not ask for")),
        }
    }
}

impl Call {
    /// Begins an attempt: its token (a fixed one, the refreshed one, or a source's, asked for),
    /// then its request.
    fn begin(&mut self) -> Action {
        if !matches!(self.settings.credential, Credential::Source(_)) {
            return self.ready(None);
        }
        if let Some(token) = self.fresh.take() {
            return self.ready(Some(token));
        }
        self.at = At::Token(None);
        Action::Ask { refresh: false }
    }

    /// The attempt has its token (`None`: the fixed one): the before hook runs first if there is
    /// one, then the request is sent.
    fn ready(&mut self, token: Option<Token>) -> Action {
        if self.settings.config.before.is_some() {
            self.at = At::Before(token);
            return Action::Before { key: self.key_header() };
        }
        self.send(token, None)
    }

    /// The `Idempotency-Key` value every attempt sends, as the client's format says.
    fn key_header(&self) -> Option<String> {
        let IdempotencyKey::Given(key) = &self.key else { return None };
        match self.settings.config.key_format {
            KeyFormat::Quoted => Some(["\"", key, "\""].concat()),
            KeyFormat::Bare => Some(key.clone()),
        }
    }

    /// The attempt's request, with `token` when it is a source's (else the fixed one): the
    /// client's headers (`Accept`, `Content-Type`, the extra ones, which `Config::check` checked),
    /// or the `headers` the before hook was given; then the `Idempotency-Key` and `Authorization`,
    /// which the before hook cannot change.
    fn send(&mut self, token: Option<Token>, headers: Option<JsValue>) -> Action {
        let bearer = match (&token, &self.settings.credential) {
            (Some(token), _) | (None, Credential::Fixed(token)) => token.expose(),
            (None, Credential::Source(_)) => "",
        };
        let authorization = ["Bearer ", bearer].concat();
        if let Some(token) = &token {
            self.tokens.push(token.clone());
        }
        let now = (self.clock.now)();
        let ends_at = self.retry.attempt_timeout_ms.map_or(f64::INFINITY, |ms| now + f64::from(ms));
        self.at = At::Fetch(token, now);
        Action::Send { key: self.key_header(), headers, authorization, ends_at }
    }

    /// After an attempt that came to `outcome` (and learnt what the decision reads): the Plant, or
    /// the error, and what comes next: the token refreshed, a wait, or the end. The after hooks see
    /// each attempt that sent a request, with the answer's `headers`, before what comes next.
    fn attempted(
        &mut self,
        outcome: Result<Plant, Draft>,
        learnt: Learnt,
        headers: JsValue,
        token: Option<Token>,
        began: f64,
    ) -> Action {
        self.sent += 1;
        // Only a 4xx or a connection never made says that the store did not create it: any 5xx
        // may come after the write (a proxy whose upstream reset once it had the request).
        let maybe =
            !learnt.refused && outcome.is_err() && !matches!(learnt.status, Some(400..=499));
        self.maybe_created |= maybe;
        if maybe {
            self.maybe_since = self.maybe_since.min(began);
        }
        let (next, outcome) = match outcome {
            Ok(plant) => (Next::Stop(None), Ok(plant)),
            Err(draft) => {
                let keyed = self.key != IdempotencyKey::Off;
                let lifetime =
                    if keyed { self.settings.config.key_lifetime_ms } else { f64::INFINITY };
                let budget = Budget {
                    retry: self.retry,
                    sent: self.sent,
                    refreshable: matches!(self.settings.credential, Credential::Source(_)),
                    refreshed: self.refreshed,
                    ends_at: self.ends_at,
                    key_ends_at: self.maybe_since + lifetime,
                };
                let next = answer::next(&draft, &learnt, &budget, self.clock);
                let asked = if let Next::Stop(asked) = next { asked } else { None };
                (next, Err(self.fail(draft.with_retry_after(asked))))
            }
        };
        if self.settings.config.after.is_some() || self.after.is_some() {
            let seen = Seen {
                number: self.sent,
                duration_ms: (self.clock.now)() - began,
                status: learnt.status,
                headers,
                error: outcome.as_ref().err().cloned(),
            };
            self.at = At::After(outcome, next, token);
            return Action::After(seen);
        }
        self.then(outcome, next, token)
    }

    /// What follows an attempt that came to `outcome`: the Plant, or `next` after its error.
    fn then(&mut self, outcome: Result<Plant, Error>, next: Next, token: Option<Token>) -> Action {
        let error = match outcome {
            Ok(plant) => return Action::Done(Ok(plant)),
            Err(error) => error,
        };
        match (next, &self.settings.credential, token) {
            (Next::Refresh, Credential::Source(source), Some(stale)) => {
                self.last = Some(error);
                self.refreshed = true;
                let shared = source.shared(&stale);
                self.at = At::Token(Some(stale));
                shared.map_or(Action::Ask { refresh: true }, Action::Settle)
            }
            (Next::Wait(ms), _, _) => {
                self.last = Some(error);
                self.at = At::Wait;
                Action::Wait(ms)
            }
            _ => Action::Done(Err(error)),
        }
    }

    /// The call ends with `draft` while it waited for a token: a refresh it waited for, for
    /// `stale`, is forgotten (it failed, or may never settle), so that a later 401 asks again.
    fn forget(&mut self, stale: Option<Token>, draft: Draft) -> Action {
        if let (Some(stale), Credential::Source(source)) = (&stale, &self.settings.credential) {
            source.forget(stale);
        }
        self.end(draft)
    }

    /// The call ends with `draft`.
    fn end(&mut self, draft: Draft) -> Action {
        self.at = At::Done;
        Action::Done(Err(self.fail(draft)))
    }

    /// The error of a call, or an attempt, that stopped.
    fn stopped(&self, stop: Stop) -> Draft {
        let message = match stop {
            Stop::Aborted(reason) => {
                let draft = Draft::new(Kind::Aborted, "the call was aborted by its AbortSignal");
                return match reason {
                    Some(reason) => draft.with_cause(reason),
                    None => draft,
                };
            }
            Stop::TimedOut => {
                let ms = decimal(self.settings.config.timeout_ms.into());
                ["no answer from the Plant Store within ", &ms, " ms"].concat()
            }
            Stop::AttemptTimedOut => {
                ["no answer to the attempt within ", self.settings.config.names.attempt_timeout_ms]
                    .concat()
            }
        };
        Draft::new(Kind::Timeout, message)
    }

    /// The request headers a browser asks the server's CORS preflight to allow: every one the
    /// call sets but `Accept` (CORS-safelisted). A `beforeAttempt` hook may add more.
    fn preflight(&self) -> String {
        let mut names = String::from("Authorization, Content-Type");
        for (name, _) in &self.settings.config.headers {
            names.push_str(", ");
            names.push_str(name);
        }
        if self.key != IdempotencyKey::Off {
            names.push_str(", Idempotency-Key");
        }
        names
    }

    /// The one way out for an error of the call: redacted against every token it sent, with the
    /// requests made, whether one may have created the plant, and the error of the attempt before.
    /// A refusal after an attempt that may have created the plant says that it may exist.
    fn fail(&mut self, mut draft: Draft) -> Error {
        if self.maybe_created && matches!(draft.status(), Some(400..=499)) {
            draft = draft.append(
                "; the plant may exist: an earlier attempt of this call may have created it",
            );
        }
        let mut secrets: Vec<&str> = self.tokens.iter().map(Token::expose).collect();
        if let Credential::Fixed(token) = &self.settings.credential {
            secrets.push(token.expose());
        }
        let error = draft.redact(&secrets);
        error.in_call(self.sent, self.maybe_created, self.last.take())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Auth, CallOptions, Config, Retry};
    use crate::names::JS;
    use alloc::format;
    use alloc::string::ToString;

    /// A clock stopped at 1,000 s, whose jitter is one half.
    const CLOCK: Clock = Clock { now: || 1_000_000.0, random: || 0.5, parse_date: |_| f64::NAN };

    /// A call of `config` sending the plant `{ id: 7, name: "Fern" }`, on CLOCK, natively: no
    /// fetch is read, no JS value is made.
    fn call(config: Config, options: &CallOptions) -> Call {
        let settings = Rc::new(config.check().map_err(|e| e.to_string()).unwrap());
        let checked =
            options.check(&settings.config).map_err(|d| d.redact(&[]).to_string()).unwrap();
        let plant = NewPlant { id: 7, name: "Fern".into(), tag: None };
        Call::new(settings, &plant, checked, options.after.clone(), &CLOCK)
    }

    /// Settings as the JS API makes them (their messages name the JS options), with a token.
    fn fixed() -> Config {
        js().token("s3cret-token")
    }

    fn js() -> Config {
        Config::named(Some("https://plants.example/api".into()), &JS)
    }

    /// Settings whose token comes from a source (the shell calls it; natively, nothing does).
    fn source() -> Config {
        let mut config = js();
        config.auth = Some(Auth::Source(JsValue::UNDEFINED.unchecked_into()));
        config
    }

    /// What a token source's promise settled with: `text`, a string.
    fn token(text: &str) -> Input {
        Input::Settled(Value { text: Some(text.into()), kind: "string".into() })
    }

    /// The token source returned (a promise, natively `undefined`).
    fn returned() -> Input {
        Input::Returned(JsValue::UNDEFINED)
    }

    fn answer(status: f64) -> Input {
        Input::Answer(Head { status, kind: None, headers: JsValue::UNDEFINED, retry_after: None })
    }

    fn body(text: &str) -> Input {
        Input::Body(text.as_bytes().to_vec(), true)
    }

    /// An action, in words: `ask`, `ask refresh`, `settle`, `before`, `fetch Bearer …`,
    /// `read 65560`, `after 1`, `wait 50`, `plant Fern`, `error <kind> <attempts> <maybe
    /// created>: <message>`.
    fn said(action: Action) -> String {
        match action {
            Action::Ask { refresh } => if refresh { "ask refresh" } else { "ask" }.into(),
            Action::Settle(_) => "settle".into(),
            Action::Before { .. } => "before".into(),
            Action::Send { authorization, .. } => ["fetch ", &authorization].concat(),
            Action::Read(limit) => format!("read {limit}"),
            Action::After(seen) => format!("after {}", seen.number),
            Action::Wait(ms) => format!("wait {ms}"),
            Action::Done(Ok(plant)) => ["plant ", &plant.name].concat(),
            Action::Done(Err(e)) => format!(
                "error {} {} {}: {}",
                e.kind(),
                e.attempts(),
                e.maybe_created(),
                e.message()
            ),
        }
    }

    /// Steps `call` through `inputs`, and what it said after each.
    fn run(mut call: Call, inputs: Vec<Input>) -> Vec<String> {
        run_on(&mut call, inputs)
    }

    fn run_on(call: &mut Call, inputs: Vec<Input>) -> Vec<String> {
        inputs.into_iter().map(|input| said(call.step(input))).collect()
    }

    const FERN: &str = r#"{"name":"Fern"}"#;
    const UNAVAILABLE: &str = r#"{"error":1,"message":"try later"}"#;
    const REFUSED: &str = r#"{"error":4,"message":"bad token"}"#;

    #[test]
    fn a_call_that_succeeds_sends_the_bearer_token_and_reads_the_plant() {
        let steps = run(
            call(fixed(), &CallOptions::new()),
            Vec::from([Input::Start, answer(200.0), body(FERN)]),
        );
        assert_eq!(steps, ["fetch Bearer s3cret-token", "read 65560", "plant Fern"]);
        let mut c =
            call(fixed(), &CallOptions::new().idempotency_key(IdempotencyKey::Given("k-1".into())));
        let Action::Send { key, ends_at, .. } = c.step(Input::Start) else { panic!() };
        assert_eq!(key.as_deref(), Some("\"k-1\""), "a Structured Fields string");
        assert_eq!(ends_at, f64::INFINITY, "no deadline of the attempt's own");
        assert_eq!(c.ends_at, 1_010_000.0, "the call's one deadline: now and timeoutMs");
    }

    #[test]
    fn a_503_is_waited_for_and_sent_again_when_retries_are_on() {
        let retried = CallOptions::new().retry(Retry::new(3));
        let steps = run(
            call(fixed(), &retried),
            Vec::from([
                Input::Start,
                answer(503.0),
                body(UNAVAILABLE),
                Input::Waited,
                answer(200.0),
                body(FERN),
            ]),
        );
        assert_eq!(
            steps,
            [
                "fetch Bearer s3cret-token",
                "read 4096",
                "wait 50",
                "fetch Bearer s3cret-token",
                "read 65560",
                "plant Fern"
            ]
        );
        let steps = run(
            call(fixed(), &CallOptions::new()),
            Vec::from([Input::Start, answer(503.0), body(UNAVAILABLE)]),
        );
        assert_eq!(
            steps[2],
            "error unexpected_status 1 true: the Plant Store answered 503 (error 1): try later"
        );
    }

    #[test]
    fn a_refusal_after_an_attempt_that_may_have_created_the_plant_says_it_may_exist() {
        let retried = CallOptions::new().retry(Retry::new(3));
        let duplicate = || body(r#"{"error":3,"message":"a plant with id 7 already exists"}"#);
        for first in [answer(503.0), answer(502.0), Input::Stopped(Stop::AttemptTimedOut)] {
            let retried = match first {
                Input::Stopped(_) => {
                    CallOptions::new().retry(Retry::new(3).attempt_timeout_ms(100))
                }
                _ => CallOptions::new().retry(Retry::new(3).gateway_errors(true)),
            };
            let mut c = call(fixed(), &retried);
            let mut steps = run_on(&mut c, Vec::from([Input::Start, first]));
            if steps[1].starts_with("read") {
                steps.extend(run_on(&mut c, Vec::from([body(UNAVAILABLE)])));
            }
            let ended = run_on(&mut c, Vec::from([Input::Waited, answer(400.0), duplicate()]));
            assert_eq!(
                ended[2],
                "error rejected 2 true: a plant with id 7 already exists; the plant may exist: an earlier attempt of this call may have created it"
            );
        }
        let steps =
            run(call(fixed(), &retried), Vec::from([Input::Start, answer(400.0), duplicate()]));
        assert_eq!(steps[2], "error rejected 1 false: a plant with id 7 already exists");
    }

    #[test]
    fn no_answer_may_have_created_the_plant_and_a_refused_connection_did_not() {
        let said = |levels: &[(&str, &str)]| {
            let chain = levels.iter().map(|(m, c)| (m.to_string(), c.to_string())).collect();
            Said { chain: Some(chain), offline: false }
        };
        let reset = Input::Threw(
            JsValue::UNDEFINED,
            said(&[("fetch failed", ""), ("other side closed", "UND_ERR_SOCKET")]),
        );
        let steps = run(call(fixed(), &CallOptions::new()), Vec::from([Input::Start, reset]));
        let reset = "error network 1 true: could not reach the Plant Store at https://plants.example/api/plants: fetch failed (other side closed)";
        assert_eq!(steps[1], reset);
        let refused = Input::Threw(
            JsValue::UNDEFINED,
            said(&[("fetch failed", ""), ("connect ECONNREFUSED", "ECONNREFUSED")]),
        );
        let steps = run(call(fixed(), &CallOptions::new()), Vec::from([Input::Start, refused]));
        assert!(steps[1].starts_with("error network 1 false: "), "{}", steps[1]);
        // The store answered, and the body broke off: that is said, with the status.
        let broke = Input::Threw(JsValue::UNDEFINED, said(&[("terminated", "")]));
        let mut c = call(fixed(), &CallOptions::new());
        let steps = run_on(&mut c, Vec::from([Input::Start, answer(200.0), broke]));
        let said = "error network 1 true: the answer broke off after its status, 200: terminated \
                    (https://plants.example/api/plants)";
        assert_eq!(steps[2], said);
    }

    #[test]
    fn a_browser_offline_is_said_first_and_no_cors_is_guessed() {
        let failed = |offline| {
            let chain = Some(Vec::from([("Failed to fetch".to_string(), String::new())]));
            Input::Threw(JsValue::UNDEFINED, Said { chain, offline })
        };
        let url = "https://plants.example/api/plants";
        let mut cross = call(fixed(), &CallOptions::new());
        cross.cross_origin = true;
        let steps = run(cross, Vec::from([Input::Start, failed(false)]));
        assert!(
            steps[1].contains("Failed to fetch; it is on another origin: if it is up, its CORS")
        );
        let mut offline = call(fixed(), &CallOptions::new());
        offline.cross_origin = true;
        let steps = run(offline, Vec::from([Input::Start, failed(true)]));
        let said = "could not reach the Plant Store at {url}: the browser is offline (navigator.onLine is false): Failed to fetch";
        assert_eq!(steps[1], ["error network 1 true: ", &said.replace("{url}", url)].concat());
    }

    #[test]
    fn what_stops_a_call_ends_it_and_what_stops_an_attempt_is_retried() {
        let aborted = || Input::Stopped(Stop::Aborted(None));
        let steps = run(call(fixed(), &CallOptions::new()), Vec::from([aborted()]));
        assert_eq!(steps, ["error aborted 0 false: the call was aborted by its AbortSignal"]);
        let timed = CallOptions::new().retry(Retry::new(2).attempt_timeout_ms(100));
        let mut c = call(fixed(), &timed);
        let Action::Send { ends_at, .. } = c.step(Input::Start) else { panic!() };
        assert_eq!(ends_at, 1_000_100.0, "the attempt's deadline, an instant");
        let steps = run_on(
            &mut c,
            Vec::from([
                Input::Stopped(Stop::AttemptTimedOut),
                Input::Waited,
                answer(200.0),
                Input::Stopped(Stop::TimedOut),
            ]),
        );
        assert_eq!(steps[0], "wait 50");
        assert_eq!(
            steps[3],
            "error timeout 2 true: no answer from the Plant Store within 10000 ms"
        );
        // The time ran out before any request: the token source's, which the message names.
        let steps = run(
            call(source(), &CallOptions::new()),
            Vec::from([Input::Start, returned(), Input::Stopped(Stop::TimedOut)]),
        );
        let expected =
            "error timeout 0 false: options.getToken gave no token within options.timeoutMs (10000 ms)";
        assert_eq!(steps, ["ask", "settle", expected]);
    }

    #[test]
    fn a_forgery_or_a_redirect_is_judged_without_reading_its_body() {
        for (head, expected) in [
            (answer(f64::NAN), "error invalid_response 1 true: fetch resolved to a value that is not a Response"),
            (answer(200.5), "error invalid_response 1 true: fetch resolved to a value that is not a Response"),
            (answer(302.0), "error unexpected_status 1 true: the Plant Store answered with a redirect, which this client does not follow"),
        ] {
            let steps = run(call(fixed(), &CallOptions::new()), Vec::from([Input::Start, head]));
            assert_eq!(steps[1], expected);
        }
    }

    #[test]
    fn a_token_source_is_asked_before_each_request_and_once_more_after_a_401_shared_by_the_client()
    {
        let mut first = call(source(), &CallOptions::new());
        let mut second =
            Call { settings: first.settings.clone(), ..call(source(), &CallOptions::new()) };
        let refused = || body(REFUSED);
        let steps = run_on(
            &mut first,
            Vec::from([
                Input::Start,
                returned(),
                token("stale-token"),
                answer(401.0),
                refused(),
                returned(),
            ]),
        );
        assert_eq!(
            steps,
            ["ask", "settle", "fetch Bearer stale-token", "read 4096", "ask refresh", "settle"]
        );
        let steps = run_on(
            &mut second,
            Vec::from([Input::Start, returned(), token("stale-token"), answer(401.0), refused()]),
        );
        assert_eq!(
            steps[4], "settle",
            "the second call refused with that token awaits the same refresh"
        );
        let steps =
            run_on(&mut first, Vec::from([token("fresh-token"), answer(200.0), body(FERN)]));
        assert_eq!(steps, ["fetch Bearer fresh-token", "read 65560", "plant Fern"]);
    }

    #[test]
    fn what_the_token_source_settles_with_is_judged() {
        for (kind, expected) in [
            ("number", "error config 0 false: options.getToken returned number; it must return the token, a string"),
            ("function", "error config 0 false: options.getToken returned function; it must return the token, a string"),
            ("object", "error config 0 false: options.getToken returned object; it must return the token, a string"),
        ] {
            let got = Input::Settled(Value { text: None, kind: kind.into() });
            let steps = run(call(source(), &CallOptions::new()), Vec::from([Input::Start, returned(), got]));
            assert_eq!(steps, ["ask", "settle", expected]);
        }
    }

    /// A call of `settings` refused with "stale-token", now waiting for its refresh.
    fn refreshing(settings: &Rc<Settings>) -> Call {
        let mut c = Call { settings: settings.clone(), ..call(source(), &CallOptions::new()) };
        let inputs = Vec::from([
            Input::Start,
            returned(),
            token("stale-token"),
            answer(401.0),
            body(REFUSED),
        ]);
        assert_eq!(run_on(&mut c, inputs)[4], "ask refresh");
        c
    }

    #[test]
    fn a_refresh_left_pending_by_a_stop_is_forgotten_by_the_next_call_that_needs_one() {
        for stop in [Stop::TimedOut, Stop::Aborted(None)] {
            let settings = Rc::new(source().check().unwrap());
            // The refresh hangs, or its call is aborted while it waits.
            let mut hanging = refreshing(&settings);
            assert_eq!(said(hanging.step(returned())), "settle");
            let ended = said(hanging.step(Input::Stopped(stop)));
            assert!(ended.starts_with("error "), "{ended}");
            // The next call refused with the same token asks again, and its refresh is its own.
            let mut next = refreshing(&settings);
            assert_eq!(said(next.step(returned())), "settle");
            let steps =
                run_on(&mut next, Vec::from([token("fresh-token"), answer(200.0), body(FERN)]));
            assert_eq!(steps[2], "plant Fern");
            // A refresh that settles after its call ended changes nothing: the call is over.
            let late = said(hanging.step(token("late-token")));
            assert_eq!(late, "error config 0 false: the call is over");
            assert!(shared(&settings, "stale-token"), "the next call's refresh is the one shared");
        }
        // A refresh that failed is forgotten too.
        let settings = Rc::new(source().check().unwrap());
        let mut failing = refreshing(&settings);
        let steps = run_on(
            &mut failing,
            Vec::from([returned(), Input::Threw(JsValue::UNDEFINED, Said::default())]),
        );
        assert!(steps[1].starts_with("error unauthorized 1 false: "), "{}", steps[1]);
        assert!(!shared(&settings, "stale-token"));
        // It keeps the 401's code.
        let mut failing = refreshing(&settings);
        failing.step(returned());
        let Action::Done(Err(e)) = failing.step(Input::Threw(JsValue::UNDEFINED, Said::default()))
        else {
            panic!("the call goes on")
        };
        assert_eq!((e.status(), e.code()), (Some(401), Some(4)));
    }

    /// Whether a refresh of `stale` is shared by the calls of `settings`.
    fn shared(settings: &Settings, stale: &str) -> bool {
        let Credential::Source(source) = &settings.credential else { return false };
        source.shared(&Token::new(stale.into()).unwrap()).is_some()
    }

    #[test]
    fn a_before_hook_that_refuses_ends_the_call_before_any_request() {
        let hooked = || fixed().before_attempt(|_| Ok(()));
        let mut c = call(hooked(), &CallOptions::new());
        assert_eq!(said(c.step(Input::Start)), "before");
        assert_eq!(
            said(c.step(Input::Hooked(None))),
            "error config 0 false: options.beforeAttempt may not set Authorization or the connection's and framing's headers, nor change Content-Type"
        );
        let mut c = call(hooked(), &CallOptions::new());
        let steps = run_on(
            &mut c,
            Vec::from([Input::Start, Input::Threw(JsValue::UNDEFINED, Said::default())]),
        );
        assert_eq!(
            steps[1],
            "error config 0 false: options.beforeAttempt threw; the call was stopped"
        );
        let mut c = call(hooked(), &CallOptions::new());
        let steps = run_on(&mut c, Vec::from([Input::Start, Input::Hooked(Some(JsValue::TRUE))]));
        assert_eq!(steps[1], "fetch Bearer s3cret-token");
    }

    #[test]
    fn the_after_hooks_are_told_of_each_request_before_what_comes_next() {
        let options = CallOptions::new().retry(Retry::new(2)).after_attempt(|_| Ok(()));
        let steps = run(
            call(fixed(), &options),
            Vec::from([
                Input::Start,
                answer(503.0),
                body(UNAVAILABLE),
                Input::Hooked(None),
                Input::Waited,
                answer(200.0),
                body(FERN),
                Input::Stopped(Stop::Aborted(None)),
            ]),
        );
        assert_eq!(
            steps,
            [
                "fetch Bearer s3cret-token",
                "read 4096",
                "after 1",
                "wait 50",
                "fetch Bearer s3cret-token",
                "read 65560",
                "after 2",
                "plant Fern"
            ],
            "an abort while the hook ran comes after the Plant"
        );
        let mut c = call(fixed(), &options);
        let steps = run_on(
            &mut c,
            Vec::from([
                Input::Start,
                answer(200.0),
                body(FERN),
                Input::Threw(JsValue::UNDEFINED, Said::default()),
            ]),
        );
        assert_eq!(
            steps[3],
            "error config 1 true: options.afterAttempt threw; the call was stopped"
        );
    }

    #[test]
    fn a_key_is_sent_as_its_format_says_and_never_after_the_servers_lifetime_of_it() {
        let keyed = || {
            let key = IdempotencyKey::Given("k-1".into());
            CallOptions::new().retry(Retry::new(3)).idempotency_key(key)
        };
        let mut c = call(fixed().idempotency_key_format(KeyFormat::Bare), &keyed());
        let Action::Send { key, .. } = c.step(Input::Start) else { panic!() };
        assert_eq!(key.as_deref(), Some("k-1"), "the key's bytes alone");
        // The 503 may have created the plant; its retry, 50 ms on, would come after the key's
        // 10 ms: the server may have forgotten it.
        let first = || Vec::from([Input::Start, answer(503.0), body(UNAVAILABLE)]);
        let steps = run(call(fixed().key_lifetime_ms(10.0), &keyed()), first());
        let ended =
            "error unexpected_status 1 true: the Plant Store answered 503 (error 1): try later";
        assert_eq!(steps[2], ended);
        // Within the lifetime, or without a key, it waits and sends again.
        let steps = run(call(fixed().key_lifetime_ms(60.0), &keyed()), first());
        assert_eq!(steps[2], "wait 50");
        let unkeyed = CallOptions::new().retry(Retry::new(3));
        let steps = run(call(fixed().key_lifetime_ms(10.0), &unkeyed), first());
        assert_eq!(steps[2], "wait 50");
    }

    #[test]
    fn a_rust_callers_messages_name_the_rust_api() {
        let mut config = Config::new("https://plants.example/api");
        config.auth = Some(Auth::Source(JsValue::UNDEFINED.unchecked_into()));
        let steps = run(
            call(config, &CallOptions::new()),
            Vec::from([Input::Start, returned(), Input::Stopped(Stop::TimedOut)]),
        );
        assert_eq!(steps[2], "error timeout 0 false: the future of Config::token_source(..) gave no token within Config::timeout_ms(..) (10000 ms)");
        let hooked = || {
            Config::new("https://plants.example/api")
                .token("s3cret-token")
                .before_attempt(|_| Ok(()))
        };
        let steps = run(
            call(hooked(), &CallOptions::new()),
            Vec::from([Input::Start, Input::Hooked(None)]),
        );
        assert_eq!(steps[1], "error config 0 false: the hook of Config::before_attempt(..) may not set Authorization or the connection's and framing's headers, nor change Content-Type");
        let threw = Input::Threw(JsValue::UNDEFINED, Said::default());
        let steps = run(call(hooked(), &CallOptions::new()), Vec::from([Input::Start, threw]));
        assert_eq!(steps[1], "error config 0 false: the hook of Config::before_attempt(..) returned an Err; the call was stopped");
        let fixed = Config::new("https://plants.example/api").token("s3cret-token");
        let steps = run(
            call(fixed, &CallOptions::new()),
            Vec::from([Input::Start, answer(404.0), body("")]),
        );
        assert!(steps[2].ends_with("; check the base URL of Config::new(..): /plants is appended to it, so it must hold the API's path prefix, for example https://plants.example/api/v1"), "{}", steps[2]);
    }

    #[test]
    fn every_error_is_redacted_against_the_token_sent() {
        let echo = body(r#"{"error":1,"message":"token s3cret-token is not welcome"}"#);
        let steps =
            run(call(fixed(), &CallOptions::new()), Vec::from([Input::Start, answer(403.0), echo]));
        assert_eq!(steps[2], "error unexpected_status 1 false: the Plant Store answered 403 (error 1): token [redacted] is not welcome");
    }
}
