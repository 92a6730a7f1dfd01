//! The plugin: one implementation over the space, [`MiroFishPlugin`] on a
//! plane and [`MiroFish3dPlugin`](crate::volume::MiroFish3dPlugin) in a
//! volume.

use core::marker::PhantomData;

use bevy::ecs::intern::Interned;
use bevy::ecs::schedule::ScheduleLabel;
use bevy::prelude::*;

use crate::interpolation::interpolate_transforms;
use crate::space::Space;
use crate::state::FlockState;
use crate::tick::{self, Clocks};

/// Adds the fish-school simulation to an app, on a plane
/// ([`MiroFishPlugin`]) or in a volume
/// ([`MiroFish3dPlugin`](crate::volume::MiroFish3dPlugin)): the same
/// settings, state, stages, components and commands over the space's
/// vector.
///
/// Inserts a default configuration ([`FlockConfig`](crate::FlockConfig),
/// [`Flock3dConfig`](crate::volume::Flock3dConfig)) unless the app already
/// has one and schedules the [`BoidSystems`](crate::BoidSystems) sets in
/// its schedule ([`FixedUpdate`] unless [`MiroFishPluginOf::new`] names
/// another). Works headless (`MinimalPlugins`, no window).
///
/// The app's clocks are left alone unless the game asks: each tick lasts
/// the schedule's `Time` delta (in [`FixedUpdate`], the app's fixed time
/// step: Bevy's default is 64 Hz). [`MiroFishPluginOf::with_tick_rate`]
/// sets `Time<Fixed>` to a rate of its own (the examples use 60 Hz, the
/// rate the presets were tuned at), and
/// [`MiroFishPluginOf::with_max_catch_up`] limits `Time<Virtual>`'s
/// largest step, so that a slow frame is followed by at most that many
/// ticks instead of a burst.
///
/// An invalid configuration inserted before the plugin is refused like
/// any later one: the defaults (with its seed) are used, and the error is
/// kept in [`FlockState::rejected`](crate::FlockState::rejected) and
/// reported (see [`FlockRefusals`](crate::FlockRefusals)).
///
/// # Panics
///
/// If the tick rate asked for is not between 1 and 10 000 Hz: a mistake in
/// the program, not in its input.
#[derive(Clone, Debug, PartialEq)]
pub struct MiroFishPluginOf<V: Space> {
    /// The schedule the tick runs in (default [`FixedUpdate`]). Outside
    /// a fixed-step schedule each tick lasts the frame's delta, so runs
    /// are no longer reproducible, and `Transform`s are placed at the tick's
    /// positions instead of being interpolated.
    pub schedule: Interned<dyn ScheduleLabel>,
    /// Fixed ticks per second to set on `Time<Fixed>`; `None` (the
    /// default) leaves the app's fixed clock as it is.
    pub tick_rate: Option<f64>,
    /// Most ticks run in one frame after a slow one, set as
    /// `Time<Virtual>`'s maximum delta; `None` (the default) leaves it as
    /// it is.
    pub max_catch_up: Option<u32>,
    /// Whether `Transform`s follow the fish between ticks (default on;
    /// turn it off to drive `Transform` yourself).
    pub interpolate: bool,
    /// In a volume, the most a fish's `Transform` rolls into a turn
    /// (radians, 0 to π/2; default 0: fish stay upright): a fish steering
    /// sideways at its full `max_force` rolls this far towards the side it
    /// turns to. A plane's fish turn flat.
    pub bank: f32,
    space: PhantomData<V>,
}

/// The plugin on a plane.
pub type MiroFishPlugin = MiroFishPluginOf<Vec2>;

impl<V: Space> Default for MiroFishPluginOf<V> {
    fn default() -> Self {
        Self::new(FixedUpdate)
    }
}

impl<V: Space> MiroFishPluginOf<V> {
    /// The plugin with its tick in `schedule`, leaving the app's clocks alone.
    pub fn new(schedule: impl ScheduleLabel) -> Self {
        Self {
            schedule: schedule.intern(),
            tick_rate: None,
            max_catch_up: None,
            interpolate: true,
            bank: 0.0,
            space: PhantomData,
        }
    }

    /// Sets `Time<Fixed>` to `hz` ticks per second.
    pub fn with_tick_rate(mut self, hz: f64) -> Self {
        self.tick_rate = Some(hz);
        self
    }

    /// Limits the catch-up after a slow frame to `ticks` ticks (at least 1),
    /// through `Time<Virtual>`'s maximum delta.
    pub fn with_max_catch_up(mut self, ticks: u32) -> Self {
        self.max_catch_up = Some(ticks.max(1));
        self
    }

    /// Without `Transform`s following the fish.
    pub fn without_interpolation(mut self) -> Self {
        self.interpolate = false;
        self
    }

    /// Whether the tick runs in `FixedUpdate` (so `Transform`s are drawn
    /// between ticks by the fixed clock's overstep).
    pub(crate) fn runs_fixed(&self) -> bool {
        self.schedule == FixedUpdate.intern()
    }

    /// The clocks the plugin was asked to set.
    pub(crate) fn clocks(&self) -> Clocks {
        Clocks { tick_rate: self.tick_rate, max_catch_up: self.max_catch_up }
    }
}

impl<V: Space> Plugin for MiroFishPluginOf<V> {
    fn build(&self, app: &mut App) {
        self.clocks().build(app, V::PLUGIN);
        // A plane's fish turn flat.
        let bank = if V::DIM == 3 { self.bank } else { 0.0 };
        let state = FlockState { fixed_schedule: self.runs_fixed(), bank, ..tick::state_for::<V>(app) };
        tick::add_tick(app, self.schedule, state);
        V::register_types(app);
        if self.interpolate {
            app.add_systems(
                RunFixedMainLoop,
                interpolate_transforms::<V>.in_set(RunFixedMainLoopSystems::AfterFixedMainLoop),
            );
        }
    }

    fn finish(&self, app: &mut App) {
        self.clocks().finish(app);
    }
}
