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

use core::mem::MaybeUninit;
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

/// One slot: a flag and room for a value. All-zero bytes are a valid, empty slot (`u8` and
/// `MaybeUninit`), which is what a wiped page reads as; a value is only ever read back from a
/// slot this process wrote it to.
#[repr(C)]
struct Slot<T> {
    full: u8,
    value: MaybeUninit<T>,
}

/// Fixed storage for `n` values of a secret type: a wipe-on-fork mapping where available,
/// else the heap. A value moved out leaves zeroed bytes behind.
pub(crate) struct SecretSlots<T> {
    ptr: NonNull<Slot<T>>,
    n: usize,
    /// The memory `ptr` points into: a mapping, or (`None`) a boxed slice turned into `ptr`
    /// by `Box::into_raw` and freed in `Drop`.
    #[cfg(unix)]
    mapping: Option<Mapping>,
}

// SAFETY: the slots are owned by this value and only reached through `&mut self`; moving it
// to another thread moves `T`s, so it is `Send` when `T` is.
unsafe impl<T: Send> Send for SecretSlots<T> {}

impl<T> SecretSlots<T> {
    /// `n` empty slots (at least one): in a wipe-on-fork mapping when the OS gives one.
    pub(crate) fn new(n: usize) -> Self {
        let n = n.max(1);
        #[cfg(unix)]
        if let Some(mut map) = n.checked_mul(size_of::<Slot<T>>()).and_then(Mapping::new) {
            // The mapping is page-aligned, more than `Slot<T>` needs.
            let ptr = NonNull::from(map.bytes_mut()).cast::<Slot<T>>();
            return Self {
                ptr,
                n,
                mapping: Some(map),
            };
        }
        Self::new_on_heap(n)
    }

    /// `n` empty slots on the heap (where no mapping can be had; the fork generation alone
    /// then detects forks, and a child zeroizes its copy on first use).
    fn new_on_heap(n: usize) -> Self {
        let n = n.max(1);
        let heap: Box<[Slot<T>]> = (0..n)
            .map(|_| Slot {
                full: 0,
                value: MaybeUninit::zeroed(),
            })
            .collect();
        Self {
            ptr: NonNull::from(Box::leak(heap)).cast::<Slot<T>>(),
            n,
            #[cfg(unix)]
            mapping: None,
        }
    }

    fn on_heap(&self) -> bool {
        #[cfg(unix)]
        return self.mapping.is_none();
        #[cfg(not(unix))]
        true
    }

    /// Number of slots.
    pub(crate) fn len(&self) -> usize {
        self.n
    }

    fn slot(&mut self, i: usize) -> Option<&mut Slot<T>> {
        if i >= self.n {
            return None;
        }
        // SAFETY: `ptr` points to `n` initialised slots (zero bytes are a valid `Slot`), owned
        // by `self` (the mapping or the boxed slice, neither moved nor freed while `self`
        // lives), aligned (page alignment or the box's); `i < n`; `&mut self` makes the
        // borrow exclusive.
        Some(unsafe { &mut *self.ptr.as_ptr().add(i) })
    }

    /// Stores `value` in slot `i`; gives it back if the slot is full or out of range.
    pub(crate) fn put(&mut self, i: usize, value: T) -> Result<(), T> {
        match self.slot(i) {
            Some(slot) if slot.full == 0 => {
                slot.value.write(value);
                slot.full = 1;
                Ok(())
            }
            _ => Err(value),
        }
    }

    /// Moves the value out of slot `i` and zeroes the slot's bytes; `None` if it is empty
    /// (as every slot of a wiped page is).
    pub(crate) fn take(&mut self, i: usize) -> Option<T> {
        let slot = self.slot(i)?;
        let value = if slot.full == 1 {
            // SAFETY: `full == 1` only after `put` wrote a value here in this process (a wiped
            // page reads 0), and the flag is cleared below before the slot is used again.
            Some(unsafe { slot.value.assume_init_read() })
        } else {
            None
        };
        wipe(core::ptr::from_mut(slot).cast::<u8>(), size_of::<Slot<T>>());
        value
    }

    /// Whether every byte of slot `i` is zero. Only for slots that were wiped or never
    /// written (a full slot's padding bytes are not initialised).
    #[cfg(test)]
    pub(crate) fn is_wiped(&mut self, i: usize) -> bool {
        let Some(slot) = self.slot(i) else {
            return false;
        };
        let p = core::ptr::from_mut(slot).cast::<u8>();
        // SAFETY: the slot's bytes were all written by `wipe` or by the kernel's zero fill.
        let bytes = unsafe { core::slice::from_raw_parts(p, size_of::<Slot<T>>()) };
        bytes.iter().all(|&b| b == 0)
    }

    /// Whether slot `i` holds a value.
    #[cfg(test)]
    pub(crate) fn is_full(&mut self, i: usize) -> bool {
        self.slot(i).is_some_and(|s| s.full == 1)
    }
}

/// Zeroes `len` bytes at `p` with volatile stores (so the optimiser keeps them), eight at a
/// time where the address allows.
fn wipe(p: *mut u8, len: usize) {
    let (words, tail) = if p.align_offset(8) == 0 {
        (len / 8, len % 8)
    } else {
        (0, len)
    };
    for i in 0..words {
        // SAFETY: callers pass one slot's bytes, exclusively borrowed; `p` is 8-aligned here
        // and `i * 8 + 8 <= len`.
        unsafe { core::ptr::write_volatile(p.cast::<u64>().add(i), 0) };
    }
    for i in words * 8..words * 8 + tail {
        // SAFETY: as above, `i < len`.
        unsafe { core::ptr::write_volatile(p.add(i), 0) };
    }
    core::sync::atomic::compiler_fence(Ordering::SeqCst);
}

impl<T> Drop for SecretSlots<T> {
    fn drop(&mut self) {
        // Drops (and so zeroizes) every stored value and zeroes every slot; the mapping then
        // unmaps itself, the heap slice is freed here.
        for i in 0..self.n {
            drop(self.take(i));
        }
        if self.on_heap() {
            let slice = core::ptr::slice_from_raw_parts_mut(self.ptr.as_ptr(), self.n);
            // SAFETY: `ptr`/`n` came from `Box::leak` of a boxed slice of exactly `n` slots in
            // `new`, and nothing else frees it.
            drop(unsafe { Box::from_raw(slice) });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_store_take_and_wipe() {
        for mut mem in [
            SecretSlots::<[u64; 4]>::new(1000),
            SecretSlots::new_on_heap(1000),
        ] {
            store_take_and_wipe(&mut mem);
        }
    }

    fn store_take_and_wipe(mem: &mut SecretSlots<[u64; 4]>) {
        assert_eq!(mem.len(), 1000);
        assert_eq!(mem.take(999), None, "slots start empty");
        assert_eq!(mem.put(999, [7; 4]), Ok(()));
        assert_eq!(
            mem.put(999, [8; 4]),
            Err([8; 4]),
            "a full slot is not overwritten"
        );
        assert_eq!(mem.put(1000, [9; 4]), Err([9; 4]), "out of range");
        assert!(mem.is_full(999) && !mem.is_full(998));
        assert_eq!(mem.take(999), Some([7; 4]));
        assert!(mem.is_wiped(999), "the value's bytes stayed behind");
        assert_eq!(mem.take(999), None, "taken once");
        assert_eq!(mem.take(1000), None);
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
