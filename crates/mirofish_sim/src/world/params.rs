//! A school's parameters, and the validation every number from outside
//! passes.
//!
//! Every number a user can type passes through [`FlockParams::validate`],
//! [`Tank::validate`](crate::Tank::validate) or a scene element's own check
//! before the simulation sees it. Validation rejects what
//! cannot mean anything (a negative radius, a NaN weight) with an error that
//! names the field; odd but meaningful combinations (a separation radius larger
//! than the perception radius, `max_force = 0`, zero weights) are accepted,
//! because the kernel is written to stay finite for all of them.
//!
//! Units: lengths are world units, speeds world units per second and forces
//! (accelerations) world units per second². Classic boids tunings quote their values per
//! frame at 60 fps; [`FlockParams::from_per_frame`] converts.

use core::fmt;

/// Largest radius or speed accepted. Beyond it `f32` positions lose the
/// precision that the distance tests need.
pub const MAX_LENGTH: f32 = 1.0e6;
/// Largest absolute rule weight accepted; keeps weighted sums far from `f32`
/// overflow.
pub const MAX_WEIGHT: f32 = 1.0e3;
/// Largest turning rate ([`FlockParams::turn_rate`], radians per second)
/// accepted: a full turn in a millisecond, far past anything a fish does.
pub const MAX_TURN_RATE: f32 = 1.0e4;
/// Largest acceleration (`max_force`) accepted.
pub const MAX_ACCELERATION: f32 = 1.0e9;
/// Largest tank side accepted.
pub const MAX_TANK_SIDE: f32 = 1.0e7;
/// Most fish one simulation holds: a simulation, a configuration or a spawn
/// that would exceed it is refused (a count mistyped as `usize::MAX` must be
/// an error, not an attempt to allocate it).
pub const MAX_FISH: usize = 10_000_000;
/// The frame rate per-frame numbers ([`PerFrame`]) assume.
pub const SEED_FRAME_RATE: f32 = 60.0;

