//! The Plant Store contract (`spec/plant-store-interface.md`, a copy of `shared/spec/`) as Rust: its data shapes and the
//! rules a client checks before sending and a server checks on arrival.
//!
//! Nothing here touches JavaScript or the network, so every rule is tested natively with `cargo test`
//! and the same code runs inside the wasm client and the reference server.
//!
//! It is `no_std` (it needs only `alloc`) and builds its messages without `core::fmt`, to keep the
//! wasm client small.
#![no_std]
#![deny(missing_docs, missing_debug_implementations)]
#![forbid(unsafe_code)]

extern crate alloc;

pub mod endpoint;
pub mod json;
pub mod shapes;
pub mod token;
pub mod validate;

pub use endpoint::{plants_url, BaseUrlError};
pub use json::{BodyError, Member};
pub use shapes::{ApiError, NewPlant, Plant};
pub use token::{check_bearer_token, Token, TokenError};
pub use validate::{suggest, unknown_field_message, validate_new_plant};
pub use validate::{Field, Issue, IssueCode, RawNewPlant};

/// The README's examples, compiled and run by `cargo test --doc`.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
