//! The uniform-grid neighbour index of a school on a plane or in a volume,
//! rebuilt from scratch every tick by a stable counting sort (in parallel
//! stripes; the order is the same for any number of threads).
//!
//! Cells are at least the interaction radius deep along every axis but x,
//! and at least half of it wide along x (`COLUMNS_PER_RADIUS`), so every
//! neighbour of a fish lies within one cell along y (and z) and two
//! columns along x of its own cell: its *block* of 5 columns × 3 rows (× 3
//! layers). After the sort, fish of one cell are contiguous, and the cells
//! of one row are contiguous too: a block is at most three runs of the
//! sorted order on a plane and nine in a volume (twice as many across a
//! wrap seam), which is what makes the force passes cache-friendly. Narrow
//! columns follow the reach of a fish along the row more closely than
//! cubes would (a block of 2.5 × 3 × 3 radii instead of 3 × 3 × 3). The
//! grid also keeps a sorted snapshot of each
//! fish's position and velocity together ([`Vector::Record`]: one 16-byte
//! vector `[x, y, vx, vy]` on a plane, two in a volume), so the force
//! kernel reads a candidate with one or two aligned loads.
//!
//! Cell coordinates are clamped (walls) or wrapped (torus), so a fish on the
//! border never indexes outside the grid and no cell is scanned twice.
//!
//! A k-d tree or a bounding-volume hierarchy answers "who is within r"
//! too, but is rebuilt in O(n log n) and walked with branches; a school
//! moves every tick and asks only fixed-radius questions, which a grid
//! answers with one pass to build and a few contiguous runs to read.

use core::ops::Range;

use crate::math::Vector;
use glam::{Vec4, Vec4Swizzles};
use rayon::prelude::*;

use crate::prefetch::{AHEAD, prefetch};
#[cfg(test)]
use crate::world::tank::Tank;
use crate::world::tank::TankOf;

/// Columns per interaction radius: a column is at least `radius /
/// COLUMNS_PER_RADIUS` wide (a row or layer at least `radius` deep), and a
/// fish's neighbours lie within this many columns and one row (and layer)
/// of its own cell. Narrow columns fit the stretch of a row a quartet scans
/// closer to the reach of its fish (fewer candidates than cubes at the
/// usual density), at the price of more cells for the sort to count;
/// narrower columns still scan a little less but sort more.
pub(crate) const COLUMNS_PER_RADIUS: u32 = 2;
/// Fewest cells the grid may use per fish before it coarsens: a tiny radius
/// in a huge tank must not allocate millions of empty cells.
const MAX_CELLS_PER_FISH: usize = 4;
/// Fewest fish per stripe of the parallel counting sort.
const MIN_STRIPE: usize = 16_384;
/// Fish per work item of the cell search and the snapshot gather.
const GATHER_CHUNK: usize = 4096;
/// Cells always allowed, whatever the fish count.
const MIN_CELL_BUDGET: usize = 4096;
/// Most cells for which [`CellGrid::cells_of`] finds the cells in `f32`
/// (2²³: every index below is an integer `f32` holds exactly, and adding
/// 2²³ to it puts it in the low bits). Grids of more cells, for more than
/// two million fish, convert each coordinate instead.
const EXACT_CELLS: u64 = 1 << 23;
/// Extra cell width per unit of tank side, far above the relative rounding
/// error (~1e-7) of computing a cell coordinate in `f32`.
const CELL_SLACK: f32 = 1.0e-6;

/// Most runs of sorted places a plane's block covers: three rows of at
/// most two runs each (two where a row wraps round the tank).
pub const PLANE_RUNS: usize = 6;
/// Most runs of sorted places any block covers (a volume's): three layers
/// of three rows of at most two runs each.
pub const MAX_RUNS: usize = 18;

/// A uniform grid over the tank, with the fish sorted by cell, on a plane
/// (`CellGrid<Vec2>`) or in a volume (`CellGrid<Vec3>`).
#[derive(Clone, Debug, Default)]
pub struct CellGrid<V: Vector> {
    origin: V,
    size: V,
    inv_cell: V,
    /// Cells along x, y and z (1 on the axes a plane lacks).
    dims: [u32; 3],
    wrap: bool,
    /// Cell of each fish, by slot.
    cell_of: Vec<u32>,
    /// The fish sorted by cell: each cell's sorted indices, sorted index →
    /// slot and slot → sorted index.
    sorted: CellOrder,
    /// The snapshot in sorted order: each fish's position and velocity
    /// ([`Vector::Record`]), padded with zeros to a whole number of
    /// quartets (empty unless the grid was rebuilt with the velocities).
    snapshot: Vec<V::Record>,
}

/// Fish per quartet: the force kernel takes the fish four at a time, one
/// per vector lane, starting at multiples of four in sorted order.
pub(crate) const QUARTET: usize = 4;

impl<V: Vector> CellGrid<V> {
    /// Rebuilds the index for `positions` (indexed by slot) with cells at
    /// least `radius` deep along every axis but x and at least `radius /
    /// COLUMNS_PER_RADIUS` wide along x (coarser when the tank would need
    /// more than a few cells per fish). `wrap` makes the edge cells
    /// neighbours of the opposite edge's. Positions outside the tank (or
    /// not numbers) count in the nearest edge cell. Reuses its buffers: no
    /// allocation once the fish count has stopped growing.
    pub fn rebuild(&mut self, positions: &[V], tank: &TankOf<V>, radius: f32, wrap: bool) {
        self.sort(positions, tank, radius, wrap, None);
        self.snapshot.clear();
    }

    /// The cells of `positions` and the fish sorted by them; with `ties`
    /// (`(by_slot, sorted)`, one key per fish, all different), the fish of
    /// each cell ordered by key instead of by slot and the keys gathered
    /// into sorted order in `sorted`.
    fn sort(
        &mut self,
        positions: &[V],
        tank: &TankOf<V>,
        radius: f32,
        wrap: bool,
        ties: Option<(&[u32], &mut Vec<u32>)>,
    ) {
        let n = positions.len();
        self.layout(tank, radius, wrap, n);

        // Cell of every fish (parallel).
        let cells = self.dims.iter().map(|&d| d as usize).product::<usize>();
        let mut cell_of = core::mem::take(&mut self.cell_of);
        cell_of.resize(n, 0);
        let this = &*self;
        cell_of
            .par_chunks_mut(GATHER_CHUNK)
            .zip(positions.par_chunks(GATHER_CHUNK))
            .for_each(|(cells, positions)| this.cells_of(positions, cells));
        self.cell_of = cell_of;
        self.sorted.sort(&self.cell_of, cells);
        if let Some((key, sorted)) = ties {
            // The keys in sorted order (read along memory where the slots
            // follow last tick's order), then each cell's fish by key.
            assert_eq!(key.len(), n, "one key per fish");
            sorted.resize(n, 0);
            sorted.par_chunks_mut(GATHER_CHUNK).zip(self.sorted.order.par_chunks(GATHER_CHUNK)).for_each(
                |(sorted, order)| {
                    for (to, &fish) in sorted.iter_mut().zip(order) {
                        *to = key[fish as usize];
                    }
                },
            );
            if order_ties(&mut self.sorted.order, sorted, 0, &self.sorted.cell_start, key) {
                // The ranks of the fish moved: all of them, along memory
                // where the slots follow last tick's order.
                for (s, &slot) in self.sorted.order.iter().enumerate() {
                    self.sorted.rank[slot as usize] = s as u32;
                }
            }
        }
    }

