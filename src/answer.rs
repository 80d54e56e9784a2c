//! What the Plant Store answered, mapped onto the contract, and the error of a call that got no
//! answer. Pure Rust over bytes and numbers, so `cargo test` covers every case natively.
//!
//! What one call may buffer follows from what it sent: a 200 is the Plant, the echo of the
//! NewPlant's name and tag, so its body is read up to six bytes per byte of them (each may come
//! back escaped as `\u00XX`) plus [`BODY_SLACK`]; any other answer up to [`ERROR_BODY_LIMIT`],
//! room for an Error and an excerpt. The rest is cancelled unread.

use crate::error::{decimal, text, Draft, Kind};
use crate::fetch::{Failure, Stop};
use alloc::string::String;
use plant_store_model::{ApiError, Plant};

/// The most of a body other than a 200's that is read: 4 KiB.
pub const ERROR_BODY_LIMIT: usize = 4096;
/// The room a 200's body has beyond the echo of the name and tag (its braces, other members).
pub const BODY_SLACK: usize = 4096;
/// Each byte of the name and tag may come back escaped as `\u00XX`: 6 bytes.
const ECHO_BYTES_PER_BYTE: usize = 6;
/// The most of a server's message or body kept in an error message, in characters.
const EXCERPT_CHARS: usize = 300;

/// How much of a 200's body is read for a NewPlant whose name and tag are `echoed` bytes long.
pub(crate) fn success_limit(echoed: usize) -> usize {
    echoed
        .saturating_mul(ECHO_BYTES_PER_BYTE)
        .saturating_add(BODY_SLACK)
}

