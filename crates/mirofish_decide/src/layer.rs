//! The decision layer: splits a school into units, asks a decider for each
//! unit's intent now and then, and turns the answers into goal commands.
//!
//! It never holds up the simulation. A decider that is not instant runs
//! on worker threads of the layer's own; [`DecisionLayer::plan`], called
//! once per tick, only collects the answers that have arrived, sends the
//! units that are due, and returns commands for the tick about to run. A
//! unit waiting for an answer keeps its last intent; an answer later than
//! the timeout, an error or an answer outside the vocabulary gives the
//! unit the default intent instead (and is counted).
//!
//! At most `workers` requests wait for a worker at a time; other due units
//! wait for a later tick, keeping their intent, so a burst of due units
//! goes out as the workers free up. The timeout runs from the moment a
//! worker sends the request, not from when the unit was queued: a slow
//! server then costs waiting, not every answer. A request still waiting
//! for a worker after a whole timeout (a worker stuck on a dead request) is
//! given up and is never sent (counted in
//! [`DecisionStats::dropped_unsent`]): no request reaches the decider after
//! its unit has fallen back.
//!
//! The answers enter the simulation only as tick-stamped commands
//! (`FormGroups` and `SetGroupGoal`), so a recording of a run with a
//! language model replays bit for bit without the model or a network.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use mirofish_sim::{FlockCommand, Goal, MAX_GROUPS, Scene, TankOf, Vec2, Vector};

use crate::cache::{DecisionCache, SceneKey};
use crate::decider::{DecideError, Decider, RuleDecider};
use crate::intent::{Intent, Unfit};
use crate::unit::{Population, UnitView, describe_units};
use crate::vocabulary::Vocabulary;

/// The longest period a unit may wait between two decisions, in ticks
/// (about nineteen days at 60 ticks a second, as long as a replay may
/// last).
pub const MAX_PERIOD: u64 = 100_000_000;

/// How the layer splits, asks and falls back.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DecisionConfig {
    /// Decision units (groups) to split the fish into; 20–50 suits a
    /// school of thousands.
    pub units: u16,
    /// The school to split (`None`: every fish).
    pub school: Option<u16>,
    /// The group number of unit 0 (units take `first_group..first_group +
    /// units`), so that other groups of a game stay apart.
    pub first_group: u16,
    /// Ticks between two decisions of a leader unit: one holding at least
    /// twice its share of the leaders (its leaders over its fish at least
    /// twice the units' together) or half of them ([`leader_units`]), so
    /// that the few units where the leaders gather decide often and the
    /// rest, a stray leader or not, rarely.
    pub leader_period: u64,
    /// Ticks between two decisions of any other unit.
    pub follower_period: u64,
    /// The length of a tick in seconds (the simulation's `dt`): the
    /// prompt tells the model how long its decision stands (the unit's
    /// period).
    pub tick_seconds: f32,
    /// Ticks between two re-splits of the fish into units (`None`: split
    /// once, at the start: the units then stay together as sub-schools).
    pub regroup_period: Option<u64>,
    /// How long an answer may take (milliseconds, counted from the moment
    /// a worker sends the request) before the unit falls back to
    /// `default_intent`; a request still waiting for a worker after this
    /// long is given up unsent.
    pub timeout_ms: u64,
    /// What a unit does when its decider fails, times out or answers
    /// outside the vocabulary (an intent of the layer's vocabulary: a
    /// game's own intent needs the layer built with that vocabulary).
    pub default_intent: Intent,
    /// Weight of the goal an intent sets.
    pub goal_weight: f32,
    /// Predators and other schools farther than this from a unit are not
    /// mentioned to it (world units).
    pub notice: f32,
    /// Answers remembered by situation (0: no cache).
    pub cache_capacity: usize,
    /// Threads that call a decider that is not instant (when
    /// `expected_latency_ms` is not set).
    pub workers: usize,
    /// How long the decider usually takes to answer (milliseconds), if
    /// known: the layer then starts as many workers as keep up with the
    /// units due at that pace ([`DecisionConfig::workers_for`]) instead of
    /// `workers`.
    pub expected_latency_ms: Option<u64>,
    /// The most requests sent in any minute (`None`: no limit): a unit due
    /// beyond it falls back ([`FailureCause::OverBudget`]) until the window
    /// has room.
    pub requests_per_minute: Option<u32>,
    /// The most tokens the decider may spend in any hour, as it reports
    /// them ([`Decider::tokens_spent`]; `None`: no limit): past it, units
    /// fall back until the window has room.
    pub tokens_per_hour: Option<u64>,
}