    /// Chooses the cell counts: `floor(side / width)` per axis, the width
    /// being `radius / COLUMNS_PER_RADIUS` along x and `radius` along the
    /// others (so cells are at least that wide and tile the tank exactly,
    /// which the wrap seam needs), coarsened alike on every axis if that
    /// would be far more cells than fish.
    fn layout(&mut self, tank: &TankOf<V>, radius: f32, wrap: bool, n: usize) {
        let size = tank.size();
        // The cell is made a hair wider than its share of the radius: a
        // point within rounding error of a cell border may land in the next
        // cell, and the slack keeps its true neighbours inside its block.
        // A radius that is not a positive number gives one cell per axis
        // before the budget's coarsening, never a division by zero.
        let per_axis = |side: f32, width: f32| {
            let cell = width + side * CELL_SLACK;
            ((side / cell).floor() as u64).clamp(1, u32::MAX as u64)
        };
        let mut dims = [1u64; 3];
        for (i, d) in dims.iter_mut().enumerate().take(V::DIM) {
            let width = if i == 0 { radius / COLUMNS_PER_RADIUS as f32 } else { radius };
            *d = per_axis(size.axis(i), width);
        }
        let budget = (n * MAX_CELLS_PER_FISH).max(MIN_CELL_BUDGET) as u64;
        // The same factor off every axis, so that the cells keep their
        // shape; again where an axis stopped at one cell and the others
        // are still too many.
        while dims.iter().try_fold(1u64, |cells, &d| cells.checked_mul(d)).is_none_or(|cells| cells > budget)
        {
            let cells = dims.iter().fold(1.0, |cells, &d| cells * d as f64);
            let over = cells / budget as f64;
            let shrink = if V::DIM == 2 { over.sqrt() } else { over.cbrt() };
            for d in dims.iter_mut().take(V::DIM) {
                *d = ((*d as f64 / shrink).floor() as u64).max(1);
            }
        }
        self.origin = tank.min;
        self.size = size;
        self.dims = dims.map(|d| d as u32);
        self.inv_cell = V::from_fn(|i| dims[i] as f32 / size.axis(i));
        self.wrap = wrap;
    }

    /// The cell of a point, axis by axis, clamped into the grid (0 on the
    /// axes a plane lacks).
    #[inline]
    pub fn coords(&self, p: V) -> [u32; 3] {
        let c = (p - self.origin).scale_by(self.inv_cell);
        // `as` saturates (negative and NaN to 0), and the `min` keeps points
        // on the far wall in the last cell.
        core::array::from_fn(|i| if i < V::DIM { (c.axis(i) as u32).min(self.dims[i] - 1) } else { 0 })
    }

    /// The index of the cell at `c`: x first, then y, then z.
    #[inline(always)]
    fn cell_index(&self, c: [u32; 3]) -> u32 {
        if V::DIM == 2 {
            c[1] * self.dims[0] + c[0]
        } else {
            (c[2] * self.dims[1] + c[1]) * self.dims[0] + c[0]
        }
    }

    /// The cell of every point of `positions` ([`CellGrid::coords`] as
    /// [`CellGrid::cell_index`]) into `cells`, a vector at a time (two
    /// points on a plane, one in a volume). The coordinates are clamped
    /// into the grid in `f32` *before* the conversion to integers, which
    /// gives the cell that `coords`' saturating conversion and clamp after
    /// it give, for every value and for NaN (which the `max` sends to 0),
    /// and lets four lanes convert at once.
    fn cells_of(&self, positions: &[V], cells: &mut [u32]) {
        if self.dims.iter().map(|&d| u64::from(d)).product::<u64>() <= EXACT_CELLS {
            self.cells_of_by::<true>(positions, cells);
        } else {
            self.cells_of_by::<false>(positions, cells);
        }
    }

    /// [`CellGrid::cells_of`], the cell found one of two ways after the
    /// coordinates are clamped into the grid:
    /// - `IN_F32` (for a grid of at most [`EXACT_CELLS`] cells, where every
    ///   cell coordinate and index is an integer `f32` holds exactly): each
    ///   coordinate is rounded down by adding and taking away 2²³ (which
    ///   rounds it to the nearest integer) and a step back where that went
    ///   up; the index is computed in `f32`, and the integer comes from the
    ///   bits of `index + 2²³`. About half the instructions of the other
    ///   way, whose saturating conversion goes one lane at a time;
    /// - otherwise, each coordinate converted with `as`.
    fn cells_of_by<const IN_F32: bool>(&self, positions: &[V], cells: &mut [u32]) {
        const TWO_23: f32 = 8_388_608.0;
        let (two_23, bits_23) = (Vec4::splat(TWO_23), TWO_23.to_bits());
        let floor = |c: Vec4| {
            let nearest = (c + two_23) - two_23;
            nearest - Vec4::select(nearest.cmpgt(c), Vec4::ONE, Vec4::ZERO)
        };
        let last = |i: usize| (self.dims[i] - 1) as f32;
        if V::DIM == 2 {
            // Two points per vector: `[x₀, y₀, x₁, y₁]`.
            let twice = |v: V| Vec4::new(v.axis(0), v.axis(1), v.axis(0), v.axis(1));
            let (origin, inv) = (twice(self.origin), twice(self.inv_cell));
            let last = Vec4::new(last(0), last(1), last(0), last(1));
            let (cols, ncols) = (self.dims[0] as f32, self.dims[0]);
            let (pairs, odd) = positions.as_chunks::<2>();
            let (cell_pairs, odd_cells) = cells.as_chunks_mut::<2>();
            for (to, [a, b]) in cell_pairs.iter_mut().zip(pairs) {
                let c = ((Vec4::new(a.axis(0), a.axis(1), b.axis(0), b.axis(1)) - origin) * inv)
                    .max(Vec4::ZERO)
                    .min(last);
                *to = if IN_F32 {
                    // `[y₀ · cols + x₀, ·, y₁ · cols + x₁, ·]`, exact below 2²³.
                    let f = floor(c);
                    let index = (f.yyww() * cols + f.xxzz() + two_23).to_array();
                    [index[0].to_bits() - bits_23, index[2].to_bits() - bits_23]
                } else {
                    let c = c.as_uvec4();
                    [c.y * ncols + c.x, c.w * ncols + c.z]
                };
            }
            for (to, &p) in odd_cells.iter_mut().zip(odd) {
                *to = self.cell_index(self.coords(p));
            }
            return;
        }
        // One point per vector: `[x, y, z, 0]`.
        let four = |v: V| Vec4::new(v.axis(0), v.axis(1), v.axis(2), 0.0);
        let (origin, inv) = (four(self.origin), four(self.inv_cell));
        let last = Vec4::new(last(0), last(1), last(2), 0.0);
        let (cols, rows) = (self.dims[0] as f32, self.dims[1] as f32);
        for (to, &p) in cells.iter_mut().zip(positions) {
            let c = ((four(p) - origin) * inv).max(Vec4::ZERO).min(last);
            *to = if IN_F32 {
                // `(z · rows + y) · cols + x`, exact below 2²³.
                let f = floor(c);
                ((f.z * rows + f.y) * cols + f.x + TWO_23).to_bits() - bits_23
            } else {
                let c = c.as_uvec4();
                self.cell_index([c.x, c.y, c.z])
            };
        }
    }

    /// The runs of sorted indices that cover the block of cells around `p`,
    /// in ascending order, also across a wrap seam; some may be empty.
    #[inline]
    pub fn candidate_runs(&self, p: V) -> CandidateRuns<MAX_RUNS> {
        self.cell_block(p).0
    }

    /// [`CellGrid::candidate_runs`] of `p` (at most `N` of them:
    /// [`PLANE_RUNS`] on a plane, [`MAX_RUNS`] in a volume), and the end
    /// (one past the last sorted index) of the cell `p` lies in: every fish sorted before that
    /// end and no earlier than `p`'s own fish shares the same runs.
    #[inline]
    pub(crate) fn cell_block<const N: usize>(&self, p: V) -> (CandidateRuns<N>, usize) {
        let c = self.coords(p);
        let end = self.sorted.cell_start[self.cell_index(c) as usize + 1] as usize;
        (self.runs_across(c[0], c), end)
    }

    /// The sorted indices of the cells from the cell of `first` to the cell
    /// of `last` (both included): the fish between two sorted places and
    /// the others of their cells. `first` must lie at or before `last` in
    /// the sorted order.
    #[inline]
    pub(crate) fn cells_between(&self, first: V, last: V) -> Range<usize> {
        let (a, b) =
            (self.cell_index(self.coords(first)) as usize, self.cell_index(self.coords(last)) as usize);
        self.sorted.cell_start[a] as usize..self.sorted.cell_start[b.max(a) + 1] as usize
    }

