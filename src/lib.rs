// The crate's documentation is its README, whose examples `cargo test --doc` compiles.
#![doc = include_str!("../README.crate.md")]
#![no_std]
#![deny(missing_docs, missing_debug_implementations, unsafe_code)]

// One createPlant runs through six files (and, without std, `bare.rs`'s allocator) and the JS
// shell (`node bench/trace-call.mjs` lists them): `js/api.rs` (the exports, JS values in and
// out), `config.rs` (the settings, checked once into `Settings`; a call's own options on every
// call), `client.rs` (`Client`: it starts a call), `shell.rs` (the seam: it runs the call in the
// shell, `js/call.js`, which does the IO, and steps it with what the shell tells), `call.rs` (the
// call sans IO: `Call::step` takes what happened and says what to do) and `answer.rs` (what an
// answer means, what comes next). An error adds `error.rs` and `redact.rs` (and `js/error.rs`,
// its PlantStoreError), a token source `token.rs`, hooks `hooks.rs` (and `js/callbacks.rs`). Read
// bottom up, each file uses only those before it (`module-graph src`): `names.rs` (what messages
// call each setting), `redact.rs`, `error.rs`, `token.rs`, `hooks.rs`, `config.rs`, `answer.rs`,
// `call.rs`, `shell.rs`, `client.rs`, then `js/error.rs`, `js/callbacks.rs` and `js/api.rs`, whose
// TypeScript is `js/types.d.ts`. The outbox (the `outbox` feature, JS only: `outbox/mod.rs` has
// its reading order) sends through the client and reads a NewPlant as the JS API does.

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

// The npm package is built without std (see `bare`): no std panic machinery in the .wasm.
#[cfg(all(not(feature = "std"), target_arch = "wasm32"))]
mod bare;

mod answer;
mod call;
mod client;
mod config;
mod error;
mod hooks;
#[cfg(feature = "js")]
mod js;
mod names;
#[cfg(feature = "outbox")]
mod outbox;
mod redact;
mod shell;
mod token;
// Native only: proptest does not build for wasm32 (see Cargo.toml).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod proptests;

pub use answer::{BODY_SLACK, ERROR_BODY_LIMIT};
pub use client::{plant_object, Client};
pub use config::{CallOptions, Config, IdempotencyKey, KeyFormat, Retry};
pub use config::{DEFAULT_KEY_LIFETIME_MS, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS};
pub use error::{Error, Kind, UnknownKind};
pub use hooks::{Attempt, AttemptOutcome};
#[cfg(feature = "js")]
pub use js::{create_plant, validate_new_plant, PlantStoreClient, PlantStoreError};
pub use plant_store_model::{Issue, IssueCode, NewPlant, Plant};
