//! Precomputed-nonce ECDSA: the scalar multiplication happens before the order exists.
//!
//! An ECDSA signature is `r = x(k·G) mod n`, `s = k⁻¹·(z + r·d) mod n`. Everything expensive
//! (`k·G`, the inversion) depends only on the secret nonce `k`, not on the message digest `z`.
//! With `k` drawn uniformly at random from the operating system's CSPRNG, those values can be
//! computed ahead of time and kept in a pool; the order path then pays two scalar
//! multiplications and an addition.
//!
//! # Trade-offs (read before enabling)
//!
//! - **Not reproducible.** RFC 6979 signatures are a function of (key, digest); pooled ones are
//!   random. Both are equally valid for the exchange, but the known-answer vectors, which are
//!   RFC 6979, cannot be reproduced in this mode. RFC 6979 stays the default.
//! - **Secrets in memory.** Each pool entry holds `k⁻¹`; anyone who learns it and the matching
//!   signature learns the private key. Entries live in their own memory pages (excluded from
//!   core dumps on Linux), are zeroized in place when taken or discarded, and never appear in
//!   `Debug` output.
//! - **Never reused: across clones of the signer, threads, and processes.** An entry is moved
//!   out of the pool under its lock and its slot zeroized, and it is destroyed after one
//!   signature, so no two signatures share a nonce. A child process created by `fork()` never
//!   uses an entry generated before the fork: on Linux the entries live in
//!   `MADV_WIPEONFORK` pages, so the child inherits none of them; on every Unix a
//!   `pthread_atfork` handler marks the fork, and the child's first use of the pool discards
//!   (zeroizes) what it copied. A forked child's pool is therefore empty: it signs with
//!   RFC 6979 (counted in [`PoolStats::fallbacks`]) until it refills from its own randomness —
//!   at once with [`Refill::Thread`] (the child gets a refill thread of its own), on the next
//!   [`NoncePool::refill`] with [`Refill::Manual`]; a [`Refill::Tokio`] pool waits for a manual
//!   refill, since a runtime does not survive a fork. Each detected fork is counted in
//!   [`PoolStats::forks`]. When the pool is empty the signer falls back to RFC 6979 (never
//!   blocks, never reuses) and counts the fallback.
//! - **Entropy.** Nonces come from `getrandom` (the OS CSPRNG) and are uniform over `[1, n)`
//!   by rejection sampling.
//!
//! # What cannot be detected: snapshots and copied process images
//!
//! Anything that resumes a copy of the process's memory without a `fork()` replays the pool
//! too, and no check inside the process can tell: a virtual machine restored from a snapshot
//! (or several clones started from one), a process checkpointed and restored (CRIU), a memory
//! image copied by other means, or a fork made with a raw `clone` system call on a kernel
//! without `MADV_WIPEONFORK` (Linux before 4.14, or other Unixes). Two such copies that both
//! sign would share nonces and reveal the key. Call [`NoncePool::drain`] first thing after such
//! a restore (every entry is zeroized, none is used), or do not enable the pool on machines
//! that are snapshotted while running:
//!
//! ```
//! use polyclob::sign::presign::{NoncePool, PoolConfig, Refill};
//!
//! let pool = NoncePool::new(PoolConfig::new().depth(16).refill(Refill::Manual));
//! pool.refill();
//! // ... the VM is snapshotted here and later restored; the restore hook runs:
//! let discarded = pool.drain();
//! assert_eq!(discarded, 16);
//! assert_eq!(pool.stats().available, 0);
//! // New entries come from the restored system's randomness, drawn after the restore.
//! pool.refill();
//! ```
//!
//! Arithmetic is `k256`'s constant-time scalar field (inversion included), so timing does not
//! depend on secret values.

use core::fmt;
use core::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, TryLockError, Weak};
use std::time::Duration;

use k256::elliptic_curve::ff::PrimeField;
use k256::elliptic_curve::ops::Reduce;
use k256::elliptic_curve::point::AffineCoordinates;
use k256::elliptic_curve::scalar::IsHigh;
use k256::{FieldBytes, ProjectivePoint, Scalar};
use zeroize::{Zeroize, Zeroizing};

