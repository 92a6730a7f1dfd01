//! The functions the page's script calls.

use bevy::asset::AssetMetaCheck;
use bevy::asset::RenderAssetUsages;
use bevy::image::{CompressedImageFormats, ImageSampler, ImageType};
use bevy::prelude::*;
use mirofish_examples::aquarium::{AquariumPlugin, AquariumSettings, SmokeTest, panel::MAX_FISH};
use mirofish_examples::aquarium3d::{Aquarium3dPlugin, Smoke3d, Start, judge_picture};
use mirofish_examples::headless::HeadlessRun;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// Milliseconds since the page started loading.
    #[wasm_bindgen(js_namespace = performance)]
    fn now() -> f64;
}

/// Starts the aquarium in the canvas `canvas` (a CSS selector) with `fish`
/// fish and `seed` (the scene's own where not given); returns at once, the
/// browser then drives the frames. With `smoke` the screenshot self-test
/// runs and logs `smoke test passed` or `smoke test failed` to the console.
#[wasm_bindgen]
pub fn aquarium(canvas: &str, fish: Option<u32>, seed: Option<u32>, smoke: bool) {
    let mut settings = AquariumSettings::default();
    settings.fish = fish.map_or(settings.fish, |n| n as usize).min(MAX_FISH);
    settings.seed = seed.map_or(settings.seed, u64::from);
    let mut app = page_app(canvas, "MiroFish aquarium");
    if smoke {
        app.insert_resource(SmokeTest { exit: false, ..SmokeTest::new("the page's test") });
    }
    app.add_plugins(AquariumPlugin { settings }).run();
}

/// Starts the 3D aquarium in the canvas `canvas`, as [`aquarium`] does the
/// 2D one (at most the 2D panel's number of fish).
#[wasm_bindgen]
pub fn aquarium3d(canvas: &str, fish: Option<u32>, seed: Option<u32>, smoke: bool) {
    let mut aquarium = Aquarium3dPlugin::default();
    aquarium.fish = fish.map_or(aquarium.fish, |n| n as usize).min(MAX_FISH);
    aquarium.seed = seed.map_or(aquarium.seed, u64::from);
    let mut app = page_app(canvas, "MiroFish aquarium 3D");
    if smoke {
        let test = Smoke3d::new("the page's test", aquarium.start);
        // A browser drawing on the CPU takes seconds a frame for its
        // first frames (it compiles the lit shaders then).
        app.insert_resource(Smoke3d { exit: false, picture: false, timeout: 900.0, ..test });
    }
    app.add_plugins(aquarium).run();
}

/// Judges a picture (PNG) of the 3D aquarium's page as its self-test
/// judges its own screenshot natively ([`judge_picture`]): `Ok` with what
/// it saw, or what is missing.
#[wasm_bindgen]
pub fn judge_picture3d(png: &[u8]) -> Result<String, JsValue> {
    let image = Image::from_buffer(
        png,
        ImageType::Extension("png"),
        CompressedImageFormats::NONE,
        true,
        ImageSampler::Default,
        RenderAssetUsages::default(),
    )
    .map_err(|e| JsValue::from_str(&format!("not a PNG picture: {e}")))?;
    let rgb = image.try_into_dynamic().map_err(|e| JsValue::from_str(&format!("{e:?}")))?.to_rgb8();
    judge_picture(rgb.as_raw(), rgb.width() as usize, Start::Rules).map_err(|e| JsValue::from_str(&e))
}

/// Bevy's default plugins drawing into the page's canvas.
fn page_app(canvas: &str, title: &str) -> App {
    let mut app = App::new();
    app.add_plugins(
        DefaultPlugins
            .set(WindowPlugin {
                primary_window: Some(Window {
                    title: title.into(),
                    canvas: Some(canvas.into()),
                    fit_canvas_to_parent: true,
                    ..default()
                }),
                ..default()
            })
            // Everything the aquariums show is compiled in: no asset or
            // `.meta` file to ask the server for.
            .set(AssetPlugin { meta_check: AssetMetaCheck::Never, ..default() }),
    )
    .add_systems(Last, first_frame);
    app
}

/// Logs when the first frame has been drawn (at the end of the second
/// update), in milliseconds since the page started loading.
fn first_frame(mut updates: Local<u32>) {
    *updates += 1;
    if *updates == 2 {
        info!("first frame drawn {:.0} ms after the page started loading", now());
    }
}

/// Runs the `headless` example with `arguments` (the same flags) and returns
/// its report, or the arguments' error.
#[wasm_bindgen]
pub fn headless(arguments: &str) -> Result<String, JsValue> {
    let run = HeadlessRun::parse(arguments.split_whitespace().map(str::to_owned))
        .map_err(|e| JsValue::from_str(&e))?;
    Ok(run.run().to_string())
}
