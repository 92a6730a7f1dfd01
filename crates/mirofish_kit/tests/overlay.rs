//! The debug overlay in a headless app: with every toggle on, a wrapping
//! tank, a scene with a predator, an attractor, a route and goals, and a
//! fish picked to inspect (and, with the `decide` feature, the decision
//! layer's units and their goals), it draws frame after frame; a fish that
//! leaves the school while inspected is let go of quietly.

use bevy::app::ScheduleRunnerPlugin;
use bevy::gizmos::{AppGizmoBuilder, GizmoAsset, GizmoHandles};
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use mirofish_bevy::prelude::*;
use mirofish_kit::{DebugOverlayPlugin, Inspected, MouseToolsPlugin, OverlaySettings, waypoint_command};
use mirofish_sim::{Attractor, Goal};

#[test]
fn the_overlay_draws_everything_and_lets_a_despawned_fish_go() {
    let mut app = App::new();
    let tank = Tank::default().with_boundary(BoundaryMode::Wrap);
    app.add_plugins((MinimalPlugins.build().disable::<ScheduleRunnerPlugin>(), AssetPlugin::default()))
        // The gizmos' storage, without their renderer.
        .init_asset::<GizmoAsset>()
        .init_resource::<GizmoHandles>()
        .init_gizmo_group::<DefaultGizmoConfigGroup>()
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1))
        .insert_resource(FlockConfig { seed: 5, tank, ..default() })
        .insert_resource(FlockMetrics::new(1).with_rule_forces())
        .insert_resource(OverlaySettings {
            neighbours: true,
            forces: true,
            radii: true,
            grid: true,
            fish: 50,
            unit_goals: true,
        })
        .add_plugins((MiroFishPlugin::default(), MouseToolsPlugin, DebugOverlayPlugin));
    // The decision layer's units, whose goals the overlay draws too.
    #[cfg(feature = "decide")]
    app.add_plugins(mirofish_decide::plugin::DecisionPlugin);
    app.world_mut().commands().queue(SpawnSchool::new(200));
    app.world_mut().spawn((Predator2d::default(), Position(Vec2::new(100.0, 0.0))));
    app.world_mut().flush();
    app.update();
    {
        let mut commands = app.world_mut().resource_mut::<FlockCommands>();
        let route = waypoint_command(None, Vec2::new(-200.0, 100.0));
        for command in [
            route,
            FlockCommand::SetAttractor(Some(Attractor { point: Vec2::ZERO, strength: 1.0, radius: 200.0 })),
            FlockCommand::SetSchoolGoal { school: 0, goal: Some(Goal::seek(Vec2::new(300.0, 0.0), 1.0)) },
        ] {
            commands.submit(command).unwrap();
        }
    }
    let fish = {
        let world = app.world_mut();
        world.query_filtered::<Entity, With<Boid>>().iter(world).next().unwrap()
    };
    app.world_mut().resource_mut::<Inspected>().fish = Some(fish);
    for _ in 0..5 {
        app.update();
    }
    let scene = app.world().resource::<FlockState>().scene().clone();
    assert!(scene.route.is_some() && scene.attractor.is_some() && scene.school_goals[0].is_some());
    #[cfg(feature = "decide")]
    {
        let decisions = app.world().resource::<mirofish_decide::plugin::Decisions>();
        let counts = mirofish_kit::decisions::intent_counts(decisions);
        assert!(counts.iter().map(|(_, n)| n).sum::<usize>() > 0, "the units decided");
        assert!(scene.group_goals.iter().any(Option::is_some), "their goals are in the scene, to draw");
    }
    assert_eq!(app.world().resource::<FlockState>().flock().len(), 200);
    // The inspected fish leaves: the overlay draws on without it.
    app.world_mut().despawn(fish);
    for _ in 0..3 {
        app.update();
    }
    assert_eq!(app.world().resource::<FlockState>().flock().len(), 199);
}
