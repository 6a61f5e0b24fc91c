//! The simulator's behaviour suite as one test binary (one link of the crate instead of one per
//! file): each module is a subject, driven through the public API over loopback with the
//! client helpers in `tests/support/`, as a bot would (and, in `binary`, the standalone
//! `polyclob-sim` server). `layers` checks the crate's folder layering.

#[path = "../support/mod.rs"]
mod support;

mod auth;
mod balances;
mod binary;
mod crowd;
mod faults;
mod fees;
mod gamma_data;
mod layers;
mod matching;
mod mixed_feed;
mod order_builder;
mod polybolt;
mod replay;
mod rest;
mod robustness;
mod rtds;
mod scale;
mod sports;
mod trading;
mod user_faults;
mod user_reconcile;
mod vectors;
mod ws;
