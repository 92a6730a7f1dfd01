//! The tuning panel in a volume, without a window: its sections show the
//! volume's numbers, health, school and plots (and the decision layer's
//! units where its 3D plugin runs), not the plane's; a click on a
//! parameter's switch becomes a command to the core that changes the
//! school at the next tick and stays in its log.
#![cfg(feature = "panel")]

use bevy::prelude::*;
use bevy_egui::egui;
use mirofish_bevy::volume::*;
use mirofish_kit::TuningPanelPlugin;
use mirofish_sim::space::VolumeCommand;

mod common;
use common::panel::{click_at, find, frame};

fn app() -> App {
    let mut app = common::volume_app();
    app.insert_resource(mirofish_bevy::FlockMetrics::new(6)).add_plugins(TuningPanelPlugin);
    #[cfg(feature = "decide")]
    app.add_plugins(mirofish_decide::plugin::DecisionPlugin3d);
    app.world_mut().commands().queue(SpawnSchool3d::new(150));
    app.world_mut().flush();
    for _ in 0..40 {
        app.update();
    }
    app
}

#[test]
fn the_panel_shows_a_volume_and_changes_it_by_command() {
    let mut app = app();
    assert!(
        app.world().resource::<mirofish_bevy::FlockMetrics>().log().rows().len() >= 2,
        "the volume is sampled"
    );
    let ctx = egui::Context::default();
    let texts = frame(&mut app, &ctx, Vec::new());
    let mut wanted =
        vec!["fish", "150", "polarization", "milling", "health", "share at the walls", "school", "metrics"];
    if cfg!(feature = "decide") {
        wanted.push("decisions");
    }
    for wanted in wanted {
        assert!(
            find(&texts, wanted).is_some(),
            "{wanted:?} not drawn: {:?}",
            texts.iter().map(|t| &t.0).collect::<Vec<_>>()
        );
    }
    // The plane's sections stay out: one "fish" row, one "school" heading.
    assert_eq!(texts.iter().filter(|t| t.0 == "school").count(), 1);

    let matches = |app: &App| app.world().resource::<Flock3dState>().flock().params()[0].match_speed;
    assert!(!matches(&app));
    let switch = *find(&texts, "alignment matches speed").expect("the switch is drawn");
    frame(&mut app, &ctx, click_at(switch.center()));
    let tick = app.world().resource::<Flock3dState>().flock().tick();
    while app.world().resource::<Flock3dState>().flock().tick() <= tick {
        app.update();
    }
    assert!(matches(&app), "the school matches speeds now");
    let applied = app.world().resource::<Flock3dState>().flock().applied();
    assert!(applied.iter().any(|s| matches!(s.command, VolumeCommand::SetSchoolParams { school: 0, .. })));

    // Under Couzin's zones the rules' knobs give way to a note.
    let zones = Some(mirofish_sim::space::Zones::default());
    app.world_mut().resource_mut::<FlockCommands<Vec3>>().submit(VolumeCommand::SetZones(zones)).unwrap();
    for _ in 0..3 {
        app.update();
    }
    let texts = frame(&mut app, &ctx, Vec::new());
    assert!(texts.iter().any(|t| t.0.starts_with("Couzin's zones move these fish")));
    assert!(find(&texts, "separation_weight").is_none() && find(&texts, "alignment matches speed").is_none());
}
