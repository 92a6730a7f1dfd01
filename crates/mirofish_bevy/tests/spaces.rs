//! One plugin over the space: the same game code, written once over
//! `V: Space`, runs a school on a plane and in a volume — fish spawned as
//! entities, commands, a write to a fish, a configuration edit, a
//! despawn and the metrics, through the same types.

use bevy::app::ScheduleRunnerPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use mirofish_bevy::{
    FishId, FlockCommand, FlockCommands, FlockConfigOf, FlockMetrics, FlockState, Leader, MiroFishPluginOf,
    Position, Space, Velocity,
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
