//! The regression baseline: the current build must land inside the
//! stored bands. If a change is meant to alter behaviour, re-measure with
//! `cargo run --release -p mirofish_lab -- baseline --update` and commit the
//! new file with the reason.

use std::path::PathBuf;

use mirofish_lab::baseline::Baseline;

fn stored() -> Baseline {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../assets/baselines/reference.ron");
    Baseline::load(&path).unwrap()
}

#[test]
fn the_reference_run_stays_inside_its_baseline() {
    let baseline = stored();
    assert_eq!(baseline.bands.len(), mirofish_lab::baseline::GUARDED.len());
    let violations = baseline.check().unwrap();
    let text: Vec<String> = violations.iter().map(ToString::to_string).collect();
    assert!(violations.is_empty(), "outside the baseline:\n{}", text.join("\n"));
}

#[test]
fn a_shifted_band_is_reported() {
    let mut baseline = stored();
    baseline.seeds.truncate(2);
    baseline.ticks = 900;
    let band = baseline.bands.iter_mut().find(|b| b.metric == "mean_speed").unwrap();
    band.mean += 50.0;
    band.tolerance = 1.0;
    let violations = baseline.check().unwrap();
    assert!(violations.iter().any(|v| v.metric == "mean_speed"), "{violations:?}");
    assert!(violations[0].to_string().contains("outside"), "{}", violations[0]);
}

#[test]
fn the_volume_run_stays_inside_its_baseline_and_a_shift_is_reported() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../assets/baselines/volume.ron");
    let mut baseline = Baseline::load(&path).unwrap();
    assert!(baseline.volume.is_some());
    assert_eq!(baseline.bands.len(), mirofish_lab::baseline::GUARDED_VOLUME.len());
    let violations = baseline.check().unwrap();
    let text: Vec<String> = violations.iter().map(ToString::to_string).collect();
    assert!(violations.is_empty(), "outside the baseline:\n{}", text.join("\n"));
    let band = baseline.bands.iter_mut().find(|b| b.metric == "milling").unwrap();
    band.mean += 0.5;
    band.tolerance = 0.01;
    baseline.seeds.truncate(2);
    baseline.ticks = 900;
    let violations = baseline.check().unwrap();
    assert!(violations.iter().any(|v| v.metric == "milling"), "{violations:?}");
}
