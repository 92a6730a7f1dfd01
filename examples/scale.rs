//! The performance table: milliseconds per tick and agent-updates per
//! second for 1k–1M fish, uniform and crowded (the default neighbour cap
//! and a tighter one), the worst arrangements (every fish on one point,
//! within the separation floor, in one cell) against the uniform tick,
//! grid against brute force, one
//! thread against two, stable slots against slots in space order, the bare
//! kernel against the whole plugin tick, bytes per fish and heap
//! allocations per warmed-up tick; then the same for schools in a volume
//! (`--volume-only` runs just those rows).
//!
//! Every row runs the seeds' reference start (`FlockParams::reference()`),
//! the parameters the published figures were measured with.
//!
//! ```text
//! cargo run --release --example scale
//! cargo run --release --example scale -- --sizes 1000,10000,100000 --ticks 10
//! ```
//!
//! Every timed tick starts from the same warmed-up state (cloned, then
//! one untimed tick so its buffers are warm, outside the timing), so the
//! density is the one named; the figure is the median.

use std::sync::Arc;
use std::time::Instant;

use bevy::app::ScheduleRunnerPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use mirofish::prelude::*;
use mirofish::sim::space::Flock3d;
use mirofish::sim::{KernelPath, NeighbourSearch, Simulation, SlotOrder, Tank3d, observe};

/// Counts heap allocations, to show the warmed-up tick makes none.
#[global_allocator]
static GLOBAL: alloc_counter::Counting = alloc_counter::Counting;