use super::fork::{ForkCanary, SecretSlots};
use super::{SignError, Signature};

/// One precomputed nonce: `k⁻¹`, `r`, and the parity of `R.y`. Zeroized on drop.
struct Presig {
    k_inv: Scalar,
    r: Scalar,
    r_bytes: [u8; 32],
    y_odd: bool,
}

impl Drop for Presig {
    fn drop(&mut self) {
        self.k_inv.zeroize();
        self.r.zeroize();
        self.r_bytes.zeroize();
        self.y_odd = false;
    }
}

impl Presig {
    /// Draws a uniform nonce from the OS and precomputes `(k⁻¹, r, parity)`.
    fn generate() -> Result<Self, SignError> {
        loop {
            let mut bytes = Zeroizing::new([0u8; 32]);
            getrandom::fill(bytes.as_mut())
                .map_err(|_| SignError::Backend("operating system entropy unavailable"))?;
            // Rejection sampling: uniform over [1, n) (rejects with probability ~2⁻¹²⁸).
            let Some(k) = Option::<Scalar>::from(Scalar::from_repr((*bytes).into())) else {
                continue;
            };
            if bool::from(k.is_zero()) {
                continue;
            }
            let point = ProjectivePoint::mul_by_generator(&k).to_affine();
            let x: FieldBytes = point.x();
            // An x at or above n would need v = 29/30, which Ethereum signatures cannot carry;
            // draw again (probability ~2⁻¹²⁸).
            let Some(r) = Option::<Scalar>::from(Scalar::from_repr(x)) else {
                continue;
            };
            if bool::from(r.is_zero()) {
                continue;
            }
            let Some(k_inv) = Option::<Scalar>::from(k.invert()) else {
                continue;
            };
            let mut k = k;
            k.zeroize();
            let mut r_bytes = [0u8; 32];
            r_bytes.copy_from_slice(&x);
            return Ok(Self {
                k_inv,
                r,
                r_bytes,
                y_odd: bool::from(point.y_is_odd()),
            });
        }
    }

    /// `s = k⁻¹·(z + r·d)`, low-s normalised; `None` in the negligible case `s = 0`.
    fn sign(self, d: &Scalar, digest: &[u8; 32]) -> Option<Signature> {
        let z = <Scalar as Reduce<FieldBytes>>::reduce(&(*digest).into());
        let mut s = self.k_inv * (z + self.r * d);
        if bool::from(s.is_zero()) {
            return None;
        }
        let mut y_odd = self.y_odd;
        if bool::from(s.is_high()) {
            s = -s;
            y_odd = !y_odd;
        }
        let mut rs = Zeroizing::new([0u8; 64]);
        rs[..32].copy_from_slice(&self.r_bytes);
        rs[32..].copy_from_slice(&s.to_repr());
        Some(Signature::from_parts(&rs, y_odd))
    }
}

/// How the pool is kept full.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refill {
    /// A dedicated OS thread refills whenever the pool drops below its low-water mark. It exits
    /// when the last handle to the pool is dropped.
    Thread,
    /// A task on the current tokio runtime refills cooperatively, yielding between entries
    /// (each costs one scalar multiplication, tens of microseconds). Must be enabled from
    /// within a runtime.
    Tokio,
    /// No background work: the caller runs [`NoncePool::refill`] when convenient (for example
    /// in an idle loop).
    Manual,
}

/// Sizing and refill strategy of a [`NoncePool`].
///
/// ```
/// use polyclob::sign::presign::{PoolConfig, Refill};
///
/// let config = PoolConfig::new().depth(256).low_water(64).refill(Refill::Manual);
/// assert_eq!(config.depth_value(), 256);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
pub struct PoolConfig {
    depth: usize,
    low_water: usize,
    refill: Refill,
}

impl Default for PoolConfig {
    fn default() -> Self {
        Self::new()
    }
}

impl PoolConfig {
    /// Default configuration: depth 128, refill below 32, a background thread.
    pub const fn new() -> Self {
        Self {
            depth: 128,
            low_water: 32,
            refill: Refill::Thread,
        }
    }

    /// Entries kept ready. Default is 128. At least 1.
    pub const fn depth(mut self, depth: usize) -> Self {
        self.depth = if depth == 0 { 1 } else { depth };
        self
    }

