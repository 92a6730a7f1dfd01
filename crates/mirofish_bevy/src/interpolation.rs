//! Rendered `Transform`s interpolated between the last two fixed ticks,
//! in either space.
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
use crate::components::{Position, PreviousPosition, School, Steering, Velocity};
use crate::space::Space;
use crate::state::FlockState;

/// Places every fish's and predator's `Transform` between its last two
/// positions by how far the fixed clock has run into the next tick, turned
/// along its velocity (a sprite's +X on a plane, a model's −Z in a volume)
/// and, with banking, rolled into its turn; a rock's `Transform` follows
/// its [`Position`]. On a plane only x and y are set: z (the game's
/// layering) is left alone. The plugin runs it right after the fixed
/// ticks of a frame, before `Update`; a system ordered after it can add to
/// a fish's pose, e.g. a swimming motion.
pub fn interpolate_transforms<V: Space>(
    time: Res<Time<Fixed>>,
    state: Res<FlockState<V>>,
    mut fish: Query<
        (&Position<V>, &PreviousPosition<V>, &Velocity<V>, &Steering<V>, Option<&School>, &mut Transform),
        With<V::Boid>,
    >,
    mut hunters: Query<
        (&Position<V>, &PreviousPosition<V>, &Velocity<V>, &mut Transform),
        (With<V::Hunter>, Without<V::Boid>),
    >,
    mut rocks: Query<
        (&Position<V>, &mut Transform),
        (With<V::Rock>, Without<V::Boid>, Without<V::Hunter>, Changed<Position<V>>),
    >,
) {
    // Outside a fixed-step schedule a tick runs every frame: draw its result.
    let alpha = if state.fixed_schedule { time.overstep_fraction().clamp(0.0, 1.0) } else { 1.0 };
    let half = state.active.tank.size() * 0.5;
    let (bank, params) = (state.bank, state.flock.params());
    // A column at a time, in pieces on rayon's pool (Bevy's compute pool
    // has a single thread on a 2-core machine): at 100k fish an item per
    // fish cost several times the arithmetic. Every component read is
    // stored in tables, so the query is always dense.
    let Ok(tables) = fish.contiguous_iter_mut() else {
        log::error!("MiroFish: the fish query is not dense; no Transform follows");
        return;
    };
    for (p, prev, v, steer, schools, mut t) in tables {
        let rows =
            p.par_chunks(COLUMN_CHUNK).zip(prev.par_chunks(COLUMN_CHUNK)).zip(v.par_chunks(COLUMN_CHUNK));
        if bank <= 0.0 {
            // Upright fish (a plane's always): the steering and the school
            // are not read.
            t.par_chunks_mut(COLUMN_CHUNK).zip(rows).for_each(|(t, ((p, prev), v))| {
                for (((p, prev), v), t) in p.iter().zip(prev).zip(v).zip(t) {
                    let Some(at) = between(prev.0, p.0, alpha, half) else { continue };
                    V::place(t, at);
                    if let Some(turn) = V::turn(v.0) {
                        t.rotation = turn;
                    }
                }
            });
            continue;
        }
        let rows = rows.zip(steer.par_chunks(COLUMN_CHUNK));
        t.par_chunks_mut(COLUMN_CHUNK).enumerate().zip(rows).for_each(
            |((piece, t), (((p, prev), v), steer))| {
                let schools = schools.map(|s| &s[piece * COLUMN_CHUNK..][..t.len()]);
                for (row, ((((p, prev), v), steer), t)) in
                    p.iter().zip(prev).zip(v).zip(steer).zip(t).enumerate()
                {
                    let Some(at) = between(prev.0, p.0, alpha, half) else { continue };
                    V::place(t, at);
                    if let Some(upright) = V::turn(v.0) {
                        let school = schools.map_or(0, |s| usize::from(s[row].0));
                        let max_force = params.get(school).map_or(0.0, |p| p.max_force);
                        t.rotation = V::roll(upright, steer.0, max_force, bank);
                    }
                }
            },
        );
    }
    for (p, prev, v, mut t) in &mut hunters {
        let Some(at) = between(prev.0, p.0, alpha, half) else { continue };
        V::place(&mut t, at);
        if let Some(turn) = V::turn(v.0) {
            t.rotation = turn;
        }
    }
    // A rock at a non-finite position is left out of the tick, and not
    // drawn anywhere new either.
    for (p, mut t) in &mut rocks {
        if p.0.is_finite() {
            V::place(&mut t, p.0);
        }
    }
}

/// Where to draw something that moved from `prev` to `now`: `alpha` of the
/// way. One that wrapped round the tank (a jump over half its size on an
/// axis) is drawn where it is, not dragged across it; `None` where that is
/// not finite (a position game code broke since the last tick: the next
/// tick repairs it, and until then it is drawn where it was).
#[inline]
fn between<V: Space>(prev: V, now: V, alpha: f32, half: V) -> Option<V> {
    // A NaN jump counts as a wrap.
    let wrapped = !V::within((now - prev).abs(), half);
    let at = if wrapped { now } else { prev + (now - prev) * alpha };
    at.is_finite().then_some(at)
}
