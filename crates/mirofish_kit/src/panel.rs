//! The tuning and health panel (the `panel` feature): one egui window with
//! the school's numbers and health, every parameter of each school within
//! the ranges the property tests cover, and switches for the kit's other
//! plugins where they are added.
//!
//! ```no_run
//! use bevy::prelude::*;
//! use mirofish_bevy::prelude::*;
//! use mirofish_kit::prelude::*;
//!
//! App::new()
//!     .add_plugins((DefaultPlugins, MiroFishPlugin::default(), FishLookPlugin))
//!     .add_plugins(TuningPanelPlugin)
//!     .add_systems(Startup, |mut commands: Commands| {
//!         commands.spawn(Camera2d);
//!         commands.queue(SpawnSchool::new(500));
//!     })
//!     .run();
//! ```
//!
//! The panel is made of *sections*, each a system that draws into the
//! window ([`PanelAppExt::add_panel_section`]), in the order of their
//! [`PanelSection::order`]; the kit's own are at the orders of [`order`].
//! A game adds its own the same way, so that its controls share the
//! window:
//!
//! ```no_run
//! use bevy::prelude::*;
//! use mirofish_kit::panel::{PanelAppExt, egui, order};
//!
//! fn greeting(InMut(ui): InMut<egui::Ui>) {
//!     ui.label("hello from the game");
//! }
//! # fn build(app: &mut App) {
//! app.add_panel_section("game", order::STATS + 1, true, greeting);
//! # }
//! ```
//!
//! Every change a section makes to the school is a command
//! ([`FlockCommands`]): it enters the command log like every other input,
//! so a recorded session with the panel's changes replays without it.

use bevy::ecs::system::SystemId;
use bevy::prelude::*;
/// The egui crate the panel draws with (`bevy_egui`'s), for a game's own
/// sections.
pub use bevy_egui::egui;
use bevy_egui::{EguiContext, EguiPlugin, EguiPrimaryContextPass, PrimaryEguiContext};
use egui_plot::{Legend, Line, Plot, PlotPoints};
use mirofish_bevy::prelude::*;
use mirofish_bevy::volume::Flock3dState;
use mirofish_bevy::{FishId, FlockCommands, FlockConfigOf, FlockMetrics, FlockRecorderOf, Session, Space};
use mirofish_sim::RunConfig;
use mirofish_sim::control::replay::Scenario;
use mirofish_sim::control::tuning::KNOBS;
use mirofish_sim::observe::health::{Health, Mark};
use mirofish_sim::observe::metrics::{COLUMNS, Metrics};
use mirofish_sim::space::VolumeCommand;
use mirofish_sim::step::command::FlockCommand;
use mirofish_sim::{Preset, observe};

use crate::look::{ColourMode, FishLook, RULE_COLOURS, rule_parts};
use crate::overlay::OverlaySettings;
use crate::recorder::{Ask, RecorderControls, session_words};
use crate::tools::{Inspected, PointerOverUi, ToolSettings, report};

/// The orders of the kit's own sections (lower first); a game's section
/// goes between two of them.
pub mod order {
    /// Fish, tick, neighbours, speed, polarization.
    pub const STATS: i32 = 0;
    /// The tick's and frame's timings, pause, step and restart.
    pub const RUN: i32 = 50;
    /// The health check's marks and diagnosis.
    pub const HEALTH: i32 = 100;
    /// The school chosen, its preset, the walls and every parameter.
    pub const SCHOOL: i32 = 200;
    /// The fish's colours and the debug overlay's switches.
    pub const VIEW: i32 = 300;
    /// The fish being inspected.
    pub const INSPECT: i32 = 400;
    /// The decision layer's switch, units and intents.
    pub const DECISIONS: i32 = 450;
    /// The mouse tools' sizes and strengths.
    pub const TOOLS: i32 = 500;
    /// The recorder's buttons.
    pub const RECORD: i32 = 550;
    /// Plots of the school's order and spacing over time.
    pub const METRICS: i32 = 600;
    /// The mouse's buttons and the keyboard's shortcuts.
    pub const KEYS: i32 = 700;
}

