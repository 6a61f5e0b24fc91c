//! SHA-256 compression with the x86 SHA extensions (SHA-NI), for the L2 HMAC.
//!
//! `sha2::block_api::compress256` already uses SHA-NI; this kernel exists for what happens
//! around it. One HMAC is one call: the chaining value stays in registers from the first
//! block to the tag, whole blocks are read straight from the body, and the outer block (the
//! inner digest plus constant padding) is built from the digest in registers instead of
//! bytes in a stack buffer (a 16-byte load over freshly written 4-byte stores cannot be
//! store-forwarded and waits for the stores to reach the cache).
//!
//! Register layout (Intel SHA extensions): `abef` holds `[f, e, b, a]` (dword 0 first),
//! `cdgh` holds `[h, g, d, c]`; `sha256rnds2(cdgh, abef, wk)` runs two rounds with the two
//! low dwords of `wk` and returns the new `abef`, the old `abef` becoming the new `cdgh`.

use core::arch::x86_64::{
    __m128i, _mm_add_epi8, _mm_add_epi32, _mm_alignr_epi8, _mm_and_si128, _mm_andnot_si128,
    _mm_blend_epi16, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_loadu_si128, _mm_or_si128, _mm_set_epi32,
    _mm_set_epi64x, _mm_set1_epi8, _mm_setzero_si128, _mm_sha256msg1_epu32, _mm_sha256msg2_epu32,
    _mm_sha256rnds2_epu32, _mm_shuffle_epi8, _mm_shuffle_epi32, _mm_storeu_si128,
};

/// SHA-256 round constants (FIPS 180-4 §4.2.2; recomputed from the primes in the tests).
pub(super) const K: [u32; 64] = [
    0x428a_2f98,
    0x7137_4491,
    0xb5c0_fbcf,
    0xe9b5_dba5,
    0x3956_c25b,
    0x59f1_11f1,
    0x923f_82a4,
    0xab1c_5ed5,
    0xd807_aa98,
    0x1283_5b01,
    0x2431_85be,
    0x550c_7dc3,
    0x72be_5d74,
    0x80de_b1fe,
    0x9bdc_06a7,
    0xc19b_f174,
    0xe49b_69c1,
    0xefbe_4786,
    0x0fc1_9dc6,
    0x240c_a1cc,
    0x2de9_2c6f,
    0x4a74_84aa,
    0x5cb0_a9dc,
    0x76f9_88da,
    0x983e_5152,
    0xa831_c66d,
    0xb003_27c8,
    0xbf59_7fc7,
    0xc6e0_0bf3,
    0xd5a7_9147,
    0x06ca_6351,
    0x1429_2967,
    0x27b7_0a85,
    0x2e1b_2138,
    0x4d2c_6dfc,
    0x5338_0d13,
    0x650a_7354,
    0x766a_0abb,
    0x81c2_c92e,
    0x9272_2c85,
    0xa2bf_e8a1,
    0xa81a_664b,
    0xc24b_8b70,
    0xc76c_51a3,
    0xd192_e819,
    0xd699_0624,
    0xf40e_3585,
    0x106a_a070,
    0x19a4_c116,
    0x1e37_6c08,
    0x2748_774c,
    0x34b0_bcb5,
    0x391c_0cb3,
    0x4ed8_aa4a,
    0x5b9c_ca4f,
    0x682e_6ff3,
    0x748f_82ee,
    0x78a5_636f,
    0x84c8_7814,
    0x8cc7_0208,
    0x90be_fffa,
    0xa450_6ceb,
    0xbef9_a3f7,
    0xc671_78f2,
];

/// Proof that this CPU has SHA-NI (and the SSSE3/SSE4.1 shuffles used around it); only
/// [`Sha256Ni::detect`] makes one, so its methods are safe.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sha256Ni(());

impl Sha256Ni {
    /// `Some` when the CPU supports the instructions this module uses.
    pub(crate) fn detect() -> Option<Self> {
        let ok = std::is_x86_feature_detected!("sha")
            && std::is_x86_feature_detected!("sse4.1")
            && std::is_x86_feature_detected!("ssse3");
        ok.then_some(Self(()))
    }

    /// Compresses each whole 64-byte block of `blocks` into `state` (a shorter tail is
    /// ignored).
    #[cfg(test)]
    pub(crate) fn compress(self, state: &mut [u32; 8], blocks: &[u8]) {
        // SAFETY: `self` exists only if `detect` found SHA-NI, SSE4.1 and SSSE3.
        unsafe { compress_blocks(state, blocks) }
    }

