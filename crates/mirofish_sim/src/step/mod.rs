//! The fish and their tick: the school as columns ([`flock`]) and the
//! passes that take it from one tick to the next.
//!
//! 1. [`index`]: counting-sort the fish into the grid and take sorted copies
//!    of what the force pass reads — the previous tick's state, and only it
//!    (double buffering).
//! 2. [`forces`]: for every fish, in parallel, sum its neighbourhood and
//!    weight the rules and the scene into one acceleration, clamped once to
//!    `max_force` (the kernel does the work).
//! 3. [`integrate`]: semi-implicit Euler (`v += a·dt`, speed clamp,
//!    `p += v·dt`), fear and wander phase; then the walls and the obstacles.
//! 4. [`predators`]: the leaders' route moves on, predators hunt and move.
//!
//! [`Flock::step`] runs all four. Every pass takes the school table
//! ([`SchoolTable`]): one `FlockParams` for a single school. Each pass
//! writes only its own fish's entries and reads only what earlier passes
//! finished, so the result depends neither on iteration order nor on the
//! number of threads: the same seed gives the same bits.

pub mod command;
pub(crate) mod crowding;
pub mod flock;
pub mod forces;
mod groups;
pub mod index;
pub mod integrate;
pub(crate) mod kernel;
pub mod predators;

use crate::step::flock::Flock;
use crate::world::params::{ParamError, validate_dt};
use crate::world::scene::Scene;
use crate::world::school::SchoolTable;
use crate::world::tank::Tank;

pub(crate) use index::SortedColumns;
pub use kernel::{ForceSample, KernelPath, NeighbourSearch};

/// Fish per parallel work item: large enough to amortise scheduling, small
/// enough to balance two to a few dozen threads at 10k fish and up.
pub(crate) const CHUNK: usize = 1024;
const _: () =
    assert!(CHUNK.is_multiple_of(crate::world::grid::QUARTET), "force work items start at a quartet");

impl Flock {
    /// Validates the inputs, then runs one whole tick: the three passes,
    /// then the predators' move.
    pub fn step<S: SchoolTable + ?Sized>(
        &mut self,
        schools: &S,
        tank: &Tank,
        scene: &mut Scene,
        dt: f32,
    ) -> Result<(), ParamError> {
        let table = schools.table();
        if table.is_empty() {
            return Err(ParamError { field: "schools", value: 0.0, expected: "at least one school".into() });
        }
        for params in table {
            params.validate()?;
        }
        // The largest index (a scan the compiler vectorises) tells whether
        // any is out of range; the error names the first such one.
        let largest = self.school.chunks(SCAN_BLOCK).map(|b| b.iter().fold(0, |m, &k| m.max(k))).max();
        if largest.is_some_and(|k| usize::from(k) >= table.len()) {
            let bad =
                self.school.iter().find(|&&k| usize::from(k) >= table.len()).copied().unwrap_or_default();
            return Err(ParamError {
                field: "school",
                value: f32::from(bad),
                expected: format!("an index below the {} schools given", table.len()),
            });
        }
        let params = table;
        tank.validate()?;
        scene.validate_in(tank)?;
        validate_dt(dt)?;
        // The whole tick on one thread of the pool: each pass's own `run`
        // then starts at once (no hand-over, no wake-up of the caller).
        let pool = self.pool.clone();
        run(pool.as_deref(), || {
            self.rebuild_index(params, tank);
            self.accumulate_forces(params, tank, scene);
            self.integrate(params, tank, scene, dt);
        });
        self.move_predators(scene, tank, dt);
        Ok(())
    }
}

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

/// Whether every school index is 0, block by block like [`any_set`].
pub(crate) fn all_zero_u16(values: &[u16]) -> bool {
    values.chunks(SCAN_BLOCK).all(|block| block.iter().fold(0, |any, &v| any | v) == 0)
}

/// Fish per block of the scans that run on one thread ([`any_set`],
/// [`all_zero`], the school indices' check).
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