/// What the panel shows.
#[derive(Resource, Clone, Debug, PartialEq)]
pub struct PanelSettings {
    /// Whether the window is shown.
    pub show: bool,
    /// The window's title.
    pub title: String,
    /// The school whose parameters the panel edits.
    pub school: u16,
}

impl Default for PanelSettings {
    fn default() -> Self {
        Self { show: true, title: "MiroFish".into(), school: 0 }
    }
}

/// One section of the panel: a system that draws into the window.
#[derive(Clone, Debug)]
pub struct PanelSection {
    /// Its heading (it folds away under it); empty: drawn without one.
    pub name: &'static str,
    /// Where it goes: lower first ([`order`]).
    pub order: i32,
    /// Whether it starts unfolded.
    pub open: bool,
    /// The system that draws it.
    pub system: SystemId<InMut<'static, egui::Ui>>,
    /// Shown only where this holds (e.g. a resource of another plugin
    /// exists).
    pub shown: fn(&World) -> bool,
}

/// The panel's sections, in order.
#[derive(Resource, Default, Debug)]
pub struct PanelSections(Vec<PanelSection>);

impl PanelSections {
    /// The sections, in the order they are drawn.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &PanelSection> + '_ {
        self.0.iter()
    }
}

/// Adds sections to the panel.
pub trait PanelAppExt {
    /// Adds `system` as a section of the panel named `name` at `order`,
    /// unfolded if `open`.
    fn add_panel_section<M>(
        &mut self,
        name: &'static str,
        order: i32,
        open: bool,
        system: impl IntoSystem<InMut<'static, egui::Ui>, (), M> + 'static,
    ) -> &mut Self;
}

impl PanelAppExt for App {
    fn add_panel_section<M>(
        &mut self,
        name: &'static str,
        order: i32,
        open: bool,
        system: impl IntoSystem<InMut<'static, egui::Ui>, (), M> + 'static,
    ) -> &mut Self {
        add_section(self, name, order, open, system, |_| true)
    }
}

fn add_section<'a, M>(
    app: &'a mut App,
    name: &'static str,
    order: i32,
    open: bool,
    system: impl IntoSystem<InMut<'static, egui::Ui>, (), M> + 'static,
    shown: fn(&World) -> bool,
) -> &'a mut App {
    let system = app.world_mut().register_system(system);
    let mut sections = app.world_mut().get_resource_or_init::<PanelSections>();
    let at = sections.0.partition_point(|s| s.order <= order);
    sections.0.insert(at, PanelSection { name, order, open, system, shown });
    app
}

/// The tuning and health panel ([`PanelSettings`], [`PanelSections`]).
/// Add it after Bevy's renderer (`DefaultPlugins`): it then adds
/// `bevy_egui`'s plugin if the app has not. Without a renderer (a headless
/// app) the sections and settings exist and nothing is drawn.
pub struct TuningPanelPlugin;

