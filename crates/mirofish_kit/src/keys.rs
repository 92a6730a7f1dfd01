//! Keyboard shortcuts for the kit's controls: [`ShortcutsPlugin`], with a
//! table a game can rebind ([`Shortcuts`]).
//!
//! | key | action |
//! |---|---|
//! | C | clear predators and rocks |
//! | Space / N / R | pause · single step · restart (where the game restarts) |
//! | 1 2 3 4 | overlay: neighbours · forces · radii · grid |
//! | M / H | next colour mode · hide the panel |
//! | I | the decision layer on / off (the `decide` feature) |
//! | W / X | a waypoint of the leaders' route at the cursor / no route |
//! | G / Shift + G | the panel's school's goal at the cursor / no goal |
//!
//! ```no_run
//! use bevy::prelude::*;
//! use mirofish_kit::prelude::*;
//! use mirofish_kit::keys::{Action, Shortcut};
//!
//! let mut app = App::new();
//! app.add_plugins(ShortcutsPlugin);
//! // P pauses instead of Space.
//! app.world_mut().resource_mut::<Shortcuts>().bind(Shortcut::new(KeyCode::KeyP, Action::Pause));
//! ```
//!
//! Each action changes what the plugin it belongs to reads (the overlay's
//! switches, the run controls, the panel's settings) or sends a command to
//! the core, so a session played with keys is recorded and replays like a
//! scripted one. An action whose plugin is not added does nothing; the
//! colour mode is a plane's, the others work in either space (in a volume
//! the cursor's actions, waypoint and goal, take the point half way up the
//! tank above where the cursor's ray meets the floor, with the 3D mouse
//! tools' `CursorRay`).

use bevy::prelude::*;
use mirofish_bevy::volume::Flock3dState;
use mirofish_bevy::{FlockCommands, FlockState};
use mirofish_sim::space::VolumeCommand;
use mirofish_sim::step::command::FlockCommand;
use mirofish_sim::{Goal, GoalMode};

use crate::look::FishLook;
use crate::overlay::OverlaySettings;
use crate::run::RunControls;
use crate::tools::{CursorWorld, waypoint_command};

/// What a shortcut does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// Remove every predator and rock.
    ClearScene,
    /// Pause or resume ([`RunControls::paused`]).
    Pause,
    /// One tick while paused.
    Step,
    /// Ask the game to start its scene over ([`RunControls::restart`]).
    Restart,
    /// Switch the overlay's neighbour lines.
    OverlayNeighbours,
    /// Switch the overlay's rule forces.
    OverlayForces,
    /// Switch the overlay's perception and separation radii.
    OverlayRadii,
    /// Switch the overlay's grid.
    OverlayGrid,
    /// The fish's next colour mode (a plane's look).
    NextColours,
    /// Show or hide the panel.
    TogglePanel,
    /// The decision layer on or off.
    ToggleDecisions,
    /// Add a waypoint to the leaders' route at the cursor.
    Waypoint,
    /// Drop the route.
    NoRoute,
    /// The panel's school's goal at the cursor.
    GoalAtCursor,
    /// Drop the panel's school's goal.
    NoGoal,
}

impl Action {
    /// Whether it does anything in `world`: its plugin is added (and, for
    /// a restart, the game restarts; for the cursor's actions, a cursor is
    /// read: the 2D mouse tools' on a plane, the 3D ones' in a volume).
    /// The panel lists only these.
    pub fn applies(self, world: &World) -> bool {
        let plane = world.contains_resource::<FlockState>() && world.contains_resource::<CursorWorld>();
        #[cfg(feature = "look3d")]
        let volume = world.contains_resource::<Flock3dState>()
            && world.contains_resource::<crate::tools3d::CursorRay>();
        #[cfg(not(feature = "look3d"))]
        let volume = false;
        match self {
            Self::Restart => world.get_resource::<RunControls>().is_some_and(|r| r.restartable),
            Self::NextColours => world.contains_resource::<FishLook>(),
            Self::Waypoint | Self::GoalAtCursor => plane || volume,
            Self::NoGoal => {
                world.contains_resource::<FlockState>() || world.contains_resource::<Flock3dState>()
            }
            #[cfg(feature = "decide")]
            Self::ToggleDecisions => world.contains_resource::<mirofish_decide::plugin::DecisionSettings>(),
            #[cfg(not(feature = "decide"))]
            Self::ToggleDecisions => false,
            _ => true,
        }
    }

