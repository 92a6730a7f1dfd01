//! Recorded play: a session of the running app saved as a
//! [`Recording`] — the configuration it started from, every command
//! applied, and state hashes along the way — and replayed inside the app,
//! or by the core alone (`Recording::replay`, what `mirofish-lab replay`
//! runs), to the same bits.
//!
//! One recorder for both spaces: [`FlockRecorder`] on a plane,
//! [`Flock3dRecorder`](crate::volume::Flock3dRecorder) in a volume, each a
//! [`FlockRecorderOf`] over the space's vector, with the space's
//! configuration ([`ExperimentConfig`], [`VolumeConfig`]) and recording
//! ([`Recording`], [`VolumeRecording`]).
//!
//! A session starts from a configuration: the plugin clears its fish,
//! rocks, predators, queued commands and metrics and lays the start out
//! exactly as the core's `Swarm::from_config` does (it is that very run,
//! with an entity for each fish), with the configuration's time step for
//! every tick. From then on every change that should be part of the
//! session goes through [`crate::FlockCommands`] — the mouse tools of the
//! aquarium do — and is noted with its tick. Changes made around the
//! commands (writing components, [`crate::FlockConfig`] or
//! [`crate::ExtraSteering`]) are not in the recording, and a replay will
//! not reproduce them; [`FlockRecorderOf::changed_outside_commands`] says
//! whether the school was changed that way since the session started.
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
//!
//! [`ExperimentConfig`]: mirofish_sim::ExperimentConfig
//! [`VolumeConfig`]: mirofish_sim::VolumeConfig
//! [`Recording`]: mirofish_sim::Recording
//! [`VolumeRecording`]: mirofish_sim::VolumeRecording

use bevy::prelude::*;
use mirofish_sim::control::replay::{Checkpoint, RecordingOf, Scenario};
use mirofish_sim::observe::state_hash;
use mirofish_sim::{FlockCommand, ParamError, RunConfig, Stamped};

use crate::commands::FlockCommands;
use crate::refusals::{self, FlockRefusal, Refused};
use crate::space::Space;
use crate::start;
use crate::state::FlockState;

/// Where the session stands.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Session {
    /// No session: the plugin runs as usual.
    #[default]
    Idle,
    /// Recording since the start asked for (see [`FlockRecorderOf::record`]).
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

/// Records and replays sessions of the running app, in either space.
/// Ask with [`FlockRecorderOf::record`] or [`FlockRecorderOf::replay`];
/// the plugin starts the session at the beginning of the next tick (right
/// after [`crate::BoidSystems::Commands`]). Read
/// [`FlockRecorderOf::session`] for where it stands. Starting the school
/// over by other means (a [`crate::Restart`], a [`crate::LoadConfig`])
/// ends the session.
#[derive(Resource, Debug)]
pub struct FlockRecorderOf<V: Space> {
    session: Session,
    /// A start asked for and not yet made, or why it was refused.
    request: Option<Result<Request<V>, ParamError>>,
    /// The configuration the session started from.
    config: Option<RunConfig<V>>,
    /// Ticks between two checkpoints of a recording.
    every: u64,
    /// A recording's checkpoints so far.
    checkpoints: Vec<Checkpoint>,
    /// The recording being replayed.
    replaying: Option<Replaying>,
    /// The state's count of changes outside the commands when the session
    /// started.
    outside_commands: u64,
}

/// Records and replays sessions on a plane: [`FlockRecorderOf`] over
/// `Vec2`.
pub type FlockRecorder = FlockRecorderOf<Vec2>;

/// A session asked for.
#[derive(Debug)]
struct Request<V: Space> {
    /// Its start.
    config: RunConfig<V>,
    /// Ticks between two checkpoints of a recording.
    every: u64,
    /// A replay's commands, queued at their ticks.
    commands: Vec<Stamped<FlockCommand<V>>>,
    /// A replay's checkpoints.
    replay: Option<Replaying>,
}

