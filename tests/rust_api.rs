//! The Rust API in a real browser against the reference server: what a Rust wasm app (a Leptos,
//! Yew or Dioxus app, a Worker written in Rust) does, with typed values: `Client`, `Config`,
//! `NewPlant`, `Plant`, `Error` and its `Kind`.
#![cfg(target_arch = "wasm32")]

mod common;

use common::{get, js, js_fetch, request_count, server_json, text, uid, SERVER, TOKEN};
use core::future::Future;
use core::pin::pin;
use core::task::{Context, Waker};
use js_sys::{Function, Promise};
use plant_store_client::{CallOptions, Client, Config, Error, Kind, NewPlant, Plant};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;
use web_sys::{AbortSignal, RequestInit};

wasm_bindgen_test_configure!(run_in_browser);

fn client() -> Client {
    Client::new(Config::new(SERVER).token(TOKEN)).expect("valid settings")
}

fn plant(name: &str) -> NewPlant {
    NewPlant { id: uid(), name: name.into(), tag: None }
}

/// A new plant named `name`, sent by a fresh client of `config`.
async fn send(config: Config, name: &str) -> Result<Plant, Error> {
    Client::new(config).expect("valid settings").create_plant(&plant(name)).await
}

#[wasm_bindgen_test]
async fn a_rust_caller_creates_a_plant_with_every_digit_of_its_id() {
    let fern = NewPlant {
        id: i64::MAX - uid() % 1000,
        name: "Fern \"é\" 🌿".into(),
        tag: Some("green".into()),
    };
    let created = match client().create_plant(&fern).await {
        Ok(plant) => plant,
        // A rerun against the same server finds the plant already there.
        Err(e) if e.kind() == Kind::Rejected => {
            Plant { name: fern.name.clone(), tag: fern.tag.clone() }
        }
        Err(e) => panic!("{e}"),
    };
    assert_eq!(created, Plant { name: fern.name.clone(), tag: Some("green".into()) });
    let stored = server_json(&format!("/__test/plants/{}", fern.id)).await;
    assert_eq!(text(&stored, "id"), fern.id.to_string());
    assert_eq!(text(&stored, "name"), fern.name);
}

#[wasm_bindgen_test]
async fn errors_carry_their_kind_status_and_code() {
    let client = client();
    let twice = plant("twice");
    client.create_plant(&twice).await.expect("the first time");
    let e = client.create_plant(&twice).await.unwrap_err();
    assert_eq!((e.kind(), e.status(), e.code()), (Kind::Rejected, Some(400), Some(3)));
    assert!(e.message().contains("already exists"), "{e}");
    assert!(e.issues().is_empty() && e.cause().is_none());

    let e = send(Config::new(SERVER).token("wrong"), "x").await.unwrap_err();
    assert_eq!(
        (e.kind(), e.status(), e.code(), e.attempts()),
        (Kind::Unauthorized, Some(401), Some(4), 1)
    );

    let broken = format!("{SERVER}/__test/fault/200-not-json");
    let e = send(Config::new(broken).token(TOKEN), "x").await.unwrap_err();
    assert_eq!((e.kind(), e.status()), (Kind::InvalidResponse, Some(200)));

    let e = send(Config::new("http://127.0.0.1:9").token(TOKEN), "x").await.unwrap_err();
    assert_eq!(e.kind(), Kind::Network);
    assert!(e.cause().is_some_and(|c| c.is_instance_of::<js_sys::Error>()));
}

#[wasm_bindgen_test]
async fn settings_are_checked_once_and_nothing_is_sent_for_a_bad_one() {
    let before = request_count().await;
    // Each message names the setting as this code wrote it (the JS options' names are JS's).
    for (config, names) in [
        (Config::new("ftp://127.0.0.1").token(TOKEN), "the base URL of Config::new(..) "),
        (Config::new(format!("{SERVER}?x=1")).token(TOKEN), "the base URL of Config::new(..) "),
        (Config::new(SERVER), "Config::token(..) or Config::token_source(..) is required"),
        (Config::new(SERVER).token(format!("{TOKEN}\r\nX: 1")), "Config::token(..): "),
        (Config::new(SERVER).token(TOKEN).timeout_ms(0), "Config::timeout_ms(..) must be "),
        (Config::new(SERVER).token(TOKEN).header("Authorization", "x"), "Config::header(..) "),
        (Config::new(SERVER).token(TOKEN).header("bad name", "x"), "Config::header(\"bad name\""),
    ] {
        let e = Client::new(config).unwrap_err();
        assert_eq!(e.kind(), Kind::Config, "{e}");
        assert!(e.message().starts_with(names), "{e}");
        assert!(!e.message().contains(TOKEN), "{e}");
    }
    assert_eq!(request_count().await, before);
}