    /// What it does, in a few words (the panel's list of keys).
    pub fn words(self) -> &'static str {
        match self {
            Self::ClearScene => "clear predators and rocks",
            Self::Pause => "pause / resume",
            Self::Step => "one tick (paused)",
            Self::Restart => "restart",
            Self::OverlayNeighbours => "overlay: neighbours",
            Self::OverlayForces => "overlay: forces",
            Self::OverlayRadii => "overlay: radii",
            Self::OverlayGrid => "overlay: grid",
            Self::NextColours => "next colour mode",
            Self::TogglePanel => "hide / show the panel",
            Self::ToggleDecisions => "decisions on / off",
            Self::Waypoint => "a route waypoint at the cursor",
            Self::NoRoute => "no route",
            Self::GoalAtCursor => "the panel's school's goal at the cursor",
            Self::NoGoal => "no goal for the panel's school",
        }
    }
}

/// A key (with or without Shift) and the action it triggers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shortcut {
    /// The key.
    pub key: KeyCode,
    /// Whether Shift is held with it (a shortcut without Shift does not
    /// fire with it held, so G and Shift + G can differ).
    pub shift: bool,
    /// What it does.
    pub action: Action,
}

impl Shortcut {
    /// `key` alone triggers `action`.
    pub const fn new(key: KeyCode, action: Action) -> Self {
        Self { key, shift: false, action }
    }

    /// Shift + `key` triggers `action`.
    pub const fn shifted(key: KeyCode, action: Action) -> Self {
        Self { key, shift: true, action }
    }

    /// The key as the panel lists it ("Shift + G").
    pub fn label(&self) -> String {
        let name = format!("{:?}", self.key);
        let name = name.strip_prefix("Key").or_else(|| name.strip_prefix("Digit")).unwrap_or(&name);
        if self.shift { format!("Shift + {name}") } else { name.to_owned() }
    }
}

/// The shortcut table [`ShortcutsPlugin`] reads; the default is the
/// module's table. At most one action per key and Shift.
#[derive(Resource, Clone, Debug, PartialEq)]
pub struct Shortcuts(Vec<Shortcut>);

impl Default for Shortcuts {
    fn default() -> Self {
        use Action::*;
        use KeyCode::{
            Digit1, Digit2, Digit3, Digit4, KeyC, KeyG, KeyH, KeyI, KeyM, KeyN, KeyR, KeyW, KeyX, Space,
        };
        Self(vec![
            Shortcut::new(KeyC, ClearScene),
            Shortcut::new(Space, Pause),
            Shortcut::new(KeyN, Step),
            Shortcut::new(KeyR, Restart),
            Shortcut::new(Digit1, OverlayNeighbours),
            Shortcut::new(Digit2, OverlayForces),
            Shortcut::new(Digit3, OverlayRadii),
            Shortcut::new(Digit4, OverlayGrid),
            Shortcut::new(KeyM, NextColours),
            Shortcut::new(KeyH, TogglePanel),
            Shortcut::new(KeyI, ToggleDecisions),
            Shortcut::new(KeyW, Waypoint),
            Shortcut::new(KeyX, NoRoute),
            Shortcut::new(KeyG, GoalAtCursor),
            Shortcut::shifted(KeyG, NoGoal),
        ])
    }
}

impl Shortcuts {
    /// No shortcut at all (bind the ones wanted).
    pub fn none() -> Self {
        Self(Vec::new())
    }

    /// Binds `shortcut`'s key (and Shift) to its action, in place of what
    /// the key did before.
    pub fn bind(&mut self, shortcut: Shortcut) -> &mut Self {
        self.0.retain(|s| (s.key, s.shift) != (shortcut.key, shortcut.shift));
        self.0.push(shortcut);
        self
    }

    /// Takes every key off `action`.
    pub fn unbind(&mut self, action: Action) -> &mut Self {
        self.0.retain(|s| s.action != action);
        self
    }

    /// The shortcuts, in the order bound.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &Shortcut> + '_ {
        self.0.iter()
    }

    /// The actions pressed this frame: each shortcut whose key was just
    /// pressed with Shift held or not as it says.
    pub fn pressed<'a>(&'a self, keys: &'a ButtonInput<KeyCode>) -> impl Iterator<Item = Action> + 'a {
        let shift = keys.any_pressed([KeyCode::ShiftLeft, KeyCode::ShiftRight]);
        self.0.iter().filter(move |s| s.shift == shift && keys.just_pressed(s.key)).map(|s| s.action)
    }
}

/// The kit's keyboard shortcuts ([`Shortcuts`]): each action as the
/// module's table says, on whichever of the kit's plugins (and the core
/// plugin of either space) the app has. Adds [`RunControls`] and
/// [`OverlaySettings`] if they are missing, so pause and the overlay's
/// switches always have somewhere to go.
pub struct ShortcutsPlugin;

