//! Record and replay: a run saved as its configuration plus the
//! commands applied during it, checked against state hashes taken along the
//! way.
//!
//! A [`Recorder`] wraps a [`Simulation`]: schedule commands on it, step it,
//! and it notes the state hash every `checkpoint_every` ticks. Its
//! [`Recording`] is written to a text file:
//!
//! ```text
//! # mirofish-replay 1 bytes=1234 fnv=89abcdef01234567
//! (config: (...), commands: [...], checkpoints: [...], ticks: 600)
//! ```
//!
//! The header line holds the format version, the length and an FNV-1a
//! checksum of the RON body below it; a run in a volume
//! ([`VolumeRecording`]: a [`VolumeConfig`] and its [`VolumeCommand`]s)
//! adds `space=volume` after the version, and each kind of recording
//! refuses the other by name ([`space_of`] tells them apart). [`Recording::load`] checks, in this
//! order, that the file is a replay at all, that its version is one this
//! build reads, that it is complete, that it is intact, that it parses, and
//! that every value in it is valid — all before a single tick is simulated,
//! so a bad file is refused whole and nothing is half-applied.
//! [`Recording::replay`] then re-runs it and compares every checkpoint.

use core::fmt;
use std::path::{Path, PathBuf};

use crate::control::config::{ConfigError, ExperimentConfig, read_bounded};
use crate::control::simulation::Simulation;
use crate::control::volume::VolumeConfig;
use crate::math::Vector;
use crate::observe::state_hash;
use crate::space::{Flock3d, Swarm};
use crate::step::command::{Command, CommandError, FlockCommand, Stamped, VolumeCommand, upgrade_words};
use crate::world::params::ParamError;

/// The first word of every replay file.
pub const MAGIC: &str = "# mirofish-replay";
/// The format version this build writes and reads. Raise it when the
/// meaning of a saved run changes (a rule, the integrator, the noise), so
/// old files are refused instead of replaying to a different result.
pub const FORMAT_VERSION: u32 = 1;
/// Most ticks a replay may last (about nineteen days at 60 ticks a
/// second): a longer one is refused before anything runs.
pub const MAX_TICKS: u64 = 100_000_000;
/// Largest replay or configuration file read, in bytes.
pub const MAX_FILE_BYTES: u64 = 256 << 20;

/// The state hash after a tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Checkpoint {
    /// Ticks completed.
    pub tick: u64,
    /// [`state_hash`] of the flock at that point.
    pub hash: u64,
}

/// What a recording starts from: a configuration that builds a run, the
/// commands that run takes, and its state hash. Implemented by the
/// plane's [`ExperimentConfig`] (a [`Simulation`]) and the volume's
/// [`VolumeConfig`] (a [`Flock3d`]).
pub trait Scenario: Clone + PartialEq + fmt::Debug + serde::Serialize + serde::de::DeserializeOwned {
    /// The commands of the run.
    type Command: Command + PartialEq + fmt::Debug + serde::Serialize + serde::de::DeserializeOwned;
    /// The run the configuration builds.
    type Run: fmt::Debug;
    /// The word after `space=` in a replay's header; `None` for the plane
    /// (whose files have no such word).
    const SPACE: Option<&'static str>;
    /// Checks every field of the configuration.
    fn check(&self) -> Result<(), ConfigError>;
    /// Checks a command against the configuration's tank.
    fn check_command(&self, command: &Self::Command) -> Result<(), ParamError>;
    /// Builds the run at tick 0.
    fn start(&self) -> Result<Self::Run, ConfigError>;
    /// Queues a command on the run (see [`Simulation::schedule`]).
    fn schedule(run: &mut Self::Run, tick: u64, command: Self::Command) -> Result<(), CommandError>;
    /// One tick of the run.
    fn step(run: &mut Self::Run) -> Result<(), ParamError>;
    /// Ticks the run has completed.
    fn tick(run: &Self::Run) -> u64;
    /// The run's state hash (every fish, bit for bit).
    fn hash(run: &Self::Run) -> u64;
    /// The commands the run has applied, in order.
    fn applied(run: &Self::Run) -> &[Stamped<Self::Command>];
    /// The other space's scenario: a body that fails to read as this
    /// space's but reads as that one's was put under the wrong header.
    type Other: Scenario;
}

