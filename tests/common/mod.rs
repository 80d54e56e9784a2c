//! What the browser test files share: the reference server's address (read at compile time: wasm
//! has no environment), its test routes, read through gloo-net as an independent HTTP client, and
//! JavaScript source evaluated as a caller would write it.
#![allow(dead_code)]

use js_sys::{Function, Reflect, JSON};
use wasm_bindgen::JsValue;

pub const SERVER: &str = match option_env!("PLANT_STORE_TEST_URL") {
    Some(url) => url,
    None => "http://127.0.0.1:4010",
};
pub const TOKEN: &str = "test-token-0123";

/// Evaluates JavaScript source with `SERVER`, `TOKEN` and `uid()` (a fresh id) in scope.
pub fn js(source: &str) -> JsValue {
    let body = format!(
        "const SERVER = {server:?}; const TOKEN = {TOKEN:?}; \
         globalThis.__uid = (globalThis.__uid ?? Date.now() * 1000); \
         const uid = () => ++globalThis.__uid; return ({source});",
        server = SERVER
    );
    Function::new_no_args(&body).call0(&JsValue::UNDEFINED).expect("test source must evaluate")
}

/// A fresh id, shared with `uid()` in `js` sources.
pub fn uid() -> i64 {
    js("uid()").as_f64().expect("a number") as i64
}

pub fn get(value: &JsValue, key: &str) -> JsValue {
    Reflect::get(value, &JsValue::from_str(key)).unwrap()
}

pub fn text(value: &JsValue, key: &str) -> String {
    get(value, key).as_string().unwrap_or_default()
}

/// GET a test route of the reference server, parsed.
pub async fn server_json(path: &str) -> JsValue {
    let response = gloo_net::http::Request::get(&format!("{SERVER}{path}")).send().await.unwrap();
    let body = response.text().await.unwrap();
    JSON::parse(&body).unwrap()
}

/// How many requests reached `…/plants` paths of the server so far.
pub async fn request_count() -> f64 {
    get(&server_json("/__test/stats").await, "requests").as_f64().unwrap()
}

/// A JS fetch function as `Config::fetch` takes it: a closure that calls it.
pub fn js_fetch(fetch: Function) -> impl Fn(&str, &web_sys::RequestInit) -> js_sys::Promise {
    move |url, init| {
        let called = fetch.call2(&JsValue::UNDEFINED, &url.into(), init);
        js_sys::Promise::resolve(&called.unwrap_or_else(|e| js_sys::Promise::reject(&e).into()))
    }
}
