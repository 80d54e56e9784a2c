//! A property test of the token rule, in the browser (`wasm-pack test --chrome`, `--firefox`): no
//! text an error exposes holds any 8-character piece of the token (a token under 8 characters: not
//! the whole of it). A seeded loop builds hostile answers that carry the token, whole, cut or
//! JSON-escaped, at random offsets, in 200, 400 and other-status bodies, across the excerpt's cut
//! and the read limits, in one chunk or many; an injected fetch answers each. Through the JS export,
//! the texts searched are `message`, `String(err)`, `stack`, `JSON.stringify(err)` and the issues;
//! through the Rust API, `Display` and `Debug`. tests/js/secrets.test.mjs runs the same in Node.
#![cfg(target_arch = "wasm32")]

mod common;

use common::{js, js_fetch};
use js_sys::{Function, Promise};
use plant_store_client::{Client, Config, NewPlant};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const CASES: u32 = 160;

/// xorshift32: the same cases in every run.
struct Random(u32);

impl Random {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        ((u64::from(self.0) * n as u64) >> 32) as usize
    }
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/";

fn token(r: &mut Random) -> String {
    let length = r.pick(&[4, 7, 8, 9, 12, 22, 32, 64, 300]);
    let mut token = String::from(char::from(B64[r.below(52)]));
    while token.len() < length {
        token.push(char::from(B64[r.below(B64.len())]));
    }
    token
}

/// The token with some characters JSON-escaped (in a JSON string), or as it is.
fn written(r: &mut Random, token: &str, in_string: bool) -> String {
    if !in_string || r.chance(50) {
        return token.into();
    }
    let percent = r.pick(&[10, 50, 100]);
    token
        .chars()
        .map(|c| match c {
            '/' if r.chance(50) => "\\/".into(),
            c if r.chance(percent) => format!("\\u{:04x}", c as u32),
            c => c.to_string(),
        })
        .collect()
}

/// One hostile answer: status, body, and the chunk size (0: one chunk).
fn answer(r: &mut Random, token: &str) -> (u16, String, usize) {
    let status = r.pick(&[200, 200, 400, 400, 401, 404, 500, 503]);
    let limits: &[usize] = if status == 200 { &[4096, 65_536, 1 << 20] } else { &[4096, 65_536] };
    let at = match r.below(4) {
        0 => r.below(40),
        1 => 260 + r.below(60),
        2 => r.pick(limits) + 2 - r.below(40),
        _ => r.below(70_000),
    };
    let pad = |n: usize, r: &mut Random| if r.chance(50) { " " } else { "x" }.repeat(n);
    let body = match r.below(5) {
        0 => format!("{}{token} and more", pad(at, r)),
        1 => {
            let quoted = written(r, token, true);
            format!(
                r#"{{"error":{},"message":"{}{quoted}"}}"#,
                r.below(10),
                pad(at.saturating_sub(30), r)
            )
        }
        2 => {
            let quoted = written(r, token, true);
            format!(r#"{{"name":5,"tag":"{}{quoted}"}}"#, pad(at.saturating_sub(20), r))
        }
        3 => format!(r#"{{"name":{}{token}}}"#, pad(at.saturating_sub(10), r)),
        _ => token.into(),
    };
    let chunks = if r.chance(50) { 0 } else { r.pick(&[1, 64, 1000, 16_384]) };
    (status, body, chunks)
}

/// `(status, body, chunks) => fetch`, a fetch that answers with that body.
fn fetch_for(status: u16, body: &str, chunks: usize) -> Function {
    let make = js("(status, body, chunks) => async () => {
        const bytes = new TextEncoder().encode(body);
        if (chunks === 0 || bytes.length === 0) return new Response(bytes, { status });
        let at = 0;
        return new Response(new ReadableStream({ pull(c) {
            if (at >= bytes.length) return c.close();
            c.enqueue(bytes.slice(at, at + chunks)); at += chunks;
        } }, { highWaterMark: 0 }), { status });
    }");
    make.unchecked_ref::<Function>()
        .call3(&JsValue::UNDEFINED, &status.into(), &body.into(), &(chunks as u32).into())
        .unwrap()
        .unchecked_into()
}

/// Every exposed text of a JS error, joined.
fn js_texts(error: &JsValue) -> String {
    let texts = js("(e) => [e.message, String(e), e.stack, JSON.stringify(e),
        ...(e.issues ?? []).map((i) => i.path + ' ' + i.message)].join('\\n')");
    texts
        .unchecked_ref::<Function>()
        .call1(&JsValue::UNDEFINED, error)
        .unwrap()
        .as_string()
        .unwrap()
}

/// The first piece of `token` found in `text`.
fn leak(token: &str, text: &str) -> Option<String> {
    if token.len() < 8 {
        return text.contains(token).then(|| token.into());
    }
    (0..=token.len() - 8)
        .map(|i| &token[i..i + 8])
        .find(|piece| text.contains(piece))
        .map(Into::into)
}

#[wasm_bindgen_test]
async fn no_piece_of_the_token_in_any_exposed_text() {
    let mut r = Random(0x5eed_5eed);
    let mut leaks = Vec::new();
    let mut errors = 0;
    for i in 0..CASES {
        let token = token(&mut r);
        let (status, body, chunks) = answer(&mut r, &token);
        let base = "https://plants.example/api";
        let fetch = fetch_for(status, &body, chunks);

        // The JS export.
        let options = js("({})");
        for (key, value) in [
            ("baseUrl", JsValue::from(base)),
            ("token", token.as_str().into()),
            ("fetch", fetch.clone().into()),
        ] {
            js_sys::Reflect::set(&options, &key.into(), &value).unwrap();
        }
        let plant = js(&format!("({{ id: {i}, name: 'Fern' }})"));
        let call: Promise = plant_store_client::create_plant(plant, options);
        if let Err(error) = JsFuture::from(call).await {
            errors += 1;
            if let Some(piece) = leak(&token, &js_texts(&error)) {
                leaks
                    .push(format!("case {i} (JS, status {status}, {} bytes): {piece}", body.len()));
            }
        }

        // The Rust API, with the same answer.
        let client = Client::new(Config::new(base).token(&token).fetch(js_fetch(fetch))).unwrap();
        let new_plant = NewPlant { id: i.into(), name: "Fern".into(), tag: None };
        if let Err(e) = client.create_plant(&new_plant).await {
            if let Some(piece) = leak(&token, &format!("{e}\n{e:?}")) {
                leaks.push(format!(
                    "case {i} (Rust, status {status}, {} bytes): {piece}",
                    body.len()
                ));
            }
        }
    }
    assert!(errors > CASES / 2, "only {errors} errors");
    assert!(leaks.is_empty(), "{} leaks: {:#?}", leaks.len(), &leaks[..leaks.len().min(8)]);
}
