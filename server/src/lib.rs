//! A strict reference Plant Store: `POST /plants` as the contract describes it, an in-memory store,
//! bearer auth, CORS for browser tests, and optionally the files of the demo.
//!
//! A request with an `Idempotency-Key` is processed once: the same key and body again get the same
//! answer (see [`idempotency`]).
//!
//! With `test_routes` on it also answers under `/__test/`: request counters, the last request as it
//! arrived, stored plants with exact ids, a variant of the endpoint slow to start and one slow to
//! answer, a set of faults and redirects to another loopback origin
//! (`/__test/redirect/{status}/{port}/plants`). Those routes exist so tests can check on the
//! server side what the client really sent.
#![deny(missing_docs, missing_debug_implementations)]
#![forbid(unsafe_code)]

pub mod faults;
pub mod idempotency;

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use plant_store_model::{validate_new_plant, ApiError, NewPlant, Plant, RawNewPlant};
use serde_json::json;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};
use tower_http::cors::CorsLayer;
use tower_http::services::ServeDir;

/// The `error` values this server answers with.
pub mod codes {
    /// The body is missing, not JSON, or not sent as `application/json`.
    pub const MALFORMED_BODY: i32 = 1;
    /// The body is JSON but not a valid NewPlant; the message lists every issue.
    pub const INVALID_PLANT: i32 = 2;
    /// A plant with this id already exists.
    pub const DUPLICATE_ID: i32 = 3;
    /// The bearer token is missing or wrong (sent with status 401).
    pub const UNAUTHORIZED: i32 = 4;
    /// The `Idempotency-Key` was used before with another body (sent with status 422), or is not a
    /// Structured Fields string (with 400).
    pub const IDEMPOTENCY_KEY: i32 = 5;
}

/// The largest request body read: room for a NewPlant with a name of several MiB.
pub const BODY_LIMIT: usize = 8 * 1024 * 1024;

/// How the server is set up.
#[derive(Debug, Clone)]
pub struct Config {
    /// The bearer token that requests must carry.
    pub token: String,
    /// Whether to answer the `/__test/` routes.
    pub test_routes: bool,
    /// Folders served as static files, each under its URL prefix (`("/", "www")`).
    pub static_dirs: Vec<(String, PathBuf)>,
    /// Whether to print a line for each plant created (the demo's log).
    pub log: bool,
}

/// The last create request, as it arrived (test routes only).
#[derive(Debug, Clone, serde::Serialize)]
struct SeenRequest {
    path: String,
    headers: HashMap<String, String>,
    body: String,
}

/// The shared state behind every route.
#[derive(Debug)]
pub struct Store {
    token: String,
    plants: Mutex<HashMap<i64, NewPlant>>,
    requests: AtomicU64,
    last: Mutex<Option<SeenRequest>>,
    /// How many requests each (script, plant id) of `/__test/script/` has had.
    played: Mutex<HashMap<(String, i64), usize>>,
    /// The `Idempotency-Key`s seen and their answers.
    keys: Mutex<idempotency::Keys>,
    log: bool,
}

impl Store {
    /// How many requests reached a `…/plants` path (preflights included).
    pub fn request_count(&self) -> u64 {
        self.requests.load(Ordering::SeqCst)
    }

    /// A stored plant by id.
    pub fn plant(&self, id: i64) -> Option<NewPlant> {
        lock(&self.plants).get(&id).cloned()
    }

    /// How many plants are stored.
    pub fn plant_count(&self) -> usize {
        lock(&self.plants).len()
    }
}

/// A poisoned lock only means another request panicked mid-way; the map itself is still whole.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Builds the router and hands back its store, so in-process tests can look inside.
pub fn app(config: Config) -> (Router, Arc<Store>) {
    let store = Arc::new(Store {
        token: config.token,
        plants: Mutex::new(HashMap::new()),
        requests: AtomicU64::new(0),
        last: Mutex::new(None),
        played: Mutex::new(HashMap::new()),
        keys: Mutex::new(idempotency::Keys::default()),
        log: config.log,
    });
    let mut router = Router::new().route("/plants", post(create));
    if config.test_routes {
        router = router
            .route("/api/v1/plants", post(create))
            .route("/__test/stats", get(stats))
            .route("/__test/reset", post(reset))
            .route("/__test/last", get(last))
            .route("/__test/plants/{id}", get(stored_plant))
            .route("/__test/delay/{ms}/plants", post(delayed_create))
            .route("/__test/hold/{ms}/plants", post(held_create))
            .route("/__test/script/{steps}/plants", post(scripted))
            .route("/__test/fault/{name}/plants", post(faults::answer))
            .route("/__test/redirect/{status}/{port}/plants", post(faults::redirect));
    }
    for (prefix, dir) in config.static_dirs {
        let files = ServeDir::new(dir).append_index_html_on_directories(true);
        router = match prefix.as_str() {
            "/" => router.fallback_service(files),
            _ => router.nest_service(&prefix, files),
        };
    }
    let router = router
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(CorsLayer::very_permissive())
        // Outermost, so preflights that the CORS layer answers are counted too.
        .layer(middleware::from_fn_with_state(store.clone(), count_requests))
        .with_state(store.clone());
    (router, store)
}

