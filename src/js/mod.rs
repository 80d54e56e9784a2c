//! The JavaScript API: `createPlant`, `PlantStoreClient`, `validateNewPlant` and the
//! `PlantStoreError` class, exported by wasm-bindgen.
//!
//! A thin layer over the Rust API: the JS values become the model's shapes ([`input`],
//! [`options`]), go through [`Client::send`](crate::Client), and come back as JS values
//! ([`output`]); [`task`] turns the call's future into the promise the caller holds.

mod input;
mod options;
mod output;
mod task;

use crate::Client;
use js_sys::Promise;
use wasm_bindgen::prelude::*;
use web_sys::AbortSignal;

pub use output::PlantStoreError;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = r#"
/** The request body of plant creation. */
export interface NewPlant {
  /** int64. A number must be a safe integer; pass a BigInt for ids beyond ±(2^53−1). */
  id: number | bigint;
  /** The name of the plant (any string, including empty). */
  name: string;
  /** Tag that specifies the type of the plant; leave it out (or undefined) for none. */
  tag?: string;
}

/** The created plant, as the Plant Store answered it. */
export interface Plant {
  name: string;
  tag?: string;
}

/** How the token is given: a fixed string, or a function called before every request. */
export type PlantStoreAuth =
  | { /** The bearer token (an RFC 6750 b64token). */ token: string; getToken?: undefined }
  | { token?: undefined; /** Returns the bearer token; called per request. */ getToken: () => string | Promise<string> };

/** Options of `createPlant` and `new PlantStoreClient`. Unknown keys are a `config` error. */
export type PlantStoreOptions = PlantStoreAuth & {
  /** Absolute http(s) URL, optionally with a path prefix: `https://host/api/v1`. No query or fragment. */
  baseUrl: string;
  /** A fetch implementation to use instead of `globalThis.fetch`; called as `fetch(url, init)`. */
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
  /** Aborts every call made with these options. */
  signal?: AbortSignal;
  /** Timeout of one call in milliseconds, from 1 to 2147483647 (default 10000). */
  timeoutMs?: number;
  /** Extra request headers; they cannot replace Authorization or Content-Type. */
  headers?: Record<string, string>;
};

/** Options of one `client.createPlant` call. */
export interface CallOptions {
  /** Aborts this call. */
  signal?: AbortSignal;
}

/** What a validation issue is about. */
export type ValidationIssueCode =
  | "invalid_type" | "required" | "unknown_field" | "not_integer"
  | "unsafe_integer" | "out_of_range" | "malformed_string" | "unreadable";

/** One problem with a NewPlant. */
export interface ValidationIssue {
  /** The field's name: "id", "name", "tag", an unknown key, or "" for the value as a whole. */
  path: string;
  code: ValidationIssueCode;
  /** A sentence that names the field. */
  message: string;
}

/** The answer of `validateNewPlant`. */
export type ValidationResult =
  | { ok: true; value: NewPlant }
  | { ok: false; issues: ValidationIssue[] };

/** What went wrong; see the README for each. */
export type PlantStoreErrorKind =
  | "validation" | "config" | "network" | "timeout" | "aborted"
  | "rejected" | "unexpected_status" | "invalid_response";

/** Every failure of this package. The token never appears in it. */
export declare class PlantStoreError extends Error {
  readonly name: "PlantStoreError";
  readonly kind: PlantStoreErrorKind;
  /** The HTTP status, for `rejected`, `unexpected_status` and `invalid_response`. */
  readonly status?: number;
  /** The service's `error` value, when it sent an Error body. */
  readonly code?: number;
  /** Every problem found, for `validation`. */
  readonly issues?: ValidationIssue[];
  /** The original JavaScript failure, when there was one. */
  readonly cause?: unknown;
  /** True for a PlantStoreError, also from another realm or copy of this package. */
  static is(value: unknown): value is PlantStoreError;
  toJSON(): { name: "PlantStoreError"; kind: PlantStoreErrorKind; message: string; status?: number; code?: number; issues?: ValidationIssue[] };
}

