//! Pass 3 of the tick, the integrator: semi-implicit Euler, then the walls
//! and the obstacles.

use glam::{Vec2, Vec4};
use rayon::prelude::*;

use super::kernel::Kick;
use super::{CHUNK, all_zero, run};
use crate::math::Vector;
use crate::math::exp::exp;
use crate::math::lanes::axis_lanes;
use crate::prefetch::{AHEAD, prefetch};
use crate::rules::motion::Gait;
use crate::rules::noise::{Stream, TickKey};
use crate::rules::{self, boundary};
use crate::step::flock::{Flock, SlotOrder};
use crate::world::params::FlockParams;
use crate::world::scene::Scene;
use crate::world::school::{self, SchoolTable};
use crate::world::tank::{BoundaryMode, Tank, TankOf};

impl Flock {
    /// Pass 3: semi-implicit Euler, then the walls and the obstacles.
    ///
    /// Velocity first (`v += a·dt`, clamped to `max_speed`, raised by fear),
    /// then position with the new velocity (`p += v·dt`); the force limit
    /// is never scaled by `dt`: it bounds the acceleration. Then every fish
    /// is brought back inside the tank (wrap, bounce or the soft margin's
    /// hard backstop) and out of every obstacle (an obstacle that covers
    /// the tank's edge can leave a fish between the two only if it left no
    /// way out). One pass over the fish, not two: it runs at memory speed.
    /// Under [`SlotOrder::Spatial`] the same pass renumbers the fish in the
    /// order the index sorted them. An empty school table moves no fish,
    /// and the tick does not pass.
    pub fn integrate<S: SchoolTable + ?Sized>(&mut self, schools: &S, tank: &Tank, scene: &Scene, dt: f32) {
        self.integrate_with(schools, tank, scene, dt, Walls::Now);
    }

    /// Pass 3 without its end: semi-implicit Euler only, as
    /// [`Flock::integrate`] does it, leaving the walls and the obstacles to
    /// [`Flock::apply_boundary`]. In between, fish may stand outside the
    /// tank or inside a rock, and their positions and velocities may be
    /// changed ([`Flock::set`]); the boundary then brings every fish in. The
    /// two together give exactly what [`Flock::integrate`] gives.
    pub fn integrate_unbounded<S: SchoolTable + ?Sized>(
        &mut self,
        schools: &S,
        tank: &Tank,
        scene: &Scene,
        dt: f32,
    ) {
        self.integrate_with(schools, tank, scene, dt, Walls::Later);
    }

    /// The end of pass 3 after [`Flock::integrate_unbounded`]: every fish
    /// brought back inside the tank (wrap, bounce or the soft margin's hard
    /// backstop) and out of every obstacle, with the bounce's random turn
    /// drawn for the tick that moved it. Does nothing when no unbounded
    /// motion waits (after [`Flock::integrate`], or twice in a row).
    pub fn apply_boundary(&mut self, tank: &Tank, scene: &Scene) {
        let Some(tick) = self.unbounded.take() else { return };
        let key = TickKey::new(self.seed, tick);
        let ids = &self.id;
        let chunks = (self.position.par_chunks_mut(CHUNK), self.velocity.par_chunks_mut(CHUNK));
        let free = scene.obstacles.is_empty();
        run(self.pool.as_deref(), || {
            chunks.into_par_iter().enumerate().for_each(|(chunk, (p, v))| {
                let base = chunk * CHUNK;
                for (k, (p, v)) in p.iter_mut().zip(v.iter_mut()).enumerate() {
                    // Inside and clear of rocks a fish is left as it is,
                    // as the fused pass leaves it.
                    if free && tank.contains(*p) {
                        continue;
                    }
                    let id = ids.get(base + k).copied().unwrap_or_default();
                    (*p, *v) = contain(*p, *v, tank, scene, || bounce_scatter(key, id));
                }
            });
        });
    }

