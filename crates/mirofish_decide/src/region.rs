//! Regions: the named places of a tank an intent may send a unit to.
//!
//! A tank is cut into thirds along each axis: nine regions on a plane
//! (`top_left` … `bottom_right`, `centre`), twenty-seven in a volume
//! (`top_left_front` … `bottom_right_back`, `centre`). A game adds places
//! of its own (`reef`); a point belongs to the region whose centre is
//! nearest, which for the thirds alone is the third it lies in.

use core::fmt;

use mirofish_sim::{TankOf, Vec2, Vector};

use crate::name::{Name, NameError};

/// The name of a region (`top_left`, a game's `reef`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct Region(pub Name);

impl Region {
    /// Top left (on a plane; in a volume at middle depth).
    pub const TOP_LEFT: Region = Region(Name::of("top_left"));
    /// Top middle.
    pub const TOP: Region = Region(Name::of("top"));
    /// Top right.
    pub const TOP_RIGHT: Region = Region(Name::of("top_right"));
    /// Middle right.
    pub const RIGHT: Region = Region(Name::of("right"));
    /// Bottom right.
    pub const BOTTOM_RIGHT: Region = Region(Name::of("bottom_right"));
    /// Bottom middle.
    pub const BOTTOM: Region = Region(Name::of("bottom"));
    /// Bottom left.
    pub const BOTTOM_LEFT: Region = Region(Name::of("bottom_left"));
    /// Middle left.
    pub const LEFT: Region = Region(Name::of("left"));
    /// The middle of the tank.
    pub const CENTRE: Region = Region(Name::of("centre"));

    /// The region called `name`, if it is a name (whether a tank has it is
    /// for its [`Regions`] to say).
    pub fn named(name: &str) -> Result<Self, NameError> {
        Name::new(name).map(Region)
    }

    /// The region's name as written in answers (`top_left`).
    pub fn name(&self) -> &str {
        self.0.as_str()
    }
}

impl fmt::Debug for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

/// In words: "top left".
impl fmt::Display for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

/// One named place of a tank.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Place<V: Vector = Vec2> {
    /// Its name.
    pub region: Region,
    /// Its centre as a fraction of the tank along each axis (0: the
    /// tank's `min`, 1: its `max`), so it follows the tank's size.
    pub at: V,
    /// Whether the rule-based decider's tour of the tank passes it.
    pub tour: bool,
}

/// The regions of a tank, in order: the thirds (the default), and any a
/// game adds.
#[derive(Clone, Debug, PartialEq)]
pub struct Regions<V: Vector = Vec2> {
    places: Vec<Place<V>>,
}

/// The words for the thirds of each axis, low to high (`None`: the middle
/// third, left out of the name). Axis 1 is up; in a volume axis 2 points
/// out of the screen, towards the viewer (the front).
const THIRDS: [[Option<&str>; 3]; 3] = [
    [Some("left"), None, Some("right")],
    [Some("bottom"), None, Some("top")],
    [Some("back"), None, Some("front")],
];

/// The tour round the tank's sides at middle height, clockwise seen from
/// above a volume or looking at a plane: each step a third along one axis
/// (the cells of axes 0 and 1 on a plane, of axes 0 and 2 in a volume).
const RING: [(usize, usize); 8] = [(0, 2), (1, 2), (2, 2), (2, 1), (2, 0), (1, 0), (0, 0), (0, 1)];

