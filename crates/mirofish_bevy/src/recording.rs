//! Recorded play: a session of the running app saved as a
//! [`Recording`] — the configuration it started from, every command
//! applied, and state hashes along the way — and replayed inside the app,
//! or by the core alone (`Recording::replay`, what `mirofish-lab replay`
//! runs), to the same bits.
//!
//! A session starts from an [`ExperimentConfig`]: the plugin clears its
//! fish, rocks, predators, queued commands and metrics and lays the start
//! out exactly as the core's `Simulation::from_config` does (the same fish
//! in the same order, the same scene), with the configuration's time step
//! for every tick. From
//! then on every change that should be part of the session goes through
//! [`crate::FlockCommands`] — the mouse tools of the aquarium do — and is
//! noted with its tick. Changes made around the commands (writing
//! components, [`crate::FlockConfig`] or [`crate::ExtraSteering`]) are not
//! in the recording, and a replay will not reproduce them.
//!
//! ```
//! use bevy::app::ScheduleRunnerPlugin;
//! use bevy::prelude::*;
//! use bevy::time::TimeUpdateStrategy;
//! use mirofish_bevy::prelude::*;
//! use mirofish_sim::ExperimentConfig;
//!
//! let mut app = App::new();
//! app.add_plugins(MinimalPlugins.build().disable::<ScheduleRunnerPlugin>())
//!     .add_plugins(MiroFishPlugin::default().with_tick_rate(60.0))
//!     .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
//! let start = ExperimentConfig { fish: 200, seed: 3, ..default() };
//! app.world_mut().resource_mut::<FlockRecorder>().record(start, 30);
//! for _ in 0..=60 {
//!     app.update();
//! }
//! let world = app.world_mut();
//! let recording = world.resource_scope(|world, mut recorder: Mut<FlockRecorder>| {
//!     recorder.stop(world.resource(), world.resource()).expect("a session")
//! });
//! assert_eq!(recording.ticks, 60);
//! // The core alone runs it again, to the same bits.
//! assert!(recording.replay().is_ok());
//! ```

use bevy::prelude::*;
use mirofish_sim::control::replay::Checkpoint;
use mirofish_sim::observe::state_hash;
use mirofish_sim::{ExperimentConfig, Recording, Simulation};

use crate::commands::FlockCommands;
use crate::components::{
    Boid, Leader, Obstacle2d, Position, Predator2d, PreviousPosition, School, Velocity, WanderPhase,
};
use crate::config::FlockConfig;
use crate::refusals::{self, FlockRefusal, Refused};
use crate::scene_entities::SceneForms;
use crate::state::FlockState;

/// Where the session stands.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Session {
    /// No session: the plugin runs as usual.
    #[default]
    Idle,
    /// Recording since the start asked for (see [`FlockRecorder::record`]).
    Recording,
    /// Replaying a recording, its checkpoints compared as the ticks pass.
    Replaying,
    /// A replay reached its last tick with every checkpoint matched.
    Matched {
        /// Ticks replayed.
        ticks: u64,
    },
    /// A replay gave other bits than the recording at a checkpoint (the
    /// flock was changed outside the commands, or the build differs).
    Diverged {
        /// The checkpoint's tick.
        tick: u64,
        /// The recorded state hash.
        expected: u64,
        /// The replay's.
        found: u64,
    },
}

/// Records and replays sessions of the running app. Ask with
/// [`FlockRecorder::record`] or [`FlockRecorder::replay`]; the plugin
/// starts the session at the beginning of the next tick. Read
/// [`FlockRecorder::session`] for where it stands.
#[derive(Resource, Debug, Default)]
pub struct FlockRecorder {
    session: Session,
    /// A start asked for and not yet made: the configuration, the
    /// checkpoint interval and, for a replay, the recording.
    request: Option<(ExperimentConfig, u64, Option<Recording>)>,
    /// The configuration the session started from.
    config: Option<ExperimentConfig>,
    every: u64,
    checkpoints: Vec<Checkpoint>,
    /// The recording being replayed.
    replaying: Option<Recording>,
    /// Its first checkpoint not yet passed.
    next: usize,
}

