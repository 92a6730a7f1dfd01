//! The shared school shown through entities: one [`NetFish`] per fish and
//! one [`NetPredator`] per predator, placed from the school after every
//! update's frames. They are a view, not rolled back: the school is the
//! truth, and a rollback moves them with it.

use bevy::prelude::*;
use ggrs::PlayerHandle;

use crate::school::NetSchool;

/// A fish of the shared school as an entity: the plugin keeps one per fish,
/// placed at the fish (the tank's units; `z` left as the game set it) and
/// turned along its velocity. Give it a look with an observer on
/// `Add, NetFish` (a sprite or a mesh long along +X).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct NetFish {
    /// The fish's id in the school (`0..fish`, steady however the school
    /// orders its slots).
    pub id: u32,
    /// Its school's index (for a colour per school).
    pub school: u16,
}

/// A predator of the shared school as an entity, kept like [`NetFish`]:
/// the school's own predators first, then each player's.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct NetPredator {
    /// Its index among the school's predators.
    pub index: usize,
    /// The player whose pointer it follows, for a player's predator.
    pub player: Option<PlayerHandle>,
}

/// The entities shown, by fish id and by predator index.
#[derive(Resource, Debug, Default)]
pub(crate) struct FishViews {
    /// The entity of each fish, by id.
    fish: Vec<Entity>,
    predators: Vec<Entity>,
    /// Each fish's slot in the flock, by id (kept, so that a frame does
    /// not allocate).
    slot_of: Vec<u32>,
}

/// A rotation about +Z that points +X along `v` (none for a still fish).
fn heading(v: Vec2) -> Option<Quat> {
    (v.length_squared() > 1e-12).then(|| Quat::from_rotation_z(v.y.atan2(v.x)))
}

/// Keeps one [`NetFish`] per fish and places each at its fish: one pass
/// over the entities, each finding its fish by id (a still fish keeps its
/// last heading).
pub(crate) fn show_fish(
    mut commands: Commands,
    school: Option<Res<NetSchool>>,
    mut views: ResMut<FishViews>,
    mut fish: Query<(&mut NetFish, &mut Transform)>,
) {
    let Some(school) = school else { return };
    let flock = school.simulation();
    let (positions, velocities, schools) = (flock.positions(), flock.velocities(), flock.schools());
    let views = &mut *views;
    while views.fish.len() > flock.len() {
        if let Some(gone) = views.fish.pop() {
            commands.entity(gone).despawn();
        }
    }
    views.slot_of.clear();
    views.slot_of.resize(flock.len(), 0);
    for (slot, &id) in flock.ids().iter().enumerate() {
        views.slot_of[id as usize] = slot as u32;
    }
    for (mut shown, mut transform) in &mut fish {
        let Some(&slot) = views.slot_of.get(shown.id as usize) else { continue };
        let slot = slot as usize;
        if shown.school != schools[slot] {
            shown.school = schools[slot];
        }
        transform.translation.x = positions[slot].x;
        transform.translation.y = positions[slot].y;
        if let Some(turn) = heading(velocities[slot]) {
            transform.rotation = turn;
        }
    }
    // Fish the views do not have yet.
    for id in views.fish.len()..flock.len() {
        let slot = views.slot_of[id] as usize;
        let at = positions[slot];
        let mut place = Transform::from_xyz(at.x, at.y, 0.0);
        if let Some(turn) = heading(velocities[slot]) {
            place.rotation = turn;
        }
        views.fish.push(commands.spawn((NetFish { id: id as u32, school: schools[slot] }, place)).id());
    }
}

/// Keeps one [`NetPredator`] per predator and places each at its predator.
pub(crate) fn show_predators(
    mut commands: Commands,
    school: Option<Res<NetSchool>>,
    mut views: ResMut<FishViews>,
    mut shown: Query<(&mut NetPredator, &mut Transform)>,
) {
    let Some(school) = school else { return };
    let predators = &school.simulation().scene().predators;
    while views.predators.len() > predators.len() {
        if let Some(gone) = views.predators.pop() {
            commands.entity(gone).despawn();
        }
    }
    for (index, predator) in predators.iter().enumerate() {
        let view = NetPredator { index, player: school.predator_player(index) };
        let at = predator.position;
        match views.predators.get(index) {
            Some(&entity) => {
                if let Ok((mut old, mut transform)) = shown.get_mut(entity) {
                    if *old != view {
                        *old = view;
                    }
                    transform.translation.x = at.x;
                    transform.translation.y = at.y;
                }
            }
            None => views.predators.push(commands.spawn((view, Transform::from_xyz(at.x, at.y, 1.0))).id()),
        }
    }
}
