//! The quartet's candidate loop on AVX2: two candidates at a time, one in
//! each 128-bit half of a 256-bit vector, against the same four fish.
//!
//! The loop one candidate at a time spends most of its instructions on
//! what does not depend on the lane count: loading and broadcasting the
//! candidate, the loop, the test for a separation neighbour. Two at a time
//! halve those, and VEX's three-operand forms drop the register copies
//! SSE2 needs. The sums keep their order: each lane adds candidate `j`'s
//! terms, then candidate `k`'s, as the one-at-a-time loop does (the
//! counts, whole numbers, are added up in any order), and there is no
//! fused multiply-add, so the bits are the portable loop's on every CPU.
//! A pair with a fish in its separation radius is pushed apart in the same
//! vector ([`separate`]).
//!
//! Every function is an `#[inline(always)] unsafe fn` without a
//! `#[target_feature]` of its own, inlined into the AVX2 builds of the
//! force passes (which have one), where the intrinsics inline too — but
//! for the cold path of fish exactly on top of each other, which is out of
//! line with a `#[target_feature]` of its own. No closure calls an
//! intrinsic: a closure is a function of its own, without AVX2, into which
//! they would not inline.

#![expect(unsafe_code, reason = "AVX2 intrinsics, inlined into the AVX2 builds of the force passes only")]

use core::arch::x86_64::{
    __m128, __m256, _CMP_EQ_OQ, _CMP_GT_OS, _CMP_LT_OS, _mm_add_ps, _mm_cvtss_f32, _mm_movehl_ps,
    _mm_setr_ps, _mm_setzero_ps, _mm_shuffle_ps, _mm256_add_ps, _mm256_and_ps, _mm256_andnot_ps,
    _mm256_blendv_ps, _mm256_castps256_ps128, _mm256_cmp_ps, _mm256_div_ps, _mm256_extractf128_ps,
    _mm256_max_ps, _mm256_movemask_ps, _mm256_mul_ps, _mm256_permute_ps, _mm256_set_m128, _mm256_set1_ps,
    _mm256_setzero_ps, _mm256_sqrt_ps, _mm256_sub_ps, _mm256_xor_ps,
};

use glam::Vec4;

use super::{QuartetReach, QuartetSeparation, Sums, scan_candidates};
use crate::math::Vector;

/// `v` as an SSE vector (a no-op where glam's `Vec4` is one already).
#[inline(always)]
pub(crate) unsafe fn m128(v: Vec4) -> __m128 {
    // SAFETY: the caller's promise (AVX2).
    unsafe { _mm_setr_ps(v.x, v.y, v.z, v.w) }
}