    fn integrate_with<S: SchoolTable + ?Sized>(
        &mut self,
        schools: &S,
        tank: &Tank,
        scene: &Scene,
        dt: f32,
        walls: Walls,
    ) {
        let table = schools.table();
        self.school_motion.clear();
        self.school_motion.extend(table.iter().map(|p| SchoolMotion::new(p, dt)));
        if table.is_empty() {
            // No school, no motion: nothing moves, and no tick passes.
            return;
        }
        let n = self.len();
        // Under `SlotOrder::Spatial`, with the fish as they were indexed,
        // the integrator renumbers them too: it walks them in sorted order,
        // reads each from its sorted copy (the snapshot, the phases, its old
        // fear) and writes it into the slot of its sorted place, so that
        // every read and write here, and in the next tick's index, runs
        // along memory.
        let spatial = self.slot_order == SlotOrder::Spatial;
        let renumbered = self.indexed.take().filter(|_| spatial && self.grid.len() == n);
        let renumber = renumbered.is_some();
        // Nobody afraid (the usual case): every fish's fear is the same zero
        // wherever it is, and stays where it is.
        let move_fear = renumber && !all_zero(&self.fear);
        let old_fear = if move_fear {
            let old = core::mem::replace(&mut self.fear, core::mem::take(&mut self.renumbered_fear));
            self.fear.resize(n, 0.0);
            old
        } else {
            Vec::new()
        };
        // Otherwise each fish's kick is read in sorted order through its
        // rank: the ranks come in slot order, so the kicks can be asked for
        // `AHEAD` fish early (a gather; scattering them to slots in the
        // force pass cost twice the memory traffic, a third of that pass at
        // 1M fish). A fish pushed since the index was built has no kick:
        // zero.
        let (grid, sorted_kick, motion) = (&self.grid, &self.sorted_kick[..], &self.school_motion);
        let rank = grid.rank();
        let kick_of = |slot: usize| {
            if renumber {
                // Sorted place and slot are one (no kick: zero, as below).
                return sorted_kick.get(slot).copied().unwrap_or_default();
            }
            if let Some(&ahead) = rank.get(slot + AHEAD) {
                prefetch(sorted_kick, ahead as usize);
            }
            rank.get(slot).and_then(|&s| sorted_kick.get(s as usize)).copied().unwrap_or_default()
        };
        let (schools_of, ids) =
            if renumber { (&self.sorted_school, &self.sorted_id) } else { (&self.school, &self.id) };
        let (sorted_phase, order) = (&self.sorted_phase, grid.order());
        let one_school = motion.len() == 1;
        let key = TickKey::new(self.seed, self.tick);
        let chunks = (
            self.position.par_chunks_mut(CHUNK),
            self.velocity.par_chunks_mut(CHUNK),
            self.wander_phase.par_chunks_mut(CHUNK),
            self.steering.par_chunks_mut(CHUNK),
            self.fear.par_chunks_mut(CHUNK),
        );
        run(self.pool.as_deref(), || {
            chunks.into_par_iter().enumerate().for_each(|(chunk, (p, v, phase, steer, fear))| {
                let base = chunk * CHUNK;
                if renumber {
                    let sorted = base..base + p.len();
                    for (k, s) in sorted.clone().enumerate() {
                        (p[k], v[k]) = (grid.sorted_position(s), grid.sorted_velocity(s));
                    }
                    if move_fear {
                        for (k, s) in sorted.clone().enumerate() {
                            fear[k] = old_fear[order[s] as usize];
                        }
                    }
                    phase.copy_from_slice(&sorted_phase[sorted]);
                }
                // With one school in the table every index clamps to it.
                let motion_of = |k: usize| {
                    if one_school {
                        motion[0]
                    } else {
                        motion[school::clamp_index(schools_of[base + k], motion.len())]
                    }
                };
                let mut k = 0;
                while k < p.len() {
                    let end = (k + 4).min(p.len());
                    // Four fish of one school, as arrays (no bounds check
                    // per lane).
                    let four = end - k == 4
                        && scene.obstacles.is_empty()
                        && (one_school || (k + 1..end).all(|j| schools_of[base + j] == schools_of[base + k]))
                        && match (
                            p[k..].first_chunk_mut(),
                            v[k..].first_chunk_mut(),
                            steer[k..].first_chunk_mut(),
                            phase[k..].first_chunk_mut(),
                            fear[k..].first_chunk_mut(),
                        ) {
                            (Some(p), Some(v), Some(steer), Some(phase), Some(fear)) => integrate_four(
                                [p, v, steer],
                                [phase, fear],
                                core::array::from_fn(|j| kick_of(base + k + j)),
                                motion_of(k),
                                dt,
                                tank,
                            ),
                            _ => false,
                        };
                    if !four {
                        for k in k..end {
                            let fish = [&mut p[k], &mut v[k], &mut steer[k]];
                            integrate_one(
                                fish,
                                [&mut phase[k], &mut fear[k]],
                                kick_of(base + k),
                                motion_of(k),
                                dt,
                                tank,
                                (walls == Walls::Now).then_some(scene),
                                || bounce_scatter(key, ids[base + k]),
                            );
                        }
                    }
                    k = end;
                }
            });
        });
        if let Some(sorted) = renumbered {
            // Every other column of the fish follows them into their new
            // slots: those the index sorted, and the fear if it moved.
            if move_fear {
                self.renumbered_fear = old_fear;
            }
            if sorted.leaders {
                core::mem::swap(&mut self.leader, &mut self.sorted_leader);
            }
            if sorted.schools {
                core::mem::swap(&mut self.school, &mut self.sorted_school);
            }
            core::mem::swap(&mut self.id, &mut self.sorted_id);
            run(self.pool.as_deref(), || self.grid.renumber());
        }
        self.unbounded = (walls == Walls::Later).then_some(self.tick);
        self.tick += 1;
    }
}

