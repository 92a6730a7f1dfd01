//! Configuration files of runs in a volume: every parameter of a school
//! (or several) in three dimensions in one RON file, loaded with errors
//! that name the offending field and value, like the plane's
//! [`ExperimentConfig`](crate::ExperimentConfig).
//!
//! ```
//! use mirofish_sim::control::volume::VolumeConfig;
//!
//! let text = "(fish: 300, seed: 9, tank: (min: (0, 0, 0), max: (600, 400, 500)), zones: Some(()))";
//! let config = VolumeConfig::from_ron(text)?;
//! let mut school = config.start()?;
//! school.run(10);
//! assert_eq!((school.len(), school.tick()), (300, 10));
//! // Couzin's zones, every field at its default.
//! assert!(school.zones().is_some());
//!
//! let err = VolumeConfig::from_ron("(scene: (obstacles: [(centre: (1, 2, 3), radius: -4)]))")
//!     .unwrap_err();
//! assert_eq!(err.field().as_deref(), Some("scene.obstacle.radius"));
//! # Ok::<(), mirofish_sim::ConfigError>(())
//! ```

use std::path::Path;

use crate::control::config::{ConfigError, check_counts, check_run, check_school};
use crate::observe::metrics::DEFAULT_EVERY;
use crate::rules::noise::mix64;
use crate::space::swarm::check_ball;
use crate::space::{Flock3d, Zones};
use crate::world::params::{DEFAULT_DT, FlockParams};
use crate::world::scene::Scene3d;
use crate::world::tank::Tank3d;
use glam::Vec3;

/// Everything that defines a run in a volume, apart from the commands
/// sent during it ([`crate::space::VolumeCommand`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct VolumeConfig {
    /// Number of fish of the first school at the start.
    pub fish: usize,
    /// The seed of the start and of all noise.
    pub seed: u64,
    /// Fixed time step (seconds).
    pub dt: f32,
    /// Metrics are sampled every this many ticks.
    pub metrics_every: u64,
    /// The first school's parameters.
    pub params: FlockParams,
    /// The box the fish live in.
    pub tank: Tank3d,
    /// Rocks, predators, goals, attractor and route at the start (called
    /// `surroundings` in files written before it became the plane's
    /// [`Scene`](crate::Scene) type; such files still load).
    #[serde(alias = "surroundings")]
    pub scene: Scene3d,
    /// Couzin's zone model instead of the weighted rules, if set.
    pub zones: Option<Zones>,
    /// How many of the first school's fish lead (the first ones placed).
    pub leaders: usize,
    /// More schools: school 1, 2, … in this order (the fields above are
    /// school 0).
    pub schools: Vec<VolumeSchool>,
    /// The first school's display colour, sRGB with each channel in 0–1;
    /// `None`: the viewer's own. The simulation never reads it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub colour: Option<[f32; 3]>,
    /// Start every fish in this ball instead of scattered over the tank: a
    /// packed start, as in Couzin's experiments.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ball: Option<Ball>,
}

/// A ball to start the fish in ([`VolumeConfig::ball`]).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ball {
    /// Its centre, inside the tank.
    pub centre: Vec3,
    /// Its radius (the ball is clipped to the tank).
    pub radius: f32,
}

/// A school beyond the first in a [`VolumeConfig`].
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct VolumeSchool {
    /// Number of fish at the start.
    pub fish: usize,
    /// The school's parameters.
    pub params: FlockParams,
    /// How many of its fish lead, as [`VolumeConfig::leaders`].
    pub leaders: usize,
    /// Its display colour, as [`VolumeConfig::colour`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub colour: Option<[f32; 3]>,
}

impl Default for VolumeConfig {
    fn default() -> Self {
        Self {
            fish: 500,
            seed: 1,
            dt: DEFAULT_DT,
            metrics_every: DEFAULT_EVERY,
            params: FlockParams::default(),
            tank: Tank3d::default(),
            scene: Scene3d::default(),
            zones: None,
            leaders: 0,
            schools: Vec::new(),
            colour: None,
            ball: None,
        }
    }
}

impl VolumeConfig {
    /// Checks every field; the error names the first bad one with its
    /// section (`params.max_speed`, `tank.min.x`,
    /// `scene.obstacle.radius`, `zones.speed`).
    pub fn validate(&self) -> Result<(), ConfigError> {
        let section = |name: &'static str| move |error| ConfigError::Invalid { section: name, error };
        check_counts(self.fish, self.total_fish(), self.schools.len())?;
        check_school("", self.leaders, self.fish, self.colour)?;
        for school in &self.schools {
            school.params.validate().map_err(section("schools"))?;
            check_school("schools", school.leaders, school.fish, school.colour)?;
        }
        check_run(self.metrics_every, self.dt, &self.params)?;
        self.tank.validate().map_err(section(""))?;
        self.scene.validate_with_room(&self.tank).map_err(section("scene"))?;
        if let Some(ball) = &self.ball {
            check_ball(ball.centre, ball.radius, &self.tank).map_err(section(""))?;
        }
        self.zones.as_ref().map_or(Ok(()), Zones::validate).map_err(section(""))
    }

