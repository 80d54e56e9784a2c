//! The JavaScript API: `createPlant`, `PlantStoreClient` and `validateNewPlant`, exported by
//! wasm-bindgen, a thin layer over [`Client`]: JS values in ([`read`]), the call
//! ([`Client::start`], [`Call::run`](crate::client::Call::run), whose future `js_sys::futures`
//! turns into the promise the caller holds), JS values out. Its TypeScript is `types.d.ts`.

mod callbacks;
mod error;
#[cfg(feature = "outbox")]
mod outbox;
mod read;

pub use error::PlantStoreError;

use crate::error::Draft;
use crate::{plant_object, CallOptions, Client};
use error::issues_to_js;
use js_sys::{Object, Promise, Reflect};
use plant_store_model::{NewPlant, Plant};
use wasm_bindgen::prelude::*;

/// The TypeScript of the whole API, written by hand rather than by wasm-bindgen (whose exports here
/// are `skip_typescript`): wasm-bindgen cannot write a union discriminated by `kind`, and would
/// declare `[Symbol.dispose]`, which needs an ESNext `lib`.
#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = include_str!("types.d.ts");

/// Validates `plant` locally, then sends it to `POST {baseUrl}/plants`. Resolves to the created
/// Plant; rejects with a `PlantStoreError`. The options are checked on every call; a
/// `PlantStoreClient` checks them once.
#[wasm_bindgen(js_name = createPlant, skip_typescript)]
pub fn create_plant(plant: JsValue, options: JsValue) -> Promise {
    match read::client(&options) {
        Ok(client) => submit(&client, &plant, &CallOptions::new()),
        Err(error) => Promise::reject(&error.to_js()),
    }
}

/// Checks a NewPlant without sending anything (for forms): every issue at once, or the plant as it
/// would be sent, its `id` of the type it was given.
#[wasm_bindgen(js_name = validateNewPlant, skip_typescript)]
pub fn validate_new_plant(plant: JsValue) -> JsValue {
    let (ok, key, value) = match read::new_plant(&plant) {
        Ok((plant, bigint)) => (true, "value", new_plant_to_js(&plant, bigint)),
        Err(issues) => (false, "issues", issues_to_js(&issues)),
    };
    let result = Object::new();
    let _ = Reflect::set(&result, &"ok".into(), &ok.into());
    let _ = Reflect::set(&result, &key.into(), &value);
    result.into()
}

/// A client with checked options, for many calls.
#[wasm_bindgen(skip_typescript)]
#[derive(Debug)]
pub struct PlantStoreClient {
    client: Client,
}

#[wasm_bindgen]
impl PlantStoreClient {
    /// Checks the options once; throws a `PlantStoreError` of kind `config`.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<PlantStoreClient, JsValue> {
        let client = read::client(&options).map_err(|error| error.to_js())?;
        Ok(PlantStoreClient { client })
    }

    /// Validates `plant` locally, then sends it; `options` may change this call's signal,
    /// retries and key.
    #[wasm_bindgen(js_name = createPlant)]
    pub fn create_plant(&self, plant: JsValue, options: JsValue) -> Promise {
        match read::call_options(&options) {
            Ok(options) => submit(&self.client, &plant, &options),
            Err(draft) => Promise::reject(&self.client.redact(draft).to_js()),
        }
    }
}

/// Reads `plant` and, when the rules accept it, starts the call at once and returns the promise of
/// its Plant. A call that fails before it sends anything returns a promise already rejected.
fn submit(client: &Client, plant: &JsValue, options: &CallOptions) -> Promise {
    let started = read::new_plant(plant)
        .map_err(|issues| client.redact(Draft::validation(issues)))
        .and_then(|(plant, _)| client.start(&plant, options));
    match started {
        Ok(call) => js_sys::futures::future_to_promise(async move {
            match call.run().await {
                Ok(plant) => Ok(plant_to_js(&plant)),
                Err(error) => Err(error.to_js()),
            }
        }),
        Err(error) => Promise::reject(&error.to_js()),
    }
}

/// The created Plant as a fresh `{ name, tag? }`.
fn plant_to_js(plant: &Plant) -> JsValue {
    plant_object(None, &plant.name, plant.tag.as_deref()).into()
}

/// A valid NewPlant as a fresh `{ id, name, tag? }`, the id a BigInt when it was given as one.
fn new_plant_to_js(plant: &NewPlant, bigint: bool) -> JsValue {
    let id = match bigint {
        true => JsValue::from(plant.id),
        // Exact: a number id is a safe integer.
        false => JsValue::from_f64(plant.id as f64),
    };
    plant_object(Some(&id), &plant.name, plant.tag.as_deref()).into()
}
