//! Quartets on AVX2: four fish's grid cells found at once, and the
//! rules of two quartets evaluated at once in eight lanes ([`F32x8`],
//! whose operations are the ones glam's `Vec4` does four at a time, to the
//! bit), over two axes (a plane's, with its wander phases) or three (a
//! volume's). The candidate loop itself is the one of both spaces
//! (`step::kernel::scan`, with its AVX2 form).
//!
//! Every function is an `#[inline(always)] unsafe fn` without a
//! `#[target_feature]` of its own, inlined into the AVX2 build of a force
//! pass (`step::kernel`'s `run_avx2`, which has one), where the intrinsics
//! inline too. No closure calls an
//! intrinsic: a closure is a function of its own, without AVX2, into which
//! they would not inline.

#![expect(unsafe_code, reason = "AVX2 intrinsics, inlined into the AVX2 build of the force pass only")]

use core::arch::x86_64::{
    __m128i, __m256, __m256i, _CMP_EQ_OQ, _CMP_GE_OS, _CMP_GT_OS, _CMP_LE_OS, _CMP_LT_OS, _mm_cvttps_epi32,
    _mm_extract_epi32, _mm_max_ps, _mm_min_ps, _mm_set1_ps, _mm_setzero_ps, _mm256_add_ps, _mm256_and_ps,
    _mm256_and_si256, _mm256_andnot_ps, _mm256_blendv_ps, _mm256_castps_si256, _mm256_castsi256_ps,
    _mm256_cmp_ps, _mm256_cmpgt_epi32, _mm256_cvtepi32_ps, _mm256_cvttps_epi32, _mm256_div_ps,
    _mm256_movemask_ps, _mm256_mul_ps, _mm256_or_ps, _mm256_set_m128, _mm256_set1_epi32, _mm256_set1_ps,
    _mm256_sqrt_ps, _mm256_sub_ps, _mm256_xor_ps,
};
use glam::Vec4;

use crate::math::Vector;
use crate::math::lanes::Lanes;
use crate::rules::{self, NeighbourhoodLanes};
use crate::step::kernel::scan::avx2::{halves, m128, vec4};
use crate::world::grid::CellGrid;
use crate::world::params::FlockParams;

