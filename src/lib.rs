// The crate's documentation is its README, whose examples `cargo test --doc` compiles.
#![doc = include_str!("../README.crate.md")]
#![no_std]
#![deny(missing_docs, missing_debug_implementations, unsafe_code)]

// One call, file by file: `js/mod.rs` (the exports), `js/read.rs` (JS values in), `config.rs` (the
// options, checked once), `client.rs` (the loop of attempts), `fetch.rs` (one request), `stops.rs`
// (what ends a call) and `answer.rs` (what the answer means, what comes next). Beside them:
// `error.rs` (the error and its redaction), `token.rs` (the token and its refresh), `hooks.rs`,
// `js/callbacks.rs` (a caller's JS functions as closures), `js/error.rs` (the error in JS) and
// `js/types.d.ts` (the TypeScript).

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

// The npm package is built without std (see `bare`): no std panic machinery in the .wasm.
#[cfg(all(not(feature = "std"), target_arch = "wasm32"))]
mod bare;

mod answer;
mod client;
mod config;
mod error;
mod fetch;
mod hooks;
#[cfg(feature = "js")]
mod js;
#[cfg(feature = "outbox")]
pub mod outbox;
mod plant;
mod stops;
mod token;
// Native only: proptest does not build for wasm32 (see Cargo.toml).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod proptests;

pub use answer::Retry;
pub use answer::{BODY_SLACK, ERROR_BODY_LIMIT};
pub use client::Client;
pub use config::{CallOptions, Config, IdempotencyKey, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS};
pub use error::{Error, Kind, UnknownKind};
pub use hooks::{Attempt, AttemptOutcome};
#[cfg(feature = "js")]
pub use js::{create_plant, validate_new_plant, PlantStoreClient, PlantStoreError};
pub use plant::plant_object;
pub use plant_store_model::{Issue, IssueCode, NewPlant, Plant};
