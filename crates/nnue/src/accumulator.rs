//! The hidden layer's pre-activations for both perspectives, kept up to date move by move.

use arrayvec::ArrayVec;
use ferz_chess::{Color, Position};

use crate::features::{self, FeatureDelta, KingView};
use crate::simd;
use crate::{Lane, Network};

/// The accumulators of both perspectives: `feature_bias + Σ` the weight columns of the active
/// features, in i16 (wrapping), with the [`KingView`] each perspective's features were taken
/// through.
///
/// Built for one [`Network`]'s hidden size; using it with a net of another size panics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accumulator {
    /// White's lanes, then black's.
    values: Box<[Lane]>,
    lanes: usize,
    /// White's view, then black's.
    views: [KingView; 2],
}

impl Accumulator {
    /// A zeroed accumulator for `net` (call [`Accumulator::refresh`] before evaluating).
    #[must_use]
    pub fn new(net: &Network) -> Accumulator {
        Accumulator {
            values: vec![Lane::default(); 2 * net.lanes()].into_boxed_slice(),
            lanes: net.lanes(),
            views: [KingView::PLAIN; 2],
        }
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

    /// Recomputes both perspectives from scratch for `pos`.
    pub fn refresh(&mut self, net: &Network, pos: &Position) {
        assert!(self.fits(net), "accumulator of {} lanes used with a net of {}", self.lanes, net.lanes());
        for perspective in Color::ALL {
            self.refresh_perspective(net, pos, perspective);
        }
    }

    fn refresh_perspective(&mut self, net: &Network, pos: &Position, perspective: Color) {
        // A legal position has at most 32 pieces.
        let columns: ArrayVec<&[Lane], 32> =
            features::active(net.inputs(), pos, perspective).map(|f| net.feature_column(f)).collect();
        self.views[perspective.index()] = net.inputs().view_of(pos.board(), perspective);
        let start = perspective.index() * self.lanes;
        simd::update(&mut self.values[start..start + self.lanes], net.feature_bias_lanes(), &columns, &[]);
    }

    /// Sets `self` to `prev` changed by `delta`, the features of the move that leads from
    /// `prev`'s position to `child`, in one pass over memory. A perspective whose king moved
    /// into another king bucket or across the mirror line sees every piece anew: it is
    /// recomputed from `child`.
    pub fn update_from(&mut self, net: &Network, prev: &Accumulator, delta: &FeatureDelta, child: &Position) {
        assert!(self.fits(net) && prev.fits(net), "accumulator size does not match the net");
        let inputs = net.inputs();
        let views = Color::ALL.map(|perspective| inputs.view_of(child.board(), perspective));
        let unchanged = [0, 1].map(|side| (views[side] == prev.views[side]).then_some(views[side]));
        simd::update_delta(&mut self.values, &prev.values, net, delta, unchanged);
        for perspective in Color::ALL {
            if unchanged[perspective.index()].is_none() {
                self.refresh_perspective(net, child, perspective);
            }
        }
        self.views = views;
    }

    /// Applies `delta`, the features of the move that leads to `child`, in place (through a copy
    /// of the old values; a search keeps a stack and uses [`Accumulator::update_from`] instead).
    pub fn apply(&mut self, net: &Network, delta: &FeatureDelta, child: &Position) {
        let prev = self.clone();
        self.update_from(net, &prev, delta, child);
    }
}
