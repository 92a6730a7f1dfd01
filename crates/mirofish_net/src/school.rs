//! The school under a GGRS session: the session's requests carried out on
//! a [`Simulation`].

use std::net::SocketAddr;

use ggrs::{GgrsRequest, InputStatus, PlayerHandle};
use mirofish_sim::control::snapshot::{RestoreError, Snapshot};
use mirofish_sim::{CommandError, FlockCommand, Simulation, state_hash};

use crate::input::{PlayerInput, commands};

/// The GGRS configuration of a shared school: [`PlayerInput`]s, the
/// school's [`Snapshot`] as the saved state, peers addressed by UDP socket
/// address, a missing input predicted as the player's last.
#[derive(Debug)]
pub struct NetConfig;

impl ggrs::Config for NetConfig {
    type Input = PlayerInput;
    type InputPredictor = ggrs::PredictRepeatLast;
    type State = Snapshot;
    type Address = SocketAddr;
}

/// Why a session's request could not be carried out.
#[derive(Debug)]
pub enum NetError {
    /// The session asked to load a frame that was never saved.
    NothingSaved {
        /// The frame asked for.
        frame: i32,
    },
    /// The saved state could not be restored.
    Restore(RestoreError),
    /// The session itself failed (for a sync test: a desync, with the
    /// frames whose checksums differ).
    Session(ggrs::GgrsError),
}

impl std::fmt::Display for NetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NothingSaved { frame } => {
                write!(f, "the session asked for frame {frame}, which was never saved")
            }
            Self::Restore(e) => write!(f, "cannot go back: {e}"),
            Self::Session(e) => write!(f, "the session failed: {e}"),
        }
    }
}

impl std::error::Error for NetError {}

impl From<ggrs::GgrsError> for NetError {
    fn from(e: ggrs::GgrsError) -> Self {
        Self::Session(e)
    }
}

/// A school shared by the players of a GGRS session: hand it each frame's
/// requests ([`NetSchool::handle`]); every peer's school then goes through
/// the same states. Inputs become commands for the tick they belong to
/// (the pointer's pull or push, a rock, the goal; see [`PlayerInput`]);
/// a command the school refuses (a rock that would close the last room, a
/// point outside the tank) is refused the same way on every peer.
#[derive(Debug)]
#[cfg_attr(feature = "bevy", derive(bevy::prelude::Resource))]
pub struct NetSchool {
    sim: Simulation,
    /// The predators of the school's own scene; the players' come after.
    own_predators: usize,
    /// The player of each of the players' predators, as of the last tick.
    hunters: Vec<PlayerHandle>,
    /// The state hash of the school as it is, once computed (a session
    /// asks for it at every save, and a hash reads every fish).
    hash: Option<u64>,
    rollbacks: u64,
}

impl NetSchool {
    /// The school of `sim`, from its current tick. Its predators stay its
    /// own; each player holding [`PlayerInput::PREDATOR`] adds one.
    pub fn new(sim: Simulation) -> Self {
        Self {
            own_predators: sim.scene().predators.len(),
            sim,
            hunters: Vec::new(),
            hash: None,
            rollbacks: 0,
        }
    }

    /// The simulation (to read the fish, draw them, measure them).
    pub fn simulation(&self) -> &Simulation {
        &self.sim
    }

    /// The checksum GGRS compares between peers: the state hash of every
    /// fish's position, velocity and wander phase.
    pub fn checksum(&self) -> u128 {
        u128::from(self.state_hash())
    }

    /// The school's state hash ([`mirofish_sim::state_hash`]): what
    /// [`NetSchool::checksum`] sends, and what the native and web runs
    /// print.
    pub fn state_hash(&self) -> u64 {
        self.hash.unwrap_or_else(|| state_hash(&self.sim))
    }

    /// The player whose pointer the predator at `index` of the scene
    /// follows (`None` for the school's own predators).
    pub fn predator_player(&self, index: usize) -> Option<PlayerHandle> {
        index.checked_sub(self.own_predators).and_then(|k| self.hunters.get(k).copied())
    }

    /// Submits a command of the game's own for the next tick. In a session
    /// every peer must submit it at the same frame: call it from the
    /// session's frame (in Bevy, a system in `GgrsSchedule`), never from
    /// the game's other systems.
    ///
    /// # Errors
    ///
    /// As [`Simulation::submit`]: a command refused as it is scheduled.
    pub fn submit(&mut self, command: FlockCommand) -> Result<(), CommandError> {
        self.sim.submit(command)
    }

    /// Goes back to `snapshot` (see [`Simulation::restore`]) and counts a
    /// rollback.
    ///
    /// # Errors
    ///
    /// If the snapshot is from a later branch of the run.
    pub fn restore(&mut self, snapshot: &Snapshot) -> Result<(), RestoreError> {
        self.sim.restore(snapshot)?;
        self.hash = None;
        self.rollbacks += 1;
        Ok(())
    }

    /// How many times the session went back to a saved frame.
    pub fn rollbacks(&self) -> u64 {
        self.rollbacks
    }

    /// Carries out a frame's requests, in the order given: saves a snapshot
    /// with its checksum, goes back to one, or runs one tick with the
    /// players' inputs as commands.
    pub fn handle(&mut self, requests: Vec<GgrsRequest<NetConfig>>) -> Result<(), NetError> {
        for request in requests {
            match request {
                GgrsRequest::SaveGameState { cell, frame } => {
                    cell.save(frame, Some(self.sim.snapshot()), Some(self.checksum()));
                }
                GgrsRequest::LoadGameState { cell, frame } => {
                    let saved = cell.data().ok_or(NetError::NothingSaved { frame })?;
                    self.restore(&saved).map_err(NetError::Restore)?;
                }
                GgrsRequest::AdvanceFrame { inputs } => self.advance(&inputs)?,
            }
        }
        Ok(())
    }

    /// One tick with the players' inputs of this frame, in player order (a
    /// disconnected player's are left out): what [`NetSchool::handle`]
    /// does for a session's `AdvanceFrame`.
    ///
    /// # Errors
    ///
    /// If the tick refuses the school's parameters.
    pub fn advance(&mut self, inputs: &[(PlayerInput, InputStatus)]) -> Result<(), NetError> {
        let live =
            || inputs.iter().enumerate().filter(|(_, (_, status))| *status != InputStatus::Disconnected);
        self.hunters.clear();
        self.hunters
            .extend(live().filter(|(_, (input, _))| input.has(PlayerInput::PREDATOR)).map(|(h, _)| h));
        let live = live().map(|(_, (input, _))| *input);
        for command in commands(live, self.sim.scene(), self.own_predators) {
            // Refused alike on every peer: the same command on the same
            // state.
            let _refused = self.sim.submit(command);
        }
        self.hash = None;
        self.sim.step();
        self.hash = Some(state_hash(&self.sim));
        Ok(())
    }
}
