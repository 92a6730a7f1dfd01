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
//! checksum of the RON body below it. [`Recording::load`] checks, in this
//! order, that the file is a replay at all, that its version is one this
//! build reads, that it is complete, that it is intact, that it parses, and
//! that every value in it is valid — all before a single tick is simulated,
//! so a bad file is refused whole and nothing is half-applied.
//! [`Recording::replay`] then re-runs it and compares every checkpoint.

use core::fmt;
use std::path::{Path, PathBuf};

use crate::control::command::{CommandError, FlockCommand, Stamped};
use crate::control::config::{ConfigError, ExperimentConfig};
use crate::control::simulation::Simulation;
use crate::observe::state_hash;
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

/// A recorded run: enough to reproduce it and to check that it did.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recording {
    /// The start.
    pub config: ExperimentConfig,
    /// Every command applied, with its tick, in the order applied.
    pub commands: Vec<Stamped>,
    /// State hashes along the way, by increasing tick.
    pub checkpoints: Vec<Checkpoint>,
    /// Ticks the run lasted.
    pub ticks: u64,
}

/// Records a run: a simulation plus the checkpoints taken while it steps.
#[derive(Debug)]
pub struct Recorder {
    sim: Simulation,
    config: ExperimentConfig,
    checkpoint_every: u64,
    checkpoints: Vec<Checkpoint>,
}

impl Recorder {
    /// Starts the run `config` describes, hashing the state every
    /// `checkpoint_every` ticks (at least 1) and at the end.
    pub fn new(config: ExperimentConfig, checkpoint_every: u64) -> Result<Self, ConfigError> {
        let sim = Simulation::from_config(&config)?;
        let first = Checkpoint { tick: 0, hash: state_hash(&sim.flock) };
        Ok(Self { sim, config, checkpoint_every: checkpoint_every.max(1), checkpoints: vec![first] })
    }

    /// The simulation being recorded (read only: changes go through
    /// commands, or they would not be in the recording).
    pub fn simulation(&self) -> &Simulation {
        &self.sim
    }

    /// Whether the flock keeps every fish's rule forces (for metrics). An
    /// observation switch only: it does not change the state.
    pub fn record_rules(&mut self, record: bool) {
        self.sim.flock.set_record_rules(record);
    }

    /// Queues a command; see [`Simulation::schedule`].
    pub fn schedule(&mut self, tick: u64, command: FlockCommand) -> Result<(), CommandError> {
        self.sim.schedule(tick, command)
    }

    /// One tick, with a checkpoint when one is due.
    pub fn step(&mut self) -> Result<(), ParamError> {
        self.sim.step()?;
        let tick = self.sim.tick();
        if tick.is_multiple_of(self.checkpoint_every) {
            self.checkpoints.push(Checkpoint { tick, hash: state_hash(&self.sim.flock) });
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
    pub fn finish(mut self) -> Recording {
        let tick = self.sim.tick();
        if self.checkpoints.last().is_none_or(|c| c.tick != tick) {
            self.checkpoints.push(Checkpoint { tick, hash: state_hash(&self.sim.flock) });
        }
        Recording {
            config: self.config,
            commands: self.sim.applied().to_vec(),
            checkpoints: self.checkpoints,
            ticks: tick,
        }
    }
}

impl Recording {
    /// The file's text: header line and RON body.
    pub fn to_text(&self) -> String {
        let pretty = ron::ser::PrettyConfig::new().struct_names(false).depth_limit(3);
        let body = ron::ser::to_string_pretty(self, pretty).expect("a recording serializes");
        format!("{MAGIC} {FORMAT_VERSION} bytes={} fnv={:016x}\n{body}", body.len(), fnv1a(body.as_bytes()))
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
        let recording: Recording = ron::from_str(body).map_err(|e| ReplayError::Corrupt {
            reason: format!("line {}, column {}: {}", e.span.start.line + 1, e.span.start.col, e.code),
        })?;
        recording.validate()?;
        Ok(recording)
    }

    /// Checks the configuration, the length, every command and the order
    /// of ticks.
    pub fn validate(&self) -> Result<(), ReplayError> {
        self.config.validate().map_err(ReplayError::Config)?;
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
            stamped
                .command
                .validate_in(&self.config.tank)
                .map_err(|error| ReplayError::FlockCommand { index, error })?;
            last = stamped.tick;
        }
        let ordered = self.checkpoints.windows(2).all(|w| w[0].tick < w[1].tick);
        if !ordered || self.checkpoints.last().is_some_and(|c| c.tick > self.ticks) {
            return Err(ReplayError::Corrupt { reason: "checkpoints are out of order".into() });
        }
        Ok(())
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
        let size = std::fs::metadata(path).map_err(io)?.len();
        if size > MAX_FILE_BYTES {
            return Err(ReplayError::TooLarge { what: "bytes", value: size, limit: MAX_FILE_BYTES });
        }
        let bytes = std::fs::read(path).map_err(io)?;
        let text = String::from_utf8(bytes)
            .map_err(|_| ReplayError::Corrupt { reason: "the file is not UTF-8 text".into() })?;
        Self::from_text(&text)
    }

    /// Re-runs the recording from its configuration, applying its commands
    /// at their ticks, and compares the state hash at every checkpoint.
    /// Returns the simulation at the end on success.
    pub fn replay(&self) -> Result<Simulation, ReplayError> {
        self.validate()?;
        let mut sim = Simulation::from_config(&self.config).map_err(ReplayError::Config)?;
        for stamped in &self.commands {
            sim.schedule(stamped.tick, stamped.command.clone())
                .map_err(|e| ReplayError::Corrupt { reason: e.to_string() })?;
        }
        let mut checkpoints = self.checkpoints.iter().peekable();
        loop {
            while let Some(c) = checkpoints.next_if(|c| c.tick == sim.tick()) {
                let found = state_hash(&sim.flock);
                if found != c.hash {
                    return Err(ReplayError::Diverged { tick: c.tick, expected: c.hash, found });
                }
            }
            if sim.tick() >= self.ticks {
                break;
            }
            sim.step().map_err(|error| ReplayError::Config(ConfigError::Invalid { section: "", error }))?;
        }
        Ok(sim)
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
            ReplayError::Truncated { expected, found } => {
                write!(f, "replay is truncated: {found} of {expected} bytes")
            }
            ReplayError::Corrupt { reason } => write!(f, "replay is corrupt: {reason}"),
            ReplayError::TooLarge { what, value, limit } => {
                write!(f, "replay is too large: {value} {what}, at most {limit}")
            }
            ReplayError::Config(e) => write!(f, "replay configuration: {e}"),
            ReplayError::FlockCommand { index, error } => write!(f, "replay command {index}: {error}"),
            ReplayError::Diverged { tick, expected, found } => {
                write!(f, "replay diverged at tick {tick}: state hash {found:016x}, recorded {expected:016x}")
            }
        }
    }
}

impl std::error::Error for ReplayError {}

/// 64-bit FNV-1a.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}
