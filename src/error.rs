//! The one error type, a closed set of kinds callers branch on; its text is made safe to show by
//! `redact.rs`.
//!
//! Inside the crate an error is a [`Draft`]: its text may hold what a caller or a server sent, the
//! token included. The only way to an [`Error`] is [`Draft::redact`] ([`Error::config`], a layer's
//! own refusal, goes through it too), so no message reaches a caller without passing there,
//! whoever wrote it. In JavaScript an `Error` becomes a `PlantStoreError` with the same fields
//! (`js::error`).

use crate::redact::{hidden, shown, theirs};
#[cfg(all(test, not(target_arch = "wasm32")))]
use crate::redact::{CLOSE, OPEN};
use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use plant_store_model::{unknown_field_message, Issue, IssueCode};
use wasm_bindgen::JsValue;

/// What went wrong, as a closed set callers branch on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The NewPlant broke a rule of the contract; nothing was sent.
    Validation,
    /// The options are wrong (base URL, token, fetch, headers, timeout, retries), or a function of
    /// the caller's failed (the token source, a hook; JS: `getToken`, no fetch).
    /// [`Error::attempts`] says what was sent: nothing, unless an after hook failed after its
    /// request or the token source failed before a retry.
    Config,
    /// `fetch` rejected, or the connection broke while the body was read ([`Error::status`] then
    /// says the answer's).
    Network,
    /// No complete answer within the call's timeout ([`Config::timeout_ms`](crate::Config::timeout_ms);
    /// JS: `timeoutMs`).
    Timeout,
    /// The caller's `AbortSignal` aborted the call.
    Aborted,
    /// The service answered 400 with an Error body.
    Rejected,
    /// The service answered 401: it refused the token (for a token source, also the refreshed
    /// one), or refreshing it failed.
    Unauthorized,
    /// The service answered a status the contract does not define (404, 5xx, a redirect, …).
    UnexpectedStatus,
    /// The service answered, but not in the contract's shape (a 200 that is not a Plant, …).
    InvalidResponse,
}

impl Kind {
    /// Every kind, in the order of the enum: a new kind is added here and to `as_str`.
    const ALL: [Kind; 9] = [
        Kind::Validation,
        Kind::Config,
        Kind::Network,
        Kind::Timeout,
        Kind::Aborted,
        Kind::Rejected,
        Kind::Unauthorized,
        Kind::UnexpectedStatus,
        Kind::InvalidResponse,
    ];

    /// The string `err.kind` holds.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Validation => "validation",
            Kind::Config => "config",
            Kind::Network => "network",
            Kind::Timeout => "timeout",
            Kind::Aborted => "aborted",
            Kind::Rejected => "rejected",
            Kind::Unauthorized => "unauthorized",
            Kind::UnexpectedStatus => "unexpected_status",
            Kind::InvalidResponse => "invalid_response",
        }
    }
}

/// A name that is no kind's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnknownKind;

impl fmt::Display for UnknownKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not a kind of plant_store_client::Error (see Kind::as_str)")
    }
}

impl core::error::Error for UnknownKind {}
/// The kind `err.kind` names (an error kept as text, as an outbox entry's).
impl core::str::FromStr for Kind {
    type Err = UnknownKind;

