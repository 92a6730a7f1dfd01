//! What a player sends each frame: a pointer and a few buttons, a handful
//! of bytes (GGRS sends every frame's input, and repeats the last one as
//! its prediction of the next).

use mirofish_sim::step::command::FlockCommand;
use mirofish_sim::{Attractor, Goal, GoalMode, Obstacle, Predator, Scene, Vec2};
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
    /// Held: the player's own predator at the pointer, following it.
    pub const PREDATOR: u8 = 32;

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
/// Fear radius of a player's predator.
const PREDATOR_FEAR: f32 = 140.0;

/// The commands that the players' inputs of one frame ask of a run whose
/// scene is `scene`, whose first `own` predators are the scene's own (the
/// players' come after them): the players' predators (one per player
/// holding [`PlayerInput::PREDATOR`], in player order, each moved only when
/// its pointer moved), the pointer of the last player holding a button
/// draws or drives the school (the attractor is set only when it changes,
/// so a held button is not a command a frame), then each player's presses.
pub(crate) fn commands(
    inputs: impl Iterator<Item = PlayerInput> + Clone,
    scene: &Scene,
    own: usize,
) -> Vec<FlockCommand> {
    let mut out = Vec::new();
    let hunters: Vec<Vec2> =
        inputs.clone().filter(|i| i.has(PlayerInput::PREDATOR)).map(PlayerInput::point).collect();
    let players = scene.predators.get(own..).unwrap_or_default();
    if hunters.len() == players.len() {
        for (k, (&to, predator)) in hunters.iter().zip(players).enumerate() {
            if predator.position != to {
                out.push(FlockCommand::MovePredator { predator: own + k, to });
            }
        }
    } else {
        // A player took or let go of a predator: the players' predators
        // anew, one per player holding the button. Still, and not
        // chasing: each stays where its pointer puts it.
        out.extend((own..own + players.len()).rev().map(FlockCommand::RemovePredator));
        let still = |at| Predator { chase: false, ..Predator::new(at, PREDATOR_FEAR) };
        out.extend(hunters.iter().map(|&at| FlockCommand::AddPredator(still(at))));
    }
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
        let first = commands([pull, PlayerInput::default()].into_iter(), &scene, 0);
        assert_eq!(first.len(), 1);
        let FlockCommand::SetAttractor(Some(a)) = first[0].clone() else { panic!("{first:?}") };
        assert_eq!((a.point, a.strength > 0.0), (Vec2::new(10.0, -20.0), true));
        scene.attractor = Some(a);
        assert!(
            commands([pull, PlayerInput::default()].into_iter(), &scene, 0).is_empty(),
            "held: nothing new"
        );
        // The second player's push wins over the first's pull (player order).
        let push = PlayerInput::pointer(0, 0).with(PlayerInput::REPEL | PlayerInput::ROCK);
        let both = commands([pull, push].into_iter(), &scene, 0);
        assert!(matches!(&both[0], FlockCommand::SetAttractor(Some(a)) if a.strength < 0.0));
        assert!(matches!(&both[1], FlockCommand::AddObstacle(o) if o.centre == Vec2::ZERO));
        // Let go: the attractor goes.
        let idle = commands([PlayerInput::default(); 2].into_iter(), &scene, 0);
        assert_eq!(idle, vec![FlockCommand::SetAttractor(None)]);
    }

    #[test]
    fn each_player_holding_the_button_has_a_predator_at_the_pointer() {
        let mut sim = mirofish_sim::Simulation::new(Default::default(), Default::default(), 50, 1).unwrap();
        sim.edit_scene(|scene| scene.predators.push(Predator::new(Vec2::new(300.0, 0.0), 100.0))).unwrap();
        let own = sim.scene().predators.len();
        let hunt = |x, y| PlayerInput::pointer(x, y).with(PlayerInput::PREDATOR);
        let mut play = |inputs: [PlayerInput; 2]| {
            for command in commands(inputs.into_iter(), sim.scene(), own) {
                sim.submit(command).unwrap();
            }
            sim.step();
            let players = sim.scene().predators[own..].iter().map(|p| p.position).collect::<Vec<_>>();
            (players, sim.applied().len())
        };
        let (players, _) = play([hunt(10, 20), PlayerInput::default()]);
        assert_eq!(players, [Vec2::new(10.0, 20.0)]);
        let (players, n) = play([hunt(10, 20), hunt(-40, 5)]);
        assert_eq!(players, [Vec2::new(10.0, 20.0), Vec2::new(-40.0, 5.0)]);
        // Held still: no command; moved: one.
        let (_, still) = play([hunt(10, 20), hunt(-40, 5)]);
        assert_eq!(still, n);
        let (players, moved) = play([hunt(10, 20), hunt(-50, 5)]);
        assert_eq!((players[1], moved), (Vec2::new(-50.0, 5.0), n + 1));
        // Let go: the players' predators go, the scene's own stays.
        let (players, _) = play([PlayerInput::default(); 2]);
        assert!(players.is_empty());
        assert_eq!(sim.scene().predators.len(), 1);
    }

    #[test]
    fn far_pointers_are_held_at_the_ends_of_the_range() {
        let p = PlayerInput::pointer(1 << 20, -(1 << 20));
        assert_eq!((p.x, p.y), (i16::MAX, i16::MIN));
        assert!(PlayerInput::default().with(PlayerInput::GOAL | PlayerInput::ROCK).has(PlayerInput::GOAL));
    }
}
