//! `POST /__test/fault/{name}/plants`: canned broken answers, so tests can see how the client copes
//! with a server that does not keep the contract.

use axum::body::{Body, Bytes};
use axum::extract::Path;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use futures_util::stream::{self, StreamExt};
use std::io;

/// The fault names this route knows.
pub const NAMES: &[&str] = &[
    "200-not-json",
    "200-wrong-shape",
    "200-empty",
    "204",
    "400-not-error",
    "400-html",
    "500-html",
    "401",
    "403",
    "404",
    "409",
    "503-error",
    "huge-error",
    "close-mid-body",
    "200-lone-surrogate",
    "200-tag-null",
    "200-huge",
    "200-name-twice",
    "200-many-keys",
    "echo-token-400",
    "echo-token-401",
    "echo-token-500",
];

/// Answers with the fault named in the path (404 for an unknown name). The `echo-token-*` faults
/// play a hostile server that repeats the request's `Authorization` header in its answer, and
/// `echo-token-500` puts it across the point where a client cuts its excerpt (300 characters).
///
/// The request body is read first (and dropped): answering before it has arrived can make the
/// server close a connection with unread bytes in it, which the client may see as a reset.
pub async fn answer(Path(name): Path<String>, headers: HeaderMap, _request: Bytes) -> Response {
    let auth = headers
        .get(header::AUTHORIZATION)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    let auth = auth.unwrap_or_default();
    let echo = |status: StatusCode, code: i32| {
        let body = serde_json::json!({ "error": code, "message": format!("refused credentials {auth} (sent as {auth})") });
        with_type(status, "application/json", body.to_string())
    };
    let json = |status: StatusCode, body: &'static str| with_type(status, "application/json", body);
    let html = |status: StatusCode| with_type(status, "text/html", "<!doctype html><h1>Oops</h1>");
    match name.as_str() {
        "200-not-json" => with_type(StatusCode::OK, "application/json", "this is not json"),
        "200-wrong-shape" => json(StatusCode::OK, r#"{"nom":"Fern"}"#),
        "200-empty" => json(StatusCode::OK, ""),
        "200-lone-surrogate" => json(StatusCode::OK, r#"{"name":"\ud800"}"#),
        "200-tag-null" => json(StatusCode::OK, r#"{"name":"Fern","tag":null}"#),
        "204" => StatusCode::NO_CONTENT.into_response(),
        "400-not-error" => json(StatusCode::BAD_REQUEST, r#"{"oops":true}"#),
        "400-html" => html(StatusCode::BAD_REQUEST),
        "500-html" => html(StatusCode::INTERNAL_SERVER_ERROR),
        "401" => json(StatusCode::UNAUTHORIZED, r#"{"error":4,"message":"who are you?"}"#),
        "403" => json(StatusCode::FORBIDDEN, r#"{"error":5,"message":"not yours"}"#),
        "404" => json(StatusCode::NOT_FOUND, r#"{"error":6,"message":"no such route"}"#),
        "409" => json(StatusCode::CONFLICT, r#"{"error":7,"message":"conflict"}"#),
        "503-error" => {
            json(StatusCode::SERVICE_UNAVAILABLE, r#"{"error":8,"message":"try later"}"#)
        }
        "200-huge" => {
            // A Plant of 2 MiB: a client reads of a 200 what the echo of its NewPlant needs and refuses
            // the rest.
            let body = format!(r#"{{"name":"{}"}}"#, "n".repeat(2 * 1024 * 1024));
            with_type(StatusCode::OK, "application/json", body)
        }
        "200-name-twice" => json(StatusCode::OK, r#"{"name":"Fern","name":"Evil"}"#),
        "200-many-keys" => {
            // A Plant with 80,000 more members (0.9 MiB: a client reads it when it sent a tag of 200 KB), every
            // key twice: a reader that compares each key with every earlier one takes seconds.
            let mut body = String::from(r#"{"name":"Fern""#);
            for i in 0..80_000 {
                body.push_str(&format!(r#","k{}":0"#, i % 40_000));
            }
            body.push('}');
            with_type(StatusCode::OK, "application/json", body)
        }
        "huge-error" => {
            let body = "E".repeat(8 * 1024 * 1024);
            with_type(StatusCode::INTERNAL_SERVER_ERROR, "text/plain", body)
        }
        "close-mid-body" => {
            // Promise 1000 bytes, send 14, wait so they (and the head) leave, then fail the stream:
            // hyper cuts the connection mid-body, after the client has seen the status.
            let chunks: Vec<Result<Bytes, io::Error>> = vec![
                Ok(Bytes::from_static(br#"{"name":"Fern"#)),
                Err(io::Error::new(io::ErrorKind::ConnectionReset, "cut")),
            ];
            let paced = stream::iter(chunks).then(|chunk| async move {
                if chunk.is_err() {
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                }
                chunk
            });
            let mut response = Response::new(Body::from_stream(paced));
            let headers = response.headers_mut();
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
            headers.insert(header::CONTENT_LENGTH, HeaderValue::from_static("1000"));
            response
        }
        "echo-token-400" => echo(StatusCode::BAD_REQUEST, 2),
        "echo-token-401" => echo(StatusCode::UNAUTHORIZED, 4),
        "echo-token-500" => {
            // "Bearer " is 7 characters: the token starts at character 290 and runs past 300.
            let body = format!("{}{auth} {auth}", "x".repeat(283));
            with_type(StatusCode::INTERNAL_SERVER_ERROR, "text/plain", body)
        }
        _ => StatusCode::NOT_FOUND.into_response(),
    }
}

/// The redirect statuses `/__test/redirect/{status}/{port}/plants` answers with.
pub const REDIRECTS: &[u16] = &[301, 302, 303, 307, 308];

/// `POST /__test/redirect/{status}/{port}/plants`: a redirect to `http://127.0.0.1:{port}/plants`, so
/// a test can check on that other origin whether a client followed it and what it carried along.
/// The target is in the path because a client's base URL cannot carry a query. 400 for a status that
/// is not a redirect.
pub async fn redirect(Path((status, port)): Path<(u16, u16)>) -> Response {
    if !REDIRECTS.contains(&status) {
        return (StatusCode::BAD_REQUEST, "the status must be one of 301, 302, 303, 307, 308")
            .into_response();
    }
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::TEMPORARY_REDIRECT);
    (status, [(header::LOCATION, format!("http://127.0.0.1:{port}/plants"))]).into_response()
}

fn with_type(status: StatusCode, content_type: &'static str, body: impl Into<Body>) -> Response {
    (status, [(header::CONTENT_TYPE, content_type)], body.into()).into_response()
}
