//! L2 authentication: HMAC-SHA256 over `timestamp ‖ METHOD ‖ path ‖ body` with the API secret.
//!
//! Facts: protocol.md §2.2. The key is the base64url-decoded secret; the output is base64url
//! **with** `=` padding (44 characters); the path excludes the query string; the body is the
//! exact bytes sent.

use core::fmt;

use sha2::block_api::compress256;
use sha2::{Digest, Sha256};
use zeroize::{Zeroize, Zeroizing};

use super::SignError;

/// SHA-256 initial hash value (FIPS 180-4 §5.3.3).
const IV: [u32; 8] = [
    0x6a09_e667,
    0xbb67_ae85,
    0x3c6e_f372,
    0xa54f_f53a,
    0x510e_527f,
    0x9b05_688c,
    0x1f83_d9ab,
    0x5be0_cd19,
];

/// A pre-keyed HMAC-SHA256 state: the secret is decoded once and its two key blocks (RFC 2104
/// `key ⊕ ipad`, `key ⊕ opad`) are compressed once; a signature then runs only the message's
/// compressions through the raw SHA-256 block function (SHA-NI where the CPU has it), with a
/// stack block buffer and no allocation.
///
/// The keyed states are zeroized on drop, `Debug` is redacted.
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
    /// SHA-256 chaining value after the block `key ⊕ ipad`.
    inner: [u32; 8],
    /// SHA-256 chaining value after the block `key ⊕ opad`.
    outer: [u32; 8],
}

impl Drop for HmacKey {
    fn drop(&mut self) {
        self.inner.zeroize();
        self.outer.zeroize();
    }
}

/// Streams bytes into SHA-256 compressions through a one-block stack buffer.
struct Stream {
    state: [u32; 8],
    block: [u8; 64],
    pos: usize,
    /// Bytes absorbed, including the key block.
    len: u64,
}

impl Stream {
    const fn new(state: [u32; 8]) -> Self {
        Self {
            state,
            block: [0; 64],
            pos: 0,
            len: 64,
        }
    }

    fn update(&mut self, mut data: &[u8]) {
        self.len += data.len() as u64;
        while !data.is_empty() {
            let n = (64 - self.pos).min(data.len());
            self.block[self.pos..self.pos + n].copy_from_slice(&data[..n]);
            self.pos += n;
            data = &data[n..];
            if self.pos == 64 {
                compress256(&mut self.state, core::slice::from_ref(&self.block));
                self.pos = 0;
            }
        }
    }

    /// Pads (0x80, zeros, 64-bit big-endian bit length) and returns the digest.
    fn finish(mut self) -> [u8; 32] {
        let bits = self.len * 8;
        self.block[self.pos] = 0x80;
        self.block[self.pos + 1..].fill(0);
        if self.pos >= 56 {
            compress256(&mut self.state, core::slice::from_ref(&self.block));
            self.block = [0; 64];
        }
        self.block[56..].copy_from_slice(&bits.to_be_bytes());
        compress256(&mut self.state, core::slice::from_ref(&self.block));
        let mut out = [0u8; 32];
        for (chunk, word) in out.chunks_exact_mut(4).zip(self.state) {
            chunk.copy_from_slice(&word.to_be_bytes());
        }
        // No wipe needed here: `finish` always runs at least one compression, so the stack copy
        // of the keyed chaining value is already overwritten by a value derived from the
        // message (the keyed states themselves live in `HmacKey`, which zeroizes on drop).
        out
    }
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
        let mut keyed = |byte: u8| {
            for (p, k) in pad.iter_mut().zip(block.iter()) {
                *p = k ^ byte;
            }
            let mut state = IV;
            compress256(&mut state, core::slice::from_ref(&*pad));
            state
        };
        Self {
            inner: keyed(0x36),
            outer: keyed(0x5c),
        }
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
        let mut inner = Stream::new(self.inner);
        let mut digits = [0u8; 20];
        inner.update(super::eip712::write_u64_decimal(
            timestamp_secs,
            &mut digits,
        ));
        inner.update(method.as_bytes());
        inner.update(path.as_bytes());
        inner.update(body);
        let inner_digest = inner.finish();
        let mut outer = Stream::new(self.outer);
        outer.update(&inner_digest);
        let tag = outer.finish();
        let mut out = [0u8; 44];
        encode_base64url_32(&tag, &mut out);
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

    /// RFC 4231 test cases 1, 2 and 6 (short key, "Jefe", 131-byte key hashed first).
    #[test]
    fn rfc4231_vectors() {
        let hex = |tag: [u8; 32]| {
            let mut out = [0u8; 64];
            crate::sign::signature_hex_into(&tag, &mut out);
            String::from_utf8(out.to_vec()).unwrap()
        };
        let mac = |key: &[u8], msg: &[u8]| {
            let k = HmacKey::from_key_bytes(key);
            let mut inner = Stream::new(k.inner);
            inner.update(msg);
            let d = inner.finish();
            let mut outer = Stream::new(k.outer);
            outer.update(&d);
            hex(outer.finish())
        };
        assert_eq!(
            mac(&[0x0b; 20], b"Hi There"),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        );
        assert_eq!(
            mac(b"Jefe", b"what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        assert_eq!(
            mac(
                &[0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First"
            ),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
    }

    /// Message lengths around the block and padding boundaries agree with a plain SHA-256
    /// HMAC built from the `sha2` hasher.
    #[test]
    fn padding_boundaries_match_the_hasher() {
        let key = HmacKey::from_key_bytes(b"secret");
        let mut block = [0u8; 64];
        block[..6].copy_from_slice(b"secret");
        let naive = |msg: &[u8]| {
            let ipad: Vec<u8> = block.iter().map(|b| b ^ 0x36).collect();
            let opad: Vec<u8> = block.iter().map(|b| b ^ 0x5c).collect();
            let inner = Sha256::new()
                .chain_update(&ipad)
                .chain_update(msg)
                .finalize();
            Sha256::new()
                .chain_update(&opad)
                .chain_update(inner)
                .finalize()
        };
        for len in [0usize, 1, 54, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000] {
            let msg: Vec<u8> = (0..len).map(|i| i as u8).collect();
            let mut inner = Stream::new(key.inner);
            inner.update(&msg[..len / 3]);
            inner.update(&msg[len / 3..]);
            let d = inner.finish();
            let mut outer = Stream::new(key.outer);
            outer.update(&d);
            assert_eq!(outer.finish()[..], naive(&msg)[..], "len {len}");
        }
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
