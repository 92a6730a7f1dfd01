//! The 3D fish look in a headless app: every fish in a volume gets the one
//! shared mesh and its school's material, a fish the game dressed keeps
//! its own mesh, and each fish's stroke moves on in its `MeshTag` (what
//! the swimming shader bends the body by) while its pose keeps to its
//! heading.
#![cfg(feature = "look3d")]

use bevy::mesh::MeshTag;
use bevy::prelude::*;
use mirofish_bevy::volume::*;
use mirofish_kit::look3d::{FishAssets3d, FishLook3d, FishLook3dPlugin, FishMaterial3d, Swim3d, swim_tag};
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
    let fish: Vec<(Handle<Mesh>, Handle<FishMaterial3d>, u16)> = app
        .world_mut()
        .query_filtered::<(&Mesh3d, &MeshMaterial3d<FishMaterial3d>, Option<&School>), With<Boid3d>>()
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
fn each_fish_strokes_on_in_its_tag_and_faces_its_heading() {
    let mut app = app();
    let mut tags: Vec<Vec<u32>> = Vec::new();
    for _ in 0..3 {
        app.update();
        let world = app.world_mut();
        let mut this = Vec::new();
        for (transform, velocity, swim, tag) in world
            .query_filtered::<(&Transform, &Velocity<Vec3>, &Swim3d, &MeshTag), With<Boid3d>>()
            .iter(world)
        {
            assert!(swim.phase.is_finite() && (0.0..core::f32::consts::TAU).contains(&swim.phase));
            assert_eq!(tag.0 & 0xffff, swim_tag(swim.phase, 1.0) & 0xffff, "the tag carries the phase");
            // A third of a stroke at rest, all of it at top speed.
            let strength = (tag.0 >> 16) as f32 / 255.0;
            assert!((0.34..=1.0).contains(&strength), "{strength}");
            // The body bends on the GPU; the pose is the heading's.
            let heading = velocity.0.normalize_or_zero();
            if heading != Vec3::ZERO {
                let forward = transform.rotation * Vec3::NEG_Z;
                assert!(forward.angle_between(heading) < 0.01, "{forward} vs {heading}");
            }
            this.push(tag.0);
        }
        tags.push(this);
    }
    assert_eq!(tags[0].len(), 120);
    let moved = tags[0].iter().zip(&tags[1]).filter(|(a, b)| a != b).count();
    assert!(moved > 100, "{moved} of 120 strokes moved on in a frame");
    let starts: std::collections::HashSet<u32> = tags[0].iter().map(|t| t & 0xffff).collect();
    assert!(starts.len() > 100, "neighbours do not beat in step: {} phases", starts.len());
}