/// The parameters of one school: radii, limits and the weight of each rule.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "reflect", derive(bevy_reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct FlockParams {
    /// Radius within which neighbours count for alignment and cohesion
    /// (world units). Also the grid's cell size.
    pub perception_radius: f32,
    /// Radius within which neighbours push a fish away (world units). The
    /// usual advice is 1/2.5–1/3 of the perception radius.
    pub separation_radius: f32,
    /// Distances below this count as this distance in the 1/r separation
    /// falloff, so coincident fish get a large but finite push.
    pub separation_floor: f32,
    /// Speed limit (world units per second).
    pub max_speed: f32,
    /// The speed a fish settles to when nothing hurries it (world units
    /// per second): each tick its speed relaxes towards this over
    /// [`FlockParams::cruise_time`], as real fish keep a preferred cruising
    /// speed instead of swimming flat out. Fear raises it as it raises
    /// `max_speed`; it never exceeds the speed limit. 0 (the reference
    /// model) leaves speed to the forces alone, clipped at `max_speed`.
    pub cruise_speed: f32,
    /// Time over which speed relaxes to [`FlockParams::cruise_speed`]
    /// (seconds; about 1 s for fish). Ignored when `cruise_speed` is 0.
    pub cruise_time: f32,
    /// Fastest turn (radians per second): a fish's heading changes by at
    /// most this times the tick, whatever the forces ask (fear raises it as
    /// it raises `max_speed`). A school then turns as a body instead of
    /// every fish snapping to its neighbours' mean. 0 (the reference
    /// model) leaves turning unbounded.
    pub turn_rate: f32,
    /// Limit of the total steering acceleration (world units per second²),
    /// applied once to the weighted sum of all rules.
    pub max_force: f32,
    /// Weight of separation.
    pub separation_weight: f32,
    /// Weight of alignment.
    pub alignment_weight: f32,
    /// Weight of cohesion.
    pub cohesion_weight: f32,
    /// Weight of the wander force (0.15–0.3 looks alive without dissolving
    /// the school).
    pub wander_weight: f32,
    /// How fast each fish's wander direction turns (radians per second).
    pub wander_rate: f32,
    /// Bounded random acceleration added before the clamp, as a fraction of
    /// `max_force` (0–1). Breaks the symmetry of perfectly ordered starts.
    pub jitter: f32,
    /// Time over which a desired velocity change is made (seconds): a rule's
    /// velocity difference divided by it is the acceleration it asks for.
    /// Classic boids apply steering once per 60 Hz frame, i.e. 1/60 s.
    pub reaction_time: f32,
    /// Full view angle (radians, 0–2π). Neighbours in the blind spot behind
    /// take no part in alignment and cohesion; 2π (the default) sees all
    /// round. Many fish see about 300°.
    pub view_angle: f32,
    /// Weight of seen neighbours within ±45° of the heading.
    pub front_weight: f32,
    /// Weight of seen neighbours between ±45° and ±135°.
    pub side_weight: f32,
    /// Weight of seen neighbours beyond ±135° (a natural choice: front 1.0, side
    /// 0.5, back 0.2; the default weighs all alike).
    pub back_weight: f32,
    /// Distance weighting (0–1): a neighbour at distance `d` counts
    /// `1 - distance_falloff · d / perception_radius`. 0 weighs all alike.
    pub distance_falloff: f32,
    /// How much more a leader counts for its followers' alignment and
    /// cohesion.
    pub leader_weight: f32,
    /// Weight of obstacle avoidance.
    pub obstacle_weight: f32,
    /// Distance from an obstacle's surface at which avoidance starts
    /// (world units).
    pub obstacle_look: f32,
    /// Weight of fleeing from predators.
    pub flee_weight: f32,
    /// Speed limit multiplier of a fully afraid fish (≥ 1).
    pub panic_speed: f32,
    /// Separation weight multiplier of a fully afraid fish (≥ 1): frightened
    /// fish keep more distance.
    pub panic_separation: f32,
    /// How fast fear fades once the predator is gone (per second; fear is
    /// multiplied by `exp(-calm_rate · dt)` each tick).
    pub calm_rate: f32,
    /// Whether this school's fish align with and move towards fish of other
    /// schools (separation from them applies regardless).
    pub sees_other_schools: bool,
    /// Alignment matches the neighbours' mean velocity, speed included,
    /// instead of only their heading at full speed. Off by default (the
    /// classic form); turn it on for schools that must slow down with
    /// arriving leaders.
    pub match_speed: bool,
    /// Crowding control, what bounds the cost of a tick whatever the
    /// school does: when the cells a quartet of fish (four fish next to
    /// each other in the grid's order, whose neighbourhoods are scanned
    /// together) share hold more than `k × neighbour_cap` candidates per
    /// fish's block — `k` being the candidates a block holds per neighbour
    /// in a uniform school, 3 on a plane (2.5 × 3 radii) and 6 in a volume
    /// (2.5 × 3 × 3 radii) — the quartet looks at about that many only —
    /// two thirds from its own cells, as a window of consecutive fish
    /// around it, the rest on a stride over the other cells — and scales
    /// each part back up by its candidates over those looked at. A fish
    /// scanned alone (a shaped view, leaders that weigh more, a
    /// topological neighbourhood) past the threshold looks at every
    /// `step`-th of its candidates. Averages (alignment, cohesion) keep
    /// their expected value, and a tick in a dense ball — or with the whole
    /// school on one point — costs a small multiple of a uniform one
    /// instead of growing with the crowd. The price: in a crowd each fish
    /// sees a thinned, deterministic sample of its neighbourhood, whose
    /// separation pushes a little less than a full scan's, so crowds pack
    /// closer. A school with up to about 16 neighbours in reach is never
    /// thinned. Between 1 and [`MAX_NEIGHBOUR_CAP`] (the default): a lower
    /// cap samples fewer candidates in crowds and is cheaper there.
    pub neighbour_cap: u32,
    /// Topological neighbourhood: 0 (the default) aligns with and coheres
    /// to every neighbour within the perception radius (a metric
    /// neighbourhood). Above 0, only the `topological_neighbours` nearest
    /// of them count for alignment and cohesion (ties go to the fish sorted
    /// first), as starlings interact with their six or seven nearest
    /// neighbours whatever the density (Ballerini et al., 2008): a dense
    /// ball then holds together like a sparse school instead of every fish
    /// averaging over hundreds. A fish with no more neighbours in range
    /// than that keeps its metric neighbourhood. Separation still pushes
    /// from every fish within its radius. At most
    /// [`MAX_TOPOLOGICAL_NEIGHBOURS`]. The price: picking the nearest costs
    /// time, several times the metric force pass; with `neighbour_cap` the
    /// nearest are taken from the thinned sample, which bounds it.
    pub topological_neighbours: u32,
}