impl Default for DecisionConfig {
    fn default() -> Self {
        Self {
            units: 24,
            school: None,
            first_group: 0,
            leader_period: 60,
            follower_period: 600,
            tick_seconds: mirofish_sim::DEFAULT_DT,
            regroup_period: None,
            timeout_ms: 3000,
            default_intent: Intent::FollowLeaders,
            goal_weight: 0.4,
            notice: 600.0,
            cache_capacity: 4096,
            workers: 4,
            expected_latency_ms: None,
            requests_per_minute: None,
            tokens_per_hour: None,
        }
    }
}

/// A field of [`DecisionConfig`] out of range.
#[derive(Clone, Debug, PartialEq)]
pub struct DecisionConfigError {
    /// The field.
    pub field: &'static str,
    /// What it must be.
    pub expected: String,
}

impl core::fmt::Display for DecisionConfigError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "decision.{} must be {}", self.field, self.expected)
    }
}

impl std::error::Error for DecisionConfigError {}

impl DecisionConfig {
    /// Checks every field; the error names the bad one.
    pub fn validate(&self) -> Result<(), DecisionConfigError> {
        let bad = |field, expected: String| Err(DecisionConfigError { field, expected });
        if usize::from(self.first_group) >= MAX_GROUPS {
            return bad(
                "first_group",
                format!("0 to {} (group numbers are below {MAX_GROUPS})", MAX_GROUPS - 1),
            );
        }
        let room = MAX_GROUPS - usize::from(self.first_group);
        if self.units == 0 || usize::from(self.units) > room {
            return bad("units", format!("1 to {room} (groups end below {MAX_GROUPS})"));
        }
        let periods = [
            ("leader_period", Some(self.leader_period)),
            ("follower_period", Some(self.follower_period)),
            ("regroup_period", self.regroup_period),
        ];
        for (field, period) in periods {
            if period.is_some_and(|p| !(1..=MAX_PERIOD).contains(&p)) {
                return bad(field, format!("1 to {MAX_PERIOD} ticks"));
            }
        }
        if !(self.tick_seconds.is_finite() && self.tick_seconds > 0.0 && self.tick_seconds <= 1.0) {
            return bad("tick_seconds", "a duration in (0, 1] seconds".into());
        }
        if self.timeout_ms == 0 {
            return bad("timeout_ms", "at least 1".into());
        }
        if !(self.goal_weight.is_finite() && (0.0..=100.0).contains(&self.goal_weight)) {
            return bad("goal_weight", "in 0-100".into());
        }
        if !(self.notice.is_finite() && self.notice >= 0.0) {
            return bad("notice", "a finite distance >= 0".into());
        }
        if !(1..=MAX_WORKERS).contains(&self.workers) {
            return bad("workers", format!("1 to {MAX_WORKERS}"));
        }
        if self.expected_latency_ms.is_some_and(|ms| !(1..=MAX_LATENCY_MS).contains(&ms)) {
            return bad("expected_latency_ms", format!("1 to {MAX_LATENCY_MS} (or none: use `workers`)"));
        }
        if self.requests_per_minute == Some(0) {
            return bad("requests_per_minute", "at least 1 (or none: no limit)".into());
        }
        if self.tokens_per_hour == Some(0) {
            return bad("tokens_per_hour", "at least 1 (or none: no limit)".into());
        }
        Ok(())
    }

    /// The worker threads the layer starts when `leader_units` of its
    /// units are leader units: `workers`, or, with `expected_latency_ms`
    /// set, the requests due per second (each leader unit once every
    /// `leader_period`, every other unit once every `follower_period`)
    /// times the latency, with half again to spare for the units that come
    /// due together, at least 1 and at most [`MAX_WORKERS`]. The bounded
    /// queue then spreads a burst (every unit due at the start) over the
    /// workers instead of letting it time out.
    pub fn workers_for(&self, leader_units: usize) -> usize {
        let Some(latency_ms) = self.expected_latency_ms else { return self.workers };
        let leaders = leader_units.min(usize::from(self.units)) as f64;
        let others = f64::from(self.units) - leaders;
        let seconds = |period: u64| period.max(1) as f64 * f64::from(self.tick_seconds);
        let per_second = leaders / seconds(self.leader_period) + others / seconds(self.follower_period);
        let busy = per_second * latency_ms as f64 / 1000.0 * 1.5;
        if busy.is_finite() { (busy.ceil() as usize).clamp(1, MAX_WORKERS) } else { MAX_WORKERS }
    }
}

/// The most worker threads a layer starts.
pub const MAX_WORKERS: usize = 256;

/// The longest expected latency a [`DecisionConfig`] takes (ten minutes).
pub const MAX_LATENCY_MS: u64 = 600_000;

