//! The tank: the rectangle the fish live in, and how its walls behave.

use glam::Vec2;

use crate::math::Vector;

use super::params::{MAX_TANK_SIDE, MAX_WEIGHT, ParamError, Range, check};

/// What happens at the walls of the tank.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
pub enum BoundaryMode {
    /// A torus: leaving on one side re-enters on the other, and neighbours
    /// are found across the seam.
    Wrap,
    /// Hard walls: the normal component of the velocity is reversed, with a
    /// little tangential jitter so fish do not line up along the glass.
    Bounce,
    /// An inward steering force that ramps up linearly over a margin near
    /// each wall (it turns fish smoothly instead of lining them along the
    /// glass), backed by a hard wall.
    #[default]
    SoftMargin,
}

/// The longest [`TankOf::look_ahead`] (seconds).
pub const MAX_LOOK_AHEAD: f32 = 10.0;

/// The rectangle fish live in and how its walls behave.
pub type Tank = TankOf<Vec2>;

/// The box fish live in, in three dimensions, and how its walls behave.
pub type Tank3d = TankOf<glam::Vec3>;

/// The rectangle ([`Tank`]) or box ([`Tank3d`]) fish live in and how its
/// walls behave, over the [`Vector`] `V`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct TankOf<V: Vector> {
    /// Lower-left corner (inclusive).
    pub min: V,
    /// Upper-right corner (exclusive).
    pub max: V,
    /// Behaviour at the walls.
    pub boundary: BoundaryMode,
    /// Width of the soft margin as a fraction of the tank's short side
    /// (0.08–0.12 works well).
    pub margin_fraction: f32,
    /// Weight of the soft-margin steering force.
    pub boundary_weight: f32,
    /// How far ahead (seconds) a fish looks for the soft margin: it steers
    /// by where it will be, `position + velocity × look_ahead`, instead of
    /// where it is, so a fish heading for a wall turns before it reaches
    /// the margin and one swimming away from it is let go. 0 (the default)
    /// steers by the position alone.
    pub look_ahead: f32,
}

impl<V: Vector> Default for TankOf<V> {
    /// A 1280 × 720 screen centred on the origin (720 deep in a volume),
    /// soft walls.
    fn default() -> Self {
        Self::centered(V::TANK)
    }
}

impl Tank {
    /// A tank centred on the origin, of aspect `width / height`, sized so
    /// that `count` fish spread uniformly have on average `neighbours`
    /// others within `radius` (density × π r² = neighbours). Benchmarks and
    /// examples use it to keep the density realistic (5–8 neighbours look natural).
    pub fn for_mean_neighbours(count: usize, radius: f32, neighbours: f32, aspect: f32) -> Self {
        let area = count.max(1) as f32 * core::f32::consts::PI * radius * radius / neighbours.max(1e-3);
        let height = (area / aspect).sqrt();
        Self::centered(Vec2::new(height * aspect, height))
    }
}

impl Tank3d {
    /// A cube centred on the origin, sized so that `count` fish spread
    /// uniformly have on average `neighbours` others within `radius`
    /// (density × 4/3 π r³ = neighbours).
    pub fn for_mean_neighbours_3d(count: usize, radius: f32, neighbours: f32) -> Self {
        let ball = 4.0 / 3.0 * core::f32::consts::PI * radius * radius * radius;
        let volume = count.max(1) as f32 * ball / neighbours.max(1e-3);
        Self::centered(glam::Vec3::splat(crate::math::root::cbrt(volume)))
    }
}

impl<V: Vector> TankOf<V> {
    /// A tank of the given size centred on the origin, with soft walls.
    pub fn centered(size: V) -> Self {
        Self {
            min: -size * 0.5,
            max: size * 0.5,
            boundary: BoundaryMode::SoftMargin,
            margin_fraction: 0.1,
            boundary_weight: 1.6,
            look_ahead: 0.0,
        }
    }

    /// Where a fish at `p` moving at `v` steers by at the soft margin: `p`
    /// itself, or with [`TankOf::look_ahead`], where it will be that many
    /// seconds on.
    #[inline]
    pub fn ahead(&self, p: V, v: V) -> V {
        if self.look_ahead > 0.0 { p + v * self.look_ahead } else { p }
    }

    /// The same tank with another boundary mode.
    pub fn with_boundary(mut self, boundary: BoundaryMode) -> Self {
        self.boundary = boundary;
        self
    }

    /// Width and height (and depth).
    pub fn size(&self) -> V {
        self.max - self.min
    }

    /// Width of the soft margin in world units.
    pub fn margin(&self) -> f32 {
        self.size().min_element() * self.margin_fraction
    }

