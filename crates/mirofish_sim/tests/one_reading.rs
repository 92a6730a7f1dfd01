//! The rules read the same on a plane and in a volume: fear scales the
//! separation push (not its radius), and a school's goal replaces the
//! shared goal (it is not added to it); one school with a rock, a
//! predator, a route and groups behaves alike in both; a school that sees
//! only its own still keeps its distance from the others in both; a
//! predator chases the nearest fish through a torus's seam in both; the
//! one command type means the same in both; a starting ball packs the
//! fish in both; and the generic engine that runs every volume gives a
//! school on a plane the plane's own bits. Each test runs the
//! same setup in both spaces and fails if either space reads a rule the
//! other way.

use glam::Vec3;
use mirofish_sim::space::{Flock3d, TickStage, VolumeCommand};
use mirofish_sim::{FlockCommand, FlockParams, Goal, Predator, Simulation, Tank, Tank3d, Vec2};

/// Calm fish with the view all round: only separation and fear differ
/// between the runs that are compared.
fn pair_params(panic_separation: f32) -> FlockParams {
    FlockParams { panic_separation, ..FlockParams::default() }
}

/// A motionless predator `away` from the middle of two fish, close enough
/// that both are nearly terrified.
fn still_predator<V: mirofish_sim::Vector>(at: V) -> Predator<V> {
    Predator { max_speed: 0.0, max_force: 0.0, chase: false, ..Predator::new(at, 400.0) }
}

/// Two fish `gap` apart across the middle of a plane, a predator just
/// beside them: their positions' bits and their fears after three ticks
/// (the first tick makes them afraid, the next ones act on that fear).
fn plane_pair(gap: f32, panic_separation: f32) -> (Vec<[u32; 2]>, Vec<f32>, f32) {
    let tank = Tank::default();
    let mid = (tank.min + tank.max) * 0.5;
    let mut sim = Simulation::new(pair_params(panic_separation), tank, 2, 11).unwrap();
    sim.set(0, mid - Vec2::new(gap * 0.5, 0.0), Vec2::ZERO).unwrap();
    sim.set(1, mid + Vec2::new(gap * 0.5, 0.0), Vec2::ZERO).unwrap();
    sim.submit(FlockCommand::AddPredator(still_predator(mid + Vec2::new(0.0, 30.0)))).unwrap();
    sim.run(3);
    let p = sim.positions();
    let bits = p.iter().map(|p| [p.x.to_bits(), p.y.to_bits()]).collect();
    (bits, sim.fears().to_vec(), p[0].distance(p[1]))
}

/// The same in a volume.
fn volume_pair(gap: f32, panic_separation: f32) -> (Vec<[u32; 3]>, Vec<f32>, f32) {
    let tank = Tank3d::default();
    let mid = (tank.min + tank.max) * 0.5;
    let mut flock = Flock3d::new(pair_params(panic_separation), tank, 2, 11).unwrap();
    flock.set(0, mid - Vec3::new(gap * 0.5, 0.0, 0.0), Vec3::ZERO).unwrap();
    flock.set(1, mid + Vec3::new(gap * 0.5, 0.0, 0.0), Vec3::ZERO).unwrap();
    flock.submit(VolumeCommand::AddPredator(still_predator(mid + Vec3::new(0.0, 30.0, 0.0)))).unwrap();
    flock.run(3);
    let p = flock.positions();
    let bits = p.iter().map(|p| [p.x.to_bits(), p.y.to_bits(), p.z.to_bits()]).collect();
    (bits, flock.fears().to_vec(), p[0].distance(p[1]))
}

