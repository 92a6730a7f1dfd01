//! How fish, predators and obstacles look.
//!
//! Every fish is a `Sprite` of the same white fish image, tinted: Bevy
//! batches sprites that share an image into instanced draws, so ten
//! thousand fish cost a handful of draw calls. The sprite's +X axis is the
//! fish's head; the plugin's interpolation turns it along the velocity, and
//! [`stretch_and_colour`] stretches it with speed and recolours it.

use bevy::asset::RenderAssetUsages;
use bevy::image::{CompressedImageFormats, ImageSampler, ImageType};
use bevy::prelude::*;
use mirofish_bevy::prelude::*;
use mirofish_sim::rules::RuleForces;

use super::AquariumSettings;

/// Length and width of a fish sprite at cruising speed (world units).
pub const FISH_SIZE: Vec2 = Vec2::new(20.0, 10.0);

/// The shared fish image.
#[derive(Resource, Clone, Debug)]
pub struct FishImage(pub Handle<Image>);

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

/// The rule forces as an array in the order of [`RULE_COLOURS`].
pub fn rule_parts(r: &RuleForces) -> [Vec2; 8] {
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

pub(super) struct VisualsPlugin;

impl Plugin for VisualsPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(PreStartup, load_fish_image)
            .add_observer(dress_fish)
            .add_observer(dress_predator)
            .add_observer(dress_obstacle)
            .add_systems(Update, stretch_and_colour);
    }
}

/// The fish picture, built into the program so that it draws fish wherever
/// it is run from (no `assets/` folder needed beside it).
const FISH_PNG: &[u8] = include_bytes!("../../../../assets/sprites/fish.png");

fn load_fish_image(mut commands: Commands, mut images: ResMut<Assets<Image>>) {
    let image = Image::from_buffer(
        FISH_PNG,
        ImageType::Extension("png"),
        CompressedImageFormats::NONE,
        true,
        ImageSampler::Default,
        RenderAssetUsages::RENDER_WORLD,
    )
    .expect("the fish picture built into the program is a valid PNG");
    commands.insert_resource(FishImage(images.add(image)));
}

fn school_colour(config: &FlockConfig, school: Option<&School>) -> Color {
    let [r, g, b] = config.colour_of(school.map_or(0, |s| s.0));
    Color::srgb(r, g, b)
}

fn dress_fish(
    add: On<Add, Boid>,
    mut commands: Commands,
    image: Res<FishImage>,
    config: Res<FlockConfig>,
    schools: Query<Option<&School>>,
) {
    let colour = school_colour(&config, schools.get(add.entity).ok().flatten());
    commands.entity(add.entity).insert(Sprite {
        image: image.0.clone(),
        color: colour,
        custom_size: Some(FISH_SIZE),
        ..default()
    });
}

fn dress_predator(
    add: On<Add, Predator2d>,
    mut commands: Commands,
    image: Res<FishImage>,
    mut t: Query<&mut Transform>,
) {
    if let Ok(mut t) = t.get_mut(add.entity) {
        t.translation.z = 2.0;
    }
    commands.entity(add.entity).insert(Sprite {
        image: image.0.clone(),
        color: Color::srgb(0.9, 0.12, 0.18),
        custom_size: Some(FISH_SIZE * 4.5),
        ..default()
    });
}

fn dress_obstacle(
    add: On<Add, Obstacle2d>,
    mut commands: Commands,
    obstacles: Query<&Obstacle2d>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<ColorMaterial>>,
    mut t: Query<&mut Transform>,
) {
    let Ok(obstacle) = obstacles.get(add.entity) else { return };
    if let Ok(mut t) = t.get_mut(add.entity) {
        t.translation.z = -1.0;
    }
    commands.entity(add.entity).insert((
        Mesh2d(meshes.add(Circle::new(obstacle.radius.max(0.5)))),
        MeshMaterial2d(materials.add(Color::srgb(0.22, 0.3, 0.38))),
    ));
}

/// Stretches each fish with its speed (longer and thinner when fast) and
/// colours it by the chosen mode.
fn stretch_and_colour(
    settings: Res<AquariumSettings>,
    config: Res<FlockConfig>,
    state: Res<FlockState>,
    mut fish: Query<(Entity, &FishSlot, &Velocity, Option<&School>, &mut Transform, &mut Sprite), With<Boid>>,
    mut last_mode: Local<Option<ColourMode>>,
) {
    let table = config.school_table();
    let mode = settings.colour_mode;
    let recolour = mode != ColourMode::School || *last_mode != Some(mode);
    *last_mode = Some(mode);
    fish.par_iter_mut().for_each(|(entity, slot, v, school, mut t, mut sprite)| {
        let params = table[usize::from(school.map_or(0, |s| s.0)).min(table.len() - 1)];
        let s = (v.0.length() / params.max_speed.max(1e-3)).clamp(0.0, 2.0);
        t.scale = Vec3::new(0.7 + 0.45 * s, 1.1 - 0.25 * s.min(1.0), 1.0);
        if !recolour {
            return;
        }
        sprite.color = match mode {
            ColourMode::School => school_colour(&config, school),
            ColourMode::Speed => {
                Color::srgb(0.25 + 0.75 * s.min(1.0), 0.35 + 0.6 * s.min(1.0), 1.0 - 0.8 * s.min(1.0))
            }
            ColourMode::Rule => {
                // The tick's per-fish samples, by the slot the fish was
                // gathered into (none yet for a fish spawned since).
                let rule = slot
                    .get()
                    .filter(|&slot| state.entities().get(slot) == Some(&entity))
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
}
