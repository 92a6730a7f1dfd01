//! The plugin in a volume: fish entities follow the core, schools and
//! refusals arrive as in two dimensions, and `Transform`s point along the
//! velocity.

use bevy::app::ScheduleRunnerPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use mirofish_bevy::prelude::FlockRefusals;
use mirofish_bevy::volume::*;
use mirofish_sim::Scene3d;
use mirofish_sim::{FlockParams, Obstacle};

fn app() -> App {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins.build().disable::<ScheduleRunnerPlugin>())
        .insert_resource(Flock3dConfig { seed: 9, ..default() })
        .add_plugins(MiroFish3dPlugin::default())
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    app
}

#[test]
fn fish_entities_follow_the_core_and_face_their_velocity() {
    let mut app = app();
    app.world_mut().commands().queue(SpawnSchool3d::new(300));
    let fast = FlockParams { max_speed: 200.0, ..FlockParams::default() };
    app.world_mut().commands().queue(SpawnSchool3d { seed: 4, ..SpawnSchool3d::new(100).with_params(fast) });
    for _ in 0..=40 {
        app.update();
    }
    let state = app.world().resource::<Flock3dState>();
    assert_eq!((state.flock().len(), state.flock().params().len()), (400, 2));
    let flock = state.flock();
    let mut schools = [0usize; 2];
    for ((&id, &p), &v) in flock.ids().iter().zip(flock.positions()).zip(flock.velocities()) {
        let entity = state.entity(id).expect("every fish has an entity");
        let e = app.world().entity(entity);
        assert_eq!(e.get::<FishId>().and_then(|id| id.get()), Some(id));
        assert_eq!(e.get::<Position<Vec3>>().unwrap().0, p);
        assert_eq!(e.get::<Velocity<Vec3>>().unwrap().0, v);
        schools[e.get::<School>().unwrap().0 as usize] += 1;
        let forward = e.get::<Transform>().unwrap().forward();
        assert!(forward.dot(v.normalize()) > 0.999, "{forward} vs {v}");
    }
    assert_eq!(schools, [300, 100]);
}

#[test]
fn bad_spawns_and_scenes_are_refused_and_change_nothing() {
    let mut app = app();
    app.world_mut().commands().queue(SpawnSchool3d::new(50));
    app.update();
    let bad = FlockParams { perception_radius: -1.0, ..FlockParams::default() };
    app.world_mut().commands().queue(SpawnSchool3d::new(10).with_params(bad));
    let covering = Obstacle { centre: Vec3::ZERO, radius: 1.0e5 };
    let scene = Scene3d { obstacles: vec![covering], ..default() };
    app.world_mut().commands().queue(SetScene3d(scene));
    app.update();
    assert_eq!(app.world().resource::<Flock3dState>().flock().len(), 50);
    assert!(app.world().resource::<Flock3dState>().flock().scene().obstacles.is_empty());
    let refusals: Vec<String> =
        app.world().resource::<FlockRefusals>().recent().map(|r| r.error.field.to_string()).collect();
    assert_eq!(refusals, ["perception_radius", "obstacle.radius"]);
}

#[test]
fn the_zone_model_comes_from_the_config_and_a_bad_one_is_refused() {
    use mirofish_sim::space::Zones;
    let with = |zones: Zones| {
        let mut app = App::new();
        app.add_plugins(MinimalPlugins.build().disable::<ScheduleRunnerPlugin>())
            .insert_resource(Flock3dConfig { zones: Some(zones), ..default() })
            .add_plugins(MiroFish3dPlugin::default());
        app
    };
    let app = with(Zones::default());
    assert_eq!(app.world().resource::<Flock3dState>().flock().zones(), Some(&Zones::default()));
    let bad = Zones { repulsion: f32::NAN, ..Zones::default() };
    let app = with(bad);
    assert_eq!(app.world().resource::<Flock3dState>().flock().zones(), None, "the weighted rules stay");
    let refusals = app.world().resource::<FlockRefusals>();
    assert_eq!(refusals.recent().last().map(|r| r.error.field), Some("zones.repulsion"));
}

