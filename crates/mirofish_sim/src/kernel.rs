//! The force kernel: every fish's neighbourhood sums and weighted rules,
//! read from the grid's cell-sorted snapshot. The force pass
//! ([`crate::Flock::accumulate_forces`]) runs it for every fish in parallel.
//!
//! The fish go by *quartets*, the four fish of one block of the snapshot
//! ([`crate::grid::FishBlock`]), one fish per vector lane (`glam::Vec4`:
//! SSE2 on x86-64, NEON on aarch64, plain `f32` elsewhere). Sorted fish
//! four in a row live in the same or neighbouring cells, so the quartet
//! walks the union of their 3 × 3 blocks once and tests each candidate
//! against all four fish at the same time (`quartet.rs`); then the rules,
//! the jitter, the soft margin and the final clamp run in the lanes too.
//! Each lane adds its candidates in ascending sorted order, non-neighbours
//! as exact zeros, so the bits depend neither on the platform nor on the
//! number of threads, and the grid and brute force agree to the bit.
//!
//! Fish that need more go one at a time: a school with a shaped view
//! (blind spot, zone or distance weights, leaders, other schools ignored)
//! takes a per-candidate scan with the heading, an angle test and a weight
//! per pair; a crowd thinned by a neighbour cap takes a scan of four
//! candidates at a time (every `step`-th one); a scene with obstacles,
//! predators or goals, or a quartet of several schools, evaluates its rules
//! fish by fish. The lane and one-fish forms of the rules give the same
//! bits (tests in `rules.rs` and `angle.rs`).

use glam::{BVec4A, Vec2, Vec4};

use crate::boundary;
use crate::grid::{BLOCK, CandidateRuns, FishBlock, SpatialGrid, offset};
use crate::noise::{self, Stream, TickKey};
use crate::params::{BoundaryMode, FlockParams, Tank};
use crate::rules::{self, Neighbourhood, RuleForces};
use crate::scene::{self, Goal, Scene};
use crate::school::{self, SchoolCache};

mod quartet;

/// Candidates looked at together: one 4-lane vector.
const LANES: usize = 4;
const _: () = assert!(BLOCK == LANES, "a block of the snapshot is one vector");

/// Lane numbers, for the masks of a block's ends and of the fish itself.
const LANE_INDEX: Vec4 = Vec4::new(0.0, 1.0, 2.0, 3.0);
/// Longest piece of a run scanned at once: lane positions within it are
/// whole numbers that `f32` holds exactly.
const MAX_PIECE: usize = 1 << 24;

/// How neighbours are found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NeighbourSearch {
    /// The uniform grid: 3 × 3 cells around each fish (O(n)).
    #[default]
    Grid,
    /// Every fish against every other (O(n²)); the reference the grid is
    /// tested and benchmarked against.
    BruteForce,
}

/// What the force pass learnt about one fish, kept for observation.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ForceSample {
    /// The weighted rule forces (accelerations, before the clamp).
    pub rules: RuleForces,
    /// Neighbours within the perception radius.
    pub neighbours: u32,
}

/// What the force pass hands the integrator for one fish: kept small and
/// apart from [`ForceSample`], because the integrator gathers it into slot
/// order, i.e. from random places of the sorted arrays.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Kick {
    /// Total acceleration, clamped to the school's `max_force`.
    pub acceleration: Vec2,
    /// Fear from the predators seen this tick (0–1), before it is merged
    /// with the fish's lingering fear.
    pub fright: f32,
    /// Neighbours within the perception radius.
    pub neighbours: u32,
}

/// Everything the force pass reads, shared by all threads.
pub(crate) struct ForceKernel<'a> {
    pub grid: &'a SpatialGrid,
    pub sorted_phase: &'a [f32],
    pub sorted_leader: &'a [bool],
    /// Fear by slot, as of the previous tick.
    pub fear: &'a [f32],
    /// Leader flags by slot.
    pub leader: &'a [bool],
    /// Where the route sends the leaders this tick.
    pub leader_goal: Option<Goal>,
    /// Nothing in the scene and nobody afraid: the scene reactions are
    /// skipped (the common case, and worth ~10 % of the pass).
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
    pub seed: u64,
    /// The noise of this tick.
    pub key: TickKey,
}

/// The 3 × 3 runs of the cell the last fish was in, and what the scan needs
/// of each, reused by the fish after it in the same cell. Start each work
/// item with a fresh one.
#[derive(Clone, Copy)]
pub(crate) struct CellCache {
    runs: CandidateRuns,
    blocks: [BlockRun; 6],
    /// One past the cell's last sorted index; 0 before the first fish.
    end: usize,
}

