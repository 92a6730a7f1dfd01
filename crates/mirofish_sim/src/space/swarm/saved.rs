//! A swarm's state between two ticks, copied out and put back: what a
//! snapshot ([`crate::control::snapshot::Snapshot`]) holds.
//!
//! It keeps what the next tick reads — the fish's columns as they are
//! stored, the schools' parameters, tank, scene, zones, the game's forces
//! waiting, the groups, the commands still queued and how many were
//! applied — and nothing a tick rebuilds (the grid, the sorted copies, the
//! last tick's kicks), so it costs about a copy of the fish.

use super::{Columns, Swarm};
use crate::math::Vector;
use crate::step::command::{CommandQueue, FlockCommand};
use crate::step::slots::SlotOrder;
use crate::world::params::FlockParams;
use crate::world::scene::Scene;
use crate::world::tank::TankOf;
use crate::world::zones::Zones;

/// What [`Swarm::save`] copies out and [`Swarm::load`] puts back.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Saved<V: Vector> {
    fish: Columns<V>,
    slots: Vec<u32>,
    slot_order: SlotOrder,
    params: Vec<FlockParams>,
    tank: TankOf<V>,
    scene: Scene<V>,
    zones: Option<Zones>,
    extra: Vec<V>,
    group: Vec<u16>,
    commands: CommandQueue<FlockCommand<V>>,
    seed: u64,
    /// The tick the swarm was about to run.
    pub(crate) tick: u64,
    dt: f32,
    /// Commands applied, and those of them left out, when saved.
    pub(crate) applied: usize,
    pub(crate) left_out: usize,
}

impl<V: Vector> Saved<V> {
    /// Fish held.
    pub(crate) fn len(&self) -> usize {
        self.fish.id.len()
    }
}

impl<V: Vector> Swarm<V> {
    /// Copies the state into `saved`, reusing its buffers. Between two
    /// ticks only: a tick stopped at a stage (`run_to`) is saved as if it
    /// had not started, which it has (the caller refuses that).
    pub(crate) fn save(&self, saved: &mut Saved<V>) {
        saved.fish.clone_from(&self.fish);
        saved.slots.clone_from(&self.slots);
        saved.slot_order = self.slot_order;
        saved.params.clone_from(&self.params);
        saved.tank = self.tank;
        saved.scene.clone_from(&self.scene);
        saved.zones = self.zones;
        saved.extra.clone_from(&self.extra);
        saved.group.clone_from(&self.group);
        saved.commands.clone_from(&self.commands);
        (saved.seed, saved.tick, saved.dt) = (self.seed, self.tick, self.dt);
        (saved.applied, saved.left_out) = (self.applied.len(), self.left_out.len());
    }

    /// Puts back the state `saved` holds: the next tick runs as it ran
    /// after the save, to the same bits. The commands applied since are
    /// dropped from the log; the thread pool, the force pass's build, the
    /// neighbour search and whether rules are recorded stay as they are.
    /// The caller checks that the log still holds what was applied then.
    pub(crate) fn load(&mut self, saved: &Saved<V>) {
        self.fish.clone_from(&saved.fish);
        self.slots.clone_from(&saved.slots);
        self.slot_order = saved.slot_order;
        self.params.clone_from(&saved.params);
        self.tank = saved.tank;
        self.scene.clone_from(&saved.scene);
        self.zones = saved.zones;
        self.extra.clone_from(&saved.extra);
        self.group.clone_from(&saved.group);
        self.commands.clone_from(&saved.commands);
        (self.seed, self.tick, self.dt) = (saved.seed, saved.tick, saved.dt);
        self.applied.truncate(saved.applied);
        self.left_out.truncate(saved.left_out);
        // What the last tick left describes fish that are no longer there.
        self.stage = None;
        self.forget_last_tick();
    }
}