#[test]
fn each_fish_carries_its_steering_and_banks_into_its_turn() {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins.build().disable::<ScheduleRunnerPlugin>())
        .insert_resource(Flock3dConfig { seed: 5, ..default() })
        .add_plugins(MiroFish3dPlugin::default().with_banking(0.8))
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    app.world_mut().commands().queue(SpawnSchool3d::new(400));
    for _ in 0..=30 {
        app.update();
    }
    let max_force = FlockParams::default().max_force;
    let mut banked = 0;
    let fish: Vec<(Vec3, Vec3, Transform, u32)> = app
        .world_mut()
        .query::<(&Velocity<Vec3>, &Steering<Vec3>, &Transform, &FishId)>()
        .iter(app.world())
        .map(|(v, s, t, id)| (v.0, s.0, *t, id.get().unwrap()))
        .collect();
    let state = app.world().resource::<Flock3dState>();
    for (v, steering, t, id) in fish {
        let slot = state.flock().slots()[id as usize] as usize;
        assert_eq!(Some(steering), state.flock().steering_at(slot), "the core's steering, fish {id}");
        let heading = v.normalize();
        assert!((t.rotation * Vec3::NEG_Z).dot(heading) > 0.999, "still faces its velocity");
        let upright = Quat::from_rotation_arc(Vec3::NEG_Z, heading);
        let side = steering.dot(upright * Vec3::X) / max_force;
        let tilt = (t.rotation * Vec3::Y).dot(upright * Vec3::X);
        if side.abs() > 0.2 {
            // The up vector leans towards the side the fish turns to.
            assert!(tilt * side > 0.0, "fish {id}: side {side}, tilt {tilt}");
            banked += 1;
        }
    }
    assert!(banked > 10, "{banked} fish turning hard enough to bank");
}

#[test]
fn a_restart_empties_the_volume_for_a_new_configuration_and_a_bad_one_changes_nothing() {
    use mirofish_sim::space::Zones;
    let mut app = app();
    app.world_mut().commands().queue(SpawnSchool3d::new(200));
    for _ in 0..=5 {
        app.update();
    }
    let zones = Zones { speed: 50.0, ..Zones::default() };
    let next = Flock3dConfig { seed: 3, zones: Some(zones), ..default() };
    app.world_mut().commands().queue(Restart(next.clone()));
    app.world_mut().commands().queue(SpawnSchool3d::new(30));
    for _ in 0..=3 {
        app.update();
    }
    let fish = app.world_mut().query::<&Boid3d>().iter(app.world()).count();
    assert_eq!(fish, 30, "the old fish are gone, the new ones have entities");
    let state = app.world().resource::<Flock3dState>();
    assert_eq!((state.flock().len(), state.flock().zones()), (30, Some(&zones)));
    assert!(state.entity(100).is_none(), "no entity left for a fish that is gone");
    assert!(state.flock().velocities().iter().all(|v| (v.length() - 50.0).abs() < 1e-3), "the zones' speed");
    assert_eq!(app.world().resource::<Flock3dConfig>(), &next);

    let bad = Flock3dConfig { zones: Some(Zones { turn_rate: -1.0, ..zones }), ..next };
    app.world_mut().commands().queue(Restart(bad));
    app.update();
    assert_eq!(app.world().resource::<Flock3dState>().flock().len(), 30, "refused: nothing changed");
    let refusals = app.world().resource::<FlockRefusals>();
    assert_eq!(refusals.recent().last().map(|r| r.error.field), Some("zones.turn_rate"));
}

#[test]
fn a_games_force_on_an_entity_steers_its_fish_in_a_volume() {
    let run = |push: bool| {
        let mut app = app();
        app.world_mut().commands().queue(SpawnSchool3d::new(100));
        app.update();
        if push {
            let state = app.world().resource::<Flock3dState>();
            let (entity, nan) = (state.entity(5).unwrap(), state.entity(6).unwrap());
            app.world_mut().entity_mut(entity).insert(ExtraSteering(Vec3::Y * 1.0e4));
            app.world_mut().entity_mut(nan).insert(ExtraSteering(Vec3::NAN));
        }
        for _ in 0..10 {
            app.update();
        }
        let state = app.world().resource::<Flock3dState>();
        let slot = state.flock().slots()[5] as usize;
        (
            state.flock().velocities()[slot],
            state.flock().steering_at(slot).unwrap(),
            state.flock().velocities().to_vec(),
        )
    };
    let (plain, _, _) = run(false);
    let (pushed, steering, all) = run(true);
    // Steered upwards at full force every tick (where it goes then depends
    // on the walls too).
    assert_ne!(pushed, plain);
    let max_force = FlockParams::default().max_force;
    assert!(steering.y > 0.99 * max_force && steering.length() <= max_force * 1.0001, "{steering}");
    assert!(all.iter().all(|v| v.is_finite()), "a NaN force is ignored");
}

