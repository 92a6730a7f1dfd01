//! The shared school in a Bevy app, over [`bevy_ggrs`]: the school is a
//! resource ticked in [`GgrsSchedule`], saved and restored with the
//! session's other rollback state, checked against the other peers by its
//! state hash, and shown through plain entities the game gives a look.

use std::collections::{BTreeMap, VecDeque};
use std::net::SocketAddr;

use bevy::ecs::schedule::SingleThreadedExecutor;
use bevy::log::{error, warn};
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy_ggrs::{
    ChecksumPart, ConfirmedFrameCount, GgrsPlugin, GgrsResourceSnapshots, GgrsSchedule, LoadWorld,
    LoadWorldSystems, LocalInputs, LocalPlayers, PlayerInputs, ReadInputs, RollbackFrameCount,
    RunGgrsSystems, SaveWorld, SaveWorldSystems, Session,
};
use ggrs::{GgrsEvent, PlayerHandle, SessionState};
use mirofish_sim::control::snapshot::Snapshot;

use crate::input::PlayerInput;
use crate::school::{NetConfig, NetSchool};
use crate::view;

/// How many confirmed frames' state hashes [`NetStatus`] keeps.
pub const KEPT_HASHES: usize = 600;

/// Adds the shared school to an app: [`bevy_ggrs`]'s plugin for
/// [`NetConfig`], the [`NetSchool`] resource's rollback (a
/// [`Snapshot`] a frame) and checksum (its state hash), its tick in
/// [`GgrsSchedule`] with the frame's [`PlayerInput`]s as commands, the
/// session watched ([`NetStatus`], a [`NetDesync`] message and an error in
/// the log for every desync GGRS reports) and the fish shown as
/// [`NetFish`](crate::NetFish) entities.
///
/// The game inserts the [`NetSchool`] and, once the peers are known, a
/// `bevy_ggrs::Session<NetConfig>`; until then nothing ticks. Replacing the
/// school during a session leaves the peers apart (a desync is reported);
/// without a school the session runs on and nothing ticks. Its own
/// systems that change the school ([`NetSchool::submit`]) run in
/// [`GgrsSchedule`], so that they are run again after a rollback like the
/// school's tick.
#[derive(Clone, Debug)]
pub struct NetSchoolPlugin {
    /// Whether this machine's players send [`NetLocalInput`] (the default);
    /// without it, the game fills `bevy_ggrs::LocalInputs` itself in
    /// `bevy_ggrs::ReadInputs` (a test scripting each player's input).
    pub local_input: bool,
}

impl Default for NetSchoolPlugin {
    fn default() -> Self {
        Self { local_input: true }
    }
}

impl NetSchoolPlugin {
    /// The plugin without [`NetLocalInput`]: the game fills
    /// `bevy_ggrs::LocalInputs` in `bevy_ggrs::ReadInputs` itself.
    pub fn without_local_input() -> Self {
        Self { local_input: false }
    }
}

/// The stages of the shared school in [`GgrsSchedule`]: a game's systems
/// that submit commands for a frame run before [`NetSystems::Tick`].
#[derive(SystemSet, Clone, Debug, PartialEq, Eq, Hash)]
pub enum NetSystems {
    /// The frame's inputs become commands and the school ticks.
    Tick,
}

