//! Deciders: what turns a unit's description into an intent. The
//! rule-based one needs no network and is the default and the fallback;
//! a language model is another (see the `openai` feature).

use core::fmt;

use mirofish_sim::{Vec2, Vector};

use crate::intent::Intent;
use crate::unit::UnitView;
use crate::vocabulary::Vocabulary;

/// Why a decider gave no intent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecideError {
    /// The backend could not be reached or answered with an error (an HTTP
    /// status, a refused connection, its own timeout).
    Backend(String),
    /// The answer was not an intent of the vocabulary.
    Malformed(String),
}

impl fmt::Display for DecideError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecideError::Backend(e) => write!(f, "the decider failed: {e}"),
            DecideError::Malformed(e) => write!(f, "the decider's answer is not an intent: {e}"),
        }
    }
}

impl std::error::Error for DecideError {}

/// Decides what a unit intends. Called off the simulation thread (unless
/// [`Decider::is_instant`]), so it may take its time: the unit keeps its
/// last intent meanwhile, and an answer later than the layer's timeout is
/// dropped. Generic over the space (`Vec2` on a plane, `Vec3` in a
/// volume); a decider written for both implements it for any
/// [`Vector`].
pub trait Decider<V: Vector = Vec2>: Send + Sync + 'static {
    /// The intent for `unit`, from `vocabulary` (the layer checks it
    /// against the vocabulary in any case).
    fn decide(&self, unit: &UnitView<V>, vocabulary: &Vocabulary<V>) -> Result<Intent, DecideError>;

    /// Whether [`Decider::decide`] is quick and pure enough to call on the
    /// simulation thread: then the live run itself is deterministic, not
    /// only its replay.
    fn is_instant(&self) -> bool {
        false
    }

    /// Tokens spent so far, as the backend reports them (0 for a decider
    /// that spends none or does not count): what
    /// [`DecisionConfig::tokens_per_hour`](crate::DecisionConfig::tokens_per_hour)
    /// holds the layer to.
    fn tokens_spent(&self) -> u64 {
        0
    }
}

/// The decider that needs no network: a few rules over the description.
///
/// - A threat within `danger`: hide by a rock nearer than the threat, else
///   flee the nearest threat.
/// - A unit spread wider than `loose`: gather.
/// - Travelling: keep going until the unit reaches its region.
/// - Otherwise: on to the next region of the vocabulary's tour (clockwise
///   round the tank's sides), so that schools tour it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RuleDecider {
    /// A threat nearer than this (world units) is dangerous.
    pub danger: f32,
    /// A unit whose spread exceeds this (world units) gathers.
    pub loose: f32,
}

impl Default for RuleDecider {
    fn default() -> Self {
        Self { danger: 250.0, loose: 400.0 }
    }
}

impl<V: Vector> Decider<V> for RuleDecider {
    fn decide(&self, unit: &UnitView<V>, vocabulary: &Vocabulary<V>) -> Result<Intent, DecideError> {
        if let Some(threat) = unit.threats.first().filter(|t| t.distance <= self.danger) {
            let cover_nearer =
                unit.cover.is_some_and(|c| c.distance_squared(unit.centroid).sqrt() < threat.distance);
            return Ok(if cover_nearer { Intent::Hide } else { Intent::Flee { threat: 0 } });
        }
        if unit.spread > self.loose {
            return Ok(Intent::Gather);
        }
        Ok(match unit.intent {
            Some(Intent::GoTo { region }) if region != unit.region => Intent::GoTo { region },
            _ => Intent::GoTo { region: vocabulary.regions().next_on_tour(unit.region) },
        })
    }

    fn is_instant(&self) -> bool {
        true
    }
}

/// A decider that answers with `intent` after `delay`: a stand-in for a
/// slow model in tests and benchmarks. With no delay it is instant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlowDecider {
    /// The answer.
    pub intent: Intent,
    /// How long each answer takes.
    pub delay: std::time::Duration,
}

impl<V: Vector> Decider<V> for SlowDecider {
    fn decide(&self, _unit: &UnitView<V>, _vocabulary: &Vocabulary<V>) -> Result<Intent, DecideError> {
        std::thread::sleep(self.delay);
        Ok(self.intent)
    }

    fn is_instant(&self) -> bool {
        self.delay.is_zero()
    }
}

/// A decider that is the first of a list of answers, cycled: plays a
/// scripted model (malformed answers included) in tests.
#[derive(Debug)]
pub struct ScriptedDecider {
    answers: Vec<Result<Intent, DecideError>>,
    next: std::sync::atomic::AtomicUsize,
}

impl ScriptedDecider {
    /// Answers with `answers` in turn, round and round (never empty: an
    /// empty list answers `follow_leaders`).
    pub fn new(answers: Vec<Result<Intent, DecideError>>) -> Self {
        Self { answers, next: std::sync::atomic::AtomicUsize::new(0) }
    }
}

impl<V: Vector> Decider<V> for ScriptedDecider {
    fn decide(&self, _unit: &UnitView<V>, _vocabulary: &Vocabulary<V>) -> Result<Intent, DecideError> {
        let k = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        match self.answers.len() {
            0 => Ok(Intent::FollowLeaders),
            n => self.answers[k % n].clone(),
        }
    }
}
