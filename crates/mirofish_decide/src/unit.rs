//! Decision units: what a unit of fish is told about itself and its
//! surroundings before it decides, computed from the flock in one pass.
//!
//! A unit is a group of the flock (see `mirofish_sim::space::Swarm::groups`); its
//! *representative* is the fish nearest the unit's centroid: the one that
//! is asked, on the unit's behalf. Units are described on a plane and in a
//! volume alike; a volume's words add up and down.

use core::fmt::Write;

use mirofish_sim::space::Swarm;
use mirofish_sim::{Scene, TankOf, Vec2, Vector};

use crate::intent::Intent;
use crate::region::{Region, Regions};

/// The fish a decision layer reads: a school of the engine ([`Swarm`]: a
/// plane's `Simulation`, a volume's `Flock3d`).
pub trait Population<V: Vector> {
    /// The tick about to run.
    fn tick(&self) -> u64;
    /// Each fish's id, by slot.
    fn ids(&self) -> &[u32];
    /// Each fish's position, by slot.
    fn positions(&self) -> &[V];
    /// Each fish's velocity, by slot.
    fn velocities(&self) -> &[V];
    /// Whether each fish leads, by slot.
    fn leaders(&self) -> &[bool];
    /// Each fish's school, by slot.
    fn schools(&self) -> &[u16];
    /// Each fish's group, by id (`NO_GROUP`: none; may be shorter than the
    /// ids: no group).
    fn groups(&self) -> &[u16];
}

impl<V: Vector> Population<V> for Swarm<V> {
    fn tick(&self) -> u64 {
        Swarm::tick(self)
    }
    fn ids(&self) -> &[u32] {
        Swarm::ids(self)
    }
    fn positions(&self) -> &[V] {
        Swarm::positions(self)
    }
    fn velocities(&self) -> &[V] {
        Swarm::velocities(self)
    }
    fn leaders(&self) -> &[bool] {
        Swarm::leaders(self)
    }
    fn schools(&self) -> &[u16] {
        Swarm::schools(self)
    }
    fn groups(&self) -> &[u16] {
        Swarm::groups(self)
    }
}

/// A predator a unit sees.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Threat<V: Vector = Vec2> {
    /// Its index in the scene's predators.
    pub predator: usize,
    /// Where it is.
    pub position: V,
    /// How far from the unit's centroid.
    pub distance: f32,
}

/// Another school near a unit.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct OtherSchool<V: Vector = Vec2> {
    /// The school.
    pub school: u16,
    /// Its centre.
    pub centre: V,
    /// How far its centre is from the unit's centroid.
    pub distance: f32,
}

/// A compact description of one unit: what a decider is given.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct UnitView<V: Vector = Vec2> {
    /// The unit's number (its group is the layer's first group plus this).
    pub unit: u16,
    /// The school of its representative.
    pub school: u16,
    /// Fish in the unit.
    pub fish: usize,
    /// Leaders among them.
    pub leaders: usize,
    /// The representative's id: the fish nearest the centroid.
    pub representative: u32,
    /// Mean position.
    pub centroid: V,
    /// Direction of the mean velocity (zero if the fish cancel out).
    pub heading: V,
    /// Length of the mean velocity (world units per second).
    pub speed: f32,
    /// Root-mean-square distance of the fish from the centroid.
    pub spread: f32,
    /// The region of the tank the centroid is in.
    pub region: Region,
    /// Predators within the layer's notice range, nearest first.
    pub threats: Vec<Threat<V>>,
    /// Where the unit could hide: beside the rock nearest it, on the far
    /// side from the nearest threat (or from the unit), if there is a rock.
    pub cover: Option<V>,
    /// Centre of the unit's school.
    pub school_centre: V,
    /// The other schools' centres within the notice range, nearest first.
    pub other_schools: Vec<OtherSchool<V>>,
    /// What the unit intends now, if it has decided before.
    pub intent: Option<Intent>,
    /// How long, in seconds, the decision will stand: the unit's period
    /// (0: not known; [`DecisionLayer`](crate::DecisionLayer) sets it).
    pub horizon_s: f32,
}

