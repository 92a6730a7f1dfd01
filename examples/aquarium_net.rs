//! The aquarium played together: one school shared by players on several
//! machines with rollback netcode (GGRS). Each machine runs the whole
//! school; only the players' pointers and buttons cross the network.
//!
//! ```text
//! # Two players, two windows on one machine:
//! cargo run --release --example aquarium_net -- --local-port 7000 --players local,127.0.0.1:7001
//! cargo run --release --example aquarium_net -- --local-port 7001 --players 127.0.0.1:7000,local
//! # A spectator of the first (which lists it with --spectators 127.0.0.1:7002):
//! cargo run --release --example aquarium_net -- --local-port 7002 --spectate 127.0.0.1:7000
//! ```
//!
//! Every peer lists the players in the same order; `local` is this
//! machine's. The socket listens on every interface (`--bind 127.0.0.1`
//! keeps a session on this machine). Controls: hold the left button and your predator (in your
//! colour) follows the pointer; a right click drops a rock; hold A to draw
//! the school to the pointer, D to drive it away; G sets the school's goal
//! at the pointer, C clears the rocks and the goal. The line at the top
//! tells the frame, the last frame every peer has confirmed, the rollbacks
//! and each peer's ping.
//!
//! `--smoke shot.png` is CI's self-test: the pointer circles on its own
//! with the predator held; once frame 300 is confirmed the example prints
//! that frame's state hash (every peer prints the same), saves a
//! screenshot, checks that it shows the school and this player's predator,
//! and exits with the verdict a few seconds later (so the other peer can
//! confirm the frame too).

use std::net::SocketAddr;
use std::path::PathBuf;

use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured, save_to_disk};
use bevy::sprite::Anchor;
use bevy::window::{PrimaryWindow, WindowResolution};
use mirofish::SCHOOL_PALETTE;
use mirofish::kit::FishImage;
use mirofish::kit::look::PREDATOR_COLOUR;
use mirofish::net::bevy_ggrs::Session;
use mirofish::net::ggrs::{DesyncDetection, PlayerType, SessionBuilder};
use mirofish::net::{
    NetConfig, NetFish, NetLocalInput, NetPredator, NetSchool, NetSchoolPlugin, NetSocket, NetStatus,
    PlayerInput,
};
use mirofish::sim::{ExperimentConfig, SchoolConfig, Simulation};
use mirofish_examples::aquarium::Coverage;

/// Each player's colour (their predator's), by handle.
const PLAYER_COLOURS: [[f32; 3]; 4] =
    [[0.95, 0.25, 0.55], [0.35, 0.55, 1.0], [0.55, 0.95, 0.35], [0.75, 0.45, 1.0]];

/// Where each player plays: this machine or a remote address.
#[derive(Clone, Copy, Debug)]
enum Seat {
    Local,
    Remote(SocketAddr),
}

/// The command line.
struct Args {
    bind: std::net::IpAddr,
    port: u16,
    players: Vec<Seat>,
    spectators: Vec<SocketAddr>,
    spectate: Option<SocketAddr>,
    player_count: usize,
    fish: usize,
    seed: u64,
    input_delay: usize,
    smoke: Option<PathBuf>,
    smoke_frame: i32,
}

/// The self-test's progress.
#[derive(Resource)]
struct Smoke {
    out: PathBuf,
    frame: i32,
    shot_at: Option<f32>,
    verdict: Option<bool>,
}

fn main() -> AppExit {
    let args = parse();
    let session = start_session(&args).unwrap_or_else(|e| fail(&e));
    let mut config = ExperimentConfig { fish: args.fish * 4 / 5, seed: args.seed, ..Default::default() };
    config.schools.push(SchoolConfig { fish: args.fish - config.fish, leaders: 3, ..Default::default() });
    let sim = Simulation::from_config(&config).unwrap_or_else(|e| fail(&e.to_string()));

    let mut app = App::new();
    app.add_plugins(DefaultPlugins.set(WindowPlugin {
        primary_window: Some(Window {
            title: format!("MiroFish aquarium, played together (port {})", args.port),
            resolution: WindowResolution::new(1280, 720),
            ..default()
        }),
        ..default()
    }))
    .insert_resource(ClearColor(Color::srgb(0.03, 0.07, 0.13)))
    .add_plugins(NetSchoolPlugin::default())
    .insert_resource(NetSchool::new(sim))
    .insert_resource(session)
    .add_systems(Startup, setup)
    .add_systems(Update, (read_pointer, dress_fish, dress_predators, draw_scene, show_status));
    if let Some(out) = args.smoke {
        app.insert_resource(Smoke { out, frame: args.smoke_frame, shot_at: None, verdict: None })
            .add_systems(Update, smoke_test);
    }
    app.run()
}

