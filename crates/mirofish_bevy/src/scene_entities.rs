//! Rocks and predators as entities, in either space: which entity stands
//! for which element of the core's scene, and how the entities follow the
//! scene after the core has applied a tick's commands.
//!
//! Between ticks the entities are the truth: each tick starts by gathering
//! them into the core's scene, in the order they arrived. The tick's
//! commands then act on that scene in the core, and at the write-back the
//! entities follow: a rock or predator a command added gets an entity, one
//! a command removed loses its entity. The plane's and the volume's
//! plugins share this; each space says how its entities look
//! ([`SceneForms`]).

use bevy::ecs::entity::EntityHashSet;
use bevy::prelude::*;
use mirofish_sim::space::Swarm;
use mirofish_sim::world::scene::{add_rock, check_room};
use mirofish_sim::{FlockCommand, Obstacle, ParamError, Predator, TankOf, Vector};

use crate::components::{Position, SceneOrder, Velocity, sort_by_arrival};
use crate::refusals::{FlockRefusal, FlockRefusals, Refused, report};
use crate::space::Space;
use crate::state::FlockState;

/// How a space's fish, rocks and predators look as entities.
pub trait SceneForms: Vector {
    /// A rock entity's component ([`Obstacle2d`](crate::Obstacle2d),
    /// [`Obstacle3d`](crate::volume::Obstacle3d)).
    type Rock: Component;
    /// A predator entity's component ([`Predator2d`](crate::Predator2d),
    /// [`Predator3d`](crate::volume::Predator3d)).
    type Hunter: Component;

    /// A fish's `Transform` at `position`, turned along `velocity`, as it
    /// is spawned.
    fn fish_transform(position: Self, velocity: Self) -> Transform;

    /// The core's rock that `rock` stands for at `centre`.
    fn rock(rock: &Self::Rock, centre: Self) -> Obstacle<Self>;

    /// The core's predator that `hunter` stands for at `position`, moving
    /// at `velocity`.
    fn hunter(hunter: &Self::Hunter, position: Self, velocity: Self) -> Predator<Self>;

    /// Spawns the entity of `rock`.
    fn spawn_rock(commands: &mut Commands, rock: &Obstacle<Self>) -> Entity;

    /// Spawns the entity of `predator`.
    fn spawn_hunter(commands: &mut Commands, predator: &Predator<Self>) -> Entity;
}

/// The entities of the scene's rocks and predators, by their place in the
/// scene's lists, and the entities refused while they stay invalid.
#[derive(Debug)]
pub(crate) struct SceneEntities<V: Vector> {
    /// The entity of each of the scene's rocks.
    pub rocks: Vec<Entity>,
    /// The entity of each of the scene's predators.
    pub hunters: Vec<Entity>,
    /// Rock and predator entities refused and reported, so that each is
    /// reported once while it stays invalid.
    pub refused: EntityHashSet,
    /// How many of the core's left-out commands the entities have caught
    /// up with.
    seen_left_out: usize,
    /// The gather's working lists, kept so that a tick allocates nothing
    /// once they have grown.
    pub gather: Gathered<V>,
}

impl<V: Vector> Default for SceneEntities<V> {
    fn default() -> Self {
        Self {
            rocks: Vec::new(),
            hunters: Vec::new(),
            refused: EntityHashSet::default(),
            seen_left_out: 0,
            gather: Gathered::default(),
        }
    }
}

/// Rocks and predators as they arrived, and those admitted.
#[derive(Debug)]
pub(crate) struct Gathered<V: Vector> {
    /// Every rock entity, with its order of arrival.
    pub rocks: Vec<(SceneOrder, Entity, Obstacle<V>)>,
    /// Every predator entity, with its order of arrival.
    pub hunters: Vec<(SceneOrder, Entity, Predator<V>)>,
    /// The rocks admitted, in the scene's order.
    pub obstacles: Vec<Obstacle<V>>,
    /// The predators admitted, in the scene's order.
    pub predators: Vec<Predator<V>>,
}

impl<V: Vector> Default for Gathered<V> {
    fn default() -> Self {
        Self { rocks: Vec::new(), hunters: Vec::new(), obstacles: Vec::new(), predators: Vec::new() }
    }
}

