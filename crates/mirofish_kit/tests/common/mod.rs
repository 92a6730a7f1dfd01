//! What several test files share: a headless app for a volume.

use std::time::Duration;

use bevy::app::ScheduleRunnerPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use mirofish_bevy::volume::MiroFish3dPlugin;

/// A windowless app with the core plugin for a volume and the assets the
/// kit's 3D plugins make (meshes, materials), whose clock advances 16 ms
/// an update.
pub fn volume_app() -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins.build().disable::<ScheduleRunnerPlugin>(), AssetPlugin::default()))
        .init_asset::<Mesh>()
        .init_asset::<StandardMaterial>()
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(16)))
        .add_plugins(MiroFish3dPlugin::default());
    app
}
