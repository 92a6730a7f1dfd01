//! How fish, predators and rocks look on a plane: [`FishLookPlugin`].
//!
//! Every fish is a `Sprite` of the same white fish picture, tinted: Bevy
//! batches sprites that share an image into instanced draws, so ten
//! thousand fish cost a handful of draw calls. The picture is a strip of
//! [`TAIL_FRAMES`] frames of one tail stroke; each fish shows the frame of
//! its own [`TailBeat`]. The sprite's +X axis is the fish's head; the core
//! plugin's interpolation turns it along the velocity, and the look beats
//! its tail, stretches it with speed and colours it ([`FishLook`]).

use bevy::asset::RenderAssetUsages;
use bevy::image::{CompressedImageFormats, ImageSampler, ImageType};
use bevy::prelude::*;
use mirofish_bevy::prelude::*;
use mirofish_sim::rules::RuleForces;

/// Length and width of a fish sprite at cruising speed (world units).
pub const FISH_SIZE: Vec2 = Vec2::new(20.0, 10.0);

/// Frames in the fish picture's strip: one stroke of the tail.
pub const TAIL_FRAMES: u32 = 8;
/// Size of one frame of the fish picture (pixels).
const FRAME_SIZE: UVec2 = UVec2::new(48, 24);

/// The shared fish picture and its frames.
#[derive(Resource, Clone, Debug)]
pub struct FishImage {
    /// The strip of [`TAIL_FRAMES`] frames.
    pub image: Handle<Image>,
    /// Where each frame lies in the strip.
    pub frames: Handle<TextureAtlasLayout>,
}

impl FishImage {
    /// The picture built into the program, added to `images` with its
    /// frames to `layouts` (what [`FishLookPlugin`] does at start; a game
    /// that draws fish of its own, e.g. a networked school's, calls it).
    pub fn new(images: &mut Assets<Image>, layouts: &mut Assets<TextureAtlasLayout>) -> Self {
        let image = Image::from_buffer(
            FISH_PNG,
            ImageType::Extension("png"),
            CompressedImageFormats::NONE,
            true,
            ImageSampler::Default,
            RenderAssetUsages::RENDER_WORLD,
        )
        .expect("the fish picture built into the program is a valid PNG");
        let frames = TextureAtlasLayout::from_grid(FRAME_SIZE, TAIL_FRAMES, 1, None, None);
        Self { image: images.add(image), frames: layouts.add(frames) }
    }

    /// A sprite of frame `frame` of the picture, tinted `colour`, `size`
    /// world units long and wide.
    pub fn sprite(&self, frame: usize, colour: Color, size: Vec2) -> Sprite {
        Sprite {
            color: colour,
            custom_size: Some(size),
            ..Sprite::from_atlas_image(
                self.image.clone(),
                TextureAtlas { layout: self.frames.clone(), index: frame },
            )
        }
    }
}

/// Where a fish is in its tail stroke, in turns (`0..1`). It advances
/// faster the faster the fish swims: a real fish's tail-beat frequency grows
/// about in proportion to its speed.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
pub struct TailBeat(pub f32);

impl TailBeat {
    /// Tail beats per second at rest and per unit of speed / max speed.
    pub const RATE: (f32, f32) = (1.2, 3.4);

    /// A starting point for `entity`'s stroke, spread over the stroke so
    /// that neighbours do not beat in step.
    pub fn starting(entity: Entity) -> Self {
        let mixed = entity.to_bits().wrapping_mul(0x9E37_79B9_7F4A_7C15);
        Self((mixed >> 40) as f32 / (1u64 << 24) as f32)
    }

    /// Moves the stroke on by `dt` seconds at relative speed `s`
    /// (speed / max speed) and gives the frame to show.
    pub fn advance(&mut self, dt: f32, s: f32) -> usize {
        let rate = Self::RATE.0 + Self::RATE.1 * s.clamp(0.0, 2.0);
        let next = (self.0 + rate * dt.max(0.0)).fract();
        self.0 = if next.is_finite() { next } else { 0.0 };
        ((self.0 * TAIL_FRAMES as f32) as usize).min(TAIL_FRAMES as usize - 1)
    }
}

/// The colour of a predator (sRGB).
pub const PREDATOR_COLOUR: Color = Color::srgb(0.9, 0.12, 0.18);

/// How fish are coloured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ColourMode {
    /// By school (the configuration's colours).
    #[default]
    School,
    /// By speed: slow blue to fast yellow.
    Speed,
    /// By the rule that pulls hardest on each fish.
    Rule,
}

impl ColourMode {
    /// Every mode, in the order `M` cycles through them.
    pub const ALL: [ColourMode; 3] = [ColourMode::School, ColourMode::Speed, ColourMode::Rule];

    /// The next mode.
    pub fn next(self) -> Self {
        let i = Self::ALL.iter().position(|m| *m == self).unwrap_or(0);
        Self::ALL[(i + 1) % Self::ALL.len()]
    }

    /// Name shown in the panel.
    pub fn label(self) -> &'static str {
        match self {
            ColourMode::School => "school",
            ColourMode::Speed => "speed",
            ColourMode::Rule => "strongest rule",
        }
    }
}

