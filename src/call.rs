//! One `createPlant` call after validation: token, request, fetch, and the answer mapped onto the
//! contract. Every await is raced against the call's guard, so the timeout and the caller's signal
//! end the call even when an injected fetch or a token getter ignores them.

use crate::error::{js_message, redacted, Error, Kind};
use crate::js::{self, CallGuard};
use crate::options::{bearer, token_from, Auth, Config};
use js_sys::{Array, Promise};
use plant_store_model::{ApiError, NewPlant, Plant, Token};
use std::borrow::Cow;
use std::rc::Rc;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::AbortSignal;

/// The most of a 200 body read: a Plant larger than this is refused, not buffered without end.
const SUCCESS_BODY_LIMIT: usize = 1024 * 1024;
/// The most of any other body read; the rest is cancelled unread.
const ERROR_BODY_LIMIT: usize = 64 * 1024;
/// The most of a server's message or body kept in an error message (in characters).
const EXCERPT_CHARS: usize = 300;

/// Sends `plant` as the options say and maps the answer.
pub async fn create(
    config: Rc<Config>,
    plant: NewPlant,
    call_signal: Option<AbortSignal>,
) -> Result<JsValue, JsValue> {
    let signals = Array::new();
    for signal in config.signal.iter().chain(call_signal.iter()) {
        signals.push(signal);
    }
    let guard = CallGuard::new(&signals, config.timeout_ms);
    let result = send(&config, &plant, &guard).await;
    guard.dispose();
    result
}

async fn send(config: &Config, plant: &NewPlant, guard: &CallGuard) -> Result<JsValue, JsValue> {
    if guard.reason() != 0 {
        return Err(stopped(guard, config).into_js());
    }
    let token = token(config, guard).await.map_err(Error::into_js)?;
    let fetch = config.fetch_function().map_err(Error::into_js)?;
    let authorization = match config.auth {
        Auth::Token(_) => None,
        Auth::Getter(_) => Some(bearer(&token)),
    };
    let body = plant.to_json();
    let answer = js::exchange(
        &fetch,
        &config.url,
        &config.headers,
        authorization,
        &body,
        guard,
        SUCCESS_BODY_LIMIT as u32,
        ERROR_BODY_LIMIT as u32,
    );
    let result = match JsFuture::from(answer).await {
        Ok(answer) => interpret(&answer.unchecked_into(), token.expose()),
        Err(failure) => Err(failed(guard, config, failure)),
    };
    result.map_err(|e| e.redact(token.expose()).into_js())
}

async fn settle(guard: &CallGuard, promise: &Promise) -> Result<JsValue, JsValue> {
    JsFuture::from(guard.race(promise)).await
}

/// The error for a call its guard stopped.
fn stopped(guard: &CallGuard, config: &Config) -> Error {
    match guard.reason() {
        1 => {
            let error = Error::new(Kind::Aborted, "the call was aborted by its AbortSignal");
            match guard.cause() {
                cause if cause.is_undefined() => error,
                cause => error.with_cause(cause),
            }
        }
        _ => Error::new(
            Kind::Timeout,
            format!(
                "no answer from the Plant Store within {} ms",
                config.timeout_ms
            ),
        ),
    }
}

/// The error for a rejected fetch or body read: aborted, timed out, or the network.
fn failed(guard: &CallGuard, config: &Config, cause: JsValue) -> Error {
    if guard.reason() != 0 {
        return stopped(guard, config);
    }
    let message = format!(
        "could not reach the Plant Store at {}: {}",
        config.url,
        js_message(&cause)
    );
    Error::new(Kind::Network, message).with_cause(cause)
}

/// The token of this call: the fixed one, borrowed, or a fresh one from `getToken`.
async fn token<'a>(config: &'a Config, guard: &CallGuard) -> Result<Cow<'a, Token>, Error> {
    let getter = match &config.auth {
        Auth::Token(token) => return Ok(Cow::Borrowed(token)),
        Auth::Getter(getter) => getter,
    };
    let threw =
        |e: JsValue| Error::config("options.getToken failed; no request was sent").with_cause(e);
    let value = getter.call0(&JsValue::UNDEFINED).map_err(threw)?;
    let value = match value.dyn_ref::<Promise>() {
        Some(promise) => settle(guard, promise)
            .await
            .map_err(|e| match guard.reason() {
                0 => threw(e),
                _ => stopped(guard, config),
            })?,
        None => value,
    };
    token_from(&value, "options.getToken").map(Cow::Owned)
}

/// Maps the server's answer onto the contract.
fn interpret(answer: &js::Exchange, secret: &str) -> Result<JsValue, Error> {
    let status = answer.status();
    let Ok(status) = u16::try_from(status) else {
        return Err(Error::new(
            Kind::InvalidResponse,
            "fetch resolved to a value that is not a Response",
        ));
    };
    if answer.redirect() {
        let error = Error::new(
            Kind::UnexpectedStatus,
            "the Plant Store answered with a redirect, which this client does not follow",
        );
        // An opaque redirect (in browsers) has status 0: there is no status to report.
        return Err(if status == 0 {
            error
        } else {
            error.with_status(status)
        });
    }
    outcome(status, &answer.body().to_vec(), answer.complete(), secret)
        .map(|plant| crate::plant_to_js(&plant))
}

