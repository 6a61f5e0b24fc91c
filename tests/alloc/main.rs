//! The allocation checks as one test binary with one counting allocator
//! (`tests/support/counting_alloc.rs`). Its counts are per thread and each check measures the
//! thread it runs on, so the checks hold exactly as strongly when the harness runs them in
//! parallel: another test's allocations land on another thread's counters.

#[path = "../support/mod.rs"]
mod support;

#[global_allocator]
static ALLOC: support::counting_alloc::Counting = support::counting_alloc::Counting;

mod book_hash;
mod clob_lane;
mod fixed;
mod market_data;
mod memory_at_scale;
mod order;
mod polybolt;
mod presign;
mod rtds;
mod sports;
mod stream_replay;
mod ws_stream;