/// `v` as a glam vector (a no-op where glam's `Vec4` is an SSE vector).
#[inline(always)]
pub(crate) unsafe fn vec4(v: __m128) -> Vec4 {
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
pub(crate) unsafe fn both(v: Vec4) -> __m256 {
    // SAFETY: the caller's promise (AVX2).
    unsafe {
        let v = m128(v);
        _mm256_set_m128(v, v)
    }
}

/// The low half (candidate `j`) and the high half (candidate `k`).
#[inline(always)]
pub(crate) unsafe fn halves(v: __m256) -> [__m128; 2] {
    // SAFETY: the caller's promise (AVX2).
    unsafe { [_mm256_castps256_ps128(v), _mm256_extractf128_ps::<1>(v)] }
}

/// `sum + low + high`, in that order: candidate `j`'s terms, then
/// candidate `k`'s.
#[inline(always)]
unsafe fn add_in_order(sum: __m128, terms: __m256) -> __m128 {
    // SAFETY: the caller's promise (AVX2).
    unsafe {
        let [low, high] = halves(terms);
        _mm_add_ps(_mm_add_ps(sum, low), high)
    }
}

/// `sum + low + high` for each axis of a vector's dimension.
#[inline(always)]
unsafe fn add_axes_in_order<V: Vector>(sums: &mut [__m128; 3], terms: [__m256; 3]) {
    for (sum, terms) in sums.iter_mut().zip(terms).take(V::DIM) {
        // SAFETY: the caller's promise (AVX2).
        *sum = unsafe { add_in_order(*sum, terms) };
    }
}

/// `d` brought to the nearest image on a torus axis, as
/// [`super::nearest_image`] does (the same operations, so the same bits).
#[inline(always)]
unsafe fn nearest_image(d: __m256, half: f32, size: f32) -> __m256 {
    // SAFETY: the caller's promise (AVX2).
    unsafe {
        let above = _mm256_cmp_ps::<_CMP_GT_OS>(d, _mm256_set1_ps(half));
        let below = _mm256_cmp_ps::<_CMP_LT_OS>(d, _mm256_set1_ps(-half));
        let size = _mm256_set1_ps(size);
        let wrapped = _mm256_blendv_ps(d, _mm256_add_ps(d, size), below);
        _mm256_blendv_ps(wrapped, _mm256_sub_ps(d, size), above)
    }
}

/// Lane `l` of each half of `v` in all four lanes of that half (`l` is a
/// constant once inlined).
#[inline(always)]
unsafe fn broadcast(v: __m256, l: usize) -> __m256 {
    // SAFETY: the caller's promise (AVX2).
    unsafe {
        match l {
            0 => _mm256_permute_ps::<0b00_00_00_00>(v),
            1 => _mm256_permute_ps::<0b01_01_01_01>(v),
            2 => _mm256_permute_ps::<0b10_10_10_10>(v),
            _ => _mm256_permute_ps::<0b11_11_11_11>(v),
        }
    }
}

/// Adds the candidates `candidates` (sorted indices, ascending, all below
/// `end`) to the sums of every lane, comparing candidate `j` with the fish
/// whose axis 0 is `fish_x(j)`, exactly as [`scan_candidates`] does one at
/// a time.
///
/// # Safety
///
/// The CPU must have AVX2. Inlined (with every helper here) into the AVX2
/// build of a pass, where the intrinsics inline too: a function of its own
/// with `#[target_feature]` cannot be forced inline, and a call per run
/// cost more than the pairs save.
#[inline(always)]
pub(super) unsafe fn scan_pairs<V: Vector, const WRAP: bool>(
    snapshot: &[V::Record],
    (acc, close): Sums<'_>,
    mut candidates: impl Iterator<Item = usize>,
    end: usize,
    fish_x: impl Fn(usize) -> Vec4,
    q: &QuartetReach,
) {
    // SAFETY: the caller's promise (AVX2).
    unsafe {
        let all = &snapshot[..end];
        // Loops, not `map`s: a closure is a function of its own, without
        // AVX2, into which the intrinsics would not inline.
        let mut at = [_mm256_setzero_ps(); 3];
        for (at, &fish) in at.iter_mut().zip(&q.at).take(V::DIM) {
            *at = both(fish);
        }
        let (perception2, separation2) = (both(q.perception2), both(q.separation2));
        let (size, half) = (q.size, q.half);
        let one = _mm256_set1_ps(1.0);
        let [velocity_vector, velocity_lane] = V::VELOCITY_AT;
        let mut count = _mm256_setzero_ps();
        // Only the dimension's axes go in and out of registers: a scan
        // starts and ends many times a quartet.
        let (mut velocity, mut offset) = ([_mm_setzero_ps(); 3], [_mm_setzero_ps(); 3]);
        for i in 0..V::DIM {
            (velocity[i], offset[i]) = (m128(acc.velocity[i]), m128(acc.offset[i]));
        }
        let mut odd = None;
        while let Some(j) = candidates.next() {
            let Some(k) = candidates.next() else {
                odd = Some(j);
                break;
            };
            let ([pj, vj], [pk, vk]) = (V::record_vectors(&all[j]), V::record_vectors(&all[k]));
            let p = _mm256_set_m128(m128(pk), m128(pj));
            // On a plane the velocity is in the position's vector.
            let v = if velocity_vector == 0 { p } else { _mm256_set_m128(m128(vk), m128(vj)) };
            let mut d = [_mm256_setzero_ps(); 3];
            let mut d2 = _mm256_setzero_ps();
            for i in 0..V::DIM {
                let fish = if i == 0 { _mm256_set_m128(m128(fish_x(k)), m128(fish_x(j))) } else { at[i] };
                let mut x = _mm256_sub_ps(broadcast(p, i), fish);
                if WRAP {
                    x = nearest_image(x, half[i], size[i]);
                }
                let square = _mm256_mul_ps(x, x);
                d2 = if i == 0 { square } else { _mm256_add_ps(d2, square) };
                d[i] = x;
            }
            let seen = _mm256_cmp_ps::<_CMP_LT_OS>(d2, perception2);
            count = _mm256_add_ps(count, _mm256_and_ps(seen, one));
            let (mut terms, mut offsets) = ([_mm256_setzero_ps(); 3], [_mm256_setzero_ps(); 3]);
            for i in 0..V::DIM {
                terms[i] = _mm256_and_ps(seen, broadcast(v, velocity_lane + i));
                offsets[i] = _mm256_and_ps(seen, d[i]);
            }
            add_axes_in_order::<V>(&mut velocity, terms);
            add_axes_in_order::<V>(&mut offset, offsets);
            let near = _mm256_cmp_ps::<_CMP_LT_OS>(d2, separation2);
            if _mm256_movemask_ps(near) != 0 {
                separate::<V>(close, near, (d, d2), q);
            }
        }
        // Whole numbers below 2²⁴: exact in any order.
        let [low, high] = halves(count);
        acc.count += vec4(low) + vec4(high);
        for i in 0..V::DIM {
            (acc.velocity[i], acc.offset[i]) = (vec4(velocity[i]), vec4(offset[i]));
        }
        if let Some(j) = odd {
            scan_candidates::<V, WRAP>(snapshot, (acc, close), core::iter::once(j), end, fish_x, q);
        }
    }
}

/// The separation pushes of candidate `j` (the low half of `d`, `d2`) and
/// then of candidate `k` (the high half) on the lanes each is near
/// (`near`: the mask of those lanes, some set): what
/// [`super::separate_quartet`] adds for each near one, in that order, with
/// the square roots and divisions of both in one 256-bit vector.
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
unsafe fn separate<V: Vector>(
    sums: &mut QuartetSeparation,
    near: __m256,
    (d, d2): ([__m256; 3], __m256),
    q: &QuartetReach,
) {
    // SAFETY: the caller's promise (AVX2).
    unsafe {
        let coincident = _mm256_and_ps(near, _mm256_cmp_ps::<_CMP_EQ_OQ>(d2, _mm256_setzero_ps()));
        if _mm256_movemask_ps(coincident) != 0 {
            separate_tied::<V>(sums, near, coincident, (d, d2), q);
            return;
        }
        push_apart::<V>(sums, near, near, (d, d2), q);
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
unsafe fn separate_tied<V: Vector>(
    sums: &mut QuartetSeparation,
    near: __m256,
    coincident: __m256,
    (d, d2): ([__m256; 3], __m256),
    q: &QuartetReach,
) {
    // SAFETY: this function's own promise (AVX2).
    unsafe {
        let strength = push_apart::<V>(sums, near, _mm256_andnot_ps(coincident, near), (d, d2), q);
        q.tie.set(vec4(add_in_order(m128(q.tie.get()), _mm256_and_ps(coincident, strength))));
    }
}

/// `rules::separation_push` lane by lane on the `apart` lanes (`radius /
/// max(d, floor) - 1`, at least 0, along `-offset / d`), the `near` lanes
/// counted; returns the strengths.
///
/// # Safety
///
/// The CPU must have AVX2.
#[inline(always)]
unsafe fn push_apart<V: Vector>(
    sums: &mut QuartetSeparation,
    near: __m256,
    apart: __m256,
    (d, d2): ([__m256; 3], __m256),
    q: &QuartetReach,
) -> __m256 {
    // SAFETY: the caller's promise (AVX2).
    unsafe {
        let (zero, one) = (_mm256_setzero_ps(), _mm256_set1_ps(1.0));
        let length = _mm256_sqrt_ps(d2);
        let ratio = _mm256_div_ps(both(q.separation), _mm256_max_ps(length, both(q.floor)));
        let strength = _mm256_max_ps(_mm256_sub_ps(ratio, one), zero);
        sums.count = vec4(add_in_order(m128(sums.count), _mm256_and_ps(near, one)));
        for (sum, &d) in sums.push.iter_mut().zip(&d).take(V::DIM) {
            let away = _mm256_xor_ps(_mm256_set1_ps(-0.0), d);
            let push = _mm256_and_ps(apart, _mm256_mul_ps(_mm256_div_ps(away, length), strength));
            *sum = vec4(add_in_order(m128(*sum), push));
        }
        strength
    }
}
