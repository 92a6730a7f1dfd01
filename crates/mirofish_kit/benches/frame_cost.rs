//! What the kit costs a frame, rendering excluded: a headless app with the
//! core plugin ticking once a frame at 60 Hz, then the same app with the
//! fish's look, then with the look and the tuning panel's sections laid out
//! and tessellated into an egui context every frame (what a renderer would
//! then upload) — on a plane (`FishLookPlugin`, the sprites' tail beat and
//! stretch) and in a volume (`FishLook3dPlugin`, each fish's stroke into
//! its `MeshTag`). Prints the median frame of each and what the look and
//! the panel add to it.
//!
//! ```text
//! cargo bench -p mirofish_kit --features panel,look3d --bench frame_cost            # 10,000 fish
//! cargo bench -p mirofish_kit --features panel,look3d --bench frame_cost -- 50000   # another count
//! ```

use std::time::{Duration, Instant};

use bevy::app::ScheduleRunnerPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_egui::egui;
use mirofish_bevy::FlockMetrics;
use mirofish_bevy::prelude::*;
use mirofish_bevy::volume::{MiroFish3dPlugin, SpawnSchool3d};
use mirofish_kit::look::FishLookPlugin;
use mirofish_kit::look3d::FishLook3dPlugin;
use mirofish_kit::panel::draw_sections;
use mirofish_kit::{MouseToolsPlugin, TuningPanelPlugin};

/// Frames run before timing: the school spawned, the buffers grown.
const WARMUP: usize = 60;
/// Frames timed for each kit.
const FRAMES: usize = 300;

/// What a frame holds besides the core plugin.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kit {
    Core,
    Look,
    LookAndPanel,
}

/// Where the school swims.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Space {
    Plane,
    Volume,
}

fn app(fish: usize, space: Space, kit: Kit) -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins.build().disable::<ScheduleRunnerPlugin>(), AssetPlugin::default()))
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(1.0 / 60.0)));
    match space {
        Space::Plane => {
            app.init_asset::<Image>()
                .init_asset::<TextureAtlasLayout>()
                .insert_resource(FlockConfig { seed: 3, ..default() })
                .insert_resource(FlockMetrics::new(30))
                .add_plugins(MiroFishPlugin::default().with_tick_rate(60.0));
            if kit != Kit::Core {
                app.add_plugins(FishLookPlugin);
            }
            if kit == Kit::LookAndPanel {
                app.add_plugins((TuningPanelPlugin, MouseToolsPlugin));
            }
            app.world_mut().commands().queue(SpawnSchool::new(fish));
        }
        Space::Volume => {
            app.init_asset::<Mesh>()
                .init_asset::<StandardMaterial>()
                .init_asset::<Shader>()
                .insert_resource(Time::<Fixed>::from_hz(60.0))
                .add_plugins(MiroFish3dPlugin::default());
            if kit != Kit::Core {
                app.add_plugins(FishLook3dPlugin);
            }
            if kit == Kit::LookAndPanel {
                app.add_plugins(TuningPanelPlugin);
            }
            app.world_mut().commands().queue(SpawnSchool3d::new(fish));
        }
    }
    app.world_mut().flush();
    app
}

/// The median frame of `kit` with `fish` fish in `space`, in milliseconds.
fn median_frame(fish: usize, space: Space, kit: Kit) -> f64 {
    let mut app = app(fish, space, kit);
    let ctx = egui::Context::default();
    let frame = |app: &mut App| {
        app.update();
        if kit == Kit::LookAndPanel {
            let input = egui::RawInput {
                screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1280.0, 720.0))),
                ..default()
            };
            let world = app.world_mut();
            let output = ctx.run_ui(input, |ui| {
                egui::ScrollArea::vertical().show(ui, |ui| draw_sections(world, ui));
            });
            let meshes = ctx.tessellate(output.shapes, output.pixels_per_point);
            std::hint::black_box(meshes);
        }
    };
    for _ in 0..WARMUP {
        frame(&mut app);
    }
    let mut times: Vec<f64> = (0..FRAMES)
        .map(|_| {
            let start = Instant::now();
            frame(&mut app);
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn main() {
    // `cargo bench` passes `--bench`; a number among the arguments is the
    // fish count.
    let fish = std::env::args().skip(1).find_map(|a| a.parse::<usize>().ok()).unwrap_or(10_000);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("{fish} fish, {threads} threads, median of {FRAMES} frames (one tick each), rendering excluded");
    for (space, name) in [(Space::Plane, "on a plane"), (Space::Volume, "in a volume")] {
        let core = median_frame(fish, space, Kit::Core);
        let look = median_frame(fish, space, Kit::Look);
        let panel = median_frame(fish, space, Kit::LookAndPanel);
        println!("{name}:");
        println!("  core plugin                 {core:>7.3} ms");
        println!("  + fish look                 {look:>7.3} ms  (+{:.3} ms)", look - core);
        println!("  + fish look + tuning panel  {panel:>7.3} ms  (+{:.3} ms over the core)", panel - core);
    }
}