    /// The runs of sorted indices that cover the cells around the columns
    /// from `c`'s to `last_x` of `c`'s row (the blocks of all of them), in
    /// ascending order, also across a wrap seam: at most three rows (nine
    /// in a volume) of at most two runs each, some maybe empty. `c[0] <=
    /// last_x < columns`; `N` must hold them ([`PLANE_RUNS`] on
    /// a plane, [`MAX_RUNS`] in a volume).
    #[inline(always)]
    pub(crate) fn runs_across<const N: usize>(&self, last_x: u32, c: [u32; 3]) -> CandidateRuns<N> {
        debug_assert!(N >= PLANE_RUNS * if V::DIM == 2 { 1 } else { 3 }, "room for {N} runs");
        let mut out = CandidateRuns { runs: [(0, 0); N], len: 0 };
        let [cols, rows, layers] = self.dims;
        let start = |x: u32, y: u32, z: u32| self.sorted.cell_start[self.cell_index([x, y, z]) as usize];
        if !self.wrap {
            // Walls: one run per row (the spans are one each, clamped).
            let [(x0, x1), _] = axis_spans(c[0], last_x, COLUMNS_PER_RADIUS, cols, false).0;
            let [(y0, y1), _] = axis_spans(c[1], c[1], 1, rows, false).0;
            let [(z0, z1), _] =
                if V::DIM == 2 { [(0, 0); 2] } else { axis_spans(c[2], c[2], 1, layers, false).0 };
            for z in z0..=z1 {
                for y in y0..=y1 {
                    out.runs[out.len] = (start(x0, y, z), start(x1 + 1, y, z));
                    out.len += 1;
                }
            }
            return out;
        }
        let (layer_spans, nz) =
            if V::DIM == 2 { ([(0, 0); 2], 1) } else { axis_spans(c[2], c[2], 1, layers, true) };
        let (row_spans, ny) = axis_spans(c[1], c[1], 1, rows, true);
        let (col_spans, nx) = axis_spans(c[0], last_x, COLUMNS_PER_RADIUS, cols, true);
        for &(z0, z1) in &layer_spans[..nz] {
            for z in z0..=z1 {
                for &(y0, y1) in &row_spans[..ny] {
                    for y in y0..=y1 {
                        for &(x0, x1) in &col_spans[..nx] {
                            let (first, end) = (start(x0, y, z), start(x1 + 1, y, z));
                            if first < end && out.len < N {
                                out.runs[out.len] = (first, end);
                                out.len += 1;
                            }
                        }
                    }
                }
            }
        }
        out
    }

    /// The tank's corner the cells count from.
    #[inline]
    #[cfg_attr(not(target_arch = "x86_64"), expect(dead_code, reason = "read by the AVX2 build only"))]
    pub(crate) fn origin(&self) -> V {
        self.origin
    }

    /// Cells per unit of length, per axis.
    #[inline]
    #[cfg_attr(not(target_arch = "x86_64"), expect(dead_code, reason = "read by the AVX2 build only"))]
    pub(crate) fn inv_cell(&self) -> V {
        self.inv_cell
    }

    /// Cells along x, y and z (1 on the axes a plane lacks).
    pub fn dimensions(&self) -> [u32; 3] {
        self.dims
    }

    /// The size of one cell along each axis.
    pub fn cell_size(&self) -> V {
        V::from_fn(|i| self.size.axis(i) / self.dims[i] as f32)
    }

    /// Size of the tank the grid covers.
    pub fn tank_size(&self) -> V {
        self.size
    }

    /// Sorted index → slot.
    pub fn order(&self) -> &[u32] {
        &self.sorted.order
    }

    /// Slot → sorted index.
    pub fn rank(&self) -> &[u32] {
        &self.sorted.rank
    }

    /// Number of fish indexed.
    pub fn len(&self) -> usize {
        self.sorted.order.len()
    }

    /// Whether no fish are indexed.
    pub fn is_empty(&self) -> bool {
        self.sorted.order.is_empty()
    }

    /// Whether the grid wraps around (torus).
    pub fn wraps(&self) -> bool {
        self.wrap
    }

    /// Heap bytes held by the index's buffers.
    pub fn heap_bytes(&self) -> usize {
        let u32s = self.sorted.heap_u32s() + self.cell_of.capacity();
        u32s * 4 + self.snapshot.capacity() * core::mem::size_of::<V::Record>()
    }
}

impl<V: Vector> CellGrid<V> {
    /// [`CellGrid::rebuild`], keeping the snapshot the force kernel reads
    /// as well: each fish's position and `velocity` (indexed
    /// by slot) in sorted order.
    pub fn rebuild_with_velocities(
        &mut self,
        position: &[V],
        velocity: &[V],
        tank: &TankOf<V>,
        radius: f32,
        wrap: bool,
    ) {
        self.rebuild_gathering(position, velocity, tank, radius, wrap, Extras::default());
    }

    /// [`CellGrid::rebuild_with_velocities`], with the [`Extras`] given: a
    /// value per fish gathered into sorted order with the snapshot, and the
    /// fish of each cell ordered by a key of their own instead of by slot.
    pub(crate) fn rebuild_gathering(
        &mut self,
        position: &[V],
        velocity: &[V],
        tank: &TankOf<V>,
        radius: f32,
        wrap: bool,
        extras: Extras<'_>,
    ) {
        debug_assert_eq!(position.len(), velocity.len());
        let n = position.len();
        let Extras { gather: also, ties } = extras;
        self.sort(position, tank, radius, wrap, ties);

        // The snapshot the force pass reads, gathered in sorted order, all
        // four components in one pass (two random reads per fish, asked
        // for `AHEAD` fish early: by now they are usually out of the cache).
        // Every fish's entry is overwritten below: only the padding of the
        // last quartet needs zeroing, not the whole snapshot.
        self.snapshot.resize(n.next_multiple_of(QUARTET), V::Record::default());
        self.snapshot[n..].fill(V::Record::default());
        let order = &self.sorted.order;
        // The slots of chunk `chunk`, and those `AHEAD` places further on.
        let slots = |chunk: usize| {
            let start = chunk * GATHER_CHUNK;
            let end = (start + GATHER_CHUNK).min(n);
            (&order[start..end], &order[(start + AHEAD).min(n)..])
        };
        let gather = |snapshot: &mut [V::Record], (mine, ahead): (&[u32], &[u32])| {
            for (k, (fish, &i)) in snapshot.iter_mut().zip(mine).enumerate() {
                if let Some(&a) = ahead.get(k) {
                    prefetch(position, a as usize);
                    prefetch(velocity, a as usize);
                }
                let (p, v) = (position[i as usize], velocity[i as usize]);
                *fish = V::pack(p, v);
            }
        };
        let snapshot = self.snapshot.par_chunks_mut(GATHER_CHUNK).enumerate();
        if let Some((by_slot, sorted)) = also {
            assert_eq!(by_slot.len(), n, "one value per fish to gather");
            sorted.resize(n, 0.0);
            snapshot.zip(sorted.par_chunks_mut(GATHER_CHUNK)).for_each(|((chunk, snapshot), sorted)| {
                let (mine, ahead) = slots(chunk);
                gather(snapshot, (mine, ahead));
                for (k, (to, &i)) in sorted.iter_mut().zip(mine).enumerate() {
                    if let Some(&a) = ahead.get(k) {
                        prefetch(by_slot, a as usize);
                    }
                    *to = by_slot[i as usize];
                }
            });
        } else {
            snapshot.for_each(|(chunk, snapshot)| gather(snapshot, slots(chunk)));
        }
    }

    /// Position of the fish at sorted index `s`.
    #[inline]
    pub fn sorted_position(&self, s: usize) -> V {
        V::record_position(&self.snapshot[s])
    }

    /// Velocity of the fish at sorted index `s`.
    #[inline]
    pub fn sorted_velocity(&self, s: usize) -> V {
        V::record_velocity(&self.snapshot[s])
    }

    /// Positions in sorted order.
    pub fn sorted_positions(&self) -> impl ExactSizeIterator<Item = V> + '_ {
        self.snapshot[..self.len().min(self.snapshot.len())].iter().map(V::record_position)
    }

    /// The sorted snapshot, a record per fish, padded with zeros to a
    /// whole number of quartets.
    #[inline]
    pub(crate) fn snapshot(&self) -> &[V::Record] {
        &self.snapshot
    }
}

