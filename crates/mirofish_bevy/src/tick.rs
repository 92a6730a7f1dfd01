//! One tick in an app, in either space: the systems both plugins schedule
//! in the sets of [`BoidSystems`], and the observers that keep the core's
//! fish in line with their entities, with the recorded sessions' start
//! and checkpoints. Each plugin adds what is its space's own: how
//! `Transform`s follow the fish, and a volume's banking.

use core::time::Duration;

use bevy::ecs::intern::Interned;
use bevy::ecs::schedule::ScheduleLabel;
use bevy::prelude::*;
use mirofish_sim::space::TickStage;

use crate::commands::{self, FlockCommands};
use crate::components::{self, SceneArrivals};
use crate::config::FlockConfigOf;
use crate::fish_entities::{fish_entity_arrived, fish_entity_gone, school_removed};
use crate::metrics::{FlockMetrics, sample_metrics};
use crate::recording::{FlockRecorderOf, start_sessions, take_checkpoints};
use crate::refusals::{FlockRefusal, FlockRefusals, Refused, report_in};
use crate::scene_entities::gather_scene;
use crate::schedule::BoidSystems;
use crate::space::Space;
use crate::state::FlockState;
use crate::systems::{
    FishComponents, add_extra_steering, gather_config, gather_fish, gather_groups, gather_leaders, set_step,
    stage, write_back, write_back_predators,
};

/// Inserts `state` and schedules its tick in `schedule`: the commands
/// handed over right after [`BoidSystems::Commands`]; in
/// [`BoidSystems::SpatialIndex`] the tick's step, a changed
/// configuration, the fish a game spawned, despawned or wrote, the rocks
/// and predators, the leaders and groups from their markers and the
/// grid; each of the core's stages in the set of its name (with
/// [`ExtraSteering`](crate::ExtraSteering) before the clamp); and in
/// [`BoidSystems::Writeback`] the entities following what the commands
/// did, the write-back of the fish and the predators, the metrics, then
/// a recorded session's checkpoint. A recorded session asked for starts
/// before the commands are handed over.
pub(crate) fn add_tick<V: Space>(app: &mut App, schedule: Interned<dyn ScheduleLabel>, state: FlockState<V>) {
    app.add_message::<FlockRefusal>()
        .init_resource::<FlockRefusals>()
        .insert_resource(state)
        .init_resource::<FlockCommands<V>>()
        .init_resource::<FlockRecorderOf<V>>()
        .init_resource::<FlockMetrics>()
        .init_resource::<SceneArrivals>()
        .add_observer(components::number_arrival::<V::Rock>)
        .add_observer(components::number_arrival::<V::Hunter>)
        .add_observer(fish_entity_gone::<V, FishComponents<V>>)
        .add_observer(fish_entity_arrived::<V, FishComponents<V>>)
        .add_observer(school_removed::<V>)
        .add_systems(
            schedule,
            (
                // A recorded session starts (or a replay) before the
                // tick's commands are handed over.
                start_sessions::<V>
                    .after(BoidSystems::Commands)
                    .before(commands::hand_over::<V>)
                    .before(BoidSystems::SpatialIndex),
                // Right after the set, so systems placed in it can still
                // submit commands for this very tick.
                commands::hand_over::<V>.after(BoidSystems::Commands).before(BoidSystems::SpatialIndex),
                (
                    set_step::<V>,
                    gather_config::<V>,
                    gather_fish::<V>,
                    gather_scene::<V>,
                    gather_leaders::<V>,
                    gather_groups::<V>,
                    stage::<V>(TickStage::SpatialIndex),
                )
                    .chain()
                    .in_set(BoidSystems::SpatialIndex),
                stage::<V>(TickStage::Forces).in_set(BoidSystems::Forces),
                (add_extra_steering::<V>, stage::<V>(TickStage::Clamp)).chain().in_set(BoidSystems::Clamp),
                stage::<V>(TickStage::Integrate).in_set(BoidSystems::Integrate),
                stage::<V>(TickStage::Boundary).in_set(BoidSystems::Boundary),
                stage::<V>(TickStage::Predators).in_set(BoidSystems::Predators),
                (
                    commands::follow_commands::<V>,
                    write_back::<V>,
                    write_back_predators::<V>,
                    sample_metrics::<V>,
                    take_checkpoints::<V>,
                )
                    .chain()
                    .in_set(BoidSystems::Writeback),
            ),
        );
    for pair in BoidSystems::ORDER.windows(2) {
        app.configure_sets(schedule, pair[1].after(pair[0]));
    }
}

/// The app's clocks as a plugin was asked to set them: the fixed rate,
/// and a cap on the catch-up after a slow frame. Left alone when `None`.
pub(crate) struct Clocks {
    /// Fixed ticks per second to set on `Time<Fixed>`.
    pub tick_rate: Option<f64>,
    /// Most ticks run in one frame after a slow one, set as
    /// `Time<Virtual>`'s maximum delta.
    pub max_catch_up: Option<u32>,
}

impl Clocks {
    /// Sets the clocks, as far as they exist yet.
    ///
    /// # Panics
    ///
    /// If the tick rate asked for is not between 1 and 10 000 Hz (a
    /// mistake in the program, not in its input); `plugin` names the
    /// plugin in the message.
    pub fn build(&self, app: &mut App, plugin: &str) {
        if let Some(hz) = self.tick_rate {
            assert!(
                hz.is_finite() && (1.0..=10_000.0).contains(&hz),
                "{plugin}: tick_rate must be between 1 and 10000 Hz, got {hz}"
            );
            app.insert_resource(Time::<Fixed>::from_hz(hz));
        }
        self.cap_catch_up(app);
    }

    /// Sets them again once every plugin is built: `TimePlugin` may be
    /// added after the plugin (`App::run` calls `finish` then).
    pub fn finish(&self, app: &mut App) {
        if let Some(hz) = self.tick_rate
            && let Some(mut fixed) = app.world_mut().get_resource_mut::<Time<Fixed>>()
        {
            fixed.set_timestep_hz(hz);
        }
        self.cap_catch_up(app);
    }

    /// Limits `Time<Virtual>`'s maximum delta to `max_catch_up` fixed
    /// steps, if asked.
    fn cap_catch_up(&self, app: &mut App) {
        let Some(ticks) = self.max_catch_up else { return };
        let tick = match self.tick_rate {
            Some(hz) => Duration::from_secs_f64(1.0 / hz),
            None => app
                .world()
                .get_resource::<Time<Fixed>>()
                .map_or(Duration::from_secs_f64(1.0 / 64.0), Time::timestep),
        };
        if let Some(mut virtual_time) = app.world_mut().get_resource_mut::<Time<Virtual>>() {
            virtual_time.set_max_delta(tick * ticks);
        }
    }
}

/// The state a plugin starts with: from the app's configuration resource
/// (inserted with the defaults if the app has none), or, if it is refused,
/// from the defaults with its seed, the error reported and kept in
/// [`FlockState::rejected`].
pub(crate) fn state_for<V: Space>(app: &mut App) -> FlockState<V> {
    app.add_message::<FlockRefusal>().init_resource::<FlockRefusals>();
    let requested = app.world_mut().get_resource_or_insert_with(FlockConfigOf::<V>::default).clone();
    match requested.validate() {
        Ok(()) => FlockState::new(requested),
        Err(error) => {
            let mut state = FlockState::new(FlockConfigOf { seed: requested.seed, ..default() });
            state.rejected = Some(error.clone());
            report_in(app.world_mut(), FlockRefusal { tick: 0, what: Refused::Config, error });
            state
        }
    }
}
