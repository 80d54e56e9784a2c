//! One call, sans IO: [`Call::step`] takes what happened ([`Input`]) and says
//! what to do next ([`Action`]), synchronously, so that `cargo test` runs a whole call natively. It
//! reads top to bottom as ureq's loop does: an attempt gets its token, is sent, its answer read up to
//! a bound and judged (`answer.rs`); after a failed one, [`answer::next`] says whether to refresh
//! the token, wait and try again, or stop. Every error the call ends with leaves through
//! [`Call::fail`]. What does the IO is the JS shell (`js/call.js`, driven by `shell.rs`); what
//! starts a call and runs it there is the client (`client.rs`).

use crate::answer::{self, Budget, Clock, Learnt, Next};
use crate::config::{IdempotencyKey, Retry, Settings};
use crate::error::{decimal, Draft, Error, Kind};
use crate::hooks::{self, After, AttemptOutcome, Callback};
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
    /// The call begins, or what was awaited (a token's promise) settled with this value.
    Value(Value),
    /// What was awaited, fetch or reading the body threw or rejected: with what, and what the
    /// runtime said of it down its cause chain (`shell::said`).
    Threw(JsValue, Option<Vec<(String, String)>>),
    /// The request could not be made: a before hook threw, or broke a rule.
    Refused(Draft),
    /// The call or its attempt stopped before what it awaited settled.
    Stopped(Stop),
    /// fetch resolved: the head of its answer, `None` when it is not a Response.
    Answer(Option<Head>),
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

/// The head of an answer, as read: its status (a forgery may give any value), its `type`, its
/// headers and the `Retry-After` among them.
pub(crate) struct Head {
    pub(crate) status: Option<f64>,
    pub(crate) kind: Option<String>,
    pub(crate) headers: JsValue,
    pub(crate) retry_after: Option<String>,
}

/// Why a call, or one of its attempts, stopped before it was done.
#[derive(Clone)]
pub(crate) enum Stop {
    /// A caller's signal aborted; its reason, when it has one.
    Aborted(Option<JsValue>),
    /// The call's timeout passed.
    TimedOut,
    /// The attempt's own time (`retry.attemptTimeoutMs`) passed.
    AttemptTimedOut,
}

/// What the shell does next.
pub(crate) enum Action {
    /// Await this (a token source's promise or value), then tell what it settled with.
    Await(JsValue),
    /// Send the request: its headers in order, then `Authorization` (after the before hook); the
    /// attempt's own time when it has one. The answer's head is told, then its body read.
    Fetch { headers: Vec<(String, String)>, authorization: String, attempt_ms: Option<u32> },
    /// Read the body, up to this many bytes.
    Read(usize),
    /// Wait this many milliseconds, then tell that the wait is over.
    Wait(u32),
    /// The call is over.
    Done(Result<Plant, Error>),
}

