//! A simulation as it stands between two ticks, to go back to: what
//! rollback netcode saves every frame and restores when an input arrives
//! late (it then runs the frames since again with the input in place), and
//! what an editor's undo needs.
//!
//! A [`Snapshot`] holds the fish's columns, the parameters, the tank, the
//! scene, the time step and the commands still waiting; of the commands
//! already applied it keeps only how many there were, and going back drops
//! those applied since. It keeps nothing a tick rebuilds (the neighbour
//! grid, the sorted copies), so it costs about a copy of the fish.
//!
//! ```
//! use mirofish_sim::control::snapshot::Snapshot;
//! use mirofish_sim::{FlockParams, Simulation, Tank, state_hash};
//!
//! let mut sim = Simulation::new(FlockParams::default(), Tank::default(), 300, 7)?;
//! sim.run(30)?;
//! let saved = sim.snapshot();
//! sim.run(30)?;
//! let ahead = state_hash(&sim.flock);
//! sim.restore(&saved)?;
//! assert_eq!(sim.tick(), 30);
//! sim.run(30)?;
//! assert_eq!(state_hash(&sim.flock), ahead);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::control::simulation::Simulation;
use crate::step::command::CommandQueue;
use crate::step::flock::FishState;
use crate::world::params::FlockParams;
use crate::world::scene::Scene;
use crate::world::tank::Tank;

/// A [`Simulation`] between two ticks ([`Simulation::snapshot`],
/// [`Simulation::snapshot_into`]), to [`Simulation::restore`] later.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    fish: FishState,
    params: FlockParams,
    schools: Vec<FlockParams>,
    tank: Tank,
    scene: Scene,
    dt: f32,
    commands: CommandQueue,
    applied: usize,
    left_out: usize,
}

impl Snapshot {
    /// The tick the simulation was about to run when the snapshot was taken.
    pub fn tick(&self) -> u64 {
        self.fish.tick()
    }

    /// Fish held.
    pub fn fish(&self) -> usize {
        self.fish.len()
    }
}

/// Why a [`Snapshot`] cannot be restored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RestoreError {
    /// The snapshot was taken after more commands had been applied than the
    /// simulation's log now holds: it belongs to a run that was since taken
    /// back to before it (a later branch), whose commands are gone.
    AheadOfLog {
        /// Commands applied when the snapshot was taken.
        snapshot: usize,
        /// Commands in the simulation's log now.
        log: usize,
    },
}

impl std::fmt::Display for RestoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::AheadOfLog { snapshot, log } => write!(
                f,
                "the snapshot was taken after {snapshot} applied commands, but the run's log holds {log}: \
                 it belongs to a run since taken back to before it"
            ),
        }
    }
}

impl std::error::Error for RestoreError {}

impl Simulation {
    /// The simulation as it stands (see [`Snapshot`]).
    pub fn snapshot(&self) -> Snapshot {
        let mut snapshot = Snapshot::default();
        self.snapshot_into(&mut snapshot);
        snapshot
    }

    /// The simulation as it stands, written over `snapshot` (reusing its
    /// fish buffers: a snapshot saved every frame into a ring of them
    /// allocates for the fish only while they grow).
    pub fn snapshot_into(&self, snapshot: &mut Snapshot) {
        self.flock.save_fish(&mut snapshot.fish);
        snapshot.params = self.params;
        snapshot.schools.clone_from(&self.schools);
        snapshot.tank = self.tank;
        snapshot.scene.clone_from(&self.scene);
        snapshot.dt = self.dt;
        snapshot.commands.clone_from(&self.commands);
        (snapshot.applied, snapshot.left_out) = (self.applied.len(), self.left_out.len());
    }

