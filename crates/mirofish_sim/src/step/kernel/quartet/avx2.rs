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
//! A pair with a fish in its separation radius is pushed apart in the same
//! vector ([`separate`]). The quartet's four grid cells are found here too,
//! four at once, and the rules of two quartets evaluated at once in eight
//! lanes ([`F32x8`], whose operations are the ones glam's `Vec4` does four
//! at a time, to the bit).
//!
//! Every function is an `#[inline(always)] unsafe fn` without a
//! `#[target_feature]` of its own, inlined into `ForceKernel::run_avx2`
//! (which has one), where the intrinsics inline too — but for the cold
//! path of fish exactly on top of each other, which is out of line with a
//! `#[target_feature]` of its own. No closure calls an intrinsic: a closure
//! is a function of its own, without AVX2, into which they would not
//! inline.

#![expect(unsafe_code, reason = "AVX2 intrinsics, inlined into the AVX2 build of the force pass only")]

use core::arch::x86_64::{
    __m128, __m128i, __m256, __m256i, _CMP_EQ_OQ, _CMP_GE_OS, _CMP_GT_OS, _CMP_LE_OS, _CMP_LT_OS, _mm_add_ps,
    _mm_cvtss_f32, _mm_cvttps_epi32, _mm_extract_epi32, _mm_max_ps, _mm_min_ps, _mm_movehl_ps, _mm_set1_ps,
    _mm_setr_ps, _mm_setzero_ps, _mm_shuffle_ps, _mm256_add_ps, _mm256_and_ps, _mm256_and_si256,
    _mm256_andnot_ps, _mm256_blendv_ps, _mm256_castps_si256, _mm256_castps256_ps128, _mm256_castsi256_ps,
    _mm256_cmp_ps, _mm256_cmpgt_epi32, _mm256_cvtepi32_ps, _mm256_cvttps_epi32, _mm256_div_ps,
    _mm256_extractf128_ps, _mm256_max_ps, _mm256_movemask_ps, _mm256_mul_ps, _mm256_or_ps, _mm256_permute_ps,
    _mm256_set_m128, _mm256_set1_epi32, _mm256_set1_ps, _mm256_setzero_ps, _mm256_sqrt_ps, _mm256_sub_ps,
    _mm256_xor_ps,
};
use glam::Vec4;

