// The crate's documentation is its README, whose examples `cargo test --doc` compiles.
#![doc = include_str!("../README.crate.md")]
#![no_std]
#![deny(missing_docs, missing_debug_implementations, unsafe_code)]

// One createPlant runs through five files, the spine: `js/api.rs` (the exports, JS values in and
// out), `config.rs` (the options, checked once into `Settings`), `call.rs` (`Client` and the loop of
// attempts), `exchange.rs` (one request and its answer's body; what ends a call) and `answer.rs`
// (what the answer means, what comes next). Read bottom up, each file uses only those before it
// (`module-graph src`): `redact.rs` (text from outside made safe to show), `error.rs` (the error),
// `hooks.rs` (the caller's functions), `exchange.rs`, `token.rs` (the token and its refresh),
// `config.rs`, `answer.rs`, `call.rs`, then `js/callbacks.rs` (a caller's JS functions as
// closures), `js/error.rs` (the error in JS) and `js/api.rs`, whose TypeScript is `js/types.d.ts`.
// `error.rs`, `hooks.rs` and `token.rs` supply types: a plain success with a fixed token runs
// nothing of them. The outbox (the `outbox` feature, `outbox/mod.rs` has its reading order) is a
// layer on the public client, with its JS exports in `js/outbox.rs`.

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

// The npm package is built without std (see `bare`): no std panic machinery in the .wasm.
#[cfg(all(not(feature = "std"), target_arch = "wasm32"))]
mod bare;

mod answer;
mod call;
mod config;
mod error;
mod hooks;
#[cfg(feature = "js")]
mod js;
#[cfg(feature = "outbox")]
pub mod outbox;
mod redact;
mod shell;
mod token;
// Native only: proptest does not build for wasm32 (see Cargo.toml).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod proptests;

pub use answer::{BODY_SLACK, ERROR_BODY_LIMIT};
pub use call::{plant_object, Client};
pub use config::{CallOptions, Config, IdempotencyKey, Retry, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS};
pub use error::{Error, Kind, UnknownKind};
pub use hooks::{Attempt, AttemptOutcome};
#[cfg(feature = "js")]
pub use js::{create_plant, validate_new_plant, PlantStoreClient, PlantStoreError};
pub use plant_store_model::{Issue, IssueCode, NewPlant, Plant};