impl Plugin for NetSchoolPlugin {
    fn build(&self, app: &mut App) {
        app.add_plugins(GgrsPlugin::<NetConfig>::default())
            .init_resource::<GgrsResourceSnapshots<NetSchool, Snapshot>>()
            .init_resource::<NetStatus>()
            .init_resource::<view::FishViews>()
            .add_message::<NetDesync>()
            .add_systems(GgrsSchedule, tick.in_set(NetSystems::Tick))
            .add_systems(
                SaveWorld,
                (
                    GgrsResourceSnapshots::<NetSchool, Snapshot>::sync_depth,
                    GgrsResourceSnapshots::<NetSchool, Snapshot>::discard_old_snapshots,
                    save,
                )
                    .chain()
                    .in_set(SaveWorldSystems::Snapshot),
            )
            .add_systems(SaveWorld, checksum.in_set(SaveWorldSystems::Checksum))
            .add_systems(LoadWorld, load.in_set(LoadWorldSystems::Data))
            // Saving and loading run a few small systems each, once or
            // many times a frame: waking the task pool's threads for them
            // cost more than they do.
            .edit_schedule(SaveWorld, |s| {
                s.set_executor(SingleThreadedExecutor::new());
            })
            .edit_schedule(LoadWorld, |s| {
                s.set_executor(SingleThreadedExecutor::new());
            })
            .add_systems(PreUpdate, watch_session.after(RunGgrsSystems))
            .add_systems(Update, (view::show_fish, view::show_predators));
        if self.local_input {
            app.init_resource::<NetLocalInput>().add_systems(ReadInputs, read_local_input);
        }
        app.world_mut().spawn((ChecksumPart(0), SchoolChecksum));
    }
}

/// Marks the school's part of `bevy_ggrs`'s checksum.
#[derive(Component)]
struct SchoolChecksum;

/// The school's part of the frame's checksum: its state hash (0 while the
/// game has no school).
fn checksum(school: Option<Res<NetSchool>>, mut part: Query<&mut ChecksumPart, With<SchoolChecksum>>) {
    if let Ok(mut part) = part.single_mut() {
        part.0 = school.map_or(0, |s| u128::from(s.state_hash()));
    }
}

/// This machine's input, sent for each of its players every frame: set the
/// pointer and the held buttons when they change, and press a button
/// ([`NetLocalInput::press`]) to send it on exactly one frame, however
/// many frames GGRS runs in the app's update (none or several).
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NetLocalInput {
    /// The pointer, in the tank's units, and the buttons held down.
    pub held: PlayerInput,
    /// Buttons pressed since the last frame sent.
    pressed: u8,
}

impl NetLocalInput {
    /// Puts the pointer at (`x`, `y`) in the tank (rounded to whole units).
    pub fn point_at(&mut self, x: f32, y: f32) {
        let Self { held, .. } = self;
        let round = |v: f32| if v.is_finite() { v.round() as i32 } else { 0 };
        *held = PlayerInput { buttons: held.buttons, ..PlayerInput::pointer(round(x), round(y)) };
    }

    /// Holds `buttons` down (`down`) or lets them go.
    pub fn hold(&mut self, buttons: u8, down: bool) {
        if down {
            self.held.buttons |= buttons;
        } else {
            self.held.buttons &= !buttons;
        }
    }

    /// Presses `buttons` once: they go with the next frame's input only.
    pub fn press(&mut self, buttons: u8) {
        self.pressed |= buttons;
    }

    /// The input for the next frame (the held buttons and those pressed
    /// since the last), and forgets the presses.
    pub fn take(&mut self) -> PlayerInput {
        let input = self.held.with(self.pressed);
        self.pressed = 0;
        input
    }
}

/// A desync: a peer computed another state for a frame both have
/// confirmed. GGRS compares the checksums (the school's state hash) of
/// confirmed frames; the plugin writes one of these per mismatch and logs
/// it as an error. The game decides what follows (end the session, say so);
/// the peers do not agree any more.
#[derive(Message, Clone, Debug, PartialEq, Eq)]
pub struct NetDesync {
    /// The frame whose checksums differ.
    pub frame: i32,
    /// This peer's checksum for it.
    pub local: u128,
    /// The other peer's.
    pub remote: u128,
    /// The other peer's address.
    pub peer: SocketAddr,
}

/// A remote peer, as the session measures it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PeerStatus {
    /// The player's handle (for a spectator: the host's first player).
    pub handle: PlayerHandle,
    /// Round-trip time, in milliseconds.
    pub ping_ms: u128,
    /// Frames this peer is behind the remote one (negative: ahead).
    pub frames_behind: i32,
}

