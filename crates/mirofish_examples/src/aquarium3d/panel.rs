//! The 3D aquarium's panel: the school's order parameters and the
//! collective state they name, live plots of polarization and milling, the
//! weighted rules' knobs for each school, and Couzin's zone model with a
//! start for each of its four states.
//!
//! Couzin's states show best with a few hundred fish started in a ball, as
//! in the paper: a preset restarts the volume that way ([`LoadVolume3d`]);
//! the orientation zone's slider then walks the school between the states
//! live, and back — where a school coming down from parallel stays
//! parallel at a width that turned a swarm into a torus.

use std::collections::VecDeque;

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPlugin, EguiPrimaryContextPass, egui};
use egui_plot::{Legend, Line, Plot, PlotPoints};
use mirofish_bevy::volume::*;
use mirofish_sim::control::volume::Ball;
use mirofish_sim::observe::health::Health;
use mirofish_sim::space::{CollectiveState, SwarmMetrics, VolumeCommand, Zones};
use mirofish_sim::{FlockParams, Metrics, VolumeConfig, VolumeSchool};

use mirofish_kit::panel::{health_ui, knob_sliders};

/// Fish in a start for one of Couzin's states.
pub const COUZIN_FISH: usize = 300;
/// Plot history kept (samples, ten a second).
const HISTORY: usize = 1200;
/// Where the panel saves a session's replay (in the working folder).
pub const REPLAY_FILE: &str = "aquarium3d.replay";

/// Couzin's zones for the aquarium's fish with an orientation zone
/// `orientation_width` wide (in the paper's lengths × 10, as
/// [`Zones::default`]): the paper's lengths and speed doubled for fish
/// 22 units long, and the noise made smaller for 60 ticks a second instead
/// of 10 (the same spread of headings per second).
pub fn aquarium_zones(orientation_width: f32) -> Zones {
    const SCALE: f32 = 2.0;
    let paper = Zones::default();
    Zones {
        repulsion: paper.repulsion * SCALE,
        orientation_width: orientation_width * SCALE,
        attraction_width: paper.attraction_width * SCALE,
        speed: paper.speed * SCALE,
        noise: paper.noise * (10.0f32 / 60.0).sqrt(),
        ..paper
    }
}

/// A way to start the volume.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// The weighted rules: two schools spread over the tank.
    Rules,
    /// Couzin's zones, [`COUZIN_FISH`] fish started in a ball, with the
    /// orientation zone of the given state.
    Couzin(CollectiveState),
}

impl Start {
    /// Every start, in the panel's order.
    pub const ALL: [Start; 5] = [
        Start::Rules,
        Start::Couzin(CollectiveState::Swarm),
        Start::Couzin(CollectiveState::Torus),
        Start::Couzin(CollectiveState::DynamicParallel),
        Start::Couzin(CollectiveState::HighlyParallel),
    ];

    /// The orientation zone's width (paper × 10) that forms this state
    /// from a ball of fish in the aquarium's tank.
    pub fn orientation_width(self) -> Option<f32> {
        match self {
            Start::Rules => None,
            Start::Couzin(CollectiveState::Swarm) => Some(0.0),
            Start::Couzin(CollectiveState::Torus) => Some(10.0),
            Start::Couzin(CollectiveState::DynamicParallel) => Some(60.0),
            Start::Couzin(CollectiveState::HighlyParallel) => Some(120.0),
        }
    }

    /// The button's label.
    pub fn label(self) -> &'static str {
        match self {
            Start::Rules => "rules",
            Start::Couzin(state) => state.name(),
        }
    }
}