use super::{ForceKernel, Quartet, QuartetSeparation, QuartetSums};
use crate::math::lanes::Lanes;
use crate::rules::{self, NeighbourhoodLanes};
use crate::world::grid::CellGrid;
use crate::world::params::FlockParams;

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
/// `CellGrid::coords` finds them one at a time: the same cell
/// coordinates in `f32`, clamped into the grid *before* the conversion,
/// which for every clamped value (and for NaN, which the clamp sends to 0)
/// gives the integer that clamping after it gives. Four conversions in one
/// instruction instead of four saturating ones each.
///
/// # Safety
///
/// The CPU must have AVX2.
#[inline(always)]
pub(super) unsafe fn cells_of(grid: &CellGrid<glam::Vec2>, x: Vec4, y: Vec4) -> [(u32, u32); 4] {
    let (origin, inv_cell, [cols, rows, _]) = (grid.origin(), grid.inv_cell(), grid.dimensions());
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
/// `end`) to the sums of every lane, comparing candidate `j` with the fish
/// at `fish_x(j)`, exactly as `ForceKernel::scan_candidates` does one at a
/// time.
///
/// # Safety
///
/// The CPU must have AVX2. Inlined (with every helper here) into
/// `ForceKernel::run_avx2`, the AVX2 build of the pass, where the
/// intrinsics inline too: a function of its own with `#[target_feature]`
/// cannot be forced inline, and a call per run cost more than the pairs
/// save.
#[inline(always)]
pub(super) unsafe fn scan_pairs<const WRAP: bool>(
    kernel: &ForceKernel<'_>,
    (acc, close): (&mut QuartetSums, &mut QuartetSeparation),
    mut candidates: impl Iterator<Item = usize>,
    end: usize,
    fish_x: impl Fn(usize) -> Vec4,
    q: &Quartet,
) {
    // SAFETY: the caller's promise (AVX2).
    unsafe {
        let snapshot = &kernel.grid.snapshot()[..end];
        let y = both(q.y);
        let (perception2, separation2) = (both(q.perception2), both(q.separation2));
        let size = kernel.tank.size();
        let one = _mm256_set1_ps(1.0);
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
            let x = _mm256_set_m128(m128(fish_x(k)), m128(fish_x(j)));
            let mut dx = _mm256_sub_ps(_mm256_permute_ps::<0b00_00_00_00>(c), x);
            let mut dy = _mm256_sub_ps(_mm256_permute_ps::<0b01_01_01_01>(c), y);
            if WRAP {
                dx = nearest_image(dx, size.x * 0.5, size.x);
                dy = nearest_image(dy, size.y * 0.5, size.y);
            }
            let d2 = _mm256_add_ps(_mm256_mul_ps(dx, dx), _mm256_mul_ps(dy, dy));
            let seen = _mm256_cmp_ps::<_CMP_LT_OS>(d2, perception2);
            count = _mm256_add_ps(count, _mm256_and_ps(seen, one));
            vx = add_in_order(vx, _mm256_and_ps(seen, _mm256_permute_ps::<0b10_10_10_10>(c)));
            vy = add_in_order(vy, _mm256_and_ps(seen, _mm256_permute_ps::<0b11_11_11_11>(c)));
            dx_sum = add_in_order(dx_sum, _mm256_and_ps(seen, dx));
            dy_sum = add_in_order(dy_sum, _mm256_and_ps(seen, dy));
            let near = _mm256_cmp_ps::<_CMP_LT_OS>(d2, separation2);
            if _mm256_movemask_ps(near) != 0 {
                separate(close, near, [dx, dy, d2], q);
            }
        }
        // Whole numbers below 2²⁴: exact in any order.
        let [low, high] = halves(count);
        acc.count += vec4(low) + vec4(high);
        (acc.vx, acc.vy, acc.dx, acc.dy) = (vec4(vx), vec4(vy), vec4(dx_sum), vec4(dy_sum));
        if let Some(j) = odd {
            kernel.scan_candidates::<WRAP>((acc, close), core::iter::once(j), end, fish_x, q);
        }
    }
}

/// The separation pushes of candidate `j` (the low half of `dx`, `dy`,
/// `d2`) and then of candidate `k` (the high half) on the lanes each is
/// near (`near`: the mask of those lanes, some set): what
/// `ForceKernel::separate_quartet` adds for each near one, in that order,
/// with the square roots and divisions of both in one 256-bit vector.
///
/// The same bits: each lane does the same IEEE operations, each sum takes
/// `j`'s terms before `k`'s, and a lane that is not near adds `+0`, which
/// leaves a sum as it was (it starts at `+0`, and a sum of floats is `-0`
/// only when both terms are). In a crowd nearly every pair of candidates
/// has a near lane, and pushing them one at a time was much of the pass.
/// A candidate exactly on top of a fish adds its strength to the fish's
/// ties instead of a push.
///
/// # Safety
///
/// The CPU must have AVX2.
#[inline(always)]
unsafe fn separate(sums: &mut QuartetSeparation, near: __m256, [dx, dy, d2]: [__m256; 3], q: &Quartet) {
    // SAFETY: the caller's promise (AVX2).
    unsafe {
        let (zero, one) = (_mm256_setzero_ps(), _mm256_set1_ps(1.0));
        let coincident = _mm256_and_ps(near, _mm256_cmp_ps::<_CMP_EQ_OQ>(d2, zero));
        if _mm256_movemask_ps(coincident) != 0 {
            separate_tied(sums, near, coincident, [dx, dy, d2], q);
            return;
        }
        // `rules::separation_push` lane by lane: `radius / max(d, floor) -
        // 1`, at least 0, along `-offset / d`.
        let d = _mm256_sqrt_ps(d2);
        let ratio = _mm256_div_ps(both(q.separation), _mm256_max_ps(d, both(q.floor)));
        let strength = _mm256_max_ps(_mm256_sub_ps(ratio, one), zero);
        let (sx, sy) = (push(dx, d, strength, near), push(dy, d, strength, near));
        sums.count = vec4(add_in_order(m128(sums.count), _mm256_and_ps(near, one)));
        sums.sx = vec4(add_in_order(m128(sums.sx), sx));
        sums.sy = vec4(add_in_order(m128(sums.sy), sy));
    }
}

