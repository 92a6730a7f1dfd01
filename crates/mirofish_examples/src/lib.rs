//! What MiroFish's windowed examples share (not published): the
//! [`aquarium`] scene — two schools drawn as batched sprites, an egui panel
//! with every parameter, mouse tools, a debug overlay and the screenshot
//! self-test CI runs —, the [`aquarium3d`] (a lit glass tank, an orbiting
//! camera, a panel with the order parameters, plots, the rules' knobs and
//! Couzin's zones with a start per state, and its self-test), and the
//! [`headless`] run. The examples and the web page (`mirofish_web`) add
//! them to a window.
//!
//! The library crates (`mirofish_sim`, `mirofish_bevy`) never ask Bevy for
//! a window or a renderer; this crate does, for the examples only, the way
//! avian keeps its demo code in `examples_common` crates.

pub mod aquarium;
pub mod aquarium3d;
pub mod headless;
