//! The few lines a game needs: a window, a camera, the plugin, the game
//! kit's fish look and one school.
//!
//! ```text
//! cargo run --release --example minimal
//! ```
//!
//! The fish look is the `kit` feature of `mirofish`. Without it, give each
//! fish your own: an observer on `Add, Boid` that inserts a `Sprite` (or a
//! mesh), long along its +X axis, which the plugin turns to face the
//! velocity.

use bevy::prelude::*;
use mirofish::kit::FishLookPlugin;
use mirofish::prelude::*;

fn main() {
    App::new()
        .add_plugins((
            DefaultPlugins,
            MiroFishPlugin::default().with_tick_rate(60.0).with_max_catch_up(3),
            FishLookPlugin,
        ))
        .insert_resource(ClearColor(Color::srgb(0.03, 0.07, 0.13)))
        .add_systems(Startup, |mut commands: Commands| {
            commands.spawn(Camera2d);
            commands.queue(SpawnSchool::new(600));
        })
        .run();
}