impl<V: Vector> SceneEntities<V> {
    /// Gathers the rock and predator entities (each with the order it
    /// arrived in) into `gather`'s lists in that order, the core's: each
    /// valid one, and each rock that leaves room in `tank` beside those
    /// before it. An entity refused goes into `refusals` once, while it
    /// stays so.
    pub fn admit(
        &mut self,
        rocks: impl Iterator<Item = (SceneOrder, Entity, Obstacle<V>)>,
        hunters: impl Iterator<Item = (SceneOrder, Entity, Predator<V>)>,
        tank: &TankOf<V>,
        tick: u64,
        refusals: &mut Vec<FlockRefusal>,
    ) {
        let Self { rocks: admitted, hunters: hunting, refused, gather, .. } = self;
        let mut check = |entity: Entity, what: Refused, result: Result<(), ParamError>| {
            admit_entity(refused, refusals, tick, (entity, what), result)
        };
        gather.rocks.clear();
        gather.rocks.extend(rocks);
        sort_by_arrival(&mut gather.rocks);
        admitted.clear();
        admit_rocks(&gather.rocks, tank, &mut gather.obstacles, |entity, fits| {
            if check(entity, Refused::Obstacle(entity), fits) {
                admitted.push(entity);
            }
        });
        gather.hunters.clear();
        gather.hunters.extend(hunters);
        sort_by_arrival(&mut gather.hunters);
        gather.predators.clear();
        hunting.clear();
        for &(_, entity, predator) in &gather.hunters {
            if check(entity, Refused::Predator(entity), predator.validate()) {
                gather.predators.push(predator);
                hunting.push(entity);
            }
        }
    }
}

impl<V: SceneForms> SceneEntities<V> {
    /// The core was replaced by a new one: none of its commands, left out
    /// or not, has been seen yet.
    pub fn started_over(&mut self) {
        self.seen_left_out = 0;
    }

    /// Forgets every entity (the plugin despawns them first).
    pub fn forget(&mut self) -> impl Iterator<Item = Entity> + '_ {
        self.refused.clear();
        self.rocks.drain(..).chain(self.hunters.drain(..))
    }

    /// Brings the rock and predator entities in line with `flock`'s scene
    /// after its commands from `seen_commands` on: an entity for each rock
    /// or predator a command added, none for one it removed. With
    /// `rebuild` (the scene was replaced), or where the lists still differ
    /// in length, every entity is spawned again from the scene.
    pub fn follow_commands(
        &mut self,
        commands: &mut Commands,
        flock: &Swarm<V>,
        seen_commands: usize,
        rebuild: bool,
    ) {
        let left_out = flock.left_out();
        for stamped in flock.applied().get(seen_commands..).unwrap_or_default() {
            // A command the core left out (a rock that would close the last
            // room) added nothing.
            if left_out.get(self.seen_left_out).is_some_and(|(l, _)| l == stamped) {
                self.seen_left_out += 1;
                continue;
            }
            match &stamped.command {
                FlockCommand::AddObstacle(rock) => self.rocks.push(V::spawn_rock(commands, rock)),
                FlockCommand::RemoveObstacle(i) if *i < self.rocks.len() => {
                    despawn(commands, self.rocks.remove(*i))
                }
                FlockCommand::ClearObstacles => self.rocks.drain(..).for_each(|e| despawn(commands, e)),
                FlockCommand::AddPredator(p) => self.hunters.push(V::spawn_hunter(commands, p)),
                FlockCommand::RemovePredator(i) if *i < self.hunters.len() => {
                    despawn(commands, self.hunters.remove(*i))
                }
                FlockCommand::ClearPredators => self.hunters.drain(..).for_each(|e| despawn(commands, e)),
                _ => {}
            }
        }
        let scene = flock.scene();
        if rebuild || self.rocks.len() != scene.obstacles.len() || self.hunters.len() != scene.predators.len()
        {
            for entity in self.forget().collect::<Vec<_>>() {
                despawn(commands, entity);
            }
            self.rocks = scene.obstacles.iter().map(|rock| V::spawn_rock(commands, rock)).collect();
            self.hunters = scene.predators.iter().map(|p| V::spawn_hunter(commands, p)).collect();
        }
    }
}

/// Spawns the rock and predator entities of a scene that replaced the
/// last one (a start from a configuration, a volume's
/// [`SetScene3d`](crate::volume::SetScene3d)), in place of the old ones
/// ([`SceneEntities::follow_commands`], the core's commands seen up to
/// `seen_commands`); each is spawned where the scene has it, so nothing
/// more is written.
pub(crate) fn respawn_scene<V: Space>(world: &mut World, seen_commands: usize) {
    world.resource_scope(|world, mut state: Mut<FlockState<V>>| {
        let state = &mut *state;
        state.scene_entities.follow_commands(&mut world.commands(), &state.flock, seen_commands, true);
        world.flush();
    });
}

