//! The school's configuration as a resource, validated before use, in
//! either space.

use bevy::prelude::*;
use mirofish_sim::space::{Swarm, Zones};
use mirofish_sim::{Attractor, FlockParams, Goal, ParamError, RunConfig, Scene, TankOf};

use crate::space::Space;

/// Everything that shapes the school: the rules' parameters, the tank and
/// the seed. Change it at any time; the next tick validates it and either
/// applies it or keeps the last valid one and reports the error (see
/// [`FlockConfigOf::validate`] and [`crate::FlockState::rejected`]); the
/// commands that change what it holds (parameters, tank, zones, goals,
/// attractor) are written back to it. [`FlockConfig`] on a plane,
/// [`Flock3dConfig`](crate::volume::Flock3dConfig) in a volume.
///
/// It is `Reflect` (as are the core's parameter, tank and scene types it
/// holds), so an inspector can show and edit it; an edit is validated at the
/// next tick like any other change.
#[derive(Resource, Clone, Debug, PartialEq, Reflect)]
#[reflect(Resource, Debug, Default, PartialEq)]
pub struct FlockConfigOf<V: Space> {
    /// Radii, limits and rule weights of school 0 (every fish without a
    /// [`crate::School`] component).
    pub params: FlockParams,
    /// Parameters of schools 1, 2, …, for fish with a [`crate::School`]
    /// component (a fish whose school has no entry uses the last one).
    pub schools: Vec<FlockParams>,
    /// The tank and its walls.
    pub tank: TankOf<V>,
    /// Seed of the initial scatter and of all per-tick noise.
    pub seed: u64,
    /// A point every school heads for (or flees), if any.
    pub goal: Option<Goal<V>>,
    /// Goals per school (index = school number), overriding `goal` for
    /// that school.
    pub school_goals: Vec<Option<Goal<V>>>,
    /// An attract/repel point (e.g. under the mouse), if any.
    pub attractor: Option<Attractor<V>>,
    /// Couzin's zone model (constant speed, bounded turning, three zones)
    /// instead of the weighted rules, if set, as in a volume; see
    /// [`Swarm::set_zones`](mirofish_sim::space::Swarm::set_zones).
    #[reflect(ignore)]
    pub zones: Option<Zones>,
    /// Display colour of each school (index = school number) as sRGB
    /// components in 0–1, for whatever draws the fish; the simulation
    /// itself ignores it. Schools without an entry get
    /// [`FlockConfigOf::colour_of`]'s palette colour.
    pub colours: Vec<[f32; 3]>,
}

/// The school's configuration on a plane.
pub type FlockConfig = FlockConfigOf<Vec2>;

/// The palette [`FlockConfigOf::colour_of`] falls back on: warm orange, teal,
/// pale yellow, coral pink, sky blue, lime.
pub const SCHOOL_PALETTE: [[f32; 3]; 6] = [
    [1.0, 0.62, 0.25],
    [0.2, 0.78, 0.72],
    [0.95, 0.9, 0.45],
    [0.98, 0.45, 0.5],
    [0.45, 0.7, 1.0],
    [0.6, 0.9, 0.35],
];

impl<V: Space> Default for FlockConfigOf<V> {
    fn default() -> Self {
        Self {
            params: FlockParams::default(),
            schools: Vec::new(),
            tank: TankOf::default(),
            seed: 0,
            goal: None,
            school_goals: Vec::new(),
            attractor: None,
            zones: None,
            colours: Vec::new(),
        }
    }
}

impl<V: Space> From<&RunConfig<V>> for FlockConfigOf<V> {
    /// The plugin's part of a configuration file: every school's
    /// parameters and colour, the tank, the seed, the zones, the goals and
    /// the attractor (fish, rocks, predators and the route are entities
    /// and commands: [`LoadConfig`](crate::LoadConfig) starts the whole
    /// file).
    fn from(config: &RunConfig<V>) -> Self {
        Self {
            params: config.params,
            schools: config.schools.iter().map(|s| s.params).collect(),
            tank: config.tank,
            seed: config.seed,
            goal: config.scene.goal,
            school_goals: config.scene.school_goals.clone(),
            attractor: config.scene.attractor,
            zones: config.zones,
            // Up to the last school that names a colour; the palette's
            // before it where a school names none.
            colours: Self::default().colours_with(config),
        }
    }
}

impl<V: Space> FlockConfigOf<V> {
    /// These colours with those `file` names put in: a school the file
    /// gives a colour takes it, every other keeps its own
    /// ([`FlockConfigOf::colour_of`]).
    pub fn colours_with(&self, file: &RunConfig<V>) -> Vec<[f32; 3]> {
        let mut colours = self.colours.clone();
        for (school, s) in file.all_schools().enumerate() {
            if let Some(colour) = s.colour {
                if colours.len() <= school {
                    colours.extend((colours.len()..=school).map(|k| self.colour_of(k as u16)));
                }
                colours[school] = colour;
            }
        }
        colours
    }

    /// The display colour of school `school` (sRGB, 0–1): its entry in
    /// [`FlockConfigOf::colours`], else the palette's, cycling.
    pub fn colour_of(&self, school: u16) -> [f32; 3] {
        let i = usize::from(school);
        self.colours.get(i).copied().unwrap_or(SCHOOL_PALETTE[i % SCHOOL_PALETTE.len()])
    }

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
        Scene {
            goal: self.goal,
            school_goals: self.school_goals.clone(),
            attractor: self.attractor,
            ..Scene::default()
        }
        .validate()?;
        self.zones.as_ref().map_or(Ok(()), Zones::validate)
    }

    /// An empty school with these parameters, tank, seed, zones, goals and
    /// attractor; the error names the first bad field.
    pub fn build(&self) -> Result<Swarm<V>, ParamError> {
        self.validate()?;
        let mut school = Swarm::new(self.params, self.tank, 0, self.seed)?;
        self.apply(&mut school)?;
        Ok(school)
    }

    /// Hands this (validated) configuration's school table, zones, tank,
    /// goals and attractor to `flock`. The rocks go first (the scene's
    /// gather puts back those that fit the new tank), so that the old
    /// rocks need not fit it.
    pub(crate) fn apply(&self, flock: &mut Swarm<V>) -> Result<(), ParamError> {
        flock.set_schools(&self.school_table())?;
        flock.set_zones(self.zones)?;
        flock.edit_scene(|scene| scene.obstacles.clear())?;
        flock.set_tank(self.tank)?;
        flock.edit_scene(|scene| {
            scene.goal = self.goal;
            scene.school_goals.clone_from(&self.school_goals);
            scene.attractor = self.attractor;
        })
    }
}
