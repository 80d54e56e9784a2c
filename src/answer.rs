//! What the Plant Store's answer means, and so what the call does next. Pure Rust over a status,
//! bytes and numbers, as reqwest keeps its retry policy apart from its loop: `cargo test` covers
//! every case natively, the clock and the dice passed in.
//!
//! - [`outcome`]: under the contract, the Plant or the error; only an error is put in words.
//! - [`why`], [`unreachable`]: the error of an attempt that got no answer.
//! - [`next`]: after a failed attempt, refresh the token, wait and try again, or stop.
//!
//! What one call may buffer follows from what it sent ([`limit`]): a 200 is the Plant, the echo
//! of the NewPlant's name and tag, so its body is read up to six bytes per byte of them (each may
//! come back escaped as `\u00XX`) plus [`BODY_SLACK`] for the members the client does not read; any
//! other answer up to [`ERROR_BODY_LIMIT`], room for an Error and an excerpt. Every text from
//! outside in a message (the server's, a JS failure's) is marked [`theirs`], the only text
//! redaction covers; the URL is the caller's own setting.

use crate::config::Retry;
use crate::error::{decimal, Draft, Kind};
use crate::redact::theirs;
use alloc::string::String;
use plant_store_model::{ApiError, Plant};
use wasm_bindgen::JsValue;

/// The most of a body other than a 200's that is read: 4 KiB.
pub const ERROR_BODY_LIMIT: usize = 4096;
/// The room a 200's body has beyond the echo of the name and tag: its braces and members the
/// client does not read (links, timestamps, an audit trail), 64 KiB.
pub const BODY_SLACK: usize = 64 * 1024;
/// Each byte of the name and tag may come back escaped as `\u00XX`: 6 bytes.
const ECHO_BYTES_PER_BYTE: usize = 6;
/// The most of a server's message or body kept in an error message, in characters.
const EXCERPT_CHARS: usize = 300;
/// What a 404 suggests (after "; check" and the base URL's name): its cause is most often a base
/// URL without the API's path prefix.
const NOT_FOUND: &str = ": /plants is appended to it, so it must hold the API's path prefix, for \
                         example https://plants.example/api/v1";

/// How much of an answer with `status` is read, for a NewPlant whose name and tag are `echoed`
/// bytes long.
pub(crate) fn limit(status: u16, echoed: usize) -> usize {
    match status {
        200 => echoed.saturating_mul(ECHO_BYTES_PER_BYTE).saturating_add(BODY_SLACK),
        _ => ERROR_BODY_LIMIT,
    }
}

/// The error of a redirect (3xx, or an opaque redirect with status 0), whose body is not read.
pub(crate) fn redirect(status: u16) -> Draft {
    let message = "the Plant Store answered with a redirect, which this client does not follow";
    let draft = Draft::new(Kind::UnexpectedStatus, message);
    match status {
        0 => draft,
        _ => draft.with_status(status),
    }
}

/// What the runtime said of a failed fetch in words, from what it said down the cause chain
/// (`shell::said`: each level's message and code), and whether it says that no connection was
/// made, so that nothing reached the store. fetch's own message says little ("fetch failed",
/// "Failed to fetch"): Node and Bun name the reason in a `code`, Node and Deno in the message of a
/// `cause` (Deno's connect failures read "client error (Connect)"); browsers tell nothing more, on
/// purpose. The deepest message (or else code) below the first is added to its message.
pub(crate) fn why(said: Option<&[(String, String)]>) -> (String, bool) {
    let Some(said @ [(first, _), ..]) = said else {
        return ("a value that is not an Error".into(), false);
    };
    let (mut detail, mut refused) = ("", false);
    for (depth, (message, code)) in said.iter().enumerate() {
        let connect = message.as_bytes().windows(22).any(|w| w == b"client error (Connect)");
        refused |= connect || NOT_CONNECTED.contains(&code.as_str());
        if depth > 0 && !(message.is_empty() && code.is_empty()) {
            detail = if message.is_empty() { code } else { message };
        }
    }
    match detail.is_empty() {
        true => (first.clone(), refused),
        false => ([first, " (", detail.trim_end(), ")"].concat(), refused),
    }
}

