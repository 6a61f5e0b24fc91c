//! L2 authentication: HMAC-SHA256 over `timestamp ‖ METHOD ‖ path ‖ body` with the API secret.
//!
//! Facts: protocol.md §2.2. The key is the base64url-decoded secret; the output is base64url
//! **with** `=` padding (44 characters); the path excludes the query string; the body is the
//! exact bytes sent.

use core::fmt;

use sha2::{Digest, Sha256};
use zeroize::{Zeroize, Zeroizing};

use super::SignError;

/// A pre-keyed HMAC-SHA256 state: the secret is decoded and absorbed once, each signature
/// clones the two keyed SHA-256 states (RFC 2104 inner and outer; a few hundred bytes copied,
/// no allocation).
///
/// The states are zeroized on drop (`sha2`'s `zeroize` feature), `Debug` is redacted.
///
/// ```
/// use polyclob::sign::hmac::HmacKey;
///
/// let key = HmacKey::from_base64url("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=")?;
/// let sig = key.sign(1, "GET", "/", b"");
/// assert_eq!(sig.as_str(), "eHaylCwqRSOa2LFD77Nt_SaTpbsxzN8eTEI3LryhEj4=");
/// assert!(!format!("{key:?}").contains("AAAA"));
/// # Ok::<(), polyclob::sign::SignError>(())
/// ```
#[derive(Clone)]
pub struct HmacKey {
    /// SHA-256 after absorbing `key ⊕ ipad`.
    inner: Sha256,
    /// SHA-256 after absorbing `key ⊕ opad`.
    outer: Sha256,
}

impl HmacKey {
    /// Decodes the API secret (standard or URL-safe base64 alphabet, padded or not) and keys
    /// the HMAC state with it.
    ///
    /// # Errors
    /// [`SignError::InvalidSecret`] naming the offending byte offset.
    pub fn from_base64url(secret: &str) -> Result<Self, SignError> {
        let key = decode_base64(secret.as_bytes())?;
        Ok(Self::from_key_bytes(&key))
    }

    /// Keys the state with raw secret bytes (RFC 2104: keys longer than the 64-byte block
    /// are hashed first).
    #[must_use]
    pub fn from_key_bytes(key: &[u8]) -> Self {
        let mut block = Zeroizing::new([0u8; 64]);
        if key.len() > 64 {
            let mut digest = Sha256::digest(key);
            block[..32].copy_from_slice(&digest);
            digest.as_mut_slice().zeroize();
        } else {
            block[..key.len()].copy_from_slice(key);
        }
        let mut pad = Zeroizing::new([0u8; 64]);
        for (p, k) in pad.iter_mut().zip(block.iter()) {
            *p = k ^ 0x36;
        }
        let mut inner = Sha256::new();
        inner.update(&pad[..]);
        for (p, k) in pad.iter_mut().zip(block.iter()) {
            *p = k ^ 0x5c;
        }
        let mut outer = Sha256::new();
        outer.update(&pad[..]);
        Self { inner, outer }
    }

    /// The `POLY_SIGNATURE` of an L2 request: HMAC over `timestamp_secs` (decimal), `method`,
    /// `path` (no query string) and `body` (the exact bytes sent; empty for none).
    #[must_use]
    pub fn sign(
        &self,
        timestamp_secs: u64,
        method: &str,
        path: &str,
        body: &[u8],
    ) -> HmacSignature {
        let mut inner = self.inner.clone();
        let mut digits = [0u8; 20];
        inner.update(super::eip712::write_u64_decimal(
            timestamp_secs,
            &mut digits,
        ));
        inner.update(method.as_bytes());
        inner.update(path.as_bytes());
        inner.update(body);
        let mut outer = self.outer.clone();
        outer.update(inner.finalize());
        let tag = outer.finalize();
        let mut out = [0u8; 44];
        encode_base64url_32(tag.as_slice(), &mut out);
        HmacSignature(out)
    }
}

impl fmt::Debug for HmacKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("HmacKey(<redacted>)")
    }
}

/// A 44-character base64url (padded) HMAC-SHA256 tag, on the stack.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct HmacSignature([u8; 44]);

impl HmacSignature {
    /// The header value.
    #[must_use]
    pub fn as_str(&self) -> &str {
        // Only base64url characters are written.
        core::str::from_utf8(&self.0).unwrap_or("")
    }

    /// The header value as bytes.
    #[must_use]
    pub const fn as_bytes(&self) -> &[u8; 44] {
        &self.0
    }
}

impl fmt::Display for HmacSignature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for HmacSignature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HmacSignature({})", self.as_str())
    }
}