    /// The fish of every school together (saturating: validation refuses
    /// more than [`crate::MAX_FISH`]).
    pub fn total_fish(&self) -> usize {
        self.schools.iter().fold(self.fish, |n, s| n.saturating_add(s.fish))
    }

    /// Every school in order, school 0 (the top-level fields) first.
    pub fn all_schools(&self) -> impl Iterator<Item = VolumeSchool> + '_ {
        let first =
            VolumeSchool { fish: self.fish, params: self.params, leaders: self.leaders, colour: self.colour };
        core::iter::once(first).chain(self.schools.iter().cloned())
    }

    /// Builds the run: the scene first, then each school scattered
    /// over the tank (or the [`VolumeConfig::ball`]) outside the rocks
    /// (school 0 from the run's seed, school `k` from a seed derived from it
    /// and `k`) with its first `leaders` fish leading.
    pub fn start(&self) -> Result<Flock3d, ConfigError> {
        self.validate()?;
        let invalid = |error| ConfigError::Invalid { section: "", error };
        let mut swarm = Flock3d::new(self.params, self.tank, 0, self.seed)
            .and_then(|s| s.with_dt(self.dt))
            .map_err(invalid)?;
        swarm.set_scene(self.scene.clone()).map_err(invalid)?;
        swarm.set_zones(self.zones).map_err(invalid)?;
        for (k, school) in self.all_schools().enumerate() {
            let first = swarm.len() as u32;
            let seed = if k == 0 { self.seed } else { mix64(self.seed ^ mix64(k as u64)) };
            let index = if k == 0 { 0 } else { swarm.add_school(school.params, 0, seed).map_err(invalid)? };
            match self.ball {
                None => swarm.spawn_school(index, school.fish, seed),
                Some(ball) => swarm.spawn_ball(index, school.fish, seed, (ball.centre, ball.radius)),
            }
            .map_err(invalid)?;
            for id in first..first + school.leaders as u32 {
                swarm.set_leader(id, true).map_err(invalid)?;
            }
        }
        Ok(swarm)
    }

    /// Parses and validates RON text.
    pub fn from_ron(text: &str) -> Result<Self, ConfigError> {
        use crate::control::config::{from_ron, in_other_space};
        from_ron(text, Self::validate)
            .map_err(|e| in_other_space::<crate::control::config::ExperimentConfig>(e, text, "plane"))
    }

    /// The configuration as pretty RON, every field written out.
    pub fn to_ron(&self) -> String {
        crate::control::config::to_ron(self)
    }

    /// Loads and validates a RON file.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, ConfigError> {
        crate::control::config::load(path.as_ref(), Self::from_ron)
    }

    /// Validates, then writes the configuration as RON.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), ConfigError> {
        self.validate()?;
        crate::control::config::save(path.as_ref(), &self.to_ron())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::space::swarm_hash;
    use crate::world::scene::{Obstacle, Predator};

    fn two_schools() -> VolumeConfig {
        let mut config = VolumeConfig { fish: 120, leaders: 5, seed: u64::MAX, ..VolumeConfig::default() };
        config.scene.obstacles.push(Obstacle { centre: Vec3::new(300.0, 200.0, 250.0), radius: 60.0 });
        config.scene.predators.push(Predator::new(Vec3::new(50.0, 60.0, 70.0), 90.0));
        config.params.alignment_weight = 0.1 + 0.2;
        let params = FlockParams { max_speed: 99.5, ..FlockParams::default() };
        config.schools.push(VolumeSchool { fish: 30, params, leaders: 2, colour: Some([0.2, 0.7, 0.65]) });
        config
    }

    #[test]
    fn round_trips_bit_for_bit_and_starts_the_same_school() {
        let config = two_schools();
        let again = VolumeConfig::from_ron(&config.to_ron()).unwrap();
        assert_eq!(again, config);
        let (a, b) = (config.start().unwrap(), again.start().unwrap());
        assert_eq!(swarm_hash(&a), swarm_hash(&b));
        assert_eq!(a.len(), 150);
        assert_eq!(a.params().len(), 2);
        assert_eq!(a.params()[1].max_speed, 99.5);
        // The first five of school 0 and the first two of school 1 lead.
        let leading: Vec<u32> = (0..a.len()).filter(|&s| a.leaders()[s]).map(|s| a.ids()[s]).collect();
        let mut leading = leading;
        leading.sort_unstable();
        assert_eq!(leading, [0, 1, 2, 3, 4, 120, 121]);
        // Nobody starts inside the rock.
        let rock = config.scene.obstacles[0];
        assert!(a.positions().iter().all(|&p| !rock.contains(p)));
    }

    #[test]
    fn a_file_that_calls_the_scene_surroundings_still_loads() {
        let old =
            VolumeConfig::from_ron("(surroundings: (obstacles: [(centre: (1, 2, 3), radius: 4)]))").unwrap();
        let new = VolumeConfig::from_ron("(scene: (obstacles: [(centre: (1, 2, 3), radius: 4)]))").unwrap();
        assert_eq!(old, new);
        assert_eq!(new.scene.obstacles, [Obstacle { centre: Vec3::new(1.0, 2.0, 3.0), radius: 4.0 }]);
    }

    #[test]
    fn errors_name_the_field_and_the_place() {
        let cases = [
            ("(params: (perception_radius: 0.0))", "params.perception_radius"),
            ("(tank: (min: (0, 0, 0), max: (10, 0, 10)))", "tank height (max.y - min.y)"),
            (
                "(scene: (predators: [(position: (1, 2, 3), velocity: (0, 0, 0), fear_radius: -1, \
                 max_speed: 1, max_force: 1, chase: false)]))",
                "scene.predator.fear_radius",
            ),
            ("(zones: Some((speed: -2.0)))", "zones.speed"),
            ("(dt: 5.0)", "dt"),
            ("(metrics_every: 0)", "metrics_every"),
            ("(fish: 10, leaders: 11)", "leaders"),
            ("(schools: [(fish: 3, leaders: 4)])", "schools.leaders"),
            ("(schools: [(params: (max_speed: -3.0))])", "schools.max_speed"),
            ("(colour: Some((1.0, 0.5, 1.5)))", "colour"),
            ("(fish: 9000000, schools: [(fish: 2000000)])", "fish (all schools)"),
        ];
        for (text, field) in cases {
            let err = VolumeConfig::from_ron(text).unwrap_err();
            let named = err.field().unwrap_or_default();
            assert!(named.starts_with(field), "{text}: {err}");
        }
        // A plane's configuration is not a volume's, and each says so.
        let err = VolumeConfig::from_ron("(tank: (min: (0, 0), max: (10, 10)))").unwrap_err();
        assert_eq!(err, ConfigError::Space { found: "plane" });
        assert!(err.to_string().contains("on a plane"), "{err}");
        let err = VolumeConfig::from_ron("(heading: Some(1.0))").unwrap_err();
        assert_eq!(err, ConfigError::Space { found: "plane" });
        let err =
            crate::ExperimentConfig::from_ron("(zones: Some(()), tank: (min: (0, 0, 0), max: (9, 9, 9)))")
                .unwrap_err();
        assert_eq!(err, ConfigError::Space { found: "volume" });
        assert!(err.to_string().contains("mirofish-lab volume"), "{err}");
        // Bad in both: the syntax error, with its place.
        let err = VolumeConfig::from_ron("(fish: \"many\")").unwrap_err();
        assert!(matches!(err, ConfigError::Parse { .. }), "{err:?}");
    }

    #[test]
    fn a_ball_start_packs_every_school_into_the_ball() {
        let centre = Vec3::new(100.0, -50.0, 20.0);
        let ball = Ball { centre, radius: 80.0 };
        let mut config = two_schools();
        config.scene.obstacles.clear();
        config.ball = Some(ball);
        let swarm = VolumeConfig::from_ron(&config.to_ron()).unwrap().start().unwrap();
        assert_eq!(swarm.len(), 150);
        assert!(swarm.positions().iter().all(|p| p.distance(centre) <= 80.0 + 1e-3));
        // Both schools fill it, not one side of it.
        for school in [0, 1] {
            let (sum, n) = (0..swarm.len())
                .filter(|&s| swarm.schools()[s] == school)
                .fold((Vec3::ZERO, 0.0), |(sum, n), s| (sum + swarm.positions()[s], n + 1.0));
            assert!((sum / n).distance(centre) < 30.0, "school {school}");
        }
        let outside =
            VolumeConfig { ball: Some(Ball { centre: Vec3::splat(5000.0), radius: 1.0 }), ..config.clone() };
        assert_eq!(outside.validate().unwrap_err().field().as_deref(), Some("ball.centre"));
        let negative = VolumeConfig { ball: Some(Ball { centre, radius: -1.0 }), ..config };
        assert_eq!(negative.validate().unwrap_err().field().as_deref(), Some("ball.radius"));
    }

    #[test]
    fn a_file_round_trips_and_an_invalid_one_is_not_written() {
        // Reading and writing are the plane's configuration code, tested
        // there; here, that a volume goes through them whole.
        let dir = std::env::temp_dir().join(format!("mirofish-volume-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let config = two_schools();
        config.save(dir.join("volume.ron")).unwrap();
        assert_eq!(VolumeConfig::load(dir.join("volume.ron")).unwrap(), config);
        let err = VolumeConfig { zones: Some(Zones { speed: -1.0, ..Zones::default() }), ..config }
            .save(dir.join("bad.ron"))
            .unwrap_err();
        assert_eq!(err.field().as_deref(), Some("zones.speed"));
        assert!(!dir.join("bad.ron").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
