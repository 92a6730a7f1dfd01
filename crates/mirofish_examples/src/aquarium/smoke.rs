//! The aquarium's self-test, run by CI under Xvfb with a software Vulkan
//! driver: wait until frames are being drawn, send a scripted predator click
//! (through the same command path as the mouse), take a screenshot with
//! Bevy's screenshot API, check that the picture really shows fish spread
//! over the tank and the red predator, save it, and exit with the verdict.

use std::path::PathBuf;

use bevy::prelude::*;
#[cfg(not(target_arch = "wasm32"))]
use bevy::render::view::screenshot::save_to_disk;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use mirofish_bevy::FlockCommands;
use mirofish_bevy::prelude::*;

use mirofish_kit::{ToolSettings, click_command};

/// Runs the self-test when inserted as a resource (with [`SmokeTestPlugin`]).
#[derive(Resource, Clone, Debug)]
pub struct SmokeTest {
    /// Where the screenshot is written (PNG).
    pub out: PathBuf,
    /// Frames to draw before the predator click (lets shaders compile).
    pub warmup_frames: u32,
    /// Seconds between the click and the screenshot.
    pub settle_seconds: f32,
    /// Give up (and fail) after this many seconds.
    pub timeout_seconds: f32,
    /// Whether the app exits with the verdict (a native run's exit status);
    /// otherwise the verdict is only logged and the school swims on (the
    /// web page's test reads the log and takes its own picture).
    pub exit: bool,
}

impl SmokeTest {
    /// The default script, saving to `out`.
    pub fn new(out: impl Into<PathBuf>) -> Self {
        Self { out: out.into(), warmup_frames: 30, settle_seconds: 2.0, timeout_seconds: 180.0, exit: true }
    }
}

/// How much of a picture is fish.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Pixels in a fish colour.
    pub fish_pixels: usize,
    /// Cells of an 8 × 4 grid over the picture holding at least
    /// [`Coverage::CELL_MIN`] fish pixels.
    pub cells_with_fish: usize,
    /// Pixels in the predator colour.
    pub predator_pixels: usize,
}

impl Coverage {
    /// Fish pixels a cell needs to count.
    pub const CELL_MIN: usize = 20;
    /// Grid columns.
    pub const COLS: usize = 8;
    /// Grid rows.
    pub const ROWS: usize = 4;

    /// Counts pixels of an RGB8 picture within `tolerance` (per channel) of
    /// one of `fish` colours, and of the `predator` colour.
    pub fn measure(
        rgb: &[u8],
        width: usize,
        height: usize,
        fish: &[[u8; 3]],
        predator: [u8; 3],
        tolerance: u8,
    ) -> Self {
        let near = |px: &[u8], c: [u8; 3]| px.iter().zip(c).all(|(a, b)| a.abs_diff(b) <= tolerance);
        let mut cells = [0usize; Self::COLS * Self::ROWS];
        let mut out = Coverage::default();
        for (i, px) in rgb.chunks_exact(3).take(width * height).enumerate() {
            if fish.iter().any(|&c| near(px, c)) {
                out.fish_pixels += 1;
                let (x, y) = (i % width, i / width);
                cells[(y * Self::ROWS / height.max(1)) * Self::COLS + x * Self::COLS / width.max(1)] += 1;
            } else if near(px, predator) {
                out.predator_pixels += 1;
            }
        }
        out.cells_with_fish = cells.iter().filter(|&&n| n >= Self::CELL_MIN).count();
        out
    }

    /// The verdict: enough fish pixels, spread over at least a third of the
    /// cells (the panel covers some), and a visible predator.
    pub fn shows_fish_and_predator(&self) -> bool {
        self.fish_pixels >= 2_000
            && self.cells_with_fish >= Self::COLS * Self::ROWS / 3
            && self.predator_pixels >= 60
    }
}

/// Where the script is.
#[derive(Resource, Default)]
struct Progress {
    frames: u32,
    clicked_at: Option<f32>,
    shot: bool,
    verdict: Option<Result<Coverage, String>>,
    /// The verdict has been given.
    done: bool,
}

/// Runs a [`SmokeTest`] resource, if there is one.
pub struct SmokeTestPlugin;

impl Plugin for SmokeTestPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Progress>().add_systems(Update, drive.run_if(resource_exists::<SmokeTest>));
    }
}

fn colour_bytes(c: [f32; 3]) -> [u8; 3] {
    // Sprite tints are sRGB; the white fish image times the tint gives the
    // tint itself on screen.
    c.map(|x| (x.clamp(0.0, 1.0) * 255.0).round() as u8)
}

