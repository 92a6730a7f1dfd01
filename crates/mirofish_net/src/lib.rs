//! Networked play for MiroFish: one school shared by players on several
//! machines, with rollback netcode ([GGRS](https://docs.rs/ggrs)).
//!
//! Each peer runs the whole school; only the players' inputs cross the
//! network. GGRS predicts a remote player's input until it arrives and,
//! when it arrives different, asks the game to go back to the frame it
//! belongs to and run the frames since again. That works because the
//! school is bit-deterministic (the same commands at the same ticks give
//! the same bits on any machine, any thread count, with or without AVX2)
//! and can be saved and restored between two ticks
//! ([`mirofish_sim::control::snapshot`]).
//!
//! [`NetSchool`] is the school under a GGRS session: it carries out the
//! session's requests (save, load, advance with the players' inputs) and
//! turns each player's [`PlayerInput`] into the core's commands at the
//! input's frame. Its checksum is the school's state hash, so GGRS's
//! desync detection compares every fish. [`NetSocket`] carries a session's
//! messages over UDP, bound where the game says (`127.0.0.1:0` to stay on
//! this machine).
//!
//! With the `bevy` feature, `NetSchoolPlugin` puts the school in a Bevy
//! app over `bevy_ggrs`: a resource ticked in its rollback schedule,
//! saved, restored and checked with the session, shown as `NetFish`
//! entities; see the guide's page "Playing together".
//!
//! ```
//! use ggrs::{PlayerType, SessionBuilder};
//! use mirofish_net::{NetConfig, NetSchool, PlayerInput};
//! use mirofish_sim::{FlockParams, Simulation, Tank};
//!
//! let sim = Simulation::new(FlockParams::default(), Tank::default(), 300, 1)?;
//! let mut school = NetSchool::new(sim);
//! // A sync test: every frame is rolled back and run again, and the
//! // checksums compared.
//! let mut session = SessionBuilder::<NetConfig>::new()
//!     .with_num_players(2)?
//!     .with_check_distance(2)
//!     .add_player(PlayerType::Local, 0)?
//!     .add_player(PlayerType::Local, 1)?
//!     .start_synctest_session()?;
//! for frame in 0..30 {
//!     session.add_local_input(0, PlayerInput::pointer(frame * 3, 0).with(PlayerInput::ATTRACT))?;
//!     session.add_local_input(1, PlayerInput::default())?;
//!     school.handle(session.advance_frame()?)?;
//! }
//! assert_eq!(school.simulation().tick(), 30);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod input;
#[cfg(feature = "bevy")]
mod plugin;
mod school;
mod socket;
#[cfg(feature = "bevy")]
mod view;

#[cfg(feature = "bevy")]
pub use bevy_ggrs;
/// The crates a game needs to start a session, at the versions used here.
pub use ggrs;
pub use input::PlayerInput;
#[cfg(feature = "bevy")]
pub use plugin::{KEPT_HASHES, NetDesync, NetLocalInput, NetSchoolPlugin, NetStatus, NetSystems, PeerStatus};
pub use school::{NetConfig, NetError, NetSchool};
pub use socket::NetSocket;
#[cfg(feature = "bevy")]
pub use view::{NetFish, NetPredator};
