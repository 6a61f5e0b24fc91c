//! Memory a forked child does not inherit, and a fork detector, for the precomputed-nonce pool.
//!
//! A child created by `fork()` starts with a copy of its parent's memory. For the nonce pool
//! that copy is a key-disclosure bug: parent and child would each sign a different order with
//! the same nonce, and two signatures over different digests with one nonce reveal the private
//! key. Two mechanisms make the copy unusable, so that the check on the signing path is two
//! relaxed loads:
//!
//! - **Wipe on fork (Linux ≥ 4.14).** The pool's entries and a one-byte canary live in
//!   anonymous mappings marked `MADV_WIPEONFORK`: the kernel hands the child zero-filled pages,
//!   so the child never holds the parent's entries at all, and the zeroed canary tells the pool
//!   to discard its bookkeeping. The same mappings are `MADV_DONTDUMP` (no nonces in core
//!   dumps). This holds for every way of forking, including a raw `clone` system call.
//! - **A fork generation (every Unix).** A `pthread_atfork` child handler bumps a process-wide
//!   counter; a pool remembers the value it was armed at. This covers kernels and platforms
//!   without `MADV_WIPEONFORK` for forks made through libc (`fork`, `posix_spawn`'s fallback,
//!   language runtimes' multiprocessing). There, the child's copy of the entries still sits in
//!   memory until the pool's next use zeroizes it.
//!
//! What neither can see (a restored VM snapshot, a checkpointed and restored process image, a
//! raw `clone` on a kernel without `MADV_WIPEONFORK`) is documented on the pool, with
//! [`NoncePool::drain`](super::presign::NoncePool::drain) as the remedy.
//!
//! All of this module's `unsafe` is the system calls and the views of the mapped memory; each
//! block states why it is sound.

use core::ptr::NonNull;
use core::sync::atomic::{AtomicU8, AtomicU64, Ordering};

use zeroize::Zeroize;

/// Bumped in every child process by the `pthread_atfork` handler (see [`ForkCanary`]).
static FORK_GENERATION: AtomicU64 = AtomicU64::new(0);

#[cfg(unix)]
extern "C" fn on_fork_child() {
    // Async-signal-safe: one lock-free atomic add, no allocation, no lock.
    FORK_GENERATION.fetch_add(1, Ordering::Relaxed);
}

/// Registers the child handler once per process.
fn register_atfork() {
    #[cfg(unix)]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            // SAFETY: `on_fork_child` is an `extern "C"` function with the signature the call
            // expects, valid for the life of the process, and async-signal-safe. A failure
            // (ENOMEM) leaves the wipe-on-fork canary as the only detector; nothing unsound.
            let _ = unsafe { libc::pthread_atfork(None, None, Some(on_fork_child)) };
        });
    }
}

/// A private anonymous mapping, zero-filled, wiped in forked children where the kernel can,
/// excluded from core dumps, zeroized and unmapped on drop.
#[cfg(unix)]
struct Mapping {
    ptr: NonNull<u8>,
    len: usize,
    wiped_on_fork: bool,
}

// SAFETY: the mapping is plain memory owned by this value; the views it hands out follow
// Rust's borrowing rules (`&self` → shared reads or atomics, `&mut self` → exclusive writes).
#[cfg(unix)]
unsafe impl Send for Mapping {}
// SAFETY: as above; shared access is read-only or atomic.
#[cfg(unix)]
unsafe impl Sync for Mapping {}