/// Colour of each rule in the force overlay and the rule colour mode, in
/// the order of [`rule_parts`].
pub const RULE_COLOURS: [(&str, Color); 8] = [
    ("separation", Color::srgb(1.0, 0.3, 0.3)),
    ("alignment", Color::srgb(0.3, 0.9, 0.4)),
    ("cohesion", Color::srgb(0.35, 0.55, 1.0)),
    ("wander", Color::srgb(0.8, 0.8, 0.8)),
    ("walls", Color::srgb(1.0, 0.85, 0.2)),
    ("obstacles", Color::srgb(0.7, 0.45, 1.0)),
    ("flee", Color::srgb(1.0, 0.5, 0.0)),
    ("goal", Color::srgb(0.2, 0.95, 0.95)),
];

/// The rule forces as an array in the order of [`RULE_COLOURS`] (of a
/// plane's fish or a volume's).
pub fn rule_parts<V: mirofish_sim::Vector>(r: &RuleForces<V>) -> [V; 8] {
    [r.separation, r.alignment, r.cohesion, r.wander, r.boundary, r.obstacle, r.flee, r.goal]
}

/// Index into [`RULE_COLOURS`] of the largest force; `None` if all are 0.
pub fn strongest_rule(r: &RuleForces) -> Option<usize> {
    let parts = rule_parts(r);
    let (i, len) = parts
        .iter()
        .map(|f| f.length_squared())
        .enumerate()
        .fold((0, 0.0), |best, (i, l)| if l > best.1 { (i, l) } else { best });
    (len > 0.0).then_some(i)
}

/// How the fish look: their colouring and size. The panel of a game (or a
/// key) may change it at any time.
#[derive(Resource, Clone, Copy, Debug, PartialEq)]
pub struct FishLook {
    /// How fish are coloured.
    pub colours: ColourMode,
    /// Length and width of a fish at cruising speed (world units);
    /// predators are 4.5 times as large.
    pub size: Vec2,
}

impl Default for FishLook {
    fn default() -> Self {
        Self { colours: ColourMode::School, size: FISH_SIZE }
    }
}

/// Draws every fish ([`Boid`]) as a tinted sprite of one shared fish
/// picture that beats its tail faster the faster it swims and stretches
/// with speed, every predator ([`Predator2d`]) as a large red fish, and
/// every rock ([`Obstacle2d`]) as a grey rock filling its circle, behind
/// the fish ([`RockImage`]). Each is dressed in the first `Update` after it
/// arrives; one that already has a `Sprite` (a game's own) is left as it is.
/// Needs Bevy's 2D renderer (`DefaultPlugins`) and
/// [`mirofish_bevy::MiroFishPlugin`]; reads and keeps a [`FishLook`].
///
/// The picture is built into the program: nothing to load from an
/// `assets/` folder.
pub struct FishLookPlugin;

impl Plugin for FishLookPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<FishLook>()
            .add_systems(PreStartup, load_fish_image)
            .add_systems(Update, (dress, animate_fish).chain());
    }
}

/// The fish picture, built into the program so that it draws fish wherever
/// it is run from (no `assets/` folder needed beside it).
const FISH_PNG: &[u8] = include_bytes!("../../../assets/sprites/fish.png");

/// The rock picture every obstacle is drawn with (computed at start,
/// [`crate::picture::rock_pixels`]).
#[derive(Resource, Clone, Debug)]
pub struct RockImage(pub Handle<Image>);

/// Size of the rock picture (pixels).
const ROCK_SIZE: usize = 128;

fn load_fish_image(
    mut commands: Commands,
    mut images: ResMut<Assets<Image>>,
    mut layouts: ResMut<Assets<TextureAtlasLayout>>,
) {
    commands.insert_resource(FishImage::new(&mut images, &mut layouts));
    let rock = crate::picture::rgba_image(crate::picture::rock_pixels(ROCK_SIZE), ROCK_SIZE, ROCK_SIZE);
    commands.insert_resource(RockImage(images.add(rock)));
}

fn school_colour(config: &FlockConfig, school: Option<&School>) -> Color {
    let [r, g, b] = config.colour_of(school.map_or(0, |s| s.0));
    Color::srgb(r, g, b)
}