impl Plugin for TuningPanelPlugin {
    fn build(&self, app: &mut App) {
        if app.is_plugin_added::<bevy::render::RenderPlugin>() && !app.is_plugin_added::<EguiPlugin>() {
            app.add_plugins(EguiPlugin::default());
        }
        app.init_resource::<PanelSettings>()
            .init_resource::<PanelSections>()
            .init_resource::<PointerOverUi>()
            .add_systems(EguiPrimaryContextPass, draw_panel);
        // A plane's sections where its plugin runs, a volume's where its
        // plugin does.
        let plane = |w: &World| w.contains_resource::<FlockState>();
        let volume = |w: &World| w.contains_resource::<Flock3dState>();
        add_section(app, "", order::STATS, true, stats_section, plane);
        add_section(app, "", order::STATS, true, volume_stats_section, volume);
        add_section(app, "run", order::RUN, true, crate::run::run_section, |w| {
            w.contains_resource::<crate::run::RunControls>()
        });
        add_section(app, "health", order::HEALTH, true, health_section::<Vec2>, plane);
        add_section(app, "health", order::HEALTH, true, health_section::<Vec3>, volume);
        add_section(app, "school", order::SCHOOL, true, school_section, plane);
        add_section(app, "school", order::SCHOOL, true, volume_school_section, volume);
        add_section(app, "view", order::VIEW, false, view_section, |w| {
            w.contains_resource::<FishLook>() || w.contains_resource::<OverlaySettings>()
        });
        add_section(app, "inspect", order::INSPECT, true, inspect_section, |w| {
            w.contains_resource::<Inspected>() && w.contains_resource::<FlockState>()
        });
        add_section(app, "inspect", order::INSPECT, true, volume_inspect_section, |w| {
            w.contains_resource::<Inspected>() && w.contains_resource::<Flock3dState>()
        });
        #[cfg(feature = "decide")]
        add_section(app, "decisions", order::DECISIONS, true, decisions_section::<Vec2>, |w| {
            w.contains_resource::<mirofish_decide::plugin::Decisions>()
        });
        #[cfg(feature = "decide")]
        add_section(app, "decisions", order::DECISIONS, true, decisions_section::<Vec3>, |w| {
            w.contains_resource::<mirofish_decide::plugin::Decisions<Vec3>>()
        });
        add_section(app, "tools", order::TOOLS, false, tools_section, |w| {
            w.contains_resource::<ToolSettings>()
        });
        add_section(app, "record & replay", order::RECORD, true, record_section::<Vec2>, |w| {
            w.contains_resource::<RecorderControls>() && w.contains_resource::<FlockState>()
        });
        add_section(app, "record & replay", order::RECORD, true, record_section::<Vec3>, |w| {
            w.contains_resource::<RecorderControls>() && w.contains_resource::<Flock3dState>()
        });
        add_section(app, "metrics", order::METRICS, false, metrics_section, |w| {
            w.contains_resource::<FlockMetrics>()
        });
        add_section(app, "keys", order::KEYS, false, crate::keys::keys_section, |w| {
            w.contains_resource::<crate::keys::Shortcuts>() || w.contains_resource::<ToolSettings>()
        });
    }
}

/// Draws the window with every section shown, and notes whether the
/// pointer is over it ([`PointerOverUi`], which the mouse tools heed).
fn draw_panel(world: &mut World) {
    let mut contexts = world.query_filtered::<&mut EguiContext, With<PrimaryEguiContext>>();
    // A clone shares the context: the sections below need the world.
    let Some(ctx) = contexts.iter_mut(world).next().map(|mut c| c.get_mut().clone()) else { return };
    let over = ctx.is_pointer_over_egui() || ctx.egui_wants_pointer_input();
    world.get_resource_or_init::<PointerOverUi>().0 = over;
    let settings = world.resource::<PanelSettings>().clone();
    if !settings.show {
        return;
    }
    egui::Window::new(settings.title)
        .default_pos([8.0, 8.0])
        .default_width(290.0)
        .default_height(680.0)
        .vscroll(true)
        .show(&ctx, |ui| draw_sections(world, ui));
}

/// Draws every section shown ([`PanelSections`]) into `ui`, in order,
/// each under its heading: what the panel's window holds. Call it to put
/// the panel's sections in an egui container of your own.
pub fn draw_sections(world: &mut World, ui: &mut egui::Ui) {
    let Some(sections) = world.get_resource::<PanelSections>() else { return };
    let sections: Vec<PanelSection> = sections.iter().filter(|s| (s.shown)(world)).cloned().collect();
    for section in &sections {
        let mut draw = |ui: &mut egui::Ui| {
            if let Err(e) = world.run_system_with(section.system, ui) {
                log::warn!("panel section {:?}: {e}", section.name);
            }
        };
        if section.name.is_empty() {
            draw(ui);
        } else {
            egui::CollapsingHeader::new(section.name).default_open(section.open).show(ui, draw);
        }
    }
}

