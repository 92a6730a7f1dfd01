//! How a school stores its fish: the slots of its columns and the ids that
//! name the fish whichever slot holds them.

use glam::Vec2;

/// How a school ([`Swarm`](crate::space::Swarm)) numbers its slots.
///
/// Either way each fish has an *id*
/// ([`Swarm::ids`](crate::space::Swarm::ids)): the slot it would hold
/// under [`SlotOrder::Stable`] (dense, `0..len`). The noise a fish draws
/// and the order in which its neighbours are summed follow the ids, so the
/// two orders give every fish the same bits, tick after tick (the
/// determinism tests compare them); only where each fish is stored, and the
/// speed, differ.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SlotOrder {
    /// A fish keeps its slot until a fish is removed (the last one then
    /// moves into the hole, as with [`Vec::swap_remove`]): slot and id are
    /// the same. What the Bevy plugins need, whose entities name their
    /// fish by id.
    #[default]
    Stable,
    /// Every tick renumbers the slots in the grid's order, so that fish near
    /// in the tank are near in memory: the next tick then sorts, gathers
    /// and integrates them with reads that run along memory instead of
    /// jumping about it. It pays where the school no longer fits in the
    /// cache (around a million fish); below that the renumbering costs
    /// about what it saves. Slots (the indices of
    /// [`Swarm::positions`](crate::space::Swarm::positions) and the rest)
    /// then change every tick: follow a fish by its id.
    Spatial,
}

/// The inputs of a range of fish, one slice per column, from
/// [`Swarm::inputs_mut`](crate::space::Swarm::inputs_mut): what a tick
/// reads of each fish besides its fear.
#[derive(Debug)]
pub struct FishInputs<'a, V = Vec2> {
    /// Positions.
    pub position: &'a mut [V],
    /// Velocities.
    pub velocity: &'a mut [V],
    /// Wander phases (radians).
    pub wander_phase: &'a mut [f32],
    /// Whether each fish leads.
    pub leader: &'a mut [bool],
    /// Each fish's school (an index into the school table).
    pub school: &'a mut [u16],
}