#[test]
fn a_game_writing_a_fish_entitys_position_or_velocity_moves_its_fish_in_a_volume() {
    let mut app = app();
    app.world_mut().commands().queue(SpawnSchool3d::new(100));
    for _ in 0..3 {
        app.update();
    }
    let core = |app: &App, id: u32| {
        let flock = app.world().resource::<Flock3dState>().flock();
        let slot = flock.slots()[id as usize] as usize;
        (flock.positions()[slot], flock.velocities()[slot])
    };
    let entity = |app: &App, id: u32| app.world().resource::<Flock3dState>().entity(id).unwrap();
    let (before, _) = core(&app, 7);
    let (target, heading) = (Vec3::new(-300.0, 40.0, 20.0), Vec3::new(0.0, 0.0, 90.0));
    assert!(before.distance(target) > 50.0, "the fish starts elsewhere: {before}");
    let (moved, turned) = (entity(&app, 7), entity(&app, 8));
    app.world_mut().get_mut::<Position<Vec3>>(moved).unwrap().0 = target;
    app.world_mut().get_mut::<Velocity<Vec3>>(turned).unwrap().0 = heading;
    let (_, calm) = core(&app, 9);
    app.update();
    // One tick from where the game put it.
    let dt = app.world().resource::<Flock3dState>().flock().dt();
    let (after, _) = core(&app, 7);
    let reach = 2.0 * FlockParams::default().max_speed * dt;
    assert!(after.distance(target) < reach, "{after} is not one tick from {target}");
    let (_, velocity) = core(&app, 8);
    assert!(velocity.normalize().dot(Vec3::Z) > 0.9, "{velocity} does not head along +z");
    // A fish nobody wrote keeps the core's course: the plugin's own
    // write-back is not taken for a game's write.
    let (_, still) = core(&app, 9);
    assert!(still.angle_between(calm) < 0.5, "{calm} -> {still}");
    // Taken as written, as on a plane: a position outside the tank is
    // brought in by the walls, one that is not finite put in the tank, a
    // velocity that is not finite stopped; nothing is refused.
    let tank = *app.world().resource::<Flock3dState>().flock().tank();
    app.world_mut().get_mut::<Position<Vec3>>(moved).unwrap().0 = Vec3::splat(1.0e7);
    app.world_mut().get_mut::<Position<Vec3>>(turned).unwrap().0 = Vec3::NAN;
    app.world_mut().get_mut::<Velocity<Vec3>>(turned).unwrap().0 = Vec3::INFINITY;
    app.update();
    assert_eq!(app.world().resource::<FlockRefusals>().total(), 0);
    for (id, entity) in [(7, moved), (8, turned)] {
        let (p, v) = core(&app, id);
        assert!(tank.contains(p) && v.is_finite(), "fish {id}: {p}, {v}");
        assert_eq!(app.world().get::<Position<Vec3>>(entity).unwrap().0, p);
        let previous = app.world().get::<PreviousPosition<Vec3>>(entity).unwrap().0;
        assert!(previous.is_finite(), "fish {id} was drawn from {previous}");
    }
}

#[test]
fn a_school_spawned_with_leaders_marks_them_and_the_core_knows() {
    let mut app = app();
    app.world_mut().commands().queue(SpawnSchool3d::new(50));
    app.world_mut()
        .commands()
        .queue(SpawnSchool3d::new(40).with_params(FlockParams::default()).with_leaders(6));
    app.world_mut().commands().queue(SpawnSchool3d::new(3).with_leaders(10));
    app.update();
    let mut marked: Vec<u32> = app
        .world_mut()
        .query_filtered::<&FishId, With<Leader>>()
        .iter(app.world())
        .filter_map(|id| id.get())
        .collect();
    marked.sort_unstable();
    let expected: Vec<u32> = (50..56).chain(90..93).collect();
    assert_eq!(marked, expected, "the first of each spawn, at most all of them");
    let state = app.world().resource::<Flock3dState>();
    let mut leading: Vec<u32> = state
        .flock()
        .ids()
        .iter()
        .zip(state.flock().leaders())
        .filter(|(_, l)| **l)
        .map(|(id, _)| *id)
        .collect();
    leading.sort_unstable();
    assert_eq!(leading, expected);
}

/// Every fish of the core has one entity showing it, with its id, school,
/// position and leader marker, and no other fish entity exists.
fn assert_entities_match_the_core(app: &mut App) {
    let entities: Vec<(FishId, u16, Position<Vec3>, bool)> = app
        .world_mut()
        .query_filtered::<(&FishId, Option<&School>, &Position<Vec3>, Has<Leader>), (With<Boid3d>, With<Steering<Vec3>>)>()
        .iter(app.world())
        .map(|(id, school, p, leads)| (*id, school.map_or(0, |s| s.0), *p, leads))
        .collect();
    let state = app.world().resource::<Flock3dState>();
    let flock = state.flock();
    assert_eq!(entities.len(), flock.len());
    for (id, school, p, leads) in entities {
        let id = id.get().expect("every fish entity has an id");
        let slot = flock.slots()[id as usize] as usize;
        assert_eq!(school, flock.schools()[slot], "fish {id}");
        assert_eq!(p.0, flock.positions()[slot], "fish {id}");
        assert_eq!(leads, flock.leaders()[slot], "fish {id}");
    }
}

