//! The steering rules as pure functions: a fish's own state plus sums over
//! its neighbours in, a steering vector out. No side effects, no allocation.
//!
//! Every rule returns a *velocity-like* vector (world units per second); the
//! flock turns the weighted sum into an acceleration by dividing by
//! [`FlockParams::reaction_time`] and clamps that total once to
//! [`FlockParams::max_force`].
//!
//! The seeds' pitfalls guarded here: an empty neighbourhood (division by a
//! zero count), coincident fish (1/r at r = 0) and the heading of a fish that
//! is not moving (normalising a zero vector).

use glam::Vec2;

use crate::params::FlockParams;

/// Sums over one fish's neighbourhood, gathered in a single pass over the
/// candidates. Offsets point from the fish to the neighbour (wrap-aware).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Neighbourhood {
    /// Neighbours within the perception radius.
    pub count: u32,
    /// Sum of their velocities.
    pub velocity_sum: Vec2,
    /// Sum of their offsets from the fish.
    pub offset_sum: Vec2,
    /// Neighbours within the separation radius.
    pub separation_count: u32,
    /// Sum of `away / max(distance, floor)` over those, `away` being the unit
    /// vector from the neighbour to the fish.
    pub separation_sum: Vec2,
}

impl Neighbourhood {
    /// Adds one neighbour seen at `offset` (neighbour minus fish) and
    /// squared distance `d2`, moving with `velocity`.
    ///
    /// `fallback` is the unit direction to flee along when the two fish
    /// coincide exactly; callers derive it from the pair's identities so
    /// the two fish are pushed apart in opposite directions.
    #[inline]
    pub fn add(
        &mut self,
        offset: Vec2,
        d2: f32,
        velocity: Vec2,
        radii2: (f32, f32),
        floor: f32,
        fallback: impl FnOnce() -> Vec2,
    ) {
        let (perception2, separation2) = radii2;
        if d2 < perception2 {
            self.count += 1;
            self.velocity_sum += velocity;
            self.offset_sum += offset;
        }
        if d2 < separation2 {
            self.separation_count += 1;
            self.separation_sum += separation_push(offset, d2, floor, fallback);
        }
    }
}

/// The push one neighbour at `offset` gives: away from it, with magnitude
/// `1 / max(distance, floor)`. At distance zero the direction is `fallback`.
#[inline]
pub fn separation_push(offset: Vec2, d2: f32, floor: f32, fallback: impl FnOnce() -> Vec2) -> Vec2 {
    let d = d2.sqrt();
    // Below `floor` (and in particular at 0) the magnitude is held at
    // 1/floor, so no division by a vanishing distance can occur.
    let inv = 1.0 / d.max(floor);
    if d > f32::MIN_POSITIVE * 1.0e6 { -offset / d * inv } else { fallback() * inv }
}

/// Separation: mean of the 1/r pushes, scaled so that a single neighbour
/// exactly at the separation radius asks for `max_speed`. Grows as the
/// neighbours come closer; zero without neighbours.
#[inline]
pub fn separation(n: &Neighbourhood, params: &FlockParams) -> Vec2 {
    if n.separation_count == 0 {
        return Vec2::ZERO;
    }
    n.separation_sum / n.separation_count as f32 * params.separation_radius * params.max_speed
}

/// Alignment: steer towards the neighbours' mean heading at full speed
/// (desired velocity minus current velocity). Zero without neighbours.
#[inline]
pub fn alignment(n: &Neighbourhood, velocity: Vec2, params: &FlockParams) -> Vec2 {
    if n.count == 0 {
        return Vec2::ZERO;
    }
    let mean = n.velocity_sum / n.count as f32;
    mean.normalize_or_zero() * params.max_speed - velocity
}

/// Cohesion: steer towards the neighbours' centre at full speed. Zero
/// without neighbours, and no NaN when the fish sits exactly at the centre.
#[inline]
pub fn cohesion(n: &Neighbourhood, velocity: Vec2, params: &FlockParams) -> Vec2 {
    if n.count == 0 {
        return Vec2::ZERO;
    }
    let centre = n.offset_sum / n.count as f32;
    centre.normalize_or_zero() * params.max_speed - velocity
}

/// Wander: a desired velocity along the fish's own slowly turning phase.
#[inline]
pub fn wander(phase: f32, params: &FlockParams) -> Vec2 {
    Vec2::from_angle(phase) * params.max_speed
}

