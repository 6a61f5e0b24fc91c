//! Keccak-256 (the Ethereum hash) and the EIP-712 signing hash.
//!
//! An order hash is four Keccak-f\[1600\] permutations (the 384-byte V2 struct encoding is three
//! 136-byte rate blocks, the EIP-712 digest one more). They run in
//! [`alloy_primitives::keccak256`], built with its `asm-keccak` feature (the `keccak-asm`
//! crate's assembly permutation). A hand-written AVX-512 permutation was used here until issue
//! 21 measured it against that library on `submit_limit_presigned`: about 10–12% faster (median
//! of eight alternating rounds), under the 15% that would have justified its `unsafe`
//! (BENCHMARKS.md, "Hand-written kernels against the libraries").

use alloy_primitives::B256;

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
    alloy_primitives::keccak256(data)
}

/// The EIP-712 signing hash of a struct encoding: `keccak256(0x19 0x01 ‖ domain ‖
/// keccak256(encoded))`, where `encoded` is `typeHash ‖ encodeData(struct)`.
///
/// Two [`keccak256`] calls, the second over a 66-byte stack buffer.
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
    let mut buf = [0u8; 66];
    buf[0] = 0x19;
    buf[1] = 0x01;
    buf[2..34].copy_from_slice(domain.as_slice());
    buf[34..66].copy_from_slice(keccak256(encoded).as_slice());
    keccak256(&buf)
}

/// Which Keccak implementation [`keccak256`] uses (for benchmark output).
///
/// ```
/// assert_eq!(polyclob::sign::keccak::backend(), "alloy asm-keccak");
/// ```
#[must_use]
pub fn backend() -> &'static str {
    "alloy asm-keccak"
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

    /// The EIP-712 hash against the `0x19 0x01 ‖ domain ‖ hash` buffer hashed by alloy, for struct encodings of every length
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
}