/// What the panel starts from and shows.
#[derive(Resource, Clone, Debug)]
pub struct Panel3d {
    /// The configuration every start builds on (tank, seed, parameters).
    pub base: Flock3dConfig,
    /// Fish in a start with the weighted rules (a quarter in the quicker
    /// second school).
    pub fish: usize,
    /// The zones the panel edits (used while the volume runs them).
    pub zones: Zones,
    /// The school whose knobs are shown.
    pub school: u16,
    /// Whether the pointer is over the panel (the camera and the clicks
    /// leave it alone then).
    pub pointer_over: bool,
    /// (seconds, polarization, milling), ten samples a second.
    history: VecDeque<[f64; 3]>,
    /// The latest sample's metrics, which the panel shows (measuring the
    /// school every frame would cost a pass over it per frame).
    latest: Option<SwarmMetrics<Vec3>>,
    /// The last two samples as the health check reads them.
    health_rows: VecDeque<Metrics>,
}

impl Panel3d {
    /// A panel starting `fish` fish from `base`.
    pub fn new(base: Flock3dConfig, fish: usize) -> Self {
        Self {
            base,
            fish,
            zones: aquarium_zones(10.0),
            school: 0,
            pointer_over: false,
            history: VecDeque::new(),
            latest: None,
            health_rows: VecDeque::new(),
        }
    }
}

/// The second school's parameters: quicker, seeing a little further.
pub fn quick_school() -> FlockParams {
    FlockParams { max_speed: 150.0, perception_radius: 50.0, ..FlockParams::default() }
}

/// Starts the volume over as `start` asks ([`start_config`]).
pub fn restart(commands: &mut Commands, panel: &Panel3d, start: Start) {
    commands.queue(LoadVolume3d(start_config(panel, start)));
}

/// The configuration a start loads: [`rules_start`], or [`COUZIN_FISH`]
/// fish under the start's zones in a ball in the middle of the tank.
pub fn start_config(panel: &Panel3d, start: Start) -> VolumeConfig {
    let Some(zones) = start.orientation_width().map(aquarium_zones) else { return rules_start(panel) };
    let tank = panel.base.tank;
    // A little wider than the fish need when packed at the repulsion
    // distance: the paper's start.
    let radius = (zones.repulsion * (COUZIN_FISH as f32).cbrt()).min(tank.size().min_element() * 0.45);
    let centre = (tank.min + tank.max) * 0.5;
    VolumeConfig {
        fish: COUZIN_FISH,
        seed: panel.base.seed,
        params: panel.base.params,
        tank,
        zones: Some(zones),
        ball: Some(Ball::even(centre, radius)),
        ..VolumeConfig::default()
    }
}

/// The rules' start as a configuration (so that a session from it can be
/// saved and replayed): the panel's fish over its tank, with its seed and
/// parameters, a quarter of them in the quicker second school.
pub fn rules_start(panel: &Panel3d) -> VolumeConfig {
    let second = panel.fish / 4;
    let quick = VolumeSchool { fish: second, params: quick_school(), ..VolumeSchool::default() };
    VolumeConfig {
        fish: panel.fish - second,
        seed: panel.base.seed,
        params: panel.base.params,
        tank: panel.base.tank,
        schools: vec![quick],
        ..VolumeConfig::default()
    }
}

/// The panel, its plots and its restarts (adds egui if the app has not).
/// Needs a [`Panel3d`] resource.
pub struct Panel3dPlugin;

impl Plugin for Panel3dPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<EguiPlugin>() {
            app.add_plugins(EguiPlugin::default());
        }
        app.add_systems(Update, sample).add_systems(EguiPrimaryContextPass, panel);
    }
}

/// Notes polarization and milling ten times a second.
fn sample(time: Res<Time<Real>>, state: Res<Flock3dState>, mut panel: ResMut<Panel3d>, mut next: Local<f32>) {
    let now = time.elapsed_secs();
    if now < *next {
        return;
    }
    *next = now + 0.1;
    let m = state.flock.metrics();
    let history = &mut panel.history;
    if history.len() == HISTORY {
        history.pop_front();
    }
    history.push_back([f64::from(now), f64::from(m.polarization), f64::from(m.milling)]);
    panel.latest = Some(m);
    if panel.health_rows.len() == 2 {
        panel.health_rows.pop_front();
    }
    panel.health_rows.push_back(m.into());
}