/// The school's numbers: fish, tick, neighbours, speed and polarization.
pub fn stats_section(InMut(ui): InMut<egui::Ui>, state: Res<FlockState>) {
    let flock = state.flock();
    egui::Grid::new("mirofish stats").num_columns(2).show(ui, |ui| {
        let mut row = |name: &str, value: String| {
            ui.label(name);
            ui.label(value);
            ui.end_row();
        };
        row("fish", flock.len().to_string());
        row("tick", flock.tick().to_string());
        row("mean neighbours", format!("{:.1}", observe::mean_neighbours(flock.neighbour_counts())));
        row("mean speed", format!("{:.1}", observe::mean_speed(flock.velocities())));
        row("polarization", format!("{:.2}", observe::polarization(flock.velocities())));
    });
    if let Some(err) = state.rejected() {
        ui.colored_label(egui::Color32::LIGHT_RED, format!("rejected: {err}"));
    }
}

/// Each measure of the latest metrics sample with a green (natural),
/// yellow-green (acceptable), amber or red mark, and the diagnosis, on a
/// plane (`health_section::<Vec2>`) or in a volume (`::<Vec3>`).
pub fn health_section<V: Space>(
    InMut(ui): InMut<egui::Ui>,
    metrics: Res<FlockMetrics>,
    config: Res<FlockConfigOf<V>>,
) {
    health_ui(ui, &Health::assess(metrics.log().rows(), &config.params, &config.tank));
}