/// The `code`s of Node and Bun for a connection never made: refused, no such host, no route, a
/// connect timeout, a certificate refused in the handshake.
const NOT_CONNECTED: [&str; 12] = [
    "ECONNREFUSED",
    "ENOTFOUND",
    "EAI_AGAIN",
    "ENETUNREACH",
    "EHOSTUNREACH",
    "UND_ERR_CONNECT_TIMEOUT",
    "CERT_HAS_EXPIRED",
    "DEPTH_ZERO_SELF_SIGNED_CERT",
    "SELF_SIGNED_CERT_IN_CHAIN",
    "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
    "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
    "ERR_TLS_CERT_ALTNAME_INVALID",
];

/// The error of a call to `url` whose fetch threw or rejected with `cause`: no answer came. `why`
/// is what the runtime said of it. A browser that says it is `offline` is the reason, said first.
/// Else, for a cross-origin request in a browser, which hides why fetch failed, `preflight` lists
/// the headers the server's CORS must allow.
pub(crate) fn unreachable(
    url: &str,
    why: &str,
    cause: Option<JsValue>,
    offline: bool,
    preflight: Option<&str>,
) -> Draft {
    let offline = if offline { "the browser is offline (navigator.onLine is false): " } else { "" };
    let message = ["could not reach the Plant Store at ", url, ": ", offline, &theirs(why)];
    let draft =
        cause.into_iter().fold(Draft::new(Kind::Network, message.concat()), Draft::with_cause);
    let Some(headers) = preflight.filter(|_| offline.is_empty()) else {
        return draft;
    };
    let hint =
        "; it is on another origin: if it is up, its CORS may refuse the call (it must allow \
                this origin, POST and the headers ";
    draft.append(&[hint, headers, ")"].concat())
}

/// The error of a fetch that resolved to something that is not a Response.
pub(crate) fn not_a_response() -> Draft {
    Draft::new(Kind::InvalidResponse, "fetch resolved to a value that is not a Response")
}

/// What a status and (at most `limit` bytes of) body mean under the contract: only 200 with a
/// Plant is success; 400 with an Error body is a rejection; anything else is reported, never
/// guessed at. `complete` tells whether `body` is all of it; a 404 names `url`, and the setting
/// that made it (`base`, the base URL's name).
pub(crate) fn outcome(
    status: u16,
    body: &[u8],
    complete: bool,
    limit: usize,
    (url, base): (&str, &str),
) -> Result<Plant, Draft> {
    if status == 200 {
        let why = match complete.then(|| Plant::from_json(body)) {
            Some(Ok(plant)) => return Ok(plant),
            Some(Err(e)) => {
                let mut why = String::from(" but the body is not a Plant: ");
                e.describe(&mut why);
                why
            }
            None => [" with a body over ", &decimal(limit as i64), " bytes, not a Plant"].concat(),
        };
        let message = ["the Plant Store answered 200", &why].concat();
        return Err(Draft::new(Kind::InvalidResponse, message).with_status(200));
    }
    let mut answered = ["the Plant Store answered ", &decimal(status.into())].concat();
    let hint = match status {
        404 => {
            answered.push_str(&[" for POST ", url].concat());
            ["; check ", base, NOT_FOUND].concat()
        }
        _ => String::new(),
    };
    let api_error = complete.then(|| ApiError::from_json(body).ok()).flatten();
    let other = if status == 401 { Kind::Unauthorized } else { Kind::UnexpectedStatus };
    let draft = match (status, api_error) {
        (400, Some(e)) => {
            Draft::new(Kind::Rejected, theirs(&message(&e.message))).with_code(e.error)
        }
        (_, Some(e)) => {
            let code = decimal(e.error.into());
            let message =
                [&answered, " (error ", &code, "): ", &theirs(&message(&e.message)), &hint];
            Draft::new(other, message.concat()).with_code(e.error)
        }
        (400, None) => {
            let over =
                ["with a body over ", &decimal(limit as i64), " bytes, not read as"].concat();
            let why = if complete { "without" } else { &over };
            let message = [&answered, " ", why, " an Error body: ", &body_excerpt(body, complete)];
            Draft::new(Kind::InvalidResponse, message.concat())
        }
        (_, None) => {
            let message = [&answered, ": ", &body_excerpt(body, complete), &hint];
            Draft::new(other, message.concat())
        }
    };
    Err(draft.with_status(status))
}

