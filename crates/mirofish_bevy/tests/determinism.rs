//! The same seed, spawns and changes give the same bits, whatever the
//! number of threads; another seed gives other bits.

mod common;

use common::*;
use mirofish_bevy::prelude::*;
use mirofish_sim::observe;

#[test]
fn same_seed_same_bits_other_seed_other_bits() {
    let run = |seed| {
        let mut app = headless_app(config(seed), 1);
        spawn(&mut app, 400);
        for _ in 0..200 {
            app.update();
        }
        let state_hash = observe::state_hash(app.world().resource::<FlockState>().flock());
        (ecs_hash(&mut app), state_hash)
    };
    let a = run(11);
    assert_eq!(a, run(11));
    assert_ne!(a.0, run(12).0);
}

#[test]
fn thread_count_does_not_change_the_app_state() {
    // The force pass runs on rayon; a scoped pool stands in for the global
    // one by installing the whole update loop into it.
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let mut app = headless_app(config(5), 1);
            spawn(&mut app, 2000);
            for _ in 0..100 {
                app.update();
            }
            ecs_hash(&mut app)
        })
    };
    assert_eq!(run(1), run(2));
}
