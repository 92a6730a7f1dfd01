//! A flock together with its parameters: the headless entry point.

use crate::flock::Flock;
use crate::params::{FlockParams, ParamError, Tank, validate_dt};
use crate::scene::Scene;
use crate::spawn;

/// The seeds' fixed step: 60 ticks per second.
pub const DEFAULT_DT: f32 = 1.0 / 60.0;

/// A self-contained simulation: a flock, its parameters, its tank and its
/// time step. No Bevy, no window: for tests, benchmarks and batch runs.
///
/// ```
/// use mirofish_sim::{FlockParams, Simulation, Tank, state_hash};
///
/// let mut sim = Simulation::new(FlockParams::default(), Tank::default(), 300, 7)?;
/// sim.run(100)?;
/// let again = {
///     let mut s = Simulation::new(FlockParams::default(), Tank::default(), 300, 7)?;
///     s.run(100)?;
///     state_hash(&s.flock)
/// };
/// assert_eq!(state_hash(&sim.flock), again);
/// # Ok::<(), mirofish_sim::ParamError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Simulation {
    /// The fish.
    pub flock: Flock,
    /// The school's parameters.
    pub params: FlockParams,
    /// The tank.
    pub tank: Tank,
    /// Obstacles, predators, goal and attractor.
    pub scene: Scene,
    /// Fixed time step (seconds).
    pub dt: f32,
}

impl Simulation {
    /// Validates the parameters and scatters `count` fish over the tank;
    /// `seed` fixes both the start and all later noise.
    pub fn new(params: FlockParams, tank: Tank, count: usize, seed: u64) -> Result<Self, ParamError> {
        params.validate()?;
        tank.validate()?;
        let mut flock = Flock::new(seed);
        for f in spawn::scatter(count, &tank, &params, seed) {
            flock.push(f.position, f.velocity, f.wander_phase);
        }
        Ok(Self { flock, params, tank, scene: Scene::default(), dt: DEFAULT_DT })
    }

    /// Sets the fixed time step.
    pub fn with_dt(mut self, dt: f32) -> Result<Self, ParamError> {
        validate_dt(dt)?;
        self.dt = dt;
        Ok(self)
    }

    /// One tick.
    pub fn step(&mut self) -> Result<(), ParamError> {
        self.flock.step(&self.params, &self.tank, &mut self.scene, self.dt)
    }

    /// `ticks` ticks.
    pub fn run(&mut self, ticks: u64) -> Result<(), ParamError> {
        for _ in 0..ticks {
            self.step()?;
        }
        Ok(())
    }
}
