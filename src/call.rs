//! One `createPlant` call after validation: token, request, fetch, and the answer mapped onto the
//! contract. Every await is raced against the call's guard, so the timeout and the caller's signal
//! end the call even when an injected fetch or a token getter ignores them.

use crate::error::{js_message, Error, Kind};
use crate::js::{self, CallGuard};
use crate::options::{token_from, Auth, Config};
use gloo_net::http::{Headers, Method, RequestBuilder};
use js_sys::{Array, Promise, Uint8Array};
use plant_store_model::{ApiError, NewPlant, Plant, Token};
use std::rc::Rc;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortSignal, ReadableStreamDefaultReader, RequestCredentials, RequestRedirect, ResponseType};

/// The most of a 200 body read: a Plant larger than this is refused, not buffered without end.
const SUCCESS_BODY_LIMIT: usize = 1024 * 1024;
/// The most of any other body read; the rest is cancelled unread.
const ERROR_BODY_LIMIT: usize = 64 * 1024;
/// The most of a server's message or body kept in an error message (in characters).
const EXCERPT_CHARS: usize = 300;

/// Sends `plant` as the options say and maps the answer.
pub async fn create(config: Rc<Config>, plant: NewPlant, call_signal: Option<AbortSignal>) -> Result<JsValue, JsValue> {
    let signals = Array::new();
    for signal in config.signal.iter().chain(call_signal.iter()) {
        signals.push(signal);
    }
    let guard = CallGuard::new(&signals, config.timeout_ms);
    let result = send(&config, &plant, &guard).await;
    guard.dispose();
    result.map_err(Error::into_js)
}

async fn send(config: &Config, plant: &NewPlant, guard: &CallGuard) -> Result<JsValue, Error> {
    if guard.reason() != 0 {
        return Err(stopped(guard, config));
    }
    let token = token(config, guard).await?;
    let secret = token.expose();
    let fetch = config.fetch_function()?;
    let request = build_request(config, plant, &token, &guard.signal())?;
    let answer = fetch.call1(&JsValue::UNDEFINED, &request).map(|r| js::promise_resolve(&r));
    let response = match answer {
        Ok(promise) => settle(guard, &promise).await,
        Err(thrown) => Err(thrown),
    };
    let response = response.map_err(|e| failed(guard, config, e).redact(secret))?;
    let response = response.dyn_into::<web_sys::Response>().map_err(|_| {
        Error::new(Kind::InvalidResponse, "fetch resolved to a value that is not a Response")
    })?;
    interpret(&response, guard, config, secret).await.map_err(|e| e.redact(secret))
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
        _ => Error::new(Kind::Timeout, format!("no answer from the Plant Store within {} ms", config.timeout_ms)),
    }
}

/// The error for a rejected fetch or body read: aborted, timed out, or the network.
fn failed(guard: &CallGuard, config: &Config, cause: JsValue) -> Error {
    if guard.reason() != 0 {
        return stopped(guard, config);
    }
    let message = format!("could not reach the Plant Store at {}: {}", config.url, js_message(&cause));
    Error::new(Kind::Network, message).with_cause(cause)
}

async fn token(config: &Config, guard: &CallGuard) -> Result<Token, Error> {
    let getter = match &config.auth {
        Auth::Token(token) => return Ok(token.clone()),
        Auth::Getter(getter) => getter,
    };
    let threw = |e: JsValue| Error::config("options.getToken failed; no request was sent").with_cause(e);
    let value = getter.call0(&JsValue::UNDEFINED).map_err(threw)?;
    let value = match value.dyn_ref::<Promise>() {
        Some(promise) => settle(guard, promise).await.map_err(|e| match guard.reason() {
            0 => threw(e),
            _ => stopped(guard, config),
        })?,
        None => value,
    };
    token_from(&value, "options.getToken")
}