#[test]
fn commands_to_the_core_spawn_remove_and_mark_fish_entities() {
    use mirofish_sim::space::VolumeCommand;
    let mut app = app();
    app.world_mut().commands().queue(SpawnSchool3d::new(100).with_leaders(3));
    app.update();
    {
        let mut queue = app.world_mut().resource_mut::<FlockCommands<Vec3>>();
        let centre = Vec3::new(100.0, 50.0, 0.0);
        queue.submit(VolumeCommand::SpawnFish { school: 0, count: 40, centre, radius: 30.0 }).unwrap();
        queue.submit(VolumeCommand::SetLeaders { fish: vec![0, 120], leads: false }).unwrap();
        queue.submit(VolumeCommand::SetLeaders { fish: vec![110, 7], leads: true }).unwrap();
    }
    for _ in 0..3 {
        app.update();
    }
    assert_eq!(app.world().resource::<Flock3dState>().flock().len(), 140);
    assert_entities_match_the_core(&mut app);
    let leaders = app.world_mut().query_filtered::<&FishId, With<Leader>>().iter(app.world()).count();
    assert_eq!(leaders, 4, "1 and 2 from the spawn, 110 and 7 by command");
    app.world_mut()
        .resource_mut::<FlockCommands<Vec3>>()
        .submit(VolumeCommand::RemoveFish { count: 60 })
        .unwrap();
    app.update();
    assert_eq!(app.world().resource::<Flock3dState>().flock().len(), 80);
    assert_entities_match_the_core(&mut app);
    // The commands are the core's: the session replays from them.
    assert_eq!(app.world().resource::<Flock3dState>().flock().applied().len(), 4);
}

/// Despawning fish entities takes their fish out of the core at the next
/// tick's start, before its commands, as on a plane: no ghost fish, the
/// fish left keep their entities (renumbered), and a command spawning fish
/// in the same tick gets entities too.
#[test]
fn despawned_fish_entities_leave_the_core() {
    use mirofish_sim::space::VolumeCommand;
    let mut app = app();
    app.world_mut().commands().queue(SpawnSchool3d::new(600).with_leaders(5));
    for _ in 0..3 {
        app.update();
    }
    // Every twelfth fish, the leaders among them, and the last one.
    let doomed: Vec<Entity> = {
        let state = app.world().resource::<Flock3dState>();
        (0..600).filter(|id| id % 12 == 0 || *id == 599).map(|id| state.entity(id).unwrap()).collect()
    };
    assert_eq!(doomed.len(), 51);
    let kept = app.world().resource::<Flock3dState>().entity(300 + 1).unwrap();
    for &entity in &doomed {
        app.world_mut().despawn(entity);
    }
    let centre = Vec3::new(100.0, 50.0, 0.0);
    let spawn = VolumeCommand::SpawnFish { school: 0, count: 10, centre, radius: 30.0 };
    app.world_mut().resource_mut::<FlockCommands<Vec3>>().submit(spawn).unwrap();
    let renumbered = app.world().resource::<Flock3dState>().entity(598).unwrap();
    app.update();
    assert_eq!(app.world().resource::<Flock3dState>().flock().len(), 600 - 51 + 10);
    assert_entities_match_the_core(&mut app);
    // A fish that was not despawned keeps its entity.
    let id = app.world().entity(kept).get::<FishId>().and_then(|id| id.get()).unwrap();
    assert_eq!(app.world().resource::<Flock3dState>().entity(id), Some(kept));
    // The fish left first, then the tick's commands applied: fish 598 took
    // a freed id, and a command names it by that id from then on.
    let id = app.world().entity(renumbered).get::<FishId>().and_then(|id| id.get()).unwrap();
    assert!(id < 549, "fish 598 took a freed id, not {id}");
    let lead = VolumeCommand::SetLeaders { fish: vec![id], leads: true };
    app.world_mut().resource_mut::<FlockCommands<Vec3>>().submit(lead).unwrap();
    app.update();
    assert!(app.world().entity(renumbered).contains::<Leader>());
    for _ in 0..5 {
        app.update();
    }
    assert_entities_match_the_core(&mut app);
    // Removing the marker only does the same; a restart removes nothing twice.
    let one = app.world().resource::<Flock3dState>().entity(7).unwrap();
    app.world_mut().entity_mut(one).remove::<Boid3d>();
    app.update();
    assert_eq!(app.world().resource::<Flock3dState>().flock().len(), 558);
    assert_entities_match_the_core(&mut app);
    app.world_mut().commands().queue(Restart(Flock3dConfig { seed: 3, ..default() }));
    app.world_mut().commands().queue(SpawnSchool3d::new(40));
    for _ in 0..3 {
        app.update();
    }
    assert_eq!(app.world().resource::<Flock3dState>().flock().len(), 40);
    assert_entities_match_the_core(&mut app);
}