impl Scenario for ExperimentConfig {
    type Command = FlockCommand;
    type Run = Simulation;
    type Other = VolumeConfig;
    const SPACE: Option<&'static str> = None;
    fn check(&self) -> Result<(), ConfigError> {
        self.validate()
    }
    fn check_command(&self, command: &FlockCommand) -> Result<(), ParamError> {
        command.validate_in(&self.tank)
    }
    fn start(&self) -> Result<Simulation, ConfigError> {
        Simulation::from_config(self)
    }
    fn schedule(run: &mut Simulation, tick: u64, command: FlockCommand) -> Result<(), CommandError> {
        run.schedule(tick, command)
    }
    fn step(run: &mut Simulation) -> Result<(), ParamError> {
        run.step();
        Ok(())
    }
    fn tick(run: &Simulation) -> u64 {
        run.tick()
    }
    fn hash(run: &Simulation) -> u64 {
        state_hash(run)
    }
    fn applied(run: &Simulation) -> &[Stamped] {
        run.applied()
    }
}

impl Scenario for VolumeConfig {
    type Command = VolumeCommand;
    type Run = Flock3d;
    type Other = ExperimentConfig;
    const SPACE: Option<&'static str> = Some("volume");
    fn check(&self) -> Result<(), ConfigError> {
        self.validate()
    }
    fn check_command(&self, command: &VolumeCommand) -> Result<(), ParamError> {
        command.validate_in(&self.tank)
    }
    fn start(&self) -> Result<Flock3d, ConfigError> {
        Flock3d::from_config(self)
    }
    fn schedule(run: &mut Flock3d, tick: u64, command: VolumeCommand) -> Result<(), CommandError> {
        run.schedule(tick, command)
    }
    fn step(run: &mut Flock3d) -> Result<(), ParamError> {
        run.step();
        Ok(())
    }
    fn tick(run: &Flock3d) -> u64 {
        run.tick()
    }
    fn hash(run: &Flock3d) -> u64 {
        state_hash(run)
    }
    fn applied(run: &Flock3d) -> &[Stamped<VolumeCommand>] {
        run.applied()
    }
}

/// A recorded run on a plane.
pub type Recording = RecordingOf<ExperimentConfig>;
/// A recorded run in a volume.
pub type VolumeRecording = RecordingOf<VolumeConfig>;
/// Records a run on a plane.
pub type Recorder = RecorderOf<ExperimentConfig>;
/// Records a run in a volume.
pub type VolumeRecorder = RecorderOf<VolumeConfig>;

/// A recorded run: enough to reproduce it and to check that it did.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, bound = "")]
pub struct RecordingOf<S: Scenario> {
    /// The start.
    pub config: S,
    /// Every command applied, with its tick, in the order applied.
    pub commands: Vec<Stamped<S::Command>>,
    /// State hashes along the way, by increasing tick.
    pub checkpoints: Vec<Checkpoint>,
    /// Ticks the run lasted.
    pub ticks: u64,
}

/// Records a run: the run plus the checkpoints taken while it steps.
#[derive(Debug)]
pub struct RecorderOf<S: Scenario> {
    sim: S::Run,
    config: S,
    checkpoint_every: u64,
    checkpoints: Vec<Checkpoint>,
}

impl<V: Vector> RecorderOf<crate::control::config::RunConfig<V>>
where
    crate::control::config::RunConfig<V>: Scenario<Run = Swarm<V>>,
{
    /// Whether the run keeps every fish's rule forces (for metrics). An
    /// observation switch only: it does not change the state.
    pub fn record_rules(&mut self, record: bool) {
        self.sim.set_record_rules(record);
    }
}

