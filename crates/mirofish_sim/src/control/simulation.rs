//! A school on a plane together with its parameters, tank, scene and
//! commands: the headless entry point, and how a run starts from its
//! configuration in either space ([`Swarm::from_config`]).

use glam::Vec2;

use crate::control::config::{ConfigError, RunConfig};
use crate::math::Vector;
use crate::rules::noise::mix64;
use crate::space::swarm::Swarm;

/// A self-contained simulation on a plane: the fish, their schools'
/// parameters, the tank, the scene, the time step and the commands. No
/// Bevy, no window: for tests, benchmarks and batch runs. It is the
/// engine of every space ([`Swarm`]) over [`Vec2`]; a volume's is
/// [`crate::space::Flock3d`].
///
/// ```
/// use mirofish_sim::{FlockParams, Simulation, Tank, state_hash};
///
/// let mut sim = Simulation::new(FlockParams::default(), Tank::default(), 300, 7)?;
/// sim.run(100);
/// let again = {
///     let mut s = Simulation::new(FlockParams::default(), Tank::default(), 300, 7)?;
///     s.run(100);
///     state_hash(&s)
/// };
/// assert_eq!(state_hash(&sim), again);
/// # Ok::<(), mirofish_sim::ParamError>(())
/// ```
pub type Simulation = Swarm<Vec2>;

impl<V: Vector> Swarm<V> {
    /// Builds the run a configuration describes: its seed, time step,
    /// parameters, tank and starting scene, then each school scattered over
    /// the tank (or the configuration's ball) outside the rocks, heading
    /// its own way on a plane where it has one, with its first `leaders`
    /// fish leading. School 0 starts as [`Swarm::new`] places it (from the
    /// run's seed); school `k` from a seed derived from the run's and `k`.
    ///
    /// # Errors
    ///
    /// If the configuration does not validate ([`RunConfig::validate`]).
    pub fn from_config(config: &RunConfig<V>) -> Result<Self, ConfigError> {
        config.validate()?;
        let invalid = |error| ConfigError::Invalid { section: "", error };
        let mut swarm = Self::new(config.params, config.tank, 0, config.seed)
            .and_then(|s| s.with_dt(config.dt))
            .map_err(invalid)?;
        swarm.set_scene(config.scene.clone()).map_err(invalid)?;
        swarm.set_zones(config.zones).map_err(invalid)?;
        let ball = config.ball.map(|b| (b.centre, b.radius, b.spread));
        for (k, school) in config.all_schools().enumerate() {
            let seed = if k == 0 { config.seed } else { mix64(config.seed ^ mix64(k as u64)) };
            let index = if k == 0 { 0 } else { swarm.add_school(school.params, 0, seed).map_err(invalid)? };
            let first =
                swarm.spawn_school_in(index, school.fish, seed, school.heading, ball).map_err(invalid)?;
            for id in first..first + school.leaders as u32 {
                swarm.set_leader(id, true).map_err(invalid)?;
            }
        }
        Ok(swarm)
    }
}

impl<V: Vector> RunConfig<V> {
    /// The run this configuration describes ([`Swarm::from_config`]).
    ///
    /// # Errors
    ///
    /// As [`Swarm::from_config`].
    pub fn start(&self) -> Result<Swarm<V>, ConfigError> {
        Swarm::from_config(self)
    }
}