/// What the session is doing, refreshed every update (read it for a
/// panel, a test or a log).
#[derive(Resource, Clone, Debug, Default)]
pub struct NetStatus {
    /// Whether a session runs (peers synchronised).
    pub running: bool,
    /// The frame the school is at.
    pub frame: i32,
    /// The last frame whose inputs every peer has sent and which this
    /// peer has run: its state is final and its hash kept
    /// ([`NetStatus::confirmed_hash`]); -1 before the first.
    pub confirmed: i32,
    /// Rollbacks so far (times the school went back to a saved frame:
    /// [`NetSchool::rollbacks`]).
    pub rollbacks: u64,
    /// Frames run again after rollbacks so far.
    pub frames_again: u64,
    /// How far the last rollback went back, in frames.
    pub last_rollback: u32,
    /// This machine's player handles.
    pub local_players: Vec<PlayerHandle>,
    /// The remote peers.
    pub peers: Vec<PeerStatus>,
    /// The desyncs reported so far.
    pub desyncs: Vec<NetDesync>,
    /// The state hash each recent frame was run to; a frame's entry is
    /// final once it is confirmed.
    saved: BTreeMap<i32, u64>,
    /// The state hash of the last [`KEPT_HASHES`] confirmed frames.
    confirmed_hashes: VecDeque<(i32, u64)>,
}

impl NetStatus {
    /// The school's state hash at `frame`, once `frame` is confirmed (and
    /// among the last [`KEPT_HASHES`] confirmed): every peer has the same
    /// one.
    pub fn confirmed_hash(&self, frame: i32) -> Option<u64> {
        self.confirmed_hashes.iter().find(|(f, _)| *f == frame).map(|&(_, h)| h)
    }

    /// The confirmed frames kept, oldest first, with their state hashes.
    pub fn confirmed_hashes(&self) -> impl Iterator<Item = (i32, u64)> + '_ {
        self.confirmed_hashes.iter().copied()
    }
}

/// Fills `bevy_ggrs::LocalInputs` with [`NetLocalInput`] for each of this
/// machine's players.
fn read_local_input(mut commands: Commands, mut local: ResMut<NetLocalInput>, players: Res<LocalPlayers>) {
    let input = local.take();
    let inputs: HashMap<PlayerHandle, PlayerInput> = players.0.iter().map(|&h| (h, input)).collect();
    commands.insert_resource(LocalInputs::<NetConfig>(inputs));
}

/// One frame of the school, with the frame's inputs; its state hash is
/// kept for the frame (a frame run again after a rollback replaces it).
fn tick(
    school: Option<ResMut<NetSchool>>,
    inputs: Res<PlayerInputs<NetConfig>>,
    frame: Res<RollbackFrameCount>,
    mut status: ResMut<NetStatus>,
) {
    let Some(mut school) = school else { return };
    if let Err(e) = school.advance(&inputs) {
        // A tick refuses only parameters that validated when the school
        // was made: every peer refuses alike.
        error!("the shared school did not tick: {e}");
    }
    status.saved.insert(frame.0, school.state_hash());
}

/// Saves the school for the frame being saved.
fn save(
    mut saved: ResMut<GgrsResourceSnapshots<NetSchool, Snapshot>>,
    frame: Res<RollbackFrameCount>,
    school: Option<Res<NetSchool>>,
) {
    saved.push(frame.0, school.map(|s| s.simulation().snapshot()));
}

/// Takes the school back to the frame being loaded.
fn load(
    mut saved: ResMut<GgrsResourceSnapshots<NetSchool, Snapshot>>,
    frame: Res<RollbackFrameCount>,
    school: Option<ResMut<NetSchool>>,
    mut status: ResMut<NetStatus>,
) {
    let Some(mut school) = school else { return };
    let Some(Some(_)) = saved.peek(frame.0) else {
        // The school was inserted after the frame: it cannot go back
        // there, and the peers will tell the difference.
        error!("the shared school has no snapshot of frame {}", frame.0);
        return;
    };
    let Some(snapshot) = saved.rollback(frame.0).get() else { return };
    let back = school.simulation().tick().saturating_sub(snapshot.tick());
    match school.restore(snapshot) {
        Ok(()) => {
            status.rollbacks = school.rollbacks();
            status.frames_again += back;
            status.last_rollback = u32::try_from(back).unwrap_or(u32::MAX);
        }
        Err(e) => error!("the shared school cannot go back to frame {}: {e}", frame.0),
    }
}