    /// Refill starts when fewer than this many entries remain. Default is 32 (capped at depth).
    pub const fn low_water(mut self, low_water: usize) -> Self {
        self.low_water = low_water;
        self
    }

    /// How the pool is refilled. Default is [`Refill::Thread`].
    pub const fn refill(mut self, refill: Refill) -> Self {
        self.refill = refill;
        self
    }

    /// The configured depth.
    #[must_use]
    pub const fn depth_value(&self) -> usize {
        self.depth
    }
}

/// Counters of a pool's life, for monitoring.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PoolStats {
    /// Entries ready now.
    pub available: usize,
    /// Entries ever computed.
    pub produced: u64,
    /// Signatures made from the pool.
    pub taken: u64,
    /// Signatures that fell back to RFC 6979 because the pool was empty.
    pub fallbacks: u64,
    /// Entries destroyed unused: by [`NoncePool::drain`], or found in a forked child's copy
    /// of the pool (on Linux the kernel wipes those first, so they are not counted there).
    pub discarded: u64,
    /// Forks detected: times this pool found itself in a child process and started afresh.
    pub forks: u64,
}

/// The entries, a ring over slots that a forked child does not inherit (see the module docs).
struct Ring {
    slots: SecretSlots<Presig>,
    head: usize,
    len: usize,
}

impl Ring {
    fn is_full(&self) -> bool {
        self.len >= self.slots.len()
    }

    /// Stores `entry`; when the ring is full it is dropped (and so zeroized).
    fn push(&mut self, entry: Presig) -> bool {
        if self.is_full() {
            return false;
        }
        let mut at = self.head + self.len;
        if at >= self.slots.len() {
            at -= self.slots.len();
        }
        let stored = self.slots.put(at, entry).is_ok();
        self.len += usize::from(stored);
        stored
    }

    /// Moves the oldest entry out; its slot is zeroed.
    fn pop(&mut self) -> Option<Presig> {
        if self.len == 0 {
            return None;
        }
        let at = self.head;
        self.head += 1;
        if self.head == self.slots.len() {
            self.head = 0;
        }
        self.len -= 1;
        self.slots.take(at)
    }

    /// Zeroizes every slot and empties the ring; returns how many entries were destroyed.
    fn clear(&mut self) -> usize {
        let destroyed = (0..self.slots.len())
            .filter(|&i| self.slots.take(i).is_some())
            .count();
        self.head = 0;
        self.len = 0;
        destroyed
    }
}

struct Shared {
    queue: Mutex<Ring>,
    /// Tells a forked child that `queue`'s bookkeeping is its parent's.
    canary: ForkCanary,
    /// Wakes the refill thread; paired with `queue`.
    wake: Condvar,
    /// Wakes the refill task (tokio mode).
    notify: Option<tokio::sync::Notify>,
    refill: Refill,
    low_water: usize,
    produced: AtomicU64,
    taken: AtomicU64,
    fallbacks: AtomicU64,
    discarded: AtomicU64,
    forks: AtomicU64,
    closed: AtomicBool,
}