/// A health check's marks and diagnosis ([`Health::assess`], of a school
/// on a plane or in a volume), as the panel's health section draws them.
pub fn health_ui(ui: &mut egui::Ui, health: &Health) {
    if health.checks.is_empty() {
        ui.label("no sample yet");
        return;
    }
    egui::Grid::new("mirofish health").num_columns(3).show(ui, |ui| {
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

/// The school the panel edits, a preset to start from, the walls, and a
/// slider for every parameter; each change is sent as a command.
pub fn school_section(
    InMut(ui): InMut<egui::Ui>,
    mut settings: ResMut<PanelSettings>,
    config: Res<FlockConfig>,
    mut commands: ResMut<FlockCommands>,
) {
    let mut send = |command: FlockCommand| {
        if let Err(e) = commands.submit(command) {
            log::warn!("panel: {e}");
        }
    };
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
    let school = settings.school.min(table.len().saturating_sub(1) as u16);
    let Some(&before) = table.get(usize::from(school)) else { return };
    let mut params = before;
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

/// How the fish are coloured ([`FishLook`]) and the debug overlay's
/// switches ([`OverlaySettings`]), where those plugins are added.
pub fn view_section(
    InMut(ui): InMut<egui::Ui>,
    look: Option<ResMut<FishLook>>,
    overlay: Option<ResMut<OverlaySettings>>,
) {
    if let Some(mut look) = look {
        ui.label("colour fish by");
        ui.horizontal(|ui| {
            for mode in ColourMode::ALL {
                ui.radio_value(&mut look.colours, mode, mode.label());
            }
        });
    }
    if let Some(mut overlay) = overlay {
        ui.label("debug overlay");
        ui.checkbox(&mut overlay.neighbours, "neighbour lines");
        ui.checkbox(&mut overlay.forces, "rule force arrows");
        ui.checkbox(&mut overlay.radii, "perception / separation circles");
        ui.checkbox(&mut overlay.grid, "neighbour grid");
        ui.add(egui::Slider::new(&mut overlay.fish, 1..=200).text("fish shown"));
        ui.horizontal_wrapped(|ui| {
            for (name, colour) in RULE_COLOURS {
                ui.colored_label(egui_colour(colour), name);
            }
        });
    }
}

/// The inspected fish's numbers ([`Inspected`]), or how to pick one.
pub fn inspect_section(
    InMut(ui): InMut<egui::Ui>,
    inspected: Option<ResMut<Inspected>>,
    state: Res<FlockState>,
    slots: Query<&FishId>,
) {
    let Some(mut inspected) = inspected else { return };
    let Some(fish) = inspected.fish else {
        ui.label("Ctrl + click a fish to follow its neighbours and forces");
        return;
    };
    let Some(r) = report(&state, fish, slots.get(fish).ok()) else {
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
    ui.label(format!("school {}{}", r.school, if r.leader { ", leader" } else { "" }));
    ui.label(format!(
        "at ({:.0}, {:.0}), speed {:.1}, heading {heading:.0}°",
        r.position.x,
        r.position.y,
        r.velocity.length()
    ));
    ui.label(format!("fear {:.2}, group {}", r.fear, r.group.map_or("none".into(), |g| g.to_string())));
    if let Some(s) = r.forces {
        ui.label(format!("{} neighbours", s.neighbours));
        ui.horizontal_wrapped(|ui| {
            for (force, (name, colour)) in rule_parts(&s.rules).into_iter().zip(RULE_COLOURS) {
                ui.colored_label(egui_colour(colour), format!("{name} {:.0}", force.length()));
            }
        });
    }
}

/// The inspected fish in a volume (the 3D mouse tools' Ctrl + click): its
/// school, place, speed, fear, group, neighbours and each rule's force
/// (where the core keeps them: the 3D overlay has it keep them while a
/// fish is inspected).
pub fn volume_inspect_section(
    InMut(ui): InMut<egui::Ui>,
    inspected: Option<ResMut<Inspected>>,
    state: Res<Flock3dState>,
    ids: Query<&FishId>,
) {
    let Some(mut inspected) = inspected else { return };
    let Some(fish) = inspected.fish else {
        ui.label("Ctrl + click a fish to follow its neighbours and forces");
        return;
    };
    let flock = state.flock();
    let Some((id, slot)) = crate::overlay3d::fish_slot3d(&state, fish, &ids) else {
        ui.label("the inspected fish is gone");
        return;
    };
    if ui.button("let go (Esc)").clicked() {
        inspected.fish = None;
    }
    let (p, v) = (flock.positions()[slot], flock.velocities()[slot]);
    let leads = flock.leaders().get(slot).copied().unwrap_or(false);
    ui.label(format!("fish {id}, school {}{}", flock.schools()[slot], if leads { ", leader" } else { "" }));
    ui.label(format!("at ({:.0}, {:.0}, {:.0}), speed {:.1}", p.x, p.y, p.z, v.length()));
    let group = flock.group_of(id).map_or("none".into(), |g| g.to_string());
    ui.label(format!("fear {:.2}, group {group}", flock.fears()[slot]));
    if let Some(n) = flock.neighbours_at(slot) {
        ui.label(format!("{n} neighbours"));
    }
    if let Some(rules) = flock.sample(slot).map(|s| s.rules) {
        ui.horizontal_wrapped(|ui| {
            for (force, (name, colour)) in rule_parts(&rules).into_iter().zip(RULE_COLOURS) {
                ui.colored_label(egui_colour(colour), format!("{name} {:.0}", force.length()));
            }
        });
    }
}

/// The decision layer's switch and units
/// ([`mirofish_decide::plugin::DecisionSettings`]), whether the overlay
/// draws their goals, how many units intend what, and the layer's counts.
/// (`Decisions` on a plane; the same section over `Decisions<Vec3>` in a
/// volume.)
#[cfg(feature = "decide")]
pub fn decisions_section<V: mirofish_sim::Vector>(
    InMut(ui): InMut<egui::Ui>,
    settings: Option<ResMut<mirofish_decide::plugin::DecisionSettings>>,
    decisions: Res<mirofish_decide::plugin::Decisions<V>>,
    overlay: Option<ResMut<OverlaySettings>>,
) {
    use mirofish_decide::Intent;
    if let Some(mut settings) = settings {
        ui.checkbox(&mut settings.on, "schools decide where to go")
            .on_hover_text("the fish split into units; each picks a region to visit, flees or hides");
        let on = settings.on;
        ui.add_enabled(!on, egui::Slider::new(&mut settings.config.units, 4..=50).text("units"));
    }
    if let Some(mut overlay) = overlay {
        ui.checkbox(&mut overlay.unit_goals, "draw each unit's goal");
    }
    let Some(layer) = decisions.layer.as_ref() else { return };
    ui.horizontal_wrapped(|ui| {
        for (kind, n) in crate::decisions::intent_counts(&decisions) {
            let name = match kind {
                Intent::GoTo { .. } => "travelling".to_string(),
                Intent::Flee { .. } => "fleeing".to_string(),
                Intent::Own { name, .. } => name.to_string(),
                other => other.to_string(),
            };
            ui.colored_label(egui_colour(crate::decisions::intent_colour(kind)), format!("{n} {name}"));
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

/// The mouse tools' sizes and strengths ([`ToolSettings`]), and a button
/// that clears the predators and rocks.
pub fn tools_section(
    InMut(ui): InMut<egui::Ui>,
    tools: Option<ResMut<ToolSettings>>,
    mut commands: ResMut<FlockCommands>,
) {
    let Some(mut tools) = tools else { return };
    ui.add(egui::Slider::new(&mut tools.predator_fear_radius, 20.0..=400.0).text("predator fear radius"));
    ui.add(egui::Slider::new(&mut tools.predator_speed, 50.0..=500.0).text("predator speed"));
    ui.add(egui::Slider::new(&mut tools.obstacle_radius, 5.0..=200.0).text("obstacle radius"));
    ui.add(egui::Slider::new(&mut tools.attract_strength, 0.1..=5.0).text("drag strength"));
    ui.add(egui::Slider::new(&mut tools.attract_radius, 50.0..=800.0).text("drag reach"));
    if ui.button("clear predators and obstacles").clicked() {
        for command in [FlockCommand::ClearPredators, FlockCommand::ClearObstacles] {
            if let Err(e) = commands.submit(command) {
                log::warn!("panel: {e}");
            }
        }
    }
}

/// The recorder's buttons, in either space: record (restarting from the
/// start configuration), stop (and save), replay the last recording, save
/// the running configuration; how the session stands and what the last
/// press did.
pub fn record_section<V: Space>(
    InMut(ui): InMut<egui::Ui>,
    controls: Option<ResMut<RecorderControls>>,
    recorder: Res<FlockRecorderOf<V>>,
) where
    RunConfig<V>: Scenario,
{
    let Some(mut controls) = controls else { return };
    ui.label(session_words(recorder.session()));
    // The space's last recording, which the replay button plays (looked
    // at, not changed).
    let has_last = controls.bypass_change_detection().last_of::<V>().is_some();
    ui.horizontal(|ui| {
        let busy = matches!(recorder.session(), Session::Recording | Session::Replaying);
        if ui.add_enabled(!busy, egui::Button::new("● record")).on_hover_text("restarts the school").clicked()
        {
            controls.asked = Some(Ask::Record);
        }
        if ui
            .add_enabled(busy, egui::Button::new("■ stop"))
            .on_hover_text("ends the session and saves it")
            .clicked()
        {
            controls.asked = Some(Ask::Stop);
        }
        if ui.add_enabled(!busy && has_last, egui::Button::new("▶ replay")).clicked() {
            controls.asked = Some(Ask::Replay);
        }
        if ui.button("save config").clicked() {
            controls.asked = Some(Ask::SaveConfig);
        }
    });
    if !controls.message.is_empty() {
        ui.label(&controls.message);
    }
}

/// The school's order (polarization, milling) and spacing (nearest
/// neighbour, neighbours) over simulated time, from [`FlockMetrics`].
pub fn metrics_section(
    InMut(ui): InMut<egui::Ui>,
    metrics: Res<FlockMetrics>,
    fixed: Option<Res<Time<Fixed>>>,
) {
    plot_rows(ui, metrics.log().rows(), fixed.as_deref());
}

/// The plots of [`metrics_section`] over `rows`, time in seconds of the
/// fixed step.
fn plot_rows(ui: &mut egui::Ui, rows: &[Metrics], fixed: Option<&Time<Fixed>>) {
    // Seconds per tick: the fixed step the school ticks at.
    let seconds = fixed.map_or(1.0 / 60.0, |time| time.timestep().as_secs_f64());
    let series = |name: &str| -> Vec<[f64; 2]> {
        let Some(column) = COLUMNS.iter().position(|c| *c == name) else { return Vec::new() };
        rows.iter().filter_map(|row| Some([row.tick as f64 * seconds, row.values()[column]?])).collect()
    };
    Plot::new("mirofish order").height(130.0).include_y(0.0).include_y(1.0).legend(Legend::default()).show(
        ui,
        |plot| {
            plot.line(Line::new("polarization", PlotPoints::from(series("polarization"))));
            plot.line(Line::new("milling", PlotPoints::from(series("milling"))));
        },
    );
    Plot::new("mirofish spacing").height(110.0).include_y(0.0).legend(Legend::default()).show(ui, |plot| {
        plot.line(Line::new("nearest neighbour", PlotPoints::from(series("nearest_neighbour"))));
        plot.line(Line::new("neighbours", PlotPoints::from(series("mean_neighbours"))));
    });
    ui.label("time axis in seconds of simulation");
}

/// A volume's numbers: fish, tick, neighbours, speed, polarization and
/// milling (of the latest sample).
pub fn volume_stats_section(
    InMut(ui): InMut<egui::Ui>,
    state: Res<Flock3dState>,
    metrics: Res<FlockMetrics>,
) {
    egui::Grid::new("mirofish volume stats").num_columns(2).show(ui, |ui| {
        let mut row = |name: &str, value: String| {
            ui.label(name);
            ui.label(value);
            ui.end_row();
        };
        row("fish", state.flock().len().to_string());
        row("tick", state.flock().tick().to_string());
        if let Some(m) = metrics.latest() {
            row("mean neighbours", format!("{:.1}", m.mean_neighbours));
            row("mean speed", format!("{:.1}", m.mean_speed));
            row("polarization", format!("{:.2}", m.polarization));
            row("milling", format!("{:.2}", m.milling));
        }
    });
}

/// A volume's school the panel edits, its walls and a slider for every
/// parameter (while the weighted rules move it: under Couzin's zones, a
/// note instead); each change is sent to the core as a command.
pub fn volume_school_section(
    InMut(ui): InMut<egui::Ui>,
    mut settings: ResMut<PanelSettings>,
    (state, mut queue): (Res<Flock3dState>, ResMut<FlockCommands<Vec3>>),
) {
    let schools = state.flock().params().len();
    if schools > 1 {
        ui.horizontal(|ui| {
            ui.label("school");
            for school in 0..schools as u16 {
                ui.radio_value(&mut settings.school, school, school.to_string());
            }
        });
    }
    let school = settings.school.min(schools.saturating_sub(1) as u16);
    let Some(&applied) = state.flock().params().get(usize::from(school)) else { return };
    // The sliders show a change still waiting for its tick, not the value
    // in force, or a drag would jump back between ticks.
    let before = queue
        .pending()
        .iter()
        .filter_map(|s| match s.command {
            VolumeCommand::SetSchoolParams { school: to, params } if to == school => Some(params),
            VolumeCommand::SetParams(params) if school == 0 => Some(params),
            _ => None,
        })
        .last()
        .unwrap_or(applied);
    let mut params = before;
    let mut boundary = state.flock().tank().boundary;
    egui::ComboBox::from_label("walls").selected_text(format!("{boundary:?}")).show_ui(ui, |ui| {
        for mode in [BoundaryMode::SoftMargin, BoundaryMode::Bounce, BoundaryMode::Wrap] {
            ui.selectable_value(&mut boundary, mode, format!("{mode:?}"));
        }
    });
    // Under Couzin's zones the rules' knobs move nothing: say so instead.
    if state.flock().zones().is_some() {
        ui.label("Couzin's zones move these fish: the rules' knobs apply when the zones are off");
    } else {
        knob_sliders(ui, &mut params);
    }
    let walls_changed = boundary != state.flock().tank().boundary;
    let mut send = |command: VolumeCommand| {
        if let Err(e) = queue.submit(command) {
            log::warn!("panel: {e}");
        }
    };
    if walls_changed {
        send(VolumeCommand::SetBoundary(boundary));
    }
    if params != before {
        send(VolumeCommand::SetSchoolParams { school, params });
    }
}

/// A Bevy colour as egui's.
fn egui_colour(colour: Color) -> egui::Color32 {
    let [r, g, b, _] = colour.to_srgba().to_u8_array();
    egui::Color32::from_rgb(r, g, b)
}