impl<V: Vector> Default for Regions<V> {
    /// The thirds: on a plane the eight round the edge clockwise from the
    /// top left, then the centre; in a volume the eight round the sides at
    /// middle height clockwise from the back left seen from above, then the
    /// other eighteen, then the centre. The tour is the first eight.
    fn default() -> Self {
        let name = |cell: [usize; 3]| -> Region {
            // Vertical first, then across, then depth: `top_left_front`.
            let words: Vec<&str> = [1, 0, 2]
                .into_iter()
                .filter(|&axis| axis < V::DIM)
                .filter_map(|axis| THIRDS[axis][cell[axis]])
                .collect();
            let text = if words.is_empty() { "centre".to_string() } else { words.join("_") };
            Region::named(&text).unwrap_or(Region::CENTRE)
        };
        let at = |cell: [usize; 3]| V::from_fn(|axis| (cell[axis] as f32 + 0.5) / 3.0);
        // The ring's second axis: up on a plane, depth in a volume (where
        // a step "up" the ring goes away from the viewer: to the back).
        let ring_axis = if V::DIM == 2 { 1 } else { 2 };
        let mut cells: Vec<[usize; 3]> = RING
            .iter()
            .map(|&(across, other)| {
                let mut cell = [1, 1, 1];
                cell[0] = across;
                cell[ring_axis] = if ring_axis == 2 { 2 - other } else { other };
                cell
            })
            .collect();
        let ring = cells.len();
        let all = (0..3usize.pow(V::DIM as u32)).map(|k| {
            let mut cell = [1, 1, 1];
            for (axis, c) in cell.iter_mut().enumerate().take(V::DIM) {
                *c = k / 3usize.pow(axis as u32) % 3;
            }
            cell
        });
        let rest: Vec<[usize; 3]> = all.filter(|c| !cells.contains(c) && *c != [1, 1, 1]).collect();
        cells.extend(rest);
        cells.push([1, 1, 1]);
        let places = cells
            .into_iter()
            .enumerate()
            .map(|(k, cell)| Place { region: name(cell), at: at(cell), tour: k < ring })
            .collect();
        Self { places }
    }
}

/// Why a place cannot be added.
#[derive(Clone, Debug, PartialEq)]
pub enum PlaceError {
    /// The name is taken.
    Taken(Region),
    /// Its centre is not inside the tank (fractions 0 to 1).
    Outside(Region),
}

impl fmt::Display for PlaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlaceError::Taken(r) => write!(f, "region {}: the name is taken", r.name()),
            PlaceError::Outside(r) => {
                write!(
                    f,
                    "region {}: its centre must be a fraction 0 to 1 of the tank on every axis",
                    r.name()
                )
            }
        }
    }
}

impl std::error::Error for PlaceError {}

impl<V: Vector> Regions<V> {
    /// Every region, in order.
    pub fn places(&self) -> &[Place<V>] {
        &self.places
    }

    /// Adds `place`; refused if its name is taken or its centre is not a
    /// fraction of the tank.
    pub fn add(&mut self, place: Place<V>) -> Result<(), PlaceError> {
        if self.get(place.region).is_some() {
            return Err(PlaceError::Taken(place.region));
        }
        if !(0..V::DIM).all(|axis| (0.0..=1.0).contains(&place.at.axis(axis))) {
            return Err(PlaceError::Outside(place.region));
        }
        self.places.push(place);
        Ok(())
    }

    /// The place called `region`, if the tank has it.
    pub fn get(&self, region: Region) -> Option<&Place<V>> {
        self.places.iter().find(|p| p.region == region)
    }

    /// The region `p` lies in: the one whose centre is nearest (the first
    /// of those as near; a point that is not a number: the first region).
    pub fn of(&self, p: V, tank: &TankOf<V>) -> Region {
        let mut best: Option<(f32, Region)> = None;
        for place in &self.places {
            let d = centre_in(place, tank).distance_squared(p);
            if best.is_none_or(|(b, _)| d < b) {
                best = Some((d, place.region));
            }
        }
        best.or_else(|| self.places.first().map(|p| (0.0, p.region))).map_or(Region::CENTRE, |(_, r)| r)
    }

    /// The centre of `region` in `tank`, if the tank has it.
    pub fn centre(&self, region: Region, tank: &TankOf<V>) -> Option<V> {
        self.get(region).map(|place| centre_in(place, tank))
    }

    /// The next region of the tour after `region` (a region off the tour:
    /// the tour's first; no tour: `region` itself).
    pub fn next_on_tour(&self, region: Region) -> Region {
        let on_tour = self.places.iter().position(|p| p.region == region && p.tour);
        let n = self.places.len();
        let next = match on_tour {
            Some(k) => (1..n).map(|step| &self.places[(k + step) % n]).find(|p| p.tour),
            None => self.places.iter().find(|p| p.tour),
        };
        next.map_or(region, |p| p.region)
    }

    /// The names of every region, as a model is told them.
    pub fn names(&self) -> String {
        self.places.iter().map(|p| p.region.name()).collect::<Vec<_>>().join(", ")
    }
}

