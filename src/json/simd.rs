//! The one `unsafe` scan of the JSON scanner and its portable twin: where a run of plain
//! string content ends (the first `"`, `\\` or control byte). Every string read, skipped or
//! written goes through [`find_special`]; [`chunk`] is the bounds-checked fixed-size read the
//! word-at-a-time readers share.
//!
//! On x86_64 with rustc ≥ 1.89 (`polyclob_simd`, set by `build.rs`; `POLYCLOB_NO_SIMD=1` turns
//! it off) the scan takes 16 bytes per SSE2 step ([`sse2`]); everywhere else, and for the last
//! bytes, eight per step (SWAR: the lowest flagged byte of the "has zero / has less than"
//! tests is exact), then one at a time. SSE2 is in the x86_64 baseline, so there is no
//! run-time detection. The `unsafe` here: the SSE2 loads and intrinsic calls, and [`chunk`]'s
//! read after its bounds check, each with a `// SAFETY:` comment. The tests check both
//! scans against a byte loop.

/// One in every byte.
pub(crate) const LO: u64 = 0x0101_0101_0101_0101;
/// Bit 7 of every byte.
pub(crate) const HI: u64 = 0x8080_8080_8080_8080;

/// Eight bytes at `i` as a little-endian word, when that many remain.
#[inline(always)]
pub(crate) fn word8(b: &[u8], i: usize) -> Option<u64> {
    chunk::<8>(b, i).map(|c| u64::from_le_bytes(*c))
}

/// The `N` bytes at `i`, when that many remain, behind one compare of `i` with `len - N` (the
/// `len ≥ N` half is the same for the whole frame, and the compiler can hoist it out of loops).
/// The safe spellings (`get(i..)?.first_chunk()`, `get(i..i + N)`) each compile to two range
/// checks merged through flag registers on every read.
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) fn chunk<const N: usize>(b: &[u8], i: usize) -> Option<&[u8; N]> {
    if b.len() < N || i > b.len() - N {
        return None;
    }
    // SAFETY: `i + N <= b.len()` (checked just above, without overflow: `b.len() >= N`), so
    // the `N` bytes from `i` are in bounds and initialised; `[u8; N]` has alignment 1.
    Some(unsafe { &*b.as_ptr().add(i).cast::<[u8; N]>() })
}

