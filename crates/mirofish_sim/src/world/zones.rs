//! The parameters of Couzin's zone model: three nested zones, a speed and
//! a turning rate, checked like every other number that enters from
//! outside. The model itself, which moves fish by them, is
//! [`crate::space::zones`]'s; the parameters live down here so that a
//! command ([`crate::FlockCommand::SetZones`]) can carry them.

use crate::world::params::{MAX_LENGTH, ParamError, Range, check};

/// The zones, speed and turning of Couzin's model. Lengths in world units,
/// angles in radians, the speed per second and the turning rate radians
/// per second.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Zones {
    /// Radius of the zone of repulsion.
    pub repulsion: f32,
    /// Width of the zone of orientation, beyond the repulsion radius.
    pub orientation_width: f32,
    /// Width of the zone of attraction, beyond the orientation zone.
    pub attraction_width: f32,
    /// The angle a fish sees (the rest, behind it, is blind).
    pub field_of_view: f32,
    /// The fastest a fish turns.
    pub turn_rate: f32,
    /// The speed every fish swims at.
    pub speed: f32,
    /// Radius of the random turn added to the wished direction each tick.
    pub noise: f32,
    /// Crowding control, as [`FlockParams::neighbour_cap`] is for the
    /// rules: a fish whose block of cells holds more candidates than
    /// about this many neighbours' worth (`3 × neighbour_cap` on a plane,
    /// `6 × neighbour_cap` in a volume, the candidates a uniform school
    /// has per neighbour in reach) looks at every `k`-th of them only, so
    /// that a dense ball or a whole school on one point costs a small
    /// multiple of a uniform tick instead of the square of its size. Below
    /// the threshold the model is exact: at the default (256) every school
    /// of a few hundred fish, as in the paper, is. The price past it: a
    /// fish sees a thinned, deterministic sample of its zones, and may
    /// miss a neighbour in its zone of repulsion, so very large crowds
    /// pack closer. 1 to [`MAX_ZONE_NEIGHBOUR_CAP`]; raise it for the exact
    /// model in big schools, at the square's cost in a crowd.
    ///
    /// [`FlockParams::neighbour_cap`]: crate::FlockParams::neighbour_cap
    pub neighbour_cap: u32,
}

/// The default [`Zones::neighbour_cap`].
pub const DEFAULT_ZONE_NEIGHBOUR_CAP: u32 = 256;

/// The largest [`Zones::neighbour_cap`]: under it a school of a million
/// fish is never thinned.
pub const MAX_ZONE_NEIGHBOUR_CAP: u32 = 1_000_000;

impl Default for Zones {
    /// The paper's parameters with 1 unit of the paper = 10 world units: repulsion 10,
    /// orientation 20 wide, attraction 140 wide, 270° field of view, 40° per
    /// second, speed 30 per second, noise 0.05; a crowd past 256
    /// neighbours is thinned ([`Zones::neighbour_cap`]).
    fn default() -> Self {
        Self {
            repulsion: 10.0,
            orientation_width: 20.0,
            attraction_width: 140.0,
            field_of_view: 270f32.to_radians(),
            turn_rate: 40f32.to_radians(),
            speed: 30.0,
            noise: 0.05,
            neighbour_cap: DEFAULT_ZONE_NEIGHBOUR_CAP,
        }
    }
}

impl Zones {
    /// The outer radius of the orientation zone.
    pub fn orientation(&self) -> f32 {
        self.repulsion + self.orientation_width
    }

    /// The outer radius of the attraction zone: how far a fish looks.
    pub fn reach(&self) -> f32 {
        self.orientation() + self.attraction_width
    }

    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<(), ParamError> {
        check("zones.repulsion", self.repulsion, Range::NonNegative(MAX_LENGTH))?;
        check("zones.orientation_width", self.orientation_width, Range::NonNegative(MAX_LENGTH))?;
        check("zones.attraction_width", self.attraction_width, Range::NonNegative(MAX_LENGTH))?;
        check("zones.field_of_view", self.field_of_view, Range::Closed(0.0, core::f32::consts::TAU))?;
        check("zones.turn_rate", self.turn_rate, Range::NonNegative(MAX_LENGTH))?;
        check("zones.speed", self.speed, Range::NonNegative(MAX_LENGTH))?;
        check("zones.noise", self.noise, Range::Closed(0.0, 10.0))?;
        check(
            "zones.neighbour_cap",
            self.neighbour_cap as f32,
            Range::Closed(1.0, MAX_ZONE_NEIGHBOUR_CAP as f32),
        )
    }
}
