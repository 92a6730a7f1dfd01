//! Which entity shows which fish of the core, in either space.
//!
//! The core owns the fish: their ids are its own (`0..len`), and an entity
//! names its fish with a [`FishId`]. When a fish's entity goes (despawned
//! by a game, or stripped of a component the tick needs), its fish leaves
//! the core at the next hand-over, and the fish with the highest id takes
//! the freed id ([`Swarm::remove_fish`]), its entity's `FishId` with it.
//! An entity a game spawns as a whole fish joins the core under the next
//! id ([`Swarm::push_fish`]). Both plugins hand these changes over the
//! same way, at the start of a tick ([`hand_over`]).

use bevy::ecs::entity::EntityHashSet;
use bevy::ecs::query::QueryFilter;
use bevy::prelude::*;
use mirofish_sim::space::Swarm;
use mirofish_sim::{FishInputs, Vector};

use crate::components::{FishId, Position, School, Velocity, WanderPhase};
use crate::space::Space;
use crate::state::FlockState;

/// The entity of each fish by id, and the fish whose entities went since
/// the last hand-over.
#[derive(Debug, Default)]
pub(crate) struct FishEntities {
    /// The entity of each fish, by id; [`Entity::PLACEHOLDER`] for a fish
    /// whose entity went (until the next hand-over takes it out) or that
    /// has none yet.
    by_id: Vec<Entity>,
    /// Fish whose entities went, in the order they went.
    gone: Vec<u32>,
    /// Entities that became fish-like (spawned, or given back a component
    /// the tick needs) since the last hand-over, in the order they did.
    arrived: Vec<Entity>,
}

impl FishEntities {
    /// The entity of each fish, by id ([`Entity::PLACEHOLDER`]: none).
    pub(crate) fn by_id(&self) -> &[Entity] {
        &self.by_id
    }

    /// The entity showing fish `id`, if any.
    pub(crate) fn get(&self, id: u32) -> Option<Entity> {
        self.by_id.get(id as usize).copied().filter(|&e| e != Entity::PLACEHOLDER)
    }

    /// The id of the fish `entity` shows, given its [`FishId`]: `None` for
    /// an entity the core does not know as that fish's (one not taken in
    /// yet, one whose fish left, or one with another's copied id).
    pub(crate) fn id_of(&self, entity: Entity, id: FishId) -> Option<u32> {
        id.get().filter(|&id| self.by_id.get(id as usize) == Some(&entity))
    }

    /// How many fish the entities know of (the core's count after the last
    /// hand-over).
    pub(crate) fn len(&self) -> usize {
        self.by_id.len()
    }

    /// Notes `entity` as the entity of the next fish.
    pub(crate) fn push(&mut self, entity: Entity) {
        self.by_id.push(entity);
    }

    /// Forgets the entities of the fish from `len` on (the core removed
    /// them itself, from the top), for the caller to despawn.
    pub(crate) fn truncate(&mut self, len: usize) -> impl Iterator<Item = Entity> + '_ {
        let from = len.min(self.by_id.len());
        self.by_id.drain(from..).filter(|&e| e != Entity::PLACEHOLDER)
    }

    /// Forgets every fish (the school starts over): entities that go from
    /// now on are not taken for fish of the new school.
    pub(crate) fn clear(&mut self) {
        self.by_id.clear();
        self.gone.clear();
        self.arrived.clear();
    }

    /// `entity`, showing fish `id`, went (or lost a component the tick
    /// needs): its fish leaves the core at the next hand-over. Nothing if
    /// the core does not know it as that fish's.
    pub(crate) fn went(&mut self, entity: Entity, id: FishId) {
        if let Some(id) = self.id_of(entity, id) {
            self.by_id[id as usize] = Entity::PLACEHOLDER;
            self.gone.push(id);
        }
    }

    /// `entity` may have become a fish (a plane's flock takes it in at the
    /// next hand-over if it has all a fish needs and is not one already).
    pub(crate) fn arrived(&mut self, entity: Entity) {
        self.arrived.push(entity);
    }

    /// The core's inputs of the fish `entity` shows, given its `id`:
    /// `None` for an entity that is not (or no longer) that fish's.
    pub(crate) fn inputs_of<'f, V: Vector>(
        &self,
        flock: &'f mut Swarm<V>,
        entity: Entity,
        id: FishId,
    ) -> Option<FishInputs<'f, V>> {
        let id = self.id_of(entity, id)?;
        let slot = *flock.slots().get(id as usize)? as usize;
        Some(flock.inputs_mut(slot..slot + 1))
    }

    /// Takes into `flock`, between ticks, under the next ids and in the
    /// order they arrived, the entities that became whole fish since the
    /// last hand-over and are not fish already: `fish(entity)` gives an
    /// arrival's [`FishId`] and `(school, position, velocity, wander
    /// phase)` as a game wrote them, or `None` if it is not a whole fish
    /// (any more). Returns each one's new id, for its `FishId`.
    pub(crate) fn take_in_arrivals<V: Vector>(
        &mut self,
        flock: &mut Swarm<V>,
        mut fish: impl FnMut(Entity) -> Option<(FishId, (u16, V, V, f32))>,
    ) -> Vec<(Entity, FishId)> {
        let arrivals = core::mem::take(&mut self.arrived);
        if arrivals.is_empty() {
            return Vec::new();
        }
        let (mut newcomers, mut handed) = (Vec::new(), Vec::new());
        let mut seen = EntityHashSet::default();
        for entity in arrivals {
            let Some((id, parts)) = fish(entity) else { continue };
            // Known already (a fish of a command), or a repeat in the list.
            if self.id_of(entity, id).is_some() || !seen.insert(entity) {
                continue;
            }
            newcomers.push(entity);
            handed.push(parts);
        }
        let ids = flock.push_fish(handed);
        self.by_id.extend(&newcomers[..ids.len()]);
        newcomers.into_iter().zip(ids.map(FishId)).collect()
    }

    /// Takes the fish whose entities went out of `flock`, between ticks:
    /// the fish with the highest id takes each freed id. Calls `renumbered`
    /// with each entity whose fish changed id, and its new id, for the
    /// caller to set its [`FishId`].
    pub(crate) fn take_out_gone<V: Vector>(
        &mut self,
        flock: &mut Swarm<V>,
        mut renumbered: impl FnMut(Entity, FishId),
    ) {
        if self.gone.is_empty() {
            return;
        }
        let was = flock.remove_fish(&self.gone);
        self.gone.clear();
        let old = core::mem::take(&mut self.by_id);
        self.by_id =
            was.iter().map(|&id| old.get(id as usize).copied().unwrap_or(Entity::PLACEHOLDER)).collect();
        for (id, (&before, &entity)) in was.iter().zip(&self.by_id).enumerate() {
            if before != id as u32 && entity != Entity::PLACEHOLDER {
                renumbered(entity, FishId(id as u32));
            }
        }
    }
}