fn pool(threads: usize) -> Arc<rayon::ThreadPool> {
    Arc::new(rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a thread pool"))
}

/// A school of `n` at a start density of 6.5 neighbours, warmed `warm` ticks.
fn school(n: usize, params: FlockParams, warm: u64) -> Simulation {
    let tank = Tank::for_mean_neighbours(n, params.perception_radius, 6.5, 16.0 / 9.0);
    let mut sim = Simulation::new(params, tank, n, 1).expect("valid parameters");
    sim.run(warm);
    sim
}

/// Median milliseconds of one tick of `start` on `threads` threads.
fn time_tick(start: &Simulation, threads: usize, ticks: usize) -> f64 {
    let pool = pool(threads);
    median_ms(ticks, || {
        let mut sim = start.clone();
        sim = sim.with_thread_pool(pool.clone());
        // One untimed tick: a fresh clone is fresh memory, cold in
        // every cache, which a long run never is.
        sim.step();
        let t0 = Instant::now();
        sim.step();
        t0.elapsed().as_secs_f64() * 1e3
    })
}

/// The median of `runs` results of `timed` (milliseconds).
fn median_ms(runs: usize, mut timed: impl FnMut() -> f64) -> f64 {
    let mut times: Vec<f64> = (0..runs.max(1)).map(|_| timed()).collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn row(what: &str, n: usize, ms: f64, neighbours: f32) {
    println!("| {what} | {n} | {neighbours:.1} | {ms:.3} | {:.2} |", n as f64 / ms / 1e3);
}

/// The plugin tick's parts, in the order they run: what `Stopwatch`
/// marks between the plugin's system sets.
const PARTS: [&str; 5] = [
    "gather + index rebuild",
    "forces",
    "integrate + boundary",
    "predators + write-back + metrics",
    "rest of the frame (interpolation, time, schedules)",
];

/// Marks taken between the plugin's system sets in every frame, summed.
#[derive(Resource, Default)]
struct Stopwatch {
    /// When each mark was last passed.
    at: [Option<Instant>; 6],
    /// Seconds spent in each part, summed over the frames.
    spent: [f64; PARTS.len()],
    /// Whether the frames are being timed (not while warming up).
    on: bool,
}

/// Records mark `I`, and the part that ended there: 0 before the index,
/// 1–4 after the sets of index, forces, boundary and write-back, 5 at the
/// end of the frame.
fn mark<const I: usize>(mut watch: ResMut<Stopwatch>) {
    let now = Instant::now();
    if let (true, Some(start)) = (watch.on, watch.at[if I == 0 { 5 } else { I - 1 }]) {
        let part = if I == 0 { PARTS.len() - 1 } else { I - 1 };
        watch.spent[part] += (now - start).as_secs_f64();
    }
    watch.at[I] = Some(now);
}

/// What `plugin_tick` measured.
struct PluginTick {
    /// Median milliseconds of a whole frame.
    frame: f64,
    /// Mean milliseconds of each part ([`PARTS`]).
    parts: [f64; PARTS.len()],
    /// Median milliseconds of the core's tick alone (2 threads) on the same
    /// fish, as they are after the timed frames.
    kernel: f64,
    /// Their mean neighbours: a school gathers as it swims, so this is
    /// denser than the start.
    neighbours: f32,
}

/// What a game adds to the plugin in [`plugin_tick`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Added {
    /// Nothing: the plugin alone.
    Nothing,
    /// Its own force on every fish ([`pull_to_centre`]).
    CustomForce,
    /// The game kit's fish look (sprites, tail beat, stretch; the
    /// renderer is not there, so this is its CPU cost per frame).
    FishLook,
}

/// Times whole plugin frames with one fixed tick each (commands, gather,
/// passes, write-back, metrics, interpolation) for `n` fish in a headless
/// app, with what a game `added`, then the core's tick alone on the same
/// fish.
fn plugin_tick(n: usize, ticks: usize, added: Added) -> PluginTick {
    let params = FlockParams::reference();
    let tank = Tank::for_mean_neighbours(n, params.perception_radius, 6.5, 16.0 / 9.0);
    let mut app = App::new();
    app.add_plugins(MinimalPlugins.build().disable::<ScheduleRunnerPlugin>())
        .insert_resource(FlockConfig { params, tank, seed: 1, ..default() })
        .add_plugins(MiroFishPlugin::default().with_tick_rate(60.0))
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1))
        .init_resource::<Stopwatch>();
    {
        use BoidSystems as Set;
        app.add_systems(
            FixedUpdate,
            (
                mark::<0>.after(Set::Commands).before(Set::SpatialIndex),
                mark::<1>.after(Set::SpatialIndex).before(Set::Forces),
                mark::<2>.after(Set::Forces).before(Set::Integrate),
                mark::<3>.after(Set::Boundary).before(Set::Predators),
                mark::<4>.after(Set::Writeback),
            ),
        )
        .add_systems(Last, mark::<5>);
    }
    if added == Added::FishLook {
        app.add_plugins(AssetPlugin::default())
            .init_asset::<Image>()
            .init_asset::<TextureAtlasLayout>()
            .add_plugins(mirofish::kit::FishLookPlugin);
    }
    if added == Added::CustomForce {
        // A game's own force on every fish: a pull towards the tank's
        // centre, written before the clamp stage.
        app.add_observer(|add: On<Add, Boid>, mut commands: Commands| {
            commands.entity(add.entity).insert(ExtraSteering(Vec2::ZERO));
        })
        .add_systems(FixedUpdate, pull_to_centre.before(BoidSystems::Clamp).after(BoidSystems::Forces));
    }
    app.world_mut().commands().queue(SpawnSchool::new(n));
    app.world_mut().flush();
    for _ in 0..6 {
        app.update();
    }
    app.world_mut().resource_mut::<Stopwatch>().on = true;
    let frame = median_frame(&mut app, ticks);
    let parts = app.world().resource::<Stopwatch>().spent.map(|s| s * 1e3 / ticks as f64);
    // The core's tick on the same fish, timed as every other core row: the
    // plugin's own school, which the plugin runs stage by stage.
    let state = app.world().resource::<FlockState>();
    let core = state.flock().clone();
    PluginTick {
        frame,
        parts,
        kernel: time_tick(&core, 2, ticks),
        neighbours: observe::mean_neighbours(state.flock().neighbour_counts()),
    }
}

/// The custom force of [`plugin_tick`]: every fish pulled towards the
/// centre, a little.
fn pull_to_centre(mut fish: Query<(&Position, &mut ExtraSteering)>) {
    fish.par_iter_mut().for_each(|(p, mut extra)| extra.0 = -p.0 * 0.05);
}