/// Server text as a message shows it: up to its first backslash, at most [`EXCERPT_CHARS`]
/// characters; and whether that is all of it. No JSON escape (`\u0051`) is ever shown, so none can
/// spell out a piece of the token past the redaction, which searches the text as shown.
fn excerpt(text: &str) -> (String, bool) {
    let until = text.split('\\').next().unwrap_or_default();
    let mut chars = until.chars();
    let mut shown: String = chars.by_ref().take(EXCERPT_CHARS).collect();
    let whole = chars.next().is_none() && until.len() == text.len();
    if !whole {
        // A token the cut runs through would leave its first characters, too few to redact: the
        // last word goes with them.
        let word = |b: u8| b.is_ascii_alphanumeric() || b"-._~+/=".contains(&b);
        shown.truncate(shown.bytes().rposition(|b| !word(b)).map_or(0, |at| at + 1));
    }
    (shown, whole)
}

/// An Error's message (decoded by the JSON reader): its excerpt, `…` when cut.
fn message(text: &str) -> String {
    let (mut shown, whole) = excerpt(text);
    match (whole, shown.is_empty()) {
        (false, true) => NOT_WHOLE.into(),
        (false, false) => {
            shown.push('…');
            shown
        }
        (true, _) => shown,
    }
}

/// What is said of server text whose start cannot be shown whole (a word over the excerpt).
const NOT_WHOLE: &str = "[a start that cannot be shown whole]";

/// A body for a message, quoted: the excerpt of its text up to the first byte that is not UTF-8.
fn body_excerpt(body: &[u8], complete: bool) -> String {
    let valid = match core::str::from_utf8(body) {
        Ok(text) => text,
        Err(e) => core::str::from_utf8(body.get(..e.valid_up_to()).unwrap_or_default())
            .unwrap_or_default(),
    };
    let (shown, whole) = excerpt(valid.trim_ascii());
    match (whole && complete && valid.len() == body.len(), shown.is_empty()) {
        (true, true) => "an empty body".into(),
        (true, false) => ["body \"", &theirs(&shown), "\""].concat(),
        (false, true) => ["body ", NOT_WHOLE].concat(),
        (false, false) => ["body starting \"", &theirs(&shown), "\""].concat(),
    }
}

/// What one attempt learnt, as the decision reads it.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Learnt {
    /// The runtime said that no connection was made: nothing reached the store.
    pub(crate) refused: bool,
    /// The answer's status, when one came.
    pub(crate) status: Option<u16>,
    /// The answer's `Retry-After`, when a 429 or a 503 carried one.
    pub(crate) retry_after: Option<String>,
    /// The attempt ran out of its own time (`retry.attemptTimeoutMs`).
    pub(crate) timed_out: bool,
}

/// Where the call stands: what it may still do.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Budget {
    pub(crate) retry: Retry,
    /// Requests sent so far, this attempt's included.
    pub(crate) sent: u32,
    /// The token comes from a source that can be asked for a new one.
    pub(crate) refreshable: bool,
    /// The token was refreshed once already in this call.
    pub(crate) refreshed: bool,
    /// When the call times out, in milliseconds since the epoch.
    pub(crate) ends_at: f64,
    /// When the server forgets the call's idempotency key: its lifetime after the first request
    /// that may have reached the store (infinity without a key, or before such a request).
    pub(crate) key_ends_at: f64,
}

impl Budget {
    /// Whether another request may be sent. A refresh's request is the same one sent again with
    /// the new token, so it does not use up a retry: each refresh adds one to the retries'.
    fn has_attempt_left(&self) -> bool {
        self.sent < self.retry.attempts + u32::from(self.refreshed)
    }
}

