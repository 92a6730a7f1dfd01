//! The field of view and neighbour weighting, as pure functions.
//!
//! A fish does not see straight behind itself: neighbours in the blind spot
//! take no part in alignment and cohesion. (Separation stays all-round: a
//! fish feels a neighbour brushing its tail through its lateral line.) Seen
//! neighbours may also count differently: by where they are (front, side,
//! back), by how far they are, and by whether they are a leader.
//!
//! The angle test needs no trigonometry per pair: `cos θ ≥ c` is checked on
//! squares. The force kernel evaluates it together with the distance mask
//! (branch-free), and only for schools whose view is not all-round.

#[cfg(test)]
use glam::Vec2;

use crate::math::Vector;
use crate::world::params::FlockParams;

/// Half-width of the front zone: neighbours within ±45° of the heading.
pub const FRONT_HALF_ANGLE: f32 = core::f32::consts::FRAC_PI_4;
/// Half-width of front plus side: beyond ±135° a neighbour is behind.
pub const SIDE_HALF_ANGLE: f32 = 3.0 * core::f32::consts::FRAC_PI_4;
/// The cosines of the two half-widths, as numbers: the same bits on every
/// platform, where the C library's cosine may differ in its last bit.
const FRONT_COS: f32 = core::f32::consts::FRAC_1_SQRT_2;
const SIDE_COS: f32 = -core::f32::consts::FRAC_1_SQRT_2;

/// A school's view, precomputed once per tick from its parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    /// Cosine of half the view angle.
    cos_half: f32,
    /// Whether the view is a full circle (no blind spot).
    all_round: bool,
    /// Whether any weight differs from 1 (else the plain, faster scan runs).
    shaped: bool,
    front: f32,
    side: f32,
    back: f32,
    falloff: f32,
    inv_radius: f32,
    leader: f32,
}

impl View {
    /// The view of a school with these parameters.
    pub fn new(params: &FlockParams) -> Self {
        // 360° typed in degrees may land a rounding step below 2π.
        let all_round = params.view_angle >= core::f32::consts::TAU * (1.0 - 1.0e-6);
        // The leader weight only matters where there are leaders; the flock
        // knows that, and adds it to `is_shaped`.
        let weighted = params.front_weight != 1.0
            || params.side_weight != 1.0
            || params.back_weight != 1.0
            || params.distance_falloff != 0.0;
        Self {
            cos_half: crate::math::angle::sin_cos(params.view_angle * 0.5).1,
            all_round,
            shaped: weighted || !all_round,
            front: params.front_weight,
            side: params.side_weight,
            back: params.back_weight,
            falloff: params.distance_falloff,
            inv_radius: 1.0 / params.perception_radius,
            leader: params.leader_weight,
        }
    }

    /// Whether neighbours need the per-pair angle and weight because of the
    /// view angle or the zone and distance weights (false: every neighbour
    /// in range counts once, unless leaders are present).
    pub fn is_shaped(&self) -> bool {
        self.shaped
    }

    /// Whether a neighbour at `offset` (squared length `d2`) is inside the
    /// view of a fish heading along the unit vector `heading`. A neighbour
    /// on top of the fish (`d2 = 0`) is seen.
    #[inline]
    pub fn sees<V: Vector>(&self, heading: V, offset: V, d2: f32) -> bool {
        if self.all_round {
            return true;
        }
        // cos θ = t / |d| ≥ c, without the square root: compare squares with
        // care for the signs.
        let t = heading.dot(offset);
        let c = self.cos_half;
        let rhs = c * c * d2;
        if c >= 0.0 { t >= 0.0 && t * t >= rhs } else { t >= 0.0 || t * t <= rhs }
    }

