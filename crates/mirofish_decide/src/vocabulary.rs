//! The vocabulary a unit decides in: the built-in intents, the tank's
//! regions, and whatever intents and places a game adds of its own.
//!
//! A decider is told the vocabulary in words ([`Vocabulary::lines`]), its
//! answer is read against it ([`Vocabulary::read`]), and every intent is
//! mapped to a goal through it ([`Vocabulary::goal`]): a game's intent
//! with the goal function it came with, checked for the arguments it
//! takes.
//!
//! ```
//! use mirofish_decide::{Intent, OwnIntent, Takes, Unfit, Vocabulary};
//! use mirofish_sim::{Goal, Vec2};
//!
//! // "patrol": swim to a region slowly, never where a threat is near.
//! let patrol = OwnIntent::new("patrol", "cruise to region R, unless a threat is near", Takes::Region, |aim| {
//!     if aim.unit.threats.iter().any(|t| t.distance < 200.0) {
//!         return Err(Unfit::Own("patrol: a threat is too near".into()));
//!     }
//!     Ok(aim.region.map(|centre| Goal::seek(centre, aim.weight * 0.5)))
//! })?;
//! let words = Vocabulary::<Vec2>::default().with_region("reef", Vec2::new(0.8, 0.2))?.with_intent(patrol)?;
//! let intent = words.read(r#"{"intent": "patrol", "region": "reef", "reason": "quiet there"}"#)?;
//! assert_eq!(intent.name().as_str(), "patrol");
//! assert!(words.lines().contains("patrol") && words.lines().contains("reef"));
//! assert!(words.read(r#"{"intent": "patrol"}"#).is_err(), "patrol takes a region");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use core::fmt;
use std::sync::Arc;

use mirofish_sim::{Goal, TankOf, Vec2, Vector};

use crate::decider::DecideError;
use crate::intent::{BUILT_IN, Intent, Unfit};
use crate::name::{Name, NameError};
use crate::region::{Place, PlaceError, Region, Regions};
use crate::unit::{Threat, UnitView};

/// The argument a game's own intent takes besides its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Takes {
    /// None: `{"intent": "school_up"}`.
    Nothing,
    /// A region of the tank: `{"intent": "patrol", "region": "reef"}`.
    Region,
    /// A threat of the unit's list: `{"intent": "mob", "threat": 0}`.
    Threat,
}

/// What a game's own intent is given to aim with.
#[derive(Clone, Copy, Debug)]
pub struct Aim<'a, V: Vector = Vec2> {
    /// The unit deciding.
    pub unit: &'a UnitView<V>,
    /// The tank.
    pub tank: &'a TankOf<V>,
    /// The layer's goal weight
    /// ([`DecisionConfig::goal_weight`](crate::DecisionConfig::goal_weight)).
    pub weight: f32,
    /// The centre of the region the intent names ([`Takes::Region`]).
    pub region: Option<V>,
    /// The threat the intent names ([`Takes::Threat`]).
    pub threat: Option<&'a Threat<V>>,
}

/// The goal of a game's own intent, or why it does not fit the unit.
pub type AimFn<V> = dyn Fn(&Aim<'_, V>) -> Result<Option<Goal<V>>, Unfit> + Send + Sync;

/// An intent a game adds: its name, what it means (as a model is told
/// it), the argument it takes, and the goal that carries it out.
#[derive(Clone)]
pub struct OwnIntent<V: Vector = Vec2> {
    name: Name,
    meaning: String,
    takes: Takes,
    aim: Arc<AimFn<V>>,
}

impl<V: Vector> fmt::Debug for OwnIntent<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OwnIntent")
            .field("name", &self.name)
            .field("meaning", &self.meaning)
            .field("takes", &self.takes)
            .finish_non_exhaustive()
    }
}

