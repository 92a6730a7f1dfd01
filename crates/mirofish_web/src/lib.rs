//! MiroFish in a browser: the entry points of the web page in `web/`.
//!
//! Built for `wasm32-unknown-unknown` and bound with `wasm-bindgen`
//! (`bash web/run` does both and serves the page on 127.0.0.1), this crate
//! exports these functions to the page's script:
//!
//! - `aquarium(canvas, fish, seed, smoke)`: the aquarium in the page's
//!   canvas, on one thread; with `smoke` the screenshot self-test runs and
//!   writes its verdict to the console, as the native one prints it;
//! - `aquarium3d(canvas, fish, seed, smoke)`: the same for the 3D
//!   aquarium, whose self-test stops at its picture (Bevy's screenshot of
//!   a lit 3D frame does not come back under WebGL2), and
//!   `judge_picture3d(png)`, its picture rule, for the browser's picture;
//! - `headless(arguments)`: the `headless` example's run (the same
//!   arguments, e.g. `--fish 3000 --ticks 120 --seed 7`) and its report,
//!   whose state hash equals the native run's.
//!
//! What needs threads or files is left out of the page: the decision layer
//! (its deciders run on worker threads), and saving a recording or a
//! configuration (the panel says the file was not saved; recording and
//! replaying in the page work).
//!
//! For any other target the crate is empty.

#[cfg(target_arch = "wasm32")]
mod page;
