//! The aquarium's sections of the kit's panel
//! ([`mirofish_kit::panel`]): the run controls (pause, step, reset, seed,
//! fish count), the decision layer's switch and the list of keys. The
//! school's numbers, health, parameters, view, inspection, tools, the
//! recorder's buttons and plots are the kit's own sections.
//!
//! Parameter changes are sent as commands, so they enter the command log
//! like every other input.

use bevy::prelude::*;
use bevy_egui::egui;
use mirofish_bevy::prelude::*;
use mirofish_kit::panel::{PanelAppExt, order};

use super::intent::{DecisionSettings, Decisions, IntentSettings, intent_colour};
use super::{AquariumSettings, TickStats};

/// Most fish the count slider offers.
pub const MAX_FISH: usize = 20_000;

/// Adds the aquarium's sections to the kit's panel.
pub fn add_sections(app: &mut App) {
    app.add_panel_section("run", order::STATS + 10, true, run_section)
        .add_panel_section("intent", order::INSPECT + 50, true, intent_section)
        .add_panel_section("controls", order::METRICS + 50, true, controls_section);
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

/// The decision layer's section.
fn intent_section(
    InMut(ui): InMut<egui::Ui>,
    mut intent: ResMut<IntentSettings>,
    mut deciding: ResMut<DecisionSettings>,
    decisions: Res<Decisions>,
) {
    intent_controls(ui, &mut intent, &mut deciding, &decisions);
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

/// The decision layer's switch, its units, and what the units intend.
fn intent_controls(
    ui: &mut egui::Ui,
    intent: &mut IntentSettings,
    deciding: &mut DecisionSettings,
    decisions: &Decisions,
) {
    ui.checkbox(&mut deciding.on, "schools decide where to go (I)")
        .on_hover_text("the fish split into units; each picks a region to visit, flees or hides, by rules");
    ui.add_enabled(!deciding.on, egui::Slider::new(&mut deciding.config.units, 4..=50).text("units"));
    ui.checkbox(&mut intent.show, "draw each unit's goal");
    let Some(layer) = decisions.layer.as_ref() else { return };
    // Counted by kind: every "go to" is one kind, whatever the region.
    let mut counts: Vec<(mirofish_decide::Intent, usize)> = Vec::new();
    for i in layer.intents().flatten() {
        let kind = core::mem::discriminant(&i);
        match counts.iter_mut().find(|(k, _)| core::mem::discriminant(k) == kind) {
            Some((_, n)) => *n += 1,
            None => counts.push((i, 1)),
        }
    }
    counts.sort();
    ui.horizontal_wrapped(|ui| {
        for (kind, n) in counts {
            let [r, g, b, _] = intent_colour(kind).to_srgba().to_u8_array();
            let name = match kind {
                mirofish_decide::Intent::GoTo { .. } => "travelling".to_string(),
                mirofish_decide::Intent::Flee { .. } => "fleeing".to_string(),
                other => other.to_string(),
            };
            ui.colored_label(egui::Color32::from_rgb(r, g, b), format!("{n} {name}"));
        }
    });
    let s = layer.stats();
    ui.label(format!(
        "{} decisions, {:.0} % from the cache, {} fallbacks",
        s.decisions,
        layer.cache().hit_rate() * 100.0,
        s.fallbacks
    ));
}