/// What a replay compares as it runs.
#[derive(Debug)]
struct Replaying {
    /// The recording's checkpoints, by tick.
    checkpoints: Vec<Checkpoint>,
    /// The recording's last tick.
    ticks: u64,
    /// The first checkpoint not yet passed.
    next: usize,
}

impl<V: Space> Default for FlockRecorderOf<V> {
    fn default() -> Self {
        Self {
            session: Session::Idle,
            request: None,
            config: None,
            every: 1,
            checkpoints: Vec::new(),
            replaying: None,
            outside_commands: 0,
        }
    }
}

impl<V: Space> FlockRecorderOf<V> {
    /// Starts recording at the next tick, from `start`, with a state hash
    /// every `checkpoint_every` ticks (at least 1). What the app held
    /// before (fish, rocks, predators, queued commands) is cleared. A
    /// start that does not validate is refused with a [`FlockRefusal`] and
    /// the running session goes on.
    pub fn record(&mut self, start: RunConfig<V>, checkpoint_every: u64) {
        let every = checkpoint_every.max(1);
        self.request = Some(Ok(Request { config: start, every, commands: Vec::new(), replay: None }));
    }

    /// Where the session stands.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// Whether a start is asked for and not yet made.
    pub fn is_starting(&self) -> bool {
        self.request.is_some()
    }

    /// Whether the school was changed outside the commands since the
    /// running session started ([`FlockState::changes_outside_commands`]):
    /// a configuration written, fish spawned or despawned as entities. A
    /// recording of such a session does not replay to its end (its
    /// checkpoints say where it parts). `false` with no session running.
    pub fn changed_outside_commands(&self, state: &FlockState<V>) -> bool {
        matches!(self.session, Session::Recording | Session::Replaying)
            && state.changes_outside_commands() != self.outside_commands
    }

    /// Ends the session, whatever it is, and forgets a start asked for.
    pub(crate) fn end(&mut self) {
        *self = Self::default();
    }
}