/// `place`'s centre in `tank`.
fn centre_in<V: Vector>(place: &Place<V>, tank: &TankOf<V>) -> V {
    tank.min + tank.size().scale_by(place.at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mirofish_sim::{Tank, Tank3d, Vec3};

    #[test]
    fn a_plane_has_nine_regions_that_cover_it_and_name_their_centres() {
        let regions = Regions::<Vec2>::default();
        let tank = Tank::centered(Vec2::new(300.0, 150.0));
        assert_eq!(
            regions.names(),
            "top_left, top, top_right, right, bottom_right, bottom, bottom_left, left, centre"
        );
        for place in regions.places() {
            let r = place.region;
            assert_eq!(regions.of(regions.centre(r, &tank).unwrap(), &tank), r, "{r}");
        }
        assert_eq!(regions.of(Vec2::new(-299.0, 149.0), &tank), Region::TOP_LEFT);
        assert_eq!(regions.of(Vec2::new(1.0e9, -1.0e9), &tank), Region::BOTTOM_RIGHT);
        assert_eq!(regions.of(Vec2::NAN, &tank), regions.of(Vec2::NAN, &tank));
        // The thirds: a point a little inside each third's edge is in it.
        assert_eq!(regions.of(Vec2::new(-51.0, 0.0), &tank), Region::LEFT);
        assert_eq!(regions.of(Vec2::new(-49.0, 26.0), &tank), Region::TOP);
        let mut r = Region::CENTRE;
        for _ in 0..8 {
            r = regions.next_on_tour(r);
        }
        assert_eq!(r, Region::LEFT, "eight steps round the edge from the top left end just before it");
        assert_eq!(regions.next_on_tour(Region::LEFT), Region::TOP_LEFT);
    }

    #[test]
    fn a_volume_has_twenty_seven_and_tours_its_sides() {
        let regions = Regions::<Vec3>::default();
        let tank = Tank3d::centered(Vec3::new(300.0, 150.0, 90.0));
        assert_eq!(regions.places().len(), 27);
        let names = regions.names();
        for name in ["top_left_front", "bottom_right_back", "left_back", "front", "top", "centre"] {
            assert!(names.split(", ").any(|n| n == name), "{name} in {names}");
        }
        for place in regions.places() {
            let r = place.region;
            assert_eq!(regions.of(regions.centre(r, &tank).unwrap(), &tank), r, "{r}");
        }
        // Up is axis 1, the front is towards larger z.
        assert_eq!(regions.of(Vec3::new(-140.0, 70.0, 40.0), &tank).name(), "top_left_front");
        assert_eq!(regions.of(Vec3::new(0.0, -70.0, -40.0), &tank).name(), "bottom_back");
        let tour: Vec<String> = core::iter::successors(Some(regions.next_on_tour(Region::CENTRE)), |&r| {
            Some(regions.next_on_tour(r))
        })
        .take(8)
        .map(|r| r.name().to_string())
        .collect();
        assert_eq!(
            tour,
            ["left_back", "back", "right_back", "right", "right_front", "front", "left_front", "left"]
        );
    }

    #[test]
    fn a_game_adds_its_own_place() {
        let mut regions = Regions::<Vec2>::default();
        let reef = Region::named("reef").unwrap();
        regions.add(Place { region: reef, at: Vec2::new(0.9, 0.1), tour: false }).unwrap();
        let tank = Tank::centered(Vec2::new(300.0, 150.0));
        assert!(regions.centre(reef, &tank).unwrap().distance(Vec2::new(120.0, -60.0)) < 1e-3);
        assert_eq!(regions.of(Vec2::new(118.0, -58.0), &tank), reef);
        assert_eq!(
            regions.add(Place { region: Region::TOP, at: Vec2::splat(0.5), tour: false }),
            Err(PlaceError::Taken(Region::TOP))
        );
        let sky = Region::named("sky").unwrap();
        let e = regions.add(Place { region: sky, at: Vec2::new(0.5, 1.5), tour: false }).unwrap_err();
        assert!(e.to_string().contains("fraction 0 to 1"), "{e}");
        assert!(regions.add(Place { region: sky, at: Vec2::new(f32::NAN, 0.5), tour: false }).is_err());
        // Off the tour: the tour starts again at its first.
        assert_eq!(regions.next_on_tour(reef), Region::TOP_LEFT);
    }
}