#[test]
fn a_configuration_loads_with_its_schools_and_leaders_and_a_bad_one_changes_nothing() {
    use mirofish_sim::{VolumeConfig, VolumeSchool};
    let mut app = app();
    app.world_mut().commands().queue(SpawnSchool3d::new(50));
    app.update();
    // The plugin's tick lasts the fixed clock's step (1/64 s here).
    let dt = 1.0 / 64.0;
    let mut config = VolumeConfig { fish: 90, leaders: 5, seed: 3, dt, ..VolumeConfig::default() };
    config.schools.push(VolumeSchool { fish: 30, leaders: 1, ..VolumeSchool::default() });
    config.scene.obstacles.push(Obstacle { centre: Vec3::ZERO, radius: 50.0 });
    app.world_mut().commands().queue(LoadConfig(config.clone()));
    app.update();
    {
        let state = app.world().resource::<Flock3dState>();
        assert_eq!((state.flock().len(), state.flock().params().len()), (120, 2));
        assert_eq!(state.flock().scene().obstacles.len(), 1);
        assert_eq!(app.world().resource::<Flock3dConfig>().seed, 3);
    }
    assert_entities_match_the_core(&mut app);
    // The same start as the core's own.
    let mut alone = config.start().unwrap();
    alone.run(1);
    let state = app.world().resource::<Flock3dState>();
    assert_eq!(mirofish_sim::state_hash(state.flock()), mirofish_sim::state_hash(&alone));
    let bad = VolumeConfig { leaders: 500, ..config };
    app.world_mut().commands().queue(LoadConfig(bad));
    app.update();
    assert_eq!(app.world().resource::<Flock3dState>().flock().len(), 120);
    let refusals = app.world().resource::<FlockRefusals>();
    let last = refusals.recent().last().unwrap();
    assert!(last.error.to_string().contains("leaders"), "{last}");
}

#[test]
fn a_game_system_between_two_sets_runs_between_the_core_stages() {
    use mirofish_bevy::BoidSystems;
    use mirofish_sim::space::TickStage;
    #[derive(Resource, Default)]
    struct Seen(Vec<Option<TickStage>>);
    let mut app = app();
    app.init_resource::<Seen>().add_systems(
        FixedUpdate,
        (
            (|state: Res<Flock3dState>, mut seen: ResMut<Seen>| seen.0.push(state.flock().stage()))
                .after(BoidSystems::Forces)
                .before(BoidSystems::Clamp),
            // A net between the move and the walls: fish 0 is put back
            // at the tank's centre, still moving; the walls then hold it.
            (|mut state: ResMut<Flock3dState>, mut seen: ResMut<Seen>| {
                seen.0.push(state.flock().stage());
                let centre = (state.flock().tank().min + state.flock().tank().max) * 0.5;
                state.set_motion(0, centre, Vec3::X).unwrap();
            })
            .after(BoidSystems::Integrate)
            .before(BoidSystems::Boundary),
            (|state: Res<Flock3dState>, mut seen: ResMut<Seen>| seen.0.push(state.flock().stage()))
                .after(BoidSystems::Writeback),
        ),
    );
    app.world_mut().commands().queue(SpawnSchool3d::new(50));
    for _ in 0..4 {
        app.update();
    }
    let ticks = app.world().resource::<Flock3dState>().flock().tick();
    assert!(ticks >= 2);
    let seen = &app.world().resource::<Seen>().0;
    assert_eq!(seen.len() as u64, 3 * ticks, "{seen:?}");
    for tick in seen.chunks(3) {
        assert_eq!(tick, [Some(TickStage::Forces), Some(TickStage::Integrate), None]);
    }
    let state = app.world().resource::<Flock3dState>();
    let slot = state.flock().slots()[0] as usize;
    let centre = (state.flock().tank().min + state.flock().tank().max) * 0.5;
    assert_eq!(state.flock().positions()[slot], centre);
}

/// An app recording a session in its volume, from a configuration,
/// changed by one command (a predator added at tick 10) in 30 ticks.
fn loaded_session() -> App {
    use mirofish_sim::space::VolumeCommand;
    use mirofish_sim::{Predator, VolumeConfig};
    let mut app = app();
    let start = VolumeConfig { fish: 120, seed: 5, ..VolumeConfig::default() };
    app.world_mut().resource_mut::<Flock3dRecorder>().record(start, 10);
    for tick in 0..30 {
        if tick == 10 {
            let mut queue = app.world_mut().resource_mut::<FlockCommands<Vec3>>();
            let predator = Predator::new(Vec3::new(-80.0, 20.0, 0.0), 120.0);
            queue.submit(VolumeCommand::AddPredator(predator)).unwrap();
        }
        app.update();
    }
    app
}

/// A session recorded in one app ([`loaded_session`]) and the state hash
/// at its end.
fn recorded_session() -> (mirofish_sim::VolumeRecording, u64) {
    stop(&mut loaded_session())
}

/// Stops the app's recording: the recording and the state hash at its end.
fn stop(app: &mut App) -> (mirofish_sim::VolumeRecording, u64) {
    app.world_mut().resource_scope(|world, mut recorder: Mut<Flock3dRecorder>| {
        let state = world.resource::<Flock3dState>();
        let recording = recorder.stop(state, world.resource()).expect("recording");
        (recording, mirofish_sim::state_hash(state.flock()))
    })
}

