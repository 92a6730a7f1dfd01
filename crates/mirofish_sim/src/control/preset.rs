//! Named starting points: four styles of school (gentle cruise, compact
//! rush, loose drift, dense sardines) and the reference start, plus the
//! automatic perception radius.
//!
//! The styles were tuned with speeds per frame and forces per frame² at 60 fps on a
//! 1280 × 720 screen; [`FlockParams::from_per_frame`] converts them.

use glam::Vec2;

use crate::math::Vector;
use crate::world::params::{FlockParams, PerFrame};
use crate::world::tank::{Tank, TankOf};

/// A named school: how many fish, their parameters and their tank.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Preset {
    /// Name, as accepted by [`Preset::by_name`].
    pub name: &'static str,
    /// One line on the look it gives.
    pub description: &'static str,
    /// Fish count.
    pub count: usize,
    /// Parameters.
    pub params: FlockParams,
    /// The tank it was tuned in.
    pub tank: Tank,
}

/// `(name, description, count, perception, separation, speed/frame,
/// force/frame², separation, alignment, cohesion, wander)`: the four styles
/// and the reference start.
const TABLE: [(&str, &str, usize, f32, f32, f32, f32, f32, f32, f32, f32); 5] = [
    ("gentle-cruise", "calm, slow school", 200, 80.0, 26.0, 2.4, 0.06, 1.4, 1.0, 1.1, 0.15),
    ("compact-rush", "tight, fast school", 400, 60.0, 22.0, 3.6, 0.11, 1.8, 1.2, 0.9, 0.20),
    ("loose-drift", "loose, drifting school", 150, 95.0, 24.0, 2.0, 0.05, 1.2, 0.7, 0.6, 0.30),
    ("dense-sardines", "dense bait ball with clear gaps", 800, 45.0, 18.0, 3.0, 0.09, 2.0, 1.1, 1.0, 0.20),
    (
        "reference",
        "the reference start: dense, packs into balls",
        800,
        45.0,
        12.0,
        3.0,
        0.15,
        1.6,
        1.0,
        0.8,
        0.15,
    ),
];

impl Preset {
    /// Every preset: the four styles, then the reference start.
    pub fn all() -> Vec<Preset> {
        TABLE
            .iter()
            .map(|&(name, description, count, perception, separation, speed, force, s, a, c, w)| {
                let params = FlockParams::from_per_frame(PerFrame {
                    perception_radius: perception,
                    separation_radius: separation,
                    max_speed: speed,
                    max_force: force,
                    separation_weight: s,
                    alignment_weight: a,
                    cohesion_weight: c,
                    wander_weight: w,
                });
                // The reference start was tuned in a 1200 × 800 world, the
                // styles on a 1280 × 720 screen.
                let size =
                    if name == "reference" { Vec2::new(1200.0, 800.0) } else { Vec2::new(1280.0, 720.0) };
                Preset { name, description, count, params, tank: Tank::centered(size) }
            })
            .collect()
    }

    /// The preset called `name` (e.g. `"dense-sardines"`), if there is one.
    pub fn by_name(name: &str) -> Option<Preset> {
        Self::all().into_iter().find(|p| p.name == name)
    }

    /// The names of all presets.
    pub fn names() -> Vec<&'static str> {
        TABLE.iter().map(|t| t.0).collect()
    }
}

/// The perception radius at which `count` fish spread over `area` have on
/// average `neighbours` others in range: density × π r² = neighbours
/// (300 fish on 1280 × 720 and 5 neighbours give about 69). Schools
/// contract as they form, so this sets the starting density's neighbour
/// count; 5–8 looks natural.
pub fn auto_perception_radius(count: usize, area: f32, neighbours: f32) -> f32 {
    let density = count.max(1) as f32 / area.max(f32::MIN_POSITIVE);
    (neighbours.max(0.0) / (core::f32::consts::PI * density)).sqrt()
}

