//! A 2D camera that keeps a plane's tank in view: [`TankCameraPlugin`].
//!
//! ```no_run
//! use bevy::prelude::*;
//! use mirofish_bevy::prelude::*;
//! use mirofish_kit::prelude::*;
//!
//! App::new()
//!     .add_plugins((DefaultPlugins, MiroFishPlugin::default(), FishLookPlugin, TankCameraPlugin))
//!     .add_systems(Startup, |mut commands: Commands| {
//!         commands.spawn((Camera2d, TankCamera));
//!         commands.queue(SpawnSchool::new(500));
//!     })
//!     .run();
//! ```

use bevy::camera::ScalingMode;
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use mirofish_bevy::{FishId, FlockState};
use mirofish_sim::Tank;

use crate::tools::{Inspected, report};

/// Marks a 2D camera that [`TankCameraPlugin`] frames.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TankCamera;

/// Frames every [`TankCamera`] to show the whole tank with a little water
/// round it: right of the tuning panel while it is shown, and again when
/// the tank, the window's width or the panel's showing changes. While the
/// inspected fish is followed ([`Inspected::follow`], the panel's inspect
/// section) the camera centres on it, and frames the tank again when it
/// lets go.
pub struct TankCameraPlugin;

impl Plugin for TankCameraPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(
            PostUpdate,
            frame_tank
                .run_if(resource_exists::<FlockState>)
                .before(bevy::transform::TransformSystems::Propagate),
        );
    }
}

/// Width of the panel's column (its window and margins), logical pixels.
const PANEL_WIDTH: f32 = 306.0;

/// A projection and camera position that show the whole `tank` with a
/// little water round it, leaving the left `covered` share (0 to ½) of the
/// view to a panel.
pub fn framing(tank: &Tank, covered: f32) -> (Projection, Transform) {
    let size = tank.size() * 1.04;
    let covered = if covered.is_finite() { covered.clamp(0.0, 0.5) } else { 0.0 };
    let width = size.x / (1.0 - covered);
    let centre = (tank.min + tank.max) * 0.5 - Vec2::X * (width - size.x) * 0.5;
    let projection = Projection::Orthographic(OrthographicProjection {
        scaling_mode: ScalingMode::AutoMin { min_width: width, min_height: size.y },
        ..OrthographicProjection::default_2d()
    });
    (projection, Transform::from_translation(centre.extend(0.0)))
}

/// What a framing was made for: the tank and the share the panel covers.
type Framed = (Tank, u32);

fn frame_tank(
    state: Res<FlockState>,
    inspected: Option<Res<Inspected>>,
    #[cfg(feature = "panel")] panel: Option<Res<crate::panel::PanelSettings>>,
    windows: Query<&Window, With<PrimaryWindow>>,
    slots: Query<&FishId>,
    mut cameras: Query<(Ref<TankCamera>, &mut Projection, &mut Transform)>,
    mut framed: Local<Option<Framed>>,
) {
    let followed = inspected
        .as_ref()
        .filter(|i| i.follow)
        .and_then(|i| i.fish)
        .and_then(|fish| report(&state, fish, slots.get(fish).ok()))
        .map(|r| r.position);
    if let Some(at) = followed {
        for (_, _, mut transform) in &mut cameras {
            transform.translation = at.extend(transform.translation.z);
        }
        // Frame the tank again once it lets go.
        *framed = None;
        return;
    }
    #[cfg(feature = "panel")]
    let shown = panel.is_some_and(|p| p.show);
    #[cfg(not(feature = "panel"))]
    let shown = false;
    let covered = match (shown, windows.single()) {
        (false, _) => 0.0,
        (true, Ok(window)) if window.width() > 0.0 => (PANEL_WIDTH / window.width()).min(0.5),
        // No window (a headless app): a 1280-pixel one.
        (true, _) => PANEL_WIDTH / 1280.0,
    };
    let tank = state.config().tank;
    let now = (tank, covered.to_bits());
    let changed = *framed != Some(now);
    *framed = Some(now);
    for (marker, mut projection, mut transform) in &mut cameras {
        if changed || marker.is_added() {
            (*projection, *transform) = framing(&tank, covered);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_framing_shows_the_tank_right_of_the_panel() {
        let tank = Tank::centered(Vec2::new(800.0, 600.0));
        let (Projection::Orthographic(open), at) = framing(&tank, 0.0) else { panic!() };
        assert_eq!(at.translation, Vec3::ZERO);
        let ScalingMode::AutoMin { min_width, min_height } = open.scaling_mode else { panic!() };
        assert!((min_width - 832.0).abs() < 1e-3 && (min_height - 624.0).abs() < 1e-3);
        // A quarter covered: a wider view, shifted left so the tank sits
        // in the three quarters on the right.
        let (Projection::Orthographic(narrow), at) = framing(&tank, 0.25) else { panic!() };
        let ScalingMode::AutoMin { min_width, .. } = narrow.scaling_mode else { panic!() };
        assert!((min_width - 832.0 / 0.75).abs() < 1e-3);
        let left_edge = at.translation.x - min_width / 2.0;
        assert!((left_edge + min_width * 0.25 - (-416.0)).abs() < 1e-3, "{left_edge}");
        // Hostile shares are clamped.
        for covered in [f32::NAN, -1.0, 7.0] {
            let (_, at) = framing(&tank, covered);
            assert!(at.translation.is_finite());
        }
    }
}
