//! Schools in a volume in a Bevy app: [`MiroFish3dPlugin`].
//!
//! The core's [`Flock3d`] holds the fish and steps them (in parallel,
//! bit-identical on any number of threads); every fish is also an entity
//! with a [`Boid3d`] marker, its [`FishId`], a [`Position`] and a
//! [`Velocity`] (the plane's components, over `Vec3`) written back after
//! each tick (a game that writes either moves the fish: the next tick
//! starts from it; a game that spawns a `Boid3d` adds a fish, and one that
//! despawns it takes it out, as on a plane), and a `Transform` that
//! follows them between ticks, turned so that its −Z axis (Bevy's
//! forward) points along the velocity. Give each fish a look when it
//! arrives (an observer on `Add<Boid3d>` inserting a mesh and a material:
//! one shared mesh and one material per school let Bevy draw them all in a
//! few instanced draws). Rocks and predators are entities too
//! ([`Obstacle3d`], [`Predator3d`]), gathered into the volume's scene at
//! each tick's start, as on a plane.
//!
//! ```
//! use bevy::app::ScheduleRunnerPlugin;
//! use bevy::prelude::*;
//! use bevy::time::TimeUpdateStrategy;
//! use mirofish_bevy::volume::*;
//!
//! let mut app = App::new();
//! app.add_plugins(MinimalPlugins.build().disable::<ScheduleRunnerPlugin>())
//!     .add_plugins(MiroFish3dPlugin::default())
//!     .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
//! app.world_mut().commands().queue(SpawnSchool3d::new(500));
//! for _ in 0..=30 {
//!     app.update();
//! }
//! let state = app.world().resource::<Flock3dState>();
//! assert_eq!((state.flock().len(), state.flock().tick()), (500, 30));
//! ```
//!
//! Each tick runs in the plane's stages, the sets of [`BoidSystems`] in
//! the plugin's schedule, each running the core's [`TickStage`] of the
//! same name: [`BoidSystems::SpatialIndex`] takes out of the core the fish
//! whose entities the game despawned (the fish with the highest id then
//! takes the freed id, its entity's [`FishId`] with it), takes in what the
//! game wrote to the fish, applies the due commands and rebuilds the grid,
//! [`BoidSystems::Forces`] sums the rules, [`BoidSystems::Clamp`] adds each
//! fish's [`ExtraSteering`] (a game's own forces) and clamps,
//! [`BoidSystems::Integrate`] moves the fish, [`BoidSystems::Boundary`]
//! holds them in the tank and out of the rocks, [`BoidSystems::Predators`]
//! moves the route and the predators, and [`BoidSystems::Writeback`]
//! copies the result to the entities — spawning an entity for each fish a
//! command added and despawning those of the fish it removed. A game
//! system ordered between two sets acts between those stages; one after
//! the write-back sees the tick's result.
//!
//! Change a running volume by command, as on a plane: submit a
//! [`VolumeCommand`] to the [`FlockCommands<Vec3>`](FlockCommands)
//! resource and it applies at the start of the next tick (right after
//! [`BoidSystems::Commands`]); the core keeps every command applied, so
//! the configuration it started from and that list replay the session
//! ([`VolumeRecording`]). Start from a configuration file with
//! [`LoadConfig`]; record a session and play it again with the
//! [`Flock3dRecorder`], as on a plane.
//!
//! [`BoidSystems`]: crate::BoidSystems
//! [`BoidSystems::Commands`]: crate::BoidSystems::Commands
//! [`BoidSystems::SpatialIndex`]: crate::BoidSystems::SpatialIndex
//! [`BoidSystems::Forces`]: crate::BoidSystems::Forces
//! [`BoidSystems::Clamp`]: crate::BoidSystems::Clamp
//! [`BoidSystems::Integrate`]: crate::BoidSystems::Integrate
//! [`BoidSystems::Boundary`]: crate::BoidSystems::Boundary
//! [`BoidSystems::Predators`]: crate::BoidSystems::Predators
//! [`BoidSystems::Writeback`]: crate::BoidSystems::Writeback
//! [`TickStage`]: mirofish_sim::space::TickStage
//! [`VolumeCommand`]: mirofish_sim::space::VolumeCommand
//! [`Flock3d`]: mirofish_sim::space::Flock3d
//! [`VolumeRecording`]: mirofish_sim::VolumeRecording

use bevy::prelude::*;
use mirofish_sim::Scene3d;

