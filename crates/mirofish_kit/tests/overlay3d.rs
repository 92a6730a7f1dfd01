//! The debug overlay in a volume, headless: with every toggle on, a scene
//! with a predator, an attractor, a route and goals (and, with the
//! `decide` feature, the decision layer's units and their goals), it draws
//! frame after frame beside the core plugin; the rule forces it draws are
//! kept by the core only while their arrows are on.

use bevy::gizmos::{AppGizmoBuilder, GizmoAsset, GizmoHandles};
use bevy::prelude::*;
use mirofish_bevy::volume::*;
use mirofish_kit::{DebugOverlay3dPlugin, OverlaySettings};
use mirofish_sim::space::VolumeCommand;
use mirofish_sim::{Attractor, Goal, Route};

mod common;

/// A volume's headless app with what gizmos need to be drawn into.
fn gizmo_app() -> App {
    let mut app = common::volume_app();
    app.init_asset::<GizmoAsset>()
        .init_resource::<GizmoHandles>()
        .init_gizmo_group::<DefaultGizmoConfigGroup>();
    app
}

#[test]
fn the_overlay_draws_a_volume_and_its_units() {
    let mut app = gizmo_app();
    app.insert_resource(OverlaySettings {
        neighbours: true,
        forces: true,
        radii: true,
        grid: true,
        fish: 30,
        unit_goals: true,
    })
    .add_plugins(DebugOverlay3dPlugin);
    #[cfg(feature = "decide")]
    app.add_plugins(mirofish_decide::plugin::DecisionPlugin3d);
    app.world_mut().commands().queue(SpawnSchool3d::new(200));
    app.world_mut().spawn((Predator3d::default(), Position(Vec3::new(100.0, 0.0, 0.0))));
    app.world_mut().flush();
    app.update();
    {
        let mut queue = app.world_mut().resource_mut::<FlockCommands<Vec3>>();
        let route = Route {
            waypoints: vec![Vec3::ZERO, Vec3::new(200.0, 50.0, -30.0)],
            next: 0,
            reach: 40.0,
            looping: true,
            weight: 1.0,
            arrive: false,
        };
        for command in [
            VolumeCommand::SetRoute(Some(route)),
            VolumeCommand::SetAttractor(Some(Attractor { point: Vec3::ZERO, strength: -1.0, radius: 150.0 })),
            VolumeCommand::SetSchoolGoal {
                school: 0,
                goal: Some(Goal::seek(Vec3::new(300.0, 0.0, 0.0), 1.0)),
            },
        ] {
            queue.submit(command).unwrap();
        }
    }
    for _ in 0..30 {
        app.update();
    }
    let state = app.world().resource::<Flock3dState>();
    let scene = state.flock().scene();
    assert!(scene.route.is_some() && scene.attractor.is_some() && scene.school_goals[0].is_some());
    assert_eq!(scene.predators.len(), 1);
    assert!(state.flock().tick() > 0, "the volume ticked while the overlay drew");
    assert!(state.flock().records_rules(), "the arrows' forces are kept");
    let first = state.flock().slots()[0] as usize;
    let rules = state.flock().sample(first).expect("the first fish's rules").rules;
    assert!(rules.separation != Vec3::ZERO || rules.cohesion != Vec3::ZERO || rules.wander != Vec3::ZERO);
    #[cfg(feature = "decide")]
    {
        let decisions = app.world().resource::<mirofish_decide::plugin::Decisions<Vec3>>();
        let layer = decisions.layer.as_ref().expect("the layer runs");
        assert!(layer.intents().flatten().count() > 0, "the units decided");
        assert!(scene.group_goals.iter().any(Option::is_some), "their goals are in the scene, to draw");
    }
}

#[test]
fn the_rule_forces_are_kept_only_while_their_arrows_are_drawn() {
    let mut app = gizmo_app();
    app.add_plugins(DebugOverlay3dPlugin);
    app.world_mut().commands().queue(SpawnSchool3d::new(60));
    app.world_mut().flush();
    for _ in 0..5 {
        app.update();
    }
    let kept = |app: &App| app.world().resource::<Flock3dState>().flock().sample(0).is_some();
    assert!(!kept(&app), "off by default");
    app.world_mut().resource_mut::<OverlaySettings>().forces = true;
    for _ in 0..5 {
        app.update();
    }
    assert!(kept(&app));
    app.world_mut().resource_mut::<OverlaySettings>().forces = false;
    app.update();
    assert!(!kept(&app));
}
