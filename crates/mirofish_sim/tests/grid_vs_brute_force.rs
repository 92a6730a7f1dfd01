//! The grid finds exactly the neighbours a brute-force scan finds, on random
//! worlds that put fish on cell borders, on the tank's walls and across the
//! wrap seam.

use mirofish_sim::space::TickStage;
use mirofish_sim::world::grid::offset;
use mirofish_sim::{BoundaryMode, FlockParams, Simulation, Tank, Vec2};
use proptest::prelude::*;

/// A coordinate on one axis of `[lo, hi)`: uniform, or exactly on a cell
/// border of a grid with cells of `radius`, or on/near a wall.
fn coordinate(lo: f32, hi: f32, radius: f32) -> impl Strategy<Value = f32> {
    let cells = ((hi - lo) / radius).floor().max(1.0) as u32;
    prop_oneof![
        4 => (0.0f32..1.0).prop_map(move |u| lo + u * (hi - lo)),
        2 => (0..=cells).prop_map(move |k| lo + k as f32 * radius),
        1 => Just(lo),
        1 => Just(hi.next_down()),
        1 => (0.0f32..1.0).prop_map(move |u| lo + u * radius * 0.5),
        1 => (0.0f32..1.0).prop_map(move |u| hi - u * radius * 0.5),
    ]
    .prop_map(move |x| x.clamp(lo, hi.next_down()))
}

fn world() -> impl Strategy<Value = (Tank, f32, Vec<Vec2>)> {
    (
        20.0f32..400.0,
        20.0f32..300.0,
        1.0f32..120.0,
        prop_oneof![Just(BoundaryMode::Wrap), Just(BoundaryMode::Bounce), Just(BoundaryMode::SoftMargin)],
        -500.0f32..500.0,
    )
        .prop_flat_map(|(w, h, radius, mode, shift)| {
            let mut tank = Tank::centered(Vec2::new(w, h)).with_boundary(mode);
            tank.min += Vec2::splat(shift);
            tank.max += Vec2::splat(shift);
            let point =
                (coordinate(tank.min.x, tank.max.x, radius), coordinate(tank.min.y, tank.max.y, radius))
                    .prop_map(|(x, y)| Vec2::new(x, y));
            (Just(tank), Just(radius), prop::collection::vec(point, 1..160))
        })
}

/// A school of still fish at `points`, indexed for its first tick.
fn indexed(points: &[Vec2], params: FlockParams, tank: Tank) -> Simulation {
    let mut sim = Simulation::new(params, tank, 0, 0).unwrap();
    for &p in points {
        sim.add_fish(0, p, Vec2::ZERO, 0.0).unwrap();
    }
    sim.run_to(TickStage::SpatialIndex);
    sim
}

/// The slots of the fish within `radius` of the fish in `slot`, by brute
/// force over every fish, ascending: the grid's reference.
fn brute_force_neighbours(points: &[Vec2], slot: usize, radius: f32, tank: &Tank) -> Vec<u32> {
    let wrap = tank.boundary == BoundaryMode::Wrap;
    (0..points.len())
        .filter(|&j| {
            j != slot && offset(points[slot], points[j], tank.size(), wrap).length_squared() < radius * radius
        })
        .map(|j| j as u32)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn grid_neighbours_equal_brute_force((tank, radius, points) in world()) {
        for p in &points {
            prop_assert!(tank.contains(*p), "generator left the tank: {p}");
        }
        let params = FlockParams { perception_radius: radius, separation_radius: radius * 0.3, ..FlockParams::default() };
        let sim = indexed(&points, params, tank);
        for (slot, point) in points.iter().enumerate() {
            let by_grid = sim.grid_neighbours(slot, radius);
            let by_brute = brute_force_neighbours(&points, slot, radius, &tank);
            prop_assert_eq!(by_grid, by_brute, "fish {} at {}", slot, point);
        }
    }
}

#[test]
fn neighbours_are_found_across_the_wrap_seam() {
    let tank = Tank::centered(Vec2::new(100.0, 100.0)).with_boundary(BoundaryMode::Wrap);
    let points =
        [Vec2::new(-49.5, 0.0), Vec2::new(49.5, 0.0), Vec2::new(-49.5, -49.9), Vec2::new(49.9, 49.9)];
    let params = FlockParams { perception_radius: 5.0, ..FlockParams::default() };
    let sim = indexed(&points, params, tank);
    assert_eq!(sim.grid_neighbours(0, 5.0), vec![1]);
    assert_eq!(sim.grid_neighbours(2, 5.0), vec![3], "diagonal across both seams");

    // With walls, the same fish are a whole tank apart.
    let walled = indexed(&points, params, tank.with_boundary(BoundaryMode::Bounce));
    assert!(walled.grid_neighbours(0, 5.0).is_empty());
}