/// The session the command line asks for.
fn start_session(args: &Args) -> Result<Session<NetConfig>, String> {
    let socket =
        NetSocket::bind((args.bind, args.port)).map_err(|e| format!("{}:{}: {e}", args.bind, args.port))?;
    let err = |e: mirofish::net::ggrs::GgrsError| e.to_string();
    if let Some(host) = args.spectate {
        let builder = SessionBuilder::<NetConfig>::new().with_num_players(args.player_count).map_err(err)?;
        return Ok(Session::Spectator(builder.start_spectator_session(host, socket)));
    }
    let mut builder = SessionBuilder::<NetConfig>::new()
        .with_num_players(args.players.len())
        .map_err(err)?
        .with_input_delay(args.input_delay)
        .with_desync_detection_mode(DesyncDetection::On { interval: 10 });
    for (handle, seat) in args.players.iter().enumerate() {
        let kind = match *seat {
            Seat::Local => PlayerType::Local,
            Seat::Remote(at) => PlayerType::Remote(at),
        };
        builder = builder.add_player(kind, handle).map_err(err)?;
    }
    for (k, &at) in args.spectators.iter().enumerate() {
        builder = builder.add_player(PlayerType::Spectator(at), args.players.len() + k).map_err(err)?;
    }
    builder.start_p2p_session(socket).map(Session::P2P).map_err(err)
}

fn setup(
    mut commands: Commands,
    mut images: ResMut<Assets<Image>>,
    mut layouts: ResMut<Assets<TextureAtlasLayout>>,
) {
    commands.spawn(Camera2d);
    commands.insert_resource(FishImage::new(&mut images, &mut layouts));
    // The status line, above the tank's top left corner.
    commands.spawn((
        Text2d::new("waiting for the other peers..."),
        TextFont { font_size: FontSize::Px(15.0), ..default() },
        Anchor::TOP_LEFT,
        Transform::from_xyz(-630.0, 352.0, 5.0),
    ));
}

fn colour([r, g, b]: [f32; 3]) -> Color {
    Color::srgb(r, g, b)
}

/// Gives each fish entity the shared fish picture in its school's colour.
fn dress_fish(
    mut commands: Commands,
    image: Res<FishImage>,
    fish: Query<(Entity, &NetFish), Without<Sprite>>,
) {
    for (entity, fish) in &fish {
        let tint = colour(SCHOOL_PALETTE[usize::from(fish.school) % SCHOOL_PALETTE.len()]);
        commands.entity(entity).insert(image.sprite(0, tint, Vec2::new(20.0, 10.0)));
    }
}

/// Gives each predator the fish picture, large, in its player's colour
/// (the school's own in red); a predator that changes hands changes colour.
fn dress_predators(
    mut commands: Commands,
    image: Res<FishImage>,
    predators: Query<(Entity, &NetPredator, Option<&Sprite>), Or<(Changed<NetPredator>, Without<Sprite>)>>,
) {
    for (entity, predator, sprite) in &predators {
        let tint =
            predator.player.map_or(PREDATOR_COLOUR, |p| colour(PLAYER_COLOURS[p % PLAYER_COLOURS.len()]));
        if sprite.is_none_or(|s| s.color != tint) {
            commands.entity(entity).insert(image.sprite(0, tint, Vec2::new(90.0, 45.0)));
        }
    }
}

/// The mouse and keys as this machine's input, in the tank's units.
fn read_pointer(
    window: Query<&Window, With<PrimaryWindow>>,
    camera: Query<(&Camera, &GlobalTransform)>,
    mouse: Res<ButtonInput<MouseButton>>,
    keys: Res<ButtonInput<KeyCode>>,
    smoke: Option<Res<Smoke>>,
    mut input: ResMut<NetLocalInput>,
) {
    if smoke.is_some() {
        return;
    }
    let (Ok(window), Ok((camera, at))) = (window.single(), camera.single()) else { return };
    if let Some(point) = window.cursor_position().and_then(|c| camera.viewport_to_world_2d(at, c).ok()) {
        input.point_at(point.x, point.y);
    }
    input.hold(PlayerInput::PREDATOR, mouse.pressed(MouseButton::Left));
    input.hold(PlayerInput::ATTRACT, keys.pressed(KeyCode::KeyA));
    input.hold(PlayerInput::REPEL, keys.pressed(KeyCode::KeyD));
    for (pressed, button) in [
        (mouse.just_pressed(MouseButton::Right), PlayerInput::ROCK),
        (keys.just_pressed(KeyCode::KeyG), PlayerInput::GOAL),
        (keys.just_pressed(KeyCode::KeyC), PlayerInput::CLEAR),
    ] {
        if pressed {
            input.press(button);
        }
    }
}