fn panel(
    mut contexts: EguiContexts,
    mut commands: Commands,
    mut state: ResMut<Flock3dState>,
    mut panel: ResMut<Panel3d>,
    time: Res<Time<Real>>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    panel.pointer_over = ctx.is_pointer_over_egui() || ctx.egui_wants_pointer_input();
    let m = panel.latest.unwrap_or_default();
    let seen = CollectiveState::classify(f64::from(m.polarization), f64::from(m.milling));
    egui::Window::new("MiroFish aquarium 3D").default_pos([8.0, 8.0]).default_width(280.0).show(ctx, |ui| {
        egui::Grid::new("numbers").num_columns(2).show(ui, |ui| {
            let mut row = |name: &str, value: String| {
                ui.label(name);
                ui.label(value);
                ui.end_row();
            };
            row("fish", m.fish.to_string());
            row("tick", m.tick.to_string());
            row("polarization", format!("{:.2}", m.polarization));
            row("milling", format!("{:.2}", m.milling));
            row("state", seen.name().to_string());
            row("mean neighbours", format!("{:.1}", m.mean_neighbours));
            row("nearest neighbour", m.nearest_neighbour.map_or("–".into(), |d| format!("{d:.1}")));
            row("frame rate", format!("{:.0} fps", 1.0 / time.delta_secs().max(1e-6)));
        });
        egui::CollapsingHeader::new("health").default_open(true).show(ui, |ui| {
            let rows: Vec<Metrics> = panel.health_rows.iter().copied().collect();
            let params = state.flock.params().first().copied().unwrap_or_default();
            health_ui(ui, &Health::assess(&rows, &params, state.flock.tank()));
        });
        ui.separator();
        ui.label("start over with");
        ui.horizontal_wrapped(|ui| {
            for start in Start::ALL {
                if ui.button(start.label()).clicked() {
                    if let Some(width) = start.orientation_width() {
                        panel.zones = aquarium_zones(width);
                    }
                    restart(&mut commands, &panel, start);
                }
            }
        });
        save_replay(ui, &state);
        ui.separator();
        if state.flock.zones().is_some() {
            zone_sliders(ui, &mut state, &mut panel);
        } else {
            rule_sliders(ui, &mut state, &mut panel);
        }
        ui.separator();
        let (p, mill): (Vec<[f64; 2]>, Vec<[f64; 2]>) =
            panel.history.iter().map(|&[t, p, m]| ([t, p], [t, m])).unzip();
        Plot::new("order").height(120.0).include_y(0.0).include_y(1.0).legend(Legend::default()).show(
            ui,
            |plot| {
                plot.line(Line::new("polarization", PlotPoints::from(p)));
                plot.line(Line::new("milling", PlotPoints::from(mill)));
            },
        );
    });
    Ok(())
}

/// A button that saves the session as a replay, when it can be replayed.
fn save_replay(ui: &mut egui::Ui, state: &Flock3dState) {
    match state.replay() {
        Session::Replaying => {
            ui.label(format!("replaying a session: tick {}", state.flock.tick()));
        }
        Session::Matched { ticks } => {
            ui.label(format!("the replay matched its recording ({ticks} ticks)"));
        }
        Session::Diverged { tick, .. } => {
            let orange = egui::Color32::from_rgb(230, 90, 60);
            ui.colored_label(orange, format!("the replay diverged from its recording at tick {tick}"));
        }
        Session::Idle | Session::Recording => {}
    }
    if state.loaded().is_none() {
        // Started some other way than from a configuration.
        ui.label("(this start cannot be saved as a replay)");
        return;
    }
    if !ui.button(format!("save replay ({REPLAY_FILE})")).clicked() {
        return;
    }
    let saved = match state.recording() {
        Some(Ok(recording)) => recording.save(REPLAY_FILE).map(|()| recording).map_err(|e| e.to_string()),
        Some(Err(e)) => Err(e.to_string()),
        None => Err("the volume was not loaded from a configuration".into()),
    };
    match saved {
        Ok(r) => info!(
            "saved {REPLAY_FILE}: {} ticks, {} commands (check it: mirofish-lab replay {REPLAY_FILE})",
            r.ticks,
            r.commands.len()
        ),
        Err(e) => warn!("replay not saved: {e}"),
    }
}

