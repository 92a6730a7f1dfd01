//! The quartet's candidate loop on AVX2: two candidates at a time, one in
//! each 128-bit half of a 256-bit vector, against the same four fish.
//!
//! The loop one candidate at a time spends most of its instructions on
//! what does not depend on the lane count: loading and broadcasting the
//! candidate, the loop, the test for a separation neighbour. Two at a time
//! halve those, and VEX's three-operand forms drop the register copies
//! SSE2 needs. The sums keep their order: each lane adds candidate `j`'s
//! terms, then candidate `j + 1`'s, as the one-at-a-time loop does (the
//! counts, whole numbers, are added up in any order), and there is no
//! fused multiply-add, so the bits are the portable loop's on every CPU.
//! The quartet's four grid cells are found here too, four at once.
//!
//! Every function is an `#[inline(always)] unsafe fn` without a
//! `#[target_feature]` of its own, inlined into `ForceKernel::run_avx2`
//! (which has one), where the intrinsics inline too. No closure calls an
//! intrinsic: a closure is a function of its own, without AVX2, into which
//! they would not inline.

#![expect(unsafe_code, reason = "AVX2 intrinsics, inlined into the AVX2 build of the force pass only")]

use core::arch::x86_64::{
    __m128, __m128i, __m256, _CMP_LT_OS, _mm_add_ps, _mm_cvtss_f32, _mm_cvttps_epi32, _mm_extract_epi32,
    _mm_max_ps, _mm_min_ps, _mm_movehl_ps, _mm_set1_ps, _mm_setr_ps, _mm_setzero_ps, _mm_shuffle_ps,
    _mm256_add_ps, _mm256_and_ps, _mm256_blendv_ps, _mm256_castps256_ps128, _mm256_castsi256_ps,
    _mm256_cmp_ps, _mm256_cmpeq_epi32, _mm256_extractf128_ps, _mm256_movemask_ps, _mm256_mul_ps,
    _mm256_permute_ps, _mm256_set_m128, _mm256_set1_epi32, _mm256_set1_ps, _mm256_setr_epi32,
    _mm256_setzero_ps, _mm256_sub_ps, _mm256_xor_ps,
};
use glam::{BVec4A, Vec4};

use super::{ForceKernel, Quartet, QuartetSeparation, QuartetSums};
use crate::grid::SpatialGrid;

/// `v` as an SSE vector (a no-op where glam's `Vec4` is one already).
#[inline(always)]
unsafe fn m128(v: Vec4) -> __m128 {
    // SAFETY: the caller's promise (AVX2).
    unsafe { _mm_setr_ps(v.x, v.y, v.z, v.w) }
}

/// `v` as a glam vector (a no-op where glam's `Vec4` is an SSE vector).
#[inline(always)]
unsafe fn vec4(v: __m128) -> Vec4 {
    // SAFETY: the caller's promise (AVX2).
    unsafe {
        Vec4::new(
            _mm_cvtss_f32(v),
            _mm_cvtss_f32(_mm_shuffle_ps::<0b01_01_01_01>(v, v)),
            _mm_cvtss_f32(_mm_movehl_ps(v, v)),
            _mm_cvtss_f32(_mm_shuffle_ps::<0b11_11_11_11>(v, v)),
        )
    }
}

/// `v` in both halves.
#[inline(always)]
unsafe fn both(v: Vec4) -> __m256 {
    // SAFETY: the caller's promise (AVX2).
    unsafe {
        let v = m128(v);
        _mm256_set_m128(v, v)
    }
}

/// The low half (candidate `j`) and the high half (candidate `j + 1`).
#[inline(always)]
unsafe fn halves(v: __m256) -> [__m128; 2] {
    // SAFETY: the caller's promise (AVX2).
    unsafe { [_mm256_castps256_ps128(v), _mm256_extractf128_ps::<1>(v)] }
}

/// `sum + low + high`, in that order: candidate `j`'s terms, then
/// candidate `j + 1`'s.
#[inline(always)]
unsafe fn add_in_order(sum: __m128, terms: __m256) -> __m128 {
    // SAFETY: the caller's promise (AVX2).
    unsafe {
        let [low, high] = halves(terms);
        _mm_add_ps(_mm_add_ps(sum, low), high)
    }
}

/// `d` brought to the nearest image on a torus axis, as
/// `kernel::nearest_image` does (the same operations, so the same bits).
#[inline(always)]
unsafe fn nearest_image(d: __m256, half: f32, size: f32) -> __m256 {
    // SAFETY: the caller's promise (AVX2).
    unsafe {
        let above = _mm256_cmp_ps::<{ core::arch::x86_64::_CMP_GT_OS }>(d, _mm256_set1_ps(half));
        let below = _mm256_cmp_ps::<_CMP_LT_OS>(d, _mm256_set1_ps(-half));
        let size = _mm256_set1_ps(size);
        let wrapped = _mm256_blendv_ps(d, _mm256_add_ps(d, size), below);
        _mm256_blendv_ps(wrapped, _mm256_sub_ps(d, size), above)
    }
}

