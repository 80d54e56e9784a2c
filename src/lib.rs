// The crate's documentation is its README, whose examples `cargo test --doc` compiles.
#![doc = include_str!("../README.crate.md")]
#![no_std]
#![deny(missing_docs, missing_debug_implementations, unsafe_code)]

// One createPlant runs through five files, the spine: `js/api.rs` (the exports, JS values in and
// out), `config.rs` (the options, checked once into `Settings`), `client.rs` (`Client`: it starts a
// call and runs it), `call.rs` (the call sans IO: `Call::step` takes what happened and says what to
// do) and `answer.rs` (what an answer means, what comes next); `shell.rs` carries what crosses to
// the JS shell, `js/call.js`, which does the IO. Read bottom up, each file uses only those before
// it (`module-graph src`): `redact.rs` (text from outside made safe to show), `error.rs` (the
// error), `hooks.rs` (the caller's functions), `token.rs` (the token and its refresh), `config.rs`,
// `answer.rs`, `call.rs`, `shell.rs`, `client.rs`, then `js/callbacks.rs` (a caller's JS functions
// as closures), `js/error.rs` (the error in JS) and `js/api.rs`, whose TypeScript is
// `js/types.d.ts`. The outbox (the `outbox` feature, `outbox/mod.rs` has its reading order) is a
// layer on the public client, with its JS exports in `js/outbox.rs`.

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
#[cfg(feature = "outbox")]
pub mod outbox;
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
