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

use glam::{Vec2, Vec3, Vec4, Vec4Swizzles};

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
    /// Where a [`Vector::Record`]'s velocity starts: which of its
    /// [`Vector::record_vectors`], and which lane of it.
    const VELOCITY_AT: [usize; 2];

    /// A fish's position and velocity packed for the neighbour scans, whole
    /// vectors of four lanes: `[x, y, vx, vy]` on a plane (one load per
    /// candidate), `[x, y, z, 0]` then `[vx, vy, vz, 0]` in a volume.
    type Record: Copy + Debug + Default + PartialEq + Send + Sync + 'static;

    /// The circle of directions a fish's wander turns round: on a plane the
    /// plane's own (nothing to store), in a volume a great circle of the
    /// unit sphere, as two orthonormal axes.
    type Circle: Copy + Debug + Default + PartialEq + Send + Sync + 'static;

    /// The direction at the angle whose sine and cosine are `sin` and
    /// `cos` on `circle`: `(cos, sin)` on a plane, `u·cos + v·sin` for a
    /// volume's circle `[u, v]`.
    fn on_circle(circle: &Self::Circle, sin: f32, cos: f32) -> Self;
    /// [`Vector::on_circle`] for four fish in vector lanes, axis by axis
    /// (the axes past [`Vector::DIM`] zero): the same bits lane by lane.
    fn on_circles(circles: &[Self::Circle; 4], sin: Vec4, cos: Vec4) -> [Vec4; 3];
    /// The great circle round the unit vector `axis` (on a plane, the
    /// plane's).
    fn circle_around(axis: Self) -> Self::Circle;
    /// The unit vector at azimuth `angle` (radians, counter-clockwise from
    /// +x about the last axis) and, in a volume, height `z` in `[-1, 1]`
    /// along z: drawn with `angle` uniform over a turn and `z` uniform, an
    /// even direction of the sphere (Archimedes). A plane reads only
    /// `angle`.
    fn unit_at(angle: f32, z: f32) -> Self;

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

    /// `position` and `velocity` packed into a record.
    fn pack(position: Self, velocity: Self) -> Self::Record;
    /// The record as vectors of four lanes: the position's first (axis `i`
    /// in lane `i`), the velocity's at [`Vector::VELOCITY_AT`] (on a plane
    /// both are the one vector).
    fn record_vectors(record: &Self::Record) -> [Vec4; 2];

    /// The position of a record.
    #[inline(always)]
    fn record_position(record: &Self::Record) -> Self {
        Self::from_fn(|i| record_position_axis::<Self>(record, i))
    }
    /// The velocity of a record.
    #[inline(always)]
    fn record_velocity(record: &Self::Record) -> Self {
        Self::from_fn(|i| record_velocity_axis::<Self>(record, i))
    }
}

/// Axis `i` of a record's position.
#[inline(always)]
pub(crate) fn record_position_axis<V: Vector>(record: &V::Record, i: usize) -> f32 {
    lane(V::record_vectors(record)[0], i)
}

/// Axis `i` of a record's velocity.
#[inline(always)]
pub(crate) fn record_velocity_axis<V: Vector>(record: &V::Record, i: usize) -> f32 {
    let [vector, first] = V::VELOCITY_AT;
    lane(V::record_vectors(record)[vector], first + i)
}

