//! The cube root with the same bits on every platform.
//!
//! `f32::cbrt` and `f32::powf` call the platform's C library, whose last
//! bits differ between platforms; the square root is IEEE arithmetic and
//! needs nothing here.

/// `∛x`, from IEEE arithmetic alone: Newton's steps in `f64` on the
/// mantissa, scaled back by an exact power of two, rounded once to `f32`
/// (correctly rounded but for rare ties). Odd: `∛-x = -∛x`; `±0`, `±∞`
/// and NaN are returned as they are.
pub fn cbrt(x: f32) -> f32 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let (sign, x) = (x.signum(), f64::from(x.abs()));
    // x = m × 8^e with m in [1, 8): ∛x = ∛m × 2^e.
    let e = (x.log2_exact_floor() as i64).div_euclid(3);
    let m = x / pow2(3 * e);
    // Newton's steps on t³ = m fall monotonically to the root from any
    // start above it; 2 is above ∛m for m < 8.
    let mut t = 2.0f64;
    for _ in 0..64 {
        let next = t - (t * t * t - m) / (3.0 * t * t);
        if next >= t {
            break;
        }
        t = next;
    }
    sign * (t * pow2(e)) as f32
}

/// `2^k` as an `f64`, exactly (`k` within the normal exponents).
fn pow2(k: i64) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// The floor of the base-2 logarithm of a positive, finite `f64`, read
/// from its bits (subnormals: from their leading bit).
trait Log2Floor {
    fn log2_exact_floor(self) -> i32;
}

impl Log2Floor for f64 {
    fn log2_exact_floor(self) -> i32 {
        let bits = self.to_bits();
        let exponent = ((bits >> 52) & 0x7ff) as i32;
        if exponent == 0 {
            // Subnormal: 2^-1074 times the mantissa.
            63 - (bits & ((1 << 52) - 1)).leading_zeros() as i32 - 1074
        } else {
            exponent - 1023
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_true_root_rounded() {
        let mut x = 1.0e-30f32;
        while x < 1.0e30 {
            let (got, want) = (f64::from(cbrt(x)), f64::from(x).cbrt());
            assert!((got - want).abs() <= want * 1.2e-7, "∛{x}: {got} against {want}");
            assert_eq!(cbrt(-x), -cbrt(x));
            x *= 1.37;
        }
        for k in 0..=100_000u32 {
            let u = k as f32 / 100_000.0;
            let (got, want) = (f64::from(cbrt(u)), f64::from(u).cbrt());
            assert!((got - want).abs() <= want * 1.2e-7, "∛{u}: {got} against {want}");
        }
        assert_eq!((cbrt(0.125), cbrt(1.0), cbrt(27.0), cbrt(-8.0)), (0.5, 1.0, 3.0, -2.0));
        assert_eq!(cbrt(f32::INFINITY), f32::INFINITY);
        assert!(cbrt(f32::NAN).is_nan());
        assert_eq!(cbrt(-0.0).to_bits(), (-0.0f32).to_bits());
        assert!(cbrt(f32::MIN_POSITIVE / 8.0) > 0.0);
    }
}
