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
/// compressions (`sha2`'s `compress256`, which picks its own backend, SHA-NI included), with a
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

/// The outer hash's second block without the digest: `0x80` after the 32 digest bytes, and
/// the message length (64-byte key block + 32 bytes = 768 bits) in the last 8 bytes.
const OUTER_PADDING: [u8; 64] = {
    let mut b = [0u8; 64];
    b[32] = 0x80;
    b[62] = 0x03;
    b
};

/// Streams bytes into `sha2`'s SHA-256 compressions through a one-block stack buffer.
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

    #[inline]
    fn update(&mut self, mut data: &[u8]) {
        self.len += data.len() as u64;
        let room = 64 - self.pos;
        if data.len() < room {
            self.block[self.pos..self.pos + data.len()].copy_from_slice(data);
            self.pos += data.len();
            return;
        }
        if self.pos > 0 {
            self.block[self.pos..].copy_from_slice(&data[..room]);
            compress256(&mut self.state, core::slice::from_ref(&self.block));
            data = &data[room..];
        }
        while let Some((block, rest)) = data.split_first_chunk::<64>() {
            compress256(&mut self.state, core::slice::from_ref(block));
            data = rest;
        }
        self.block[..data.len()].copy_from_slice(data);
        self.pos = data.len();
    }

    /// Pads (0x80, zeros, 64-bit big-endian bit length) and returns the chaining value.
    #[inline]
    fn finish(mut self) -> [u32; 8] {
        let bits = self.len * 8;
        self.block[self.pos] = 0x80;
        self.block[self.pos + 1..].fill(0);
        if self.pos >= 56 {
            compress256(&mut self.state, core::slice::from_ref(&self.block));
            self.block = [0; 64];
        }
        self.block[56..].copy_from_slice(&bits.to_be_bytes());
        compress256(&mut self.state, core::slice::from_ref(&self.block));
        // No wipe needed here: `finish` always runs at least one compression, so the stack copy
        // of the keyed chaining value is already overwritten by a value derived from the
        // message (the keyed states themselves live in `HmacKey`, which zeroizes on drop).
        self.state
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
        // The message starts in the first block buffer itself: digits, method, path.
        let mut head = [0u8; 64];
        let mut digits = [0u8; 20];
        let ts = write_decimal(timestamp_secs, &mut digits);
        let (method, path) = (method.as_bytes(), path.as_bytes());
        let tag = if ts.len() + method.len() + path.len() < 64 {
            let mut pos = 0;
            for part in [ts, method, path] {
                head[pos..pos + part.len()].copy_from_slice(part);
                pos += part.len();
            }
            self.mac(&mut head, pos, &[body])
        } else {
            self.mac(&mut head, 0, &[ts, method, path, body])
        };
        let mut out = [0u8; 44];
        encode_base64url_32(&tag, &mut out);
        HmacSignature(out)
    }

    /// HMAC-SHA256 of `head[..head_len] ‖ parts…` (`head_len < 64`; `head` is used as the
    /// block buffer), as the eight big-endian words of the tag.
    #[inline]
    fn mac(&self, head: &mut [u8; 64], head_len: usize, parts: &[&[u8]]) -> [u32; 8] {
        let mut inner = Stream::new(self.inner);
        inner.update(&head[..head_len]);
        for part in parts {
            inner.update(part);
        }
        let digest = inner.finish();
        let mut block = OUTER_PADDING;
        for (chunk, word) in block.chunks_exact_mut(4).zip(digest) {
            chunk.copy_from_slice(&word.to_be_bytes());
        }
        let mut outer = self.outer;
        compress256(&mut outer, core::slice::from_ref(&block));
        outer
    }
}

