//! Several schools in one tank (F14): each fish belongs to a school, and
//! each school has its own [`FlockParams`].
//!
//! The flock's passes take any [`SchoolTable`]: a single `FlockParams` is a
//! table of one school (so single-school code reads as before), a slice or
//! `Vec` of them is a table of many. Fish whose school index lies beyond the
//! table use its last entry; [`crate::Flock::step`] rejects them instead.

use crate::params::FlockParams;
use crate::rules::Reach;
use crate::view::View;

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

/// What the force kernel precomputes per school and tick.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SchoolCache {
    /// Radii.
    pub reach: Reach,
    /// Field of view and weights.
    pub view: View,
    /// Whether this school's fish need the shaped scan.
    pub shaped: bool,
}

impl SchoolCache {
    /// The cache for `params`; `others` says whether other schools share
    /// the tank (only then does `sees_other_schools` matter).
    pub fn new(params: &FlockParams, others: bool, leaders: bool) -> Self {
        let view = View::new(params);
        let shaped = view.is_shaped()
            || (leaders && params.leader_weight != 1.0)
            || (others && !params.sees_other_schools);
        Self { reach: Reach::new(params), view, shaped }
    }
}

/// The school index a fish uses: its own, or the table's last if it lies
/// beyond.
#[inline]
pub(crate) fn clamp_index(school: u16, len: usize) -> usize {
    (school as usize).min(len.saturating_sub(1))
}
