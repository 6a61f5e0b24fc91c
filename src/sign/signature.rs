//! The 65-byte `r ‖ s ‖ v` ECDSA signature Ethereum expects.

use core::fmt;

use super::SignError;

const HEX: &[u8; 16] = b"0123456789abcdef";

/// A recoverable secp256k1 signature: `r` (32 bytes) ‖ `s` (32 bytes, low-s) ‖ `v` (27 or 28).
///
/// This is the layout `POLY_SIGNATURE` and the order's `signature` field carry
/// (<https://docs.polymarket.com/v2-migration>), printed as `0x`-prefixed lowercase hex.
///
/// ```
/// use polyclob::sign::Signer;
///
/// let signer = Signer::from_hex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")?;
/// let sig = signer.sign_prehash(&[7u8; 32])?;
/// assert!(sig.v() == 27 || sig.v() == 28);
/// let mut hex = [0u8; 132];
/// sig.write_hex(&mut hex);
/// assert_eq!(&hex[..], sig.to_string().as_bytes());
/// # Ok::<(), polyclob::sign::SignError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Signature([u8; 65]);

impl Signature {
    /// Wraps 65 bytes `r ‖ s ‖ v`.
    ///
    /// # Errors
    /// [`SignError::InvalidSignature`] when `v` is not 27/28 (0/1 is accepted and normalised).
    pub fn from_bytes(mut bytes: [u8; 65]) -> Result<Self, SignError> {
        match bytes[64] {
            27 | 28 => {}
            0 | 1 => bytes[64] += 27,
            _ => return Err(SignError::InvalidSignature("v must be 27 or 28")),
        }
        Ok(Self(bytes))
    }

    /// Builds a signature from its parts; `y_odd` is the recovery parity.
    #[must_use]
    pub(crate) fn from_parts(rs: &[u8; 64], y_odd: bool) -> Self {
        let mut out = [0u8; 65];
        out[..64].copy_from_slice(rs);
        out[64] = 27 + u8::from(y_odd);
        Self(out)
    }

    /// Parses `0x`-prefixed (or bare) hex of 65 bytes.
    ///
    /// # Errors
    /// [`SignError::InvalidSignature`] for a wrong length, a non-hex digit or a bad `v`.
    pub fn parse_hex(text: &str) -> Result<Self, SignError> {
        let t = text.strip_prefix("0x").unwrap_or(text).as_bytes();
        if t.len() != 130 {
            return Err(SignError::InvalidSignature("expected 130 hex digits"));
        }
        let mut out = [0u8; 65];
        for (i, pair) in t.chunks_exact(2).enumerate() {
            let hi = hex_val(pair[0]).ok_or(SignError::InvalidSignature("non-hex digit"))?;
            let lo = hex_val(pair[1]).ok_or(SignError::InvalidSignature("non-hex digit"))?;
            out[i] = (hi << 4) | lo;
        }
        Self::from_bytes(out)
    }

    /// The 65 bytes `r ‖ s ‖ v`.
    #[must_use]
    pub const fn as_bytes(&self) -> &[u8; 65] {
        &self.0
    }

    /// `r`, the x-coordinate of the nonce point reduced mod n.
    #[must_use]
    pub fn r(&self) -> [u8; 32] {
        let mut r = [0u8; 32];
        r.copy_from_slice(&self.0[..32]);
        r
    }

    /// `s`, always in the lower half of the curve order.
    #[must_use]
    pub fn s(&self) -> [u8; 32] {
        let mut s = [0u8; 32];
        s.copy_from_slice(&self.0[32..64]);
        s
    }

    /// `v`: 27 or 28.
    #[must_use]
    pub const fn v(&self) -> u8 {
        self.0[64]
    }

    /// The recovery parity (`v − 27`): whether the nonce point's y is odd.
    #[must_use]
    pub const fn y_odd(&self) -> bool {
        self.0[64] == 28
    }

    /// Writes `0x` and 130 lowercase hex digits into a stack buffer.
    pub fn write_hex(&self, out: &mut [u8; 132]) {
        out[0] = b'0';
        out[1] = b'x';
        write_hex_into(&self.0, &mut out[2..]);
    }

    /// The `0x…` lowercase hex text (allocates; see [`write_hex`](Self::write_hex)).
    #[must_use]
    pub fn to_hex_string(&self) -> String {
        let mut buf = [0u8; 132];
        self.write_hex(&mut buf);
        buf.iter().map(|&b| char::from(b)).collect()
    }
}

