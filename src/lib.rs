// The crate's documentation is its README, whose examples `cargo test --doc` compiles.
#![doc = include_str!("../README.crate.md")]
#![no_std]
#![deny(missing_docs, missing_debug_implementations, unsafe_code)]

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
mod js;
mod stops;
mod token;
// Native only: proptest does not build for wasm32 (see Cargo.toml).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod proptests;

pub use answer::Retry;
pub use answer::{BODY_SLACK, ERROR_BODY_LIMIT};
pub use client::Client;
pub use config::{CallOptions, Config, IdempotencyKey, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS};
pub use error::{Error, Kind, PlantStoreError};
pub use hooks::{Attempt, AttemptOutcome};
pub use js::{create_plant, validate_new_plant, PlantStoreClient};
pub use plant_store_model::{Issue, IssueCode, NewPlant, Plant};
