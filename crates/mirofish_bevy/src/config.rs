//! The flock's configuration as a resource, validated before use.

use bevy::prelude::*;
use mirofish_sim::{Attractor, FlockParams, Goal, ParamError, Scene, Tank};

/// Everything that shapes the school: the rules' parameters, the tank and
/// the seed. Change it at any time; the next tick validates it and either
/// applies it or keeps the last valid one and reports the error (see
/// [`FlockConfig::validate`] and [`crate::FlockState::rejected`]).
#[derive(Resource, Clone, Debug, Default, PartialEq)]
pub struct FlockConfig {
    /// Radii, limits and rule weights of school 0 (every fish without a
    /// [`crate::School`] component).
    pub params: FlockParams,
    /// Parameters of schools 1, 2, …, for fish with a [`crate::School`]
    /// component (a fish whose school has no entry uses the last one).
    pub schools: Vec<FlockParams>,
    /// The tank and its walls.
    pub tank: Tank,
    /// Seed of the initial scatter and of all per-tick noise.
    pub seed: u64,
    /// A point the school heads for (or flees), if any.
    pub goal: Option<Goal>,
    /// An attract/repel point (e.g. under the mouse), if any.
    pub attractor: Option<Attractor>,
}

impl FlockConfig {
    /// Every school's parameters, school 0 first.
    pub fn school_table(&self) -> Vec<FlockParams> {
        core::iter::once(self.params).chain(self.schools.iter().copied()).collect()
    }

    /// Checks the parameters and the tank; the error names the bad field.
    pub fn validate(&self) -> Result<(), ParamError> {
        self.params.validate()?;
        for school in &self.schools {
            school.validate()?;
        }
        self.tank.validate()?;
        Scene { goal: self.goal, attractor: self.attractor, ..Scene::default() }.validate()
    }
}
