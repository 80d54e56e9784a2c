//! The one error type: a closed set of kinds, context where it applies, and the original JS failure.
//!
//! The JS-facing layer turns it into a `PlantStoreError` (a real `Error` subclass from
//! `js/error.js`) with the same `kind`, `message`, `status`, `code`, `issues` and `cause`.

use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use plant_store_model::Issue;
use wasm_bindgen::{JsCast, JsValue};

/// What went wrong, as a closed set callers branch on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The NewPlant broke a rule of the contract; nothing was sent.
    Validation,
    /// The options are wrong (base URL, token, fetch, headers, timeout); nothing was sent.
    Config,
    /// `fetch` rejected, or the connection broke while the body was read.
    Network,
    /// No complete answer within `timeoutMs`.
    Timeout,
    /// The caller's `AbortSignal` aborted the call.
    Aborted,
    /// The service answered 400 with an Error body.
    Rejected,
    /// The service answered a status the contract does not define (401, 404, 5xx, a redirect, …).
    UnexpectedStatus,
    /// The service answered, but not in the contract's shape (a 200 that is not a Plant, …).
    InvalidResponse,
}

impl Kind {
    /// The string `err.kind` holds.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Validation => "validation",
            Kind::Config => "config",
            Kind::Network => "network",
            Kind::Timeout => "timeout",
            Kind::Aborted => "aborted",
            Kind::Rejected => "rejected",
            Kind::UnexpectedStatus => "unexpected_status",
            Kind::InvalidResponse => "invalid_response",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Every failure of the client: what kind it is, a message that never holds the token, and
/// where they apply the HTTP status, the service's `error` code, the validation issues and the
/// original JavaScript failure.
///
/// Its `Display` is the message; branch on [`Error::kind`], not on the text. It is one pointer
/// wide, so a `Result` carrying it costs a call no more than its value does.
#[derive(Debug, Clone)]
pub struct Error(Box<Inner>);

#[derive(Debug, Clone)]
struct Inner {
    kind: Kind,
    message: Cow<'static, str>,
    status: Option<u16>,
    code: Option<i32>,
    issues: Vec<Issue>,
    cause: Option<JsValue>,
}

/// At most this many issues are spelled out in a validation error's message; `issues` has them all.
const ISSUES_IN_MESSAGE: usize = 3;

impl Error {
    /// An error of `kind` with a message and nothing else.
    /// Not inlined, like `config`: a call site is then a few bytes of wasm.
    pub(crate) fn new(kind: Kind, message: impl Into<Cow<'static, str>>) -> Error {
        Error::of(kind, message.into())
    }

    #[inline(never)]
    fn of(kind: Kind, message: Cow<'static, str>) -> Error {
        Error(Box::new(Inner {
            kind,
            message,
            status: None,
            code: None,
            issues: Vec::new(),
            cause: None,
        }))
    }

    /// The options are wrong.
    pub(crate) fn config(message: impl Into<Cow<'static, str>>) -> Error {
        Error::of(Kind::Config, message.into())
    }

    /// The NewPlant broke the rules listed in `issues` (never empty); the message spells out the
    /// first three.
    pub(crate) fn validation(issues: Vec<Issue>) -> Error {
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
        let mut error = Error::new(Kind::Validation, message);
        error.0.issues = issues;
        error
    }

    /// Adds the HTTP status.
    pub(crate) fn with_status(mut self, status: u16) -> Error {
        self.0.status = Some(status);
        self
    }

    /// Adds the service's `error` value.
    pub(crate) fn with_code(mut self, code: i32) -> Error {
        self.0.code = Some(code);
        self
    }

    /// Keeps the original JS failure as `cause`.
    pub(crate) fn with_cause(mut self, cause: JsValue) -> Error {
        self.0.cause = Some(cause);
        self
    }

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

    /// The original JavaScript failure: what fetch or getToken threw, or the signal's reason.
    pub fn cause(&self) -> Option<&JsValue> {
        self.0.cause.as_ref()
    }

    /// Replaces every occurrence of `secret` in the message (a hostile server may echo the token).
    pub(crate) fn redact(mut self, secret: &str) -> Error {
        if find(&self.0.message, secret).is_some() {
            self.0.message = redacted(&self.0.message, secret).into();
        }
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.message)
    }
}

impl core::error::Error for Error {}

/// `text` with every occurrence of `secret` (the token) replaced by `[redacted]`.
pub(crate) fn redacted(text: &str, secret: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some((before, after)) = around(rest, secret) {
        out.push_str(before);
        out.push_str("[redacted]");
        rest = after;
    }
    out.push_str(rest);
    out
}

/// The text before and after the first `secret` in `text`.
fn around<'a>(text: &'a str, secret: &str) -> Option<(&'a str, &'a str)> {
    let (before, from) = text.split_at_checked(find(text, secret)?)?;
    Some((before, from.strip_prefix(secret)?))
}

/// Where `needle` (not empty) first occurs in `haystack`. A plain scan: the texts are short (at most
/// the 64 KiB read of an error body), and core's two-way searcher would add 2 KB to the .wasm.
fn find(haystack: &str, needle: &str) -> Option<usize> {
    if needle.is_empty() {
        return None;
    }
    haystack
        .as_bytes()
        .windows(needle.len())
        .position(|w| w == needle.as_bytes())
}

/// An integer in decimal. Messages are built without `format!`, which would bring core::fmt (and
/// its tables) into the .wasm.
pub(crate) fn decimal(n: i64) -> String {
    let mut out = String::new();
    plant_store_model::json::write_int(&mut out, n);
    out
}

/// The `message` of a JS failure, for a sentence of ours: only a real `Error`'s message is read.
pub(crate) fn js_message(value: &JsValue) -> String {
    match value.dyn_ref::<js_sys::Error>() {
        Some(error) => String::from(error.message()),
        None => String::from("a value that is not an Error"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;
    use alloc::vec;

    const TOKEN: &str = "Hk7-s3cr3t.T0ken_Zq9~w";

    #[test]
    fn an_echoed_token_is_redacted_and_debug_shows_no_piece_of_it() {
        let echoed = Error::new(
            Kind::UnexpectedStatus,
            format!("the Plant Store answered 401: Bearer {TOKEN}"),
        )
        .with_status(401)
        .redact(TOKEN);
        assert!(
            echoed.message().contains("[redacted]"),
            "{}",
            echoed.message()
        );
        for text in [format!("{echoed:?}"), format!("{echoed}")] {
            for i in 0..=TOKEN.len() - 8 {
                assert!(!text.contains(&TOKEN[i..i + 8]), "{text}");
            }
        }
    }

    #[test]
    fn a_validation_message_spells_out_three_issues_and_counts_the_rest() {
        let issues = (0..5)
            .map(|i| Issue::not_an_object(["thing ", &decimal(i)].concat().as_str()))
            .collect::<Vec<_>>();
        let e = Error::validation(issues);
        assert_eq!(e.kind(), Kind::Validation);
        assert_eq!(e.issues().len(), 5);
        assert!(e.message().ends_with(" (and 2 more)"), "{}", e.message());
        let one = Error::validation(vec![Issue::not_an_object("array")]);
        assert_eq!(
            one.message(),
            "invalid NewPlant: a NewPlant must be a plain object like { id, name, tag }, got array"
        );
    }

    #[test]
    fn the_error_stays_one_pointer_wide() {
        assert_eq!(core::mem::size_of::<Error>(), core::mem::size_of::<usize>());
    }
}