/// What the layer has done so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
// Counts saved before a count was added read with it at zero.
#[serde(default)]
pub struct DecisionStats {
    /// Decisions made (cached, inline or answered).
    pub decisions: u64,
    /// Requests sent to the worker threads.
    pub requests: u64,
    /// Answers from the cache.
    pub cache_hits: u64,
    /// Lookups the cache could not answer.
    pub cache_misses: u64,
    /// Requests without an answer in time.
    pub timeouts: u64,
    /// Decider errors (backend unreachable, HTTP errors).
    pub errors: u64,
    /// Answers outside the vocabulary.
    pub malformed: u64,
    /// Intents that did not fit the unit (a threat it does not see, cover
    /// where there is none).
    pub unfit: u64,
    /// Answers that came after their timeout (dropped).
    pub late: u64,
    /// Requests given up while still waiting for a worker: never sent.
    pub dropped_unsent: u64,
    /// Units that fell back instead of asking, over the request or token
    /// budget.
    pub over_budget: u64,
    /// Times a due unit was held over to a later tick because `workers`
    /// requests were already waiting for a worker (once per time it fell
    /// due, however long it waited).
    pub deferred: u64,
    /// Units given the default intent for any of the reasons above.
    pub fallbacks: u64,
    /// Goal commands issued.
    pub commands: u64,
}

/// How many failures [`DecisionLayer::recent_failures`] keeps.
pub const RECENT_FAILURES: usize = 8;

/// Why a unit fell back instead of adopting an answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FailureCause {
    /// No answer within the timeout (milliseconds, from the request's
    /// sending).
    Timeout {
        /// The timeout it missed.
        after_ms: u64,
    },
    /// No worker free to send the request within the timeout: given up
    /// unsent (too many units for the workers and the server's pace).
    Unsent {
        /// How long it waited.
        after_ms: u64,
    },
    /// The decider failed (unreachable, an HTTP status, a panic), in its
    /// own words.
    Decider(DecideError),
    /// An answer that is an intent but does not fit the unit.
    Unfit(Unfit),
    /// Not asked: the request or token budget of the last minute or hour
    /// is spent.
    OverBudget(Budget),
}

/// Which budget a unit found spent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// [`DecisionConfig::requests_per_minute`].
    RequestsPerMinute(u32),
    /// [`DecisionConfig::tokens_per_hour`].
    TokensPerHour(u64),
}

impl core::fmt::Display for FailureCause {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            FailureCause::Timeout { after_ms } => write!(f, "no answer within {after_ms} ms of sending"),
            FailureCause::Unsent { after_ms } => {
                write!(f, "not sent: no worker free within {after_ms} ms (more workers or a longer period?)")
            }
            FailureCause::Decider(e) => e.fmt(f),
            FailureCause::Unfit(e) => write!(f, "the intent does not fit the unit: {e}"),
            FailureCause::OverBudget(Budget::RequestsPerMinute(n)) => {
                write!(f, "not asked: {n} requests were sent in the last minute (requests_per_minute)")
            }
            FailureCause::OverBudget(Budget::TokensPerHour(n)) => {
                write!(f, "not asked: {n} tokens were spent in the last hour (tokens_per_hour)")
            }
        }
    }
}

/// An intent a unit was given ([`DecisionLayer::adopted`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Adopted {
    /// The tick whose planning adopted it.
    pub tick: u64,
    /// The unit (0-based, within the layer's units).
    pub unit: u16,
    /// The intent.
    pub intent: Intent,
    /// Whether it is the fallback (the default intent) rather than the
    /// decider's answer or the cache's; the cause is among
    /// [`DecisionLayer::failed`].
    pub fallback: bool,
}

/// One unit's fallback, with its cause: what a user reads to find out why
/// a model is not steering the school.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecisionFailure {
    /// The tick whose planning noticed it.
    pub tick: u64,
    /// The unit (0-based, within the layer's units).
    pub unit: u16,
    /// Why.
    pub cause: FailureCause,
}

impl core::fmt::Display for DecisionFailure {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "tick {}, unit {}: {}", self.tick, self.unit, self.cause)
    }
}

/// A request on its way.
#[derive(Clone, Debug)]
struct Pending {
    request: u64,
    /// When the unit was queued.
    queued: Instant,
    /// Shared with the worker: whether it has been sent, and when.
    ticket: Arc<Ticket>,
    key: SceneKey,
}

impl Pending {
    /// Whether no worker has taken it yet.
    fn waiting(&self) -> bool {
        self.ticket.state.load(Ordering::Acquire) == QUEUED
    }
}

/// A queued request's state, shared by the layer and the workers: the
/// worker that takes it and the layer that gives up on it race for it, and
/// exactly one wins.
#[derive(Debug, Default)]
struct Ticket {
    /// [`QUEUED`], [`SENT`] or [`GIVEN_UP`].
    state: AtomicU8,
    /// When the worker sent it.
    sent: OnceLock<Instant>,
}

/// Waiting for a worker.
const QUEUED: u8 = 0;
/// Taken by a worker and sent.
const SENT: u8 = 1;
/// Given up by the layer before any worker took it: never to be sent.
const GIVEN_UP: u8 = 2;