const URL_ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// base64url with padding of exactly 32 bytes → 44 characters.
fn encode_base64url_32(bytes: &[u8], out: &mut [u8; 44]) {
    let mut o = 0;
    let mut chunks = bytes.chunks_exact(3);
    for c in &mut chunks {
        let n = (u32::from(c[0]) << 16) | (u32::from(c[1]) << 8) | u32::from(c[2]);
        for shift in [18u32, 12, 6, 0] {
            out[o] = URL_ALPHABET[((n >> shift) & 63) as usize];
            o += 1;
        }
    }
    // 32 = 10·3 + 2: two bytes remain → three characters and one '='.
    let rem = chunks.remainder();
    let mut n = 0u32;
    for (i, &b) in rem.iter().enumerate() {
        n |= u32::from(b) << (16 - 8 * i);
    }
    for (i, shift) in [18u32, 12, 6, 0].into_iter().enumerate() {
        out[o] = if i <= rem.len() {
            URL_ALPHABET[((n >> shift) & 63) as usize]
        } else {
            b'='
        };
        o += 1;
    }
}

const fn b64_value(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' | b'-' => Some(62),
        b'/' | b'_' => Some(63),
        _ => None,
    }
}

/// Decodes base64 in either alphabet, with or without `=` padding.
fn decode_base64(text: &[u8]) -> Result<Zeroizing<Vec<u8>>, SignError> {
    let err = |reason, offset| SignError::InvalidSecret { reason, offset };
    let body_len = text.iter().rposition(|&c| c != b'=').map_or(0, |p| p + 1);
    let pad = text.len() - body_len;
    if body_len == 0 {
        return Err(err("empty secret", 0));
    }
    if pad > 2 || (pad > 0 && text.len() % 4 != 0) {
        return Err(err("bad padding", body_len));
    }
    if body_len % 4 == 1 {
        return Err(err("truncated base64", body_len));
    }
    let mut out = Zeroizing::new(Vec::with_capacity(body_len * 3 / 4));
    let mut acc = 0u32;
    let mut bits = 0u32;
    for (i, &c) in text[..body_len].iter().enumerate() {
        let v = b64_value(c).ok_or(err("not a base64 character", i))?;
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_both_alphabets_padded_or_not() {
        let std_padded = decode_base64(b"+/+/AQI=").unwrap();
        assert_eq!(&std_padded[..], &[0xfb, 0xff, 0xbf, 0x01, 0x02]);
        assert_eq!(&decode_base64(b"-_-_AQI=").unwrap()[..], &std_padded[..]);
        assert_eq!(&decode_base64(b"-_-_AQI").unwrap()[..], &std_padded[..]);
        assert_eq!(&decode_base64(b"AA==").unwrap()[..], &[0]);
        assert_eq!(&decode_base64(b"AA").unwrap()[..], &[0]);
        for (bad, offset) in [
            (&b""[..], 0),
            (b"A", 1),
            (b"AA=", 2),
            (b"A===", 1),
            (b"AB*D", 2),
            (b"AB=D", 2),
        ] {
            match decode_base64(bad) {
                Err(SignError::InvalidSecret { offset: o, .. }) => {
                    assert_eq!(o, offset, "{}", String::from_utf8_lossy(bad))
                }
                other => panic!("{}: {other:?}", String::from_utf8_lossy(bad)),
            }
        }
    }

    #[test]
    fn encodes_like_base64url_padded() {
        let mut out = [0u8; 44];
        encode_base64url_32(&[0xff; 32], &mut out);
        assert_eq!(&out, b"__________________________________________8=");
        encode_base64url_32(&[0; 32], &mut out);
        assert_eq!(&out, b"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=");
    }

    #[test]
    fn long_keys_are_hashed_first() {
        // RFC 4231 test case 6: 131-byte key of 0xaa.
        let key = HmacKey::from_key_bytes(&[0xaa; 131]);
        let mut inner = key.inner.clone();
        inner.update(b"Test Using Larger Than Block-Size Key - Hash Key First");
        let mut outer = key.outer.clone();
        outer.update(inner.finalize());
        let mut hex = [0u8; 64];
        crate::sign::signature_hex_into(&outer.finalize(), &mut hex);
        assert_eq!(
            &hex[..],
            b"60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
    }

    #[test]
    fn upstream_oracles() {
        let key = HmacKey::from_base64url("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=").unwrap();
        assert_eq!(
            key.sign(1_000_000, "test-sign", "/orders", br#"{"hash": "0x123"}"#)
                .as_str(),
            "ZwAdJKvoYRlEKDkNMwd5BuwNNtg93kNaR_oU2HrfVvc="
        );
        assert_eq!(
            key.sign(1_000_000, "test-sign", "/orders", br#"{"hash":"0x123"}"#)
                .as_str(),
            "4gJVbox-R6XlDK4nlaicig0_ANVL1qdcahiL8CXfXLM="
        );
    }
}
