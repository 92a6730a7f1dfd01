//! Four fish at once: a *quartet*, four fish in a row of the sorted
//! snapshot (from a multiple of four), one fish per vector lane. The
//! engine's force pass scans each quartet's neighbourhoods once
//! (`hoods.rs`, `scan.rs`) and evaluates their rules in lanes; this module
//! holds what the AVX2 build adds (four cells found at once, two quartets'
//! rules eight lanes wide: [`avx2`]) and the plane's sampling budget.
//!
//! Each lane adds its candidates one at a time, in ascending sorted order,
//! and a candidate outside its perception radius adds exact zeros: a lane's
//! sums do not depend on which superset of its neighbours was walked. The
//! grid and brute force therefore agree to the bit, and so do all thread
//! counts (quartets are fixed by sorted index).

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2;

/// Most candidates one stratum of a thinned scan looks at on a plane: its
/// share of the budget for the widest stretch a quartet walks, and one
/// more per run for the strides' rounding.
pub(crate) const PLANE_SAMPLE: usize = 96;