#[test]
fn fear_scales_the_separation_push_not_its_radius_in_both_spaces() {
    let radius = FlockParams::default().separation_radius;

    // Outside the separation radius, however afraid: panic_separation
    // changes nothing (a widened radius would push these two apart).
    let outside = radius * 1.3;
    let (calm, fears, _) = plane_pair(outside, 1.0);
    assert!(fears.iter().all(|&f| f > 0.8), "the predator frightens both fish: {fears:?}");
    assert_eq!(calm, plane_pair(outside, 3.0).0, "plane: a fish outside the radius felt fear's separation");
    let (calm, fears, _) = volume_pair(outside, 1.0);
    assert!(fears.iter().all(|&f| f > 0.8), "the predator frightens both fish: {fears:?}");
    assert_eq!(calm, volume_pair(outside, 3.0).0, "volume: a fish outside the radius felt fear's separation");

    // Inside it, a frightened pair pushes apart harder.
    let inside = radius * 0.4;
    let (calm, panicked) = (plane_pair(inside, 1.0).2, plane_pair(inside, 3.0).2);
    assert!(panicked > calm, "plane: {panicked} apart with panic_separation 3, {calm} with 1");
    let (calm, panicked) = (volume_pair(inside, 1.0).2, volume_pair(inside, 3.0).2);
    assert!(panicked > calm, "volume: {panicked} apart with panic_separation 3, {calm} with 1");
}

/// A school's goal and the shared goal: the positions' bits after
/// `ticks`, on a plane and in a volume, with the shared goal at one end of
/// the tank and (if `school_goal`) the school's own goal at the other.
fn goal_runs(shared: bool, school_goal: bool, ticks: u64) -> (Vec<u32>, Vec<u32>, Vec2, Vec3) {
    let (plane, volume) = (Tank::default(), Tank3d::default());
    let mut sim = Simulation::new(FlockParams::default(), plane, 300, 5).unwrap();
    let mut flock = Flock3d::new(FlockParams::default(), volume, 300, 5).unwrap();
    let inset2 = (plane.max - plane.min) * 0.1;
    let inset3 = (volume.max - volume.min) * 0.1;
    if shared {
        sim.submit(FlockCommand::SetGoal(Some(Goal::seek(plane.min + inset2, 1.0)))).unwrap();
        flock.submit(VolumeCommand::SetGoal(Some(Goal::seek(volume.min + inset3, 1.0)))).unwrap();
    }
    if school_goal {
        let goal = Some(Goal::seek(plane.max - inset2, 1.0));
        sim.submit(FlockCommand::SetSchoolGoal { school: 0, goal }).unwrap();
        let goal = Some(Goal::seek(volume.max - inset3, 1.0));
        flock.submit(VolumeCommand::SetSchoolGoal { school: 0, goal }).unwrap();
    }
    sim.run(ticks);
    flock.run(ticks);
    let plane_bits = sim.positions().iter().flat_map(|p| [p.x.to_bits(), p.y.to_bits()]).collect();
    let volume_bits = flock.positions().iter().flat_map(|p| [p.x, p.y, p.z].map(f32::to_bits)).collect();
    let plane_centre = sim.positions().iter().copied().sum::<Vec2>() / 300.0;
    let volume_centre = flock.positions().iter().copied().sum::<Vec3>() / 300.0;
    (plane_bits, volume_bits, plane_centre, volume_centre)
}

#[test]
fn a_school_goal_replaces_the_shared_goal_in_both_spaces() {
    let ticks = 200;
    let (both_plane, both_volume, plane_centre, volume_centre) = goal_runs(true, true, ticks);
    let (own_plane, own_volume, _, _) = goal_runs(false, true, ticks);
    // With its own goal, the school does not feel the shared one at all.
    assert!(both_plane == own_plane, "plane: the shared goal still pulled a school with its own goal");
    assert!(both_volume == own_volume, "volume: the shared goal still pulled a school with its own goal");
    // The shared goal does pull a school without one, and the school with
    // its own goal ends at its own end of the tank.
    let (shared_plane, shared_volume, _, _) = goal_runs(true, false, ticks);
    assert!(shared_plane != own_plane && shared_volume != own_volume);
    let (plane, volume) = (Tank::default(), Tank3d::default());
    assert!(
        plane_centre.distance(plane.max) < plane_centre.distance(plane.min),
        "plane centre {plane_centre}"
    );
    assert!(
        volume_centre.distance(volume.max) < volume_centre.distance(volume.min),
        "volume centre {volume_centre}"
    );
}

