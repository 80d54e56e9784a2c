//! plant-store-client: the Plant Store's `createPlant`, compiled to WebAssembly for browsers and
//! edge runtimes.
//!
//! This file holds the TypeScript types of the whole API and [`start`], which hands js/runtime.js
//! the [`Engine`] when the module is instantiated. The API itself (`createPlant`,
//! `PlantStoreClient`, `validateNewPlant`) is entered in js/runtime.js, which asks the
//! Engine whenever there is something to judge: a call then crosses into wasm once with numbers,
//! not with objects. The rules live in the `plant-store-model` crate (shared with the reference
//! server); judging a NewPlant is in [`input`], the answer and every failure of a call in
//! [`answer`], and the one error type in [`error`].
#![no_std]
#![deny(missing_debug_implementations)]
#![forbid(unsafe_code)]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

// The npm package is built without std (see `bare`): no std panic machinery in the .wasm.
#[cfg(all(not(feature = "std"), target_arch = "wasm32"))]
mod bare;

pub mod answer;
pub mod error;
pub mod input;
pub mod js;

use answer::{Engine, ERROR_BODY_LIMIT, SUCCESS_BODY_LIMIT};
use js_sys::{Object, Reflect};
use wasm_bindgen::prelude::*;

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
 * Validates `plant` locally, then sends it to `POST {baseUrl}/plants`. Resolves to the created Plant;
 * rejects with a `PlantStoreError`. The options are checked on every call; a `PlantStoreClient`
 * checks them once.
 */
export declare function createPlant(plant: NewPlant, options: PlantStoreOptions): Promise<Plant>;

/**
 * Checks a NewPlant without sending anything (for forms): every issue at once, or the plant as it
 * would be sent. Throws a `config` PlantStoreError only when the wasm module is not loaded yet.
 */
export declare function validateNewPlant(plant: unknown): ValidationResult;

/** A client with checked options, for many calls. */
export declare class PlantStoreClient {
  /** Checks the options once; throws a `PlantStoreError` of kind `config`. */
  constructor(options: PlantStoreOptions);
  /** Validates `plant` locally, then sends it; `options.signal` aborts this call. */
  createPlant(plant: NewPlant, options?: CallOptions | null): Promise<Plant>;
}
"#;

/// A fresh plain object with string (or other) values: `{ key: value, … }`.
pub(crate) fn object(entries: &[(&str, &JsValue)]) -> JsValue {
    let object = Object::new();
    for (key, value) in entries {
        let _ = Reflect::set(&object, &JsValue::from_str(key), value);
    }
    object.into()
}

/// `[{ path, code, message }, …]`.
pub(crate) fn issues_to_js(issues: &[plant_store_model::Issue]) -> JsValue {
    let array = js_sys::Array::new();
    for issue in issues {
        array.push(&object(&[
            ("path", &JsValue::from_str(&issue.path)),
            ("code", &JsValue::from_str(issue.code.as_str())),
            ("message", &JsValue::from_str(&issue.message)),
        ]));
    }
    array.into()
}

/// Hands js/runtime.js the Engine and the body limits; run when the module is instantiated (the
/// test runner does not run it: the tests call it). Until then `createPlant`, `new PlantStoreClient`
/// and `validateNewPlant` fail with a `config` error that says to load the module first.
#[wasm_bindgen(start, skip_typescript)]
pub fn start() {
    js::install(
        Engine::default(),
        SUCCESS_BODY_LIMIT as u32,
        ERROR_BODY_LIMIT as u32,
    );
}
