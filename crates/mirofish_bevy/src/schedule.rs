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
    /// hands every command due this tick to the core, which applies them
    /// in their fixed order once the fish are gathered.
    Commands,
    /// Runs in [`FixedUpdate`]. Takes out of the core the fish whose
    /// entities a game despawned (the fish with the highest id takes each
    /// freed id), takes in on a plane the fish it spawned (the next ids, in
    /// the order they arrived), takes into the flock's arrays what it wrote
    /// to the fish's components since the last write-back, applies a
    /// changed [`crate::FlockConfig`] if it is valid, then the tick's
    /// commands, and rebuilds the uniform-grid neighbour index.
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
    /// [`crate::FishId`]). Nothing to do, and no cost, when no fish has
    /// an `ExtraSteering`. A system that computes forces from the flock's
    /// arrays adds them here with [`crate::FlockState::add_steering`].
    Clamp,
    /// Runs in [`FixedUpdate`]. Semi-implicit Euler: velocity (`v += a·dt`),
    /// speed clamp (raised by fear), then position with the new velocity;
    /// advances the wander phase and fear. Fish may now stand outside the
    /// tank or inside a rock: a system placed after this set and before
    /// [`BoidSystems::Boundary`] may move them
    /// ([`crate::FlockState::set_motion`]: a current, a net, a teleport),
    /// and the boundary then brings them in like any fish.
    Integrate,
    /// Runs in [`FixedUpdate`]. The tank's walls (wrap, bounce, or the soft
    /// margin's hard backstop) and the rocks: every fish is brought inside
    /// the tank and out of every obstacle. After it, every position in the
    /// flock is valid.
    Boundary,
    /// Runs in [`FixedUpdate`]. The leaders' route advances and predators
    /// hunt and move.
    Predators,
    /// Runs in [`FixedUpdate`]. Gives an entity to each fish, rock and
    /// predator the tick's commands added (and takes those of the ones they
    /// removed), then writes the new state back to [`crate::Position`],
    /// [`crate::Velocity`], [`crate::Steering`], [`crate::WanderPhase`] and
    /// [`crate::PreviousPosition`].
    Writeback,
}

impl BoidSystems {
    /// All sets in the order they run.
    pub const ORDER: [BoidSystems; 8] = [
        BoidSystems::Commands,
        BoidSystems::SpatialIndex,
        BoidSystems::Forces,
        BoidSystems::Clamp,
        BoidSystems::Integrate,
        BoidSystems::Boundary,
        BoidSystems::Predators,
        BoidSystems::Writeback,
    ];
}