/// The commands waiting for their tick and those applied, as on a plane:
/// `FlockCommands<Vec3>` in a volume.
pub use crate::commands::FlockCommands;
/// A fish's components, the plane's own, over `Vec3`: [`Position`],
/// [`Velocity`], [`PreviousPosition`], [`Steering`] and [`ExtraSteering`]
/// hold a `Vec3` in a volume (`Position<Vec3>`), [`FishId`], [`School`]
/// and [`Leader`] are the very same.
pub use crate::components::{
    ExtraSteering, FishGroup, FishId, Leader, Position, PreviousPosition, School, Steering, Velocity,
    WanderPhase,
};
/// The core's school and its entities, the plane's over `Vec3`.
pub use crate::config::FlockConfigOf;
/// The plugin, the plane's over `Vec3`.
pub use crate::plugin::MiroFishPluginOf;
/// The recorder, the plane's over `Vec3`.
pub use crate::recording::FlockRecorderOf;
/// How a recorded session stands ([`FlockRecorderOf::session`]), as on a
/// plane.
pub use crate::recording::Session;
use crate::refusals::{FlockRefusal, Refused, report_in};
/// Starting over from a configuration, as on a plane.
pub use crate::start::{LoadConfig, Restart};
pub use crate::state::FlockState;

mod scene;

pub use scene::{Obstacle3d, Predator3d};

/// Marks a fish of a school in a volume.
#[derive(Component, Clone, Copy, Debug, Default, Reflect)]
#[reflect(Component)]
#[require(Transform, FishId, Position<Vec3>, Velocity<Vec3>, PreviousPosition<Vec3>, Steering<Vec3>, WanderPhase)]
pub struct Boid3d;

/// The volume's configuration: the plane's configuration ([`FlockConfigOf`]) over `Vec3`
/// (every school's parameters, the box, the seed, the zones, the goals and
/// the attractor), read when the plugin is added and followed as it
/// changes, as on a plane.
pub type Flock3dConfig = FlockConfigOf<Vec3>;

/// The school in the volume: the plane's [`FlockState`] over `Vec3`. The
/// core owns the fish; each entity names its fish by [`FishId`].
pub type Flock3dState = FlockState<Vec3>;

/// Records and replays sessions in a volume: the plane's recorder
/// ([`FlockRecorderOf`]) over `Vec3`, with
/// [`VolumeConfig`](mirofish_sim::VolumeConfig) starts and
/// [`VolumeRecording`](mirofish_sim::VolumeRecording)s.
pub type Flock3dRecorder = FlockRecorderOf<Vec3>;

/// Adds schools in a volume: the plugin ([`MiroFishPluginOf`]) over
/// `Vec3`, with [`Flock3dState`] from [`Flock3dConfig`], a tick per run of
/// its schedule, and `Transform`s that follow the fish (turned along
/// their velocity, rolled into their turns with
/// [`MiroFishPluginOf::with_banking`]).
pub type MiroFish3dPlugin = MiroFishPluginOf<Vec3>;

impl MiroFishPluginOf<Vec3> {
    /// Fish roll into their turns, at most `max_roll` radians (clamped to
    /// 0–π/2; not a number: none).
    pub fn with_banking(mut self, max_roll: f32) -> Self {
        self.bank = if max_roll.is_nan() { 0.0 } else { max_roll.clamp(0.0, core::f32::consts::FRAC_PI_2) };
        self
    }
}

/// [`SpawnSchoolOf`](crate::SpawnSchoolOf) in a volume: the plane's
/// command over `Vec3`.
pub type SpawnSchool3d = crate::SpawnSchoolOf<Vec3>;

/// Replaces what shares the volume (rocks, predators, goals), refusing it
/// with a [`FlockRefusal`] if an element is invalid. A command.
#[derive(Clone, Debug)]
pub struct SetScene3d(pub Scene3d);

impl Command for SetScene3d {
    type Out = ();

    fn apply(self, world: &mut World) {
        let Some(mut state) = world.get_resource_mut::<Flock3dState>() else { return };
        if let Err(error) = state.flock.set_scene(self.0) {
            let tick = state.flock.tick();
            report_in(world, FlockRefusal { tick, what: Refused::Scene, error });
            return;
        }
        // Replaced outside the commands.
        state.changed_outside_commands();
        // The new scene's rocks and predators get entities in place of the
        // old ones.
        let seen = state.seen_commands;
        crate::scene_entities::respawn_scene::<Vec3>(world, seen);
    }
}