    /// How much a seen neighbour at `offset`, at distance `dist`, counts
    /// towards alignment and cohesion: its zone's weight (front / side /
    /// back), times the distance falloff, times the leader weight if it
    /// leads. Never negative.
    #[inline]
    pub fn weight<V: Vector>(&self, heading: V, offset: V, dist: f32, is_leader: bool) -> f32 {
        let cos = if dist > 0.0 { heading.dot(offset) / dist } else { 1.0 };
        let zone = if cos >= FRONT_COS {
            self.front
        } else if cos >= SIDE_COS {
            self.side
        } else {
            self.back
        };
        let near = (1.0 - self.falloff * dist * self.inv_radius).max(0.0);
        let lead = if is_leader { self.leader } else { 1.0 };
        zone * near * lead
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(angle_deg: f32) -> View {
        View::new(&FlockParams { view_angle: angle_deg.to_radians(), ..FlockParams::default() })
    }

    #[test]
    fn behind_is_blind_in_front_is_seen() {
        let v = view(300.0);
        let h = Vec2::X;
        let behind = Vec2::new(-10.0, 0.0);
        let front = Vec2::new(10.0, 0.0);
        let side = Vec2::new(0.0, 10.0);
        assert!(!v.sees(h, behind, behind.length_squared()));
        assert!(v.sees(h, front, front.length_squared()));
        assert!(v.sees(h, side, side.length_squared()));
        // Just outside and just inside the 300° view (blind spot ±30°).
        let edge_out = Vec2::from_angle(175f32.to_radians()) * 10.0;
        let edge_in = Vec2::from_angle(145f32.to_radians()) * 10.0;
        assert!(!v.sees(h, edge_out, 100.0));
        assert!(v.sees(h, edge_in, 100.0));
    }

    #[test]
    fn narrow_views_see_only_ahead() {
        let v = view(90.0);
        let h = Vec2::Y;
        assert!(v.sees(h, Vec2::new(0.0, 5.0), 25.0));
        assert!(v.sees(h, Vec2::new(4.0, 5.0), 41.0));
        assert!(!v.sees(h, Vec2::new(5.0, 0.0), 25.0));
        assert!(!v.sees(h, Vec2::new(0.0, -5.0), 25.0));
    }

    #[test]
    fn full_circle_sees_everything_and_coincident_fish_are_seen() {
        let v = view(360.0);
        assert!(v.sees(Vec2::X, Vec2::new(-3.0, 0.0), 9.0));
        assert!(!v.is_shaped());
        assert!(view(300.0).sees(Vec2::X, Vec2::ZERO, 0.0));
    }

    #[test]
    fn zone_distance_and_leader_weights() {
        let p = FlockParams {
            front_weight: 1.0,
            side_weight: 0.5,
            back_weight: 0.2,
            distance_falloff: 0.5,
            leader_weight: 3.0,
            ..FlockParams::default()
        };
        let v = View::new(&p);
        let h = Vec2::X;
        assert_eq!(v.weight(h, Vec2::new(1e-3, 0.0), 1e-3, false), 1.0 * (1.0 - 0.5 * 1e-3 / 45.0));
        let side = v.weight(h, Vec2::new(0.0, 45.0), 45.0, false);
        assert!((side - 0.5 * 0.5).abs() < 1e-6, "{side}");
        let back = v.weight(h, Vec2::new(-10.0, 0.0), 10.0, true);
        assert!((back - 0.2 * (1.0 - 0.5 * 10.0 / 45.0) * 3.0).abs() < 1e-6, "{back}");
        assert!(v.weight(h, Vec2::ZERO, 0.0, false).is_finite());
    }

    #[test]
    fn the_zones_cosines_are_those_of_their_angles() {
        for (angle, cos) in [(FRONT_HALF_ANGLE, FRONT_COS), (SIDE_HALF_ANGLE, SIDE_COS)] {
            assert!((f64::from(angle).cos() - f64::from(cos)).abs() < 1e-7, "{angle}");
            assert!((crate::math::angle::sin_cos(angle).1 - cos).abs() <= f32::EPSILON, "{angle}");
        }
    }
}