/// [`separate`] where some candidate is exactly on top of a fish (the
/// `coincident` lanes, all near): those add their strength to the fish's
/// ties instead of a push. Out of line: only piles of fish come here.
///
/// # Safety
///
/// The CPU must have AVX2.
#[cold]
#[inline(never)]
#[target_feature(enable = "avx2")]
unsafe fn separate_tied(
    sums: &mut QuartetSeparation,
    near: __m256,
    coincident: __m256,
    [dx, dy, d2]: [__m256; 3],
    q: &Quartet,
) {
    // SAFETY: this function's own promise (AVX2).
    unsafe {
        let (zero, one) = (_mm256_setzero_ps(), _mm256_set1_ps(1.0));
        let apart = _mm256_andnot_ps(coincident, near);
        let d = _mm256_sqrt_ps(d2);
        let ratio = _mm256_div_ps(both(q.separation), _mm256_max_ps(d, both(q.floor)));
        let strength = _mm256_max_ps(_mm256_sub_ps(ratio, one), zero);
        let (sx, sy) = (push(dx, d, strength, apart), push(dy, d, strength, apart));
        sums.count = vec4(add_in_order(m128(sums.count), _mm256_and_ps(near, one)));
        sums.sx = vec4(add_in_order(m128(sums.sx), sx));
        sums.sy = vec4(add_in_order(m128(sums.sy), sy));
        q.tie.set(vec4(add_in_order(m128(q.tie.get()), _mm256_and_ps(coincident, strength))));
    }
}

/// `-offset / d * strength` on the lanes of `mask`, zero elsewhere: one axis
/// of [`separate`]'s pushes.
#[inline(always)]
unsafe fn push(offset: __m256, d: __m256, strength: __m256, mask: __m256) -> __m256 {
    // SAFETY: the caller's promise (AVX2).
    unsafe {
        let away = _mm256_xor_ps(_mm256_set1_ps(-0.0), offset);
        _mm256_and_ps(mask, _mm256_mul_ps(_mm256_div_ps(away, d), strength))
    }
}

/// Eight `f32` lanes, two quartets' fish: the [`Lanes`] the rules of two
/// quartets are evaluated in at once. Made only by [`join`] (an `unsafe
/// fn` whose caller promises AVX2) and from other `F32x8`s: that one
/// exists is what each operation's `unsafe` relies on.
#[derive(Clone, Copy)]
pub(super) struct F32x8(__m256);

/// A mask of eight lanes (all bits set or clear in each).
#[derive(Clone, Copy)]
pub(super) struct Mask8(__m256);

/// Implements a binary operator of [`F32x8`] (and with an `f32` in every
/// lane) by an intrinsic.
macro_rules! lane_op {
    ($trait:ident, $method:ident, $intrinsic:ident) => {
        impl core::ops::$trait for F32x8 {
            type Output = Self;
            #[inline(always)]
            fn $method(self, rhs: Self) -> Self {
                // SAFETY: an `F32x8` exists only where the CPU has AVX2.
                Self(unsafe { $intrinsic(self.0, rhs.0) })
            }
        }
        impl core::ops::$trait<f32> for F32x8 {
            type Output = Self;
            #[inline(always)]
            fn $method(self, rhs: f32) -> Self {
                // SAFETY: an `F32x8` exists only where the CPU has AVX2.
                Self(unsafe { $intrinsic(self.0, _mm256_set1_ps(rhs)) })
            }
        }
    };
}

lane_op!(Add, add, _mm256_add_ps);
lane_op!(Sub, sub, _mm256_sub_ps);
lane_op!(Mul, mul, _mm256_mul_ps);
lane_op!(Div, div, _mm256_div_ps);

impl core::ops::Neg for F32x8 {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        // SAFETY: an `F32x8` exists only where the CPU has AVX2.
        Self(unsafe { _mm256_xor_ps(_mm256_set1_ps(-0.0), self.0) })
    }
}

/// Implements a bitwise operator of [`Mask8`] by an intrinsic.
macro_rules! mask_op {
    ($trait:ident, $method:ident, $intrinsic:ident) => {
        impl core::ops::$trait for Mask8 {
            type Output = Self;
            #[inline(always)]
            fn $method(self, rhs: Self) -> Self {
                // SAFETY: a `Mask8` exists only where the CPU has AVX2.
                Self(unsafe { $intrinsic(self.0, rhs.0) })
            }
        }
    };
}

