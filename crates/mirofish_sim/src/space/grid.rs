//! The neighbour index of a school in any dimension: a uniform grid of
//! cells at least one search radius wide, rebuilt every tick by a counting
//! sort, so that a fish's neighbours lie in its own cell and the cells
//! around it (3 × 3 on a plane, 3 × 3 × 3 in a volume).
//!
//! A k-d tree or a bounding-volume hierarchy answers "who is within r"
//! too, but is rebuilt in O(n log n) and walked with branches; a school
//! moves every tick and asks only fixed-radius questions, which a grid
//! answers with one pass to build and a few contiguous runs to read.
//!
//! After [`CellGrid::rebuild`] the fish are also available in cell order
//! ([`CellGrid::order`]): reading positions in that order keeps the
//! neighbours of consecutive fish in cache.

use core::ops::Range;

use rayon::prelude::*;

use crate::math::Vector;
use crate::world::grid::CellOrder;
use crate::world::tank::TankOf;

/// Fish per parallel task when finding the fish's cells.
const CELL_CHUNK: usize = 4096;

/// Most cells a grid allocates per fish (and at least [`MIN_CELLS`]): a
/// tank far larger than the school gets coarser cells, never a memory
/// blow-up.
const CELLS_PER_FISH: usize = 4;
/// The fewest cells the cap in [`CELLS_PER_FISH`] allows.
const MIN_CELLS: usize = 4096;

/// Most runs [`CellGrid::for_each_run`] visits: up to three per row of
/// cells, three rows by three layers.
pub const MAX_RUNS: usize = 27;

/// Most cells of one row [`CellGrid::for_each_run_along`] visits: a stretch
/// of [`MAX_STRETCH`] cells and one cell on either side.
const MAX_ROW_CELLS: usize = MAX_STRETCH as usize + 3;

/// The longest stretch of a row (in cells past the first)
/// [`CellGrid::for_each_run_along`] takes. Four fish spread over up to
/// seven cells of a row still share most of their 27-cell blocks: one
/// scan of the stretch (9 rows of at most 9 cells) costs less than four
/// scans of 27 cells, which a quartet past the stretch falls back to.
pub(crate) const MAX_STRETCH: u32 = 6;

/// A uniform grid over a tank, its cells listing fish in a counting-sorted
/// order.
#[derive(Clone, Debug, Default)]
pub struct CellGrid<V: Vector> {
    min: V,
    size: V,
    inv_cell: V,
    dims: [u32; 3],
    wrap: bool,
    /// The fish sorted by cell.
    sorted: CellOrder,
    /// Each fish's cell.
    cell_of: Vec<u32>,
}

impl<V: Vector> CellGrid<V> {
    /// Rebuilds the grid for `positions` in `tank`, with cells at least
    /// `radius` wide on every axis (wider when the tank would need more
    /// than a few cells per fish). `wrap` makes the edge cells neighbours of
    /// the opposite edge's. Positions outside the tank (or not numbers)
    /// count in the nearest edge cell.
    pub fn rebuild(&mut self, positions: &[V], tank: &TankOf<V>, radius: f32, wrap: bool) {
        let size = tank.size();
        let cap = (positions.len() * CELLS_PER_FISH).max(MIN_CELLS);
        let mut reach = if radius.is_finite() && radius > 0.0 { radius } else { size.max_element() };
        let mut dims = [1u32; 3];
        loop {
            let mut cells = 1usize;
            for (i, d) in dims.iter_mut().enumerate().take(V::DIM) {
                *d = (size.axis(i) / reach).floor().clamp(1.0, u32::MAX as f32) as u32;
                cells = cells.saturating_mul(*d as usize);
            }
            if cells <= cap {
                break;
            }
            reach *= 1.25;
        }
        self.min = tank.min;
        self.size = size;
        self.inv_cell = V::from_fn(|i| dims[i] as f32 / size.axis(i));
        self.dims = dims;
        self.wrap = wrap;
        let cells = dims.iter().map(|&d| d as usize).product::<usize>();
        // Each fish's cell, in parallel (a pure function of its position).
        let mut cell_of = core::mem::take(&mut self.cell_of);
        let this = &*self;
        cell_of.clear();
        cell_of.resize(positions.len(), 0);
        cell_of.par_chunks_mut(CELL_CHUNK).zip(positions.par_chunks(CELL_CHUNK)).for_each(
            |(cells, positions)| {
                for (c, &p) in cells.iter_mut().zip(positions) {
                    *c = this.cell_index(this.coords(p));
                }
            },
        );
        self.cell_of = cell_of;
        // The plane's grid's sort: stable (within a cell, fish keep their
        // index order), in parallel stripes, the same order on any number
        // of threads.
        self.sorted.sort(&self.cell_of, cells);
    }

