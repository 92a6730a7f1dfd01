//! The force pass's kernel, over either space: every fish's neighbourhood
//! sums and weighted rules, read from the grid's cell-sorted snapshot (the
//! pass itself is the engine's, [`crate::space::Swarm`]).
//!
//! The fish go by *quartets*, four fish in a row of the sorted order (from
//! a multiple of four), one fish per vector lane (`glam::Vec4`: SSE2 on
//! x86-64, NEON on aarch64, plain `f32` elsewhere). Sorted fish four in a
//! row live in the same or neighbouring cells, so the quartet walks the
//! union of their blocks of cells once and tests each candidate against all
//! four fish at the same time (`hoods.rs` and `scan.rs`); then the rules,
//! the jitter, the soft margin and the final clamp run in the lanes too.
//! Each lane adds its candidates in ascending sorted order, non-neighbours
//! as exact zeros, so the bits depend neither on the platform nor on the
//! number of threads, and the grid and brute force agree to the bit. Under
//! a neighbour cap the quartet looks at a sample of its candidates only,
//! scaled back up.
//!
//! Where the CPU has AVX2, the pass runs a build of itself compiled for
//! AVX2 (chosen at run time, [`KernelPath`]), whose quartets take their
//! candidates two at a time (`scan/avx2.rs`) and add every term in the
//! same order, and whose quartets go by pairs: both scanned, then their
//! neighbourhood rules evaluated eight lanes wide (the same generic rules,
//! `crate::math::lanes`; `quartet/avx2.rs`). The same bits as the portable
//! build; the pass chooses its build through one dispatch ([`Avx2::run`]).
//!
//! Fish that need more go one at a time: a school with a shaped view
//! (blind spot, zone or distance weights, leaders, other schools ignored)
//! takes the one-fish scan (`alone.rs`: four candidates rejected at once,
//! then the heading, an angle test and a weight per pair). The lane and
//! one-fish forms of the rules give the same bits (tests in `rules`,
//! `angle` and `noise`).

use glam::Vec2;

use crate::math::Vector;
use crate::rules::RuleForces;
use crate::world::grid::QUARTET;

pub(crate) mod alone;
mod cache;
pub(crate) mod hoods;
pub(crate) mod quartet;
pub(crate) mod scan;

pub(crate) use cache::SchoolCache;

/// Fish per quartet: one per lane of a `Vec4`.
const LANES: usize = 4;
const _: () = assert!(QUARTET == LANES, "a quartet is one vector");

/// How neighbours are found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NeighbourSearch {
    /// The uniform grid: the block of cells around each fish, one row and
    /// two columns each way (O(n)).
    #[default]
    Grid,
    /// Every fish against every other (O(n²)); the reference the grid is
    /// tested and benchmarked against.
    BruteForce,
}

/// Which build of the force pass runs. Both give the same bits (the
/// determinism tests compare them); only the speed differs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KernelPath {
    /// The fastest this CPU runs: on x86-64 with AVX2, a build of the pass
    /// for AVX2 whose quartets test two candidates at a time; elsewhere the
    /// portable one.
    #[default]
    Fastest,
    /// The portable build only (128-bit lanes: SSE2 on x86-64, NEON on
    /// aarch64), e.g. to measure what AVX2 gains.
    Portable,
}

impl KernelPath {
    /// Whether this path runs the AVX2 build on this CPU.
    pub fn uses_avx2(self) -> bool {
        self.avx2().is_some()
    }

    /// The proof that the AVX2 build may run, where this path runs it.
    pub(crate) fn avx2(self) -> Option<Avx2> {
        if self == Self::Fastest { Avx2::detect() } else { None }
    }
}

/// Proof that this CPU (and its operating system) runs AVX2: the only way
/// to make one is [`Avx2::detect`], so a pass holding one may run its AVX2
/// build.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2(());

impl Avx2 {
    /// The proof, where this CPU runs AVX2.
    pub fn detect() -> Option<Self> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Some(Self(()));
        }
        None
    }

    /// Runs `pass` on `work` in its AVX2 build where `proof` is given (the
    /// CPU has AVX2 and the path allows it), else in its portable build.
    #[inline(always)]
    pub(crate) fn run<W, P: TwoBuilds<W>>(proof: Option<Self>, pass: &P, work: W) -> P::Output {
        #[cfg(target_arch = "x86_64")]
        if let Some(Self(())) = proof {
            // SAFETY: an `Avx2` exists only where the CPU has AVX2
            // (`Avx2::detect`), which is all `run_avx2` asks.
            #[expect(
                unsafe_code,
                reason = "a call to the AVX2 build of the pass, once the CPU is known to have it"
            )]
            return unsafe { run_avx2(pass, work) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = proof;
        pass.run_in::<false>(work)
    }
}

/// A pass whose body is compiled twice: portable, and for AVX2, where its
/// quartets take their candidates two at a time. Both builds give the same
/// bits: no fused multiply-add, every sum in the same order.
pub(crate) trait TwoBuilds<W> {
    /// What one piece of work gives back.
    type Output;

    /// The body on `work`; `AVX2` is true only in the AVX2 build. Marked
    /// `#[inline(always)]` where implemented, with everything it calls that
    /// uses the lanes: the AVX2 intrinsics inline only into a function
    /// compiled for AVX2 (a closure is a function of its own, and does not
    /// inherit the feature).
    fn run_in<const AVX2: bool>(&self, work: W) -> Self::Output;
}

/// [`TwoBuilds::run_in`] compiled for AVX2 (everything it inlines).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn run_avx2<W, P: TwoBuilds<W>>(pass: &P, work: W) -> P::Output {
    pass.run_in::<true>(work)
}

/// What the force pass learnt about one fish, kept for observation while
/// asked for (`set_record_rules`, in both spaces).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ForceSample<V: Vector = Vec2> {
    /// The weighted rule forces (accelerations, before the clamp).
    pub rules: RuleForces<V>,
    /// Neighbours within the perception radius.
    pub neighbours: u32,
}
