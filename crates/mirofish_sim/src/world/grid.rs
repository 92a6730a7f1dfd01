//! The uniform-grid neighbour index, rebuilt from scratch every tick by a
//! stable counting sort (in parallel stripes; the order is the same for
//! any number of threads).
//!
//! Rows are at least the interaction radius tall and columns at least half
//! of it wide (`COLUMNS_PER_RADIUS`), so every neighbour of a fish lies
//! within one row and two columns of its own cell: its *block* of 3 rows ×
//! 5 columns. After the sort, fish of one cell are contiguous, and the
//! cells of one grid row are contiguous too: a block is at most three
//! contiguous runs of the sorted arrays (six across a wrap seam), which is
//! what makes the force kernel cache-friendly. Narrow columns follow the
//! reach of a fish along the row more closely than square cells (a 2.5 ×
//! 3 radii block instead of 3 × 3). The sorted snapshot keeps each fish's
//! position and velocity together in one 16-byte vector `[x, y, vx, vy]`,
//! so the kernel reads a candidate with one aligned load.
//!
//! Cell coordinates are clamped (walls) or wrapped (torus), so a fish on the
//! border never indexes outside the grid and no cell is scanned twice.

use core::ops::Range;

use crate::math::Vector;
use glam::{Vec2, Vec4, Vec4Swizzles};
use rayon::prelude::*;

use crate::prefetch::{AHEAD, prefetch};
use crate::world::tank::Tank;

/// Columns per interaction radius: a column is at least `radius /
/// COLUMNS_PER_RADIUS` wide (a row at least `radius` tall), and a fish's
/// neighbours lie within this many columns and one row of its own cell.
/// Narrow columns fit the stretch of a row a quartet scans closer to the
/// reach of its fish (fewer candidates than square cells at the usual
/// density), at the price of more cells for the sort to count; narrower
/// columns still scan a little less but sort more.
pub(crate) const COLUMNS_PER_RADIUS: u32 = 2;
/// Fewest cells the grid may use per fish before it coarsens: a tiny radius
/// in a huge tank must not allocate millions of empty cells.
const MAX_CELLS_PER_FISH: usize = 4;
/// Fewest fish per stripe of the parallel counting sort.
const MIN_STRIPE: usize = 16_384;
/// Fish per work item of the snapshot gather.
const GATHER_CHUNK: usize = 4096;
/// Cells always allowed, whatever the fish count.
const MIN_CELL_BUDGET: usize = 4096;
/// Most cells for which [`SpatialGrid::cells_of`] finds the cells in `f32`
/// (2²³: every index below is an integer `f32` holds exactly, and adding
/// 2²³ to it puts it in the low bits). Grids of more cells, for more than
/// two million fish, convert each coordinate instead.
const EXACT_CELLS: u64 = 1 << 23;
/// Extra cell width per unit of tank side, far above the relative rounding
/// error (~1e-7) of computing a cell coordinate in `f32`.
const CELL_SLACK: f32 = 1.0e-6;

/// A uniform grid over the tank, with the fish sorted by cell.
#[derive(Clone, Debug, Default)]
pub struct SpatialGrid {
    origin: Vec2,
    size: Vec2,
    inv_cell: Vec2,
    cols: u32,
    rows: u32,
    wrap: bool,
    /// Cell of each fish, by slot.
    cell_of: Vec<u32>,
    /// The fish sorted by cell: each cell's sorted indices, sorted index →
    /// slot and slot → sorted index.
    sorted: CellOrder,
    /// Whether the caller has renumbered its fish in sorted order since
    /// the sort ([`SpatialGrid::renumber`]): the order and the ranks are
    /// then the identity, `identity[..len]`.
    renumbered: bool,
    /// `0, 1, 2, …`, at least as long as the fish indexed where renumbered.
    identity: Vec<u32>,
    /// The snapshot in sorted order: `[x, y, vx, vy]` per fish, padded with
    /// zeros to a whole number of quartets.
    snapshot: Vec<Vec4>,
}

/// Fish per quartet: the force kernel takes the fish four at a time, one
/// per vector lane, starting at multiples of four in sorted order.
pub(crate) const QUARTET: usize = 4;