/// The tank's walls, rocks, goal and the pointer's pull.
fn draw_scene(school: Res<NetSchool>, mut gizmos: Gizmos) {
    let sim = school.simulation();
    let tank = sim.tank();
    gizmos.rect_2d((tank.min + tank.max) / 2.0, tank.max - tank.min, Color::srgb(0.25, 0.4, 0.55));
    for rock in &sim.scene().obstacles {
        gizmos.circle_2d(rock.centre, rock.radius, Color::srgb(0.6, 0.55, 0.45));
    }
    if let Some(goal) = sim.scene().goal {
        gizmos.cross_2d(goal.target, 12.0, Color::srgb(1.0, 0.9, 0.3));
    }
    if let Some(pull) = sim.scene().attractor {
        let tint = if pull.strength > 0.0 { Color::srgb(0.4, 0.9, 0.5) } else { Color::srgb(0.9, 0.5, 0.3) };
        gizmos.circle_2d(pull.point, pull.radius, tint.with_alpha(0.5));
    }
}

/// The line at the top: frames, rollbacks, peers.
fn show_status(status: Res<NetStatus>, mut text: Query<&mut Text2d>) {
    let Ok(mut text) = text.single_mut() else { return };
    if !status.running {
        return;
    }
    let you = match status.local_players.as_slice() {
        [] => "spectating".to_string(),
        players => {
            let players: Vec<String> = players.iter().map(usize::to_string).collect();
            format!("you: player {}", players.join(", "))
        }
    };
    let spectating = status.local_players.is_empty();
    let peers: Vec<String> = status
        .peers
        .iter()
        .map(|p| {
            if spectating {
                format!("host {} ms", p.ping_ms)
            } else {
                format!("player {} {} ms", p.handle, p.ping_ms)
            }
        })
        .collect();
    let desync = status.desyncs.last().map_or(String::new(), |d| format!(" | DESYNC at frame {}", d.frame));
    text.0 = format!(
        "{you} | frame {} | confirmed {} | rollbacks {} (last: {} frames back) | ping: {}{desync}\n\
         hold left: your predator | right click: rock | A/D: draw/drive | G: goal | C: clear",
        status.frame,
        status.confirmed,
        status.rollbacks,
        status.last_rollback,
        if peers.is_empty() { "-".to_string() } else { peers.join(", ") },
    );
}

/// CI's self-test (see the module's docs).
fn smoke_test(
    mut commands: Commands,
    mut smoke: ResMut<Smoke>,
    status: Res<NetStatus>,
    time: Res<Time<Real>>,
    mut input: ResMut<NetLocalInput>,
    mut exit: MessageWriter<AppExit>,
) {
    let now = time.elapsed_secs();
    if now > 240.0 {
        error!("smoke test failed: frame {} not confirmed after {now:.0} s", smoke.frame);
        exit.write(AppExit::error());
        return;
    }
    // Each player's pointer on its own side of the circle.
    let side = status.local_players.first().map_or(0.0, |&p| p as f32 * std::f32::consts::PI);
    let turn = status.frame as f32 * 0.02 + side;
    input.point_at(turn.cos() * 300.0, turn.sin() * 160.0);
    input.hold(PlayerInput::PREDATOR, !status.local_players.is_empty());
    if let (Some(verdict), Some(at)) = (smoke.verdict, smoke.shot_at)
        && now - at > 4.0
    {
        exit.write(if verdict { AppExit::Success } else { AppExit::error() });
        return;
    }
    if smoke.shot_at.is_some() || status.confirmed < smoke.frame {
        return;
    }
    let Some(hash) = status.confirmed_hash(smoke.frame) else {
        error!("smoke test failed: no hash kept for frame {}", smoke.frame);
        exit.write(AppExit::error());
        return;
    };
    println!("confirmed frame {}: state hash {hash:016x}", smoke.frame);
    smoke.shot_at = Some(now);
    let fish: Vec<[u8; 3]> =
        SCHOOL_PALETTE[..2].iter().map(|c| c.map(|x| (x * 255.0).round() as u8)).collect();
    // This player's predator, in the player's colour.
    let spectator = status.local_players.is_empty();
    let own = PLAYER_COLOURS[status.local_players.first().map_or(0, |&p| p % PLAYER_COLOURS.len())];
    let own = own.map(|x| (x * 255.0).round() as u8);
    let out = smoke.out.clone();
    commands.spawn(Screenshot::primary_window()).observe(save_to_disk(out.clone())).observe(
        move |captured: On<ScreenshotCaptured>, mut smoke: ResMut<Smoke>| {
            let verdict = match captured.image.clone().try_into_dynamic() {
                Ok(image) => {
                    let rgb = image.to_rgb8();
                    let (w, h) = (rgb.width() as usize, rgb.height() as usize);
                    let seen = Coverage::measure(rgb.as_raw(), w, h, &fish, own, 40);
                    // A spectator has no predator of its own to show.
                    let ok = if spectator {
                        seen.fish_pixels >= 2_000
                            && seen.cells_with_fish >= Coverage::COLS * Coverage::ROWS / 3
                    } else {
                        seen.shows_fish_and_predator()
                    };
                    println!(
                        "smoke test {}: {seen:?}; screenshot in {}",
                        if ok { "passed" } else { "failed" },
                        out.display()
                    );
                    ok
                }
                Err(e) => {
                    error!("smoke test failed: cannot read the screenshot: {e:?}");
                    false
                }
            };
            smoke.verdict = Some(verdict);
        },
    );
}

