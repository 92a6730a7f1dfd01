//! What MiroFish's windowed examples share (not published): the
//! [`aquarium`] scene — two schools drawn as batched sprites, an egui panel
//! with every parameter, mouse tools, a debug overlay and the screenshot
//! self-test CI runs — and the [`aquarium3d`] panel (order parameters,
//! plots, the rules' knobs and Couzin's zones with a start per state) —
//! and the [`headless`] run the `headless` example and the web page share.
//!
//! The library crates (`mirofish_sim`, `mirofish_bevy`) never ask Bevy for
//! a window or a renderer; this crate does, for the examples only, the way
//! avian keeps its demo code in `examples_common` crates.

pub mod aquarium;
pub mod aquarium3d;
pub mod headless;