mask_op!(BitAnd, bitand, _mm256_and_ps);
mask_op!(BitOr, bitor, _mm256_or_ps);

impl core::ops::Not for Mask8 {
    type Output = Self;
    #[inline(always)]
    fn not(self) -> Self {
        // SAFETY: a `Mask8` exists only where the CPU has AVX2.
        Self(unsafe { _mm256_xor_ps(self.0, _mm256_castsi256_ps(_mm256_set1_epi32(-1))) })
    }
}

impl F32x8 {
    /// Each lane compared with `rhs` by the predicate `P` (an `_CMP_*`).
    #[inline(always)]
    fn compare<const P: i32>(self, rhs: Self) -> Mask8 {
        // SAFETY: an `F32x8` exists only where the CPU has AVX2.
        Mask8(unsafe { _mm256_cmp_ps::<P>(self.0, rhs.0) })
    }

    /// The lanes whose magnitude is below 2²³ (and so may have a fraction;
    /// not NaN or infinite), as glam's SSE2 `trunc` and `floor` find them.
    #[inline(always)]
    fn may_have_fraction(self) -> __m256i {
        // SAFETY: an `F32x8` exists only where the CPU has AVX2.
        unsafe {
            let magnitude = _mm256_and_si256(_mm256_castps_si256(self.0), _mm256_set1_epi32(0x7fff_ffff));
            _mm256_cmpgt_epi32(_mm256_castps_si256(_mm256_set1_ps(8_388_608.0)), magnitude)
        }
    }
}

impl Lanes for F32x8 {
    type Mask = Mask8;

    #[inline(always)]
    fn splat(self, v: f32) -> Self {
        // SAFETY: an `F32x8` (`self`) exists only where the CPU has AVX2.
        Self(unsafe { _mm256_set1_ps(v) })
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        // SAFETY: an `F32x8` exists only where the CPU has AVX2.
        Self(unsafe { _mm256_sqrt_ps(self.0) })
    }
    #[inline(always)]
    fn abs(self) -> Self {
        // SAFETY: an `F32x8` exists only where the CPU has AVX2.
        Self(unsafe { _mm256_and_ps(self.0, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fff_ffff))) })
    }
    /// glam's SSE2 `trunc`: through a conversion to integers where a
    /// lane may have a fraction (so `-0.5` gives `+0`, as there), the lane
    /// itself elsewhere.
    #[inline(always)]
    fn trunc(self) -> Self {
        // SAFETY: an `F32x8` exists only where the CPU has AVX2.
        unsafe {
            let test = _mm256_castsi256_ps(self.may_have_fraction());
            let whole = _mm256_cvtepi32_ps(_mm256_cvttps_epi32(self.0));
            Self(_mm256_or_ps(_mm256_and_ps(whole, test), _mm256_andnot_ps(test, self.0)))
        }
    }
    /// glam's SSE2 `floor`: the truncation, less one where that rounded
    /// up, where a lane may have a fraction; the lane itself elsewhere.
    #[inline(always)]
    fn floor(self) -> Self {
        // SAFETY: an `F32x8` exists only where the CPU has AVX2.
        unsafe {
            let test = _mm256_castsi256_ps(self.may_have_fraction());
            let whole = _mm256_cvtepi32_ps(_mm256_cvttps_epi32(self.0));
            let larger = _mm256_cmp_ps::<_CMP_GT_OS>(whole, self.0);
            let whole = _mm256_add_ps(whole, _mm256_cvtepi32_ps(_mm256_castps_si256(larger)));
            Self(_mm256_or_ps(_mm256_and_ps(whole, test), _mm256_andnot_ps(test, self.0)))
        }
    }
    #[inline(always)]
    fn select(mask: Mask8, if_true: Self, if_false: Self) -> Self {
        // SAFETY: an `F32x8` exists only where the CPU has AVX2.
        Self(unsafe { _mm256_blendv_ps(if_false.0, if_true.0, mask.0) })
    }
    #[inline(always)]
    fn cmplt(self, rhs: Self) -> Mask8 {
        self.compare::<_CMP_LT_OS>(rhs)
    }
    #[inline(always)]
    fn cmple(self, rhs: Self) -> Mask8 {
        self.compare::<_CMP_LE_OS>(rhs)
    }
    #[inline(always)]
    fn cmpgt(self, rhs: Self) -> Mask8 {
        self.compare::<_CMP_GT_OS>(rhs)
    }
    #[inline(always)]
    fn cmpge(self, rhs: Self) -> Mask8 {
        self.compare::<_CMP_GE_OS>(rhs)
    }
    #[inline(always)]
    fn cmpeq(self, rhs: Self) -> Mask8 {
        self.compare::<_CMP_EQ_OQ>(rhs)
    }
    #[inline(always)]
    fn is_finite_mask(self) -> Mask8 {
        self.abs().cmplt(self.splat(f32::INFINITY))
    }
    #[inline(always)]
    fn all(mask: Mask8) -> bool {
        // SAFETY: a `Mask8` exists only where the CPU has AVX2.
        unsafe { _mm256_movemask_ps(mask.0) == 0xff }
    }
}

