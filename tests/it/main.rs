//! The integration suite as one test binary (one link of the crate instead of one per file):
//! each module is a subject, tested through the public API against the loopback servers and
//! the simulator in `tests/support/`. The allocation checks live in `tests/alloc` (they install
//! a counting allocator) and the fork test in `tests/presign_fork.rs` (no harness threads).

#[path = "../support/mod.rs"]
mod support;

mod account;
mod book;
mod clob;
mod compat;
mod data_reads;
mod fees;
mod fixed;
mod gamma_data;
mod gamma_reads;
mod module_graph;
mod onchain;
mod polybolt;
mod presign;
mod proxy;
mod rails;
mod relayer;
mod rows;
mod rtds;
mod session_orders;
mod sports;
mod tracing_events;
mod vectors;
mod ws;
