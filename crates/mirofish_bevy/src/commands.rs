//! The command queue of the plugin: every outside change to the
//! school — predators, obstacles, parameters, goals, fish added or removed
//! — as a [`FlockCommand`] stamped with the tick at which it applies.
//!
//! Game code and the aquarium's mouse call [`FlockCommands::submit`] (next
//! tick) or [`FlockCommands::schedule`] (a given tick). At the start of that
//! tick, right after [`BoidSystems::Commands`](crate::BoidSystems::Commands),
//! the due commands are handed to the core, which applies them as a
//! headless run or a replay does — one interpreter for every school — once
//! the fish, the configuration and the scene entities are gathered, in a
//! fixed order (by tick, then by submission); they are noted in
//! [`FlockCommands::applied`]. At the tick's write-back the entities and
//! [`FlockConfig`](crate::FlockConfig) follow what the commands did: fish, rocks and predators
//! get entities or lose them, leaders and groups their markers. The same
//! seed, spawns and command log therefore give the same states bit for bit.
//!
//! Direct changes to entities and to [`FlockConfig`](crate::FlockConfig) still work, but they
//! happen whenever the game's systems run, outside the log: use commands for
//! anything a replay must reproduce.

use bevy::prelude::*;
use mirofish_sim::{CommandError, CommandQueue, FlockCommand, Stamped, Vector};

use crate::components::{
    FishGroup, FishId, Leader, Position, PreviousPosition, School, Velocity, WanderPhase,
};
use crate::config::FlockConfigOf;
use crate::space::Space;
use crate::state::FlockState;

/// Commands waiting for their tick, and those already applied: on a plane
/// `FlockCommands` (the default), in a volume `FlockCommands<Vec3>`
/// ([`crate::volume`]), the same commands over the space's vector.
#[derive(Resource, Debug)]
pub struct FlockCommands<V: Vector = Vec2> {
    queue: CommandQueue<FlockCommand<V>>,
    applied: Vec<Stamped<FlockCommand<V>>>,
    /// The next tick to be simulated, as last seen.
    now: u64,
}

impl<V: Vector> Default for FlockCommands<V> {
    fn default() -> Self {
        Self { queue: CommandQueue::default(), applied: Vec::new(), now: 0 }
    }
}

impl<V: Vector> FlockCommands<V> {
    /// Queues `command` for the start of `tick` (ticks count from 0 at the
    /// plugin's start; [`FlockCommands::next_tick`] is the earliest).
    /// Refused, and not queued, if it holds an invalid number or the tick
    /// is past.
    pub fn schedule(&mut self, tick: u64, command: FlockCommand<V>) -> Result<(), CommandError> {
        self.queue.schedule(self.now, tick, command)
    }

    /// Queues `command` for the next tick. Refused only if it holds an
    /// invalid number (the error names the field).
    pub fn submit(&mut self, command: FlockCommand<V>) -> Result<(), CommandError> {
        self.schedule(self.now, command)
    }

    /// The next tick to be simulated.
    pub fn next_tick(&self) -> u64 {
        self.now
    }

    /// Commands waiting.
    pub fn pending(&self) -> &CommandQueue<FlockCommand<V>> {
        &self.queue
    }

    /// Every command applied so far, with its tick, in order: the run's
    /// command log.
    pub fn applied(&self) -> &[Stamped<FlockCommand<V>>] {
        &self.applied
    }
}

/// Hands the commands due this tick to the core, which applies them at
/// the start of its tick (an exclusive system, right after
/// [`BoidSystems::Commands`](crate::BoidSystems::Commands)).
pub(crate) fn hand_over<V: Space>(world: &mut World) {
    world.resource_scope(|world, mut commands: Mut<FlockCommands<V>>| {
        let mut state = world.resource_mut::<FlockState<V>>();
        let flock = &mut state.flock;
        let now = flock.tick();
        commands.now = now;
        for stamped in commands.queue.take_due(now) {
            // Checked as it was queued, for this very tick: not refused.
            if let Err(error) = flock.schedule(now, stamped.command.clone()) {
                log::error!("MiroFish: a queued command was not taken: {error}");
            }
            commands.applied.push(stamped);
        }
        // Commands submitted from now on are for the next tick.
        commands.now = now + 1;
    });
}

/// At the write-back, brings the entities and [`FlockConfig`](crate::FlockConfig) in line with
/// what the core's commands did this tick: an entity for each fish a
/// command added (with its id, in the core's order), none for a
/// fish it removed, [`Leader`] and [`FishGroup`] where they changed, an
/// entity for each rock and predator added and none for one removed, and
/// the configuration's parameters, tank, zones and goals as the core holds
/// them. Cheap when no command applied.
pub(crate) fn follow_commands<V: Space>(
    mut state: ResMut<FlockState<V>>,
    mut config: ResMut<FlockConfigOf<V>>,
    mut commands: Commands,
) {
    if follow_core(&mut commands, &mut state, None) {
        follow_config(&mut config, &mut state);
    }
}

