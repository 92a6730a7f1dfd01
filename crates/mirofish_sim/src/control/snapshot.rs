//! A simulation as it stands between two ticks, to go back to: what
//! rollback netcode saves every frame and restores when an input arrives
//! late (it then runs the frames since again with the input in place), and
//! what an editor's undo needs.
//!
//! A [`Snapshot`] holds the fish's columns, the schools' parameters, the
//! tank, the scene, the time step, the game's forces waiting and the
//! commands still queued; of the commands already applied it keeps only
//! how many there were, and going back drops those applied since. It keeps
//! nothing a tick rebuilds (the neighbour grid, the sorted copies), so it
//! costs about a copy of the fish. A volume's run is saved the same way.
//!
//! ```
//! use mirofish_sim::control::snapshot::Snapshot;
//! use mirofish_sim::{FlockParams, Simulation, Tank, state_hash};
//!
//! let mut sim = Simulation::new(FlockParams::default(), Tank::default(), 300, 7)?;
//! sim.run(30);
//! let saved = sim.snapshot();
//! sim.run(30);
//! let ahead = state_hash(&sim);
//! sim.restore(&saved)?;
//! assert_eq!(sim.tick(), 30);
//! sim.run(30);
//! assert_eq!(state_hash(&sim), ahead);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use glam::Vec2;

use crate::math::Vector;
use crate::space::swarm::{Saved, Swarm};

/// A run between two ticks ([`Swarm::snapshot`], [`Swarm::snapshot_into`]),
/// to [`Swarm::restore`] later: on a plane unless `V` says otherwise.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Snapshot<V: Vector = Vec2> {
    saved: Saved<V>,
}

impl<V: Vector> Snapshot<V> {
    /// The tick the run was about to run when the snapshot was taken.
    pub fn tick(&self) -> u64 {
        self.saved.tick
    }

    /// Fish held.
    pub fn fish(&self) -> usize {
        self.saved.len()
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

impl<V: Vector> Swarm<V> {
    /// The run as it stands (see [`Snapshot`]), between two ticks: taken
    /// while a tick is stopped at a stage ([`Swarm::run_to`]), it holds the
    /// fish as they stand and the tick as not yet run, which is not a state
    /// the run passes through; take snapshots between ticks.
    pub fn snapshot(&self) -> Snapshot<V> {
        let mut snapshot = Snapshot::default();
        self.snapshot_into(&mut snapshot);
        snapshot
    }

    /// The run as it stands, written over `snapshot` (reusing its fish
    /// buffers: a snapshot saved every frame into a ring of them allocates
    /// for the fish only while they grow).
    pub fn snapshot_into(&self, snapshot: &mut Snapshot<V>) {
        self.save(&mut snapshot.saved);
    }

    /// Goes back to `snapshot`: the next tick is the one it was about to
    /// run, and runs to the same bits as it did then (given the same
    /// commands). The commands applied since are dropped from the log; the
    /// thread pool, the force pass's build, the neighbour search and
    /// whether rule forces are kept stay as they are; a tick stopped at a
    /// stage is abandoned.
    ///
    /// # Errors
    ///
    /// If the snapshot belongs to a later branch of the run (more commands
    /// applied than the log holds); nothing changes.
    pub fn restore(&mut self, snapshot: &Snapshot<V>) -> Result<(), RestoreError> {
        let (applied, left_out) = (self.applied().len(), self.left_out().len());
        if snapshot.saved.applied > applied || snapshot.saved.left_out > left_out {
            return Err(RestoreError::AheadOfLog { snapshot: snapshot.saved.applied, log: applied });
        }
        self.load(&snapshot.saved);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec2;

    use super::*;
    use crate::control::simulation::Simulation;
    use crate::observe::state_hash;
    use crate::step::command::FlockCommand;
    use crate::step::slots::SlotOrder;
    use crate::world::params::FlockParams;
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
        sim.run(10);
        let saved = sim.snapshot();
        sim.run(50);
        let (ahead, applied) = (state_hash(&sim), sim.applied().len());
        assert_eq!(applied, 2, "the predator and the rocks cleared");

        sim.restore(&saved).unwrap();
        assert_eq!((sim.tick(), sim.applied().len(), sim.pending().len()), (10, 0, 2));
        sim.run(50);
        assert_eq!(state_hash(&sim), ahead);
        assert_eq!(sim.applied().len(), applied);

        // Going back, then another input than before: another run; back
        // again and the first input: the first run's bits.
        sim.restore(&saved).unwrap();
        sim.schedule(
            20,
            FlockCommand::AddObstacle(Obstacle { centre: Vec2::new(-150.0, -60.0), radius: 30.0 }),
        )
        .unwrap();
        sim.run(50);
        assert_ne!(state_hash(&sim), ahead);
        sim.restore(&saved).unwrap();
        sim.run(50);
        assert_eq!(state_hash(&sim), ahead);
    }

    #[test]
    fn going_back_under_either_slot_order_and_thread_count_gives_the_straight_runs_bits() {
        let mut straight = busy();
        straight.run(60);
        let expected = state_hash(&straight);
        for (order, threads) in [(SlotOrder::Stable, 2), (SlotOrder::Spatial, 1), (SlotOrder::Spatial, 2)] {
            let mut sim = busy().with_threads(threads).unwrap();
            sim.set_slot_order(order);
            sim.run(20);
            let saved = sim.snapshot();
            sim.run(7);
            sim.restore(&saved).unwrap();
            sim.run(40);
            assert_eq!(state_hash(&sim), expected, "{order:?}, {threads} threads");
        }
    }

    #[test]
    fn a_snapshot_of_a_branch_taken_back_is_refused() {
        let mut sim = busy();
        let start = sim.snapshot();
        sim.run(30);
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
        sim.run(25);
        sim.snapshot_into(&mut reused);
        let fresh = sim.snapshot();
        assert_eq!(reused, fresh);
        assert_eq!((reused.tick(), reused.fish(), reused.saved.applied), (25, 500, 1));
    }

    #[test]
    fn a_volume_goes_back_to_the_same_bits_with_its_forces_and_groups() {
        use crate::space::Flock3d;
        use crate::world::tank::Tank3d;
        let mut swarm = Flock3d::new(FlockParams::default(), Tank3d::default(), 300, 3).unwrap();
        swarm.schedule(5, FlockCommand::AddPredator(Predator::new(glam::Vec3::splat(100.0), 90.0))).unwrap();
        swarm.form_groups(None, 0, 3);
        swarm.run(8);
        swarm.add_steering(4, glam::Vec3::X * 50.0).unwrap();
        let saved = swarm.snapshot();
        swarm.run(20);
        let ahead = state_hash(&swarm);
        swarm.restore(&saved).unwrap();
        assert_eq!((swarm.tick(), swarm.applied().len()), (8, 1));
        swarm.run(20);
        assert_eq!(state_hash(&swarm), ahead, "the game's force waiting was saved too");
    }
}
