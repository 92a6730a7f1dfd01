//! What the plugin refused, where a game can see it: as a Bevy message
//! ([`FlockRefusal`]) and in a bounded list ([`FlockRefusals`]), besides
//! the log (which `MinimalPlugins` does not have).

use std::collections::VecDeque;

use bevy::prelude::*;
use mirofish_sim::ParamError;

/// What was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refused {
    /// A [`crate::FlockConfig`] (the last valid one stays in force), or a
    /// start from one ([`crate::LoadConfig`], [`crate::Restart`]: the run
    /// goes on as it was).
    Config,
    /// A [`crate::SpawnSchool`] (nothing was spawned).
    Spawn,
    /// An [`crate::Obstacle2d`] entity (ignored while it stays invalid).
    Obstacle(Entity),
    /// A [`crate::Predator2d`] entity (ignored while it stays invalid).
    Predator(Entity),
    /// A configuration file, by asset path (the configuration in force
    /// stays; the `asset` feature).
    File(String),
    /// A [`crate::volume::SetScene3d`] (the scene in force stays).
    Scene,
    /// A recorded session's start or replay ([`crate::FlockRecorderOf`];
    /// the run goes on as it was).
    Session,
    /// A command the plane's plugin does not apply (Couzin's zones, which
    /// only the generic engine has).
    Command,
}

/// One refusal: what, why (the field and the value), and at which tick.
/// Written as a message when it happens; read it with a
/// `MessageReader<FlockRefusal>`, or look at [`FlockRefusals`].
#[derive(Message, Clone, Debug, PartialEq)]
pub struct FlockRefusal {
    /// The tick about to run when it was refused.
    pub tick: u64,
    /// What was refused.
    pub what: Refused,
    /// Why.
    pub error: ParamError,
}

impl core::fmt::Display for FlockRefusal {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "tick {}: refused {:?}: {}", self.tick, self.what, self.error)
    }
}

/// The latest refusals, oldest first (at most [`FlockRefusals::CAPACITY`]),
/// and how many there have been in all.
#[derive(Resource, Clone, Debug, Default)]
pub struct FlockRefusals {
    recent: VecDeque<FlockRefusal>,
    total: u64,
}

impl FlockRefusals {
    /// Most refusals kept.
    pub const CAPACITY: usize = 64;

    /// The latest refusals, oldest first.
    pub fn recent(&self) -> impl Iterator<Item = &FlockRefusal> {
        self.recent.iter()
    }

    /// Refusals since the plugin started, including those no longer kept.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Keeps `refusal`, dropping the oldest beyond the capacity.
    pub(crate) fn keep(&mut self, refusal: FlockRefusal) {
        if self.recent.len() == Self::CAPACITY {
            self.recent.pop_front();
        }
        self.recent.push_back(refusal);
        self.total += 1;
    }
}

/// Reports `refusal` everywhere: the log, the list and the message queue.
pub(crate) fn report(
    refusals: &mut FlockRefusals,
    messages: &mut MessageWriter<FlockRefusal>,
    refusal: FlockRefusal,
) {
    log::warn!("MiroFish: {refusal}");
    refusals.keep(refusal.clone());
    messages.write(refusal);
}

/// [`report`] with the world at hand (commands applied outside systems).
pub(crate) fn report_in(world: &mut World, refusal: FlockRefusal) {
    log::warn!("MiroFish: {refusal}");
    if let Some(mut refusals) = world.get_resource_mut::<FlockRefusals>() {
        refusals.keep(refusal.clone());
    }
    world.write_message(refusal);
}