impl<V: Vector> OwnIntent<V> {
    /// The intent `name` meaning `meaning` (one line, as a model is told
    /// it), taking `takes`, carried out by the goal `aim` returns (`None`:
    /// no goal of its own; `Err`: it does not fit the unit, and the unit
    /// falls back).
    pub fn new(
        name: &str,
        meaning: &str,
        takes: Takes,
        aim: impl Fn(&Aim<'_, V>) -> Result<Option<Goal<V>>, Unfit> + Send + Sync + 'static,
    ) -> Result<Self, NameError> {
        Ok(Self { name: Name::new(name)?, meaning: meaning.replace('\n', " "), takes, aim: Arc::new(aim) })
    }

    /// Its name.
    pub fn name(&self) -> Name {
        self.name
    }

    /// The argument it takes.
    pub fn takes(&self) -> Takes {
        self.takes
    }
}

/// Why a vocabulary cannot take an intent or a region.
#[derive(Clone, Debug, PartialEq)]
pub enum VocabularyError {
    /// The intent's name is a built-in's or one already added.
    Taken(Name),
    /// The region cannot be added.
    Place(PlaceError),
    /// Not a name.
    Name(NameError),
}

impl fmt::Display for VocabularyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VocabularyError::Taken(name) => write!(f, "intent {}: the name is taken", name.as_str()),
            VocabularyError::Place(e) => e.fmt(f),
            VocabularyError::Name(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for VocabularyError {}

impl From<PlaceError> for VocabularyError {
    fn from(e: PlaceError) -> Self {
        VocabularyError::Place(e)
    }
}

impl From<NameError> for VocabularyError {
    fn from(e: NameError) -> Self {
        VocabularyError::Name(e)
    }
}

/// The built-in intents, the tank's regions and a game's own intents.
/// The default has the built-ins and the thirds of the tank.
#[derive(Clone, Debug, Default)]
pub struct Vocabulary<V: Vector = Vec2> {
    regions: Regions<V>,
    own: Vec<OwnIntent<V>>,
}

impl<V: Vector> Vocabulary<V> {
    /// With a place of the game's own, `at` a fraction of the tank along
    /// each axis (its centre; a point belongs to the nearest region's
    /// centre). It is off the rule-based decider's tour.
    pub fn with_region(mut self, name: &str, at: V) -> Result<Self, VocabularyError> {
        self.regions.add(Place { region: Region::named(name)?, at, tour: false })?;
        Ok(self)
    }

    /// With an intent of the game's own; refused if a built-in or an
    /// intent already added has its name.
    pub fn with_intent(mut self, intent: OwnIntent<V>) -> Result<Self, VocabularyError> {
        if BUILT_IN.contains(&intent.name.as_str()) || self.own(intent.name).is_some() {
            return Err(VocabularyError::Taken(intent.name));
        }
        self.own.push(intent);
        Ok(self)
    }

    /// The tank's regions.
    pub fn regions(&self) -> &Regions<V> {
        &self.regions
    }

    /// The game's own intents.
    pub fn own_intents(&self) -> &[OwnIntent<V>] {
        &self.own
    }

    fn own(&self, name: Name) -> Option<&OwnIntent<V>> {
        self.own.iter().find(|o| o.name == name)
    }

    /// The vocabulary as a decider is told it: one line per intent.
    pub fn lines(&self) -> String {
        let regions = self.regions.names();
        let mut s = format!(
            "{{\"intent\": \"go_to\", \"region\": R}} - swim to region R, one of {regions}
{{\"intent\": \"follow_leaders\"}} - no target of your own: follow the leaders and your neighbours
{{\"intent\": \"gather\"}} - close up on the school's centre
{{\"intent\": \"spread_out\"}} - loosen up
{{\"intent\": \"hide\"}} - hide by the nearest rock, away from the nearest threat
{{\"intent\": \"flee\", \"threat\": N}} - flee threat N of the list (0 is the nearest)
{{\"intent\": \"rest\"}} - slow down and stay"
        );
        for own in &self.own {
            let name = own.name.as_str();
            let form = match own.takes {
                Takes::Nothing => format!("{{\"intent\": \"{name}\"}}"),
                Takes::Region => format!("{{\"intent\": \"{name}\", \"region\": R}}"),
                Takes::Threat => format!("{{\"intent\": \"{name}\", \"threat\": N}}"),
            };
            s.push_str(&format!("\n{form} - {}", own.meaning));
        }
        s
    }

    /// Whether `intent` is of this vocabulary with the arguments it takes
    /// (not whether it fits a unit: see [`Vocabulary::goal`]); the refusal
    /// names what is wrong.
    pub fn check(&self, intent: &Intent) -> Result<(), Unfit> {
        let region_known =
            |r: Region| if self.regions.get(r).is_some() { Ok(()) } else { Err(Unfit::NoSuchRegion(r)) };
        match *intent {
            Intent::GoTo { region } => region_known(region),
            Intent::Own { name, region, threat } => {
                let own = self.own(name).ok_or(Unfit::NotInVocabulary(name))?;
                let wrong = |what: &str| Err(Unfit::Own(format!("`{}` {what}", name.as_str())));
                match (own.takes, region, threat) {
                    (Takes::Nothing, None, None) | (Takes::Threat, None, Some(_)) => Ok(()),
                    (Takes::Region, Some(r), None) => region_known(r),
                    (Takes::Nothing, ..) => wrong("takes no region or threat"),
                    (Takes::Region, ..) => wrong("needs a `region` and no threat"),
                    (Takes::Threat, ..) => wrong("needs a `threat` and no region"),
                }
            }
            _ => Ok(()),
        }
    }

    /// The intent in a decider's answer: the first `{…}` object in it
    /// (fenced or surrounded by prose, as models like to answer), which
    /// must be an intent of this vocabulary. Keys besides the intent's
    /// own are ignored.
    pub fn read(&self, answer: &str) -> Result<Intent, DecideError> {
        let start = answer
            .find('{')
            .ok_or_else(|| DecideError::Malformed(format!("no JSON object in {answer:?}")))?;
        let end = answer.rfind('}').filter(|&e| e > start);
        let object = end
            .map(|e| &answer[start..=e])
            .ok_or_else(|| DecideError::Malformed(format!("unclosed object in {answer:?}")))?;
        let intent: Intent =
            serde_json::from_str(object).map_err(|e| DecideError::Malformed(format!("{e} in {object:?}")))?;
        self.check(&intent).map_err(|e| DecideError::Malformed(format!("{e} in {object:?}")))?;
        Ok(intent)
    }

    /// The goal that carries out `intent` for `unit` in `tank`, pulling
    /// with `weight` (`None`: no goal of its own); `Err` if the intent is
    /// not of this vocabulary or does not fit the unit.
    pub fn goal(
        &self,
        intent: &Intent,
        unit: &UnitView<V>,
        tank: &TankOf<V>,
        weight: f32,
    ) -> Result<Option<Goal<V>>, Unfit> {
        self.check(intent)?;
        let Intent::Own { name, region, threat } = *intent else {
            return intent.goal(unit, tank, &self.regions, weight);
        };
        let own = self.own(name).ok_or(Unfit::NotInVocabulary(name))?;
        let threat = match threat {
            Some(k) => Some(unit.threats.get(k).ok_or(Unfit::NoSuchThreat(k))?),
            None => None,
        };
        let region = region.and_then(|r| self.regions.centre(r, tank));
        let goal = (own.aim)(&Aim { unit, tank, weight, region, threat })?;
        // A game's goal is checked as any command's would be: a goal that
        // is not finite or out of range does not fit.
        if let Some(Err(invalid)) = goal.map(|g| g.validate()) {
            return Err(Unfit::Own(format!("`{}` gave an invalid goal: {invalid}", name.as_str())));
        }
        Ok(goal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mirofish_sim::Vec3;

    fn patrol<V: Vector>() -> OwnIntent<V> {
        OwnIntent::new("patrol", "cruise to region R", Takes::Region, |aim: &Aim<'_, V>| {
            Ok(aim.region.map(|c| Goal::seek(c, aim.weight)))
        })
        .unwrap()
    }

    #[test]
    fn a_game_adds_intents_and_places_and_answers_are_read_against_them() {
        let words = Vocabulary::<Vec2>::default()
            .with_region("reef", Vec2::new(0.9, 0.1))
            .unwrap()
            .with_intent(patrol())
            .unwrap()
            .with_intent(
                OwnIntent::new("mob", "mob threat N", Takes::Threat, |aim: &Aim<'_, Vec2>| {
                    Ok(aim.threat.map(|t| Goal::seek(t.position, aim.weight)))
                })
                .unwrap(),
            )
            .unwrap();
        let lines = words.lines();
        assert!(lines.contains(r#"{"intent": "patrol", "region": R} - cruise to region R"#), "{lines}");
        assert!(lines.contains(r#"{"intent": "mob", "threat": N} - mob threat N"#), "{lines}");
        assert!(lines.contains("centre, reef"), "{lines}");
        let reef = Region::named("reef").unwrap();
        assert_eq!(
            words.read("Sure: {\"intent\": \"patrol\", \"region\": \"reef\", \"why\": \"calm\"}").unwrap(),
            Intent::Own { name: Name::of("patrol"), region: Some(reef), threat: None }
        );
        assert_eq!(
            words.read(r#"{"intent": "go_to", "region": "reef"}"#).unwrap(),
            Intent::GoTo { region: reef }
        );
        for (bad, why) in [
            (r#"{"intent": "dance"}"#, "no intent `dance`"),
            (r#"{"intent": "patrol"}"#, "`patrol` needs a `region`"),
            (r#"{"intent": "patrol", "region": "moon"}"#, "no region `moon`"),
            (r#"{"intent": "go_to", "region": "moon"}"#, "no region `moon`"),
            (r#"{"intent": "mob", "region": "top"}"#, "`mob` needs a `threat`"),
            (r#"{"intent": "go_to"}"#, "`go_to` needs a `region`"),
            ("no object", "no JSON object"),
        ] {
            match words.read(bad) {
                Err(DecideError::Malformed(e)) => assert!(e.contains(why), "{bad}: {e}"),
                other => panic!("{bad}: {other:?}"),
            }
        }
        // The names are the vocabulary's own.
        assert!(matches!(words.clone().with_intent(patrol()), Err(VocabularyError::Taken(_))));
        let gather = OwnIntent::new("gather", "x", Takes::Nothing, |_: &Aim<'_, Vec2>| Ok(None)).unwrap();
        assert!(matches!(words.clone().with_intent(gather), Err(VocabularyError::Taken(_))));
        assert!(words.clone().with_region("top", Vec2::splat(0.5)).is_err());
        assert!(words.clone().with_region("Top!", Vec2::splat(0.5)).is_err());
    }

    #[test]
    fn a_games_intent_is_aimed_and_checked_in_both_spaces() {
        let plane = Vocabulary::<Vec2>::default().with_intent(patrol()).unwrap();
        let tank = TankOf::<Vec2>::centered(Vec2::new(600.0, 300.0));
        let unit = crate::unit::tests::plain_view(Vec2::ZERO);
        let to_top = Intent::Own { name: Name::of("patrol"), region: Some(Region::TOP), threat: None };
        let goal = plane.goal(&to_top, &unit, &tank, 0.5).unwrap().unwrap();
        assert!(goal.target.distance(Vec2::new(0.0, 100.0)) < 1e-3, "{goal:?}");
        let dance = Intent::Own { name: Name::of("dance"), region: None, threat: None };
        assert_eq!(plane.goal(&dance, &unit, &tank, 0.5), Err(Unfit::NotInVocabulary(Name::of("dance"))));

        let volume = Vocabulary::<Vec3>::default().with_intent(patrol()).unwrap();
        let tank = TankOf::<Vec3>::centered(Vec3::new(600.0, 300.0, 300.0));
        let unit = crate::unit::tests::plain_view(Vec3::ZERO);
        let up =
            Intent::Own { name: Name::of("patrol"), region: Region::named("top_front").ok(), threat: None };
        let goal = volume.goal(&up, &unit, &tank, 0.5).unwrap().unwrap();
        assert!(goal.target.distance(Vec3::new(0.0, 100.0, 100.0)) < 1e-3, "{goal:?}");
        // A goal that is not finite does not fit.
        let wild = Vocabulary::<Vec3>::default()
            .with_intent(
                OwnIntent::new("wild", "x", Takes::Nothing, |_: &Aim<'_, Vec3>| {
                    Ok(Some(Goal::seek(Vec3::splat(f32::INFINITY), 1.0)))
                })
                .unwrap(),
            )
            .unwrap();
        let e =
            wild.goal(&Intent::Own { name: Name::of("wild"), region: None, threat: None }, &unit, &tank, 1.0);
        assert!(matches!(e, Err(Unfit::Own(ref why)) if why.contains("invalid goal")), "{e:?}");
    }
}
