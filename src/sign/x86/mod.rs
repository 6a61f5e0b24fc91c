//! x86_64 kernels for the signing hot path, the only `unsafe` code of the crate.
//!
//! Compiled with rustc ≥ 1.89 on x86_64 (`polyclob_simd`, set by `build.rs`: safe intrinsic
//! calls inside `#[target_feature]` functions), used only after run-time CPU detection, and
//! tested against the `sha2` crate. (The AVX-512 Keccak that was here gave way to alloy's
//! `asm-keccak`: issue 21 item 6.) The `unsafe` blocks are the loads/stores between slices and vector
//! registers and the calls into `#[target_feature]` functions after detection; each has a
//! `// SAFETY:` comment. Callers get safe functions.

pub(crate) mod sha256;
