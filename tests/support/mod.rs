//! What the test binaries share: loopback servers (a mock CLOB, a WebSocket server, proxies),
//! the simulator helpers, generated frames, the shared-fixtures locator and the counting
//! allocator (installed only by `tests/alloc`). Declared once in each binary's `main.rs`.

pub(crate) mod counting_alloc;
pub(crate) mod fixtures;
pub(crate) mod mock_clob;
pub(crate) mod proxy;
pub(crate) mod rails;
pub(crate) mod sim;
pub(crate) mod ws_frames;
pub(crate) mod ws_server;