#[test]
fn a_loaded_session_changed_by_commands_replays_to_its_end() {
    use mirofish_sim::state_hash;
    let mut idle = app();
    assert!(stop_idle(&mut idle).is_none(), "nothing recorded");
    let mut app = loaded_session();
    let state = app.world().resource::<Flock3dState>();
    let ticks = state.flock().tick();
    assert!(!app.world().resource::<Flock3dRecorder>().changed_outside_commands(state));
    let (recording, end) = stop(&mut app);
    assert_eq!((recording.commands.len(), recording.ticks), (1, ticks));
    let text = recording.to_text();
    let replayed = mirofish_sim::VolumeRecording::from_text(&text).unwrap().replay().unwrap();
    assert_eq!(state_hash(&replayed), end);
    // Fish spawned outside the configuration: the session is no longer
    // the commands' alone.
    let mut app = loaded_session();
    app.world_mut().commands().queue(SpawnSchool3d::new(5));
    app.update();
    let state = app.world().resource::<Flock3dState>();
    assert!(app.world().resource::<Flock3dRecorder>().changed_outside_commands(state));
}

/// Stops an app's recorder that records nothing.
fn stop_idle(app: &mut App) -> Option<mirofish_sim::VolumeRecording> {
    app.world_mut().resource_scope(|world, mut recorder: Mut<Flock3dRecorder>| {
        recorder.stop(world.resource(), world.resource())
    })
}

#[test]
fn a_recorded_session_replays_inside_the_app_to_the_same_bits() {
    use mirofish_sim::state_hash;
    let (recording, end) = recorded_session();
    // Another app, at another fixed step: the replay keeps the recording's.
    let mut app = app();
    app.insert_resource(Time::<Fixed>::from_hz(20.0));
    app.world_mut().commands().queue(SpawnSchool3d::new(40));
    app.update();
    assert_eq!(app.world().resource::<Flock3dRecorder>().session(), &Session::Idle);
    app.world_mut().resource_mut::<Flock3dRecorder>().replay(recording.clone());
    app.update();
    assert_eq!(app.world().resource::<Flock3dRecorder>().session(), &Session::Replaying);
    for _ in 0..40 {
        app.update();
    }
    let state = app.world().resource::<Flock3dState>();
    let session = app.world().resource::<Flock3dRecorder>().session();
    assert_eq!(session, &Session::Matched { ticks: recording.ticks });
    // The app went on past the recording's end: replay it headless to
    // compare the end itself.
    let mut headless = recording.config.start().unwrap();
    for stamped in &recording.commands {
        headless.schedule(stamped.tick, stamped.command.clone()).unwrap();
    }
    headless.run(recording.ticks);
    assert_eq!(state_hash(&headless), end);
    assert_eq!(state.flock().len(), 120);
    assert_eq!(state.flock().applied().len(), 1, "the recorded predator was added again");
    // Past its end the volume went on at the recording's step.
    assert!(state.flock().tick() > recording.ticks);
    assert_eq!(state.flock().dt(), recording.config.dt);
}

#[test]
fn a_replay_that_differs_says_where_and_a_bad_one_is_refused() {
    let (recording, _) = recorded_session();
    let mut tampered = recording.clone();
    let last = tampered.checkpoints.last_mut().unwrap();
    last.hash ^= 1;
    let (tick, expected) = (last.tick, last.hash);
    let mut app = app();
    app.world_mut().resource_mut::<Flock3dRecorder>().replay(tampered);
    for _ in 0..40 {
        app.update();
    }
    match app.world().resource::<Flock3dRecorder>().session() {
        Session::Diverged { tick: at, expected: wanted, found } => {
            assert_eq!((*at, *wanted), (tick, expected));
            assert_eq!(*found, expected ^ 1);
        }
        other => panic!("expected a divergence, got {other:?}"),
    }
    // Starting over ends a replay.
    app.world_mut().resource_mut::<Flock3dRecorder>().replay(recording.clone());
    app.update();
    assert_eq!(app.world().resource::<Flock3dRecorder>().session(), &Session::Replaying);
    app.world_mut().commands().queue(Restart(Flock3dConfig::default()));
    app.update();
    assert_eq!(app.world().resource::<Flock3dRecorder>().session(), &Session::Idle);
    // A recording that ends before its own commands and checkpoints does
    // not validate.
    let mut bad = recording;
    bad.ticks = 0;
    let before = app.world().resource::<Flock3dState>().flock().tick();
    app.world_mut().resource_mut::<Flock3dRecorder>().replay(bad);
    app.update();
    let refusals = app.world().resource::<FlockRefusals>();
    assert!(refusals.recent().any(|r| r.error.field == "recording"), "{refusals:?}");
    let state = app.world().resource::<Flock3dState>();
    assert_eq!(app.world().resource::<Flock3dRecorder>().session(), &Session::Idle);
    assert!(state.flock().tick() > before, "the volume ran on as it was");
}