#[expect(clippy::too_many_arguments, reason = "the script reads the clock, the scene and the queue")]
fn drive(
    mut commands: Commands,
    test: Res<SmokeTest>,
    mut progress: ResMut<Progress>,
    time: Res<Time<Real>>,
    config: Res<FlockConfig>,
    tools: Res<ToolSettings>,
    mut flock_commands: ResMut<FlockCommands>,
    mut exit: MessageWriter<AppExit>,
) {
    let now = time.elapsed_secs();
    progress.frames += 1;
    if progress.done {
        return;
    }
    // The verdict is given once; a native run exits with it.
    let mut finish = |progress: &mut Progress, status: AppExit| {
        progress.done = true;
        if test.exit {
            exit.write(status);
        }
    };
    if now > test.timeout_seconds {
        error!("smoke test failed: no verdict after {now:.0} s");
        finish(&mut progress, AppExit::error());
        return;
    }
    if let Some(verdict) = progress.verdict.take() {
        match verdict {
            Ok(c) if c.shows_fish_and_predator() => {
                info!("smoke test passed: {c:?}; screenshot in {}", test.out.display());
                println!("smoke test passed: {c:?}");
                finish(&mut progress, AppExit::Success);
            }
            Ok(c) => {
                error!("smoke test failed: the picture does not show the school and the predator: {c:?}");
                finish(&mut progress, AppExit::error());
            }
            Err(e) => {
                error!("smoke test failed: {e}");
                finish(&mut progress, AppExit::error());
            }
        }
        return;
    }
    if progress.clicked_at.is_none() && progress.frames >= test.warmup_frames {
        // A left click a little right of the tank's centre, as a user would.
        let at = config.tank.min + config.tank.size() * Vec2::new(0.62, 0.55);
        if let Some(command) = click_command(MouseButton::Left, at, &tools)
            && let Err(e) = flock_commands.submit(command)
        {
            progress.verdict = Some(Err(e.to_string()));
        }
        progress.clicked_at = Some(now);
    }
    let settled = progress.clicked_at.is_some_and(|t| now - t >= test.settle_seconds);
    if settled && !progress.shot {
        progress.shot = true;
        let fish: Vec<[u8; 3]> =
            (0..config.school_table().len() as u16).map(|s| colour_bytes(config.colour_of(s))).collect();
        let predator = colour_bytes([0.9, 0.12, 0.18]);
        let mut shot = commands.spawn(Screenshot::primary_window());
        // A browser has no file system (and Bevy's saver would start a
        // download there): the page's test takes its own picture.
        #[cfg(not(target_arch = "wasm32"))]
        shot.observe(save_to_disk(test.out.clone()));
        shot.observe(move |captured: On<ScreenshotCaptured>, mut progress: ResMut<Progress>| {
            let verdict = match captured.image.clone().try_into_dynamic() {
                Ok(image) => {
                    let rgb = image.to_rgb8();
                    let (w, h) = (rgb.width() as usize, rgb.height() as usize);
                    Ok(Coverage::measure(rgb.as_raw(), w, h, &fish, predator, 40))
                }
                Err(e) => Err(format!("cannot read the screenshot: {e:?}")),
            };
            progress.verdict = Some(verdict);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn picture(w: usize, h: usize, paint: impl Fn(usize, usize) -> [u8; 3]) -> Vec<u8> {
        let paint = &paint;
        (0..h).flat_map(|y| (0..w).flat_map(move |x| paint(x, y))).collect()
    }

    #[test]
    fn a_scattered_school_passes_and_an_empty_tank_does_not() {
        let (fish, red, water) = ([255, 158, 64], [230, 31, 46], [8, 18, 33]);
        let scattered = picture(320, 160, |x, y| {
            if (x % 13 < 4 && y % 9 < 3) || (x > 200 && x < 230 && y > 50 && y < 60) {
                if x > 200 && x < 230 && y > 50 && y < 60 { red } else { [250, 150, 70] }
            } else {
                water
            }
        });
        let c = Coverage::measure(&scattered, 320, 160, &[fish], red, 40);
        assert!(c.shows_fish_and_predator(), "{c:?}");
        assert_eq!(c.cells_with_fish, 32);

        let empty = picture(320, 160, |_, _| water);
        let c = Coverage::measure(&empty, 320, 160, &[fish], red, 40);
        assert_eq!(c, Coverage::default());
        assert!(!c.shows_fish_and_predator());

        // Fish all in one corner: enough pixels, not enough spread.
        let clumped = picture(320, 160, |x, y| {
            if x < 60 && y < 60 {
                fish
            } else if x > 300 {
                red
            } else {
                water
            }
        });
        let c = Coverage::measure(&clumped, 320, 160, &[fish], red, 40);
        assert!(c.fish_pixels > 2000 && !c.shows_fish_and_predator(), "{c:?}");
    }
}
