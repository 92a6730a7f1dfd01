//! The camera follows the fish picked to inspect (the game kit's
//! `Inspected`, Ctrl + click) while the panel asks it to.

use bevy::prelude::*;
use mirofish_bevy::{FishSlot, FlockState};
use mirofish_kit::{Inspected, report};

/// Centres the camera on the inspected fish while `follow` is on; puts
/// the whole tank back in view when it goes off (or the fish is let go).
pub fn follow(
    inspected: Res<Inspected>,
    state: Res<FlockState>,
    slots: Query<&FishSlot>,
    panel: Res<mirofish_kit::PanelSettings>,
    mut camera: Query<(&mut Projection, &mut Transform), With<Camera2d>>,
    mut following: Local<bool>,
) {
    let target = inspected
        .fish
        .filter(|_| inspected.follow)
        .and_then(|fish| report(&state, fish, slots.get(fish).ok()))
        .map(|r| r.position);
    for (mut projection, mut transform) in &mut camera {
        match target {
            Some(p) => {
                transform.translation = p.extend(transform.translation.z);
            }
            None if *following => {
                (*projection, *transform) = super::framing(&state.config().tank, panel.show);
            }
            None => {}
        }
    }
    *following = target.is_some();
}
