//! Runs in a volume from their configuration: a [`VolumeConfig`] is the
//! plane's configuration type ([`RunConfig`], read, checked and written
//! the same way) over [`Vec3`], and [`RunConfig::start`] builds the
//! school it describes.
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

use glam::Vec3;

pub use crate::control::config::Ball;
use crate::control::config::{RunConfig, SchoolConfig};

/// Everything that defines a run in a volume, apart from the commands
/// sent during it ([`crate::VolumeCommand`]): the plane's configuration
/// over [`Vec3`].
pub type VolumeConfig = RunConfig<Vec3>;

/// A school beyond the first in a [`VolumeConfig`] (its `heading` is a
/// plane's only and must stay `None`).
pub type VolumeSchool = SchoolConfig;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::config::ConfigError;
    use crate::observe::state_hash;
    use crate::space::Zones;
    use crate::world::params::FlockParams;
    use crate::world::scene::{Obstacle, Predator};

    fn two_schools() -> VolumeConfig {
        let mut config = VolumeConfig { fish: 120, leaders: 5, seed: u64::MAX, ..VolumeConfig::default() };
        config.scene.obstacles.push(Obstacle { centre: Vec3::new(300.0, 200.0, 250.0), radius: 60.0 });
        config.scene.predators.push(Predator::new(Vec3::new(50.0, 60.0, 70.0), 90.0));
        config.params.alignment_weight = 0.1 + 0.2;
        let params = FlockParams { max_speed: 99.5, ..FlockParams::default() };
        config.schools.push(VolumeSchool {
            fish: 30,
            params,
            leaders: 2,
            colour: Some([0.2, 0.7, 0.65]),
            heading: None,
        });
        config
    }

    #[test]
    fn round_trips_bit_for_bit_and_starts_the_same_school() {
        let config = two_schools();
        let again = VolumeConfig::from_ron(&config.to_ron()).unwrap();
        assert_eq!(again, config);
        let (a, b) = (config.start().unwrap(), again.start().unwrap());
        assert_eq!(state_hash(&a), state_hash(&b));
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
    fn one_configuration_type_reads_the_same_fields_in_both_spaces() {
        let text = "(fish: 40, seed: 3, dt: 0.02, metrics_every: 7, params: (max_speed: 140.0), leaders: 2, \
                    schools: [(fish: 5, leaders: 1, colour: Some((0.1, 0.2, 0.3)))], colour: Some((1.0, 0.5, 0.0)))";
        let plane = crate::ExperimentConfig::from_ron(text).unwrap();
        let volume = VolumeConfig::from_ron(text).unwrap();
        type Common = (usize, u64, f32, u64, FlockParams, usize, Option<[f32; 3]>);
        fn common<V: crate::Vector>(c: &RunConfig<V>) -> Common {
            (c.fish, c.seed, c.dt, c.metrics_every, c.params, c.leaders, c.colour)
        }
        assert_eq!(common(&plane), common(&volume));
        assert_eq!((plane.schools.clone(), plane.total_fish()), (volume.schools.clone(), 45));
        // Written back, each reads as itself.
        assert_eq!(crate::ExperimentConfig::from_ron(&plane.to_ron()).unwrap(), plane);
        assert_eq!(VolumeConfig::from_ron(&volume.to_ron()).unwrap(), volume);
        // A field only the other space has names that space.
        let ball = crate::ExperimentConfig::from_ron("(ball: Some((centre: (1, 2, 0), radius: 3)))");
        assert_eq!(ball.unwrap_err(), ConfigError::Space { found: "volume" });
        // A ball (a disc) on a plane is a plane's.
        let disc = crate::ExperimentConfig::from_ron("(ball: Some((centre: (1, 2), radius: 3)))").unwrap();
        assert_eq!(disc.ball, Some(Ball::even(glam::Vec2::new(1.0, 2.0), 3.0)));
        let heading = VolumeConfig::from_ron("(schools: [(heading: Some(0.5))])");
        assert_eq!(heading.unwrap_err(), ConfigError::Space { found: "plane" });
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
        assert!(err.to_string().contains("mirofish-lab run --config"), "{err}");
        // Bad in both: the syntax error, with its place.
        let err = VolumeConfig::from_ron("(fish: \"many\")").unwrap_err();
        assert!(matches!(err, ConfigError::Parse { .. }), "{err:?}");
    }

    #[test]
    fn a_ball_start_packs_every_school_into_the_ball() {
        let centre = Vec3::new(100.0, -50.0, 20.0);
        let ball = Ball::even(centre, 80.0);
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
        let outside = VolumeConfig { ball: Some(Ball::even(Vec3::splat(5000.0), 1.0)), ..config.clone() };
        assert_eq!(outside.validate().unwrap_err().field().as_deref(), Some("ball.centre"));
        let negative = VolumeConfig { ball: Some(Ball::even(centre, -1.0)), ..config };
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