    /// The cell of `p`, axis by axis (clamped to the grid).
    #[inline]
    pub fn coords(&self, p: V) -> [u32; 3] {
        let mut c = [0u32; 3];
        for (i, ci) in c.iter_mut().enumerate().take(V::DIM) {
            // `as` truncates towards zero (a floor for the positions inside
            // the tank; the few outside are clamped to the edge anyway),
            // saturates, and sends NaN to 0: every position has a cell.
            let x = ((p.axis(i) - self.min.axis(i)) * self.inv_cell.axis(i)) as i64;
            *ci = x.clamp(0, i64::from(self.dims[i]) - 1) as u32;
        }
        c
    }

    #[inline]
    fn cell_index(&self, c: [u32; 3]) -> u32 {
        c[0] + self.dims[0] * (c[1] + self.dims[1] * c[2])
    }

    /// Each fish's place in cell order (the inverse of
    /// [`CellGrid::order`]).
    pub fn rank(&self) -> &[u32] {
        &self.sorted.rank
    }

    /// The fish in cell order.
    pub fn order(&self) -> &[u32] {
        &self.sorted.order
    }

    /// Cells along each axis (1 on the axes a plane lacks).
    pub fn dimensions(&self) -> [u32; 3] {
        self.dims
    }

    /// Whether edge cells neighbour the opposite edge's.
    pub fn wraps(&self) -> bool {
        self.wrap
    }

    /// Calls `visit` with the runs of `order` (slots) of every cell around
    /// the one holding `p`: each cell once, in a fixed order, however few
    /// cells an axis has.
    #[inline]
    pub fn for_each_run(&self, p: V, visit: impl FnMut(Range<usize>)) {
        self.for_each_run_along(self.coords(p), 0, visit);
    }

    /// Calls `visit` with the runs of every cell around any of the cells
    /// `c` to `c + stretch` along x (one row: the cells of a quartet of
    /// fish sorted next to each other), each cell once. Rows and layers go
    /// in the same order whatever the stretch, and within a row the cells
    /// go in ascending x: the runs around one of the cells are a
    /// subsequence, in order, of the runs around the stretch, so a scan of
    /// the stretch meets each fish's candidates in the order a scan of its
    /// own block would.
    #[inline]
    pub(crate) fn for_each_run_along(&self, c: [u32; 3], stretch: u32, mut visit: impl FnMut(Range<usize>)) {
        debug_assert!(stretch <= MAX_STRETCH, "a stretch of {stretch} cells past the first");
        let last_x = c[0].saturating_add(stretch);
        if c[0] >= 1
            && last_x.saturating_add(1) < self.dims[0]
            && (1..V::DIM).all(|i| c[i] >= 1 && c[i] + 1 < self.dims[i])
        {
            // Away from the edges (most fish): the cells of a row are one
            // run, rows and layers in the order the general case takes.
            let layers = if V::DIM == 3 { c[2] - 1..=c[2] + 1 } else { c[2]..=c[2] };
            for z in layers {
                for y in c[1] - 1..=c[1] + 1 {
                    let first = self.cell_index([c[0] - 1, y, z]) as usize;
                    let last = self.cell_index([last_x + 1, y, z]) as usize;
                    let run =
                        self.sorted.cell_start[first] as usize..self.sorted.cell_start[last + 1] as usize;
                    if !run.is_empty() {
                        visit(run);
                    }
                }
            }
            return;
        }
        let mut spans = [[0u32; 3]; 3];
        let mut counts = [1usize; 3];
        for i in 1..V::DIM {
            (spans[i], counts[i]) = around(c[i], self.dims[i], self.wrap);
        }
        // The x cells around each cell of the stretch, without repeats.
        let mut xs = [0u32; MAX_ROW_CELLS];
        let mut x_count = 0;
        for x in c[0]..=last_x.min(self.dims[0] - 1) {
            let (cells, k) = around(x, self.dims[0], self.wrap);
            for &cell in &cells[..k] {
                if !xs[..x_count].contains(&cell) && x_count < MAX_ROW_CELLS {
                    xs[x_count] = cell;
                    x_count += 1;
                }
            }
        }
        let xs = &mut xs[..x_count];
        xs.sort_unstable();
        // Cells are numbered along x first, so the cells of one row that
        // follow each other are one run of slots: at most two runs per row
        // (two where the row wraps round the tank).
        let mut rows = [(0u32, 0u32); MAX_ROW_CELLS];
        let mut row_count = 0;
        for &x in xs.iter() {
            match row_count {
                0 => {}
                k if rows[k - 1].1 + 1 == x => {
                    rows[k - 1].1 = x;
                    continue;
                }
                _ => {}
            }
            rows[row_count] = (x, x);
            row_count += 1;
        }
        for &z in &spans[2][..counts[2]] {
            for &y in &spans[1][..counts[1]] {
                for &(x0, x1) in &rows[..row_count] {
                    let first = self.cell_index([x0, y, z]) as usize;
                    let last = self.cell_index([x1, y, z]) as usize;
                    let run =
                        self.sorted.cell_start[first] as usize..self.sorted.cell_start[last + 1] as usize;
                    if !run.is_empty() {
                        visit(run);
                    }
                }
            }
        }
    }