impl Ticket {
    /// A worker takes the request: false if the layer gave up on it first.
    fn take(&self) -> bool {
        let now = Instant::now();
        let taken = self.state.compare_exchange(QUEUED, SENT, Ordering::AcqRel, Ordering::Acquire).is_ok();
        if taken {
            let _ = self.sent.set(now);
        }
        taken
    }

    /// The layer gives up on a request no worker has taken: false if one
    /// already has.
    fn give_up(&self) -> bool {
        self.state.compare_exchange(QUEUED, GIVEN_UP, Ordering::AcqRel, Ordering::Acquire).is_ok()
    }
}

/// One unit's state between decisions.
#[derive(Clone, Debug, Default)]
struct UnitState<V: Vector> {
    intent: Option<Intent>,
    goal: Option<Goal<V>>,
    next_due: u64,
    pending: Option<Pending>,
    /// Due, but held over because enough requests wait for a worker.
    held: bool,
}

struct Job<V: Vector> {
    unit: usize,
    request: u64,
    view: UnitView<V>,
    ticket: Arc<Ticket>,
}

struct Answer {
    unit: usize,
    request: u64,
    result: Result<Intent, DecideError>,
}

/// The worker threads and their two channels. Dropping it closes the job
/// channel: each thread ends after its current job (nobody waits for it).
struct Workers<V: Vector> {
    /// How many threads take jobs.
    threads: usize,
    jobs: Sender<Job<V>>,
    // Behind a lock so that the layer is `Sync` (a Bevy resource); only
    // `plan`, holding `&mut self`, ever takes it.
    answers: Mutex<Receiver<Answer>>,
}

impl<V: Vector> Workers<V> {
    fn start(decider: Arc<dyn Decider<V>>, vocabulary: Arc<Vocabulary<V>>, threads: usize) -> Self {
        let (jobs, job_queue) = channel::<Job<V>>();
        let (answer, answers) = channel::<Answer>();
        let job_queue = Arc::new(Mutex::new(job_queue));
        for k in 0..threads {
            let (decider, job_queue, answer) = (decider.clone(), job_queue.clone(), answer.clone());
            let vocabulary = vocabulary.clone();
            let spawned = std::thread::Builder::new().name(format!("mirofish-decide-{k}")).spawn(move || {
                loop {
                    // The lock is held only while taking a job.
                    let job = match job_queue.lock() {
                        Ok(queue) => queue.recv(),
                        Err(_) => return,
                    };
                    let Ok(job) = job else { return };
                    // Given up while queued: never sent.
                    if !job.ticket.take() {
                        continue;
                    }
                    // A decider that panics fails this request only.
                    let decide = || decider.decide(&job.view, &vocabulary);
                    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(decide))
                        .unwrap_or_else(|_| Err(DecideError::Backend("the decider panicked".into())));
                    if answer.send(Answer { unit: job.unit, request: job.request, result }).is_err() {
                        return;
                    }
                }
            });
            // Without a thread the requests time out and fall back.
            drop(spawned);
        }
        Self { threads, jobs, answers: Mutex::new(answers) }
    }
}

/// The decision layer over one flock, on a plane (`DecisionLayer`, over a
/// `Simulation`) or in a volume (`DecisionLayer<Vec3>`, over a `Flock3d`).
/// Call [`DecisionLayer::plan`] before each tick and submit what it
/// returns for that tick. It is `Send` and `Sync`, so a Bevy app can keep
/// it in a resource.
///
/// ```
/// use mirofish_decide::{DecisionConfig, DecisionLayer};
/// use mirofish_sim::{ExperimentConfig, Simulation};
///
/// let mut sim = Simulation::from_config(&ExperimentConfig { fish: 500, ..Default::default() })?;
/// let mut layer = DecisionLayer::with_rules(DecisionConfig { units: 20, ..Default::default() })?;
/// for _ in 0..120 {
///     for command in layer.plan(&sim, sim.tank(), sim.scene()) {
///         sim.submit(command)?;
///     }
///     sim.step();
/// }
/// assert_eq!(layer.intents().filter(|i| i.is_some()).count(), 20);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct DecisionLayer<V: Vector = Vec2> {
    config: DecisionConfig,
    decider: Arc<dyn Decider<V>>,
    vocabulary: Arc<Vocabulary<V>>,
    instant: bool,
    cache: DecisionCache,
    units: Vec<UnitState<V>>,
    workers: Option<Workers<V>>,
    next_regroup: Option<u64>,
    next_request: u64,
    stats: DecisionStats,
    /// The last [`RECENT_FAILURES`] fallbacks' causes, oldest first.
    failures: VecDeque<DecisionFailure>,
    /// The intents the last planning adopted, in the order it adopted them.
    adopted: Vec<Adopted>,
    /// The failures the last planning noticed, in order.
    failed: Vec<DecisionFailure>,
    /// The tick being planned.
    now: u64,
    /// When each request of the last minute was sent, oldest first (kept
    /// only under a request budget).
    sent_times: VecDeque<Instant>,
    /// The decider's tokens spent so far, sampled at each request of the
    /// last hour, oldest first (kept only under a token budget).
    token_samples: VecDeque<(Instant, u64)>,
}

