//! What a unit of fish may intend: a small vocabulary, answered in words
//! (never in velocities or coordinates) and mapped to a goal here, from
//! what the unit sees. A game adds intents of its own
//! ([`Vocabulary`](crate::Vocabulary)).

use core::fmt;

use mirofish_sim::{Goal, GoalMode, TankOf, Vector};

use crate::name::Name;
use crate::region::{Region, Regions};
use crate::unit::UnitView;

/// What a unit intends, in the words a decider answers with. As JSON:
/// `{"intent": "go_to", "region": "top_left"}`, `{"intent": "flee",
/// "threat": 0}`, `{"intent": "gather"}`, ….
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
// Keys besides the intent's own (a model's "reason", "confidence") are
// ignored; the intent and its arguments are still checked.
#[serde(try_from = "Words", into = "Words")]
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
    /// An intent a game added to the vocabulary
    /// ([`Vocabulary::with_intent`](crate::Vocabulary::with_intent)), with
    /// the arguments it takes.
    Own {
        /// Its name.
        name: Name,
        /// The region it names, if it takes one.
        region: Option<Region>,
        /// The threat it names, if it takes one.
        threat: Option<usize>,
    },
}

/// An intent as written: its name and whichever arguments it has.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
struct Words {
    intent: Name,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    threat: Option<usize>,
}

/// The built-in intents' names, in the order the vocabulary lists them.
pub const BUILT_IN: [&str; 7] = ["go_to", "follow_leaders", "gather", "spread_out", "hide", "flee", "rest"];

impl TryFrom<Words> for Intent {
    type Error = String;

    /// A built-in intent with what it needs (the region to go to, the
    /// threat to flee), or an intent of a game's own: whether the game
    /// has it is for the vocabulary to say.
    fn try_from(w: Words) -> Result<Self, String> {
        let needs = |what: &str| format!("`{}` needs a `{what}`", w.intent.as_str());
        Ok(match w.intent.as_str() {
            "go_to" => Intent::GoTo { region: w.region.ok_or_else(|| needs("region"))? },
            "follow_leaders" => Intent::FollowLeaders,
            "gather" => Intent::Gather,
            "spread_out" => Intent::SpreadOut,
            "hide" => Intent::Hide,
            "flee" => Intent::Flee { threat: w.threat.ok_or_else(|| needs("threat"))? },
            "rest" => Intent::Rest,
            _ => Intent::Own { name: w.intent, region: w.region, threat: w.threat },
        })
    }
}

impl From<Intent> for Words {
    fn from(intent: Intent) -> Self {
        let (region, threat) = match intent {
            Intent::GoTo { region } => (Some(region), None),
            Intent::Flee { threat } => (None, Some(threat)),
            Intent::Own { region, threat, .. } => (region, threat),
            _ => (None, None),
        };
        Words { intent: intent.name(), region, threat }
    }
}

impl Intent {
    /// The intent's name as written in answers (`go_to`, a game's own).
    pub fn name(&self) -> Name {
        match self {
            Intent::GoTo { .. } => Name::of("go_to"),
            Intent::FollowLeaders => Name::of("follow_leaders"),
            Intent::Gather => Name::of("gather"),
            Intent::SpreadOut => Name::of("spread_out"),
            Intent::Hide => Name::of("hide"),
            Intent::Flee { .. } => Name::of("flee"),
            Intent::Rest => Name::of("rest"),
            Intent::Own { name, .. } => *name,
        }
    }

    /// The goal that carries out a built-in intent for `unit` in `tank`,
    /// pulling with `weight`; `None` for no goal of its own (follow the
    /// leaders). `Err` if the intent names what the unit or the tank does
    /// not have (a threat past its list, cover where there is none, a
    /// region the tank has not). A game's own intent is mapped by its
    /// vocabulary ([`Vocabulary::goal`](crate::Vocabulary::goal)).
    pub fn goal<V: Vector>(
        &self,
        unit: &UnitView<V>,
        tank: &TankOf<V>,
        regions: &Regions<V>,
        weight: f32,
    ) -> Result<Option<Goal<V>>, Unfit> {
        let reach = reach(tank);
        let arrive = |target: V, weight: f32, slowing: f32| arrive(tank, target, weight, slowing);
        Ok(match *self {
            Intent::GoTo { region } => {
                let centre = regions.centre(region, tank).ok_or(Unfit::NoSuchRegion(region))?;
                Some(arrive(centre, weight, reach))
            }
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
            Intent::Own { name, .. } => return Err(Unfit::NotInVocabulary(name)),
        })
    }
}

/// How far an intent's goal reaches: a sixth of the tank's smallest side
/// (at least 1), the slowing radius of most goals.
pub fn reach<V: Vector>(tank: &TankOf<V>) -> f32 {
    (tank.size().min_element() / 6.0).max(1.0)
}