impl<S: Scenario> RecorderOf<S> {
    /// Starts the run `config` describes, hashing the state every
    /// `checkpoint_every` ticks (at least 1) and at the end.
    pub fn new(config: S, checkpoint_every: u64) -> Result<Self, ConfigError> {
        let sim = config.start()?;
        let first = Checkpoint { tick: 0, hash: S::hash(&sim) };
        Ok(Self { sim, config, checkpoint_every: checkpoint_every.max(1), checkpoints: vec![first] })
    }

    /// The run being recorded (read only: changes go through commands, or
    /// they would not be in the recording).
    pub fn simulation(&self) -> &S::Run {
        &self.sim
    }

    /// Queues a command; see [`Simulation::schedule`].
    pub fn schedule(&mut self, tick: u64, command: S::Command) -> Result<(), CommandError> {
        S::schedule(&mut self.sim, tick, command)
    }

    /// One tick, with a checkpoint when one is due.
    pub fn step(&mut self) -> Result<(), ParamError> {
        S::step(&mut self.sim)?;
        let tick = S::tick(&self.sim);
        if tick.is_multiple_of(self.checkpoint_every) {
            self.checkpoints.push(Checkpoint { tick, hash: S::hash(&self.sim) });
        }
        Ok(())
    }

    /// `ticks` ticks.
    pub fn run(&mut self, ticks: u64) -> Result<(), ParamError> {
        (0..ticks).try_for_each(|_| self.step())
    }

    /// Ends the recording (with a final checkpoint) and returns it.
    /// Commands still queued for later ticks were never applied, so they
    /// are not part of it.
    pub fn finish(mut self) -> RecordingOf<S> {
        let tick = S::tick(&self.sim);
        if self.checkpoints.last().is_none_or(|c| c.tick != tick) {
            self.checkpoints.push(Checkpoint { tick, hash: S::hash(&self.sim) });
        }
        RecordingOf {
            config: self.config,
            commands: S::applied(&self.sim).to_vec(),
            checkpoints: self.checkpoints,
            ticks: tick,
        }
    }
}

impl<S: Scenario> RecordingOf<S> {
    /// The recording of a run that `config` started and that only its
    /// commands changed since (a game's session, kept by the run itself):
    /// the start's and the end's state hashes as checkpoints. A run also
    /// changed another way (a fish moved by hand, a game's force) does not
    /// replay to its end, and [`RecordingOf::replay`] says so.
    pub fn of_run(config: S, run: &S::Run) -> Result<Self, ConfigError> {
        let start = S::hash(&config.start()?);
        let ticks = S::tick(run);
        let mut checkpoints = vec![Checkpoint { tick: 0, hash: start }];
        if ticks > 0 {
            checkpoints.push(Checkpoint { tick: ticks, hash: S::hash(run) });
        }
        Ok(Self { config, commands: S::applied(run).to_vec(), checkpoints, ticks })
    }

    /// The file's text: header line and RON body.
    pub fn to_text(&self) -> String {
        let pretty = ron::ser::PrettyConfig::new().struct_names(false).depth_limit(3);
        let body = ron::ser::to_string_pretty(self, pretty).expect("a recording serializes");
        let space = S::SPACE.map_or(String::new(), |s| format!(" space={s}"));
        let fnv = fnv1a(body.as_bytes());
        format!("{MAGIC} {FORMAT_VERSION}{space} bytes={} fnv={fnv:016x}\n{body}", body.len())
    }