impl Default for CellCache {
    fn default() -> Self {
        Self { runs: CandidateRuns::single(0..0), blocks: [BlockRun::new(0..0); 6], end: 0 }
    }
}

impl CellCache {
    /// Points the cache at `runs`, the cell's (or brute force's) runs.
    #[inline]
    fn set(&mut self, runs: CandidateRuns) {
        self.runs = runs;
        for (block, run) in self.blocks.iter_mut().zip(runs.iter()) {
            *block = BlockRun::new(run);
        }
    }

    /// The prepared runs, as many as there are runs.
    #[inline]
    fn block_runs(&self) -> &[BlockRun] {
        &self.blocks[..self.runs.len()]
    }
}

/// A run of candidates as the four-lane scan walks it: the snapshot blocks
/// it touches and each lane's index relative to the run's start, computed
/// once per cell rather than per fish.
#[derive(Clone, Copy)]
struct BlockRun {
    /// The run, `a..b` in sorted indices.
    a: usize,
    b: usize,
    /// The blocks `first..last` of the snapshot that hold it.
    first: usize,
    last: usize,
    /// Each lane's index minus `a` in the first block.
    at: Vec4,
    /// `b - a`, in every lane.
    end: Vec4,
}

impl BlockRun {
    #[inline]
    fn new(run: core::ops::Range<usize>) -> Self {
        let (a, b) = (run.start, run.end.max(run.start));
        Self {
            a,
            b,
            first: a / BLOCK,
            last: b.div_ceil(BLOCK).max(a / BLOCK),
            at: LANE_INDEX - Vec4::splat((a % BLOCK) as f32),
            end: Vec4::splat((b - a) as f32),
        }
    }
}

/// The fish whose neighbourhood a scan sums.
#[derive(Clone, Copy)]
struct Onlooker {
    /// Its sorted index (left out of its own sums).
    s: usize,
    /// Its position.
    p: Vec2,
    /// Its heading (unit), for the view test.
    heading: Vec2,
    /// Its slot, for the coincident-pair direction.
    slot: u32,
    /// Its school (already clamped to the table).
    school: usize,
}