/// Two quartets' lanes as one vector: `low`'s four, then `high`'s.
///
/// # Safety
///
/// The CPU must have AVX2.
#[inline(always)]
unsafe fn join(low: Vec4, high: Vec4) -> F32x8 {
    // SAFETY: the caller's promise (AVX2).
    unsafe { F32x8(_mm256_set_m128(m128(high), m128(low))) }
}

/// [`join`] of two pairs of `[x, y]` lanes.
///
/// # Safety
///
/// The CPU must have AVX2.
#[inline(always)]
unsafe fn join2([low_x, low_y]: [Vec4; 2], [high_x, high_y]: [Vec4; 2]) -> [F32x8; 2] {
    // SAFETY: the caller's promise (AVX2).
    unsafe { [join(low_x, high_x), join(low_y, high_y)] }
}

/// A rule's `[x, y]` lanes split back into the two quartets'.
///
/// # Safety
///
/// The CPU must have AVX2.
#[inline(always)]
unsafe fn split2([x, y]: [F32x8; 2]) -> [[Vec4; 2]; 2] {
    // SAFETY: the caller's promise (AVX2).
    unsafe {
        let ([x_low, x_high], [y_low, y_high]) = (halves(x.0), halves(y.0));
        [[vec4(x_low), vec4(y_low)], [vec4(x_high), vec4(y_high)]]
    }
}

/// `rules::evaluate_lanes` of two quartets at once, eight lanes wide:
/// `hoods` and `inputs` (velocities, wander phases) of each; the same
/// bits as evaluating each. `None` where either would be `None` (then
/// each goes on its own).
///
/// # Safety
///
/// The CPU must have AVX2.
#[inline(always)]
pub(super) unsafe fn evaluate_octet(
    [low, high]: [&NeighbourhoodLanes; 2],
    [(low_velocity, low_phase), (high_velocity, high_phase)]: [([Vec4; 2], Vec4); 2],
    params: &FlockParams,
) -> Option<[[[Vec4; 2]; 4]; 2]> {
    // SAFETY: the caller's promise (AVX2).
    unsafe {
        let hoods = NeighbourhoodLanes {
            count: join(low.count, high.count),
            velocity: join2(low.velocity, high.velocity),
            offset: join2(low.offset, high.offset),
            separation_count: join(low.separation_count, high.separation_count),
            separation: join2(low.separation, high.separation),
        };
        let velocity = join2(low_velocity, high_velocity);
        let [a, b, c, d] = rules::evaluate_lanes(&hoods, velocity, join(low_phase, high_phase), params)?;
        let ([a_low, a_high], [b_low, b_high]) = (split2(a), split2(b));
        let ([c_low, c_high], [d_low, d_high]) = (split2(c), split2(d));
        Some([[a_low, b_low, c_low, d_low], [a_high, b_high, c_high, d_high]])
    }
}

#[cfg(test)]
mod tests {
    use glam::{Vec2, Vec4, Vec4Swizzles};

    use super::*;