/// One school's constants for the integrator, worked out once a tick.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct SchoolMotion {
    /// Its speed limit, cruise speed and fastest turn.
    pub gait: Gait,
    /// How far the wander phase turns in one tick (radians).
    pub wander_turn: f32,
    /// The factor fear fades by in one tick.
    pub calm: f32,
}

impl SchoolMotion {
    /// The motion of a school of `params` over ticks of `dt` seconds.
    pub(crate) fn new(params: &FlockParams, dt: f32) -> Self {
        Self {
            gait: Gait::new(params, dt),
            wander_turn: params.wander_rate * dt,
            calm: exp(-params.calm_rate * dt),
        }
    }
}

/// Whether the integrator brings the fish inside at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Walls {
    /// In the same pass (the tick as one step).
    Now,
    /// In [`Flock::apply_boundary`] (the plugin's separate stage).
    Later,
}

/// A fish at `p` moving with `v`, brought inside the tank and out of every
/// obstacle, in either space: wrapped round a torus; bounced off a hard
/// wall it crossed, turned by `scatter` (drawn only then, see
/// [`bounce_scatter`]); for the soft margin, whose steering acts in the
/// force pass, bounced off the hard wall behind it without a turn (it only
/// catches fish too fast to turn in time). Then out of every rock, onto
/// its rim inside the tank.
#[inline]
pub(crate) fn contain<V: Vector>(
    mut p: V,
    mut v: V,
    tank: &TankOf<V>,
    scene: &Scene<V>,
    scatter: impl FnOnce() -> f32,
) -> (V, V) {
    match tank.boundary {
        BoundaryMode::Wrap => p = boundary::wrap(p, tank),
        BoundaryMode::Bounce => {
            if !tank.contains(p) {
                (p, v) = boundary::bounce(p, v, tank, scatter());
            }
        }
        BoundaryMode::SoftMargin => (p, v) = boundary::bounce(p, v, tank, 0.0),
    }
    crate::rules::scene::push_out_of_all(p, v, &scene.obstacles, tank)
}

/// The random turn of a bounce for the fish named `id` in the tick of
/// `key`: uniform in `[-1, 1)`, the same draw in both spaces.
#[inline]
pub(crate) fn bounce_scatter(key: TickKey, id: u32) -> f32 {
    key.signed(u64::from(id), Stream::Bounce)
}

/// The integrator's step for one fish: `[position, velocity, steering]`
/// and `[wander phase, fear]`, its kick, its school's motion; with `walls`
/// (the scene), it is brought inside the tank and out of the rocks too,
/// and `scatter` draws the bounce's random turn.
#[inline(always)]
#[expect(clippy::too_many_arguments, reason = "one fish's state, its kick, its school and the world")]
fn integrate_one(
    [p, v, steer]: [&mut Vec2; 3],
    [phase, fear]: [&mut f32; 2],
    kick: Kick,
    motion: SchoolMotion,
    dt: f32,
    tank: &Tank,
    walls: Option<&Scene>,
    scatter: impl FnOnce() -> f32,
) {
    let a = kick.acceleration();
    *steer = a;
    swim([p, v], [phase, fear], (a, kick.fright()), &motion, dt);
    if let Some(scene) = walls {
        (*p, *v) = contain(*p, *v, tank, scene, scatter);
    }
}

