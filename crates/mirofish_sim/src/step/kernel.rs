//! The force kernel: every fish's neighbourhood sums and weighted rules,
//! read from the grid's cell-sorted snapshot. The force pass
//! ([`crate::step::forces`]) runs it for every fish in parallel.
//!
//! The fish go by *quartets*, four fish in a row of the sorted order (from
//! a multiple of four), one fish per vector lane (`glam::Vec4`: SSE2 on
//! x86-64, NEON on aarch64, plain `f32` elsewhere). Sorted fish four in a
//! row live in the same or neighbouring cells, so the quartet walks the
//! union of their blocks of cells once and tests each candidate against all
//! four fish at the same time (`quartet.rs`, with the quartet scan and the
//! candidate loop both spaces share, `hoods.rs` and `scan.rs`); then the
//! rules, the jitter, the soft margin and the final clamp run in the lanes
//! too. Each lane adds its candidates in ascending sorted order,
//! non-neighbours as exact zeros, so the bits depend neither on the
//! platform nor on the number of threads, and the grid and brute force
//! agree to the bit. Under a neighbour cap the quartet looks at a sample
//! of its candidates only, scaled back up.
//!
//! Where the CPU has AVX2, the pass runs a build of itself compiled for
//! AVX2 (chosen at run time, [`KernelPath`]), whose quartets take their
//! candidates two at a time (`scan/avx2.rs`) and add every term in the
//! same order (a pair of candidates with a fish in its separation radius is
//! pushed apart in one 256-bit vector too), and whose quartets go by pairs:
//! both scanned, then their neighbourhood rules evaluated eight lanes wide
//! (the same generic rules, `crate::math::lanes`; `quartet/avx2.rs`). The
//! same bits as the portable build. A volume's force pass (the generic
//! engine's, `crate::space`) runs the same candidate loop and, with AVX2,
//! the same pairs of quartets' rules eight lanes wide (over three axes);
//! both passes choose their build through one dispatch ([`Avx2::run`]).
//!
//! Fish that need more go one at a time: a school with a shaped view
//! (blind spot, zone or distance weights, leaders, other schools ignored)
//! takes the one-fish scan both spaces share (`alone.rs`: four candidates
//! rejected at once, then the heading, an angle test and a weight per
//! pair); a scene with obstacles, predators or goals, or a quartet of
//! several schools, evaluates its rules fish by fish. The lane and one-fish
//! forms of the rules give the same bits (tests in `rules`, `angle`
//! and `noise`).

use glam::{Mat4, Vec2, Vec4};

use crate::math::Vector;
use crate::rules::compose::Setting;
use crate::rules::noise::TickKey;
use crate::rules::scene::Swimmer;
use crate::rules::{self, Neighbourhood, RuleForces};
use crate::step::crowding::lone_step;
use crate::step::kernel::alone::{Eye, Onlooker, Others};
use crate::world::grid::{CandidateRuns, CellGrid, PLANE_RUNS, QUARTET};
use crate::world::groups;
use crate::world::params::FlockParams;
use crate::world::scene::{Goal, Scene};
use crate::world::school;
use crate::world::tank::Tank;

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
/// to make one is [`Avx2::detect`], so a [`ForceKernel`] holding one may
/// run the AVX2 build of the pass.
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

/// What the force pass hands the integrator for one fish, in one vector
/// `[ax, ay, fright, neighbours]`: kept small and apart from
/// [`ForceSample`], because the integrator reads it through each fish's
/// rank, at random places where the slots are stable; and one vector, so
/// that the kicks of four lanes are written (and read back) by a 4 × 4
/// transpose instead of lane by lane.
///
/// - `ax, ay`: the total acceleration, clamped to the school's `max_force`;
/// - `fright`: fear from the predators seen this tick (0–1), before it is
///   merged with the fish's lingering fear;
/// - `neighbours`: neighbours within the perception radius, as `f32`
///   (exact up to 2²⁴, the lanes count in `f32` anyway).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Kick(Vec4);

