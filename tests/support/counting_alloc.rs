//! The one counting global allocator: installed by the allocation tests (`tests/alloc/main.rs`)
//! and the side-by-side example. It counts allocations, bytes requested and live heap bytes.
//! Counts are per thread, so the test harness and other tests running in parallel in the same
//! binary do not disturb a measurement: each test measures the thread it runs on.
#![allow(unsafe_code, dead_code, unreachable_pub)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
    static BYTES: Cell<u64> = const { Cell::new(0) };
    static LIVE: Cell<i64> = const { Cell::new(0) };
}

/// Forwards to the system allocator, counts every allocation and reallocation, and keeps the
/// live heap bytes of each thread.
pub struct Counting;

// `try_with` because the thread-locals may already be destroyed during thread exit.
fn record(size: usize, live_change: i64) {
    let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
    let _ = BYTES.try_with(|c| c.set(c.get() + size as u64));
    let _ = LIVE.try_with(|c| c.set(c.get() + live_change));
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged, so the
// `GlobalAlloc` contract is upheld by `System`; the counters touch only const-initialised
// thread-locals, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record(layout.size(), layout.size() as i64);
        // SAFETY: forwarded unchanged (see the impl comment).
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        record(layout.size(), layout.size() as i64);
        // SAFETY: forwarded unchanged.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record(new_size, new_size as i64 - layout.size() as i64);
        // SAFETY: forwarded unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        let _ = LIVE.try_with(|c| c.set(c.get() - layout.size() as i64));
        // SAFETY: forwarded unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Allocations made by the current thread so far.
pub fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

/// Bytes requested by the current thread so far.
pub fn bytes() -> u64 {
    BYTES.with(Cell::get)
}

/// Heap bytes allocated and not yet freed by the current thread (frees of memory another
/// thread allocated count here too, so measure what one thread both builds and holds).
pub fn live() -> i64 {
    LIVE.with(Cell::get)
}

/// Runs `f` and returns its result with the number of allocations it made on this thread.
pub fn count<R>(f: impl FnOnce() -> R) -> (R, u64) {
    let before = allocations();
    let r = f();
    (r, allocations() - before)
}