/// Up to `N` runs of sorted indices (see [`CellGrid::candidate_runs`]),
/// kept on the stack: the force passes ask for one per fish or quartet.
#[derive(Clone, Copy, Debug)]
pub struct CandidateRuns<const N: usize = PLANE_RUNS> {
    runs: [(u32, u32); N],
    len: usize,
}

impl<const N: usize> CandidateRuns<N> {
    /// One run covering `range` (brute force: every fish).
    pub fn single(range: Range<usize>) -> Self {
        let mut runs = [(0, 0); N];
        runs[0] = (range.start as u32, range.end as u32);
        Self { runs, len: 1 }
    }

    /// The runs, as half-open `start..end` ranges of sorted indices.
    #[inline]
    pub fn iter(&self) -> impl Iterator<Item = Range<usize>> + '_ {
        self.runs[..self.len].iter().map(|&(a, b)| a as usize..b as usize)
    }

    /// Number of runs (some may be empty).
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no runs at all.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The fish in all the runs together.
    #[inline]
    pub fn candidates(&self) -> usize {
        self.runs[..self.len].iter().map(|&(a, b)| (b - a) as usize).sum()
    }
}

/// A grid's fish sorted by cell, in both spaces: after
/// [`CellOrder::sort`], cell `c`'s fish are `order[cell_start[c] as
/// usize..cell_start[c + 1] as usize]` (sorted place to slot, in slot
/// order within a cell) and `rank` is the inverse (slot to sorted place).
/// The buffers are reused: no allocation once the fish and cell counts
/// stop growing.
#[derive(Clone, Debug, Default)]
pub(crate) struct CellOrder {
    /// Where each cell's fish start in `order`, and one past the last.
    pub cell_start: Vec<u32>,
    /// Sorted place → slot.
    pub order: Vec<u32>,
    /// Slot → sorted place.
    pub rank: Vec<u32>,
    /// Scratch for the scatter.
    cursor: Vec<u32>,
}

impl CellOrder {
    /// The `u32`s the buffers hold room for.
    pub(crate) fn heap_u32s(&self) -> usize {
        self.cell_start.capacity() + self.order.capacity() + self.rank.capacity() + self.cursor.capacity()
    }

    /// The stable counting sort of `cell_of` (each fish's cell, by slot,
    /// below `cells`) into `cell_start`, `order` and `rank`. The slots are
    /// cut into one stripe per thread; each stripe counts its cells, an
    /// exclusive scan over (cell, stripe) gives every stripe its first
    /// place in every cell, and the stripes scatter in parallel. Within a cell, stripe order then slot order is slot order:
    /// the result is the same for any number of stripes, so the sorted
    /// order (and every neighbour sum) never depends on the thread count.
    pub(crate) fn sort(&mut self, cell_of: &[u32], cells: usize) {
        let n = cell_of.len();
        self.order.resize(n, 0);
        self.rank.resize(n, 0);
        // Every entry is written below (zeroed first where counted into).
        self.cell_start.resize(cells + 1, 0);
        // A stripe per thread, but none shorter than a few thousand fish:
        // below that the per-stripe cell counts cost more than they save.
        let stripes = rayon::current_num_threads().min(n / MIN_STRIPE).clamp(1, MAX_STRIPES);
        if stripes == 1 {
            // Plain slices in the loops: indexing through the borrowed
            // vectors reloads their bounds each time.
            let cell_start = &mut self.cell_start[..];
            cell_start.fill(0);
            for &c in cell_of {
                cell_start[c as usize + 1] += 1;
            }
            for c in 0..cells {
                cell_start[c + 1] += cell_start[c];
            }
            self.cursor.clear();
            self.cursor.extend_from_slice(&cell_start[..cells]);
            let (cursor, order, rank) = (&mut self.cursor[..], &mut self.order[..], &mut self.rank[..]);
            for (slot, &c) in cell_of.iter().enumerate() {
                let s = cursor[c as usize];
                cursor[c as usize] = s + 1;
                order[s as usize] = slot as u32;
                rank[slot] = s;
            }
            return;
        }
        let stripe = n.div_ceil(stripes);
        // cursor[t * cells + c]: how many fish of stripe t are in cell c,
        // then (after the scan) where stripe t's first fish of cell c goes.
        // Each stripe zeroes its own row, in parallel.
        self.cursor.resize(stripes * cells, 0);
        // With the fish in the first half of the cells, counted on the way:
        // where the scan's second half starts.
        let below: u32 = self
            .cursor
            .par_chunks_mut(cells)
            .zip(cell_of.par_chunks(stripe))
            .map(|(count, cell_of)| {
                count.fill(0);
                for &c in cell_of {
                    count[c as usize] += 1;
                }
                count[..cells / 2].iter().sum::<u32>()
            })
            .sum();
        exclusive_scan(&mut self.cell_start, &mut self.cursor, cells, below);
        // Each stripe places its own fish, in slot order: `rank` is cut by
        // stripe like the slots, and each stripe owns its row of cursors.
        self.cursor
            .par_chunks_mut(cells)
            .zip(self.rank.par_chunks_mut(stripe))
            .zip(cell_of.par_chunks(stripe))
            .for_each(|((cursor, rank), cell_of)| {
                for (r, &c) in rank.iter_mut().zip(cell_of) {
                    *r = cursor[c as usize];
                    cursor[c as usize] += 1;
                }
            });
        // `order` is the inverse of `rank`: each stripe of sorted places is
        // filled by one worker reading every rank (sequential reads, writes
        // only to its own part), which needs no shared mutable state.
        // Without a branch: whether a rank is the worker's is a coin toss,
        // and mispredicting it took most of the sort's time. A rank that is
        // not the worker's is written to its last place, which is mended
        // afterwards from the one slot that belongs there.
        let rank = &self.rank;
        self.order.par_chunks_mut(stripe).enumerate().for_each(|(t, order)| {
            let (lo, last) = ((t * stripe) as u32, order.len() as u32 - 1);
            let mut at_last = 0;
            for (slot, &r) in rank.iter().enumerate() {
                let k = r.wrapping_sub(lo);
                order[k.min(last) as usize] = slot as u32;
                at_last = if k == last { slot as u32 } else { at_last };
            }
            order[last as usize] = at_last;
        });
    }
}

/// Cells per block of [`exclusive_scan`]: its buffers live on the stack.
const SCAN_BLOCK: usize = 1024;
/// Cells from which [`exclusive_scan`] takes two threads (below, one is
/// quicker than waking the other).
const PARALLEL_SCAN: usize = 16 * SCAN_BLOCK;
/// Most stripes the counting sort cuts the fish into (the scan keeps a
/// row per stripe on the stack).
const MAX_STRIPES: usize = 64;

/// What [`CellGrid::rebuild_gathering`] does besides the sort and the
/// snapshot.
#[derive(Debug, Default)]
pub(crate) struct Extras<'a> {
    /// `(by_slot, sorted)`: one value per fish (panics otherwise), gathered
    /// into sorted order in `sorted` in the same pass as the snapshot — the
    /// random reads of both overlap, and the order is read once (the force
    /// pass's wander phases cost a separate pass a third of the
    /// snapshot's).
    pub gather: Option<(&'a [f32], &'a mut Vec<f32>)>,
    /// `(by_slot, sorted)`: one key per fish (panics otherwise), all
    /// different. The fish of each cell are sorted by it instead of by
    /// slot, and the keys are gathered into sorted order in `sorted`. For a
    /// caller whose slots are not its fish's identity
    /// ([`crate::step::slots::SlotOrder`]), so that the order, and every sum,
    /// follows the identity.
    pub ties: Option<(&'a [u32], &'a mut Vec<u32>)>,
}

/// Fish per piece of the tie sort that a thread takes whole.
const TIES_PIECE: usize = 1 << 15;
/// Fish in a cell up to which the tie sort moves them by insertion.
const TIES_INSERTION: usize = 32;