/// The error of a call that ended without an answer: stopped (aborted, timed out), or fetch or
/// the body read failed. `url` and `timeout_ms` are for the message.
pub(crate) fn failure(failure: Failure, url: &str, timeout_ms: u32) -> Draft {
    match failure {
        Failure::Threw(cause) => {
            let message = [
                "could not reach the Plant Store at ",
                url,
                ": ",
                &js_message(&cause),
            ];
            Draft::new(Kind::Network, text(&message)).with_cause(cause)
        }
        Failure::Stopped(Stop::Aborted(reason)) => {
            let draft = Draft::new(Kind::Aborted, "the call was aborted by its AbortSignal");
            match reason.is_undefined() {
                true => draft,
                false => draft.with_cause(reason),
            }
        }
        Failure::Stopped(Stop::TimedOut) => {
            let ms = decimal(timeout_ms.into());
            Draft::new(
                Kind::Timeout,
                text(&["no answer from the Plant Store within ", &ms, " ms"]),
            )
        }
        Failure::Stopped(Stop::Tick) => Draft::new(
            Kind::Timeout,
            "no answer to the attempt within retry.attemptTimeoutMs",
        ),
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

/// The error of a fetch that resolved to something that is not a Response.
pub(crate) fn not_a_response() -> Draft {
    Draft::new(
        Kind::InvalidResponse,
        "fetch resolved to a value that is not a Response",
    )
}

/// What a status and (at most `limit` bytes of) body mean under the contract: only 200 with a
/// Plant is success; 400 with an Error body is a rejection; anything else is reported, never
/// guessed at. `complete` tells whether `body` is all of it.
pub(crate) fn outcome(
    status: u16,
    body: &[u8],
    complete: bool,
    limit: usize,
) -> Result<Plant, Draft> {
    let answered = text(&["the Plant Store answered ", &decimal(status.into())]);
    if status == 200 {
        let why = match complete {
            true => match Plant::from_json(body) {
                Ok(plant) => return Ok(plant),
                Err(e) => {
                    let mut why = String::from(" but the body is not a Plant: ");
                    e.describe(&mut why);
                    why
                }
            },
            false => text(&[
                " with a body over ",
                &decimal(limit as i64),
                " bytes, not a Plant",
            ]),
        };
        return Err(Draft::new(Kind::InvalidResponse, text(&[&answered, &why])).with_status(200));
    }
    let api_error = complete.then(|| ApiError::from_json(body).ok()).flatten();
    let other = match status {
        401 => Kind::Unauthorized,
        _ => Kind::UnexpectedStatus,
    };
    let draft = match (status, api_error) {
        (400, Some(e)) => Draft::new(Kind::Rejected, message(&e.message)).with_code(e.error),
        (_, Some(e)) => {
            let code = decimal(e.error.into());
            let message = [&answered, " (error ", &code, "): ", &message(&e.message)];
            Draft::new(other, text(&message)).with_code(e.error)
        }
        (400, None) => {
            let message = [
                &answered,
                " without an Error body: ",
                &body_excerpt(body, complete),
            ];
            Draft::new(Kind::InvalidResponse, text(&message))
        }
        (_, None) => {
            let message = [&answered, ": ", &body_excerpt(body, complete)];
            Draft::new(other, text(&message))
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
    let shown = chars.by_ref().take(EXCERPT_CHARS).collect();
    (shown, chars.next().is_none() && until.len() == text.len())
}

/// An Error's message (decoded by the JSON reader): its excerpt, `…` when cut.
fn message(text: &str) -> String {
    let (mut shown, whole) = excerpt(text);
    if !whole {
        shown.push('…');
    }
    shown
}

/// A body for a message, quoted: the excerpt of its text up to the first byte that is not UTF-8.
fn body_excerpt(body: &[u8], complete: bool) -> String {
    let valid = match core::str::from_utf8(body) {
        Ok(text) => text,
        Err(e) => core::str::from_utf8(body.get(..e.valid_up_to()).unwrap_or_default())
            .unwrap_or_default(),
    };
    let (shown, whole) = excerpt(valid.trim_ascii());
    match (
        whole && complete && valid.len() == body.len(),
        shown.is_empty(),
    ) {
        (true, true) => "an empty body".into(),
        (true, false) => text(&["body \"", &shown, "\""]),
        (false, _) => text(&["body starting \"", &shown, "\""]),
    }
}

/// The `message` of a JS failure, for a sentence of ours: only a real `Error`'s message is read.
pub(crate) fn js_message(value: &wasm_bindgen::JsValue) -> String {
    use wasm_bindgen::JsCast;
    match value.dyn_ref::<js_sys::Error>() {
        Some(error) => String::from(error.message()),
        None => String::from("a value that is not an Error"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use alloc::format;

    fn outcome(status: u16, body: &str) -> Result<Plant, Error> {
        super::outcome(status, body.as_bytes(), true, success_limit(10)).map_err(|d| d.redact(""))
    }

    fn failure(status: u16, body: &str) -> Error {
        outcome(status, body).unwrap_err()
    }

    #[test]
    fn only_200_with_a_plant_is_success() {
        assert_eq!(
            outcome(200, r#"{"name":"Fern","tag":"green","id":1}"#).ok(),
            Some(Plant {
                name: "Fern".into(),
                tag: Some("green".into())
            })
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
            assert_eq!(
                (e.kind(), e.status()),
                (Kind::InvalidResponse, Some(200)),
                "{body}"
            );
        }
        let e = super::outcome(200, br#"{"name":"#, false, 4156)
            .unwrap_err()
            .redact("");
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
        assert_eq!(success_limit(0), BODY_SLACK);
        assert_eq!(success_limit(1 << 20), 6 * (1 << 20) + BODY_SLACK);
        assert_eq!(success_limit(usize::MAX), usize::MAX);
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
        // A cut body is not an Error body, whatever its start.
        let cut = super::outcome(400, br#"{"error":3,"message":"x"#, false, ERROR_BODY_LIMIT)
            .unwrap_err()
            .redact("");
        assert_eq!(cut.kind(), Kind::InvalidResponse);
        assert!(cut.message().contains("body starting"), "{}", cut.message());
    }

    #[test]
    fn other_statuses_are_unexpected_with_code_or_excerpt() {
        let e = failure(
            401,
            r#"{"error":4,"message":"missing or invalid bearer token"}"#,
        );
        assert_eq!(
            (e.kind(), e.status(), e.code()),
            (Kind::Unauthorized, Some(401), Some(4))
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
    fn a_body_is_shown_up_to_its_first_backslash_or_bad_byte() {
        let e = failure(500, r#"{"detail":"Bearer \u0051hUr3Qnvfw"}"#);
        assert_eq!(
            e.message(),
            r#"the Plant Store answered 500: body starting "{"detail":"Bearer ""#
        );
        let e = super::outcome(502, b"<h1>Bad\xff gateway</h1>", true, 64).unwrap_err();
        assert!(e
            .redact("")
            .message()
            .ends_with(r#"body starting "<h1>Bad""#));
        assert_eq!(
            failure(503, " \n").message(),
            "the Plant Store answered 503: an empty body"
        );
    }

    #[test]
    fn excerpts_are_bounded() {
        let huge = "E".repeat(ERROR_BODY_LIMIT);
        let e = super::outcome(500, huge.as_bytes(), false, ERROR_BODY_LIMIT)
            .unwrap_err()
            .redact("");
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
                let e = super::outcome(status, body.as_bytes(), true, ERROR_BODY_LIMIT)
                    .unwrap_err()
                    .redact(token);
                assert!(!pieces(e.message()), "{status}: {}", e.message());
            }
        }
        for cut in 0..token.len() {
            let body = format!("{}{}", " ".repeat(ERROR_BODY_LIMIT - cut), token);
            let read = &body.as_bytes()[..ERROR_BODY_LIMIT];
            let e = super::outcome(403, read, false, ERROR_BODY_LIMIT)
                .unwrap_err()
                .redact(token);
            assert!(!pieces(e.message()), "cut {cut}: {}", e.message());
        }
    }
}
