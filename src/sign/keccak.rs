//! Keccak-256 (the Ethereum hash), with an AVX-512 permutation where the CPU has one.
//!
//! An order hash is four Keccak-f\[1600\] permutations (the 384-byte V2 struct encoding is three
//! 136-byte rate blocks, the EIP-712 digest one more), so the permutation is most of
//! `order_hash`'s cost. On x86_64 CPUs with AVX-512F and AVX-512VL (checked at run time) each
//! of the 25 lanes of the state is held in its own `xmm` register, so π costs nothing and a
//! round is ternary-logic, XOR and rotate instructions only (see `src/sign/x86/keccak.rs`);
//! elsewhere, and when built with a compiler older than Rust 1.89 (no stable AVX-512
//! intrinsics), [`alloy_primitives::keccak256`] does the work. Both give identical digests; the
//! tests compare them on thousands of inputs.

use alloy_primitives::B256;

#[cfg(polyclob_simd)]
use super::x86::keccak as avx512;

/// Bytes absorbed per permutation for a 256-bit capacity: (1600 − 2·256) / 8.
#[cfg_attr(not(polyclob_simd), allow(dead_code))]
pub(crate) const RATE: usize = 136;

/// Keccak-256 of `data` (original Keccak padding, as Ethereum uses; not SHA3-256).
///
/// ```
/// use polyclob::sign::keccak::keccak256;
///
/// assert_eq!(
///     keccak256(b"").to_string(),
///     "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470",
/// );
/// assert_eq!(keccak256(b"hello"), alloy_primitives::keccak256(b"hello"));
/// ```
#[must_use]
#[inline]
pub fn keccak256(data: &[u8]) -> B256 {
    #[cfg(polyclob_simd)]
    if let Some(digest) = avx512::keccak256(data) {
        return B256::new(digest);
    }
    alloy_primitives::keccak256(data)
}

/// The EIP-712 signing hash of a struct encoding: `keccak256(0x19 0x01 ‖ domain ‖
/// keccak256(encoded))`, where `encoded` is `typeHash ‖ encodeData(struct)`.
///
/// With AVX-512 the second hash's block is assembled in registers from the first hash (no
/// round trip through memory); otherwise it is two [`keccak256`] calls.
///
/// ```
/// use polyclob::sign::keccak::{eip712_hash, keccak256};
///
/// let domain = keccak256(b"a domain separator");
/// let encoded = [7u8; 384];
/// let mut outer = vec![0x19, 0x01];
/// outer.extend_from_slice(domain.as_slice());
/// outer.extend_from_slice(keccak256(&encoded).as_slice());
/// assert_eq!(eip712_hash(&domain, &encoded), keccak256(&outer));
/// ```
#[must_use]
#[inline]
pub fn eip712_hash(domain: &B256, encoded: &[u8]) -> B256 {
    #[cfg(polyclob_simd)]
    if let Some(digest) = avx512::eip712_hash(&domain.0, encoded) {
        return B256::new(digest);
    }
    let mut buf = [0u8; 66];
    buf[0] = 0x19;
    buf[1] = 0x01;
    buf[2..34].copy_from_slice(domain.as_slice());
    buf[34..66].copy_from_slice(keccak256(encoded).as_slice());
    keccak256(&buf)
}

/// Which permutation [`keccak256`] runs on this machine: `"avx512"` or `"portable"`.
///
/// ```
/// let backend = polyclob::sign::keccak::backend();
/// assert!(backend == "avx512" || backend == "portable");
/// ```
#[must_use]
pub fn backend() -> &'static str {
    #[cfg(polyclob_simd)]
    if avx512::available() {
        return "avx512";
    }
    "portable"
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Known answers (Keccak-256 with the original padding).
    #[test]
    fn known_vectors() {
        let cases: &[(&[u8], &str)] = &[
            (
                b"",
                "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470",
            ),
            (
                b"abc",
                "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45",
            ),
            (
                b"The quick brown fox jumps over the lazy dog",
                "4d741b6f1eb29cb2a9b9911c82f56fa8d73b04959d3d9d222895df6c0b28aa15",
            ),
            (
                b"The quick brown fox jumps over the lazy dog.",
                "578951e24efd62a3d63a86f7cd19aaa53c898fe287d2552133220370240b572d",
            ),
        ];
        for (input, want) in cases {
            let got = keccak256(input);
            assert_eq!(hex(&got.0), *want, "{}", String::from_utf8_lossy(input));
        }
    }

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Against alloy's `keccak256` (sha3 crate) for every length 0..=1000 — all tail sizes
    /// around the 136-byte block boundaries (135/136/137, 271/272/273, …) — with varied bytes.
    #[test]
    fn matches_alloy_for_every_length_up_to_1000() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let data: Vec<u8> = (0..1000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        for len in 0..=data.len() {
            let msg = &data[..len];
            assert_eq!(
                keccak256(msg),
                alloy_primitives::keccak256(msg),
                "len {len}"
            );
        }
        // All-ones bytes exercise the padding XOR (0x01/0x80 into non-zero tails).
        for len in [0, 1, 134, 135, 136, 137, 271, 272, 273] {
            let msg = vec![0xffu8; len];
            assert_eq!(
                keccak256(&msg),
                alloy_primitives::keccak256(&msg),
                "ones {len}"
            );
        }
    }

    /// Many random messages: a wrong lane, rotation or constant would show on the first few.
    #[test]
    fn matches_alloy_on_random_messages() {
        let mut seed = 0x0123_4567_89ab_cdefu64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            seed
        };
        for _ in 0..2000 {
            let len = (next() >> 33) as usize % 1200;
            let msg: Vec<u8> = (0..len).map(|_| (next() >> 56) as u8).collect();
            assert_eq!(
                keccak256(&msg),
                alloy_primitives::keccak256(&msg),
                "len {len}"
            );
        }
    }

    /// The fused EIP-712 hash against two alloy hashes, for struct encodings of every length
    /// 0..=600 and assorted domains (all 256 values of the two bytes that straddle the
    /// shifted qword).
    #[test]
    fn eip712_hash_matches_two_alloy_hashes() {
        let naive = |domain: &B256, encoded: &[u8]| {
            let mut buf = vec![0x19, 0x01];
            buf.extend_from_slice(domain.as_slice());
            buf.extend_from_slice(alloy_primitives::keccak256(encoded).as_slice());
            alloy_primitives::keccak256(&buf)
        };
        let data: Vec<u8> = (0..600u32).map(|i| (i * 131 + 17) as u8).collect();
        for len in 0..=data.len() {
            let domain = alloy_primitives::keccak256((len as u64).to_le_bytes());
            assert_eq!(
                eip712_hash(&domain, &data[..len]),
                naive(&domain, &data[..len]),
                "len {len}"
            );
        }
        for b in 0..=255u8 {
            let mut domain = B256::repeat_byte(b);
            domain.0[31] = b.wrapping_mul(7);
            assert_eq!(
                eip712_hash(&domain, &[b; 384]),
                naive(&domain, &[b; 384]),
                "byte {b}"
            );
        }
    }

    #[test]
    fn reports_a_backend() {
        let b = backend();
        assert!(b == "avx512" || b == "portable", "{b}");
        // The development machine (BENCHMARKS.md) has AVX-512F; a build there that silently
        // fell back to the portable path would invalidate the benchmark rows.
        if std::env::var_os("POLYCLOB_EXPECT_AVX512").is_some() {
            assert_eq!(b, "avx512");
        }
    }
}