/// Most neighbours a topological neighbourhood may count
/// ([`FlockParams::topological_neighbours`]).
pub const MAX_TOPOLOGICAL_NEIGHBOURS: u32 = 32;

/// The largest (and default) [`FlockParams::neighbour_cap`]: with it, no
/// arrangement of the fish makes a tick cost more than about three times
/// a tick of the same school spread evenly.
pub const MAX_NEIGHBOUR_CAP: u32 = 16;

impl Default for FlockParams {
    /// A natural-looking school: separation radius 25 of a perception
    /// radius 45, weights 3.0 / 1.0 / 0.2 with wander 0.35, speed 120 and
    /// steering 300 per second. With 4-12 neighbours in reach (about 500
    /// fish in the default tank) it swims as loose, turning schools
    /// rather than packing into balls. `Preset::by_name("reference")` is
    /// the seed's denser reference start.
    fn default() -> Self {
        Self {
            separation_radius: 25.0,
            max_speed: 120.0,
            max_force: 300.0,
            separation_weight: 3.0,
            alignment_weight: 1.0,
            cohesion_weight: 0.2,
            wander_weight: 0.35,
            ..Self::reference()
        }
    }
}

impl FlockParams {
    /// Seed 003's reference start: separation radius 12, view (perception)
    /// 45, weights 1.6 / 1.0 / 0.8, speed 3.0 and force 0.15 per frame —
    /// a dense school that cohesion packs into balls once it has more than
    /// a few neighbours (the `reference` preset and the regression
    /// baseline start from it).
    pub fn reference() -> Self {
        Self::from_per_frame(PerFrame {
            perception_radius: 45.0,
            separation_radius: 12.0,
            max_speed: 3.0,
            max_force: 0.15,
            separation_weight: 1.6,
            alignment_weight: 1.0,
            cohesion_weight: 0.8,
            wander_weight: 0.15,
        })
    }
}

/// Parameters as classic tunings quote them: speeds in units per frame and forces
/// in units per frame², at [`SEED_FRAME_RATE`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PerFrame {
    /// Perception radius (units).
    pub perception_radius: f32,
    /// Separation radius (units).
    pub separation_radius: f32,
    /// Speed limit (units per frame).
    pub max_speed: f32,
    /// Steering limit (units per frame²).
    pub max_force: f32,
    /// Weight of separation.
    pub separation_weight: f32,
    /// Weight of alignment.
    pub alignment_weight: f32,
    /// Weight of cohesion.
    pub cohesion_weight: f32,
    /// Weight of wander.
    pub wander_weight: f32,
}

impl FlockParams {
    /// Converts per-frame numbers (as classic tunings quote them) to
    /// per-second units. Wander turns 0.035 rad per frame (a turn in three
    /// seconds).
    pub fn from_per_frame(p: PerFrame) -> Self {
        let f = SEED_FRAME_RATE;
        Self {
            perception_radius: p.perception_radius,
            separation_radius: p.separation_radius,
            separation_floor: 2.0,
            max_speed: p.max_speed * f,
            cruise_speed: 0.0,
            cruise_time: 1.0,
            turn_rate: 0.0,
            max_force: p.max_force * f * f,
            separation_weight: p.separation_weight,
            alignment_weight: p.alignment_weight,
            cohesion_weight: p.cohesion_weight,
            wander_weight: p.wander_weight,
            wander_rate: 0.035 * f,
            jitter: 0.1,
            reaction_time: 1.0 / f,
            view_angle: core::f32::consts::TAU,
            front_weight: 1.0,
            side_weight: 1.0,
            back_weight: 1.0,
            distance_falloff: 0.0,
            leader_weight: 3.0,
            obstacle_weight: 4.0,
            obstacle_look: 40.0,
            flee_weight: 4.0,
            panic_speed: 1.5,
            panic_separation: 2.0,
            calm_rate: 1.0,
            sees_other_schools: true,
            match_speed: false,
            neighbour_cap: MAX_NEIGHBOUR_CAP,
            topological_neighbours: 0,
        }
    }

