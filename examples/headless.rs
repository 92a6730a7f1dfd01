//! Runs the plugin without a window or GPU and prints what a comparison from
//! the shell needs: the order parameter, the mean speed and the state hash.
//!
//! ```text
//! cargo run --release --example headless -- --fish 2000 --ticks 600 --seed 7
//! cargo run --release --example headless -- --preset dense-sardines --ticks 1000
//! ```
//!
//! Two runs with the same arguments print the same hash; `--threads 1`
//! prints the same hash as any other thread count.

use std::process::ExitCode;
use std::time::Instant;

use bevy::app::ScheduleRunnerPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use mirofish::prelude::*;
use mirofish::sim::{BoundaryMode, Preset, observe};

struct Args {
    fish: Option<usize>,
    preset: Option<Preset>,
    ticks: u32,
    seed: u64,
    threads: Option<usize>,
    boundary: BoundaryMode,
}

fn parse() -> Result<Args, String> {
    let mut args = Args {
        fish: None,
        preset: None,
        ticks: 600,
        seed: 1,
        threads: None,
        boundary: BoundaryMode::SoftMargin,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        let bad = |e: &dyn std::fmt::Display| format!("{flag}: {e}");
        match flag.as_str() {
            "--fish" => args.fish = Some(value()?.parse().map_err(|e| bad(&e))?),
            "--preset" => {
                let name = value()?;
                args.preset = Some(Preset::by_name(&name).ok_or_else(|| {
                    format!("--preset: unknown preset {name}; known: {}", Preset::names().join(", "))
                })?);
            }
            "--ticks" => args.ticks = value()?.parse().map_err(|e| bad(&e))?,
            "--seed" => args.seed = value()?.parse().map_err(|e| bad(&e))?,
            "--threads" => args.threads = Some(value()?.parse().map_err(|e| bad(&e))?),
            "--boundary" => {
                args.boundary = match value()?.as_str() {
                    "wrap" => BoundaryMode::Wrap,
                    "bounce" => BoundaryMode::Bounce,
                    "soft" => BoundaryMode::SoftMargin,
                    other => return Err(format!("--boundary: expected wrap, bounce or soft, got {other}")),
                }
            }
            "-h" | "--help" => {
                return Err("usage: headless [--preset NAME] [--fish N] [--ticks N] [--seed N] \
                            [--threads N] [--boundary wrap|bounce|soft]"
                    .into());
            }
            other => return Err(format!("unknown argument {other} (try --help)")),
        }
    }
    Ok(args)
}

fn main() -> ExitCode {
    let args = match parse() {
        Ok(args) => args,
        Err(msg) => {
            eprintln!("{msg}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(n) = args.threads
        && let Err(e) = rayon::ThreadPoolBuilder::new().num_threads(n).build_global()
    {
        eprintln!("--threads: {e}");
        return ExitCode::FAILURE;
    }
    // A preset brings its own count and tank; otherwise the reference
    // parameters at a realistic density: mean 6.5 neighbours at the start
    // (5–8 looks natural).
    let (fish, params, tank) = match args.preset {
        Some(p) => (args.fish.unwrap_or(p.count), p.params, p.tank),
        None => {
            let fish = args.fish.unwrap_or(2000);
            let params = FlockParams::default();
            (fish, params, Tank::for_mean_neighbours(fish, params.perception_radius, 6.5, 16.0 / 9.0))
        }
    };
    let tank = tank.with_boundary(args.boundary);
    let config = FlockConfig { params, tank, seed: args.seed, ..default() };

    let mut app = App::new();
    app.add_plugins(MinimalPlugins.build().disable::<ScheduleRunnerPlugin>())
        .insert_resource(config)
        .add_plugins(MiroFishPlugin::default().with_tick_rate(60.0).without_interpolation())
        // Exactly one fixed tick per update, whatever the wall clock does.
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    app.world_mut().commands().queue(SpawnSchool::new(fish));
    // Keep each rule's force, for the report below.
    app.world_mut().resource_mut::<FlockState>().set_record_rules(true);

    // Bevy's first update has a zero time delta and runs no fixed tick;
    // count ticks, not updates.
    let ticks = |app: &App| app.world().resource::<FlockState>().flock().tick();
    let start = Instant::now();
    while ticks(&app) < u64::from(args.ticks) {
        app.update();
    }
    let elapsed = start.elapsed();

    let state = app.world().resource::<FlockState>();
    let flock = &state.flock();
    println!("fish          {}", flock.len());
    println!("ticks         {}", flock.tick());
    println!("seed          {}", args.seed);
    println!("polarization  {:.4}", observe::polarization(flock.velocities()));
    println!("mean speed    {:.3}", observe::mean_speed(flock.velocities()));
    println!("neighbours    {:.2}", observe::mean_neighbours(flock));
    let nn = observe::mean_nearest_neighbour_distance(flock, params.perception_radius);
    println!("nearest       {}", nn.map_or("none within perception".into(), |d| format!("{d:.2}")));
    let f = observe::mean_rule_forces(flock).unwrap_or_default();
    println!(
        "rule forces   separation {:.1}  alignment {:.1}  cohesion {:.1}  wander {:.1}  boundary {:.1}",
        f.separation, f.alignment, f.cohesion, f.wander, f.boundary
    );
    println!("state hash    {:016x}", observe::state_hash(flock));
    println!("ms per tick   {:.3}", elapsed.as_secs_f64() * 1e3 / f64::from(args.ticks.max(1)));
    ExitCode::SUCCESS
}
