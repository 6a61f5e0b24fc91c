//! Helpers shared by the unit tests of several modules. A leaf: it imports nothing from the
//! crate, so any module's tests can use it without adding an edge to the module graph.

/// A 64-bit linear congruential generator for the unit tests' random inputs (book sides,
/// snapshot checks, the decoder's generated messages): `next(n)` is below `n`.
pub(crate) fn lcg(mut seed: u64) -> impl FnMut(u64) -> u64 {
    move |n| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) % n
    }
}