/// A game may spawn fish entities in a volume, as on a plane: the next tick
/// takes each whole one in under the next id (its `School` or the first),
/// as written; one that loses a component the tick needs leaves the core,
/// and rejoins under a new id when it is put back; a `School` written to
/// a fish moves it to that school.
#[test]
fn fish_a_game_spawns_join_the_core_under_the_next_ids() {
    let mut app = app();
    app.world_mut().commands().queue(SpawnSchool3d::new(20));
    app.update();
    let fast = FlockParams { max_speed: 200.0, ..FlockParams::default() };
    app.world_mut().commands().queue(SpawnSchool3d::new(5).with_params(fast));
    app.update();
    let outside = app.world().resource::<Flock3dState>().changes_outside_commands();
    let (at, heading) = (Vec3::new(10.0, 20.0, 30.0), Vec3::new(0.0, 0.0, 40.0));
    let plain = app.world_mut().spawn((Boid3d, Position(at), Velocity(heading))).id();
    let schooled = app.world_mut().spawn((Boid3d, School(1), Position(-at), Velocity(-heading))).id();
    let half = app.world_mut().spawn((Position(at), Velocity(heading))).id();
    app.update();
    let state = app.world().resource::<Flock3dState>();
    assert_eq!(state.flock().len(), 27);
    for (entity, id, school) in [(plain, 25, 0), (schooled, 26, 1)] {
        assert_eq!(app.world().get::<FishId>(entity).and_then(|id| id.get()), Some(id));
        assert_eq!(state.entity(id), Some(entity));
        let slot = state.slot_of(entity, *app.world().get::<FishId>(entity).unwrap()).unwrap();
        assert_eq!(state.flock().schools()[slot], school);
    }
    assert!(state.changes_outside_commands() > outside, "the fish came outside the commands");
    assert_entities_match_the_core(&mut app);
    // Not a fish until whole.
    assert!(app.world().resource::<Flock3dState>().entity(27).is_none());
    app.world_mut().entity_mut(half).insert(Boid3d);
    app.update();
    assert_eq!(app.world().get::<FishId>(half).and_then(|id| id.get()), Some(27));
    // Stripped of a component the tick needs, a fish leaves; put back, it
    // rejoins.
    app.world_mut().entity_mut(plain).remove::<Steering<Vec3>>();
    app.update();
    assert_eq!(app.world().resource::<Flock3dState>().flock().len(), 27);
    assert_entities_match_the_core(&mut app);
    app.world_mut().entity_mut(plain).insert(Steering(Vec3::ZERO));
    app.update();
    assert_eq!(app.world().resource::<Flock3dState>().flock().len(), 28);
    assert_eq!(app.world().get::<FishId>(plain).and_then(|id| id.get()), Some(27));
    assert_entities_match_the_core(&mut app);
    // A school written to a fish in the core is taken, as on a plane (one
    // beyond the table counts as the last).
    let first = app.world().resource::<Flock3dState>().entity(0).unwrap();
    let second = app.world().resource::<Flock3dState>().entity(1).unwrap();
    app.world_mut().get_mut::<School>(first).unwrap().0 = 1;
    app.world_mut().get_mut::<School>(second).unwrap().0 = 9;
    app.update();
    let state = app.world().resource::<Flock3dState>();
    let school = |id: usize| state.flock().schools()[state.flock().slots()[id] as usize];
    assert_eq!((school(0), school(1), school(2)), (1, 1, 0));
    // A removed `School` puts the fish in the first.
    app.world_mut().entity_mut(second).remove::<School>();
    app.update();
    let state = app.world().resource::<Flock3dState>();
    assert_eq!(state.flock().schools()[state.flock().slots()[1] as usize], 0);
    // So is a wander phase, as on a plane; one that is not a number harms
    // no one.
    let third = state.entity(2).unwrap();
    app.world_mut().get_mut::<WanderPhase>(first).unwrap().0 = 1.25;
    app.world_mut().get_mut::<WanderPhase>(third).unwrap().0 = f32::NAN;
    let mut gathered = None;
    app.add_systems(
        FixedUpdate,
        (move |state: Res<Flock3dState>| {
            gathered.get_or_insert(state.flock().wander_phases()[state.flock().slots()[0] as usize]);
            assert_eq!(gathered, Some(1.25));
        })
        .after(mirofish_bevy::BoidSystems::SpatialIndex)
        .before(mirofish_bevy::BoidSystems::Forces),
    );
    app.update();
    for _ in 0..10 {
        app.update();
    }
    let state = app.world().resource::<Flock3dState>();
    assert!(state.flock().positions().iter().chain(state.flock().velocities()).all(|v| v.is_finite()));
    assert!(state.flock().wander_phases().iter().all(|w| w.is_finite()));
    // The entity shows the core's phase after each tick.
    let slot = state.flock().slots()[0] as usize;
    assert_eq!(app.world().get::<WanderPhase>(first).unwrap().0, state.flock().wander_phases()[slot]);
}

