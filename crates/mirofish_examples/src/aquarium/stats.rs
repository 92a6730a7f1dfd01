//! Timing shown in the panel: the cost of a fixed tick and the frame rate.

// Bevy's clock: `std`'s has no time source in a browser.
use bevy::platform::time::Instant;
use bevy::prelude::*;

/// Smoothed timings.
#[derive(Resource, Clone, Copy, Debug, Default)]
pub struct TickStats {
    /// When the running tick started.
    started: Option<Instant>,
    /// Wall time of a tick, milliseconds (exponential moving average).
    pub tick_ms: f32,
    /// Frames per second (exponential moving average of the frame time).
    pub fps: f32,
}

/// Weight of the newest sample in the moving averages.
const SMOOTHING: f32 = 0.05;

fn blend(old: f32, new: f32) -> f32 {
    if old == 0.0 { new } else { old + (new - old) * SMOOTHING }
}

pub(super) fn tick_started(mut stats: ResMut<TickStats>) {
    stats.started = Some(Instant::now());
}

pub(super) fn tick_finished(mut stats: ResMut<TickStats>) {
    if let Some(start) = stats.started.take() {
        stats.tick_ms = blend(stats.tick_ms, start.elapsed().as_secs_f32() * 1e3);
    }
}

pub(super) fn frame_time(mut stats: ResMut<TickStats>, time: Res<Time<Real>>) {
    let dt = time.delta_secs();
    if dt > 0.0 {
        stats.fps = blend(stats.fps, 1.0 / dt);
    }
}
