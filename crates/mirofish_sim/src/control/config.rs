//! Configuration files: every parameter of a run in one RON file, loaded
//! with errors that name the offending field and value. One type for both
//! spaces, [`RunConfig`]: [`ExperimentConfig`] on a plane,
//! [`VolumeConfig`](crate::VolumeConfig) in a volume.
//!
//! ```
//! use mirofish_sim::control::config::ExperimentConfig;
//!
//! let text = "(fish: 300, seed: 9, params: (alignment_weight: 1.5))";
//! let config = ExperimentConfig::from_ron(text)?;
//! assert_eq!(config.fish, 300);
//! assert_eq!(config.params.alignment_weight, 1.5);
//! // Everything not written keeps its default.
//! assert_eq!(config.params.cohesion_weight, mirofish_sim::FlockParams::default().cohesion_weight);
//!
//! let err = ExperimentConfig::from_ron("(params: (max_speed: -3.0))").unwrap_err();
//! assert_eq!(err.to_string(), "invalid `params.max_speed` = -3: must be finite, >= 0 and <= 1000000");
//! # Ok::<(), mirofish_sim::control::config::ConfigError>(())
//! ```
//!
//! Unknown fields are errors, not silently ignored: a misspelt
//! `alignmnet_weight` would otherwise leave the default in place unnoticed.

use core::fmt;
use std::path::{Path, PathBuf};

use crate::control::preset::Preset;
use crate::observe::metrics::DEFAULT_EVERY;
use glam::{Vec2, Vec3};

use crate::math::Vector;
use crate::space::swarm::check_ball;
use crate::world::params::{DEFAULT_DT, FlockParams, MAX_FISH, ParamError, validate_dt};
use crate::world::scene::Scene;
use crate::world::school::MAX_SCHOOLS;
use crate::world::spawn::Spread;
use crate::world::tank::TankOf;
use crate::world::zones::Zones;

/// Everything that defines a run, apart from the commands sent during it,
/// on a plane ([`ExperimentConfig`]) or in a volume
/// ([`VolumeConfig`](crate::VolumeConfig)): one type over the space's
/// vector, read from the same RON fields in both spaces.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(
    default,
    deny_unknown_fields,
    bound(serialize = "V: serde::Serialize", deserialize = "V: serde::Deserialize<'de>")
)]
pub struct RunConfig<V: Vector> {
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
    /// The tank.
    pub tank: TankOf<V>,
    /// Obstacles, predators, goal, attractor and route at the start (a
    /// goal for each school in `scene.school_goals`). Volume files written
    /// before a volume's scene was the plane's type call it
    /// `surroundings`; they still load.
    #[serde(alias = "surroundings")]
    pub scene: Scene<V>,
    /// On a plane, the direction the first school's fish start heading
    /// (radians, counter-clockwise from +x, give or take an eighth of a
    /// turn); `None`: every way. A volume's fish start every way.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heading: Option<f32>,
    /// More schools, each with its own fish and parameters: school 1, 2,
    /// … in this order (the fields above are school 0).
    pub schools: Vec<SchoolConfig>,
    /// How many of the first school's fish lead (the first ones placed):
    /// their neighbours weigh them `params.leader_weight` times more, and
    /// they follow `scene.route`. At most `fish`.
    pub leaders: usize,
    /// The first school's display colour, sRGB with each channel in 0–1
    /// (`(0.95, 0.55, 0.2)`); `None`: the viewer's own. The simulation
    /// never reads it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub colour: Option<[f32; 3]>,
    /// Couzin's zone model (constant speed, bounded turning, three zones)
    /// instead of the weighted rules, on a plane or in a volume.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zones: Option<Zones>,
    /// Start every fish in this ball (a disc on a plane) instead of
    /// scattered over the tank: a packed start, as in Couzin's experiments.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ball: Option<Ball<V>>,
}

/// Everything that defines a run on a plane.
pub type ExperimentConfig = RunConfig<Vec2>;

/// A ball to start the fish in ([`RunConfig::ball`]).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(
    deny_unknown_fields,
    bound(serialize = "V: serde::Serialize", deserialize = "V: serde::Deserialize<'de>")
)]
pub struct Ball<V: Vector> {
    /// Its centre, inside the tank.
    pub centre: V,
    /// Its radius (the ball is clipped to the tank); for a
    /// [`Spread::Normal`] start, the standard deviation.
    pub radius: f32,
    /// How the fish fill it: evenly (the default, left out of a file) or
    /// normally about the centre, nearly still.
    #[serde(default, skip_serializing_if = "Spread::is_even")]
    pub spread: Spread,
}