    /// Bytes held on the heap.
    pub fn heap_bytes(&self) -> usize {
        (self.sorted.cell_start.capacity() + self.sorted.order.capacity() + self.cell_of.capacity()) * 4
    }
}

/// The distinct cells at most one away from `c` on an axis of `n` cells:
/// wrapping round when `wrap`, cut at the edges otherwise.
#[inline]
fn around(c: u32, n: u32, wrap: bool) -> ([u32; 3], usize) {
    if n <= 3 && (wrap || n == 1) {
        // Every cell of the axis is within reach (or the only one).
        return ([0, 1, 2], n as usize);
    }
    let lo = if c > 0 {
        Some(c - 1)
    } else if wrap {
        Some(n - 1)
    } else {
        None
    };
    let hi = if c + 1 < n {
        Some(c + 1)
    } else if wrap {
        Some(0)
    } else {
        None
    };
    let mut out = [c; 3];
    let mut k = 0;
    for cell in [lo, Some(c), hi].into_iter().flatten() {
        out[k] = cell;
        k += 1;
    }
    (out, k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::grid::offset;
    use glam::Vec3;

    fn scatter(n: usize, tank: &TankOf<Vec3>) -> Vec<Vec3> {
        let size = tank.size();
        (0..n as u64)
            .map(|i| {
                let b = crate::rules::noise::mix64(i + 1);
                let f = |k: u32| ((b >> (20 * k)) & 0xf_ffff) as f32 / (1u32 << 20) as f32;
                tank.min + Vec3::new(f(0), f(1), f(2)) * size
            })
            .collect()
    }

    /// Everything within `radius` of every fish, found by the grid and by
    /// looking at all pairs, as sorted lists per fish.
    fn both_ways(
        positions: &[Vec3],
        tank: &TankOf<Vec3>,
        radius: f32,
        wrap: bool,
    ) -> (Vec<Vec<u32>>, Vec<Vec<u32>>) {
        let mut grid = CellGrid::default();
        grid.rebuild(positions, tank, radius, wrap);
        let within = |a: Vec3, b: Vec3| offset(a, b, tank.size(), wrap).length_squared() < radius * radius;
        let by_grid = positions
            .iter()
            .map(|&p| {
                let mut found = Vec::new();
                grid.for_each_run(p, |run| {
                    found.extend(
                        grid.order()[run].iter().copied().filter(|&j| within(p, positions[j as usize])),
                    );
                });
                found.sort_unstable();
                found
            })
            .collect();
        let brute = positions
            .iter()
            .map(|&p| (0..positions.len() as u32).filter(|&j| within(p, positions[j as usize])).collect())
            .collect();
        (by_grid, brute)
    }

    #[test]
    fn the_grid_finds_what_brute_force_finds_in_a_volume() {
        let tank = TankOf::centered(Vec3::new(300.0, 200.0, 120.0));
        let positions = scatter(1500, &tank);
        for wrap in [false, true] {
            for radius in [10.0, 31.0, 45.0, 70.0, 130.0] {
                let (grid, brute) = both_ways(&positions, &tank, radius, wrap);
                assert_eq!(grid, brute, "radius {radius}, wrap {wrap}");
            }
        }
    }

    /// Between walls the runs come in ascending slot order, as many as
    /// [`MAX_RUNS`] at most, the cells away from the edges (visited by a
    /// shortcut) as the edge cells: the force pass sums neighbours in this
    /// order, so it fixes the bits.
    #[test]
    fn runs_ascend_within_the_walls_inside_and_at_the_edges() {
        let tank = TankOf::centered(Vec3::new(300.0, 200.0, 120.0));
        let positions = scatter(1500, &tank);
        let mut grid = CellGrid::default();
        grid.rebuild(&positions, &tank, 31.0, false);
        let (mut interior, mut edge) = (0, 0);
        for &p in &positions {
            let c = grid.coords(p);
            if (0..3).all(|i| c[i] >= 1 && c[i] + 1 < grid.dimensions()[i]) {
                interior += 1;
            } else {
                edge += 1;
            }
            let mut runs = Vec::new();
            grid.for_each_run(p, |run| runs.push(run));
            assert!(runs.len() <= MAX_RUNS);
            assert!(runs.windows(2).all(|w| w[0].end <= w[1].start), "{runs:?}");
            let visited: usize = runs.iter().map(|r| r.len()).sum();
            let mut expected = 0;
            for z in c[2].saturating_sub(1)..=(c[2] + 1).min(grid.dimensions()[2] - 1) {
                for y in c[1].saturating_sub(1)..=(c[1] + 1).min(grid.dimensions()[1] - 1) {
                    for x in c[0].saturating_sub(1)..=(c[0] + 1).min(grid.dimensions()[0] - 1) {
                        let cell = grid.cell_index([x, y, z]) as usize;
                        expected +=
                            (grid.sorted.cell_start[cell + 1] - grid.sorted.cell_start[cell]) as usize;
                    }
                }
            }
            assert_eq!(visited, expected);
        }
        assert!(interior > 100 && edge > 100, "{interior} inside, {edge} at the edges");
    }

    /// The slots around a stretch of a row: every slot around any of its
    /// cells, once, and those around each cell in the order that cell's
    /// own runs give them (a quartet's lanes then add their candidates in
    /// the order the fish's own scan would), at the walls, across the
    /// seams of a torus and on axes of one to a few cells.
    #[test]
    fn a_stretch_of_a_row_visits_each_of_its_cells_runs_in_their_order() {
        for (extent, radius) in [(Vec3::new(300.0, 200.0, 120.0), 31.0), (Vec3::new(90.0, 60.0, 40.0), 31.0)]
        {
            let tank = TankOf::centered(extent);
            let positions = scatter(800, &tank);
            for wrap in [false, true] {
                let mut grid = CellGrid::default();
                grid.rebuild(&positions, &tank, radius, wrap);
                let dims = grid.dimensions();
                let slots_along = |c: [u32; 3], stretch: u32| {
                    let mut slots = Vec::new();
                    grid.for_each_run_along(c, stretch, |run| slots.extend(run));
                    slots
                };
                for z in 0..dims[2] {
                    for y in 0..dims[1] {
                        for x in 0..dims[0] {
                            for stretch in 0..=MAX_STRETCH.min(dims[0] - 1 - x) {
                                let all = slots_along([x, y, z], stretch);
                                let mut unique = all.clone();
                                unique.sort_unstable();
                                unique.dedup();
                                assert_eq!(unique.len(), all.len(), "a slot twice");
                                let mut expected = Vec::new();
                                for k in 0..=stretch {
                                    let own = slots_along([x + k, y, z], 0);
                                    let mut at = all.iter();
                                    assert!(
                                        own.iter().all(|s| at.any(|a| a == s)),
                                        "cell {k} of the stretch from {x} {y} {z}, wrap {wrap}"
                                    );
                                    expected.extend(own);
                                }
                                expected.sort_unstable();
                                expected.dedup();
                                assert_eq!(expected, unique);
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn neighbours_are_found_across_the_wrap_seams() {
        let tank = TankOf::centered(Vec3::splat(100.0));
        // Two fish 2 apart through the corner seam, 98 apart inside.
        let positions = [Vec3::splat(-49.0), Vec3::splat(49.5)];
        let (grid, _) = both_ways(&positions, &tank, 5.0, true);
        assert_eq!(grid[0], vec![0, 1]);
        let (walls, _) = both_ways(&positions, &tank, 5.0, false);
        assert_eq!(walls[0], vec![0]);
    }

    #[test]
    fn a_huge_tank_gets_coarser_cells_not_a_huge_grid() {
        let tank = TankOf::centered(Vec3::splat(1.0e6));
        let mut grid = CellGrid::default();
        grid.rebuild(&[Vec3::ZERO, Vec3::splat(f32::NAN), Vec3::splat(f32::INFINITY)], &tank, 1.0, false);
        let cells: u64 = grid.dimensions().iter().map(|&d| u64::from(d)).product();
        assert!(cells <= MIN_CELLS as u64, "{cells}");
        assert_eq!(grid.order().len(), 3);
    }

    #[test]
    fn each_cell_around_is_visited_once_however_few_cells_an_axis_has() {
        for n in 1..6 {
            for c in 0..n {
                for wrap in [false, true] {
                    let (cells, k) = around(c, n, wrap);
                    let mut seen = cells[..k].to_vec();
                    seen.sort_unstable();
                    seen.dedup();
                    assert_eq!(seen.len(), k, "n {n} c {c} wrap {wrap}");
                    assert!(seen.iter().all(|&x| x < n));
                }
            }
        }
    }
}
