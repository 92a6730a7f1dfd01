//! `Transform`s between fixed ticks.

mod common;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use common::*;
use mirofish_bevy::prelude::*;

#[test]
fn transforms_are_interpolated_between_the_last_two_ticks() {
    let mut app = headless_app(config(4), 1);
    spawn(&mut app, 50);
    for _ in 0..5 {
        app.update();
    }
    // Half a tick of virtual time: the next frame runs no fixed tick and
    // draws each fish halfway between its last two positions.
    let half = app.world().resource::<Time<Fixed>>().timestep() / 2;
    app.insert_resource(TimeUpdateStrategy::ManualDuration(half));
    app.update();
    let alpha = app.world().resource::<Time<Fixed>>().overstep_fraction();
    assert!((alpha - 0.5).abs() < 1e-3, "overstep {alpha}");
    let mut q = app.world_mut().query::<(&Position, &PreviousPosition, &Transform)>();
    for (p, prev, t) in q.iter(app.world()) {
        let expected = prev.0.lerp(p.0, alpha);
        assert!((t.translation.truncate() - expected).length() < 1e-3);
    }
}