fn parse() -> Args {
    let mut args = Args {
        bind: std::net::Ipv4Addr::UNSPECIFIED.into(),
        port: 7000,
        players: vec![Seat::Local],
        spectators: Vec::new(),
        spectate: None,
        player_count: 2,
        fish: 1500,
        seed: 7,
        input_delay: 2,
        smoke: None,
        smoke_frame: 300,
    };
    let address = |s: &str| {
        s.parse::<SocketAddr>().unwrap_or_else(|_| fail(&format!("{s} is not an address (ip:port)")))
    };
    let mut argv = std::env::args().skip(1);
    while let Some(arg) = argv.next() {
        let mut value = |name: &str| argv.next().unwrap_or_else(|| fail(&format!("{name} needs a value")));
        let number = |name: &str, v: String| {
            v.parse::<u64>().unwrap_or_else(|_| fail(&format!("{name} takes a number")))
        };
        match arg.as_str() {
            "--local-port" => {
                args.port = u16::try_from(number("--local-port", value("--local-port")))
                    .unwrap_or_else(|_| fail("--local-port takes a port (0-65535)"))
            }
            "--players" => {
                args.players = value("--players")
                    .split(',')
                    .map(|s| if s == "local" { Seat::Local } else { Seat::Remote(address(s)) })
                    .collect()
            }
            "--bind" => {
                args.bind = value("--bind").parse().unwrap_or_else(|_| fail("--bind takes an IP address"))
            }
            "--spectators" => args.spectators = value("--spectators").split(',').map(address).collect(),
            "--spectate" => args.spectate = Some(address(&value("--spectate"))),
            "--player-count" => {
                args.player_count = number("--player-count", value("--player-count")) as usize
            }
            "--fish" => args.fish = number("--fish", value("--fish")) as usize,
            "--seed" => args.seed = number("--seed", value("--seed")),
            "--input-delay" => args.input_delay = number("--input-delay", value("--input-delay")) as usize,
            "--smoke" => args.smoke = Some(value("--smoke").into()),
            "--smoke-frame" => args.smoke_frame = number("--smoke-frame", value("--smoke-frame")) as i32,
            "--help" | "-h" => {
                println!(
                    "aquarium_net [--bind IP] [--local-port P] [--players local,IP:PORT,...] [--spectators IP:PORT,...] \
                     [--spectate IP:PORT [--player-count N]] [--fish N] [--seed N] [--input-delay FRAMES] \
                     [--smoke shot.png [--smoke-frame F]]"
                );
                std::process::exit(0);
            }
            other => fail(&format!("unknown argument {other} (try --help)")),
        }
    }
    if args.spectate.is_none() && !args.players.iter().any(|s| matches!(s, Seat::Local)) {
        fail("--players names no local player (give `local` for this machine's)");
    }
    if !(2..=50_000).contains(&args.fish) {
        fail("--fish takes 2 to 50000");
    }
    args
}

fn fail(message: &str) -> ! {
    eprintln!("aquarium_net: {message}");
    std::process::exit(2)
}