async fn count_requests(State(store): State<Arc<Store>>, request: Request, next: Next) -> Response {
    if request.uri().path().ends_with("/plants") {
        store.requests.fetch_add(1, Ordering::SeqCst);
    }
    next.run(request).await
}

fn error(status: StatusCode, code: i32, message: impl Into<String>) -> Response {
    (status, Json(ApiError { error: code, message: message.into() })).into_response()
}

/// `POST /plants`: the operation of the contract, once per `Idempotency-Key`.
async fn create(State(store): State<Arc<Store>>, headers: HeaderMap, body: Bytes) -> Response {
    record(&store, "/plants", &headers, &body);
    if !authorized(&headers, &store.token) {
        let mut response =
            error(StatusCode::UNAUTHORIZED, codes::UNAUTHORIZED, "missing or invalid bearer token");
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, header::HeaderValue::from_static("Bearer"));
        return response;
    }
    let Some(key) = headers.get("idempotency-key") else {
        return answer(create_plant(&store, &headers, &body));
    };
    let Some(key) = key.to_str().ok().and_then(idempotency::key_of) else {
        let message = "Idempotency-Key must be a Structured Fields string: 1 to 255 printable \
                       ASCII characters in double quotes";
        return error(StatusCode::BAD_REQUEST, codes::IDEMPOTENCY_KEY, message);
    };
    // Held across the operation, so that two requests with one key are never both processed.
    let mut keys = lock(&store.keys);
    match keys.seen(key, &body, Instant::now()) {
        idempotency::Seen::Replay(status, kept) => {
            let mut response = answer((status, kept));
            let replayed = header::HeaderValue::from_static("true");
            response.headers_mut().insert("idempotent-replayed", replayed);
            response
        }
        idempotency::Seen::Mismatch => {
            let message = "this Idempotency-Key was used with another request body";
            error(StatusCode::UNPROCESSABLE_ENTITY, codes::IDEMPOTENCY_KEY, message)
        }
        idempotency::Seen::New => {
            let (status, created) = create_plant(&store, &headers, &body);
            keys.keep(key, &body, status, created.clone(), Instant::now());
            answer((status, created))
        }
    }
}

/// The operation itself, for an authorized request: its status and JSON body.
fn create_plant(store: &Store, headers: &HeaderMap, body: &[u8]) -> (StatusCode, Bytes) {
    let plant = match parse_new_plant(headers, body) {
        Ok(plant) => plant,
        Err(refused) => return (StatusCode::BAD_REQUEST, json(&refused)),
    };
    let mut plants = lock(&store.plants);
    if plants.contains_key(&plant.id) {
        let message = format!("a plant with id {} already exists", plant.id);
        return (StatusCode::BAD_REQUEST, json(&ApiError { error: codes::DUPLICATE_ID, message }));
    }
    let created = Plant { name: plant.name.clone(), tag: plant.tag.clone() };
    if store.log {
        println!("created plant {} {:?}", plant.id, plant.name);
    }
    plants.insert(plant.id, plant);
    (StatusCode::OK, json(&created))
}

fn json(value: &impl serde::Serialize) -> Bytes {
    Bytes::from(serde_json::to_vec(value).unwrap_or_default())
}

fn answer((status, body): (StatusCode, Bytes)) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

fn authorized(headers: &HeaderMap, token: &str) -> bool {
    let Some(value) = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    match value.split_once(' ') {
        Some((scheme, given)) => scheme.eq_ignore_ascii_case("bearer") && given == token,
        None => false,
    }
}

