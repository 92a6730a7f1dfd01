//! The 3D aquarium's self-test, run by CI under Xvfb with a software
//! Vulkan driver and in the web page: drop a predator, wait, check that
//! the session replays to the state on screen, take a screenshot and check
//! that it shows fish of both schools, the predator and the sandy floor.
//! Under one of Couzin's starts (one school, no predator: it would break
//! the state up) it waits and checks for the school and the floor.

use std::path::PathBuf;

use bevy::prelude::*;
#[cfg(not(target_arch = "wasm32"))]
use bevy::render::view::screenshot::save_to_disk;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use mirofish_bevy::volume::*;
use mirofish_kit::tools3d::click_command;
use mirofish_sim::state_hash;

use super::Start;
use super::scene::OpaqueDraws;

/// Runs the self-test when inserted as a resource.
#[derive(Resource, Clone, Debug)]
pub struct Smoke3d {
    /// Where the screenshot is written (PNG; natively only).
    pub out: PathBuf,
    /// Seconds between the predator and the screenshot.
    pub settle: f32,
    /// Give up (and fail) this many seconds after the start.
    pub timeout: f32,
    /// The start the aquarium was given (Couzin's starts get no predator).
    pub start: Start,
    /// Whether the app exits with the verdict (a native run's exit status);
    /// otherwise the verdict is only logged and the school swims on.
    pub exit: bool,
    /// Whether the app takes and judges its own picture. A browser's page
    /// does not: under WebGL2 Bevy's screenshot of a 3D frame never comes
    /// back, so the test logs `smoke test ready for its picture` and the
    /// page's test judges the browser's picture with [`judge_picture`].
    pub picture: bool,
}

impl Smoke3d {
    /// The default script for `start`, saving to `out`.
    pub fn new(out: impl Into<PathBuf>, start: Start) -> Self {
        Self { out: out.into(), settle: 3.0, timeout: 240.0, start, exit: true, picture: true }
    }
}

/// Whether an RGB8 picture `width` pixels wide shows what the aquarium
/// started with `start` must show: `Ok` with what it saw, or `Err` saying
/// what is missing.
pub fn judge_picture(rgb: &[u8], width: usize, start: Start) -> Result<String, String> {
    let seen = Seen::count(rgb, width);
    if seen.shows_the_scene(start == Start::Rules) {
        Ok(format!("{seen:?}"))
    } else {
        Err(format!("the picture lacks fish, predator or floor: {seen:?}"))
    }
}

/// Where the script is.
#[derive(Resource, Default)]
struct Progress {
    frames: u32,
    dropped_at: Option<f32>,
    shot: bool,
    done: bool,
}

/// The screenshot's pixels (RGB8, and the width), for the next frame to
/// judge.
#[derive(Resource, Default)]
struct Verdict(Option<Result<(Vec<u8>, usize), String>>);

pub(super) struct Smoke3dPlugin;

impl Plugin for Smoke3dPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Progress>()
            .init_resource::<Verdict>()
            .add_systems(Update, drive.run_if(resource_exists::<Smoke3d>));
    }
}

/// Writes a line of the test's report where its reader is: a native run's
/// output (CI reads it), or a browser's console.
fn say(line: &str) {
    #[cfg(not(target_arch = "wasm32"))]
    println!("{line}");
    #[cfg(target_arch = "wasm32")]
    info!("{line}");
}

/// Gives the verdict once: reported ([`say`]; a failure is logged as an
/// error) and, where the test exits, as the exit status.
fn finish(
    progress: &mut Progress,
    smoke: &Smoke3d,
    exit: &mut MessageWriter<AppExit>,
    verdict: Result<String, String>,
) {
    progress.done = true;
    let status = match verdict {
        Ok(seen) => {
            say(&format!("smoke test passed: {seen}"));
            AppExit::Success
        }
        Err(why) => {
            error!("smoke test failed: {why}");
            AppExit::error()
        }
    };
    if smoke.exit {
        exit.write(status);
    }
}