impl Kick {
    /// A kick of `acceleration`, `fright` and `neighbours`.
    #[inline]
    pub fn new(acceleration: Vec2, fright: f32, neighbours: u32) -> Self {
        Self(Vec4::new(acceleration.x, acceleration.y, fright, neighbours as f32))
    }

    /// The clamped total acceleration.
    #[inline]
    pub fn acceleration(self) -> Vec2 {
        Vec2::new(self.0.x, self.0.y)
    }

    /// Fear from the predators seen this tick.
    #[inline]
    pub fn fright(self) -> f32 {
        self.0.z
    }

    /// Neighbours within the perception radius.
    #[inline]
    pub fn neighbours(self) -> u32 {
        self.0.w as u32
    }

    /// Four kicks from lanes `[ax, ay, fright, neighbours]` (one fish per
    /// lane).
    #[inline]
    pub fn from_lanes([ax, ay, fright, neighbours]: [Vec4; LANES]) -> [Self; LANES] {
        let m = Mat4::from_cols(ax, ay, fright, neighbours).transpose();
        [Self(m.x_axis), Self(m.y_axis), Self(m.z_axis), Self(m.w_axis)]
    }

    /// The lanes `[ax, ay, fright, neighbours]` of four kicks (one fish per
    /// lane): the inverse of [`Kick::from_lanes`].
    #[inline]
    pub fn lanes([a, b, c, d]: [Self; LANES]) -> [Vec4; LANES] {
        let m = Mat4::from_cols(a.0, b.0, c.0, d.0).transpose();
        [m.x_axis, m.y_axis, m.z_axis, m.w_axis]
    }
}

/// Everything the force pass reads, shared by all threads.
pub(crate) struct ForceKernel<'a> {
    pub grid: &'a CellGrid<Vec2>,
    /// Each fish's id, in sorted order: what its noise is keyed by (the
    /// grid's order, where slots are ids).
    pub ids: &'a [u32],
    pub sorted_phase: &'a [f32],
    pub sorted_leader: &'a [bool],
    /// Fear by slot, as of the previous tick.
    pub fear: &'a [f32],
    /// Leader flags by slot.
    pub leader: &'a [bool],
    /// Groups by id (empty: nobody in a group).
    pub group: &'a [u16],
    /// Where the route sends the leaders this tick.
    pub leader_goal: Option<Goal>,
    /// Nothing in the scene and nobody afraid: the scene reactions are
    /// skipped (the common case).
    pub quiet: bool,
    pub scene: &'a Scene,
    /// Every school's parameters.
    pub table: &'a [FlockParams],
    /// Every school's precomputed radii, view and scan kind.
    pub caches: &'a [SchoolCache],
    /// Schools in sorted order.
    pub sorted_school: &'a [u16],
    pub tank: &'a Tank,
    pub search: NeighbourSearch,
    /// The noise of this tick.
    pub key: TickKey,
    /// Run the AVX2 build of the pass: only where the CPU has AVX2 (the
    /// proof) and the flock allows it ([`crate::KernelPath`]).
    pub avx2: Option<Avx2>,
}

/// The block's runs of the cell the last fish scanned alone was in, reused
/// by the fish after it in the same cell. Start each work item with a
/// fresh one.
#[derive(Clone, Copy)]
struct CellCache {
    runs: CandidateRuns,
    /// One past the cell's last sorted index; 0 before the first fish.
    end: usize,
}

impl Default for CellCache {
    fn default() -> Self {
        Self { runs: CandidateRuns::single(0..0), end: 0 }
    }
}

