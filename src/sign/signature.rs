//! The 65-byte `r ‖ s ‖ v` ECDSA signature Ethereum expects.

use core::fmt;

use super::SignError;

const HEX: &[u8; 16] = b"0123456789abcdef";

/// A recoverable secp256k1 signature: `r` (32 bytes) ‖ `s` (32 bytes, low-s) ‖ `v` (27 or 28).
///
/// This is the layout `POLY_SIGNATURE` and the order's `signature` field carry (protocol.md
/// §1.3), printed as `0x`-prefixed lowercase hex.
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
pub(crate) fn write_hex_into(bytes: &[u8], out: &mut [u8]) {
    for (b, pair) in bytes.iter().zip(out.chunks_exact_mut(2)) {
        pair[0] = HEX[usize::from(b >> 4)];
        pair[1] = HEX[usize::from(b & 0x0f)];
    }
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