/// The cells of the four fish at `x`, `y` (one per lane), exactly as
/// `SpatialGrid::cell_coords` finds them one at a time: the same cell
/// coordinates in `f32`, clamped into the grid *before* the conversion,
/// which for every clamped value (and for NaN, which the clamp sends to 0)
/// gives the integer that clamping after it gives. Four conversions in one
/// instruction instead of four saturating ones each.
///
/// # Safety
///
/// The CPU must have AVX2.
#[inline(always)]
pub(super) unsafe fn cells_of(grid: &SpatialGrid, x: Vec4, y: Vec4) -> [(u32, u32); 4] {
    let (origin, inv_cell, (cols, rows)) = (grid.origin(), grid.inv_cell(), grid.dimensions());
    // SAFETY: the caller's promise (AVX2).
    unsafe {
        let cx = lanes(cell_axis(x, origin.x, inv_cell.x, cols));
        let cy = lanes(cell_axis(y, origin.y, inv_cell.y, rows));
        core::array::from_fn(|l| (cx[l], cy[l]))
    }
}

/// The cell coordinate along one axis of `n` cells of the four points at
/// `p`: `(p - origin) · inv`, clamped to `0..=n - 1` in `f32` (`max`
/// first: it sends NaN to 0, as `as u32` does), then truncated.
///
/// # Safety
///
/// The CPU must have AVX2.
#[inline(always)]
unsafe fn cell_axis(p: Vec4, origin: f32, inv: f32, n: u32) -> __m128i {
    // SAFETY: the caller's promise (AVX2).
    unsafe {
        let c = m128((p - Vec4::splat(origin)) * Vec4::splat(inv));
        let c = _mm_min_ps(_mm_max_ps(c, _mm_setzero_ps()), _mm_set1_ps((n - 1) as f32));
        _mm_cvttps_epi32(c)
    }
}

/// The four lanes of `v`, as `u32` (all of them non-negative here).
///
/// # Safety
///
/// The CPU must have AVX2.
#[inline(always)]
unsafe fn lanes(v: __m128i) -> [u32; 4] {
    // SAFETY: the caller's promise (AVX2).
    unsafe {
        [
            _mm_extract_epi32::<0>(v),
            _mm_extract_epi32::<1>(v),
            _mm_extract_epi32::<2>(v),
            _mm_extract_epi32::<3>(v),
        ]
        .map(|lane| lane as u32)
    }
}