/// The integrator's step for four fish of one school at once, in vector
/// lanes, with the same bits as one at a time: `[position, velocity,
/// steering]` and `[wander phase, fear]` of the four, their kicks, their
/// school's motion. `false`, with nothing written, when one of them needs
/// the one-fish path: it left the tank (a wall or the seam to deal with), a
/// value is not finite, or its phase needs more than one turn's wrap.
#[inline(always)]
fn integrate_four(
    [p, v, steer]: [&mut [Vec2; 4]; 3],
    [phase, fear]: [&mut [f32; 4]; 2],
    kicks: [Kick; 4],
    motion: SchoolMotion,
    dt: f32,
    tank: &Tank,
) -> bool {
    let [ax, ay, fright, _] = Kick::lanes(kicks);
    let kick = ([ax, ay, Vec4::ZERO], fright.to_array());
    if !swim_four([p, v], [phase, fear], kick, &motion, dt, Some(tank)) {
        return false;
    }
    *steer = kicks.map(Kick::acceleration);
    true
}

/// [`wrap_angle`] of four phases turned by `turn` radians, in vector
/// lanes, the same bits; `None` where one needs more than one turn's wrap
/// (then the one-fish form).
#[inline(always)]
fn turn_phases_four(phase: &[f32; 4], turn: f32) -> Option<Vec4> {
    use core::f32::consts::TAU;
    // `wrap_angle`'s common case: one step past either end at most.
    let a = Vec4::from_array(*phase) + turn;
    let tau = Vec4::splat(TAU);
    let b = Vec4::select(a.cmpge(tau), a - tau, Vec4::select(a.cmplt(Vec4::ZERO), a + tau, a));
    (b.cmpge(Vec4::ZERO) & b.cmplt(tau)).all().then_some(b)
}

/// One fish's motion over one tick, in either space, by its school's
/// `motion`: its fear jumps to the `fright` it saw and fades by the calm;
/// its velocity takes the acceleration `a` through the gait (the speed
/// limit, raised by fear; the cruise speed; the fastest turn); its
/// position moves with the new velocity (semi-implicit Euler); its wander
/// phase turns on, kept in `[0, 2π)` (the seeds' phase that advances each
/// tick; a volume's fish turns round its own circle).
#[inline(always)]
pub(crate) fn swim<V: Vector>(
    [p, v]: [&mut V; 2],
    [phase, fear]: [&mut f32; 2],
    (a, fright): (V, f32),
    motion: &SchoolMotion,
    dt: f32,
) {
    *fear = fright.max(*fear * motion.calm).clamp(0.0, 1.0);
    *v = motion.gait.next(*v, *v + a * dt, *fear);
    *p += *v * dt;
    *phase = wrap_angle(*phase + motion.wander_turn);
}