/// What a school did in one space, measured the same way in both.
#[derive(Debug)]
struct SchoolDid {
    /// Fish found inside the rock or outside the tank, over every tick.
    misplaced: usize,
    /// The highest fear any fish felt.
    most_fear: f32,
    /// The route's waypoint index at the end (it starts at 0).
    route_next: usize,
    /// Group 2's distance to its goal at the start and at the end.
    group_gap: (f32, f32),
}

const ROCK: (f32, f32, f32) = (300.0, 0.0, 70.0);
const GROUP_GOAL: (f32, f32) = (0.0, 250.0);

/// The same school on a plane: a rock, a chasing predator, leaders on a
/// route, four groups with a goal for group 2.
fn plane_school(ticks: u64) -> SchoolDid {
    let tank = Tank::default();
    let mut sim = Simulation::new(FlockParams::default(), tank, 400, 21).unwrap();
    let rock = mirofish_sim::Obstacle { centre: Vec2::new(ROCK.0, ROCK.1), radius: ROCK.2 };
    let goal = Vec2::new(GROUP_GOAL.0, GROUP_GOAL.1);
    sim.submit(FlockCommand::AddObstacle(rock)).unwrap();
    sim.submit(FlockCommand::AddPredator(Predator::new(Vec2::new(-400.0, 200.0), 150.0))).unwrap();
    let route = mirofish_sim::Route::new(vec![Vec2::new(-200.0, -150.0), Vec2::new(200.0, -150.0)], 80.0);
    sim.submit(FlockCommand::SetRoute(Some(route))).unwrap();
    sim.submit(FlockCommand::FormGroups { school: None, first: 0, count: 4 }).unwrap();
    sim.submit(FlockCommand::SetGroupGoal { group: 2, goal: Some(Goal::seek(goal, 1.5)) }).unwrap();
    for id in 0..20 {
        sim.set_leader(id, true).unwrap();
    }
    let gap = |flock: &Simulation| {
        let members: Vec<Vec2> = (0..flock.len())
            .filter(|&s| flock.group_of(flock.ids()[s]) == Some(2))
            .map(|s| flock.positions()[s])
            .collect();
        (members.iter().copied().sum::<Vec2>() / members.len().max(1) as f32).distance(goal)
    };
    sim.step();
    let first = gap(&sim);
    let (mut misplaced, mut most_fear) = (0, 0.0f32);
    for _ in 1..ticks {
        sim.step();
        misplaced += sim
            .positions()
            .iter()
            .filter(|p| {
                !p.is_finite() || !tank.contains(**p) || p.distance(rock.centre) < rock.radius * 0.999
            })
            .count();
        most_fear = most_fear.max(sim.fears().iter().copied().fold(0.0, f32::max));
    }
    let route_next = sim.scene().route.as_ref().map_or(0, |r| r.next);
    SchoolDid { misplaced, most_fear, route_next, group_gap: (first, gap(&sim)) }
}

