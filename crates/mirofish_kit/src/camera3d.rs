//! A 3D camera that orbits a volume's tank (the `look3d` feature):
//! [`TankCamera3dPlugin`].
//!
//! ```no_run
//! use bevy::prelude::*;
//! use mirofish_bevy::volume::*;
//! use mirofish_kit::camera3d::{TankCamera3d, TankCamera3dPlugin};
//! use mirofish_kit::look3d::FishLook3dPlugin;
//!
//! App::new()
//!     .add_plugins((DefaultPlugins, MiroFish3dPlugin::default(), FishLook3dPlugin, TankCamera3dPlugin))
//!     .add_systems(Startup, |mut commands: Commands| {
//!         commands.spawn((Camera3d::default(), TankCamera3d::default()));
//!         commands.spawn(DirectionalLight::default());
//!         commands.queue(SpawnSchool3d::new(2000));
//!     })
//!     .run();
//! ```

use bevy::input::mouse::{AccumulatedMouseMotion, AccumulatedMouseScroll};
use bevy::prelude::*;
use mirofish_bevy::volume::Flock3dState;

use crate::tools::PointerOverUi;

/// A 3D camera that [`TankCamera3dPlugin`] keeps on a sphere round the
/// tank's centre, looking at it.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub struct TankCamera3d {
    /// Turn about the vertical (radians; 0 looks from the front, +Z).
    pub yaw: f32,
    /// Height above the tank's middle plane (radians, −0.2 to 1.45).
    pub pitch: f32,
    /// Distance from the tank's centre; 0 (the default): far enough to
    /// see the whole tank, set at the first frame.
    pub distance: f32,
}

impl Default for TankCamera3d {
    fn default() -> Self {
        Self { yaw: 0.5, pitch: 0.35, distance: 0.0 }
    }
}

impl TankCamera3d {
    /// Where the camera stands for a tank centred at `centre`, sliding
    /// `shift` of its distance to the left (to leave the left of the view
    /// to a panel), looking at the tank.
    pub fn pose(&self, centre: Vec3, shift: f32) -> Transform {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        let eye = centre + Vec3::new(sy * cp, sp, cy * cp) * self.distance;
        let mut view = Transform::from_translation(eye).looking_at(centre, Vec3::Y);
        view.translation -= view.right() * self.distance * shift;
        view
    }
}

/// Orbits every [`TankCamera3d`] round the tank: a left drag turns it, the
/// wheel moves it nearer or further (a fifth to four times the distance
/// that shows the whole tank). A drag that starts on the tuning panel, or
/// a wheel turned over it ([`PointerOverUi`]), is the panel's. While the
/// panel is shown the camera slides left so the tank sits in the free part
/// of the window.
pub struct TankCamera3dPlugin;

impl Plugin for TankCamera3dPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<PointerOverUi>()
            .init_resource::<ButtonInput<MouseButton>>()
            .init_resource::<AccumulatedMouseMotion>()
            .init_resource::<AccumulatedMouseScroll>()
            .add_systems(
                PostUpdate,
                orbit
                    .run_if(resource_exists::<Flock3dState>)
                    .before(bevy::transform::TransformSystems::Propagate),
            );
    }
}

/// How far the camera slides left, per unit of its distance, while the
/// panel is shown.
const PANEL_SHIFT: f32 = 0.14;

/// The distance that shows the whole tank, per unit of its diagonal.
const FIT: f32 = 1.05;

#[expect(clippy::too_many_arguments, reason = "the mouse, the panel and the cameras")]
fn orbit(
    buttons: Res<ButtonInput<MouseButton>>,
    motion: Res<AccumulatedMouseMotion>,
    scroll: Res<AccumulatedMouseScroll>,
    over_ui: Res<PointerOverUi>,
    #[cfg(feature = "panel")] panel: Option<Res<crate::panel::PanelSettings>>,
    state: Res<Flock3dState>,
    mut cameras: Query<(&mut TankCamera3d, &mut Transform)>,
    mut on_panel: Local<bool>,
) {
    if buttons.any_just_pressed([MouseButton::Left, MouseButton::Right]) {
        *on_panel = over_ui.0;
    }
    #[cfg(feature = "panel")]
    let shift = if panel.is_some_and(|p| p.show) { PANEL_SHIFT } else { 0.0 };
    #[cfg(not(feature = "panel"))]
    let shift = 0.0;
    let tank = state.flock().tank();
    let (centre, fit) = ((tank.min + tank.max) * 0.5, tank.size().length().max(1.0) * FIT);
    for (mut camera, mut transform) in &mut cameras {
        if !(camera.distance.is_finite() && camera.distance > 0.0) {
            camera.distance = fit;
        }
        if buttons.pressed(MouseButton::Left) && !*on_panel {
            camera.yaw -= motion.delta.x * 0.005;
            camera.pitch += motion.delta.y * 0.005;
        }
        if !over_ui.0 {
            camera.distance *= 1.0 - scroll.delta.y * 0.1;
        }
        camera.distance = camera.distance.clamp(fit * 0.2, fit * 4.0);
        camera.pitch = if camera.pitch.is_finite() { camera.pitch.clamp(-0.2, 1.45) } else { 0.35 };
        if !camera.yaw.is_finite() {
            camera.yaw = 0.5;
        }
        *transform = camera.pose(centre, shift);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pose_looks_at_the_tank_from_its_sphere() {
        let camera = TankCamera3d { yaw: 0.0, pitch: 0.0, distance: 1000.0 };
        let centre = Vec3::new(10.0, 20.0, 30.0);
        let pose = camera.pose(centre, 0.0);
        assert!(pose.translation.distance(centre + Vec3::Z * 1000.0) < 1e-3);
        assert!((pose.forward().as_vec3() - Vec3::NEG_Z).length() < 1e-5);
        // Shifted for a panel: moved left of the line of sight, still
        // looking the same way.
        let shifted = camera.pose(centre, 0.14);
        assert!(shifted.translation.x < pose.translation.x - 100.0);
        assert!((shifted.forward().as_vec3() - pose.forward().as_vec3()).length() < 1e-5);
        let above = TankCamera3d { pitch: 1.2, ..camera }.pose(centre, 0.0);
        assert!(above.translation.y > centre.y + 900.0);
    }
}
