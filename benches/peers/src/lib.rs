//! Shared pieces of the peer benchmarks (loopback servers, production-shaped inputs, timing).
