//! What the Plant Store answered, mapped onto the contract, and the error of a call that got no
//! answer. Pure Rust over bytes and numbers, so `cargo test` covers every case natively.

use crate::error::{decimal, js_message, redacted, Error, Kind};
use crate::transport::{Failure, Stop};
use alloc::string::String;
use plant_store_model::json::members;
use plant_store_model::{ApiError, BodyError, Member, Plant};

/// The most of a 200 body read: a Plant larger than this is refused, not buffered without end.
/// A call whose own body is long reads more: six bytes per byte it sent plus 64 KiB, room for the
/// echo of its name and tag, escaped.
pub const SUCCESS_BODY_LIMIT: usize = 1024 * 1024;
/// The most of any other body read; the rest is cancelled unread.
pub const ERROR_BODY_LIMIT: usize = 64 * 1024;
/// The most of a server's message or body kept in an error message (in characters).
const EXCERPT_CHARS: usize = 300;
/// Each character of the request body may come back escaped as `\u00XX`: 6 bytes.
const ECHO_BYTES_PER_BYTE: usize = 6;
/// Room for the echo's framing.
const ECHO_SLACK: usize = 64 * 1024;

/// How much of a 200 body is read for a request body of `sent` bytes: the server echoes the name
/// and tag, so a plant the server stored is never refused for its size.
pub(crate) fn success_limit(sent: usize) -> usize {
    SUCCESS_BODY_LIMIT.max(
        sent.saturating_mul(ECHO_BYTES_PER_BYTE)
            .saturating_add(ECHO_SLACK),
    )
}

/// The error of a call that ended without an answer: stopped (aborted, timed out), or fetch or
/// the body read failed with `thrown`. `url` and `timeout_ms` are for the message; `secret` (the
/// token) is removed from it.
pub(crate) fn failure(failure: Failure, url: &str, timeout_ms: u32, secret: &str) -> Error {
    let error = match failure {
        Failure::Threw(cause) => {
            let message = [
                "could not reach the Plant Store at ",
                url,
                ": ",
                &js_message(&cause),
            ];
            Error::new(Kind::Network, message.concat()).with_cause(cause)
        }
        Failure::Stopped(Stop::Aborted(reason)) => {
            let error = Error::new(Kind::Aborted, "the call was aborted by its AbortSignal");
            if reason.is_undefined() {
                error
            } else {
                error.with_cause(reason)
            }
        }
        Failure::Stopped(Stop::TimedOut) => {
            let message = [
                "no answer from the Plant Store within ",
                &decimal(timeout_ms.into()),
                " ms",
            ];
            Error::new(Kind::Timeout, message.concat())
        }
    };
    error.redact(secret)
}

/// The error of a redirect (3xx, or an opaque redirect with status 0), whose body is not read.
pub(crate) fn redirect(status: u16) -> Error {
    let error = Error::new(
        Kind::UnexpectedStatus,
        "the Plant Store answered with a redirect, which this client does not follow",
    );
    if status == 0 {
        error
    } else {
        error.with_status(status)
    }
}

/// The error of a fetch that resolved to something that is not a Response.
pub(crate) fn not_a_response() -> Error {
    Error::new(
        Kind::InvalidResponse,
        "fetch resolved to a value that is not a Response",
    )
}

/// A complete response body as a full JSON parser read it: the host's `JSON.parse` in the client
/// (see `body`), serde_json in the native tests.
pub(crate) trait Parsed {
    /// Why the body is not JSON, when it is not.
    fn not_json(&self) -> Option<BodyError>;
    /// The string member `name`, which [`members`] has found to be there once, well-formed.
    fn string(&self, name: &str) -> String;
}

