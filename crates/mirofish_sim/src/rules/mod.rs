//! The steering rules as pure functions: a fish's own state plus sums over
//! its neighbours in, a steering vector out. No side effects, no allocation.
//!
//! Every rule returns a *velocity change* (world units per second): desired
//! velocity minus current velocity for alignment and cohesion, a push for
//! separation, a wish for wander. [`steer`] turns one into an acceleration
//! (divided by [`FlockParams::reaction_time`], truncated to
//! [`FlockParams::max_force`], weighted); the flock sums them and clamps
//! the total once more to `max_force`.
//!
//! The classic pitfalls guarded here: an empty neighbourhood (division by a
//! zero count), coincident fish (1/r at r = 0) and the heading of a fish that
//! is not moving (normalising a zero vector).

pub mod boundary;
pub(crate) mod compose;
pub mod motion;
pub(crate) mod nearest;
pub mod noise;
pub mod scene;
pub mod view;

use glam::{Vec2, Vec4, Vec4Swizzles};

use crate::math::Vector;
use crate::math::lanes::Lanes;
use crate::world::params::FlockParams;

/// Sums over one fish's neighbourhood, gathered in a single pass over the
/// candidates. Offsets point from the fish to the neighbour (wrap-aware).
/// `V` is [`Vec2`] on a plane, [`glam::Vec3`] in a volume.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Neighbourhood<V: Vector = Vec2> {
    /// Neighbours within the perception radius.
    pub count: u32,
    /// Sum of their velocities.
    pub velocity_sum: V,
    /// Sum of their offsets from the fish.
    pub offset_sum: V,
    /// Neighbours within the separation radius.
    pub separation_count: u32,
    /// Sum of their pushes ([`separation_push`]).
    pub separation_sum: V,
    /// Summed strength ([`separation_strength`]) of the neighbours exactly
    /// on top of the fish, whose offset gives no direction to push along:
    /// [`Neighbourhood::settle_ties`] adds them to `separation_sum` along a
    /// direction of the fish's own.
    pub tie_strength: f32,
}

/// The radii a neighbour is tested against, squared where the test is
/// squared; computed once per tick rather than per pair.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reach {
    /// Perception radius squared.
    pub perception2: f32,
    /// Separation radius.
    pub separation: f32,
    /// Separation radius squared.
    pub separation2: f32,
    /// The separation floor (see [`FlockParams::separation_floor`]).
    pub floor: f32,
}

impl Reach {
    /// The reach of a school with these parameters.
    pub fn new(params: &FlockParams) -> Self {
        Self {
            perception2: params.perception_radius * params.perception_radius,
            separation: params.separation_radius,
            separation2: params.separation_radius * params.separation_radius,
            floor: params.separation_floor,
        }
    }

    /// The larger squared radius: candidates beyond it are skipped.
    pub fn max2(&self) -> f32 {
        self.perception2.max(self.separation2)
    }
}

impl<V: Vector> Neighbourhood<V> {
    /// Adds one neighbour seen at `offset` (neighbour minus fish) and
    /// squared distance `d2`, moving with `velocity`. A neighbour exactly
    /// on top of the fish adds to `tie_strength`; call
    /// [`Neighbourhood::settle_ties`] once every neighbour is in.
    ///
    /// This is the reference form; the flock's force kernel does the same
    /// sums branch-free on packed vectors, and a test holds the two equal.
    #[inline]
    pub fn add(&mut self, offset: V, d2: f32, velocity: V, reach: &Reach) {
        if d2 < reach.perception2 {
            self.count += 1;
            self.velocity_sum += velocity;
            self.offset_sum += offset;
        }
        self.add_separation(offset, d2, reach);
    }

    /// Adds one neighbour seen at `offset`, moving with `velocity`, to the
    /// alignment and cohesion sums with `weight` (its zone, distance and
    /// leader weight: [`view::View::weight`]); it counts as one neighbour.
    /// For a fish whose view is shaped; the caller has checked the
    /// perception radius and the view.
    #[inline]
    pub fn add_seen(&mut self, offset: V, velocity: V, weight: f32) {
        self.count += 1;
        self.velocity_sum += velocity * weight;
        self.offset_sum += offset * weight;
    }

    /// Adds one neighbour at `offset` (squared distance `d2`) to the
    /// separation sums if it is within the separation radius: all round,
    /// whatever the view (a fish feels a neighbour it does not see).
    #[inline]
    pub fn add_separation(&mut self, offset: V, d2: f32, reach: &Reach) {
        if d2 < reach.separation2 {
            self.separation_count += 1;
            if d2 > 0.0 {
                self.separation_sum += separation_push(offset, d2, reach.separation, reach.floor);
            } else {
                self.tie_strength += separation_strength(d2, reach.separation, reach.floor);
            }
        }
    }