    /// The speed the rules ask for: alignment, cohesion, separation, wander,
    /// the soft margin and goals want a velocity of this length. The
    /// cruise speed when one is set (never above the limit), else the
    /// speed limit (the reference model: every rule asks for full speed).
    #[inline]
    pub fn desired_speed(&self) -> f32 {
        if self.cruise_speed > 0.0 { self.cruise_speed.min(self.max_speed) } else { self.max_speed }
    }

    /// The radius the neighbour grid must cover: the larger of the two radii.
    pub fn interaction_radius(&self) -> f32 {
        self.perception_radius.max(self.separation_radius)
    }

    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<(), ParamError> {
        check("perception_radius", self.perception_radius, Range::Positive(MAX_LENGTH))?;
        check("separation_radius", self.separation_radius, Range::NonNegative(MAX_LENGTH))?;
        check("separation_floor", self.separation_floor, Range::Positive(MAX_LENGTH))?;
        check("max_speed", self.max_speed, Range::NonNegative(MAX_LENGTH))?;
        check("cruise_speed", self.cruise_speed, Range::NonNegative(MAX_LENGTH))?;
        check("cruise_time", self.cruise_time, Range::Closed(1.0e-3, 1.0e3))?;
        check("turn_rate", self.turn_rate, Range::NonNegative(MAX_TURN_RATE))?;
        check("max_force", self.max_force, Range::NonNegative(MAX_ACCELERATION))?;
        check("separation_weight", self.separation_weight, Range::Symmetric(MAX_WEIGHT))?;
        check("alignment_weight", self.alignment_weight, Range::Symmetric(MAX_WEIGHT))?;
        check("cohesion_weight", self.cohesion_weight, Range::Symmetric(MAX_WEIGHT))?;
        check("wander_weight", self.wander_weight, Range::Symmetric(MAX_WEIGHT))?;
        check("wander_rate", self.wander_rate, Range::Symmetric(MAX_WEIGHT))?;
        check("jitter", self.jitter, Range::Closed(0.0, 1.0))?;
        check("reaction_time", self.reaction_time, Range::Closed(1.0e-4, 1.0e3))?;
        check("view_angle", self.view_angle, Range::Closed(0.0, core::f32::consts::TAU))?;
        check("front_weight", self.front_weight, Range::NonNegative(MAX_WEIGHT))?;
        check("side_weight", self.side_weight, Range::NonNegative(MAX_WEIGHT))?;
        check("back_weight", self.back_weight, Range::NonNegative(MAX_WEIGHT))?;
        check("distance_falloff", self.distance_falloff, Range::Closed(0.0, 1.0))?;
        check("leader_weight", self.leader_weight, Range::NonNegative(MAX_WEIGHT))?;
        check("obstacle_weight", self.obstacle_weight, Range::NonNegative(MAX_WEIGHT))?;
        check("obstacle_look", self.obstacle_look, Range::NonNegative(MAX_LENGTH))?;
        check("flee_weight", self.flee_weight, Range::NonNegative(MAX_WEIGHT))?;
        check("panic_speed", self.panic_speed, Range::Closed(1.0, 10.0))?;
        check("panic_separation", self.panic_separation, Range::Closed(1.0, 100.0))?;
        check("calm_rate", self.calm_rate, Range::NonNegative(MAX_WEIGHT))?;
        check("neighbour_cap", self.neighbour_cap as f32, Range::Closed(1.0, MAX_NEIGHBOUR_CAP as f32))?;
        check(
            "topological_neighbours",
            self.topological_neighbours as f32,
            Range::Closed(0.0, MAX_TOPOLOGICAL_NEIGHBOURS as f32),
        )?;
        Ok(())
    }
}

/// The fixed time step the default parameters are tuned for: 60 ticks per
/// second.
pub const DEFAULT_DT: f32 = 1.0 / 60.0;

/// Checks a number of fish against [`MAX_FISH`]; the error names `field`.
pub fn validate_fish(field: &'static str, count: usize) -> Result<(), ParamError> {
    if count <= MAX_FISH {
        return Ok(());
    }
    Err(ParamError { field, value: count as f32, expected: format!("at most {MAX_FISH} fish") })
}

/// Checks a fixed time step (seconds).
pub fn validate_dt(dt: f32) -> Result<(), ParamError> {
    check("dt", dt, Range::Closed(1.0e-6, 1.0))
}

