//! Groups in the plugin: `FormGroups` gives fish their `FishGroup`, a group
//! goal moves its group, and a fish given a group of its own by hand
//! follows its own target.

mod common;

use bevy::prelude::*;
use common::*;
use mirofish_bevy::prelude::*;
use mirofish_bevy::{FishGroup, FishId};

/// Mean position of the fish of group `group`.
fn centre_of(app: &mut App, group: u16) -> Vec2 {
    let members: Vec<Vec2> = app
        .world_mut()
        .query::<(&Position, &FishGroup)>()
        .iter(app.world())
        .filter(|(_, g)| g.0 == group)
        .map(|(p, _)| p.0)
        .collect();
    members.iter().sum::<Vec2>() / members.len().max(1) as f32
}

/// Three groups formed at tick 1, group 1 sent to `target` if `goal`;
/// each group's distance to `target` after 240 ticks.
fn three_groups(goal: bool, target: Vec2) -> (App, [f32; 3]) {
    let mut app = headless_app(config(8), 1);
    spawn(&mut app, 300);
    run_ticks(&mut app, 1);
    app.world_mut()
        .resource_mut::<FlockCommands>()
        .submit(FlockCommand::FormGroups { school: None, first: 0, count: 3 })
        .unwrap();
    run_ticks(&mut app, 1);
    assert_eq!(count::<FishGroup>(&mut app), 300);
    if goal {
        app.world_mut()
            .resource_mut::<FlockCommands>()
            .submit(FlockCommand::SetGroupGoal { group: 1, goal: Some(Goal::seek(target, 1.5)) })
            .unwrap();
    }
    run_ticks(&mut app, 240);
    let end = [0, 1, 2].map(|g| centre_of(&mut app, g).distance(target));
    (app, end)
}

#[test]
fn formed_groups_follow_their_goals() {
    let target = Vec2::new(700.0, 400.0);
    let (_, free) = three_groups(false, target);
    let (mut app, sent) = three_groups(true, target);
    // The group with the goal ends far nearer it than it would have, and
    // nearer than the others (which its neighbours drag along a little).
    assert!(sent[1] < 0.5 * free[1], "{free:?} -> {sent:?}");
    assert!(sent[1] < sent[0].min(sent[2]), "{sent:?}");
    app.world_mut().resource_mut::<FlockCommands>().submit(FlockCommand::ClearGroups).unwrap();
    run_ticks(&mut app, 1);
    assert_eq!(count::<FishGroup>(&mut app), 0);
    assert!(app.world().resource::<FlockState>().scene().group_goals.is_empty());
}

/// How far the first fish ends from `target` after 300 ticks, with a
/// group of its own seeking it if `own`.
fn loner(own: bool, target: Vec2) -> f32 {
    let mut app = headless_app(config(3), 1);
    spawn(&mut app, 120);
    run_ticks(&mut app, 1);
    let (loner, slot) = app
        .world_mut()
        .query::<(Entity, &FishId)>()
        .iter(app.world())
        .min_by_key(|(e, _)| *e)
        .map(|(e, s)| (e, *s))
        .unwrap();
    assert_eq!(slot, app.world().get::<FishId>(loner).copied().unwrap());
    if own {
        app.world_mut().entity_mut(loner).insert(FishGroup(40));
        app.world_mut()
            .resource_mut::<FlockCommands>()
            .submit(FlockCommand::SetGroupGoal { group: 40, goal: Some(Goal::seek(target, 4.0)) })
            .unwrap();
    }
    run_ticks(&mut app, 300);
    app.world().get::<Position>(loner).unwrap().0.distance(target)
}

#[test]
fn one_fish_with_a_target_of_its_own() {
    let target = Vec2::new(-750.0, -400.0);
    let (free, own) = (loner(false, target), loner(true, target));
    assert!(own < 0.5 * free, "{free} -> {own}");
}