/// Sorts the fish of every cell by `key` (by slot): `order` and `keys`
/// (the keys in sorted order) hold the sorted places from `offset` on, and
/// `starts` the first places of its cells (and the end). In halves of
/// whole cells on the thread pool. A cell keeps most of its fish from one
/// tick to the next, in key order already, so most cells are only checked
/// (their keys read along memory); where fish came in, a small cell is
/// sorted by insertion, a large one by key (unstably: the keys differ).
/// Whether any fish moved.
fn order_ties(order: &mut [u32], keys: &mut [u32], offset: u32, starts: &[u32], key: &[u32]) -> bool {
    let cells = starts.len() - 1;
    if order.len() > TIES_PIECE && cells > 1 {
        let mid = cells / 2;
        let at = (starts[mid] - offset) as usize;
        let ((order, order_2), (keys, keys_2)) = (order.split_at_mut(at), keys.split_at_mut(at));
        let (low, high) = rayon::join(
            || order_ties(order, keys, offset, &starts[..=mid], key),
            || order_ties(order_2, keys_2, starts[mid], &starts[mid..], key),
        );
        return low | high;
    }
    if order.len() > TIES_PIECE {
        // One cell too large to split.
        return sort_cell(order, keys, key);
    }
    // Where each cell starts, as bits (a start past the end, of empty
    // cells there, lands in the spare word); then, 64 places at a time
    // and without a branch, the places whose key is below the one before
    // although they share its cell. Only their cells need sorting.
    let mut start = [0u64; TIES_PIECE / 64 + 1];
    for &first in &starts[..cells] {
        let at = (first - offset) as usize;
        start[at / 64] |= 1 << (at % 64);
    }
    let is_start = |at: usize| start[at / 64] >> (at % 64) & 1 == 1;
    let (mut sorted_to, mut moved) = (0, false);
    for (word, &starts_here) in start.iter().enumerate().take(order.len().div_ceil(64)) {
        let places = word * 64..((word + 1) * 64).min(order.len());
        let mut below = 0u64;
        for at in places.start.max(1)..places.end {
            below |= u64::from(keys[at] < keys[at - 1]) << (at % 64);
        }
        let mut unsorted = below & !starts_here;
        while unsorted != 0 {
            let at = word * 64 + unsorted.trailing_zeros() as usize;
            unsorted &= unsorted - 1;
            if at < sorted_to {
                continue;
            }
            let first = (0..at).rev().find(|&a| is_start(a)).unwrap_or(0);
            let end = (at + 1..order.len()).find(|&b| is_start(b)).unwrap_or(order.len());
            moved |= sort_cell(&mut order[first..end], &mut keys[first..end], key);
            sorted_to = end;
        }
    }
    moved
}

/// Sorts one cell's fish (`order`, their keys in `keys`) by key: by
/// insertion where there are few, else by `key` (unstably: the keys
/// differ), the keys then gathered again. Whether any moved.
fn sort_cell(order: &mut [u32], keys: &mut [u32], key: &[u32]) -> bool {
    if keys.is_sorted() {
        return false;
    }
    if order.len() <= TIES_INSERTION {
        for i in 1..order.len() {
            let mut j = i;
            while j > 0 && keys[j - 1] > keys[j] {
                order.swap(j - 1, j);
                keys.swap(j - 1, j);
                j -= 1;
            }
        }
        return true;
    }
    order.sort_unstable_by_key(|&fish| key[fish as usize]);
    for (k, &fish) in keys.iter_mut().zip(order.iter()) {
        *k = key[fish as usize];
    }
    true
}

/// The counting sort's exclusive scan in (cell, stripe) order: `counts`
/// holds one row of `cells` counts per stripe (at most [`MAX_STRIPES`]);
/// afterwards `cell_start[c]` is the first sorted place of cell `c`
/// (`cell_start[cells]` the total) and `counts[t][c]` where stripe `t`'s
/// first fish of cell `c` goes. `below` is the number of fish in the first
/// `cells / 2` cells: where many cells make it worth it, the two halves
/// are scanned at once, the second from there.
fn exclusive_scan(cell_start: &mut [u32], counts: &mut [u32], cells: usize, below: u32) {
    let mid = cells / 2;
    let mut low: [&mut [u32]; MAX_STRIPES] = core::array::from_fn(|_| Default::default());
    let mut high: [&mut [u32]; MAX_STRIPES] = core::array::from_fn(|_| Default::default());
    let mut stripes = 0;
    for (t, row) in counts.chunks_exact_mut(cells).enumerate() {
        (low[t], high[t]) = row.split_at_mut(mid);
        stripes = t + 1;
    }
    let (low, high) = (&mut low[..stripes], &mut high[..stripes]);
    let (first, second) = cell_start[..cells].split_at_mut(mid);
    let total = if cells >= PARALLEL_SCAN {
        let (ends_at, total) = rayon::join(|| scan_rows(first, low, 0), || scan_rows(second, high, below));
        assert_eq!(ends_at, below, "the first half's fish were counted");
        total
    } else {
        let ends_at = scan_rows(first, low, 0);
        scan_rows(second, high, ends_at)
    };
    cell_start[cells] = total;
}

/// [`exclusive_scan`] over a stretch of cells (`rows`: each stripe's
/// counts there), whose first place is `first`; returns the place after
/// its last fish. By blocks of cells, so that every inner loop runs along
/// one contiguous row (no stride between stripes, no bounds check per
/// element): a cell at a time, it took a third of the sort.
fn scan_rows(cell_start: &mut [u32], rows: &mut [&mut [u32]], first: u32) -> u32 {
    let (cells, mut next) = (cell_start.len(), first);
    let mut start = 0;
    while start < cells {
        let end = (start + SCAN_BLOCK).min(cells);
        let len = end - start;
        // Each cell's total over the stripes ...
        let mut run = [0u32; SCAN_BLOCK];
        for row in rows.iter() {
            for (total, &k) in run[..len].iter_mut().zip(&row[start..end]) {
                *total += k;
            }
        }
        // ... gives the cells' first places ...
        for (first, total) in cell_start[start..end].iter_mut().zip(&mut run[..len]) {
            *first = next;
            next += *total;
            *total = *first;
        }
        // ... and, stripe after stripe, each stripe's first place in them.
        for row in rows.iter_mut() {
            for (at, k) in run[..len].iter_mut().zip(&mut row[start..end]) {
                (*k, *at) = (*at, *at + *k);
            }
        }
        start = end;
    }
    next
}

/// The indices `c0 - reach ..= c1 + reach` on an axis of `n` cells, as at
/// most two inclusive spans without repeats, in ascending order: clamped to
/// the grid for walls, taken modulo `n` for a torus (where a span that
/// would cover the axis, or reach around it onto itself, is the whole axis,
/// so that no cell is visited twice). Ascending spans give ascending runs
/// of sorted indices, which the force kernel's sums rely on for their
/// order.
#[inline]
fn axis_spans(c0: u32, c1: u32, reach: u32, n: u32, wrap: bool) -> ([(u32, u32); 2], usize) {
    let last = n - 1;
    if !wrap {
        return ([(c0.saturating_sub(reach), (c1 + reach).min(last)), (0, 0)], 1);
    }
    // From here on the span is shorter than the axis, so its two pieces
    // across the seam never meet.
    if u64::from(c1 - c0) + 2 * u64::from(reach) + 1 >= u64::from(n) {
        ([(0, last), (0, 0)], 1)
    } else if c0 < reach {
        ([(0, c1 + reach), (n - (reach - c0), last)], 2)
    } else if c1 + reach > last {
        ([(0, c1 + reach - n), (c0 - reach, last)], 2)
    } else {
        ([(c0 - reach, c1 + reach), (0, 0)], 1)
    }
}

/// The shortest offset from `from` to `to`: plain difference for walls, the
/// nearest image across the seam for a torus of size `size`.
#[inline]
pub fn offset<V: Vector>(from: V, to: V, size: V, wrap: bool) -> V {
    let d = to - from;
    if !wrap {
        return d;
    }
    let half = size * 0.5;
    V::from_fn(|i| wrap_component(d.axis(i), half.axis(i), size.axis(i)))
}

#[inline]
fn wrap_component(d: f32, half: f32, size: f32) -> f32 {
    if d > half {
        d - size
    } else if d < -half {
        d + size
    } else {
        d
    }
}