/// The heading of a fish: its velocity direction, or `fallback` when it is
/// not moving (so a stopped fish still has a defined heading).
#[inline]
pub fn heading(velocity: Vec2, fallback: Vec2) -> Vec2 {
    velocity.try_normalize().unwrap_or(fallback)
}

/// Scales `v` down to length `max` if it is longer; never returns NaN or inf,
/// also for an infinite or NaN input (which becomes zero).
#[inline]
pub fn clamp_length(v: Vec2, max: f32) -> Vec2 {
    if v.is_nan() {
        return Vec2::ZERO;
    }
    let len2 = v.length_squared();
    if !len2.is_finite() {
        // The square overflowed, so the vector is far longer than any
        // admissible limit: keep its direction, rescaled before normalising.
        let scale = v.abs().max_element();
        if !scale.is_finite() {
            return Vec2::ZERO;
        }
        return (v / scale).normalize_or_zero() * max;
    }
    if len2 > max * max { v * (max / len2.sqrt()) } else { v }
}

/// The weighted sum of all rule outputs as an acceleration, before the
/// single clamp to `max_force`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RuleForces {
    /// Separation steering (weighted).
    pub separation: Vec2,
    /// Alignment steering (weighted).
    pub alignment: Vec2,
    /// Cohesion steering (weighted).
    pub cohesion: Vec2,
    /// Wander steering (weighted).
    pub wander: Vec2,
    /// Soft-margin steering (weighted).
    pub boundary: Vec2,
}

impl RuleForces {
    /// Evaluates the three rules and wander for one fish and weights them.
    #[inline]
    pub fn evaluate(n: &Neighbourhood, velocity: Vec2, phase: f32, params: &FlockParams) -> Self {
        Self {
            separation: separation(n, params) * params.separation_weight,
            alignment: alignment(n, velocity, params) * params.alignment_weight,
            cohesion: cohesion(n, velocity, params) * params.cohesion_weight,
            wander: wander(phase, params) * params.wander_weight,
            boundary: Vec2::ZERO,
        }
    }

    /// Sum of all parts, turned into an acceleration (velocity change over
    /// the reaction time). Not yet clamped.
    #[inline]
    pub fn acceleration(&self, params: &FlockParams) -> Vec2 {
        (self.separation + self.alignment + self.cohesion + self.wander + self.boundary)
            / params.reaction_time
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> FlockParams {
        FlockParams::default()
    }

    fn radii2(p: &FlockParams) -> (f32, f32) {
        (p.perception_radius.powi(2), p.separation_radius.powi(2))
    }

    fn hood(offsets: &[(Vec2, Vec2)]) -> Neighbourhood {
        let p = params();
        let mut n = Neighbourhood::default();
        for &(o, v) in offsets {
            n.add(o, o.length_squared(), v, radii2(&p), p.separation_floor, || Vec2::X);
        }
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
        assert_eq!(heading(Vec2::ZERO, Vec2::Y), Vec2::Y);
        assert_eq!(heading(Vec2::new(0.0, -5.0), Vec2::X), Vec2::NEG_Y);
        let h = heading(Vec2::new(1e-30, 0.0), Vec2::Y);
        assert!(h.is_finite());
        // The rules themselves stay finite for a stopped fish.
        let n = hood(&[(Vec2::new(5.0, 0.0), Vec2::ZERO)]);
        let f = RuleForces::evaluate(&n, Vec2::ZERO, 0.0, &params());
        assert!(f.acceleration(&params()).is_finite());
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
    fn separation_at_radius_asks_for_max_speed() {
        let p = params();
        let just_inside = p.separation_radius * 0.999;
        let s = separation(&hood(&[(Vec2::new(0.0, just_inside), Vec2::ZERO)]), &p);
        assert!((s.length() - p.max_speed / 0.999).abs() < 1e-2, "{s}");
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
    fn cohesion_steers_towards_centre_and_is_safe_at_centre() {
        let p = params();
        let n = hood(&[(Vec2::new(30.0, 0.0), Vec2::ZERO), (Vec2::new(30.0, 10.0), Vec2::ZERO)]);
        assert!(cohesion(&n, Vec2::ZERO, &p).x > 0.0);
        let centred = hood(&[(Vec2::new(30.0, 0.0), Vec2::ZERO), (Vec2::new(-30.0, 0.0), Vec2::ZERO)]);
        assert_eq!(cohesion(&centred, Vec2::ZERO, &p), Vec2::ZERO);
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