/// What a status and (at most `limit` bytes of) body mean under the contract: only 200 with a Plant
/// is success; 400 with an Error body is a rejection; anything else is reported, never guessed at.
/// `complete` tells whether `body` is all of it; only a complete body is parsed (`parsed`). For a
/// Plant, returns whether it has a `tag`. `secret` (the token) is removed from the server's text
/// before it is cut to an excerpt, so a cut cannot leave a piece of it that a later redaction of
/// the whole token would miss.
pub(crate) fn outcome(
    status: u16,
    body: &[u8],
    complete: bool,
    limit: usize,
    secret: &str,
    parsed: &dyn Parsed,
) -> Result<bool, Error> {
    let excerpt = |text: &str| excerpt(&redacted(text, secret));
    let body_excerpt = || body_excerpt(&redacted(&lossy(body), secret), complete);
    let api_error = || match complete {
        true => judged(parsed, body, ApiError::check, &ApiError::MEMBERS)
            .map(|error| (error, excerpt(&parsed.string("message")))),
        false => Err(BodyError::Shape("cut")),
    };
    match status {
        200 if !complete => Err(Error::new(
            Kind::InvalidResponse,
            [
                "the Plant Store answered 200 with a body over ",
                &decimal(limit as i64),
                " bytes, not a Plant",
            ]
            .concat(),
        )
        .with_status(200)),
        200 => judged(parsed, body, Plant::check, &Plant::MEMBERS).map_err(|e| {
            let mut message =
                String::from("the Plant Store answered 200 but the body is not a Plant: ");
            e.describe(&mut message);
            Error::new(Kind::InvalidResponse, excerpt(&message)).with_status(200)
        }),
        400 => Err(match api_error() {
            Ok((code, message)) => Error::new(Kind::Rejected, message).with_code(code),
            Err(_) => Error::new(
                Kind::InvalidResponse,
                [
                    "the Plant Store answered 400 without an Error body: ",
                    &body_excerpt(),
                ]
                .concat(),
            ),
        }
        .with_status(400)),
        _ => Err(match api_error() {
            Ok((code, message)) => Error::new(
                Kind::UnexpectedStatus,
                [
                    "the Plant Store answered ",
                    &decimal(status.into()),
                    " (error ",
                    &decimal(code.into()),
                    "): ",
                    &message,
                ]
                .concat(),
            )
            .with_code(code),
            Err(_) => Error::new(
                Kind::UnexpectedStatus,
                [
                    "the Plant Store answered ",
                    &decimal(status.into()),
                    ": ",
                    &body_excerpt(),
                ]
                .concat(),
            ),
        }
        .with_status(status)),
    }
}

/// A parsed body judged by `check` over the members `names`, read from its bytes.
fn judged<T>(
    parsed: &dyn Parsed,
    body: &[u8],
    check: fn(Option<[Member; 2]>) -> Result<T, BodyError>,
    names: &[&str; 2],
) -> Result<T, BodyError> {
    match parsed.not_json() {
        Some(e) => Err(e),
        None => check(members(body, names)),
    }
}

/// A bounded, single-line piece of text for a message.
fn excerpt(text: &str) -> String {
    let mut out: String = text
        .chars()
        .take(EXCERPT_CHARS)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if text.chars().nth(EXCERPT_CHARS).is_some() {
        out.push('…');
    }
    out
}

/// `bytes` as text, each invalid sequence as U+FFFD, as `String::from_utf8_lossy` does (which
/// would cost the .wasm 1 KB).
fn lossy(mut bytes: &[u8]) -> String {
    let mut text = String::new();
    loop {
        match core::str::from_utf8(bytes) {
            Ok(valid) => {
                text.push_str(valid);
                return text;
            }
            Err(e) => {
                let (valid, rest) = bytes.split_at(e.valid_up_to());
                text.push_str(core::str::from_utf8(valid).unwrap_or_default());
                text.push(char::REPLACEMENT_CHARACTER);
                // No error length: the bytes end inside a sequence, which is one replacement.
                let invalid = e.error_len().map_or(rest.len(), usize::from);
                bytes = rest.get(invalid..).unwrap_or_default();
            }
        }
    }
}