/// A rejected parameter: which field, its value and what it must be.
///
/// Two errors are equal when they name the same field with the same value
/// bit for bit and the same expectation: a NaN refused twice is the same
/// refusal (so a game that keeps sending it hears of it once), not two.
#[derive(Clone, Debug)]
pub struct ParamError {
    /// Name of the offending field.
    pub field: &'static str,
    /// The value that was rejected.
    pub value: f32,
    /// What the field must be.
    pub expected: String,
}

impl PartialEq for ParamError {
    fn eq(&self, other: &Self) -> bool {
        self.field == other.field
            && self.value.to_bits() == other.value.to_bits()
            && self.expected == other.expected
    }
}

impl Eq for ParamError {}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid `{}` = {}: must be {}", self.field, self.value, self.expected)
    }
}

impl std::error::Error for ParamError {}

/// The admissible range of one field.
#[derive(Clone, Copy)]
pub(crate) enum Range {
    /// `0 < v <= max`.
    Positive(f32),
    /// `0 <= v <= max`.
    NonNegative(f32),
    /// `-max <= v <= max`.
    Symmetric(f32),
    /// `lo <= v <= hi`.
    Closed(f32, f32),
}

/// Checks one value against its range; the error names `field`.
pub(crate) fn check(field: &'static str, value: f32, range: Range) -> Result<(), ParamError> {
    // NaN fails every comparison, so it is rejected too.
    let ok = match range {
        Range::Positive(max) => value > 0.0 && value <= max,
        Range::NonNegative(max) => value >= 0.0 && value <= max,
        Range::Symmetric(max) => value.abs() <= max,
        Range::Closed(lo, hi) => value >= lo && value <= hi,
    };
    if ok {
        // No message is built on success: validation runs every tick and
        // must not allocate.
        return Ok(());
    }
    let expected = match range {
        Range::Positive(max) => format!("finite, > 0 and <= {max}"),
        Range::NonNegative(max) => format!("finite, >= 0 and <= {max}"),
        Range::Symmetric(max) => format!("finite, between -{max} and {max}"),
        Range::Closed(lo, hi) => format!("between {lo} and {hi}"),
    };
    Err(ParamError { field, value, expected })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        FlockParams::default().validate().unwrap();
        validate_dt(DEFAULT_DT).unwrap();
    }

    #[test]
    fn reference_start_converts_per_frame_units() {
        let p = FlockParams::reference();
        assert_eq!(p.separation_radius, 12.0);
        assert_eq!(p.perception_radius, 45.0);
        assert!((p.max_speed - 180.0).abs() < 1e-4);
        assert!((p.max_force - 540.0).abs() < 1e-3);
    }

    #[test]
    fn a_nan_refused_twice_is_one_refusal() {
        let nan = FlockParams { max_speed: f32::NAN, ..FlockParams::default() };
        assert_eq!(nan.validate().unwrap_err(), nan.validate().unwrap_err());
        let inf = FlockParams { max_speed: f32::INFINITY, ..FlockParams::default() };
        assert_ne!(nan.validate().unwrap_err(), inf.validate().unwrap_err());
    }

    #[test]
    fn errors_name_the_field() {
        type Mutation = fn(&mut FlockParams);
        let cases: [(Mutation, &str); 6] = [
            (|p| p.perception_radius = -1.0, "perception_radius"),
            (|p| p.perception_radius = 0.0, "perception_radius"),
            (|p| p.separation_radius = f32::NAN, "separation_radius"),
            (|p| p.max_speed = f32::INFINITY, "max_speed"),
            (|p| p.cohesion_weight = 1.0e9, "cohesion_weight"),
            (|p| p.jitter = 2.0, "jitter"),
        ];
        for (mutate, field) in cases {
            let mut p = FlockParams::default();
            mutate(&mut p);
            let err = p.validate().unwrap_err();
            assert_eq!(err.field, field);
            assert!(err.to_string().contains(field), "{err}");
        }
    }

    #[test]
    fn odd_but_meaningful_values_are_accepted() {
        let p = FlockParams {
            separation_radius: 100.0,
            max_force: 0.0,
            max_speed: 0.0,
            alignment_weight: 0.0,
            ..FlockParams::default()
        };
        p.validate().unwrap();
        assert_eq!(p.interaction_radius(), 100.0);
    }

    #[test]
    fn the_time_step_is_checked() {
        assert_eq!(validate_dt(0.0).unwrap_err().field, "dt");
        assert_eq!(validate_dt(f32::NAN).unwrap_err().field, "dt");
    }
}
