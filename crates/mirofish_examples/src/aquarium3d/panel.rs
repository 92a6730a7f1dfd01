//! The 3D aquarium's panel: the game kit's tuning panel (the volume's
//! numbers, health, each school's knobs, the decision units, record and
//! replay, plots) with the aquarium's own section: the collective state the
//! order parameters name, a start for each of Couzin's four states, and
//! the zone model's sliders.
//!
//! Couzin's states show best with a few hundred fish started in a ball, as
//! in the paper: a preset restarts the volume that way, recording the
//! session from there ([`restart`]);
//! the orientation zone's slider then walks the school between the states
//! live, and back — where a school coming down from parallel stays
//! parallel at a width that turned a swarm into a torus.

use bevy::prelude::*;
use mirofish_bevy::FlockMetrics;
use mirofish_bevy::volume::*;
use mirofish_kit::panel::{PanelAppExt, PanelSettings, egui, order};
use mirofish_kit::{RecorderControls, RecorderPlugin, TuningPanelPlugin};
use mirofish_sim::control::volume::Ball;
use mirofish_sim::space::{CollectiveState, VolumeCommand, Zones};
use mirofish_sim::{FlockParams, Obstacle, Scene, Tank3d, VolumeConfig, VolumeSchool};

/// Fish in a start for one of Couzin's states.
pub const COUZIN_FISH: usize = 300;

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

/// What the aquarium's starts build on.
#[derive(Resource, Clone, Debug)]
pub struct Panel3d {
    /// The configuration every start builds on (tank, seed, parameters).
    pub base: Flock3dConfig,
    /// Fish in a start with the weighted rules (a quarter in the quicker
    /// second school).
    pub fish: usize,
    /// The zones the panel edits (used while the volume runs them).
    pub zones: Zones,
}

impl Panel3d {
    /// A panel starting `fish` fish from `base`.
    pub fn new(base: Flock3dConfig, fish: usize) -> Self {
        Self { base, fish, zones: aquarium_zones(10.0) }
    }
}

/// The second school's parameters: quicker, seeing a little further.
pub fn quick_school() -> FlockParams {
    FlockParams { max_speed: 150.0, perception_radius: 50.0, ..FlockParams::default() }
}

/// Starts the volume over as `start` asks ([`start_config`]), recording
/// the session from there (the panel's stop saves it).
pub fn restart(commands: &mut Commands, panel: &Panel3d, start: Start) {
    record_from(commands, start_config(panel, start));
}

/// Starts the volume over from `config` at the next tick and records the
/// session from there, with the checkpoints the recorder's controls ask
/// for.
pub fn record_from(commands: &mut Commands, config: VolumeConfig) {
    commands.queue(move |world: &mut World| {
        let every = world.get_resource::<RecorderControls>().map_or(60, |c| c.checkpoint_every);
        world.resource_mut::<Flock3dRecorder>().record(config, every);
    });
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
/// parameters, a quarter of them in the quicker second school, and three
/// rocks on the floor ([`floor_rocks`]).
pub fn rules_start(panel: &Panel3d) -> VolumeConfig {
    let second = panel.fish / 4;
    let quick = VolumeSchool { fish: second, params: quick_school(), ..VolumeSchool::default() };
    let tank = panel.base.tank;
    VolumeConfig {
        fish: panel.fish - second,
        seed: panel.base.seed,
        params: panel.base.params,
        tank,
        schools: vec![quick],
        scene: Scene { obstacles: floor_rocks(&tank), ..Scene::default() },
        ..VolumeConfig::default()
    }
}

/// Three rocks half sunk in the floor, towards the back and the sides
/// where the weed grows thickest, each a tenth to a seventh of the tank's
/// height across: obstacles the fish swim round.
pub fn floor_rocks(tank: &Tank3d) -> Vec<Obstacle<Vec3>> {
    let (size, low) = (tank.size(), tank.min.y);
    [(-0.3, -0.25, 0.14), (0.28, -0.3, 0.11), (0.05, 0.28, 0.09)]
        .into_iter()
        .map(|(x, z, r)| {
            let radius = size.y * r;
            let centre = Vec3::new(
                tank.min.x + (0.5 + x) * size.x,
                low + radius * 0.3,
                tank.min.z + (0.5 + z) * size.z,
            );
            Obstacle { centre, radius }
        })
        .collect()
}

/// The panel: the game kit's tuning panel and recorder, titled for the
/// aquarium, with its own section of starts and zones. Needs a
/// [`Panel3d`] resource.
pub struct Panel3dPlugin;

impl Plugin for Panel3dPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(PanelSettings { title: "MiroFish aquarium 3D".into(), ..default() })
            .insert_resource(RecorderControls {
                recording_file: "aquarium3d.replay".into(),
                config_file: "aquarium3d.volume.ron".into(),
                ..default()
            })
            .add_plugins((TuningPanelPlugin, RecorderPlugin))
            .add_panel_section("starts and zones", order::HEALTH + 50, true, starts_section);
    }
}

/// The collective state the latest sample's order parameters name, a start
/// for each of Couzin's states (or the rules'), and, while the zones run,
/// their sliders.
fn starts_section(
    InMut(ui): InMut<egui::Ui>,
    mut commands: Commands,
    (state, mut queue): (Res<Flock3dState>, ResMut<FlockCommands<Vec3>>),
    mut panel: ResMut<Panel3d>,
    metrics: Res<FlockMetrics>,
) {
    if let Some(m) = metrics.latest() {
        let seen = CollectiveState::classify(f64::from(m.polarization), f64::from(m.milling));
        ui.label(format!("state: {}", seen.name()));
    }
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
    if state.flock().zones().is_some() {
        zone_sliders(ui, &mut queue, &mut panel);
    }
}

/// Couzin's zones, applied live.
fn zone_sliders(ui: &mut egui::Ui, queue: &mut FlockCommands<Vec3>, panel: &mut Panel3d) {
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
        match queue.submit(VolumeCommand::SetZones(Some(z))) {
            Ok(()) => panel.zones = z,
            Err(e) => warn!("zones refused: {e}"),
        }
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