/// In either space, brings the entities in line with what the core's
/// commands did since the entities last caught up: an entity for each
/// fish a command added (with its id, in the core's order), none for a
/// fish it removed, [`Leader`] and [`FishGroup`] where they changed, an
/// entity for each rock and predator added and none for one removed.
/// Whether any command applied (`false`, with nothing to do, when none
/// did and no fish was added or removed). The new fish's entities carry
/// `school` where one is given, else their school in the core.
pub(crate) fn follow_core<V: Space>(
    commands: &mut Commands,
    state: &mut FlockState<V>,
    school: Option<u16>,
) -> bool {
    let (seen, applied) = (state.seen_commands, state.flock.applied().len());
    if seen == applied && state.entities.len() == state.flock.len() {
        return false;
    }
    follow_fish(commands, state, school);
    follow_markers(commands, state, seen);
    state.scene_entities.follow_commands(commands, &state.flock, seen, false);
    state.seen_commands = applied;
    true
}

/// Brings the entities in line with the core now, outside the tick (a
/// spawn, a start from a configuration): [`follow_core`] with its
/// commands applied at once. Cheap when nothing changed.
pub(crate) fn sync_entities<V: Space>(world: &mut World, school: Option<u16>) {
    world.resource_scope(|world, mut state: Mut<FlockState<V>>| {
        follow_core(&mut world.commands(), &mut state, school);
        world.flush();
    });
}

/// [`Leader`] and [`FishGroup`] on the fish entities where the core's
/// commands applied since the `seen`th changed them, in either space.
pub(crate) fn follow_markers<V: Space>(commands: &mut Commands, state: &FlockState<V>, seen: usize) {
    let (flock, entities) = (&state.flock, &state.entities);
    let applied = flock.applied();
    let mut groups = false;
    for stamped in applied.get(seen..).unwrap_or_default() {
        match &stamped.command {
            FlockCommand::SetLeaders { fish, leads } => {
                for entity in fish.iter().filter_map(|&id| entities.get(id)) {
                    let mut entity = commands.entity(entity);
                    if *leads {
                        entity.try_insert(Leader);
                    } else {
                        entity.try_remove::<Leader>();
                    }
                }
            }
            FlockCommand::FormGroups { .. } | FlockCommand::JoinGroup { .. } | FlockCommand::ClearGroups => {
                groups = true
            }
            _ => {}
        }
    }
    if !groups {
        return;
    }
    for (id, &entity) in entities.by_id().iter().enumerate() {
        if entity == Entity::PLACEHOLDER {
            continue;
        }
        let mut entity = commands.entity(entity);
        match flock.group_of(id as u32) {
            Some(group) => entity.try_insert(FishGroup(group)),
            None => entity.try_remove::<FishGroup>(),
        };
    }
}

/// An entity for each fish the commands added and none for each they
/// removed: the core appends and removes at the end of its ids. The new
/// ones carry `school` where one is given.
fn follow_fish<V: Space>(commands: &mut Commands, state: &mut FlockState<V>, school: Option<u16>) {
    let (flock, entities) = (&state.flock, &mut state.entities);
    let len = flock.len();
    // Forgotten before they go, so that their fish are not taken out again
    // as despawned by the game.
    for entity in entities.truncate(len) {
        commands.entity(entity).try_despawn();
    }
    for id in entities.len()..len {
        let slot = flock.slots()[id] as usize;
        let (p, v) = (flock.positions()[slot], flock.velocities()[slot]);
        let mut fish = commands.spawn((
            V::Boid::default(),
            FishId(id as u32),
            School(school.unwrap_or(flock.schools()[slot])),
            Position(p),
            PreviousPosition(p),
            Velocity(v),
            WanderPhase(flock.wander_phases()[slot]),
            V::fish_transform(p, v),
        ));
        if flock.leaders()[slot] {
            fish.insert(Leader);
        }
        entities.push(fish.id());
    }
}

/// [`FlockConfig`](crate::FlockConfig) (and the configuration in force)
/// as the core holds it after the commands (or a spawn that added a
/// school): each of the parameters, tank, zones, goals and attractor that
/// changed (a game's own edits to the others stay).
pub(crate) fn follow_config<V: Space>(
    // Through `DerefMut` (`ResMut`, `Mut`), so that only a field written
    // marks the resource changed.
    config: &mut impl core::ops::DerefMut<Target = FlockConfigOf<V>>,
    state: &mut FlockState<V>,
) {
    let (flock, active) = (&state.flock, &mut state.active);
    let (table, scene) = (flock.params(), flock.scene());
    // Each field written only where the core's differs from the one in
    // force, so that a game watching `FlockConfig` sees only real changes.
    macro_rules! follow {
        ($($field:ident = $now:expr),* $(,)?) => {$(
            let now = $now;
            if active.$field != now {
                config.$field = now.clone();
                active.$field = now;
            }
        )*};
    }
    follow!(
        params = table[0],
        schools = table[1..].to_vec(),
        tank = *flock.tank(),
        zones = flock.zones().copied(),
        goal = scene.goal,
        school_goals = scene.school_goals.clone(),
        attractor = scene.attractor,
    );
}
