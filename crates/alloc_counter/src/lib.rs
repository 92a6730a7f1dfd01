//! Counts heap allocations, so a test or benchmark can show that a
//! warmed-up tick makes none. Install it in the binary that measures:
//!
//! ```ignore
//! #[global_allocator]
//! static GLOBAL: alloc_counter::Counting = alloc_counter::Counting;
//!
//! let before = alloc_counter::allocations();
//! // … the work under test …
//! let made = alloc_counter::allocations() - before;
//! ```
//!
//! Its own crate because a global allocator must implement the unsafe
//! `GlobalAlloc` trait, and the library crates deny `unsafe` code.
#![expect(unsafe_code, reason = "a global allocator implements the unsafe GlobalAlloc trait")]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

/// The system allocator, counting every allocation and reallocation.
pub struct Counting;

/// Allocations and reallocations made so far by a [`Counting`] allocator
/// installed as the global allocator (0 if none is).
pub fn allocations() -> usize {
    ALLOCATIONS.load(Ordering::Relaxed)
}

// SAFETY: every call is forwarded unchanged to the system allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on as is.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is passed on as is.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on as is.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}
