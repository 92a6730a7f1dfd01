//! One plugin over the space: the same game code, written once over
//! `V: Space`, runs a school on a plane and in a volume — fish spawned as
//! entities, commands, a write to a fish, a configuration edit, a
//! despawn and the metrics, through the same types.

use bevy::app::ScheduleRunnerPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use mirofish_bevy::mirofish_sim::{FlockParams, Obstacle, Predator};
use mirofish_bevy::{
    FishId, FlockCommand, FlockCommands, FlockConfigOf, FlockMetrics, FlockState, Leader, MiroFishPluginOf,
    Position, PreviousPosition, Refused, School, Space, SpawnSchoolOf, Velocity,
};

/// A headless app with the plugin of the space `V`, one tick per update.
fn app<V: Space>() -> App
where
    MiroFishPluginOf<V>: Plugin,
{
    let mut app = App::new();
    app.add_plugins(MinimalPlugins.build().disable::<ScheduleRunnerPlugin>())
        .insert_resource(FlockConfigOf::<V> { seed: 3, ..default() })
        .insert_resource(FlockMetrics::new(1))
        .add_plugins(MiroFishPluginOf::<V>::default().with_tick_rate(60.0))
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    app
}

/// The fish entities of the space `V`.
fn fish<V: Space>(app: &mut App) -> usize {
    app.world_mut().query_filtered::<(), With<V::Boid>>().iter(app.world()).count()
}

fn the_same_game_code<V: Space>()
where
    MiroFishPluginOf<V>: Plugin,
{
    let mut app = app::<V>();
    let tank = app.world().resource::<FlockConfigOf<V>>().tank;
    let centre = (tank.min + tank.max) * 0.5;
    // A game spawns fish as entities: the next tick takes them in.
    for i in 0..30 {
        let at = centre + V::X * (4.0 * i as f32);
        app.world_mut().spawn((V::Boid::default(), Position(at), Velocity(V::X * 10.0)));
    }
    app.update();
    app.update();
    assert_eq!(app.world().resource::<FlockState<V>>().flock().len(), 30);
    // Commands: ten more fish, and fish 3 leads.
    {
        let mut queue = app.world_mut().resource_mut::<FlockCommands<V>>();
        queue.submit(FlockCommand::SpawnFish { school: 0, count: 10, centre, radius: 30.0 }).unwrap();
        queue.submit(FlockCommand::SetLeaders { fish: vec![3], leads: true }).unwrap();
    }
    app.update();
    assert_eq!((app.world().resource::<FlockState<V>>().flock().len(), fish::<V>(&mut app)), (40, 40));
    let third = app.world().resource::<FlockState<V>>().entity(3).unwrap();
    assert!(app.world().entity(third).contains::<Leader>());
    // A game's write to a fish: fish 0 is put at the centre, at rest; the
    // next tick starts from there.
    let first = app.world().resource::<FlockState<V>>().entity(0).unwrap();
    app.world_mut().entity_mut(first).insert((Position(centre), Velocity(V::ZERO)));
    app.update();
    let moved = app.world().get::<Position<V>>(first).unwrap().0;
    assert!(moved.distance_squared(centre) < 1.0, "fish 0 swam on from the centre: {moved:?}");
    // A configuration edit applies at the next tick.
    app.world_mut().resource_mut::<FlockConfigOf<V>>().params.max_speed = 20.0;
    app.update();
    assert_eq!(app.world().resource::<FlockState<V>>().schools()[0].max_speed, 20.0);
    // A despawned fish leaves; the fish with the highest id takes its id.
    let (fifth, last) = {
        let state = app.world().resource::<FlockState<V>>();
        (state.entity(5).unwrap(), state.entity(39).unwrap())
    };
    app.world_mut().despawn(fifth);
    app.update();
    assert_eq!(app.world().resource::<FlockState<V>>().flock().len(), 39);
    assert_eq!(app.world().get::<FishId>(last).and_then(|id| id.get()), Some(5));
    // The metrics are sampled in both spaces.
    let latest = app.world().resource::<FlockMetrics>().latest().copied().expect("a sample");
    assert_eq!(latest.fish, 39);
    let state = app.world().resource::<FlockState<V>>();
    assert!(state.flock().positions().iter().chain(state.flock().velocities()).all(|v| v.is_finite()));
}

#[test]
fn the_same_game_code_runs_a_plane() {
    the_same_game_code::<Vec2>();
}

#[test]
fn the_same_game_code_runs_a_volume() {
    the_same_game_code::<Vec3>();
}