    /// Reads a recording from text, checking header, length, checksum,
    /// syntax and every value (see the module docs).
    pub fn from_text(text: &str) -> Result<Self, ReplayError> {
        let (header, body) = text.split_once('\n').unwrap_or((text, ""));
        let Some(rest) = header.strip_prefix(MAGIC) else {
            let start: String = header.chars().take(40).collect();
            return Err(ReplayError::Foreign { start });
        };
        let version = rest.split_whitespace().next().unwrap_or_default();
        if version.is_empty() || !version.bytes().all(|b| b.is_ascii_digit()) {
            return Err(ReplayError::Corrupt { reason: "the header has no format version".into() });
        }
        if version.parse::<u32>() != Ok(FORMAT_VERSION) {
            let found: String = version.chars().take(24).collect();
            return Err(ReplayError::Version { found, supported: FORMAT_VERSION });
        }
        let space = space_word(rest);
        if space != S::SPACE.unwrap_or(PLANE) {
            let found: String = space.chars().take(24).collect();
            return Err(ReplayError::Space { found, expected: S::SPACE.unwrap_or(PLANE) });
        }
        let field = |name: &str| {
            rest.split_whitespace()
                .find_map(|w| w.strip_prefix(name))
                .ok_or_else(|| ReplayError::Corrupt { reason: format!("the header has no `{name}`") })
        };
        let bytes: usize = field("bytes=")?
            .parse()
            .map_err(|_| ReplayError::Corrupt { reason: "the header's length is not a number".into() })?;
        let checksum = u64::from_str_radix(field("fnv=")?, 16).map_err(|_| ReplayError::Corrupt {
            reason: "the header's checksum is not hexadecimal".into(),
        })?;
        let intact = fnv1a(body.as_bytes()) == checksum;
        // A body cut short ends anywhere; one edited to another length still
        // ends as a recording does: then the checksum is what says so.
        if body.len() < bytes && !body.trim_end().ends_with(')') {
            return Err(ReplayError::Truncated { expected: bytes, found: body.len() });
        }
        if !intact {
            let length = if body.len() == bytes {
                String::new()
            } else {
                format!(" (its body has {} bytes, the header announces {bytes})", body.len())
            };
            return Err(ReplayError::Corrupt {
                reason: format!("checksum mismatch: the file was altered{length}"),
            });
        }
        if body.len() != bytes {
            return Err(ReplayError::Corrupt {
                reason: format!("its body has {} bytes, the header announces {bytes}", body.len()),
            });
        }
        // Checked against the checksum as written, parsed in today's words.
        let body = upgrade_words(body);
        let body = body.as_ref();
        let recording: Self = ron::from_str(body).map_err(|e| {
            // Intact (the checksum matched) yet unreadable: the header may
            // name the wrong space.
            if ron::from_str::<RecordingOf<S::Other>>(body).is_ok() {
                let place = |space: Option<&str>| if space.is_some() { "in a volume" } else { "on a plane" };
                let (said, is) = (place(S::SPACE), place(S::Other::SPACE));
                return ReplayError::Corrupt {
                    reason: format!("its header is for a run {said}, but its body records a run {is}"),
                };
            }
            ReplayError::Corrupt {
                reason: format!("line {}, column {}: {}", e.span.start.line + 1, e.span.start.col, e.code),
            }
        })?;
        recording.validate()?;
        Ok(recording)
    }

