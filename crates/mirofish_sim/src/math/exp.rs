//! `e^x` with the same bits on every platform.
//!
//! The standard library's `f32::exp` calls the platform's C library (glibc,
//! the Windows CRT, the WebAssembly port of musl), whose last bits differ
//! between them; a tick that used it could drift between two players'
//! machines. This one is computed in `f64` from additions,
//! multiplications and an exact scaling by a power of two, each rounded
//! the IEEE way on every processor, then rounded once to `f32`.

/// `e^x`, correctly rounded but for rare halfway cases (within 1 ulp in
/// any case); `0` below about -103.9, `+∞` above about 88.7, NaN for NaN.
pub fn exp(x: f32) -> f32 {
    if x.is_nan() {
        return x;
    }
    if x > 88.8 {
        return f32::INFINITY;
    }
    if x < -104.0 {
        return 0.0;
    }
    // x = k ln 2 + r with |r| ≤ ln 2 / 2: e^x = 2^k e^r. `ln 2` in two
    // parts, the first with few enough bits that `k × LN2_HI` is exact.
    const LN2_HI: f64 = 0.693_147_180_369_123_8;
    const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
    let x = f64::from(x);
    let k = (x * core::f64::consts::LOG2_E).round();
    let r = (x - k * LN2_HI) - k * LN2_LO;
    // Taylor to r^11 / 11!: below 1e-16 relative for |r| ≤ 0.35.
    let mut sum = 1.0;
    let mut term = 1.0;
    for n in 1..=11 {
        term *= r / f64::from(n);
        sum += term;
    }
    // 2^k as an `f64` built from its bits (k lies within ±151).
    let scale = f64::from_bits(((k as i64 + 1023) as u64) << 52);
    (sum * scale) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_true_value_to_the_last_bit_but_for_ties() {
        let mut off = 0;
        let mut tried = 0;
        for i in -1_000_000..=1_000_000 {
            let x = i as f32 * 8.7e-5;
            let got = exp(x);
            let want = f64::from(x).exp();
            let ulp = f64::from(got.next_up() - got);
            let error = (f64::from(got) - want).abs() / ulp;
            assert!(error <= 1.0, "exp({x}) = {got}, true {want}: {error} ulp");
            off += usize::from(error > 0.5);
            tried += 1;
        }
        assert!(off * 10_000 < tried, "{off} of {tried} not correctly rounded");
    }

    #[test]
    fn the_ends() {
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(exp(-0.0), 1.0);
        assert_eq!(exp(1.0), core::f32::consts::E);
        assert_eq!(exp(f32::NEG_INFINITY), 0.0);
        assert_eq!(exp(-200.0), 0.0);
        assert_eq!(exp(f32::INFINITY), f32::INFINITY);
        assert_eq!(exp(100.0), f32::INFINITY);
        assert!(exp(f32::NAN).is_nan());
        assert!(exp(88.7).is_finite() && exp(-103.0) > 0.0);
    }
}
