//! Couzin's zone model of collective motion (Couzin, Krause, James,
//! Ruxton and Franks, 2002, "Collective memory and spatial sorting in
//! animal groups"), as an alternative to the weighted rules.
//!
//! Each fish swims at one constant speed and turns at a bounded rate. It
//! sees three nested zones: within the zone of **repulsion** it turns away
//! from the neighbours there and ignores everything else; otherwise it
//! heads along the mean of the headings in the zone of **orientation** and
//! the directions towards the neighbours in the zone of **attraction**
//! beyond it (the two averaged when both hold fish). A blind angle behind
//! it, and a little angular noise, complete the model.
//!
//! With the attraction zone wide, the orientation zone's width alone walks
//! a school through four states: a swarm (no orientation zone), a torus
//! (narrow: the fish mill round an empty core), a dynamic parallel group
//! and a highly parallel one (wide). Going back from parallel the school
//! stays parallel well below the width at which a torus turned parallel:
//! the model's collective memory.

use crate::math::Vector;
use crate::math::angle::sin_cos;
use crate::rules::motion::turn_at_most;
pub use crate::world::zones::{DEFAULT_ZONE_NEIGHBOUR_CAP, MAX_ZONE_NEIGHBOUR_CAP, Zones};

/// The four states of a school Couzin et al. name, told apart by its two
/// order parameters: polarization (how aligned the headings are) and
/// milling (the group's normalised angular momentum about its centre).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CollectiveState {
    /// Neither aligned nor turning together (polarization below 0.6,
    /// milling below 0.5).
    Swarm,
    /// Milling round an empty core (milling 0.5 or more).
    Torus,
    /// Aligned but loosely (polarization 0.6 up to 0.97).
    DynamicParallel,
    /// Aligned almost perfectly (polarization 0.97 or more).
    HighlyParallel,
}

impl CollectiveState {
    /// The state `polarization` and `milling` (each 0–1) name; a value
    /// that is not a number counts as 0.
    pub fn classify(polarization: f64, milling: f64) -> Self {
        let (p, m) = (polarization.max(0.0), milling.max(0.0));
        if m >= 0.5 {
            Self::Torus
        } else if p >= 0.97 {
            Self::HighlyParallel
        } else if p >= 0.6 {
            Self::DynamicParallel
        } else {
            Self::Swarm
        }
    }

    /// The state's name, as the paper writes it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Swarm => "swarm",
            Self::Torus => "torus",
            Self::DynamicParallel => "dynamic parallel",
            Self::HighlyParallel => "highly parallel",
        }
    }
}

/// What one fish gathered from its zones: sums of unit vectors.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ZoneSums<V: Vector> {
    /// Neighbours in the zone of repulsion, and the sum of the unit
    /// directions towards them.
    pub repelled: (u32, V),
    /// Neighbours in the zone of orientation, and the sum of their headings.
    pub oriented: (u32, V),
    /// Neighbours in the zone of attraction, and the sum of the unit
    /// directions towards them.
    pub attracted: (u32, V),
}

impl<V: Vector> ZoneSums<V> {
    /// Adds a neighbour at `offset` (squared distance `d2`) heading along
    /// the unit vector `heading`, if the fish looking along `own` sees it
    /// (`cos_half_view`: the cosine of half the field of view).
    #[inline]
    pub fn add(&mut self, zones: &Zones, own: V, cos_half_view: f32, offset: V, d2: f32, heading: V) {
        let reach = zones.reach();
        if d2 >= reach * reach || d2 <= 0.0 {
            return;
        }
        let d = d2.sqrt();
        let towards = offset / d;
        if towards.dot(own) < cos_half_view {
            return;
        }
        if d < zones.repulsion {
            self.repelled.0 += 1;
            self.repelled.1 += towards;
        } else if d < zones.orientation() {
            self.oriented.0 += 1;
            self.oriented.1 += heading;
        } else {
            self.attracted.0 += 1;
            self.attracted.1 += towards;
        }
    }

    /// The direction the fish wishes to head along (a unit vector), or
    /// `None` when it sees nobody and keeps its heading. Repulsion, when
    /// any, is all that counts; otherwise orientation (its own heading
    /// included, as in the paper) and attraction, averaged when both hold
    /// fish.
    pub fn wish(&self, own: V) -> Option<V> {
        if self.repelled.0 > 0 {
            return (-self.repelled.1).try_normalize();
        }
        let orient = (self.oriented.0 > 0).then(|| (self.oriented.1 + own).try_normalize()).flatten();
        let attract = (self.attracted.0 > 0).then(|| self.attracted.1.try_normalize()).flatten();
        match (orient, attract) {
            (Some(o), Some(a)) => ((o + a) * 0.5).try_normalize().or(Some(o)),
            (o, a) => o.or(a),
        }
    }
}

