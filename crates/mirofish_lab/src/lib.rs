//! Headless MiroFish experiments: the library behind the
//! `mirofish-lab` command.
//!
//! - [`experiment`]: run a configuration for a number of ticks, sample its
//!   metrics, summarize them (mean, variance, autocorrelation time) and
//!   write the results to a directory.
//! - [`volume`]: the same for a run in a volume (a `VolumeConfig`).
//! - [`sweep`]: vary one parameter over a range with several seeds and plot
//!   an order parameter against it.
//! - [`baseline`]: a stored summary of a fixed run and the check that a new
//!   build still lands inside its tolerance bands.
//! - [`collective`]: Couzin's collective states — the zone model swept
//!   through its orientation zone's width, up and then down.
//! - [`schools`]: whether the standard runs hold as schools — how often
//!   each health measure lies inside the natural and acceptable bands.
//! - [`turn`]: turn response — how fast a turn of the school's front
//!   travels through it.
//! - [`out_dir`]: a results folder that is removed again if a run fails.
//!
//! ```
//! use mirofish_lab::experiment::{Experiment, summarize};
//! use mirofish_sim::ExperimentConfig;
//!
//! let config = ExperimentConfig { fish: 100, metrics_every: 10, ..ExperimentConfig::default() };
//! let log = Experiment::new(config, 120, 60).run(|_| {})?;
//! let summary = summarize(&log, 60);
//! let polarization = summary.metric("polarization").unwrap();
//! assert_eq!(polarization.summary.samples, 7); // ticks 60, 70, …, 120
//! # Ok::<(), mirofish_lab::Error>(())
//! ```

pub mod baseline;
pub mod collective;
pub mod experiment;
pub mod out_dir;
pub mod plot;
pub mod schools;
pub mod sweep;
pub mod turn;
pub mod volume;

/// Errors of the lab: a bad configuration, a refused command, a file that
/// could not be written.
pub type Error = Box<dyn std::error::Error + Send + Sync>;

/// Reads a text file the lab was given (a script, a baseline), no larger
/// than a configuration may be; the limit holds while reading, so a device
/// or a pipe is refused too.
///
/// # Errors
///
/// The file's name with what is wrong: unreadable, too large, not UTF-8.
pub fn read_text(path: &std::path::Path) -> Result<String, Error> {
    let limit = mirofish_sim::control::replay::MAX_FILE_BYTES;
    let bytes = mirofish_sim::control::config::read_bounded(path, limit)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .ok_or_else(|| {
            format!("{}: more than the {limit} bytes a file of the lab may have", path.display())
        })?;
    Ok(String::from_utf8(bytes).map_err(|_| format!("{}: not UTF-8 text", path.display()))?)
}
