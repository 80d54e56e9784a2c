//! The reference server against the contract, in process (no sockets).

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use plant_store_server::{app, codes, faults, Config};
use serde_json::{json, Value};
use tower::ServiceExt;

const TOKEN: &str = "test-token";

fn server() -> (axum::Router, std::sync::Arc<plant_store_server::Store>) {
    app(Config { token: TOKEN.into(), test_routes: true, static_dirs: vec![], log: false })
}

async fn send(
    router: &axum::Router,
    path: &str,
    auth: Option<&str>,
    body: &str,
) -> (StatusCode, Value) {
    let mut request = Request::post(path).header("content-type", "application/json");
    if let Some(auth) = auth {
        request = request.header("authorization", auth);
    }
    let response =
        router.clone().oneshot(request.body(Body::from(body.to_owned())).unwrap()).await.unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

const BEARER: Option<&str> = Some("Bearer test-token");

#[tokio::test]
async fn creates_a_plant_and_answers_a_plant() {
    let (router, store) = server();
    let (status, body) =
        send(&router, "/plants", BEARER, r#"{"id":1,"name":"Fern","tag":"green"}"#).await;
    assert_eq!((status, body), (StatusCode::OK, json!({"name":"Fern","tag":"green"})));
    let (status, body) = send(&router, "/plants", BEARER, r#"{"id":2,"name":""}"#).await;
    assert_eq!((status, body), (StatusCode::OK, json!({"name":""})));
    assert_eq!(store.plant_count(), 2);
}

#[tokio::test]
async fn ids_beyond_2_pow_53_stay_exact() {
    let (router, store) = server();
    for id in [i64::MAX, i64::MIN, 9_007_199_254_740_993] {
        let (status, _) =
            send(&router, "/plants", BEARER, &format!(r#"{{"id":{id},"name":"n"}}"#)).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(store.plant(id).unwrap().id, id);
    }
    let (status, body) =
        send(&router, "/plants", BEARER, r#"{"id":9223372036854775808,"name":"n"}"#).await;
    assert_eq!(
        (status, body["error"].as_i64()),
        (StatusCode::BAD_REQUEST, Some(codes::INVALID_PLANT as i64))
    );
    let (status, _) =
        send(&router, "/plants", BEARER, r#"{"id":9007199254740993.0,"name":"n"}"#).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "a float beyond 2^53 is not taken as exact");
    let (status, _) = send(&router, "/plants", BEARER, r#"{"id":5.0,"name":"n"}"#).await;
    assert_eq!(status, StatusCode::OK, "5.0 is an integer in JSON Schema");
}

#[tokio::test]
async fn a_duplicate_id_is_a_400_error() {
    let (router, _) = server();
    send(&router, "/plants", BEARER, r#"{"id":7,"name":"a"}"#).await;
    let (status, body) = send(&router, "/plants", BEARER, r#"{"id":7,"name":"b"}"#).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        body,
        json!({"error": codes::DUPLICATE_ID, "message": "a plant with id 7 already exists"})
    );
}

#[tokio::test]
async fn missing_or_wrong_token_is_401_with_an_error_body() {
    let (router, store) = server();
    for auth in
        [None, Some("Bearer nope"), Some("Basic dGVzdA=="), Some("Bearer"), Some("test-token")]
    {
        let (status, body) = send(&router, "/plants", auth, r#"{"id":1,"name":"a"}"#).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{auth:?}");
        assert_eq!(body["error"], json!(codes::UNAUTHORIZED));
        assert!(!body.to_string().contains("nope"));
    }
    assert_eq!(store.plant_count(), 0);
    let (status, _) =
        send(&router, "/plants", Some("bearer test-token"), r#"{"id":1,"name":"a"}"#).await;
    assert_eq!(status, StatusCode::OK, "the scheme is case-insensitive");
}

#[tokio::test]
async fn the_body_is_checked_as_the_contract_says() {
    let (router, store) = server();
    for (body, code) in [
        ("", codes::MALFORMED_BODY),
        ("{", codes::MALFORMED_BODY),
        ("[]", codes::INVALID_PLANT),
        (r#"{"name":"a"}"#, codes::INVALID_PLANT),
        (r#"{"id":"1","name":"a"}"#, codes::INVALID_PLANT),
        (r#"{"id":1.5,"name":"a"}"#, codes::INVALID_PLANT),
        (r#"{"id":1,"name":null}"#, codes::INVALID_PLANT),
        (r#"{"id":1,"name":"a","tag":null}"#, codes::INVALID_PLANT),
        (r#"{"id":1,"name":"a","tags":"x"}"#, codes::INVALID_PLANT),
        (r#"{"id":1,"name":"\ud800"}"#, codes::MALFORMED_BODY),
    ] {
        let (status, got) = send(&router, "/plants", BEARER, body).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(got["error"], json!(code), "{body}: {got}");
        assert!(got["message"].is_string());
    }
    let (_, got) = send(&router, "/plants", BEARER, r#"{"id":"1","name":5,"tags":"x"}"#).await;
    let message = got["message"].as_str().unwrap();
    assert!(
        message.contains("id ") && message.contains("name ") && message.contains("\"tags\""),
        "{message}"
    );
    assert_eq!(store.plant_count(), 0);

    let request = Request::post("/plants")
        .header("authorization", "Bearer test-token")
        .header("content-type", "text/plain");
    let response = router
        .clone()
        .oneshot(request.body(Body::from(r#"{"id":1,"name":"a"}"#)).unwrap())
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn counts_requests_and_keeps_the_last_one() {
    let (router, store) = server();
    send(&router, "/plants", BEARER, r#"{"id":9223372036854775807,"name":"a"}"#).await;
    let preflight = Request::options("/plants")
        .header("origin", "http://127.0.0.1:1")
        .header("access-control-request-method", "POST")
        .header("access-control-request-headers", "authorization,content-type")
        .body(Body::empty())
        .unwrap();
    let response = router.clone().oneshot(preflight).await.unwrap();
    assert!(response.status().is_success());
    assert!(response.headers().contains_key("access-control-allow-origin"));
    assert_eq!(store.request_count(), 2);
    let last = router
        .clone()
        .oneshot(Request::get("/__test/last").body(Body::empty()).unwrap())
        .await
        .unwrap();
    let last: Value =
        serde_json::from_slice(&last.into_body().collect().await.unwrap().to_bytes()).unwrap();
    assert_eq!(last["body"], json!(r#"{"id":9223372036854775807,"name":"a"}"#));
    let exact = router
        .clone()
        .oneshot(Request::get("/__test/plants/9223372036854775807").body(Body::empty()).unwrap())
        .await
        .unwrap();
    let exact: Value =
        serde_json::from_slice(&exact.into_body().collect().await.unwrap().to_bytes()).unwrap();
    assert_eq!(exact["id"], json!("9223372036854775807"));
}

#[tokio::test]
async fn every_fault_answers() {
    let (router, _) = server();
    for name in faults::NAMES {
        let request =
            Request::post(format!("/__test/fault/{name}/plants")).body(Body::empty()).unwrap();
        let response = router.clone().oneshot(request).await.unwrap();
        assert_ne!(response.status(), StatusCode::METHOD_NOT_ALLOWED, "{name}");
        if *name != "404" {
            assert_ne!(response.status(), StatusCode::NOT_FOUND, "{name}");
        }
    }
}

#[tokio::test]
async fn test_routes_are_off_unless_asked_for() {
    let (router, _) =
        app(Config { token: TOKEN.into(), test_routes: false, static_dirs: vec![], log: false });
    let response =
        router.oneshot(Request::get("/__test/stats").body(Body::empty()).unwrap()).await.unwrap();
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn redirects_point_to_another_loopback_port() {
    let (router, store) = server();
    for status in faults::REDIRECTS {
        let path = format!("/__test/redirect/{status}/4321/plants");
        let response =
            router.clone().oneshot(Request::post(path).body(Body::empty()).unwrap()).await.unwrap();
        assert_eq!(response.status().as_u16(), *status);
        assert_eq!(response.headers()["location"], "http://127.0.0.1:4321/plants");
    }
    for path in [
        "/__test/redirect/200/4321/plants",
        "/__test/redirect/307/99999/plants",
        "/__test/redirect/307/x/plants",
    ] {
        let response =
            router.clone().oneshot(Request::post(path).body(Body::empty()).unwrap()).await.unwrap();
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{path}");
    }
    assert_eq!(store.plant_count(), 0);
}

#[tokio::test]
async fn echo_faults_repeat_the_authorization_header() {
    let (router, _) = server();
    for name in ["echo-token-400", "echo-token-401", "echo-token-500"] {
        let request = Request::post(format!("/__test/fault/{name}/plants"))
            .header("authorization", "Bearer s3cret-t0ken")
            .body(Body::empty())
            .unwrap();
        let response = router.clone().oneshot(request).await.unwrap();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        let body = String::from_utf8_lossy(&body);
        assert!(body.contains("Bearer s3cret-t0ken"), "{name}: {body}");
        if name == "echo-token-500" {
            assert_eq!(body.find("s3cret"), Some(290), "the token straddles character 300");
        }
    }
}

/// `send` with an `Idempotency-Key` header; the answer and whether it was replayed.
async fn send_with_key(router: &axum::Router, key: &str, body: &str) -> (StatusCode, Value, bool) {
    let request = Request::post("/plants")
        .header("content-type", "application/json")
        .header("authorization", "Bearer test-token")
        .header("idempotency-key", key);
    let response =
        router.clone().oneshot(request.body(Body::from(body.to_owned())).unwrap()).await.unwrap();
    let (status, replayed) =
        (response.status(), response.headers().contains_key("idempotent-replayed"));
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null), replayed)
}

#[tokio::test]
async fn an_idempotency_key_creates_once_and_replays_the_answer() {
    let (router, store) = server();
    let fern = r#"{"id":7,"name":"Fern"}"#;
    let first = send_with_key(&router, "\"k-1\"", fern).await;
    assert_eq!(first, (StatusCode::OK, json!({"name":"Fern"}), false));
    let again = send_with_key(&router, "\"k-1\"", fern).await;
    assert_eq!(again, (StatusCode::OK, json!({"name":"Fern"}), true), "the same answer, replayed");
    assert_eq!(store.plant_count(), 1);
    // Without the key, the same body is a second request: the duplicate id.
    let (status, body) = send(&router, "/plants", BEARER, fern).await;
    assert_eq!(
        (status, body["error"].as_i64()),
        (StatusCode::BAD_REQUEST, Some(codes::DUPLICATE_ID as i64))
    );
    // The same key with another body: 422.
    let (status, body, _) = send_with_key(&router, "\"k-1\"", r#"{"id":8,"name":"Moss"}"#).await;
    assert_eq!(
        (status, body["error"].as_i64()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some(codes::IDEMPOTENCY_KEY as i64))
    );
    assert_eq!(store.plant_count(), 1);
    // A key that is not a Structured Fields string: 400.
    let (status, body, _) = send_with_key(&router, "k-2", r#"{"id":9,"name":"Moss"}"#).await;
    assert_eq!(
        (status, body["error"].as_i64()),
        (StatusCode::BAD_REQUEST, Some(codes::IDEMPOTENCY_KEY as i64))
    );
    // A refusal is kept for its key too.
    let duplicate = send_with_key(&router, "\"k-3\"", fern).await;
    assert_eq!((duplicate.0, duplicate.2), (StatusCode::BAD_REQUEST, false));
    assert_eq!(send_with_key(&router, "\"k-3\"", fern).await, (duplicate.0, duplicate.1, true));
}