/// Gives every fish, predator and rock without a sprite its look: those
/// that arrived since the last frame (whenever and however they were
/// spawned), but not one a game has given a sprite of its own.
#[expect(clippy::type_complexity, reason = "each kind of entity that is dressed")]
fn dress(
    mut commands: Commands,
    (image, rock): (Option<Res<FishImage>>, Option<Res<RockImage>>),
    look: Res<FishLook>,
    config: Res<FlockConfig>,
    fish: Query<(Entity, Option<&School>), (With<Boid>, Without<Sprite>)>,
    mut predators: Query<(Entity, &mut Transform), (With<Predator2d>, Without<Sprite>)>,
    mut rocks: Query<(Entity, &Obstacle2d, &mut Transform), (Without<Sprite>, Without<Predator2d>)>,
) {
    if let Some(rock) = rock {
        for (entity, obstacle, mut t) in &mut rocks {
            // Behind the fish.
            t.translation.z = -1.0;
            let radius = if obstacle.radius.is_finite() { obstacle.radius.max(0.5) } else { 0.5 };
            commands.entity(entity).insert(Sprite {
                image: rock.0.clone(),
                custom_size: Some(Vec2::splat(radius * 2.0)),
                ..default()
            });
        }
    }
    let Some(image) = image else { return };
    for (entity, school) in &fish {
        let colour = school_colour(&config, school);
        let beat = TailBeat::starting(entity);
        let frame = (beat.0 * TAIL_FRAMES as f32) as usize;
        commands.entity(entity).insert((image.sprite(frame, colour, look.size), beat));
    }
    for (entity, mut t) in &mut predators {
        // Above the fish.
        t.translation.z = 2.0;
        commands.entity(entity).insert(image.sprite(0, PREDATOR_COLOUR, look.size * 4.5));
    }
}

/// Beats each fish's tail and stretches it with its speed (longer and
/// thinner when fast), and colours it by the chosen mode.
fn animate_fish(
    time: Res<Time>,
    look: Res<FishLook>,
    config: Res<FlockConfig>,
    state: Res<FlockState>,
    mut fish: Query<
        (Entity, &FishId, &Velocity, Option<&School>, &mut TailBeat, &mut Transform, &mut Sprite),
        With<Boid>,
    >,
    mut last_mode: Local<Option<ColourMode>>,
) {
    let table = config.school_table();
    let mode = look.colours;
    let recolour = mode != ColourMode::School || *last_mode != Some(mode);
    *last_mode = Some(mode);
    let dt = time.delta_secs();
    fish.par_iter_mut().for_each(|(entity, id, v, school, mut beat, mut t, mut sprite)| {
        let params = table[usize::from(school.map_or(0, |s| s.0)).min(table.len() - 1)];
        let s = (v.0.length() / params.max_speed.max(1e-3)).clamp(0.0, 2.0);
        t.scale = Vec3::new(0.7 + 0.45 * s, 1.1 - 0.25 * s.min(1.0), 1.0);
        let frame = beat.advance(dt, s);
        // Read before writing: a sprite is marked changed only when its
        // frame does change.
        if sprite.texture_atlas.as_ref().is_some_and(|atlas| atlas.index != frame)
            && let Some(atlas) = sprite.texture_atlas.as_mut()
        {
            atlas.index = frame;
        }
        if !recolour {
            return;
        }
        sprite.color = match mode {
            ColourMode::School => school_colour(&config, school),
            ColourMode::Speed => {
                Color::srgb(0.25 + 0.75 * s.min(1.0), 0.35 + 0.6 * s.min(1.0), 1.0 - 0.8 * s.min(1.0))
            }
            ColourMode::Rule => {
                // The tick's per-fish samples, by the fish's slot (none
                // yet for a fish spawned since).
                let rule = state
                    .slot_of(entity, *id)
                    .and_then(|slot| strongest_rule(&state.flock().sample(slot)?.rules));
                rule.map_or(Color::srgb(0.5, 0.5, 0.5), |i| RULE_COLOURS[i].1)
            }
        };
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strongest_rule_and_modes() {
        let mut r = RuleForces::default();
        assert_eq!(strongest_rule(&r), None);
        r.cohesion = Vec2::new(3.0, 0.0);
        r.flee = Vec2::new(0.0, -4.0);
        assert_eq!(RULE_COLOURS[strongest_rule(&r).unwrap()].0, "flee");
        assert_eq!(ColourMode::School.next().next().next(), ColourMode::School);
    }

    #[test]
    fn tails_beat_faster_when_swimming_faster() {
        let strokes = |s: f32| {
            let mut beat = TailBeat(0.0);
            let mut frames = Vec::new();
            let mut turns = 0;
            for _ in 0..600 {
                let before = beat.0;
                frames.push(beat.advance(1.0 / 60.0, s));
                turns += usize::from(beat.0 < before);
            }
            assert!(frames.iter().all(|&f| f < TAIL_FRAMES as usize));
            turns
        };
        // Ten seconds: 1.2 beats a second at rest, 4.6 at top speed.
        assert!((11..=13).contains(&strokes(0.0)), "{}", strokes(0.0));
        assert!((45..=47).contains(&strokes(1.0)), "{}", strokes(1.0));
        // Every frame shows at cruising speed; hostile steps stay in range.
        let mut beat = TailBeat(0.0);
        let seen: std::collections::BTreeSet<usize> =
            (0..120).map(|_| beat.advance(1.0 / 60.0, 0.5)).collect();
        assert_eq!(seen.len(), TAIL_FRAMES as usize);
        for dt in [f32::NAN, f32::INFINITY, -1.0, 1e30] {
            let mut beat = TailBeat(0.3);
            assert!(beat.advance(dt, f32::NAN) < TAIL_FRAMES as usize);
            assert!((0.0..1.0).contains(&beat.0), "{dt}: {}", beat.0);
        }
        let a = TailBeat::starting(Entity::PLACEHOLDER);
        assert!((0.0..1.0).contains(&a.0));
    }
}