/// Adds the candidates `candidates` (sorted indices, ascending, all below
/// `end`) to the sums of every lane, exactly as
/// `ForceKernel::scan_candidates` does one at a time. Where they may hold
/// the quartet's own fish (`OWN`), a lane does not count the candidate
/// whose sorted index is its own: one loop over such a run, instead of
/// three around the quartet's four (two loop exits fewer, which depend on
/// the data and so are mispredicted).
///
/// # Safety
///
/// The CPU must have AVX2. Inlined (with every helper here) into
/// `ForceKernel::run_avx2`, the AVX2 build of the pass, where the
/// intrinsics inline too: a function of its own with `#[target_feature]`
/// cannot be forced inline, and a call per run cost more than the pairs
/// save.
#[inline(always)]
pub(super) unsafe fn scan_pairs<const WRAP: bool, const OWN: bool>(
    kernel: &ForceKernel<'_>,
    (acc, close): (&mut QuartetSums, &mut QuartetSeparation),
    mut candidates: impl Iterator<Item = usize>,
    end: usize,
    q: &Quartet,
) {
    // SAFETY: the caller's promise (AVX2).
    unsafe {
        let snapshot = &kernel.grid.snapshot()[..end];
        let (x, y) = (both(q.x), both(q.y));
        let base = q.base as i32;
        let own = _mm256_setr_epi32(base, base + 1, base + 2, base + 3, base, base + 1, base + 2, base + 3);
        let (perception2, separation2) = (both(q.perception2), both(q.separation2));
        let size = kernel.tank.size();
        let one = _mm256_set1_ps(1.0);
        let all = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
        let mut count = _mm256_setzero_ps();
        let (mut vx, mut vy, mut dx_sum, mut dy_sum) =
            (m128(acc.vx), m128(acc.vy), m128(acc.dx), m128(acc.dy));
        let mut odd = None;
        while let Some(j) = candidates.next() {
            let Some(k) = candidates.next() else {
                odd = Some(j);
                break;
            };
            let c = _mm256_set_m128(m128(snapshot[k]), m128(snapshot[j]));
            let mut dx = _mm256_sub_ps(_mm256_permute_ps::<0b00_00_00_00>(c), x);
            let mut dy = _mm256_sub_ps(_mm256_permute_ps::<0b01_01_01_01>(c), y);
            if WRAP {
                dx = nearest_image(dx, size.x * 0.5, size.x);
                dy = nearest_image(dy, size.y * 0.5, size.y);
            }
            let d2 = _mm256_add_ps(_mm256_mul_ps(dx, dx), _mm256_mul_ps(dy, dy));
            // The lanes counting the pair: where it may hold their own
            // fish, not the lane whose index it is.
            let counted = if OWN {
                let (j, k) = (j as i32, k as i32);
                let pair = _mm256_setr_epi32(j, j, j, j, k, k, k, k);
                _mm256_xor_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(pair, own)), all)
            } else {
                all
            };
            let seen = _mm256_and_ps(_mm256_cmp_ps::<_CMP_LT_OS>(d2, perception2), counted);
            count = _mm256_add_ps(count, _mm256_and_ps(seen, one));
            vx = add_in_order(vx, _mm256_and_ps(seen, _mm256_permute_ps::<0b10_10_10_10>(c)));
            vy = add_in_order(vy, _mm256_and_ps(seen, _mm256_permute_ps::<0b11_11_11_11>(c)));
            dx_sum = add_in_order(dx_sum, _mm256_and_ps(seen, dx));
            dy_sum = add_in_order(dy_sum, _mm256_and_ps(seen, dy));
            let near =
                _mm256_movemask_ps(_mm256_and_ps(_mm256_cmp_ps::<_CMP_LT_OS>(d2, separation2), counted));
            if near != 0 {
                // Rare (a few candidates per quartet): each candidate's
                // pushes, in order, by the one-at-a-time code.
                let ([dx0, dx1], [dy0, dy1], [d20, d21]) = (halves(dx), halves(dy), halves(d2));
                for (half, [dx, dy, d2], candidate) in [(0, [dx0, dy0, d20], j), (4, [dx1, dy1, d21], k)] {
                    if (near >> half) & 0b1111 != 0 {
                        let [dx, dy, d2] = [vec4(dx), vec4(dy), vec4(d2)];
                        let lanes = (near >> half) & 0b1111;
                        let near =
                            BVec4A::new(lanes & 1 != 0, lanes & 2 != 0, lanes & 4 != 0, lanes & 8 != 0);
                        kernel.separate_quartet(close, near, [dx, dy, d2], candidate, q);
                    }
                }
            }
        }
        // Whole numbers below 2²⁴: exact in any order.
        let [low, high] = halves(count);
        acc.count += vec4(low) + vec4(high);
        (acc.vx, acc.vy, acc.dx, acc.dy) = (vec4(vx), vec4(vy), vec4(dx_sum), vec4(dy_sum));
        if let Some(j) = odd {
            kernel.scan_candidates::<WRAP, OWN>((acc, close), core::iter::once(j), end, q);
        }
    }
}

#[cfg(test)]
mod tests {
    use glam::{Vec2, Vec4, Vec4Swizzles};

    use super::*;
    use crate::params::Tank;

    /// Four at once, the cells are the ones `cell_coords` finds one at a
    /// time: inside, on cell borders and walls, outside, and not finite.
    #[test]
    fn four_cells_at_once_are_the_cells_one_at_a_time() {
        if crate::kernel::Avx2::detect().is_none() {
            return;
        }
        let tank = Tank::centered(Vec2::new(300.0, 200.0));
        let mut grid = SpatialGrid::default();
        grid.rebuild(&[Vec2::ZERO], &[Vec2::ZERO], &tank, 25.0, false);
        let (w, h) = (tank.size().x / grid.dimensions().0 as f32, tank.size().y / grid.dimensions().1 as f32);
        let odd = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -1.0e30, 1.0e30, -0.0, 0.0];
        let mut values: Vec<f32> = odd.to_vec();
        for k in 0..=13 {
            values.extend([
                k as f32 * w - 150.0,
                (k as f32 * w - 150.0).next_up(),
                (k as f32 * h - 100.0).next_down(),
            ]);
        }
        values.extend([-150.0, 150.0, 150.0f32.next_down(), -100.0, 100.0, -151.0, 151.0, 7.3, -42.0]);
        for four in values.chunks(4).filter(|c| c.len() == 4) {
            let (x, y) = (Vec4::from_slice(four), Vec4::from_slice(four).zwxy());
            // SAFETY: AVX2 was detected above.
            let cells = unsafe { cells_of(&grid, x, y) };
            for (l, cell) in cells.into_iter().enumerate() {
                assert_eq!(cell, grid.cell_coords(Vec2::new(x[l], y[l])), "({}, {})", x[l], y[l]);
            }
        }
    }
}