impl<V: Space> FlockRecorderOf<V>
where
    RunConfig<V>: Scenario<Command = FlockCommand<V>>,
{
    /// Starts replaying `recording` at the next tick: its start laid out
    /// again, its commands queued at their ticks, its checkpoints compared,
    /// every tick at the recording's step (and after its end too, until
    /// the school starts over). A recording that does not validate
    /// ([`RecordingOf::validate`]: one with no checkpoint at its last
    /// tick among them) is refused with a [`FlockRefusal`] at that tick and
    /// the running session goes on.
    pub fn replay(&mut self, recording: RecordingOf<RunConfig<V>>) {
        if let Err(e) = recording.validate() {
            self.request = Some(Err(ParamError {
                field: "recording",
                value: f32::NAN,
                expected: format!("a valid recording ({e})"),
            }));
            return;
        }
        let every = recording.checkpoints.get(1).map_or(1, |c| c.tick.max(1));
        let replay = Replaying { checkpoints: recording.checkpoints, ticks: recording.ticks, next: 0 };
        let request =
            Request { config: recording.config, every, commands: recording.commands, replay: Some(replay) };
        self.request = Some(Ok(request));
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
    pub fn stop(
        &mut self,
        state: &FlockState<V>,
        commands: &FlockCommands<V>,
    ) -> Option<RecordingOf<RunConfig<V>>> {
        let recording = self.recording(state, commands);
        self.end();
        recording
    }

    /// The session so far as a recording, as [`FlockRecorderOf::stop`]
    /// gives it, while it goes on. `None` if nothing is being recorded.
    pub fn recording(
        &self,
        state: &FlockState<V>,
        commands: &FlockCommands<V>,
    ) -> Option<RecordingOf<RunConfig<V>>> {
        if self.session != Session::Recording {
            return None;
        }
        let config = self.config.clone()?;
        let mut checkpoints = self.checkpoints.clone();
        let ticks = state.tick();
        if checkpoints.last().is_none_or(|c| c.tick != ticks) {
            checkpoints.push(Checkpoint { tick: ticks, hash: state_hash(state.flock()) });
        }
        let commands = commands.applied().iter().filter(|c| c.tick < ticks).cloned().collect();
        Some(RecordingOf { config, commands, checkpoints, ticks })
    }
}

/// Starts an asked-for session (an exclusive system, run before the tick's
/// commands are handed over).
pub(crate) fn start_sessions<V: Space>(world: &mut World) {
    let Some(request) = world.resource_mut::<FlockRecorderOf<V>>().request.take() else {
        return;
    };
    let tick = world.resource::<FlockState<V>>().tick();
    // A recording that does not validate (out-of-order or missing
    // checkpoints, a bad command, more ticks than it can verify) was
    // refused before anything of the running session is touched.
    let request = match request {
        Ok(request) => request,
        Err(error) => {
            refusals::report_in(world, FlockRefusal { tick, what: Refused::Session, error });
            return;
        }
    };
    let dt = request.config.dt;
    if !start::load(world, "FlockRecorder", &request.config, Refused::Session, Some(dt)) {
        return;
    }
    let mut queue = world.resource_mut::<FlockCommands<V>>();
    for stamped in request.commands {
        // Validated with the recording: a refusal here is a bug.
        if let Err(e) = queue.schedule(stamped.tick, stamped.command) {
            log::warn!("MiroFish: replayed command refused: {e}");
        }
    }
    let state = world.resource::<FlockState<V>>();
    let (first, outside) =
        (Checkpoint { tick: 0, hash: state_hash(state.flock()) }, state.changes_outside_commands());
    let mut recorder = world.resource_mut::<FlockRecorderOf<V>>();
    recorder.session = if request.replay.is_some() { Session::Replaying } else { Session::Recording };
    recorder.config = Some(request.config);
    recorder.every = request.every;
    recorder.checkpoints = vec![first];
    recorder.replaying = request.replay;
    recorder.outside_commands = outside;
    // A replay compares its start too.
    recorder.check_replay(0, || first.hash);
}

/// After the write-back: a checkpoint when one is due; a replay compares
/// it, and ends at its last tick.
pub(crate) fn take_checkpoints<V: Space>(
    state: Res<FlockState<V>>,
    mut recorder: ResMut<FlockRecorderOf<V>>,
) {
    let tick = state.tick();
    match recorder.session {
        Session::Recording if tick.is_multiple_of(recorder.every) => {
            recorder.checkpoints.push(Checkpoint { tick, hash: state_hash(state.flock()) });
        }
        Session::Replaying => recorder.check_replay(tick, || state_hash(state.flock())),
        _ => {}
    }
}

impl<V: Space> FlockRecorderOf<V> {
    /// A replay at `tick`: compares the recording's checkpoint at this
    /// tick, if it has one (`hash` gives the state's), and ends the replay
    /// at a checkpoint that differs ([`Session::Diverged`]) or at its last
    /// tick ([`Session::Matched`]).
    fn check_replay(&mut self, tick: u64, hash: impl FnOnce() -> u64) {
        let Some(replaying) = self.replaying.as_mut() else { return };
        let Replaying { checkpoints, ticks, next } = replaying;
        if let Some(ended) = compare_checkpoint(checkpoints, *ticks, next, tick, hash) {
            self.session = ended;
            self.replaying = None;
        }
    }
}

/// A replay at `tick`: compares the recording's checkpoint at this tick,
/// if it has one (`hash` gives the state's), and says how the replay ended
/// — [`Session::Diverged`] at a checkpoint that differs,
/// [`Session::Matched`] at `last`, its last tick — or `None` while it goes
/// on. `next` is the first checkpoint not yet passed.
fn compare_checkpoint(
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