/// What comes after a failed attempt.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Next {
    /// A 401 with a token from a source: ask it for a new token, then send the request again.
    Refresh,
    /// Wait this many milliseconds, then send the request again.
    Wait(u32),
    /// The call ends with the attempt's error, which records the wait its `Retry-After` asked
    /// for, if it asked.
    Stop(Option<u32>),
}

/// What the decision reads from the world, passed in so that tests choose it, and asked only
/// when an attempt failed.
pub(crate) struct Clock {
    /// Milliseconds since the epoch.
    pub(crate) now: fn() -> f64,
    /// A number in [0, 1), for the backoff's jitter.
    pub(crate) random: fn() -> f64,
    /// An HTTP-date as milliseconds since the epoch, NaN when it is none.
    pub(crate) parse_date: fn(&str) -> f64,
}

/// The platform's: `Date.now()`, `Math.random()` and `Date.parse`.
pub(crate) const PLATFORM: Clock =
    Clock { now: js_sys::Date::now, random: js_sys::Math::random, parse_date: js_sys::Date::parse };

/// What the call does after an attempt that failed with `error` (one that gave the Plant ends it).
pub(crate) fn next(error: &Draft, learnt: &Learnt, budget: &Budget, clock: &Clock) -> Next {
    let retry = &budget.retry;
    // The key is sent again only while the server may still know it.
    let known = |wait: u32| (clock.now)() + f64::from(wait) < budget.key_ends_at;
    if error.kind() == Kind::Unauthorized && budget.refreshable && !budget.refreshed && known(0) {
        return Next::Refresh;
    }
    let retried = match (error.kind(), learnt.status) {
        (Kind::Aborted, _) => false,
        (Kind::Timeout, _) => learnt.timed_out,
        (_, Some(429 | 503)) | (Kind::Network, None) => true,
        (_, Some(502 | 504)) => retry.gateway_errors,
        _ => false,
    };
    // What the server asked for counts whether or not the call waits for it.
    let asked = learnt.retry_after.as_deref().and_then(|v| retry_after(v, clock));
    if !retried || !budget.has_attempt_left() {
        return Next::Stop(asked);
    }
    let wait = asked.unwrap_or_else(|| backoff(retry, budget.sent, (clock.random)()));
    // A wait past the cap (a Retry-After's), the deadline or the key's lifetime ends the call now.
    if wait > retry.max_delay_ms
        || f64::from(wait) >= budget.ends_at - (clock.now)()
        || !known(wait)
    {
        return Next::Stop(asked);
    }
    Next::Wait(wait)
}

/// The wait before retry number `retries`: full jitter over an exponential cap (AWS's
/// "Exponential Backoff And Jitter"), at most `max_delay_ms`.
fn backoff(retry: &Retry, retries: u32, random: f64) -> u32 {
    let doubled = f64::from(retry.base_delay_ms) * f64::from(1u32 << (retries.clamp(1, 31) - 1));
    (random * doubled.min(f64::from(retry.max_delay_ms))) as u32
}

