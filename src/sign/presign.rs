//! Precomputed-nonce ECDSA: the expensive half of a signature (R = k·G, r, k⁻¹) is computed
//! before the order exists, leaving `s = k⁻¹·(z + r·d) mod n` — three scalar operations — for
//! the critical path.
//!
//! **Opt-in.** RFC 6979 stays the default everywhere: it is deterministic and reproduces the
//! known-answer vectors. Pooled signatures are equally valid ECDSA signatures (they recover to
//! the same address and the exchange verifies them the same way) but are **not reproducible**:
//! each uses a fresh uniformly random nonce from the OS CSPRNG. The pool holds secrets (the
//! inverted nonces) in memory exactly as the signer holds its key: zeroized when an entry is
//! consumed or dropped, never printed.
//!
//! **Never twice.** The pool is shared by all clones of a [`Signer`](super::Signer); an entry
//! is removed under a lock and moved into the one signature that uses it, then erased. When the
//! pool is empty the signer falls back to RFC 6979 (it never blocks and never reuses), and the
//! fallback is counted ([`NoncePool::fallbacks`]).
//!
//! **Refill: your choice of thread.** [`NoncePool::spawn_refill_thread`] runs a plain thread
//! that refills whenever signing takes the pool below half its depth. In a tokio application,
//! run the same loop on the blocking pool instead (the crate does not depend on tokio):
//!
//! ```text
//! let pool = signer.enable_nonce_pool(1024);
//! tokio::task::spawn_blocking(move || loop {
//!     pool.refill();
//!     pool.wait_for_demand(std::time::Duration::from_millis(50));
//! });
//! ```
//!
//! All scalar arithmetic is libsecp256k1's constant-time code (`SecretKey::mul_tweak`,
//! `add_tweak`, `negate`); inversion is Fermat's `k^(n−2)` with a fixed, public exponent,
//! amortised over a chunk of nonces with Montgomery's batch trick.

use core::fmt;
use core::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use secp256k1::{PublicKey, Scalar, SecretKey};

use super::{SignError, Signature};

/// The curve order n.
const N: [u8; 32] = [
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe,
    0xba, 0xae, 0xdc, 0xe6, 0xaf, 0x48, 0xa0, 0x3b, 0xbf, 0xd2, 0x5e, 0x8c, 0xd0, 0x36, 0x41, 0x41,
];
/// n − 2, the Fermat inversion exponent.
const N_MINUS_2: [u8; 32] = [
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe,
    0xba, 0xae, 0xdc, 0xe6, 0xaf, 0x48, 0xa0, 0x3b, 0xbf, 0xd2, 0x5e, 0x8c, 0xd0, 0x36, 0x41, 0x3f,
];
/// ⌊n / 2⌋: signatures with a larger `s` are flipped to low-s.
const HALF_N: [u8; 32] = [
    0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0x5d, 0x57, 0x6e, 0x73, 0x57, 0xa4, 0x50, 0x1d, 0xdf, 0xe9, 0x2f, 0x46, 0x68, 0x1b, 0x20, 0xa0,
];

/// Nonces inverted together (one Fermat inversion per chunk).
const CHUNK: usize = 32;

/// One precomputed nonce: k⁻¹, r = x(k·G) mod n, and the parity of y(k·G).
struct Entry {
    k_inv: SecretKey,
    r: [u8; 32],
    y_odd: bool,
}

impl Drop for Entry {
    fn drop(&mut self) {
        self.k_inv.non_secure_erase();
    }
}

/// A pool of precomputed ECDSA nonces, shared by every clone of a [`Signer`](super::Signer).
///
/// Create it with [`Signer::enable_nonce_pool`](super::Signer::enable_nonce_pool), keep it
/// filled with [`refill`](Self::refill) (from any thread or a `tokio::task::spawn_blocking`)
/// or the built-in [`spawn_refill_thread`](Self::spawn_refill_thread), and sign through
/// [`Signer::sign_prehash_presigned`](super::Signer::sign_prehash_presigned) or
/// `OrderSigner::presigned(true)`.
///
/// ```
/// use polyclob::sign::{Signer, eip712::recover_address};
///
/// let signer = Signer::from_hex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")?;
/// let pool = signer.enable_nonce_pool(64);
/// assert_eq!(pool.refill(), 64);
/// let digest = [0x42u8; 32];
/// let a = signer.sign_prehash_presigned(&digest)?;
/// let b = signer.sign_prehash_presigned(&digest)?;
/// assert_ne!(a, b); // fresh nonces: valid, not reproducible
/// assert_eq!(recover_address(&digest, &a)?, signer.address());
/// assert_eq!(recover_address(&digest, &b)?, signer.address());
/// assert_eq!((pool.len(), pool.fallbacks()), (62, 0));
/// # Ok::<(), polyclob::sign::SignError>(())
/// ```
pub struct NoncePool {
    entries: Mutex<Vec<Entry>>,
    depth: usize,
    low_water: usize,
    pooled: AtomicU64,
    fallbacks: AtomicU64,
    refilled: AtomicU64,
    demand: AtomicBool,
    wake: Condvar,
    wake_lock: Mutex<()>,
}

