//! What a unit of fish may intend: a small, closed vocabulary, answered
//! in words (never in velocities or coordinates) and mapped to a goal
//! here, from what the unit sees.

use core::fmt;

use mirofish_sim::{Goal, GoalMode, Tank, Vec2};

use crate::unit::UnitView;

/// A named ninth of the tank: three columns (left, middle, right) by three
/// rows (top, middle, bottom). "Top" is the side of larger `y`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Region {
    /// Top left.
    TopLeft,
    /// Top middle.
    Top,
    /// Top right.
    TopRight,
    /// Middle right.
    Right,
    /// Bottom right.
    BottomRight,
    /// Bottom middle.
    Bottom,
    /// Bottom left.
    BottomLeft,
    /// Middle left.
    Left,
    /// The middle of the tank.
    Centre,
}

impl Region {
    /// Every region: the eight around the edge clockwise from the top
    /// left, then the centre.
    pub const ALL: [Region; 9] = [
        Region::TopLeft,
        Region::Top,
        Region::TopRight,
        Region::Right,
        Region::BottomRight,
        Region::Bottom,
        Region::BottomLeft,
        Region::Left,
        Region::Centre,
    ];

    /// The region's column and row, each 0, 1 or 2 (left to right, bottom
    /// to top).
    fn cell(self) -> (u8, u8) {
        match self {
            Region::TopLeft => (0, 2),
            Region::Top => (1, 2),
            Region::TopRight => (2, 2),
            Region::Right => (2, 1),
            Region::BottomRight => (2, 0),
            Region::Bottom => (1, 0),
            Region::BottomLeft => (0, 0),
            Region::Left => (0, 1),
            Region::Centre => (1, 1),
        }
    }

    /// The region `p` lies in (a point outside the tank: the nearest).
    pub fn of(p: Vec2, tank: &Tank) -> Region {
        let size = tank.size().max(Vec2::splat(f32::MIN_POSITIVE));
        let f = ((p - tank.min) / size * 3.0).floor().clamp(Vec2::ZERO, Vec2::splat(2.0));
        let (col, row) = (f.x as u8, f.y as u8);
        Region::ALL.into_iter().find(|r| r.cell() == (col, row)).unwrap_or(Region::Centre)
    }

    /// The centre of the region in `tank`.
    pub fn centre(self, tank: &Tank) -> Vec2 {
        let (col, row) = self.cell();
        tank.min + tank.size() * Vec2::new((f32::from(col) + 0.5) / 3.0, (f32::from(row) + 0.5) / 3.0)
    }

    /// The next region clockwise around the edge (the centre goes to the
    /// top left).
    pub fn clockwise(self) -> Region {
        let k = Region::ALL.iter().position(|&r| r == self).unwrap_or(8);
        if k >= 8 { Region::TopLeft } else { Region::ALL[(k + 1) % 8] }
    }

    /// The name used in descriptions and answers (`top_left`, …).
    pub fn name(self) -> &'static str {
        match self {
            Region::TopLeft => "top_left",
            Region::Top => "top",
            Region::TopRight => "top_right",
            Region::Right => "right",
            Region::BottomRight => "bottom_right",
            Region::Bottom => "bottom",
            Region::BottomLeft => "bottom_left",
            Region::Left => "left",
            Region::Centre => "centre",
        }
    }
}

impl fmt::Display for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name().replace('_', " "))
    }
}

/// What a unit intends, in the words a decider answers with. As JSON:
/// `{"intent": "go_to", "region": "top_left"}`, `{"intent": "flee",
/// "threat": 0}`, `{"intent": "gather"}`, ….
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
// Keys besides the intent's own (a model's "reason", "confidence") are
// ignored; the intent and its arguments are still checked.
#[serde(tag = "intent", rename_all = "snake_case")]
pub enum Intent {
    /// Swim to a region of the tank.
    GoTo {
        /// Where.
        region: Region,
    },
    /// No target of its own: follow the leaders and the neighbours.
    FollowLeaders,
    /// Close up on the school's centre.
    Gather,
    /// Loosen up: away from the unit's own centre.
    SpreadOut,
    /// Hide by the nearest cover (a rock), on its side away from the
    /// nearest threat.
    Hide,
    /// Flee a threat.
    Flee {
        /// Which, by its place in the unit's list of threats (0: the
        /// nearest).
        threat: usize,
    },
    /// Slow down and stay where it is.
    Rest,
}

