//! The SSE2 scan for the WebSocket decoder's byte-level reader: a plain string's end, 16 bytes
//! per step where the portable code takes 8 (SWAR); and for the skipping walk
//! (`crate::decode::skip`) the one-step reads of a short string or key and the special bytes
//! of 32 or 64 bytes at once as a bit mask.
//!
//! (A 16-byte whitespace-run skip was tried beside it and removed: on pretty-printed frames,
//! whose indentation runs are 8–16 bytes, it cost 6–9% more time than the word loop.)
//!
//! SSE2 is part of every x86_64 CPU (the target's baseline), so there is no run-time detection
//! and the scan inlines into its caller. The intrinsics are `#[target_feature(enable =
//! "sse2")]` functions, which Rust makes `unsafe` to call from code that does not itself list
//! the feature even though the build enables it: the `unsafe` blocks (the load, the masks and
//! the vector or) rely only on that baseline feature and on in-bounds 16-byte slices.
//! Compiled with rustc ≥ 1.89 (`polyclob_simd`, set by `build.rs`) like the signing kernels.
//! Tested against a byte loop in `crate::decode::json`'s tests; the walk's steps against the
//! general reader's skip in `crate::decode::skip`'s.

use crate::decode::json::chunk;
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

/// The index of the first `"`, `\` or byte below 0x20 among the 16 bytes at `i`, when 16
/// remain and one of them is special: one step of [`special16`], for short strings.
#[inline(always)]
pub(crate) fn special_in16(b: &[u8], i: usize) -> Option<usize> {
    let mask = special_mask(load(b.get(i..i.wrapping_add(16))?));
    (mask != 0).then(|| i + mask.trailing_zeros() as usize)
}

/// What one 16-byte step learns of a string whose content starts at `i` ([`string_step`]).
pub(crate) enum Step {
    /// The string ends within the step: the index after its closing quote, and the byte there
    /// (the next token's first).
    Done(usize, u8),
    /// The index of the first `"`, `\` or byte below 0x20, which the caller reads.
    Special(usize),
    /// None of those before this index, from which the caller scans (`i` itself when fewer
    /// than 16 bytes remain).
    Scan(usize),
}

/// A short string whose content starts at `i`, read in one step: when 16 bytes remain from `i`
/// and the first `"`, `\` or byte below 0x20 among them is a `"` at `i + k`, `k ≤ 14`, the
/// index after that quote and the byte there; else where the step stopped ([`Step`]).
#[inline(always)]
pub(crate) fn string_step(b: &[u8], i: usize) -> Step {
    let Some(chunk) = chunk::<16>(b, i) else {
        return Step::Scan(i);
    };
    let mask = special_mask(load(chunk));
    // Bit 14 set: `k ≤ 14`, so `k + 1` indexes the chunk. Without a special byte below 14,
    // `chunk[14]` is none, so no quote.
    let k = (mask | 1 << 14).trailing_zeros() as usize;
    if chunk[k] == b'"' {
        Step::Done(i + k + 1, chunk[k + 1])
    } else if mask == 0 {
        Step::Scan(i + 16)
    } else {
        Step::Special(i + mask.trailing_zeros() as usize)
    }
}

/// [`string_step`]'s short case for an object's key: when its closing quote is at `i + k`,
/// `k ≤ 13`, and a `:` follows it, the index of the value after the `:` and the value's first
/// byte.
#[inline(always)]
pub(crate) fn key_in16(b: &[u8], i: usize) -> Option<(usize, u8)> {
    let chunk = chunk::<16>(b, i)?;
    let k = (special_mask(load(chunk)) | 1 << 13).trailing_zeros() as usize;
    // The quote and the colon as one 2-byte compare.
    let pair = u16::from_le_bytes([chunk[k], chunk[k + 1]]);
    (pair == u16::from_le_bytes(*b"\":")).then(|| (i + k + 2, chunk[k + 2]))
}

/// The first index at or after `i` holding `"`, `\` or a byte below 0x20 (or the frame's
/// length), for `i` with fewer than 16 bytes left: the frame's last 16 bytes in one step,
/// those before `i` masked off. `None` for a frame shorter than 16 bytes.
#[inline(always)]
pub(crate) fn special_tail16(b: &[u8], i: usize) -> Option<usize> {
    let start = b.len().checked_sub(16)?;
    // At most 16 bytes to drop (`i` is at most one past the end), so the shift is in range.
    let before = i.checked_sub(start)?.min(16);
    let mask = special_mask(load(chunk::<16>(b, start)?)) >> before;
    Some(if mask == 0 {
        b.len()
    } else {
        i + mask.trailing_zeros() as usize
    })
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

/// The special bytes (see [`special16`]) of the `N` bytes at `i` (`N` a multiple of 16, at
/// most 64) as bits, bit `k` for byte `i + k`; `None` when fewer than `N` bytes remain. Every
/// load's address is known from `i` alone, so they run in parallel: strings that end among
/// them end at a count each, one load's latency in all.
#[inline(always)]
pub(crate) fn special_bits<const N: usize>(b: &[u8], i: usize) -> Option<u64> {
    let s = chunk::<N>(b, i)?;
    let mut bits = 0;
    for at in (0..N).step_by(16) {
        bits |= u64::from(special_mask(load(&s[at..at + 16]))) << at;
    }
    Some(bits)
}