/// The worst arrangements a goal, an attractor or a script can make: every
/// fish on one point, within the separation floor (1 unit), inside one
/// grid cell (20 units), standing still. Timed on one thread against the
/// uniform tick `uniform_ms`: the first tick after the arrangement (its
/// buffers grow to the pile) and the steady tick (the arrangement made
/// again before each tick, as a goal holding the fish would).
fn worst_cases(uniform: &Simulation, uniform_ms: f64, ticks: usize) {
    let n = uniform.len();
    let pool = pool(1);
    for (name, spread) in [("one point", 0.0f32), ("within the separation floor", 1.0), ("one cell", 20.0)] {
        let arrange = |sim: &mut Simulation| {
            for i in 0..n {
                // A sunflower spiral: even cover of the disc, no two equal.
                let (a, r) = (i as f32 * 2.399_963, spread * ((i as f32 + 0.5) / n as f32).sqrt());
                sim.set(i as u32, Vec2::new(a.cos(), a.sin()) * r, Vec2::ZERO)
                    .expect("a point inside the tank");
            }
        };
        let mut sim = uniform.clone();
        sim = sim.with_thread_pool(pool.clone());
        sim.step();
        arrange(&mut sim);
        let t0 = Instant::now();
        sim.step();
        let first = t0.elapsed().as_secs_f64() * 1e3;
        let steady = median_ms(ticks, || {
            arrange(&mut sim);
            let t0 = Instant::now();
            sim.step();
            t0.elapsed().as_secs_f64() * 1e3
        });
        println!("| {name}, 1 thread: first · steady tick (ms) | {n} | | {first:.2} · {steady:.2} | |");
        println!(
            "| {name} / uniform, 1 thread: first · steady | {n} | | {:.2}× · {:.2}× | |",
            first / uniform_ms,
            steady / uniform_ms
        );
    }
}

/// A school of `n` in a cube at a start density of 7 neighbours (a
/// crowded one after `warm` ticks of strong cohesion), warmed `warm` ticks.
fn volume_school(n: usize, params: FlockParams, warm: u64) -> Flock3d {
    let tank = Tank3d::for_mean_neighbours_3d(n, params.perception_radius, 7.0);
    let mut flock = Flock3d::new(params, tank, n, 1).expect("valid parameters");
    flock.run(warm);
    flock
}

/// Median milliseconds of one tick of `start` on `threads` threads.
fn time_volume_tick(start: &Flock3d, threads: usize, ticks: usize) -> f64 {
    let pool = pool(threads);
    median_ms(ticks, || {
        let mut flock = start.clone().with_thread_pool(pool.clone());
        flock.step();
        let t0 = Instant::now();
        flock.step();
        t0.elapsed().as_secs_f64() * 1e3
    })
}

/// Times whole frames of a volume's plugin with one fixed tick each
/// (commands, the tick's stages, the write-back, the `Transform`s) for `n`
/// fish in the tank of [`volume_school`], then the core's tick alone on the
/// same fish: the medians and the fish's mean neighbours.
fn volume_plugin_tick(n: usize, ticks: usize) -> (f64, f64, f32) {
    use mirofish::volume::{Flock3dConfig, Flock3dState, MiroFish3dPlugin, SpawnSchool3d};
    let params = FlockParams::reference();
    let tank = Tank3d::for_mean_neighbours_3d(n, params.perception_radius, 7.0);
    let mut app = App::new();
    app.add_plugins(MinimalPlugins.build().disable::<ScheduleRunnerPlugin>())
        .insert_resource(Flock3dConfig { params, tank, seed: 1, ..default() })
        .add_plugins(MiroFish3dPlugin::default())
        .insert_resource(Time::<Fixed>::from_hz(60.0))
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    app.world_mut().commands().queue(SpawnSchool3d::new(n));
    for _ in 0..6 {
        app.update();
    }
    let frame = median_frame(&mut app, ticks);
    let flock = app.world().resource::<Flock3dState>().flock();
    (frame, time_volume_tick(flock, 2, ticks), volume_neighbours(flock))
}

/// Median milliseconds of `frames` whole frames (`app.update()`).
fn median_frame(app: &mut App, frames: usize) -> f64 {
    median_ms(frames, || {
        let t0 = Instant::now();
        app.update();
        t0.elapsed().as_secs_f64() * 1e3
    })
}

/// A volume's fish's mean neighbour count.
fn volume_neighbours(flock: &Flock3d) -> f32 {
    flock.neighbour_counts().map(|c| c as f32).sum::<f32>() / flock.len().max(1) as f32
}

