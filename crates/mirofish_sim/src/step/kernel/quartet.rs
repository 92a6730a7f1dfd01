//! Four fish at once on a plane: a *quartet*, four fish in a row of the
//! sorted snapshot (from a multiple of four), one fish per vector lane,
//! from its neighbourhoods to its kicks.
//!
//! Fish sorted next to each other live in the same or neighbouring cells,
//! so they share almost all their candidates. The quartet walks the union
//! of its fish's blocks of cells once (the quartet scan both spaces share,
//! `hoods.rs`); each candidate (`[x, y, vx, vy]`, one load) is broadcast
//! to the four lanes and tested against all four fish with the same vector
//! operations: about ten instructions per fish and candidate, and none of
//! the per-fish bookkeeping of finding its runs. Under a neighbour cap the
//! quartet looks at a sample of the union only, and scales each fish's
//! sums up; in a topological school the fish with more neighbours in range
//! than they count pick their nearest in a second scan. This file finds
//! the quartet's schools, radii and cells, and turns its neighbourhoods
//! into kicks: in lanes where all four are of one school in a quiet scene,
//! else fish by fish.
//!
//! Each lane adds its candidates one at a time, in ascending sorted order,
//! and a candidate outside its perception radius adds exact zeros: a lane's
//! sums do not depend on which superset of its neighbours was walked. The
//! grid and brute force (one run over every fish) therefore agree to the
//! bit, and so do all thread counts (quartets are fixed by sorted index).
//! In the AVX2 build of the pass the candidates go two at a time
//! (`scan/avx2.rs`), each lane still adding them one after the other, and
//! two quartets' rules go eight lanes wide (`avx2.rs`).

use glam::{Vec2, Vec4};

use super::hoods::{HoodScan, cells_of};
use super::scan::QuartetReach;
use super::{ForceKernel, ForceSample, Kick, LANES, NeighbourSearch};
use crate::rules::{self, NeighbourhoodLanes, RuleForces};
use crate::world::grid::{CandidateRuns, PLANE_RUNS};
use crate::world::school;

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2;

/// A scanned quartet, ready for its rules: only what they read (a small
/// value: the AVX2 build keeps two).
pub(super) struct Scanned {
    /// Sorted index of lane 0.
    base: usize,
    /// Positions.
    x: Vec4,
    y: Vec4,
    /// Ids, for the jitter.
    id: [u32; LANES],
    /// The fish's neighbourhoods.
    hoods: NeighbourhoodLanes,
    /// The school of all four, if they are of one (the rules then go in
    /// lanes).
    school: Option<usize>,
}