impl Shared {
    /// The entries, after making sure they were generated in this process.
    ///
    /// In a forked child the first caller discards the inherited entries (zeroized, never
    /// used), re-arms the canary and, for [`Refill::Thread`], starts the child's own refill
    /// thread. `None` only in a child whose lock was held by a thread of the parent at the
    /// moment of the fork (that thread does not exist here, so the lock never opens): the pool
    /// then stays unusable in that child and every signature falls back to RFC 6979 — safe,
    /// counted, never blocking.
    fn state(self: &Arc<Self>) -> Option<MutexGuard<'_, Ring>> {
        if !self.canary.forked() {
            // A panic while holding the lock cannot leave the ring inconsistent (push/pop
            // only), so a poisoned lock is still safe to use.
            return Some(
                self.queue
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner),
            );
        }
        let mut ring = match self.queue.try_lock() {
            Ok(ring) => ring,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) => return None,
        };
        if self.canary.forked() {
            let inherited = ring.clear();
            self.discarded
                .fetch_add(inherited as u64, Ordering::Relaxed);
            self.forks.fetch_add(1, Ordering::Relaxed);
            self.canary.arm();
            if self.refill == Refill::Thread && !self.closed.load(Ordering::Relaxed) {
                spawn_refill_thread(Arc::downgrade(self));
            }
        }
        Some(ring)
    }

    fn wake_refill(&self) {
        self.wake.notify_one();
        if let Some(n) = &self.notify {
            n.notify_one();
        }
    }

    /// Computes one entry outside the lock and stores it; `false` when the pool is full or closed.
    fn produce_one(self: &Arc<Self>) -> Result<bool, SignError> {
        if self.closed.load(Ordering::Relaxed) || self.state().is_none_or(|q| q.is_full()) {
            return Ok(false);
        }
        let entry = Presig::generate()?;
        // `entry` is zeroized on drop whether or not it was stored.
        let Some(mut q) = self.state() else {
            return Ok(false);
        };
        if !q.push(entry) {
            return Ok(false); // another producer filled it
        }
        self.produced.fetch_add(1, Ordering::Relaxed);
        Ok(true)
    }
}

fn spawn_refill_thread(weak: Weak<Shared>) {
    // If the OS refuses a thread, the pool simply stays empty and every signature falls back
    // to RFC 6979 — counted, never unsafe.
    let _ = std::thread::Builder::new()
        .name("polyclob-nonce-refill".into())
        .spawn(move || refill_thread(&weak));
}

/// [`NoncePool::try_new`] was asked for a [`Refill::Tokio`] pool outside a tokio runtime: its
/// refill task would have nowhere to run. Create it within the runtime, or use
/// [`Refill::Thread`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoRuntime;

impl fmt::Display for NoRuntime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "a Refill::Tokio nonce pool must be created within a Tokio runtime (or use Refill::Thread)",
        )
    }
}

impl std::error::Error for NoRuntime {}

/// A pool of precomputed ECDSA nonces, shared by every clone of the handle.
///
/// The pool is attached to a [`Signer`](super::Signer) with
/// [`Signer::with_nonce_pool`](super::Signer::with_nonce_pool). `Debug` shows only counters.
///
/// ```
/// use polyclob::sign::presign::{NoncePool, PoolConfig, Refill};
///
/// let pool = NoncePool::new(PoolConfig::new().depth(8).refill(Refill::Manual));
/// assert_eq!(pool.refill(), 8);
/// assert_eq!(pool.stats().available, 8);
/// ```
#[derive(Clone)]
pub struct NoncePool {
    shared: Arc<Shared>,
    /// Present in the handle users hold; dropping the last one closes the pool so the refill
    /// worker (which only holds a `Weak`) stops.
    _closer: Arc<Closer>,
}

struct Closer(Weak<Shared>);

impl Drop for Closer {
    fn drop(&mut self) {
        if let Some(shared) = self.0.upgrade() {
            shared.closed.store(true, Ordering::Relaxed);
            shared.wake_refill();
        }
    }
}

impl NoncePool {
    /// Creates a pool and starts its refill worker (for [`Refill::Thread`] and
    /// [`Refill::Tokio`]). With a worker the pool is **filled here first**, on the calling
    /// thread (tens of microseconds per entry: about 3 ms for 64), so the first signatures do
    /// not silently fall back to RFC 6979 while the worker starts; the worker keeps it topped
    /// up. A [`Refill::Manual`] pool starts empty until [`refill`](Self::refill).
    ///
    /// # Panics
    /// With [`Refill::Tokio`] outside a tokio runtime (as `tokio::spawn` does);
    /// [`try_new`](Self::try_new) returns an error instead.
    #[must_use]
    pub fn new(config: PoolConfig) -> Self {
        match Self::try_new(config) {
            Ok(pool) => pool,
            Err(e) => panic!("{e}"),
        }
    }