    /// Whether `p` lies inside `[min, max)` on every axis.
    pub fn contains(&self, p: V) -> bool {
        (0..V::DIM).all(|i| p.axis(i) >= self.min.axis(i) && p.axis(i) < self.max.axis(i))
    }

    /// `p` brought inside `[min, max)` axis by axis (a NaN axis to `min`):
    /// where a fish drawn at `p` starts.
    pub fn clamp_inside(&self, p: V) -> V {
        V::from_fn(|i| p.axis(i).max(self.min.axis(i)).min(self.max.axis(i).next_down()))
    }

    /// The corners of the tank.
    pub fn corners(&self) -> impl Iterator<Item = V> + '_ {
        (0..1usize << V::DIM)
            .map(|mask| V::from_fn(|i| if mask >> i & 1 == 1 { self.max.axis(i) } else { self.min.axis(i) }))
    }

    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<(), ParamError> {
        const CORNERS: [[&str; 3]; 2] =
            [["tank.min.x", "tank.min.y", "tank.min.z"], ["tank.max.x", "tank.max.y", "tank.max.z"]];
        const SIDES: [&str; 3] =
            ["tank width (max.x - min.x)", "tank height (max.y - min.y)", "tank depth (max.z - min.z)"];
        for (names, corner) in CORNERS.iter().zip([self.min, self.max]) {
            for (i, field) in names.iter().enumerate().take(V::DIM) {
                check(field, corner.axis(i), Range::Symmetric(MAX_TANK_SIDE))?;
            }
        }
        let size = self.size();
        for (i, field) in SIDES.iter().enumerate().take(V::DIM) {
            check(field, size.axis(i), Range::Positive(MAX_TANK_SIDE))?;
        }
        check("tank.margin_fraction", self.margin_fraction, Range::Closed(0.0, 0.5))?;
        check("tank.boundary_weight", self.boundary_weight, Range::Closed(0.0, MAX_WEIGHT))?;
        check("tank.look_ahead", self.look_ahead, Range::Closed(0.0, MAX_LOOK_AHEAD))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn looking_ahead_steers_by_where_the_fish_will_be() {
        let p = Vec2::new(10.0, -5.0);
        let v = Vec2::new(100.0, 20.0);
        assert_eq!(Tank::default().ahead(p, v), p);
        let ahead = Tank { look_ahead: 0.5, ..Tank::default() };
        assert_eq!(ahead.ahead(p, v), Vec2::new(60.0, 5.0));
        ahead.validate().unwrap();
        for bad in [-0.1, f32::NAN, f32::INFINITY, MAX_LOOK_AHEAD * 2.0] {
            let tank = Tank { look_ahead: bad, ..Tank::default() };
            assert_eq!(tank.validate().unwrap_err().field, "tank.look_ahead", "{bad}");
        }
    }

    use super::*;

    #[test]
    fn the_default_tank_is_valid() {
        Tank::default().validate().unwrap();
    }

    #[test]
    fn a_point_is_clamped_inside_the_tank_on_every_axis() {
        let tank = Tank3d::centered(glam::Vec3::new(100.0, 60.0, 40.0));
        let inside = glam::Vec3::new(3.0, -4.0, 5.0);
        assert_eq!(tank.clamp_inside(inside), inside);
        for p in [glam::Vec3::splat(1e30), glam::Vec3::splat(-1e30), glam::Vec3::NAN, tank.max] {
            let q = tank.clamp_inside(p);
            assert!(tank.contains(q), "{p} -> {q}");
        }
        assert_eq!(tank.clamp_inside(glam::Vec3::new(f32::NAN, 0.0, 99.0)).x, tank.min.x);
    }

    #[test]
    fn density_sizing_gives_the_asked_neighbour_count() {
        let t = Tank::for_mean_neighbours(1000, 45.0, 6.5, 16.0 / 9.0);
        let density = 1000.0 / (t.size().x * t.size().y);
        let expected = density * core::f32::consts::PI * 45.0 * 45.0;
        assert!((expected - 6.5).abs() < 1e-3, "{expected}");
        assert!((t.size().x / t.size().y - 16.0 / 9.0).abs() < 1e-4);
        t.validate().unwrap();
    }

    #[test]
    fn tank_errors_name_the_field() {
        let mut t = Tank::default();
        t.max.x = t.min.x;
        assert!(t.validate().unwrap_err().field.contains("width"));
        let mut t = Tank::default();
        t.min.y = f32::NAN;
        assert_eq!(t.validate().unwrap_err().field, "tank.min.y");
        let t = Tank { margin_fraction: 0.9, ..Tank::default() };
        assert_eq!(t.validate().unwrap_err().field, "tank.margin_fraction");
    }
}