/// Running sums of one unit or school.
#[derive(Clone, Copy, Debug, Default)]
struct Sums<V: Vector> {
    fish: usize,
    leaders: usize,
    position: V,
    velocity: V,
    square: f32,
}

impl<V: Vector> Sums<V> {
    fn centre(&self) -> V {
        self.position / self.fish.max(1) as f32
    }
}

/// Describes the units `first..first + units` of `flock` (fish whose group
/// lies there), in unit order; a unit without fish is `None`. Predators
/// and other schools beyond `notice` are left out; each unit's region is
/// named from `regions`.
pub fn describe_units<V: Vector>(
    flock: &impl Population<V>,
    (tank, scene, regions): (&TankOf<V>, &Scene<V>, &Regions<V>),
    (first, units): (u16, u16),
    notice: f32,
) -> Vec<Option<UnitView<V>>> {
    let n = usize::from(units);
    let mut unit_sums = vec![Sums::<V>::default(); n];
    let mut school_sums: Vec<Sums<V>> = Vec::new();
    let groups = flock.groups();
    let (ids, positions, velocities) = (flock.ids(), flock.positions(), flock.velocities());
    let (leaders, schools) = (flock.leaders(), flock.schools());
    let unit_of = |slot: usize| {
        let g = *groups.get(ids[slot] as usize)?;
        let k = usize::from(g.checked_sub(first)?);
        (k < n).then_some(k)
    };
    let len = ids.len().min(positions.len()).min(velocities.len()).min(leaders.len()).min(schools.len());
    for slot in 0..len {
        let (p, school) = (positions[slot], schools[slot]);
        if school_sums.len() <= usize::from(school) {
            school_sums.resize(usize::from(school) + 1, Sums::default());
        }
        let s = &mut school_sums[usize::from(school)];
        s.fish += 1;
        s.position += p;
        if let Some(k) = unit_of(slot) {
            let u = &mut unit_sums[k];
            u.fish += 1;
            u.leaders += usize::from(leaders[slot]);
            u.position += p;
            u.velocity += velocities[slot];
            u.square += p.length_squared();
        }
    }
    // The representative: the fish nearest its unit's centroid (ties: the
    // lower id, so the choice does not depend on the slots' order). A unit
    // mixing schools is described as its representative's school.
    let centres: Vec<V> = unit_sums.iter().map(Sums::centre).collect();
    let mut nearest: Vec<Option<(f32, u32, u16)>> = vec![None; n];
    for slot in 0..len {
        if let Some(k) = unit_of(slot) {
            let candidate = (positions[slot].distance_squared(centres[k]), ids[slot], schools[slot]);
            if nearest[k]
                .is_none_or(|best| candidate.0.total_cmp(&best.0).then(candidate.1.cmp(&best.1)).is_lt())
            {
                nearest[k] = Some(candidate);
            }
        }
    }
    unit_sums
        .iter()
        .zip(nearest)
        .enumerate()
        .map(|(k, (u, rep))| {
            let (_, representative, school) = rep?;
            let centroid = centres[k];
            let mean_velocity = u.velocity / u.fish as f32;
            let variance = (u.square / u.fish as f32 - centroid.length_squared()).max(0.0);
            let mut threats: Vec<Threat<V>> = scene
                .predators
                .iter()
                .enumerate()
                .map(|(predator, p)| Threat {
                    predator,
                    position: p.position,
                    distance: p.position.distance_squared(centroid).sqrt(),
                })
                .filter(|t| t.distance <= notice)
                .collect();
            threats.sort_by(|a, b| a.distance.total_cmp(&b.distance).then(a.predator.cmp(&b.predator)));
            let danger = threats.first().map_or(centroid, |t| t.position);
            let cover = scene
                .obstacles
                .iter()
                .min_by(|a, b| {
                    let gap =
                        |o: &mirofish_sim::Obstacle<V>| o.centre.distance_squared(centroid).sqrt() - o.radius;
                    gap(a).total_cmp(&gap(b))
                })
                .map(|o| {
                    let away = (o.centre - danger).try_normalize().unwrap_or(V::X);
                    o.centre + away * (o.radius * 1.3 + 20.0)
                });
            let school_centre = school_sums.get(usize::from(school)).map_or(centroid, Sums::centre);
            let mut other_schools: Vec<OtherSchool<V>> = school_sums
                .iter()
                .enumerate()
                .filter(|(s, sums)| *s != usize::from(school) && sums.fish > 0)
                .map(|(s, sums)| OtherSchool {
                    school: s as u16,
                    centre: sums.centre(),
                    distance: sums.centre().distance_squared(centroid).sqrt(),
                })
                .filter(|o| o.distance <= notice)
                .collect();
            other_schools.sort_by(|a, b| a.distance.total_cmp(&b.distance));
            Some(UnitView {
                unit: k as u16,
                school,
                fish: u.fish,
                leaders: u.leaders,
                representative,
                centroid,
                heading: mean_velocity.try_normalize().unwrap_or(V::ZERO),
                speed: mean_velocity.length(),
                spread: variance.sqrt(),
                region: regions.of(centroid, tank),
                threats,
                cover,
                school_centre,
                other_schools,
                intent: None,
                horizon_s: 0.0,
            })
        })
        .collect()
}