impl ForceKernel<'_> {
    /// The kicks of the fish at sorted indices `base..base + kicks.len()`
    /// (and their samples, if asked for): one work item of the force pass.
    /// `base` is a multiple of four: the fish go by quartets, four fish of
    /// one block of the snapshot, which share one scan of their
    /// neighbourhood when they all see all round ([`quartet`]).
    pub fn run(&self, base: usize, kicks: &mut [Kick], mut samples: Option<&mut [ForceSample]>) {
        debug_assert_eq!(base % BLOCK, 0, "work items start at a block");
        let mut cell = CellCache::default();
        let all_round = !self.caches.iter().any(|c| c.shaped);
        for (q, kicks) in kicks.chunks_mut(BLOCK).enumerate() {
            let s = base + q * BLOCK;
            let range = q * BLOCK..q * BLOCK + kicks.len();
            let samples = samples.as_deref_mut().map(|all| &mut all[range]);
            let plain = all_round
                || (s..s + kicks.len()).all(|s| {
                    !self.caches[school::clamp_index(self.sorted_school[s], self.caches.len())].shaped
                });
            match (plain, self.grid.wraps()) {
                (true, true) => self.quartet::<true>(s, kicks, samples, &mut cell),
                (true, false) => self.quartet::<false>(s, kicks, samples, &mut cell),
                (false, _) => self.each_fish(s, kicks, samples, &mut cell),
            }
        }
    }

    /// The kicks of fish `s..s + kicks.len()`, one at a time.
    fn each_fish(
        &self,
        s: usize,
        kicks: &mut [Kick],
        mut samples: Option<&mut [ForceSample]>,
        cell: &mut CellCache,
    ) {
        for (k, kick) in kicks.iter_mut().enumerate() {
            // Four copies of the scan, so the inner loop carries no mode test.
            let school = school::clamp_index(self.sorted_school[s + k], self.caches.len());
            let hood = match (self.grid.wraps(), self.caches[school].shaped) {
                (true, true) => self.hood_of::<true, true>(s + k, cell),
                (true, false) => self.hood_of::<true, false>(s + k, cell),
                (false, true) => self.hood_of::<false, true>(s + k, cell),
                (false, false) => self.hood_of::<false, false>(s + k, cell),
            };
            let sample = samples.as_deref_mut().map(|all| &mut all[k]);
            *kick = self.kick(s + k, &hood, sample);
        }
    }

    /// The neighbourhood of the fish at sorted index `s`, scanned alone.
    /// Fish are asked for in ascending order within a work item, with one
    /// `cell` cache per item: fish of one cell share their 3 × 3 runs.
    #[inline(always)]
    fn hood_of<const WRAP: bool, const SHAPED: bool>(&self, s: usize, cell: &mut CellCache) -> Neighbourhood {
        let g = self.grid;
        let (p, v, slot) = (g.sorted_position(s), g.sorted_velocity(s), g.order()[s]);
        let school = school::clamp_index(self.sorted_school[s], self.table.len());
        let params = &self.table[school];
        match self.search {
            NeighbourSearch::Grid => {
                if s >= cell.end {
                    let (runs, end) = g.cell_block(p);
                    cell.set(runs);
                    cell.end = end;
                }
            }
            NeighbourSearch::BruteForce => {
                if cell.end == 0 {
                    cell.set(CandidateRuns::single(0..g.len()));
                    cell.end = usize::MAX;
                }
            }
        }
        // A fish at rest looks where its wander points.
        let heading =
            if SHAPED { rules::heading(v, crate::angle::unit(self.sorted_phase[s])) } else { Vec2::X };
        let me = Onlooker { s, p, heading, slot, school };
        if SHAPED {
            self.shaped_neighbourhood::<WRAP>(&cell.runs, params.neighbour_cap, &me)
        } else {
            self.neighbourhood::<WRAP>(cell, params.neighbour_cap, &me)
        }
    }

    /// The clamped acceleration of the fish at sorted index `s`, whose
    /// neighbourhood is `hood`: the rules, the scene, the soft margin and
    /// the jitter. With `sample`, the fish's rule forces are written there
    /// too.
    #[inline(always)]
    fn kick(&self, s: usize, hood: &Neighbourhood, sample: Option<&mut ForceSample>) -> Kick {
        let g = self.grid;
        let (p, v, slot) = (g.sorted_position(s), g.sorted_velocity(s), g.order()[s]);
        let school = school::clamp_index(self.sorted_school[s], self.table.len());
        let params = &self.table[school];
        let phase = self.sorted_phase[s];
        let mut forces = RuleForces::evaluate(hood, v, phase, params);
        let fright =
            if self.quiet { 0.0 } else { self.react_to_scene(&mut forces, params, (p, slot, school), v) };
        if self.tank.boundary == BoundaryMode::SoftMargin {
            let (tank, margin) = (self.tank, self.tank.margin());
            let clear = p.cmpge(tank.min + margin).all() && p.cmple(tank.max - margin).all();
            forces.boundary = if clear {
                // Most fish are clear of every wall: the steer would be
                // exactly this zero (its sign included).
                Vec2::ZERO * tank.boundary_weight
            } else {
                rules::steer(boundary::soft_margin_steer(p, tank, params), tank.boundary_weight, params)
            };
        }
        let jitter =
            self.key.in_unit_disc(u64::from(slot), Stream::Jitter) * (params.jitter * params.max_force);
        // One clamp of the total: what bounds the velocity change per tick.
        let acceleration = rules::clamp_length(forces.acceleration() + jitter, params.max_force);
        if let Some(sample) = sample {
            *sample = ForceSample { rules: forces, neighbours: hood.count };
        }
        Kick { acceleration, fright, neighbours: hood.count }
    }

    /// Adds obstacle avoidance, flight, the goal and the attract/repel point
    /// to `forces`, and applies the previous tick's fear (separation grows
    /// with it). Returns the fright predators cause this tick.
    #[inline]
    fn react_to_scene(
        &self,
        forces: &mut RuleForces,
        params: &FlockParams,
        (p, slot, school): (Vec2, u32, usize),
        v: Vec2,
    ) -> f32 {
        let scene = self.scene;
        let fear = self.fear[slot as usize];
        forces.separation *= 1.0 + (params.panic_separation - 1.0) * fear;
        let max_speed = params.max_speed * (1.0 + (params.panic_speed - 1.0) * fear);
        if !scene.obstacles.is_empty() {
            let away: Vec2 =
                scene.obstacles.iter().map(|o| scene::avoid(p, o, params.obstacle_look, max_speed)).sum();
            forces.obstacle = rules::steer(away, params.obstacle_weight, params);
        }
        let mut fright = 0.0f32;
        if !scene.predators.is_empty() {
            let mut flight = Vec2::ZERO;
            for predator in &scene.predators {
                let (f, change) = scene::flee(p, v, predator, max_speed);
                fright = fright.max(f);
                flight += change;
            }
            forces.flee = rules::steer(flight, params.flee_weight, params);
        }
        if let Some(goal) = scene.goal_of(school) {
            forces.goal += rules::steer(scene::pursue(p, v, &goal, params.max_speed), goal.weight, params);
        }
        if let Some(a) = &scene.attractor {
            forces.goal += rules::steer(scene::attract(p, a, params.max_speed), a.strength.abs(), params);
        }
        if let Some(goal) = self.leader_goal
            && self.leader[slot as usize]
        {
            forces.goal += rules::steer(scene::pursue(p, v, &goal, params.max_speed), goal.weight, params);
        }
        fright
    }

    /// The neighbourhood sums of an all-round school, four candidates at a
    /// time. Under a neighbour cap only every `step`-th candidate is looked
    /// at, and the sums are scaled up by candidates over candidates looked
    /// at.
    #[inline(always)]
    fn neighbourhood<const WRAP: bool>(&self, cell: &CellCache, cap: u32, me: &Onlooker) -> Neighbourhood {
        let runs = &cell.runs;
        let step = thinning_step(runs, cap);
        let (mut acc, mut close) = (Lanes::default(), SeparationLanes::default());
        if step == 1 {
            for run in cell.block_runs() {
                if run.b - run.a <= MAX_PIECE {
                    self.scan_run::<WRAP>((&mut acc, &mut close), run, me);
                } else {
                    // Lane positions would no longer be exact in `f32`
                    // (brute force over millions of fish): the gathering
                    // scan with stride 1 counts in integers.
                    self.scan_strided::<WRAP>((&mut acc, &mut close), run.a, run.b, 1, me);
                }
            }
            return acc.finish(&close);
        }
        // Each fish starts its stride elsewhere, so the fish of one cell look
        // at different samples and their estimates' errors do not line up.
        let offset = me.s % step;
        let mut looked = 0usize;
        for run in runs.iter() {
            let a = (run.start + offset).min(run.end);
            looked += self.scan_strided::<WRAP>((&mut acc, &mut close), a, run.end, step, me);
        }
        let mut hood = acc.finish(&close);
        scale(&mut hood, runs, looked);
        hood
    }

    /// Adds the candidates at sorted indices `a..b`, less the fish itself,
    /// to `acc`, a block of the snapshot (four fish) at a time.
    ///
    /// A candidate always lands in the lane of its sorted index modulo four,
    /// and each lane sums its candidates in ascending order whatever the
    /// runs: the grid and brute force agree to the bit. Lanes outside `a..b`
    /// (and the fish itself) are masked off.
    #[inline(always)]
    fn scan_run<const WRAP: bool>(
        &self,
        (acc, close): (&mut Lanes, &mut SeparationLanes),
        run: &BlockRun,
        me: &Onlooker,
    ) {
        let blocks = &self.grid.blocks()[run.first..run.last];
        // Each lane's index relative to the run's start, stepped by four per
        // block: the masks cost three compares instead of three conversions.
        let (mut at, end) = (run.at, run.end);
        let me_at = Vec4::splat(if (run.a..run.b).contains(&me.s) { (me.s - run.a) as f32 } else { -1.0 });
        for (i, block) in blocks.iter().enumerate() {
            let valid = at.cmpge(Vec4::ZERO) & at.cmplt(end) & at.cmpne(me_at);
            let lanes = block.lanes();
            self.add_block::<WRAP>(acc, close, lanes, valid, (run.first + i) * BLOCK, 1, me);
            at += Vec4::splat(LANES as f32);
        }
    }

    /// Adds every `step`-th candidate of `a..b`, less the fish itself, to
    /// `acc`, four gathered into a vector at a time (a neighour cap thins
    /// the scan). Returns how many candidates it looked at.
    #[inline(always)]
    fn scan_strided<const WRAP: bool>(
        &self,
        (acc, close): (&mut Lanes, &mut SeparationLanes),
        a: usize,
        b: usize,
        step: usize,
        me: &Onlooker,
    ) -> usize {
        let blocks = self.grid.blocks();
        let last = self.grid.len().saturating_sub(1);
        let mut looked = 0;
        let mut k = a;
        while k < b {
            let at = |l: usize| {
                let j = (k + l * step).min(last);
                (&blocks[j / BLOCK], j % BLOCK)
            };
            let gather = |component: fn(&FishBlock) -> &[f32; BLOCK]| {
                let lane = |l: usize| {
                    let (block, i) = at(l);
                    component(block)[i]
                };
                Vec4::new(lane(0), lane(1), lane(2), lane(3))
            };
            let rest = (b - k).div_ceil(step).min(LANES);
            let offset = me.s.wrapping_sub(k);
            let me_lane = if offset.is_multiple_of(step) { (offset / step).min(LANES) } else { LANES };
            let valid =
                LANE_INDEX.cmplt(Vec4::splat(rest as f32)) & LANE_INDEX.cmpne(Vec4::splat(me_lane as f32));
            looked += rest - usize::from(me_lane < rest);
            let block = [gather(|b| &b.x), gather(|b| &b.y), gather(|b| &b.vx), gather(|b| &b.vy)];
            self.add_block::<WRAP>(acc, close, block, valid, k, step, me);
            k += LANES * step;
        }
        looked
    }

    /// Adds the `valid` lanes of one block of candidates (`[x, y, vx, vy]`;
    /// lane `l` is the candidate at sorted index `k + l·step`) to `acc`.
    #[inline(always)]
    #[expect(clippy::too_many_arguments, reason = "the sums, one block's lanes and where they lie")]
    fn add_block<const WRAP: bool>(
        &self,
        acc: &mut Lanes,
        close_sums: &mut SeparationLanes,
        [x, y, vx, vy]: [Vec4; 4],
        valid: BVec4A,
        k: usize,
        step: usize,
        me: &Onlooker,
    ) {
        let reach = &self.caches[me.school].reach;
        let (mut dx, mut dy) = (x - Vec4::splat(me.p.x), y - Vec4::splat(me.p.y));
        if WRAP {
            let size = self.tank.size();
            dx = nearest_image(dx, size.x * 0.5, size.x);
            dy = nearest_image(dy, size.y * 0.5, size.y);
        }
        let d2 = dx * dx + dy * dy;
        let seen = valid & d2.cmplt(Vec4::splat(reach.perception2));
        acc.count += u32::from(LANES_SET[seen.bitmask() as usize]);
        acc.vx += Vec4::select(seen, vx, Vec4::ZERO);
        acc.vy += Vec4::select(seen, vy, Vec4::ZERO);
        acc.dx += Vec4::select(seen, dx, Vec4::ZERO);
        acc.dy += Vec4::select(seen, dy, Vec4::ZERO);
        // Rare (the separation disc is a small part of the block): the
        // square root and divisions only when a lane is that close, in a
        // function of their own whose sums stay in memory, so that the
        // hot loop's stay in registers.
        let close = valid & d2.cmplt(Vec4::splat(reach.separation2));
        if close.any() {
            self.separate(close_sums, close, [dx, dy, d2], k, step, me);
        }
    }

    /// Adds the separation pushes of the `close` lanes of one block, each
    /// exactly what [`rules::separation_push`] computes.
    #[inline(never)]
    fn separate(
        &self,
        sums: &mut SeparationLanes,
        close: BVec4A,
        [dx, dy, d2]: [Vec4; 3],
        k: usize,
        step: usize,
        me: &Onlooker,
    ) {
        let reach = &self.caches[me.school].reach;
        let d = d2.sqrt();
        let strength =
            (Vec4::splat(reach.separation) / d.max(Vec4::splat(reach.floor)) - Vec4::ONE).max(Vec4::ZERO);
        let coincident = close & d2.cmpeq(Vec4::ZERO);
        let apart = close & !coincident;
        sums.count += u32::from(LANES_SET[close.bitmask() as usize]);
        sums.sx += Vec4::select(apart, -dx / d * strength, Vec4::ZERO);
        sums.sy += Vec4::select(apart, -dy / d * strength, Vec4::ZERO);
        if coincident.any() {
            let [x, y] = self.part_coincident(coincident, strength, k, step, me);
            sums.sx += x;
            sums.sy += y;
        }
    }

    /// Exactly coincident fish part along a direction fixed by the pair,
    /// opposite for the two: the pushes of the `lanes` given. Returned
    /// rather than added, so the caller's sums stay in registers.
    #[cold]
    #[inline(never)]
    fn part_coincident(
        &self,
        lanes: BVec4A,
        strength: Vec4,
        k: usize,
        step: usize,
        me: &Onlooker,
    ) -> [Vec4; 2] {
        let (mut x, mut y) = ([0.0; LANES], [0.0; LANES]);
        let strength = strength.to_array();
        let order = self.grid.order();
        for lane in (0..LANES).filter(|&l| lanes.test(l)) {
            let push = -noise::pair_direction(self.seed, me.slot, order[k + lane * step]) * strength[lane];
            (x[lane], y[lane]) = (push.x, push.y);
        }
        [Vec4::from_array(x), Vec4::from_array(y)]
    }

    /// The neighbourhood sums of a school with a shaped view, candidate by
    /// candidate: only neighbours inside the view count for alignment and
    /// cohesion, each with its weight (see [`crate::view::View`]).
    #[inline(always)]
    fn shaped_neighbourhood<const WRAP: bool>(
        &self,
        runs: &CandidateRuns,
        cap: u32,
        me: &Onlooker,
    ) -> Neighbourhood {
        let step = thinning_step(runs, cap);
        let g = self.grid;
        let (cache, params) = (&self.caches[me.school], &self.table[me.school]);
        let size = self.tank.size();
        let reach = &cache.reach;
        let mut hood = Neighbourhood::default();
        let mut looked = 0usize;
        for run in runs.iter() {
            // As in the all-round scan: each fish starts its stride elsewhere.
            for j in ((run.start + me.s % step).min(run.end)..run.end).step_by(step) {
                if j == me.s {
                    continue;
                }
                looked += 1;
                let d = offset(me.p, g.sorted_position(j), size, WRAP);
                let d2 = d.length_squared();
                let mut seen = d2 < reach.perception2 && cache.view.sees(me.heading, d, d2);
                if !params.sees_other_schools {
                    seen &= school::clamp_index(self.sorted_school[j], self.table.len()) == me.school;
                }
                if seen {
                    let w = cache.view.weight(me.heading, d, d2.sqrt(), self.sorted_leader[j]);
                    hood.count += 1;
                    hood.velocity_sum += g.sorted_velocity(j) * w;
                    hood.offset_sum += d * w;
                }
                if d2 < reach.separation2 {
                    hood.separation_count += 1;
                    hood.separation_sum +=
                        rules::separation_push(d, d2, reach.separation, reach.floor, || {
                            -noise::pair_direction(self.seed, me.slot, g.order()[j])
                        });
                }
            }
        }
        if step > 1 {
            scale(&mut hood, runs, looked);
        }
        hood
    }
}