impl Plugin for ShortcutsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Shortcuts>()
            .init_resource::<ButtonInput<KeyCode>>()
            .init_resource::<RunControls>()
            .init_resource::<OverlaySettings>()
            .add_systems(Update, press_shortcuts);
    }
}

/// The resources an action may change, each where its plugin is added.
#[derive(bevy::ecs::system::SystemParam)]
pub struct Targets<'w> {
    run: ResMut<'w, RunControls>,
    overlay: ResMut<'w, OverlaySettings>,
    look: Option<ResMut<'w, FishLook>>,
    plane: Option<Res<'w, FlockState>>,
    plane_commands: Option<ResMut<'w, FlockCommands>>,
    volume: Option<Res<'w, Flock3dState>>,
    volume_commands: Option<ResMut<'w, FlockCommands<Vec3>>>,
    cursor: Option<Res<'w, CursorWorld>>,
    #[cfg(feature = "look3d")]
    ray: Option<Res<'w, crate::tools3d::CursorRay>>,
    #[cfg(feature = "panel")]
    panel: Option<ResMut<'w, crate::panel::PanelSettings>>,
    #[cfg(feature = "decide")]
    decisions: Option<ResMut<'w, mirofish_decide::plugin::DecisionSettings>>,
}

impl Targets<'_> {
    /// The panel's school (0 without the panel).
    fn school(&self) -> u16 {
        #[cfg(feature = "panel")]
        if let Some(panel) = &self.panel {
            return panel.school;
        }
        0
    }

    fn send(&mut self, command: FlockCommand) {
        if let Some(commands) = &mut self.plane_commands
            && let Err(e) = commands.submit(command)
        {
            log::warn!("shortcut: {e}");
        }
    }

    fn send_volume(&mut self, command: VolumeCommand) {
        if let Some(commands) = &mut self.volume_commands
            && let Err(e) = commands.submit(command)
        {
            log::warn!("shortcut: {e}");
        }
    }

    /// The point the cursor names in a volume: half way up the tank above
    /// where its ray meets the floor.
    fn cursor3d(&self) -> Option<Vec3> {
        #[cfg(feature = "look3d")]
        if let (Some(ray), Some(state)) = (self.ray.as_ref().and_then(|r| r.0), &self.volume) {
            let tank = state.flock().tank();
            let floor = crate::tools3d::floor_point(ray, tank)?;
            return Some(Vec3::new(floor.x, (tank.min.y + tank.max.y) * 0.5, floor.z));
        }
        None
    }

    /// Carries out `action`.
    fn act(&mut self, action: Action) {
        let cursor = self.cursor.as_ref().and_then(|c| c.0);
        let cursor3d = self.cursor3d();
        match action {
            Action::ClearScene => {
                // Neither command holds a number: neither can be refused.
                self.send(FlockCommand::ClearPredators);
                self.send(FlockCommand::ClearObstacles);
                self.send_volume(VolumeCommand::ClearPredators);
                self.send_volume(VolumeCommand::ClearObstacles);
            }
            Action::Pause => self.run.paused = !self.run.paused,
            Action::Step => self.run.step = true,
            Action::Restart => self.run.restart |= self.run.restartable,
            Action::OverlayNeighbours => self.overlay.neighbours = !self.overlay.neighbours,
            Action::OverlayForces => self.overlay.forces = !self.overlay.forces,
            Action::OverlayRadii => self.overlay.radii = !self.overlay.radii,
            Action::OverlayGrid => self.overlay.grid = !self.overlay.grid,
            Action::NextColours => {
                if let Some(look) = &mut self.look {
                    look.colours = look.colours.next();
                }
            }
            Action::TogglePanel =>
            {
                #[cfg(feature = "panel")]
                if let Some(panel) = &mut self.panel {
                    panel.show = !panel.show;
                }
            }
            Action::ToggleDecisions =>
            {
                #[cfg(feature = "decide")]
                if let Some(decisions) = &mut self.decisions {
                    decisions.on = !decisions.on;
                }
            }
            Action::Waypoint => {
                if let Some(at) = cursor {
                    let route = self.plane.as_ref().and_then(|s| s.scene().route.clone());
                    self.send(waypoint_command(route.as_ref(), at));
                }
                if let Some(at) = cursor3d {
                    let route = self.volume.as_ref().and_then(|s| s.flock().scene().route.clone());
                    self.send_volume(waypoint_command(route.as_ref(), at));
                }
            }
            Action::NoRoute => {
                self.send(FlockCommand::SetRoute(None));
                self.send_volume(VolumeCommand::SetRoute(None));
            }
            Action::GoalAtCursor => {
                let school = self.school();
                if let Some(at) = cursor {
                    self.send(FlockCommand::SetSchoolGoal { school, goal: Some(arrive_at(at)) });
                }
                if let Some(at) = cursor3d {
                    self.send_volume(VolumeCommand::SetSchoolGoal { school, goal: Some(arrive_at(at)) });
                }
            }
            Action::NoGoal => {
                let school = self.school();
                self.send(FlockCommand::SetSchoolGoal { school, goal: None });
                self.send_volume(VolumeCommand::SetSchoolGoal { school, goal: None });
            }
        }
    }
}

