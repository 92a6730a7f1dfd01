//! What a player sends each frame: a pointer and a few buttons, a handful
//! of bytes (GGRS sends every frame's input, and repeats the last one as
//! its prediction of the next).

use mirofish_sim::step::command::FlockCommand;
use mirofish_sim::{Attractor, Goal, GoalMode, Obstacle, Scene, Vec2};
use serde::{Deserialize, Serialize};

/// One player's input for one frame: where the pointer is, in the tank's
/// units (whole numbers, so every peer reads the same point), and which
/// buttons are down. A press that places something (a rock, the goal) is
/// sent on the one frame of the press.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PlayerInput {
    /// The pointer's x in the tank.
    pub x: i16,
    /// The pointer's y in the tank.
    pub y: i16,
    /// The buttons down ([`PlayerInput::ATTRACT`] and the others, or'ed).
    pub buttons: u8,
}

impl PlayerInput {
    /// Held: the school is drawn to the pointer.
    pub const ATTRACT: u8 = 1;
    /// Held: the school is driven from the pointer (with
    /// [`PlayerInput::ATTRACT`], attraction wins).
    pub const REPEL: u8 = 2;
    /// Pressed: a rock at the pointer.
    pub const ROCK: u8 = 4;
    /// Pressed: the school's goal at the pointer.
    pub const GOAL: u8 = 8;
    /// Pressed: every rock and the goal cleared.
    pub const CLEAR: u8 = 16;

    /// The pointer at (`x`, `y`), no button down (coordinates past an
    /// `i16` are held at its ends).
    pub fn pointer(x: i32, y: i32) -> Self {
        let clamp = |v: i32| v.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
        Self { x: clamp(x), y: clamp(y), buttons: 0 }
    }

    /// The same input with `buttons` down too.
    pub fn with(self, buttons: u8) -> Self {
        Self { buttons: self.buttons | buttons, ..self }
    }

    /// Whether every button of `buttons` is down.
    pub fn has(self, buttons: u8) -> bool {
        self.buttons & buttons == buttons
    }

    /// The pointer as a point of the tank.
    pub fn point(self) -> Vec2 {
        Vec2::new(f32::from(self.x), f32::from(self.y))
    }
}

/// Strength of the pull or push of a player's pointer.
const POINTER_STRENGTH: f32 = 300.0;
/// Reach of a player's pointer.
const POINTER_RADIUS: f32 = 160.0;
/// Radius of a rock a player places.
const ROCK_RADIUS: f32 = 30.0;
/// Weight of the goal a player sets.
const GOAL_WEIGHT: f32 = 1.0;

/// The commands that the players' inputs of one frame ask of a run whose
/// scene is `scene`, in player order: the pointer of the last player
/// holding a button draws or drives the school (the attractor is set only
/// when it changes, so a held button is not a command a frame), then each
/// player's presses.
pub(crate) fn commands(
    inputs: impl Iterator<Item = PlayerInput> + Clone,
    scene: &Scene,
) -> Vec<FlockCommand> {
    let mut out = Vec::new();
    let pulling = inputs.clone().filter(|i| i.has(PlayerInput::ATTRACT) || i.has(PlayerInput::REPEL)).last();
    let wanted = pulling.map(|i| Attractor {
        point: i.point(),
        strength: if i.has(PlayerInput::ATTRACT) { POINTER_STRENGTH } else { -POINTER_STRENGTH },
        radius: POINTER_RADIUS,
    });
    if wanted != scene.attractor {
        out.push(FlockCommand::SetAttractor(wanted));
    }
    for input in inputs {
        if input.has(PlayerInput::CLEAR) {
            out.push(FlockCommand::ClearObstacles);
            out.push(FlockCommand::SetGoal(None));
        }
        if input.has(PlayerInput::ROCK) {
            out.push(FlockCommand::AddObstacle(Obstacle { centre: input.point(), radius: ROCK_RADIUS }));
        }
        if input.has(PlayerInput::GOAL) {
            out.push(FlockCommand::SetGoal(Some(Goal {
                mode: GoalMode::Arrive,
                ..Goal::seek(input.point(), GOAL_WEIGHT)
            })));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_pointer_is_one_command_and_presses_one_each() {
        let pull = PlayerInput::pointer(10, -20).with(PlayerInput::ATTRACT);
        let mut scene = Scene::default();
        let first = commands([pull, PlayerInput::default()].into_iter(), &scene);
        assert_eq!(first.len(), 1);
        let FlockCommand::SetAttractor(Some(a)) = first[0].clone() else { panic!("{first:?}") };
        assert_eq!((a.point, a.strength > 0.0), (Vec2::new(10.0, -20.0), true));
        scene.attractor = Some(a);
        assert!(commands([pull, PlayerInput::default()].into_iter(), &scene).is_empty(), "held: nothing new");
        // The second player's push wins over the first's pull (player order).
        let push = PlayerInput::pointer(0, 0).with(PlayerInput::REPEL | PlayerInput::ROCK);
        let both = commands([pull, push].into_iter(), &scene);
        assert!(matches!(&both[0], FlockCommand::SetAttractor(Some(a)) if a.strength < 0.0));
        assert!(matches!(&both[1], FlockCommand::AddObstacle(o) if o.centre == Vec2::ZERO));
        // Let go: the attractor goes.
        let idle = commands([PlayerInput::default(); 2].into_iter(), &scene);
        assert_eq!(idle, vec![FlockCommand::SetAttractor(None)]);
    }

    #[test]
    fn far_pointers_are_held_at_the_ends_of_the_range() {
        let p = PlayerInput::pointer(1 << 20, -(1 << 20));
        assert_eq!((p.x, p.y), (i16::MAX, i16::MIN));
        assert!(PlayerInput::default().with(PlayerInput::GOAL | PlayerInput::ROCK).has(PlayerInput::GOAL));
    }
}
