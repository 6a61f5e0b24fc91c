//! Decimals read straight from JSON text into 10⁻⁶ units (the `fixed` types' scale), a word
//! at a time where the text fits one: the fast paths in front of `crate::fixed`'s parsers.
//! Each returns `None` for anything it does not take, and the caller then falls back to those
//! parsers, which decide and report; the tests check every reader against them.

use super::simd::{HI, LO, word8};

/// Powers of ten for scaling up to six fractional digits.
const SCALE_UP: [u64; 7] = [1_000_000, 100_000, 10_000, 1_000, 100, 10, 1];

/// Reads a plain decimal (`digits[.digits]`, at most 13 integer digits, any zeros past the
/// 6th decimal) starting at `b[i]`, returning its value in 10⁻⁶ units and the index of the
/// first byte after it.
///
/// A byte loop with no overflow checks needed (13 digits × 10⁶ < 2⁶⁴), behind the word-at-a-time
/// readers ([`span_decimal`], [`word_decimal`]) for what they leave: values near the end of
/// the frame, long integers, more than six decimals. It returns `None` for anything else —
/// empty input, more integer digits, a non-zero 7th decimal, a sign — and callers then fall
/// back to [`crate::fixed::Price::parse`]/[`crate::fixed::Size::parse`], which decide and
/// report. The unit tests check it against those parsers.
#[cold]
pub(crate) fn scan_decimal(b: &[u8], mut i: usize) -> Option<(u64, usize)> {
    let start = i;
    let mut int = 0u64;
    while let Some(&c) = b.get(i) {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        int = int * 10 + u64::from(d);
        i += 1;
        if i - start > 13 {
            return None;
        }
    }
    let int_digits = i - start;
    let mut frac = 0u64;
    let mut frac_digits = 0usize;
    if b.get(i) == Some(&b'.') {
        i += 1;
        while let Some(&c) = b.get(i) {
            let d = c.wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            if frac_digits < 6 {
                frac = frac * 10 + u64::from(d);
            } else if d != 0 {
                return None;
            }
            frac_digits += 1;
            i += 1;
        }
    }
    if int_digits == 0 && frac_digits == 0 {
        return None;
    }
    Some((int * 1_000_000 + frac * SCALE_UP[frac_digits.min(6)], i))
}
/// The value of the plain decimal that is exactly `b[s..e]`, in 10⁻⁶ units, or `None` when
/// that text is anything else (the caller then falls back to the `fixed` parsers, which
/// decide and report).
///
/// Unlike [`scan_decimal`], the end is already known (found by a quote search), so the parse
/// is not on the critical path from one field to the next. `b` is the whole frame: the word
/// loads may read past `e`.
#[inline(always)]
pub(crate) fn span_decimal(b: &[u8], s: usize, e: usize) -> Option<u64> {
    let len = e.checked_sub(s)?;
    if len <= 8 {
        if let Some(v) = word8(b, s).and_then(|w| word_decimal(w, len)) {
            return Some(v);
        }
    }
    let (v, end) = scan_decimal(b.get(..e)?, s)?;
    (end == e).then_some(v)
}

/// The value of the plain decimal held in the first `len` (0..=8) bytes of `w` (a word read
/// from the frame, first byte lowest), in 10⁻⁶ units; `None` when those bytes are anything
/// else or when the text needs the byte loop (more than six decimals).
#[inline(always)]
pub(crate) fn word_decimal(w: u64, len: usize) -> Option<u64> {
    // One flag (bit 7) per byte that is not an ASCII digit.
    let nd = non_digits(w);
    let n = (nd.trailing_zeros() / 8) as usize;
    if n >= len {
        return (len > 0).then(|| digits_value(w, len) * 1_000_000);
    }
    // n < len <= 8: byte n is in the word and must be the point, and the next non-digit must
    // be the byte just past the text.
    let next = ((nd & nd.wrapping_sub(1)).trailing_zeros() / 8) as usize;
    let m = len - n - 1;
    if (w >> (8 * n)) as u8 != b'.' || next < len || m > 6 || n + m == 0 {
        return None;
    }
    // Drop the point: the fraction's bytes move down by one, next to the integer digits.
    let below = (1u64 << (8 * n)) - 1;
    let joined = (w & below) | ((w >> 8) & !below);
    Some(digits_value(joined, n + m) * SCALE_UP[m])
}

