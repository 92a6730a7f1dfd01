//! The aquarium in three dimensions: two schools in a lit glass tank with a
//! sandy floor, weed and rocks, and fog, drawn as one shared fish mesh and
//! one material per school (Bevy batches them into a few instanced draws).
//!
//! ```text
//! cargo run --release --example aquarium3d
//! cargo run --release --example aquarium3d -- --fish 10000 --seed 7
//! cargo run --release --example aquarium3d -- --smoke shot.png   # CI's self-test
//! cargo run --release --example aquarium3d -- --start torus      # Couzin's states
//! cargo run --release --example aquarium3d -- --scene assets/scenes/volume.ron
//! cargo run --release --example aquarium3d -- --replay aquarium3d.replay  # a saved session
//! ```
//!
//! Controls: drag to orbit, wheel to zoom; a click on the floor drops a
//! predator above it, a right click a rock on it; C clears them (each a
//! command to the core, kept with the run); Space pauses, N steps. The panel
//! shows polarization, milling and the collective state they name, plots
//! them, sets every rule of each school, and starts the fish over under
//! Couzin's zone model in one of its four states (swarm, torus, dynamic
//! parallel, highly parallel), whose orientation zone you then slide.
//!
//! Everything but the arguments and the window is
//! `mirofish_examples::aquarium3d::Aquarium3dPlugin`, which the web page
//! uses too.

use bevy::prelude::*;
use bevy::window::WindowResolution;
use mirofish::sim::{VolumeConfig, VolumeRecording};
use mirofish_examples::aquarium3d::{Aquarium3dPlugin, Smoke3d, Start};

fn main() -> AppExit {
    let mut aquarium = Aquarium3dPlugin::default();
    let (mut smoke, mut settle) = (None, None);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().unwrap_or_else(|| fail(&format!("{name} needs a value")));
        match arg.as_str() {
            "--fish" => {
                aquarium.fish = value("--fish").parse().unwrap_or_else(|_| fail("--fish takes a count"))
            }
            "--seed" => {
                aquarium.seed = value("--seed").parse().unwrap_or_else(|_| fail("--seed takes a number"))
            }
            "--smoke" => smoke = Some(value("--smoke")),
            "--settle" => {
                settle = Some(value("--settle").parse().unwrap_or_else(|_| fail("--settle takes seconds")))
            }
            "--scene" => {
                let path = value("--scene");
                aquarium.scene = Some(VolumeConfig::load(&path).unwrap_or_else(|e| fail(&e.to_string())));
            }
            "--replay" => {
                let path = value("--replay");
                aquarium.replay = Some(VolumeRecording::load(&path).unwrap_or_else(|e| fail(&e.to_string())));
            }
            "--start" => {
                let name = value("--start").replace('-', " ");
                aquarium.start = *Start::ALL.iter().find(|s| s.label() == name).unwrap_or_else(|| {
                    fail("--start takes rules, swarm, torus, dynamic-parallel or highly-parallel")
                });
            }
            "--help" | "-h" => {
                println!(
                    "aquarium3d [--fish N] [--seed N] [--start rules|swarm|torus|dynamic-parallel|highly-parallel] \
                     [--scene volume.ron | --replay session.replay] [--smoke shot.png [--settle seconds]]"
                );
                return AppExit::Success;
            }
            other => fail(&format!("unknown argument {other} (try --help)")),
        }
    }
    let mut app = App::new();
    app.add_plugins(DefaultPlugins.set(WindowPlugin {
        primary_window: Some(Window {
            title: "MiroFish aquarium 3D".into(),
            resolution: WindowResolution::new(1280, 720),
            ..default()
        }),
        ..default()
    }));
    if let Some(out) = smoke {
        let test = Smoke3d::new(out, aquarium.start);
        app.insert_resource(Smoke3d { settle: settle.unwrap_or(test.settle), ..test });
    }
    app.add_plugins(aquarium).run()
}

fn fail(message: &str) -> ! {
    eprintln!("aquarium3d: {message}");
    std::process::exit(2)
}
