//! The one error type: a closed set of kinds, context where it applies, and the original JS failure.
//!
//! On the JS side every failure becomes a `PlantStoreError` (a real `Error` subclass from
//! `js/runtime.js`) with `kind`, `message`, and `status`, `code`, `issues`, `cause` where they apply.

use crate::js;
use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;
use js_sys::{Object, Reflect};
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

/// A failure of a call, before it becomes a JS `PlantStoreError`.
#[derive(Debug)]
pub struct Error {
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
    #[inline(never)]
    pub fn new(kind: Kind, message: impl Into<Cow<'static, str>>) -> Error {
        Error {
            kind,
            message: message.into(),
            status: None,
            code: None,
            issues: Vec::new(),
            cause: None,
        }
    }

    /// The options are wrong.
    #[inline(never)]
    pub fn config(message: impl Into<Cow<'static, str>>) -> Error {
        Error::new(Kind::Config, message)
    }

    /// The NewPlant broke the rules listed in `issues` (never empty).
    pub fn validation(issues: Vec<Issue>) -> Error {
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
        Error {
            issues,
            ..Error::new(Kind::Validation, message)
        }
    }

    /// Adds the HTTP status.
    pub fn with_status(mut self, status: u16) -> Error {
        self.status = Some(status);
        self
    }

    /// Adds the service's `error` value.
    pub fn with_code(mut self, code: i32) -> Error {
        self.code = Some(code);
        self
    }

    /// Keeps the original JS failure as `cause`.
    pub fn with_cause(mut self, cause: JsValue) -> Error {
        self.cause = Some(cause);
        self
    }

    /// The kind.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The HTTP status, when there was an answer.
    pub fn status(&self) -> Option<u16> {
        self.status
    }

    /// The service's `error` value, when it sent an Error body.
    pub fn code(&self) -> Option<i32> {
        self.code
    }

    /// The validation issues (empty for other kinds).
    pub fn issues(&self) -> &[Issue] {
        &self.issues
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Replaces every occurrence of `secret` in the message (a hostile server may echo the token).
    pub fn redact(mut self, secret: &str) -> Error {
        if find(&self.message, secret).is_some() {
            self.message = redacted(&self.message, secret).into();
        }
        self
    }

    /// The JS `PlantStoreError`.
    pub fn into_js(self) -> JsValue {
        let details = Object::new();
        let set = |key: &str, value: &JsValue| {
            let _ = Reflect::set(&details, &JsValue::from_str(key), value);
        };
        if let Some(status) = self.status {
            set("status", &JsValue::from(status));
        }
        if let Some(code) = self.code {
            set("code", &JsValue::from(code));
        }
        if !self.issues.is_empty() {
            set("issues", &crate::issues_to_js(&self.issues));
        }
        if let Some(cause) = &self.cause {
            set("cause", cause);
        }
        js::PlantStoreError::new(self.kind.as_str(), &self.message, &details).unchecked_into()
    }
}

/// `text` with every occurrence of `secret` (the token) replaced by `[redacted]`.
pub fn redacted(text: &str, secret: &str) -> String {
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
pub fn decimal(n: i64) -> String {
    let mut out = String::new();
    plant_store_model::json::write_int(&mut out, n);
    out
}

/// The `message` of a JS failure, for a sentence of ours: only a real `Error`'s message is read.
pub fn js_message(value: &JsValue) -> String {
    match value.dyn_ref::<js_sys::Error>() {
        Some(error) => String::from(error.message()),
        None => String::from("a value that is not an Error"),
    }
}
