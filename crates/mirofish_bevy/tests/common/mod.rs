//! What the plugin's app tests share: a headless app stepped an exact
//! number of fixed ticks, a school spawned into it, and a hash of the
//! entities' state.
#![allow(dead_code, reason = "each test file uses some of these helpers")]

use bevy::app::ScheduleRunnerPlugin;
use bevy::ecs::schedule::{LogLevel, ScheduleBuildSettings};
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use mirofish_bevy::prelude::*;

/// A headless app that runs exactly `ticks_per_update` fixed ticks on every
/// `app.update()`, with ambiguity detection turned into an error for
/// `FixedUpdate`.
pub fn headless_app(config: FlockConfig, ticks_per_update: u32) -> App {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins.build().disable::<ScheduleRunnerPlugin>())
        .insert_resource(config)
        .add_plugins(
            MiroFishPlugin::default()
                .with_tick_rate(60.0)
                .with_max_catch_up(mirofish_bevy::MAX_CATCH_UP_TICKS),
        )
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(ticks_per_update))
        .edit_schedule(FixedUpdate, |schedule| {
            schedule.set_build_settings(ScheduleBuildSettings {
                ambiguity_detection: LogLevel::Error,
                ..default()
            });
        });
    app
}

pub fn config(seed: u64) -> FlockConfig {
    FlockConfig { seed, tank: Tank::centered(Vec2::new(800.0, 450.0)), ..default() }
}

pub fn spawn(app: &mut App, count: usize) {
    app.world_mut().commands().queue(SpawnSchool::new(count));
    app.world_mut().flush();
}

/// Hash of every fish's ECS position and velocity, in entity order.
pub fn ecs_hash(app: &mut App) -> u64 {
    let mut fish: Vec<(Entity, Position, Velocity)> = app
        .world_mut()
        .query::<(Entity, &Position, &Velocity)>()
        .iter(app.world())
        .map(|(e, p, v)| (e, *p, *v))
        .collect();
    fish.sort_by_key(|(e, ..)| *e);
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (_, p, v) in fish {
        for x in [p.x, p.y, v.x, v.y] {
            h = (h ^ u64::from(x.to_bits())).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

pub fn run_ticks(app: &mut App, ticks: u64) {
    let target = app.world().resource::<FlockState>().flock().tick() + ticks;
    while app.world().resource::<FlockState>().flock().tick() < target {
        app.update();
    }
}

pub fn count<T: Component>(app: &mut App) -> usize {
    app.world_mut().query_filtered::<(), With<T>>().iter(app.world()).count()
}