/// The eighth of a turn `v` points in (0 east, 2 north, … 7 south-east),
/// or `None` for a vector too short (or not finite) to point anywhere.
pub fn octant(v: Vec2) -> Option<u8> {
    if v.length_squared() < 1.0e-12 || !v.is_finite() {
        return None;
    }
    Some(((v.y.atan2(v.x) / core::f32::consts::FRAC_PI_4).round().rem_euclid(8.0) as u8).min(7))
}

/// The compass direction of `v` (`y` up is north), or "nowhere".
pub fn compass(v: Vec2) -> &'static str {
    octant(v).map_or("nowhere", |k| COMPASS[usize::from(k)])
}

const COMPASS: [&str; 8] =
    ["east", "north-east", "north", "north-west", "west", "south-west", "south", "south-east"];

/// sin 22.5°: a direction within this share of its length of an axis
/// points along it.
const SIN_EIGHTH: f32 = 0.382_683_43;

/// Where `v` points, as a compass octant over the ground (on a plane `v`
/// itself, `y` north; in a volume its `x` east and `−z` north: north is
/// the back of the tank, away from the viewer; `None` if it points nowhere
/// or straight up or down) and a tier (0 level, 1 up, 2 down; a volume's
/// `v` points up or down when more than sin 22.5° of it is vertical).
pub fn direction<V: Vector>(v: V) -> (Option<u8>, u8) {
    if V::DIM < 3 {
        return (octant(Vec2::new(v.axis(0), v.axis(1))), 0);
    }
    let ground = Vec2::new(v.axis(0), -v.axis(2));
    let (up, length) = (v.axis(1), v.length());
    if !(v.is_finite() && length > 1.0e-6) {
        return (None, 0);
    }
    let tier = if up.abs() <= length * SIN_EIGHTH {
        0
    } else if up > 0.0 {
        1
    } else {
        2
    };
    let octant = if ground.length() < length * SIN_EIGHTH { None } else { octant(ground) };
    (octant, tier)
}

/// Where `v` points, as one number for the decision cache: the octant (8:
/// none) plus nine times the tier ([`direction`]); on a plane the octant
/// alone.
pub fn heading_code<V: Vector>(v: V) -> u8 {
    let (octant, tier) = direction(v);
    octant.unwrap_or(8) + 9 * tier
}

