//! The hidden layer's pre-activations for both perspectives, kept up to date move by move.

use arrayvec::ArrayVec;
use ferz_chess::{Color, Position};

use crate::features::{self, FeatureDelta};
use crate::simd;
use crate::{Lane, Network};

/// The accumulators of both perspectives: `feature_bias + Σ` the weight columns of the active
/// features, in i16 (wrapping).
///
/// Built for one [`Network`]'s hidden size; using it with a net of another size panics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accumulator {
    /// White's lanes, then black's.
    values: Box<[Lane]>,
    lanes: usize,
}

impl Accumulator {
    /// A zeroed accumulator for `net` (call [`Accumulator::refresh`] before evaluating).
    #[must_use]
    pub fn new(net: &Network) -> Accumulator {
        Accumulator { values: vec![Lane::default(); 2 * net.lanes()].into_boxed_slice(), lanes: net.lanes() }
    }

    /// Whether this accumulator fits `net`'s hidden size.
    #[must_use]
    pub const fn fits(&self, net: &Network) -> bool {
        self.lanes == net.lanes()
    }

    /// The lanes of `perspective`.
    #[must_use]
    #[inline(always)]
    pub fn perspective(&self, perspective: Color) -> &[Lane] {
        let start = perspective.index() * self.lanes;
        &self.values[start..start + self.lanes]
    }

    fn halves_mut(&mut self) -> (&mut [Lane], &mut [Lane]) {
        self.values.split_at_mut(self.lanes)
    }

    /// Recomputes both perspectives from scratch for `pos`.
    pub fn refresh(&mut self, net: &Network, pos: &Position) {
        assert!(self.fits(net), "accumulator of {} lanes used with a net of {}", self.lanes, net.lanes());
        let bias = net.feature_bias_lanes();
        let (white, black) = self.halves_mut();
        for (perspective, out) in [(Color::White, white), (Color::Black, black)] {
            // A legal position has at most 32 pieces.
            let columns: ArrayVec<&[Lane], 32> =
                features::active(pos, perspective).map(|f| net.feature_column(f)).collect();
            simd::update(out, bias, &columns, &[]);
        }
    }

    /// Sets `self` to `prev` changed by `delta` (the features of a move played after `prev`'s
    /// position), in one pass over memory.
    pub fn update_from(&mut self, net: &Network, prev: &Accumulator, delta: &FeatureDelta) {
        assert!(self.fits(net) && prev.fits(net), "accumulator size does not match the net");
        simd::update_delta(&mut self.values, &prev.values, net, delta);
    }

    /// Applies `delta` in place (through a copy of the old values; a search keeps a stack and
    /// uses [`Accumulator::update_from`] instead).
    pub fn apply(&mut self, net: &Network, delta: &FeatureDelta) {
        let prev = self.clone();
        self.update_from(net, &prev, delta);
    }
}
