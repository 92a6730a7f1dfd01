//! The egui panel: statistics, the school's health with a diagnosis, run
//! controls, every parameter of the selected school with safe ranges,
//! tools, overlay toggles and live plots of the metrics.
//!
//! Parameter changes are sent as `SetSchoolParams` commands, so they enter
//! the command log like every other input. The sliders' ranges are the
//! knobs of [`mirofish_sim::control::tuning`], every extreme of which is tested to
//! keep the simulation finite.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};
use egui_plot::{Legend, Line, Plot, PlotPoints};
use mirofish_bevy::prelude::*;
use mirofish_bevy::{FishSlot, FlockCommands, FlockMetrics};
use mirofish_kit::look::{ColourMode, FishLook, RULE_COLOURS, rule_parts};
use mirofish_kit::{Inspected, OverlaySettings, PointerOverUi, ToolSettings, report};
use mirofish_sim::control::tuning::KNOBS;
use mirofish_sim::observe::health::{Health, Mark};
use mirofish_sim::step::command::FlockCommand;
use mirofish_sim::{Preset, observe};

use super::intent::{DecisionSettings, Decisions, IntentSettings, intent_colour};
use super::session::{SessionControls, controls as session_controls};
use super::{AquariumSettings, TickStats};

/// Most fish the count slider offers.
pub const MAX_FISH: usize = 20_000;