/// The same school in a volume, in the plane z = 0 of the box.
fn volume_school(ticks: u64) -> SchoolDid {
    let tank = Tank3d::default();
    let mut flock = Flock3d::new(FlockParams::default(), tank, 400, 21).unwrap();
    let rock = mirofish_sim::Obstacle { centre: Vec3::new(ROCK.0, ROCK.1, 0.0), radius: ROCK.2 };
    let goal = Vec3::new(GROUP_GOAL.0, GROUP_GOAL.1, 0.0);
    flock.submit(VolumeCommand::AddObstacle(rock)).unwrap();
    flock.submit(VolumeCommand::AddPredator(Predator::new(Vec3::new(-400.0, 200.0, 0.0), 150.0))).unwrap();
    let route =
        mirofish_sim::Route::new(vec![Vec3::new(-200.0, -150.0, 0.0), Vec3::new(200.0, -150.0, 0.0)], 80.0);
    flock.submit(VolumeCommand::SetRoute(Some(route))).unwrap();
    flock.submit(VolumeCommand::FormGroups { school: None, first: 0, count: 4 }).unwrap();
    flock.submit(VolumeCommand::SetGroupGoal { group: 2, goal: Some(Goal::seek(goal, 1.5)) }).unwrap();
    flock.submit(VolumeCommand::SetLeaders { fish: (0..20).collect(), leads: true }).unwrap();
    let gap = |flock: &Flock3d| {
        let members: Vec<Vec3> = (0..flock.len())
            .filter(|&s| flock.group_of(flock.ids()[s]) == Some(2))
            .map(|s| flock.positions()[s])
            .collect();
        (members.iter().copied().sum::<Vec3>() / members.len().max(1) as f32).distance(goal)
    };
    flock.step();
    let first = gap(&flock);
    let (mut misplaced, mut most_fear) = (0, 0.0f32);
    for _ in 1..ticks {
        flock.step();
        misplaced += flock
            .positions()
            .iter()
            .filter(|p| {
                !p.is_finite() || !tank.contains(**p) || p.distance(rock.centre) < rock.radius * 0.999
            })
            .count();
        most_fear = most_fear.max(flock.fears().iter().copied().fold(0.0, f32::max));
    }
    let route_next = flock.scene().route.as_ref().map_or(0, |r| r.next);
    SchoolDid { misplaced, most_fear, route_next, group_gap: (first, gap(&flock)) }
}

/// One school with everything at once — a rock, a chasing predator,
/// leaders on a route, groups with a goal — behaves alike in both spaces:
/// no fish in the rock or out of the tank on any tick, fear where the
/// predator comes near, the leaders take the route on, and the group with
/// a goal closes on it.
#[test]
fn one_school_with_everything_behaves_alike_in_both_spaces() {
    for did in [plane_school(900), volume_school(900)] {
        assert_eq!(did.misplaced, 0, "{did:?}");
        assert!(did.most_fear > 0.5, "{did:?}");
        assert!(did.route_next >= 1, "the leaders reached the first waypoint: {did:?}");
        let (first, last) = did.group_gap;
        assert!(last < first * 0.6, "group 2 closes on its goal: {did:?}");
    }
}

/// What one command list did to a run: fish count, the schools of the
/// fish spawned, the ids of the leaders, school 0's and school 1's top
/// speeds, whether zones are on, and the fields of the commands left out.
#[derive(Debug, PartialEq)]
struct CommandsDid {
    fish: usize,
    spawned_schools: Vec<u16>,
    leaders: Vec<u32>,
    speeds: [f32; 2],
    zones: bool,
    left_out: Vec<&'static str>,
}

/// The same commands, of the one command type, over each space's vector.
fn command_list<V: mirofish_sim::Vector>(centre: V) -> Vec<mirofish_sim::FlockCommand<V>> {
    use mirofish_sim::FlockCommand as C;
    let params = |max_speed| FlockParams { max_speed, ..FlockParams::default() };
    vec![
        C::SpawnFish { school: 1, count: 10, centre, radius: 20.0 },
        C::SpawnFish { school: 9, count: 10, centre, radius: 20.0 },
        C::SetLeaders { fish: vec![0, 1, 9999], leads: true },
        C::SetLeaders { fish: vec![1], leads: false },
        C::SetParams(params(130.0)),
        C::SetSchoolParams { school: 1, params: params(150.0) },
        C::SetSchoolParams { school: 7, params: params(170.0) },
        C::SetZones(Some(mirofish_sim::space::Zones::default())),
    ]
}

