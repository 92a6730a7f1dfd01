//! The tick's shared parts, over either space: the commands applied at the
//! start of a tick ([`command`]), how a school stores its fish
//! ([`slots`]), the force pass's kernel (its scans and crowding budgets),
//! the integrator's motion ([`integrate`]) and the predators
//! ([`predators`]). The engine that runs them, stage by stage, is
//! [`crate::space::Swarm`].
//!
//! Each stage writes only its own fish's entries and reads only what
//! earlier stages finished, so the result depends neither on iteration
//! order nor on the number of threads: the same seed gives the same bits.

pub mod command;
pub(crate) mod crowding;
pub mod integrate;
pub(crate) mod kernel;
pub mod predators;
pub mod slots;

pub use kernel::{ForceSample, KernelPath, NeighbourSearch};

/// Fish per parallel work item: large enough to amortise scheduling, small
/// enough to balance two to a few dozen threads at 10k fish and up.
pub(crate) const CHUNK: usize = 1024;
const _: () =
    assert!(CHUNK.is_multiple_of(crate::world::grid::QUARTET), "force work items start at a quartet");

/// Whether any flag is set. A branch-free OR over each block, which the
/// compiler vectorises: `contains` stops at the first hit but pays a
/// compare and a branch per fish, and these scans run on one thread.
pub(crate) fn any_set(flags: &[bool]) -> bool {
    flags.chunks(SCAN_BLOCK).any(|block| block.iter().fold(false, |any, &flag| any | flag))
}

/// Whether every value is exactly zero (both zeros), block by block like
/// [`any_set`].
pub(crate) fn all_zero(values: &[f32]) -> bool {
    values.chunks(SCAN_BLOCK).all(|block| block.iter().fold(true, |all, &v| all & (v == 0.0)))
}

/// Fish per block of the scans that run on one thread ([`any_set`],
/// [`all_zero`]).
const SCAN_BLOCK: usize = 512;

/// Runs `work` on a thread of `pool`, or of rayon's global pool (at once
/// where this already is one).
///
/// Inside the pool, the parallel loops of a pass are handed to it at once:
/// from a thread outside it (a Bevy system's, a benchmark's main thread),
/// each loop would be injected on its own, its caller put to sleep and
/// woken again, and the index alone has seven.
pub(crate) fn run<R: Send>(pool: Option<&rayon::ThreadPool>, work: impl FnOnce() -> R + Send) -> R {
    match pool {
        Some(pool) => pool.install(work),
        None => rayon::scope(|_| work()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_block_scans_answer_what_the_plain_scans_do() {
        for n in [0, 1, SCAN_BLOCK - 1, SCAN_BLOCK, 3 * SCAN_BLOCK + 7] {
            let (flags, values) = (vec![false; n], vec![0.0f32; n]);
            assert!(!any_set(&flags) && all_zero(&values), "{n}");
            for at in [0, n / 2, n.saturating_sub(1)].into_iter().filter(|&at| at < n) {
                let (mut f, mut v) = (flags.clone(), values.clone());
                f[at] = true;
                assert!(any_set(&f), "{n} {at}");
                for x in [-0.0, 1e-45, -3.0, f32::NAN, f32::INFINITY] {
                    v[at] = x;
                    assert_eq!(all_zero(&v), v.iter().all(|&y| y == 0.0), "{n} {at} {x}");
                }
            }
        }
    }
}