impl<V: Vector> Ball<V> {
    /// A ball filled evenly.
    pub fn even(centre: V, radius: f32) -> Self {
        Self { centre, radius, spread: Spread::Even }
    }

    /// The start the tuning literature recommends: a blob at the centre of
    /// `tank`, normal with a standard deviation of an eighth of the tank's
    /// width, the fish nearly still.
    pub fn blob(tank: &TankOf<V>) -> Self {
        Self {
            centre: (tank.min + tank.max) * 0.5,
            radius: tank.size().axis(0) / 8.0,
            spread: Spread::Normal,
        }
    }
}

/// A school beyond the first in a [`RunConfig`], in either space.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SchoolConfig {
    /// Number of fish at the start.
    pub fish: usize,
    /// The school's parameters.
    pub params: FlockParams,
    /// The direction its fish start heading on a plane, as
    /// [`RunConfig::heading`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heading: Option<f32>,
    /// How many of its fish lead, as [`RunConfig::leaders`].
    pub leaders: usize,
    /// Its display colour, as [`RunConfig::colour`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub colour: Option<[f32; 3]>,
}

impl<V: Vector> Default for RunConfig<V> {
    fn default() -> Self {
        Self {
            fish: 500,
            seed: 1,
            dt: DEFAULT_DT,
            metrics_every: DEFAULT_EVERY,
            params: FlockParams::default(),
            tank: TankOf::default(),
            scene: Scene::default(),
            heading: None,
            schools: Vec::new(),
            leaders: 0,
            colour: None,
            zones: None,
            ball: None,
        }
    }
}

impl From<&Preset> for ExperimentConfig {
    fn from(preset: &Preset) -> Self {
        Self { fish: preset.count, params: preset.params, tank: preset.tank, ..Self::default() }
    }
}

impl<V: Vector> RunConfig<V> {
    /// Checks every field; the error names the first bad one with its
    /// section (`params.max_speed`, `tank.min.x`, `scene.obstacle.radius`);
    /// a field only the other space has (a heading in a volume) says the
    /// file is that space's
    /// ([`ConfigError::Space`]).
    pub fn validate(&self) -> Result<(), ConfigError> {
        let section =
            |name: &'static str| move |error: ParamError| ConfigError::Invalid { section: name, error };
        check_counts(self.fish, self.total_fish(), self.schools.len())?;
        let on_plane = V::DIM == 2;
        // A field only the other space has: the file is that space's.
        let other_space = ConfigError::Space { found: if on_plane { "volume" } else { "plane" } };
        let heading = |section: &'static str, h: Option<f32>| match h {
            Some(_) if !on_plane => Err(other_space.clone()),
            Some(h) if !h.is_finite() => Err(ConfigError::Invalid {
                section,
                error: ParamError {
                    field: "heading",
                    value: h,
                    expected: "a finite angle in radians".into(),
                },
            }),
            _ => Ok(()),
        };
        heading("", self.heading)?;
        check_school("", self.leaders, self.fish, self.colour)?;
        for school in &self.schools {
            school.params.validate().map_err(section("schools"))?;
            heading("schools", school.heading)?;
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
    /// more than [`MAX_FISH`]).
    pub fn total_fish(&self) -> usize {
        self.schools.iter().fold(self.fish, |n, s| n.saturating_add(s.fish))
    }

    /// Every school in order, school 0 (the top-level fields) first, each
    /// as a [`SchoolConfig`].
    pub fn all_schools(&self) -> impl Iterator<Item = SchoolConfig> + '_ {
        let first = SchoolConfig {
            fish: self.fish,
            params: self.params,
            heading: self.heading,
            leaders: self.leaders,
            colour: self.colour,
        };
        core::iter::once(first).chain(self.schools.iter().cloned())
    }
}

impl<V: Vector + serde::Serialize + serde::de::DeserializeOwned> RunConfig<V> {
    /// Parses and validates RON text.
    pub fn from_ron(text: &str) -> Result<Self, ConfigError> {
        from_ron(text, Self::validate).map_err(|e| match V::DIM {
            2 => in_other_space::<RunConfig<Vec3>>(e, text, "volume"),
            _ => in_other_space::<RunConfig<Vec2>>(e, text, "plane"),
        })
    }

    /// The configuration as pretty RON, every field written out.
    pub fn to_ron(&self) -> String {
        to_ron(self)
    }

    /// Loads and validates a RON file.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, ConfigError> {
        load(path.as_ref(), Self::from_ron)
    }

    /// Validates, then writes the configuration as RON.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), ConfigError> {
        self.validate()?;
        save(path.as_ref(), &self.to_ron())
    }
}