/// Reads the session after GGRS has run this update's frames: desyncs,
/// the confirmed frame, the peers.
fn watch_session(
    session: Option<ResMut<Session<NetConfig>>>,
    confirmed: Option<Res<ConfirmedFrameCount>>,
    frame: Option<Res<RollbackFrameCount>>,
    mut status: ResMut<NetStatus>,
    mut desyncs: MessageWriter<NetDesync>,
) {
    let Some(mut session) = session else {
        status.running = false;
        return;
    };
    let mut events = Vec::new();
    match &mut *session {
        Session::P2P(s) => {
            events.extend(s.events());
            status.running = s.current_state() == SessionState::Running;
            status.local_players = s.local_player_handles();
            let peers = s.remote_player_handles();
            status.peers = peers
                .into_iter()
                .filter_map(|handle| {
                    let stats = s.network_stats(handle).ok()?;
                    Some(PeerStatus { handle, ping_ms: stats.ping, frames_behind: stats.local_frames_behind })
                })
                .collect();
        }
        Session::Spectator(s) => {
            events.extend(s.events());
            status.running = s.current_state() == SessionState::Running;
            status.local_players.clear();
            status.peers = s
                .network_stats()
                .ok()
                .map(|stats| PeerStatus {
                    handle: 0,
                    ping_ms: stats.ping,
                    frames_behind: stats.local_frames_behind,
                })
                .into_iter()
                .collect();
        }
        Session::SyncTest(s) => {
            status.running = true;
            status.local_players = (0..s.num_players()).collect();
            status.peers.clear();
        }
    }
    for event in events {
        match event {
            GgrsEvent::DesyncDetected { frame, local_checksum, remote_checksum, addr } => {
                let desync = NetDesync { frame, local: local_checksum, remote: remote_checksum, peer: addr };
                error!(
                    "desync at frame {frame}: this peer's checksum {local_checksum:x}, {addr}'s {remote_checksum:x}"
                );
                desyncs.write(desync.clone());
                status.desyncs.push(desync);
            }
            GgrsEvent::Disconnected { addr } => warn!("peer {addr} disconnected"),
            GgrsEvent::NetworkInterrupted { addr, disconnect_timeout } => {
                warn!(
                    "peer {addr} not heard from; disconnected in {disconnect_timeout} ms unless it answers"
                );
            }
            _ => {}
        }
    }
    status.frame = frame.map_or(0, |f| f.0);
    // The confirmed frame as of the last request GGRS handled: the saves
    // up to it were made with every input (a poll since may confirm
    // more, whose corrections the next update runs). With an input delay
    // every peer's inputs are known before the frame runs, so GGRS may
    // confirm frames this peer has not run yet: those wait until it has.
    let status = &mut *status;
    let confirmed = confirmed.map_or(-1, |c| c.0);
    let finals: Vec<i32> = status.saved.range(..=confirmed).map(|(&f, _)| f).collect();
    for f in finals {
        if let Some(hash) = status.saved.remove(&f)
            && status.confirmed_hashes.back().is_none_or(|&(last, _)| last < f)
        {
            status.confirmed_hashes.push_back((f, hash));
        }
    }
    while status.confirmed_hashes.len() > KEPT_HASHES {
        status.confirmed_hashes.pop_front();
    }
    // The last confirmed frame this peer has run and kept the hash of.
    status.confirmed = status.confirmed_hashes.back().map_or(-1, |&(f, _)| f);
}
