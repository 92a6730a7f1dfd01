//! Vectors of `f32` lanes, one fish per lane: the operations the lane-wise
//! rules use, so that one body serves four fish (glam's [`Vec4`]) and, in
//! the AVX2 build of the force pass, eight (two quartets at once).
//!
//! Every operation is one IEEE 754 operation per lane (or a bitwise one),
//! so a rule written once over [`Lanes`] gives the same bits in every
//! width.

use core::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Not, Sub};

use glam::{BVec4A, Vec4};

/// Axis `i` of the first four vectors of `four`, one per lane of a
/// [`Vec4`]. A function, not a closure: it inlines into the AVX2 build of
/// a force pass, where a closure (a function of its own) may be left out
/// of line.
#[inline(always)]
pub(crate) fn axis_lanes<V: crate::math::Vector>(four: &[V], i: usize) -> Vec4 {
    Vec4::new(four[0].axis(i), four[1].axis(i), four[2].axis(i), four[3].axis(i))
}

/// A vector of `f32` lanes and the lane-wise operations the rules use.
pub(crate) trait Lanes:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + Add<f32, Output = Self>
    + Sub<f32, Output = Self>
    + Mul<f32, Output = Self>
{
    /// A mask of lanes, as the comparisons give it.
    type Mask: Copy + BitAnd<Output = Self::Mask> + BitOr<Output = Self::Mask> + Not<Output = Self::Mask>;

    /// `v` in every lane. `self` only gives the type (and, for eight
    /// lanes, is the proof that the CPU has AVX2: such a vector is made
    /// only where it does).
    fn splat(self, v: f32) -> Self;
    /// The square root of each lane.
    fn sqrt(self) -> Self;
    /// The magnitude of each lane.
    fn abs(self) -> Self;
    /// Each lane rounded towards zero, as glam's `Vec4::trunc` does it
    /// (through a conversion to integers: `-0.5` gives `+0`).
    fn trunc(self) -> Self;
    /// Each lane rounded down, as glam's `Vec4::floor` does it.
    fn floor(self) -> Self;
    /// `if_true` in the lanes of `mask`, `if_false` elsewhere.
    fn select(mask: Self::Mask, if_true: Self, if_false: Self) -> Self;
    /// `self < rhs`, lane by lane (false for NaN).
    fn cmplt(self, rhs: Self) -> Self::Mask;
    /// `self <= rhs`.
    fn cmple(self, rhs: Self) -> Self::Mask;
    /// `self > rhs`.
    fn cmpgt(self, rhs: Self) -> Self::Mask;
    /// `self >= rhs`.
    fn cmpge(self, rhs: Self) -> Self::Mask;
    /// `self == rhs`.
    fn cmpeq(self, rhs: Self) -> Self::Mask;
    /// The lanes that are neither infinite nor NaN.
    fn is_finite_mask(self) -> Self::Mask;
    /// Whether every lane of `mask` is set.
    fn all(mask: Self::Mask) -> bool;
}

impl Lanes for Vec4 {
    type Mask = BVec4A;

    #[inline(always)]
    fn splat(self, v: f32) -> Self {
        Vec4::splat(v)
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        Vec4::sqrt(self)
    }
    #[inline(always)]
    fn abs(self) -> Self {
        Vec4::abs(self)
    }
    #[inline(always)]
    fn trunc(self) -> Self {
        Vec4::trunc(self)
    }
    #[inline(always)]
    fn floor(self) -> Self {
        Vec4::floor(self)
    }
    #[inline(always)]
    fn select(mask: BVec4A, if_true: Self, if_false: Self) -> Self {
        Vec4::select(mask, if_true, if_false)
    }
    #[inline(always)]
    fn cmplt(self, rhs: Self) -> BVec4A {
        Vec4::cmplt(self, rhs)
    }
    #[inline(always)]
    fn cmple(self, rhs: Self) -> BVec4A {
        Vec4::cmple(self, rhs)
    }
    #[inline(always)]
    fn cmpgt(self, rhs: Self) -> BVec4A {
        Vec4::cmpgt(self, rhs)
    }
    #[inline(always)]
    fn cmpge(self, rhs: Self) -> BVec4A {
        Vec4::cmpge(self, rhs)
    }
    #[inline(always)]
    fn cmpeq(self, rhs: Self) -> BVec4A {
        Vec4::cmpeq(self, rhs)
    }
    #[inline(always)]
    fn is_finite_mask(self) -> BVec4A {
        Vec4::is_finite_mask(self)
    }
    #[inline(always)]
    fn all(mask: BVec4A) -> bool {
        mask.all()
    }
}