#[cfg(unix)]
impl Mapping {
    /// Maps at least `len` bytes (rounded up to whole pages); `None` if the OS refuses.
    fn new(len: usize) -> Option<Self> {
        // SAFETY: `sysconf` has no preconditions.
        let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) })
            .ok()
            .filter(|p| p.is_power_of_two())
            .unwrap_or(4096);
        let len = len.max(1).checked_add(page - 1)? & !(page - 1);
        // SAFETY: a fresh private anonymous mapping at an address of the kernel's choosing;
        // it aliases nothing.
        let ptr = unsafe {
            libc::mmap(
                core::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return None;
        }
        let ptr = NonNull::new(ptr.cast::<u8>())?;
        #[cfg(any(target_os = "linux", target_os = "android"))]
        let wiped_on_fork = {
            // SAFETY: `ptr..ptr+len` is the whole mapping just created; advice changes no
            // memory contents. Failures (old kernels: EINVAL) are reported, not fatal.
            unsafe {
                libc::madvise(ptr.as_ptr().cast(), len, libc::MADV_DONTDUMP);
                libc::madvise(ptr.as_ptr().cast(), len, libc::MADV_WIPEONFORK) == 0
            }
        };
        #[cfg(not(any(target_os = "linux", target_os = "android")))]
        let wiped_on_fork = false;
        Some(Self {
            ptr,
            len,
            wiped_on_fork,
        })
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: the mapping is `len` readable, writable, initialised (zero-filled by the
        // kernel) bytes owned by `self`, borrowed exclusively here.
        unsafe { core::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

#[cfg(unix)]
impl Drop for Mapping {
    fn drop(&mut self) {
        self.bytes_mut().zeroize();
        // SAFETY: unmaps exactly the mapping created in `new`; no view outlives `self`.
        unsafe {
            libc::munmap(self.ptr.as_ptr().cast(), self.len);
        }
    }
}

/// Detects that the current process is a fork of the one that armed it.
pub(crate) struct ForkCanary {
    #[cfg(unix)]
    page: Option<Mapping>,
    /// Used when no mapping could be made (or off Unix): never wiped, so only the generation
    /// detects a fork there.
    fallback: AtomicU8,
    generation: AtomicU64,
}

impl ForkCanary {
    /// An armed canary for this process.
    pub(crate) fn new() -> Self {
        register_atfork();
        let canary = Self {
            #[cfg(unix)]
            page: Mapping::new(1),
            fallback: AtomicU8::new(0),
            generation: AtomicU64::new(0),
        };
        canary.arm();
        canary
    }

    fn byte(&self) -> &AtomicU8 {
        #[cfg(unix)]
        if let Some(page) = &self.page {
            // SAFETY: the first byte of a live, zero-initialised mapping owned by `self`;
            // `AtomicU8` has the size and alignment of `u8`, every bit pattern is valid, and
            // the byte is only ever accessed through this atomic view.
            return unsafe { &*page.ptr.as_ptr().cast::<AtomicU8>() };
        }
        &self.fallback
    }

    /// `true` when this process is not the one that last armed the canary: its memory was
    /// wiped by the kernel at a fork, or a fork happened since through libc.
    #[inline]
    pub(crate) fn forked(&self) -> bool {
        self.byte().load(Ordering::Relaxed) == 0
            || FORK_GENERATION.load(Ordering::Relaxed) != self.generation.load(Ordering::Relaxed)
    }

    /// Marks the current process as the owner.
    pub(crate) fn arm(&self) {
        self.generation
            .store(FORK_GENERATION.load(Ordering::Relaxed), Ordering::Relaxed);
        self.byte().store(1, Ordering::Relaxed);
    }

    /// Whether the kernel wipes this canary (and the pool's slots) in forked children.
    pub(crate) fn wiped_on_fork(&self) -> bool {
        #[cfg(unix)]
        if let Some(page) = &self.page {
            return page.wiped_on_fork;
        }
        false
    }
}

/// One stored precomputed nonce: `k⁻¹`, `r` (big-endian) and the parity of `R.y`. All-zero is
/// the empty slot, which is what a wiped page reads as.
#[derive(Clone, Copy, Default)]
#[repr(C)]
pub(crate) struct Slot {
    pub(crate) k_inv: [u8; 32],
    pub(crate) r: [u8; 32],
    pub(crate) y_odd: u8,
    pub(crate) full: u8,
}

impl Zeroize for Slot {
    fn zeroize(&mut self) {
        self.k_inv.zeroize();
        self.r.zeroize();
        self.y_odd.zeroize();
        self.full.zeroize();
    }
}

/// Storage for `n` slots: a wipe-on-fork mapping where available, else the heap.
pub(crate) struct SlotMemory {
    #[cfg(unix)]
    mapped: Option<(Mapping, usize)>,
    heap: Box<[Slot]>,
}

impl SlotMemory {
    /// `n` empty slots.
    pub(crate) fn new(n: usize) -> Self {
        #[cfg(unix)]
        if let Some(map) = n.checked_mul(size_of::<Slot>()).and_then(Mapping::new) {
            return Self {
                mapped: Some((map, n)),
                heap: Box::default(),
            };
        }
        Self {
            #[cfg(unix)]
            mapped: None,
            heap: vec![Slot::default(); n].into_boxed_slice(),
        }
    }

    /// The slots, exclusively.
    pub(crate) fn slots_mut(&mut self) -> &mut [Slot] {
        #[cfg(unix)]
        if let Some((map, n)) = &mut self.mapped {
            // SAFETY: the mapping holds at least `n * size_of::<Slot>()` initialised bytes
            // (checked in `new`), `Slot` is `repr(C)` of bytes (alignment 1, every bit pattern
            // valid), and the borrow of `map` is exclusive for the slice's lifetime.
            return unsafe {
                core::slice::from_raw_parts_mut(map.bytes_mut().as_mut_ptr().cast::<Slot>(), *n)
            };
        }
        &mut self.heap
    }
}

impl Drop for SlotMemory {
    fn drop(&mut self) {
        // The mapping zeroizes itself; the heap fallback is zeroized here.
        self.heap.iter_mut().for_each(Zeroize::zeroize);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_start_empty_and_are_writable() {
        let mut mem = SlotMemory::new(1000);
        let slots = mem.slots_mut();
        assert_eq!(slots.len(), 1000);
        assert!(slots.iter().all(|s| s.full == 0 && s.k_inv == [0; 32]));
        slots[999].k_inv = [7; 32];
        slots[999].full = 1;
        assert_eq!(mem.slots_mut()[999].k_inv, [7; 32]);
    }

    #[test]
    fn canary_is_armed_in_its_own_process() {
        let canary = ForkCanary::new();
        assert!(!canary.forked());
        #[cfg(target_os = "linux")]
        assert!(canary.wiped_on_fork(), "kernel refused MADV_WIPEONFORK");
    }

    #[test]
    fn generation_change_reads_as_fork() {
        let canary = ForkCanary::new();
        canary.generation.fetch_add(1, Ordering::Relaxed);
        assert!(canary.forked());
        canary.arm();
        assert!(!canary.forked());
    }
}
