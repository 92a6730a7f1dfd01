//! The aquarium's sections of the kit's panel
//! ([`mirofish_kit::panel`]): the run controls (pause, step, reset, seed,
//! fish count) and the list of keys. The school's numbers, health,
//! parameters, view, inspection, the decision layer's units, tools, the
//! recorder's buttons and plots are the kit's own sections.
//!
//! Parameter changes are sent as commands, so they enter the command log
//! like every other input.

use bevy::prelude::*;
use bevy_egui::egui;
use mirofish_bevy::prelude::*;
use mirofish_kit::panel::{PanelAppExt, order};

use super::{AquariumSettings, TickStats};

/// Most fish the count slider offers.
pub const MAX_FISH: usize = 20_000;

/// Adds the aquarium's sections to the kit's panel.
pub fn add_sections(app: &mut App) {
    app.add_panel_section("run", order::STATS + 10, true, run_section).add_panel_section(
        "controls",
        order::METRICS + 50,
        true,
        controls_section,
    );
}

/// Tick time and frame rate; pause, step and reset; the seed of the next
/// reset and the number of fish.
fn run_section(
    InMut(ui): InMut<egui::Ui>,
    mut settings: ResMut<AquariumSettings>,
    stats: Res<TickStats>,
    config: Res<FlockConfig>,
) {
    ui.label(format!("tick {:.2} ms · {:.0} fps", stats.tick_ms, stats.fps));
    ui.horizontal(|ui| {
        let pause = if settings.paused { "▶ resume" } else { "⏸ pause" };
        if ui.button(pause).clicked() {
            settings.paused = !settings.paused;
        }
        if ui.add_enabled(settings.paused, egui::Button::new("step")).clicked() {
            settings.step = true;
        }
        if ui.button("reset").clicked() {
            settings.reset = true;
        }
    });
    ui.horizontal(|ui| {
        ui.label("seed");
        ui.add(egui::DragValue::new(&mut settings.seed));
        ui.label("(applies on reset)");
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

/// The keys and mouse buttons.
fn controls_section(InMut(ui): InMut<egui::Ui>) {
    for line in CONTROLS {
        ui.label(*line);
    }
}

/// The mouse and keyboard controls, as the panel lists them.
pub const CONTROLS: &[&str] = &[
    "left click: predator",
    "right click: obstacle",
    "Shift + left drag: attract",
    "Shift + right drag: repel",
    "Ctrl + left click: inspect a fish · Esc: let go",
    "C: clear predators and obstacles",
    "Space: pause · N: step · R: reset",
    "1–4: overlay items · M: colour mode · H: panel",
    "I: intent on / off",
    "W: a route waypoint at the cursor · X: no route",
    "G: the panel's school's goal at the cursor · Shift + G: none",
];
