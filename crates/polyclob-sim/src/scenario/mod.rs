//! The scenario tools: what a test sets up around the exchange to make a bot fail for the
//! reasons it would fail live. Fault injection on HTTP and sockets (`faults`), departures from
//! the exchange's documented behaviour (`drift`), and the simulated market: the crowd of
//! traders, price paths, a replayed feed and the seed liquidity's random activity
//! (`activity`, which steps the others); and the data the exchange does not produce, seeded
//! for the read routes (`seeded`: combos, comments, resolution times). They use the exchange core, never the wire
//! front-ends; the front-ends consult the faults and drifts they serve under.

pub(crate) mod activity;
pub(crate) mod crowd;
pub(crate) mod drift;
pub(crate) mod faults;
pub(crate) mod paths;
pub(crate) mod replay;
pub(crate) mod seeded;
