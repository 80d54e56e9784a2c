//! The JavaScript API: `createPlant`, `PlantStoreClient`, `validateNewPlant` and the
//! `PlantStoreError` class, exported by wasm-bindgen.
//!
//! A thin layer over the Rust API: the JS values become the model's shapes ([`read`]), go
//! through [`Client::start`] and [`Call::run`](crate::client::Call::run), whose future
//! `js_sys::futures` turns into the promise the caller holds, and come back as JS values (below).

mod read;

pub(crate) use read::well_formed_string;

use crate::error::{Draft, Error};
use crate::{CallOptions, Client};
use js_sys::{Array, Object, Promise};
use plant_store_model::{Issue, Plant};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

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
  | { /** The bearer token (an RFC 6750 b64token); never refreshed. */ token: string; getToken?: undefined }
  | {
      token?: undefined;
      /**
       * Returns the bearer token; called before every request with `{ refresh: false }`. After a 401 it is
       * called once with `{ refresh: true }` (shared by the client's calls refused with the same token) and
       * the request is sent once more with what it returns.
       */
      getToken: (context: { refresh: boolean }) => string | Promise<string>;
    };

/** Retries of a call: only what cannot have created the plant, or was asked for. */
export interface RetryOptions {
  /** Requests in all, the first included: 1 to 10 (default 3). */
  attempts?: number;
  /** The cap of the first backoff wait in ms, doubled at each retry; full jitter (default 100). */
  baseDelayMs?: number;
  /** The cap of every wait, a Retry-After included (default 2000). A longer Retry-After ends the call. */
  maxDelayMs?: number;
  /** Also retry 502 and 504, which a gateway may send after passing the request on (default false). */
  gatewayErrors?: boolean;
  /** Give up on an attempt after this many ms and retry it (a `timeout` that may have created the plant). */
  attemptTimeoutMs?: number;
}

/** What `beforeAttempt` is given. */
export interface AttemptInfo {
  url: string;
  /** 1 for the first request of the call. */
  attempt: number;
  /** The headers to send, without Authorization; add to them (not Authorization, not Content-Type). */
  headers: Headers;
}

/** What `afterAttempt` is given, for each request sent. */
export interface AttemptOutcome {
  url: string;
  attempt: number;
  /** From the request to the end of the answer or the failure. */
  durationMs: number;
  /** The status and the headers of the answer, when one came. */
  status?: number;
  headers?: Headers;
  /** The attempt's error, when it failed (retried or not). */
  error?: PlantStoreError;
}

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
  /** Retries of every call; off unless given (it is a POST). `timeoutMs` bounds the call, waits included. */
  retry?: RetryOptions;
  /** Send a generated `Idempotency-Key` (the same on every attempt of a call). The server's CORS must allow it. */
  idempotencyKey?: boolean;
  /** Called before each attempt (synchronously); may add headers. What it throws ends the call (`config`). */
  beforeAttempt?: (attempt: AttemptInfo) => void;
  /** Called after each attempt that sent a request (synchronously). What it throws ends the call (`config`). */
  afterAttempt?: (outcome: AttemptOutcome) => void;
};

/** Options of one `client.createPlant` call. */
export interface CallOptions {
  /** Aborts this call. */
  signal?: AbortSignal;
  /** This call's retries instead of the client's; `null` for none. */
  retry?: RetryOptions | null;
  /** This call's Idempotency-Key: a string (1 to 255 printable ASCII characters, no `"` or `\\`), true for a generated one, false for none. */
  idempotencyKey?: string | boolean;
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
  | "rejected" | "unauthorized" | "unexpected_status" | "invalid_response";

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
  /** The original JavaScript failure, or else the error of the attempt before, when there was one. */
  readonly cause?: unknown;
  /** The requests sent: 0 when the call failed before sending one. */
  readonly attempts: number;
  /** True when a request may have reached the store without the client learning the outcome: the plant may exist. */
  readonly maybeCreated: boolean;
  /** A Retry-After wait the call did not take (over `maxDelayMs` or the time left), in ms. */
  readonly retryAfterMs?: number;
  /** True for a PlantStoreError, also from another realm or copy of this package. */
  static is(value: unknown): value is PlantStoreError;
  toJSON(): {
    name: "PlantStoreError"; kind: PlantStoreErrorKind; message: string; status?: number; code?: number;
    issues?: ValidationIssue[]; attempts: number; maybeCreated: boolean; retryAfterMs?: number;
  };
}

