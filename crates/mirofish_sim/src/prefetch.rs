//! Software prefetch for the loops that visit fish at random places: the
//! index's gather into sorted order (reads by slot) and the integrator's
//! gather of each fish's kick from sorted order (reads by rank).
//!
//! Those loops know their addresses well ahead (they walk the sorted order,
//! a plain array), but between two ticks the rest of the tick, and on a
//! shared machine everyone else's work, pushes the fish out of the cache.
//! Asking for the fish a few dozen places ahead keeps more misses in
//! flight than the out-of-order window finds on its own, which matters most
//! once the school no longer fits in the cache.

/// How many places ahead the loops ask for: far enough to hide a miss to
/// memory behind the work of the places between, near enough that the
/// line is still there when its turn comes.
pub(crate) const AHEAD: usize = 32;

/// Asks the CPU to bring `items[index]` into the cache for a read or a
/// write soon; nothing where `index` is out of range, and nothing off
/// x86-64. A hint only: it changes no value, so no result depends on it.
#[inline(always)]
pub(crate) fn prefetch<T>(items: &[T], index: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(item) = items.get(index) {
        use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: a prefetch never faults, reads or writes nothing the
        // program sees, and is given the address of a live element.
        #[expect(
            unsafe_code,
            reason = "a prefetch hint, the one x86-64 instruction std offers no safe call for"
        )]
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(core::ptr::from_ref(item).cast());
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (items, index);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// In range, at the end and far past it (where it must do nothing),
    /// on an empty slice and on values of several sizes.
    #[test]
    fn a_prefetch_anywhere_is_harmless() {
        let values = [1.0f32, 2.0, 3.0];
        for index in [0, 2, 3, usize::MAX] {
            prefetch(&values, index);
        }
        prefetch::<u64>(&[], 0);
        prefetch(&[[0u64; 2]; 4], 3);
        assert_eq!(values, [1.0, 2.0, 3.0]);
    }
}