    /// Scales a thinned neighbourhood by `others` (the candidates but the
    /// fish itself) over the `looked` at, so that means stay and sums and
    /// counts estimate the full neighbourhood's (see
    /// [`FlockParams::neighbour_cap`]).
    pub fn scale_sample(&mut self, others: usize, looked: usize) {
        let factor = others as f32 / looked.max(1) as f32;
        let count = |c: u32| (c as f32 * factor).round() as u32;
        self.count = count(self.count);
        self.separation_count = count(self.separation_count);
        self.velocity_sum *= factor;
        self.offset_sum *= factor;
        self.separation_sum *= factor;
    }

    /// Adds the pushes of the neighbours exactly on top of the fish along
    /// `direction` (a unit vector of the fish's own: each fish of a pile
    /// escapes its own way) and clears `tie_strength`. Nothing changes
    /// without such neighbours.
    #[inline]
    pub fn settle_ties(&mut self, direction: V) {
        if self.tie_strength > 0.0 {
            self.separation_sum += direction * self.tie_strength;
        }
        self.tie_strength = 0.0;
    }
}

/// The strength of the push of a neighbour at squared distance `d2`, for a
/// separation `radius`: `radius / d - 1` where `d = max(distance, floor)` —
/// zero at the radius (no jolt when a neighbour enters), 1 at half the
/// radius, growing as 1/r closer in and capped at the floor, so that no
/// division by a vanishing distance can occur.
#[inline]
pub fn separation_strength(d2: f32, radius: f32, floor: f32) -> f32 {
    (radius / d2.sqrt().max(floor) - 1.0).max(0.0)
}

/// The push one neighbour at `offset` gives: away from it, with
/// [`separation_strength`]. Zero for a neighbour exactly on top of the
/// fish, which has no direction (see [`Neighbourhood::tie_strength`]).
#[inline]
pub fn separation_push<V: Vector>(offset: V, d2: f32, radius: f32, floor: f32) -> V {
    let d = d2.sqrt();
    let strength = (radius / d.max(floor) - 1.0).max(0.0);
    if d > 0.0 { -offset / d * strength } else { V::ZERO }
}

/// Separation: the sum of the neighbours' pushes, scaled to a velocity
/// (`max_speed` per unit of push). Grows as neighbours come closer and as
/// more of them crowd in; zero without neighbours.
#[inline]
pub fn separation<V: Vector>(n: &Neighbourhood<V>, params: &FlockParams) -> V {
    if n.separation_count == 0 {
        return V::ZERO;
    }
    n.separation_sum * params.desired_speed()
}

/// Alignment: steer towards the neighbours' mean heading at full speed
/// (the classic form), or, with [`FlockParams::match_speed`], towards their
/// mean velocity, speed included (Reynolds' velocity matching: a school can
/// then slow down with its leaders). Zero without neighbours.
#[inline]
pub fn alignment<V: Vector>(n: &Neighbourhood<V>, velocity: V, params: &FlockParams) -> V {
    if params.match_speed {
        if n.count == 0 {
            return V::ZERO;
        }
        return clamp_length(n.velocity_sum / n.count as f32, params.desired_speed()) - velocity;
    }
    steer_towards_mean(n.velocity_sum, n.count, velocity, params)
}

/// Cohesion: steer towards the neighbours' centre at full speed. Zero
/// without neighbours, and no NaN when the fish sits exactly at the centre.
#[inline]
pub fn cohesion<V: Vector>(n: &Neighbourhood<V>, velocity: V, params: &FlockParams) -> V {
    steer_towards_mean(n.offset_sum, n.count, velocity, params)
}

/// [`alignment`] and [`cohesion`] together, the two means normalised side
/// by side in one vector (one square root and one division for both).
/// Every lane does exactly the scalar operations: the same bits.
#[inline]
pub fn alignment_and_cohesion(n: &Neighbourhood, velocity: Vec2, params: &FlockParams) -> (Vec2, Vec2) {
    if params.match_speed {
        return (alignment(n, velocity, params), cohesion(n, velocity, params));
    }
    if n.count == 0 {
        return (Vec2::ZERO, Vec2::ZERO);
    }
    let sums = Vec4::new(n.velocity_sum.x, n.velocity_sum.y, n.offset_sum.x, n.offset_sum.y);
    let mean = sums / n.count as f32;
    let squares = mean * mean;
    // x² + y² in both lanes of each pair (addition commutes exactly).
    let rcp = Vec4::ONE / (squares + squares.yxwz()).sqrt();
    let usable = rcp.is_finite_mask() & rcp.cmpgt(Vec4::ZERO);
    let desired = Vec4::select(usable, mean * rcp, Vec4::ZERO) * params.desired_speed();
    let change = desired - Vec4::new(velocity.x, velocity.y, velocity.x, velocity.y);
    (change.xy(), change.zw())
}

