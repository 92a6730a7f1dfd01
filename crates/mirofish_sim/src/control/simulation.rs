//! A flock together with its parameters: the headless entry point.

use crate::control::config::{ConfigError, ExperimentConfig};
use crate::rules::noise::mix64;
use crate::step::command::{CommandError, CommandQueue, FlockCommand, Stamped};
use crate::step::flock::Flock;
use crate::world::params::{DEFAULT_DT, FlockParams, ParamError, validate_dt, validate_fish};
use crate::world::scene::Scene;
use crate::world::spawn;
use crate::world::tank::Tank;

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
    /// The parameters of school 0 (every fish, unless there are more
    /// schools).
    pub params: FlockParams,
    /// The parameters of schools 1, 2, … (empty: one school). A fish of a
    /// school beyond them uses the last.
    pub schools: Vec<FlockParams>,
    /// The tank.
    pub tank: Tank,
    /// Obstacles, predators, goal and attractor.
    pub scene: Scene,
    /// Fixed time step (seconds).
    pub dt: f32,
    /// Commands waiting for their tick.
    pub(super) commands: CommandQueue,
    /// Commands applied so far, in the order they were applied: with the
    /// configuration, this reproduces the run.
    pub(super) applied: Vec<Stamped>,
    /// Applied commands left out in whole or part, with why.
    pub(super) left_out: Vec<(Stamped, ParamError)>,
    /// `params` then `schools`, rebuilt in place each tick with several
    /// schools (no allocation once it has grown).
    table: Vec<FlockParams>,
}

impl Simulation {
    /// Validates the parameters and scatters `count` fish (at most
    /// [`crate::MAX_FISH`]) over the tank; `seed` fixes both the start and
    /// all later noise.
    pub fn new(params: FlockParams, tank: Tank, count: usize, seed: u64) -> Result<Self, ParamError> {
        validate_fish("fish", count)?;
        params.validate()?;
        tank.validate()?;
        let mut flock = Flock::new(seed);
        for f in spawn::scatter(count, &tank, &params, seed) {
            flock.push(f.position, f.velocity, f.wander_phase);
        }
        Ok(Self {
            flock,
            params,
            schools: Vec::new(),
            tank,
            scene: Scene::default(),
            dt: DEFAULT_DT,
            commands: CommandQueue::new(),
            applied: Vec::new(),
            left_out: Vec::new(),
            table: Vec::new(),
        })
    }

    /// Builds the run a configuration describes: its fish, seed, time step,
    /// parameters, tank, starting scene, every school and its leaders (the
    /// first fish placed of each). School 0 starts
    /// as [`Simulation::new`] places it; school `k` is scattered from a
    /// seed of its own, derived from the run's seed and `k`.
    pub fn from_config(config: &ExperimentConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        let invalid = |error| ConfigError::Invalid { section: "", error };
        let mut sim = Self::new(config.params, config.tank, 0, config.seed)
            .and_then(|s| s.with_dt(config.dt))
            .map_err(invalid)?;
        for (school, s) in config.all_schools().enumerate() {
            let seed = if school == 0 { config.seed } else { mix64(config.seed ^ mix64(school as u64)) };
            let disc = config.ball.map(|b| (b.centre, b.radius, b.spread));
            for (k, f) in spawn::scatter_in(s.fish, &config.tank, &s.params, seed, s.heading, disc)
                .into_iter()
                .enumerate()
            {
                let slot = sim.flock.push(f.position, f.velocity, f.wander_phase);
                sim.flock.set_school(slot, school as u16);
                if k < s.leaders {
                    sim.flock.set_leader(slot, true);
                }
            }
        }
        sim.schools = config.schools.iter().map(|s| s.params).collect();
        sim.scene = config.scene.clone();
        Ok(sim)
    }

    /// Sets the fixed time step.
    pub fn with_dt(mut self, dt: f32) -> Result<Self, ParamError> {
        validate_dt(dt)?;
        self.dt = dt;
        Ok(self)
    }

    /// Runs the parallel passes on `threads` threads of a pool of the
    /// simulation's own (at least 1) instead of rayon's global pool. The
    /// state is the same bits on any number of threads.
    pub fn with_threads(self, threads: usize) -> Result<Self, rayon::ThreadPoolBuildError> {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads.max(1)).build()?;
        Ok(self.with_thread_pool(std::sync::Arc::new(pool)))
    }

    /// Runs the parallel passes on `pool` (see [`Flock::with_thread_pool`]).
    pub fn with_thread_pool(mut self, pool: std::sync::Arc<rayon::ThreadPool>) -> Self {
        self.flock = self.flock.with_thread_pool(pool);
        self
    }

    /// The next tick to be simulated (ticks completed so far).
    pub fn tick(&self) -> u64 {
        self.flock.tick()
    }

    /// Queues `command` for the start of `tick`. Refused, and not queued,
    /// if the command holds an invalid number, an obstacle that would
    /// cover the whole tank, or `tick` is already past.
    pub fn schedule(&mut self, tick: u64, command: FlockCommand) -> Result<(), CommandError> {
        command.validate_in(&self.tank)?;
        self.commands.schedule(self.tick(), tick, command)
    }

    /// Queues `command` for the start of the next tick.
    pub fn submit(&mut self, command: FlockCommand) -> Result<(), CommandError> {
        self.schedule(self.tick(), command)
    }

    /// Commands waiting for their tick.
    pub fn pending(&self) -> &CommandQueue {
        &self.commands
    }

    /// Commands applied so far, in order.
    pub fn applied(&self) -> &[Stamped] {
        &self.applied
    }

    /// The applied commands that were left out, wholly or in part, because
    /// applying them would break a promise of the tank — a rock that would
    /// close the last room, fish past [`MAX_FISH`](crate::MAX_FISH) — each
    /// with why, in the order they were applied (a replay leaves out the
    /// same).
    pub fn left_out(&self) -> &[(Stamped, ParamError)] {
        &self.left_out
    }

    /// One tick: the due commands first, then the flock's passes.
    pub fn step(&mut self) -> Result<(), ParamError> {
        for stamped in self.commands.take_due(self.flock.tick()) {
            self.fill_table();
            let applied = stamped.command.apply_to_schools(
                &mut self.flock,
                &mut self.table,
                &mut self.tank,
                &mut self.scene,
            );
            // A command changes a school's parameters in the table: back
            // to the fields a user reads.
            self.params = self.table[0];
            self.schools.copy_from_slice(&self.table[1..]);
            if let Err(why) = applied {
                self.left_out.push((stamped.clone(), why));
            }
            self.applied.push(stamped);
        }
        if self.schools.is_empty() {
            return self.flock.step(&self.params, &self.tank, &mut self.scene, self.dt);
        }
        self.fill_table();
        self.flock.step(&self.table[..], &self.tank, &mut self.scene, self.dt)
    }

    /// `params` then `schools` into the table (no allocation once it has
    /// grown).
    fn fill_table(&mut self) {
        self.table.clear();
        self.table.push(self.params);
        self.table.extend_from_slice(&self.schools);
    }

    /// `ticks` ticks.
    pub fn run(&mut self, ticks: u64) -> Result<(), ParamError> {
        for _ in 0..ticks {
            self.step()?;
        }
        Ok(())
    }
}