/// A `Retry-After` value (RFC 9110 10.2.3) as a wait in milliseconds from the clock's now:
/// delay-seconds, or an HTTP-date, read by the clock's date parser (the shortest HTTP-date, in
/// asctime's form, has 24 characters; `Date.parse` takes much else); `None` for anything else. A
/// date in the past is no wait.
fn retry_after(value: &str, clock: &Clock) -> Option<u32> {
    let value = value.trim_ascii();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        let seconds = value
            .bytes()
            .fold(0u64, |n, b| n.saturating_mul(10).saturating_add(u64::from(b - b'0')));
        return Some(u32::try_from(seconds.saturating_mul(1000)).unwrap_or(u32::MAX));
    }
    let at = (value.len() >= 24).then(|| (clock.parse_date)(value))?;
    (!at.is_nan()).then(|| (at - (clock.now)()).clamp(0.0, f64::from(u32::MAX)) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use alloc::format;
    use alloc::string::ToString;
    use alloc::vec::Vec;

    /// The URL called, and what the JS options call the base URL.
    const URL: (&str, &str) = ("https://plants.example/api/plants", "options.baseUrl");

    fn outcome(status: u16, body: &str) -> Result<Plant, Error> {
        super::outcome(status, body.as_bytes(), true, limit(200, 10), URL)
            .map_err(|d| d.redact(&[]))
    }

    fn failure(status: u16, body: &str) -> Error {
        outcome(status, body).unwrap_err()
    }

    #[test]
    fn only_200_with_a_plant_is_success() {
        assert_eq!(
            outcome(200, r#"{"name":"Fern","tag":"green","id":1}"#).ok(),
            Some(Plant { name: "Fern".into(), tag: Some("green".into()) })
        );
        for body in [
            "",
            "not json",
            r#"{"nom":"x"}"#,
            r#"{"name":"a","tag":null}"#,
            r#"["a"]"#,
            r#"{"name":"\ud800"}"#,
        ] {
            let e = failure(200, body);
            assert_eq!((e.kind(), e.status()), (Kind::InvalidResponse, Some(200)), "{body}");
        }
        let e = super::outcome(200, br#"{"name":"#, false, 4156, URL).unwrap_err().redact(&[]);
        assert_eq!(e.kind(), Kind::InvalidResponse);
        assert!(e.message().contains("over 4156 bytes"), "{}", e.message());
    }

    #[test]
    fn a_body_that_is_not_json_is_described_in_our_words() {
        let e = failure(200, "QhUr3Qnvfw-secret");
        assert_eq!(
            e.message(),
            "the Plant Store answered 200 but the body is not a Plant: not JSON (at byte 0)"
        );
    }

    #[test]
    fn the_read_limit_follows_the_echo() {
        assert_eq!(limit(200, 0), BODY_SLACK);
        assert_eq!(limit(200, 1 << 20), 6 * (1 << 20) + BODY_SLACK);
        assert_eq!(limit(200, usize::MAX), usize::MAX);
        assert_eq!(limit(400, 1 << 20), ERROR_BODY_LIMIT);
    }

    #[test]
    fn a_failed_fetch_says_what_the_runtime_said_and_whether_it_connected() {
        let said = |levels: &[(&str, &str)]| {
            levels.iter().map(|(m, c)| (m.to_string(), c.to_string())).collect::<Vec<_>>()
        };
        assert_eq!(why(None), ("a value that is not an Error".into(), false));
        assert_eq!(why(Some(&said(&[("Failed to fetch", "")]))), ("Failed to fetch".into(), false));
        let node =
            said(&[("fetch failed", ""), ("connect ECONNREFUSED 127.0.0.1:9 ", "ECONNREFUSED")]);
        assert_eq!(
            why(Some(&node)),
            ("fetch failed (connect ECONNREFUSED 127.0.0.1:9)".into(), true)
        );
        let deno = said(&[("error sending request", ""), ("client error (Connect)", "")]);
        assert!(why(Some(&deno)).1);
        let bun = said(&[("Unable to connect", "ConnectionRefused"), ("", "ECONNREFUSED")]);
        assert_eq!(why(Some(&bun)), ("Unable to connect (ECONNREFUSED)".into(), true));
        let reset = said(&[("fetch failed", ""), ("other side closed", "UND_ERR_SOCKET")]);
        assert!(!why(Some(&reset)).1, "a connection made may have reached the store");
    }

    #[test]
    fn a_400_error_body_is_a_rejection_with_the_servers_message() {
        let e = failure(400, r#"{"error":3,"message":"a plant with id 7 already exists"}"#);
        assert_eq!((e.kind(), e.status(), e.code()), (Kind::Rejected, Some(400), Some(3)));
        assert_eq!(e.message(), "a plant with id 7 already exists");
        for body in [r#"{"oops":true}"#, "<!doctype html><h1>Oops</h1>", ""] {
            let e = failure(400, body);
            assert_eq!(
                (e.kind(), e.status(), e.code()),
                (Kind::InvalidResponse, Some(400), None),
                "{body}"
            );
        }
        // A cut body is not an Error body, whatever its start.
        let cut = super::outcome(400, br#"{"error":3,"message":"x"#, false, ERROR_BODY_LIMIT, URL)
            .unwrap_err()
            .redact(&[]);
        assert_eq!(cut.kind(), Kind::InvalidResponse);
        let said =
            "the Plant Store answered 400 with a body over 4096 bytes, not read as an Error \
                    body: body starting \"{\"error\":3,\"message\":\"x\"";
        assert_eq!(cut.message(), said);
    }

    #[test]
    fn server_text_whose_start_is_one_word_past_the_excerpt_says_so() {
        let word = "E".repeat(EXCERPT_CHARS + 1);
        let said = "the Plant Store answered 500: body [a start that cannot be shown whole]";
        assert_eq!(failure(500, &word).message(), said);
        let e = failure(400, &[r#"{"error":3,"message":""#, &word, r#""}"#].concat());
        assert_eq!(e.message(), "[a start that cannot be shown whole]");
    }

    #[test]
    fn other_statuses_are_unexpected_with_code_or_excerpt() {
        let e = failure(401, r#"{"error":4,"message":"missing or invalid bearer token"}"#);
        assert_eq!((e.kind(), e.status(), e.code()), (Kind::Unauthorized, Some(401), Some(4)));
        assert!(
            e.message().contains("401") && e.message().contains("missing or invalid bearer token")
        );
        let e = failure(500, "<html>\n<h1>Internal</h1></html>");
        assert_eq!((e.kind(), e.status(), e.code()), (Kind::UnexpectedStatus, Some(500), None));
        assert!(e.message().contains("<h1>Internal</h1>"), "{}", e.message());
        assert!(!e.message().contains('\n'));
        for status in [201, 204, 404, 409, 503] {
            assert_eq!(failure(status, "").kind(), Kind::UnexpectedStatus, "{status}");
        }
    }

    #[test]
    fn a_body_is_shown_up_to_its_first_backslash_or_bad_byte() {
        let e = failure(500, r#"{"detail":"Bearer \u0051hUr3Qnvfw"}"#);
        assert_eq!(
            e.message(),
            r#"the Plant Store answered 500: body starting "{"detail":"Bearer ""#
        );
        let e = super::outcome(502, b"<h1>Bad\xff gateway</h1>", true, 64, URL).unwrap_err();
        assert!(e.redact(&[]).message().ends_with(r#"body starting "<h1>Bad""#));
        assert_eq!(failure(503, " \n").message(), "the Plant Store answered 503: an empty body");
    }

    #[test]
    fn excerpts_are_bounded() {
        let huge = "Error! ".repeat(ERROR_BODY_LIMIT / 7);
        let e = super::outcome(500, huge.as_bytes(), false, ERROR_BODY_LIMIT, URL)
            .unwrap_err()
            .redact(&[]);
        assert!(e.message().len() < 400, "{}", e.message().len());
        assert!(e.message().contains("body starting"));
        let long = format!(r#"{{"error":1,"message":"{}"}}"#, "m".repeat(3000));
        assert!(failure(400, &long).message().chars().count() <= EXCERPT_CHARS + 1);
    }

    #[test]
    fn a_token_across_any_cut_leaves_no_piece() {
        let token = "s3cret-t0ken-abcdef";
        let pieces = |text: &str| (0..=token.len() - 8).any(|i| text.contains(&token[i..i + 8]));
        for before in 280..310 {
            let body = format!("{}{token} {token}", "x".repeat(before));
            let json = format!(r#"{{"error":1,"message":"{body}"}}"#);
            for (status, body) in [(500, &body), (400, &body), (400, &json), (503, &json)] {
                let e = super::outcome(status, body.as_bytes(), true, ERROR_BODY_LIMIT, URL)
                    .unwrap_err()
                    .redact(&[token]);
                assert!(!pieces(e.message()), "{status}: {}", e.message());
                assert!(!e.message().contains(&token[..2]), "{status}: {}", e.message());
            }
        }
        for cut in 0..token.len() {
            let body = format!("{}{}", " ".repeat(ERROR_BODY_LIMIT - cut), token);
            let read = &body.as_bytes()[..ERROR_BODY_LIMIT];
            let e = super::outcome(403, read, false, ERROR_BODY_LIMIT, URL)
                .unwrap_err()
                .redact(&[token]);
            assert!(!pieces(e.message()), "cut {cut}: {}", e.message());
        }
    }

    const NOW: f64 = 784_111_777_000.0; // Sun, 06 Nov 1994 08:49:37 GMT

    /// The clock of the tests: now, a jitter of one half, and `Date.parse` for the dates used.
    const CLOCK: Clock = Clock { now: || NOW, random: || 0.5, parse_date };

    fn parse_date(date: &str) -> f64 {
        match date {
            "Sun, 06 Nov 1994 08:49:39 GMT" | "Sun Nov  6 08:49:39 1994" => NOW + 2_000.0,
            "Sat, 05 Nov 1994 08:49:37 GMT" => NOW - 86_400_000.0,
            _ => f64::NAN,
        }
    }

    fn error(kind: Kind, status: Option<u16>) -> Draft {
        let draft = Draft::new(kind, "failed");
        match status {
            Some(status) => draft.with_status(status),
            None => draft,
        }
    }

    fn answered(status: u16) -> Learnt {
        Learnt { status: Some(status), ..Learnt::default() }
    }

    fn budget(attempts: u32, sent: u32) -> Budget {
        Budget {
            retry: Retry::new(attempts),
            sent,
            refreshable: false,
            refreshed: false,
            ends_at: NOW + 10_000.0,
            key_ends_at: f64::INFINITY,
        }
    }

    /// The decision's kind and wait, for the tables below.
    fn decide(error: Draft, learnt: &Learnt, budget: &Budget) -> (&'static str, u32) {
        match next(&error, learnt, budget, &CLOCK) {
            Next::Refresh => ("refresh", 0),
            Next::Wait(ms) => ("wait", ms),
            Next::Stop(_) => ("stop", 0),
        }
    }

    #[test]
    fn only_what_cannot_have_created_the_plant_or_was_asked_for_is_retried() {
        let b = budget(3, 1);
        for (kind, status, expected) in [
            (Kind::UnexpectedStatus, 429, "wait"),
            (Kind::UnexpectedStatus, 503, "wait"),
            (Kind::UnexpectedStatus, 500, "stop"),
            (Kind::UnexpectedStatus, 502, "stop"),
            (Kind::UnexpectedStatus, 504, "stop"),
            (Kind::Rejected, 400, "stop"),
            (Kind::InvalidResponse, 200, "stop"),
            (Kind::Unauthorized, 401, "stop"),
        ] {
            let (what, _) = decide(error(kind, Some(status)), &answered(status), &b);
            assert_eq!(what, expected, "{status}");
        }
        let mut gateways = b;
        gateways.retry = gateways.retry.gateway_errors(true);
        for status in [502, 504] {
            let e = error(Kind::UnexpectedStatus, Some(status));
            assert_eq!(decide(e, &answered(status), &gateways).0, "wait");
        }
        // No answer: retried.
        let sent = Learnt::default();
        assert_eq!(decide(error(Kind::Network, None), &sent, &b).0, "wait");
        // The attempt's own timer: retried; the call's timeout or an abort: never.
        let timed_out = Learnt { timed_out: true, ..Learnt::default() };
        assert_eq!(decide(error(Kind::Timeout, None), &timed_out, &b).0, "wait");
        assert_eq!(decide(error(Kind::Timeout, None), &sent, &b).0, "stop");
        assert_eq!(decide(error(Kind::Aborted, None), &timed_out, &b).0, "stop");
    }

    #[test]
    fn the_budget_counts_requests_and_a_refresh_adds_one() {
        let e = || error(Kind::UnexpectedStatus, Some(503));
        assert_eq!(decide(e(), &answered(503), &budget(1, 1)).0, "stop");
        assert_eq!(decide(e(), &answered(503), &budget(3, 2)).0, "wait");
        assert_eq!(decide(e(), &answered(503), &budget(3, 3)).0, "stop");
        let mut refreshed = budget(3, 3);
        refreshed.refreshed = true;
        assert_eq!(decide(e(), &answered(503), &refreshed).0, "wait");

        let unauthorized = || error(Kind::Unauthorized, Some(401));
        let mut source = budget(1, 1);
        source.refreshable = true;
        assert_eq!(decide(unauthorized(), &answered(401), &source).0, "refresh");
        source.refreshed = true;
        source.sent = 2;
        assert_eq!(decide(unauthorized(), &answered(401), &source).0, "stop");
    }

    #[test]
    fn the_backoff_is_full_jitter_under_a_doubling_cap() {
        let retry = Retry::new(10).base_delay_ms(100).max_delay_ms(2_000);
        assert_eq!(backoff(&retry, 1, 0.999_999), 99);
        assert_eq!(backoff(&retry, 2, 0.5), 100);
        assert_eq!(backoff(&retry, 3, 0.5), 200);
        assert_eq!(backoff(&retry, 9, 0.999_999), 1_999);
        assert_eq!(backoff(&retry, 60, 0.5), 1_000);
        assert_eq!(backoff(&retry, 3, 0.0), 0);
        let b = budget(3, 1);
        assert_eq!(
            decide(error(Kind::UnexpectedStatus, Some(503)), &answered(503), &b),
            ("wait", 50)
        );
    }

    #[test]
    fn retry_after_in_seconds_or_as_a_date() {
        assert_eq!(retry_after("1", &CLOCK), Some(1_000));
        assert_eq!(retry_after(" 120 ", &CLOCK), Some(120_000));
        assert_eq!(retry_after("99999999999999999999", &CLOCK), Some(u32::MAX));
        for date in ["Sun, 06 Nov 1994 08:49:39 GMT", "Sun Nov  6 08:49:39 1994"] {
            assert_eq!(retry_after(date, &CLOCK), Some(2_000), "{date}");
        }
        assert_eq!(retry_after("Sat, 05 Nov 1994 08:49:37 GMT", &CLOCK), Some(0), "the past");
        // Too short to be an HTTP-date, or not one: the backoff is used.
        for bad in ["", "-1", "1.5", "soon", "2026-11-25", "Mon, 99 Foo 1994 08:49:37 GMT"] {
            assert_eq!(retry_after(bad, &CLOCK), None, "{bad}");
        }
    }

    #[test]
    fn a_wait_past_the_cap_or_the_deadline_stops_with_what_was_asked() {
        let asked = |value: &str| Learnt { retry_after: Some(value.to_string()), ..answered(429) };
        let e = error(Kind::UnexpectedStatus, Some(429));
        let again = error(Kind::UnexpectedStatus, Some(429));
        assert_eq!(decide(again, &asked("1"), &budget(3, 1)), ("wait", 1_000));
        for (value, left, stop) in [("30", 60_000.0, 30_000), ("5", 1_000.0, 5_000)] {
            let mut b = budget(3, 1);
            b.ends_at = NOW + left;
            assert_eq!(next(&e, &asked(value), &b, &CLOCK), Next::Stop(Some(stop)));
        }
        // The backoff past the deadline stops too, without a Retry-After to report.
        let mut b = budget(3, 1);
        b.ends_at = NOW + 10.0;
        assert_eq!(next(&e, &answered(429), &b, &CLOCK), Next::Stop(None));
    }

    #[test]
    fn a_retry_after_is_reported_with_retries_off_or_used_up() {
        let asked = |value: &str| Learnt { retry_after: Some(value.to_string()), ..answered(503) };
        let e = error(Kind::UnexpectedStatus, Some(503));
        assert_eq!(next(&e, &asked("2"), &budget(1, 1), &CLOCK), Next::Stop(Some(2_000)));
        assert_eq!(next(&e, &asked("2"), &budget(3, 3), &CLOCK), Next::Stop(Some(2_000)));
        assert_eq!(next(&e, &answered(503), &budget(1, 1), &CLOCK), Next::Stop(None));
    }
}