/// The mean number of others within `radius` of each of `count` fish
/// spread evenly over `area`: density × π r², the inverse of
/// [`auto_perception_radius`].
pub fn spread_neighbours(count: usize, area: f32, radius: f32) -> f32 {
    count as f32 / area.max(f32::MIN_POSITIVE) * core::f32::consts::PI * radius * radius
}

/// `params` with the perception radius chosen for `count` fish spread over
/// `tank` ([`auto_perception_radius`] on a plane; in a volume density ×
/// 4/3 π r³ = `neighbours`) and the separation radius scaled with it, so
/// the ratio between the two radii is kept.
pub fn with_auto_radius<V: Vector>(
    params: &FlockParams,
    count: usize,
    tank: &TankOf<V>,
    neighbours: f32,
) -> FlockParams {
    let room = tank.size().product();
    let radius = match V::DIM {
        2 => auto_perception_radius(count, room, neighbours),
        _ => {
            let density = count.max(1) as f32 / room.max(f32::MIN_POSITIVE);
            crate::math::root::cbrt(neighbours.max(0.0) / (4.0 / 3.0 * core::f32::consts::PI * density))
        }
    }
    .clamp(1.0e-3, crate::world::params::MAX_LENGTH);
    let ratio = params.separation_radius / params.perception_radius;
    FlockParams { perception_radius: radius, separation_radius: radius * ratio, ..*params }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seeds_table_is_reproduced() {
        let sardines = Preset::by_name("dense-sardines").unwrap();
        assert_eq!(sardines.count, 800);
        assert_eq!(sardines.params.perception_radius, 45.0);
        assert_eq!(sardines.params.separation_radius, 18.0);
        assert!((sardines.params.max_speed - 3.0 * 60.0).abs() < 1e-3);
        assert!((sardines.params.max_force - 0.09 * 3600.0).abs() < 1e-2);
        assert_eq!(sardines.params.separation_weight, 2.0);
        let reference = Preset::by_name("reference").unwrap();
        assert_eq!(reference.params, FlockParams::reference());
        assert!(Preset::by_name("no-such-style").is_none());
        assert_eq!(Preset::names().len(), 5);
        for p in Preset::all() {
            p.params.validate().unwrap();
            p.tank.validate().unwrap();
        }
    }

    #[test]
    fn auto_radius_matches_the_seeds_worked_example() {
        let r = auto_perception_radius(300, 1280.0 * 720.0, 5.0);
        assert!((r - 69.0).abs() < 1.5, "{r}");
        assert!(auto_perception_radius(0, 0.0, 5.0).is_finite());
        assert!((spread_neighbours(300, 1280.0 * 720.0, r) - 5.0).abs() < 1e-3);
    }

    #[test]
    fn auto_radius_in_a_volume_inverts_the_tank_sized_for_it() {
        // A cube sized so that 2,000 fish have 7 neighbours within 45.
        let tank = crate::Tank3d::for_mean_neighbours_3d(2000, 45.0, 7.0);
        let params = FlockParams::default();
        let sized = with_auto_radius(&params, 2000, &tank, 7.0);
        assert!((sized.perception_radius - 45.0).abs() < 0.01, "{}", sized.perception_radius);
        let ratio = params.separation_radius / params.perception_radius;
        assert!((sized.separation_radius / sized.perception_radius - ratio).abs() < 1e-5);
        // Eight times the neighbours, twice the radius (cube root), not √8.
        let wider = with_auto_radius(&params, 2000, &tank, 56.0);
        assert!((wider.perception_radius - 90.0).abs() < 0.02, "{}", wider.perception_radius);
        // On a plane it is the seeds' formula.
        let plane = Tank::centered(Vec2::new(1280.0, 720.0));
        let r = with_auto_radius(&params, 300, &plane, 5.0).perception_radius;
        assert_eq!(r, auto_perception_radius(300, 1280.0 * 720.0, 5.0));
    }
}
