//! Agent-updates per second for the full tick.
//!
//! ```text
//! cargo bench --bench tick            # everything
//! cargo bench --bench tick -- kernel  # one group
//! ```
//!
//! Groups:
//! - `kernel/{1k,10k,100k}`: the core's whole tick (index, forces, clamp,
//!   integrate, boundary) at a realistic density (mean 6.5 neighbours).
//! - `search/{grid,brute}/N`: grid against brute force at small sizes.
//! - `threads/{1,2}/100k`: the same tick on one and on two threads.
//! - `build/{fastest,portable}/{sparse,crowded}`: the force pass's AVX2
//!   build (where the CPU has it) against the portable one, 10k fish at
//!   6.5 and at 50 neighbours.
//! - `slots/{stable,spatial}/{100k,1m}`: stable slots against slots
//!   renumbered in the grid's order every tick (`SlotOrder::Spatial`, the
//!   same bits), on two threads.
//! - `plugin/10k`: the whole Bevy fixed tick (gather, passes, write-back)
//!   against `kernel/10k` shows what the ECS glue costs.
//!
//! Throughput is reported in elements per second, one element being one
//! fish updated once: agent-updates per second.

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bevy::app::ScheduleRunnerPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use criterion::measurement::WallTime;
use criterion::{
    BatchSize, BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main,
};
use mirofish::prelude::*;
use mirofish::sim::{KernelPath, NeighbourSearch, Simulation, SlotOrder};

/// A warmed-up simulation of `n` fish at mean 6.5 neighbours.
fn simulation(n: usize, threads: Option<usize>) -> Simulation {
    simulation_at(n, threads, 6.5)
}

/// A warmed-up simulation of `n` fish at `neighbours` mean neighbours.
fn simulation_at(n: usize, threads: Option<usize>, neighbours: f32) -> Simulation {
    let params = FlockParams::reference();
    let tank = Tank::for_mean_neighbours(n, params.perception_radius, neighbours, 16.0 / 9.0);
    let mut sim = Simulation::new(params, tank, n, 1).expect("valid parameters");
    if let Some(t) = threads {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(t).build().expect("thread pool");
        sim = sim.with_thread_pool(Arc::new(pool));
    }
    // A few ticks so every buffer is allocated: the measured ticks then
    // allocate nothing.
    sim.run(10);
    sim
}

/// Times one tick from the same warmed-up state every iteration. Stepping
/// one simulation over and over would measure a school that keeps
/// contracting (its neighbour count climbs from ~6 to over 50 within a few
/// hundred ticks), not the density the benchmark names. Each copy first
/// runs one untimed tick: a fresh copy is fresh memory, cold in every
/// cache, which a long run never is (it made the integrator look three
/// times slower than it is).
fn tick(b: &mut criterion::Bencher<'_>, sim: &Simulation) {
    let warm = || {
        let mut s = sim.clone();
        s.step();
        s
    };
    b.iter_batched_ref(warm, |s| s.step(), BatchSize::LargeInput);
}

fn kernel(c: &mut Criterion) {
    let mut group = c.benchmark_group("kernel");
    group.sample_size(20);
    for (label, n) in [("1k", 1_000), ("10k", 10_000), ("100k", 100_000)] {
        let sim = simulation(n, None);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(label, |b| tick(b, &sim));
    }
    group.finish();
}

fn search(c: &mut Criterion) {
    let mut group = c.benchmark_group("search");
    group.sample_size(10);
    for n in [1_000usize, 4_000] {
        for (label, mode) in [("grid", NeighbourSearch::Grid), ("brute", NeighbourSearch::BruteForce)] {
            let mut sim = simulation(n, None);
            sim.set_neighbour_search(mode);
            group.throughput(Throughput::Elements(n as u64));
            group.bench_with_input(BenchmarkId::new(label, n), &n, |b, _| tick(b, &sim));
        }
    }
    group.finish();
}

fn threads(c: &mut Criterion) {
    let mut group = c.benchmark_group("threads");
    group.sample_size(20);
    for t in [1usize, 2] {
        let sim = simulation(100_000, Some(t));
        group.throughput(Throughput::Elements(100_000));
        group.bench_with_input(BenchmarkId::new(t.to_string(), "100k"), &t, |b, _| tick(b, &sim));
    }
    group.finish();
}

/// One benchmark per variant, `label/param`: `setup` makes each variant's
/// simulation of `n` fish.
fn variants<T: Copy>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    param: &str,
    n: usize,
    variants: [(&str, T); 2],
    setup: impl Fn(T) -> Simulation,
) {
    for (label, variant) in variants {
        let sim = setup(variant);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(BenchmarkId::new(label, param), |b| tick(b, &sim));
    }
}

fn build(c: &mut Criterion) {
    let mut group = c.benchmark_group("build");
    group.sample_size(20);
    let paths = [("fastest", KernelPath::Fastest), ("portable", KernelPath::Portable)];
    for (density, neighbours) in [("sparse", 6.5), ("crowded", 50.0)] {
        variants(&mut group, density, 10_000, paths, |path| {
            let mut sim = simulation_at(10_000, None, neighbours);
            sim.set_kernel_path(path);
            sim
        });
    }
    group.finish();
}

fn slots(c: &mut Criterion) {
    let mut group = c.benchmark_group("slots");
    group.sample_size(10);
    let orders = [("stable", SlotOrder::Stable), ("spatial", SlotOrder::Spatial)];
    for (size, n) in [("100k", 100_000), ("1m", 1_000_000)] {
        variants(&mut group, size, n, orders, |order| {
            let mut sim = simulation(n, Some(2));
            sim.set_slot_order(order);
            // Renumbered once before the clones are taken.
            sim.step();
            sim
        });
    }
    group.finish();
}

fn plugin(c: &mut Criterion) {
    let mut group = c.benchmark_group("plugin");
    group.sample_size(20);
    let n = 10_000;
    let params = FlockParams::reference();
    let tank = Tank::for_mean_neighbours(n, params.perception_radius, 6.5, 16.0 / 9.0);
    let mut app = App::new();
    app.add_plugins(MinimalPlugins.build().disable::<ScheduleRunnerPlugin>())
        .insert_resource(FlockConfig { params, tank, seed: 1, ..default() })
        .add_plugins(MiroFishPlugin::default().with_tick_rate(60.0).without_interpolation())
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    app.world_mut().commands().queue(SpawnSchool::new(n));
    for _ in 0..10 {
        app.update();
    }
    // Like `tick`: every measured update starts from the same state, put
    // back (untimed) through the components.
    let snapshot: Vec<(Entity, Position, Velocity, WanderPhase)> = app
        .world_mut()
        .query::<(Entity, &Position, &Velocity, &WanderPhase)>()
        .iter(app.world())
        .map(|(e, p, v, w)| (e, *p, *v, *w))
        .collect();
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function("10k", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                for &(e, p, v, w) in &snapshot {
                    app.world_mut().entity_mut(e).insert((p, v, w));
                }
                let start = Instant::now();
                black_box(&mut app).update();
                total += start.elapsed();
            }
            total
        })
    });
    group.finish();
}

criterion_group!(benches, kernel, search, threads, build, slots, plugin);
criterion_main!(benches);