/// The goal the G key sets: arrive at `at`, slowing down near it.
fn arrive_at<V: mirofish_sim::Vector>(at: V) -> Goal<V> {
    Goal { mode: GoalMode::Arrive, ..Goal::seek(at, 1.0) }
}

/// Carries out every shortcut pressed this frame.
pub fn press_shortcuts(keys: Res<ButtonInput<KeyCode>>, shortcuts: Res<Shortcuts>, mut targets: Targets) {
    for action in shortcuts.pressed(&keys) {
        targets.act(action);
    }
}

/// The panel's list of keys: the mouse tools' buttons where they are
/// added, then the shortcuts bound that do something here
/// ([`Action::applies`]).
#[cfg(feature = "panel")]
pub fn keys_section(InMut(ui): InMut<crate::panel::egui::Ui>, world: &World) {
    if world.contains_resource::<crate::tools::ToolSettings>() {
        for line in crate::tools::MOUSE_LINES {
            ui.label(*line);
        }
    }
    #[cfg(feature = "look3d")]
    if world.contains_resource::<crate::tools3d::Tool3dSettings>() {
        for line in crate::tools3d::MOUSE_LINES {
            ui.label(*line);
        }
    }
    for shortcut in world.get_resource::<Shortcuts>().into_iter().flat_map(Shortcuts::iter) {
        if shortcut.action.applies(world) {
            ui.label(format!("{}: {}", shortcut.label(), shortcut.action.words()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_fires_its_action_only_with_shift_as_bound() {
        let shortcuts = Shortcuts::default();
        let mut keys = ButtonInput::<KeyCode>::default();
        keys.press(KeyCode::KeyG);
        assert_eq!(shortcuts.pressed(&keys).collect::<Vec<_>>(), [Action::GoalAtCursor]);
        keys.clear();
        keys.press(KeyCode::ShiftLeft);
        keys.release(KeyCode::KeyG);
        keys.clear();
        keys.press(KeyCode::KeyG);
        assert_eq!(shortcuts.pressed(&keys).collect::<Vec<_>>(), [Action::NoGoal]);
        // Held, not just pressed: nothing.
        keys.clear();
        assert_eq!(shortcuts.pressed(&keys).count(), 0);
    }

    #[test]
    fn binding_a_key_replaces_what_it_did() {
        let mut shortcuts = Shortcuts::default();
        let before = shortcuts.iter().len();
        shortcuts.bind(Shortcut::new(KeyCode::KeyC, Action::Pause)).unbind(Action::Step);
        assert_eq!(shortcuts.iter().len(), before - 1);
        let on_c: Vec<_> = shortcuts.iter().filter(|s| s.key == KeyCode::KeyC).collect();
        assert_eq!(on_c.len(), 1);
        assert_eq!(on_c[0].action, Action::Pause);
        assert!(shortcuts.iter().all(|s| s.action != Action::Step));
        assert_eq!(Shortcut::shifted(KeyCode::KeyG, Action::NoGoal).label(), "Shift + G");
        assert_eq!(Shortcut::new(KeyCode::Digit3, Action::OverlayRadii).label(), "3");
        assert_eq!(Shortcut::new(KeyCode::Space, Action::Pause).label(), "Space");
    }

    #[test]
    fn an_action_applies_only_where_its_plugin_and_space_are() {
        let mut world = World::new();
        world.insert_resource(RunControls::default());
        assert!(Action::Pause.applies(&world));
        assert!(!Action::Restart.applies(&world), "the game does not restart");
        world.resource_mut::<RunControls>().restartable = true;
        assert!(Action::Restart.applies(&world));
        assert!(!Action::NextColours.applies(&world), "no fish look");
        assert!(!Action::Waypoint.applies(&world) && !Action::NoGoal.applies(&world), "no plane");
        world.insert_resource(FishLook::default());
        assert!(Action::NextColours.applies(&world));
    }

    #[test]
    fn every_key_and_shift_has_one_action_in_the_default_table() {
        let shortcuts = Shortcuts::default();
        let keys: std::collections::HashSet<_> = shortcuts.iter().map(|s| (s.key, s.shift)).collect();
        assert_eq!(keys.len(), shortcuts.iter().len());
    }
}
