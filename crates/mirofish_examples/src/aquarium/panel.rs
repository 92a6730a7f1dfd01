//! The aquarium's section of the kit's panel ([`mirofish_kit::panel`]):
//! the seed of the next restart and the fish count. Everything else in the
//! window (numbers, run controls, health, parameters, view, inspection,
//! decision units, tools, record and replay, plots, keys) is the kit's.
//!
//! A change of the count is sent as commands, so it enters the command log
//! like every other input.

use bevy::prelude::*;
use bevy_egui::egui;
use mirofish_bevy::prelude::*;
use mirofish_kit::panel::{PanelAppExt, order};

use super::AquariumSettings;

/// Most fish the count slider offers.
pub const MAX_FISH: usize = 20_000;

/// Adds the aquarium's section to the kit's panel, under the run controls.
pub fn add_sections(app: &mut App) {
    app.add_panel_section("aquarium", order::RUN + 10, true, aquarium_section);
}

/// The seed of the next restart and the number of fish.
fn aquarium_section(
    InMut(ui): InMut<egui::Ui>,
    mut settings: ResMut<AquariumSettings>,
    config: Res<FlockConfig>,
) {
    ui.horizontal(|ui| {
        ui.label("seed");
        ui.add(egui::DragValue::new(&mut settings.seed));
        ui.label("(applies on restart)");
    });
    let mut fish = settings.fish;
    let slider = ui.add(egui::Slider::new(&mut fish, 0..=MAX_FISH).text("fish"));
    // Spawning thousands of fish per frame while dragging would be
    // wasteful: apply when the drag ends.
    if slider.drag_stopped() || (slider.changed() && !slider.dragged()) {
        settings.fish = fish;
    }
    let aim = format!(
        "when the count changes, each school's perception radius is re-sized for {} neighbours per fish",
        settings.neighbours
    );
    ui.checkbox(&mut settings.auto_radius, "radius follows the fish count").on_hover_text(aim);
    ui.label(format!(
        "perception radius {:.1}, separation {:.1}",
        config.params.perception_radius, config.params.separation_radius
    ));
}