    /// HMAC-SHA256 of `head[..head_len] ‖ parts…`, from the chaining values after the key
    /// blocks (`key ⊕ ipad`, `key ⊕ opad`): the tag as eight big-endian words. `head` is
    /// the block buffer itself (the caller writes the message's first bytes straight into
    /// it, saving a copy); its contents are overwritten.
    ///
    /// One call keeps the chaining value in registers from the first block to the tag; the
    /// outer block (inner digest + constant padding) never goes through memory.
    ///
    /// # Panics
    /// If `head_len > 63` (the caller's invariant).
    pub(crate) fn hmac(
        self,
        inner: &[u32; 8],
        outer: &[u32; 8],
        head: &mut [u8; 64],
        head_len: usize,
        parts: &[&[u8]],
    ) -> [u32; 8] {
        assert!(
            head_len < 64,
            "head_len {head_len} must leave room in the block"
        );
        // SAFETY: as in `compress`.
        unsafe { hmac_blocks(inner, outer, head, head_len, parts) }
    }
}

/// Byte shuffle turning big-endian message bytes into native dwords.
#[target_feature(enable = "sha,sse4.1,ssse3")]
#[inline]
fn bswap_mask() -> __m128i {
    _mm_set_epi64x(0x0c0d_0e0f_0809_0a0b, 0x0405_0607_0001_0203)
}

/// `[a..h]` → `(abef, cdgh)`.
#[target_feature(enable = "sha,sse4.1,ssse3")]
#[inline]
fn load_state(state: &[u32; 8]) -> (__m128i, __m128i) {
    let p = state.as_ptr().cast::<__m128i>();
    // SAFETY: `state` is 32 readable bytes; `loadu` has no alignment requirement.
    let (abcd, efgh) = unsafe { (_mm_loadu_si128(p), _mm_loadu_si128(p.add(1))) };
    let badc = _mm_shuffle_epi32::<0xb1>(abcd);
    let hgfe = _mm_shuffle_epi32::<0x1b>(efgh);
    (
        _mm_alignr_epi8::<8>(badc, hgfe),
        _mm_blend_epi16::<0xf0>(hgfe, badc),
    )
}

/// `(abef, cdgh)` → `[a..h]`.
#[target_feature(enable = "sha,sse4.1,ssse3")]
#[inline]
fn store_state(state: &mut [u32; 8], abef: __m128i, cdgh: __m128i) {
    let abef_ = _mm_shuffle_epi32::<0x1b>(abef);
    let ghcd = _mm_shuffle_epi32::<0xb1>(cdgh);
    let abcd = _mm_blend_epi16::<0xf0>(abef_, ghcd);
    let efgh = _mm_alignr_epi8::<8>(ghcd, abef_);
    let p = state.as_mut_ptr().cast::<__m128i>();
    // SAFETY: `state` is 32 writable bytes; `storeu` has no alignment requirement.
    unsafe {
        _mm_storeu_si128(p, abcd);
        _mm_storeu_si128(p.add(1), efgh);
    }
}

/// Four rounds with message words `w` (`w[0]` first) starting at round `4 * group`.
#[target_feature(enable = "sha,sse4.1,ssse3")]
#[inline]
fn rounds4(abef: &mut __m128i, cdgh: &mut __m128i, w: __m128i, group: usize) {
    let k = &K[4 * group..4 * group + 4];
    let k = _mm_set_epi32(k[3] as i32, k[2] as i32, k[1] as i32, k[0] as i32);
    let wk = _mm_add_epi32(w, k);
    *cdgh = _mm_sha256rnds2_epu32(*cdgh, *abef, wk);
    *abef = _mm_sha256rnds2_epu32(*abef, *cdgh, _mm_shuffle_epi32::<0x0e>(wk));
}

/// One block, given as four vectors of message words `W[0..4]`, …, `W[12..16]`.
#[target_feature(enable = "sha,sse4.1,ssse3")]
#[inline]
fn block(abef: &mut __m128i, cdgh: &mut __m128i, mut w: [__m128i; 4]) {
    let (abef0, cdgh0) = (*abef, *cdgh);
    for group in 0..16 {
        if group >= 4 {
            // W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16] for the next four t.
            let [w0, w1, w2, w3] = w;
            let x = _mm_add_epi32(_mm_sha256msg1_epu32(w0, w1), _mm_alignr_epi8::<4>(w3, w2));
            w = [w1, w2, w3, _mm_sha256msg2_epu32(x, w3)];
            rounds4(abef, cdgh, w[3], group);
        } else {
            rounds4(abef, cdgh, w[group], group);
        }
    }
    *abef = _mm_add_epi32(*abef, abef0);
    *cdgh = _mm_add_epi32(*cdgh, cdgh0);
}