/// The fish count of the first school, of all schools, and the number
/// of schools beyond the first: within [`MAX_FISH`] and [`MAX_SCHOOLS`].
pub(crate) fn check_counts(first: usize, all: usize, more_schools: usize) -> Result<(), ConfigError> {
    if all > MAX_FISH {
        let field = if first > MAX_FISH { "fish" } else { "fish (all schools)" };
        return Err(ConfigError::Invalid {
            section: "",
            error: ParamError { field, value: all as f32, expected: format!("at most {MAX_FISH}") },
        });
    }
    if more_schools >= MAX_SCHOOLS {
        return Err(ConfigError::Invalid {
            section: "",
            error: ParamError {
                field: "schools",
                value: more_schools as f32,
                expected: format!("fewer than {MAX_SCHOOLS} schools"),
            },
        });
    }
    Ok(())
}

/// A school's leaders (at most its fish) and colour (sRGB in 0–1).
pub(crate) fn check_school(
    section: &'static str,
    leaders: usize,
    fish: usize,
    colour: Option<[f32; 3]>,
) -> Result<(), ConfigError> {
    if leaders > fish {
        return Err(ConfigError::Invalid {
            section,
            error: ParamError {
                field: "leaders",
                value: leaders as f32,
                expected: format!("at most the school's {fish} fish"),
            },
        });
    }
    match colour {
        Some(c) if !c.iter().all(|x| (0.0..=1.0).contains(x)) => Err(ConfigError::Invalid {
            section,
            error: ParamError {
                field: "colour",
                value: c.into_iter().find(|x| !(0.0..=1.0).contains(x)).unwrap_or(f32::NAN),
                expected: "three sRGB channels, each from 0 to 1".into(),
            },
        }),
        _ => Ok(()),
    }
}

/// The sampling interval (at least 1), the time step and the first
/// school's parameters.
pub(crate) fn check_run(metrics_every: u64, dt: f32, params: &FlockParams) -> Result<(), ConfigError> {
    if metrics_every == 0 {
        return Err(ConfigError::Invalid {
            section: "",
            error: ParamError { field: "metrics_every", value: 0.0, expected: "at least 1".into() },
        });
    }
    validate_dt(dt).map_err(|error| ConfigError::Invalid { section: "", error })?;
    params.validate().map_err(|error| ConfigError::Invalid { section: "params", error })
}

/// Parses RON text into a configuration and checks it with `validate`.
pub(crate) fn from_ron<T: serde::de::DeserializeOwned>(
    text: &str,
    validate: impl FnOnce(&T) -> Result<(), ConfigError>,
) -> Result<T, ConfigError> {
    if text.starts_with(crate::control::replay::MAGIC) {
        return Err(ConfigError::Replay);
    }
    let config: T = ron::from_str(text).map_err(ConfigError::parse)?;
    validate(&config)?;
    Ok(config)
}

/// `error`, or, if it is a syntax error and `text` is a configuration of
/// type `Other` (of the other space), the error that says so.
pub(crate) fn in_other_space<Other: serde::de::DeserializeOwned>(
    error: ConfigError,
    text: &str,
    found: &'static str,
) -> ConfigError {
    match error {
        ConfigError::Parse { .. } if ron::from_str::<Other>(text).is_ok() => ConfigError::Space { found },
        error => error,
    }
}

/// A configuration as pretty RON, every field written out.
pub(crate) fn to_ron<T: serde::Serialize>(config: &T) -> String {
    let pretty = ron::ser::PrettyConfig::new().struct_names(false).depth_limit(4);
    // Serializing plain data into a String cannot fail.
    ron::ser::to_string_pretty(config, pretty).expect("configuration serializes")
}

/// Reads a configuration file (refusing one too large to be one) and
/// parses it with `parse`; an error names the file.
pub(crate) fn load<T>(
    path: &Path,
    parse: impl FnOnce(&str) -> Result<T, ConfigError>,
) -> Result<T, ConfigError> {
    let io = |source: std::io::Error| ConfigError::Io { path: path.to_owned(), source: source.to_string() };
    let limit = crate::control::replay::MAX_FILE_BYTES;
    let Some(bytes) = read_bounded(path, limit).map_err(io)? else {
        let source = format!("more than the {limit} bytes a configuration may have");
        return Err(ConfigError::Io { path: path.to_owned(), source });
    };
    let text = String::from_utf8(bytes).map_err(|_| ConfigError::Io {
        path: path.to_owned(),
        source: "the file is not UTF-8 text".into(),
    })?;
    parse(&text).map_err(|e| e.in_file(path))
}

