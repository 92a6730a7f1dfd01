//! The reference runs, pinned: a school on a plane and one in a volume,
//! each from the default parameters and seed 1, hashed after 300 ticks;
//! and the same schools in a busy scene (a rock, a predator, goals of
//! every kind, leaders on a route, groups), which the quiet runs never
//! steer through. Both run on the one engine ([`Swarm`]: a plane's
//! `Simulation`, a volume's `Flock3d`), which both plugins run too.
//!
//! A change that moves a bit of either fails here. That is the point: the
//! bits are what replays, baselines and peers on other machines rely on.
//! When a change means to move them (a new rule, a new kernel), update the
//! values below in the commit that says why, and note it in the
//! changelog.

use mirofish_sim::space::Swarm;
use mirofish_sim::{
    Attractor, FlockCommand, FlockParams, Goal, GoalMode, KernelPath, Obstacle, Predator, Route, Tank,
    Tank3d, TankOf, Vec2, Vec3, Vector, state_hash,
};

/// Ticks of every reference run.
const TICKS: u64 = 300;

/// The plane's reference run (`Simulation`).
const PLANE: u64 = 0x5936_b2f6_7b8f_e4c1;
/// The volume's reference run (`Flock3d`).
const VOLUME: u64 = 0x0b7e_1687_9703_724a;
/// [`PLANE`]'s school in the busy scene ([`busy`]).
const BUSY_PLANE: u64 = 0x29ee_f4ff_ac1b_1cd2;
/// [`VOLUME`]'s school in the busy scene.
const BUSY_VOLUME: u64 = 0xdb66_7c15_35b6_6f8f;

/// The busy scene's commands and their ticks, with `at(x, y)` a point of
/// the space: a rock, a predator (taken away at tick 120), a shared goal,
/// a repelling point, 40 leaders on a two-waypoint route, three groups
/// (one with a goal of its own), then a goal of school 0's own to flee.
fn busy<V: Vector>(at: impl Fn(f32, f32) -> V) -> Vec<(u64, FlockCommand<V>)> {
    let goal = |x, y, mode| Goal { target: at(x, y), mode, weight: 1.0, slowing_radius: 50.0 };
    vec![
        (0, FlockCommand::AddObstacle(Obstacle { centre: at(50.0, 20.0), radius: 30.0 })),
        (0, FlockCommand::AddPredator(Predator::new(at(-80.0, 0.0), 120.0))),
        (0, FlockCommand::SetGoal(Some(goal(100.0, 100.0, GoalMode::Seek)))),
        (
            0,
            FlockCommand::SetAttractor(Some(Attractor {
                point: at(-50.0, -50.0),
                strength: -2.0,
                radius: 150.0,
            })),
        ),
        (0, FlockCommand::SetLeaders { fish: (0..40).collect(), leads: true }),
        (0, FlockCommand::SetRoute(Some(Route::new(vec![at(-150.0, 0.0), at(150.0, 50.0)], 40.0)))),
        (50, FlockCommand::FormGroups { school: None, first: 0, count: 3 }),
        (60, FlockCommand::SetGroupGoal { group: 1, goal: Some(goal(-100.0, 80.0, GoalMode::Arrive)) }),
        (120, FlockCommand::ClearPredators),
        (130, FlockCommand::SetSchoolGoal { school: 0, goal: Some(goal(0.0, -100.0, GoalMode::Flee)) }),
    ]
}

/// The plane's reference school (`Simulation`) after [`TICKS`] ticks of
/// `script` on `threads` threads and the `path` build of the force pass.
fn plane(threads: usize, path: KernelPath, script: Vec<(u64, FlockCommand)>) -> u64 {
    swarm(Tank::default(), threads, path, script)
}

/// The reference school ([`Swarm`]: `Simulation` on a plane, `Flock3d`
/// in a volume) in `tank`, after [`TICKS`] ticks of `script` on `threads`
/// threads and the `path` build of the force pass.
fn swarm<V: Vector>(
    tank: TankOf<V>,
    threads: usize,
    path: KernelPath,
    script: Vec<(u64, FlockCommand<V>)>,
) -> u64 {
    let mut swarm =
        Swarm::<V>::new(FlockParams::default(), tank, 2000, 1).unwrap().with_threads(threads).unwrap();
    swarm.set_kernel_path(path);
    for (tick, command) in script {
        swarm.schedule(tick, command).unwrap();
    }
    swarm.run(TICKS);
    state_hash(&swarm)
}

#[test]
fn the_plane_reference_run_is_pinned_on_every_build_and_thread_count() {
    for threads in [1, 2] {
        for path in [KernelPath::Fastest, KernelPath::Portable] {
            let hash = plane(threads, path, Vec::new());
            assert_eq!(hash, PLANE, "{threads} thread(s), {path:?}: {hash:#018x}");
        }
    }
}

#[test]
fn the_volume_reference_run_is_pinned_on_every_build_and_thread_count() {
    for threads in [1, 2] {
        for path in [KernelPath::Fastest, KernelPath::Portable] {
            let hash = swarm(Tank3d::default(), threads, path, Vec::new());
            assert_eq!(hash, VOLUME, "{threads} thread(s), {path:?}: {hash:#018x}");
        }
    }
}

#[test]
fn the_busy_scene_is_pinned_in_both_spaces_on_every_build_and_thread_count() {
    for threads in [1, 2] {
        for path in [KernelPath::Fastest, KernelPath::Portable] {
            let hash = plane(threads, path, busy(Vec2::new));
            assert_eq!(hash, BUSY_PLANE, "plane, {threads} thread(s), {path:?}: {hash:#018x}");
        }
        for path in [KernelPath::Fastest, KernelPath::Portable] {
            let hash = swarm(Tank3d::default(), threads, path, busy(|x, y| Vec3::new(x, y, 0.3 * x)));
            assert_eq!(hash, BUSY_VOLUME, "volume, {threads} thread(s), {path:?}: {hash:#018x}");
        }
    }
}