/// One spawn command over the space: the fish are in the core, with their
/// entities, as soon as the command is applied; a new school joins the
/// configuration; a spawn past the limit is refused, the same way.
fn the_same_spawn<V: Space>()
where
    MiroFishPluginOf<V>: Plugin,
{
    let mut app = app::<V>();
    app.world_mut().commands().queue(SpawnSchoolOf::<V>::new(40).with_leaders(4));
    let slow = FlockParams { max_speed: 30.0, ..FlockParams::default() };
    app.world_mut().commands().queue(SpawnSchoolOf::<V>::new(10).with_params(slow));
    // School 5 is beyond the table: its fish swim as the last school but
    // keep their number.
    app.world_mut().commands().queue(SpawnSchoolOf::<V>::new(5).in_school(5));
    app.world_mut().flush();
    {
        let state = app.world().resource::<FlockState<V>>();
        assert_eq!((state.flock().len(), state.tick()), (55, 0));
        assert_eq!(state.flock().leaders().iter().filter(|&&l| l).count(), 4);
        assert_eq!(&state.flock().schools()[40..], &[[1; 10].as_slice(), &[1; 5]].concat());
    }
    assert_eq!(fish::<V>(&mut app), 55);
    assert_eq!(app.world().resource::<FlockConfigOf<V>>().schools, [slow]);
    let mut schools = app.world_mut().query::<&School>();
    let fifth = schools.iter(app.world()).filter(|s| s.0 == 5).count();
    assert_eq!(fifth, 5);
    let leaders = app.world_mut().query::<&Leader>().iter(app.world()).count();
    assert_eq!(leaders, 4);
    // Two equal spawns land on different points.
    let positions = app.world().resource::<FlockState<V>>().flock().positions().to_vec();
    assert_ne!(positions[0], positions[40]);
    // Past the limit: nothing spawned, the refusal kept and reported.
    app.world_mut().commands().queue(SpawnSchoolOf::<V>::new(usize::MAX));
    app.update();
    let state = app.world().resource::<FlockState<V>>();
    assert_eq!(state.flock().len(), 55);
    assert_eq!(state.refused_spawn().map(|e| e.field), Some("SpawnSchool.count"));
    let refusals = app.world().resource::<mirofish_bevy::FlockRefusals>();
    assert!(refusals.recent().last().is_some_and(|r| r.what == Refused::Spawn), "{refusals:?}");
    // A new school with invalid parameters: refused, the table untouched.
    let bad = FlockParams { max_speed: f32::NAN, ..FlockParams::default() };
    app.world_mut().commands().queue(SpawnSchoolOf::<V>::new(5).with_params(bad));
    // A heading that is not finite counts as none.
    app.world_mut().commands().queue(SpawnSchoolOf::<V>::new(5).heading(f32::INFINITY));
    app.update();
    let state = app.world().resource::<FlockState<V>>();
    assert_eq!((state.flock().len(), state.schools().len()), (60, 2));
    assert_eq!(state.refused_spawn().map(|e| e.field), Some("max_speed"));
    assert!(state.flock().positions().iter().chain(state.flock().velocities()).all(|v| v.is_finite()));
    assert_eq!(app.world().resource::<FlockConfigOf<V>>().schools, [slow]);
}

#[test]
fn the_same_spawn_on_a_plane() {
    the_same_spawn::<Vec2>();
}

#[test]
fn the_same_spawn_in_a_volume() {
    the_same_spawn::<Vec3>();
}

/// Whether `entity` is drawn between its last two positions (a plane's
/// on x and y).
fn drawn_between<V: Space>(world: &World, entity: Entity) -> bool {
    let p = world.get::<Position<V>>(entity).unwrap().0;
    let prev = world.get::<PreviousPosition<V>>(entity).unwrap().0;
    let at = world.get::<Transform>(entity).unwrap().translation;
    (0..V::DIM).all(|i| {
        let (lo, hi) = (p.axis(i).min(prev.axis(i)), p.axis(i).max(prev.axis(i)));
        (lo - 1e-3..=hi + 1e-3).contains(&at[i])
    })
}

/// One `Transform` follower over the space: fish and a predator are
/// drawn between their last two positions, a rock where it is. A plane's
/// fish stay flat even when the plugin is asked to bank.
fn the_same_follower<V: Space>()
where
    MiroFishPluginOf<V>: Plugin,
{
    let mut app = App::new();
    let mut plugin = MiroFishPluginOf::<V>::default().with_tick_rate(60.0);
    plugin.bank = 0.8;
    app.add_plugins(MinimalPlugins.build().disable::<ScheduleRunnerPlugin>())
        .insert_resource(FlockConfigOf::<V> { seed: 5, ..default() })
        .add_plugins(plugin)
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    app.world_mut().commands().queue(SpawnSchoolOf::<V>::new(200));
    let tank = app.world().resource::<FlockConfigOf<V>>().tank;
    let centre = (tank.min + tank.max) * 0.5;
    let rock_at = centre + V::X * 200.0;
    {
        let mut queue = app.world_mut().resource_mut::<FlockCommands<V>>();
        let hunter = Predator { velocity: V::X * 50.0, ..Predator::new(centre, 80.0) };
        queue.submit(FlockCommand::AddPredator(hunter)).unwrap();
        queue.submit(FlockCommand::AddObstacle(Obstacle { centre: rock_at, radius: 20.0 })).unwrap();
    }
    for _ in 0..10 {
        app.update();
    }
    let world = app.world_mut();
    let hunter = world.query_filtered::<Entity, With<V::Hunter>>().single(world).unwrap();
    let rock = world.query_filtered::<Entity, With<V::Rock>>().single(world).unwrap();
    let fish: Vec<(Entity, Transform)> = world
        .query_filtered::<(Entity, &Transform), With<V::Boid>>()
        .iter(world)
        .map(|(e, t)| (e, *t))
        .collect();
    assert!(drawn_between::<V>(world, hunter), "the predator is drawn off its path");
    let rock_drawn = world.get::<Transform>(rock).unwrap().translation.to_array();
    assert!((0..V::DIM).all(|i| rock_drawn[i] == rock_at.axis(i)), "{rock_drawn:?}");
    assert_eq!(fish.len(), 200);
    for (entity, transform) in &fish {
        assert!(drawn_between::<V>(world, *entity), "a fish is drawn off its path");
        let r = transform.rotation;
        assert!(V::DIM == 3 || (r.x == 0.0 && r.y == 0.0), "a plane's fish rolled: {r:?}");
    }
}

#[test]
fn the_same_follower_on_a_plane() {
    the_same_follower::<Vec2>();
}

#[test]
fn the_same_follower_in_a_volume() {
    the_same_follower::<Vec3>();
}