/// Where a call stands: what its next input answers. An attempt's own state is its token (when a
/// source's), when it began, and once its head came, the status, headers and `Retry-After`.
enum At {
    /// The next attempt begins.
    Start,
    /// A token source's token is awaited; after a 401, its new one, for the stale one.
    Token(Option<Token>),
    /// fetch is awaited.
    Fetch(Option<Token>, f64),
    /// The body is read, up to the limit.
    Body(Option<Token>, f64, u16, JsValue, Option<String>, usize),
    /// A wait before the next attempt.
    Wait,
    /// The call is over.
    Done,
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
    after: Option<Callback<After>>,
    clock: &'static Clock,
    /// When the call times out, in milliseconds since the epoch.
    ends_at: f64,
    /// Requests sent so far.
    sent: u32,
    /// One of them may have created the plant without the call learning it.
    maybe_created: bool,
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
            (At::Start, Input::Value(_)) | (At::Wait, Input::Waited) => self.begin(),
            (At::Token(stale), Input::Value(value)) => {
                match token::returned(value.text, &value.kind) {
                    Ok(token) if stale.is_none() => self.send(Some(token)),
                    Ok(token) => {
                        self.fresh = Some(token);
                        self.begin()
                    }
                    Err(draft) => self.forget(stale, draft),
                }
            }
            (At::Token(stale), Input::Threw(cause, _)) => {
                let draft = token::failed(stale.is_some()).with_cause(cause);
                self.forget(stale, draft)
            }
            (At::Fetch(..), Input::Refused(draft)) => self.end(draft),
            (At::Fetch(token, began), Input::Threw(cause, said)) => {
                let (why, refused) = answer::why(said.as_deref());
                let preflight = self.cross_origin.then(|| self.preflight());
                let draft = answer::unreachable(&url, &why, cause, preflight.as_deref());
                let learnt = Learnt { sent: true, refused, ..Learnt::default() };
                self.attempted(Err(draft), learnt, JsValue::UNDEFINED, token, began)
            }
            (At::Fetch(token, began), Input::Answer(head)) => {
                let valid = |n: &f64| (0.0..=999.0).contains(n) && *n == f64::from(*n as u16);
                let status = head.as_ref().and_then(|head| head.status).filter(valid);
                let (Some(head), Some(status)) = (head, status) else {
                    let learnt = Learnt { sent: true, ..Learnt::default() };
                    let draft = answer::not_a_response();
                    return self.attempted(Err(draft), learnt, JsValue::UNDEFINED, token, began);
                };
                let status = status as u16;
                let retry_after = head.retry_after.filter(|_| matches!(status, 429 | 503));
                let opaque = status == 0 && head.kind.as_deref() == Some("opaqueredirect");
                if (300..400).contains(&status) || opaque {
                    let learnt = Learnt {
                        sent: true,
                        status: Some(status),
                        retry_after,
                        ..Learnt::default()
                    };
                    let draft = answer::redirect(status);
                    return self.attempted(Err(draft), learnt, head.headers, token, began);
                }
                let limit = answer::limit(status, self.echoed);
                self.at = At::Body(token, began, status, head.headers, retry_after, limit);
                Action::Read(limit)
            }
            (At::Body(token, began, status, headers, retry_after, limit), input) => {
                let mut learnt =
                    Learnt { sent: true, status: Some(status), retry_after, ..Learnt::default() };
                let outcome = match input {
                    Input::Body(bytes, complete) => {
                        answer::outcome(status, &bytes, complete, limit, &url)
                    }
                    Input::Threw(cause, said) => {
                        let (why, _) = answer::why(said.as_deref());
                        Err(answer::unreachable(&url, &why, cause, None))
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
                let learnt = Learnt { sent: true, timed_out, ..Learnt::default() };
                let draft = self.stopped(stop);
                self.attempted(Err(draft), learnt, JsValue::UNDEFINED, token, began)
            }
            (At::Token(_), Input::Stopped(Stop::TimedOut)) => {
                let ms = decimal(self.settings.config.timeout_ms.into());
                let said = ["options.getToken gave no token within timeoutMs (", &ms, " ms)"];
                self.end(Draft::new(Kind::Timeout, said.concat()))
            }
            (_, Input::Stopped(stop)) => {
                let draft = self.stopped(stop);
                self.end(draft)
            }
            (At::Done, _) => Action::Done(Err(Error::config("the call is over"))),
            _ => self.end(Draft::config("the call was told what it did not ask for")),
        }
    }
}

impl Call {
    /// Begins an attempt: its token (a fixed one, the refreshed one, or a source's, awaited), then
    /// its request.
    fn begin(&mut self) -> Action {
        let settings = self.settings.clone();
        let Credential::Source(source) = &settings.credential else { return self.send(None) };
        if let Some(token) = self.fresh.take() {
            return self.send(Some(token));
        }
        match source.ask(false) {
            Ok(asked) => {
                self.at = At::Token(None);
                Action::Await(asked)
            }
            Err(cause) => self.end(token::failed(false).with_cause(cause)),
        }
    }

    /// The attempt's request, with `token` when it is a source's (else the fixed one): `Accept`,
    /// `Content-Type`, the extra headers (checked by `Config::check`), the `Idempotency-Key`, then
    /// `Authorization`, which the before hook does not see.
    fn send(&mut self, token: Option<Token>) -> Action {
        let settings = &self.settings;
        let bearer = match (&token, &settings.credential) {
            (Some(token), _) | (None, Credential::Fixed(token)) => token.expose(),
            (None, Credential::Source(_)) => "",
        };
        let json = || String::from("application/json");
        let mut headers = Vec::from([("Accept".into(), json()), ("Content-Type".into(), json())]);
        headers.extend(settings.config.headers.iter().cloned());
        if let IdempotencyKey::Given(key) = &self.key {
            headers.push(("Idempotency-Key".into(), ["\"", key, "\""].concat()));
        }
        let authorization = ["Bearer ", bearer].concat();
        if let Some(token) = &token {
            self.tokens.push(token.clone());
        }
        self.at = At::Fetch(token, (self.clock.now)());
        Action::Fetch { headers, authorization, attempt_ms: self.retry.attempt_timeout_ms }
    }