/// Couzin's zones, applied live.
fn zone_sliders(ui: &mut egui::Ui, state: &mut Flock3dState, panel: &mut Panel3d) {
    ui.label(egui::RichText::new("Couzin's zones").strong());
    let mut z = panel.zones;
    let before = z;
    ui.add(egui::Slider::new(&mut z.orientation_width, 0.0..=300.0).text("orientation zone width"));
    ui.add(egui::Slider::new(&mut z.attraction_width, 0.0..=600.0).text("attraction zone width"));
    ui.add(egui::Slider::new(&mut z.repulsion, 0.0..=60.0).text("repulsion radius"));
    ui.add(egui::Slider::new(&mut z.speed, 0.0..=200.0).text("speed"));
    let mut turn = z.turn_rate.to_degrees();
    ui.add(egui::Slider::new(&mut turn, 0.0..=360.0).text("turn rate (°/s)"));
    z.turn_rate = turn.to_radians();
    let mut view = z.field_of_view.to_degrees();
    ui.add(egui::Slider::new(&mut view, 0.0..=360.0).text("field of view (°)"));
    z.field_of_view = view.to_radians().min(core::f32::consts::TAU);
    ui.add(egui::Slider::new(&mut z.noise, 0.0..=0.5).text("noise"));
    if z != before {
        // A command, so that a saved session replays the change.
        match state.flock.submit(VolumeCommand::SetZones(Some(z))) {
            Ok(()) => panel.zones = z,
            Err(e) => warn!("zones refused: {e}"),
        }
    }
}

/// The weighted rules' knobs of the chosen school, applied live.
fn rule_sliders(ui: &mut egui::Ui, state: &mut Flock3dState, panel: &mut Panel3d) {
    let schools = state.flock.params().len() as u16;
    ui.horizontal(|ui| {
        ui.label("school");
        for school in 0..schools {
            ui.radio_value(&mut panel.school, school, school.to_string());
        }
    });
    let school = panel.school.min(schools.saturating_sub(1));
    let Some(&applied) = state.flock.params().get(usize::from(school)) else { return };
    // The sliders show a change still waiting for its tick, not the old
    // value, or a drag would jump back between ticks.
    let before = state
        .flock
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
    egui::ScrollArea::vertical().max_height(260.0).show(ui, |ui| knob_sliders(ui, &mut params));
    if params != before
        && let Err(e) = state.flock.submit(VolumeCommand::SetSchoolParams { school, params })
    {
        warn!("parameters refused: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_start_is_valid_and_scaled_zones_keep_the_papers_ratios() {
        for start in Start::ALL {
            if let Some(width) = start.orientation_width() {
                let z = aquarium_zones(width);
                z.validate().unwrap();
                let paper = Zones::default();
                assert_eq!(z.attraction_width / z.repulsion, paper.attraction_width / paper.repulsion);
                assert_eq!(z.speed / z.repulsion, paper.speed / paper.repulsion);
                assert_eq!(z.turn_rate, paper.turn_rate);
            }
        }
        // The widths rise with the states' order.
        let widths: Vec<f32> = Start::ALL.iter().filter_map(|s| s.orientation_width()).collect();
        assert!(widths.windows(2).all(|w| w[0] < w[1]), "{widths:?}");
        quick_school().validate().unwrap();
        // Every start loads: a valid configuration in the aquarium's tank.
        let tank = mirofish_sim::Tank3d::centered(Vec3::new(1400.0, 600.0, 900.0));
        let panel = Panel3d::new(Flock3dConfig { tank, ..default() }, 4000);
        for start in Start::ALL {
            let config = start_config(&panel, start);
            config.validate().unwrap();
            assert_eq!(config.zones.is_some(), start.orientation_width().is_some());
        }
    }
}