/// Draws the panel and notes whether the pointer is over it.
#[expect(clippy::too_many_arguments, reason = "a panel shows many resources")]
pub fn panel(
    mut contexts: EguiContexts,
    mut settings: ResMut<AquariumSettings>,
    mut overlay: ResMut<OverlaySettings>,
    mut tools: ResMut<ToolSettings>,
    mut over_ui: ResMut<PointerOverUi>,
    mut commands: ResMut<FlockCommands>,
    config: Res<FlockConfig>,
    state: Res<FlockState>,
    metrics: Res<FlockMetrics>,
    stats: Res<TickStats>,
    (mut intent, mut deciding, decisions): (ResMut<IntentSettings>, ResMut<DecisionSettings>, Res<Decisions>),
    (mut inspected, slots): (ResMut<Inspected>, Query<&FishSlot>),
    (mut session, recorder): (ResMut<SessionControls>, Res<FlockRecorder>),
    mut look: ResMut<FishLook>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    over_ui.0 = ctx.is_pointer_over_egui() || ctx.egui_wants_pointer_input();
    if !settings.show_panel {
        return Ok(());
    }
    let mut send = |command: FlockCommand| {
        if let Err(e) = commands.submit(command) {
            warn!("aquarium: {e}");
        }
    };
    egui::Window::new("MiroFish aquarium")
        .default_pos([8.0, 8.0])
        .default_width(290.0)
        .default_height(680.0)
        .vscroll(true)
        .show(ctx, |ui| {
            {
                stats_grid(ui, &state, &stats);
                if let Some(err) = &state.rejected() {
                    ui.colored_label(egui::Color32::LIGHT_RED, format!("rejected: {err}"));
                }
                egui::CollapsingHeader::new("health").default_open(true).show(ui, |ui| {
                    health(ui, &metrics, &config);
                });
                ui.separator();
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
                ui.separator();
                school_controls(ui, &mut settings, &config, &mut send);
                ui.separator();
                ui.label("colour fish by");
                ui.horizontal(|ui| {
                    for mode in ColourMode::ALL {
                        ui.radio_value(&mut look.colours, mode, mode.label());
                    }
                });
                ui.collapsing("debug overlay", |ui| {
                    ui.checkbox(&mut overlay.neighbours, "1 neighbour lines");
                    ui.checkbox(&mut overlay.forces, "2 rule force arrows");
                    ui.checkbox(&mut overlay.radii, "3 perception / separation circles");
                    ui.checkbox(&mut overlay.grid, "4 neighbour grid");
                    ui.add(egui::Slider::new(&mut overlay.fish, 1..=200).text("fish shown"));
                    ui.horizontal_wrapped(|ui| {
                        for (name, colour) in RULE_COLOURS {
                            let [r, g, b, _] = colour.to_srgba().to_u8_array();
                            ui.colored_label(egui::Color32::from_rgb(r, g, b), name);
                        }
                    });
                });
                egui::CollapsingHeader::new("inspect").default_open(true).show(ui, |ui| {
                    inspect_controls(ui, &mut inspected, &state, &slots);
                });
                egui::CollapsingHeader::new("intent").default_open(true).show(ui, |ui| {
                    intent_controls(ui, &mut intent, &mut deciding, &decisions);
                });
                ui.collapsing("tools", |ui| {
                    ui.add(
                        egui::Slider::new(&mut tools.predator_fear_radius, 20.0..=400.0)
                            .text("predator fear radius"),
                    );
                    ui.add(egui::Slider::new(&mut tools.predator_speed, 50.0..=500.0).text("predator speed"));
                    ui.add(
                        egui::Slider::new(&mut tools.obstacle_radius, 5.0..=200.0).text("obstacle radius"),
                    );
                    ui.add(egui::Slider::new(&mut tools.attract_strength, 0.1..=5.0).text("drag strength"));
                    ui.add(egui::Slider::new(&mut tools.attract_radius, 50.0..=800.0).text("drag reach"));
                    if ui.button("clear predators and obstacles (C)").clicked() {
                        send(FlockCommand::ClearPredators);
                        send(FlockCommand::ClearObstacles);
                    }
                });
                egui::CollapsingHeader::new("record & replay").default_open(true).show(ui, |ui| {
                    session_controls(ui, &mut session, &recorder);
                });
                ui.collapsing("metrics", |ui| metric_plots(ui, &metrics));
                egui::CollapsingHeader::new("controls").default_open(true).show(ui, |ui| {
                    for line in CONTROLS {
                        ui.label(*line);
                    }
                });
            }
        });
    Ok(())
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

/// The inspected fish's numbers, or how to pick one.
fn inspect_controls(
    ui: &mut egui::Ui,
    inspected: &mut Inspected,
    state: &FlockState,
    slots: &Query<&FishSlot>,
) {
    let Some(fish) = inspected.fish else {
        ui.label("Ctrl + click a fish to follow its neighbours and forces");
        return;
    };
    let Some(r) = report(state, fish, slots.get(fish).ok()) else {
        ui.label("the inspected fish is gone");
        return;
    };
    ui.horizontal(|ui| {
        ui.checkbox(&mut inspected.follow, "camera follows");
        if ui.button("let go (Esc)").clicked() {
            inspected.fish = None;
        }
    });
    let heading = r.velocity.y.atan2(r.velocity.x).to_degrees();
    let mut lines = vec![
        format!("school {}{}", r.school, if r.leader { ", leader" } else { "" }),
        format!(
            "at ({:.0}, {:.0}), speed {:.1}, heading {heading:.0}°",
            r.position.x,
            r.position.y,
            r.velocity.length()
        ),
        format!("fear {:.2}, group {}", r.fear, r.group.map_or("none".into(), |g| g.to_string())),
    ];
    if let Some(s) = r.forces {
        lines.push(format!("{} neighbours", s.neighbours));
    }
    for line in lines {
        ui.label(line);
    }
    if let Some(s) = r.forces {
        ui.horizontal_wrapped(|ui| {
            for (force, (name, colour)) in rule_parts(&s.rules).into_iter().zip(RULE_COLOURS) {
                let [red, g, b, _] = colour.to_srgba().to_u8_array();
                ui.colored_label(egui::Color32::from_rgb(red, g, b), format!("{name} {:.0}", force.length()));
            }
        });
    }
}

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

fn stats_grid(ui: &mut egui::Ui, state: &FlockState, stats: &TickStats) {
    let flock = &state.flock();
    egui::Grid::new("stats").num_columns(2).show(ui, |ui| {
        let mut row = |name: &str, value: String| {
            ui.label(name);
            ui.label(value);
            ui.end_row();
        };
        row("fish", flock.len().to_string());
        row("tick", flock.tick().to_string());
        row("mean neighbours", format!("{:.1}", observe::mean_neighbours(flock)));
        row("mean speed", format!("{:.1}", observe::mean_speed(flock.velocities())));
        row("polarization", format!("{:.2}", observe::polarization(flock.velocities())));
        row("tick time", format!("{:.2} ms", stats.tick_ms));
        row("frame rate", format!("{:.0} fps", stats.fps));
    });
}

/// Each measure of the latest metrics sample with a green (natural),
/// yellow-green (acceptable), amber or red mark, and the diagnosis.
fn health(ui: &mut egui::Ui, metrics: &FlockMetrics, config: &FlockConfig) {
    let health = Health::assess(metrics.log().rows(), &config.params, &config.tank);
    if health.checks.is_empty() {
        ui.label("no sample yet");
        return;
    }
    egui::Grid::new("health").num_columns(3).show(ui, |ui| {
        for check in &health.checks {
            let colour = match check.mark {
                Mark::Good => egui::Color32::from_rgb(90, 200, 110),
                Mark::Acceptable => egui::Color32::from_rgb(180, 210, 80),
                Mark::Borderline => egui::Color32::from_rgb(235, 180, 60),
                Mark::Bad => egui::Color32::from_rgb(235, 85, 70),
            };
            // A painted dot: the default font has no bullet glyph.
            let (dot, response) = ui.allocate_exact_size(egui::vec2(12.0, 12.0), egui::Sense::hover());
            ui.painter().circle_filled(dot.center(), 5.0, colour);
            response.on_hover_text(check.mark.to_string());
            ui.label(check.name);
            let (natural, acceptable) = (check.bands.natural, check.bands.acceptable);
            ui.label(if natural == acceptable {
                format!("{:.2}  ({}–{})", check.value, natural.0, natural.1)
            } else {
                format!(
                    "{:.2}  ({}–{}, or {}–{})",
                    check.value, natural.0, natural.1, acceptable.0, acceptable.1
                )
            });
            ui.end_row();
        }
    });
    if health.symptoms.is_empty() {
        ui.label(match health.worst() {
            Mark::Good => "looks natural",
            Mark::Acceptable => "a school, looser than a natural one",
            _ => "no symptom recognised: see the marks",
        });
    }
    for symptom in &health.symptoms {
        ui.label(egui::RichText::new(symptom.description()).strong());
        ui.label(format!("fix: {}", symptom.fix()));
    }
}

fn school_controls(
    ui: &mut egui::Ui,
    settings: &mut AquariumSettings,
    config: &FlockConfig,
    send: &mut impl FnMut(FlockCommand),
) {
    let table = config.school_table();
    ui.horizontal(|ui| {
        ui.label("school");
        for school in 0..table.len() as u16 {
            let [r, g, b] = config.colour_of(school).map(|c| (c * 255.0) as u8);
            let text =
                egui::RichText::new(school.to_string()).color(egui::Color32::from_rgb(r, g, b)).strong();
            ui.radio_value(&mut settings.school, school, text);
        }
    });
    let school = settings.school.min(table.len() as u16 - 1);
    let mut params = table[usize::from(school)];
    let before = params;
    egui::ComboBox::from_label("preset").selected_text("choose…").show_ui(ui, |ui| {
        for preset in Preset::all() {
            if ui.selectable_label(false, preset.name).on_hover_text(preset.description).clicked() {
                params = preset.params;
            }
        }
    });
    let mut boundary = config.tank.boundary;
    egui::ComboBox::from_label("walls").selected_text(format!("{boundary:?}")).show_ui(ui, |ui| {
        for mode in [BoundaryMode::SoftMargin, BoundaryMode::Bounce, BoundaryMode::Wrap] {
            ui.selectable_value(&mut boundary, mode, format!("{mode:?}"));
        }
    });
    if boundary != config.tank.boundary {
        send(FlockCommand::SetBoundary(boundary));
    }
    knob_sliders(ui, &mut params);
    if params != before {
        send(FlockCommand::SetSchoolParams { school, params });
    }
}

/// A slider for every parameter of a school, grouped, within the ranges
/// the property tests cover ([`KNOBS`]), and its two switches.
pub fn knob_sliders(ui: &mut egui::Ui, params: &mut FlockParams) {
    let mut group = "";
    for knob in &KNOBS {
        if knob.group != group {
            group = knob.group;
            ui.label(egui::RichText::new(group).strong());
        }
        let mut value = (knob.get)(params);
        if ui.add(egui::Slider::new(&mut value, knob.min..=knob.max).text(knob.name)).changed() {
            knob.set_clamped(params, value);
        }
    }
    ui.checkbox(&mut params.match_speed, "alignment matches speed");
    ui.checkbox(&mut params.sees_other_schools, "sees other schools");
}

fn metric_plots(ui: &mut egui::Ui, metrics: &FlockMetrics) {
    let log = metrics.log();
    let series = |name: &str| -> Vec<[f64; 2]> {
        let Some(column) = mirofish_sim::observe::metrics::COLUMNS.iter().position(|c| *c == name) else {
            return Vec::new();
        };
        log.rows().iter().filter_map(|row| Some([row.tick as f64 / 60.0, row.values()[column]?])).collect()
    };
    Plot::new("order").height(130.0).include_y(0.0).include_y(1.0).legend(Legend::default()).show(
        ui,
        |plot| {
            plot.line(Line::new("polarization", PlotPoints::from(series("polarization"))));
            plot.line(Line::new("milling", PlotPoints::from(series("milling"))));
        },
    );
    Plot::new("spacing").height(110.0).include_y(0.0).legend(Legend::default()).show(ui, |plot| {
        plot.line(Line::new("nearest neighbour", PlotPoints::from(series("nearest_neighbour"))));
        plot.line(Line::new("neighbours", PlotPoints::from(series("mean_neighbours"))));
    });
    ui.label("time axis in seconds of simulation");
}
