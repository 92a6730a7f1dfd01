//! Several schools in one tank: each fish belongs to a school, and
//! each school has its own [`FlockParams`].
//!
//! The flock's passes take any [`SchoolTable`]: a single `FlockParams` is a
//! table of one school (so single-school code reads as before), a slice or
//! `Vec` of them is a table of many. Fish whose school index lies beyond the
//! table use its last entry; the engine refuses such a fish
//! ([`Swarm::add_fish`](crate::space::Swarm::add_fish)).

use super::params::FlockParams;

/// Most schools a configuration may hold (school numbers are `u16`).
pub const MAX_SCHOOLS: usize = 1024;

/// The parameters of every school, indexed by school number.
pub trait SchoolTable {
    /// The table; never empty.
    fn table(&self) -> &[FlockParams];
}

impl SchoolTable for FlockParams {
    fn table(&self) -> &[FlockParams] {
        core::slice::from_ref(self)
    }
}

impl SchoolTable for [FlockParams] {
    fn table(&self) -> &[FlockParams] {
        self
    }
}

impl SchoolTable for Vec<FlockParams> {
    fn table(&self) -> &[FlockParams] {
        self
    }
}

impl<const N: usize> SchoolTable for [FlockParams; N] {
    fn table(&self) -> &[FlockParams] {
        self
    }
}

/// The school index a fish uses: its own, or the table's last if it lies
/// beyond.
#[inline]
pub(crate) fn clamp_index(school: u16, len: usize) -> usize {
    (school as usize).min(len.saturating_sub(1))
}