impl NoncePool {
    pub(crate) fn new(depth: usize) -> Self {
        let depth = depth.max(1);
        Self {
            entries: Mutex::new(Vec::with_capacity(depth)),
            depth,
            low_water: depth / 2,
            pooled: AtomicU64::new(0),
            fallbacks: AtomicU64::new(0),
            refilled: AtomicU64::new(0),
            demand: AtomicBool::new(false),
            wake: Condvar::new(),
            wake_lock: Mutex::new(()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Entry>> {
        // A panic while holding the lock cannot leave a half-used entry behind (entries are
        // moved out whole), so a poisoned pool is still sound.
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The configured depth (the refill target).
    #[must_use]
    pub const fn depth(&self) -> usize {
        self.depth
    }

    /// Entries ready now.
    #[must_use]
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no entry is ready.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Signatures made from the pool so far.
    #[must_use]
    pub fn pooled(&self) -> u64 {
        self.pooled.load(Ordering::Relaxed)
    }

    /// Signatures that fell back to RFC 6979 because the pool was empty.
    #[must_use]
    pub fn fallbacks(&self) -> u64 {
        self.fallbacks.load(Ordering::Relaxed)
    }

    /// Entries computed so far.
    #[must_use]
    pub fn refilled(&self) -> u64 {
        self.refilled.load(Ordering::Relaxed)
    }

    /// Fills the pool up to its depth, computing outside the lock; returns the number added.
    /// Safe to call from several threads (they may overshoot by a chunk, never over capacity).
    pub fn refill(&self) -> usize {
        let mut added = 0;
        loop {
            let missing = self.depth.saturating_sub(self.len());
            if missing == 0 {
                break;
            }
            let chunk = make_entries(missing.min(CHUNK));
            if chunk.is_empty() {
                break; // entropy failure: leave it to the RFC 6979 fallback
            }
            let mut entries = self.lock();
            for e in chunk {
                // Never grow past the preallocated capacity (no reallocation while holding
                // secrets); a surplus entry is dropped and erased.
                if entries.len() < self.depth {
                    entries.push(e);
                    added += 1;
                }
            }
        }
        self.refilled.fetch_add(added as u64, Ordering::Relaxed);
        added
    }

    /// Removes one entry (by move) for a signature.
    fn take(&self) -> Option<Entry> {
        let (entry, remaining) = {
            let mut entries = self.lock();
            let e = entries.pop();
            (e, entries.len())
        };
        if remaining < self.low_water && !self.demand.swap(true, Ordering::AcqRel) {
            self.wake.notify_one();
        }
        entry
    }

    /// Blocks until a signer takes the pool below half its depth (or `timeout` passes);
    /// returns whether there is demand. For a refill loop of your own.
    pub fn wait_for_demand(&self, timeout: Duration) -> bool {
        let guard = self
            .wake_lock
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if self.demand.swap(false, Ordering::AcqRel) || self.len() < self.low_water {
            return true;
        }
        let (_guard, _) = self
            .wake
            .wait_timeout(guard, timeout)
            .unwrap_or_else(PoisonError::into_inner);
        self.demand.swap(false, Ordering::AcqRel) || self.len() < self.low_water
    }

    /// Starts a plain thread that keeps the pool filled: it refills to the depth whenever a
    /// signature takes it below half. Stops when the returned handle is dropped.
    #[must_use]
    pub fn spawn_refill_thread(self: &Arc<Self>) -> RefillThread {
        let pool = Arc::clone(self);
        let stop = Arc::new(AtomicBool::new(false));
        let stop_flag = Arc::clone(&stop);
        let handle = std::thread::Builder::new()
            .name("polyclob-nonce-refill".into())
            .spawn(move || {
                pool.refill();
                while !stop_flag.load(Ordering::Acquire) {
                    if pool.wait_for_demand(Duration::from_millis(50)) {
                        pool.refill();
                    }
                }
            })
            .ok();
        RefillThread {
            pool: Arc::clone(self),
            stop,
            handle,
        }
    }

    /// Signs `digest` with a pooled nonce, or returns `None` when the pool is empty.
    pub(crate) fn sign(&self, d: &SecretKey, digest: &[u8; 32]) -> Option<Signature> {
        let entry = self.take()?;
        let sig = sign_with_entry(&entry, d, digest);
        drop(entry);
        if sig.is_some() {
            self.pooled.fetch_add(1, Ordering::Relaxed);
        }
        sig
    }

    pub(crate) fn count_fallback(&self) {
        self.fallbacks.fetch_add(1, Ordering::Relaxed);
    }
}

impl fmt::Debug for NoncePool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NoncePool")
            .field("depth", &self.depth)
            .field("ready", &self.len())
            .field("pooled", &self.pooled())
            .field("fallbacks", &self.fallbacks())
            .finish_non_exhaustive()
    }
}

/// The background refill thread of a [`NoncePool`]; stops and joins when dropped.
pub struct RefillThread {
    pool: Arc<NoncePool>,
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

impl RefillThread {
    /// Whether the thread could be started.
    #[must_use]
    pub const fn is_running(&self) -> bool {
        self.handle.is_some()
    }
}

impl Drop for RefillThread {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        self.pool.wake.notify_all();
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

impl fmt::Debug for RefillThread {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RefillThread")
            .field("running", &self.is_running())
            .finish()
    }
}

/// `a ≥ b` for big-endian 256-bit numbers (public values only: not constant-time).
fn ge(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a >= b
}

/// `z mod n` for a 256-bit digest (< 2n, so one subtraction suffices). The digest is public.
fn reduce(z: &[u8; 32]) -> [u8; 32] {
    if !ge(z, &N) {
        return *z;
    }
    let mut out = [0u8; 32];
    let mut borrow = 0i16;
    for i in (0..32).rev() {
        let mut v = i16::from(z[i]) - i16::from(N[i]) - borrow;
        borrow = i16::from(v < 0);
        if v < 0 {
            v += 256;
        }
        // 0 ≤ v < 256 here.
        out[i] = v as u8;
    }
    out
}

fn mul(a: SecretKey, b: &SecretKey) -> Option<SecretKey> {
    let mut t = Scalar::from(*b);
    let r = a.mul_tweak(&t).ok();
    t.non_secure_erase();
    r
}

/// `a^(n−2) = a⁻¹` by left-to-right square-and-multiply over the fixed public exponent.
fn invert(a: &SecretKey) -> Option<SecretKey> {
    let mut acc = *a; // the exponent's top bit is 1
    let mut first = true;
    for byte in N_MINUS_2 {
        for bit in (0..8).rev() {
            if first {
                first = false;
                continue;
            }
            acc = mul(acc, &acc)?;
            if (byte >> bit) & 1 == 1 {
                acc = mul(acc, a)?;
            }
        }
    }
    Some(acc)
}

/// Computes up to `n` fresh entries (fewer only if the OS entropy source fails).
fn make_entries(n: usize) -> Vec<Entry> {
    let ctx = super::ecdsa::secp256k1_context();
    let mut ks: Vec<SecretKey> = Vec::with_capacity(n);
    let mut rs: Vec<([u8; 32], bool)> = Vec::with_capacity(n);
    let mut attempts = 0;
    while ks.len() < n && attempts < 4 * n + 8 {
        attempts += 1;
        let mut seed = zeroize::Zeroizing::new([0u8; 32]);
        if getrandom::fill(seed.as_mut()).is_err() {
            break;
        }
        // Rejects 0 and values ≥ n (probability ~2⁻¹²⁸): uniform over [1, n).
        let Ok(k) = SecretKey::from_byte_array(*seed) else {
            continue;
        };
        let point = PublicKey::from_secret_key(ctx, &k).serialize();
        let mut x = [0u8; 32];
        x.copy_from_slice(&point[1..]);
        // r = x mod n; x ≥ n (probability ~2⁻¹²⁸) would need an x-reduced recovery id that
        // v = 27/28 cannot express: skip such k. r = 0 is impossible for x < n on this curve.
        if ge(&x, &N) {
            let mut k = k;
            k.non_secure_erase();
            continue;
        }
        ks.push(k);
        rs.push((x, point[0] == 0x03));
    }
    if ks.is_empty() {
        return Vec::new();
    }
    // Montgomery batch inversion: prefix products, one inversion, then unwind.
    let m = ks.len();
    let mut prefix: Vec<SecretKey> = Vec::with_capacity(m);
    prefix.push(ks[0]);
    for i in 1..m {
        let Some(p) = mul(prefix[i - 1], &ks[i]) else {
            return Vec::new();
        };
        prefix.push(p);
    }
    let Some(mut inv) = invert(&prefix[m - 1]) else {
        return Vec::new();
    };
    let mut out: Vec<Entry> = Vec::with_capacity(m);
    for i in (0..m).rev() {
        let k_inv = if i == 0 {
            inv
        } else {
            let Some(k_inv) = mul(inv, &prefix[i - 1]) else {
                return Vec::new();
            };
            let Some(next) = mul(inv, &ks[i]) else {
                return Vec::new();
            };
            inv.non_secure_erase();
            inv = next;
            k_inv
        };
        out.push(Entry {
            k_inv,
            r: rs[i].0,
            y_odd: rs[i].1,
        });
    }
    for k in ks.iter_mut().chain(prefix.iter_mut()) {
        k.non_secure_erase();
    }
    out
}

/// `s = k⁻¹·(z + r·d) mod n`, normalised to low-s (flipping the recovery parity).
fn sign_with_entry(entry: &Entry, d: &SecretKey, digest: &[u8; 32]) -> Option<Signature> {
    let r = Scalar::from_be_bytes(entry.r).ok()?;
    let z = Scalar::from_be_bytes(reduce(digest)).ok()?;
    let mut rd = d.mul_tweak(&r).ok()?;
    let sum = rd.add_tweak(&z);
    rd.non_secure_erase();
    let mut sum = sum.ok()?; // z + r·d = 0 has probability ~2⁻²⁵⁶
    let s = mul(entry.k_inv, &sum);
    sum.non_secure_erase();
    let mut s = s?.secret_bytes();
    let mut y_odd = entry.y_odd;
    if ge(&s, &HALF_N) && s != HALF_N {
        s = SecretKey::from_byte_array(s).ok()?.negate().secret_bytes();
        y_odd = !y_odd;
    }
    let mut rs = [0u8; 64];
    rs[..32].copy_from_slice(&entry.r);
    rs[32..].copy_from_slice(&s);
    Some(Signature::from_parts(&rs, y_odd))
}

/// Signs with a pooled nonce through `pool`, falling back to RFC 6979 with `fallback`.
pub(crate) fn sign_or_fallback(
    pool: &NoncePool,
    d: &SecretKey,
    digest: &[u8; 32],
    fallback: impl FnOnce() -> Result<Signature, SignError>,
) -> Result<Signature, SignError> {
    if let Some(sig) = pool.sign(d, digest) {
        return Ok(sig);
    }
    pool.count_fallback();
    fallback()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants() {
        // n − 2 and ⌊n/2⌋ derived from n.
        let mut n2 = N;
        n2[31] -= 2;
        assert_eq!(n2, N_MINUS_2);
        let mut half = [0u8; 32];
        let mut carry = 0u8;
        for i in 0..32 {
            half[i] = (carry << 7) | (N[i] >> 1);
            carry = N[i] & 1;
        }
        assert_eq!(half, HALF_N);
        assert_eq!(reduce(&N), [0u8; 32]);
        let mut n_plus_5 = N;
        n_plus_5[31] += 5;
        let mut five = [0u8; 32];
        five[31] = 5;
        assert_eq!(reduce(&n_plus_5), five);
        assert_eq!(reduce(&[0xff; 32])[..15], [0u8; 15]);
    }

    #[test]
    fn inversion_and_batch_agree() {
        let entries = make_entries(7);
        assert_eq!(entries.len(), 7);
        let three = SecretKey::from_byte_array({
            let mut b = [0u8; 32];
            b[31] = 3;
            b
        })
        .unwrap();
        let inv = invert(&three).unwrap();
        let one = mul(inv, &three).unwrap();
        let mut want = [0u8; 32];
        want[31] = 1;
        assert_eq!(one.secret_bytes(), want);
        // Distinct r values.
        let mut rs: Vec<[u8; 32]> = entries.iter().map(|e| e.r).collect();
        rs.sort_unstable();
        rs.dedup();
        assert_eq!(rs.len(), 7);
    }
}