/// Lane `l` of `v` (a constant once inlined: one shuffle, no store).
#[inline(always)]
fn lane(v: Vec4, l: usize) -> f32 {
    match l {
        0 => v.x,
        1 => v.y,
        2 => v.z,
        _ => v.w,
    }
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
    const VELOCITY_AT: [usize; 2] = [0, 2];
    type Record = Vec4;
    type Circle = ();

    #[inline(always)]
    fn on_circle((): &(), sin: f32, cos: f32) -> Self {
        Vec2::new(cos, sin)
    }
    #[inline(always)]
    fn on_circles(_: &[(); 4], sin: Vec4, cos: Vec4) -> [Vec4; 3] {
        [cos, sin, Vec4::ZERO]
    }
    #[inline(always)]
    fn circle_around(_: Self) {}
    #[inline(always)]
    fn unit_at(angle: f32, _z: f32) -> Self {
        crate::math::angle::unit(angle)
    }

    #[inline(always)]
    fn from_fn(mut f: impl FnMut(usize) -> f32) -> Self {
        Vec2::new(f(0), f(1))
    }
    #[inline(always)]
    fn pack(position: Self, velocity: Self) -> Vec4 {
        Vec4::new(position.x, position.y, velocity.x, velocity.y)
    }
    #[inline(always)]
    fn record_vectors(record: &Vec4) -> [Vec4; 2] {
        [*record; 2]
    }
    #[inline(always)]
    fn record_position(record: &Vec4) -> Self {
        record.xy()
    }
    #[inline(always)]
    fn record_velocity(record: &Vec4) -> Self {
        record.zw()
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
    const VELOCITY_AT: [usize; 2] = [1, 0];
    type Record = [Vec4; 2];
    type Circle = [Vec3; 2];

    #[inline(always)]
    fn on_circle([u, v]: &[Vec3; 2], sin: f32, cos: f32) -> Self {
        *u * cos + *v * sin
    }
    #[inline(always)]
    fn on_circles(circles: &[[Vec3; 2]; 4], sin: Vec4, cos: Vec4) -> [Vec4; 3] {
        let mut axes = [Vec4::ZERO; 3];
        for (i, axis) in axes.iter_mut().enumerate() {
            let u = Vec4::new(circles[0][0][i], circles[1][0][i], circles[2][0][i], circles[3][0][i]);
            let v = Vec4::new(circles[0][1][i], circles[1][1][i], circles[2][1][i], circles[3][1][i]);
            *axis = u * cos + v * sin;
        }
        axes
    }
    #[inline(always)]
    fn circle_around(axis: Self) -> [Vec3; 2] {
        // Any unit vector square to the axis, then the third of the frame;
        // a helper axis far from `axis` keeps the cross product long.
        let helper = if axis.x.abs() < 0.9 { Vec3::X } else { Vec3::Y };
        let u = axis.cross(helper).try_normalize().unwrap_or(Vec3::Y);
        let v = axis.cross(u).try_normalize().unwrap_or(Vec3::Z);
        [u, v]
    }
    #[inline(always)]
    fn unit_at(angle: f32, z: f32) -> Self {
        // A height that is not a number counts as the equator.
        let z = if z.is_nan() { 0.0 } else { z.clamp(-1.0, 1.0) };
        let (s, c) = crate::math::angle::sin_cos(angle);
        let r = (1.0 - z * z).max(0.0).sqrt();
        Vec3::new(r * c, r * s, z)
    }

    #[inline(always)]
    fn from_fn(mut f: impl FnMut(usize) -> f32) -> Self {
        Vec3::new(f(0), f(1), f(2))
    }
    #[inline(always)]
    fn pack(position: Self, velocity: Self) -> [Vec4; 2] {
        [position.extend(0.0), velocity.extend(0.0)]
    }
    #[inline(always)]
    fn record_vectors(record: &[Vec4; 2]) -> [Vec4; 2] {
        *record
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
        let w = V::from_fn(|i| -(i as f32) - 10.0);
        let record = V::pack(v, w);
        assert_eq!((V::record_position(&record), V::record_velocity(&record)), (v, w));
        for i in 0..V::DIM {
            assert_eq!(record_position_axis::<V>(&record, i), v.axis(i));
            assert_eq!(record_velocity_axis::<V>(&record, i), w.axis(i));
        }
    }

    #[test]
    fn both_dimensions_build_and_read_their_axes() {
        round_trip::<Vec2>();
        round_trip::<Vec3>();
    }

    /// Every direction `unit_at` gives is a unit vector, whatever it is
    /// given, and the circle round it is two unit axes square to it and to
    /// each other, on which every point is a unit vector again.
    #[test]
    fn unit_directions_and_their_circles_are_orthonormal() {
        let odd = [f32::NAN, f32::INFINITY, -f32::INFINITY, 1.0e30, -1.0, 1.0, 0.0];
        let angles = (-40..40).map(|i| i as f32 * 0.17).chain(odd);
        for angle in angles {
            for z in (-11..=11).map(|i| i as f32 / 10.0).chain(odd) {
                let axis = Vec3::unit_at(angle, z);
                assert!((axis.length() - 1.0).abs() < 1.0e-5, "{angle} {z}: {axis}");
                let [u, v] = Vec3::circle_around(axis);
                for (a, b) in [(u, axis), (v, axis), (u, v)] {
                    assert!(a.dot(b).abs() < 1.0e-5 && (a.length() - 1.0).abs() < 1.0e-5, "{axis}: {u} {v}");
                }
                let (s, c) = crate::math::angle::sin_cos(angle);
                assert!((Vec3::on_circle(&[u, v], s, c).length() - 1.0).abs() < 1.0e-5);
            }
            assert_eq!(Vec2::unit_at(angle, 0.5), crate::math::angle::unit(angle));
        }
    }
}