/// Index of the first byte at or after `i` that ends a run of plain string content: `"`, `\\`
/// or a control byte (< 0x20), or `b.len()`. Ids, hashes and market ids are 40–77 bytes long:
/// on x86_64 (`polyclob_simd`) 16 bytes per SSE2 step while 16 remain, then (and elsewhere)
/// eight bytes per step (SWAR: the lowest flagged byte of the classic "has zero / has less
/// than" tests is always exact), then the last bytes one at a time.
#[inline]
pub(crate) fn find_special(b: &[u8], mut i: usize) -> usize {
    #[cfg(polyclob_simd)]
    match sse2::special16(b, i) {
        Ok(j) => return j,
        Err(j) => i = j,
    }
    while let Some(chunk) = b.get(i..i + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        let q = w ^ (LO * u64::from(b'"'));
        let s = w ^ (LO * u64::from(b'\\'));
        let hit = ((q.wrapping_sub(LO) & !q)
            | (s.wrapping_sub(LO) & !s)
            | (w.wrapping_sub(LO * 0x20) & !w))
            & HI;
        if hit != 0 {
            return i + (hit.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&c) = b.get(i) {
        if c == b'"' || c == b'\\' || c < 0x20 {
            return i;
        }
        i += 1;
    }
    i
}

/// The first index at or after `i` holding `"`, `\\` or a control byte, as
/// [`find_special`], when the caller can predict it: `N` bytes on (`super::scanner::ID_LEN` …). A scan
/// must find where each 16 bytes end before it reads the next, while checking a prediction
/// reads them all at once (`sse2::special_at`). A wrong guess costs that check and
/// then the scan, with the same result.
#[inline(always)]
pub(crate) fn find_special_guess<const N: usize>(b: &[u8], i: usize) -> usize {
    #[cfg(polyclob_simd)]
    if N > 0 && sse2::special_at::<N>(b, i) == Some(true) {
        return i + N;
    }
    find_special(b, i)
}

/// The SSE2 half of the scan (x86_64 baseline; see the module docs).
#[cfg(polyclob_simd)]
#[allow(unsafe_code)]
#[clippy::msrv = "1.89"]
mod sse2 {
    use core::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };

    /// Sixteen bytes of `chunk` (which has exactly 16).
    #[inline(always)]
    fn load(chunk: &[u8]) -> __m128i {
        debug_assert_eq!(chunk.len(), 16);
        // SAFETY: callers pass a slice of exactly 16 bytes, all readable; the load is unaligned;
        // SSE2 is in the x86_64 baseline.
        unsafe { _mm_loadu_si128(chunk.as_ptr().cast()) }
    }

    /// Bit `k` set when byte `k` of `v` is `"`, `\\` or below 0x20.
    #[inline(always)]
    fn special_mask(v: __m128i) -> u32 {
        // SAFETY: SSE2 is in the x86_64 baseline (the build enables it for every function).
        unsafe {
            let below = _mm_set1_epi8(0x1f);
            // `max(v, 0x1f) == 0x1f` ⇔ v ≤ 0x1f.
            let control = _mm_cmpeq_epi8(_mm_max_epu8(v, below), below);
            bits(_mm_or_si128(
                _mm_or_si128(
                    _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8)),
                    _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8)),
                ),
                control,
            ))
        }
    }

    /// A mask that flags every byte [`special_mask`] flags, and also the space and `!` (every byte
    /// up to `"`): two compares instead of three. Enough to check that a predicted string's
    /// content is plain, since ids, hashes and timestamps hold neither; a string that does makes
    /// the check fail, and the caller then scans with the exact mask.
    #[inline(always)]
    fn loose_hits(v: __m128i) -> __m128i {
        // SAFETY: SSE2 is in the x86_64 baseline (the build enables it for every function).
        unsafe {
            let quote = _mm_set1_epi8(b'"' as i8);
            // `max(v, '"') == '"'` ⇔ v ≤ '"'.
            let low = _mm_cmpeq_epi8(_mm_max_epu8(v, quote), quote);
            _mm_or_si128(low, _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8)))
        }
    }

    /// Bit `k` set when byte `k` of `v` is flagged.
    #[inline(always)]
    fn bits(v: __m128i) -> u32 {
        // SAFETY: SSE2 is in the x86_64 baseline.
        unsafe { _mm_movemask_epi8(v) as u32 }
    }

    /// Whether the first special byte (see [`special16`]) at or after `start` is at `start + N`:
    /// the check behind a predicted string length. Every load's address is known from `start`
    /// alone, so the loads run in parallel, where a scan must find one chunk's end before it
    /// can look at the next. `None` when fewer than `max(N + 1, 16)` bytes remain from `start`.
    #[inline(always)]
    pub(crate) fn special_at<const N: usize>(b: &[u8], start: usize) -> Option<bool> {
        // One bounds check for the whole span; the chunk offsets below are constants, so the
        // compiler drops the per-chunk checks.
        let span = if N + 1 > 16 { N + 1 } else { 16 };
        let s = b.get(start..start.checked_add(span)?)?;
        let chunk = |at: usize| s.get(at..at + 16).map(load);
        // The flags of the whole chunks are gathered before they become bits.
        // SAFETY: SSE2 is in the x86_64 baseline.
        let mut flags = unsafe { _mm_set1_epi8(0) };
        let mut off = 0;
        while off + 16 <= N {
            // SAFETY: as above.
            flags = unsafe { _mm_or_si128(flags, loose_hits(chunk(off)?)) };
            off += 16;
        }
        // The last chunk holds the bytes left and, as its bit `at`, the special byte.
        let (first, at) = if N >= 15 { (N - 15, 15) } else { (0, N) };
        // Exact here: the byte at `at` must be a special byte, not a space.
        let last = special_mask(chunk(first)?);
        let stray = bits(flags) | ((last & ((2u32 << at) - 1)) ^ (1 << at));
        Some(stray == 0)
    }

    /// The first index at or after `i` holding `"`, `\` or a byte below 0x20, scanning while 16
    /// bytes remain: `Ok(index)` on a hit, `Err(index)` where fewer than 16 bytes are left.
    #[inline(always)]
    pub(crate) fn special16(b: &[u8], mut i: usize) -> Result<usize, usize> {
        while let Some(chunk) = b.get(i..i.wrapping_add(16)) {
            let mask = special_mask(load(chunk));
            if mask != 0 {
                return Ok(i + mask.trailing_zeros() as usize);
            }
            i += 16;
        }
        Err(i)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn find_special_matches_a_byte_loop() {
        let naive = |b: &[u8], i: usize| {
            (i..b.len())
                .find(|&j| b[j] == b'"' || b[j] == b'\\' || b[j] < 0x20)
                .unwrap_or(b.len())
        };
        let mut seed = 1u64;
        for round in 0..40_000 {
            // Half the rounds have long runs without a special byte, so that the 16-byte SSE2
            // steps (x86_64) and the 8-byte SWAR steps both run before the hit and the tail.
            let (len, rare) = if round % 2 == 0 {
                ((seed % 40) as usize, 0)
            } else {
                ((seed % 200) as usize, 3)
            };
            let mut buf = Vec::with_capacity(len);
            for _ in 0..len {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let pick = ((seed >> 59) as u8) | if (seed >> 20) % 8 < rare { 8 } else { 0 };
                buf.push(match pick {
                    0 => b'"',
                    1 => b'\\',
                    2 => 0x1f,
                    3 => 0x80 | (seed >> 40) as u8,
                    4 => 0x20,
                    5 => 0x21,
                    6 => 0x23,
                    7 => 0x5d,
                    _ => b'0' + pick,
                });
            }
            let start = (seed as usize >> 7) % (len + 1);
            assert_eq!(
                find_special(&buf, start),
                naive(&buf, start),
                "{buf:?} from {start}"
            );
        }
    }

    /// A predicted length gives the scan's answer whether it is right (run of exactly `N`
    /// plain bytes, then a quote), off by a little, or wrong in kind (the byte at `N` is a
    /// backslash or a control byte, or a special byte sits inside the run), including runs
    /// that end too near the frame's end for the check's 16-byte loads, and runs holding a
    /// space or `!` (plain bytes that the check's looser mask flags).
    #[test]
    fn find_special_guess_matches_the_scan() {
        fn check<const N: usize>(seed: &mut u64) {
            for _ in 0..3_000 {
                let mut next = || {
                    *seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    *seed >> 33
                };
                let lead = (next() % 20) as usize;
                let run = (N + (next() % 5) as usize).saturating_sub(2);
                let mut buf: Vec<u8> = (0..lead + run).map(|i| b'0' + (i % 10) as u8).collect();
                buf.push([b'"', b'"', b'\\', 0x1f][(next() % 4) as usize]);
                if next() % 4 == 0 {
                    let at = (next() as usize) % buf.len();
                    buf[at] = b'"';
                }
                if next() % 4 == 0 {
                    let at = (next() as usize) % buf.len();
                    buf[at] = [b' ', b'!'][(next() % 2) as usize];
                }
                let tail = (next() % 24) as usize;
                buf.extend((0..tail).map(|i| if i % 7 == 3 { b'"' } else { b'x' }));
                let scan = find_special(&buf, lead);
                assert_eq!(
                    find_special_guess::<N>(&buf, lead),
                    scan,
                    "N={N} {buf:?} from {lead}"
                );
                // A right guess is taken (not left to the scan), when 16 bytes are there and
                // the run has no space or `!`.
                #[cfg(polyclob_simd)]
                if scan == lead + N
                    && buf.len() >= lead + (N + 1).max(16)
                    && !buf[lead..scan].iter().any(|c| matches!(c, b' ' | b'!'))
                {
                    assert_eq!(
                        sse2::special_at::<N>(&buf, lead),
                        Some(true),
                        "N={N} {buf:?} from {lead}"
                    );
                }
            }
        }
        let mut seed = 5u64;
        check::<1>(&mut seed);
        check::<13>(&mut seed);
        check::<15>(&mut seed);
        check::<16>(&mut seed);
        check::<40>(&mut seed);
        check::<66>(&mut seed);
        check::<77>(&mut seed);
    }
}
