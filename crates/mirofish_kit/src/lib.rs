//! The game kit: opt-in Bevy plugins around MiroFish's core plugin
//! ([`mirofish_bevy::MiroFishPlugin`]) that give a school what a player
//! sees, each added with one line.
//!
//! | plugin | what it adds |
//! |---|---|
//! | [`FishLookPlugin`] | every fish a sprite of one shared fish picture, tinted by school, that beats its tail and stretches with speed; predators as large red fish; rocks as rocks |
//! | [`MouseToolsPlugin`] | a predator on a left click, a rock on a right click, Shift-drags that attract or repel, Ctrl + click to inspect a fish |
//! | [`DebugOverlayPlugin`] | gizmos: the tank, fear radii, goals and the route; neighbour lines, rule forces, radii and the grid per toggle; the inspected fish; with the `decide` feature, each decision unit's goal |
//! | `look3d::FishLook3dPlugin` (feature `look3d`) | in a volume: every fish one shared fish-shaped mesh (body, forked tail, dorsal fin) in its school's colour, its body bending head to tail as it swims (a vertex shader), faster the faster it goes |
//! | `tools3d::MouseTools3dPlugin` (feature `look3d`) | in a volume: a predator above the floor where you click, a rock on it with a right click, Ctrl + click to inspect a fish; every rock and predator entity drawn |
//! | `camera3d::TankCamera3dPlugin` (feature `look3d`) | in a volume: a camera (`TankCamera3d`) that orbits the tank with a left drag and zooms with the wheel, clear of the panel |
//! | [`DebugOverlay3dPlugin`] | in a volume, gizmos: the tank's box, fear spheres, goals and the route; the first fish's spheres, neighbour lines and rule forces per toggle; with the `decide` feature, each decision unit's goal |
//! | [`TankCameraPlugin`] | a 2D camera ([`TankCamera`]) that shows the whole tank right of the panel, and follows the inspected fish when asked |
//! | [`RunControlsPlugin`] | pause, single step and a game's restart ([`RunControls`]), the tick's and frame's timings; a "run" section in the panel |
//! | [`ShortcutsPlugin`] | keys for the kit's controls (clear, pause, step, restart, the overlay's switches, colours, the panel, decisions, route and goal at the cursor), rebindable ([`Shortcuts`]) |
//! | [`RecorderPlugin`] | record (restarting the school), stop and save, replay, save the running configuration: buttons over the core plugin's recorder, in the panel where it is added |
//! | `TuningPanelPlugin` (feature `panel`) | an egui window: the school's numbers and health, every parameter of each school, the other plugins' switches, live plots, on a plane or in a volume; a game adds its own sections (module `panel`) |
//!
//! ```no_run
//! use bevy::prelude::*;
//! use mirofish_bevy::prelude::*;
//! use mirofish_kit::prelude::*;
//!
//! App::new()
//!     .add_plugins((DefaultPlugins, MiroFishPlugin::default(), FishLookPlugin))
//!     .add_plugins((MouseToolsPlugin, DebugOverlayPlugin))
//!     .add_systems(Startup, |mut commands: Commands| {
//!         commands.spawn(Camera2d);
//!         commands.queue(SpawnSchool::new(500));
//!     })
//!     .run();
//! ```
//!
//! The core plugin asks Bevy for no renderer; this crate asks for Bevy's 2D
//! renderer (sprites and gizmos), which a game that draws has already, and
//! its features `panel` (egui) and `look3d` (Bevy's 3D renderer) for more.
//! Through the `mirofish` crate it is the `kit` feature (`mirofish::kit`),
//! with `panel` and `look3d` features of the same names.
//!
//! The 2D look, mouse tools and overlay are a plane's, the 3D look, mouse
//! tools (`look3d`) and overlay a volume's; the panel and the recorder
//! work in whichever space runs.

pub mod camera;
#[cfg(feature = "look3d")]
pub mod camera3d;
#[cfg(feature = "decide")]
pub mod decisions;
pub mod keys;
pub mod look;
#[cfg(feature = "look3d")]
pub mod look3d;
pub mod overlay;
pub mod overlay3d;
#[cfg(feature = "panel")]
pub mod panel;
pub mod picture;
pub mod recorder;
pub mod run;
pub mod tools;
#[cfg(feature = "look3d")]
pub mod tools3d;

pub use camera::{TankCamera, TankCameraPlugin};
pub use keys::{Shortcuts, ShortcutsPlugin};
pub use look::{ColourMode, FishImage, FishLook, FishLookPlugin, RULE_COLOURS, RockImage, TailBeat};
pub use overlay::{DebugOverlayPlugin, OverlaySettings};
pub use overlay3d::DebugOverlay3dPlugin;
#[cfg(feature = "panel")]
pub use panel::{PanelAppExt, PanelSettings, TuningPanelPlugin};
pub use recorder::{RecorderControls, RecorderPlugin, SessionConfigs};
pub use run::{RunControls, RunControlsPlugin, TickStats};
pub use tools::{
    CursorWorld, FishReport, Inspected, MouseToolsPlugin, PointerOverUi, ToolSettings, click_command,
    drag_command, play_click, report, waypoint_command,
};

/// The kit's plugins and settings, for a glob import.
pub mod prelude {
    pub use crate::camera::{TankCamera, TankCameraPlugin};
    #[cfg(feature = "look3d")]
    pub use crate::camera3d::{TankCamera3d, TankCamera3dPlugin};
    pub use crate::keys::{Shortcuts, ShortcutsPlugin};
    pub use crate::look::{ColourMode, FishLook, FishLookPlugin};
    #[cfg(feature = "look3d")]
    pub use crate::look3d::{FishLook3d, FishLook3dPlugin};
    pub use crate::overlay::{DebugOverlayPlugin, OverlaySettings};
    pub use crate::overlay3d::DebugOverlay3dPlugin;
    #[cfg(feature = "panel")]
    pub use crate::panel::{PanelAppExt, PanelSettings, TuningPanelPlugin};
    pub use crate::recorder::{RecorderControls, RecorderPlugin, SessionConfigs};
    pub use crate::run::{RunControls, RunControlsPlugin};
    pub use crate::tools::{Inspected, MouseToolsPlugin, PointerOverUi, ToolSettings};
    #[cfg(feature = "look3d")]
    pub use crate::tools3d::{MouseTools3dPlugin, Tool3dSettings};
}
