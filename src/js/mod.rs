//! The JavaScript API (the `js` feature): the exports and JS values in and out (`api.rs`), a
//! caller's JS functions as closures (`callbacks.rs`), the error as a `PlantStoreError`
//! (`error.rs`), and the outbox's exports (`outbox.rs`, with the `outbox` feature).

pub(crate) mod api;
mod callbacks;
mod error;
#[cfg(feature = "outbox")]
mod outbox;

pub use api::{create_plant, validate_new_plant, PlantStoreClient};
pub use error::PlantStoreError;