/// Desired velocity (full speed along the mean of `count` vectors summing
/// to `sum`) minus the current velocity: the line that gives boids their
/// inertia. Zero when `count` is zero; a zero mean desires standing still.
#[inline]
fn steer_towards_mean<V: Vector>(sum: V, count: u32, velocity: V, params: &FlockParams) -> V {
    if count == 0 {
        return V::ZERO;
    }
    (sum / count as f32).normalize_or_zero() * params.desired_speed() - velocity
}

/// Wander: a desired velocity along the fish's own slowly turning phase.
#[inline]
pub fn wander(phase: f32, params: &FlockParams) -> Vec2 {
    wander_direction::<Vec2>(phase, &()) * params.desired_speed()
}

/// The direction a fish wanders along: the point at angle `phase` on its
/// `circle` (on a plane, the unit vector at `phase`; in a volume, on the
/// great circle its wander turns round).
#[inline]
pub fn wander_direction<V: Vector>(phase: f32, circle: &V::Circle) -> V {
    let (sin, cos) = crate::math::angle::sin_cos(phase);
    V::on_circle(circle, sin, cos)
}

/// The heading of a fish: its velocity direction, or `fallback()` (where
/// it wanders) when it is not moving, so a stopped fish still has a
/// defined heading. The fallback is computed only for a stopped fish.
#[inline]
pub fn heading<V: Vector>(velocity: V, fallback: impl FnOnce() -> V) -> V {
    velocity.try_normalize().unwrap_or_else(fallback)
}

/// Scales `v` down to length `max` if it is longer; never returns NaN or inf,
/// also for an infinite or NaN input (which becomes zero).
#[inline]
pub fn clamp_length<V: Vector>(v: V, max: f32) -> V {
    let len2 = v.length_squared();
    // The common case first: short enough (false for NaN).
    if len2 <= max * max {
        return v;
    }
    if v.is_nan() {
        return V::ZERO;
    }
    if !len2.is_finite() {
        // The square overflowed, so the vector is far longer than any
        // admissible limit: keep its direction, rescaled before normalising.
        let scale = v.abs().max_element();
        if !scale.is_finite() {
            return V::ZERO;
        }
        return (v / scale).normalize_or_zero() * max;
    }
    v * (max / len2.sqrt())
}

/// Every rule's contribution for one fish, as accelerations: each rule's
/// velocity change is divided by the reaction time, truncated to
/// `max_force` and weighted. Their sum is clamped once more by the flock.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RuleForces<V: Vector = Vec2> {
    /// Separation (weighted).
    pub separation: V,
    /// Alignment (weighted).
    pub alignment: V,
    /// Cohesion (weighted).
    pub cohesion: V,
    /// Wander (weighted).
    pub wander: V,
    /// Soft-margin steering (weighted).
    pub boundary: V,
    /// Obstacle avoidance (weighted).
    pub obstacle: V,
    /// Flight from predators (weighted).
    pub flee: V,
    /// Goal and attract/repel point (weighted).
    pub goal: V,
}

/// Turns one rule's velocity change into its weighted acceleration.
///
/// Truncating each rule to `max_force` before weighting is Reynolds'
/// steering model, and what the tuned presets assume: rules then
/// compete through their weights, not through raw magnitudes that depend on
/// how many neighbours happen to be near. Without it cohesion, which asks
/// for full speed towards the centre however close that centre is, packs a
/// school to a third of its separation radius. The weighted *sum* is
/// clamped once more (in the engine's force pass); that single clamp
/// of the total is what bounds the velocity change per tick.
#[inline]
pub fn steer<V: Vector>(velocity_change: V, weight: f32, params: &FlockParams) -> V {
    steer_with(velocity_change, weight, 1.0 / params.reaction_time, params.max_force)
}

/// [`steer`] for four rules at once, one rule per vector lane: one square
/// root and one division for all four. Every lane does exactly the scalar
/// operations, so the bits are [`steer`]'s; a non-finite change (never seen
/// with validated parameters) takes the scalar path.
#[inline]
fn steer_four(changes: [Vec2; 4], weights: [f32; 4], params: &FlockParams) -> [Vec2; 4] {
    let (inv, max) = (1.0 / params.reaction_time, params.max_force);
    let x = Vec4::new(changes[0].x, changes[1].x, changes[2].x, changes[3].x) * inv;
    let y = Vec4::new(changes[0].y, changes[1].y, changes[2].y, changes[3].y) * inv;
    let len2 = x * x + y * y;
    if !len2.cmplt(Vec4::INFINITY).all() {
        return core::array::from_fn(|k| steer_with(changes[k], weights[k], inv, max));
    }
    let scale = Vec4::select(len2.cmple(Vec4::splat(max * max)), Vec4::ONE, Vec4::splat(max) / len2.sqrt());
    let w = Vec4::from_array(weights);
    let (x, y) = ((x * scale * w).to_array(), (y * scale * w).to_array());
    core::array::from_fn(|k| Vec2::new(x[k], y[k]))
}

