//! What the simulator's tests share: the client helpers (`sim`: signed HTTP requests and
//! orders, a small WS client, funded traders), which polyclob's own integration suite
//! declares too, and polyclob's locator of the shared fixtures (one home for each file).

pub(crate) mod sim;

/// polyclob's `tests/support/fixtures.rs`: `../shared/fixtures` beside the checkout, or
/// `POLYCLOB_FIXTURES`.
#[path = "../../../../tests/support/fixtures.rs"]
pub(crate) mod fixtures;