#[test]
fn one_command_type_means_the_same_in_both_spaces() {
    let school = |fish| mirofish_sim::SchoolConfig { fish, ..Default::default() };
    let plane = {
        let config =
            mirofish_sim::ExperimentConfig { fish: 30, schools: vec![school(20)], ..Default::default() };
        let mut sim = Simulation::from_config(&config).unwrap();
        let centre = (sim.tank().min + sim.tank().max) * 0.5;
        for command in command_list(centre) {
            sim.submit(command).unwrap();
        }
        sim.step();
        let ids = sim.ids();
        let slots_of = |range: core::ops::Range<u32>| {
            (0..sim.len()).filter(move |&s| range.contains(&ids[s])).collect::<Vec<_>>()
        };
        let mut leaders: Vec<u32> = (0..sim.len()).filter(|&s| sim.leaders()[s]).map(|s| ids[s]).collect();
        leaders.sort_unstable();
        CommandsDid {
            fish: sim.len(),
            spawned_schools: slots_of(50..60).into_iter().map(|s| sim.schools()[s]).collect(),
            leaders,
            speeds: [sim.params()[0].max_speed, sim.params()[1..][0].max_speed],
            zones: sim.zones().is_some(),
            left_out: sim.left_out().iter().map(|(_, why)| why.field).collect(),
        }
    };
    let volume = {
        let school = |fish| mirofish_sim::VolumeSchool { fish, ..Default::default() };
        let config = mirofish_sim::VolumeConfig { fish: 30, schools: vec![school(20)], ..Default::default() };
        let mut flock = config.start().unwrap();
        let centre = (flock.tank().min + flock.tank().max) * 0.5;
        for command in command_list(centre) {
            flock.submit(command).unwrap();
        }
        flock.step();
        let ids = flock.ids();
        let mut leaders: Vec<u32> =
            (0..flock.len()).filter(|&s| flock.leaders()[s]).map(|s| ids[s]).collect();
        leaders.sort_unstable();
        let mut spawned: Vec<(u32, u16)> =
            (0..flock.len()).filter(|&s| ids[s] >= 50).map(|s| (ids[s], flock.schools()[s])).collect();
        spawned.sort_unstable();
        CommandsDid {
            fish: flock.len(),
            spawned_schools: spawned.into_iter().map(|(_, school)| school).collect(),
            leaders,
            speeds: [flock.params()[0].max_speed, flock.params()[1].max_speed],
            zones: flock.zones().is_some(),
            left_out: flock.left_out().iter().map(|(_, why)| why.field).collect(),
        }
    };
    // Both: ten fish for school 1 and none for a school not there; fish 0
    // leads, fish 1 led and no longer does, the id of no fish is skipped;
    // each school's parameters where they belong, none for a school not
    // there.
    let expected = |zones, left_out| CommandsDid {
        fish: 60,
        spawned_schools: vec![1; 10],
        leaders: vec![0],
        speeds: [130.0, 150.0],
        zones,
        left_out,
    };
    // Couzin's zones too: one engine runs both spaces.
    assert_eq!(plane, expected(true, vec![]));
    assert_eq!(volume, expected(true, vec![]));
}

/// A starting ball packs every school into it in both spaces (a disc on a
/// plane), and the run then goes on from there.
#[test]
fn a_ball_start_packs_every_school_in_both_spaces() {
    let plane = mirofish_sim::ExperimentConfig {
        fish: 300,
        schools: vec![mirofish_sim::SchoolConfig { fish: 100, ..Default::default() }],
        ball: Some(mirofish_sim::Ball::even(Vec2::new(-200.0, 100.0), 90.0)),
        ..Default::default()
    };
    let mut sim = mirofish_sim::Simulation::from_config(&plane).unwrap();
    assert_eq!(sim.len(), 400);
    assert!(sim.positions().iter().all(|p| p.distance(Vec2::new(-200.0, 100.0)) <= 90.0 + 1e-3));
    let schools: std::collections::BTreeSet<u16> = sim.schools().iter().copied().collect();
    assert_eq!(schools.len(), 2);
    sim.run(60);
    assert!(sim.positions().iter().any(|p| p.distance(Vec2::new(-200.0, 100.0)) > 90.0), "they swim out");
    let volume = mirofish_sim::VolumeConfig {
        fish: 300,
        schools: vec![mirofish_sim::SchoolConfig { fish: 100, ..Default::default() }],
        ball: Some(mirofish_sim::Ball::even(Vec3::new(-200.0, 100.0, 0.0), 90.0)),
        ..Default::default()
    };
    let swarm = volume.start().unwrap();
    assert_eq!(swarm.len(), 400);
    assert!(swarm.positions().iter().all(|p| p.distance(Vec3::new(-200.0, 100.0, 0.0)) <= 90.0 + 1e-3));
}

