//! `POST /__test/fault/{name}/plants`: canned broken answers, so tests can see how the client copes
//! with a server that does not keep the contract.

use axum::body::{Body, Bytes};
use axum::extract::{Path, Query};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use futures_util::stream;
use std::collections::HashMap;
use std::io;

/// The fault names this route knows.
pub const NAMES: &[&str] = &[
    "200-not-json", "200-wrong-shape", "200-empty", "204", "400-not-error", "400-html",
    "500-html", "401", "403", "404", "409", "503-error", "huge-error", "close-mid-body",
    "200-lone-surrogate", "200-tag-null", "echo-token-400", "echo-token-401", "echo-token-500",
];

/// Answers with the fault named in the path (404 for an unknown name). The `echo-token-*` faults
/// play a hostile server that repeats the request's `Authorization` header in its answer, and
/// `echo-token-500` puts it across the point where a client cuts its excerpt (300 characters).
pub async fn answer(Path(name): Path<String>, headers: HeaderMap) -> Response {
    let auth = headers.get(header::AUTHORIZATION).map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
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
        "503-error" => json(StatusCode::SERVICE_UNAVAILABLE, r#"{"error":8,"message":"try later"}"#),
        "huge-error" => {
            let body = "E".repeat(8 * 1024 * 1024);
            with_type(StatusCode::INTERNAL_SERVER_ERROR, "text/plain", body)
        }
        "close-mid-body" => {
            // Promise 1000 bytes, send 14, then fail the stream: hyper cuts the connection.
            let chunks: Vec<Result<Bytes, io::Error>> = vec![
                Ok(Bytes::from_static(br#"{"name":"Fern"#)),
                Err(io::Error::new(io::ErrorKind::ConnectionReset, "cut")),
            ];
            let mut response = Response::new(Body::from_stream(stream::iter(chunks)));
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

/// The redirect statuses `/__test/redirect/{status}/plants` answers with.
pub const REDIRECTS: &[u16] = &[301, 302, 303, 307, 308];

/// `POST /__test/redirect/{status}/plants?to=URL`: a redirect to `URL` (any origin), so a test can
/// check on that origin whether a client followed it and what it carried along. 400 for a status
/// that is not a redirect or a `to` that is not an absolute http(s) URL.
pub async fn redirect(Path(status): Path<u16>, Query(query): Query<HashMap<String, String>>) -> Response {
    let status = match StatusCode::from_u16(status) {
        Ok(status) if REDIRECTS.contains(&status.as_u16()) => status,
        _ => return (StatusCode::BAD_REQUEST, "the status must be one of 301, 302, 303, 307, 308").into_response(),
    };
    let to = query.get("to").map(String::as_str).unwrap_or_default();
    let location = match HeaderValue::from_str(to) {
        Ok(value) if to.starts_with("http://") || to.starts_with("https://") => value,
        _ => return (StatusCode::BAD_REQUEST, "?to= must be an absolute http(s) URL").into_response(),
    };
    (status, [(header::LOCATION, location)]).into_response()
}

fn with_type(status: StatusCode, content_type: &'static str, body: impl Into<Body>) -> Response {
    (status, [(header::CONTENT_TYPE, content_type)], body.into()).into_response()
}