#[cfg(test)]
#[target_feature(enable = "sha,sse4.1,ssse3")]
fn compress_blocks(state: &mut [u32; 8], blocks: &[u8]) {
    let (mut abef, mut cdgh) = load_state(state);
    let mut data = blocks;
    while let Some((chunk, rest)) = data.split_first_chunk::<64>() {
        block(&mut abef, &mut cdgh, load_block(chunk));
        data = rest;
    }
    store_state(state, abef, cdgh);
}

/// `(abef, cdgh)` → the digest words `[a, b, c, d]`, `[e, f, g, h]` as vectors.
#[target_feature(enable = "sha,sse4.1,ssse3")]
#[inline]
fn digest_words(abef: __m128i, cdgh: __m128i) -> (__m128i, __m128i) {
    let feba = _mm_shuffle_epi32::<0x1b>(abef);
    let ghcd = _mm_shuffle_epi32::<0xb1>(cdgh);
    (
        _mm_blend_epi16::<0xf0>(feba, ghcd),
        _mm_alignr_epi8::<8>(ghcd, feba),
    )
}

/// Big-endian message words of one 64-byte block.
#[target_feature(enable = "sha,sse4.1,ssse3")]
#[inline]
fn load_block(bytes: &[u8; 64]) -> [__m128i; 4] {
    let mask = bswap_mask();
    let p = bytes.as_ptr().cast::<__m128i>();
    // SAFETY: `bytes` is 64 readable bytes, read as four unaligned 16-byte loads.
    let raw = unsafe {
        [
            _mm_loadu_si128(p),
            _mm_loadu_si128(p.add(1)),
            _mm_loadu_si128(p.add(2)),
            _mm_loadu_si128(p.add(3)),
        ]
    };
    raw.map(|r| _mm_shuffle_epi8(r, mask))
}

/// The last one or two padded blocks (as message words) of a message whose final `tail.len()`
/// (< 64) bytes are `tail`, followed by `0x80`, zeros and the bit length `bits`. `last16`
/// is the message's last 16 bytes (in memory before `tail` ends), from which the segment
/// holding the end of `tail` is shifted into place, so no byte is read outside the input.
#[target_feature(enable = "sha,sse4.1,ssse3")]
#[inline]
fn padded_tail(tail: &[u8], last16: &[u8; 16], bits: u64) -> ([[__m128i; 4]; 2], usize) {
    let r = tail.len();
    let mask = bswap_mask();
    let iota = _mm_set_epi64x(0x0f0e_0d0c_0b0a_0908, 0x0706_0504_0302_0100);
    let high = _mm_set1_epi8(i8::MIN);
    let load = |bytes: &[u8; 16]| {
        // SAFETY: `bytes` is 16 readable bytes; `loadu` has no alignment requirement.
        unsafe { _mm_loadu_si128(bytes.as_ptr().cast::<__m128i>()) }
    };
    let segment = |k: usize| {
        let lo = 16 * k;
        if let Some(full) = tail.get(lo..lo + 16) {
            // `get` of a 16-byte range: the conversion cannot fail.
            let full: &[u8; 16] = full.try_into().unwrap_or(last16);
            return load(full);
        }
        if lo > r {
            return _mm_setzero_si128();
        }
        // 0 ≤ n < 16 bytes of `tail` remain: they are the last n bytes of `last16`.
        let n = (r - lo) as i8;
        let at_n = _mm_cmpeq_epi8(iota, _mm_set1_epi8(n));
        let keep = _mm_cmpgt_epi8(_mm_set1_epi8(n), iota);
        let index = _mm_or_si128(
            _mm_add_epi8(iota, _mm_set1_epi8(16 - n)),
            _mm_andnot_si128(keep, high),
        );
        let bytes = _mm_shuffle_epi8(load(last16), index);
        _mm_or_si128(bytes, _mm_and_si128(at_n, high))
    };
    let words = [segment(0), segment(1), segment(2), segment(3)].map(|v| _mm_shuffle_epi8(v, mask));
    // W[14], W[15] = the bit length, big-endian.
    let length = _mm_set_epi32(bits as u32 as i32, (bits >> 32) as u32 as i32, 0, 0);
    let zero = _mm_setzero_si128();
    if r < 56 {
        let [w0, w1, w2, w3] = words;
        ([[w0, w1, w2, _mm_or_si128(w3, length)], [zero; 4]], 1)
    } else {
        ([words, [zero, zero, zero, length]], 2)
    }
}