/// The way `v` points, in words: "north-east", in a volume also "north-east
/// and up" or "up"; "nowhere".
pub fn heading_in_words<V: Vector>(v: V) -> String {
    match direction(v) {
        (Some(k), 0) => COMPASS[usize::from(k)].to_string(),
        (Some(k), tier) => {
            format!("{} and {}", COMPASS[usize::from(k)], if tier == 1 { "up" } else { "down" })
        }
        (None, 1) => "up".into(),
        (None, 2) => "down".into(),
        (None, _) => "nowhere".into(),
    }
}

/// Where something `offset` away lies, in words: "to the south", in a
/// volume also "to the south, above" or "straight below"; "here".
pub fn bearing_in_words<V: Vector>(offset: V) -> String {
    match direction(offset) {
        (Some(k), 0) => format!("to the {}", COMPASS[usize::from(k)]),
        (Some(k), tier) => {
            format!("to the {}, {}", COMPASS[usize::from(k)], if tier == 1 { "above" } else { "below" })
        }
        (None, 1) => "straight above".into(),
        (None, 2) => "straight below".into(),
        (None, _) => "here".into(),
    }
}

impl<V: Vector> UnitView<V> {
    /// The unit in plain words: what a language model is told.
    pub fn in_words(&self) -> String {
        let mut s = String::new();
        let lead = if self.leaders > 0 { format!(" ({} leaders)", self.leaders) } else { String::new() };
        let _ = writeln!(
            s,
            "You speak for a unit of {} fish{lead} of school {}, in the {} of the tank.",
            self.fish, self.school, self.region
        );
        let _ = writeln!(
            s,
            "It swims {} at {:.0} units/s, spread over about {:.0} units.",
            heading_in_words(self.heading),
            self.speed,
            self.spread
        );
        if self.threats.is_empty() {
            let _ = writeln!(s, "Threats: none in sight.");
        }
        for (k, t) in self.threats.iter().enumerate() {
            let _ = writeln!(
                s,
                "Threat {k}: a predator {:.0} units {}.",
                t.distance,
                bearing_in_words(t.position - self.centroid)
            );
        }
        match self.cover {
            Some(c) => {
                let _ = writeln!(
                    s,
                    "Cover: a rock {:.0} units {}.",
                    c.distance_squared(self.centroid).sqrt(),
                    bearing_in_words(c - self.centroid)
                );
            }
            None => {
                let _ = writeln!(s, "Cover: none.");
            }
        }
        for o in &self.other_schools {
            let _ = writeln!(
                s,
                "School {}: {:.0} units {}.",
                o.school,
                o.distance,
                bearing_in_words(o.centre - self.centroid)
            );
        }
        let _ = match self.intent {
            Some(i) => writeln!(s, "Current intent: {i}."),
            None => writeln!(s, "Current intent: none yet."),
        };
        if self.horizon_s > 0.0 {
            let _ = writeln!(s, "You will be asked again in about {:.0} seconds.", self.horizon_s);
        }
        s
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use mirofish_sim::{FlockParams, Obstacle, Predator, Simulation, Tank, Vec3};

    /// A unit of 100 fish at `at`, alone, heading along the first axis.
    pub(crate) fn plain_view<V: Vector>(at: V) -> UnitView<V> {
        UnitView {
            unit: 0,
            school: 0,
            fish: 100,
            leaders: 0,
            representative: 0,
            centroid: at,
            heading: V::X,
            speed: 80.0,
            spread: 40.0,
            region: Region::CENTRE,
            threats: Vec::new(),
            cover: None,
            school_centre: at,
            other_schools: Vec::new(),
            intent: None,
            horizon_s: 0.0,
        }
    }

    #[test]
    fn a_unit_is_summed_and_described() {
        let tank = Tank::centered(Vec2::new(600.0, 300.0));
        // The fish's own tank holds every fish; the units are described in `tank`.
        let room = Tank::centered(Vec2::new(2000.0, 1000.0));
        let mut flock = Simulation::new(FlockParams::default(), room, 0, 1).unwrap();
        // Unit 0: four fish round (-400, 150) swimming east; one of them leads.
        for (k, d) in [Vec2::X, -Vec2::X, Vec2::Y, -Vec2::Y].into_iter().enumerate() {
            let id =
                flock.add_fish(0, Vec2::new(-400.0, 150.0) + d * 10.0, Vec2::new(80.0, 0.0), 0.0).unwrap();
            flock.set_group(id, Some(5));
            flock.set_leader(id, k == 0).unwrap();
        }
        // And one at the centre, the representative.
        let rep = flock.add_fish(0, Vec2::new(-400.0, 150.0), Vec2::new(80.0, 0.0), 0.0).unwrap();
        flock.set_group(rep, Some(5));
        // A fish of no unit.
        flock.add_fish(0, Vec2::new(500.0, -200.0), Vec2::ZERO, 0.0).unwrap();
        let scene = Scene {
            predators: vec![Predator::new(Vec2::new(-400.0, -50.0), 100.0), Predator::new(Vec2::ZERO, 1.0)],
            obstacles: vec![Obstacle { centre: Vec2::new(-200.0, 150.0), radius: 40.0 }],
            ..Scene::default()
        };
        let views = describe_units(&flock, (&tank, &scene, &Regions::default()), (4, 3), 300.0);
        assert_eq!(views.len(), 3);
        assert!(views[0].is_none() && views[2].is_none());
        let u = views[1].clone().unwrap();
        assert_eq!((u.unit, u.fish, u.leaders, u.representative), (1, 5, 1, rep));
        assert!(u.centroid.distance(Vec2::new(-400.0, 150.0)) < 1e-3);
        assert_eq!(u.heading, Vec2::X);
        assert!((u.spread - (4.0f32 * 100.0 / 5.0).sqrt()).abs() < 1e-2, "{}", u.spread);
        assert_eq!(u.region, Region::TOP_LEFT);
        assert_eq!(u.threats.len(), 1, "the second predator is out of notice");
        assert_eq!(u.threats[0].predator, 0);
        // Cover beside the rock, on its side away from the predator.
        let cover = u.cover.unwrap();
        assert!(
            cover.distance(Vec2::new(-400.0, -50.0))
                > Vec2::new(-200.0, 150.0).distance(Vec2::new(-400.0, -50.0))
        );
        let words = u.in_words();
        assert!(words.contains("5 fish (1 leaders)") && words.contains("top left"), "{words}");
        assert!(words.contains("Threat 0: a predator 200 units to the south."), "{words}");
    }

    /// A unit mixing two schools is described as its representative's
    /// school, whatever school its last fish is of; its school centre and
    /// the other schools follow.
    #[test]
    fn a_mixed_unit_is_of_its_representatives_school() {
        let tank = Tank::centered(Vec2::new(600.0, 300.0));
        // The fish's own tank holds every fish; the units are described in `tank`.
        let room = Tank::centered(Vec2::new(2000.0, 1000.0));
        let mut flock = Simulation::new(FlockParams::default(), room, 0, 1).unwrap();
        flock.add_school(FlockParams::default(), 0, 1).unwrap();
        // Five fish of school 0 round the origin, the middle one the
        // representative; then two of school 1 to the east, stored last.
        for x in [-20.0, -10.0, 0.0, 10.0, 20.0, 200.0, 210.0] {
            let id = flock.add_fish(u16::from(x > 100.0), Vec2::new(x, 0.0), Vec2::X, 0.0).unwrap();
            flock.set_group(id, Some(0));
        }
        // The rest of school 1, far to the west.
        for k in 0..5 {
            flock.add_fish(1, Vec2::new(-500.0, k as f32), Vec2::X, 0.0).unwrap();
        }
        let regions = Regions::default();
        let u =
            describe_units(&flock, (&tank, &Scene::default(), &regions), (0, 1), 2000.0)[0].clone().unwrap();
        let centroid_x = (-20.0 - 10.0 + 0.0 + 10.0 + 20.0 + 200.0 + 210.0) / 7.0;
        assert!((u.centroid.x - centroid_x).abs() < 1e-3);
        // The fish nearest the centroid (x = 60) is the one at x = 20, of school 0.
        assert_eq!((u.representative, u.school), (4, 0));
        assert!(u.school_centre.distance(Vec2::ZERO) < 1e-3, "school 0's centre: {}", u.school_centre);
        assert_eq!(u.other_schools.iter().map(|o| o.school).collect::<Vec<_>>(), [1]);
    }

    #[test]
    fn compass_points() {
        assert_eq!(compass(Vec2::new(1.0, 0.1)), "east");
        assert_eq!(compass(Vec2::new(-1.0, -1.0)), "south-west");
        assert_eq!(compass(Vec2::new(0.0, 2.0)), "north");
        assert_eq!(compass(Vec2::ZERO), "nowhere");
        assert_eq!(compass(Vec2::NAN), "nowhere");
    }

    #[test]
    fn a_volume_is_told_up_and_down() {
        // On a plane, the octant alone, as before.
        assert_eq!(heading_code(Vec2::new(0.0, 2.0)), 2);
        assert_eq!(heading_in_words(Vec2::new(-1.0, -1.0)), "south-west");
        assert_eq!(bearing_in_words(Vec2::new(0.0, -5.0)), "to the south");
        // In a volume north is the back (-z) and up is +y.
        assert_eq!(heading_in_words(Vec3::new(0.0, 0.0, -1.0)), "north");
        assert_eq!(heading_in_words(Vec3::new(1.0, 0.1, 0.0)), "east");
        assert_eq!(heading_in_words(Vec3::new(1.0, 0.8, 0.0)), "east and up");
        assert_eq!(heading_in_words(Vec3::new(0.1, -3.0, 0.0)), "down");
        assert_eq!(heading_in_words(Vec3::ZERO), "nowhere");
        assert_eq!(heading_in_words(Vec3::NAN), "nowhere");
        assert_eq!(bearing_in_words(Vec3::new(0.0, 2.0, 3.0)), "to the south, above");
        assert_eq!(bearing_in_words(Vec3::new(0.0, -2.0, 0.0)), "straight below");
        assert_eq!(heading_code(Vec3::new(0.0, 0.0, -1.0)), 2);
        assert_eq!(heading_code(Vec3::new(0.0, 1.0, 0.0)), 8 + 9);
        assert_eq!(heading_code(Vec3::new(1.0, -0.8, 0.0)), 18);
    }

    /// A unit in a volume: summed from a `Swarm`, its region one of the
    /// volume's, told in words with up and down.
    #[test]
    fn a_unit_in_a_volume_is_described() {
        use mirofish_sim::space::Swarm;
        use mirofish_sim::{FlockParams, Tank3d};
        let tank = Tank3d::centered(Vec3::new(600.0, 300.0, 300.0));
        let mut swarm = Swarm::new(FlockParams::default(), tank, 5, 1).unwrap();
        let at = Vec3::new(-200.0, 100.0, 100.0);
        let ids: Vec<u32> = swarm.ids().to_vec();
        for &id in &ids {
            swarm.set(id, at + Vec3::X * (id as f32), Vec3::new(0.0, 50.0, 50.0)).unwrap();
            swarm.set_group(id, Some(0));
        }
        let scene = Scene { predators: vec![Predator::new(at - Vec3::Y * 100.0, 50.0)], ..Scene::default() };
        let regions = Regions::<Vec3>::default();
        let u = describe_units(&swarm, (&tank, &scene, &regions), (0, 1), 500.0)[0].clone().unwrap();
        assert_eq!(u.fish, ids.len());
        assert_eq!(u.region.name(), "top_left_front");
        let words = u.in_words();
        assert!(words.contains("top left front of the tank"), "{words}");
        assert!(words.contains("It swims south and up"), "{words}");
        assert!(words.contains("units straight below."), "{words}");
    }
}