    /// Checks the configuration, the length, every command, the order of
    /// the checkpoints, and that one verifies the last tick: a recording
    /// that could replay without being compared at its end is refused.
    pub fn validate(&self) -> Result<(), ReplayError> {
        self.config.check().map_err(ReplayError::Config)?;
        if self.ticks > MAX_TICKS {
            return Err(ReplayError::TooLarge { what: "ticks", value: self.ticks, limit: MAX_TICKS });
        }
        let mut last = 0;
        for (index, stamped) in self.commands.iter().enumerate() {
            let out_of_order = stamped.tick < last || stamped.tick >= self.ticks.max(1);
            if out_of_order {
                return Err(ReplayError::Corrupt {
                    reason: format!(
                        "command {index} at tick {} is out of order or after the end",
                        stamped.tick
                    ),
                });
            }
            self.config
                .check_command(&stamped.command)
                .map_err(|error| ReplayError::FlockCommand { index, error })?;
            last = stamped.tick;
        }
        check_checkpoints(&self.checkpoints, self.ticks)
    }
    /// Writes the recording.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), ReplayError> {
        let path = path.as_ref();
        std::fs::write(path, self.to_text())
            .map_err(|e| ReplayError::Io { path: path.to_owned(), source: e.to_string() })
    }

    /// Reads and checks a recording file.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, ReplayError> {
        let path = path.as_ref();
        let io = |e: std::io::Error| ReplayError::Io { path: path.to_owned(), source: e.to_string() };
        let Some(bytes) = read_bounded(path, MAX_FILE_BYTES).map_err(io)? else {
            let value = MAX_FILE_BYTES + 1;
            return Err(ReplayError::TooLarge { what: "bytes", value, limit: MAX_FILE_BYTES });
        };
        let text = String::from_utf8(bytes)
            .map_err(|_| ReplayError::Corrupt { reason: "the file is not UTF-8 text".into() })?;
        Self::from_text(&text)
    }

    /// Re-runs the recording from its configuration, applying its commands
    /// at their ticks, and compares the state hash at every checkpoint.
    /// Returns the simulation at the end on success.
    pub fn replay(&self) -> Result<S::Run, ReplayError> {
        self.replay_watched(|_| {})
    }

    /// [`RecordingOf::replay`], calling `on_tick` with the number of ticks
    /// done after each one (a progress bar for a long replay).
    pub fn replay_watched(&self, mut on_tick: impl FnMut(u64)) -> Result<S::Run, ReplayError> {
        self.validate()?;
        let mut sim = self.config.start().map_err(ReplayError::Config)?;
        for stamped in &self.commands {
            S::schedule(&mut sim, stamped.tick, stamped.command.clone())
                .map_err(|e| ReplayError::Corrupt { reason: e.to_string() })?;
        }
        let mut checkpoints = self.checkpoints.iter().peekable();
        loop {
            while let Some(c) = checkpoints.next_if(|c| c.tick == S::tick(&sim)) {
                let found = S::hash(&sim);
                if found != c.hash {
                    return Err(ReplayError::Diverged { tick: c.tick, expected: c.hash, found });
                }
            }
            if S::tick(&sim) >= self.ticks {
                break;
            }
            S::step(&mut sim)
                .map_err(|error| ReplayError::Config(ConfigError::Invalid { section: "", error }))?;
            on_tick(S::tick(&sim));
        }
        Ok(sim)
    }
}

impl<S: Scenario> RecordingOf<S> {
    /// The same run recorded again by this build: its configuration and
    /// commands run to its length, its checkpoints taken anew at the same
    /// ticks. What converts a recording made by a build that started or
    /// stepped the run otherwise (a replay of it diverges), keeping its
    /// commands; check first that the change of build is the only reason.
    ///
    /// # Errors
    ///
    /// If the recording does not validate, or its start or a command is
    /// refused.
    pub fn rerecord(&self) -> Result<Self, ReplayError> {
        self.validate()?;
        let mut run = self.config.start().map_err(ReplayError::Config)?;
        for stamped in &self.commands {
            S::schedule(&mut run, stamped.tick, stamped.command.clone())
                .map_err(|e| ReplayError::Corrupt { reason: e.to_string() })?;
        }
        let mut checkpoints = Vec::with_capacity(self.checkpoints.len());
        for c in &self.checkpoints {
            while S::tick(&run) < c.tick {
                S::step(&mut run)
                    .map_err(|error| ReplayError::Config(ConfigError::Invalid { section: "", error }))?;
            }
            checkpoints.push(Checkpoint { tick: c.tick, hash: S::hash(&run) });
        }
        let commands = S::applied(&run).to_vec();
        Ok(Self { config: self.config.clone(), commands, checkpoints, ticks: self.ticks })
    }
}

