//! The `mirofish-lab` command end to end: files written, errors refused with
//! a message and a failing exit code, preset files in sync with the code.

use std::path::{Path, PathBuf};
use std::process::Command;

use mirofish_sim::{ExperimentConfig, Preset};

fn lab(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mirofish-lab")).args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mirofish-lab-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn run_writes_its_results_and_the_replay_checks_out() {
    let out = scratch("run");
    let script = out.with_extension("commands.ron");
    std::fs::write(
        &script,
        "[(tick: 20, command: AddPredator((position: (0.0, 0.0), velocity: (0.0, 0.0), \
         fear_radius: 90.0, max_speed: 200.0, max_force: 400.0, chase: true))),\
         (tick: 40, command: SpawnFish(count: 10, centre: (100.0, 0.0), radius: 30.0))]",
    )
    .unwrap();
    let (ok, stdout, stderr) = lab(&[
        "run",
        "--preset",
        "gentle-cruise",
        "--seed",
        "5",
        "--ticks",
        "90",
        "--warmup",
        "30",
        "--every",
        "15",
        "--commands",
        script.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{stdout}\n{stderr}");
    for file in ["config.ron", "metrics.csv", "summary.csv", "summary.ron", "run.replay"] {
        assert!(out.join(file).is_file(), "{file} missing");
    }
    let config = ExperimentConfig::load(out.join("config.ron")).unwrap();
    assert_eq!((config.seed, config.metrics_every, config.fish), (5, 15, 200));
    let csv = std::fs::read_to_string(out.join("metrics.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 7, "header + ticks 0, 15, …, 90");
    assert!(csv.lines().last().unwrap().starts_with("90,210,"), "{csv}");
    let (ok, stdout, stderr) = lab(&["replay", out.join("run.replay").to_str().unwrap()]);
    assert!(ok && stdout.contains("2 commands"), "{stdout}\n{stderr}");
    // The same recording with its checkpoints removed, or cut to tick 0,
    // verifies nothing: it fails, saying so.
    let mut recording = mirofish_sim::Recording::load(out.join("run.replay")).unwrap();
    for keep in [0, 1] {
        recording.checkpoints.truncate(keep);
        let stripped = out.join("stripped.replay");
        std::fs::write(&stripped, recording.to_text()).unwrap();
        let (ok, _, stderr) = lab(&["replay", stripped.to_str().unwrap()]);
        assert!(!ok && stderr.contains("cannot be verified"), "{stderr}");
    }
    // A device reports no size and never ends: refused while reading.
    if std::path::Path::new("/dev/zero").exists() {
        let (ok, _, stderr) = lab(&["replay", "/dev/zero"]);
        assert!(!ok && stderr.contains("too large"), "{stderr}");
    }
    std::fs::remove_dir_all(&out).unwrap();
    std::fs::remove_file(&script).unwrap();
}

#[test]
fn bad_input_fails_with_a_message() {
    let out = scratch("bad");
    let bad = out.with_extension("bad.ron");
    std::fs::write(&bad, "(params: (cohesion_weight: inf))").unwrap();
    let (ok, _, stderr) = lab(&["run", "--config", bad.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(!ok && stderr.contains("params.cohesion_weight"), "{stderr}");
    let (ok, _, stderr) = lab(&["run", "--preset", "sardine", "--out", out.to_str().unwrap()]);
    assert!(!ok && stderr.contains("unknown preset `sardine`"), "{stderr}");
    let (ok, _, stderr) = lab(&["sweep", "--param", "speed", "--out", out.to_str().unwrap()]);
    assert!(!ok && stderr.contains("unknown parameter `speed`"), "{stderr}");
    std::fs::write(&bad, "not a replay").unwrap();
    let (ok, _, stderr) = lab(&["replay", bad.to_str().unwrap()]);
    assert!(!ok && stderr.contains("not a MiroFish replay"), "{stderr}");
    // A refused command in a script names the file, its place and its tick.
    let script = out.with_extension("script.ron");
    std::fs::write(
        &script,
        "[(tick: 5, command: RemoveFish(count: 3)), (tick: 9, command: SpawnFish(count: 10, centre: (0.0, 0.0), radius: -4.0))]",
    )
    .unwrap();
    let args =
        ["run", "--ticks", "20", "--commands", script.to_str().unwrap(), "--out", out.to_str().unwrap()];
    let (ok, _, stderr) = lab(&args);
    let named = stderr.contains("script.ron") && stderr.contains("command 1 (at tick 9)");
    assert!(!ok && named && stderr.contains("spawn.radius"), "{stderr}");
    std::fs::remove_file(&script).unwrap();
    assert!(!out.exists(), "nothing may be written for a refused run");
    std::fs::remove_file(&bad).unwrap();
}

/// Two rocks that each fit but cover the tank together: the run goes on
/// without the second, and the summary says it was left out and why.
#[test]
fn a_command_left_out_is_reported() {
    let out = scratch("left-out");
    let script = out.with_extension("rocks.ron");
    std::fs::write(
        &script,
        "[(tick: 3, command: AddObstacle((centre: (-320.0, 0.0), radius: 500.0))), \
          (tick: 3, command: AddObstacle((centre: (320.0, 0.0), radius: 500.0)))]",
    )
    .unwrap();
    let args = [
        "run",
        "--ticks",
        "10",
        "--warmup",
        "0",
        "--commands",
        script.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    let (ok, stdout, stderr) = lab(&args);
    assert!(ok, "{stdout}\n{stderr}");
    assert!(
        stdout.contains("commands left out (1):")
            && stdout.contains("tick 3: AddObstacle")
            && stdout.contains("leaves room"),
        "{stdout}"
    );
    std::fs::remove_file(&script).unwrap();
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn an_out_folder_that_cannot_be_made_leaves_nothing_behind() {
    let root = scratch("unmakeable");
    std::fs::create_dir_all(&root).unwrap();
    // The parents can be made, the last name cannot (too long).
    let out = root.join("runs/today").join("x".repeat(300));
    let args = ["run", "--preset", "reference", "--ticks", "5", "--out", out.to_str().unwrap()];
    let (ok, _, stderr) = lab(&args);
    assert!(!ok && stderr.contains("runs/today"), "{stderr}");
    assert!(!root.join("runs").exists(), "a parent folder was left behind");
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_small_sweep_writes_a_csv_and_a_png() {
    let out = scratch("sweep");
    let (ok, stdout, stderr) = lab(&[
        "sweep",
        "--fish",
        "60",
        "--steps",
        "3",
        "--seeds",
        "2",
        "--ticks",
        "60",
        "--warmup",
        "30",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{stdout}\n{stderr}");
    assert_eq!(std::fs::read_to_string(out.join("sweep.csv")).unwrap().lines().count(), 7);
    let png = std::fs::read(out.join("sweep.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert!(png.len() > 10_000, "a plot with axes, labels and lines: {} bytes", png.len());
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn preset_files_match_the_built_in_presets() {
    let dir = repo().join("assets/presets");
    for preset in Preset::all() {
        let path = dir.join(format!("{}.ron", preset.name));
        let loaded = ExperimentConfig::load(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            loaded,
            ExperimentConfig::from(&preset),
            "{} is stale: run `mirofish-lab presets`",
            path.display()
        );
    }
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), Preset::all().len());
    assert!(Path::new(&dir).join("reference.ron").is_file());
}

#[test]
fn a_decided_run_records_its_decisions_and_replays_without_the_decider() {
    let out = scratch("decide");
    let (ok, stdout, stderr) = lab(&[
        "run",
        "--preset",
        "compact-rush",
        "--ticks",
        "240",
        "--warmup",
        "0",
        "--decide",
        "rules",
        "--units",
        "20",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{stdout}\n{stderr}");
    assert!(stdout.contains("decisions: 20 "), "{stdout}");
    let recording = mirofish_sim::Recording::load(out.join("run.replay")).unwrap();
    let goals = recording
        .commands
        .iter()
        .filter(|c| matches!(c.command, mirofish_sim::FlockCommand::SetGroupGoal { goal: Some(_), .. }))
        .count();
    assert_eq!(goals, 20, "one goal per unit");
    let (ok, stdout, stderr) = lab(&["replay", out.join("run.replay").to_str().unwrap()]);
    assert!(ok && stdout.contains("checkpoints identical"), "{stdout}\n{stderr}");
    let (ok, _, stderr) = lab(&[
        "run",
        "--preset",
        "compact-rush",
        "--decide",
        "rules",
        "--units",
        "0",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!ok && stderr.contains("decision.units"), "{stderr}");
    std::fs::remove_dir_all(&out).unwrap();
}

/// The decision layer's settings from a file and from options: the
/// options win, a bad value is refused by field, and settings without
/// `--decide` are refused rather than ignored.
#[test]
fn the_decision_layer_is_set_from_a_file_and_options() {
    let out = scratch("decision-settings");
    std::fs::create_dir_all(&out).unwrap();
    let file = out.join("decision.ron");
    std::fs::write(&file, "(units: 6, timeout_ms: 800, follower_period: 900)").unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["run", "--preset", "compact-rush", "--ticks", "120", "--warmup", "0"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--out", out.to_str().unwrap()]);
        lab(&args)
    };
    let path = file.to_str().unwrap();
    let (ok, stdout, stderr) = run(&["--decide", "rules", "--decision", path]);
    assert!(ok && stdout.contains("decisions: 6 "), "{stdout}\n{stderr}");
    let (ok, stdout, stderr) =
        run(&["--decide", "rules", "--decision", path, "--units", "9", "--decide-workers", "2"]);
    assert!(ok && stdout.contains("decisions: 9 "), "the option wins over the file: {stdout}\n{stderr}");
    let (ok, _, stderr) = run(&["--decide", "rules", "--decision", path, "--decide-workers", "0"]);
    assert!(!ok && stderr.contains("decision.workers"), "{stderr}");
    let (ok, _, stderr) = run(&["--decide", "rules", "--tokens-per-hour", "0"]);
    assert!(!ok && stderr.contains("decision.tokens_per_hour"), "{stderr}");
    let (ok, stdout, stderr) = run(&["--decide", "rules", "--decision", path, "--requests-per-minute", "30"]);
    assert!(ok && stdout.contains("0 over budget"), "the rules ask no server: {stdout}\n{stderr}");
    std::fs::write(&file, "(units: 6, speed: 3)").unwrap();
    let (ok, _, stderr) = run(&["--decide", "rules", "--decision", path]);
    assert!(!ok && stderr.contains("decision.ron") && stderr.contains("speed"), "{stderr}");
    let (ok, _, stderr) = run(&["--units", "6"]);
    assert!(!ok && stderr.contains("need --decide"), "{stderr}");
    // Paced: 120 ticks of 1/60 s take at least two seconds of wall clock.
    let clock = std::time::Instant::now();
    let (ok, stdout, stderr) = run(&["--decide", "rules", "--realtime"]);
    assert!(ok, "{stdout}\n{stderr}");
    assert!(clock.elapsed() >= std::time::Duration::from_millis(1950), "{:?}", clock.elapsed());
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn a_volume_run_writes_its_results_and_its_replay_checks_out() {
    let out = scratch("volume");
    let script = out.with_extension("commands.ron");
    std::fs::write(
        &script,
        "[(tick: 20, command: AddPredator((position: (0.0, 0.0, 0.0), velocity: (0.0, 0.0, 0.0), \
         fear_radius: 90.0, max_speed: 200.0, max_force: 400.0, chase: true))),\
         (tick: 30, command: SetParams(school: 1, params: (max_speed: 140.0))),\
         (tick: 40, command: SpawnFish(school: 1, count: 10, centre: (100.0, 0.0, 50.0), radius: 30.0))]",
    )
    .unwrap();
    // (`SetParams(school: …)` is a school's parameters in an earlier
    // build's words: still read.)
    // `run` reads the space from the file: its vectors have three coordinates.
    let scene = repo().join("assets/scenes/volume.ron");
    let (ok, stdout, stderr) = lab(&[
        "run",
        "--config",
        scene.to_str().unwrap(),
        "--fish",
        "300",
        "--ticks",
        "90",
        "--warmup",
        "30",
        "--commands",
        script.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{stdout}\n{stderr}");
    assert!(stdout.contains("polarization"), "{stdout}");
    // The health check and its diagnosis, as for a plane's run.
    assert!(
        stdout.contains("health at the last sample (tick 90)") && stdout.contains("share at the walls"),
        "{stdout}"
    );
    for file in ["config.ron", "metrics.csv", "summary.csv", "summary.ron", "run.replay"] {
        assert!(out.join(file).is_file(), "{file} missing");
    }
    let config = mirofish_sim::VolumeConfig::load(out.join("config.ron")).unwrap();
    assert_eq!((config.fish, config.schools[0].fish), (300, 400));
    let recording = mirofish_sim::VolumeRecording::load(out.join("run.replay")).unwrap();
    assert_eq!(recording.commands.len(), 3);
    assert!(matches!(
        recording.commands[1].command,
        mirofish_sim::VolumeCommand::SetSchoolParams { school: 1, .. }
    ));
    let (ok, stdout, stderr) = lab(&["replay", out.join("run.replay").to_str().unwrap()]);
    assert!(ok && stdout.contains("in a volume") && stdout.contains("identical"), "{stdout}\n{stderr}");
    // Asked for a volume, a plane's scene is refused, naming the file and what it is.
    let plane = repo().join("assets/scenes/leaders.ron");
    let out_dir = out.to_str().unwrap();
    let (ok, _, stderr) =
        lab(&["run", "--space", "volume", "--config", plane.to_str().unwrap(), "--out", out_dir]);
    assert!(!ok && stderr.contains("leaders.ron") && stderr.contains("on a plane"), "{stderr}");
    // The decision layer plans a volume's school as a plane's: its
    // decisions are recorded and replay without it.
    let (ok, stdout, stderr) = lab(&[
        "run",
        "--config",
        scene.to_str().unwrap(),
        "--fish",
        "300",
        "--ticks",
        "120",
        "--warmup",
        "0",
        "--decide",
        "rules",
        "--units",
        "6",
        "--out",
        out_dir,
    ]);
    assert!(
        ok && stdout.contains("fish in a volume") && stdout.contains("decisions: "),
        "{stdout}\n{stderr}"
    );
    let recording = mirofish_sim::VolumeRecording::load(out.join("run.replay")).unwrap();
    assert!(
        recording
            .commands
            .iter()
            .any(|c| matches!(c.command, mirofish_sim::VolumeCommand::SetGroupGoal { goal: Some(_), .. })),
        "the units' goals are recorded"
    );
    let (ok, stdout, stderr) = lab(&["replay", out.join("run.replay").to_str().unwrap()]);
    assert!(ok && stdout.contains("identical"), "{stdout}\n{stderr}");
    // What a plane has and a volume has not is refused with why.
    let (ok, _, stderr) = lab(&["run", "--space", "volume", "--preset", "reference", "--out", out_dir]);
    assert!(!ok && stderr.contains("--preset names a school on a plane"), "{stderr}");
    let _ = std::fs::remove_dir_all(&out);
    // Without a file, `--space volume` is the default school in a volume,
    // sized by `--auto-radius`; the earlier `volume` command is the same.
    for words in [&["run", "--space", "volume", "--auto-radius", "7"][..], &["volume"][..]] {
        let args: Vec<&str> = words
            .iter()
            .copied()
            .chain(["--fish", "200", "--ticks", "20", "--warmup", "0", "--out", out_dir])
            .collect();
        let (ok, stdout, stderr) = lab(&args);
        assert!(ok && stdout.contains("200 fish in a volume"), "{words:?}: {stdout}\n{stderr}");
        let config = mirofish_sim::VolumeConfig::load(out.join("config.ron")).unwrap();
        let default_radius = mirofish_sim::FlockParams::default().perception_radius;
        assert_eq!(config.params.perception_radius != default_radius, words.len() > 1, "{words:?}");
        std::fs::remove_dir_all(&out).unwrap();
    }
    let _ = std::fs::remove_dir_all(&out);
    let _ = std::fs::remove_file(&script);
}

#[test]
fn the_school_table_prints_a_row_per_run_and_refuses_a_bad_plan() {
    let (ok, stdout, stderr) = lab(&[
        "schools",
        "--run",
        "minimal",
        "--run",
        "aquarium3d",
        "--seeds",
        "2",
        "--from",
        "1",
        "--to",
        "3",
    ]);
    assert!(ok, "{stdout}\n{stderr}");
    let rows: Vec<&str> =
        stdout.lines().filter(|l| l.starts_with("minimal") || l.starts_with("aquarium3d")).collect();
    assert_eq!(rows.len(), 2, "{stdout}");
    assert!(rows.iter().all(|r| r.ends_with("holds") || r.ends_with("misses")), "{stdout}");
    assert!(stdout.contains("natural bands: neighbours 5-8 (acceptable 4-12)"), "{stdout}");
    assert!(stdout.contains("of 2 runs hold as schools"), "{stdout}");
    // A configuration of one's own, here a volume's, is a row of its own.
    let volume = repo().join("assets/scenes/volume.ron");
    let (ok, stdout, stderr) = lab(&[
        "schools",
        "--config",
        volume.to_str().unwrap(),
        "--seeds",
        "1",
        "--from",
        "1",
        "--to",
        "2",
        "--blob",
    ]);
    assert!(ok, "{stdout}\n{stderr}");
    assert!(stdout.lines().any(|l| l.starts_with("volume ")), "{stdout}");
    assert!(stdout.contains("of 1 runs hold") && stdout.contains("from a blob"), "{stdout}");
    for args in [
        &["schools", "--run", "no-such-run"][..],
        &["schools", "--seeds", "0"],
        &["schools", "--from", "5", "--to", "2"],
    ] {
        let (ok, stdout, stderr) = lab(args);
        assert!(!ok && !stderr.is_empty(), "{args:?}: {stdout}");
    }
}