/// Whether a rock or predator entity, checked with `result`, joins the
/// scene: with `Ok` it does (and is no longer refused); with `Err` it does
/// not, and its refusal goes into `refused` only the first time, while it
/// stays invalid (`refused_entities` remembers it).
fn admit_entity(
    refused_entities: &mut EntityHashSet,
    refused: &mut Vec<FlockRefusal>,
    tick: u64,
    (entity, what): (Entity, Refused),
    result: Result<(), ParamError>,
) -> bool {
    match result {
        Ok(()) => {
            refused_entities.remove(&entity);
            true
        }
        Err(error) => {
            if refused_entities.insert(entity) {
                refused.push(FlockRefusal { tick, what, error });
            }
            false
        }
    }
}

/// The scene's rocks from rock entities in the order they arrived: each
/// valid alone, and leaving room beside those before it (the one that would
/// close the last room is left out, as the core leaves out such a command's
/// rock). `verdict` hears each entity's outcome. The whole set is checked
/// once first: only where the rocks cover the tank between them (rare) is
/// each one checked beside those before it, which costs a room check per
/// rock, every tick.
pub(crate) fn admit_rocks<V: Vector>(
    rocks: &[(SceneOrder, Entity, Obstacle<V>)],
    tank: &TankOf<V>,
    out: &mut Vec<Obstacle<V>>,
    mut verdict: impl FnMut(Entity, Result<(), ParamError>),
) {
    out.clear();
    out.extend(rocks.iter().map(|&(_, _, rock)| rock).filter(|rock| rock.validate_in(tank).is_ok()));
    let crowded = check_room(out, tank).is_err();
    out.clear();
    for &(_, entity, rock) in rocks {
        let fits = rock.validate_in(tank).and_then(|()| match crowded {
            true => add_rock(out, rock, tank),
            false => {
                out.push(rock);
                Ok(())
            }
        });
        verdict(entity, fits);
    }
}

/// Despawns `entity` if it is still there.
pub(crate) fn despawn(commands: &mut Commands, entity: Entity) {
    commands.entity(entity).try_despawn();
}

/// What the scene's gather reads of a rock or predator entity: its
/// component, position, velocity (predators) and order of arrival.
type SceneParts<T, V> =
    (Entity, &'static T, &'static Position<V>, Option<&'static Velocity<V>>, Option<&'static SceneOrder>);

/// Gathers the rock and predator entities into the core's scene before
/// the tick, in the order they arrived, in either space: each valid one,
/// and each rock that leaves room beside those before it; an entity
/// refused is reported once while it stays so. The scene is written only
/// where the entities differ from it (a game moved, added or removed
/// one): a tick without such changes copies nothing.
pub(crate) fn gather_scene<V: Space>(
    mut state: ResMut<FlockState<V>>,
    rocks: Query<SceneParts<V::Rock, V>, Without<V::Boid>>,
    hunters: Query<SceneParts<V::Hunter, V>, Without<V::Boid>>,
    (mut refusals, mut messages): (ResMut<FlockRefusals>, MessageWriter<FlockRefusal>),
) {
    let state = &mut *state;
    let tick = state.flock.tick();
    let order = |o: Option<&SceneOrder>| o.copied().unwrap_or_default();
    let mut refused = Vec::new();
    state.scene_entities.admit(
        rocks.iter().map(|(e, rock, p, _, at)| (order(at), e, V::rock(rock, p.0))),
        hunters.iter().map(|(e, hunter, p, v, at)| {
            (order(at), e, V::hunter(hunter, p.0, v.map_or(V::default(), |v| v.0)))
        }),
        state.flock.tank(),
        tick,
        &mut refused,
    );
    let (gather, flock) = (&state.scene_entities.gather, &mut state.flock);
    let scene = flock.scene();
    if scene.obstacles != gather.obstacles || scene.predators != gather.predators {
        let edited = flock.edit_scene(|scene| {
            scene.obstacles.clone_from(&gather.obstacles);
            scene.predators.clone_from(&gather.predators);
        });
        // Admitted one by one above, so not expected; the core keeps its
        // last scene.
        if let Err(error) = edited {
            refused.push(FlockRefusal { tick, what: Refused::Scene, error });
        }
    }
    for refusal in refused {
        report(&mut refusals, &mut messages, refusal);
    }
}