    fn from_str(name: &str) -> Result<Kind, UnknownKind> {
        Kind::ALL.into_iter().find(|kind| kind.as_str() == name).ok_or(UnknownKind)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Every failure of the client: what kind it is, a message that holds no piece of the token, and
/// where they apply the HTTP status, the service's `error` code, the validation issues and the
/// original JavaScript failure.
///
/// Its `Display` is the message; branch on [`Error::kind`], not on the text. It is one pointer
/// wide, so a `Result` carrying it costs a call no more than its value does.
#[derive(Clone)]
pub struct Error(Box<Inner>);

#[derive(Clone)]
struct Inner {
    kind: Kind,
    message: Cow<'static, str>,
    status: Option<u16>,
    code: Option<i32>,
    issues: Vec<Issue>,
    cause: Option<JsValue>,
    /// The requests sent (0: none was).
    attempts: u32,
    maybe_created: bool,
    retry_after_ms: Option<u32>,
    /// The error of the attempt before, when the call was retried.
    earlier: Option<Error>,
}

impl Error {
    /// The kind.
    pub fn kind(&self) -> Kind {
        self.0.kind
    }

    /// The HTTP status, when there was an answer.
    pub fn status(&self) -> Option<u16> {
        self.0.status
    }

    /// The service's `error` value, when it sent an Error body.
    pub fn code(&self) -> Option<i32> {
        self.0.code
    }

    /// Every problem found with the NewPlant, for [`Kind::Validation`] (empty for other kinds).
    pub fn issues(&self) -> &[Issue] {
        &self.0.issues
    }

    /// The message: one sentence for a person, naming the field or option it is about.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// The original JavaScript failure: what fetch or (JS) `getToken` or a hook threw, or the
    /// signal's reason.
    pub fn cause(&self) -> Option<&JsValue> {
        self.0.cause.as_ref()
    }

    /// How many requests the call sent: 0 when it failed before sending one.
    pub fn attempts(&self) -> u32 {
        self.0.attempts
    }

    /// True when a request of the call may have reached the store without the client learning
    /// the outcome (no answer, a timeout, any 5xx, another 2xx, a redirect, a 200 that is not a
    /// Plant): the plant may exist. A refusal that follows in the same call (a retry that meets
    /// "duplicate id") keeps it true, and its message says so.
    pub fn maybe_created(&self) -> bool {
        self.0.maybe_created
    }

    /// The wait, in milliseconds, that the `Retry-After` of the answer the call ended on (a 429 or
    /// a 503) asked for (at most `u32::MAX`, about 49 days): set whenever the server asked, retries
    /// on or off. Wait at least this long before sending again.
    pub fn retry_after_ms(&self) -> Option<u32> {
        self.0.retry_after_ms
    }

    /// The error of the attempt before this one, when the call was retried (also
    /// [`source`](core::error::Error::source)).
    pub fn earlier(&self) -> Option<&Error> {
        self.0.earlier.as_ref()
    }

    /// A [`Kind::Config`] error of a layer over the client (the outbox is one): its refusal in its
    /// own words, or a JS failure's (a store's). It passes the gate every error passes, as text
    /// from outside: control characters flattened, and no secret known here to redact, so a layer
    /// that holds the client's token has the client redact it.
    pub fn config(message: impl Into<String>) -> Error {
        Draft::config(theirs(&message.into())).redact(&[])
    }

    /// Keeps `cause`, the JavaScript failure behind the error, as [`Error::cause`].
    pub fn with_cause(mut self, cause: JsValue) -> Error {
        self.0.cause = Some(cause);
        self
    }

    /// Records where in its call this error stands: the attempts made, whether one may have
    /// created the plant, and the earlier attempt's error.
    pub(crate) fn in_call(
        mut self,
        attempts: u32,
        maybe_created: bool,
        earlier: Option<Error>,
    ) -> Error {
        let inner = &mut self.0;
        inner.attempts = attempts;
        inner.maybe_created = maybe_created;
        inner.earlier = earlier;
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.message)
    }
}

/// By hand, to read as the JS error prints in Node: `Error { kind: rejected, message: "…", status:
/// 400, code: 3, attempts: 1, maybe_created: false }`, the fields that apply, no `Some(..)`, and no
/// cause's text (a JavaScript value's, not this crate's to print).
impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = &self.0;
        let mut out = f.debug_struct("Error");
        out.field("kind", &format_args!("{}", inner.kind)).field("message", &inner.message);
        if let Some(status) = &inner.status {
            out.field("status", status);
        }
        if let Some(code) = &inner.code {
            out.field("code", code);
        }
        if !inner.issues.is_empty() {
            out.field("issues", &inner.issues);
        }
        if inner.cause.is_some() {
            out.field("cause", &format_args!("(a JavaScript value)"));
        }
        out.field("attempts", &inner.attempts).field("maybe_created", &inner.maybe_created);
        if let Some(ms) = &inner.retry_after_ms {
            out.field("retry_after_ms", ms);
        }
        if let Some(earlier) = &inner.earlier {
            out.field("earlier", earlier);
        }
        out.finish()
    }
}