/// Reads the body as the contract says: JSON, a NewPlant, integers exact; the Error of a 400.
fn parse_new_plant(headers: &HeaderMap, body: &[u8]) -> Result<NewPlant, ApiError> {
    let bad = |message: String| ApiError { error: codes::MALFORMED_BODY, message };
    let json_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"));
    if !json_type {
        return Err(bad("the body must be sent as Content-Type: application/json".into()));
    }
    if body.is_empty() {
        return Err(bad("the request body is required: a NewPlant".into()));
    }
    let value: serde_json::Value = serde_json::from_slice(body)
        .map_err(|e| bad(format!("the body is not valid JSON: {e}")))?;
    let invalid = |issues: Vec<String>| ApiError {
        error: codes::INVALID_PLANT,
        message: format!("invalid NewPlant: {}", issues.join("; ")),
    };
    let raw = RawNewPlant::from_json_value(value).map_err(|issue| invalid(vec![issue.message]))?;
    validate_new_plant(raw)
        .map_err(|issues| invalid(issues.into_iter().map(|i| i.message).collect()))
}

fn record(store: &Store, path: &str, headers: &HeaderMap, body: &[u8]) {
    let headers = headers
        .iter()
        .map(|(k, v)| (k.as_str().to_owned(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
        .collect();
    let body = String::from_utf8_lossy(body).into_owned();
    *lock(&store.last) = Some(SeenRequest { path: path.to_owned(), headers, body });
}

async fn delayed_create(
    state: State<Arc<Store>>,
    Path(ms): Path<u64>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    tokio::time::sleep(Duration::from_millis(ms.min(60_000))).await;
    create(state, headers, body).await
}

/// `POST /__test/hold/{ms}/plants`: the operation at once, its answer `ms` later (a server that
/// holds the answer of a plant it created while the client goes away).
async fn held_create(
    state: State<Arc<Store>>,
    Path(ms): Path<u64>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let response = create(state, headers, body).await;
    tokio::time::sleep(Duration::from_millis(ms.min(60_000))).await;
    response
}

/// `POST /__test/script/{steps}/plants`, for retries: `steps` is a comma list such as `503,ok`, and
/// the n-th request for one plant id plays step n (the last one repeats). A step is `ok` (the
/// operation itself) or a status, answered with an Error body.
async fn scripted(
    state: State<Arc<Store>>,
    Path(steps): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let id = serde_json::from_slice::<serde_json::Value>(&body)
        .ok()
        .and_then(|plant| plant["id"].as_i64())
        .unwrap_or_default();
    let played = {
        let mut played = lock(&state.played);
        let count = played.entry((steps.clone(), id)).or_default();
        *count += 1;
        *count - 1
    };
    let steps: Vec<&str> = steps.split(',').collect();
    let step = steps[played.min(steps.len() - 1)];
    match step.parse::<u16>().ok().and_then(|s| StatusCode::from_u16(s).ok()) {
        Some(status) => {
            record(&state, "/plants", &headers, &body);
            error(status, 8, format!("scripted {status}"))
        }
        None => create(state, headers, body).await,
    }
}

async fn stats(State(store): State<Arc<Store>>) -> Response {
    let keys = lock(&store.keys).len();
    let stats =
        json!({ "requests": store.request_count(), "plants": store.plant_count(), "keys": keys });
    Json(stats).into_response()
}

async fn reset(State(store): State<Arc<Store>>) -> StatusCode {
    lock(&store.plants).clear();
    lock(&store.played).clear();
    lock(&store.keys).clear();
    *lock(&store.last) = None;
    store.requests.store(0, Ordering::SeqCst);
    StatusCode::NO_CONTENT
}

async fn last(State(store): State<Arc<Store>>) -> Response {
    Json(lock(&store.last).clone()).into_response()
}

/// A stored plant, its id as a string so a JavaScript reader keeps every digit.
async fn stored_plant(State(store): State<Arc<Store>>, Path(id): Path<i64>) -> Response {
    match store.plant(id) {
        Some(p) => {
            Json(json!({ "id": p.id.to_string(), "name": p.name, "tag": p.tag })).into_response()
        }
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

/// Serves `router` on `127.0.0.1:port` (0 picks a free port) until `shutdown` resolves.
///
/// # Errors
/// When the port cannot be bound.
pub async fn serve(
    router: Router,
    port: u16,
    on_ready: impl FnOnce(std::net::SocketAddr),
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    on_ready(listener.local_addr()?);
    // Without TCP_NODELAY a small answer can wait for a delayed ACK: tens of ms per request.
    let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, router).with_graceful_shutdown(shutdown).await
}
