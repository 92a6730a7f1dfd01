//! The fish look in a headless app: every fish, predator and rock gets its
//! sprite, tails beat, fast fish stretch, and the colouring follows
//! `FishLook`.

use std::time::Duration;

use bevy::app::ScheduleRunnerPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use mirofish_bevy::prelude::*;
use mirofish_kit::look::{ColourMode, FishImage, FishLook, FishLookPlugin, RockImage, TailBeat};

fn app() -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins.build().disable::<ScheduleRunnerPlugin>(), AssetPlugin::default()))
        .init_asset::<Image>()
        .init_asset::<TextureAtlasLayout>()
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(16)))
        .insert_resource(FlockConfig { seed: 3, ..default() })
        .add_plugins((MiroFishPlugin::default().with_tick_rate(60.0), FishLookPlugin));
    app.world_mut().commands().queue(SpawnSchool::new(120));
    app.world_mut().commands().queue(SpawnSchool::new(30).in_school(1));
    app.world_mut().spawn((Predator2d::default(), Position(Vec2::new(-100.0, 50.0))));
    app.world_mut().spawn((Obstacle2d { radius: 40.0 }, Position(Vec2::new(150.0, -80.0))));
    app.world_mut().flush();
    app.update();
    app
}

fn fish(app: &mut App) -> Vec<(Sprite, Transform, TailBeat, u16)> {
    app.world_mut()
        .query_filtered::<(&Sprite, &Transform, &TailBeat, Option<&School>), With<Boid>>()
        .iter(app.world())
        .map(|(s, t, b, school)| (s.clone(), *t, *b, school.map_or(0, |s| s.0)))
        .collect()
}

#[test]
fn every_fish_and_predator_is_drawn_from_the_one_picture() {
    let mut app = app();
    let picture = app.world().resource::<FishImage>().image.clone();
    let config = app.world().resource::<FlockConfig>().clone();
    let all = fish(&mut app);
    assert_eq!(all.len(), 150);
    for (sprite, _, beat, school) in &all {
        assert_eq!(sprite.image, picture, "one image: one batch");
        assert!(sprite.texture_atlas.is_some());
        assert!((0.0..1.0).contains(&beat.0));
        let [r, g, b] = config.colour_of(*school);
        assert_eq!(sprite.color, Color::srgb(r, g, b), "school {school}");
    }
    let schools: std::collections::BTreeSet<u16> = all.iter().map(|f| f.3).collect();
    assert_eq!(schools.len(), 2);
    let (predator, size) = {
        let mut q = app.world_mut().query_filtered::<&Sprite, With<Predator2d>>();
        let sprite = q.single(app.world()).expect("one predator, dressed").clone();
        (sprite.color, sprite.custom_size)
    };
    assert_eq!(predator, Color::srgb(0.9, 0.12, 0.18));
    assert_eq!(size, Some(FishLook::default().size * 4.5));
    // The rock: the rock picture filling its circle, behind the fish.
    let rock = app.world().resource::<RockImage>().0.clone();
    let mut q = app.world_mut().query_filtered::<(&Sprite, &Transform), With<Obstacle2d>>();
    let (sprite, transform) = q.single(app.world()).expect("one rock, dressed");
    assert_eq!(sprite.image, rock);
    assert_eq!(sprite.custom_size, Some(Vec2::splat(80.0)));
    assert!(transform.translation.z < 0.0);
}

#[test]
fn tails_beat_and_fast_fish_stretch() {
    let mut app = app();
    let frames = |app: &mut App| -> Vec<usize> {
        fish(app).iter().map(|(s, ..)| s.texture_atlas.as_ref().map_or(usize::MAX, |a| a.index)).collect()
    };
    let before = frames(&mut app);
    for _ in 0..10 {
        app.update();
    }
    let after = frames(&mut app);
    let moved = before.iter().zip(&after).filter(|(a, b)| a != b).count();
    assert!(moved > after.len() / 2, "{moved} of {} tails moved on", after.len());
    // The scale follows each fish's speed: 0.7 + 0.45 s along, narrower across.
    let max_speed = app.world().resource::<FlockConfig>().params.max_speed;
    let mut q = app.world_mut().query_filtered::<(&Velocity, &Transform), With<Boid>>();
    for (v, t) in q.iter(app.world()) {
        let s = (v.0.length() / max_speed).clamp(0.0, 2.0);
        assert!((t.scale.x - (0.7 + 0.45 * s)).abs() < 1e-4, "{} at {s}", t.scale.x);
        assert!(t.scale.y <= 1.1 && t.scale.y >= 0.85);
    }
}

#[test]
fn the_colouring_follows_the_look() {
    let mut app = app();
    app.world_mut().resource_mut::<FishLook>().colours = ColourMode::Speed;
    app.update();
    let config = app.world().resource::<FlockConfig>().clone();
    let by_speed = fish(&mut app);
    let recoloured = by_speed.iter().filter(|(s, _, _, school)| {
        let [r, g, b] = config.colour_of(*school);
        s.color != Color::srgb(r, g, b)
    });
    assert_eq!(recoloured.count(), by_speed.len(), "every fish coloured by speed");
    // Back to schools: each fish in its school's colour again.
    app.world_mut().resource_mut::<FishLook>().colours = ColourMode::School;
    app.update();
    for (sprite, _, _, school) in fish(&mut app) {
        let [r, g, b] = config.colour_of(school);
        assert_eq!(sprite.color, Color::srgb(r, g, b));
    }
}

#[test]
fn a_fish_the_game_dressed_itself_keeps_its_sprite() {
    let mut app = App::new();
    let own = Sprite::from_color(Color::WHITE, Vec2::new(9.0, 3.0));
    let given = own.clone();
    app.add_plugins((MinimalPlugins.build().disable::<ScheduleRunnerPlugin>(), AssetPlugin::default()))
        .init_asset::<Image>()
        .init_asset::<TextureAtlasLayout>()
        .add_plugins((MiroFishPlugin::default(), FishLookPlugin))
        // School 1 is the game's own look.
        .add_observer(move |add: On<Add, School>, schools: Query<&School>, mut commands: Commands| {
            if schools.get(add.entity).is_ok_and(|s| s.0 == 1) {
                commands.entity(add.entity).insert(given.clone());
            }
        });
    app.world_mut().commands().queue(SpawnSchool::new(20));
    app.world_mut().commands().queue(SpawnSchool::new(10).in_school(1));
    app.update();
    app.update();
    let mut q = app.world_mut().query_filtered::<(&Sprite, Option<&TailBeat>, Option<&School>), With<Boid>>();
    let (mut kit, mut game) = (0, 0);
    for (sprite, beat, school) in q.iter(app.world()) {
        if school.is_some_and(|s| s.0 == 1) {
            assert_eq!(
                (sprite.color, sprite.custom_size, beat.is_none()),
                (own.color, own.custom_size, true)
            );
            game += 1;
        } else {
            assert!(sprite.texture_atlas.is_some() && beat.is_some());
            kit += 1;
        }
    }
    assert_eq!((kit, game), (20, 10));
}