/// A goal arriving at `target` (held inside `tank`) with `weight`, slowing
/// within `slowing` (at least 1).
pub fn arrive<V: Vector>(tank: &TankOf<V>, target: V, weight: f32, slowing: f32) -> Goal<V> {
    Goal {
        target: target.max(tank.min).min(tank.max),
        mode: GoalMode::Arrive,
        weight,
        slowing_radius: slowing.max(1.0),
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
            Intent::Own { name, region, threat } => {
                write!(f, "{name}")?;
                if let Some(region) = region {
                    write!(f, " to the {region}")?;
                }
                match threat {
                    Some(threat) => write!(f, " (threat {threat})"),
                    None => Ok(()),
                }
            }
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
    /// A region the tank does not have.
    NoSuchRegion(Region),
    /// An intent the vocabulary does not have.
    NotInVocabulary(Name),
    /// A game's own intent refused the unit, in its own words.
    Own(String),
}

impl fmt::Display for Unfit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unfit::NoCover => f.write_str("hide: there is no cover"),
            Unfit::NoSuchThreat(k) => write!(f, "flee: there is no threat {k}"),
            Unfit::NoSuchRegion(r) => write!(f, "there is no region `{}`", r.name()),
            Unfit::NotInVocabulary(name) => write!(f, "there is no intent `{}`", name.as_str()),
            Unfit::Own(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for Unfit {}

#[cfg(test)]
mod tests {
    use super::*;
    use mirofish_sim::Vec2;

    #[test]
    fn intents_read_and_write_as_json() {
        for intent in [
            Intent::GoTo { region: Region::BOTTOM_LEFT },
            Intent::Flee { threat: 2 },
            Intent::Rest,
            Intent::FollowLeaders,
            Intent::Own { name: Name::of("patrol"), region: Some(Region::TOP), threat: None },
        ] {
            let text = serde_json::to_string(&intent).unwrap();
            assert_eq!(serde_json::from_str::<Intent>(&text).unwrap(), intent, "{text}");
        }
        assert_eq!(
            serde_json::to_string(&Intent::GoTo { region: Region::TOP_LEFT }).unwrap(),
            r#"{"intent":"go_to","region":"top_left"}"#
        );
        assert_eq!(serde_json::to_string(&Intent::Gather).unwrap(), r#"{"intent":"gather"}"#);
        assert_eq!(
            serde_json::from_str::<Intent>(r#"{"intent": "go_to", "region": "top_left"}"#).unwrap(),
            Intent::GoTo { region: Region::TOP_LEFT }
        );
        // Models add words of their own: extra keys are ignored.
        assert_eq!(
            serde_json::from_str::<Intent>(r#"{"intent": "go_to", "region": "top", "reason": "food"}"#)
                .unwrap(),
            Intent::GoTo { region: Region::TOP }
        );
        // A name the built-ins do not have reads as a game's own; the
        // vocabulary decides whether it is one.
        assert_eq!(
            serde_json::from_str::<Intent>(r#"{"intent": "dance"}"#).unwrap(),
            Intent::Own { name: Name::of("dance"), region: None, threat: None }
        );
        let missing = serde_json::from_str::<Intent>(r#"{"intent": "go_to", "reason": "x"}"#).unwrap_err();
        assert!(
            missing.to_string().contains("`go_to` needs a `region`"),
            "the refusal names the field: {missing}"
        );
        let missing = serde_json::from_str::<Intent>(r#"{"intent": "flee"}"#).unwrap_err();
        assert!(missing.to_string().contains("`threat`"), "{missing}");
        assert!(serde_json::from_str::<Intent>(r#"{"intent": "go_to", "region": "Moon!"}"#).is_err());
        assert!(serde_json::from_str::<Intent>(r#"{"intent": "Go To"}"#).is_err());
        // In a configuration file (RON) as in an answer.
        let ron_text = ron::to_string(&Intent::GoTo { region: Region::CENTRE }).unwrap();
        assert_eq!(ron::from_str::<Intent>(&ron_text).unwrap(), Intent::GoTo { region: Region::CENTRE });
    }

    #[test]
    fn built_in_goals_need_what_they_name() {
        let tank = TankOf::<Vec2>::centered(Vec2::new(600.0, 300.0));
        let regions = Regions::default();
        let unit = crate::unit::tests::plain_view(Vec2::ZERO);
        let goal =
            Intent::GoTo { region: Region::TOP_RIGHT }.goal(&unit, &tank, &regions, 0.4).unwrap().unwrap();
        assert!(goal.target.distance(Vec2::new(200.0, 100.0)) < 1e-3, "{goal:?}");
        assert_eq!(Intent::FollowLeaders.goal(&unit, &tank, &regions, 0.4), Ok(None));
        assert_eq!(Intent::Hide.goal(&unit, &tank, &regions, 0.4), Err(Unfit::NoCover));
        assert_eq!(Intent::Flee { threat: 0 }.goal(&unit, &tank, &regions, 0.4), Err(Unfit::NoSuchThreat(0)));
        let reef = Region::named("reef").unwrap();
        assert_eq!(
            Intent::GoTo { region: reef }.goal(&unit, &tank, &regions, 0.4),
            Err(Unfit::NoSuchRegion(reef))
        );
    }
}