/// `d` brought to the nearest image on a torus axis of length `size`
/// (`half` = `size / 2`), lane by lane, as [`offset`] does for one pair.
#[inline(always)]
fn nearest_image(d: Vec4, half: f32, size: f32) -> Vec4 {
    let above = d.cmpgt(Vec4::splat(half));
    let below = d.cmplt(Vec4::splat(-half));
    Vec4::select(above, d - Vec4::splat(size), Vec4::select(below, d + Vec4::splat(size), d))
}

/// How many lanes a 4-bit lane mask sets.
const LANES_SET: [u8; 16] = [0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4];

/// The neighbourhood sums while a scan runs, one partial sum per lane
/// (counts as whole numbers). Twelve vector registers hold the hot loop:
/// these four sums, the fish, the radii and the masks.
#[derive(Clone, Copy, Default)]
struct Lanes {
    count: u32,
    vx: Vec4,
    vy: Vec4,
    dx: Vec4,
    dy: Vec4,
}

/// The separation sums, updated only for blocks with a candidate that
/// close. Kept apart from [`Lanes`] (a separate local): their address goes
/// to an out-of-line function, which would keep the hot sums in memory too.
#[derive(Clone, Copy, Default)]
struct SeparationLanes {
    count: u32,
    sx: Vec4,
    sy: Vec4,
}