/// A blob start (normal about the tank's centre, σ an eighth of its
/// width, nearly still) reads from a file and starts the same way in both
/// spaces.
#[test]
fn a_blob_start_reads_from_a_file_and_gathers_the_school_in_both_spaces() {
    let plane = mirofish_sim::ExperimentConfig::from_ron(
        "(fish: 800, ball: Some((centre: (0, 0), radius: 160, spread: Normal)))",
    )
    .unwrap();
    assert_eq!(plane.ball, Some(mirofish_sim::Ball::blob(&plane.tank)), "the default tank is 1280 wide");
    // Written out, an even ball leaves its spread out; a blob names it.
    assert!(plane.to_ron().contains("spread: Normal"));
    let even = mirofish_sim::ExperimentConfig {
        ball: Some(mirofish_sim::Ball::even(Vec2::ZERO, 9.0)),
        ..plane.clone()
    };
    assert!(!even.to_ron().contains("spread"));
    let sim = mirofish_sim::Simulation::from_config(&plane).unwrap();
    let max_speed = plane.params.max_speed;
    let inside = |d: f32| d <= 160.0 * 1.5;
    let share = sim.positions().iter().filter(|p| inside(p.length())).count() as f32 / 800.0;
    assert!((0.55..0.8).contains(&share), "{share}");
    assert!(sim.velocities().iter().all(|v| v.length() <= max_speed * 0.1 + 1e-3));

    let volume = mirofish_sim::VolumeConfig {
        fish: 800,
        ball: Some(mirofish_sim::Ball::blob(&mirofish_sim::Tank3d::default())),
        ..Default::default()
    };
    let swarm = volume.start().unwrap();
    let sigma = volume.tank.size().x / 8.0;
    let centre = (volume.tank.min + volume.tank.max) * 0.5;
    let near = swarm.positions().iter().filter(|p| (p.x - centre.x).abs() <= sigma).count() as f32 / 800.0;
    assert!((0.6..0.76).contains(&near), "{near}");
    assert!(swarm.velocities().iter().all(|v| v.length() <= max_speed * 0.1 + 1e-3));
}

/// With the soft margin looked ahead for, a fish heading for a wall turns
/// before it reaches the margin, and one leaving the margin is let go: the
/// same in both spaces.
#[test]
fn a_fish_looking_ahead_turns_before_the_margin_in_both_spaces() {
    let params = mirofish_sim::FlockParams { wander_weight: 0.0, jitter: 0.0, ..Default::default() };
    let speed = params.max_speed;
    // One fish 40 short of the margin, heading straight for the wall
    // (+x), and one inside the margin heading away from it.
    let plane = |look_ahead: f32, x: f32, vx: f32| {
        let tank = mirofish_sim::Tank { look_ahead, ..Default::default() };
        let mut sim = mirofish_sim::Simulation::new(params, tank, 0, 1).unwrap();
        sim.add_fish(0, Vec2::new(x, 0.0), Vec2::new(vx, 0.0), 0.0).unwrap();
        sim.step();
        sim.velocities()[0].x
    };
    let volume = |look_ahead: f32, x: f32, vx: f32| {
        let tank = mirofish_sim::Tank3d { look_ahead, ..Default::default() };
        let mut swarm = mirofish_sim::space::Swarm::new(params, tank, 1, 1).unwrap();
        swarm.set(0, Vec3::new(x, 0.0, 0.0), Vec3::new(vx, 0.0, 0.0)).unwrap();
        swarm.step();
        swarm.velocities()[0].x
    };
    let tank = mirofish_sim::Tank::default();
    let inner = tank.max.x - tank.margin();
    let (outside, inside) = (inner - 40.0, tank.max.x - 10.0);
    assert_eq!(mirofish_sim::Tank3d::default().margin(), tank.margin(), "the same margin in both");
    for (space, run) in [("plane", &plane as &dyn Fn(f32, f32, f32) -> f32), ("volume", &volume)] {
        // Without looking ahead nothing steers it before the margin.
        assert_eq!(run(0.0, outside, speed), speed, "{space}");
        // Looking a second ahead, it slows towards the wall already.
        assert!(run(1.0, outside, speed) < speed - 1.0, "{space}");
        // Leaving the margin: pushed without looking ahead, let go with.
        assert!(run(0.0, inside, -speed) < -speed + 1e-3, "{space}");
        assert_eq!(run(1.0, inside, -speed), -speed, "{space}");
    }
}