    /// After an attempt that came to `outcome` (and learnt what the decision reads): the Plant, or
    /// the error, and what comes next: the token refreshed, a wait, or the end. The after hooks see
    /// each attempt that sent a request, with the answer's `headers`.
    fn attempted(
        &mut self,
        outcome: Result<Plant, Draft>,
        learnt: Learnt,
        headers: JsValue,
        token: Option<Token>,
        began: f64,
    ) -> Action {
        let settings = self.settings.clone();
        self.sent += u32::from(learnt.sent);
        // Only a 4xx, a 503 or a connection never made says that the store did not create it.
        self.maybe_created |= learnt.sent
            && !learnt.refused
            && outcome.is_err()
            && !matches!(learnt.status, Some(400..=499 | 503));
        let (next, outcome) = match outcome {
            Ok(plant) => (Next::Stop(None), Ok(plant)),
            Err(draft) => {
                let budget = Budget {
                    retry: self.retry,
                    sent: self.sent,
                    refreshable: matches!(settings.credential, Credential::Source(_)),
                    refreshed: self.refreshed,
                    ends_at: self.ends_at,
                };
                let next = answer::next(&draft, &learnt, &budget, self.clock);
                let asked = if let Next::Stop(asked) = next { asked } else { None };
                (next, Err(self.fail(draft.with_retry_after(asked))))
            }
        };
        let after = self.after.clone();
        let hooks = [&settings.config.after, &after];
        if learnt.sent && hooks.iter().any(|hook| hook.is_some()) {
            let seen = AttemptOutcome {
                url: &settings.url,
                number: self.sent,
                duration_ms: (self.clock.now)() - began,
                status: learnt.status,
                headers: headers.dyn_ref(),
                error: outcome.as_ref().err(),
            };
            if let Err(cause) = hooks.into_iter().flatten().try_for_each(|hook| hook.0(&seen)) {
                // The plant exists after a Plant; the attempt's error is the earlier one.
                self.maybe_created |= outcome.is_ok();
                self.last = outcome.err();
                return self.end(hooks::threw("options.afterAttempt", cause));
            }
        }
        let error = match outcome {
            Ok(plant) => return Action::Done(Ok(plant)),
            Err(error) => error,
        };
        match (next, &settings.credential, token) {
            (Next::Refresh, Credential::Source(source), Some(stale)) => {
                self.last = Some(error);
                self.refreshed = true;
                let asked = source.refreshed(&stale);
                self.at = At::Token(Some(stale));
                Action::Await(asked)
            }
            (Next::Wait(ms), _, _) => {
                self.last = Some(error);
                self.at = At::Wait;
                Action::Wait(ms)
            }
            _ => Action::Done(Err(error)),
        }
    }