    /// Four at once, the cells are the ones `coords` finds one at a
    /// time: inside, on cell borders and walls, outside, and not finite.
    #[test]
    fn four_cells_at_once_are_the_cells_one_at_a_time() {
        if crate::step::kernel::Avx2::detect().is_none() {
            return;
        }
        let (grid, values) = crate::world::grid::hostile_coordinates();
        for four in values.chunks(4).filter(|c| c.len() == 4) {
            let (x, y) = (Vec4::from_slice(four), Vec4::from_slice(four).zwxy());
            // SAFETY: AVX2 was detected above.
            let cells = unsafe { cells_of(&grid, x, y) };
            for (l, cell) in cells.into_iter().enumerate() {
                let [cx, cy, _] = grid.coords(Vec2::new(x[l], y[l]));
                assert_eq!(cell, (cx, cy), "({}, {})", x[l], y[l]);
            }
        }
    }

    /// Bits of every lane, to compare vectors bit for bit.
    fn bits(v: Vec4) -> [u32; 4] {
        v.to_array().map(f32::to_bits)
    }

    /// Every operation of eight lanes gives, in each half, the bits glam
    /// gives for four, on values that round either way, signed zeros,
    /// halves, the edge of exact integers, huge, infinite and NaN values.
    #[test]
    fn eight_lanes_are_two_quartets_of_glam() {
        if crate::step::kernel::Avx2::detect().is_none() {
            return;
        }
        let odd = [
            -0.0,
            0.0,
            0.5,
            -0.5,
            1.5,
            -1.5,
            2.5,
            -2.5,
            0.999_999_94,
            -0.999_999_94,
            8_388_607.5,
            -8_388_607.5,
            8_388_608.0,
            -8_388_609.0,
            1.0e10,
            -1.0e10,
            f32::MAX,
            f32::MIN,
            f32::MIN_POSITIVE,
            -1.0e-40,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            3.0,
            -3.25,
            1000.0,
            7.3,
            -42.0,
        ];
        let mut values: Vec<f32> = odd.to_vec();
        values.extend((0..200).map(|i| (i as f32 - 100.0) * 0.37));
        for eight in values.chunks(8).filter(|c| c.len() == 8) {
            let (low, high) = (Vec4::from_slice(&eight[..4]), Vec4::from_slice(&eight[4..]));
            let (other_low, other_high) = (low.wzyx(), high.yxwz());
            // SAFETY: AVX2 was detected above.
            let (v, w) = unsafe { (join(low, high), join(other_low, other_high)) };
            let halves = |x: F32x8| {
                // SAFETY: AVX2 was detected above.
                let [a, b] = unsafe { halves(x.0).map(|h| vec4(h)) };
                (bits(a), bits(b))
            };
            let mask = |m: Mask8| {
                // SAFETY: AVX2 was detected above.
                let m = unsafe { _mm256_movemask_ps(m.0) };
                ((m & 0b1111) as u32, (m >> 4) as u32)
            };
            let pair = |a: Vec4, b: Vec4| (bits(a), bits(b));
            let masks = |a: glam::BVec4A, b: glam::BVec4A| (a.bitmask(), b.bitmask());
            assert_eq!(halves(v.trunc()), pair(low.trunc(), high.trunc()), "trunc {eight:?}");
            assert_eq!(halves(v.floor()), pair(low.floor(), high.floor()), "floor {eight:?}");
            assert_eq!(halves(v.abs()), pair(low.abs(), high.abs()), "abs {eight:?}");
            assert_eq!(halves(v.sqrt()), pair(low.sqrt(), high.sqrt()), "sqrt {eight:?}");
            assert_eq!(halves(-v), pair(-low, high * -1.0 * -1.0 * -1.0), "neg {eight:?}");
            assert_eq!(halves(v + w), pair(low + other_low, high + other_high));
            assert_eq!(halves(v - w), pair(low - other_low, high - other_high));
            assert_eq!(halves(v * w), pair(low * other_low, high * other_high));
            assert_eq!(halves(v / w), pair(low / other_low, high / other_high));
            assert_eq!(halves(v * 0.25 + 0.5 - 1.5), pair(low * 0.25 + 0.5 - 1.5, high * 0.25 + 0.5 - 1.5));
            assert_eq!(mask(v.cmplt(w)), masks(low.cmplt(other_low), high.cmplt(other_high)));
            assert_eq!(mask(v.cmple(w)), masks(low.cmple(other_low), high.cmple(other_high)));
            assert_eq!(mask(v.cmpgt(w)), masks(low.cmpgt(other_low), high.cmpgt(other_high)));
            assert_eq!(mask(v.cmpge(w)), masks(low.cmpge(other_low), high.cmpge(other_high)));
            assert_eq!(mask(v.cmpeq(w)), masks(low.cmpeq(other_low), high.cmpeq(other_high)));
            assert_eq!(mask(v.is_finite_mask()), masks(low.is_finite_mask(), high.is_finite_mask()));
            let (lt, le) = (v.cmplt(w), v.cmple(w));
            assert_eq!(
                halves(F32x8::select(!lt & le | lt, v, w)),
                pair(
                    Vec4::select(
                        !low.cmplt(other_low) & low.cmple(other_low) | low.cmplt(other_low),
                        low,
                        other_low
                    ),
                    Vec4::select(
                        !high.cmplt(other_high) & high.cmple(other_high) | high.cmplt(other_high),
                        high,
                        other_high
                    ),
                ),
            );
            assert_eq!(F32x8::all(v.cmpeq(v)), low.cmpeq(low).all() && high.cmpeq(high).all());
        }
    }

