//! Temporary: times the plugin tick.
use bevy::app::ScheduleRunnerPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use mirofish::prelude::*;
use mirofish::sim::{FlockParams, Tank};
use std::time::Instant;

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let ticks: usize = std::env::args().nth(2).and_then(|a| a.parse().ok()).unwrap_or(50);
    let params = FlockParams::default();
    let tank = Tank::for_mean_neighbours(n, params.perception_radius, 6.5, 16.0 / 9.0);
    let mut app = App::new();
    app.add_plugins(MinimalPlugins.build().disable::<ScheduleRunnerPlugin>())
        .insert_resource(FlockConfig { tank, seed: 1, ..default() })
        .add_plugins(MiroFishPlugin::default())
        .insert_resource(if std::env::var("NOMETRICS").is_ok() {
            FlockMetrics::new(1_000_000)
        } else {
            FlockMetrics::default()
        })
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    app.init_resource::<Marks>();
    use BoidSystems as B;
    app.add_systems(
        FixedUpdate,
        (
            mark::<0>.before(B::Commands),
            mark::<1>.after(B::Commands).before(B::SpatialIndex),
            mark::<2>.after(B::SpatialIndex).before(B::Forces),
            mark::<3>.after(B::Forces).before(B::Integrate),
            mark::<4>.after(B::Integrate).before(B::Predators),
            mark::<5>.after(B::Predators).before(B::Writeback),
            mark::<6>.after(B::Writeback),
        ),
    );
    app.add_systems(First, mark::<7>);
    app.add_systems(Last, mark::<8>);
    app.world_mut().commands().queue(SpawnSchool::new(n));
    app.world_mut().flush();
    for _ in 0..6 {
        app.update();
    }
    *app.world_mut().resource_mut::<Marks>() = Marks::default();
    let t0 = Instant::now();
    for _ in 0..ticks {
        app.update();
    }
    println!("{:.3} ms per update", t0.elapsed().as_secs_f64() * 1e3 / ticks as f64);
    let m = app.world().resource::<Marks>();
    let names = ["commands", "gather+index", "forces", "integrate", "predators", "writeback+metrics"];
    for i in 0..6 {
        println!("{:20} {:.3} ms", names[i], m.sum[i] * 1e3 / m.count as f64);
    }
    println!("{:20} {:.3} ms", "first->fixed start", m.sum[7] * 1e3 / m.count as f64);
    println!("{:20} {:.3} ms", "fixed end->last", m.sum[8] * 1e3 / m.count as f64);
}

#[derive(Resource, Default)]
struct Marks {
    at: [Option<Instant>; 9],
    sum: [f64; 9],
    count: u64,
}

fn mark<const I: usize>(mut m: ResMut<Marks>) {
    let now = Instant::now();
    m.at[I] = Some(now);
    if I >= 1 && I <= 6 {
        if let Some(prev) = m.at[I - 1] {
            m.sum[I - 1] += (now - prev).as_secs_f64();
        }
    }
    if I == 0 {
        if let Some(f) = m.at[7] {
            m.sum[7] += (now - f).as_secs_f64();
        }
        m.count += 1;
    }
    if I == 8 {
        if let Some(f) = m.at[6] {
            m.sum[8] += (now - f).as_secs_f64();
        }
    }
}
