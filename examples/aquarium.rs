//! The aquarium: thousands of fish in two schools, an egui panel with every
//! parameter, predators and obstacles under the mouse, a debug overlay.
//!
//! ```text
//! cargo run --release --example aquarium
//! cargo run --release --example aquarium -- --fish 10000 --seed 7
//! cargo run --release --example aquarium -- --scene assets/scenes/leaders.ron
//! cargo run --release --example aquarium -- --replay aquarium-session.replay
//! cargo run --release --example aquarium -- --smoke shot.png   # CI's self-test
//! cargo run --release --example aquarium -- --smoke shot.png --settle 20
//! ```
//!
//! Controls: left click a predator, right click an obstacle, Shift + drag
//! attracts (left) or repels (right), C clears, Space pauses, N steps,
//! R resets, 1–4 toggle the overlay, M changes the colouring, H hides the
//! panel, I lets the schools decide where to go (`--intent` from the start).
//! The panel's "record & replay" buttons record a session (it restarts the
//! scene), save it as `aquarium-session.replay` in the working folder —
//! `mirofish-lab replay` runs it to the same bits — and replay it;
//! "save config" writes the running configuration as `aquarium.flock.ron`.

use bevy::prelude::*;
use bevy::window::WindowResolution;
use mirofish::kit::RecorderControls;
use mirofish::kit::recorder::Ask;
use mirofish_examples::aquarium::{
    AquariumPlugin, AquariumSettings, OverlaySettings, SmokeTest, decision_settings,
};

fn main() -> AppExit {
    let (mut scene, mut fish, mut seed) = (None, None, None);
    let (mut smoke, mut replay) = (None, None);
    let mut overlay = OverlaySettings::default();
    let mut deciding = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().unwrap_or_else(|| fail(&format!("{name} needs a value")));
        match arg.as_str() {
            "--fish" => fish = Some(value("--fish").parse().unwrap_or_else(|_| fail("--fish takes a count"))),
            "--seed" => {
                seed = Some(value("--seed").parse().unwrap_or_else(|_| fail("--seed takes a number")))
            }
            "--smoke" => smoke = Some(SmokeTest::new(value("--smoke"))),
            "--settle" => {
                let seconds = value("--settle").parse().unwrap_or_else(|_| fail("--settle takes seconds"));
                match smoke.as_mut() {
                    Some(test) => test.settle_seconds = seconds,
                    None => fail("--settle goes after --smoke"),
                }
            }
            "--intent" => deciding = true,
            "--scene" => {
                let path = value("--scene");
                scene = Some(
                    mirofish::sim::ExperimentConfig::load(&path).unwrap_or_else(|e| fail(&e.to_string())),
                );
            }
            "--replay" => {
                let path = value("--replay");
                replay = Some(mirofish::sim::Recording::load(&path).unwrap_or_else(|e| fail(&e.to_string())));
            }
            "--overlay" => {
                overlay.neighbours = true;
                overlay.forces = true;
                overlay.radii = true;
            }
            "--help" | "-h" => {
                println!(
                    "usage: aquarium [--scene FILE.ron] [--fish N] [--seed N] [--replay FILE.replay] [--overlay] [--intent] [--smoke OUT.png [--settle SECONDS]]"
                );
                return AppExit::Success;
            }
            other => fail(&format!("unknown argument `{other}` (try --help)")),
        }
    }
    let mut settings = scene.map_or_else(AquariumSettings::default, AquariumSettings::from_scene);
    settings.fish = fish.unwrap_or(settings.fish).min(mirofish_examples::aquarium::panel::MAX_FISH);
    settings.seed = seed.unwrap_or(settings.seed);
    let mut app = App::new();
    app.add_plugins(DefaultPlugins.set(WindowPlugin {
        primary_window: Some(Window {
            title: "MiroFish aquarium".into(),
            resolution: WindowResolution::new(1280, 720),
            ..default()
        }),
        ..default()
    }))
    .insert_resource(overlay)
    .insert_resource(decision_settings(deciding))
    .add_plugins(AquariumPlugin { settings });
    if let Some(test) = smoke {
        app.insert_resource(test);
    }
    if let Some(recording) = replay {
        let mut controls = app.world_mut().resource_mut::<RecorderControls>();
        (controls.last, controls.asked) = (Some(recording), Some(Ask::Replay));
    }
    app.run()
}

fn fail(message: &str) -> ! {
    eprintln!("aquarium: {message}");
    std::process::exit(2)
}