/// [`steer`] with the reciprocal of the reaction time already taken (one
/// division per fish instead of one per rule; the same bits).
#[inline]
fn steer_with<V: Vector>(velocity_change: V, weight: f32, inv_reaction_time: f32, max_force: f32) -> V {
    clamp_length(velocity_change * inv_reaction_time, max_force) * weight
}

impl RuleForces {
    /// Evaluates the three rules and wander for one fish on a plane (the
    /// four rules' clamps side by side; the same bits as
    /// [`RuleForces::evaluate_towards`] with the wander direction of
    /// `phase`).
    #[inline(always)]
    pub fn evaluate(n: &Neighbourhood, velocity: Vec2, phase: f32, params: &FlockParams) -> Self {
        let (alignment, cohesion) = alignment_and_cohesion(n, velocity, params);
        let changes = [separation(n, params), alignment, cohesion, wander(phase, params)];
        let weights =
            [params.separation_weight, params.alignment_weight, params.cohesion_weight, params.wander_weight];
        let [separation, alignment, cohesion, wander] = steer_four(changes, weights, params);
        Self { separation, alignment, cohesion, wander, ..Self::default() }
    }
}

impl<V: Vector> RuleForces<V> {
    /// Evaluates the three rules and wander for one fish in any dimension,
    /// wandering along the unit vector `wander_direction`.
    #[inline]
    pub fn evaluate_towards(
        n: &Neighbourhood<V>,
        velocity: V,
        wander_direction: V,
        params: &FlockParams,
    ) -> Self {
        let inv = 1.0 / params.reaction_time;
        let rule = |change: V, weight: f32| steer_with(change, weight, inv, params.max_force);
        Self {
            separation: rule(separation(n, params), params.separation_weight),
            alignment: rule(alignment(n, velocity, params), params.alignment_weight),
            cohesion: rule(cohesion(n, velocity, params), params.cohesion_weight),
            wander: rule(wander_direction * params.desired_speed(), params.wander_weight),
            ..Self::default()
        }
    }

    /// The fish's kick: the sum of all parts plus `jitter` (a draw in the
    /// unit ball) times `jitter · max_force`, clamped to `max_force` — the
    /// one clamp that bounds the velocity change per tick.
    #[inline]
    pub fn kick(&self, jitter: V, params: &FlockParams) -> V {
        clamp_length(self.acceleration() + jitter * (params.jitter * params.max_force), params.max_force)
    }

    /// Sum of all parts: the fish's acceleration before the final clamp.
    #[inline]
    pub fn acceleration(&self) -> V {
        self.separation
            + self.alignment
            + self.cohesion
            + self.wander
            + self.boundary
            + self.obstacle
            + self.flee
            + self.goal
    }
}

/// The neighbourhoods of four fish (or eight, [`Lanes`]), one per vector
/// lane, over `N` axes (2 on a plane, 3 in a volume): what the force
/// kernels' four-fish scans sum (counts as whole numbers in `f32`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct NeighbourhoodLanes<V = Vec4, const N: usize = 2> {
    /// Neighbours within the perception radius.
    pub count: V,
    /// Sum of their velocities, axis by axis.
    pub velocity: [V; N],
    /// Sum of their offsets from the fish.
    pub offset: [V; N],
    /// Neighbours within the separation radius.
    pub separation_count: V,
    /// Sum of their pushes.
    pub separation: [V; N],
}

impl<const N: usize> Default for NeighbourhoodLanes<Vec4, N> {
    fn default() -> Self {
        Self {
            count: Vec4::ZERO,
            velocity: [Vec4::ZERO; N],
            offset: [Vec4::ZERO; N],
            separation_count: Vec4::ZERO,
            separation: [Vec4::ZERO; N],
        }
    }
}

impl NeighbourhoodLanes {
    /// Lane `l` as one fish's neighbourhood (the tests' way back).
    #[cfg(test)]
    pub fn lane(&self, l: usize) -> Neighbourhood {
        Neighbourhood {
            count: self.count[l] as u32,
            velocity_sum: Vec2::new(self.velocity[0][l], self.velocity[1][l]),
            offset_sum: Vec2::new(self.offset[0][l], self.offset[1][l]),
            separation_count: self.separation_count[l] as u32,
            separation_sum: Vec2::new(self.separation[0][l], self.separation[1][l]),
            // The lanes' ties are settled before they become neighbourhoods.
            tie_strength: 0.0,
        }
    }

    /// Sets lane `l` to one fish's neighbourhood (the tests' way to build
    /// lanes; the passes build theirs in `step::kernel::hoods`).
    #[cfg(test)]
    pub fn set_lane(&mut self, l: usize, n: &Neighbourhood) {
        let set = |v: &mut Vec4, x: f32| v[l] = x;
        set(&mut self.count, n.count as f32);
        set(&mut self.velocity[0], n.velocity_sum.x);
        set(&mut self.velocity[1], n.velocity_sum.y);
        set(&mut self.offset[0], n.offset_sum.x);
        set(&mut self.offset[1], n.offset_sum.y);
        set(&mut self.separation_count, n.separation_count as f32);
        set(&mut self.separation[0], n.separation_sum.x);
        set(&mut self.separation[1], n.separation_sum.y);
    }
}