/// [`word_decimal`] for a price. Its usual text, `0.` and one to six digits, takes a shorter
/// path that knows where the point is; anything else goes to [`word_decimal`]. Same result
/// for every input (tested below).
#[inline(always)]
pub(crate) fn price_word_decimal(w: u64, len: usize) -> Option<u64> {
    let m = len.wrapping_sub(2);
    if w & 0xFFFF == u64::from(u16::from_le_bytes(*b"0.")) && (1..=6).contains(&m) {
        let frac = w >> 16;
        return ((non_digits(frac).trailing_zeros() / 8) as usize >= m)
            .then(|| digits_value(frac, m) * SCALE_UP[m]);
    }
    word_decimal(w, len)
}

/// The value of the `len` ASCII digits at `at` in `b` (a frame), or `None` when they are not
/// all digits or do not fit. Up to sixteen digits are read as two words (the 13-digit
/// millisecond timestamps of every market message) instead of a byte loop, whose
/// multiply-add chain was the longest step of a `price_change` after the scans.
#[inline]
pub(crate) fn digits_u64(b: &[u8], at: usize, len: usize) -> Option<u64> {
    // Words past the text are fine to read (other bytes of the frame): only the first `len`
    // bytes are looked at. Near the frame's end, the byte loop.
    let end = at.checked_add(len)?;
    let digits = |w: u64, n: usize| (non_digits(w).trailing_zeros() / 8) as usize >= n;
    match len {
        1..=8 => {
            if let Some(w) = word8(b, at) {
                return digits(w, len).then(|| digits_value(w, len));
            }
        }
        9..=16 => {
            // The first `len - 8` digits and the last eight: both words lie inside the text.
            if let (Some(hi), Some(lo)) = (word8(b, at), word8(b, end - 8)) {
                let n = len - 8;
                return (digits(hi, n) && digits(lo, 8))
                    .then(|| digits_value(hi, n) * 100_000_000 + digits_value(lo, 8));
            }
        }
        _ => {}
    }
    let mut v = 0u64;
    for &c in b.get(at..end)? {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(d))?;
    }
    (len > 0).then_some(v)
}

/// Bit 7 of each byte of the result is set when that byte of `w` is not an ASCII digit; all
/// other bits are clear.
#[inline(always)]
fn non_digits(w: u64) -> u64 {
    // `x` maps the digits to 0..=9. A byte is not a digit when its low seven bits of `x` are
    // 10 or more (adding 0x76 then sets bit 7, and no byte carries into the next: 0x7F + 0x76
    // < 0x100) or when bit 7 of `x` is set.
    let x = w ^ (LO * 0x30);
    (((x & (LO * 0x7F)) + LO * 0x76) | x) & HI
}

/// Index (0..8) of the first `"` in the word, if it has one.
#[inline(always)]
pub(crate) fn quote_in_word(w: u64) -> Option<usize> {
    let q = w ^ (LO * u64::from(b'"'));
    // The lowest flagged byte of the "has zero byte" test is exact.
    let hit = q.wrapping_sub(LO) & !q & HI;
    (hit != 0).then(|| (hit.trailing_zeros() / 8) as usize)
}

