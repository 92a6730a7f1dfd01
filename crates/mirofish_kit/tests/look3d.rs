//! The 3D fish look in a headless app: every fish in a volume gets the one
//! shared mesh and its school's material, a fish the game dressed keeps
//! its own mesh, and the fish sway as they swim (their pose turns away
//! from their heading and back).
#![cfg(feature = "look3d")]

use bevy::prelude::*;
use mirofish_bevy::volume::*;
use mirofish_kit::look3d::{FishAssets3d, FishLook3d, FishLook3dPlugin, Swim3d};
use mirofish_sim::FlockParams;

mod common;

fn app() -> App {
    let mut app = common::volume_app();
    app.add_plugins(FishLook3dPlugin);
    app.world_mut().commands().queue(SpawnSchool3d::new(80));
    app.world_mut().commands().queue(SpawnSchool3d::new(40).with_params(FlockParams::default()));
    app.world_mut().flush();
    for _ in 0..10 {
        app.update();
    }
    app
}

#[test]
fn every_fish_gets_the_shared_mesh_and_its_schools_material() {
    let mut app = app();
    let assets = app.world().resource::<FishAssets3d>().clone();
    assert_eq!(assets.materials.len(), FishLook3d::default().colours.len());
    let fish: Vec<(Handle<Mesh>, Handle<StandardMaterial>, u16)> = app
        .world_mut()
        .query_filtered::<(&Mesh3d, &MeshMaterial3d<StandardMaterial>, Option<&School3d>), With<Boid3d>>()
        .iter(app.world())
        .map(|(m, mat, s)| (m.0.clone(), mat.0.clone(), s.map_or(0, |s| s.0)))
        .collect();
    assert_eq!(fish.len(), 120);
    for (mesh, material, school) in &fish {
        assert_eq!(mesh, &assets.mesh);
        assert_eq!(material, &assets.materials[usize::from(*school)]);
    }
    assert_eq!(fish.iter().filter(|f| f.2 == 1).count(), 40);
}

#[test]
fn a_fish_the_game_dressed_keeps_its_mesh() {
    let mut app = app();
    let own = app.world_mut().resource_mut::<Assets<Mesh>>().add(Sphere::new(3.0));
    app.world_mut().commands().queue(SpawnSchool3d::new(5));
    app.world_mut().flush();
    app.update();
    // Dress the new fish before the kit does (the kit dresses in Update).
    let new: Vec<Entity> = app
        .world_mut()
        .query_filtered::<Entity, (With<Boid3d>, Without<Mesh3d>)>()
        .iter(app.world())
        .collect();
    for &e in &new {
        app.world_mut().entity_mut(e).insert(Mesh3d(own.clone()));
    }
    app.update();
    for e in new {
        assert_eq!(app.world().get::<Mesh3d>(e).unwrap().0, own);
    }
}

#[test]
fn fish_sway_about_their_heading_as_they_swim() {
    let mut app = app();
    let mut turned = 0usize;
    let mut phases = Vec::new();
    for _ in 0..3 {
        app.update();
        let world = app.world_mut();
        for (transform, velocity, swim) in
            world.query_filtered::<(&Transform, &Velocity3d, &Swim3d), With<Boid3d>>().iter(world)
        {
            // The body's forward (−Z) against the heading.
            let forward = transform.rotation * Vec3::NEG_Z;
            let heading = velocity.0.normalize_or_zero();
            if heading != Vec3::ZERO && forward.angle_between(heading) > 0.01 {
                turned += 1;
            }
            assert!(transform.rotation.is_finite() && swim.phase.is_finite());
            phases.push(swim.phase);
        }
    }
    assert!(turned > 100, "{turned} of 360 poses sway off the heading");
    let first = phases[0];
    assert!(phases.iter().any(|&p| (p - first).abs() > 0.1), "the strokes start apart and move on");
}
