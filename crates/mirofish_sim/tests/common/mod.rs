//! What several test files share: hostile parameter sets.

use mirofish_sim::FlockParams;
use proptest::prelude::*;

/// Valid parameter sets from every corner of the accepted ranges: zero,
/// tiny, huge and negative weights, radii and limits, every view, caps and
/// topological neighbourhoods, cruise speeds and turning limits.
pub fn hostile_params() -> impl Strategy<Value = FlockParams> {
    let weight = prop_oneof![Just(0.0f32), -1000.0f32..1000.0, 0.0f32..3.0];
    let length = prop_oneof![Just(0.0f32), 1.0e-3f32..1.0, 1.0f32..500.0, Just(1.0e6f32)];
    (
        (prop_oneof![1.0e-3f32..1.0, 1.0f32..500.0, Just(1.0e6f32)], length.clone(), 1.0e-6f32..100.0),
        (length, prop_oneof![Just(0.0f32), 0.0f32..1.0e4, Just(1.0e9f32)]),
        (weight.clone(), weight.clone(), weight.clone(), weight),
        (-1000.0f32..1000.0, 0.0f32..=1.0, 1.0e-4f32..10.0),
        (
            prop_oneof![Just(0.0f32), Just(core::f32::consts::TAU), 0.0f32..core::f32::consts::TAU],
            prop_oneof![Just(1.0f32), 0.0f32..1000.0],
            0.0f32..=1.0,
        ),
    )
        .prop_map(
            |(
                (perception, separation, floor),
                (max_speed, max_force),
                (s, a, c, w),
                (rate, jitter, reaction),
                (view, zone, falloff),
            )| {
                FlockParams {
                    perception_radius: perception,
                    separation_radius: separation,
                    separation_floor: floor,
                    max_speed,
                    // Cruise speeds below and above the limit, and off;
                    // turns from a crawl to a full turn per millisecond.
                    cruise_speed: if falloff < 0.7 { (max_speed * falloff * 2.0).min(1.0e6) } else { 0.0 },
                    cruise_time: 1.0e-3 + reaction,
                    turn_rate: if falloff > 0.2 { zone * 10.0 } else { 0.0 },
                    max_force,
                    separation_weight: s,
                    alignment_weight: a,
                    cohesion_weight: c,
                    wander_weight: w,
                    wander_rate: rate,
                    jitter,
                    reaction_time: reaction,
                    view_angle: view,
                    front_weight: zone,
                    side_weight: 1.0,
                    back_weight: zone * 0.5,
                    distance_falloff: falloff,
                    leader_weight: zone,
                    obstacle_weight: zone,
                    obstacle_look: falloff * 100.0,
                    flee_weight: zone,
                    panic_speed: 1.0 + falloff * 9.0,
                    panic_separation: 1.0 + falloff * 99.0,
                    calm_rate: zone,
                    sees_other_schools: falloff > 0.5,
                    match_speed: falloff < 0.3,
                    // Tiny caps thin a crowd hardest.
                    neighbour_cap: if falloff > 0.6 {
                        1 + zone as u32 % 5
                    } else {
                        mirofish_sim::MAX_NEIGHBOUR_CAP
                    },
                    // Topological neighbourhoods of 1 to 32, and off.
                    topological_neighbours: if falloff < 0.4 { (zone * 7.0) as u32 % 33 } else { 0 },
                }
            },
        )
}