impl SpatialGrid {
    /// Rebuilds the index for `position`/`velocity` (indexed by slot) with
    /// rows at least `radius` tall and columns at least `radius /
    /// COLUMNS_PER_RADIUS` wide. Reuses its buffers: no allocation once
    /// the fish count has stopped growing.
    pub fn rebuild(&mut self, position: &[Vec2], velocity: &[Vec2], tank: &Tank, radius: f32, wrap: bool) {
        self.rebuild_gathering(position, velocity, tank, radius, wrap, Extras::default());
    }

    /// [`SpatialGrid::rebuild`], with the [`Extras`] given: a value per
    /// fish gathered into sorted order with the snapshot, and the fish of
    /// each cell ordered by a key of their own instead of by slot.
    pub(crate) fn rebuild_gathering(
        &mut self,
        position: &[Vec2],
        velocity: &[Vec2],
        tank: &Tank,
        radius: f32,
        wrap: bool,
        extras: Extras<'_>,
    ) {
        debug_assert_eq!(position.len(), velocity.len());
        let n = position.len();
        self.renumbered = false;
        self.layout(tank, radius, wrap, n);

        // Cell of every fish (parallel).
        let cells = (self.cols * self.rows) as usize;
        let mut cell_of = core::mem::take(&mut self.cell_of);
        cell_of.resize(n, 0);
        let this = &*self;
        cell_of
            .par_chunks_mut(GATHER_CHUNK)
            .zip(position.par_chunks(GATHER_CHUNK))
            .for_each(|(cells, position)| this.cells_of(position, cells));
        self.cell_of = cell_of;
        self.sorted.sort(&self.cell_of, cells);
        let Extras { gather: also, ties } = extras;
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

        // The snapshot the force pass reads, gathered in sorted order, all
        // four components in one pass (two random reads per fish, asked
        // for `AHEAD` fish early: by now they are usually out of the cache).
        // Every fish's entry is overwritten below: only the padding of the
        // last quartet needs zeroing, not the whole snapshot.
        self.snapshot.resize(n.next_multiple_of(QUARTET), Vec4::ZERO);
        self.snapshot[n..].fill(Vec4::ZERO);
        let order = &self.sorted.order;
        // The slots of chunk `chunk`, and those `AHEAD` places further on.
        let slots = |chunk: usize| {
            let start = chunk * GATHER_CHUNK;
            let end = (start + GATHER_CHUNK).min(n);
            (&order[start..end], &order[(start + AHEAD).min(n)..])
        };
        let gather = |snapshot: &mut [Vec4], (mine, ahead): (&[u32], &[u32])| {
            for (k, (fish, &i)) in snapshot.iter_mut().zip(mine).enumerate() {
                if let Some(&a) = ahead.get(k) {
                    prefetch(position, a as usize);
                    prefetch(velocity, a as usize);
                }
                let (p, v) = (position[i as usize], velocity[i as usize]);
                *fish = Vec4::new(p.x, p.y, v.x, v.y);
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

    /// The caller has put its per-fish arrays in this sorted order (slot
    /// `s` now holds the fish that was sorted `s`th): the order and the
    /// ranks become the identity. The cells and the snapshot stay as they
    /// are. Nothing is rewritten: the next sort writes the order and the
    /// ranks afresh, and until then both are a prefix of `0, 1, 2, …`
    /// (kept from tick to tick, grown only with the fish).
    pub(crate) fn renumber(&mut self) {
        let n = self.sorted.order.len();
        if self.identity.len() < n {
            let from = self.identity.len() as u32;
            self.identity.extend(from..n as u32);
        }
        self.renumbered = true;
    }

    /// Chooses the cell counts: `floor(side / width)` per axis, the width
    /// being `radius` for rows and `radius / COLUMNS_PER_RADIUS` for columns
    /// (so cells are at least that wide and tile the tank exactly, which the
    /// wrap seam needs), coarsened if that would be far more cells than
    /// fish.
    fn layout(&mut self, tank: &Tank, radius: f32, wrap: bool, n: usize) {
        let size = tank.size();
        // The cell is made a hair wider than its share of the radius: a
        // point within rounding error of a cell border may land in the next
        // cell, and the slack keeps its true neighbours inside its block.
        let per_axis = |side: f32, width: f32| {
            let cell = width + side * CELL_SLACK;
            ((side / cell).floor() as u64).clamp(1, u32::MAX as u64)
        };
        let columns = per_axis(size.x, radius / COLUMNS_PER_RADIUS as f32);
        let (mut cols, mut rows) = (columns, per_axis(size.y, radius));
        let budget = (n * MAX_CELLS_PER_FISH).max(MIN_CELL_BUDGET) as u64;
        if cols.saturating_mul(rows) > budget {
            let shrink = ((cols as f64 * rows as f64) / budget as f64).sqrt();
            cols = ((cols as f64 / shrink).floor() as u64).max(1);
            rows = ((rows as f64 / shrink).floor() as u64).max(1);
        }
        self.origin = tank.min;
        self.size = size;
        self.cols = cols as u32;
        self.rows = rows as u32;
        self.inv_cell = Vec2::new(cols as f32, rows as f32) / size;
        self.wrap = wrap;
    }

    /// The cell of a point, clamped into the grid.
    #[inline]
    pub fn cell_coords(&self, p: Vec2) -> (u32, u32) {
        let c = (p - self.origin) * self.inv_cell;
        // `as` saturates (negative and NaN to 0), and the `min` keeps points
        // on the far wall in the last cell.
        let x = (c.x as u32).min(self.cols - 1);
        let y = (c.y as u32).min(self.rows - 1);
        (x, y)
    }

    /// The cell of every point of `position` (`y * cols + x` of
    /// [`SpatialGrid::cell_coords`]) into `cells`, two points per vector.
    /// The coordinates are clamped into the grid in `f32` *before* the
    /// conversion to integers, which gives the cell that `cell_coords`'
    /// saturating conversion and clamp after it give, for every value and
    /// for NaN (which the `max` sends to 0), and lets four lanes convert at
    /// once.
    fn cells_of(&self, position: &[Vec2], cells: &mut [u32]) {
        if u64::from(self.cols) * u64::from(self.rows) <= EXACT_CELLS {
            self.cells_of_by::<true>(position, cells);
        } else {
            self.cells_of_by::<false>(position, cells);
        }
    }

    /// [`SpatialGrid::cells_of`], the cell found one of two ways after the
    /// coordinates are clamped into the grid:
    /// - `IN_F32` (for a grid of at most [`EXACT_CELLS`] cells, where every
    ///   cell coordinate and index is an integer `f32` holds exactly): each
    ///   coordinate is rounded down by adding and taking away 2²³ (which
    ///   rounds it to the nearest integer) and a step back where that went
    ///   up; the index `y * cols + x` is computed in `f32`, and the integer
    ///   comes from the bits of `index + 2²³`. About half the instructions
    ///   of the other way, whose saturating conversion goes one lane at a
    ///   time;
    /// - otherwise, each coordinate converted with `as`.
    fn cells_of_by<const IN_F32: bool>(&self, position: &[Vec2], cells: &mut [u32]) {
        const TWO_23: f32 = 8_388_608.0;
        let twice = |v: Vec2| Vec4::new(v.x, v.y, v.x, v.y);
        let (origin, inv) = (twice(self.origin), twice(self.inv_cell));
        let last = twice(Vec2::new((self.cols - 1) as f32, (self.rows - 1) as f32));
        let (cols, two_23, bits_23) = (self.cols as f32, Vec4::splat(TWO_23), TWO_23.to_bits());
        let (pairs, odd) = position.as_chunks::<2>();
        let (cell_pairs, odd_cells) = cells.as_chunks_mut::<2>();
        for (to, [a, b]) in cell_pairs.iter_mut().zip(pairs) {
            let c = ((Vec4::new(a.x, a.y, b.x, b.y) - origin) * inv).max(Vec4::ZERO).min(last);
            *to = if IN_F32 {
                let nearest = (c + two_23) - two_23;
                let floor = nearest - Vec4::select(nearest.cmpgt(c), Vec4::ONE, Vec4::ZERO);
                // `[y₀ · cols + x₀, ·, y₁ · cols + x₁, ·]`, exact below 2²³.
                let index = (floor.yyww() * cols + floor.xxzz() + two_23).to_array();
                [index[0].to_bits() - bits_23, index[2].to_bits() - bits_23]
            } else {
                let c = c.as_uvec4();
                [c.y * self.cols + c.x, c.w * self.cols + c.z]
            };
        }
        for (to, &p) in odd_cells.iter_mut().zip(odd) {
            let (x, y) = self.cell_coords(p);
            *to = y * self.cols + x;
        }
    }

    /// The runs of sorted indices that cover the block of cells around `p`:
    /// at most three rows of at most two runs each. Runs are disjoint and,
    /// except across a wrap seam, in ascending order; some may be empty.
    #[inline]
    pub fn candidate_runs(&self, p: Vec2) -> CandidateRuns {
        self.cell_block(p).0
    }

    /// [`SpatialGrid::candidate_runs`] of `p`, and the end (one past the
    /// last sorted index) of the cell `p` lies in: every fish sorted before
    /// that end and no earlier than `p`'s own fish shares the same runs.
    #[inline]
    pub(crate) fn cell_block(&self, p: Vec2) -> (CandidateRuns, usize) {
        let (cx, cy) = self.cell_coords(p);
        let end = self.sorted.cell_start[(cy * self.cols + cx) as usize + 1] as usize;
        (self.runs_across(cx, cx, cy), end)
    }

    /// The sorted indices of the cells from the cell of `first` to the cell
    /// of `last` (both included): the fish between two sorted places and
    /// the others of their cells. `first` must lie at or before `last` in
    /// the sorted order.
    #[inline]
    pub(crate) fn cells_between(&self, first: Vec2, last: Vec2) -> core::ops::Range<usize> {
        let cell = |p: Vec2| {
            let (cx, cy) = self.cell_coords(p);
            (cy * self.cols + cx) as usize
        };
        let (a, b) = (cell(first), cell(last));
        self.sorted.cell_start[a] as usize..self.sorted.cell_start[b.max(a) + 1] as usize
    }

    /// The runs of sorted indices that cover the cells around columns
    /// `cx0..=cx1` of row `cy` (the blocks of all of them), in
    /// ascending order, also across a wrap seam: at most three rows of at
    /// most two runs each, some maybe empty. `cx0 <= cx1 < cols`.
    #[inline(always)]
    pub(crate) fn runs_across(&self, cx0: u32, cx1: u32, cy: u32) -> CandidateRuns {
        let mut out = CandidateRuns { runs: [(0, 0); 6], len: 0 };
        if !self.wrap {
            // Walls: one run per row (the spans are one each, clamped).
            let [(x0, x1), _] = axis_spans(cx0, cx1, COLUMNS_PER_RADIUS, self.cols, false).0;
            let [(y0, y1), _] = axis_spans(cy, cy, 1, self.rows, false).0;
            for y in y0..=y1 {
                let row = (y * self.cols) as usize;
                out.runs[out.len] = (
                    self.sorted.cell_start[row + x0 as usize],
                    self.sorted.cell_start[row + x1 as usize + 1],
                );
                out.len += 1;
            }
            return out;
        }
        let (row_spans, nr) = axis_spans(cy, cy, 1, self.rows, self.wrap);
        let (col_spans, nc) = axis_spans(cx0, cx1, COLUMNS_PER_RADIUS, self.cols, self.wrap);
        for &(y0, y1) in &row_spans[..nr] {
            for y in y0..=y1 {
                let row = (y * self.cols) as usize;
                for &(x0, x1) in &col_spans[..nc] {
                    let start = self.sorted.cell_start[row + x0 as usize];
                    let end = self.sorted.cell_start[row + x1 as usize + 1];
                    if start < end && out.len < out.runs.len() {
                        out.runs[out.len] = (start, end);
                        out.len += 1;
                    }
                }
            }
        }
        out
    }

    /// The tank's corner the cells count from.
    #[inline]
    #[cfg_attr(not(target_arch = "x86_64"), expect(dead_code, reason = "read by the AVX2 build only"))]
    pub(crate) fn origin(&self) -> Vec2 {
        self.origin
    }

    /// Cells per unit of length, per axis.
    #[inline]
    #[cfg_attr(not(target_arch = "x86_64"), expect(dead_code, reason = "read by the AVX2 build only"))]
    pub(crate) fn inv_cell(&self) -> Vec2 {
        self.inv_cell
    }

    /// Number of columns and rows.
    pub fn dimensions(&self) -> (u32, u32) {
        (self.cols, self.rows)
    }

    /// Width and height of one cell.
    pub fn cell_size(&self) -> Vec2 {
        self.size / Vec2::new(self.cols as f32, self.rows as f32)
    }

    /// Size of the tank the grid covers.
    pub fn tank_size(&self) -> Vec2 {
        self.size
    }

    /// Sorted index → slot.
    pub fn order(&self) -> &[u32] {
        if self.renumbered { &self.identity[..self.sorted.order.len()] } else { &self.sorted.order }
    }

    /// Slot → sorted index.
    pub fn rank(&self) -> &[u32] {
        if self.renumbered { &self.identity[..self.sorted.rank.len()] } else { &self.sorted.rank }
    }

    /// Number of fish indexed.
    pub fn len(&self) -> usize {
        self.sorted.order.len()
    }

    /// Whether no fish are indexed.
    pub fn is_empty(&self) -> bool {
        self.sorted.order.is_empty()
    }

    /// Position of the fish at sorted index `s`.
    #[inline]
    pub fn sorted_position(&self, s: usize) -> Vec2 {
        self.snapshot[s].xy()
    }

    /// Velocity of the fish at sorted index `s`.
    #[inline]
    pub fn sorted_velocity(&self, s: usize) -> Vec2 {
        self.snapshot[s].zw()
    }

    /// Positions in sorted order.
    pub fn sorted_positions(&self) -> impl ExactSizeIterator<Item = Vec2> + '_ {
        self.snapshot[..self.len()].iter().map(|f| f.xy())
    }

    /// The sorted snapshot, `[x, y, vx, vy]` per fish, padded with zeros to
    /// a whole number of quartets.
    #[inline]
    pub(crate) fn snapshot(&self) -> &[Vec4] {
        &self.snapshot
    }

    /// The quartet of fish at sorted indices `base..base + 4` (`base` a
    /// multiple of four) component by component, one fish per lane:
    /// `[x, y, vx, vy]`. Lanes past the last fish are zero.
    #[inline(always)]
    pub(crate) fn quartet(&self, base: usize) -> [Vec4; 4] {
        let [a, b, c, d] =
            <[Vec4; QUARTET]>::try_from(&self.snapshot[base..base + QUARTET]).expect("four fish");
        let m = glam::Mat4::from_cols(a, b, c, d).transpose();
        [m.x_axis, m.y_axis, m.z_axis, m.w_axis]
    }

    /// Whether the grid wraps around (torus).
    pub fn wraps(&self) -> bool {
        self.wrap
    }

    /// Heap bytes held by the index's buffers.
    pub fn heap_bytes(&self) -> usize {
        let u32s = self.sorted.heap_u32s() + self.cell_of.capacity() + self.identity.capacity();
        u32s * 4 + self.snapshot.capacity() * core::mem::size_of::<Vec4>()
    }
}

/// Up to six runs of sorted indices (see [`SpatialGrid::candidate_runs`]),
/// kept on the stack: the force kernel asks for one per fish.
#[derive(Clone, Copy, Debug)]
pub struct CandidateRuns {
    runs: [(u32, u32); 6],
    len: usize,
}

impl CandidateRuns {
    /// One run covering `range` (brute force: every fish).
    pub fn single(range: Range<usize>) -> Self {
        let mut runs = [(0, 0); 6];
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

/// What [`SpatialGrid::rebuild_gathering`] does besides the sort and the
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
    /// ([`crate::step::flock::SlotOrder`]), so that the order, and every sum,
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
pub(crate) fn hostile_coordinates() -> (SpatialGrid, Vec<f32>) {
    let tank = Tank::centered(Vec2::new(300.0, 200.0));
    let mut grid = SpatialGrid::default();
    grid.rebuild(&[Vec2::ZERO], &[Vec2::ZERO], &tank, 25.0, false);
    let (cols, rows) = grid.dimensions();
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
            let mut grid = SpatialGrid::default();
            grid.rebuild(&position, &velocity, &tank, 9.9, wrap);
            assert_eq!(grid.dimensions(), (cols, rows));
            let last = cols - 1;
            for (c0, c1, cy) in
                [(0, 0, 0), (0, 2 * k, 0), (last - 2 * k, last, 5), (3 * k, 5 * k, 2), (last, last, 3)]
            {
                let runs = grid.runs_across(c0, c1, cy);
                let found: Vec<usize> = runs.iter().flatten().collect();
                assert!(found.windows(2).all(|w| w[0] < w[1]), "{found:?}");
                let cells: Vec<(u32, u32)> =
                    found.iter().map(|&s| grid.cell_coords(grid.sorted_position(s))).collect();
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
    /// are the ones `cell_coords` finds: at and just inside every kind of
    /// cell border, mid-cell (where rounding to the nearest integer goes
    /// either way), in the far corner, and outside.
    #[test]
    fn cells_in_f32_are_exact_up_to_the_largest_grid() {
        let tank = Tank::centered(Vec2::new(4096.0, 2048.0));
        let mut grid = SpatialGrid::default();
        grid.layout(&tank, 1.0, false, 1 << 21);
        let (cols, rows) = grid.dimensions();
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
            let (x, y) = grid.cell_coords(p);
            assert_eq!(c, y * cols + x, "{p}");
        }
    }

    /// Two points per vector, the cells are the ones `cell_coords` finds
    /// one at a time: inside, on cell borders and walls, outside, and not
    /// finite, with an odd point left over for the one-at-a-time tail.
    #[test]
    fn cells_two_at_a_time_are_the_cells_one_at_a_time() {
        let (grid, values) = hostile_coordinates();
        let cols = grid.dimensions().0;
        // Every value against every other, as x and as y.
        let points: Vec<Vec2> =
            values.iter().flat_map(|&x| values.iter().map(move |&y| Vec2::new(x, y))).skip(1).collect();
        assert_eq!(points.len() % 2, 1, "a point left over for the tail");
        let (mut exact, mut converted) = (vec![0; points.len()], vec![0; points.len()]);
        grid.cells_of_by::<true>(&points, &mut exact);
        grid.cells_of_by::<false>(&points, &mut converted);
        for ((&p, &cell), &other) in points.iter().zip(&exact).zip(&converted) {
            let (x, y) = grid.cell_coords(p);
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
            let (mut plain, mut keyed) = (SpatialGrid::default(), SpatialGrid::default());
            plain.rebuild(&pos, &vel, &tank, radius, false);
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
            keyed.renumber();
            assert!(
                keyed.order().iter().chain(keyed.rank()).zip((0..n as u32).cycle()).all(|(&a, b)| a == b)
            );
        }
    }

    #[test]
    fn sort_is_stable_and_consistent() {
        let tank = Tank::centered(Vec2::new(100.0, 100.0));
        let pos: Vec<Vec2> =
            (0..50).map(|i| Vec2::new((i * 37 % 100) as f32 - 50.0, (i * 11 % 100) as f32 - 50.0)).collect();
        let vel = vec![Vec2::ZERO; pos.len()];
        let mut g = SpatialGrid::default();
        g.rebuild(&pos, &vel, &tank, 10.0, false);
        let cols = (100.0 / (10.0 / COLUMNS_PER_RADIUS as f32)) as u32 - 1;
        assert_eq!(g.dimensions(), (cols, 9), "cells a hair wider than the radius (a column its share)");
        assert!(g.cell_size().x * COLUMNS_PER_RADIUS as f32 >= 10.0 && g.cell_size().y >= 10.0);
        for (s, &slot) in g.order().iter().enumerate() {
            assert_eq!(g.rank()[slot as usize] as usize, s);
            assert_eq!(g.sorted_position(s), pos[slot as usize]);
        }
        // Cells ascend along the sorted order, slots ascend within a cell.
        let cell = |p: Vec2| {
            let (x, y) = g.cell_coords(p);
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
            let mut g = SpatialGrid::default();
            pool.install(|| g.rebuild(&pos, &vel, &tank, 45.0, false));
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
            let (x, y) = one.cell_coords(p);
            y * one.cols + x
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
        let mut g = SpatialGrid::default();
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
        let mut g = SpatialGrid::default();
        g.rebuild(&[Vec2::ZERO], &[Vec2::ZERO], &tank, 1.0e-3, true);
        let (c, r) = g.dimensions();
        assert!((c as usize) * (r as usize) <= MIN_CELL_BUDGET);
        assert!(g.cell_size().min_element() >= 1.0e-3);
    }
}