impl<V: Vector> core::fmt::Debug for DecisionLayer<V> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DecisionLayer").field("config", &self.config).field("stats", &self.stats).finish()
    }
}

impl<V: Vector> DecisionLayer<V> {
    /// A layer asking `decider` in the built-in vocabulary, once `config`
    /// validates.
    pub fn new(config: DecisionConfig, decider: impl Decider<V>) -> Result<Self, DecisionConfigError> {
        Self::with_vocabulary(config, decider, Vocabulary::default())
    }

    /// A layer asking `decider` in `vocabulary` (a game's own intents and
    /// regions), once `config` validates and its `default_intent` is of
    /// the vocabulary.
    pub fn with_vocabulary(
        config: DecisionConfig,
        decider: impl Decider<V>,
        vocabulary: Vocabulary<V>,
    ) -> Result<Self, DecisionConfigError> {
        config.validate()?;
        if let Err(unfit) = vocabulary.check(&config.default_intent) {
            return Err(DecisionConfigError {
                field: "default_intent",
                expected: format!("an intent of the layer's vocabulary ({unfit})"),
            });
        }
        let instant = decider.is_instant();
        Ok(Self {
            cache: DecisionCache::new(config.cache_capacity),
            units: vec![UnitState::default(); usize::from(config.units)],
            decider: Arc::new(decider),
            vocabulary: Arc::new(vocabulary),
            instant,
            config,
            workers: None,
            next_regroup: None,
            next_request: 0,
            stats: DecisionStats::default(),
            failures: VecDeque::with_capacity(RECENT_FAILURES),
            adopted: Vec::new(),
            failed: Vec::new(),
            now: 0,
            sent_times: VecDeque::new(),
            token_samples: VecDeque::new(),
        })
    }

    /// A layer with the rule-based decider ([`RuleDecider`]): no network,
    /// decided on the simulation thread, the live run deterministic.
    pub fn with_rules(config: DecisionConfig) -> Result<Self, DecisionConfigError> {
        Self::new(config, RuleDecider::default())
    }

    /// The configuration.
    pub fn config(&self) -> &DecisionConfig {
        &self.config
    }

    /// The vocabulary its units decide in.
    pub fn vocabulary(&self) -> &Vocabulary<V> {
        &self.vocabulary
    }

    /// What the layer has done so far (cache counts included).
    pub fn stats(&self) -> DecisionStats {
        DecisionStats { cache_hits: self.cache.hits, cache_misses: self.cache.misses, ..self.stats }
    }

