//! What the force passes (the plane's kernel and the generic engine's)
//! precompute per school at the start of a tick.

use crate::rules::Reach;
use crate::rules::view::View;
use crate::world::params::FlockParams;

/// What the force passes precompute per school and tick.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SchoolCache {
    /// Radii.
    pub reach: Reach,
    /// Field of view and weights.
    pub view: View,
    /// Whether this school's fish need the one-fish scan: a weight per
    /// pair (a shaped view, leaders that count more) or a test of each
    /// candidate's school (other schools ignored where there are any).
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
