//! The few lines a game needs: a window, a camera, the plugin and one school
//! drawn as sprites that point along their velocity.
//!
//! ```text
//! cargo run --release --example minimal
//! ```

use bevy::prelude::*;
use mirofish::prelude::*;

fn main() {
    App::new()
        .add_plugins((DefaultPlugins, MiroFishPlugin::default().with_tick_rate(60.0).with_max_catch_up(3)))
        .add_systems(Startup, |mut commands: Commands| {
            commands.spawn(Camera2d);
            commands.queue(SpawnSchool::new(600));
        })
        // Give every fish a look as it arrives: a small sprite, long along
        // its +X axis, which the plugin turns to face the velocity.
        .add_observer(|add: On<Add, Boid>, mut commands: Commands| {
            let sprite = Sprite::from_color(Color::srgb(1.0, 0.62, 0.25), Vec2::new(9.0, 3.0));
            commands.entity(add.entity).insert(sprite);
        })
        .run();
}