/// [`RuleForces::evaluate`] for four fish (or eight, [`Lanes`]), one per
/// lane, with the same bits lane by lane: `[separation, alignment,
/// cohesion, wander]`, each as `[x, y]` lanes. `None` where the one-fish
/// form would take a special path (speed matching, a non-finite value, a
/// huge phase): evaluate those fish one at a time.
///
/// The engine forms a plane's wandering velocities itself and calls
/// [`rules_in_lanes`]; this composition is kept for the tests that hold the
/// lane form to the one-fish form.
#[cfg(test)]
pub(crate) fn evaluate_lanes<V: Lanes>(
    n: &NeighbourhoodLanes<V>,
    v: [V; 2],
    phase: V,
    params: &FlockParams,
) -> Option<[[V; 2]; 4]> {
    if params.match_speed {
        return None;
    }
    let max_speed = n.count.splat(params.desired_speed());
    let (sin, cos) = crate::math::angle::sin_cos_lanes(phase)?;
    rules_in_lanes(n, v, [cos * max_speed, sin * max_speed], params)
}

/// The three rules and wander for four fish (or eight) in `N` dimensions,
/// one fish per lane, `wander` being each fish's wandering velocity:
/// `[separation, alignment, cohesion, wander]`, each axis by axis, with the
/// bits of [`RuleForces::evaluate_towards`] (and of [`RuleForces::evaluate`]
/// on a plane) lane by lane. `None` under speed matching or where a length
/// is not finite: evaluate those fish one at a time.
#[inline(always)]
pub(crate) fn rules_in_lanes<V: Lanes, const N: usize>(
    n: &NeighbourhoodLanes<V, N>,
    v: [V; N],
    wander: [V; N],
    params: &FlockParams,
) -> Option<[[V; N]; 4]> {
    if params.match_speed {
        return None;
    }
    let max_speed = n.count.splat(params.desired_speed());
    let zero = n.count.splat(0.0);
    let (some, pushed) = (n.count.cmpgt(zero), n.separation_count.cmpgt(zero));
    let mut separation = [zero; N];
    for (axis, &push) in separation.iter_mut().zip(&n.separation) {
        *axis = V::select(pushed, push * max_speed, zero);
    }
    let changes = [
        separation,
        towards_mean(n.velocity, n.count, some, v, max_speed),
        towards_mean(n.offset, n.count, some, v, max_speed),
        wander,
    ];
    let weights =
        [params.separation_weight, params.alignment_weight, params.cohesion_weight, params.wander_weight];
    // `steer_four`, a rule at a time; a non-finite length anywhere sends
    // the quartet to the one-fish form.
    let (inv, max) = (1.0 / params.reaction_time, params.max_force);
    let mut scaled = [[zero; N]; 4];
    let mut len2 = [zero; 4];
    for k in 0..4 {
        for i in 0..N {
            scaled[k][i] = changes[k][i] * inv;
        }
        len2[k] = length_squared(scaled[k]);
    }
    let infinite = zero.splat(f32::INFINITY);
    let finite =
        len2[0].cmplt(infinite) & len2[1].cmplt(infinite) & len2[2].cmplt(infinite) & len2[3].cmplt(infinite);
    if !V::all(finite) {
        return None;
    }
    let mut out = [[zero; N]; 4];
    for k in 0..4 {
        let scale = V::select(
            len2[k].cmple(zero.splat(max * max)),
            zero.splat(1.0),
            zero.splat(max) / len2[k].sqrt(),
        );
        for i in 0..N {
            out[k][i] = scaled[k][i] * scale * weights[k];
        }
    }
    Some(out)
}

/// The squared length of `N` axes' lanes, summed in the axes' order (as
/// glam's `length_squared` sums them: the same bits).
#[inline(always)]
fn length_squared<V: Lanes, const N: usize>(axes: [V; N]) -> V {
    let mut sum = axes[0] * axes[0];
    for x in &axes[1..] {
        sum = sum + *x * *x;
    }
    sum
}

/// `alignment_and_cohesion` in lanes: full speed along the mean of the
/// sums over `count`, minus the velocity `v`; zero without neighbours
/// (outside `some`).
#[inline(always)]
fn towards_mean<V: Lanes, const N: usize>(
    sums: [V; N],
    count: V,
    some: V::Mask,
    v: [V; N],
    max_speed: V,
) -> [V; N] {
    let zero = count.splat(0.0);
    let mut mean = [zero; N];
    for i in 0..N {
        mean[i] = sums[i] / count;
    }
    let rcp = zero.splat(1.0) / length_squared(mean).sqrt();
    let usable = rcp.is_finite_mask() & rcp.cmpgt(zero);
    let mut change = [zero; N];
    for i in 0..N {
        change[i] = V::select(some, V::select(usable, mean[i] * rcp, zero) * max_speed - v[i], zero);
    }
    change
}

