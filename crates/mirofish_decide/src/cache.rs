//! The decision cache: a unit in a situation like one already decided
//! gets the same answer without asking again. The situation is a few
//! quantised features of the unit's description.

use std::collections::{HashMap, VecDeque};

use mirofish_sim::Vector;

use crate::intent::Intent;
use crate::region::Region;
use crate::unit::UnitView;

/// The quantised features a decision is cached under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SceneKey {
    /// The unit's region.
    pub region: Region,
    /// Its heading: eighths of a turn over the ground (8: none), plus 9
    /// when it rises and 18 when it sinks in a volume
    /// ([`heading_code`](crate::unit::heading_code)).
    pub heading: u8,
    /// Its size: the base-2 logarithm of its fish count.
    pub size: u8,
    /// The nearest threat: 0 none, 1 far (beyond half the notice range),
    /// 2 near.
    pub threat: u8,
    /// Whether there is cover.
    pub cover: bool,
    /// Whether another school is in sight.
    pub company: bool,
    /// What the unit intends now.
    pub intent: Option<Intent>,
}

impl SceneKey {
    /// The key of `unit`, with threats counted near within `near`.
    pub fn of<V: Vector>(unit: &UnitView<V>, near: f32) -> Self {
        let heading = crate::unit::heading_code(unit.heading);
        let threat = match unit.threats.first() {
            None => 0,
            Some(t) if t.distance > near => 1,
            Some(_) => 2,
        };
        Self {
            region: unit.region,
            heading,
            size: (usize::BITS - unit.fish.leading_zeros()) as u8,
            threat,
            cover: unit.cover.is_some(),
            company: !unit.other_schools.is_empty(),
            intent: unit.intent,
        }
    }
}

/// Answers by situation, at most `capacity` of them (the oldest go
/// first), with its hits and misses counted.
#[derive(Clone, Debug, Default)]
pub struct DecisionCache {
    answers: HashMap<SceneKey, Intent>,
    order: VecDeque<SceneKey>,
    capacity: usize,
    /// Lookups answered from the cache.
    pub hits: u64,
    /// Lookups that found nothing.
    pub misses: u64,
}

impl DecisionCache {
    /// An empty cache of at most `capacity` answers (0: caches nothing).
    pub fn new(capacity: usize) -> Self {
        Self { capacity, ..Self::default() }
    }

    /// The cached answer for `key`, counting a hit or a miss.
    pub fn get(&mut self, key: &SceneKey) -> Option<Intent> {
        let found = self.answers.get(key).copied();
        if found.is_some() {
            self.hits += 1;
        } else {
            self.misses += 1;
        }
        found
    }

    /// Remembers `intent` for `key`.
    pub fn insert(&mut self, key: SceneKey, intent: Intent) {
        if self.capacity == 0 {
            return;
        }
        if self.answers.insert(key, intent).is_none() {
            self.order.push_back(key);
            while self.order.len() > self.capacity {
                if let Some(old) = self.order.pop_front() {
                    self.answers.remove(&old);
                }
            }
        }
    }

    /// Answers held.
    pub fn len(&self) -> usize {
        self.answers.len()
    }

    /// Whether no answer is held.
    pub fn is_empty(&self) -> bool {
        self.answers.is_empty()
    }

    /// Share of lookups answered from the cache (0 before any).
    pub fn hit_rate(&self) -> f64 {
        let all = self.hits + self.misses;
        if all == 0 { 0.0 } else { self.hits as f64 / all as f64 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(fish_log: u8) -> SceneKey {
        SceneKey {
            region: Region::TOP,
            heading: 1,
            size: fish_log,
            threat: 0,
            cover: false,
            company: false,
            intent: None,
        }
    }

    #[test]
    fn hits_misses_and_the_oldest_evicted() {
        let mut cache = DecisionCache::new(2);
        assert_eq!(cache.get(&key(1)), None);
        cache.insert(key(1), Intent::Rest);
        cache.insert(key(2), Intent::Gather);
        assert_eq!(cache.get(&key(1)), Some(Intent::Rest));
        cache.insert(key(3), Intent::Hide);
        assert_eq!(cache.get(&key(1)), None, "evicted");
        assert_eq!(cache.get(&key(3)), Some(Intent::Hide));
        assert_eq!((cache.hits, cache.misses, cache.len()), (2, 2, 2));
        assert!((cache.hit_rate() - 0.5).abs() < 1e-12);
        let mut off = DecisionCache::new(0);
        off.insert(key(1), Intent::Rest);
        assert!(off.is_empty());
    }
}
