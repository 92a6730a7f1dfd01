//! What several test files share: a headless app for a volume.

// Each test file uses some of these.
#![allow(dead_code)]

use std::time::Duration;

use bevy::app::ScheduleRunnerPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use mirofish_bevy::volume::MiroFish3dPlugin;

/// A windowless app with the core plugin for a volume and the assets the
/// kit's 3D plugins make (meshes, materials), whose clock advances 16 ms
/// an update.
pub fn volume_app() -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins.build().disable::<ScheduleRunnerPlugin>(), AssetPlugin::default()))
        .init_asset::<Mesh>()
        .init_asset::<StandardMaterial>()
        .init_asset::<Shader>()
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(16)))
        .add_plugins(MiroFish3dPlugin::default());
    app
}

/// Drawing the panel's sections into a test's own egui context.
#[cfg(feature = "panel")]
pub mod panel {
    use bevy::prelude::*;
    use bevy_egui::egui;
    use mirofish_kit::panel::draw_sections;

    /// One frame of the panel's sections in a tall screen (nothing
    /// scrolled away), with `events` as this frame's input: every text drawn
    /// and where.
    pub fn frame(app: &mut App, ctx: &egui::Context, events: Vec<egui::Event>) -> Vec<(String, egui::Rect)> {
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(900.0, 6000.0))),
            events,
            ..default()
        };
        let world = app.world_mut();
        let mut output = ctx.run_ui(input, |ui| draw_sections(world, ui));
        // No renderer takes the font atlas here.
        output.textures_delta.clear();
        let mut texts = Vec::new();
        for clipped in output.shapes {
            if let egui::epaint::Shape::Text(text) = clipped.shape {
                texts.push((text.galley.text().to_owned(), text.visual_bounding_rect()));
            }
        }
        texts
    }

    pub fn find<'a>(texts: &'a [(String, egui::Rect)], wanted: &str) -> Option<&'a egui::Rect> {
        texts.iter().find(|(t, _)| t == wanted).map(|(_, r)| r)
    }

    /// A press and a release of the primary button at `at`.
    pub fn click_at(at: egui::Pos2) -> Vec<egui::Event> {
        let button = |pressed| egui::Event::PointerButton {
            pos: at,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        };
        vec![egui::Event::PointerMoved(at), button(true), button(false)]
    }
}