    /// Two quartets' rules at once are each quartet's, bit for bit, and
    /// `None` exactly where either is: over neighbourhoods with no, one and
    /// many neighbours, tiny and huge sums, phases near and past the
    /// lanes' limit, and NaN.
    #[test]
    fn two_quartets_at_once_are_each_quartet() {
        if crate::step::kernel::Avx2::detect().is_none() {
            return;
        }
        let params = FlockParams::default();
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |scale: f32| {
            state = crate::rules::noise::mix64(state.wrapping_add(0x9e37_79b9_7f4a_7c15));
            ((state >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * scale
        };
        let mut compared = 0;
        for round in 0..2000 {
            let scale = [1.0e-30, 1.0e-3, 1.0, 50.0, 1.0e4, 1.0e30][round % 6];
            let hood = |next: &mut dyn FnMut(f32) -> f32| NeighbourhoodLanes {
                count: Vec4::from_array(core::array::from_fn(|_| (next(1.0).abs() * 8.0).floor())),
                velocity: [
                    Vec4::from_array(core::array::from_fn(|_| next(scale))),
                    Vec4::from_array(core::array::from_fn(|_| next(scale))),
                ],
                offset: [
                    Vec4::from_array(core::array::from_fn(|_| next(scale))),
                    Vec4::from_array(core::array::from_fn(|_| next(scale))),
                ],
                separation_count: Vec4::from_array(core::array::from_fn(|_| (next(1.0).abs() * 3.0).floor())),
                separation: [
                    Vec4::from_array(core::array::from_fn(|_| next(scale))),
                    Vec4::from_array(core::array::from_fn(|_| next(scale))),
                ],
            };
            let hoods = [hood(&mut next), hood(&mut next)];
            let mut inputs = [0, 1].map(|_| {
                let mut lanes = || Vec4::from_array(core::array::from_fn(|_| next(200.0)));
                let v = [lanes(), lanes()];
                (v, Vec4::from_array(core::array::from_fn(|_| next(7.0))))
            });
            match round % 50 {
                0 => inputs[1].1.y = 2.0e6,
                1 => inputs[0].1.w = f32::NAN,
                2 => inputs[1].0[0].x = f32::INFINITY,
                _ => {}
            }
            let one = |k: usize| rules::evaluate_lanes(&hoods[k], inputs[k].0, inputs[k].1, &params);
            let (low, high) = (one(0), one(1));
            // SAFETY: AVX2 was detected above.
            let both = unsafe { evaluate_octet([&hoods[0], &hoods[1]], inputs, &params) };
            let bits_of = |rules: [[Vec4; 2]; 4]| rules.map(|[x, y]| [bits(x), bits(y)]);
            match (both, low, high) {
                (Some([a, b]), Some(low), Some(high)) => {
                    assert_eq!(bits_of(a), bits_of(low), "round {round}");
                    assert_eq!(bits_of(b), bits_of(high), "round {round}");
                    compared += 1;
                }
                (None, low, high) => assert!(low.is_none() || high.is_none(), "round {round}"),
                _ => panic!("eight lanes gave rules where four did not (round {round})"),
            }
        }
        assert!(compared > 1500, "most rounds compare rules ({compared})");
    }
}
