//! The tuning panel without a window: its sections drawn into an egui
//! context of the test's own show the school's numbers, its health and a
//! game's section in its place; a click on a parameter's switch becomes a
//! command that changes the school at the next tick; a click on "let go"
//! stops inspecting a fish; sections of plugins not added stay out.
#![cfg(feature = "panel")]

use bevy::app::ScheduleRunnerPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_egui::egui;
use mirofish_bevy::prelude::*;
use mirofish_bevy::{FlockCommands, FlockMetrics};
use mirofish_kit::panel::{PanelAppExt, PanelSections, order};
use mirofish_kit::{Inspected, MouseToolsPlugin, TuningPanelPlugin};
use mirofish_sim::step::command::FlockCommand;

mod common;
use common::panel::{click_at, find, frame};

fn app() -> App {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins.build().disable::<ScheduleRunnerPlugin>())
        .insert_resource(FlockConfig { seed: 5, ..default() })
        .insert_resource(FlockMetrics::new(10))
        .add_plugins((MiroFishPlugin::default(), TuningPanelPlugin, MouseToolsPlugin))
        .add_panel_section("game", order::HEALTH + 1, true, |InMut(ui): InMut<egui::Ui>| {
            ui.label("a game's own line");
        })
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    app.world_mut().commands().queue(SpawnSchool::new(120));
    app.world_mut().flush();
    for _ in 0..40 {
        app.update();
    }
    app
}

#[test]
fn the_panel_shows_the_school_its_health_and_a_games_section_in_order() {
    let mut app = app();
    let ctx = egui::Context::default();
    let texts = frame(&mut app, &ctx, Vec::new());
    for wanted in ["fish", "120", "polarization", "health", "share at the walls", "game", "school", "metrics"]
    {
        assert!(
            find(&texts, wanted).is_some(),
            "{wanted:?} not drawn: {:?}",
            texts.iter().map(|t| &t.0).collect::<Vec<_>>()
        );
    }
    // The game's section sits between the health and the school sections.
    let y = |wanted: &str| find(&texts, wanted).unwrap().min.y;
    assert!(
        y("health") < y("game") && y("game") < y("a game's own line") && y("a game's own line") < y("school")
    );
    // The overlay, the fish look, the decision layer and the recorder are
    // not added: their sections stay out.
    for absent in ["view", "decisions", "record & replay"] {
        assert!(find(&texts, absent).is_none(), "{absent}");
    }
    // In order (a volume's own sections sit beside the plane's of the same
    // name, shown only in a volume).
    let mut names: Vec<&str> = app.world().resource::<PanelSections>().iter().map(|s| s.name).collect();
    names.dedup();
    let mut expected = vec![
        "",
        "run",
        "health",
        "game",
        "school",
        "view",
        "inspect",
        "tools",
        "record & replay",
        "metrics",
        "keys",
    ];
    if cfg!(feature = "decide") {
        expected.insert(7, "decisions");
    }
    assert_eq!(names, expected);
}

#[test]
fn a_click_on_a_switch_is_a_command_that_changes_the_school() {
    let mut app = app();
    let ctx = egui::Context::default();
    let matches = |app: &App| app.world().resource::<FlockState>().schools()[0].match_speed;
    assert!(!matches(&app));
    let texts = frame(&mut app, &ctx, Vec::new());
    let switch = *find(&texts, "alignment matches speed").expect("the switch is drawn");
    frame(&mut app, &ctx, click_at(switch.center()));
    let queued: Vec<FlockCommand> =
        app.world().resource::<FlockCommands>().pending().iter().map(|s| s.command).collect();
    assert!(
        matches!(queued.as_slice(), [FlockCommand::SetSchoolParams { school: 0, params }] if params.match_speed),
        "{queued:?}"
    );
    app.update();
    assert!(matches(&app), "the school matches speeds now");
    // The change is in the run's command log: a recording replays it.
    let applied = app.world().resource::<FlockCommands>().applied();
    assert!(applied.iter().any(|s| matches!(s.command, FlockCommand::SetSchoolParams { .. })));
}

#[test]
fn let_go_stops_inspecting_a_fish() {
    let mut app = app();
    let fish = app.world_mut().query_filtered::<Entity, With<Boid>>().iter(app.world()).next().unwrap();
    app.world_mut().resource_mut::<Inspected>().fish = Some(fish);
    let ctx = egui::Context::default();
    let texts = frame(&mut app, &ctx, Vec::new());
    assert!(find(&texts, "school 0").is_some(), "the inspected fish's school is shown");
    let button = *find(&texts, "let go (Esc)").expect("the button is drawn");
    frame(&mut app, &ctx, click_at(button.center()));
    assert_eq!(app.world().resource::<Inspected>().fish, None);
}

/// With the decision layer switched on, its section shows the switch and
/// how many units intend what.
#[cfg(feature = "decide")]
#[test]
fn the_decisions_section_shows_the_units_intents() {
    let mut app = app();
    app.add_plugins(mirofish_decide::plugin::DecisionPlugin);
    for _ in 0..5 {
        app.update();
    }
    let ctx = egui::Context::default();
    let texts = frame(&mut app, &ctx, Vec::new());
    assert!(find(&texts, "decisions").is_some() && find(&texts, "schools decide where to go").is_some());
    let decisions = app.world().resource::<mirofish_decide::plugin::Decisions>();
    let counts = mirofish_kit::decisions::intent_counts(decisions);
    assert!(!counts.is_empty(), "the units decided");
    for (kind, n) in counts {
        let name = match kind {
            mirofish_decide::Intent::GoTo { .. } => "travelling".to_string(),
            mirofish_decide::Intent::Flee { .. } => "fleeing".to_string(),
            other => other.to_string(),
        };
        assert!(find(&texts, &format!("{n} {name}")).is_some(), "{n} {name}");
    }
}