    /// The causes of the last few fallbacks (at most
    /// [`RECENT_FAILURES`]), oldest first; [`DecisionLayer::stats`] counts
    /// them all.
    pub fn recent_failures(&self) -> impl ExactSizeIterator<Item = &DecisionFailure> + '_ {
        self.failures.iter()
    }

    /// The intents the last [`DecisionLayer::plan`] adopted, one per unit
    /// that was given one (by its decider, the cache or the fallback), in
    /// the order it adopted them; empty when nothing was due.
    pub fn adopted(&self) -> &[Adopted] {
        &self.adopted
    }

    /// The failures the last [`DecisionLayer::plan`] noticed, in order
    /// (each unit's cause of falling back; all of them, where
    /// [`DecisionLayer::recent_failures`] keeps the last few).
    pub fn failed(&self) -> &[DecisionFailure] {
        &self.failed
    }

    /// The cache.
    pub fn cache(&self) -> &DecisionCache {
        &self.cache
    }

    /// Each unit's current intent (`None` until it first decides).
    pub fn intents(&self) -> impl Iterator<Item = Option<Intent>> + '_ {
        self.units.iter().map(|u| u.intent)
    }

    /// Units waiting for an answer.
    pub fn in_flight(&self) -> usize {
        self.units.iter().filter(|u| u.pending.is_some()).count()
    }

    /// The commands for the tick about to run (`flock.tick()`): splitting
    /// the fish into units when due, and the goals of units whose intent
    /// was decided since the last call. Never waits for a decider.
    pub fn plan(
        &mut self,
        flock: &impl Population<V>,
        tank: &TankOf<V>,
        scene: &Scene<V>,
    ) -> Vec<FlockCommand<V>> {
        let now = flock.tick();
        self.now = now;
        self.adopted.clear();
        self.failed.clear();
        if self.next_regroup.is_none_or(|at| now >= at) {
            return self.regroup(now);
        }
        let mut out = Vec::new();
        // Each unit's view, and whether it is a leader unit, found once
        // when first needed.
        let mut views: Option<(Vec<Option<UnitView<V>>>, Vec<bool>)> = None;
        // How many are leader units, once known (for sizing the workers).
        let leader_count = core::cell::Cell::new(0);
        let mut view_of = |layer: &Self, k: usize| -> Option<(UnitView<V>, bool)> {
            let (views, leading) = views.get_or_insert_with(|| {
                let c = &layer.config;
                let surroundings = (tank, scene, layer.vocabulary.regions());
                let views = describe_units(flock, surroundings, (c.first_group, c.units), c.notice);
                let leading = leader_units(&views);
                leader_count.set(leading.iter().filter(|&&l| l).count());
                (views, leading)
            });
            let mut view = views.get(k)?.clone()?;
            view.intent = layer.units[k].intent;
            Some((view, leading[k]))
        };
        // Answers that arrived.
        let answers: Vec<Answer> = match &self.workers {
            Some(w) => match w.answers.lock() {
                Ok(answers) => core::iter::from_fn(|| answers.try_recv().ok()).collect(),
                // A thread never panics holding it; were it poisoned, the
                // units time out and fall back.
                Err(_) => Vec::new(),
            },
            None => Vec::new(),
        };
        for a in answers {
            let Some(pending) = self.units[a.unit].pending.take_if(|p| p.request == a.request) else {
                self.stats.late += 1;
                continue;
            };
            let Some((view, _)) = view_of(self, a.unit) else { continue };
            self.settle(a.unit, &view, a.result, Some(pending.key), tank, &mut out);
        }
        // Requests out of time.
        let timeout = Duration::from_millis(self.config.timeout_ms);
        for k in 0..self.units.len() {
            let Some(pending) = &self.units[k].pending else { continue };
            let cause = match pending.ticket.sent.get() {
                Some(sent) if sent.elapsed() > timeout => {
                    FailureCause::Timeout { after_ms: self.config.timeout_ms }
                }
                // Queued a whole timeout: given up, unless a worker has
                // just taken it (then it waits for its answer).
                None if pending.queued.elapsed() > timeout && pending.ticket.give_up() => {
                    FailureCause::Unsent { after_ms: self.config.timeout_ms }
                }
                _ => continue,
            };
            self.units[k].pending = None;
            match cause {
                FailureCause::Unsent { .. } => self.stats.dropped_unsent += 1,
                _ => self.stats.timeouts += 1,
            }
            self.note(k, cause);
            if let Some((view, _)) = view_of(self, k) {
                self.fall_back(k, &view, tank, &mut out);
            }
        }
        // Units due. At most `workers` requests wait for a worker at a
        // time: the others stay due (keeping their intent) and go as the
        // workers free up, instead of queueing a burst that would wait
        // past its timeout.
        let mut waiting =
            self.units.iter().filter(|u| u.pending.as_ref().is_some_and(Pending::waiting)).count();
        for k in 0..self.units.len() {
            let unit = &self.units[k];
            if unit.pending.is_some() || now < unit.next_due {
                continue;
            }
            // (Before the first request no worker runs and none waits.)
            let threads = self.workers.as_ref().map_or(usize::MAX, |w| w.threads);
            if !self.instant && waiting >= threads {
                // Counted once each time a unit is held over, however
                // many ticks it waits.
                let unit = &mut self.units[k];
                self.stats.deferred += u64::from(!unit.held);
                unit.held = true;
                continue;
            }
            self.units[k].held = false;
            let Some((mut view, leads)) = view_of(self, k) else { continue };
            let period = if leads { self.config.leader_period } else { self.config.follower_period };
            view.horizon_s = period as f32 * self.config.tick_seconds;
            let key = SceneKey::of(&view, self.config.notice * 0.5);
            if let Some(intent) = self.cache.get(&key) {
                self.settle(k, &view, Ok(intent), None, tank, &mut out);
            } else if self.instant {
                let result = self.decider.decide(&view, &self.vocabulary);
                self.settle(k, &view, result, Some(key), tank, &mut out);
            } else if let Some(budget) = self.over_budget() {
                self.stats.over_budget += 1;
                self.note(k, FailureCause::OverBudget(budget));
                self.fall_back(k, &view, tank, &mut out);
            } else {
                waiting += 1;
                self.send(k, view, key, leader_count.get());
            }
            self.units[k].next_due = now.saturating_add(period);
        }
        out
    }

    /// Splits the fish into units again: every unit decides afresh once
    /// the split has applied, and answers still on their way are dropped.
    fn regroup(&mut self, now: u64) -> Vec<FlockCommand<V>> {
        self.next_regroup = Some(self.config.regroup_period.map_or(u64::MAX, |p| now.saturating_add(p)));
        for unit in &mut self.units {
            // The goal of a unit number now means other fish: set afresh.
            *unit = UnitState { next_due: now.saturating_add(1), ..UnitState::default() };
        }
        let c = &self.config;
        let mut out =
            vec![FlockCommand::FormGroups { school: c.school, first: c.first_group, count: c.units }];
        out.extend((0..c.units).map(|k| FlockCommand::SetGroupGoal { group: c.first_group + k, goal: None }));
        out
    }

    /// The budget a request sent now would exceed, if any; forgets what
    /// has left the windows.
    fn over_budget(&mut self) -> Option<Budget> {
        const MINUTE: Duration = Duration::from_secs(60);
        const HOUR: Duration = Duration::from_secs(3600);
        let now = Instant::now();
        if let Some(limit) = self.config.requests_per_minute {
            while self.sent_times.front().is_some_and(|&t| now.duration_since(t) >= MINUTE) {
                self.sent_times.pop_front();
            }
            if self.sent_times.len() >= limit as usize {
                return Some(Budget::RequestsPerMinute(limit));
            }
        }
        if let Some(limit) = self.config.tokens_per_hour {
            // The baseline: the decider's count at the last sample at least
            // an hour old, else at the oldest one (before the layer's first
            // request, nothing was spent through it).
            while self.token_samples.get(1).is_some_and(|&(t, _)| now.duration_since(t) >= HOUR) {
                self.token_samples.pop_front();
            }
            let spent = self.decider.tokens_spent();
            let baseline = self.token_samples.front().map_or(spent, |&(_, total)| total);
            if spent.saturating_sub(baseline) >= limit {
                return Some(Budget::TokensPerHour(limit));
            }
        }
        None
    }

    /// Sends unit `k`'s request to the workers (started at the first
    /// request, sized for `leader_units` leader units).
    fn send(&mut self, k: usize, view: UnitView<V>, key: SceneKey, leader_units: usize) {
        let now = Instant::now();
        if self.config.requests_per_minute.is_some() {
            self.sent_times.push_back(now);
        }
        if self.config.tokens_per_hour.is_some() {
            self.token_samples.push_back((now, self.decider.tokens_spent()));
        }
        let request = self.next_request;
        self.next_request += 1;
        let (decider, threads) = (self.decider.clone(), self.config.workers_for(leader_units));
        let vocabulary = self.vocabulary.clone();
        let workers = self.workers.get_or_insert_with(|| Workers::start(decider, vocabulary, threads));
        self.stats.requests += 1;
        let ticket = Arc::new(Ticket::default());
        self.units[k].pending =
            Some(Pending { request, queued: Instant::now(), ticket: ticket.clone(), key });
        if workers.jobs.send(Job { unit: k, request, view, ticket }).is_err() {
            // No thread left to take it: it times out and falls back.
        }
    }

    /// Takes a decider's result for unit `k`: adopts the intent (and caches
    /// it under `key`), or falls back.
    fn settle(
        &mut self,
        k: usize,
        view: &UnitView<V>,
        result: Result<Intent, DecideError>,
        key: Option<SceneKey>,
        tank: &TankOf<V>,
        out: &mut Vec<FlockCommand<V>>,
    ) {
        match result {
            Ok(intent) => match self.vocabulary.goal(&intent, view, tank, self.config.goal_weight) {
                Ok(goal) => {
                    if let Some(key) = key {
                        self.cache.insert(key, intent);
                    }
                    self.stats.decisions += 1;
                    self.adopt(k, intent, goal, false, out);
                }
                Err(unfit) => {
                    self.stats.unfit += 1;
                    self.note(k, FailureCause::Unfit(unfit));
                    self.fall_back(k, view, tank, out);
                }
            },
            Err(error) => {
                match error {
                    DecideError::Malformed(_) => self.stats.malformed += 1,
                    DecideError::Backend(_) => self.stats.errors += 1,
                }
                self.note(k, FailureCause::Decider(error));
                self.fall_back(k, view, tank, out);
            }
        }
    }

    /// Keeps the cause of unit `k`'s fallback among the recent ones.
    fn note(&mut self, k: usize, cause: FailureCause) {
        if self.failures.len() == RECENT_FAILURES {
            self.failures.pop_front();
        }
        let unit = u16::try_from(k).unwrap_or(u16::MAX);
        let failure = DecisionFailure { tick: self.now, unit, cause };
        self.failed.push(failure.clone());
        self.failures.push_back(failure);
    }

    fn fall_back(&mut self, k: usize, view: &UnitView<V>, tank: &TankOf<V>, out: &mut Vec<FlockCommand<V>>) {
        self.stats.fallbacks += 1;
        let intent = self.config.default_intent;
        // A default that does not fit either (hide, with no rock): no goal.
        let goal = self.vocabulary.goal(&intent, view, tank, self.config.goal_weight).unwrap_or(None);
        self.adopt(k, intent, goal, true, out);
    }

    fn adopt(
        &mut self,
        k: usize,
        intent: Intent,
        goal: Option<Goal<V>>,
        fallback: bool,
        out: &mut Vec<FlockCommand<V>>,
    ) {
        let tick = self.now;
        self.adopted.push(Adopted { tick, unit: u16::try_from(k).unwrap_or(u16::MAX), intent, fallback });
        let unit = &mut self.units[k];
        unit.intent = Some(intent);
        if unit.goal != goal {
            unit.goal = goal;
            self.stats.commands += 1;
            out.push(FlockCommand::SetGroupGoal { group: self.config.first_group + k as u16, goal });
        }
    }
}

