//! The private key owner: parses the key once, signs digests, and keeps the per-signer clock.

use core::fmt;
use core::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use alloy_primitives::Address;
use zeroize::Zeroizing;

use super::ecdsa::DefaultBackend;
use super::signature::hex_val;
use super::{SignError, Signature};

/// An Ethereum private key, ready to sign.
///
/// The key is parsed once; clones share it (one `Arc`), so cloning is cheap and the secret is
/// held in one place, zeroized when the last clone drops. `Debug` shows only the address.
///
/// Signing uses RFC 6979 deterministic nonces, so the same digest always gives the same
/// signature (the known-answer vectors depend on it).
///
/// ```
/// use polyclob::sign::Signer;
///
/// // Hardhat/Anvil account #0: a public test key, never fund it.
/// let signer = Signer::from_hex("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")?;
/// assert_eq!(signer.address().to_string(), "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
/// assert!(!format!("{signer:?}").contains("ac0974"));
/// # Ok::<(), polyclob::sign::SignError>(())
/// ```
#[derive(Clone)]
pub struct Signer {
    inner: Arc<Inner>,
}

struct Inner {
    key: DefaultBackend,
    address: Address,
    /// Last order timestamp handed out (ms); makes V2 `timestamp`s strictly increasing.
    last_timestamp_ms: AtomicU64,
    /// Precomputed nonces, when enabled with [`Signer::with_nonce_pool`].
    #[cfg(feature = "presign")]
    presign: Option<super::presign::PresignKey>,
}

impl Signer {
    /// Parses a hex private key, with or without `0x`.
    ///
    /// # Errors
    /// [`SignError::InvalidPrivateKey`] for a wrong length, a non-hex digit, or a scalar that is
    /// zero or not below the curve order. The error never contains key material.
    pub fn from_hex(text: &str) -> Result<Self, SignError> {
        let t = text.trim();
        let t = t
            .strip_prefix("0x")
            .or_else(|| t.strip_prefix("0X"))
            .unwrap_or(t)
            .as_bytes();
        if t.len() != 64 {
            return Err(SignError::InvalidPrivateKey("expected 64 hex digits"));
        }
        let mut secret = Zeroizing::new([0u8; 32]);
        for (i, pair) in t.chunks_exact(2).enumerate() {
            let (Some(hi), Some(lo)) = (hex_val(pair[0]), hex_val(pair[1])) else {
                return Err(SignError::InvalidPrivateKey("non-hex digit"));
            };
            secret[i] = (hi << 4) | lo;
        }
        Self::from_bytes(&secret)
    }

    /// Builds a signer from a 32-byte big-endian secret. The caller should zeroize its copy.
    ///
    /// # Errors
    /// [`SignError::InvalidPrivateKey`] when the scalar is zero or not below the curve order.
    pub fn from_bytes(secret: &[u8; 32]) -> Result<Self, SignError> {
        let key = DefaultBackend::from_bytes(secret)?;
        let address = key.address();
        Ok(Self {
            inner: Arc::new(Inner {
                key,
                address,
                last_timestamp_ms: AtomicU64::new(0),
                #[cfg(feature = "presign")]
                presign: None,
            }),
        })
    }

    /// The signer's (EOA) address: `POLY_ADDRESS`, and the order's `signer` for EOA, proxy and
    /// Safe wallets.
    #[must_use]
    pub fn address(&self) -> Address {
        self.inner.address
    }

    /// Signs a 32-byte digest (an EIP-712 signing hash): RFC 6979, low-s, `v` = 27/28.
    ///
    /// # Errors
    /// Only if the backend fails, which a valid key does not.
    pub fn sign_prehash(&self, digest: &[u8; 32]) -> Result<Signature, SignError> {
        #[cfg(feature = "presign")]
        if let Some(sig) = self.inner.presign.as_ref().and_then(|p| p.sign(digest)) {
            return Ok(sig);
        }
        self.inner.key.sign_prehash(digest)
    }