impl ForceKernel<'_> {
    /// The kicks of the fish at sorted indices `base..base + kicks.len()`
    /// (and their samples, if asked for): one work item of the force pass.
    /// `base` is a multiple of four: the fish go by quartets, which share
    /// one scan of their neighbourhood when they all see all round
    /// ([`quartet`]); a quartet with a fish of a shaped view goes fish by
    /// fish. In the AVX2 build where it may ([`Avx2::run`]): the quartet
    /// scan then takes its candidates two at a time, and the quartets'
    /// rules go by pairs, eight lanes wide.
    pub fn run(&self, base: usize, kicks: &mut [Kick], samples: Option<&mut [ForceSample]>) {
        Avx2::run(self.avx2, self, (base, kicks, samples));
    }
}

impl<'k> TwoBuilds<(usize, &'k mut [Kick], Option<&'k mut [ForceSample]>)> for ForceKernel<'_> {
    type Output = ();

    /// [`ForceKernel::run`] in one build.
    #[inline(always)]
    fn run_in<const AVX2: bool>(
        &self,
        (base, kicks, mut samples): (usize, &'k mut [Kick], Option<&'k mut [ForceSample]>),
    ) {
        debug_assert_eq!(base % QUARTET, 0, "work items start at a quartet");
        let mut cell = CellCache::default();
        let all_round = !self.caches.iter().any(|c| c.shaped);
        let topological = self.table.iter().any(|p| p.topological_neighbours > 0);
        // Brute force is the exact reference: it looks at every fish.
        let capped = self.search == NeighbourSearch::Grid && self.table.iter().any(|p| p.neighbour_cap > 0);
        let school_of = |s: usize| school::clamp_index(self.sorted_school[s], self.caches.len());
        let plain = |s: usize, m: usize| {
            (all_round || (s..s + m).all(|s| !self.caches[school_of(s)].shaped))
                // A topological neighbourhood goes by quartets of one school.
                && (!topological || (s..s + m).all(|t| school_of(t) == school_of(s)))
        };
        if !AVX2 {
            for (q, kicks) in kicks.chunks_mut(QUARTET).enumerate() {
                let (s, range) = (base + q * QUARTET, q * QUARTET..q * QUARTET + kicks.len());
                let samples = samples.as_deref_mut().map(|all| &mut all[range]);
                self.one_quartet::<AVX2>(s, kicks, samples, (plain(s, kicks.len()), capped), &mut cell);
            }
            return;
        }
        let mut q = 0;
        while q * QUARTET < kicks.len() {
            let s = base + q * QUARTET;
            let range = q * QUARTET..(q * QUARTET + 2 * QUARTET).min(kicks.len());
            if range.len() == 2 * QUARTET && plain(s, 2 * QUARTET) {
                // Two quartets, scanned one after the other, then their
                // rules eight lanes wide. (A loop, not two calls: two
                // calls inline the scan twice, the AVX2 build 200 → 275 KB
                // and 0.4 % more instructions.)
                let mut scanned = [None, None];
                for (i, scanned) in scanned.iter_mut().enumerate() {
                    *scanned = Some(self.quartet_scan_at::<AVX2>(s + i * QUARTET, capped));
                }
                let [Some(first), Some(second)] = &scanned else { unreachable!("both quartets are scanned") };
                let (kicks_first, kicks_second) = kicks[range.clone()].split_at_mut(QUARTET);
                let samples = match samples.as_deref_mut() {
                    Some(all) => {
                        let (first, second) = all[range].split_at_mut(QUARTET);
                        [Some(first), Some(second)]
                    }
                    None => [None, None],
                };
                self.quartet_pair_kicks::<AVX2>([first, second], [kicks_first, kicks_second], samples);
                q += 2;
            } else {
                let range = q * QUARTET..(q * QUARTET + QUARTET).min(kicks.len());
                let (kicks, plain) = (&mut kicks[range.clone()], plain(s, range.len()));
                let samples = samples.as_deref_mut().map(|all| &mut all[range]);
                self.one_quartet::<AVX2>(s, kicks, samples, (plain, capped), &mut cell);
                q += 1;
            }
        }
    }
}

