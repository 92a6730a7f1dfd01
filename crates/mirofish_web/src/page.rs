//! The functions the page's script calls.

use bevy::asset::AssetMetaCheck;
use bevy::prelude::*;
use mirofish_examples::aquarium::{AquariumPlugin, AquariumSettings, SmokeTest, panel::MAX_FISH};
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
/// browser then drives the frames.
/// With `smoke` the screenshot self-test runs and logs `smoke test passed`
/// or `smoke test failed` to the console.
#[wasm_bindgen]
pub fn aquarium(canvas: &str, fish: Option<u32>, seed: Option<u32>, smoke: bool) {
    let mut settings = AquariumSettings::default();
    settings.fish = fish.map_or(settings.fish, |n| n as usize).min(MAX_FISH);
    settings.seed = seed.map_or(settings.seed, u64::from);
    let mut app = App::new();
    app.add_plugins(
        DefaultPlugins
            .set(WindowPlugin {
                primary_window: Some(Window {
                    title: "MiroFish aquarium".into(),
                    canvas: Some(canvas.into()),
                    fit_canvas_to_parent: true,
                    ..default()
                }),
                ..default()
            })
            // Everything the aquarium shows is compiled in: no asset or
            // `.meta` file to ask the server for.
            .set(AssetPlugin { meta_check: AssetMetaCheck::Never, ..default() }),
    )
    .add_plugins(AquariumPlugin { settings })
    .add_systems(Last, first_frame);
    if smoke {
        app.insert_resource(SmokeTest { exit: false, ..SmokeTest::new("the page's test") });
    }
    app.run();
}

/// Logs when the first frame has been drawn (at the start of the second
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