/// Checks a recording's checkpoints against its length: strictly
/// increasing ticks, none past the end, and the last one at the last tick,
/// so that a replay that passes has been compared where it ends.
fn check_checkpoints(checkpoints: &[Checkpoint], ticks: u64) -> Result<(), ReplayError> {
    for (index, pair) in checkpoints.windows(2).enumerate() {
        let (before, after) = (pair[0].tick, pair[1].tick);
        let reason = if before == after {
            format!("checkpoints {index} and {} are both at tick {after}", index + 1)
        } else if after < before {
            format!("checkpoint {} at tick {after} comes after one at tick {before}", index + 1)
        } else {
            continue;
        };
        return Err(ReplayError::Corrupt { reason });
    }
    match checkpoints.last() {
        Some(last) if last.tick > ticks => Err(ReplayError::Corrupt {
            reason: format!(
                "checkpoint {} at tick {} is past the recording's end (tick {ticks})",
                checkpoints.len() - 1,
                last.tick
            ),
        }),
        Some(last) if last.tick == ticks => Ok(()),
        last => Err(ReplayError::Unverified { ticks, last: last.map(|c| c.tick) }),
    }
}

/// Why a recording was refused or did not reproduce.
#[derive(Clone, Debug, PartialEq)]
pub enum ReplayError {
    /// The file could not be read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's message.
        source: String,
    },
    /// Not a MiroFish replay file at all.
    Foreign {
        /// The start of its first line.
        start: String,
    },
    /// A run in another space than the one asked for (a volume's replay
    /// read as a plane's, or the other way round).
    Space {
        /// The file's space (`plane` or `volume`).
        found: String,
        /// The space asked for.
        expected: &'static str,
    },
    /// Written by a build with another format version.
    Version {
        /// The file's version, as written.
        found: String,
        /// The version this build reads.
        supported: u32,
    },
    /// Shorter than its header says: the file was cut off.
    Truncated {
        /// Bytes announced.
        expected: usize,
        /// Bytes present.
        found: usize,
    },
    /// Damaged or altered: checksum, syntax or structure.
    Corrupt {
        /// What is wrong.
        reason: String,
    },
    /// Longer than this build replays, or a file larger than it reads.
    TooLarge {
        /// What is too large: `ticks` or `bytes`.
        what: &'static str,
        /// How large it is.
        value: u64,
        /// The most accepted.
        limit: u64,
    },
    /// No checkpoint at its last tick: replaying it would verify nothing
    /// (or not where it ends), so it is refused rather than passed.
    Unverified {
        /// The recording's length.
        ticks: u64,
        /// The tick of its last checkpoint, if it has one.
        last: Option<u64>,
    },
    /// The configuration in it is invalid.
    Config(ConfigError),
    /// A command in it is invalid.
    FlockCommand {
        /// Its position in the log.
        index: usize,
        /// The bad value.
        error: ParamError,
    },
    /// Replaying gave another state than the recording's.
    Diverged {
        /// The first checkpoint that differs.
        tick: u64,
        /// The recorded hash.
        expected: u64,
        /// The replayed hash.
        found: u64,
    },
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            ReplayError::Foreign { start } => {
                write!(f, "not a MiroFish replay (expected `{MAGIC}`, found `{start}`)")
            }
            ReplayError::Version { found, supported } => write!(
                f,
                "replay format version {found} is not supported (this build reads version {supported})"
            ),
            ReplayError::Space { found, expected } => write!(
                f,
                "this replay is of a school in a {found}, not in a {expected} (`mirofish-lab replay` reads both)"
            ),
            ReplayError::Truncated { expected, found } => {
                write!(f, "replay is truncated: {found} of {expected} bytes")
            }
            ReplayError::Corrupt { reason } => write!(f, "replay is corrupt: {reason}"),
            ReplayError::TooLarge { what: "bytes", value, limit } if value > limit => {
                write!(f, "replay is too large: more than {limit} bytes")
            }
            ReplayError::TooLarge { what, value, limit } => {
                write!(f, "replay is too large: {value} {what}, at most {limit}")
            }
            ReplayError::Unverified { ticks, last } => {
                let last = last.map_or("none at all".to_string(), |t| format!("its last is at tick {t}"));
                write!(
                    f,
                    "replay cannot be verified: it has no checkpoint at its last tick, {ticks} ({last}); record it again"
                )
            }
            ReplayError::Config(e) => write!(f, "replay configuration: {e}"),
            ReplayError::FlockCommand { index, error } => write!(f, "replay command {index}: {error}"),
            ReplayError::Diverged { tick: 0, expected, found } => write!(
                f,
                "replay diverged at its start (tick 0): state hash {found:016x}, recorded {expected:016x}. This build \
                 starts the configuration's school otherwise than the one that recorded it (on a plane, fish \
                 drawn inside a rock now start pushed out of it, as in a volume); `mirofish-lab replay FILE \
                 --rerecord NEW` records the same configuration and commands again under this build"
            ),
            ReplayError::Diverged { tick, expected, found } => {
                write!(f, "replay diverged at tick {tick}: state hash {found:016x}, recorded {expected:016x}")
            }
        }
    }
}