/// The lanes of each of `a`, `b`, `c`, `d` added up, each in the order
/// `(l0 + l1) + (l2 + l3)`: four sums for the shuffles of one.
#[inline(always)]
fn lane_sums(a: Vec4, b: Vec4, c: Vec4, d: Vec4) -> Vec4 {
    // Pairs first: (a0+a1, b0+b1, c0+c1, d0+d1) and (a2+a3, …).
    let (ab_lo, ab_hi) = (Vec4::new(a.x, b.x, a.z, b.z), Vec4::new(a.y, b.y, a.w, b.w));
    let (cd_lo, cd_hi) = (Vec4::new(c.x, d.x, c.z, d.z), Vec4::new(c.y, d.y, c.w, d.w));
    let (ab, cd) = (ab_lo + ab_hi, cd_lo + cd_hi);
    Vec4::new(ab.x, ab.y, cd.x, cd.y) + Vec4::new(ab.z, ab.w, cd.z, cd.w)
}

impl Lanes {
    fn finish(self, close: &SeparationLanes) -> Neighbourhood {
        let sums = lane_sums(self.vx, self.vy, self.dx, self.dy);
        let separation = lane_sums(close.sx, close.sy, Vec4::ZERO, Vec4::ZERO);
        Neighbourhood {
            count: self.count,
            velocity_sum: Vec2::new(sums.x, sums.y),
            offset_sum: Vec2::new(sums.z, sums.w),
            separation_count: close.count,
            separation_sum: Vec2::new(separation.x, separation.y),
        }
    }
}