/**
 * A client with checked options, for many calls. (Where the runtime has `Symbol.dispose`, the class
 * also has `[Symbol.dispose]()`, the same as `free()`; it is left out of these types so that they
 * compile with a `lib` older than ESNext.)
 */
export declare class PlantStoreClient {
  /** Checks the options once; throws a `PlantStoreError` of kind `config`. */
  constructor(options: PlantStoreOptions);
  /** Validates `plant` locally, then sends it; `options` may change this call's signal, retries and key. */
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
    match read::client(&options) {
        Ok(client) => submit(&client, &plant, &CallOptions::new()),
        Err(error) => Promise::reject(&error_to_js(&error)),
    }
}

/// Checks a NewPlant without sending anything (for forms): every issue at once, or the plant as it
/// would be sent.
#[wasm_bindgen(js_name = validateNewPlant, unchecked_return_type = "ValidationResult")]
pub fn validate_new_plant(
    #[wasm_bindgen(unchecked_param_type = "unknown")] plant: JsValue,
) -> JsValue {
    let result = fields();
    match read::Reading::new(&plant).and_then(read::Reading::value) {
        Ok(value) => {
            result.set_ok(true);
            result.set_value(&value);
        }
        Err(issues) => {
            result.set_ok(false);
            result.set_issues(&issues_to_js(&issues));
        }
    }
    result.into()
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
        read::client(&options)
            .map(|client| PlantStoreClient { client })
            .map_err(|error| error_to_js(&error))
    }

    /// Validates `plant` locally, then sends it; `options.signal` aborts this call.
    #[wasm_bindgen(js_name = createPlant, unchecked_return_type = "Promise<Plant>")]
    pub fn create_plant(
        &self,
        #[wasm_bindgen(unchecked_param_type = "NewPlant")] plant: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "CallOptions | null")] options: JsValue,
    ) -> Promise {
        match read::call_options(&options) {
            Ok(options) => submit(&self.client, &plant, &options),
            Err(error) => Promise::reject(&error_to_js(&self.client.redact(error))),
        }
    }
}

/// Reads `plant` and, when the rules accept it, starts the call at once and returns the promise of
/// its Plant. A call that fails before it sends anything returns a promise already rejected.
fn submit(client: &Client, plant: &JsValue, options: &CallOptions) -> Promise {
    let started = read::Reading::new(plant)
        .and_then(read::Reading::judge)
        .map_err(|issues| client.redact(Draft::validation(issues)))
        .and_then(|plant| client.start(&plant, options));
    match started {
        Ok(call) => js_sys::futures::future_to_promise(async move {
            match call.run().await {
                Ok(plant) => Ok(plant_to_js(&plant)),
                Err(error) => Err(error_to_js(&error)),
            }
        }),
        Err(error) => Promise::reject(&error_to_js(&error)),
    }
}

#[wasm_bindgen(module = "/js/error.js")]
extern "C" {
    /// `PlantStoreError`, the error class of `js/error.js`.
    pub type PlantStoreError;

    #[wasm_bindgen(constructor)]
    fn new(kind: &str, message: &str, details: &JsValue) -> PlantStoreError;

    /// The same class, re-exported by the generated module under its name. Imported as a
    /// function because wasm-bindgen writes an `unknown` type for a re-exported type; the class
    /// is declared in the TypeScript section above.
    #[wasm_bindgen(reexport, skip_typescript, js_name = PlantStoreError)]
    fn plant_store_error_class();
}