/// Turns the unit heading `from` towards the unit vector `to` by at most
/// `max_angle` radians, in the plane the two span. A wish straight behind
/// turns the fish towards the axis that is least aligned with it. The
/// angle's sine and cosine are [`crate::math::angle`]'s, so the turn has
/// the same bits on every platform.
pub fn turn_towards<V: Vector>(from: V, to: V, max_angle: f32) -> V {
    let (sin, cos) = sin_cos(max_angle.clamp(0.0, core::f32::consts::PI));
    let turned = turn_at_most(from, to, (cos, sin));
    turned.try_normalize().unwrap_or(from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Vec2, Vec3};

    fn zones() -> Zones {
        Zones::default()
    }

    #[test]
    fn repulsion_overrides_everything_else() {
        let z = zones();
        let mut sums = ZoneSums::default();
        let own = Vec3::X;
        let cos = (z.field_of_view * 0.5).cos();
        sums.add(&z, own, cos, Vec3::new(5.0, 0.0, 0.0), 25.0, Vec3::Y);
        sums.add(&z, own, cos, Vec3::new(0.0, 20.0, 0.0), 400.0, Vec3::Z);
        sums.add(&z, own, cos, Vec3::new(0.0, 0.0, 100.0), 1.0e4, Vec3::Z);
        assert_eq!(sums.repelled.0, 1);
        assert_eq!(sums.wish(own), Some(-Vec3::X));
    }

    #[test]
    fn orientation_and_attraction_average_and_the_blind_angle_hides() {
        let z = zones();
        let own = Vec2::X;
        let cos = (z.field_of_view * 0.5).cos();
        let mut sums = ZoneSums::default();
        // Oriented along +Y, a fish to attract along +Y as well.
        sums.add(&z, own, cos, Vec2::new(15.0, 10.0), 325.0, Vec2::Y);
        sums.add(&z, own, cos, Vec2::new(0.0, 100.0), 1.0e4, Vec2::Y);
        // Straight behind: blind.
        sums.add(&z, own, cos, Vec2::new(-50.0, 0.0), 2500.0, -Vec2::X);
        assert_eq!((sums.oriented.0, sums.attracted.0, sums.repelled.0), (1, 1, 0));
        let wish = sums.wish(own).unwrap();
        assert!(wish.y > 0.0 && wish.x > 0.0 && (wish.length() - 1.0).abs() < 1e-5, "{wish}");
        assert_eq!(ZoneSums::<Vec2>::default().wish(own), None);
    }

    #[test]
    fn turning_is_bounded_and_lands_on_the_wish_when_close() {
        let turned = turn_towards(Vec3::X, Vec3::Y, 0.1);
        assert!((turned.dot(Vec3::X) - 0.1f32.cos()).abs() < 1e-5 && turned.z.abs() < 1e-6, "{turned}");
        let near = Vec3::new(1.0, 0.05, 0.0).normalize();
        assert_eq!(turn_towards(Vec3::X, near, 0.1), near);
        // Straight behind: still a unit vector, turned by the bound.
        let back = turn_towards(Vec2::X, -Vec2::X, 0.2);
        assert!((back.length() - 1.0).abs() < 1e-5 && (back.dot(Vec2::X) - 0.2f32.cos()).abs() < 1e-5);
    }

    #[test]
    fn the_four_states_by_their_order_parameters() {
        assert_eq!(CollectiveState::classify(0.1, 0.9), CollectiveState::Torus);
        assert_eq!(CollectiveState::classify(0.99, 0.0), CollectiveState::HighlyParallel);
        assert_eq!(CollectiveState::classify(0.9, 0.0), CollectiveState::DynamicParallel);
        assert_eq!(CollectiveState::classify(0.1, 0.1), CollectiveState::Swarm);
        assert_eq!(CollectiveState::classify(f64::NAN, f64::NAN), CollectiveState::Swarm);
        assert_eq!(CollectiveState::DynamicParallel.name(), "dynamic parallel");
    }

    #[test]
    fn bad_zones_are_refused_with_the_field_named() {
        assert_eq!(Zones { speed: -1.0, ..zones() }.validate().unwrap_err().field, "zones.speed");
        assert_eq!(Zones { noise: f32::NAN, ..zones() }.validate().unwrap_err().field, "zones.noise");
        assert_eq!(
            Zones { neighbour_cap: 0, ..zones() }.validate().unwrap_err().field,
            "zones.neighbour_cap"
        );
        zones().validate().unwrap();
    }
}
