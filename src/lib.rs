//! A small, exact client for the Plant Store service (`POST {baseUrl}/plants`), for Rust compiled
//! to WebAssembly and, through the npm package built from this crate, for JavaScript in browsers
//! and edge runtimes.
//!
//! A [`Client`] sends a [`NewPlant`] with `fetch` and the bearer token, and checks the answer
//! against the contract: the [`Plant`] the store created, or one [`Error`] whose [`Kind`] you can
//! branch on. The token never appears in an error.
//!
//! ```no_run
//! use plant_store_client::{Client, Config, Kind, NewPlant};
//!
//! // In a Leptos, Yew or Dioxus app, or a Worker written in Rust:
//! async fn add_fern(token: &str) -> Result<(), plant_store_client::Error> {
//!     let client = Client::new(Config::new("https://plants.example/api/v1").token(token))?;
//!     let fern = NewPlant { id: 9_007_199_254_740_993, name: "Fern".into(), tag: Some("green".into()) };
//!     match client.create_plant(&fern).await {
//!         Ok(plant) => assert_eq!(plant.name, "Fern"),
//!         Err(e) if e.kind() == Kind::Rejected => {
//!             // The store said no: e.code() is its `error` value, e.message() its message.
//!         }
//!         Err(e) => return Err(e),
//!     }
//!     Ok(())
//! }
//! ```
//!
//! The call runs wherever a global `fetch` does (windows, workers, Node, Deno, workerd), or
//! through the `fetch` you pass to [`Config::fetch`]; it needs no `window`. From JavaScript, use
//! the npm package [`plant-store-client`](https://www.npmjs.com/package/plant-store-client) (its
//! README shows how): its `createPlant`, `PlantStoreClient` and `validateNewPlant` are this
//! crate's exports, a thin layer over [`Client`].
//!
//! Only the call needs JavaScript, so the crate also builds for other targets (its types, the
//! contract's rules in [`plant_store_model`]); there, calling [`Client::new`] panics, as
//! wasm-bindgen's imports do.
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
mod js;
mod token;
// Native only: proptest does not build for wasm32 (see Cargo.toml).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod proptests;

pub use answer::{BODY_SLACK, ERROR_BODY_LIMIT};
pub use client::Client;
pub use config::{
    Attempt, AttemptOutcome, CallOptions, Config, IdempotencyKey, Retry, DEFAULT_TIMEOUT_MS,
    MAX_TIMEOUT_MS,
};
pub use error::{Error, Kind, PlantStoreError};
pub use js::{create_plant, validate_new_plant, PlantStoreClient};
pub use plant_store_model::{Issue, IssueCode, NewPlant, Plant};

/// The crate README's examples, compiled by `cargo test --doc`.
#[cfg(doctest)]
#[doc = include_str!("../README.crate.md")]
pub struct ReadmeDoctests;