#[wasm_bindgen]
extern "C" {
    /// A fresh plain object being filled: a Plant, a validation result, an issue, an error's
    /// details. Each setter's property name is written into the glue, not passed per call.
    #[wasm_bindgen(extends = Object)]
    pub(crate) type Fields;

    #[wasm_bindgen(method, setter)]
    pub(crate) fn set_name(this: &Fields, value: &JsValue);
    #[wasm_bindgen(method, setter)]
    pub(crate) fn set_tag(this: &Fields, value: &JsValue);
    #[wasm_bindgen(method, setter)]
    pub(crate) fn set_id(this: &Fields, value: &JsValue);
    #[wasm_bindgen(method, setter)]
    pub(crate) fn set_ok(this: &Fields, value: bool);
    #[wasm_bindgen(method, setter)]
    pub(crate) fn set_value(this: &Fields, value: &JsValue);
    #[wasm_bindgen(method, setter)]
    pub(crate) fn set_issues(this: &Fields, value: &JsValue);
    #[wasm_bindgen(method, setter)]
    pub(crate) fn set_path(this: &Fields, value: &JsValue);
    #[wasm_bindgen(method, setter)]
    pub(crate) fn set_code(this: &Fields, value: &JsValue);
    #[wasm_bindgen(method, setter)]
    pub(crate) fn set_message(this: &Fields, value: &JsValue);
    #[wasm_bindgen(method, setter)]
    pub(crate) fn set_status(this: &Fields, value: u16);
    #[wasm_bindgen(method, setter)]
    pub(crate) fn set_cause(this: &Fields, value: &JsValue);
    #[wasm_bindgen(method, setter)]
    pub(crate) fn set_refresh(this: &Fields, value: bool);
    #[wasm_bindgen(method, setter)]
    pub(crate) fn set_url(this: &Fields, value: &str);
    #[wasm_bindgen(method, setter)]
    pub(crate) fn set_attempt(this: &Fields, value: u32);
    #[wasm_bindgen(method, setter)]
    pub(crate) fn set_attempts(this: &Fields, value: u32);
    #[wasm_bindgen(method, setter)]
    pub(crate) fn set_headers(this: &Fields, value: &JsValue);
    #[wasm_bindgen(method, setter, js_name = durationMs)]
    pub(crate) fn set_duration_ms(this: &Fields, value: f64);
    #[wasm_bindgen(method, setter)]
    pub(crate) fn set_error(this: &Fields, value: &JsValue);
    #[wasm_bindgen(method, setter, js_name = maybeCreated)]
    pub(crate) fn set_maybe_created(this: &Fields, value: bool);
    #[wasm_bindgen(method, setter, js_name = retryAfterMs)]
    pub(crate) fn set_retry_after_ms(this: &Fields, value: u32);
}

pub(crate) fn fields() -> Fields {
    Object::new().unchecked_into()
}

/// The created Plant as a fresh `{ name, tag? }`.
fn plant_to_js(plant: &Plant) -> JsValue {
    let object = fields();
    object.set_name(&JsValue::from_str(&plant.name));
    if let Some(tag) = &plant.tag {
        object.set_tag(&JsValue::from_str(tag));
    }
    object.into()
}

/// `[{ path, code, message }, …]`.
fn issues_to_js(issues: &[Issue]) -> JsValue {
    let array = Array::new();
    for issue in issues {
        let object = fields();
        object.set_path(&JsValue::from_str(&issue.path));
        object.set_code(&issue.code.as_str().into());
        object.set_message(&JsValue::from_str(&issue.message));
        array.push(&object);
    }
    array.into()
}

/// The `PlantStoreError` of `error`: its kind and message, and status, code, issues and cause
/// where they apply.
pub(crate) fn error_to_js(error: &Error) -> JsValue {
    let details = fields();
    if let Some(status) = error.status() {
        details.set_status(status);
    }
    if let Some(code) = error.code() {
        details.set_code(&code.into());
    }
    if !error.issues().is_empty() {
        details.set_issues(&issues_to_js(error.issues()));
    }
    match (error.cause(), error.earlier()) {
        (Some(cause), _) => details.set_cause(cause),
        (None, Some(earlier)) => details.set_cause(&error_to_js(earlier)),
        (None, None) => {}
    }
    details.set_attempts(error.attempts());
    details.set_maybe_created(error.maybe_created());
    if let Some(ms) = error.retry_after_ms() {
        details.set_retry_after_ms(ms);
    }
    PlantStoreError::new(error.kind().as_str(), error.message(), &details).into()
}
