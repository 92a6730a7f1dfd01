//! The vector a rule is written over: [`Vec2`] for schools on a plane,
//! [`Vec3`] for schools in a volume.
//!
//! Every method forwards to the `glam` method of the same name, so a rule
//! written over [`Vector`] and used with [`Vec2`] performs exactly the
//! operations it performed when it was written for [`Vec2`] alone: the same
//! bits, which is what keeps two-dimensional runs identical to their
//! recorded hashes.

use core::fmt::Debug;
use core::ops::{Add, AddAssign, Div, Mul, MulAssign, Neg, Sub, SubAssign};

use glam::{Vec2, Vec3};

/// A position, velocity or force in two or three dimensions.
pub trait Vector:
    Copy
    + Debug
    + Default
    + PartialEq
    + Send
    + Sync
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Neg<Output = Self>
    + Mul<f32, Output = Self>
    + Div<f32, Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign<f32>
{
    /// The number of axes (2 or 3).
    const DIM: usize;
    /// The zero vector.
    const ZERO: Self;
    /// The unit vector along the first axis: the direction of last resort
    /// when no other direction is defined.
    const X: Self;
    /// The default tank's size along each axis.
    const TANK: Self;

    /// The component along axis `i` (`0..DIM`).
    fn axis(self, i: usize) -> f32;
    /// A vector built from its components, axis by axis.
    fn from_fn(f: impl FnMut(usize) -> f32) -> Self;
    /// All components equal to `v`.
    fn splat(v: f32) -> Self;
    /// The dot product.
    fn dot(self, other: Self) -> f32;
    /// The length.
    fn length(self) -> f32;
    /// The squared length.
    fn length_squared(self) -> f32;
    /// The squared distance to `other`.
    fn distance_squared(self, other: Self) -> f32;
    /// The unit vector along `self`, or zero when that is not defined.
    fn normalize_or_zero(self) -> Self;
    /// The unit vector along `self`, or `None` when that is not defined.
    fn try_normalize(self) -> Option<Self>;
    /// Whether any component is NaN.
    fn is_nan(self) -> bool;
    /// Whether every component is finite.
    fn is_finite(self) -> bool;
    /// The largest component.
    fn max_element(self) -> f32;
    /// The smallest component.
    fn min_element(self) -> f32;
    /// The component-wise absolute value.
    fn abs(self) -> Self;
    /// Each component multiplied by the same component of `other`.
    fn scale_by(self, other: Self) -> Self;
    /// The component-wise minimum.
    fn min(self, other: Self) -> Self;
    /// The component-wise maximum.
    fn max(self, other: Self) -> Self;
    /// The cross product `self × other` as a vector of the volume: on a
    /// plane it points along z, its length the perpendicular dot product.
    fn cross3(self, other: Self) -> Vec3;
    /// The product of the components: an area on a plane, a volume in a
    /// volume.
    fn product(self) -> f32;
}

/// What both implementations share: indexing, splatting, the
/// component-wise product, and the methods that forward to `glam`'s own.
macro_rules! glam_vector {
    () => {
        #[inline(always)]
        fn axis(self, i: usize) -> f32 {
            self[i]
        }
        #[inline(always)]
        fn splat(v: f32) -> Self {
            Self::splat(v)
        }
        #[inline(always)]
        fn scale_by(self, other: Self) -> Self {
            self * other
        }
        glam_vector! {
            dot(other: Self) -> f32;
            length() -> f32;
            length_squared() -> f32;
            distance_squared(other: Self) -> f32;
            normalize_or_zero() -> Self;
            try_normalize() -> Option<Self>;
            is_nan() -> bool;
            is_finite() -> bool;
            max_element() -> f32;
            min_element() -> f32;
            abs() -> Self;
            min(other: Self) -> Self;
            max(other: Self) -> Self;
        }
    };
    ($($method:ident($($arg:ident: $ty:ty),*) -> $ret:ty;)*) => {
        $(#[inline(always)]
        fn $method(self $(, $arg: $ty)*) -> $ret {
            Self::$method(self $(, $arg)*)
        })*
    };
}

impl Vector for Vec2 {
    const DIM: usize = 2;
    const ZERO: Self = Vec2::ZERO;
    const X: Self = Vec2::X;
    const TANK: Self = Vec2::new(1280.0, 720.0);

    #[inline(always)]
    fn from_fn(mut f: impl FnMut(usize) -> f32) -> Self {
        Vec2::new(f(0), f(1))
    }
    #[inline(always)]
    fn product(self) -> f32 {
        self.x * self.y
    }
    #[inline(always)]
    fn cross3(self, other: Self) -> Vec3 {
        Vec3::new(0.0, 0.0, self.perp_dot(other))
    }
    glam_vector!();
}

impl Vector for Vec3 {
    const DIM: usize = 3;
    const ZERO: Self = Vec3::ZERO;
    const X: Self = Vec3::X;
    const TANK: Self = Vec3::new(1280.0, 720.0, 720.0);

    #[inline(always)]
    fn from_fn(mut f: impl FnMut(usize) -> f32) -> Self {
        Vec3::new(f(0), f(1), f(2))
    }
    #[inline(always)]
    fn product(self) -> f32 {
        self.x * self.y * self.z
    }
    #[inline(always)]
    fn cross3(self, other: Self) -> Vec3 {
        self.cross(other)
    }
    glam_vector!();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<V: Vector>() {
        let v = V::from_fn(|i| i as f32 + 1.0);
        for i in 0..V::DIM {
            assert_eq!(v.axis(i), i as f32 + 1.0);
        }
        assert_eq!(V::ZERO.try_normalize(), None);
        assert_eq!(V::X.length(), 1.0);
    }

    #[test]
    fn both_dimensions_build_and_read_their_axes() {
        round_trip::<Vec2>();
        round_trip::<Vec3>();
    }
}