impl FlockRecorder {
    /// Starts recording at the next tick, from `start`, with a state hash
    /// every `checkpoint_every` ticks (at least 1). What the app held
    /// before (fish, rocks, predators, queued commands) is cleared.
    pub fn record(&mut self, start: ExperimentConfig, checkpoint_every: u64) {
        self.request = Some((start, checkpoint_every.max(1), None));
    }

    /// Starts replaying `recording` at the next tick: its start laid out
    /// again, its commands queued at their ticks, its checkpoints compared.
    /// A recording that does not validate ([`Recording::validate`]: one
    /// with no checkpoint at its last tick among them) is refused with a
    /// [`FlockRefusal`] and the running session goes on.
    pub fn replay(&mut self, recording: Recording) {
        let every = recording.checkpoints.get(1).map_or(1, |c| c.tick.max(1));
        self.request = Some((recording.config.clone(), every, Some(recording)));
    }

    /// Where the session stands.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// Whether a start is asked for and not yet made.
    pub fn is_starting(&self) -> bool {
        self.request.is_some()
    }

    /// Ends a recording and returns it — the start, every command `commands`
    /// applied since, the checkpoints and a last one for where `state`
    /// stands — and the app runs on as usual. `None` if nothing is being
    /// recorded; stopping a replay ends it too, and returns `None`.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use mirofish_bevy::prelude::*;
    /// fn stop_and_save(
    ///     mut recorder: ResMut<FlockRecorder>,
    ///     state: Res<FlockState>,
    ///     commands: Res<FlockCommands>,
    /// ) {
    ///     if let Some(recording) = recorder.stop(&state, &commands) {
    ///         let _ = recording.save("session.replay");
    ///     }
    /// }
    /// ```
    pub fn stop(&mut self, state: &FlockState, commands: &FlockCommands) -> Option<Recording> {
        let session = core::mem::take(&mut self.session);
        self.replaying = None;
        self.request = None;
        let config = self.config.take()?;
        if session != Session::Recording {
            return None;
        }
        let mut checkpoints = core::mem::take(&mut self.checkpoints);
        let ticks = state.tick();
        if checkpoints.last().is_none_or(|c| c.tick != ticks) {
            checkpoints.push(Checkpoint { tick: ticks, hash: state_hash(state.flock()) });
        }
        let commands = commands.applied().iter().filter(|c| c.tick < ticks).cloned().collect();
        Some(Recording { config, commands, checkpoints, ticks })
    }
}