/// The body's text (already made valid and redacted), for a message.
fn body_excerpt(text: &str, complete: bool) -> String {
    if text.is_empty() {
        return "an empty body".into();
    }
    let shown = excerpt(text.trim());
    if complete && shown.chars().count() < EXCERPT_CHARS {
        ["body \"", &shown, "\""].concat()
    } else {
        ["body starting \"", shown.trim_end_matches('…'), "\""].concat()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;
    use alloc::string::ToString;

    /// serde_json standing in for `JSON.parse`.
    struct Serde(Result<serde_json::Value, BodyError>);

    impl Serde {
        fn parse(body: &[u8]) -> Serde {
            Serde(match core::str::from_utf8(body) {
                Err(e) => Err(BodyError::NotUtf8(e.valid_up_to())),
                Ok(text) => {
                    serde_json::from_str(text).map_err(|e| BodyError::NotJson(e.to_string()))
                }
            })
        }
    }

    impl Parsed for Serde {
        fn not_json(&self) -> Option<BodyError> {
            self.0.as_ref().err().cloned()
        }
        fn string(&self, name: &str) -> String {
            self.0
                .as_ref()
                .ok()
                .and_then(|v| v[name].as_str())
                .unwrap_or_default()
                .into()
        }
    }

    fn outcome(
        status: u16,
        body: &[u8],
        complete: bool,
        limit: usize,
        secret: &str,
    ) -> Result<bool, Error> {
        super::outcome(status, body, complete, limit, secret, &Serde::parse(body))
    }

    fn failure(status: u16, body: &str) -> Error {
        outcome(status, body.as_bytes(), true, SUCCESS_BODY_LIMIT, "").unwrap_err()
    }

    #[test]
    fn only_200_with_a_plant_is_success() {
        let tag = outcome(
            200,
            br#"{"name":"Fern","tag":"green","id":1}"#,
            true,
            SUCCESS_BODY_LIMIT,
            "",
        );
        assert_eq!(tag.map_err(|e| e.kind()), Ok(true));
        for body in [
            "",
            "not json",
            r#"{"nom":"x"}"#,
            r#"{"name":"a","tag":null}"#,
            r#"["a"]"#,
            r#"{"name":"\ud800"}"#,
        ] {
            let e = failure(200, body);
            assert_eq!(
                (e.kind(), e.status()),
                (Kind::InvalidResponse, Some(200)),
                "{body}"
            );
        }
        let e = outcome(200, br#"{"name":"#, false, SUCCESS_BODY_LIMIT, "").unwrap_err();
        assert_eq!(e.kind(), Kind::InvalidResponse);
        assert!(e.message().contains("over 1048576 bytes"));
        // A call with a long name reads more of a 200; the message names what it read.
        let e = outcome(200, br#"{"name":"#, false, 6_356_992, "").unwrap_err();
        assert!(
            e.message().contains("over 6356992 bytes"),
            "{}",
            e.message()
        );
    }

    #[test]
    fn a_400_error_body_is_a_rejection_with_the_servers_message() {
        let e = failure(
            400,
            r#"{"error":3,"message":"a plant with id 7 already exists"}"#,
        );
        assert_eq!(
            (e.kind(), e.status(), e.code()),
            (Kind::Rejected, Some(400), Some(3))
        );
        assert_eq!(e.message(), "a plant with id 7 already exists");
        for body in [r#"{"oops":true}"#, "<!doctype html><h1>Oops</h1>", ""] {
            let e = failure(400, body);
            assert_eq!(
                (e.kind(), e.status(), e.code()),
                (Kind::InvalidResponse, Some(400), None),
                "{body}"
            );
        }
    }

    #[test]
    fn other_statuses_are_unexpected_with_code_or_excerpt() {
        let e = failure(
            401,
            r#"{"error":4,"message":"missing or invalid bearer token"}"#,
        );
        assert_eq!(
            (e.kind(), e.status(), e.code()),
            (Kind::UnexpectedStatus, Some(401), Some(4))
        );
        assert!(
            e.message().contains("401") && e.message().contains("missing or invalid bearer token")
        );
        let e = failure(500, "<html>\n<h1>Internal</h1></html>");
        assert_eq!(
            (e.kind(), e.status(), e.code()),
            (Kind::UnexpectedStatus, Some(500), None)
        );
        assert!(e.message().contains("<h1>Internal</h1>"), "{}", e.message());
        assert!(!e.message().contains('\n'));
        for status in [201, 204, 404, 409, 503] {
            assert_eq!(
                failure(status, "").kind(),
                Kind::UnexpectedStatus,
                "{status}"
            );
        }
    }

    #[test]
    fn invalid_utf8_is_replaced_as_std_does() {
        for bytes in [
            &b""[..],
            b"plain",
            b"caf\xc3\xa9",
            b"a\xffb",
            b"\xf0\x9f\x8c",
            b"\xf0\x9f\x8cx\xe2\x82",
            b"\xed\xa0\x80",
            b"\xc0\xaf\xf5\x80",
        ] {
            assert_eq!(lossy(bytes), String::from_utf8_lossy(bytes), "{bytes:?}");
        }
    }

    #[test]
    fn excerpts_are_bounded() {
        let huge = "E".repeat(ERROR_BODY_LIMIT);
        let e = outcome(500, huge.as_bytes(), false, ERROR_BODY_LIMIT, "").unwrap_err();
        assert!(e.message().len() < 400, "{}", e.message().len());
        assert!(e.message().contains("body starting"));
        let long = format!(r#"{{"error":1,"message":"{}"}}"#, "m".repeat(10_000));
        assert!(failure(400, &long).message().chars().count() <= EXCERPT_CHARS + 1);
    }

    #[test]
    fn a_token_across_the_excerpts_end_leaves_no_piece() {
        let token = "s3cret-t0ken-abcdef";
        // The token starts 5 characters before the cut: an excerpt taken first would keep "s3cre".
        let body = format!("{}{token} {token}", "x".repeat(EXCERPT_CHARS - 5));
        let json = format!(r#"{{"error":1,"message":"{body}"}}"#);
        for (status, body) in [(500, &body), (400, &body), (400, &json), (503, &json)] {
            let e = outcome(status, body.as_bytes(), true, SUCCESS_BODY_LIMIT, token)
                .unwrap_err()
                .redact(token);
            assert!(!e.message().contains("s3cre"), "{status}: {}", e.message());
        }
    }

    #[test]
    fn redaction_removes_an_echoed_token() {
        let e = failure(401, r#"{"error":4,"message":"bad token s3cret-t0ken"}"#)
            .redact("s3cret-t0ken");
        assert!(!e.message().contains("s3cret-t0ken"));
        assert!(e.message().contains("[redacted]"));
    }
}