impl core::error::Error for Error {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        self.0.earlier.as_ref().map(|e| e as _)
    }
}

/// An error being built: its text is not yet fit to show (see the module).
#[must_use]
#[cfg_attr(all(test, not(target_arch = "wasm32")), derive(Clone))]
pub(crate) struct Draft(Box<Inner>);

/// At most this many issues are spelled out in a validation error's message; `issues` has them all.
const ISSUES_IN_MESSAGE: usize = 3;

impl Draft {
    /// An error of `kind` with a message and nothing else.
    pub(crate) fn new(kind: Kind, message: impl Into<Cow<'static, str>>) -> Draft {
        Draft(Box::new(Inner {
            kind,
            message: message.into(),
            status: None,
            code: None,
            issues: Vec::new(),
            cause: None,
            attempts: 0,
            maybe_created: false,
            retry_after_ms: None,
            earlier: None,
        }))
    }

    /// The options are wrong.
    pub(crate) fn config(message: impl Into<Cow<'static, str>>) -> Draft {
        Draft::new(Kind::Config, message)
    }

    /// The NewPlant broke the rules listed in `issues` (never empty); the message, made when the
    /// draft is redacted, spells out the first three.
    #[cfg(any(feature = "js", test))]
    pub(crate) fn validation(issues: Vec<Issue>) -> Draft {
        let mut draft = Draft::new(Kind::Validation, "");
        draft.0.issues = issues;
        draft
    }

    /// Adds the HTTP status.
    pub(crate) fn with_status(mut self, status: u16) -> Draft {
        self.0.status = Some(status);
        self
    }

    /// Adds the service's `error` value.
    pub(crate) fn with_code(mut self, code: i32) -> Draft {
        self.0.code = Some(code);
        self
    }

    /// Keeps the original JS failure as `cause`.
    pub(crate) fn with_cause(mut self, cause: JsValue) -> Draft {
        self.0.cause = Some(cause);
        self
    }

    /// Records a `Retry-After` wait that the call did not take.
    pub(crate) fn with_retry_after(mut self, ms: Option<u32>) -> Draft {
        self.0.retry_after_ms = ms;
        self
    }

    /// Adds `text` (the client's own words) to the message.
    pub(crate) fn append(mut self, text: &str) -> Draft {
        self.0.message.to_mut().push_str(text);
        self
    }

    /// The kind, which decides what the call does next.
    pub(crate) fn kind(&self) -> Kind {
        self.0.kind
    }

    /// The HTTP status, when there was an answer.
    pub(crate) fn status(&self) -> Option<u16> {
        self.0.status
    }

