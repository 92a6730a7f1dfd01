//! Pausing, single-stepping and timing the simulation, on a plane or in a
//! volume: [`RunControlsPlugin`].
//!
//! ```no_run
//! use bevy::prelude::*;
//! use mirofish_bevy::prelude::*;
//! use mirofish_kit::prelude::*;
//!
//! App::new()
//!     .add_plugins((DefaultPlugins, MiroFishPlugin::default(), RunControlsPlugin))
//!     // Space pauses, N steps a paused school.
//!     .add_plugins(ShortcutsPlugin)
//!     .run();
//! ```
//!
//! The clock it stops is Bevy's virtual time, so everything the game runs
//! on it stops with the school; a step runs the fixed schedule once, so a
//! stepped session is the same ticks as a played one.

// Bevy's clock: `std`'s has no time source in a browser.
use bevy::platform::time::Instant;
use bevy::prelude::*;
use mirofish_bevy::BoidSystems;

/// Whether the simulation runs, and what was asked of it. A button, a key
/// ([`crate::ShortcutsPlugin`]) or a game's own system sets the fields;
/// [`RunControlsPlugin`] carries them out at the next frame.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunControls {
    /// Whether the clock is stopped (Bevy's `Time<Virtual>` paused).
    pub paused: bool,
    /// Run one tick at the next frame, while paused.
    pub step: bool,
    /// Whether the game starts its scene over when asked ([`Self::restart`]):
    /// only the game knows what its scene is, so the kit offers the
    /// restart (a button, a key) only where the game says it carries it
    /// out.
    pub restartable: bool,
    /// A restart is asked: the game's own system starts its scene over and
    /// clears this.
    pub restart: bool,
}

/// How long a tick and a frame take, smoothed.
#[derive(Resource, Clone, Copy, Debug, Default)]
pub struct TickStats {
    /// When the running tick started.
    started: Option<Instant>,
    /// Wall time of a tick, milliseconds (an exponential moving average).
    pub tick_ms: f32,
    /// Frames per second (an exponential moving average of the frame
    /// time).
    pub fps: f32,
}

/// Weight of the newest sample in the moving averages.
const SMOOTHING: f32 = 0.05;

fn blend(old: f32, new: f32) -> f32 {
    if old == 0.0 { new } else { old + (new - old) * SMOOTHING }
}

/// Pause, single step and restart requests ([`RunControls`]) and the
/// tick's and frame's timings ([`TickStats`]), with a "run" section in the
/// panel where `TuningPanelPlugin` is added. Works with the core plugin of
/// either space ticking in `FixedUpdate` (its default).
pub struct RunControlsPlugin;

impl Plugin for RunControlsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<RunControls>()
            .init_resource::<TickStats>()
            .add_systems(
                FixedUpdate,
                (tick_started.before(BoidSystems::Commands), tick_finished.after(BoidSystems::Writeback)),
            )
            .add_systems(Update, (frame_time, pause_and_step).chain().in_set(RunSystems));
    }
}

/// The set that carries out [`RunControls`] each frame, in `Update`: a
/// game's restart system goes after it.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RunSystems;

fn tick_started(mut stats: ResMut<TickStats>) {
    stats.started = Some(Instant::now());
}

fn tick_finished(mut stats: ResMut<TickStats>) {
    if let Some(start) = stats.started.take() {
        stats.tick_ms = blend(stats.tick_ms, start.elapsed().as_secs_f32() * 1e3);
    }
}

fn frame_time(mut stats: ResMut<TickStats>, time: Res<Time<Real>>) {
    let dt = time.delta_secs();
    if dt > 0.0 {
        stats.fps = blend(stats.fps, 1.0 / dt);
    }
}

/// Pauses or resumes `Time<Virtual>` as [`RunControls::paused`] says, and
/// runs the fixed schedule once for a step asked while paused.
fn pause_and_step(world: &mut World) {
    let controls = *world.resource::<RunControls>();
    let mut time = world.resource_mut::<Time<Virtual>>();
    if controls.paused != time.is_paused() {
        if controls.paused { time.pause() } else { time.unpause() }
    }
    if controls.step {
        world.resource_mut::<RunControls>().step = false;
        if controls.paused {
            world.run_schedule(FixedUpdate);
        }
    }
}

/// The panel's "run" section: the tick's and frame's timings, pause, step
/// and (where the game restarts) restart.
#[cfg(feature = "panel")]
pub fn run_section(
    InMut(ui): InMut<crate::panel::egui::Ui>,
    mut controls: ResMut<RunControls>,
    stats: Res<TickStats>,
) {
    use crate::panel::egui;
    ui.label(format!("tick {:.2} ms · {:.0} fps", stats.tick_ms, stats.fps));
    ui.horizontal(|ui| {
        let pause = if controls.paused { "▶ resume" } else { "⏸ pause" };
        if ui.button(pause).clicked() {
            controls.paused = !controls.paused;
        }
        if ui.add_enabled(controls.paused, egui::Button::new("step")).clicked() {
            controls.step = true;
        }
        if controls.restartable && ui.button("restart").clicked() {
            controls.restart = true;
        }
    });
}
