//! A global allocator that counts allocations, shared by the zero-allocation tests.
//!
//! Include it with `#[path = "support/counting_alloc.rs"] mod counting_alloc;` and install it:
//! `#[global_allocator] static ALLOC: counting_alloc::Counting = counting_alloc::Counting;`.
//! Counts are per thread, so the test harness and other tests running in parallel do not
//! disturb a measurement.
#![allow(unsafe_code, dead_code, unreachable_pub)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
    static BYTES: Cell<u64> = const { Cell::new(0) };
}

/// Forwards to the system allocator and counts every allocation and reallocation.
pub struct Counting;

fn record(size: usize) {
    // `try_with` because the thread-local may already be destroyed during thread exit.
    let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
    let _ = BYTES.try_with(|c| c.set(c.get() + size as u64));
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged, so the
// `GlobalAlloc` contract is upheld by `System`; the counters touch only const-initialised
// thread-locals, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        // SAFETY: forwarded unchanged (see the impl comment).
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        // SAFETY: forwarded unchanged.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record(new_size);
        // SAFETY: forwarded unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
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

/// Runs `f` and returns its result with the number of allocations it made on this thread.
pub fn count<R>(f: impl FnOnce() -> R) -> (R, u64) {
    let before = allocations();
    let r = f();
    (r, allocations() - before)
}