impl ForceKernel<'_> {
    /// The kicks of the quartet at `s`: `plain` (its fish all see all
    /// round, and a topological school's are of one school) by the quartet
    /// scan, else fish by fish.
    #[inline(always)]
    fn one_quartet<const AVX2: bool>(
        &self,
        s: usize,
        kicks: &mut [Kick],
        samples: Option<&mut [ForceSample]>,
        (plain, capped): (bool, bool),
        cell: &mut CellCache,
    ) {
        match (plain, self.grid.wraps()) {
            (true, true) => self.quartet::<true, AVX2>(s, kicks, samples, capped),
            (true, false) => self.quartet::<false, AVX2>(s, kicks, samples, capped),
            (false, _) => self.each_fish(s, kicks, samples, cell),
        }
    }

    /// The kicks of fish `s..s + kicks.len()`, one at a time, each with the
    /// one-fish scan both spaces share ([`alone::neighbourhood`]: for a
    /// school that sees all round, what the quartet scan finds).
    fn each_fish(
        &self,
        s: usize,
        kicks: &mut [Kick],
        mut samples: Option<&mut [ForceSample]>,
        cell: &mut CellCache,
    ) {
        for (k, kick) in kicks.iter_mut().enumerate() {
            let hood = self.hood_of(s + k, cell);
            let sample = samples.as_deref_mut().map(|all| &mut all[k]);
            *kick = self.kick(s + k, &hood, sample);
        }
    }

    /// The neighbourhood of the fish at sorted index `s`, scanned alone.
    /// Fish are asked for in ascending order within a work item, with one
    /// `cell` cache per item: fish of one cell share their runs.
    #[inline(always)]
    fn hood_of(&self, s: usize, cell: &mut CellCache) -> Neighbourhood {
        let g = self.grid;
        let (p, v, id) = (g.sorted_position(s), g.sorted_velocity(s), self.ids[s]);
        let school = school::clamp_index(self.sorted_school[s], self.table.len());
        match self.search {
            NeighbourSearch::Grid => {
                if s >= cell.end {
                    (cell.runs, cell.end) = g.cell_block(p);
                }
            }
            NeighbourSearch::BruteForce => {
                if cell.end == 0 {
                    (cell.runs, cell.end) = (CandidateRuns::single(0..g.len()), usize::MAX);
                }
            }
        }
        // A fish at rest looks where its wander points.
        let heading = rules::heading(v, || crate::math::angle::unit(self.sorted_phase[s]));
        let me = Onlooker { s, p, heading, id, school };
        let cap = match self.search {
            NeighbourSearch::Grid => self.table[school].neighbour_cap,
            // The exact reference looks at every fish.
            NeighbourSearch::BruteForce => 0,
        };
        let step = lone_step::<Vec2>(cell.runs.candidates(), cap);
        let others = Others {
            grid: g,
            school: self.sorted_school,
            leader: self.sorted_leader,
            schools: self.table.len(),
            // Only the school's cache knows (its scan is shaped where they
            // weigh more): any may.
            leaders: true,
            key: self.key,
        };
        let (cache, params) = (&self.caches[school], &self.table[school]);
        let eye = Eye { params, view: &cache.view, reach: &cache.reach };
        alone::neighbourhood::<Vec2, PLANE_RUNS>(&others, &me, eye, &cell.runs, step)
    }

    /// The clamped acceleration of the fish at sorted index `s`, whose
    /// neighbourhood is `hood`: its rules, then the composition both spaces
    /// share ([`Setting::kick`]: the soft margin, the scene, the jitter,
    /// the clamp). With `sample`, the fish's rule forces are written there
    /// too.
    #[inline(always)]
    fn kick(&self, s: usize, hood: &Neighbourhood, sample: Option<&mut ForceSample>) -> Kick {
        let g = self.grid;
        let (p, v, slot) = (g.sorted_position(s), g.sorted_velocity(s), g.order()[s] as usize);
        let school = school::clamp_index(self.sorted_school[s], self.table.len());
        let params = &self.table[school];
        let mut forces = RuleForces::evaluate(hood, v, self.sorted_phase[s], params);
        let fish = Swimmer {
            position: p,
            velocity: v,
            fear: self.fear[slot],
            school,
            group: groups::group_of(self.group, self.ids[s]),
            leads: self.leader[slot],
        };
        let (acceleration, fright) = self.setting().kick(&mut forces, &fish, self.ids[s], params);
        if let Some(sample) = sample {
            *sample = ForceSample { rules: forces, neighbours: hood.count };
        }
        Kick::new(acceleration, fright, hood.count)
    }

    /// What every fish's kick reads of the tick besides its neighbourhood.
    #[inline(always)]
    fn setting(&self) -> Setting<'_, Vec2> {
        Setting {
            tank: self.tank,
            scene: self.scene,
            route_goal: self.leader_goal.as_ref(),
            quiet: self.quiet,
            key: self.key,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::rules::noise;
    use crate::world::grid::offset;
    use crate::world::tank::BoundaryMode;

    #[test]
    fn kicks_go_to_and_from_lanes_unchanged() {
        let kicks: [Kick; LANES] = core::array::from_fn(|l| {
            let l = l as f32;
            Kick::new(Vec2::new(l - 1.5, -0.0 * l), 0.25 * l, (l as u32) * 7 + 3)
        });
        let lanes = Kick::lanes(kicks);
        assert_eq!(lanes[0], Vec4::new(-1.5, -0.5, 0.5, 1.5));
        assert_eq!(lanes[2], Vec4::new(0.0, 0.25, 0.5, 0.75));
        assert_eq!(lanes[3], Vec4::new(3.0, 10.0, 17.0, 24.0));
        assert_eq!(Kick::from_lanes(lanes), kicks);
        assert_eq!(kicks[2].acceleration(), Vec2::new(0.5, -0.0));
        assert_eq!(kicks[3].fright(), 0.75);
        assert_eq!(kicks[1].neighbours(), 10);
        // The sign of a zero survives the transpose.
        assert!(Kick::from_lanes(lanes)[2].acceleration().y.is_sign_negative());
    }

    /// Positions and velocities spread over a 200 × 200 tank, plus an
    /// exactly coincident pair.
    fn fish() -> (Vec<Vec2>, Vec<Vec2>) {
        let mut p: Vec<Vec2> = (0..300u64).map(|i| noise::signed_pair(noise::mix64(i)) * 99.0).collect();
        let mut v: Vec<Vec2> =
            (0..300u64).map(|i| noise::signed_pair(noise::mix64(i + 1000)) * 50.0).collect();
        p.extend([Vec2::ZERO, Vec2::ZERO]);
        v.extend([Vec2::ZERO, Vec2::X]);
        (p, v)
    }

    /// What a test kernel reads per fish, by sorted index: wander phases
    /// 0, 0.1, 0.2, …, nobody leading or afraid, the schools given.
    struct PerFish {
        phase: Vec<f32>,
        leader: Vec<bool>,
        fear: Vec<f32>,
        school: Vec<u16>,
        scene: Scene,
    }

    impl PerFish {
        fn new(school: Vec<u16>) -> Self {
            let n = school.len();
            let phase = (0..n).map(|i| i as f32 * 0.1).collect();
            Self { phase, leader: vec![false; n], fear: vec![0.0; n], school, scene: Scene::default() }
        }

        /// A kernel over `grid` in a quiet scene, seed 3, tick 0.
        fn kernel<'a>(
            &'a self,
            grid: &'a CellGrid<Vec2>,
            tank: &'a Tank,
            (table, caches): (&'a [FlockParams], &'a [SchoolCache]),
            search: NeighbourSearch,
        ) -> ForceKernel<'a> {
            ForceKernel {
                grid,
                ids: grid.order(),
                sorted_phase: &self.phase,
                sorted_leader: &self.leader,
                fear: &self.fear,
                leader: &self.leader,
                group: &[],
                leader_goal: None,
                quiet: true,
                scene: &self.scene,
                table,
                caches,
                sorted_school: &self.school,
                tank,
                search,
                key: TickKey::new(3, 0),
                avx2: None,
            }
        }
    }

    /// The kicks and samples of every fish of `kernel`'s grid, from the
    /// portable build of the pass; where this CPU has AVX2, the AVX2 build
    /// is run too and must give exactly the same bits.
    fn run_every_build(kernel: &ForceKernel<'_>) -> (Vec<Kick>, Vec<ForceSample>) {
        let n = kernel.grid.len();
        let run = |avx2: Option<Avx2>| {
            let kernel = ForceKernel { avx2, ..*kernel };
            let (mut kicks, mut samples) = (vec![Kick::default(); n], vec![ForceSample::default(); n]);
            kernel.run(0, &mut kicks, Some(&mut samples));
            (kicks, samples)
        };
        let portable = run(None);
        if let Some(proof) = Avx2::detect() {
            let avx2 = run(Some(proof));
            let bits = |(kicks, samples): &(Vec<Kick>, Vec<ForceSample>)| {
                let kicks: Vec<[u32; 4]> = kicks.iter().map(|k| k.0.to_array().map(f32::to_bits)).collect();
                let samples: Vec<_> = samples
                    .iter()
                    .map(|s| {
                        let r = &s.rules;
                        let parts = [r.separation, r.alignment, r.cohesion, r.wander, r.boundary];
                        (parts.map(|v| v.to_array().map(f32::to_bits)), s.neighbours)
                    })
                    .collect();
                (kicks, samples)
            };
            assert!(bits(&portable) == bits(&avx2), "the AVX2 build gives other bits");
        }
        portable
    }

    /// The four neighbourhood rules of `got` and `expected` agree up to
    /// the order of summation.
    fn assert_rules_near(got: &RuleForces, expected: &RuleForces, what: &str) {
        for (a, b) in [
            (got.separation, expected.separation),
            (got.alignment, expected.alignment),
            (got.cohesion, expected.cohesion),
            (got.wander, expected.wander),
        ] {
            assert!(near(a, b), "{what}: {a} vs {b}");
        }
    }

    fn near(a: Vec2, b: Vec2) -> bool {
        (a - b).length() <= 1.0e-3 * (1.0 + a.length().max(b.length()))
    }

    /// The quartets (fish four at a time, rules in lanes) find exactly the
    /// neighbours the reference finds and weigh the rules as
    /// [`RuleForces::evaluate`] does, on the grid and by brute force, in a
    /// walled tank and on a torus, with and without a (slack) neighbour cap;
    /// a tight cap thins the scan and still estimates the neighbourhood.
    #[test]
    fn quartets_match_the_reference_rules() {
        let (position, velocity) = fish();
        let n = position.len();
        let cases = [
            (BoundaryMode::SoftMargin, 0),
            (BoundaryMode::Wrap, 0),
            (BoundaryMode::Wrap, 1000),
            (BoundaryMode::Wrap, 4),
        ];
        for (mode, cap) in cases {
            let params = FlockParams { neighbour_cap: cap, ..FlockParams::default() };
            let caches = [SchoolCache::new(&params, false, false)];
            let tank = Tank::centered(Vec2::new(200.0, 200.0)).with_boundary(mode);
            let wrap = mode == BoundaryMode::Wrap;
            let mut grid = CellGrid::default();
            grid.rebuild_with_velocities(&position, &velocity, &tank, params.interaction_radius(), wrap);
            let fish = PerFish::new(vec![0; n]);
            let phase = &fish.phase;
            for search in [NeighbourSearch::Grid, NeighbourSearch::BruteForce] {
                let kernel = fish.kernel(&grid, &tank, (core::slice::from_ref(&params), &caches), search);
                let (kicks, samples) = run_every_build(&kernel);
                let order = grid.order();
                let (mut found, mut wanted) = (0u32, 0u32);
                for s in 0..n {
                    let p = grid.sorted_position(s);
                    let mut reference = Neighbourhood::default();
                    for j in (0..n).filter(|&j| j != s) {
                        let d = offset(p, grid.sorted_position(j), tank.size(), wrap);
                        reference.add(d, d.length_squared(), grid.sorted_velocity(j), &caches[0].reach);
                    }
                    reference.settle_ties(TickKey::new(3, 0).tie_direction::<Vec2>(order[s]));
                    let expected =
                        RuleForces::evaluate(&reference, grid.sorted_velocity(s), phase[s], &params);
                    let what = format!("{mode:?}, cap {cap}, {search:?}, fish {s}");
                    assert!(kicks[s].acceleration().length() <= params.max_force * (1.0 + 1.0e-6), "{what}");
                    (found, wanted) = (found + samples[s].neighbours, wanted + reference.count);
                    if cap == 4 {
                        // Thinned: only the total is checked, below.
                        continue;
                    }
                    assert_eq!(samples[s].neighbours, reference.count, "{what}");
                    assert_eq!(kicks[s].neighbours(), reference.count, "{what}");
                    assert_rules_near(&samples[s].rules, &expected, &what);
                }
                let ratio = found as f32 / wanted as f32;
                assert!((ratio - 1.0).abs() < 0.1, "{mode:?}, cap {cap}, {search:?}: {found} vs {wanted}");
            }
        }
    }

    /// A topological neighbourhood aligns with and coheres to the `k`
    /// nearest neighbours in range (ties to the lower sorted index) and is
    /// pushed by every neighbour within the separation radius: by quartets
    /// (one school) and fish by fish (two schools alternating, the same
    /// parameters), with the same bits.
    #[test]
    fn a_topological_neighbourhood_is_the_k_nearest() {
        let (position, velocity) = fish();
        let n = position.len();
        // No cap (0, which validation refuses but the kernel reads as
        // none): the exact scan is under test.
        let params = FlockParams { topological_neighbours: 5, neighbour_cap: 0, ..FlockParams::reference() };
        let tank = Tank::centered(Vec2::new(200.0, 200.0)).with_boundary(BoundaryMode::Wrap);
        let mut grid = CellGrid::default();
        grid.rebuild_with_velocities(&position, &velocity, &tank, params.interaction_radius(), true);
        let mut runs = Vec::new();
        for schools in [1usize, 2] {
            let table = vec![params; schools];
            let caches: Vec<SchoolCache> =
                table.iter().map(|p| SchoolCache::new(p, schools > 1, false)).collect();
            let fish = PerFish::new((0..n).map(|s| (s % schools) as u16).collect());
            let kernel = fish.kernel(&grid, &tank, (&table, &caches), NeighbourSearch::Grid);
            runs.push(run_every_build(&kernel).1);
        }
        assert_eq!(runs[0], runs[1], "by quartets and fish by fish");
        let (samples, order) = (&runs[0], grid.order());
        for s in 0..n {
            let p = grid.sorted_position(s);
            let mut reference = Neighbourhood::default();
            let mut in_range = Vec::new();
            for j in (0..n).filter(|&j| j != s) {
                let d = offset(p, grid.sorted_position(j), tank.size(), true);
                let d2 = d.length_squared();
                if d2 < params.perception_radius * params.perception_radius {
                    in_range.push((d2, j, d));
                }
                if d2 < params.separation_radius * params.separation_radius {
                    reference.separation_count += 1;
                    reference.separation_sum += rules::separation_push(d, d2, 12.0, 2.0);
                    if d2 == 0.0 {
                        reference.tie_strength += rules::separation_strength(d2, 12.0, 2.0);
                    }
                }
            }
            reference.settle_ties(TickKey::new(3, 0).tie_direction::<Vec2>(order[s]));
            in_range.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            for &(_, j, d) in in_range.iter().take(5) {
                reference.count += 1;
                reference.velocity_sum += grid.sorted_velocity(j);
                reference.offset_sum += d;
            }
            let expected = RuleForces::evaluate(&reference, grid.sorted_velocity(s), s as f32 * 0.1, &params);
            assert_eq!(samples[s].neighbours, reference.count, "fish {s}");
            assert_rules_near(&samples[s].rules, &expected, &format!("fish {s}"));
        }
    }

    /// A crowd packed well within the separation radius, with fish on
    /// exactly the same point: nearly every pair of candidates has both
    /// near a fish of the quartet, which the AVX2 build pushes eight lanes
    /// at once (a fish on another's point escapes along its own way). Every
    /// build gives the same bits (`run_every_build`), and the separation
    /// is the reference's, on a torus and between walls.
    #[test]
    fn a_packed_crowd_is_pushed_apart_alike_by_every_build() {
        // No cap (0, which validation refuses but the kernel reads as
        // none): the exact scan is under test.
        let params = FlockParams { neighbour_cap: 0, ..FlockParams::default() };
        let reach = SchoolCache::new(&params, false, false).reach;
        let (mut position, mut velocity) = (Vec::new(), Vec::new());
        for i in 0..150u64 {
            // Every seventh fish on the point of the one before.
            let p = match position.last() {
                Some(&last) if i % 7 == 6 => last,
                _ => noise::signed_pair(noise::mix64(i)) * (params.separation_radius / 3.0),
            };
            position.push(p);
            velocity.push(noise::signed_pair(noise::mix64(i + 500)) * 50.0);
        }
        let n = position.len();
        for mode in [BoundaryMode::SoftMargin, BoundaryMode::Wrap] {
            let wrap = mode == BoundaryMode::Wrap;
            let tank = Tank::centered(Vec2::new(200.0, 200.0)).with_boundary(mode);
            let mut grid = CellGrid::default();
            grid.rebuild_with_velocities(&position, &velocity, &tank, params.interaction_radius(), wrap);
            let fish = PerFish::new(vec![0; n]);
            let caches = [SchoolCache::new(&params, false, false)];
            let kernel =
                fish.kernel(&grid, &tank, (core::slice::from_ref(&params), &caches), NeighbourSearch::Grid);
            let (_, samples) = run_every_build(&kernel);
            let order = grid.order();
            for s in 0..n {
                let p = grid.sorted_position(s);
                let mut reference = Neighbourhood::default();
                for j in (0..n).filter(|&j| j != s) {
                    let d = offset(p, grid.sorted_position(j), tank.size(), wrap);
                    reference.add(d, d.length_squared(), grid.sorted_velocity(j), &reach);
                }
                reference.settle_ties(TickKey::new(3, 0).tie_direction::<Vec2>(order[s]));
                assert_eq!(reference.separation_count, n as u32 - 1, "all packed within the radius");
                let expected =
                    RuleForces::evaluate(&reference, grid.sorted_velocity(s), fish.phase[s], &params);
                let what = format!("{mode:?}, fish {s}");
                assert_eq!(samples[s].neighbours, reference.count, "{what}");
                assert_rules_near(&samples[s].rules, &expected, &what);
            }
        }
    }

    #[test]
    fn a_thinned_scan_is_scaled_to_the_whole() {
        let mut hood = Neighbourhood { count: 10, velocity_sum: Vec2::ONE, ..Neighbourhood::default() };
        hood.scale_sample(100, 25);
        assert_eq!(hood.count, 40);
        assert_eq!(hood.velocity_sum, Vec2::splat(4.0));
    }
}
