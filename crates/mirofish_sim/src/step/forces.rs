//! Pass 2 of the tick: every fish's acceleration from its neighbourhood,
//! its school's rules and the scene, clamped once to `max_force`.

use rayon::prelude::*;

use super::kernel::{ForceKernel, ForceSample, Kick, SchoolCache};
use super::{CHUNK, all_zero, any_set, run};
use crate::rules::noise::TickKey;
use crate::step::flock::{Flock, SlotOrder};
use crate::world::scene::{Route, Scene};
use crate::world::school::SchoolTable;
use crate::world::tank::Tank;

impl Flock {
    /// Pass 2: the rules' weighted sum for every fish, clamped once to the
    /// school's `max_force`. Reads only the snapshot taken by pass 1. An
    /// empty school table has no rules: every fish's kick is then zero.
    pub fn accumulate_forces<S: SchoolTable + ?Sized>(&mut self, schools: &S, tank: &Tank, scene: &Scene) {
        let table = schools.table();
        let n = self.len();
        self.sorted_kick.resize(n, Kick::default());
        let record = self.record_rules;
        self.sorted_samples.resize(if record { n } else { 0 }, ForceSample::default());
        if table.is_empty() {
            // No school, no rules: every kick zero.
            self.sorted_kick.fill(Kick::default());
            self.sorted_samples.fill(ForceSample::default());
            return;
        }
        // What the index found, where the fish are as it sorted them.
        let has_leaders = self.indexed.map_or_else(|| any_set(&self.leader), |sorted| sorted.leaders);
        let others = table.len() > 1;
        self.school_caches.clear();
        self.school_caches.extend(table.iter().map(|p| SchoolCache::new(p, others, has_leaders)));
        let kernel = ForceKernel {
            grid: &self.grid,
            // Where slots are ids, the order is the ids in sorted order.
            ids: if self.slot_order == SlotOrder::Spatial { &self.sorted_id } else { self.grid.order() },
            sorted_phase: &self.sorted_phase,
            sorted_leader: &self.sorted_leader,
            fear: &self.fear,
            leader: &self.leader,
            group: &self.group,
            leader_goal: scene.route.as_ref().and_then(Route::goal),
            quiet: scene.leaves_fish_alone(!self.group.is_empty(), has_leaders) && all_zero(&self.fear),
            scene,
            table,
            caches: &self.school_caches,
            sorted_school: &self.sorted_school,
            tank,
            search: self.search,
            key: TickKey::new(self.seed, self.tick),
            avx2: self.kernel_path.avx2(),
        };
        let (kicks, samples) = (&mut self.sorted_kick, &mut self.sorted_samples);
        // Every chunk is a task of its own: a run of chunks that a thread
        // starts before the other steals from it can no longer be split,
        // and the other then waits for its end (for two threads rayon
        // first cuts 100k fish into runs of 25k).
        let work = || {
            if record {
                kicks
                    .par_chunks_mut(CHUNK)
                    .zip(samples.par_chunks_mut(CHUNK))
                    .enumerate()
                    .with_max_len(1)
                    .for_each(|(chunk, (kicks, samples))| kernel.run(chunk * CHUNK, kicks, Some(samples)));
            } else {
                kicks
                    .par_chunks_mut(CHUNK)
                    .enumerate()
                    .with_max_len(1)
                    .for_each(|(chunk, kicks)| kernel.run(chunk * CHUNK, kicks, None));
            }
        };
        run(self.pool.as_deref(), work);
    }
}