/// The cells of the four fish at `at` (axis by axis, one fish per lane),
/// exactly as `CellGrid::coords` finds them one at a time: the same cell
/// coordinates in `f32`, clamped into the grid *before* the conversion,
/// which for every clamped value (and for NaN, which the clamp sends to 0)
/// gives the integer that clamping after it gives. Four conversions in one
/// instruction per axis instead of four saturating ones each.
///
/// # Safety
///
/// The CPU must have AVX2.
#[inline(always)]
pub(crate) unsafe fn cells_of<V: Vector>(grid: &CellGrid<V>, at: &[Vec4; 3]) -> [[u32; 3]; 4] {
    let (origin, inv_cell, dims) = (grid.origin(), grid.inv_cell(), grid.dimensions());
    let mut axes = [[0; 4]; 3];
    for i in 0..V::DIM {
        // SAFETY: the caller's promise (AVX2).
        axes[i] = unsafe { lanes(cell_axis(at[i], origin.axis(i), inv_cell.axis(i), dims[i])) };
    }
    core::array::from_fn(|l| [axes[0][l], axes[1][l], axes[2][l]])
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

/// [`join`] of two quartets' lanes over `N` axes.
///
/// # Safety
///
/// The CPU must have AVX2.
#[inline(always)]
unsafe fn join_axes<const N: usize>(low: [Vec4; N], high: [Vec4; N]) -> [F32x8; N] {
    // A loop, not `array::from_fn`: a closure would be a function of its
    // own, into which the intrinsics would not inline.
    // SAFETY: the caller's promise (AVX2).
    unsafe {
        let mut both = [join(Vec4::ZERO, Vec4::ZERO); N];
        for i in 0..N {
            both[i] = join(low[i], high[i]);
        }
        both
    }
}

/// Two quartets' neighbourhoods as one of eight lanes.
///
/// # Safety
///
/// The CPU must have AVX2.
#[inline(always)]
unsafe fn join_hoods<const N: usize>(
    [low, high]: [&NeighbourhoodLanes<Vec4, N>; 2],
) -> NeighbourhoodLanes<F32x8, N> {
    // SAFETY: the caller's promise (AVX2).
    unsafe {
        NeighbourhoodLanes {
            count: join(low.count, high.count),
            velocity: join_axes(low.velocity, high.velocity),
            offset: join_axes(low.offset, high.offset),
            separation_count: join(low.separation_count, high.separation_count),
            separation: join_axes(low.separation, high.separation),
        }
    }
}

/// The four rules' lanes (`[separation, alignment, cohesion, wander]`, each
/// over `N` axes) split back into the two quartets'.
///
/// # Safety
///
/// The CPU must have AVX2.
#[inline(always)]
unsafe fn split_rules<const N: usize>(rules: [[F32x8; N]; 4]) -> [[[Vec4; N]; 4]; 2] {
    // SAFETY: the caller's promise (AVX2).
    unsafe {
        let mut split = [[[Vec4::ZERO; N]; 4]; 2];
        for k in 0..4 {
            for i in 0..N {
                let [low, high] = halves(rules[k][i].0);
                (split[0][k][i], split[1][k][i]) = (vec4(low), vec4(high));
            }
        }
        split
    }
}

/// `rules::rules_in_lanes` of two quartets at once, eight lanes wide, over
/// `N` axes: `hoods`, velocities and wandering velocities of each; the
/// same bits as each on its own. `None` where either would be `None`
/// (then each goes on its own).
///
/// # Safety
///
/// The CPU must have AVX2.
#[inline(always)]
pub(crate) unsafe fn rules_octet<const N: usize>(
    hoods: [&NeighbourhoodLanes<Vec4, N>; 2],
    [low_velocity, high_velocity]: [[Vec4; N]; 2],
    [low_wander, high_wander]: [[Vec4; N]; 2],
    params: &FlockParams,
) -> Option<[[[Vec4; N]; 4]; 2]> {
    // SAFETY: the caller's promise (AVX2).
    unsafe {
        let (hoods, velocity) = (join_hoods(hoods), join_axes(low_velocity, high_velocity));
        let wander = join_axes(low_wander, high_wander);
        let rules = rules::rules_in_lanes(&hoods, velocity, wander, params)?;
        Some(split_rules(rules))
    }
}

#[cfg(test)]
mod tests {
    use glam::{Vec2, Vec4, Vec4Swizzles};

    use super::*;

    /// Four at once, the cells are the ones `coords` finds one at a
    /// time: inside, on cell borders and walls, outside, and not finite;
    /// on a plane and in a volume.
    #[test]
    fn four_cells_at_once_are_the_cells_one_at_a_time() {
        if crate::step::kernel::Avx2::detect().is_none() {
            return;
        }
        let (grid, values) = crate::world::grid::hostile_coordinates();
        let tank = crate::world::tank::Tank3d::centered(glam::Vec3::new(300.0, 200.0, 250.0));
        let mut volume = CellGrid::default();
        volume.rebuild(&[glam::Vec3::ZERO], &tank, 25.0, false);
        for four in values.chunks(4).filter(|c| c.len() == 4) {
            let at = [Vec4::from_slice(four), Vec4::from_slice(four).zwxy(), Vec4::from_slice(four).wzyx()];
            // SAFETY: AVX2 was detected above.
            let (cells, cells_3d) = unsafe { (cells_of(&grid, &at), cells_of(&volume, &at)) };
            for l in 0..4 {
                let [x, y, z] = at.map(|axis| axis[l]);
                assert_eq!(cells[l], grid.coords(Vec2::new(x, y)), "({x}, {y})");
                assert_eq!(cells_3d[l], volume.coords(glam::Vec3::new(x, y, z)), "({x}, {y}, {z})");
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
    /// many neighbours, tiny and huge sums, huge wander, and NaN.
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
            let mut lanes = || Vec4::from_array(core::array::from_fn(|_| next(200.0)));
            let mut velocity = [[lanes(), lanes()], [lanes(), lanes()]];
            let mut wander = [[lanes(), lanes()], [lanes(), lanes()]];
            match round % 50 {
                0 => wander[1][1].y = 2.0e30,
                1 => wander[0][0].w = f32::NAN,
                2 => velocity[1][0].x = f32::INFINITY,
                _ => {}
            }
            let one = |k: usize| rules::rules_in_lanes(&hoods[k], velocity[k], wander[k], &params);
            let (low, high) = (one(0), one(1));
            // SAFETY: AVX2 was detected above.
            let both = unsafe { rules_octet::<2>([&hoods[0], &hoods[1]], velocity, wander, &params) };
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