/**
 * A client with checked options, for many calls. (Where the runtime has `Symbol.dispose`, the class
 * also has `[Symbol.dispose]()`, the same as `free()`; it is left out of these types so that they
 * compile with a `lib` older than ESNext.)
 */
export declare class PlantStoreClient {
  /** Checks the options once; throws a `PlantStoreError` of kind `config`. */
  constructor(options: PlantStoreOptions);
  /** Validates `plant` locally, then sends it; `options.signal` aborts this call. */
  createPlant(plant: NewPlant, options?: CallOptions | null): Promise<Plant>;
  /** Frees the client's memory in wasm now, rather than when it is garbage-collected. */
  free(): void;
}
"#;

/// Validates `plant` locally, then sends it to `POST {baseUrl}/plants`. Resolves to the created
/// Plant; rejects with a `PlantStoreError`. The options are checked on every call; a
/// `PlantStoreClient` checks them once.
#[wasm_bindgen(js_name = createPlant, unchecked_return_type = "Promise<Plant>")]
pub fn create_plant(
    #[wasm_bindgen(unchecked_param_type = "NewPlant")] plant: JsValue,
    #[wasm_bindgen(unchecked_param_type = "PlantStoreOptions")] options: JsValue,
) -> Promise {
    match options::client(&options) {
        Ok(client) => submit(client, &plant, None),
        Err(error) => Promise::reject(&output::error(&error)),
    }
}

/// Checks a NewPlant without sending anything (for forms): every issue at once, or the plant as it
/// would be sent.
#[wasm_bindgen(js_name = validateNewPlant, unchecked_return_type = "ValidationResult")]
pub fn validate_new_plant(
    #[wasm_bindgen(unchecked_param_type = "unknown")] plant: JsValue,
) -> JsValue {
    let names = output::names();
    let judged = input::Reading::new(&plant).and_then(input::Reading::value);
    match judged {
        Ok(value) => output::object(&[(&names.ok, &JsValue::TRUE), (&names.value, &value)]),
        Err(issues) => output::object(&[
            (&names.ok, &JsValue::FALSE),
            (&names.issues, &output::issues(&issues)),
        ]),
    }
    .into()
}

/// A client with checked options, for many calls. Its TypeScript is in `TYPES` (wasm-bindgen's
/// would declare `[Symbol.dispose]`, which needs an ESNext `lib`).
#[wasm_bindgen(skip_typescript)]
#[derive(Debug)]
pub struct PlantStoreClient {
    client: Client,
}

#[wasm_bindgen]
impl PlantStoreClient {
    /// Checks the options once; throws a `PlantStoreError` of kind `config`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "PlantStoreOptions")] options: JsValue,
    ) -> Result<PlantStoreClient, JsValue> {
        options::client(&options)
            .map(|client| PlantStoreClient { client })
            .map_err(|error| output::error(&error))
    }

    /// Validates `plant` locally, then sends it; `options.signal` aborts this call.
    #[wasm_bindgen(js_name = createPlant, unchecked_return_type = "Promise<Plant>")]
    pub fn create_plant(
        &self,
        #[wasm_bindgen(unchecked_param_type = "NewPlant")] plant: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "CallOptions | null")] options: JsValue,
    ) -> Promise {
        match options::call_signal(&options) {
            Ok(signal) => submit(self.client.clone(), &plant, signal),
            Err(error) => Promise::reject(&output::error(&error)),
        }
    }
}

/// Reads `plant` and, when the rules accept it, runs the call: the promise of its Plant.
fn submit(client: Client, plant: &JsValue, signal: Option<AbortSignal>) -> Promise {
    let plant = match input::Reading::new(plant).and_then(input::Reading::judge) {
        Ok(plant) => plant,
        Err(issues) => {
            return Promise::reject(&output::error(&crate::Error::validation(issues)));
        }
    };
    task::spawn(async move {
        client
            .send(&plant, signal.as_ref())
            .await
            .map(output::plant)
            .map_err(|error| output::error(&error))
    })
}