/// Candidates looked at per fish under a neighbour cap, per capped
/// neighbour: in a uniform school about a third of the 3 × 3 block's
/// candidates are within the perception radius.
const CANDIDATES_PER_CAPPED_NEIGHBOUR: usize = 3;

/// The stride of the candidate scan: 1 (every candidate) unless a cap is
/// set and the 3 × 3 cells hold more than `3 × cap` candidates; then every
/// `step`-th candidate of each run is looked at.
#[inline]
fn thinning_step(runs: &CandidateRuns, cap: u32) -> usize {
    if cap == 0 {
        return 1;
    }
    let budget = cap as usize * CANDIDATES_PER_CAPPED_NEIGHBOUR;
    let total: usize = runs.iter().map(|r| r.len()).sum();
    total.div_ceil(budget).max(1)
}

/// Scales a thinned neighbourhood by the candidates in `runs` (less the
/// fish itself) over the `looked` at, so that means stay and sums and
/// counts estimate the full neighbourhood's.
fn scale(hood: &mut Neighbourhood, runs: &CandidateRuns, looked: usize) {
    let total = runs.iter().map(|r| r.len()).sum::<usize>().saturating_sub(1);
    let factor = total as f32 / looked.max(1) as f32;
    let count = |c: u32| (c as f32 * factor).round() as u32;
    hood.count = count(hood.count);
    hood.separation_count = count(hood.separation_count);
    hood.velocity_sum *= factor;
    hood.offset_sum *= factor;
    hood.separation_sum *= factor;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::BoundaryMode;

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

    fn near(a: Vec2, b: Vec2) -> bool {
        (a - b).length() <= 1.0e-3 * (1.0 + a.length().max(b.length()))
    }

    /// The four-lane scans (plain and strided with stride 1) find exactly
    /// the neighbours the reference `Neighbourhood::add` finds, with the
    /// same sums up to the order of addition, in a walled tank and on a
    /// torus.
    #[test]
    fn lane_scans_match_the_reference_neighbourhood() {
        let params = FlockParams::default();
        let caches = [SchoolCache::new(&params, false, false)];
        let (position, velocity) = fish();
        let n = position.len();
        for mode in [BoundaryMode::SoftMargin, BoundaryMode::Wrap] {
            let tank = Tank::centered(Vec2::new(200.0, 200.0)).with_boundary(mode);
            let wrap = mode == BoundaryMode::Wrap;
            let mut grid = SpatialGrid::default();
            grid.rebuild(&position, &velocity, &tank, params.interaction_radius(), wrap);
            let (phase, leader, school, fear) = (vec![0.0; n], vec![false; n], vec![0u16; n], vec![0.0; n]);
            let kernel = ForceKernel {
                grid: &grid,
                sorted_phase: &phase,
                sorted_leader: &leader,
                fear: &fear,
                leader: &leader,
                leader_goal: None,
                quiet: true,
                scene: &Scene::default(),
                table: core::slice::from_ref(&params),
                caches: &caches,
                sorted_school: &school,
                tank: &tank,
                search: NeighbourSearch::Grid,
                seed: 3,
                key: TickKey::new(3, 0),
            };
            let order = grid.order();
            for s in 0..n {
                let p = grid.sorted_position(s);
                let me = Onlooker { s, p, heading: Vec2::X, slot: order[s], school: 0 };
                let runs = grid.candidate_runs(p);
                let mut reference = Neighbourhood::default();
                for j in (0..n).filter(|&j| j != s) {
                    let d = offset(p, grid.sorted_position(j), tank.size(), wrap);
                    reference.add(d, d.length_squared(), grid.sorted_velocity(j), &caches[0].reach, || {
                        -noise::pair_direction(3, order[s], order[j])
                    });
                }
                for strided in [false, true] {
                    let (mut acc, mut close) = (Lanes::default(), SeparationLanes::default());
                    let mut looked = 0;
                    for run in runs.iter() {
                        let sums = (&mut acc, &mut close);
                        let (a, b, block_run) = (run.start, run.end, BlockRun::new(run.clone()));
                        let others = run.len() - usize::from(run.contains(&s));
                        looked += match (wrap, strided) {
                            // The plain scan counts nothing: it looks at every
                            // candidate but the fish itself.
                            (false, false) => {
                                kernel.scan_run::<false>(sums, &block_run, &me);
                                others
                            }
                            (true, false) => {
                                kernel.scan_run::<true>(sums, &block_run, &me);
                                others
                            }
                            (false, true) => kernel.scan_strided::<false>(sums, a, b, 1, &me),
                            (true, true) => kernel.scan_strided::<true>(sums, a, b, 1, &me),
                        };
                    }
                    let total: usize = runs.iter().map(|r| r.len()).sum();
                    assert_eq!(looked, total - 1, "every candidate but the fish itself");
                    let hood = acc.finish(&close);
                    let what = format!("{mode:?}, strided {strided}, fish {s}");
                    assert_eq!(hood.count, reference.count, "{what}");
                    assert_eq!(hood.separation_count, reference.separation_count, "{what}");
                    assert!(near(hood.velocity_sum, reference.velocity_sum), "{what}");
                    assert!(near(hood.offset_sum, reference.offset_sum), "{what}");
                    assert!(near(hood.separation_sum, reference.separation_sum), "{what}");
                }
            }
        }
    }

    /// The quartets (fish four at a time, rules in lanes) find exactly the
    /// neighbours the reference finds and weigh the rules as
    /// [`RuleForces::evaluate`] does, on the grid and by brute force, in a
    /// walled tank and on a torus, with and without a (slack) neighbour cap.
    #[test]
    fn quartets_match_the_reference_rules() {
        let (position, velocity) = fish();
        let n = position.len();
        for (mode, cap) in
            [(BoundaryMode::SoftMargin, 0), (BoundaryMode::Wrap, 0), (BoundaryMode::Wrap, 1000)]
        {
            let params = FlockParams { neighbour_cap: cap, ..FlockParams::default() };
            let caches = [SchoolCache::new(&params, false, false)];
            let tank = Tank::centered(Vec2::new(200.0, 200.0)).with_boundary(mode);
            let wrap = mode == BoundaryMode::Wrap;
            let mut grid = SpatialGrid::default();
            grid.rebuild(&position, &velocity, &tank, params.interaction_radius(), wrap);
            let phase: Vec<f32> = (0..n).map(|i| i as f32 * 0.1).collect();
            let (leader, school, fear) = (vec![false; n], vec![0u16; n], vec![0.0; n]);
            for search in [NeighbourSearch::Grid, NeighbourSearch::BruteForce] {
                let kernel = ForceKernel {
                    grid: &grid,
                    sorted_phase: &phase,
                    sorted_leader: &leader,
                    fear: &fear,
                    leader: &leader,
                    leader_goal: None,
                    quiet: true,
                    scene: &Scene::default(),
                    table: core::slice::from_ref(&params),
                    caches: &caches,
                    sorted_school: &school,
                    tank: &tank,
                    search,
                    seed: 3,
                    key: TickKey::new(3, 0),
                };
                let (mut kicks, mut samples) = (vec![Kick::default(); n], vec![ForceSample::default(); n]);
                kernel.run(0, &mut kicks, Some(&mut samples));
                let order = grid.order();
                for s in 0..n {
                    let p = grid.sorted_position(s);
                    let mut reference = Neighbourhood::default();
                    for j in (0..n).filter(|&j| j != s) {
                        let d = offset(p, grid.sorted_position(j), tank.size(), wrap);
                        reference.add(
                            d,
                            d.length_squared(),
                            grid.sorted_velocity(j),
                            &caches[0].reach,
                            || -noise::pair_direction(3, order[s], order[j]),
                        );
                    }
                    let expected =
                        RuleForces::evaluate(&reference, grid.sorted_velocity(s), phase[s], &params);
                    let what = format!("{mode:?}, cap {cap}, {search:?}, fish {s}");
                    assert_eq!(samples[s].neighbours, reference.count, "{what}");
                    assert_eq!(kicks[s].neighbours, reference.count, "{what}");
                    let got = samples[s].rules;
                    for (a, b) in [
                        (got.separation, expected.separation),
                        (got.alignment, expected.alignment),
                        (got.cohesion, expected.cohesion),
                        (got.wander, expected.wander),
                    ] {
                        assert!(near(a, b), "{what}: {a} vs {b}");
                    }
                    assert!(kicks[s].acceleration.length() <= params.max_force * (1.0 + 1.0e-6), "{what}");
                }
            }
        }
    }

    #[test]
    fn a_thinned_scan_is_scaled_to_the_whole() {
        let runs = CandidateRuns::single(0..101);
        let mut hood = Neighbourhood { count: 10, velocity_sum: Vec2::ONE, ..Neighbourhood::default() };
        scale(&mut hood, &runs, 25);
        assert_eq!(hood.count, 40);
        assert_eq!(hood.velocity_sum, Vec2::splat(4.0));
        assert_eq!(thinning_step(&runs, 0), 1);
        assert_eq!(thinning_step(&runs, 8), 5, "101 candidates, a budget of 24");
    }
}