/// A grid over a 300 × 200 tank (cells 12.5 × 25) and coordinates to find
/// cells for: on and beside cell borders, on and past the walls, huge, infinite
/// and NaN. For the tests of every way of finding cells.
#[cfg(test)]
pub(crate) fn hostile_coordinates() -> (CellGrid<glam::Vec2>, Vec<f32>) {
    let tank = Tank::centered(glam::Vec2::new(300.0, 200.0));
    let mut grid = CellGrid::default();
    grid.rebuild(&[glam::Vec2::ZERO], &tank, 25.0, false);
    let [cols, rows, _] = grid.dimensions();
    let (w, h) = (tank.size().x / cols as f32, tank.size().y / rows as f32);
    let mut values = vec![f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -1.0e30, 1.0e30, -0.0, 0.0];
    for k in 0..=13 {
        values.extend([
            k as f32 * w - 150.0,
            (k as f32 * w - 150.0).next_up(),
            (k as f32 * h - 100.0).next_down(),
        ]);
    }
    values.extend([-150.0, 150.0, 150.0f32.next_down(), -100.0, 100.0, -151.0, 151.0, 7.3, -42.0]);
    (grid, values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Vec2, Vec3};

    /// The indices [`axis_spans`] covers, checked to ascend without
    /// repeats.
    fn spanned(c0: u32, c1: u32, reach: u32, n: u32, wrap: bool) -> Vec<u32> {
        let (spans, k) = axis_spans(c0, c1, reach, n, wrap);
        let v: Vec<u32> = spans[..k].iter().flat_map(|&(a, b)| a..=b).collect();
        assert!(v.is_sorted() && v.windows(2).all(|w| w[0] != w[1]), "{v:?}");
        v
    }

    #[test]
    fn spans_cover_three_distinct_cells() {
        let expand = |c, n, wrap| spanned(c, c, 1, n, wrap);
        assert_eq!(expand(0, 10, false), vec![0, 1]);
        assert_eq!(expand(9, 10, false), vec![8, 9]);
        assert_eq!(expand(4, 10, false), vec![3, 4, 5]);
        assert_eq!(expand(0, 10, true), vec![0, 1, 9]);
        assert_eq!(expand(9, 10, true), vec![0, 8, 9]);
        assert_eq!(expand(1, 2, true), vec![0, 1]);
        assert_eq!(expand(0, 1, true), vec![0]);
        assert_eq!(expand(0, 1, false), vec![0]);
    }

    #[test]
    fn spans_of_several_columns_ascend_and_never_repeat() {
        let expand = |c0, c1, n, wrap| spanned(c0, c1, 1, n, wrap);
        assert_eq!(expand(2, 4, 10, false), vec![1, 2, 3, 4, 5]);
        assert_eq!(expand(0, 2, 10, false), vec![0, 1, 2, 3]);
        assert_eq!(expand(7, 9, 10, false), vec![6, 7, 8, 9]);
        assert_eq!(expand(2, 4, 10, true), vec![1, 2, 3, 4, 5]);
        assert_eq!(expand(0, 2, 10, true), vec![0, 1, 2, 3, 9]);
        assert_eq!(expand(7, 9, 10, true), vec![0, 6, 7, 8, 9]);
        assert_eq!(expand(0, 6, 10, true), vec![0, 1, 2, 3, 4, 5, 6, 7, 9]);
        assert_eq!(expand(1, 8, 10, true), (0..10).collect::<Vec<_>>(), "reaches around onto itself");
    }

    #[test]
    fn spans_reach_several_columns_each_way() {
        let expand = |c0, c1, n, wrap| spanned(c0, c1, 2, n, wrap);
        assert_eq!(expand(4, 4, 10, false), vec![2, 3, 4, 5, 6]);
        assert_eq!(expand(1, 1, 10, false), vec![0, 1, 2, 3]);
        assert_eq!(expand(1, 1, 10, true), vec![0, 1, 2, 3, 9]);
        assert_eq!(expand(8, 9, 10, true), vec![0, 1, 6, 7, 8, 9]);
        assert_eq!(expand(2, 6, 10, true), vec![0, 1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(expand(2, 7, 10, true), (0..10).collect::<Vec<_>>(), "reaches around onto itself");
        assert_eq!(expand(0, 0, 3, true), vec![0, 1, 2]);
    }

    #[test]
    fn runs_across_columns_cover_every_block_in_ascending_order() {
        // Fish on a torus and in a walled tank of the same size, one per
        // cell: the runs across columns c0..=c1 hold exactly the cells
        // within `COLUMNS_PER_RADIUS` columns and one row of those columns,
        // in ascending sorted order.
        let k = COLUMNS_PER_RADIUS;
        let (cols, rows) = (10 * k, 6);
        let tank = Tank::centered(Vec2::new(100.0, 60.0));
        let width = 100.0 / cols as f32;
        let position: Vec<Vec2> = (0..cols * rows)
            .map(|i| tank.min + Vec2::new(((i % cols) as f32 + 0.5) * width, (i / cols) as f32 * 10.0 + 5.0))
            .collect();
        let velocity = vec![Vec2::ZERO; position.len()];
        for wrap in [false, true] {
            let mut grid = CellGrid::default();
            grid.rebuild_with_velocities(&position, &velocity, &tank, 9.9, wrap);
            assert_eq!(grid.dimensions(), [cols, rows, 1]);
            let last = cols - 1;
            for (c0, c1, cy) in
                [(0, 0, 0), (0, 2 * k, 0), (last - 2 * k, last, 5), (3 * k, 5 * k, 2), (last, last, 3)]
            {
                let runs = grid.runs_across::<PLANE_RUNS>(c1, [c0, cy, 0]);
                let found: Vec<usize> = runs.iter().flatten().collect();
                assert!(found.windows(2).all(|w| w[0] < w[1]), "{found:?}");
                let cells: Vec<(u32, u32)> = found
                    .iter()
                    .map(|&s| grid.coords(grid.sorted_position(s)))
                    .map(|[x, y, _]| (x, y))
                    .collect();
                let near = |c: u32, lo: u32, hi: u32, n: u32, reach: u32| {
                    if wrap {
                        (lo + n - reach..=hi + n + reach).any(|i| i % n == c)
                    } else {
                        c + reach >= lo && c <= hi + reach
                    }
                };
                let block = |x: u32, y: u32| near(x, c0, c1, cols, k) && near(y, cy, cy, rows, 1);
                let expected = (0..cols * rows).filter(|i| block(i % cols, i / cols)).count();
                assert_eq!(cells.len(), expected, "wrap {wrap}, columns {c0}..={c1}, row {cy}");
                assert!(cells.iter().all(|&(x, y)| block(x, y)));
            }
        }
    }

    /// On a grid of nearly [`EXACT_CELLS`] cells, the cells found in `f32`
    /// are the ones `coords` finds: at and just inside every kind of
    /// cell border, mid-cell (where rounding to the nearest integer goes
    /// either way), in the far corner, and outside.
    #[test]
    fn cells_in_f32_are_exact_up_to_the_largest_grid() {
        let tank = Tank::centered(Vec2::new(4096.0, 2048.0));
        let mut grid = CellGrid::default();
        grid.layout(&tank, 1.0, false, 1 << 21);
        let [cols, rows, _] = grid.dimensions();
        let cells = u64::from(cols) * u64::from(rows);
        assert!(cells <= EXACT_CELLS && cells > EXACT_CELLS / 2, "{cols} × {rows}");
        let cell = grid.cell_size();
        let mut points = Vec::new();
        for (kx, ky) in
            [(0, 0), (1, 1), (cols / 2, rows / 3), (cols - 2, rows - 2), (cols - 1, rows - 1), (cols, rows)]
        {
            for fx in [0.0f32, 1.0e-7, 0.25, 0.5, 0.75, 0.999_999] {
                let x = tank.min.x + (kx as f32 + fx) * cell.x;
                let y = tank.min.y + (ky as f32 + fx) * cell.y;
                for (x, y) in [(x, y), (x.next_down(), y), (x, y.next_up()), (x.next_up(), y.next_down())] {
                    points.push(Vec2::new(x, y));
                }
            }
        }
        points.extend([tank.max, tank.max.map(f32::next_down), tank.min - 1.0, tank.max + 1.0]);
        let mut found = vec![0; points.len()];
        grid.cells_of_by::<true>(&points, &mut found);
        for (&p, &c) in points.iter().zip(&found) {
            let [x, y, _] = grid.coords(p);
            assert_eq!(c, y * cols + x, "{p}");
        }
    }

    /// Two points per vector, the cells are the ones `coords` finds
    /// one at a time: inside, on cell borders and walls, outside, and not
    /// finite, with an odd point left over for the one-at-a-time tail.
    #[test]
    fn cells_two_at_a_time_are_the_cells_one_at_a_time() {
        let (grid, values) = hostile_coordinates();
        let cols = grid.dimensions()[0];
        // Every value against every other, as x and as y.
        let points: Vec<Vec2> =
            values.iter().flat_map(|&x| values.iter().map(move |&y| Vec2::new(x, y))).skip(1).collect();
        assert_eq!(points.len() % 2, 1, "a point left over for the tail");
        let (mut exact, mut converted) = (vec![0; points.len()], vec![0; points.len()]);
        grid.cells_of_by::<true>(&points, &mut exact);
        grid.cells_of_by::<false>(&points, &mut converted);
        for ((&p, &cell), &other) in points.iter().zip(&exact).zip(&converted) {
            let [x, y, _] = grid.coords(p);
            assert_eq!(cell, y * cols + x, "{p}, in f32");
            assert_eq!(other, y * cols + x, "{p}, converted");
        }
    }

    #[test]
    fn the_blocked_scan_is_the_scan_a_cell_at_a_time() {
        let sizes =
            [(1, 1), (7, 3), (SCAN_BLOCK, 2), (2 * SCAN_BLOCK + 5, 2), (3000, 5), (PARALLEL_SCAN + 3, 2)];
        for (cells, stripes) in sizes {
            let counts: Vec<u32> =
                (0..cells * stripes).map(|i| (crate::rules::noise::mix64(i as u64) % 5) as u32).collect();
            // The plain scan: cell by cell, stripes within a cell.
            let (mut want_start, mut want) = (vec![0; cells + 1], counts.clone());
            let mut next = 0;
            for c in 0..cells {
                want_start[c] = next;
                for t in 0..stripes {
                    let k = &mut want[t * cells + c];
                    (*k, next) = (next, next + *k);
                }
            }
            want_start[cells] = next;
            let below =
                (0..stripes).map(|t| counts[t * cells..t * cells + cells / 2].iter().sum::<u32>()).sum();
            let (mut start, mut got) = (vec![0; cells + 1], counts);
            exclusive_scan(&mut start, &mut got, cells, below);
            assert_eq!((start, got), (want_start, want), "{cells} cells, {stripes} stripes");
        }
    }

    #[test]
    fn offsets_take_the_nearest_image() {
        let size = Vec2::new(100.0, 50.0);
        let d = offset(Vec2::new(99.0, 1.0), Vec2::new(1.0, 49.0), size, true);
        assert!((d - Vec2::new(2.0, -2.0)).length() < 1e-5, "{d}");
        let d = offset(Vec2::new(99.0, 1.0), Vec2::new(1.0, 49.0), size, false);
        assert_eq!(d, Vec2::new(-98.0, 48.0));
    }

    /// With a key per fish, the fish of each cell follow the key instead of
    /// the slot; the cells and their members are the same. Enough fish for
    /// the sort to split across threads, and cells dense enough to need it.
    #[test]
    fn ties_follow_the_key_within_each_cell() {
        let tank = Tank::centered(Vec2::new(400.0, 300.0));
        let n = 3 * TIES_PIECE;
        let pos: Vec<Vec2> = (0..n)
            .map(|i| {
                let u = crate::rules::noise::signed_pair(crate::rules::noise::mix64(i as u64));
                u * Vec2::new(199.0, 149.0)
            })
            .collect();
        let vel = vec![Vec2::ZERO; n];
        // Keys (all different) that mostly reverse the slots.
        let key: Vec<u32> = (0..n as u32).map(|i| (n as u32 - 1 - i) ^ 1).collect();
        // Many cells, small and large; then one cell holding every fish.
        for radius in [8.0, 1000.0] {
            let (mut plain, mut keyed) = (CellGrid::default(), CellGrid::default());
            plain.rebuild_with_velocities(&pos, &vel, &tank, radius, false);
            let (mut sorted_keys, mut sorted_also) = (Vec::new(), Vec::new());
            let also: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
            let extras =
                Extras { ties: Some((&key, &mut sorted_keys)), gather: Some((&also, &mut sorted_also)) };
            keyed.rebuild_gathering(&pos, &vel, &tank, radius, false, extras);
            assert_eq!(plain.sorted.cell_start, keyed.sorted.cell_start);
            let cells = plain.sorted.cell_start.len() - 1;
            let most = (0..cells)
                .map(|c| plain.sorted.cell_start[c + 1] - plain.sorted.cell_start[c])
                .max()
                .unwrap_or(0);
            assert!(most as usize > TIES_INSERTION, "{radius}: a large cell ({most})");
            if radius < 10.0 {
                assert!(n / cells > 3, "several fish per cell: {}", n / cells);
            }
            for c in 0..cells {
                let range = plain.sorted.cell_start[c] as usize..plain.sorted.cell_start[c + 1] as usize;
                let mut members = plain.sorted.order[range.clone()].to_vec();
                members.sort_by_key(|&f| key[f as usize]);
                assert_eq!(members, &keyed.sorted.order[range], "{radius}: cell {c}");
            }
            for (s, &slot) in keyed.order().iter().enumerate() {
                assert_eq!(keyed.rank()[slot as usize] as usize, s, "{radius}: the ranks follow the order");
                assert_eq!(keyed.sorted_position(s), pos[slot as usize]);
                assert_eq!(sorted_keys[s], key[slot as usize]);
                assert_eq!(sorted_also[s], also[slot as usize]);
            }
        }
    }

    #[test]
    fn sort_is_stable_and_consistent() {
        let tank = Tank::centered(Vec2::new(100.0, 100.0));
        let pos: Vec<Vec2> =
            (0..50).map(|i| Vec2::new((i * 37 % 100) as f32 - 50.0, (i * 11 % 100) as f32 - 50.0)).collect();
        let vel = vec![Vec2::ZERO; pos.len()];
        let mut g = CellGrid::default();
        g.rebuild_with_velocities(&pos, &vel, &tank, 10.0, false);
        let cols = (100.0 / (10.0 / COLUMNS_PER_RADIUS as f32)) as u32 - 1;
        assert_eq!(g.dimensions(), [cols, 9, 1], "cells a hair wider than the radius (a column its share)");
        assert!(g.cell_size().x * COLUMNS_PER_RADIUS as f32 >= 10.0 && g.cell_size().y >= 10.0);
        for (s, &slot) in g.order().iter().enumerate() {
            assert_eq!(g.rank()[slot as usize] as usize, s);
            assert_eq!(g.sorted_position(s), pos[slot as usize]);
        }
        // Cells ascend along the sorted order, slots ascend within a cell.
        let cell = |p: Vec2| {
            let [x, y, _] = g.coords(p);
            y * cols + x
        };
        for w in g.order().windows(2) {
            let (a, b) = (w[0] as usize, w[1] as usize);
            assert!(cell(pos[a]) < cell(pos[b]) || (cell(pos[a]) == cell(pos[b]) && a < b));
        }
    }

    #[test]
    fn the_parallel_sort_gives_the_same_order_on_any_number_of_threads() {
        // Enough fish for several stripes of the parallel counting sort.
        let n = 4 * MIN_STRIPE + 123;
        let tank = Tank::centered(Vec2::new(3000.0, 2000.0));
        let pos: Vec<Vec2> = (0..n as u64)
            .map(|i| {
                crate::rules::noise::signed_pair(crate::rules::noise::mix64(i)) * Vec2::new(1499.0, 999.0)
            })
            .collect();
        let vel: Vec<Vec2> = pos.iter().map(|p| p.perp()).collect();
        let sorted = |threads| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let mut g = CellGrid::default();
            pool.install(|| g.rebuild_with_velocities(&pos, &vel, &tank, 45.0, false));
            g
        };
        let one = sorted(1);
        for threads in [2, 3, 5] {
            let many = sorted(threads);
            assert_eq!(one.order(), many.order(), "{threads} threads");
            assert_eq!(one.rank(), many.rank(), "{threads} threads");
            assert_eq!(one.sorted.cell_start, many.sorted.cell_start, "{threads} threads");
            assert_eq!(one.snapshot, many.snapshot, "{threads} threads");
        }
        // And it is the stable sort: cells ascend, slots ascend within a cell.
        let cell = |p: Vec2| {
            let [x, y, _] = one.coords(p);
            y * one.dims[0] + x
        };
        for w in one.order().windows(2) {
            let (a, b) = (w[0] as usize, w[1] as usize);
            assert!(cell(pos[a]) < cell(pos[b]) || (cell(pos[a]) == cell(pos[b]) && a < b));
        }
        for (s, &slot) in one.order().iter().enumerate() {
            assert_eq!(one.sorted_position(s), pos[slot as usize]);
            assert_eq!(one.sorted_velocity(s), vel[slot as usize]);
        }
        // A value per fish gathered with the snapshot lands in sorted order
        // too, and the index is the same as without it.
        let by_slot: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
        let mut sorted = vec![7.0; 3];
        let mut g = CellGrid::default();
        g.rebuild_gathering(
            &pos,
            &vel,
            &tank,
            45.0,
            false,
            Extras { gather: Some((&by_slot, &mut sorted)), ..Extras::default() },
        );
        assert_eq!(g.order(), one.order());
        assert_eq!(g.snapshot, one.snapshot);
        let expected: Vec<f32> = one.order().iter().map(|&slot| by_slot[slot as usize]).collect();
        assert_eq!(sorted, expected);
    }

    #[test]
    fn tiny_radius_in_a_huge_tank_stays_within_budget() {
        let tank = Tank::centered(Vec2::new(1.0e6, 1.0e6));
        let mut g = CellGrid::default();
        g.rebuild(&[Vec2::ZERO], &tank, 1.0e-3, true);
        let [c, r, _] = g.dimensions();
        assert!((c as usize) * (r as usize) <= MIN_CELL_BUDGET);
        assert!(g.cell_size().min_element() >= 1.0e-3);
        for radius in [0.0, -1.0, f32::NAN, f32::INFINITY] {
            g.rebuild(&[Vec2::ZERO], &tank, radius, false);
            let [c, r, _] = g.dimensions();
            assert!(
                (1..=MIN_CELL_BUDGET).contains(&((c as usize) * (r as usize))),
                "radius {radius}: {c} × {r}"
            );
        }
    }

    /// Fish scattered through a box by a hash, for the tests in a volume.
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
                let runs = grid.candidate_runs(p);
                let found: Vec<u32> = runs.iter().flat_map(|run| grid.order()[run].iter().copied()).collect();
                assert!(found.windows(2).all(|w| grid.rank()[w[0] as usize] < grid.rank()[w[1] as usize]));
                let mut found: Vec<u32> =
                    found.into_iter().filter(|&j| within(p, positions[j as usize])).collect();
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

    #[test]
    fn neighbours_are_found_across_the_wrap_seams_of_a_volume() {
        let tank = TankOf::centered(Vec3::splat(100.0));
        // Two fish 2 apart through the corner seam, 98 apart inside.
        let positions = [Vec3::splat(-49.0), Vec3::splat(49.5)];
        let (grid, _) = both_ways(&positions, &tank, 5.0, true);
        assert_eq!(grid[0], vec![0, 1]);
        let (walls, _) = both_ways(&positions, &tank, 5.0, false);
        assert_eq!(walls[0], vec![0]);
    }

    /// In a volume, the runs across a stretch of a row cover exactly the
    /// cells within two columns, one row and one layer of it, each once,
    /// in ascending sorted order: at the walls, across the seams of a
    /// torus and on axes of one to a few cells. A quartet's lanes then
    /// meet their candidates in the order each fish's own scan would.
    #[test]
    fn runs_across_a_stretch_cover_its_blocks_in_ascending_order_in_a_volume() {
        let k = COLUMNS_PER_RADIUS;
        for (extent, radius) in [(Vec3::new(300.0, 200.0, 120.0), 31.0), (Vec3::new(90.0, 60.0, 40.0), 31.0)]
        {
            let tank = TankOf::centered(extent);
            let positions = scatter(800, &tank);
            for wrap in [false, true] {
                let mut grid = CellGrid::default();
                grid.rebuild(&positions, &tank, radius, wrap);
                let [cols, rows, layers] = grid.dimensions();
                let near = |c: u32, lo: u32, hi: u32, n: u32, reach: u32| {
                    if wrap {
                        (lo + n - reach..=hi + n + reach).any(|i| i % n == c)
                    } else {
                        c + reach >= lo && c <= hi + reach
                    }
                };
                for z in 0..layers {
                    for y in 0..rows {
                        for x in 0..cols {
                            for last in x..cols.min(x + 3 * k) {
                                let runs = grid.runs_across::<MAX_RUNS>(last, [x, y, z]);
                                let found: Vec<usize> = runs.iter().flatten().collect();
                                assert!(found.windows(2).all(|w| w[0] < w[1]), "{found:?}");
                                assert_eq!(found.len(), runs.candidates());
                                let block = |c: [u32; 3]| {
                                    near(c[0], x, last, cols, k)
                                        && near(c[1], y, y, rows, 1)
                                        && near(c[2], z, z, layers, 1)
                                };
                                let expected: Vec<usize> = (0..grid.len())
                                    .filter(|&s| block(grid.coords(positions[grid.order()[s] as usize])))
                                    .collect();
                                assert_eq!(
                                    found, expected,
                                    "wrap {wrap}, {x}..={last} {y} {z} of {cols} {rows} {layers}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    /// Cells in a volume, one point per vector, in `f32` and converted,
    /// are the ones `coords` finds: inside, on cell borders and walls,
    /// outside, and not finite.
    #[test]
    fn cells_in_a_volume_a_vector_at_a_time_are_the_cells_one_at_a_time() {
        let tank = TankOf::centered(Vec3::new(300.0, 200.0, 150.0));
        let mut grid = CellGrid::default();
        grid.rebuild(&[Vec3::ZERO], &tank, 25.0, false);
        let [cols, rows, layers] = grid.dimensions();
        assert_eq!([cols, rows, layers], [23, 7, 5]);
        let cell = grid.cell_size();
        let mut values = vec![f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -1.0e30, 1.0e30, -0.0, 0.0, 7.3];
        for k in 0..=24 {
            let x = tank.min.x + k as f32 * cell.x;
            values.extend([x, x.next_up(), x.next_down()]);
        }
        let values = &values;
        let points: Vec<Vec3> = values
            .iter()
            .enumerate()
            .flat_map(|(i, &x)| {
                values.iter().map(move |&y| Vec3::new(x, y, values[(i * 7) % values.len()] * 0.5))
            })
            .collect();
        let (mut exact, mut converted) = (vec![0; points.len()], vec![0; points.len()]);
        grid.cells_of_by::<true>(&points, &mut exact);
        grid.cells_of_by::<false>(&points, &mut converted);
        for ((&p, &c), &other) in points.iter().zip(&exact).zip(&converted) {
            let [x, y, z] = grid.coords(p);
            assert!(x < cols && y < rows && z < layers);
            assert_eq!(c, (z * rows + y) * cols + x, "{p}, in f32");
            assert_eq!(other, c, "{p}, converted");
        }
    }

    #[test]
    fn a_huge_volume_gets_coarser_cells_not_a_huge_grid() {
        let tank = TankOf::centered(Vec3::splat(1.0e6));
        let mut grid = CellGrid::default();
        grid.rebuild(&[Vec3::ZERO, Vec3::splat(f32::NAN), Vec3::splat(f32::INFINITY)], &tank, 1.0, false);
        let cells: u64 = grid.dimensions().iter().map(|&d| u64::from(d)).product();
        assert!(cells <= MIN_CELL_BUDGET as u64, "{cells}");
        assert_eq!(grid.order().len(), 3);
        for radius in [0.0, -1.0, f32::NAN, f32::INFINITY] {
            grid.rebuild(&[Vec3::ZERO], &tank, radius, true);
            let cells: u64 = grid.dimensions().iter().map(|&d| u64::from(d)).product();
            assert!((1..=MIN_CELL_BUDGET as u64).contains(&cells), "radius {radius}: {cells}");
        }
    }
}
