//! The integrator's motion, in either space: semi-implicit Euler for one
//! fish or four in vector lanes, then the walls and the obstacles (the
//! engine's integrate and boundary stages run these over every fish).

use glam::Vec4;

use crate::math::Vector;
use crate::math::exp::exp;
use crate::math::lanes::axis_lanes;
use crate::rules::motion::Gait;
use crate::rules::noise::{Stream, TickKey};
use crate::rules::{self, boundary};
use crate::world::params::FlockParams;
use crate::world::scene::Scene;
use crate::world::tank::{BoundaryMode, TankOf};

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
    use glam::Vec2;

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

    /// Four fish at a time in lanes on a plane, inside a tank, give
    /// exactly what one at a time gives, with a gait or without, and hand
    /// back the fish that need the one-fish path (a wall crossed, a phase
    /// past a whole turn) without touching them.
    #[test]
    fn four_fish_in_lanes_integrate_like_one_at_a_time() {
        let clip = FlockParams { max_speed: 40.0, panic_speed: 1.5, ..FlockParams::reference() };
        let gait = FlockParams { cruise_speed: 25.0, cruise_time: 0.3, turn_rate: 4.0, ..clip };
        for params in [clip, gait] {
            four_fish_in_lanes_integrate_like_one_at_a_time_with(&params);
        }
    }

    fn four_fish_in_lanes_integrate_like_one_at_a_time_with(params: &FlockParams) {
        use glam::Vec2;
        let tank = crate::Tank::centered(Vec2::new(200.0, 100.0));
        let motion = SchoolMotion { gait: Gait::new(params, 1.0 / 60.0), wander_turn: 0.07, calm: 0.98 };
        let dt = 1.0 / 60.0;
        let mut taken = 0;
        for group in 0..500u64 {
            let draw = |k: u64, salt: u64| noise::signed_pair(noise::mix64(group * 16 + k * 4 + salt));
            // Some fish near the walls, some with a phase about to wrap.
            let p: [Vec2; 4] = core::array::from_fn(|k| draw(k as u64, 0) * Vec2::new(100.5, 50.5));
            let v: [Vec2; 4] = core::array::from_fn(|k| draw(k as u64, 1) * 60.0);
            let phase: [f32; 4] =
                core::array::from_fn(|k| (draw(k as u64, 2).x + 1.0) * core::f32::consts::PI);
            let fear: [f32; 4] = core::array::from_fn(|k| draw(k as u64, 3).x.max(0.0));
            let a: [Vec2; 4] = core::array::from_fn(|k| draw(k as u64, 4) * 30.0);
            let fright: [f32; 4] = core::array::from_fn(|k| draw(k as u64, 5).y.max(0.0));
            let (mut one, mut four) = ((p, v, phase, fear), (p, v, phase, fear));
            for k in 0..4 {
                let (p, v, phase, fear) = &mut one;
                swim([&mut p[k], &mut v[k]], [&mut phase[k], &mut fear[k]], (a[k], fright[k]), &motion, dt);
            }
            let lanes = [Vec4::from_array(a.map(|a| a.x)), Vec4::from_array(a.map(|a| a.y)), Vec4::ZERO];
            let (p4, v4, phase4, fear4) = &mut four;
            if swim_four::<Vec2>([p4, v4], [phase4, fear4], (lanes, fright), &motion, dt, Some(&tank)) {
                taken += 1;
                assert!(four.0.iter().all(|&p| tank.contains(p)), "only fish still inside, group {group}");
                let bits = |s: &([Vec2; 4], [Vec2; 4], [f32; 4], [f32; 4])| {
                    let mut b = Vec::new();
                    for k in 0..4 {
                        b.extend([s.0[k].x, s.0[k].y, s.1[k].x, s.1[k].y, s.2[k], s.3[k]].map(f32::to_bits));
                    }
                    b
                };
                assert_eq!(bits(&four), bits(&one), "group {group}, {params:?}");
            } else {
                assert_eq!(four, (p, v, phase, fear), "untouched, group {group}");
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
}