    /// The refresh for `stale` failed with `draft`: it is forgotten, so that a later 401 asks
    /// again, and the call ends.
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
            Stop::Aborted(reason) => return aborted(reason),
            Stop::TimedOut => {
                let ms = decimal(self.settings.config.timeout_ms.into());
                ["no answer from the Plant Store within ", &ms, " ms"].concat()
            }
            Stop::AttemptTimedOut => {
                "no answer to the attempt within retry.attemptTimeoutMs".into()
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
    fn fail(&mut self, draft: Draft) -> Error {
        let mut secrets: Vec<&str> = self.tokens.iter().map(Token::expose).collect();
        if let Credential::Fixed(token) = &self.settings.credential {
            secrets.push(token.expose());
        }
        let error = draft.redact(&secrets);
        error.in_call(self.sent, self.maybe_created, self.last.take())
    }
}

/// The error of a call a signal aborted, with its reason as the cause.
pub(crate) fn aborted(reason: Option<JsValue>) -> Draft {
    let draft = Draft::new(Kind::Aborted, "the call was aborted by its AbortSignal");
    match reason {
        Some(reason) => draft.with_cause(reason),
        None => draft,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{CallOptions, Config, Retry};
    use alloc::format;
    use alloc::string::ToString;
    use core::cell::Cell;

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

    fn fixed() -> Config {
        Config::new("https://plants.example/api").token("s3cret-token")
    }

    fn start() -> Input {
        Input::Value(Value { text: None, kind: "undefined".into() })
    }

    fn token(text: &str) -> Input {
        Input::Value(Value { text: Some(text.into()), kind: "string".into() })
    }

    fn answer(status: f64) -> Input {
        Input::Answer(Some(Head {
            status: Some(status),
            kind: None,
            headers: JsValue::UNDEFINED,
            retry_after: None,
        }))
    }

    fn body(text: &str) -> Input {
        Input::Body(text.as_bytes().to_vec(), true)
    }

    /// An action, in words: `fetch Bearer …`, `read 65560`, `wait 50`, `await`, `plant Fern`,
    /// `error <kind> <attempts> <maybe created>: <message>`.
    fn said(action: Action) -> String {
        match action {
            Action::Await(_) => "await".into(),
            Action::Fetch { authorization, .. } => ["fetch ", &authorization].concat(),
            Action::Read(limit) => format!("read {limit}"),
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
        inputs.into_iter().map(|input| said(call.step(input))).collect()
    }

    const FERN: &str = r#"{"name":"Fern"}"#;
    const UNAVAILABLE: &str = r#"{"error":1,"message":"try later"}"#;

    #[test]
    fn a_call_that_succeeds_sends_the_bearer_token_and_reads_the_plant() {
        let steps = run(
            call(fixed(), &CallOptions::new()),
            Vec::from([start(), answer(200.0), body(FERN)]),
        );
        assert_eq!(steps, ["fetch Bearer s3cret-token", "read 65560", "plant Fern"]);
        let mut c = call(
            fixed().header("X-Trace", "t-1"),
            &CallOptions::new().idempotency_key(IdempotencyKey::Given("k-1".into())),
        );
        let Action::Fetch { headers, .. } = c.step(start()) else { panic!() };
        let names: Vec<String> =
            headers.iter().map(|(name, value)| [name.as_str(), ": ", value].concat()).collect();
        assert_eq!(
            names,
            [
                "Accept: application/json",
                "Content-Type: application/json",
                "X-Trace: t-1",
                "Idempotency-Key: \"k-1\""
            ]
        );
    }

    #[test]
    fn a_503_is_waited_for_and_sent_again_when_retries_are_on() {
        let retried = CallOptions::new().retry(Retry::new(3));
        let steps = run(
            call(fixed(), &retried),
            Vec::from([
                start(),
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
            Vec::from([start(), answer(503.0), body(UNAVAILABLE)]),
        );
        assert_eq!(
            steps[2],
            "error unexpected_status 1 false: the Plant Store answered 503 (error 1): try later"
        );
    }

    #[test]
    fn no_answer_may_have_created_the_plant_and_a_refused_connection_did_not() {
        let said = |levels: &[(&str, &str)]| {
            Some(levels.iter().map(|(m, c)| (m.to_string(), c.to_string())).collect())
        };
        let reset = Input::Threw(
            JsValue::UNDEFINED,
            said(&[("fetch failed", ""), ("other side closed", "UND_ERR_SOCKET")]),
        );
        let steps = run(call(fixed(), &CallOptions::new()), Vec::from([start(), reset]));
        let reset = "error network 1 true: could not reach the Plant Store at https://plants.example/api/plants: fetch failed (other side closed)";
        assert_eq!(steps[1], reset);
        let refused = Input::Threw(
            JsValue::UNDEFINED,
            said(&[("fetch failed", ""), ("connect ECONNREFUSED", "ECONNREFUSED")]),
        );
        let steps = run(call(fixed(), &CallOptions::new()), Vec::from([start(), refused]));
        assert!(steps[1].starts_with("error network 1 false: "), "{}", steps[1]);
    }

    #[test]
    fn what_stops_a_call_ends_it_and_what_stops_an_attempt_is_retried() {
        let aborted = || Input::Stopped(Stop::Aborted(None));
        let steps = run(call(fixed(), &CallOptions::new()), Vec::from([aborted()]));
        assert_eq!(steps, ["error aborted 0 false: the call was aborted by its AbortSignal"]);
        let timed = CallOptions::new().retry(Retry::new(2).attempt_timeout_ms(100));
        let steps = run(
            call(fixed(), &timed),
            Vec::from([
                start(),
                Input::Stopped(Stop::AttemptTimedOut),
                Input::Waited,
                answer(200.0),
                Input::Stopped(Stop::TimedOut),
            ]),
        );
        assert_eq!(steps[1], "wait 50");
        assert_eq!(
            steps[4],
            "error timeout 2 true: no answer from the Plant Store within 10000 ms"
        );
        // The time ran out before any request: the token source's, which the message names.
        let asked = Rc::new(Cell::new(0));
        let steps = run(
            call(counted_source(&asked), &CallOptions::new()),
            Vec::from([start(), Input::Stopped(Stop::TimedOut)]),
        );
        let expected =
            "error timeout 0 false: options.getToken gave no token within timeoutMs (10000 ms)";
        assert_eq!(steps, ["await", expected]);
    }

    #[test]
    fn a_forgery_or_a_redirect_is_judged_without_reading_its_body() {
        let forged = Input::Answer(Some(Head {
            status: Some(200.5),
            kind: None,
            headers: JsValue::UNDEFINED,
            retry_after: None,
        }));
        for (head, expected) in [
            (Input::Answer(None), "error invalid_response 1 true: fetch resolved to a value that is not a Response"),
            (forged, "error invalid_response 1 true: fetch resolved to a value that is not a Response"),
            (answer(302.0), "error unexpected_status 1 true: the Plant Store answered with a redirect, which this client does not follow"),
        ] {
            assert_eq!(run(call(fixed(), &CallOptions::new()), Vec::from([start(), head]))[1], expected);
        }
    }

    /// A config whose token source counts how often it is asked, and gives `undefined` (the token
    /// it resolves to is told to the call apart).
    fn counted_source(asked: &Rc<Cell<u32>>) -> Config {
        let counted = asked.clone();
        let ask = move |_refresh: bool| {
            counted.set(counted.get() + 1);
            Ok(JsValue::UNDEFINED)
        };
        let mut config = Config::new("https://plants.example/api");
        config.auth = Some(crate::config::Auth::Source(Callback(Rc::new(ask))));
        config
    }

    #[test]
    fn a_token_source_is_asked_before_each_request_and_once_more_after_a_401_shared_by_the_client()
    {
        let asked = Rc::new(Cell::new(0));
        let mut first = call(counted_source(&asked), &CallOptions::new());
        let mut second = Call {
            settings: first.settings.clone(),
            ..call(counted_source(&asked), &CallOptions::new())
        };
        let refused = r#"{"error":4,"message":"bad token"}"#;
        let steps = run_on(
            &mut first,
            Vec::from([start(), token("stale-token"), answer(401.0), body(refused)]),
        );
        assert_eq!(steps, ["await", "fetch Bearer stale-token", "read 4096", "await"]);
        let steps = run_on(
            &mut second,
            Vec::from([start(), token("stale-token"), answer(401.0), body(refused)]),
        );
        assert_eq!(steps[3], "await");
        assert_eq!(
            asked.get(),
            3,
            "a token for each call, and one refresh for both, refused with one token"
        );
        let steps =
            run_on(&mut first, Vec::from([token("fresh-token"), answer(200.0), body(FERN)]));
        assert_eq!(steps, ["fetch Bearer fresh-token", "read 65560", "plant Fern"]);
        let wrong = Input::Value(Value { text: None, kind: "number".into() });
        let steps =
            run(call(counted_source(&asked), &CallOptions::new()), Vec::from([start(), wrong]));
        let expected = "error config 0 false: options.getToken returned number; it must return the token, a string";
        assert_eq!(steps, ["await", expected]);
    }

    fn run_on(call: &mut Call, inputs: Vec<Input>) -> Vec<String> {
        inputs.into_iter().map(|input| said(call.step(input))).collect()
    }

    #[test]
    fn a_before_hook_that_refuses_ends_the_call_before_any_request() {
        let mut c = call(fixed(), &CallOptions::new());
        assert!(matches!(c.step(start()), Action::Fetch { .. }));
        let refused = Draft::config("options.beforeAttempt threw; the call was stopped");
        assert_eq!(
            said(c.step(Input::Refused(refused))),
            "error config 0 false: options.beforeAttempt threw; the call was stopped"
        );
    }

    #[test]
    fn every_error_is_redacted_against_the_token_sent() {
        let echo = body(r#"{"error":1,"message":"token s3cret-token is not welcome"}"#);
        let steps =
            run(call(fixed(), &CallOptions::new()), Vec::from([start(), answer(403.0), echo]));
        assert_eq!(steps[2], "error unexpected_status 1 false: the Plant Store answered 403 (error 1): token [redacted] is not welcome");
    }
}
