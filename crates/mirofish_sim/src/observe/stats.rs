//! Summary statistics of a metric series: mean, variance and the integrated
//! autocorrelation time, which says how many samples are one independent
//! measurement (a school's polarization drifts slowly, so consecutive
//! samples are far from independent).

/// The median of `samples` (the upper of the two middle ones for an even
/// count; 0 for none): what the measuring binaries report of repeated
/// timings. Values that are not numbers sort last.
pub fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples.get(samples.len() / 2).copied().unwrap_or(0.0)
}

/// Mean, variance and autocorrelation time of one series.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Summary {
    /// Number of samples.
    pub samples: usize,
    /// Arithmetic mean; 0 for an empty series.
    pub mean: f64,
    /// Unbiased sample variance; 0 for fewer than two samples.
    pub variance: f64,
    /// Integrated autocorrelation time in samples, `1 + 2 Σ ρ(k)`, summed up
    /// to Sokal's self-consistent window (the first `M ≥ 5 τ(M)`). 1 means
    /// uncorrelated samples; a constant series gives 1 as well.
    pub autocorrelation: f64,
}

impl Summary {
    /// Summarizes a series. Non-finite values are never produced: every
    /// division is guarded.
    pub fn of(series: &[f64]) -> Self {
        let n = series.len();
        if n == 0 {
            return Self::default();
        }
        let mean = series.iter().sum::<f64>() / n as f64;
        let sum_sq: f64 = series.iter().map(|x| (x - mean) * (x - mean)).sum();
        let variance = if n > 1 { sum_sq / (n - 1) as f64 } else { 0.0 };
        Self { samples: n, mean, variance, autocorrelation: autocorrelation_time(series, mean, sum_sq) }
    }

    /// Standard error of the mean, corrected for autocorrelation:
    /// `sqrt(variance × τ / n)`.
    pub fn standard_error(&self) -> f64 {
        if self.samples == 0 {
            return 0.0;
        }
        (self.variance * self.autocorrelation / self.samples as f64).sqrt()
    }
}

/// `1 + 2 Σ_{k=1}^{M} ρ(k)` with Sokal's window; 1 for a constant series.
fn autocorrelation_time(series: &[f64], mean: f64, sum_sq: f64) -> f64 {
    let n = series.len();
    if n < 2 || sum_sq <= f64::EPSILON * n as f64 * mean.abs().max(1.0) {
        return 1.0;
    }
    let mut tau = 1.0;
    for k in 1..n {
        let c: f64 = series[..n - k].iter().zip(&series[k..]).map(|(a, b)| (a - mean) * (b - mean)).sum();
        tau += 2.0 * c / sum_sq;
        if k as f64 >= 5.0 * tau {
            break;
        }
    }
    // A noisy estimate can dip below 1 (anticorrelated samples); below that
    // the "independent samples" reading stops meaning anything.
    tau.max(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_is_the_middle_sample() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 3.0, 2.0]), 3.0);
        assert_eq!(median(Vec::new()), 0.0);
        assert_eq!(median(vec![f64::NAN, 1.0, 2.0]), 2.0);
    }

    #[test]
    fn mean_and_variance() {
        let s = Summary::of(&[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(s.samples, 4);
        assert!((s.mean - 2.5).abs() < 1e-12);
        assert!((s.variance - 5.0 / 3.0).abs() < 1e-12);
        assert_eq!(Summary::of(&[]), Summary::default());
        let one = Summary::of(&[7.0]);
        assert_eq!((one.mean, one.variance, one.autocorrelation), (7.0, 0.0, 1.0));
        assert_eq!(Summary::of(&[3.0; 50]).autocorrelation, 1.0);
    }

    #[test]
    fn white_noise_is_uncorrelated_and_a_slow_series_is_not() {
        // A deterministic pseudo-random sequence: τ ≈ 1.
        let mut x = 0x1234_5678_u64;
        let noise: Vec<f64> = (0..4000)
            .map(|_| {
                x += 1;
                (crate::rules::noise::mix64(x) >> 11) as f64 / (1u64 << 53) as f64
            })
            .collect();
        let tau = Summary::of(&noise).autocorrelation;
        assert!(tau < 1.5, "{tau}");
        // An AR(1) process with ρ = 0.9 has τ = (1 + ρ) / (1 − ρ) = 19.
        let mut y = 0.0;
        let ar: Vec<f64> = noise
            .iter()
            .map(|e| {
                y = 0.9 * y + (e - 0.5);
                y
            })
            .collect();
        let tau = Summary::of(&ar).autocorrelation;
        assert!((12.0..28.0).contains(&tau), "{tau}");
    }
}