#[expect(clippy::too_many_arguments, reason = "the script reads the clock, the school and the picture")]
fn drive(
    mut commands: Commands,
    smoke: Res<Smoke3d>,
    mut progress: ResMut<Progress>,
    mut verdict: ResMut<Verdict>,
    time: Res<Time<Real>>,
    (state, mut queue, recorder): (Res<Flock3dState>, ResMut<FlockCommands<Vec3>>, Res<Flock3dRecorder>),
    mut exit: MessageWriter<AppExit>,
    draws: Res<OpaqueDraws>,
) {
    if progress.done {
        return;
    }
    let now = time.elapsed_secs();
    progress.frames += 1;
    if let Some(picture) = verdict.0.take() {
        let said = picture.and_then(|(rgb, width)| judge_picture(&rgb, width, smoke.start));
        return finish(&mut progress, &smoke, &mut exit, said);
    }
    if now > smoke.timeout {
        return finish(&mut progress, &smoke, &mut exit, Err(format!("no verdict after {now:.0} s")));
    }
    if progress.dropped_at.is_none() && progress.frames >= 30 {
        if smoke.start == Start::Rules {
            let tank = *state.flock().tank();
            // As a click does: a command for the next tick.
            let drop =
                click_command(MouseButton::Left, Vec3::new(150.0, tank.min.y, 100.0), &tank, &default());
            if let Err(e) = drop
                .ok_or_else(|| "no predator for a left click".to_owned())
                .and_then(|drop| queue.submit(drop).map_err(|e| e.to_string()))
            {
                return finish(&mut progress, &smoke, &mut exit, Err(e));
            }
        }
        progress.dropped_at = Some(now);
    }
    if progress.shot || !progress.dropped_at.is_some_and(|t| now - t >= smoke.settle) {
        return;
    }
    progress.shot = true;
    let [sets, bins, single] = draws.counts();
    let line = format!(
        "opaque pass: {} draw commands for {} fish ({sets} multidraw sets, {bins} instanced bins, {single} single meshes)",
        sets + bins + single,
        state.flock().len()
    );
    say(&line);
    // The session so far (the start and the dropped predator, both through
    // the core) replays headless to the state on screen.
    if let Some(recording) = recorder.recording(&state, &queue) {
        let end = recording.replay().map_err(|e| e.to_string());
        match end {
            Ok(end) if state_hash(&end) == state_hash(state.flock()) => {
                let line = format!(
                    "the session replays: {} ticks, state hash {:016x}",
                    end.tick(),
                    state_hash(&end)
                );
                say(&line);
            }
            Ok(_) => {
                return finish(
                    &mut progress,
                    &smoke,
                    &mut exit,
                    Err("the session replayed to another state".into()),
                );
            }
            Err(e) => {
                return finish(
                    &mut progress,
                    &smoke,
                    &mut exit,
                    Err(format!("the session does not replay: {e}")),
                );
            }
        }
    }
    if !smoke.picture {
        progress.done = true;
        return say("smoke test ready for its picture");
    }
    let mut shot = commands.spawn(Screenshot::primary_window());
    // A browser has no file system: the page's test takes its own picture.
    #[cfg(not(target_arch = "wasm32"))]
    shot.observe(save_to_disk(smoke.out.clone()));
    shot.observe(|captured: On<ScreenshotCaptured>, mut verdict: ResMut<Verdict>| {
        verdict.0 = Some(match captured.image.clone().try_into_dynamic() {
            Ok(image) => {
                let rgb = image.to_rgb8();
                let width = rgb.width() as usize;
                Ok((rgb.into_raw(), width))
            }
            Err(e) => Err(format!("cannot read the screenshot: {e:?}")),
        });
    });
}

/// What a screenshot shows, by colour family (lit and fogged colours keep
/// their hue, not their exact value).
#[derive(Debug, Default)]
struct Seen {
    /// Pixels of the orange school.
    orange: usize,
    /// Pixels of the teal school.
    teal: usize,
    /// Pixels of the red predator.
    red: usize,
    /// Pixels of the sandy floor.
    sand: usize,
    /// Columns of a 16-column split holding fish pixels.
    columns_with_fish: usize,
}

impl Seen {
    fn count(rgb: &[u8], width: usize) -> Self {
        let mut seen = Seen::default();
        let mut columns = [false; 16];
        for (i, px) in rgb.chunks_exact(3).enumerate() {
            let [r, g, b] = [px[0], px[1], px[2]].map(f32::from);
            let fish = if r > 110.0 && g > 0.35 * r && g < 0.75 * r && b < 0.3 * r {
                seen.orange += 1;
                true
            } else if b > 90.0 && g > 0.75 * b && r < 0.5 * b {
                seen.teal += 1;
                true
            } else {
                if r > 110.0 && g < 0.3 * r && b < 0.3 * r {
                    seen.red += 1;
                } else if r > 70.0 && g > 0.78 * r && g < 0.95 * r && b > 0.5 * r && b < 0.72 * r {
                    seen.sand += 1;
                }
                false
            };
            if fish {
                columns[(i % width) * 16 / width.max(1)] = true;
            }
        }
        seen.columns_with_fish = columns.iter().filter(|&&c| c).count();
        seen
    }

    /// Both schools and the predator with the rules; the one school
    /// (fewer fish, gathered) under Couzin's zones; the floor always.
    fn shows_the_scene(&self, rules: bool) -> bool {
        let school = if rules {
            self.orange >= 500 && self.teal >= 100 && self.red >= 40 && self.columns_with_fish >= 6
        } else {
            self.orange >= 200
        };
        school && self.sand >= 20_000
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 320 × 200 picture: water above, sand below, and what `paint` adds.
    fn picture(paint: impl Fn(usize, usize) -> Option<[u8; 3]>) -> Vec<u8> {
        let (water, sand) = ([5, 18, 30], [194, 168, 117]);
        (0..200)
            .flat_map(|y| (0..320).map(move |x| (x, y)))
            .flat_map(|(x, y)| paint(x, y).unwrap_or(if y > 60 { sand } else { water }))
            .collect()
    }

    #[test]
    fn both_schools_a_predator_and_the_floor_pass_and_a_bare_floor_does_not() {
        let (orange, teal, red) = ([255, 140, 31], [38, 190, 215], [230, 30, 40]);
        let scene = picture(|x, y| match (x % 20, y) {
            (0..=3, 10..=20) => Some(orange),
            (10..=11, 25..=30) => Some(teal),
            _ if (150..160).contains(&x) && (40..50).contains(&y) => Some(red),
            _ => None,
        });
        let said = judge_picture(&scene, 320, Start::Rules);
        assert!(said.is_ok(), "{said:?}");

        let bare = picture(|_, _| None);
        assert!(judge_picture(&bare, 320, Start::Rules).unwrap_err().contains("lacks"));
        // Under Couzin's zones no predator is needed, the school still is.
        let school = picture(|x, y| (x % 20 < 4 && (10..=20).contains(&y)).then_some(orange));
        assert!(
            judge_picture(&school, 320, Start::Couzin(mirofish_sim::space::CollectiveState::Torus)).is_ok()
        );
        assert!(judge_picture(&school, 320, Start::Rules).is_err());
    }
}
