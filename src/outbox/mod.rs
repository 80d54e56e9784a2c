//! A durable outbox (the `outbox` feature, for JavaScript: `plant-store-client/outbox`): plants
//! added while offline, across reloads and tabs, each sent until the store answers with one
//! `Idempotency-Key`, so that a server that honours it creates each plant once. Rust decides, the
//! JS shell (`js/outbox/outbox.js`) does. Read in this order:
//! - `entry.rs`: an entry and its state; `table.rs`: the one table of rules that changes a record;
//! - `tab.rs`: one tab as a machine, what goes in and what comes out; `round.rs`: a round and its
//!   senders; `held.rs`: what a tab holds of the store, and the store's answers;
//! - `record.rs`: a record and a view, plain objects; `config.rs`: the options;
//! - `driver.rs`: the machine driven, what Rust does; `seam.rs`: the seam to the shell, one input
//!   and one action each way.
//!
//! `sim.rs` (tests only) runs several tabs over a simulated store, locks, network and clock.

mod config;
mod driver;
mod entry;
mod held;
mod page;
mod record;
mod round;
mod seam;
mod sim;
mod store;
mod tab;
mod table;