    /// [`new`](Self::new), with [`NoRuntime`] instead of a panic when a [`Refill::Tokio`] pool
    /// is created outside a tokio runtime (checked before anything is computed).
    ///
    /// ```
    /// use polyclob::sign::presign::{NoRuntime, NoncePool, PoolConfig, Refill};
    ///
    /// let config = PoolConfig::new().depth(4).refill(Refill::Tokio);
    /// assert_eq!(NoncePool::try_new(config).err(), Some(NoRuntime));
    /// ```
    pub fn try_new(config: PoolConfig) -> Result<Self, NoRuntime> {
        let runtime = match config.refill {
            Refill::Tokio => Some(tokio::runtime::Handle::try_current().map_err(|_| NoRuntime)?),
            Refill::Thread | Refill::Manual => None,
        };
        let depth = config.depth.max(1);
        let shared = Arc::new(Shared {
            queue: Mutex::new(Ring {
                slots: SecretSlots::new(depth),
                head: 0,
                len: 0,
            }),
            canary: ForkCanary::new(),
            wake: Condvar::new(),
            notify: matches!(config.refill, Refill::Tokio).then(tokio::sync::Notify::new),
            refill: config.refill,
            low_water: config.low_water.min(depth),
            produced: AtomicU64::new(0),
            taken: AtomicU64::new(0),
            fallbacks: AtomicU64::new(0),
            discarded: AtomicU64::new(0),
            forks: AtomicU64::new(0),
            closed: AtomicBool::new(false),
        });
        let weak = Arc::downgrade(&shared);
        if !matches!(config.refill, Refill::Manual) {
            // An entropy failure leaves the rest to the worker (and the fallback, counted).
            while let Ok(true) = shared.produce_one() {}
        }
        if config.refill == Refill::Thread {
            spawn_refill_thread(weak.clone());
        }
        if let Some(runtime) = runtime {
            runtime.spawn(refill_task(weak.clone()));
        }
        Ok(Self {
            shared,
            _closer: Arc::new(Closer(weak)),
        })
    }

    /// Computes entries until the pool is full; returns how many were added. Runs on the
    /// calling thread (tens of microseconds per entry).
    pub fn refill(&self) -> usize {
        let mut added = 0;
        while let Ok(true) = self.shared.produce_one() {
            added += 1;
        }
        added
    }

    /// Current counters.
    #[must_use]
    pub fn stats(&self) -> PoolStats {
        PoolStats {
            available: self.shared.state().map_or(0, |q| q.len),
            produced: self.shared.produced.load(Ordering::Relaxed),
            taken: self.shared.taken.load(Ordering::Relaxed),
            fallbacks: self.shared.fallbacks.load(Ordering::Relaxed),
            discarded: self.shared.discarded.load(Ordering::Relaxed),
            forks: self.shared.forks.load(Ordering::Relaxed),
        }
    }

    /// Zeroizes every entry and empties the pool; returns how many entries were destroyed
    /// (unused, counted in [`PoolStats::discarded`]).
    ///
    /// Run it after anything that may have duplicated the process's memory without a `fork()`:
    /// a restored VM snapshot, a restored checkpoint (see the [module docs](self) for the
    /// full list). Signatures fall back to RFC 6979 until the pool refills (a
    /// [`Refill::Thread`] or [`Refill::Tokio`] worker starts at once, with fresh entropy).
    ///
    /// ```
    /// use polyclob::sign::presign::{NoncePool, PoolConfig, Refill};
    ///
    /// let pool = NoncePool::new(PoolConfig::new().depth(4).refill(Refill::Manual));
    /// pool.refill();
    /// assert_eq!(pool.drain(), 4);
    /// let stats = pool.stats();
    /// assert_eq!((stats.available, stats.discarded), (0, 4));
    /// ```
    pub fn drain(&self) -> usize {
        let n = self.shared.state().map_or(0, |mut q| q.clear());
        self.shared.discarded.fetch_add(n as u64, Ordering::Relaxed);
        self.shared.wake_refill();
        n
    }

    /// Whether the kernel keeps this pool's entries out of forked children entirely
    /// (`MADV_WIPEONFORK`, Linux ≥ 4.14). When `false`, a child discards its copy on its first
    /// use of the pool instead (see the module docs).
    #[must_use]
    pub fn wiped_on_fork(&self) -> bool {
        self.shared.canary.wiped_on_fork()
    }

