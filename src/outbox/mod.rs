//! A durable outbox (the `outbox` feature, for JavaScript: `plant-store-client/outbox`): plants
//! added while offline, across reloads and tabs, each sent until the store answers with one
//! `Idempotency-Key`, so that a server that honours it creates each plant once. Rust decides, the
//! JS shell (`js/outbox/shell.js`) does. Read in this order:
//! - `entry.rs`: an entry and its state, and what a tab holds of them; `table.rs`: the one table of
//!   rules that changes a record;
//! - `tab.rs`: one tab as a machine, its state, what goes in and what comes out; then its parts:
//!   `page.rs` the page's life, `round.rs` a round and its senders, `store.rs` what it asks of the
//!   store and what comes of it;
//! - `record.rs`: a record and a view, plain objects; `config.rs`: the options;
//! - `driver.rs`: the machine driven, what Rust does; `seam.rs`: the seam to the shell, one input
//!   and one action each way.
//!
//! `sim.rs` (tests only) runs several tabs over a simulated store, locks, network and clock.

mod config;
mod driver;
mod entry;
mod page;
mod record;
mod round;
mod seam;
mod sim;
mod store;
mod tab;
mod table;
