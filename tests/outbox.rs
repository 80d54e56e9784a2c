//! The Rust `Outbox` in a real browser, in IndexedDB, against the reference server (which honours
//! `Idempotency-Key`): a plant added while the network is down is kept and created once it is back;
//! an outbox closed while its request is out sends it again, with the same key, when it is opened
//! again, and the server creates one plant. Run with `--features outbox` (scripts/test does).
#![cfg(all(target_arch = "wasm32", feature = "outbox"))]

mod common;

use common::{get, server_json, uid, SERVER, TOKEN};
use js_sys::Promise;
use plant_store_client::outbox::{Outbox, OutboxConfig, State};
use plant_store_client::{Config, Kind, NewPlant};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;
use web_sys::RequestInit;

wasm_bindgen_test_configure!(run_in_browser);

/// A fetch that fails as a dropped network does while `up` is false, and otherwise sends through
/// the browser's fetch; it keeps the `Idempotency-Key` of each request it sends.
fn network(
    up: Rc<Cell<bool>>,
    keys: Rc<RefCell<Vec<String>>>,
) -> impl Fn(&str, &RequestInit) -> Promise {
    move |url, init| {
        if !up.get() {
            return Promise::reject(&js_sys::TypeError::new("Failed to fetch").into());
        }
        let headers: web_sys::Headers = get(init, "headers").unchecked_into();
        keys.borrow_mut().push(headers.get("idempotency-key").unwrap().unwrap_or_default());
        web_sys::window().unwrap().fetch_with_str_and_init(url, init)
    }
}

/// A unique outbox name, so that a rerun starts from an empty database.
fn name(what: &str) -> String {
    format!("rust-{what}-{}", uid())
}

async fn plants_on_server() -> f64 {
    get(&server_json("/__test/stats").await, "plants").as_f64().unwrap()
}

/// Waits until the server has stored the plant `id` (it answers 404 until then).
async fn stored(id: i64) {
    for _ in 0..200 {
        let url = format!("{SERVER}/__test/plants/{id}");
        if gloo_net::http::Request::get(&url).send().await.unwrap().ok() {
            return;
        }
        sleep(50).await;
    }
    panic!("the server never stored plant {id}");
}

async fn sleep(ms: i32) {
    let done = Promise::new(&mut |resolve, _| {
        let window = web_sys::window().unwrap();
        window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms).unwrap();
    });
    JsFuture::from(done).await.unwrap();
}

#[wasm_bindgen_test]
async fn a_plant_added_offline_is_kept_then_created_once_the_network_is_back() {
    let (up, keys) = (Rc::new(Cell::new(false)), Rc::new(RefCell::new(Vec::new())));
    let name = name("offline");
    let client = Config::new(SERVER).token(TOKEN).fetch(network(up.clone(), keys.clone()));
    let changes = Rc::new(RefCell::new(Vec::new()));
    let config = OutboxConfig::new(client.clone(), &name).on_change({
        let changes = changes.clone();
        move |change| changes.borrow_mut().push(format!("{change:?}"))
    });
    let outbox = Outbox::open(config).await.unwrap();

    let fern = NewPlant { id: uid(), name: "Offline fern".into(), tag: None };
    let added = outbox.add(&fern).await.unwrap();
    assert_eq!((added.state, added.attempts), (State::Pending, 0));
    // `add` sent it at once; `flush` sends it again, whatever its wait.
    outbox.flush().await;
    let [waiting] = &outbox.entries()[..] else { panic!("one entry") };
    assert_eq!(waiting.state, State::Pending, "a network failure waits: {waiting:?}");
    let tried = waiting.attempts;
    assert!((1..=2).contains(&tried), "{waiting:?}");
    assert_eq!(waiting.error.as_ref().map(|e| e.kind), Some(Kind::Network));
    assert!(waiting.next_attempt_at.is_some(), "with its next attempt time");
    outbox.close();

    // A new page: the entry is still there, waiting.
    let before = plants_on_server().await;
    up.set(true);
    let outbox = Outbox::open(OutboxConfig::new(client, &name)).await.unwrap();
    let [kept] = &outbox.entries()[..] else { panic!("one entry") };
    assert_eq!((&kept.key, &kept.plant, kept.attempts), (&added.key, &fern, tried));
    outbox.flush().await;
    let [created] = &outbox.entries()[..] else { panic!("one entry") };
    assert_eq!((created.state, created.attempts), (State::Created, tried + 1), "{created:?}");
    assert_eq!(created.created.as_ref().map(|p| p.name.as_str()), Some("Offline fern"));
    assert_eq!(plants_on_server().await - before, 1.0, "the server created one plant");
    assert_eq!(*keys.borrow(), [added.key.clone()].map(|k| format!("\"{k}\"")));
    let seen = changes.borrow();
    assert!(seen.iter().any(|c| c.contains("Sending")) && seen.len() >= 3, "{seen:?}");
    outbox.close();
}

#[wasm_bindgen_test]
async fn an_outbox_closed_while_its_request_is_out_sends_it_again_with_the_same_key() {
    let (up, keys) = (Rc::new(Cell::new(true)), Rc::new(RefCell::new(Vec::new())));
    let name = name("closed");
    // The server creates the plant at once and answers 1.5 s later.
    let held = format!("{SERVER}/__test/hold/1500");
    let client = Config::new(held).token(TOKEN).fetch(network(up, keys.clone()));
    let before = plants_on_server().await;
    let outbox = Outbox::open(OutboxConfig::new(client.clone(), &name)).await.unwrap();
    let fern = NewPlant { id: uid(), name: "Interrupted fern".into(), tag: Some("held".into()) };
    let added = outbox.add(&fern).await.unwrap();
    stored(fern.id).await; // the server created it, and holds its answer
    assert_eq!(outbox.entries()[0].state, State::Sending);
    outbox.close(); // as a page closing: the answer never comes back here
    assert_eq!(plants_on_server().await - before, 1.0);

    let outbox = Outbox::open(OutboxConfig::new(client, &name)).await.unwrap();
    outbox.flush().await;
    let [entry] = &outbox.entries()[..] else { panic!("one entry") };
    assert_eq!(entry.state, State::Created, "{entry:?}");
    assert_eq!(entry.attempts, 2);
    let key = format!("\"{}\"", added.key);
    assert_eq!(*keys.borrow(), [key.clone(), key], "sent again with the same key");
    assert_eq!(plants_on_server().await - before, 1.0, "one plant: the server replayed its answer");
    let stored = server_json(&format!("/__test/plants/{}", fern.id)).await;
    assert_eq!(get(&stored, "name"), "Interrupted fern");
    outbox.close();
}