    /// Takes one entry, moving it out of the pool and zeroizing its slot, and wakes the refill
    /// worker below the low-water mark.
    fn take(&self) -> Option<Presig> {
        let (entry, left) = {
            let mut q = self.shared.state()?;
            let entry = q.pop();
            (entry, q.len)
        };
        if left < self.shared.low_water {
            self.shared.wake_refill();
        }
        entry
    }

    /// Signs `digest` with a pooled nonce, or returns `None` (counted as a fallback) when the
    /// pool is empty so that the caller can sign with RFC 6979.
    pub(crate) fn sign(&self, d: &Scalar, digest: &[u8; 32]) -> Option<Signature> {
        match self.take().and_then(|entry| entry.sign(d, digest)) {
            Some(sig) => {
                self.shared.taken.fetch_add(1, Ordering::Relaxed);
                Some(sig)
            }
            None => {
                self.shared.fallbacks.fetch_add(1, Ordering::Relaxed);
                None
            }
        }
    }
}

impl fmt::Debug for NoncePool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NoncePool")
            .field("wiped_on_fork", &self.wiped_on_fork())
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

fn refill_thread(weak: &Weak<Shared>) {
    loop {
        let Some(shared) = weak.upgrade() else { return };
        if shared.closed.load(Ordering::Relaxed) {
            return;
        }
        // Fill up completely, then sleep until a taker crosses the low-water mark.
        while let Ok(true) = shared.produce_one() {}
        let Some(q) = shared.state() else { return };
        if q.len >= shared.low_water && !shared.closed.load(Ordering::Relaxed) {
            // The timeout bounds how long a dropped pool keeps this thread alive.
            let _ = shared.wake.wait_timeout(q, Duration::from_millis(200));
        }
    }
}

async fn refill_task(weak: Weak<Shared>) {
    loop {
        let notified = {
            let Some(shared) = weak.upgrade() else { return };
            if shared.closed.load(Ordering::Relaxed) {
                return;
            }
            while let Ok(true) = shared.produce_one() {
                tokio::task::yield_now().await;
                if shared.closed.load(Ordering::Relaxed) {
                    return;
                }
            }
            shared.state().is_some_and(|q| q.len >= shared.low_water)
        };
        if notified {
            // Hold only a weak reference while parked; re-check periodically so a dropped
            // pool ends the task.
            let Some(shared) = weak.upgrade() else { return };
            let wait = async {
                if let Some(n) = &shared.notify {
                    n.notified().await;
                }
            };
            let _ = tokio::time::timeout(Duration::from_millis(200), wait).await;
        }
    }
}

/// The private scalar in `k256` form, for pooled signing. Zeroized on drop.
pub(crate) struct PresignKey {
    d: Scalar,
    pool: NoncePool,
}

impl PresignKey {
    /// Wraps a 32-byte secret already validated by the signer.
    pub(crate) fn new(secret: &[u8; 32], pool: NoncePool) -> Result<Self, SignError> {
        let d = Option::<Scalar>::from(Scalar::from_repr((*secret).into()))
            .filter(|d| !bool::from(d.is_zero()))
            .ok_or(SignError::InvalidPrivateKey("not a valid secp256k1 scalar"))?;
        Ok(Self { d, pool })
    }

    /// Signs from the pool; `None` means "fall back to RFC 6979" (already counted).
    pub(crate) fn sign(&self, digest: &[u8; 32]) -> Option<Signature> {
        self.pool.sign(&self.d, digest)
    }

    /// The pool behind this key.
    pub(crate) fn pool(&self) -> &NoncePool {
        &self.pool
    }
}