/// [`RuleForces::kick`] of four fish in lanes over `N` axes, where the
/// scene's reactions are exact zeros: `rules` (separation, alignment,
/// cohesion, wander) and `boundary` summed in the one-fish order (with its
/// zero obstacle, flight and goal), plus `jitter` (draws in the unit ball)
/// times `jitter · max_force`, clamped to `max_force`: the same bits.
/// `None` where a lane's total is not finite (the one-fish form handles
/// those).
#[inline(always)]
pub(crate) fn kick_lanes<const N: usize>(
    [separation, alignment, cohesion, wander]: [[Vec4; N]; 4],
    boundary: [Vec4; N],
    jitter: [Vec4; N],
    params: &FlockParams,
) -> Option<[Vec4; N]> {
    let amount = params.jitter * params.max_force;
    let total: [Vec4; N] = core::array::from_fn(|i| {
        let parts = separation[i] + alignment[i] + cohesion[i] + wander[i] + boundary[i];
        parts + Vec4::ZERO + Vec4::ZERO + Vec4::ZERO + jitter[i] * amount
    });
    clamp_length_lanes(total, Vec4::splat(params.max_force))
}

/// [`clamp_length`] of four vectors in `N` dimensions, one per lane (each
/// to its own `max`), with the same bits; `None` if one is non-finite (the
/// one-vector form handles those).
#[inline(always)]
pub(crate) fn clamp_length_lanes<const N: usize>(v: [Vec4; N], max: Vec4) -> Option<[Vec4; N]> {
    let len2 = length_squared(v);
    if !len2.cmplt(Vec4::INFINITY).all() {
        return None;
    }
    let short = len2.cmple(max * max);
    let scale = max / len2.sqrt();
    let mut clamped = v;
    for x in &mut clamped {
        *x = Vec4::select(short, *x, *x * scale);
    }
    Some(clamped)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> FlockParams {
        FlockParams::reference()
    }

    fn hood(offsets: &[(Vec2, Vec2)]) -> Neighbourhood {
        let p = params();
        let mut n = Neighbourhood::default();
        for &(o, v) in offsets {
            n.add(o, o.length_squared(), v, &Reach::new(&p));
        }
        n.settle_ties(Vec2::X);
        n
    }

    #[test]
    fn empty_neighbourhood_gives_zero_force() {
        let n = Neighbourhood::default();
        let p = params();
        let v = Vec2::new(10.0, -3.0);
        assert_eq!(separation(&n, &p), Vec2::ZERO);
        assert_eq!(alignment(&n, v, &p), Vec2::ZERO);
        assert_eq!(cohesion(&n, v, &p), Vec2::ZERO);
    }

    #[test]
    fn coincident_fish_give_a_finite_force() {
        let n = hood(&[(Vec2::ZERO, Vec2::ZERO)]);
        let p = params();
        let s = separation(&n, &p);
        assert!(s.is_finite() && s.length() > 0.0, "{s}");
        assert!(alignment(&n, Vec2::ZERO, &p).is_finite());
        assert!(cohesion(&n, Vec2::ZERO, &p).is_finite());
        // The push at distance 0 equals the push at the floor distance.
        let at_floor = hood(&[(Vec2::new(-p.separation_floor, 0.0), Vec2::ZERO)]);
        assert!((separation(&at_floor, &p) - s).length() < 1e-3);
    }

    #[test]
    fn zero_velocity_has_a_defined_heading() {
        assert_eq!(heading(Vec2::ZERO, || Vec2::Y), Vec2::Y);
        assert_eq!(heading(Vec2::new(0.0, -5.0), || Vec2::X), Vec2::NEG_Y);
        let h = heading(Vec2::new(1e-30, 0.0), || Vec2::Y);
        assert!(h.is_finite());
        // The rules themselves stay finite for a stopped fish.
        let n = hood(&[(Vec2::new(5.0, 0.0), Vec2::ZERO)]);
        let f = RuleForces::evaluate(&n, Vec2::ZERO, 0.0, &params());
        assert!(f.acceleration().is_finite());
    }

    #[test]
    fn separation_grows_as_distance_shrinks() {
        let p = params();
        let mut last = 0.0;
        for d in [11.0, 8.0, 5.0, 3.0, 2.5] {
            let s = separation(&hood(&[(Vec2::new(d, 0.0), Vec2::ZERO)]), &p);
            assert!(s.x < 0.0, "pushes away from a neighbour on the right");
            assert!(s.length() > last, "at {d}: {} <= {last}", s.length());
            last = s.length();
        }
        // A neighbour outside the separation radius does not push.
        let far = hood(&[(Vec2::new(20.0, 0.0), Vec2::ZERO)]);
        assert_eq!(separation(&far, &p), Vec2::ZERO);
    }

    #[test]
    fn separation_fades_to_zero_at_the_radius_and_adds_up() {
        let p = params();
        let r = p.separation_radius;
        let at = |d: f32| separation(&hood(&[(Vec2::new(0.0, d), Vec2::ZERO)]), &p);
        assert!(at(r * 0.999).length() < p.max_speed * 0.01, "no jolt at the edge");
        assert!((at(r * 0.5).length() - p.max_speed).abs() < 1e-2, "max_speed at half the radius");
        // Two neighbours on the same side push twice as hard as one.
        let one = at(r * 0.5);
        let two = separation(&hood(&[(Vec2::new(0.0, r * 0.5), Vec2::ZERO); 2]), &p);
        assert!((two - one * 2.0).length() < 1e-2);
    }

    #[test]
    fn alignment_steers_towards_mean_heading() {
        let p = params();
        let n = hood(&[
            (Vec2::new(20.0, 0.0), Vec2::new(0.0, 50.0)),
            (Vec2::new(-20.0, 0.0), Vec2::new(0.0, 150.0)),
        ]);
        let v = Vec2::new(p.max_speed, 0.0);
        let a = alignment(&n, v, &p);
        assert!((a - (Vec2::new(0.0, p.max_speed) - v)).length() < 1e-3, "{a}");
    }

    #[test]
    fn speed_matching_alignment_follows_slow_neighbours() {
        let p = FlockParams { match_speed: true, ..params() };
        let n = hood(&[(Vec2::new(20.0, 0.0), Vec2::new(10.0, 0.0))]);
        let v = Vec2::new(p.max_speed, 0.0);
        // Heading-only alignment keeps full speed; matching asks to slow down.
        assert!(alignment(&n, v, &params()).length() < 1e-3);
        assert!((alignment(&n, v, &p) - Vec2::new(10.0 - p.max_speed, 0.0)).length() < 1e-3);
        assert_eq!(alignment(&Neighbourhood::default(), v, &p), Vec2::ZERO);
    }

    #[test]
    fn cohesion_steers_towards_centre_and_is_safe_at_centre() {
        let p = params();
        let n = hood(&[(Vec2::new(30.0, 0.0), Vec2::ZERO), (Vec2::new(30.0, 10.0), Vec2::ZERO)]);
        assert!(cohesion(&n, Vec2::ZERO, &p).x > 0.0);
        let centred = hood(&[(Vec2::new(30.0, 0.0), Vec2::ZERO), (Vec2::new(-30.0, 0.0), Vec2::ZERO)]);
        assert_eq!(cohesion(&centred, Vec2::ZERO, &p), Vec2::ZERO);
    }

    #[test]
    fn rules_compete_by_weight_not_by_raw_magnitude() {
        let p = params();
        // A crowd of close neighbours on one side: separation is huge in raw
        // terms, but after truncation it is max_force times its weight.
        let crowd = hood(&[(Vec2::new(3.0, 0.0), Vec2::ZERO); 40]);
        let f = RuleForces::evaluate(&crowd, Vec2::ZERO, 0.0, &p);
        assert!((f.separation.length() - p.max_force * p.separation_weight).abs() < 1e-2);
        assert!(f.separation.x < 0.0);
        assert!(f.cohesion.length() <= p.max_force * p.cohesion_weight + 1e-3);
    }

    #[test]
    fn alignment_and_cohesion_together_match_each_alone() {
        let p = params();
        let v = Vec2::new(120.0, -33.0);
        let hoods = [
            Neighbourhood::default(),
            hood(&[(Vec2::new(30.0, 0.0), Vec2::new(0.0, 50.0)), (Vec2::new(-30.0, 0.0), Vec2::ZERO)]),
            hood(&[(Vec2::new(3.0, 4.0), Vec2::new(-7.0, 150.0))]),
            hood(&[(Vec2::new(1.0e-30, 0.0), Vec2::new(1.0e-30, 0.0))]),
        ];
        for (k, n) in hoods.iter().enumerate() {
            let pair = alignment_and_cohesion(n, v, &p);
            assert_eq!(pair, (alignment(n, v, &p), cohesion(n, v, &p)), "neighbourhood {k}");
            let m = FlockParams { match_speed: true, ..p };
            assert_eq!(alignment_and_cohesion(n, v, &m), (alignment(n, v, &m), cohesion(n, v, &m)));
        }
    }

    #[test]
    fn four_rules_in_lanes_steer_like_one_rule_at_a_time() {
        let p = params();
        let changes = [Vec2::new(300.0, -40.0), Vec2::new(1.0e-3, 2.0), Vec2::ZERO, Vec2::new(-9.0, 9.0)];
        let weights = [1.6, 1.0, 0.8, -0.5];
        let four = steer_four(changes, weights, &p);
        for k in 0..4 {
            assert_eq!(four[k], steer(changes[k], weights[k], &p), "rule {k}");
        }
        let hostile = [Vec2::new(f32::MAX, f32::MAX), Vec2::new(f32::NAN, 1.0), Vec2::X, -Vec2::Y];
        let four = steer_four(hostile, weights, &p);
        for k in 0..4 {
            assert_eq!(four[k], steer(hostile[k], weights[k], &p), "hostile rule {k}");
            assert!(four[k].is_finite());
        }
    }

    #[test]
    fn four_fish_in_lanes_evaluate_like_one_at_a_time() {
        let p = FlockParams { separation_weight: 2.0, cohesion_weight: 0.7, ..params() };
        // Neighbourhoods with none, one, coincident and crowded neighbours,
        // and one whose mean offset is exactly zero.
        let hoods = [
            Neighbourhood::default(),
            hood(&[(Vec2::new(3.0, 4.0), Vec2::new(1.0, -2.0))]),
            hood(&[(Vec2::ZERO, Vec2::ZERO), (Vec2::new(0.5, 0.1), Vec2::new(9.0, 9.0))]),
            hood(&[
                (Vec2::new(-2.0, 1.0), Vec2::X),
                (Vec2::new(2.0, -1.0), Vec2::Y),
                (Vec2::new(0.1, 7.0), Vec2::ONE),
            ]),
            hood(
                &(1..40)
                    .map(|i| (Vec2::new(i as f32 * 0.3, -1.0), Vec2::new(40.0, i as f32)))
                    .collect::<Vec<_>>(),
            ),
        ];
        let velocities = [Vec2::ZERO, Vec2::new(30.0, -4.0), Vec2::new(-1.0e-3, 0.0), Vec2::new(80.0, 80.0)];
        let phases = [0.0, 1.0, 4.5, 6.2];
        for first in 0..hoods.len() {
            let mut lanes = NeighbourhoodLanes::default();
            let fish: [Neighbourhood; 4] = core::array::from_fn(|l| hoods[(first + l) % hoods.len()]);
            for (l, n) in fish.iter().enumerate() {
                lanes.set_lane(l, n);
                assert_eq!(lanes.lane(l), *n);
            }
            let v = [
                Vec4::new(velocities[0].x, velocities[1].x, velocities[2].x, velocities[3].x),
                Vec4::new(velocities[0].y, velocities[1].y, velocities[2].y, velocities[3].y),
            ];
            let rules = evaluate_lanes(&lanes, v, Vec4::from_array(phases), &p).expect("finite");
            for l in 0..4 {
                let one = RuleForces::evaluate(&fish[l], velocities[l], phases[l], &p);
                let bits = |r: usize| (rules[r][0][l].to_bits(), rules[r][1][l].to_bits());
                let expect = |v: Vec2| (v.x.to_bits(), v.y.to_bits());
                assert_eq!(bits(0), expect(one.separation), "separation, lane {l}");
                assert_eq!(bits(1), expect(one.alignment), "alignment, lane {l}");
                assert_eq!(bits(2), expect(one.cohesion), "cohesion, lane {l}");
                assert_eq!(bits(3), expect(one.wander), "wander, lane {l}");
            }
            let totals = [rules[0][0] + rules[1][0] * 9.0, rules[0][1] - rules[2][1] * 9.0];
            let clamped = clamp_length_lanes(totals, Vec4::splat(p.max_force)).expect("finite");
            for l in 0..4 {
                let one = clamp_length(Vec2::new(totals[0][l], totals[1][l]), p.max_force);
                assert_eq!(
                    (clamped[0][l].to_bits(), clamped[1][l].to_bits()),
                    (one.x.to_bits(), one.y.to_bits())
                );
            }
        }
        let speed_matching = FlockParams { match_speed: true, ..p };
        assert!(
            evaluate_lanes(&NeighbourhoodLanes::default(), [Vec4::ZERO; 2], Vec4::ZERO, &speed_matching)
                .is_none()
        );
        assert!(clamp_length_lanes([Vec4::splat(f32::NAN), Vec4::ZERO], Vec4::ONE).is_none());
    }

    #[test]
    fn clamp_length_limits_and_survives_overflow() {
        assert_eq!(clamp_length(Vec2::new(3.0, 4.0), 10.0), Vec2::new(3.0, 4.0));
        assert!((clamp_length(Vec2::new(30.0, 40.0), 5.0) - Vec2::new(3.0, 4.0)).length() < 1e-5);
        let huge = clamp_length(Vec2::new(3.0e38, 3.0e38), 1.0);
        assert!((huge.length() - 1.0).abs() < 1e-5, "{huge}");
        assert_eq!(clamp_length(Vec2::new(f32::NAN, 1.0), 1.0), Vec2::ZERO);
        assert_eq!(clamp_length(Vec2::new(5.0, 0.0), 0.0), Vec2::ZERO);
    }
}