fn build_request(config: &Config, plant: &NewPlant, token: &Token, signal: &AbortSignal) -> Result<web_sys::Request, Error> {
    let bad = |e: JsValue| Error::config("the request could not be built").with_cause(e);
    let headers = web_sys::Headers::new().map_err(bad)?;
    for (name, value) in &config.headers {
        headers.set(name, value).map_err(bad)?;
    }
    let bearer = format!("Bearer {}", token.expose());
    headers.set("Authorization", &bearer).map_err(|_| Error::config("the token could not be sent as a header"))?;
    headers.set("Content-Type", "application/json").map_err(bad)?;
    if !config.headers.iter().any(|(name, _)| name.eq_ignore_ascii_case("accept")) {
        headers.set("Accept", "application/json").map_err(bad)?;
    }
    let request = RequestBuilder::new(&config.url)
        .method(Method::POST)
        .headers(Headers::from_raw(headers))
        .credentials(RequestCredentials::Omit)
        // The contract shows no redirects: following one would re-send the body (and, within an
        // origin, the token) somewhere the caller did not name.
        .redirect(RequestRedirect::Manual)
        .abort_signal(Some(signal))
        .body(JsValue::from_str(&plant.to_json()))
        .map_err(|e| Error::config(format!("the request could not be built: {e}")))?;
    Ok(request.into())
}

/// Maps the response onto the contract.
async fn interpret(response: &web_sys::Response, guard: &CallGuard, config: &Config, secret: &str) -> Result<JsValue, Error> {
    let status = response.status();
    if response.type_() == ResponseType::Opaqueredirect || (300..400).contains(&status) {
        if let Some(body) = response.body() {
            js::ignore(&body.cancel());
        }
        let error = Error::new(
            Kind::UnexpectedStatus,
            "the Plant Store answered with a redirect, which this client does not follow",
        );
        return Err(if status == 0 { error } else { error.with_status(status) });
    }
    let limit = if status == 200 { SUCCESS_BODY_LIMIT } else { ERROR_BODY_LIMIT };
    let (body, complete) = read_body(response, limit, guard).await.map_err(|e| failed(guard, config, e))?;
    outcome(status, &body, complete, secret).map(|plant| crate::to_js(&plant))
}

/// What a status and (at most `limit` bytes of) body mean under the contract: only 200 with a Plant
/// is success; 400 with an Error body is a rejection; anything else is reported, never guessed at.
/// `secret` (the token) is removed from the server's text before it is cut to an excerpt, so a cut
/// cannot leave a piece of it that a later redaction of the whole token would miss.
pub(crate) fn outcome(status: u16, body: &[u8], complete: bool, secret: &str) -> Result<Plant, Error> {
    let excerpt = |text: &str| excerpt(&scrub(text, secret));
    let body_excerpt = |body: &[u8], complete| body_excerpt(scrub(&String::from_utf8_lossy(body), secret).as_bytes(), complete);
    match status {
        200 if !complete => Err(Error::new(
            Kind::InvalidResponse,
            format!("the Plant Store answered 200 with a body over {SUCCESS_BODY_LIMIT} bytes, not a Plant"),
        )
        .with_status(200)),
        200 => Plant::from_json(body).map_err(|e| {
            let message = format!("the Plant Store answered 200 but the body is not a Plant: {}", excerpt(&e.to_string()));
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

/// Reads at most `limit` bytes of the body; `false` when there was more (the rest is cancelled).
async fn read_body(response: &web_sys::Response, limit: usize, guard: &CallGuard) -> Result<(Vec<u8>, bool), JsValue> {
    let Some(stream) = response.body() else { return Ok((Vec::new(), true)) };
    let reader: ReadableStreamDefaultReader = js::get_reader(&stream)?;
    let mut body = Vec::new();
    loop {
        let chunk = settle(guard, &reader.read()).await?;
        let done = js_sys::Reflect::get(&chunk, &JsValue::from_str("done"))?;
        if done.is_truthy() {
            return Ok((body, true));
        }
        let value = js_sys::Reflect::get(&chunk, &JsValue::from_str("value"))?;
        let Ok(bytes) = value.dyn_into::<Uint8Array>() else {
            return Err(js_sys::TypeError::new("the body stream yielded a chunk that is not bytes").into());
        };
        let room = limit - body.len();
        let length = bytes.length() as usize;
        if length > room {
            body.extend_from_slice(&bytes.subarray(0, room as u32).to_vec());
            js::ignore(&reader.cancel());
            return Ok((body, false));
        }
        body.extend_from_slice(&bytes.to_vec());
    }
}

/// `text` with every occurrence of `secret` replaced.
fn scrub(text: &str, secret: &str) -> String {
    if secret.is_empty() {
        text.to_owned()
    } else {
        text.replace(secret, "[redacted]")
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