/// Lowercase hex of `bytes` into `out` (which must be exactly twice as long).
///
/// Four bytes at a time in a 64-bit word (the body carries 129 bytes of hex per order: the
/// signature, metadata and builder); the table loop only for the last 0–3 bytes.
pub(crate) fn write_hex_into(bytes: &[u8], out: &mut [u8]) {
    let mut outs = out.chunks_exact_mut(8);
    let mut quads = bytes.chunks_exact(4);
    for (quad, chunk) in (&mut quads).zip(&mut outs) {
        let mut four = [0u8; 4];
        four.copy_from_slice(quad);
        chunk.copy_from_slice(&hex4(four));
    }
    let rest = &mut out[2 * (bytes.len() - quads.remainder().len())..];
    for (b, pair) in quads.remainder().iter().zip(rest.chunks_exact_mut(2)) {
        pair[0] = HEX[usize::from(b >> 4)];
        pair[1] = HEX[usize::from(b & 0x0f)];
    }
}

/// The 8 hex digits of 4 bytes, SWAR: byte `i` is spread to bits `16i..16i+8`, its high
/// nibble moved to the low byte of that slot and its low nibble to the high byte, then every
/// nibble `n` becomes `'0' + n`, plus `'a' - '0' - 10` where `n > 9` (`n + 6` carries into
/// bit 4 exactly then; no byte ever carries into the next).
#[inline]
fn hex4(b: [u8; 4]) -> [u8; 8] {
    const LOW: u64 = 0x000f_000f_000f_000f;
    let x = u64::from(b[0]) | u64::from(b[1]) << 16 | u64::from(b[2]) << 32 | u64::from(b[3]) << 48;
    let n = ((x >> 4) & LOW) | ((x & LOW) << 8);
    let letters = ((n + 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101;
    (n + 0x3030_3030_3030_3030 + letters * (b'a' - b'0' - 10) as u64).to_le_bytes()
}

pub(crate) const fn hex_val(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0u8; 132];
        self.write_hex(&mut buf);
        // Only ASCII hex digits and "0x" were written.
        f.write_str(core::str::from_utf8(&buf).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Signature({self})")
    }
}

impl AsRef<[u8]> for Signature {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word-at-a-time hex writer against the formatter, for every byte value in every
    /// position of a quad and every length up to 70 (the 0–3 byte tails).
    #[test]
    fn hex_matches_the_formatter() {
        let naive = |bytes: &[u8]| bytes.iter().map(|b| format!("{b:02x}")).collect::<String>();
        for v in 0..=255u8 {
            for pos in 0..4 {
                let mut bytes = [0x5au8; 5];
                bytes[pos] = v;
                let mut out = [0u8; 10];
                write_hex_into(&bytes, &mut out);
                assert_eq!(out, naive(&bytes).as_bytes(), "{v} at {pos}");
            }
        }
        let data: Vec<u8> = (0..70u32).map(|i| (i * 97 + 13) as u8).collect();
        for len in 0..=data.len() {
            let mut out = vec![0u8; 2 * len];
            write_hex_into(&data[..len], &mut out);
            assert_eq!(out, naive(&data[..len]).as_bytes(), "len {len}");
        }
    }

    #[test]
    fn widths_are_pinned() {
        use core::mem::size_of;
        assert_eq!(size_of::<Signature>(), 65);
        assert_eq!(size_of::<crate::sign::hmac::HmacSignature>(), 44);
        assert_eq!(size_of::<crate::sign::wallet::OrderSignature>(), 482);
        assert_eq!(size_of::<crate::types::TokenId>(), 32 + 78 + 1 + 1);
    }

    #[test]
    fn hex_round_trip_and_v_rules() {
        let mut raw = [0xabu8; 65];
        raw[64] = 1;
        let sig = Signature::from_bytes(raw).unwrap();
        assert_eq!(sig.v(), 28);
        assert!(sig.y_odd());
        let text = sig.to_hex_string();
        assert_eq!(text.len(), 132);
        assert!(text.starts_with("0xabab"));
        assert!(text.ends_with("1c"));
        assert_eq!(Signature::parse_hex(&text).unwrap(), sig);
        assert_eq!(
            Signature::parse_hex(&text.to_uppercase().replace("0X", "0x")).unwrap(),
            sig
        );
        raw[64] = 29;
        assert!(Signature::from_bytes(raw).is_err());
        assert!(Signature::parse_hex("0x12").is_err());
        let mut bad = text.clone().into_bytes();
        bad[10] = b'g';
        assert!(Signature::parse_hex(core::str::from_utf8(&bad).unwrap()).is_err());
    }
}
