//! The school under a GGRS session: the session's requests carried out on
//! a [`Simulation`].

use std::net::SocketAddr;

use ggrs::{GgrsRequest, InputStatus};
use mirofish_sim::control::snapshot::{RestoreError, Snapshot};
use mirofish_sim::{ParamError, Simulation, state_hash};

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
    /// A tick refused the school's parameters.
    Tick(ParamError),
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
            Self::Tick(e) => write!(f, "the tick failed: {e}"),
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
pub struct NetSchool {
    sim: Simulation,
    /// The predators of the school's own scene; the players' come after.
    own_predators: usize,
    rollbacks: u64,
}

impl NetSchool {
    /// The school of `sim`, from its current tick. Its predators stay its
    /// own; each player holding [`PlayerInput::PREDATOR`] adds one.
    pub fn new(sim: Simulation) -> Self {
        Self { own_predators: sim.scene.predators.len(), sim, rollbacks: 0 }
    }

    /// The simulation (to read the fish, draw them, measure them).
    pub fn simulation(&self) -> &Simulation {
        &self.sim
    }

    /// The checksum GGRS compares between peers: the state hash of every
    /// fish's position, velocity and wander phase.
    pub fn checksum(&self) -> u128 {
        u128::from(state_hash(&self.sim.flock))
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
                    self.sim.restore(&saved).map_err(NetError::Restore)?;
                    self.rollbacks += 1;
                }
                GgrsRequest::AdvanceFrame { inputs } => self.advance(&inputs)?,
            }
        }
        Ok(())
    }

    /// One tick with the players' inputs of this frame (a disconnected
    /// player's are left out).
    fn advance(&mut self, inputs: &[(PlayerInput, InputStatus)]) -> Result<(), NetError> {
        let live = inputs.iter().filter(|(_, status)| *status != InputStatus::Disconnected).map(|(i, _)| *i);
        for command in commands(live, &self.sim.scene, self.own_predators) {
            // Refused alike on every peer: the same command on the same
            // state.
            let _refused = self.sim.submit(command);
        }
        self.sim.step().map_err(NetError::Tick)
    }
}