#[wasm_bindgen_test]
async fn timeouts_and_signals_stop_a_call() {
    let slow = format!("{SERVER}/__test/delay/3000");
    let e = send(Config::new(&slow).token(TOKEN).timeout_ms(200), "slow").await.unwrap_err();
    assert_eq!(e.kind(), Kind::Timeout);
    assert!(e.message().contains("200 ms"), "{e}");

    let client = Client::new(Config::new(&slow).token(TOKEN)).unwrap();
    let signal = AbortSignal::timeout_with_u32(50);
    let options = CallOptions::new().signal(signal);
    let e = client.create_plant_with(&plant("aborted"), &options).await.unwrap_err();
    assert_eq!(e.kind(), Kind::Aborted);
    assert!(e.cause().is_some(), "the signal's reason is the cause");

    let before = request_count().await;
    let aborted = Config::new(SERVER).token(TOKEN).signal(AbortSignal::abort());
    let e = send(aborted, "never").await.unwrap_err();
    assert_eq!(e.kind(), Kind::Aborted);
    assert_eq!(request_count().await, before, "nothing is sent");
}

#[wasm_bindgen_test]
async fn a_token_source_and_an_injected_fetch_are_rust_closures() {
    let config = Config::new(SERVER).token_source(|_refresh| async { Ok(String::from(TOKEN)) });
    let created = send(config, "from a source").await.unwrap();
    assert_eq!(created.name, "from a source");

    // A fetch of the caller's own: it sees the URL and the init, and answers without a network.
    let seen = Rc::new(RefCell::new(None));
    let fetch = {
        let seen = seen.clone();
        move |url: &str, init: &RequestInit| {
            *seen.borrow_mut() = Some((url.to_string(), JsValue::from(init.clone())));
            Promise::resolve(&js(r#"new Response('{"name":"canned"}', { status: 200 })"#))
        }
    };
    let plant = NewPlant { id: -9_007_199_254_740_993, name: "N".into(), tag: Some("t".into()) };
    let config = Config::new("https://plants.example/api/").token(TOKEN).fetch(fetch);
    let created = Client::new(config).unwrap().create_plant(&plant).await.unwrap();
    assert_eq!(created.name, "canned");
    let (url, init) = seen.borrow_mut().take().expect("fetch was called");
    assert_eq!(url, "https://plants.example/api/plants");
    assert_eq!(text(&init, "body"), r#"{"id":-9007199254740993,"name":"N","tag":"t"}"#);
    let headers: web_sys::Headers = get(&init, "headers").unchecked_into();
    assert_eq!(headers.get("authorization").unwrap(), Some(format!("Bearer {TOKEN}")));
}

/// A JS function that is the caller's own (a fetch from a library) goes in through a closure
/// (`common::js_fetch`).
#[wasm_bindgen_test]
async fn a_js_fetch_of_the_callers_own_is_wrapped_in_a_closure() {
    let theirs: Function = js("async (url, init) => fetch(url, init)").unchecked_into();
    let config = Config::new(SERVER).token(TOKEN).fetch(js_fetch(theirs));
    let created = send(config, "through theirs").await;
    assert_eq!(created.unwrap().name, "through theirs");
}

/// Dropping the future of a call in flight aborts fetch's signal, as reqwest's guard does.
#[wasm_bindgen_test]
fn dropping_a_call_aborts_its_request() {
    let signal = Rc::new(RefCell::new(None));
    let fetch = {
        let signal = signal.clone();
        move |_: &str, init: &RequestInit| {
            *signal.borrow_mut() = init.get_signal();
            Promise::new(&mut |_, _| {})
        }
    };
    let client = Client::new(Config::new(SERVER).token(TOKEN).fetch(fetch)).unwrap();
    let new_plant = plant("dropped");
    let aborted = || signal.borrow().as_ref().expect("fetch was called").aborted();
    {
        let call = pin!(client.create_plant(&new_plant));
        let polled = call.poll(&mut Context::from_waker(Waker::noop()));
        assert!(polled.is_pending(), "the request is in flight");
        assert!(!aborted());
    }
    assert!(aborted());
}

/// The Rust API and the JS export make the same call: the same error for the same answer.
#[wasm_bindgen_test]
async fn rust_and_js_callers_get_the_same_error() {
    let base = format!("{SERVER}/__test/fault/500-html");
    let rust = send(Config::new(&base).token(TOKEN), "same").await.unwrap_err();
    let options = js(&format!("({{ baseUrl: {base:?}, token: TOKEN }})"));
    let from_js = wasm_bindgen_futures::JsFuture::from(plant_store_client::create_plant(
        js("({ id: uid(), name: 'same' })"),
        options,
    ))
    .await
    .unwrap_err();
    assert_eq!(text(&from_js, "kind"), rust.kind().as_str());
    assert_eq!(text(&from_js, "message"), rust.message());
    assert_eq!(get(&from_js, "status"), JsValue::from(rust.status().unwrap()));
}

/// Issue 25 in the Rust API: a 503 retried with the hooks watching, and a refused token refreshed
/// once, against the reference server's scripted route.
#[wasm_bindgen_test]
async fn a_503_is_retried_with_hooks_and_a_refused_token_is_refreshed_once() {
    use plant_store_client::{IdempotencyKey, Retry};

    let seen = Rc::new(RefCell::new(Vec::new()));
    let config = Config::new(format!("{SERVER}/__test/script/503,ok"))
        .token(TOKEN)
        .before_attempt(|attempt| {
            assert!(!attempt.headers.has("authorization").unwrap());
            let parent = format!("00-{:032x}-{:016x}-01", attempt.number, 7);
            attempt.headers.set("traceparent", &parent)
        })
        .after_attempt({
            let seen = seen.clone();
            move |outcome| {
                let kind = outcome.error.map(|e| e.kind());
                seen.borrow_mut().push((outcome.number, outcome.status, kind));
                Ok(())
            }
        });
    let client = Client::new(config).unwrap();
    let fern = plant("retried");
    let options = CallOptions::new()
        .retry(Retry::new(3).base_delay_ms(10))
        // One key per plant: the reference server honours it, and a key seen with another body is a 422.
        .idempotency_key(IdempotencyKey::Given(format!("key-25-{}", fern.id)));
    let created = client.create_plant_with(&fern, &options).await.unwrap();
    assert_eq!(created.name, "retried");
    assert_eq!(
        *seen.borrow(),
        [(1, Some(503), Some(Kind::UnexpectedStatus)), (2, Some(200), None)]
    );
    let last = server_json("/__test/last").await;
    let headers = get(&last, "headers");
    assert!(text(&headers, "traceparent").starts_with("00-00000000000000000000000000000002-"));
    assert_eq!(text(&headers, "idempotency-key"), format!("\"key-25-{}\"", fern.id));

    // Retries off (the default): one attempt, and the error says so; a 503 may come after the
    // write, so the plant may exist.
    let e = client.create_plant(&plant("once")).await.unwrap_err();
    assert_eq!((e.kind(), e.status(), e.attempts()), (Kind::UnexpectedStatus, Some(503), 1));
    assert!(e.maybe_created());

    // A token source refused once: one refresh, then the plant.
    let refreshes = Rc::new(RefCell::new(Vec::new()));
    let get_token = {
        let refreshes = refreshes.clone();
        move |refresh: bool| {
            refreshes.borrow_mut().push(refresh);
            async move { Ok(String::from(if refresh { TOKEN } else { "expired-0123" })) }
        }
    };
    let client = Client::new(Config::new(SERVER).token_source(get_token)).unwrap();
    let created = client.create_plant(&plant("refreshed")).await.unwrap();
    assert_eq!(created.name, "refreshed");
    assert_eq!(*refreshes.borrow(), [false, true]);
}