#[target_feature(enable = "sha,sse4.1,ssse3")]
fn hmac_blocks(
    inner: &[u32; 8],
    outer: &[u32; 8],
    buf: &mut [u8; 64],
    mut pos: usize,
    parts: &[&[u8]],
) -> [u32; 8] {
    let (mut abef, mut cdgh) = load_state(inner);
    // Bytes hashed, including the 64-byte key block.
    let total = 64 + pos as u64 + parts.iter().map(|p| p.len() as u64).sum::<u64>();
    let mut tail_done = false;
    for (i, part) in parts.iter().enumerate() {
        let mut data = *part;
        if pos > 0 {
            let n = (64 - pos).min(data.len());
            buf[pos..pos + n].copy_from_slice(&data[..n]);
            pos += n;
            data = &data[n..];
            if pos < 64 {
                continue;
            }
            block(&mut abef, &mut cdgh, load_block(buf));
        }
        while let Some((chunk, rest)) = data.split_first_chunk::<64>() {
            block(&mut abef, &mut cdgh, load_block(chunk));
            data = rest;
        }
        if i + 1 == parts.len()
            && let Some(last16) = part.last_chunk::<16>()
        {
            // The message ends inside this part, at a block boundary plus `data.len()` bytes:
            // pad from registers (no buffer to write and read back).
            let (blocks, count) = padded_tail(data, last16, total * 8);
            for words in &blocks[..count] {
                block(&mut abef, &mut cdgh, *words);
            }
            tail_done = true;
            break;
        }
        buf[..data.len()].copy_from_slice(data);
        pos = data.len();
    }
    if !tail_done {
        // Padding: 0x80, zeros, the 64-bit big-endian bit length.
        buf[pos] = 0x80;
        buf[pos + 1..].fill(0);
        if pos >= 56 {
            block(&mut abef, &mut cdgh, load_block(buf));
            *buf = [0; 64];
        }
        buf[56..].copy_from_slice(&(total * 8).to_be_bytes());
        block(&mut abef, &mut cdgh, load_block(buf));
    }
    // Outer: the digest words, then W[8] = 0x80000000 (the 0x80 byte) and W[15] = 768
    // (64 + 32 bytes, in bits).
    let (w0, w1) = digest_words(abef, cdgh);
    let w2 = _mm_set_epi32(0, 0, 0, 0x8000_0000_u32 as i32);
    let w3 = _mm_set_epi32(768, 0, 0, 0);
    let (mut abef, mut cdgh) = load_state(outer);
    block(&mut abef, &mut cdgh, [w0, w1, w2, w3]);
    let mut tag = [0u32; 8];
    store_state(&mut tag, abef, cdgh);
    tag
}

#[cfg(test)]
mod tests {
    use super::*;

    /// K[i] = the first 32 fractional bits of the cube root of the i-th prime (FIPS 180-4
    /// §4.2.2), by an integer cube root of `p · 2^96`.
    #[test]
    fn round_constants_are_cube_roots_of_primes() {
        let primes: Vec<u128> = (2u128..)
            .filter(|n| (2..*n).take_while(|d| d * d <= *n).all(|d| n % d != 0))
            .take(64)
            .collect();
        for (i, p) in primes.iter().enumerate() {
            let target = p << 96;
            let (mut lo, mut hi) = (0u128, 1u128 << 36);
            while hi - lo > 1 {
                let mid = (lo + hi) / 2;
                if mid * mid * mid <= target {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            assert_eq!(lo as u32, K[i], "K[{i}] (prime {p})");
        }
    }

    /// Whole blocks against `sha2`'s compression function, from assorted chaining values.
    #[test]
    fn compress_matches_sha2() {
        // Without SHA-NI there is nothing to compare (`HmacKey` then uses `sha2`).
        let Some(ni) = Sha256Ni::detect() else {
            return;
        };
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for n in 0..8 {
            let data: Vec<u8> = (0..64 * n + 17).map(|_| next() as u8).collect();
            let start: [u32; 8] = core::array::from_fn(|_| next() as u32);
            let mut ours = start;
            ni.compress(&mut ours, &data);
            let mut theirs = start;
            for chunk in data.chunks_exact(64) {
                let block: &[u8; 64] = chunk.try_into().unwrap();
                sha2::block_api::compress256(&mut theirs, core::slice::from_ref(block));
            }
            assert_eq!(ours, theirs, "{n} blocks");
        }
    }
}