impl ForceKernel<'_> {
    /// The kicks of the quartet at sorted index `base` (a multiple of four;
    /// `kicks.len()` fish, up to four), whose fish all see all round.
    /// `capped`: whether any school has a neighbour cap.
    #[inline(always)]
    pub(super) fn quartet<const WRAP: bool, const AVX2: bool>(
        &self,
        base: usize,
        kicks: &mut [Kick],
        samples: Option<&mut [ForceSample]>,
        capped: bool,
    ) {
        let scanned = self.quartet_scan::<WRAP, AVX2>(base, kicks.len(), capped);
        self.quartet_kicks(&scanned, kicks, samples);
    }

    /// The kicks of a scanned quartet.
    #[inline(always)]
    fn quartet_kicks(&self, scanned: &Scanned, kicks: &mut [Kick], mut samples: Option<&mut [ForceSample]>) {
        let in_lanes = match scanned.school {
            Some(school) if self.quiet => self.kicks_in_lanes(scanned, school, kicks, &mut samples),
            _ => false,
        };
        if !in_lanes {
            self.kicks_one_by_one(scanned, kicks, samples);
        }
    }

    /// [`ForceKernel::quartet_scan`] of the four fish at `base`, on a torus
    /// or not as the grid is.
    #[inline(always)]
    pub(super) fn quartet_scan_at<const AVX2: bool>(&self, base: usize, capped: bool) -> Scanned {
        if self.grid.wraps() {
            self.quartet_scan::<true, AVX2>(base, LANES, capped)
        } else {
            self.quartet_scan::<false, AVX2>(base, LANES, capped)
        }
    }

    /// The kicks of two scanned quartets of four fish each. In the AVX2
    /// build, where both are of one school in a quiet scene, their
    /// neighbourhood rules are evaluated at once, eight lanes wide
    /// (`avx2::evaluate_octet`): the same operations on twice the lanes, so
    /// the same bits, each instruction doing the work of two.
    #[inline(always)]
    pub(super) fn quartet_pair_kicks<const AVX2: bool>(
        &self,
        [first, second]: [&Scanned; 2],
        [kicks_first, kicks_second]: [&mut [Kick]; 2],
        samples: [Option<&mut [ForceSample]>; 2],
    ) {
        #[cfg(target_arch = "x86_64")]
        if let (true, true, Some(school)) = (AVX2, self.quiet, first.school)
            && second.school == Some(school)
        {
            let inputs = [self.rule_inputs(first.base), self.rule_inputs(second.base)];
            // SAFETY: `AVX2` is true only within the pass's AVX2 build,
            // which runs only where the CPU has AVX2.
            #[expect(unsafe_code, reason = "the AVX2 rules, inlined into the AVX2 build of the pass")]
            let rules =
                unsafe { avx2::evaluate_octet([&first.hoods, &second.hoods], inputs, &self.table[school]) };
            if let Some([rules_first, rules_second]) = rules {
                let [mut samples_first, mut samples_second] = samples;
                for (scanned, rules, kicks, samples) in [
                    (first, rules_first, kicks_first, &mut samples_first),
                    (second, rules_second, kicks_second, &mut samples_second),
                ] {
                    if !self.kicks_of_rules(scanned, school, rules, kicks, samples) {
                        self.kicks_one_by_one(scanned, kicks, samples.as_deref_mut());
                    }
                }
                return;
            }
        }
        let [samples_first, samples_second] = samples;
        self.quartet_kicks(first, kicks_first, samples_first);
        self.quartet_kicks(second, kicks_second, samples_second);
    }

    /// The kicks of a scanned quartet's fish one at a time.
    #[inline(always)]
    fn kicks_one_by_one(
        &self,
        scanned: &Scanned,
        kicks: &mut [Kick],
        mut samples: Option<&mut [ForceSample]>,
    ) {
        for (k, kick) in kicks.iter_mut().enumerate() {
            let sample = samples.as_deref_mut().map(|all| &mut all[k]);
            *kick = self.kick(scanned.base + k, &scanned.hoods.lane(k), sample);
        }
    }

    /// The `m` fish of the quartet at `base` (up to four) with their
    /// neighbourhoods, ready for their rules.
    #[inline(always)]
    fn quartet_scan<const WRAP: bool, const AVX2: bool>(
        &self,
        base: usize,
        m: usize,
        capped: bool,
    ) -> Scanned {
        let g = self.grid;
        let [x, y, ..] = g.quartet(base);
        // One school (the usual case): every fish's index is 0 once clamped.
        let schools: [usize; LANES] = if self.table.len() == 1 {
            [0; LANES]
        } else {
            core::array::from_fn(|l| {
                school::clamp_index(self.sorted_school.get(base + l).copied().unwrap_or(0), self.table.len())
            })
        };
        let one_school = schools[1..m].iter().all(|&k| k == schools[0]);
        let reach = if one_school {
            [&self.caches[schools[0]].reach; LANES]
        } else {
            schools.map(|k| &self.caches[k].reach)
        };
        // Four ids by a load of known length where there are four: a copy
        // of `m` is a call to `memcpy` (with the kicks' below, ≈ 3 % of the
        // pass).
        let id = match self.ids.get(base..base + LANES).map(<[u32; LANES]>::try_from) {
            Some(Ok(four)) => four,
            _ => core::array::from_fn(|l| self.ids.get(base + l).copied().unwrap_or(0)),
        };
        let q = QuartetReach::new(base, [x, y, Vec4::ZERO], reach, self.tank.size(), (id, self.key));
        // `run` sends a quartet of several schools with a topological one
        // fish by fish.
        let topological = if one_school { self.table[schools[0]].topological_neighbours } else { 0 };
        let cap = match (capped, one_school) {
            (false, _) => 0,
            (true, true) => self.table[schools[0]].neighbour_cap,
            (true, false) => (0..m).map(|l| self.table[schools[l]].neighbour_cap).min().unwrap_or(0),
        };
        let survey = HoodScan::<Vec2, PLANE_RUNS, PLANE_SAMPLE>::new(g);
        let hoods = if self.search == NeighbourSearch::BruteForce {
            let every = CandidateRuns::single(0..g.len());
            survey.runs::<WRAP, AVX2>(&q, &every, (cap, 0), topological, true)
        } else {
            let cells = cells_of::<Vec2, AVX2>(g, &[x, y, Vec4::ZERO]);
            survey.quartet::<WRAP, AVX2>(&q, &cells, m, (cap, topological))
        };
        let Some(hoods) = hoods else { unreachable!("a plane's quartet thins any of its passes") };
        let hoods = hoods.in_lanes::<2>();
        Scanned { base, x, y, id: q.id, hoods, school: one_school.then_some(schools[0]) }
    }

    /// What [`ForceKernel::kick`] computes for the fish of the scanned
    /// quartet (as many as `kicks` holds), all of school `school`, in a
    /// quiet scene, four at once: the same bits, written to `kicks` (and
    /// `samples`). `false`, with nothing written, where a fish needs one of
    /// the one-fish special paths.
    #[inline(always)]
    fn kicks_in_lanes(
        &self,
        scanned: &Scanned,
        school: usize,
        kicks: &mut [Kick],
        samples: &mut Option<&mut [ForceSample]>,
    ) -> bool {
        let (velocity, phase) = self.rule_inputs(scanned.base);
        match rules::evaluate_lanes(&scanned.hoods, velocity, phase, &self.table[school]) {
            Some(rules) => self.kicks_of_rules(scanned, school, rules, kicks, samples),
            None => false,
        }
    }

    /// The velocities and wander phases of the quartet at `base` (zeros
    /// past the last fish).
    #[inline(always)]
    fn rule_inputs(&self, base: usize) -> ([Vec4; 2], Vec4) {
        let [.., vx, vy] = self.grid.quartet(base);
        let phase = match self.sorted_phase.get(base..base + LANES) {
            Some(four) => Vec4::from_slice(four),
            None => {
                let mut phase = [0.0; LANES];
                let m = self.sorted_phase.len() - base;
                phase[..m].copy_from_slice(&self.sorted_phase[base..]);
                Vec4::from_array(phase)
            }
        };
        ([vx, vy], phase)
    }

    /// [`ForceKernel::kicks_in_lanes`] once the neighbourhood rules are
    /// evaluated (`rules`: separation, alignment, cohesion, wander): the
    /// walls, the jitter, the clamp.
    #[inline(always)]
    fn kicks_of_rules(
        &self,
        scanned: &Scanned,
        school: usize,
        [separation, alignment, cohesion, wander]: [[Vec4; 2]; 4],
        kicks: &mut [Kick],
        samples: &mut Option<&mut [ForceSample]>,
    ) -> bool {
        let (m, hoods) = (kicks.len(), &scanned.hoods);
        let params = &self.table[school];
        let velocity = || {
            let [.., vx, vy] = self.grid.quartet(scanned.base);
            [vx, vy]
        };
        // Nobody is afraid in a quiet scene on a plane.
        let rules = [separation, alignment, cohesion, wander];
        let at = || [scanned.x, scanned.y];
        let Some(([ax, ay], boundary)) =
            self.setting().kick_lanes(rules, [0.0; LANES], at, velocity, scanned.id, m, params)
        else {
            return false;
        };
        store_lanes(kicks, Kick::from_lanes([ax, ay, Vec4::ZERO, hoods.count]));
        let count = hoods.count.to_array();
        if let Some(samples) = samples {
            let pair = |v: [Vec4; 2], l: usize| Vec2::new(v[0].to_array()[l], v[1].to_array()[l]);
            for (l, sample) in samples.iter_mut().enumerate() {
                let rules = RuleForces {
                    separation: pair(separation, l),
                    alignment: pair(alignment, l),
                    cohesion: pair(cohesion, l),
                    wander: pair(wander, l),
                    boundary: pair(boundary, l),
                    ..RuleForces::default()
                };
                *sample = ForceSample { rules, neighbours: count[l] as u32 };
            }
        }
        true
    }
}

/// Most candidates one stratum of a thinned scan looks at on a plane: its
/// share of the budget for the widest stretch a quartet walks, and one
/// more per run for the strides' rounding.
pub(crate) const PLANE_SAMPLE: usize = 96;

/// Writes the first `to.len()` (at most four) of `from` to `to`: four by
/// a move of known length, fewer (only the last quartet of a flock) out of
/// line, so that the compiler does not merge the two into one call to
/// `memcpy` with a variable length.
#[inline(always)]
fn store_lanes<T: Copy>(to: &mut [T], from: [T; LANES]) {
    if let Ok(four) = <&mut [T; LANES]>::try_from(&mut *to) {
        *four = from;
    } else {
        store_fewer(to, from);
    }
}

/// [`store_lanes`] for fewer than four.
#[cold]
#[inline(never)]
fn store_fewer<T: Copy>(to: &mut [T], from: [T; LANES]) {
    to.copy_from_slice(&from[..to.len()]);
}
