//! What the test binaries share: loopback servers (a mock CLOB, a WebSocket server, proxies),
//! the simulator's client helpers, generated frames, the shared-fixtures locator and the
//! counting allocator (installed only by `tests/alloc`). Declared once in each binary's
//! `main.rs`.

pub(crate) mod counting_alloc;
pub(crate) mod fixtures;
pub(crate) mod mock_clob;
pub(crate) mod proxy;
pub(crate) mod rails;
/// The simulator's client helpers: they live with the simulator's own tests, which use them
/// most (one home for the file).
#[path = "../../crates/polyclob-sim/tests/support/sim.rs"]
pub(crate) mod sim;
pub(crate) mod trust_oracle;
pub(crate) mod ws_frames;
pub(crate) mod ws_server;