/// The rows of schools in a volume: uniform on 1 and 2 threads, crowded
/// against uniform, and allocations per warmed-up tick.
fn volume_rows(n: usize, ticks: usize) {
    let neighbours = volume_neighbours;
    let uniform = volume_school(n, FlockParams::reference(), 2);
    let k = neighbours(&uniform);
    let (one, two) = (time_volume_tick(&uniform, 1, ticks), time_volume_tick(&uniform, 2, ticks));
    row("volume: uniform, 1 thread", n, one, k);
    row("volume: uniform, 2 threads", n, two, k);
    println!("| volume: 1 → 2 threads speed-up | {n} | | {:.2}× | |", one / two);
    if n >= 100_000 {
        // The same school with its slots renumbered in the grid's order
        // every tick: the same bits, reads along memory.
        let spatial = uniform.clone().with_slot_order(SlotOrder::Spatial);
        let (s1, s) = (time_volume_tick(&spatial, 1, ticks), time_volume_tick(&spatial, 2, ticks));
        row("volume: uniform, 1 thread, slots in space order", n, s1, k);
        row("volume: uniform, 2 threads, slots in space order", n, s, k);
        println!("| volume: stable / space-ordered slots | {n} | | {:.2}× | |", two / s);
    }
    if n <= 100_000 {
        let crowd = FlockParams { cohesion_weight: 3.0, separation_weight: 0.4, ..FlockParams::reference() };
        let crowded = volume_school(n, crowd, 240);
        let kc = neighbours(&crowded);
        let c = time_volume_tick(&crowded, 2, ticks);
        row("volume: crowded, 2 threads", n, c, kc);
        println!("| volume: crowded / uniform, 2 threads | {n} | | {:.2}× | |", c / two);
    }
    if n <= 100_000 {
        let (frame, core, k) = volume_plugin_tick(n, ticks);
        row("volume: whole plugin frame with one tick (ECS), 2 threads", n, frame, k);
        row("volume: the core's tick alone on the same fish, 2 threads", n, core, k);
        println!("| volume: plugin frame / core tick | {n} | | {:.2}× | |", frame / core);
    }
    let pool = pool(2);
    let mut flock = uniform.clone().with_thread_pool(pool.clone());
    let ticks = if n >= 1_000_000 { 5 } else { 63 };
    let allocs = pool.install(|| {
        flock.run(2);
        let before = alloc_counter::allocations();
        flock.run(ticks);
        alloc_counter::allocations() - before
    });
    println!(
        "| volume: heap allocations per warmed-up tick, on a thread of the pool ({ticks} ticks) | {n} | | {:.3} | |",
        allocs as f64 / ticks as f64
    );
}

