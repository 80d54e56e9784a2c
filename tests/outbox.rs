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
use std::future::Future;
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
    // The server creates the plant at once and answers a minute later, long after the outbox closed
    // on any machine; the next page's request is answered at once.
    let held = format!("{SERVER}/__test/hold/60000");
    let first = Config::new(held).token(TOKEN).fetch(network(up.clone(), keys.clone()));
    let client = Config::new(SERVER).token(TOKEN).fetch(network(up, keys.clone()));
    let before = plants_on_server().await;
    let outbox = Outbox::open(OutboxConfig::new(first, &name)).await.unwrap();
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

/// Creates plant `id` on the server, as another client would.
async fn created_elsewhere(id: i64) {
    let client = plant_store_client::Client::new(Config::new(SERVER).token(TOKEN)).unwrap();
    client.create_plant(&NewPlant { id, name: "Elsewhere".into(), tag: None }).await.unwrap();
}

#[wasm_bindgen_test]
async fn the_app_settles_a_refused_entry_and_a_second_outbox_of_the_name_keeps_in_step() {
    let name = name("app");
    let config = || OutboxConfig::new(Config::new(SERVER).token(TOKEN), &name);
    let a = Outbox::open(config()).await.unwrap();
    let b = Outbox::open(config()).await.unwrap(); // a second tab: `a` sends
    let fern = NewPlant { id: uid(), name: "Fern".into(), tag: None };
    created_elsewhere(fern.id).await;

    let added = a.add(&fern).await.unwrap();
    a.flush().await;
    let refused = &a.entries()[0];
    assert_eq!((refused.state, refused.attempts), (State::Rejected, 1), "{refused:?}");
    assert_eq!(refused.error.as_ref().map(|e| (e.kind, e.code)), Some((Kind::Rejected, Some(3))));
    // The same plant again is the same entry; another plant with its id is refused.
    assert_eq!(a.add(&fern).await.unwrap().key, added.key);
    let other = NewPlant { name: "Other".into(), ..fern.clone() };
    assert_eq!(a.add(&other).await.unwrap_err().kind(), Kind::Config);

    a.retry(&added.key).await.unwrap();
    a.flush().await;
    assert_eq!((a.entries()[0].state, a.entries()[0].attempts), (State::Rejected, 2));
    // The app looked: the plant is there. The other outbox learns it too.
    a.mark_created(&added.key).await.unwrap();
    let created = &a.entries()[0];
    assert_eq!((created.state, created.maybe_created), (State::Created, false));
    assert_eq!(created.created.as_ref().map(|p| p.name.as_str()), Some("Fern"));
    let seen_by_b = || b.entries().iter().find(|e| e.key == added.key).map(|e| e.state);
    for _ in 0..100 {
        if seen_by_b() == Some(State::Created) {
            break;
        }
        sleep(20).await;
    }
    assert_eq!(seen_by_b(), Some(State::Created));
    // Removed in `b`: gone in `a`, and never sent again.
    b.remove(&added.key).await.unwrap();
    for _ in 0..100 {
        if a.entries().is_empty() {
            break;
        }
        sleep(20).await;
    }
    assert!(a.entries().is_empty(), "{:?}", a.entries());
    assert_eq!(a.retry(&added.key).await.unwrap_err().kind(), Kind::Config);
    a.close();
    b.close();
}

#[wasm_bindgen_test]
async fn an_operation_whose_future_is_dropped_holds_nothing_up() {
    let name = name("dropped");
    let outbox =
        Outbox::open(OutboxConfig::new(Config::new(SERVER).token(TOKEN), &name)).await.unwrap();
    outbox.pause();
    let fern = NewPlant { id: uid(), name: "Dropped".into(), tag: None };
    let key = outbox.add(&fern).await.unwrap().key;
    // A change under way, and after it another of the same entry, whose future the app drops after
    // one poll.
    let mut context = std::task::Context::from_waker(std::task::Waker::noop());
    let mut first = Box::pin(outbox.retry(&key));
    assert!(first.as_mut().poll(&mut context).is_pending());
    let mut second = Box::pin(outbox.mark_created(&key));
    assert!(second.as_mut().poll(&mut context).is_pending());
    drop(second);
    first.await.unwrap();
    // The next change of that entry is made, and the store holds it.
    outbox.remove(&key).await.unwrap();
    assert_eq!(outbox.get(&key).await.unwrap(), None);
    outbox.close();
}

#[wasm_bindgen_test]
async fn an_id_past_javascripts_safe_integers_is_given_back_to_javascript_as_a_bigint() {
    let name = name("bigint");
    let down = network(Rc::new(Cell::new(false)), Rc::new(RefCell::new(Vec::new())));
    let config = OutboxConfig::new(Config::new(SERVER).token(TOKEN).fetch(down), &name);
    let outbox = Outbox::open(config).await.unwrap();
    let id = 9_007_199_254_740_993;
    let added = outbox.add(&NewPlant { id, name: "Big".into(), tag: None }).await.unwrap();
    outbox.close();
    // The record as the JS API reads it: the id's type, and every digit of it.
    let read = format!(
        "new Promise((done) => {{ const open = indexedDB.open('plant-store-outbox:{name}');
           open.onsuccess = () => {{ const db = open.result;
             const get = db.transaction('entries').objectStore('entries').get('{}');
             get.onsuccess = () => {{ done(get.result.idType + ' ' + get.result.plant.id); db.close(); }}; }}; }})",
        added.key
    );
    let read: Promise = js_sys::eval(&read).unwrap().unchecked_into();
    let record = JsFuture::from(read).await.unwrap().as_string().unwrap();
    assert_eq!(record, "bigint 9007199254740993");
}