/// Writes `v` in decimal into `buf` two digits at a time, returning the digits.
#[inline]
fn write_decimal(mut v: u64, buf: &mut [u8; 20]) -> &[u8] {
    const PAIRS: &[u8; 200] = b"\
        0001020304050607080910111213141516171819\
        2021222324252627282930313233343536373839\
        4041424344454647484950515253545556575859\
        6061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899";
    let pair = |n: u64| {
        // n < 100: the pair index is below 200.
        let d = n as usize * 2;
        [PAIRS[d], PAIRS[d + 1]]
    };
    if (1_000_000_000..10_000_000_000).contains(&v) {
        // Ten digits (every timestamp from 2001 to 2286): independent divisions instead of a
        // chain of five.
        let (hi, lo) = (v / 100_000_000, v % 100_000_000);
        let (a, b) = (lo / 10_000, lo % 10_000);
        let digits = [
            pair(hi),
            pair(a / 100),
            pair(a % 100),
            pair(b / 100),
            pair(b % 100),
        ];
        for (out, d) in buf[10..].chunks_exact_mut(2).zip(digits) {
            out.copy_from_slice(&d);
        }
        return &buf[10..];
    }
    let mut i = buf.len();
    while v >= 100 {
        // v % 100 < 100: the pair index is below 200.
        let d = (v % 100) as usize * 2;
        v /= 100;
        i -= 2;
        buf[i..i + 2].copy_from_slice(&PAIRS[d..d + 2]);
    }
    if v >= 10 {
        let d = v as usize * 2;
        i -= 2;
        buf[i..i + 2].copy_from_slice(&PAIRS[d..d + 2]);
    } else {
        i -= 1;
        // v < 10.
        buf[i] = b'0' + v as u8;
    }
    &buf[i..]
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

/// base64url with padding of a 32-byte tag (given as eight big-endian words) → 44 characters.
fn encode_base64url_32(words: &[u32; 8], out: &mut [u8; 44]) {
    let char_at = |n: u64, shift: u32| URL_ALPHABET[((n >> shift) & 63) as usize];
    // Three 12-byte groups (three words each, the last one short): 96 bits = 16 characters.
    for (g, chunk) in out.chunks_mut(16).enumerate() {
        let w = |i: usize| u64::from(words.get(3 * g + i).copied().unwrap_or(0));
        // 96 bits as two 48-bit halves → 8 characters each.
        let hi = (w(0) << 16) | (w(1) >> 16);
        let lo = ((w(1) & 0xffff) << 32) | w(2);
        for (i, c) in chunk.iter_mut().enumerate() {
            let (n, k) = if i < 8 { (hi, i) } else { (lo, i - 8) };
            *c = char_at(n, 42 - 6 * k as u32);
        }
    }
    // 32 bytes = 10·3 + 2: the last group holds 8 bytes → 11 characters and one '='.
    out[43] = b'=';
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

    fn tag_bytes(words: [u32; 8]) -> [u8; 32] {
        let mut out = [0u8; 32];
        for (chunk, w) in out.chunks_exact_mut(4).zip(words) {
            chunk.copy_from_slice(&w.to_be_bytes());
        }
        out
    }

    /// A plain base64url (padded) encoder over bytes, the oracle for the word-wise one.
    fn naive_base64url(bytes: &[u8]) -> String {
        let mut out = String::new();
        for c in bytes.chunks(3) {
            let n = c
                .iter()
                .enumerate()
                .fold(0u32, |n, (i, &b)| n | (u32::from(b) << (16 - 8 * i)));
            for k in 0..4 {
                if k <= c.len() {
                    out.push(URL_ALPHABET[((n >> (18 - 6 * k)) & 63) as usize] as char);
                } else {
                    out.push('=');
                }
            }
        }
        out
    }

    #[test]
    fn encodes_like_base64url_padded() {
        let mut out = [0u8; 44];
        encode_base64url_32(&[u32::MAX; 8], &mut out);
        assert_eq!(&out, b"__________________________________________8=");
        encode_base64url_32(&[0; 8], &mut out);
        assert_eq!(&out, b"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=");
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..1000 {
            let words: [u32; 8] = core::array::from_fn(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u32
            });
            encode_base64url_32(&words, &mut out);
            assert_eq!(
                core::str::from_utf8(&out).unwrap(),
                naive_base64url(&tag_bytes(words))
            );
        }
    }

    #[test]
    fn decimal_writer() {
        let mut b = [0u8; 20];
        for v in [0u64, 7, 9, 10, 99, 100, 101, 999, 1_713_398_400, u64::MAX] {
            assert_eq!(write_decimal(v, &mut b), v.to_string().as_bytes());
        }
        for v in (0..100_000u64).step_by(7) {
            assert_eq!(write_decimal(v, &mut b), v.to_string().as_bytes());
        }
    }

    fn hex(tag: [u8; 32]) -> String {
        let mut out = [0u8; 64];
        crate::sign::signature_hex_into(&tag, &mut out);
        String::from_utf8(out.to_vec()).unwrap()
    }

    fn mac_of(key: &HmacKey, parts: &[&[u8]]) -> [u32; 8] {
        key.mac(&mut [0u8; 64], 0, parts)
    }

    /// RFC 4231 test cases 1, 2 and 6 (short key, "Jefe", 131-byte key hashed first).
    #[test]
    fn rfc4231_vectors() {
        let mac = |key: &[u8], msg: &[u8]| {
            let k = HmacKey::from_key_bytes(key);
            hex(tag_bytes(mac_of(&k, &[msg])))
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

    /// Every message length 0..=1100 (all block and padding boundaries, bodies of many
    /// blocks), split into parts at varied points, agrees with a plain SHA-256 HMAC built
    /// from the `sha2` hasher.
    #[test]
    fn every_length_matches_the_hasher() {
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
        let msg: Vec<u8> = (0..1100u32).map(|i| (i * 31 + 7) as u8).collect();
        for len in 0..=msg.len() {
            let m = &msg[..len];
            let want = naive(m);
            let (a, rest) = m.split_at(len / 3);
            let (b, c) = rest.split_at(rest.len() / 2);
            assert_eq!(tag_bytes(mac_of(&key, &[m]))[..], want[..], "len {len}");
            assert_eq!(
                tag_bytes(mac_of(&key, &[a, b, c]))[..],
                want[..],
                "len {len}"
            );
            // The first bytes already in the block buffer (as `sign` does).
            let h = len % 64;
            let mut head = [0xa5u8; 64];
            head[..h].copy_from_slice(&m[..h]);
            let tag = key.mac(&mut head, h, &[&m[h..]]);
            assert_eq!(tag_bytes(tag)[..], want[..], "len {len}, head {h}");
        }
    }

    /// `sign` is the HMAC of `timestamp ‖ method ‖ path ‖ body` (checked against the hasher),
    /// for short heads (written into the block buffer) and long ones (streamed).
    #[test]
    fn sign_frames_the_message() {
        let long_path = format!("/{}", "p".repeat(70));
        let body = br#"{"order":{"salt":1}}"#;
        let key = HmacKey::from_key_bytes(b"k");
        for (ts, path) in [
            (1_713_398_400u64, "/order"),
            (7, "/order"),
            (u64::MAX, "/orders"),
            (1_713_398_400, long_path.as_str()),
        ] {
            let mut whole = format!("{ts}POST{path}").into_bytes();
            whole.extend_from_slice(body);
            let want = naive_base64url(&tag_bytes(mac_of(&key, &[&whole])));
            assert_eq!(
                key.sign(ts, "POST", path, body).as_str(),
                want,
                "{ts} {path}"
            );
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