/// [`swim`] for four fish of one school at once, in vector lanes, with the
/// same bits: their accelerations axis by axis (`a`, the axes past the
/// dimension's zero) and frights. `false`, with nothing written, where one
/// of them needs the one-fish step: a wanted velocity is not finite (the
/// one-fish clamp makes it zero), a phase needs more than one turn's wrap,
/// or, given a `tank`, a fish left it (for the walls to deal with). A
/// school with a
/// gait (a cruise speed, a bounded turn) has each velocity worked out fish
/// by fish, as [`swim`] does, and the rest in lanes.
#[inline(always)]
pub(crate) fn swim_four<V: Vector>(
    [p, v]: [&mut [V; 4]; 2],
    [phase, fear]: [&mut [f32; 4]; 2],
    (a, fright): ([Vec4; 3], [f32; 4]),
    motion: &SchoolMotion,
    dt: f32,
    tank: Option<&TankOf<V>>,
) -> bool {
    let Some(turned) = turn_phases_four(phase, motion.wander_turn) else { return false };
    let (gait, calm) = (&motion.gait, motion.calm);
    // Fear one fish at a time: `f32::max` and `clamp` treat signed zeros
    // their own way, and this is cheap.
    let feared: [f32; 4] = core::array::from_fn(|l| fright[l].max(fear[l] * calm).clamp(0.0, 1.0));
    let mut wanted = [Vec4::ZERO; 3];
    for (i, w) in wanted.iter_mut().enumerate().take(V::DIM) {
        *w = axis_lanes(v, i) + a[i] * dt;
    }
    let velocity = if gait.is_clip_only() {
        let limit = Vec4::splat(gait.max_speed) * (Vec4::ONE + Vec4::from_array(feared) * gait.panic);
        // Two axes on a plane, three in a volume: the length sums exactly
        // the one-fish form's terms.
        let clamped = if V::DIM == 2 {
            rules::clamp_length_lanes([wanted[0], wanted[1]], limit).map(|[x, y]| [x, y, Vec4::ZERO])
        } else {
            rules::clamp_length_lanes(wanted, limit)
        };
        let Some(clamped) = clamped else { return false };
        clamped
    } else {
        // A cruise speed or a bounded turn: each fish's velocity as the
        // one-fish step makes it (the same function on the same numbers).
        let next: [V; 4] = core::array::from_fn(|l| gait.next(v[l], V::from_fn(|i| wanted[i][l]), feared[l]));
        core::array::from_fn(|i| if i < V::DIM { axis_lanes(&next, i) } else { Vec4::ZERO })
    };
    let mut at = [Vec4::ZERO; 3];
    let mut inside = Vec4::ZERO.cmpeq(Vec4::ZERO);
    for i in 0..V::DIM {
        at[i] = axis_lanes(p, i) + velocity[i] * dt;
        if let Some(tank) = tank {
            inside &= at[i].cmpge(Vec4::splat(tank.min.axis(i))) & at[i].cmplt(Vec4::splat(tank.max.axis(i)));
        }
    }
    if !inside.all() {
        return false;
    }
    for l in 0..4 {
        fear[l] = feared[l];
        v[l] = V::from_fn(|i| velocity[i][l]);
        p[l] = V::from_fn(|i| at[i][l]);
    }
    *phase = turned.to_array();
    true
}