/// What the hand-over reads of a fish in a space of `V`s.
pub(crate) type FishParts<V> = (
    Entity,
    &'static FishId,
    Ref<'static, Position<V>>,
    Ref<'static, Velocity<V>>,
    Ref<'static, WanderPhase>,
    Option<Ref<'static, School>>,
);

/// The fish entities as the hand-over sees them (`F` picks the space's
/// whole fish), and their ids to renumber. The queries' lifetimes are
/// their own, as in a system's `ParamSet<(Query<..>, Query<..>)>`.
pub(crate) type FishQueries<'w, 's, 'qw, 'qs, V, F> =
    ParamSet<'w, 's, (Query<'qw, 'qs, FishParts<V>, F>, Query<'qw, 'qs, &'static mut FishId>)>;

/// Hands `flock` the fish that came and went since the last tick, between
/// ticks, in either space: the fish whose entities went leave it (the fish
/// that take their ids keep their entities, renumbered), then the entities
/// that became whole fish join it under the next ids, in the order they
/// arrived, as a game wrote them (a fish without [`School`] joins the
/// first). Whether any fish joined.
pub(crate) fn hand_over<V: Vector, F: QueryFilter>(
    entities: &mut FishEntities,
    flock: &mut Swarm<V>,
    fish: &mut FishQueries<'_, '_, '_, '_, V, F>,
) -> bool {
    let mut ids = fish.p1();
    entities.take_out_gone(flock, |entity, id| {
        if let Ok(mut numbered) = ids.get_mut(entity) {
            *numbered = id;
        }
    });
    let parts = fish.p0();
    let arrivals = entities.take_in_arrivals(flock, |entity| {
        let (_, &id, position, velocity, phase, school) = parts.get(entity).ok()?;
        Some((id, (school.map_or(0, |s| s.0), position.0, velocity.0, phase.finite())))
    });
    let joined = !arrivals.is_empty();
    let mut ids = fish.p1();
    for (entity, id) in arrivals {
        if let Ok(mut numbered) = ids.get_mut(entity) {
            *numbered = id;
        }
    }
    joined
}

/// An entity that lost one of the components `B` a fish needs (despawned,
/// or game code removed it): its fish leaves the core at the next
/// hand-over.
pub(crate) fn fish_entity_gone<V: Space, B: Bundle>(
    gone: On<Remove, B>,
    ids: Query<&FishId>,
    state: Option<ResMut<FlockState<V>>>,
) {
    if let (Some(mut state), Ok(&id)) = (state, ids.get(gone.entity)) {
        state.entities.went(gone.entity, id);
    }
}

/// An entity given one of the components `B` a fish needs (spawned, or
/// one put back): the next hand-over takes it in if it is a whole fish and
/// not one already.
pub(crate) fn fish_entity_arrived<V: Space, B: Bundle>(
    arrived: On<Add, B>,
    state: Option<ResMut<FlockState<V>>>,
) {
    if let Some(mut state) = state {
        state.entities.arrived(arrived.entity);
    }
}

/// A fish whose [`School`] a game removed swims in the first school from
/// now on (a written `School` is taken by its change tick; a removed one
/// leaves none to look at).
pub(crate) fn school_removed<V: Space>(
    removed: On<Remove, School>,
    ids: Query<&FishId>,
    state: Option<ResMut<FlockState<V>>>,
) {
    let (Some(mut state), Ok(&id)) = (state, ids.get(removed.entity)) else { return };
    let state = &mut *state;
    if let Some(fish) = state.entities.inputs_of(&mut state.flock, removed.entity, id) {
        fish.school[0] = 0;
    }
}
