//! The reference runs, pinned: a school on a plane and one in a volume,
//! each from the default parameters and seed 1, hashed after 300 ticks.
//!
//! A change that moves a bit of either fails here. That is the point: the
//! bits are what replays, baselines and peers on other machines rely on.
//! When a change means to move them (a new rule, a new kernel), update the
//! values below in the commit that says why, and note it in the
//! changelog.

use mirofish_sim::space::{Flock3d, Swarm, swarm_hash};
use mirofish_sim::{FlockParams, KernelPath, Simulation, Tank, Tank3d, TankOf, Vec2, state_hash};

/// Ticks of every reference run.
const TICKS: u64 = 300;

/// The plane's reference run ([`Simulation`]).
const PLANE: u64 = 0x5936_b2f6_7b8f_e4c1;
/// The volume's reference run ([`Flock3d`]).
const VOLUME: u64 = 0x6606_6786_960f_91ab;
/// The reference run of a school on a plane under the generic engine
/// ([`Swarm`] over `Vec2`).
const SWARM_PLANE: u64 = 0x45c2_9466_4398_a9eb;

fn plane(threads: usize, path: KernelPath) -> u64 {
    let mut sim = Simulation::new(FlockParams::default(), Tank::default(), 2000, 1)
        .unwrap()
        .with_threads(threads)
        .unwrap();
    sim.flock.set_kernel_path(path);
    sim.run(TICKS).unwrap();
    state_hash(&sim.flock)
}

fn volume(threads: usize) -> u64 {
    let mut swarm = Flock3d::new(FlockParams::default(), Tank3d::default(), 2000, 1)
        .unwrap()
        .with_threads(threads)
        .unwrap();
    swarm.run(TICKS);
    swarm_hash(&swarm)
}

fn swarm_plane(threads: usize) -> u64 {
    let tank: TankOf<Vec2> = Tank::default();
    let mut swarm =
        Swarm::<Vec2>::new(FlockParams::default(), tank, 2000, 1).unwrap().with_threads(threads).unwrap();
    swarm.run(TICKS);
    swarm_hash(&swarm)
}

#[test]
fn the_plane_reference_run_is_pinned_on_every_build_and_thread_count() {
    for threads in [1, 2] {
        for path in [KernelPath::Fastest, KernelPath::Portable] {
            let hash = plane(threads, path);
            assert_eq!(hash, PLANE, "{threads} thread(s), {path:?}: {hash:#018x}");
        }
    }
}

#[test]
fn the_volume_reference_run_is_pinned_on_every_thread_count() {
    for threads in [1, 2] {
        let hash = volume(threads);
        assert_eq!(hash, VOLUME, "{threads} thread(s): {hash:#018x}");
    }
}

#[test]
fn the_generic_engine_on_a_plane_is_pinned_on_every_thread_count() {
    for threads in [1, 2] {
        let hash = swarm_plane(threads);
        assert_eq!(hash, SWARM_PLANE, "{threads} thread(s): {hash:#018x}");
    }
}