/// Brings an angle into `[0, 2π)`; the common case (one small step past
/// either end) without the slow `rem_euclid`.
#[inline]
fn wrap_angle(a: f32) -> f32 {
    use core::f32::consts::TAU;
    let b = if a >= TAU {
        a - TAU
    } else if a < 0.0 {
        a + TAU
    } else {
        a
    };
    if (0.0..TAU).contains(&b) { b } else { a.rem_euclid(TAU) % TAU }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::noise;
    use crate::world::params::FlockParams;

    /// The walls read the same in both spaces: a soft margin's hard wall
    /// behind it reflects a fish without a turn, a hard wall reflects it
    /// turned by the one scatter draw (uniform in `[-1, 1)`, asked for only
    /// on a bounce), a torus wraps it.
    fn walls_read_alike<V: Vector>() {
        let tank = TankOf::<V>::centered(V::splat(100.0));
        let scene = Scene::default();
        // Past the wall on the first axis, moving out along it and along
        // the second.
        let (p, v) = (V::from_fn(|i| if i == 0 { 52.0 } else { 0.0 }), V::from_fn(|i| [30.0, 4.0, 0.0][i]));
        let soft = tank.with_boundary(BoundaryMode::SoftMargin);
        let (q, w) = contain(p, v, &soft, &scene, || unreachable!("no turn behind a soft margin"));
        assert!(soft.contains(q));
        assert_eq!(w, boundary::bounce(p, v, &soft, 0.0).1);
        assert!((w - V::from_fn(|i| [-30.0, 4.0, 0.0][i])).length() < 1e-4, "reflected, not turned: {w:?}");
        let hard = tank.with_boundary(BoundaryMode::Bounce);
        let key = TickKey::new(7, 3);
        let scatter = bounce_scatter(key, 11);
        assert!((-1.0..1.0).contains(&scatter) && scatter != 0.0);
        let (q, w) = contain(p, v, &hard, &scene, || scatter);
        assert!(hard.contains(q));
        assert_eq!(w, boundary::bounce(p, v, &hard, scatter).1);
        assert!((w.length() - v.length()).abs() < 1e-3, "at the same speed: {w:?}");
        assert!((w.axis(1) - 4.0).abs() > 1e-3, "turned: {w:?}");
        // Inside, nothing is drawn and nothing changes.
        let inside = V::splat(10.0);
        assert_eq!(contain(inside, v, &hard, &scene, || unreachable!("no bounce")), (inside, v));
        let torus = tank.with_boundary(BoundaryMode::Wrap);
        let (q, w) = contain(p, v, &torus, &scene, || unreachable!("no bounce on a torus"));
        assert_eq!((q.axis(0), w), (-48.0, v));
    }

    #[test]
    fn the_walls_read_alike_in_both_spaces() {
        walls_read_alike::<Vec2>();
        walls_read_alike::<glam::Vec3>();
        // The draw is uniform over `[-1, 1)`: its mean near 0, both halves
        // about as likely.
        let key = TickKey::new(1, 2);
        let draws: Vec<f32> = (0..10_000).map(|id| bounce_scatter(key, id)).collect();
        assert!(draws.iter().all(|d| (-1.0..1.0).contains(d)));
        let mean = draws.iter().sum::<f32>() / draws.len() as f32;
        assert!(mean.abs() < 0.03, "{mean}");
    }

    /// The integrator finds each fish's kick through the grid's ranks: every
    /// fish indexed gets its own kick (the steering a whole step gives), and
    /// a fish pushed after the passes began gets none.
    #[test]
    fn each_fish_gets_its_own_kick_and_a_newcomer_none() {
        // Under either slot order; a newcomer keeps the integrator from
        // renumbering, so it reads every kick through the ranks, which the
        // tie sort must have left right.
        let (params, tank, scene, dt) =
            (FlockParams::default(), Tank::centered(Vec2::new(400.0, 300.0)), Scene::default(), 1.0 / 60.0);
        for order in [SlotOrder::Stable, SlotOrder::Spatial] {
            let mut flock = Flock::new(9);
            for f in crate::world::spawn::scatter(300, &tank, &params, 5) {
                flock.push(f.position, f.velocity, f.wander_phase);
            }
            flock.set_slot_order(order);
            // A first tick puts the slots in space order, where they follow it.
            flock.step(&params, &tank, &mut scene.clone(), dt).unwrap();
            let mut whole = flock.clone();
            whole.step(&params, &tank, &mut scene.clone(), dt).unwrap();
            flock.rebuild_index(&params, &tank);
            flock.accumulate_forces(&params, &tank, &scene);
            let (p, v) = (Vec2::new(1.0, 2.0), Vec2::new(3.0, -4.0));
            let newcomer = flock.push(p, v, 0.5);
            flock.integrate(&params, &tank, &scene, dt);
            // Each fish's steering and position by id.
            let by_id = |f: &Flock, n: usize| {
                let mut fish: Vec<_> = (0..n)
                    .map(|s| {
                        let (a, q) = (f.steering()[s], f.positions()[s]);
                        (f.ids()[s], [a.x, a.y, q.x, q.y].map(f32::to_bits))
                    })
                    .collect();
                fish.sort_unstable_by_key(|&(id, _)| id);
                fish
            };
            assert_eq!(by_id(&flock, newcomer), by_id(&whole, newcomer), "{order:?}");
            assert!(whole.steering().iter().any(|s| *s != Vec2::ZERO), "the school steers");
            assert_eq!(flock.steering()[newcomer], Vec2::ZERO);
            assert_eq!(flock.velocities()[newcomer], v, "no kick, below the speed limit");
            assert_eq!(flock.positions()[newcomer], p + v * dt);
        }
    }

    /// Four fish at a time in lanes give exactly what one at a time gives,
    /// with a gait or without, and hand back the fish that need the
    /// one-fish path (a wall crossed, a phase past a whole turn) without
    /// touching them.
    #[test]
    fn four_fish_in_lanes_integrate_like_one_at_a_time() {
        let clip = FlockParams { max_speed: 40.0, panic_speed: 1.5, ..FlockParams::reference() };
        let gait = FlockParams { cruise_speed: 25.0, cruise_time: 0.3, turn_rate: 4.0, ..clip };
        for params in [clip, gait] {
            four_fish_in_lanes_integrate_like_one_at_a_time_with(&params);
        }
    }

    fn four_fish_in_lanes_integrate_like_one_at_a_time_with(params: &FlockParams) {
        let tank = Tank::centered(Vec2::new(200.0, 100.0));
        let motion = SchoolMotion { gait: Gait::new(params, 1.0 / 60.0), wander_turn: 0.07, calm: 0.98 };
        let (dt, scene) = (1.0 / 60.0, Scene::default());
        let mut taken = 0;
        for group in 0..500u64 {
            let draw = |k: u64, salt: u64| noise::signed_pair(noise::mix64(group * 16 + k * 4 + salt));
            // Some fish near the walls, some with a phase about to wrap.
            let p: [Vec2; 4] = core::array::from_fn(|k| draw(k as u64, 0) * Vec2::new(100.5, 50.5));
            let v: [Vec2; 4] = core::array::from_fn(|k| draw(k as u64, 1) * 60.0);
            let phase: [f32; 4] =
                core::array::from_fn(|k| (draw(k as u64, 2).x + 1.0) * core::f32::consts::PI);
            let fear: [f32; 4] = core::array::from_fn(|k| draw(k as u64, 3).x.max(0.0));
            let kicks: [Kick; 4] = core::array::from_fn(|k| {
                Kick::new(draw(k as u64, 4) * 30.0, draw(k as u64, 5).y.max(0.0), 0)
            });
            let (mut one, mut four) =
                ((p, v, [Vec2::ZERO; 4], phase, fear), (p, v, [Vec2::ZERO; 4], phase, fear));
            for k in 0..4 {
                let (p, v, steer, phase, fear) = &mut one;
                integrate_one(
                    [&mut p[k], &mut v[k], &mut steer[k]],
                    [&mut phase[k], &mut fear[k]],
                    kicks[k],
                    motion,
                    dt,
                    &tank,
                    Some(&scene),
                    || 0.0,
                );
            }
            let (p4, v4, steer4, phase4, fear4) = &mut four;
            if integrate_four([p4, v4, steer4], [phase4, fear4], kicks, motion, dt, &tank) {
                taken += 1;
                let bits = |s: &([Vec2; 4], [Vec2; 4], [Vec2; 4], [f32; 4], [f32; 4])| {
                    let mut b = Vec::new();
                    for k in 0..4 {
                        b.extend(
                            [s.0[k].x, s.0[k].y, s.1[k].x, s.1[k].y, s.2[k].x, s.2[k].y, s.3[k], s.4[k]]
                                .map(f32::to_bits),
                        );
                    }
                    b
                };
                assert_eq!(bits(&four), bits(&one), "group {group}, {params:?}");
            } else {
                assert_eq!((four.0, four.1, four.3, four.4), (p, v, phase, fear), "untouched, group {group}");
            }
        }
        assert!((300..500).contains(&taken), "most groups go in lanes, some not: {taken}");
    }

    /// [`swim_four`] in a volume (where the walls come later: no tank)
    /// gives each lane the bits of [`swim`], with the reference model's
    /// clip and with a gait, frightened fish among them; under the clip a
    /// wanted velocity that is not finite sends the four to the one-fish
    /// step.
    #[test]
    fn four_fish_swim_in_lanes_like_one_at_a_time_in_a_volume() {
        use glam::Vec3;
        let clip = FlockParams { max_speed: 40.0, panic_speed: 1.5, ..FlockParams::reference() };
        let gait = FlockParams { cruise_speed: 25.0, cruise_time: 0.3, turn_rate: 4.0, ..clip };
        let dt = 1.0 / 60.0;
        for params in [clip, gait] {
            let motion = SchoolMotion { gait: Gait::new(&params, dt), wander_turn: 0.3, calm: 0.98 };
            let gait = motion.gait;
            let mut taken = 0;
            for group in 0..300u64 {
                let draw = |k: u64, salt: u64| {
                    let key = TickKey::new(group, k);
                    key.in_unit_ball::<Vec3>(salt, Stream::Jitter)
                };
                let p: [Vec3; 4] = core::array::from_fn(|k| draw(k as u64, 0) * 500.0);
                let v: [Vec3; 4] = core::array::from_fn(|k| draw(k as u64, 1) * 60.0);
                let fear: [f32; 4] = core::array::from_fn(|k| draw(k as u64, 2).x.max(0.0));
                let mut a: [Vec3; 4] = core::array::from_fn(|k| draw(k as u64, 3) * 30.0);
                if group % 50 == 7 {
                    a[2] = Vec3::new(f32::INFINITY, 0.0, 0.0);
                }
                let fright: [f32; 4] = core::array::from_fn(|k| draw(k as u64, 4).y.max(0.0));
                // Phases all round the turn, some about to wrap.
                let phase: [f32; 4] =
                    core::array::from_fn(|k| (draw(k as u64, 5).z + 1.0) * core::f32::consts::PI);
                let (mut one, mut four) = ((p, v, phase, fear), (p, v, phase, fear));
                for k in 0..4 {
                    let (p, v, phase, fear) = &mut one;
                    swim(
                        [&mut p[k], &mut v[k]],
                        [&mut phase[k], &mut fear[k]],
                        (a[k], fright[k]),
                        &motion,
                        dt,
                    );
                }
                let lanes = core::array::from_fn(|i| Vec4::from_array(a.map(|a| a[i])));
                let (p4, v4, phase4, fear4) = &mut four;
                if swim_four::<Vec3>([p4, v4], [phase4, fear4], (lanes, fright), &motion, dt, None) {
                    taken += 1;
                    let bits = |s: &([Vec3; 4], [Vec3; 4], [f32; 4], [f32; 4])| {
                        let mut b = Vec::new();
                        for k in 0..4 {
                            b.extend(
                                s.0[k].to_array().into_iter().chain(s.1[k].to_array()).map(f32::to_bits),
                            );
                            b.extend([s.2[k].to_bits(), s.3[k].to_bits()]);
                        }
                        b
                    };
                    assert_eq!(bits(&four), bits(&one), "group {group}, {params:?}");
                } else {
                    assert_eq!(four, (p, v, phase, fear), "untouched, group {group}");
                    assert_eq!(group % 50, 7, "only a non-finite wish leaves the lanes: group {group}");
                }
            }
            // A gait works each velocity out fish by fish: even an
            // infinite wish stays in the lanes there.
            let expected = if gait.is_clip_only() { 294 } else { 300 };
            assert_eq!(taken, expected, "every group but the six with an infinite wish under the clip");
        }
    }

    /// The motion and the boundary as two passes give the bits of the one
    /// fused pass, in every wall mode, with rocks, a predator and fish
    /// hitting the walls; a second boundary, or one without motion waiting,
    /// changes nothing.
    #[test]
    fn unbounded_motion_then_boundary_is_the_fused_pass() {
        let params = FlockParams { max_speed: 400.0, ..FlockParams::default() };
        let dt = 1.0 / 60.0;
        for boundary in [BoundaryMode::Wrap, BoundaryMode::Bounce, BoundaryMode::SoftMargin] {
            let tank = Tank { boundary, ..Tank::centered(Vec2::new(300.0, 200.0)) };
            let mut scene = Scene::default();
            scene.obstacles.push(crate::Obstacle { centre: Vec2::new(40.0, 10.0), radius: 30.0 });
            scene.obstacles.push(crate::Obstacle { centre: Vec2::new(-90.0, -40.0), radius: 20.0 });
            scene.predators.push(crate::Predator::new(Vec2::ZERO, 120.0));
            let mut fused = Flock::new(4);
            for f in crate::world::spawn::scatter(700, &tank, &params, 11) {
                fused.push(f.position, f.velocity, f.wander_phase);
            }
            let mut split = fused.clone();
            for _ in 0..40 {
                fused.rebuild_index(&params, &tank);
                fused.accumulate_forces(&params, &tank, &scene);
                fused.integrate(&params, &tank, &scene, dt);
                split.rebuild_index(&params, &tank);
                split.accumulate_forces(&params, &tank, &scene);
                split.integrate_unbounded(&params, &tank, &scene, dt);
                split.apply_boundary(&tank, &scene);
                let before = split.positions().to_vec();
                split.apply_boundary(&tank, &scene);
                assert_eq!(split.positions(), &before[..], "a second boundary is a no-op");
            }
            let bits = |f: &Flock| {
                f.positions()
                    .iter()
                    .chain(f.velocities())
                    .flat_map(|v| [v.x, v.y])
                    .map(f32::to_bits)
                    .collect::<Vec<_>>()
            };
            assert_eq!(bits(&split), bits(&fused), "{boundary:?}");
            assert_eq!(split.tick(), fused.tick());
        }
    }
}
