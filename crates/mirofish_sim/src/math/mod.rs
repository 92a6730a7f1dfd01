//! The arithmetic everything else is written in, below every other layer.
//!
//! - [`vector`]: the [`Vector`] trait a school's state and its rules are
//!   written over ([`glam::Vec2`] on a plane, [`glam::Vec3`] in a volume);
//! - [`angle`]: sine and cosine with the same bits on every platform;
//! - [`exp`](mod@exp) and [`root`]: `e^x` and the cube root with the same
//!   bits on every platform;
//! - four- and eight-lane arithmetic for the vectorised force pass.
//!
//! Nothing here knows about fish: this module imports no other module of
//! the crate.

pub mod angle;
pub mod exp;
pub(crate) mod lanes;
pub mod root;
pub mod vector;

pub use vector::Vector;