/// Which units are leader units: those holding leaders at at least twice
/// the density of all the units together (`leaders / fish`), or half of
/// all the leaders, so that with a few leaders spread thin only the units
/// where they gather decide at the leaders' pace.
pub fn leader_units<V: Vector>(views: &[Option<UnitView<V>>]) -> Vec<bool> {
    let (fish, leaders) =
        views.iter().flatten().fold((0usize, 0usize), |(f, l), v| (f + v.fish, l + v.leaders));
    views
        .iter()
        .map(|v| {
            v.as_ref().is_some_and(|v| {
                // leaders / fish >= 2 × all leaders / all fish, in integers.
                let dense = (v.leaders as u128) * (fish as u128) >= 2 * (leaders as u128) * (v.fish as u128);
                v.leaders > 0 && (dense || 2 * v.leaders >= leaders)
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::name::Name;
    use crate::vocabulary::{OwnIntent, Takes};

    fn unit(fish: usize, leaders: usize) -> Option<UnitView> {
        Some(UnitView { fish, leaders, ..crate::unit::tests::plain_view(Vec2::ZERO) })
    }

    #[test]
    fn a_default_intent_must_be_of_the_vocabulary() {
        let own = Intent::Own { name: Name::of("school_up"), region: None, threat: None };
        let config = DecisionConfig { default_intent: own, ..DecisionConfig::default() };
        let refused = DecisionLayer::<Vec2>::with_rules(config.clone()).unwrap_err();
        assert_eq!(refused.field, "default_intent");
        assert!(refused.to_string().contains("no intent `school_up`"), "{refused}");
        let school_up =
            OwnIntent::new("school_up", "close ranks", Takes::Nothing, |_: &crate::Aim<'_, Vec2>| Ok(None))
                .unwrap();
        let words = Vocabulary::default().with_intent(school_up).unwrap();
        DecisionLayer::with_vocabulary(config, RuleDecider::default(), words).unwrap();
    }

    #[test]
    fn workers_follow_the_pace_of_the_units_due() {
        let latency = |ms| DecisionConfig { expected_latency_ms: Some(ms), ..DecisionConfig::default() };
        // 24 units, one a leader unit (every second), 23 every ten: 3.3
        // requests a second.
        assert_eq!(latency(1000).workers_for(1), 5);
        assert_eq!(latency(5000).workers_for(1), 25);
        assert_eq!(latency(200).workers_for(0), 1);
        // Every unit a leader unit (and more claimed than there are).
        assert_eq!(latency(1000).workers_for(24), 36);
        assert_eq!(latency(1000).workers_for(1000), 36);
        assert_eq!(latency(MAX_LATENCY_MS).workers_for(24), MAX_WORKERS);
        // Not set: `workers`.
        assert_eq!(DecisionConfig { workers: 7, ..DecisionConfig::default() }.workers_for(24), 7);
        for bad in [0, MAX_LATENCY_MS + 1] {
            let err = latency(bad).validate().unwrap_err();
            assert_eq!(err.field, "expected_latency_ms");
        }
        latency(1).validate().unwrap();
    }

    #[test]
    fn leader_units_are_where_the_leaders_gather() {
        // 40 leaders among 800 fish in 24 units: a stray leader or two in
        // most units, six in one.
        let mut views: Vec<_> = (0..23).map(|k| unit(33, 1 + k % 2)).collect();
        views.push(unit(41, 6));
        let leading = leader_units(&views);
        assert_eq!(leading.iter().filter(|&&l| l).count(), 1, "{leading:?}");
        assert!(leading[23]);
        // One unit: it holds all the leaders. None: no leader units.
        assert_eq!(leader_units(&[unit(500, 3)]), [true]);
        assert_eq!(leader_units(&[unit(500, 0), None, unit(20, 0)]), [false, false, false]);
        // Two units sharing the leaders evenly each hold half.
        assert_eq!(leader_units(&[unit(100, 2), unit(100, 2)]), [true, true]);
    }
}
