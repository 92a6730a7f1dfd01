//! Rendered `Transform`s interpolated between the last two fixed ticks.
//!
//! The simulation ticks at a fixed rate while frames come as fast as the
//! display allows. Drawing the raw tick state would stutter whenever a frame
//! falls between ticks; instead each frame blends [`PreviousPosition`] and
//! [`Position`] by how far the fixed clock has run into the next tick
//! (`Time<Fixed>::overstep_fraction`), as Bevy's
//! `physics_in_fixed_timestep` example does.

use bevy::prelude::*;
use rayon::prelude::*;

use crate::columns::COLUMN_CHUNK;
use crate::components::{Boid, Obstacle2d, Position, Predator2d, PreviousPosition, Velocity};
use crate::state::FlockState;
use crate::turn;

/// Sets every fish's and predator's `Transform` translation (x, y; z is left
/// alone) and rotation, so the sprite's +X axis points along the velocity;
/// obstacles' `Transform`s follow their `Position`.
pub fn interpolate_transforms(
    time: Res<Time<Fixed>>,
    state: Res<FlockState>,
    mut fish: Query<
        (&Position, &PreviousPosition, &Velocity, &mut Transform),
        Or<(With<Boid>, With<Predator2d>)>,
    >,
    mut obstacles: Query<(&Position, &mut Transform), (With<Obstacle2d>, Without<Boid>, Without<Predator2d>)>,
) {
    // Outside a fixed-step schedule a tick runs every frame: draw its result.
    let alpha = if state.fixed_schedule { time.overstep_fraction().clamp(0.0, 1.0) } else { 1.0 };
    let half = state.active.tank.size() * 0.5;
    // A column at a time: at 100k fish an item per fish cost several times
    // the arithmetic. Every component read is stored in tables, so the
    // query is always dense.
    let Ok(tables) = fish.contiguous_iter_mut() else {
        log::error!("MiroFish: the fish query is not dense; no Transform interpolated");
        return;
    };
    for (p, prev, v, mut t) in tables {
        let rows =
            p.par_chunks(COLUMN_CHUNK).zip(prev.par_chunks(COLUMN_CHUNK)).zip(v.par_chunks(COLUMN_CHUNK));
        t.par_chunks_mut(COLUMN_CHUNK).zip(rows).for_each(|(t, ((p, prev), v))| {
            for (((p, prev), v), t) in p.iter().zip(prev).zip(v).zip(t) {
                let jump = (p.0 - prev.0).abs();
                // A fish that wrapped across the tank is drawn where it is,
                // not dragged across the screen; so is one whose previous
                // position game code made non-finite (a NaN jump).
                let wrapped = !(jump.x <= half.x && jump.y <= half.y);
                let xy = if wrapped { p.0 } else { prev.0.lerp(p.0, alpha) };
                if !xy.is_finite() {
                    // A position game code broke since the last tick: the
                    // next tick repairs it; until then it is drawn where it was.
                    continue;
                }
                t.translation.x = xy.x;
                t.translation.y = xy.y;
                if let Some(turn) = turn::plane(v.0) {
                    t.rotation = turn;
                }
            }
        });
    }
    // An obstacle at a non-finite position is ignored by the tick, and not
    // drawn anywhere new either.
    for (p, mut t) in obstacles.iter_mut().filter(|(p, _)| p.is_finite()) {
        t.translation.x = p.x;
        t.translation.y = p.y;
    }
}