/// The whole content of the file at `path`, or `None` if it holds more
/// than `limit` bytes. The limit is held while reading, not taken from the
/// size the file reports: a device, a pipe or a file still growing reports
/// none, or the wrong one, and is never read past `limit + 1` bytes.
///
/// # Errors
///
/// The operating system's, when the file cannot be opened or read.
pub fn read_bounded(path: &Path, limit: u64) -> std::io::Result<Option<Vec<u8>>> {
    use std::io::Read;
    let file = std::fs::File::open(path)?;
    let hint = file.metadata().map_or(0, |m| m.len()).min(limit);
    let mut bytes = Vec::with_capacity(usize::try_from(hint).unwrap_or(0));
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= limit).then_some(bytes))
}

/// Writes a configuration's text.
pub(crate) fn save(path: &Path, text: &str) -> Result<(), ConfigError> {
    std::fs::write(path, text)
        .map_err(|source| ConfigError::Io { path: path.to_owned(), source: source.to_string() })
}

/// Why a configuration (or a replay's configuration) was refused.
#[derive(Clone, Debug, PartialEq)]
pub enum ConfigError {
    /// The file could not be read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's message.
        source: String,
    },
    /// The text is not a valid configuration: bad syntax, a misspelt or
    /// unknown field, a value of the wrong type.
    Parse {
        /// 1-based line of the problem.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A value is out of range.
    Invalid {
        /// Where the field lives (`params`, `scene`, or empty at the top).
        section: &'static str,
        /// The field, its value and what it must be.
        error: ParamError,
    },
    /// The text is a MiroFish replay, not a configuration.
    Replay,
    /// The text is a configuration of the other space: a school in a
    /// volume ([`crate::VolumeConfig`]) read as one on a plane, or the
    /// other way round.
    Space {
        /// The space the text describes: `plane` or `volume`.
        found: &'static str,
    },
    /// Any of the above, in this file.
    InFile {
        /// The file.
        path: PathBuf,
        /// The problem.
        error: Box<ConfigError>,
    },
}

impl ConfigError {
    fn parse(e: ron::error::SpannedError) -> Self {
        ConfigError::Parse { line: e.span.start.line, column: e.span.start.col, message: e.code.to_string() }
    }

    fn in_file(self, path: &Path) -> Self {
        match self {
            io @ ConfigError::Io { .. } => io,
            other => ConfigError::InFile { path: path.to_owned(), error: Box::new(other) },
        }
    }

    /// The innermost error (without the file it was found in).
    pub fn root(&self) -> &ConfigError {
        match self {
            ConfigError::InFile { error, .. } => error.root(),
            other => other,
        }
    }

    /// The full name of the offending field, for [`ConfigError::Invalid`].
    pub fn field(&self) -> Option<String> {
        match self.root() {
            ConfigError::Invalid { section: "", error } => Some(error.field.to_owned()),
            ConfigError::Invalid { section, error } => Some(format!("{section}.{}", error.field)),
            _ => None,
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            ConfigError::Parse { line, column, message } => {
                write!(f, "line {line}, column {column}: {message}")
            }
            ConfigError::Invalid { error, .. } => write!(
                f,
                "invalid `{}` = {}: must be {}",
                self.field().unwrap_or_default(),
                error.value,
                error.expected
            ),
            ConfigError::Space { found: "volume" } => write!(
                f,
                "this is the configuration of a school in a volume, not on a plane \
                 (run it with `mirofish-lab run --config` or `aquarium3d --scene`)"
            ),
            ConfigError::Space { .. } => write!(
                f,
                "this is the configuration of a school on a plane, not in a volume \
                 (run it with `mirofish-lab run --config` or `aquarium --scene`)"
            ),
            ConfigError::Replay => write!(
                f,
                "this is a MiroFish replay, not a configuration (check it with `mirofish-lab replay FILE`)"
            ),
            ConfigError::InFile { path, error } => write!(f, "{}: {error}", path.display()),
        }
    }
}

impl std::error::Error for ConfigError {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::scene::Obstacle;
    use crate::world::tank::BoundaryMode;
    use glam::Vec2;

