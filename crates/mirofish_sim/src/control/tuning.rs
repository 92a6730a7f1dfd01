//! Every numeric parameter by name, with the range a user interface or a
//! sweep may move it over.
//!
//! The aquarium's sliders, the experiment runner's `--param` and the sweep
//! all go through [`KNOBS`], so a parameter added to [`FlockParams`] and
//! listed here is at once tunable everywhere. The ranges are narrower than
//! what [`FlockParams::validate`] accepts: they are the span where the
//! parameter does something visible, and a test runs the simulation at
//! both ends of every one of them (alone and all together) to show that no
//! position on any slider can produce NaN or infinity.

use crate::world::params::FlockParams;

/// One tunable parameter.
#[derive(Clone, Copy, Debug)]
pub struct Knob {
    /// Field name in [`FlockParams`] and in configuration files.
    pub name: &'static str,
    /// Group shown in user interfaces.
    pub group: &'static str,
    /// Smallest value offered.
    pub min: f32,
    /// Largest value offered.
    pub max: f32,
    /// Reads the value.
    pub get: fn(&FlockParams) -> f32,
    /// Writes the value (clamped into `min..=max` by [`Knob::set_clamped`]).
    pub set: fn(&mut FlockParams, f32),
}

impl Knob {
    /// Sets the value, clamped into the knob's range; NaN is ignored.
    pub fn set_clamped(&self, params: &mut FlockParams, value: f32) {
        if !value.is_nan() {
            (self.set)(params, value.clamp(self.min, self.max));
        }
    }
}

macro_rules! knob {
    ($name:ident, $group:literal, $min:expr, $max:expr) => {
        Knob {
            name: stringify!($name),
            group: $group,
            min: $min,
            max: $max,
            get: |p| p.$name,
            set: |p, v| p.$name = v,
        }
    };
}

/// Every numeric parameter of [`FlockParams`], grouped as a panel shows
/// them. (The two switches, `sees_other_schools` and `match_speed`, are not
/// numbers and are not listed.)
pub const KNOBS: [Knob; 29] = [
    knob!(separation_weight, "rules", 0.0, 5.0),
    knob!(alignment_weight, "rules", 0.0, 5.0),
    knob!(cohesion_weight, "rules", 0.0, 5.0),
    knob!(wander_weight, "rules", 0.0, 2.0),
    knob!(perception_radius, "radii", 5.0, 200.0),
    knob!(separation_radius, "radii", 0.0, 100.0),
    knob!(separation_floor, "radii", 0.1, 20.0),
    knob!(max_speed, "motion", 0.0, 600.0),
    knob!(cruise_speed, "motion", 0.0, 600.0),
    knob!(cruise_time, "motion", 0.05, 5.0),
    knob!(turn_rate, "motion", 0.0, 20.0),
    knob!(max_force, "motion", 0.0, 3000.0),
    knob!(reaction_time, "motion", 0.005, 2.0),
    knob!(wander_rate, "motion", 0.0, 10.0),
    knob!(jitter, "motion", 0.0, 1.0),
    knob!(view_angle, "vision", 0.0, core::f32::consts::TAU),
    knob!(front_weight, "vision", 0.0, 2.0),
    knob!(side_weight, "vision", 0.0, 2.0),
    knob!(back_weight, "vision", 0.0, 2.0),
    knob!(distance_falloff, "vision", 0.0, 1.0),
    knob!(leader_weight, "scene", 0.0, 20.0),
    knob!(obstacle_weight, "scene", 0.0, 10.0),
    knob!(obstacle_look, "scene", 0.0, 200.0),
    knob!(flee_weight, "scene", 0.0, 10.0),
    knob!(panic_speed, "scene", 1.0, 3.0),
    knob!(panic_separation, "scene", 1.0, 5.0),
    knob!(calm_rate, "scene", 0.0, 5.0),
    Knob {
        name: "neighbour_cap",
        group: "crowding",
        min: 1.0,
        max: crate::world::params::MAX_NEIGHBOUR_CAP as f32,
        get: |p| p.neighbour_cap as f32,
        set: |p, v| p.neighbour_cap = v.round() as u32,
    },
    Knob {
        name: "topological_neighbours",
        group: "crowding",
        min: 0.0,
        max: crate::world::params::MAX_TOPOLOGICAL_NEIGHBOURS as f32,
        get: |p| p.topological_neighbours as f32,
        set: |p, v| p.topological_neighbours = v.round() as u32,
    },
];

/// The knob of a parameter, by its field name.
pub fn knob(name: &str) -> Option<&'static Knob> {
    KNOBS.iter().find(|k| k.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_ranges_are_valid() {
        for (i, k) in KNOBS.iter().enumerate() {
            assert!(KNOBS[..i].iter().all(|o| o.name != k.name), "{} listed twice", k.name);
            assert!(k.min < k.max, "{}", k.name);
            for v in [k.min, k.max] {
                let mut p = FlockParams::default();
                (k.set)(&mut p, v);
                assert_eq!((k.get)(&p), v);
                p.validate().unwrap_or_else(|e| panic!("{} = {v}: {e}", k.name));
            }
        }
    }

    #[test]
    fn every_numeric_field_has_a_knob() {
        // Read the field list from the serialized form, so a field added to
        // FlockParams without a knob fails here.
        let text = ron::to_string(&FlockParams::default()).unwrap();
        let value: ron::Value = ron::from_str(&text).unwrap();
        let ron::Value::Map(fields) = value else { panic!("{text}") };
        let numeric: Vec<String> = fields
            .iter()
            .filter(|(_, v)| matches!(v, ron::Value::Number(_)))
            .map(|(k, _)| match k {
                ron::Value::String(s) => s.clone(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(numeric.len(), KNOBS.len(), "{numeric:?}");
        for name in numeric {
            assert!(knob(&name).is_some(), "no knob for {name}");
        }
    }

    #[test]
    fn defaults_lie_inside_the_ranges() {
        let p = FlockParams::default();
        for k in &KNOBS {
            let v = (k.get)(&p);
            assert!((k.min..=k.max).contains(&v), "{} = {v} outside {}..={}", k.name, k.min, k.max);
        }
        let mut q = p;
        knob("jitter").unwrap().set_clamped(&mut q, 7.0);
        assert_eq!(q.jitter, 1.0);
        knob("jitter").unwrap().set_clamped(&mut q, f32::NAN);
        assert_eq!(q.jitter, 1.0);
        assert!(knob("nope").is_none());
    }
}