/// The value of the first `n` (0..=8) bytes of `w`, which are ASCII digits, most significant
/// first.
#[inline(always)]
fn digits_value(w: u64, n: usize) -> u64 {
    if n == 0 {
        return 0;
    }
    // Keep the digits' values and move them to the top bytes: the bytes below become
    // leading zeros. Then combine neighbours: pairs, quads, the whole word.
    let mut d = (w & (LO * 0x0F)) << (8 * (8 - n));
    d = (d.wrapping_mul(10) + (d >> 8)) & 0x00FF_00FF_00FF_00FF;
    d = (d.wrapping_mul(100) + (d >> 16)) & 0x0000_FFFF_0000_FFFF;
    (d.wrapping_mul(10_000) + (d >> 32)) & 0xFFFF_FFFF
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    /// `digits_u64` gives `str::parse::<u64>` of the digits (lengths 0–21, a stray non-digit
    /// anywhere, values past `u64::MAX`), in the middle of a frame and at its very end.
    #[test]
    fn digits_u64_matches_parse() {
        let mut seed = 11u64;
        for _ in 0..60_000 {
            let mut next = || {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                seed >> 33
            };
            let len = (next() % 22) as usize;
            let mut text: Vec<u8> = (0..len).map(|_| b'0' + (next() % 10) as u8).collect();
            if len > 0 && next() % 3 == 0 {
                let at = (next() as usize) % len;
                text[at] = [b'"', b'.', b'/', b':', b'a', b' '][(next() % 6) as usize];
            }
            let lead = (next() % 5) as usize;
            let tail = if next() % 2 == 0 { 0 } else { 9 };
            let mut frame = vec![b'"'; lead];
            frame.extend_from_slice(&text);
            frame.extend(std::iter::repeat_n(b'7', tail));
            let expected = core::str::from_utf8(&text)
                .ok()
                .filter(|t| t.bytes().all(|c| c.is_ascii_digit()))
                .and_then(|t| t.parse::<u64>().ok());
            assert_eq!(
                digits_u64(&frame, lead, len),
                expected,
                "{:?}",
                core::str::from_utf8(&frame)
            );
        }
    }

    #[test]
    fn scan_decimal_agrees_with_the_fixed_parsers() {
        use crate::fixed::parse_micros;
        let mut seed = 3u64;
        let alphabet = b"0123456789.....-e+x ";
        for n in 0..200_000 {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let len = (seed >> 60) as usize + (n % 3);
            let mut buf = Vec::new();
            let mut s2 = seed;
            for _ in 0..len {
                s2 = s2.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(7);
                let pick = (s2 >> 58) as usize % alphabet.len();
                // Mostly digits, so that long valid numbers are common.
                buf.push(if s2 & 3 == 0 {
                    alphabet[pick]
                } else {
                    b'0' + (pick % 10) as u8
                });
            }
            let full = match scan_decimal(&buf, 0) {
                Some((v, end)) if end == buf.len() => Some(v),
                _ => None,
            };
            if let Some(v) = full {
                assert_eq!(
                    parse_micros(&buf),
                    Ok(v),
                    "{:?}",
                    String::from_utf8_lossy(&buf)
                );
            }
        }
        for t in [
            "0.48",
            ".48",
            "1.",
            "0",
            "219.217767",
            "1.0000000",
            "0012.5",
            "9999999999999.999999",
        ] {
            assert_eq!(
                scan_decimal(t.as_bytes(), 0).map(|r| r.0),
                parse_micros(t.as_bytes()).ok(),
                "{t}"
            );
        }
        for t in ["", ".", "1.0000001", "99999999999999", "-1"] {
            assert!(
                matches!(scan_decimal(t.as_bytes(), 0), None | Some((_, 0))),
                "{t}"
            );
        }
    }

    #[test]
    fn span_decimal_agrees_with_the_byte_loop() {
        let mut seed = 5u64;
        let alphabet = b"0123456789.-e\\\" ";
        for n in 0..300_000 {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let len = (seed >> 59) as usize % 16;
            let mut buf = b"xx".to_vec();
            let mut s2 = seed;
            for _ in 0..len {
                s2 = s2.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(7);
                let pick = (s2 >> 58) as usize % alphabet.len();
                buf.push(if s2 & 3 == 0 {
                    alphabet[pick]
                } else {
                    b'0' + (pick % 10) as u8
                });
            }
            let e = buf.len();
            buf.extend_from_slice(if n % 2 == 0 { b"\",\"size\":1" } else { b"7" });
            let want = match scan_decimal(&buf[..e], 2) {
                Some((v, end)) if end == e => Some(v),
                _ => None,
            };
            assert_eq!(
                span_decimal(&buf, 2, e),
                want,
                "{:?}",
                String::from_utf8_lossy(&buf)
            );
        }
    }

    /// The price path equals `word_decimal` on every length, on words that start with `0.`
    /// (its own path) and on others, with digits, points and other bytes after.
    #[test]
    fn price_word_decimal_agrees_with_word_decimal() {
        let mut seed = 9u64;
        let alphabet = b"0123456789.\"x ";
        for n in 0..400_000u32 {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let mut bytes = [0u8; 8];
            let mut s2 = seed;
            for byte in &mut bytes {
                s2 = s2.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(7);
                let pick = (s2 >> 58) as usize % alphabet.len();
                *byte = if s2 & 7 == 0 {
                    alphabet[pick]
                } else {
                    b'0' + (pick % 10) as u8
                };
            }
            if n % 4 != 0 {
                bytes[..2].copy_from_slice(b"0.");
            }
            let w = u64::from_le_bytes(bytes);
            let len = (seed >> 60) as usize % 9;
            assert_eq!(
                price_word_decimal(w, len),
                word_decimal(w, len),
                "{:?} {len}",
                String::from_utf8_lossy(&bytes)
            );
        }
    }
}