    /// The error as callers see it, every text from outside in it made safe against `secrets`
    /// (the tokens the call sent, or the token of the options being checked): in the message, the
    /// runs [`theirs`] marked; in a validation issue, the unknown key it names.
    pub(crate) fn redact(self, secrets: &[&str]) -> Error {
        let mut inner = self.0;
        for issue in inner.issues.iter_mut().filter(|i| i.code == IssueCode::UnknownField) {
            let key = hidden(&issue.path, secrets);
            if key != issue.path {
                issue.message = unknown_field_message(&key);
                issue.path = key;
            }
        }
        if inner.kind == Kind::Validation {
            inner.message = validation_message(&inner.issues).into();
        }
        inner.message = shown(&inner.message, secrets).into();
        Error(inner)
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
impl Draft {
    /// The client's own words of the message: each run from outside as `[]`.
    pub(crate) fn ours(&self) -> String {
        let mut out = String::new();
        let mut inside = false;
        for c in self.0.message.chars() {
            match u8::try_from(c) {
                Ok(OPEN) => (inside, out) = (true, out + "[]"),
                Ok(CLOSE) => inside = false,
                _ if !inside => out.push(c),
                _ => {}
            }
        }
        out
    }
}

/// "invalid NewPlant: " and the first three issues' messages, and how many more there are.
fn validation_message(issues: &[Issue]) -> String {
    let mut message = String::from("invalid NewPlant: ");
    for (i, issue) in issues.iter().take(ISSUES_IN_MESSAGE).enumerate() {
        if i > 0 {
            message.push_str("; ");
        }
        message.push_str(&issue.message);
    }
    if issues.len() > ISSUES_IN_MESSAGE {
        let more = (issues.len() - ISSUES_IN_MESSAGE) as i64;
        message.push_str(&[" (and ", &decimal(more), " more)"].concat());
    }
    message
}

/// An integer in decimal, as the model writes a JSON integer: `to_string` would bring core's
/// formatting machinery into the .wasm (its price is in docs/performance.md).
pub(crate) fn decimal(n: i64) -> String {
    let mut out = String::new();
    plant_store_model::json::write_int(&mut out, n);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;
    use alloc::vec;

    const TOKEN: &str = "Hk7-s3cr3t.T0ken_Zq9~w";

    fn leaks(text: &str) -> bool {
        (0..=TOKEN.len() - 8).any(|i| text.contains(&TOKEN[i..i + 8]))
    }

    /// `text` from outside, as a message shows it.
    fn redacted(text: &str, secret: &str) -> String {
        shown(&theirs(text), &[secret])
    }

    #[test]
    fn an_echoed_token_is_redacted_and_debug_shows_no_piece_of_it() {
        let echo = theirs(&format!("Bearer {TOKEN}"));
        let echoed =
            Draft::new(Kind::UnexpectedStatus, format!("the Plant Store answered 401: {echo}"))
                .with_status(401)
                .redact(&[TOKEN]);
        assert_eq!(echoed.message(), "the Plant Store answered 401: Bearer [redacted]");
        for text in [format!("{echoed:?}"), format!("{echoed}")] {
            assert!(!leaks(&text), "{text}");
        }
    }

    #[test]
    fn every_piece_of_eight_is_redacted_wherever_it_is_cut() {
        for cut in 0..TOKEN.len() {
            let (head, tail) = TOKEN.split_at(cut);
            for text in [
                format!("body starting \"xx{head}\""),
                format!("{tail} and the rest"),
                format!("a{head}\nb{tail}"),
            ] {
                let shown = redacted(&text, TOKEN);
                assert!(!leaks(&shown), "{text} -> {shown}");
            }
        }
        assert_eq!(redacted("a Hk7-s3cr b", TOKEN), "a [redacted] b");
        assert_eq!(redacted("a Hk7-s3c b", TOKEN), "a Hk7-s3c b", "7 characters are not a piece");
        assert_eq!(
            redacted("x Hk7-s3cr3t.T0ken_Zq9~wHk7-s3cr y", TOKEN),
            "x [redacted] y",
            "touching pieces are one run"
        );
    }

    #[test]
    fn control_characters_are_flattened() {
        assert_eq!(redacted("line\nbreak\ttab", ""), "line break tab");
    }

    #[test]
    fn a_short_token_is_redacted_whole() {
        assert_eq!(redacted("token abc12 and abc1", "abc12"), "token [redacted] and abc1");
    }

    /// A one-character token (an RFC 6750 b64token may be one) garbles no sentence of the client's:
    /// only the text from outside is searched.
    #[test]
    fn the_clients_own_words_are_never_redacted() {
        let message =
            ["the Plant Store answered 503: body \"", &theirs("try later"), "\""].concat();
        let e = Draft::new(Kind::UnexpectedStatus, message).redact(&["t"]);
        let shown = "[redacted]ry la[redacted]er";
        assert_eq!(e.message(), ["the Plant Store answered 503: body \"", shown, "\""].concat());
        let mut issue = Issue::not_an_object("array");
        issue.message = "unknown field \"at\": a NewPlant has only id, name and tag".into();
        issue.path = "at".into();
        issue.code = IssueCode::UnknownField;
        let e = Draft::validation(vec![issue]).redact(&["t"]);
        assert_eq!(
            e.issues()[0].message,
            "unknown field \"a[redacted]\": a NewPlant has only id, name and tag"
        );
        assert_eq!(
            e.message(),
            "invalid NewPlant: unknown field \"a[redacted]\": a NewPlant has only id, name and tag"
        );
    }

    #[test]
    fn issues_are_redacted_too() {
        let issue = Issue {
            path: TOKEN.into(),
            code: plant_store_model::IssueCode::UnknownField,
            message: format!("unknown field \"{TOKEN}\""),
        };
        let e = Draft::validation(vec![issue]).redact(&[TOKEN]);
        assert!(!leaks(&format!("{e:?}")), "{e:?}");
        assert_eq!(e.issues()[0].path, "[redacted]");
        let message = "unknown field \"[redacted]\": a NewPlant has only id, name and tag";
        assert_eq!(e.issues()[0].message, message);
    }

    #[test]
    fn a_validation_message_spells_out_three_issues_and_counts_the_rest() {
        let issues = (0..5)
            .map(|i| Issue::not_an_object(["thing ", &decimal(i)].concat().as_str()))
            .collect::<Vec<_>>();
        let e = Draft::validation(issues).redact(&[]);
        assert_eq!(e.kind(), Kind::Validation);
        assert_eq!(e.issues().len(), 5);
        assert!(e.message().ends_with(" (and 2 more)"), "{}", e.message());
        let one = Draft::validation(vec![Issue::not_an_object("array")]).redact(&[]);
        assert_eq!(
            one.message(),
            "invalid NewPlant: a NewPlant must be a plain object like { id, name, tag }, got array"
        );
    }

    #[test]
    fn every_kind_is_named_and_read_back() {
        for kind in Kind::ALL {
            assert_eq!(kind.as_str().parse::<Kind>(), Ok(kind));
        }
        assert_eq!("Rejected".parse::<Kind>(), Err(UnknownKind));
    }

    #[test]
    fn display_is_the_message_and_debug_reads_like_the_js_error() {
        let refused = Draft::new(Kind::Rejected, "a plant with id 7 already exists")
            .with_status(400)
            .with_code(3)
            .redact(&[])
            .in_call(1, false, None);
        assert_eq!(format!("{refused}"), "a plant with id 7 already exists");
        assert_eq!(
            format!("{refused:?}"),
            "Error { kind: rejected, message: \"a plant with id 7 already exists\", status: 400, \
             code: 3, attempts: 1, maybe_created: false }"
        );
        let later = Draft::new(Kind::UnexpectedStatus, "the Plant Store answered 429")
            .with_status(429)
            .with_retry_after(Some(5000))
            .redact(&[])
            .in_call(2, false, Some(refused));
        let debug = format!("{later:?}");
        assert!(debug.starts_with("Error { kind: unexpected_status, "), "{debug}");
        assert!(debug.contains("retry_after_ms: 5000, earlier: Error { kind: rejected"), "{debug}");
        assert!(!debug.contains("Some(") && !debug.contains("None"), "{debug}");
    }

    #[test]
    fn a_layers_own_refusal_passes_the_gate_too() {
        let e = Error::config("the store said:\n\u{1}no\u{2}");
        assert_eq!((e.kind(), e.message()), (Kind::Config, "the store said:  no "));
    }

    #[test]
    fn the_error_stays_one_pointer_wide() {
        assert_eq!(core::mem::size_of::<Error>(), core::mem::size_of::<usize>());
    }
}