/// Starts an asked-for session (an exclusive system, run before the tick's
/// commands are applied).
pub(crate) fn start_sessions(world: &mut World) {
    let Some((config, every, replaying)) = world.resource_mut::<FlockRecorder>().request.take() else {
        return;
    };
    let tick = world.resource::<FlockState>().tick();
    // A recording that does not validate (out-of-order or missing
    // checkpoints, a bad command, more ticks than it can verify) is refused
    // before anything of the running session is touched, as in a volume.
    if let Some(Err(e)) = replaying.as_ref().map(Recording::validate) {
        let error = mirofish_sim::ParamError {
            field: "recording",
            value: f32::NAN,
            expected: format!("a valid recording ({e})"),
        };
        refusals::report_in(world, FlockRefusal { tick, what: Refused::Session, error });
        return;
    }
    let sim = match Simulation::from_config(&config) {
        Ok(sim) => sim,
        Err(err) => {
            let error = match err {
                mirofish_sim::ConfigError::Invalid { error, .. } => error,
                other => mirofish_sim::ParamError {
                    field: "recording",
                    value: f32::NAN,
                    expected: format!("a valid start ({other})"),
                },
            };
            refusals::report_in(world, FlockRefusal { tick, what: Refused::Session, error });
            return;
        }
    };
    // Everything of the old run goes, highest entity first (so that the
    // new fish get the freed entities in increasing order).
    let mut old: Vec<Entity> = world
        .query_filtered::<Entity, Or<(With<Boid>, With<Predator2d>, With<Obstacle2d>)>>()
        .iter(world)
        .collect();
    old.sort_unstable_by(|a, b| b.cmp(a));
    for entity in old {
        world.despawn(entity);
    }
    // The file's colours where it names them, the game's elsewhere.
    let colours = world.resource::<FlockConfig>().colours_with(&config);
    let flock_config = FlockConfig { colours, ..FlockConfig::from(&config) };
    world.insert_resource(flock_config.clone());
    {
        let mut state = world.resource_mut::<FlockState>();
        state.restart(flock_config, config.dt);
        let route = config.scene.route.clone();
        // Checked with the configuration.
        let _ = state.flock.edit_scene(|scene| scene.route = route);
    }
    *world.resource_mut::<FlockCommands>() = FlockCommands::default();
    // The old run's samples would read as this one's (its ticks count from
    // 0 again).
    if let Some(mut metrics) = world.get_resource_mut::<crate::FlockMetrics>() {
        metrics.clear();
    }
    // The fish, one at a time in the core's order: every fish carries its
    // `School`, so that the fish of one kind share a table in that order.
    let (p, v, phase) = (sim.positions(), sim.velocities(), sim.wander_phases());
    let (schools, leaders) = (sim.schools(), sim.leaders());
    for slot in 0..sim.len() {
        let fish = (
            Boid,
            Position(p[slot]),
            PreviousPosition(p[slot]),
            Velocity(v[slot]),
            WanderPhase(phase[slot]),
            School(schools.get(slot).copied().unwrap_or(0)),
            Transform::from_translation(p[slot].extend(0.0)),
        );
        if leaders.get(slot).copied().unwrap_or(false) {
            world.spawn((fish, Leader));
        } else {
            world.spawn(fish);
        }
    }
    // The rocks and predators in the scene's order, as the commands add
    // them.
    let mut commands = world.commands();
    for o in &config.scene.obstacles {
        Vec2::spawn_rock(&mut commands, o);
    }
    for p in &config.scene.predators {
        Vec2::spawn_hunter(&mut commands, p);
    }
    world.flush();
    if let Some(recording) = &replaying {
        let mut queue = world.resource_mut::<FlockCommands>();
        for stamped in &recording.commands {
            // Validated with the recording: a refusal here is a bug.
            if let Err(e) = queue.schedule(stamped.tick, stamped.command.clone()) {
                log::warn!("MiroFish: replayed command refused: {e}");
            }
        }
    }
    let first = Checkpoint { tick: 0, hash: state_hash(&sim) };
    let mut recorder = world.resource_mut::<FlockRecorder>();
    recorder.session = if replaying.is_some() { Session::Replaying } else { Session::Recording };
    recorder.config = Some(config);
    recorder.every = every;
    recorder.checkpoints = vec![first];
    recorder.replaying = replaying;
    recorder.next = 0;
}

/// After the write-back: a checkpoint when one is due; a replay compares
/// it, and ends at its last tick.
pub(crate) fn take_checkpoints(state: Res<FlockState>, mut recorder: ResMut<FlockRecorder>) {
    if !matches!(recorder.session, Session::Recording | Session::Replaying) {
        return;
    }
    let tick = state.tick();
    if recorder.session == Session::Recording {
        if tick.is_multiple_of(recorder.every) {
            recorder.checkpoints.push(Checkpoint { tick, hash: state_hash(state.flock()) });
        }
        return;
    }
    let Some(recording) = recorder.replaying.as_ref() else { return };
    let mut next = recorder.next;
    let ended = compare_checkpoint(&recording.checkpoints, recording.ticks, &mut next, tick, || {
        state_hash(state.flock())
    });
    recorder.next = next;
    if let Some(ended) = ended {
        recorder.session = ended;
        recorder.replaying = None;
    }
}

/// A replay at `tick`: compares the recording's checkpoint at this tick,
/// if it has one (`hash` gives the state's), and says how the replay ended
/// — [`Session::Diverged`] at a checkpoint that differs,
/// [`Session::Matched`] at `last`, its last tick — or `None` while it goes
/// on. `next` is the first checkpoint not yet passed.
pub(crate) fn compare_checkpoint(
    checkpoints: &[Checkpoint],
    last: u64,
    next: &mut usize,
    tick: u64,
    hash: impl FnOnce() -> u64,
) -> Option<Session> {
    // The checkpoints come by tick: step past those behind, compare the
    // one at this tick if there is one.
    while checkpoints.get(*next).is_some_and(|c| c.tick < tick) {
        *next += 1;
    }
    if let Some(expected) = checkpoints.get(*next).filter(|c| c.tick == tick).map(|c| c.hash) {
        let found = hash();
        if found != expected {
            return Some(Session::Diverged { tick, expected, found });
        }
    }
    (tick >= last).then_some(Session::Matched { ticks: last })
}