/// A fish of a school that sees only its own (school 1) with a fish of
/// another school `gap` to its right: what it counts as neighbours and its
/// separation force along x, on a plane.
fn plane_stranger(gap: f32) -> (u32, f32) {
    let own_only = FlockParams { sees_other_schools: false, ..FlockParams::default() };
    let tank = Tank::default();
    let mid = (tank.min + tank.max) * 0.5;
    let mut flock = mirofish_sim::Simulation::new(FlockParams::default(), tank, 0, 1).unwrap();
    flock.add_school(own_only, 0, 1).unwrap();
    flock.set_record_rules(true);
    flock.add_fish(1, mid, Vec2::Y * 50.0, 0.0).unwrap();
    flock.add_fish(0, mid + Vec2::new(gap, 0.0), Vec2::Y * 50.0, 0.0).unwrap();
    flock.run_to(mirofish_sim::space::TickStage::Forces);
    let sample = flock.sample(0).unwrap();
    (sample.neighbours, sample.rules.separation.x)
}

/// The same in a volume.
fn volume_stranger(gap: f32) -> (u32, f32) {
    let own_only = FlockParams { sees_other_schools: false, ..FlockParams::default() };
    let tank = Tank3d::default();
    let mid = (tank.min + tank.max) * 0.5;
    let mut flock = Flock3d::new(FlockParams::default(), tank, 1, 3).unwrap();
    flock.add_school(own_only, 1, 4).unwrap();
    flock.set(1, mid, Vec3::Y * 50.0).unwrap();
    flock.set(0, mid + Vec3::new(gap, 0.0, 0.0), Vec3::Y * 50.0).unwrap();
    flock.set_record_rules(true);
    flock.run_to(TickStage::Forces);
    let sample = flock.sample(flock.slots()[1] as usize).unwrap();
    (sample.neighbours, sample.rules.separation.x)
}

#[test]
fn a_school_that_sees_only_its_own_still_keeps_its_distance_in_both_spaces() {
    let radius = FlockParams::default().separation_radius;
    for (space, stranger) in [("plane", plane_stranger as fn(f32) -> (u32, f32)), ("volume", volume_stranger)]
    {
        // Within the separation radius: not a neighbour to follow, but
        // pushed away from (to the left).
        let (neighbours, push) = stranger(radius * 0.5);
        assert_eq!(neighbours, 0, "{space}: the other school's fish is not counted");
        assert!(push < 0.0, "{space}: pushed away from the other school's fish ({push})");
        // Beyond it, nothing at all.
        assert_eq!(stranger(radius * 1.5), (0, 0.0), "{space}");
    }
}