impl Intent {
    /// The vocabulary, one line per intent, as a decider is told it.
    pub const VOCABULARY: &'static str = "\
{\"intent\": \"go_to\", \"region\": R} - swim to region R, one of top_left, top, top_right, left, centre, right, bottom_left, bottom, bottom_right
{\"intent\": \"follow_leaders\"} - no target of your own: follow the leaders and your neighbours
{\"intent\": \"gather\"} - close up on the school's centre
{\"intent\": \"spread_out\"} - loosen up
{\"intent\": \"hide\"} - hide by the nearest rock, away from the nearest threat
{\"intent\": \"flee\", \"threat\": N} - flee threat N of the list (0 is the nearest)
{\"intent\": \"rest\"} - slow down and stay";

    /// The goal that carries out this intent for `unit` in `tank`, pulling
    /// with `weight`; `None` for no goal of its own (follow the leaders).
    /// `Err` if the intent names what the unit does not have (a threat
    /// past its list, cover where there is none).
    pub fn goal(&self, unit: &UnitView, tank: &Tank, weight: f32) -> Result<Option<Goal>, Unfit> {
        let reach = (tank.size().min_element() / 6.0).max(1.0);
        let arrive = |target: Vec2, weight: f32, slowing: f32| Goal {
            target: target.clamp(tank.min, tank.max),
            mode: GoalMode::Arrive,
            weight,
            slowing_radius: slowing.max(1.0),
        };
        Ok(match *self {
            Intent::GoTo { region } => Some(arrive(region.centre(tank), weight, reach)),
            Intent::FollowLeaders => None,
            Intent::Gather => Some(arrive(unit.school_centre, weight, unit.spread.max(1.0))),
            Intent::SpreadOut => {
                Some(Goal { mode: GoalMode::Flee, ..arrive(unit.centroid, weight * 0.5, reach) })
            }
            Intent::Hide => Some(arrive(unit.cover.ok_or(Unfit::NoCover)?, weight * 1.5, reach * 0.5)),
            Intent::Flee { threat } => {
                let t = unit.threats.get(threat).ok_or(Unfit::NoSuchThreat(threat))?;
                Some(Goal { mode: GoalMode::Flee, ..arrive(t.position, weight * 1.5, reach) })
            }
            Intent::Rest => Some(arrive(unit.centroid, weight, reach)),
        })
    }
}

impl fmt::Display for Intent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Intent::GoTo { region } => write!(f, "go to the {region}"),
            Intent::FollowLeaders => f.write_str("follow the leaders"),
            Intent::Gather => f.write_str("gather"),
            Intent::SpreadOut => f.write_str("spread out"),
            Intent::Hide => f.write_str("hide"),
            Intent::Flee { threat } => write!(f, "flee threat {threat}"),
            Intent::Rest => f.write_str("rest"),
        }
    }
}

/// Why an intent does not fit the unit it was given to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unfit {
    /// `hide` with no rock in the tank.
    NoCover,
    /// `flee` from a threat the unit does not see.
    NoSuchThreat(usize),
}

impl fmt::Display for Unfit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unfit::NoCover => f.write_str("hide: there is no cover"),
            Unfit::NoSuchThreat(k) => write!(f, "flee: there is no threat {k}"),
        }
    }
}

impl std::error::Error for Unfit {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_cover_the_tank_and_name_their_centres() {
        let tank = Tank::centered(Vec2::new(300.0, 150.0));
        for r in Region::ALL {
            assert_eq!(Region::of(r.centre(&tank), &tank), r, "{r}");
        }
        assert_eq!(Region::of(Vec2::new(-299.0, 149.0), &tank), Region::TopLeft);
        assert_eq!(Region::of(Vec2::new(1.0e9, -1.0e9), &tank), Region::BottomRight);
        assert_eq!(Region::of(Vec2::NAN, &tank), Region::of(Vec2::NAN, &tank));
        let mut r = Region::Centre;
        for _ in 0..8 {
            r = r.clockwise();
        }
        assert_eq!(r, Region::Left, "eight steps round the edge from the top left end just before it");
    }

    #[test]
    fn intents_read_and_write_as_json() {
        for intent in [
            Intent::GoTo { region: Region::BottomLeft },
            Intent::Flee { threat: 2 },
            Intent::Rest,
            Intent::FollowLeaders,
        ] {
            let text = serde_json::to_string(&intent).unwrap();
            assert_eq!(serde_json::from_str::<Intent>(&text).unwrap(), intent, "{text}");
        }
        assert_eq!(
            serde_json::from_str::<Intent>(r#"{"intent": "go_to", "region": "top_left"}"#).unwrap(),
            Intent::GoTo { region: Region::TopLeft }
        );
        // Models add words of their own: extra keys are ignored.
        assert_eq!(
            serde_json::from_str::<Intent>(r#"{"intent": "go_to", "region": "top", "reason": "food"}"#)
                .unwrap(),
            Intent::GoTo { region: Region::Top }
        );
        assert!(serde_json::from_str::<Intent>(r#"{"intent": "dance"}"#).is_err());
        let missing = serde_json::from_str::<Intent>(r#"{"intent": "go_to", "reason": "x"}"#).unwrap_err();
        assert!(missing.to_string().contains("region"), "the refusal names the field: {missing}");
        assert!(serde_json::from_str::<Intent>(r#"{"intent": "go_to", "region": "moon"}"#).is_err());
    }
}
