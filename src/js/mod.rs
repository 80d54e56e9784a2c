//! The JavaScript API (the `js` feature): the exports and JS values in and out (`api.rs`), a
//! caller's JS functions as closures (`callbacks.rs`), the error as a `PlantStoreError`
//! (`error.rs`). The outbox's (the `outbox` feature) are `outbox/seam.rs`.

pub(crate) mod api;
mod callbacks;
mod error;

pub use api::{create_plant, validate_new_plant, PlantStoreClient};
pub use error::PlantStoreError;