/// Where a chasing predator heads after the end of a tick, in either
/// space: from `predator` (still), with fish 0 and 1 at `fish`, put there
/// between the tick's boundary stage and the predators' move, in a tank
/// `size` wide that wraps or not.
fn chase<V: mirofish_sim::Vector>(wrap: bool, predator: V, fish: [V; 2]) -> V {
    let mut tank = mirofish_sim::TankOf::<V>::centered(V::splat(400.0));
    if wrap {
        tank = tank.with_boundary(mirofish_sim::BoundaryMode::Wrap);
    }
    let mut flock = mirofish_sim::space::Swarm::new(FlockParams::default(), tank, 2, 5).unwrap();
    flock.submit(FlockCommand::AddPredator(Predator::new(predator, 100.0))).unwrap();
    flock.run_to(TickStage::Boundary);
    flock
        .edit_scene(|scene| {
            scene.predators[0].position = predator;
            scene.predators[0].velocity = V::ZERO;
        })
        .unwrap();
    for (id, p) in fish.into_iter().enumerate() {
        flock.set(id as u32, p, V::ZERO).unwrap();
    }
    flock.run_to(TickStage::Predators);
    flock.scene().predators[0].velocity
}

#[test]
fn a_predator_chases_the_nearest_fish_across_the_seam_ties_to_the_lowest_id_in_both_spaces() {
    // On a torus, a fish just past the left wall is nearest a predator by
    // the right wall through the seam: the predator heads right, through
    // it, not back across the tank.
    let (left, right) = (-190.0, 190.0);
    let far = Vec2::new(0.0, 150.0);
    let v = chase(true, Vec2::new(right, 0.0), [Vec2::new(left, 0.0), far]);
    assert!(v.x > 0.0 && v.y.abs() < v.x, "plane: the predator heads {v}");
    let v = chase(true, Vec3::new(right, 0.0, 0.0), [Vec3::new(left, 0.0, 0.0), far.extend(0.0)]);
    assert!(v.x > 0.0 && v.y.abs() < v.x, "volume: the predator heads {v}");
    // Between walls it heads back across the tank, for the same fish.
    let v = chase(false, Vec2::new(right, 0.0), [Vec2::new(left, 0.0), far]);
    assert!(v.x < 0.0, "plane: the predator heads {v}");
    let v = chase(false, Vec3::new(right, 0.0, 0.0), [Vec3::new(left, 0.0, 0.0), far.extend(0.0)]);
    assert!(v.x < 0.0, "volume: the predator heads {v}");

    // Two fish exactly as near: the predator goes for fish 0, wherever
    // each is stored (a volume keeps its fish in the grid's order, which
    // puts fish 1, further left, first).
    let (ahead, behind) = (Vec2::new(40.0, 0.0), Vec2::new(-40.0, 0.0));
    let v = chase(false, Vec2::ZERO, [ahead, behind]);
    assert!(v.x > 0.0, "plane: the predator heads {v}");
    let v = chase(false, Vec3::ZERO, [ahead.extend(0.0), behind.extend(0.0)]);
    assert!(v.x > 0.0, "volume: the predator heads {v}");
}

/// Fish spawned and removed by command on a plane: the count the commands
/// say, and the same bits on a rerun and on another number of threads.
#[test]
fn fish_spawned_and_removed_by_command_on_a_plane_repeat_bit_for_bit() {
    let run = |threads: usize| {
        let tank = Tank::centered(Vec2::new(600.0, 400.0));
        let mut plane =
            Simulation::new(FlockParams::default(), tank, 300, 3).unwrap().with_threads(threads).unwrap();
        let script = [
            (
                5,
                FlockCommand::SpawnFish {
                    school: 0,
                    count: 40,
                    centre: Vec2::new(100.0, -50.0),
                    radius: 60.0,
                },
            ),
            (
                5,
                FlockCommand::SpawnFish {
                    school: 0,
                    count: 10,
                    centre: Vec2::new(-250.0, 150.0),
                    radius: 90.0,
                },
            ),
            (30, FlockCommand::RemoveFish { count: 25 }),
            (40, FlockCommand::SpawnFish { school: 0, count: 5, centre: Vec2::ZERO, radius: 10.0 }),
        ];
        for (tick, command) in script {
            plane.schedule(tick, command).unwrap();
        }
        plane.run(80);
        assert_eq!(plane.len(), 330);
        mirofish_sim::state_hash(&plane)
    };
    let once = run(1);
    assert_eq!(once, run(1));
    assert_eq!(once, run(2));
}
