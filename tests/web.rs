//! The JS-facing API in a real browser against the reference server on loopback: the crate's
//! `#[wasm_bindgen]` exports (`createPlant`, `PlantStoreClient`, `validateNewPlant`), called
//! with JavaScript values as a caller's code would pass them. tests/rust_api.rs calls the Rust API.
//!
//! Run by `scripts/test` as `wasm-pack test --headless --chrome` (and `--firefox`), with the server
//! started first on the port in `PLANT_STORE_TEST_URL`.
#![cfg(target_arch = "wasm32")]

mod common;

use common::{get, js, request_count, server_json, text, TOKEN};
use js_sys::{Function, Promise, Reflect, JSON};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// `createPlant`, the export.
fn create_plant(plant: JsValue, options: JsValue) -> Promise {
    plant_store_client::create_plant(plant, options)
}

/// `validateNewPlant`, the export.
fn validate_new_plant(plant: JsValue) -> JsValue {
    plant_store_client::validate_new_plant(plant)
}

/// `PlantStoreClient`, the exported class.
struct PlantStoreClient(plant_store_client::PlantStoreClient);

impl PlantStoreClient {
    fn new(options: JsValue) -> Result<Self, JsValue> {
        plant_store_client::PlantStoreClient::new(options).map(Self)
    }

    fn create_plant(&self, plant: JsValue, options: Option<JsValue>) -> Promise {
        self.0.create_plant(plant, options.unwrap_or(JsValue::UNDEFINED))
    }
}

async fn settle(promise: Promise) -> Result<JsValue, JsValue> {
    JsFuture::from(promise).await
}

/// After a failure, a valid call still succeeds: the module keeps working.
async fn the_module_still_works() {
    settle(create_plant(js("({ id: uid(), name: 'after' })"), options()))
        .await
        .expect("a valid call after a failure");
}

fn options() -> JsValue {
    js("({ baseUrl: SERVER, token: TOKEN })")
}

/// Asserts `result` is a PlantStoreError of `kind`, that it is a real Error, and that the token
/// appears nowhere in it; returns it.
fn expect_error(result: Result<JsValue, JsValue>, kind: &str) -> JsValue {
    let error = result.expect_err("the call should fail");
    let check = js(
        "(e, kind, token) => {
           const { PlantStoreError } = e.constructor === undefined ? {} : { PlantStoreError: e.constructor };
           if (!(e instanceof Error)) return 'not an Error';
           if (!(e instanceof PlantStoreError) || PlantStoreError.name !== 'PlantStoreError') return 'not a PlantStoreError';
           if (!PlantStoreError.is(e)) return 'PlantStoreError.is says no';
           if (e.name !== 'PlantStoreError') return 'name is ' + e.name;
           if (e.kind !== kind) return 'kind is ' + e.kind + ': ' + e.message;
           const texts = [e.message, String(e), JSON.stringify(e), e.stack];
           if (texts.some((t) => typeof t !== 'string' || t.includes(token))) return 'the token leaked';
           return 'ok';
         }",
    );
    let verdict = check
        .unchecked_ref::<Function>()
        .call3(&JsValue::UNDEFINED, &error, &JsValue::from_str(kind), &JsValue::from_str(TOKEN))
        .unwrap();
    assert_eq!(verdict.as_string().unwrap(), "ok", "{}", text(&error, "message"));
    error
}