/// Groups and leaders in a volume, as on a plane: `FormGroups` gives the
/// fish their `FishGroup`, `ClearGroups` takes it away, a `FishGroup` a
/// game gives a fish puts it in that group, and a `Leader` a game inserts
/// or removes makes the fish lead or stop leading from the next tick.
#[test]
fn group_and_leader_markers_follow_the_core_and_the_game() {
    use mirofish_sim::space::VolumeCommand;
    let mut app = app();
    app.world_mut().commands().queue(SpawnSchool3d::new(90));
    app.update();
    let form = VolumeCommand::FormGroups { school: None, first: 0, count: 3 };
    app.world_mut().resource_mut::<FlockCommands<Vec3>>().submit(form).unwrap();
    app.update();
    let grouped = |app: &mut App| app.world_mut().query::<&FishGroup>().iter(app.world()).count();
    assert_eq!(grouped(&mut app), 90, "every fish got its group's marker");
    {
        let state = app.world().resource::<Flock3dState>();
        for (id, &entity) in state.entities().iter().enumerate() {
            let marker = app.world().get::<FishGroup>(entity).map(|g| g.0);
            assert_eq!(marker, state.flock().group_of(id as u32), "fish {id}");
        }
    }
    // A game's own group and leader for fish 5, and fish 6 led no more.
    let (five, six) = {
        let state = app.world().resource::<Flock3dState>();
        (state.entity(5).unwrap(), state.entity(6).unwrap())
    };
    app.world_mut().entity_mut(five).insert((FishGroup(40), Leader));
    let lead = VolumeCommand::SetLeaders { fish: vec![6], leads: true };
    app.world_mut().resource_mut::<FlockCommands<Vec3>>().submit(lead).unwrap();
    app.update();
    assert!(app.world().entity(six).contains::<Leader>());
    app.world_mut().entity_mut(six).remove::<Leader>();
    app.update();
    let state = app.world().resource::<Flock3dState>();
    let leads = |id: u32| state.flock().leaders()[state.flock().slots()[id as usize] as usize];
    assert_eq!(state.flock().group_of(5), Some(40));
    assert!(leads(5), "the game's Leader leads");
    assert!(!leads(6), "a removed Leader leads no more");
    app.world_mut().resource_mut::<FlockCommands<Vec3>>().submit(VolumeCommand::ClearGroups).unwrap();
    app.update();
    assert_eq!(grouped(&mut app), 0);
}

/// `Flock3dConfig` is followed as a plane's `FlockConfig` is: an edit
/// takes effect at the next tick, a bad one is refused (reported once,
/// kept in `rejected`) while the last valid one stays, and a command that
/// changes the parameters is written back to it.
#[test]
fn the_volume_configuration_is_followed_both_ways() {
    use mirofish_sim::space::VolumeCommand;
    let mut app = app();
    app.world_mut().commands().queue(SpawnSchool3d::new(60));
    app.update();
    app.world_mut().resource_mut::<Flock3dConfig>().params.max_speed = 40.0;
    app.update();
    assert_eq!(app.world().resource::<Flock3dState>().schools()[0].max_speed, 40.0);
    app.world_mut().resource_mut::<Flock3dConfig>().params.perception_radius = f32::NAN;
    app.update();
    app.update();
    let state = app.world().resource::<Flock3dState>();
    assert_eq!(state.rejected().map(|e| e.field), Some("perception_radius"));
    assert_eq!(state.config().params.max_speed, 40.0, "the last valid configuration stays");
    assert_eq!(app.world().resource::<FlockRefusals>().total(), 1, "reported once");
    let params = FlockParams { max_speed: 90.0, ..FlockParams::default() };
    app.world_mut().resource_mut::<FlockCommands<Vec3>>().submit(VolumeCommand::SetParams(params)).unwrap();
    app.update();
    assert_eq!(app.world().resource::<Flock3dConfig>().params, params, "the command is written back");
    // Written back whole: the next tick finds the configuration in force.
    app.update();
    assert_eq!(app.world().resource::<Flock3dState>().rejected(), None);
    // A school a spawn adds is in the configuration: a later edit keeps it.
    let slow = FlockParams { max_speed: 30.0, ..FlockParams::default() };
    app.world_mut().commands().queue(SpawnSchool3d::new(20).with_params(slow));
    app.update();
    assert_eq!(app.world().resource::<Flock3dConfig>().schools, [slow]);
    app.world_mut().resource_mut::<Flock3dConfig>().params.max_speed = 70.0;
    app.update();
    let speeds: Vec<f32> =
        app.world().resource::<Flock3dState>().schools().iter().map(|p| p.max_speed).collect();
    assert_eq!(speeds, [70.0, 30.0]);
    // More fish join that school, as on a plane.
    app.world_mut().commands().queue(SpawnSchool3d::new(5).in_school(1));
    app.update();
    let in_second = app.world_mut().query::<&School>().iter(app.world()).filter(|s| s.0 == 1).count();
    let state = app.world().resource::<Flock3dState>();
    assert_eq!((state.flock().schools().iter().filter(|&&s| s == 1).count(), in_second), (25, 25));
}
