//! The ordered system sets of one fixed tick.

use bevy::prelude::*;

/// The stages of one simulation tick, run in [`FixedUpdate`] in exactly this
/// order (chained by [`crate::MiroFishPlugin`]). Put your own systems
/// `.before(BoidSystems::SpatialIndex)` to act on the coming tick, or
/// `.after(BoidSystems::Writeback)` to observe its result.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoidSystems {
    /// Runs in [`FixedUpdate`], first: the place for systems that submit
    /// [`crate::FlockCommands`] for this tick. Right after it the plugin
    /// applies every command due this tick, in their fixed order.
    Commands,
    /// Runs in [`FixedUpdate`]. Copies every fish's ECS state into the
    /// flock's arrays (in query order, which is a deterministic function of
    /// the spawn history), applies a changed [`crate::FlockConfig`] if it is
    /// valid, and rebuilds the uniform-grid neighbour index.
    SpatialIndex,
    /// Runs in [`FixedUpdate`]. Sums every fish's neighbourhood and weights
    /// separation, alignment, cohesion, wander, the soft margin and the
    /// scene into one acceleration, clamped once to `max_force` — in
    /// parallel, reading only the previous tick's state.
    Forces,
    /// Runs in [`FixedUpdate`]. Adds every fish's [`crate::ExtraSteering`]
    /// to the steering the rules gave it and clamps the sum to its
    /// school's `max_force` (the rules' own total is clamped within
    /// [`BoidSystems::Forces`], where it is computed). A system placed
    /// before this set may write `ExtraSteering`; one placed after it may
    /// read the final steering in [`crate::FlockState`]'s flock (by
    /// [`crate::FishSlot`]). Nothing to do, and no cost, when no fish has
    /// an `ExtraSteering`.
    Clamp,
    /// Runs in [`FixedUpdate`]. Semi-implicit Euler: velocity, speed clamp,
    /// then position; advances the wander phase and fear; then applies the
    /// tank's walls (wrap, bounce or the soft margin's hard backstop) and
    /// pushes fish out of obstacles.
    Integrate,
    /// Runs in [`FixedUpdate`]. The leaders' route advances and predators
    /// hunt and move.
    Predators,
    /// Runs in [`FixedUpdate`]. Writes the new state back to
    /// [`crate::Position`], [`crate::Velocity`], [`crate::Steering`],
    /// [`crate::WanderPhase`] and [`crate::PreviousPosition`].
    Writeback,
}

impl BoidSystems {
    /// All sets in the order they run.
    pub const ORDER: [BoidSystems; 7] = [
        BoidSystems::Commands,
        BoidSystems::SpatialIndex,
        BoidSystems::Forces,
        BoidSystems::Clamp,
        BoidSystems::Integrate,
        BoidSystems::Predators,
        BoidSystems::Writeback,
    ];
}