    /// Couzin's zones on a plane: read from the file, checked, and in force
    /// in the run it starts.
    #[test]
    fn a_plane_configuration_takes_the_zones() {
        let config = ExperimentConfig::from_ron("(fish: 40, zones: Some((speed: 30.0)))").unwrap();
        let mut sim = config.start().unwrap();
        assert_eq!(sim.zones().map(|z| z.speed), Some(30.0));
        sim.run(2);
        assert!(sim.velocities().iter().all(|v| (v.length() - 30.0).abs() < 0.03), "not at the zones' speed");
        let bad = ExperimentConfig::from_ron("(zones: Some((speed: -2.0)))").unwrap_err();
        assert_eq!(bad.field(), Some("zones.speed".into()));
    }

    #[test]
    fn round_trips_bit_for_bit() {
        let mut config = ExperimentConfig::from(&Preset::by_name("dense-sardines").unwrap());
        config.seed = u64::MAX;
        config.tank.boundary = BoundaryMode::Wrap;
        config.scene.obstacles.push(Obstacle { centre: Vec2::new(0.1, -7.3), radius: 33.3 });
        config.params.alignment_weight = 0.1 + 0.2;
        config.heading = Some(-1.25);
        let second = FlockParams { max_speed: 99.5, ..FlockParams::default() };
        config.schools.push(SchoolConfig {
            fish: 17,
            params: second,
            heading: Some(3.0),
            leaders: 2,
            colour: Some([0.2, 0.7, 0.65]),
        });
        let text = config.to_ron();
        assert_eq!(ExperimentConfig::from_ron(&text).unwrap(), config);
    }

    #[test]
    fn errors_name_the_field_and_the_place() {
        let cases = [
            ("(params: (perception_radius: 0.0))", "params.perception_radius"),
            ("(tank: (min: (0.0, 0.0), max: (0.0, 10.0)))", "tank width (max.x - min.x)"),
            ("(scene: (obstacles: [(centre: (1.0, 2.0), radius: -4.0)]))", "scene.obstacle.radius"),
            ("(dt: 5.0)", "dt"),
            ("(fish: 99999999999)", "fish"),
            ("(metrics_every: 0)", "metrics_every"),
            ("(schools: [(params: (max_speed: -3.0))])", "schools.max_speed"),
            ("(fish: 9000000, schools: [(fish: 2000000)])", "fish (all schools)"),
            ("(heading: Some(inf))", "heading"),
            ("(fish: 10, leaders: 11)", "leaders"),
            ("(schools: [(fish: 3, leaders: 4)])", "schools.leaders"),
            ("(colour: Some((1.0, 0.5, 1.5)))", "colour"),
            ("(schools: [(colour: Some((0.0, NaN, 0.0)))])", "schools.colour"),
        ];
        for (text, field) in cases {
            let err = ExperimentConfig::from_ron(text).unwrap_err();
            assert_eq!(err.field().as_deref(), Some(field), "{text}: {err}");
            assert!(err.to_string().contains(field), "{err}");
        }
    }

    #[test]
    fn syntax_errors_and_unknown_fields_give_a_position() {
        let err = ExperimentConfig::from_ron("(\n  params: (alignmnet_weight: 1.0),\n)").unwrap_err();
        match &err {
            ConfigError::Parse { line, message, .. } => {
                assert_eq!(*line, 2);
                assert!(message.contains("alignmnet_weight"), "{message}");
            }
            other => panic!("expected a parse error, got {other:?}"),
        }
        let err = ExperimentConfig::from_ron("(fish: 10,").unwrap_err();
        assert!(matches!(err, ConfigError::Parse { .. }), "{err:?}");
        let err = ExperimentConfig::from_ron("(fish: \"many\")").unwrap_err();
        assert!(matches!(err, ConfigError::Parse { .. }), "{err:?}");
    }

    #[test]
    fn files_load_and_save_and_name_themselves_in_errors() {
        let dir = std::env::temp_dir().join(format!("mirofish-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("run.ron");
        let config = ExperimentConfig { fish: 42, ..ExperimentConfig::default() };
        config.save(&path).unwrap();
        assert_eq!(ExperimentConfig::load(&path).unwrap(), config);
        std::fs::write(&path, "(params: (jitter: 3.0))").unwrap();
        let err = ExperimentConfig::load(&path).unwrap_err();
        assert!(err.to_string().starts_with(&path.display().to_string()), "{err}");
        assert_eq!(err.field().as_deref(), Some("params.jitter"));
        let missing = ExperimentConfig::load(dir.join("nope.ron")).unwrap_err();
        assert!(matches!(missing, ConfigError::Io { .. }));
        let bad = ExperimentConfig { dt: 0.0, ..ExperimentConfig::default() };
        assert!(bad.save(dir.join("bad.ron")).is_err());
        assert!(!dir.join("bad.ron").exists(), "an invalid configuration must not be written");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