/// What a status and (at most `limit` bytes of) body mean under the contract: only 200 with a Plant
/// is success; 400 with an Error body is a rejection; anything else is reported, never guessed at.
/// `secret` (the token) is removed from the server's text before it is cut to an excerpt, so a cut
/// cannot leave a piece of it that a later redaction of the whole token would miss.
pub(crate) fn outcome(status: u16, body: &[u8], complete: bool, secret: &str) -> Result<Plant, Error> {
    let excerpt = |text: &str| excerpt(&redacted(text, secret));
    let body_excerpt = |body: &[u8], complete| body_excerpt(redacted(&String::from_utf8_lossy(body), secret).as_bytes(), complete);
    match status {
        200 if !complete => Err(Error::new(
            Kind::InvalidResponse,
            format!("the Plant Store answered 200 with a body over {SUCCESS_BODY_LIMIT} bytes, not a Plant"),
        )
        .with_status(200)),
        200 => Plant::from_json(body).map_err(|e| {
            let mut message = String::from("the Plant Store answered 200 but the body is not a Plant: ");
            e.describe(&mut message);
            Error::new(Kind::InvalidResponse, message).with_status(200)
        }),
        400 => Err(match ApiError::from_json(body) {
            Ok(api) => Error::new(Kind::Rejected, excerpt(&api.message)).with_code(api.error),
            Err(_) => Error::new(
                Kind::InvalidResponse,
                format!("the Plant Store answered 400 without an Error body: {}", body_excerpt(body, complete)),
            ),
        }
        .with_status(400)),
        _ => Err(match ApiError::from_json(body) {
            Ok(api) => Error::new(
                Kind::UnexpectedStatus,
                format!("the Plant Store answered {status} (error {}): {}", api.error, excerpt(&api.message)),
            )
            .with_code(api.error),
            Err(_) => Error::new(
                Kind::UnexpectedStatus,
                format!("the Plant Store answered {status}: {}", body_excerpt(body, complete)),
            ),
        }
        .with_status(status)),
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

fn body_excerpt(body: &[u8], complete: bool) -> String {
    if body.is_empty() {
        return "an empty body".into();
    }
    let text = String::from_utf8_lossy(body);
    let shown = excerpt(text.trim());
    if complete && shown.chars().count() < EXCERPT_CHARS {
        format!("body \"{shown}\"")
    } else {
        format!("body starting \"{}\"", shown.trim_end_matches('…'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(status: u16, body: &str) -> Error {
        outcome(status, body.as_bytes(), true, "").unwrap_err()
    }

    #[test]
    fn only_200_with_a_plant_is_success() {
        let plant = outcome(200, br#"{"name":"Fern","tag":"green","id":1}"#, true, "").unwrap();
        assert_eq!(plant, Plant { name: "Fern".into(), tag: Some("green".into()) });
        for body in ["", "not json", r#"{"nom":"x"}"#, r#"{"name":"a","tag":null}"#, r#"["a"]"#, r#"{"name":"\ud800"}"#] {
            let e = failure(200, body);
            assert_eq!((e.kind(), e.status()), (Kind::InvalidResponse, Some(200)), "{body}");
        }
        let e = outcome(200, br#"{"name":"#, false, "").unwrap_err();
        assert_eq!(e.kind(), Kind::InvalidResponse);
        assert!(e.message().contains("over 1048576 bytes"));
    }

    #[test]
    fn a_400_error_body_is_a_rejection_with_the_servers_message() {
        let e = failure(400, r#"{"error":3,"message":"a plant with id 7 already exists"}"#);
        assert_eq!((e.kind(), e.status(), e.code()), (Kind::Rejected, Some(400), Some(3)));
        assert_eq!(e.message(), "a plant with id 7 already exists");
        for body in [r#"{"oops":true}"#, "<!doctype html><h1>Oops</h1>", ""] {
            let e = failure(400, body);
            assert_eq!((e.kind(), e.status(), e.code()), (Kind::InvalidResponse, Some(400), None), "{body}");
        }
    }

    #[test]
    fn other_statuses_are_unexpected_with_code_or_excerpt() {
        let e = failure(401, r#"{"error":4,"message":"missing or invalid bearer token"}"#);
        assert_eq!((e.kind(), e.status(), e.code()), (Kind::UnexpectedStatus, Some(401), Some(4)));
        assert!(e.message().contains("401") && e.message().contains("missing or invalid bearer token"));
        let e = failure(500, "<html>\n<h1>Internal</h1></html>");
        assert_eq!((e.kind(), e.status(), e.code()), (Kind::UnexpectedStatus, Some(500), None));
        assert!(e.message().contains("<h1>Internal</h1>"), "{}", e.message());
        assert!(!e.message().contains('\n'));
        for status in [201, 204, 404, 409, 503] {
            assert_eq!(failure(status, "").kind(), Kind::UnexpectedStatus, "{status}");
        }
    }

    #[test]
    fn excerpts_are_bounded() {
        let huge = "E".repeat(ERROR_BODY_LIMIT);
        let e = outcome(500, huge.as_bytes(), false, "").unwrap_err();
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
            let e = outcome(status, body.as_bytes(), true, token).unwrap_err().redact(token);
            assert!(!e.message().contains("s3cre"), "{status}: {}", e.message());
        }
    }

    #[test]
    fn redaction_removes_an_echoed_token() {
        let e = failure(401, r#"{"error":4,"message":"bad token s3cret-t0ken"}"#).redact("s3cret-t0ken");
        assert!(!e.message().contains("s3cret-t0ken"));
        assert!(e.message().contains("[redacted]"));
    }
}