fn main() {
    let mut sizes = vec![1_000usize, 10_000, 100_000, 1_000_000];
    let mut ticks = 15usize;
    let mut volume_only = false;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        if flag == "--volume-only" {
            volume_only = true;
            continue;
        }
        let value = args.next().unwrap_or_default();
        match flag.as_str() {
            "--sizes" => sizes = value.split(',').filter_map(|s| s.trim().parse().ok()).collect(),
            "--ticks" => ticks = value.parse().unwrap_or(ticks).max(1),
            _ => {
                eprintln!("usage: scale [--sizes 1000,10000,...] [--ticks N] [--volume-only]");
                std::process::exit(2);
            }
        }
    }
    println!("machine: {} threads available", std::thread::available_parallelism().map_or(1, |n| n.get()));
    let avx2 = KernelPath::Fastest.uses_avx2();
    println!("force pass: {}", if avx2 { "the AVX2 build" } else { "the portable build (no AVX2 here)" });
    println!("\n| case | fish | mean neighbours | ms per tick (median) | M agent-updates/s |");
    println!("|---|---|---|---|---|");
    let crowd = FlockParams { cohesion_weight: 3.0, separation_weight: 0.4, ..FlockParams::reference() };
    for &n in sizes.iter().filter(|_| !volume_only) {
        let t = if n >= 1_000_000 { ticks.min(5) } else { ticks };
        let uniform = school(n, FlockParams::reference(), 5);
        let k = observe::mean_neighbours(uniform.neighbour_counts());
        let one = time_tick(&uniform, 1, t);
        let two = time_tick(&uniform, 2, t);
        row("uniform, 1 thread", n, one, k);
        row("uniform, 2 threads", n, two, k);
        println!("| 1 → 2 threads speed-up | {n} | | {:.2}× | |", one / two);
        println!("| bytes per fish (flock + grid) | {n} | | {} | |", uniform.heap_bytes() / n.max(1));
        if n >= 100_000 {
            // The same school with its slots renumbered in the grid's order
            // every tick: the same bits, reads along memory.
            let mut spatial = uniform.clone();
            spatial.set_slot_order(SlotOrder::Spatial);
            let (s1, s) = (time_tick(&spatial, 1, t), time_tick(&spatial, 2, t));
            row("uniform, 1 thread, slots in space order", n, s1, k);
            row("uniform, 2 threads, slots in space order", n, s, k);
            println!("| stable / space-ordered slots | {n} | | {:.2}× | |", two / s);
            // Its one-thread tick renumbers the fish too, so its ratio is
            // higher while its two-thread tick is about the same.
            println!("| 1 → 2 threads speed-up, slots in space order | {n} | | {:.2}× | |", s1 / s);
            spatial.run(2);
            let bytes = spatial.heap_bytes() / n.max(1);
            println!("| bytes per fish, slots in space order | {n} | | {bytes} | |");
        }
        if n <= 100_000 {
            let crowded = school(n, crowd, 240);
            let kc = observe::mean_neighbours(crowded.neighbour_counts());
            let full = time_tick(&crowded, 2, t);
            row("crowded, 2 threads (default neighbour_cap 16)", n, full, kc);
            let mut capped = crowded.clone();
            capped.set_params(0, FlockParams { neighbour_cap: 8, ..crowd }).expect("valid parameters");
            let cap = time_tick(&capped, 2, t);
            row("crowded, 2 threads, neighbour_cap 8", n, cap, kc);
            println!(
                "| crowded / uniform (cap 16 · cap 8) | {n} | | {:.2}× · {:.2}× | |",
                full / two,
                cap / two
            );
            if avx2 {
                // The same schools on the portable build: what AVX2 gains.
                let portable = |sim: &Simulation| {
                    let mut sim = sim.clone();
                    sim.set_kernel_path(KernelPath::Portable);
                    time_tick(&sim, 2, t)
                };
                let (u, c) = (portable(&uniform), portable(&crowded));
                row("uniform, 2 threads, portable build (no AVX2)", n, u, k);
                row("crowded, 2 threads, portable build (no AVX2)", n, c, kc);
                println!(
                    "| portable / AVX2 build (uniform · crowded) | {n} | | {:.2}× · {:.2}× | |",
                    u / two,
                    c / full
                );
            }
        }
        if (10_000..=100_000).contains(&n) {
            worst_cases(&uniform, one, t);
        }
        if n <= 10_000 {
            let mut brute = uniform.clone();
            brute.set_neighbour_search(NeighbourSearch::BruteForce);
            let b = time_tick(&brute, 2, t.min(5));
            row("brute force, 2 threads", n, b, k);
            println!("| grid speed-up over brute force | {n} | | {:.1}× | |", b / two);
        }
        if n <= 100_000 {
            let p = plugin_tick(n, t, Added::Nothing);
            row("whole plugin frame with one tick (ECS), 2 threads", n, p.frame, p.neighbours);
            for (part, ms) in PARTS.iter().zip(p.parts) {
                println!("| plugin: {part} (mean) | {n} | | {ms:.3} | |");
            }
            row("the core's tick alone on the same fish, 2 threads", n, p.kernel, p.neighbours);
            println!("| plugin frame / core tick | {n} | | {:.2}× | |", p.frame / p.kernel);
            let custom = plugin_tick(n, t, Added::CustomForce);
            row(
                "whole plugin frame, a custom force on every fish, 2 threads",
                n,
                custom.frame,
                custom.neighbours,
            );
            println!("| the custom force's cost | {n} | | {:+.3} | |", custom.frame - p.frame);
            let look = plugin_tick(n, t, Added::FishLook);
            row("whole plugin frame, the kit's fish look, 2 threads", n, look.frame, look.neighbours);
            println!("| the fish look's cost (CPU, no renderer) | {n} | | {:+.3} | |", look.frame - p.frame);
        }
        // Allocations in warmed-up ticks of the core: called on a thread of
        // the pool (as from within `pool.install`), and from outside it,
        // where each tick is handed over to the pool once. Rayon's queue of
        // work handed in from outside allocates a block for every 63
        // hand-overs: about one allocation per 63 ticks there, none inside.
        let ticks = if n >= 1_000_000 { 10 } else { 126 };
        for (inside, label) in [(true, "on a thread of the pool"), (false, "from outside the pool")] {
            let pool = pool(2);
            let mut sim = uniform.clone();
            let count = |sim: &mut Simulation| {
                sim.run(2);
                let before = alloc_counter::allocations();
                sim.run(ticks);
                alloc_counter::allocations() - before
            };
            let allocs = if inside {
                pool.install(|| count(&mut sim))
            } else {
                sim = sim.with_thread_pool(pool.clone());
                count(&mut sim)
            };
            println!(
                "| heap allocations per warmed-up tick, {label} ({ticks} ticks) | {n} | | {:.3} | |",
                allocs as f64 / ticks as f64
            );
        }
    }
    for &n in &sizes {
        volume_rows(n, if n >= 1_000_000 { ticks.min(5) } else { ticks });
    }
}