impl std::error::Error for ReplayError {}

/// The space of a plane's run in a replay header (which does not name it).
const PLANE: &str = "plane";

/// The `space=` word of a header's words after the magic, `plane` if none.
fn space_word(rest: &str) -> &str {
    rest.split_whitespace().find_map(|w| w.strip_prefix("space=")).unwrap_or(PLANE)
}

/// The space a replay's text records a run in: `"plane"` or `"volume"`
/// (read from its header; [`RecordingOf::from_text`] checks the rest), or
/// `None` if the text is not a MiroFish replay at all.
pub fn space_of(text: &str) -> Option<&str> {
    let header = text.split('\n').next()?;
    header.strip_prefix(MAGIC).map(space_word)
}

/// 64-bit FNV-1a.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;
    use crate::world::params::FlockParams;

    #[test]
    fn a_volume_recording_from_before_the_one_command_type_still_loads() {
        let config = VolumeConfig { fish: 60, ..VolumeConfig::default() };
        let mut recorder = VolumeRecorder::new(config, 10).unwrap();
        let faster = FlockParams { max_speed: 150.0, ..FlockParams::default() };
        recorder.schedule(3, VolumeCommand::SetSchoolParams { school: 0, params: faster }).unwrap();
        recorder.schedule(4, VolumeCommand::SetParams(faster)).unwrap();
        recorder
            .schedule(5, VolumeCommand::SpawnFish { school: 0, count: 5, centre: Vec3::ZERO, radius: 9.0 })
            .unwrap();
        recorder.run(20).unwrap();
        let recording = recorder.finish();
        let text = recording.to_text();
        let (header, body) = text.split_once('\n').unwrap();
        // As an earlier build wrote it: the school's parameters under the
        // old word, and no school in the spawn.
        let old = body.replacen("SetSchoolParams(", "SetParams(", 1).replacen(
            "SpawnFish(school: 0, ",
            "SpawnFish(",
            1,
        );
        assert_eq!(old.len() + "School".len() + "school: 0, ".len(), body.len(), "{body}");
        let header: Vec<&str> = header
            .split(' ')
            .map(|w| {
                if w.starts_with("bytes=") {
                    "BYTES"
                } else if w.starts_with("fnv=") {
                    "FNV"
                } else {
                    w
                }
            })
            .collect();
        let header = header
            .join(" ")
            .replace("BYTES", &format!("bytes={}", old.len()))
            .replace("FNV", &format!("fnv={:016x}", fnv1a(old.as_bytes())));
        let read = VolumeRecording::from_text(&format!("{header}\n{old}")).unwrap();
        assert_eq!(read, recording);
        read.replay().unwrap();
    }
}