#[wasm_bindgen_test]
async fn creates_a_plant() {
    let plant = js("({ id: uid(), name: 'Monstera', tag: 'tropical' })");
    let id = get(&plant, "id").as_f64().unwrap();
    let created = settle(create_plant(plant, options())).await.unwrap();
    assert_eq!(JSON::stringify(&created).unwrap(), r#"{"name":"Monstera","tag":"tropical"}"#);
    assert_eq!(JsValue::from(Reflect::get_prototype_of(&created).unwrap()), js("Object.prototype"));
    let stored = server_json(&format!("/__test/plants/{id}")).await;
    assert_eq!(text(&stored, "name"), "Monstera");
    let last = server_json("/__test/last").await;
    let headers = get(&last, "headers");
    assert_eq!(text(&headers, "authorization"), format!("Bearer {TOKEN}"));
    assert_eq!(text(&headers, "content-type"), "application/json");
    assert_eq!(text(&headers, "accept"), "application/json");
}

#[wasm_bindgen_test]
async fn a_plant_without_tag_comes_back_without_tag() {
    let created = settle(create_plant(js("({ id: uid(), name: '' })"), options())).await.unwrap();
    assert_eq!(JSON::stringify(&created).unwrap(), r#"{"name":""}"#);
}

#[wasm_bindgen_test]
async fn an_id_beyond_2_pow_53_arrives_exact_as_a_bigint() {
    for id in ["9007199254740993", "9223372036854775807", "-9223372036854775808"] {
        let call = create_plant(js(&format!("({{ id: {id}n, name: 'Big' }})")), options());
        match settle(call).await {
            Ok(_) => {}
            // A rerun against the same server finds the plant already there.
            Err(e) => assert_eq!(text(&e, "kind"), "rejected"),
        }
        let stored = server_json(&format!("/__test/plants/{id}")).await;
        assert_eq!(text(&stored, "id"), id);
    }
    let _ = settle(create_plant(js("({ id: 9007199254740995n, name: 'Raw' })"), options())).await;
    let last = server_json("/__test/last").await;
    assert!(text(&last, "body").contains(r#""id":9007199254740995,"#), "{}", text(&last, "body"));
}

#[wasm_bindgen_test]
async fn validation_fails_locally_and_sends_nothing() {
    let before = request_count().await;
    let cases = [
        ("({ id: '12', name: 'a' })", "id", "invalid_type"),
        ("({ id: 1.5, name: 'a' })", "id", "not_integer"),
        ("({ id: 2 ** 53, name: 'a' })", "id", "unsafe_integer"),
        ("({ id: 2n ** 63n, name: 'a' })", "id", "out_of_range"),
        ("({ name: 'a' })", "id", "required"),
        ("({ id: 1, name: 'a\\uD800b' })", "name", "malformed_string"),
        ("({ id: 1, name: 'a', tag: null })", "tag", "invalid_type"),
        ("({ id: 1, name: 'a', tags: 'x' })", "tags", "unknown_field"),
        ("({ id: 1, get name() { throw new Error('boom') } })", "name", "unreadable"),
        ("[1, 'a']", "", "invalid_type"),
        ("new Date()", "", "invalid_type"),
    ];
    for (source, path, code) in cases {
        let error = expect_error(settle(create_plant(js(source), options())).await, "validation");
        let issue = get(&get(&error, "issues"), "0");
        assert_eq!(
            (text(&issue, "path"), text(&issue, "code")),
            (path.into(), code.into()),
            "{source}"
        );
        assert!(text(&issue, "message").contains(path), "{source}");
    }
    let error = expect_error(
        settle(create_plant(js("({ id: 'x', name: 5, tag: null })"), options())).await,
        "validation",
    );
    assert_eq!(js_sys::Array::from(&get(&error, "issues")).length(), 3, "every problem at once");
    assert_eq!(request_count().await, before, "no request may reach the server");
    the_module_still_works().await;
}

#[wasm_bindgen_test]
fn validate_new_plant_reports_and_normalizes() {
    let ok = validate_new_plant(js("({ id: 5n, name: 'a', tag: undefined })"));
    assert_eq!(get(&ok, "ok"), JsValue::TRUE);
    assert!(get(&get(&ok, "value"), "id").is_bigint());
    assert!(!js("(v) => 'tag' in v.value")
        .unchecked_ref::<Function>()
        .call1(&JsValue::NULL, &ok)
        .unwrap()
        .is_truthy());
    let bad = validate_new_plant(js("({ id: NaN })"));
    assert_eq!(get(&bad, "ok"), JsValue::FALSE);
    assert_eq!(
        JSON::stringify(&get(&bad, "issues"))
            .unwrap()
            .as_string()
            .unwrap()
            .matches("\"path\"")
            .count(),
        2
    );
}

#[wasm_bindgen_test]
async fn config_errors_send_nothing_and_never_show_the_token() {
    let before = request_count().await;
    let plant = || js("({ id: uid(), name: 'cfg' })");
    for source in [
        "({ baseUrl: SERVER + '?x=1', token: TOKEN })",
        "({ baseUrl: 'ftp://127.0.0.1', token: TOKEN })",
        "({ baseUrl: 'http://user:' + TOKEN + '@127.0.0.1', token: TOKEN })",
        "({ baseUrl: SERVER, token: TOKEN + '\\r\\nX-Evil: 1' })",
        "({ baseUrl: SERVER, token: TOKEN + ' x' })",
        "({ baseUrl: SERVER, token: '' })",
        "({ baseUrl: SERVER })",
        "({ baseUrl: SERVER, token: TOKEN, getToken: () => TOKEN })",
        "({ baseURL: SERVER, token: TOKEN })",
        "({ baseUrl: SERVER, token: TOKEN, timeoutMs: 0 })",
        "({ baseUrl: SERVER, token: TOKEN, headers: { Authorization: 'Bearer other' } })",
        "({ baseUrl: SERVER, token: TOKEN, headers: { 'bad header': 'x' } })",
        "({ baseUrl: SERVER, token: TOKEN, fetch: 'nope' })",
        "({ baseUrl: SERVER, getToken: () => TOKEN + '\\n' })",
        "({ baseUrl: SERVER, getToken: async () => { throw new Error('vault down') } })",
        "null",
    ] {
        let error = expect_error(settle(create_plant(plant(), js(source))).await, "config");
        assert!(!text(&error, "message").is_empty(), "{source}");
    }
    let error = expect_error(
        settle(create_plant(plant(), js("({ baseURL: SERVER, token: TOKEN })"))).await,
        "config",
    );
    assert!(
        text(&error, "message").contains("did you mean \"baseUrl\""),
        "{}",
        text(&error, "message")
    );
    assert_eq!(request_count().await, before);
}

#[wasm_bindgen_test]
async fn the_client_checks_options_once_at_construction() {
    let thrown = PlantStoreClient::new(js("({ baseUrl: 'nope', token: TOKEN })"));
    expect_error(thrown.map(|_| JsValue::UNDEFINED), "config");
    let client = PlantStoreClient::new(js(
        "({ baseUrl: SERVER + '/api/v1/', getToken: async () => TOKEN })",
    ))
    .unwrap();
    let created =
        settle(client.create_plant(js("({ id: uid(), name: 'prefixed' })"), None)).await.unwrap();
    assert_eq!(text(&created, "name"), "prefixed");
    assert_eq!(text(&server_json("/__test/last").await, "path"), "/plants");
}

#[wasm_bindgen_test]
async fn a_duplicate_id_is_rejected_with_the_servers_code_and_message() {
    let plant = js("({ id: uid(), name: 'twice' })");
    settle(create_plant(plant.clone(), options())).await.unwrap();
    let error = expect_error(settle(create_plant(plant, options())).await, "rejected");
    assert_eq!(get(&error, "status"), JsValue::from(400));
    assert_eq!(get(&error, "code"), JsValue::from(3));
    assert!(text(&error, "message").contains("already exists"));
}

#[wasm_bindgen_test]
async fn a_wrong_fixed_token_is_unauthorized_at_once() {
    let error = expect_error(
        settle(create_plant(
            js("({ id: uid(), name: 'x' })"),
            js("({ baseUrl: SERVER, token: 'wrong' })"),
        ))
        .await,
        "unauthorized",
    );
    assert_eq!(get(&error, "attempts"), JsValue::from(1));
    assert_eq!(get(&error, "status"), JsValue::from(401));
    assert_eq!(get(&error, "code"), JsValue::from(4));
}

#[wasm_bindgen_test]
async fn broken_answers_have_their_own_kinds() {
    for (fault, kind, status) in [
        ("200-wrong-shape", "invalid_response", 200),
        ("200-not-json", "invalid_response", 200),
        ("200-tag-null", "invalid_response", 200),
        ("200-lone-surrogate", "invalid_response", 200),
        ("400-html", "invalid_response", 400),
        ("500-html", "unexpected_status", 500),
        ("404", "unexpected_status", 404),
        ("204", "unexpected_status", 204),
    ] {
        let options =
            js(&format!("({{ baseUrl: SERVER + '/__test/fault/{fault}', token: TOKEN }})"));
        let error = expect_error(
            settle(create_plant(js("({ id: uid(), name: 'f' })"), options)).await,
            kind,
        );
        assert_eq!(get(&error, "status"), JsValue::from(status), "{fault}");
    }
    settle(create_plant(js("({ id: uid(), name: 'still works' })"), options())).await.unwrap();
}

#[wasm_bindgen_test]
async fn an_unreachable_server_is_a_network_error() {
    let options = js("({ baseUrl: 'http://127.0.0.1:9', token: TOKEN })");
    let error = expect_error(
        settle(create_plant(js("({ id: uid(), name: 'n' })"), options)).await,
        "network",
    );
    assert!(get(&error, "cause").is_instance_of::<js_sys::Error>());
}

#[wasm_bindgen_test]
async fn a_slow_server_times_out() {
    let options = js("({ baseUrl: SERVER + '/__test/delay/3000', token: TOKEN, timeoutMs: 200 })");
    let error = expect_error(
        settle(create_plant(js("({ id: uid(), name: 'slow' })"), options)).await,
        "timeout",
    );
    assert!(text(&error, "message").contains("200 ms"));
}

/// The timer is armed only when a microtask hop passes without the call making progress
/// (`transport::watch`); these calls settle, or wait, at every stage where a late timer could be
/// missed.
#[wasm_bindgen_test]
async fn the_timeout_holds_however_late_the_wait_begins() {
    let hops = "async (n) => { for (let i = 0; i < n; i++) await null; }";
    for (fetch, kind) in [
        // The body sends one chunk and never ends; fetch itself settles at once.
        ("() => new Response(new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode('{')); } }), { status: 200 })", "timeout"),
        // fetch settles after many microtasks, then the body never ends.
        ("async () => { await hops(50); return new Response(new ReadableStream({ pull() { return new Promise(() => {}); } }), { status: 200 }); }", "timeout"),
        // fetch settles after many microtasks, no task: the call succeeds.
        ("async () => { await hops(50); return new Response('{\"name\":\"late\"}', { status: 200 }); }", "ok"),
    ] {
        let options = js(&format!("(() => {{ const hops = {hops}; return {{ baseUrl: SERVER, token: TOKEN, timeoutMs: 100, fetch: {fetch} }}; }})()"));
        let result = settle(create_plant(js("({ id: uid(), name: 'late' })"), options)).await;
        if kind == "ok" {
            assert_eq!(text(&result.expect("the call should succeed"), "name"), "late");
        } else {
            expect_error(result, kind);
        }
    }
}

/// The timeout counts from the call's start, even though fetch is called later: a fetch that
/// blocks for 400 ms, then answers 300 ms later, leaves the answer 100 ms past a 600 ms timeout
/// counted from the start (it would be 300 ms inside one counted from fetch's return). Timers fire
/// in the order they are due, so the outcome does not depend on how busy the machine is.
#[wasm_bindgen_test]
async fn the_timeout_counts_from_the_calls_start() {
    let options = js(
        "({ baseUrl: SERVER, token: TOKEN, timeoutMs: 600, fetch: () => { \
                      const end = Date.now() + 400; while (Date.now() < end); \
                      return new Promise((resolve) => setTimeout(() => \
                        resolve(new Response('{\"name\":\"busy\"}', { status: 200 })), 300)); } })",
    );
    let error = expect_error(
        settle(create_plant(js("({ id: uid(), name: 'busy' })"), options)).await,
        "timeout",
    );
    assert!(text(&error, "message").contains("600 ms"), "{}", text(&error, "message"));
}

#[wasm_bindgen_test]
async fn the_callers_signal_aborts() {
    let options = js("(() => { const c = new AbortController(); setTimeout(() => c.abort(new Error('stop')), 100); \
                      return { baseUrl: SERVER + '/__test/delay/3000', token: TOKEN, signal: c.signal }; })()");
    let error = expect_error(
        settle(create_plant(js("({ id: uid(), name: 'a' })"), options)).await,
        "aborted",
    );
    assert_eq!(text(&get(&error, "cause"), "message"), "stop");

    let before = request_count().await;
    let options = js("({ baseUrl: SERVER, token: TOKEN, signal: AbortSignal.abort('already') })");
    let error = expect_error(
        settle(create_plant(js("({ id: uid(), name: 'a' })"), options)).await,
        "aborted",
    );
    assert_eq!(
        get(&error, "cause").as_string().as_deref(),
        Some("already"),
        "a non-Error reason is kept"
    );
    assert_eq!(request_count().await, before, "an aborted signal sends nothing");

    let client = PlantStoreClient::new(options_for_delay()).unwrap();
    let call = js("({ signal: AbortSignal.timeout(50) })");
    expect_error(
        settle(client.create_plant(js("({ id: uid(), name: 'a' })"), Some(call))).await,
        "aborted",
    );
}

fn options_for_delay() -> JsValue {
    js("({ baseUrl: SERVER + '/__test/delay/3000', token: TOKEN })")
}

/// The options written by `options` (JS source) with an injected fetch, and the object that fetch
/// records into: `fetch_of` is JS source for `(seen) => fetch`.
fn options_with_fetch(options: &str, fetch_of: &str) -> (JsValue, JsValue) {
    let seen = js("({})");
    let fetch =
        js(fetch_of).unchecked_into::<Function>().call1(&JsValue::UNDEFINED, &seen).unwrap();
    let options = js(options);
    Reflect::set(&options, &"fetch".into(), &fetch).unwrap();
    (options, seen)
}

#[wasm_bindgen_test]
async fn an_injected_fetch_sees_the_exact_request() {
    let (options, seen) = options_with_fetch(
        "({ baseUrl: 'https://plants.example/api/', token: TOKEN, headers: { 'X-Trace': 't-1' } })",
        "(seen) => async (url, init) => { \
          const request = new Request(url, init); seen.args = typeof url + ',' + typeof init; \
          seen.method = request.method; seen.url = request.url; seen.credentials = request.credentials; \
          seen.redirect = request.redirect; seen.auth = request.headers.get('authorization'); \
          seen.type = request.headers.get('content-type'); seen.accept = request.headers.get('accept'); \
          seen.extra = request.headers.get('x-trace'); seen.body = await request.text(); \
          seen.signal = init.signal instanceof AbortSignal; \
          return new Response(JSON.stringify({ name: 'Canned', id: 1 }), { status: 200 }); }",
    );
    let created = settle(create_plant(
        js("({ id: 9223372036854775807n, name: 'Q\"\\n', tag: 't' })"),
        options,
    ))
    .await
    .unwrap();
    assert_eq!(JSON::stringify(&created).unwrap(), r#"{"name":"Canned"}"#);
    assert_eq!(text(&seen, "args"), "string,object", "fetch(url, init), as a hand-written call");
    assert_eq!(get(&seen, "signal"), JsValue::TRUE);
    assert_eq!(text(&seen, "method"), "POST");
    assert_eq!(text(&seen, "url"), "https://plants.example/api/plants");
    assert_eq!(text(&seen, "credentials"), "omit");
    assert_eq!(text(&seen, "redirect"), "manual");
    assert_eq!(text(&seen, "auth"), format!("Bearer {TOKEN}"));
    assert_eq!(text(&seen, "type"), "application/json");
    assert_eq!(text(&seen, "accept"), "application/json");
    assert_eq!(text(&seen, "extra"), "t-1");
    assert_eq!(text(&seen, "body"), r#"{"id":9223372036854775807,"name":"Q\"\n","tag":"t"}"#);
}

/// Without a global fetch and without `options.fetch`, a call fails as `config`; a global fetch
/// that cannot be read (a throwing getter) fails it as `network`. Both reject with a
/// PlantStoreError, never with a raw exception. fetch is looked up when the call is made, so the
/// global is put back before anything is awaited.
#[wasm_bindgen_test]
async fn a_missing_or_unreadable_global_fetch_rejects_with_a_plant_store_error() {
    let saved = js("Object.getOwnPropertyDescriptor(globalThis, 'fetch')");
    let replace = js("(descriptor) => Object.defineProperty(globalThis, 'fetch', descriptor)")
        .unchecked_into::<Function>();
    let call = || create_plant(js("({ id: uid(), name: 'a' })"), options());
    replace
        .call1(
            &JsValue::UNDEFINED,
            &js("({ value: undefined, configurable: true, writable: true })"),
        )
        .unwrap();
    let missing = call();
    replace
        .call1(
            &JsValue::UNDEFINED,
            &js("({ get() { throw new Error('no fetch here') }, configurable: true })"),
        )
        .unwrap();
    let unreadable = call();
    replace.call1(&JsValue::UNDEFINED, &saved).unwrap();
    let missing = expect_error(settle(missing).await, "config");
    assert!(text(&missing, "message").contains("no global fetch"));
    expect_error(settle(unreadable).await, "network");
    the_module_still_works().await;
}

/// A number id is written with the digits `String` gives it (-0 as 0), an absent or undefined tag is
/// left out, and strings are escaped by JSON, as with a BigInt id.
#[wasm_bindgen_test]
async fn the_request_body_of_a_number_id_is_exact() {
    let cases = [
        ("({ id: -0, name: 'a' })", r#"{"id":0,"name":"a"}"#),
        (
            "({ id: -9007199254740991, name: 'x', tag: undefined })",
            r#"{"id":-9007199254740991,"name":"x"}"#,
        ),
        (
            r#"({ tag: '', name: 'Q"\\\n\u2028é', id: 7 })"#,
            "{\"id\":7,\"name\":\"Q\\\"\\\\\\n\u{2028}é\",\"tag\":\"\"}",
        ),
    ];
    for (plant, body) in cases {
        let (options, seen) = options_with_fetch(
            "({ baseUrl: 'https://plants.example/api', token: TOKEN })",
            "(seen) => async (url, init) => { seen.body = init.body; \
              return new Response('{\"name\":\"a\"}', { status: 200 }); }",
        );
        settle(create_plant(js(plant), options)).await.unwrap();
        assert_eq!(text(&seen, "body"), body, "{plant}");
    }
}

/// `init.signal` is an own, enumerable property: a fetch wrapper that copies the init to add a
/// header hands the call's signal on, and the timeout aborts it with a TimeoutError.
#[wasm_bindgen_test]
async fn a_fetch_wrapper_that_copies_init_keeps_the_signal() {
    let (options, seen) = options_with_fetch(
        "({ baseUrl: SERVER, token: TOKEN, timeoutMs: 100 })",
        "(seen) => (url, init) => { \
          const copy = { ...init, headers: { ...init.headers, 'X-Trace': 't-2' } }; \
          seen.keys = Object.keys(init).sort().join(','); \
          return new Promise((resolve, reject) => copy.signal.addEventListener('abort', () => { \
            seen.reason = copy.signal.reason.name; reject(copy.signal.reason); })); }",
    );
    expect_error(
        settle(create_plant(js("({ id: uid(), name: 'copied' })"), options)).await,
        "timeout",
    );
    assert_eq!(text(&seen, "keys"), "body,credentials,headers,method,redirect,signal");
    assert_eq!(text(&seen, "reason"), "TimeoutError");
}

#[wasm_bindgen_test]
async fn a_misbehaving_injected_fetch_cannot_break_the_module() {
    for (source, kind) in [
        ("() => { throw 'a string, not an Error' }", "network"),
        ("() => Promise.reject(Symbol('odd'))", "network"),
        ("() => ({ status: 200 })", "invalid_response"),
        ("() => 42", "invalid_response"),
        ("() => new Response('{\"error\":1,\"message\":\"echo ' + TOKEN + '\"}', { status: 400 })", "rejected"),
        ("() => new Promise(() => {})", "timeout"),
    ] {
        let options = js(&format!("({{ baseUrl: SERVER, token: TOKEN, timeoutMs: 100, fetch: {source} }})"));
        expect_error(settle(create_plant(js("({ id: uid(), name: 'm' })"), options)).await, kind);
    }
    the_module_still_works().await;
}

#[wasm_bindgen_test]
async fn a_revoked_proxy_is_refused_not_thrown() {
    // `Array.isArray` throws on a revoked Proxy; the client must turn that into an issue.
    let revoked =
        "(() => { const { proxy, revoke } = Proxy.revocable({}, {}); revoke(); return proxy; })()";
    let error = expect_error(settle(create_plant(js(revoked), options())).await, "validation");
    assert_eq!(text(&get(&get(&error, "issues"), "0"), "code"), "invalid_type");
    let error = expect_error(
        settle(create_plant(js(&format!("({{ id: 1, name: {revoked} }})")), options())).await,
        "validation",
    );
    assert_eq!(text(&get(&get(&error, "issues"), "0"), "path"), "name");
    assert_eq!(get(&validate_new_plant(js(revoked)), "ok"), JsValue::FALSE);
    expect_error(
        settle(create_plant(js("({ id: uid(), name: 'x' })"), js(revoked))).await,
        "config",
    );
    the_module_still_works().await;
}

#[wasm_bindgen_test]
async fn values_inherited_from_a_polluted_prototype_are_not_read() {
    let pollute = js("(on) => { for (const [k, v] of Object.entries({ tag: 'polluted', getToken: () => 'x', timeoutMs: 1 })) {
        if (on) Object.defineProperty(Object.prototype, k, { value: v, configurable: true, writable: true }); else delete Object.prototype[k]; } }");
    let pollute = pollute.unchecked_ref::<Function>();
    pollute.call1(&JsValue::NULL, &JsValue::TRUE).unwrap();
    let plant = js("({ id: uid(), name: 'clean' })");
    let id = get(&plant, "id").as_f64().unwrap();
    let result = settle(create_plant(plant, options())).await;
    let inherited = validate_new_plant(js(
        "Object.setPrototypeOf({}, Object.assign(Object.create(null), { id: 1, name: 'x' }))",
    ));
    pollute.call1(&JsValue::NULL, &JsValue::FALSE).unwrap();
    let created = result.expect("neither the inherited getToken nor timeoutMs is an option");
    assert_eq!(JSON::stringify(&created).unwrap(), r#"{"name":"clean"}"#);
    assert!(
        get(&server_json(&format!("/__test/plants/{id}")).await, "tag").is_null(),
        "no inherited tag was sent"
    );
    assert_eq!(get(&inherited, "ok"), JsValue::FALSE, "inherited id and name are not the caller's");
}