    /// A signer for the same key that signs with precomputed nonces from `pool` (feature
    /// `presign`; see [`presign`](super::presign) for the trade-offs).
    ///
    /// Signatures stay valid ECDSA over the same digests but are no longer deterministic.
    /// When the pool is empty, signing falls back to RFC 6979 and counts the fallback. Clones of
    /// the returned signer share the pool and the order clock; `self` is unchanged.
    ///
    /// ```
    /// use polyclob::sign::Signer;
    /// use polyclob::sign::presign::{NoncePool, PoolConfig, Refill};
    ///
    /// let key = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
    /// let pool = NoncePool::new(PoolConfig::new().depth(4).refill(Refill::Manual));
    /// pool.refill();
    /// let signer = Signer::from_hex(key)?.with_nonce_pool(pool.clone())?;
    /// let sig = signer.sign_prehash(&[7u8; 32])?;
    /// let who = polyclob::sign::eip712::recover_address(&[7u8; 32], &sig)?;
    /// assert_eq!(who, signer.address());
    /// assert_eq!(pool.stats().taken, 1);
    /// # Ok::<(), polyclob::sign::SignError>(())
    /// ```
    ///
    /// # Errors
    /// Only if the key cannot be re-read as a scalar, which a valid signer's key always can.
    #[cfg(feature = "presign")]
    pub fn with_nonce_pool(&self, pool: super::presign::NoncePool) -> Result<Self, SignError> {
        let secret = self.inner.key.secret_bytes();
        let presign = super::presign::PresignKey::new(&secret, pool)?;
        Ok(Self {
            inner: Arc::new(Inner {
                key: self.inner.key.clone(),
                address: self.inner.address,
                last_timestamp_ms: AtomicU64::new(
                    self.inner.last_timestamp_ms.load(Ordering::Relaxed),
                ),
                presign: Some(presign),
            }),
        })
    }

    /// The nonce pool this signer draws from, if any (for its [`stats`](super::presign::NoncePool::stats)).
    #[cfg(feature = "presign")]
    #[must_use]
    pub fn nonce_pool(&self) -> Option<&super::presign::NoncePool> {
        self.inner
            .presign
            .as_ref()
            .map(super::presign::PresignKey::pool)
    }

    /// A strictly increasing millisecond timestamp for V2/V3 orders: the wall clock, or one
    /// more than the last value this signer (or any of its clones) handed out.
    ///
    /// Two orders with the same salt collision risk and identical timestamps would hash alike;
    /// a per-signer monotonic clock removes the second half of that risk and survives the wall
    /// clock stepping backwards.
    #[must_use]
    pub fn next_timestamp_ms(&self) -> u64 {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        let mut last = self.inner.last_timestamp_ms.load(Ordering::Relaxed);
        loop {
            let next = if now > last {
                now
            } else {
                last.saturating_add(1)
            };
            match self.inner.last_timestamp_ms.compare_exchange_weak(
                last,
                next,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return next,
                Err(seen) => last = seen,
            }
        }
    }
}

impl fmt::Debug for Signer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Signer")
            .field("address", &self.inner.address)
            .field("key", &"<redacted>")
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

    #[test]
    fn parses_with_and_without_prefix() {
        let a = Signer::from_hex(KEY).unwrap();
        let b = Signer::from_hex(&format!("0x{KEY}")).unwrap();
        let c = Signer::from_hex(&KEY.to_uppercase()).unwrap();
        assert_eq!(a.address(), b.address());
        assert_eq!(a.address(), c.address());
        assert_eq!(
            a.address().to_string(),
            "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
        );
    }

    #[test]
    fn rejects_bad_keys_without_leaking() {
        let cases = [
            ("", "expected 64 hex digits"),
            ("0x1234", "expected 64 hex digits"),
            (&KEY[..63], "expected 64 hex digits"),
            (
                "zz0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
                "non-hex digit",
            ),
            (
                "0000000000000000000000000000000000000000000000000000000000000000",
                "not a valid secp256k1 scalar",
            ),
            (
                "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141",
                "not a valid secp256k1 scalar",
            ),
        ];
        for (text, why) in cases {
            let err = Signer::from_hex(text).unwrap_err();
            assert_eq!(err, SignError::InvalidPrivateKey(why), "{text}");
            assert!(!err.to_string().contains("0974bec"));
        }
    }

    #[test]
    fn debug_is_redacted() {
        let s = Signer::from_hex(KEY).unwrap();
        let dbg = format!("{s:?}");
        assert!(dbg.contains("redacted"));
        assert!(!dbg.to_lowercase().contains("ac0974"));
    }

    #[test]
    fn timestamps_strictly_increase_across_clones() {
        let s = Signer::from_hex(KEY).unwrap();
        let c = s.clone();
        let mut last = 0;
        for i in 0..1000 {
            let t = if i % 2 == 0 {
                s.next_timestamp_ms()
            } else {
                c.next_timestamp_ms()
            };
            assert!(t > last);
            last = t;
        }
    }

    #[test]
    fn signer_is_send_sync_clone() {
        fn assert_traits<T: Send + Sync + Clone>() {}
        assert_traits::<Signer>();
    }
}