impl Drop for PresignKey {
    fn drop(&mut self) {
        self.d.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sign::Signer;
    use crate::sign::eip712::recover_address;
    use alloy_primitives::keccak256;

    const KEY: [u8; 32] = {
        let mut k = [0u8; 32];
        k[31] = 7;
        k
    };

    fn key(pool: NoncePool) -> PresignKey {
        PresignKey::new(&KEY, pool).unwrap()
    }

    #[test]
    fn pooled_signatures_recover_and_are_low_s() {
        let pool = NoncePool::new(PoolConfig::new().depth(64).refill(Refill::Manual));
        let k = key(pool.clone());
        let address = Signer::from_bytes(&KEY).unwrap().address();
        let half_n = [
            0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
            0xff, 0xff, 0x5d, 0x57, 0x6e, 0x73, 0x57, 0xa4, 0x50, 0x1d, 0xdf, 0xe9, 0x2f, 0x46,
            0x68, 0x1b, 0x20, 0xa0,
        ];
        for i in 0u32..200 {
            if i % 64 == 0 {
                pool.refill();
            }
            let digest = keccak256(i.to_be_bytes()).0;
            let sig = k.sign(&digest).expect("pool has entries");
            assert!(sig.as_bytes()[32..64] <= half_n[..], "high s");
            assert!(matches!(sig.as_bytes()[64], 27 | 28));
            assert_eq!(recover_address(&digest, &sig).unwrap(), address);
        }
        assert_eq!(pool.stats().taken, 200);
        assert_eq!(pool.stats().fallbacks, 0);
    }

    #[test]
    fn empty_pool_reports_fallback() {
        let pool = NoncePool::new(PoolConfig::new().depth(2).refill(Refill::Manual));
        let k = key(pool.clone());
        assert!(k.sign(&[1; 32]).is_none());
        assert_eq!(pool.refill(), 2);
        assert_eq!(pool.refill(), 0, "already full");
        assert!(k.sign(&[1; 32]).is_some());
        assert!(k.sign(&[1; 32]).is_some());
        assert!(k.sign(&[1; 32]).is_none());
        let stats = pool.stats();
        assert_eq!((stats.taken, stats.fallbacks, stats.available), (2, 2, 0));
    }

    /// (full slots, wiped slots) of the pool's ring.
    fn slot_census(pool: &NoncePool) -> (usize, usize) {
        let mut ring = pool.shared.queue.lock().unwrap();
        let n = ring.slots.len();
        let full = (0..n).filter(|&i| ring.slots.is_full(i)).count();
        let wiped = (0..n)
            .filter(|&i| !ring.slots.is_full(i) && ring.slots.is_wiped(i))
            .count();
        (full, wiped)
    }

    #[test]
    fn taken_and_drained_slots_keep_no_secret() {
        let pool = NoncePool::new(PoolConfig::new().depth(8).refill(Refill::Manual));
        let k = key(pool.clone());
        assert_eq!(pool.refill(), 8);
        assert_eq!(slot_census(&pool), (8, 0));
        assert!(k.sign(&[1; 32]).is_some());
        assert!(k.sign(&[2; 32]).is_some());
        assert_eq!(
            slot_census(&pool),
            (6, 2),
            "a taken entry left bytes in the ring"
        );

        assert_eq!(pool.drain(), 6);
        assert_eq!(slot_census(&pool), (0, 8), "drain left bytes behind");
        let stats = pool.stats();
        assert_eq!(
            (stats.available, stats.taken, stats.discarded, stats.forks),
            (0, 2, 6, 0)
        );
        assert!(k.sign(&[3; 32]).is_none(), "a drained pool falls back");
        assert_eq!(pool.drain(), 0);

        // The ring keeps working across the wrap after a drain.
        for round in 0..3u8 {
            assert_eq!(pool.refill(), if round == 0 { 8 } else { 5 });
            for i in 0..5u8 {
                assert!(k.sign(&[round * 10 + i; 32]).is_some());
            }
            assert_eq!(slot_census(&pool), (3, 5));
            assert_eq!(pool.stats().available, 3);
        }
    }

    #[test]
    fn thread_refill_fills_and_stops() {
        let pool = NoncePool::new(PoolConfig::new().depth(16).low_water(8));
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while pool.stats().available < 16 {
            assert!(
                std::time::Instant::now() < deadline,
                "refill thread never filled the pool"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        let weak = Arc::downgrade(&pool.shared);
        drop(pool);
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while weak.upgrade().is_some() {
            assert!(
                std::time::Instant::now() < deadline,
                "refill thread kept the pool alive"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    #[test]
    fn debug_shows_no_secrets() {
        let pool = NoncePool::new(PoolConfig::new().depth(1).refill(Refill::Manual));
        pool.refill();
        let text = format!("{pool:?}");
        assert!(text.contains("available: 1"), "{text}");
        assert!(!text.contains("k_inv"));
    }
}