    /// Goes back to `snapshot`: the next tick is the one it was about to
    /// run, and runs to the same bits as it did then (given the same
    /// commands). The commands applied since are dropped from the log; the
    /// thread pool and the force pass's build stay as they are.
    pub fn restore(&mut self, snapshot: &Snapshot) -> Result<(), RestoreError> {
        if snapshot.applied > self.applied.len() || snapshot.left_out > self.left_out.len() {
            return Err(RestoreError::AheadOfLog { snapshot: snapshot.applied, log: self.applied.len() });
        }
        self.flock.restore_fish(&snapshot.fish);
        self.params = snapshot.params;
        self.schools.clone_from(&snapshot.schools);
        self.tank = snapshot.tank;
        self.scene.clone_from(&snapshot.scene);
        self.dt = snapshot.dt;
        self.commands.clone_from(&snapshot.commands);
        self.applied.truncate(snapshot.applied);
        self.left_out.truncate(snapshot.left_out);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec2;

    use super::*;
    use crate::observe::state_hash;
    use crate::step::command::FlockCommand;
    use crate::step::flock::SlotOrder;
    use crate::world::scene::{Obstacle, Predator};

    /// A run with a rock, a predator, two schools, leaders and commands
    /// queued ahead.
    fn busy() -> Simulation {
        let mut config = crate::ExperimentConfig { fish: 400, seed: 5, ..Default::default() };
        config.schools.push(crate::SchoolConfig { fish: 100, leaders: 3, ..Default::default() });
        config.scene.obstacles.push(Obstacle { centre: Vec2::new(100.0, 50.0), radius: 40.0 });
        let mut sim = Simulation::from_config(&config).unwrap();
        sim.schedule(12, FlockCommand::AddPredator(Predator::new(Vec2::new(-80.0, 0.0), 120.0))).unwrap();
        sim.schedule(40, FlockCommand::ClearObstacles).unwrap();
        sim
    }

    #[test]
    fn going_back_runs_to_the_same_bits_and_drops_what_was_applied_since() {
        let mut sim = busy();
        sim.run(10).unwrap();
        let saved = sim.snapshot();
        sim.run(50).unwrap();
        let (ahead, applied) = (state_hash(&sim.flock), sim.applied().len());
        assert_eq!(applied, 2, "the predator and the rocks cleared");

        sim.restore(&saved).unwrap();
        assert_eq!((sim.tick(), sim.applied().len(), sim.pending().len()), (10, 0, 2));
        sim.run(50).unwrap();
        assert_eq!(state_hash(&sim.flock), ahead);
        assert_eq!(sim.applied().len(), applied);

        // Going back, then another input than before: another run; back
        // again and the first input: the first run's bits.
        sim.restore(&saved).unwrap();
        sim.schedule(
            20,
            FlockCommand::AddObstacle(Obstacle { centre: Vec2::new(-150.0, -60.0), radius: 30.0 }),
        )
        .unwrap();
        sim.run(50).unwrap();
        assert_ne!(state_hash(&sim.flock), ahead);
        sim.restore(&saved).unwrap();
        sim.run(50).unwrap();
        assert_eq!(state_hash(&sim.flock), ahead);
    }

    #[test]
    fn going_back_under_either_slot_order_and_thread_count_gives_the_straight_runs_bits() {
        let mut straight = busy();
        straight.run(60).unwrap();
        let expected = state_hash(&straight.flock);
        for (order, threads) in [(SlotOrder::Stable, 2), (SlotOrder::Spatial, 1), (SlotOrder::Spatial, 2)] {
            let mut sim = busy().with_threads(threads).unwrap();
            sim.flock.set_slot_order(order);
            sim.run(20).unwrap();
            let saved = sim.snapshot();
            sim.run(7).unwrap();
            sim.restore(&saved).unwrap();
            sim.run(40).unwrap();
            assert_eq!(state_hash(&sim.flock), expected, "{order:?}, {threads} threads");
        }
    }

    #[test]
    fn a_snapshot_of_a_branch_taken_back_is_refused() {
        let mut sim = busy();
        let start = sim.snapshot();
        sim.run(30).unwrap();
        let later = sim.snapshot();
        sim.restore(&start).unwrap();
        let refused = sim.restore(&later).unwrap_err();
        assert_eq!(refused, RestoreError::AheadOfLog { snapshot: 1, log: 0 });
        assert!(refused.to_string().contains("taken back"));
        assert_eq!(sim.tick(), 0, "nothing restored");
    }

    #[test]
    fn a_snapshot_taken_into_an_old_one_is_the_same_as_a_fresh_one() {
        let mut sim = busy();
        let mut reused = sim.snapshot();
        sim.run(25).unwrap();
        sim.snapshot_into(&mut reused);
        let fresh = sim.snapshot();
        assert_eq!(reused.fish, fresh.fish);
        assert_eq!((reused.tick(), reused.fish(), reused.applied), (25, 500, 1));
    }
}
