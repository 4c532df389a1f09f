//! Choosing a net's scale so that its scores are as large as another net's.
//!
//! The search's margins are in centipawns, tuned with one net's scores. A net trained on its
//! predecessor's search scores scores larger than that predecessor (search scores run larger
//! than static ones), and played at its trained scale it prunes and reduces as if positions were
//! more decided than they are. Setting its scale so that its median absolute score over a set of
//! positions equals the reference net's keeps the scores the size the margins were tuned for.

use ferz_chess::Position;

use crate::network::checked_scale;
use crate::{Accumulator, Network, NetworkError, evaluate};

/// Why no scale was chosen.
#[derive(Debug, thiserror::Error)]
pub enum CalibrationError {
    /// There were no positions to compare the nets on.
    #[error("no positions to compare the nets' scores on")]
    NoPositions,
    /// The net scores at least half of the positions 0, so no scale makes its scores any size.
    #[error("the net scores {zero} of {positions} positions 0: its scores have no size to match")]
    NoScores {
        /// Positions it scores 0.
        zero: usize,
        /// Positions compared.
        positions: usize,
    },
    /// The matching scale is outside the file format's range.
    #[error("the matching scale {wanted:.0} is out of range: {source}")]
    Scale {
        /// The scale the scores asked for.
        wanted: f64,
        /// The range check's error.
        source: NetworkError,
    },
}

/// The median absolute score, in centipawns, `net` gives `positions` (the side to move's view;
/// the sign does not matter), or `None` for no positions.
#[must_use]
pub fn median_abs_score(net: &Network, positions: &[Position]) -> Option<u32> {
    median(&mut abs_scores(net, positions))
}

/// Two nets' median absolute scores over the same positions: what a matching scale is made of.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Medians {
    /// The median absolute score (centipawns) of the net being matched.
    pub net: u32,
    /// The reference net's.
    pub reference: u32,
    /// Positions the net being matched scores 0.
    zero: usize,
    /// Positions compared.
    positions: usize,
}

/// Both nets' median absolute scores over `positions`. Both nets must be of the positions'
/// variant.
///
/// # Errors
/// No positions.
pub fn medians(net: &Network, reference: &Network, positions: &[Position]) -> Result<Medians, CalibrationError> {
    let mut scores = abs_scores(net, positions);
    let zero = scores.iter().filter(|&&s| s == 0).count();
    let ours = median(&mut scores).ok_or(CalibrationError::NoPositions)?;
    let theirs = median_abs_score(reference, positions).ok_or(CalibrationError::NoPositions)?;
    Ok(Medians { net: ours, reference: theirs, zero, positions: positions.len() })
}

impl Medians {
    /// The scale at which the net, now at `scale`, has the reference's median: `scale` times
    /// the ratio of the two medians, rounded.
    ///
    /// # Errors
    /// A net whose median score is 0, or a scale outside the format's range.
    pub fn matching_scale(&self, scale: u16) -> Result<u16, CalibrationError> {
        if self.net == 0 {
            return Err(CalibrationError::NoScores { zero: self.zero, positions: self.positions });
        }
        let wanted = (f64::from(scale) * f64::from(self.reference) / f64::from(self.net)).round();
        // Beyond u16's range saturates, and the range check then refuses it by name.
        let matched = if wanted >= f64::from(u16::MAX) { u16::MAX } else { wanted as u16 };
        checked_scale(matched).map_err(|source| CalibrationError::Scale { wanted, source })
    }
}

/// The absolute static scores `net` gives `positions`, in centipawns.
fn abs_scores(net: &Network, positions: &[Position]) -> Vec<u32> {
    let mut acc = Accumulator::new(net);
    positions
        .iter()
        .map(|pos| {
            acc.refresh(net, pos);
            evaluate(net, &acc, pos).unsigned_abs()
        })
        .collect()
}

/// The upper median of `values` (reordered), or `None` when empty.
fn median(values: &mut [u32]) -> Option<u32> {
    if values.is_empty() {
        return None;
    }
    let middle = values.len() / 2;
    Some(*values.select_nth_unstable(middle).1)
}
