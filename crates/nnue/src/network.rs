//! The quantised network: parameters in SIMD-aligned lanes.

use ferz_chess::{Position, Variant};

use crate::features::InputLayout;
use crate::{MAX_HIDDEN, MAX_OUTPUT_BUCKETS, MAX_SCALE, SCALE};

/// Values per [`Lane`]: 16 × i16 is one AVX2 register.
pub const LANE: usize = 16;

/// Sixteen i16 values aligned for one 256-bit load. Hidden layers are stored as whole lanes, the
/// last one padded with zeros, so the SIMD loops need no tail.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[repr(C, align(32))]
pub struct Lane(pub [i16; LANE]);

/// Which rules a net was trained for.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum NetVariant {
    /// Chess and Chess960 (castling is no input, so they share a net).
    Chess,
    /// Shatranj.
    Shatranj,
}

impl NetVariant {
    /// The net a game of `variant` uses.
    #[must_use]
    pub const fn of(variant: Variant) -> NetVariant {
        if variant.is_shatranj() { NetVariant::Shatranj } else { NetVariant::Chess }
    }

    /// The file format's code: 0 chess, 1 Shatranj.
    #[must_use]
    pub const fn code(self) -> u8 {
        match self {
            NetVariant::Chess => 0,
            NetVariant::Shatranj => 1,
        }
    }

    /// The variant of a file format code.
    #[must_use]
    pub const fn from_code(code: u8) -> Option<NetVariant> {
        match code {
            0 => Some(NetVariant::Chess),
            1 => Some(NetVariant::Shatranj),
            _ => None,
        }
    }

    /// `"chess"` (also Chess960) or `"shatranj"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            NetVariant::Chess => "chess",
            NetVariant::Shatranj => "shatranj",
        }
    }
}

impl std::fmt::Display for NetVariant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The hidden layer's activation.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Activation {
    /// Clipped ReLU: `clamp(x, 0, 1)`.
    CReLU,
    /// Squared clipped ReLU: `clamp(x, 0, 1)²`.
    SCReLU,
}

impl Activation {
    /// The file format's code: 0 CReLU, 1 SCReLU.
    #[must_use]
    pub const fn code(self) -> u8 {
        match self {
            Activation::CReLU => 0,
            Activation::SCReLU => 1,
        }
    }

    /// The activation of a file format code.
    #[must_use]
    pub const fn from_code(code: u8) -> Option<Activation> {
        match code {
            0 => Some(Activation::CReLU),
            1 => Some(Activation::SCReLU),
            _ => None,
        }
    }
}

/// Why quantised parameters do not make a network.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum NetworkError {
    /// The hidden size is outside 1..=4096.
    #[error("hidden size {0} is outside 1..={MAX_HIDDEN}")]
    HiddenSize(usize),
    /// The number of output buckets (output biases) is outside 1..=8.
    #[error("{0} output buckets, expected 1..={MAX_OUTPUT_BUCKETS}")]
    OutputBuckets(usize),
    /// A parameter vector has the wrong length for the hidden size.
    #[error("{name} has {actual} values, expected {expected} for hidden size {hidden}")]
    Length {
        /// Which vector.
        name: &'static str,
        /// Its length.
        actual: usize,
        /// The length the hidden size asks for.
        expected: usize,
        /// The hidden size.
        hidden: usize,
    },
    /// A float parameter does not fit its integer type after scaling.
    #[error("{name}[{index}] = {value} does not fit its integer type after quantisation")]
    QuantiseRange {
        /// Which vector.
        name: &'static str,
        /// Position in it.
        index: usize,
        /// The float value.
        value: f32,
    },
    /// A centipawn scale outside 1..=MAX_SCALE.
    #[error("scale {0} is outside 1..={MAX_SCALE} (the trainer writes {SCALE})")]
    Scale(u16),
    /// An SCReLU output weight too large for the integer kernel.
    ///
    /// The kernel multiplies an activation (at most 255) by an output weight in 16 bits, which
    /// holds for weights in -128..=128 (the contract clips float output weights to ±1.98, that is
    /// ±127).
    #[error("output weight {index} is {value}: SCReLU nets need output weights within -128..=128")]
    OutputWeightRange {
        /// Position in the output weights (0..2N per bucket).
        index: usize,
        /// The weight.
        value: i16,
    },
}

/// The quantised parameters of one net, in lanes aligned for SIMD.
///
/// Feature weights are stored feature-major: feature `f`'s hidden weights are contiguous, so
/// an incremental update reads one short run of memory per feature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Network {
    variant: NetVariant,
    activation: Activation,
    inputs: InputLayout,
    hidden: usize,
    /// Lanes per hidden layer: `hidden` rounded up to whole lanes.
    lanes: usize,
    /// `inputs.inputs() * lanes` lanes.
    feature_weights: Box<[Lane]>,
    /// `lanes` lanes.
    feature_bias: Box<[Lane]>,
    /// `2 * lanes` lanes per output bucket, bucket after bucket: the side to move's
    /// accumulator first, then the other side's.
    output_weights: Box<[Lane]>,
    /// One per output bucket.
    output_bias: Box<[i32]>,
    /// Centipawns per unit of the float model's output ([`SCALE`] unless rescaled).
    scale: u16,
}

/// `scale` if a net may carry it (`1..=MAX_SCALE`): the one check of a file's header and of
/// [`Network::with_scale`].
pub(crate) fn checked_scale(scale: u16) -> Result<u16, NetworkError> {
    if (1..=MAX_SCALE).contains(&scale) { Ok(scale) } else { Err(NetworkError::Scale(scale)) }
}

/// The output bucket of a position with `pieces` pieces on the board (kings included) in a net
/// of `buckets` output buckets: the piece counts 2 to 32 split into `buckets` ranges of nearly
/// equal size, `(pieces - 2) * buckets / 31` (8 buckets: 2-5, 6-9, ..., 26-29, 30-32). A net of
/// one bucket has one output layer for every position.
#[must_use]
#[inline(always)]
pub const fn output_bucket(pieces: u32, buckets: usize) -> usize {
    let piece_range = pieces.saturating_sub(2) as usize;
    let bucket = piece_range * buckets / 31;
    if bucket < buckets { bucket } else { buckets - 1 }
}

/// Copies `values` into `rows` rows of `lanes` lanes each, `hidden` values per row, zero padded.
fn into_lanes(values: &[i16], hidden: usize, lanes: usize, rows: usize) -> Box<[Lane]> {
    let mut out = vec![Lane::default(); rows * lanes].into_boxed_slice();
    for row in 0..rows {
        let src = &values[row * hidden..(row + 1) * hidden];
        for (i, &v) in src.iter().enumerate() {
            out[row * lanes + i / LANE].0[i % LANE] = v;
        }
    }
    out
}

/// The first `hidden` values of each of the rows of `lanes` lanes.
fn from_lanes(data: &[Lane], hidden: usize, lanes: usize) -> Vec<i16> {
    data.chunks(lanes).flat_map(|row| row.iter().flat_map(|lane| lane.0).take(hidden)).collect()
}

impl Network {
    /// Builds a network from quantised parameter vectors, in the file format's layout:
    /// `feature_weights` is `inputs.inputs() × hidden` feature-major (768 per king bucket), `feature_bias` is `hidden`,
    /// `output_weights` is `2 × hidden` per output bucket (side to move first) and
    /// `output_bias` one per output bucket: its length is the number of buckets.
    ///
    /// # Errors
    /// A [`NetworkError`] when a size is wrong or an SCReLU output weight is out of range.
    #[allow(clippy::too_many_arguments)]
    pub fn from_parts(
        variant: NetVariant,
        activation: Activation,
        inputs: InputLayout,
        hidden: usize,
        feature_weights: &[i16],
        feature_bias: &[i16],
        output_weights: &[i16],
        output_bias: &[i32],
    ) -> Result<Network, NetworkError> {
        if !(1..=MAX_HIDDEN).contains(&hidden) {
            return Err(NetworkError::HiddenSize(hidden));
        }
        let buckets = output_bias.len();
        if !(1..=MAX_OUTPUT_BUCKETS).contains(&buckets) {
            return Err(NetworkError::OutputBuckets(buckets));
        }
        for (name, actual, expected) in [
            ("feature weights", feature_weights.len(), inputs.inputs() * hidden),
            ("feature bias", feature_bias.len(), hidden),
            ("output weights", output_weights.len(), 2 * hidden * buckets),
        ] {
            if actual != expected {
                return Err(NetworkError::Length { name, actual, expected, hidden });
            }
        }
        if activation == Activation::SCReLU
            && let Some((index, &value)) = output_weights.iter().enumerate().find(|(_, w)| !(-128..=128).contains(*w))
        {
            return Err(NetworkError::OutputWeightRange { index, value });
        }
        let lanes = hidden.div_ceil(LANE);
        Ok(Network {
            variant,
            activation,
            inputs,
            hidden,
            lanes,
            feature_weights: into_lanes(feature_weights, hidden, lanes, inputs.inputs()),
            feature_bias: into_lanes(feature_bias, hidden, lanes, 1),
            output_weights: into_lanes(output_weights, hidden, lanes, 2 * buckets),
            output_bias: output_bias.into(),
            scale: SCALE as u16,
        })
    }

    /// The same net with its evaluation in another centipawn scale: every score is multiplied by
    /// `scale / SCALE` of the trained one (300: three quarters). The search's margins are in
    /// centipawns, so a net whose scores run larger than those the search was tuned with
    /// prunes and reduces as if positions were more decided than they are; its scale brings
    /// them back.
    ///
    /// # Errors
    /// [`NetworkError::Scale`] outside `1..=MAX_SCALE`.
    pub fn with_scale(mut self, scale: u16) -> Result<Network, NetworkError> {
        self.scale = checked_scale(scale)?;
        Ok(self)
    }

    /// Centipawns per unit of the float model's output: [`SCALE`] as trained, or what
    /// [`Network::with_scale`] set.
    #[must_use]
    #[inline(always)]
    pub const fn scale(&self) -> u16 {
        self.scale
    }

    /// The rules this net was trained for.
    #[must_use]
    pub const fn variant(&self) -> NetVariant {
        self.variant
    }

    /// The hidden activation.
    #[must_use]
    pub const fn activation(&self) -> Activation {
        self.activation
    }

    /// How the inputs depend on each perspective's king.
    #[must_use]
    #[inline(always)]
    pub const fn inputs(&self) -> InputLayout {
        self.inputs
    }

    /// The hidden size N.
    #[must_use]
    pub const fn hidden(&self) -> usize {
        self.hidden
    }

    /// The number of output buckets (1..=8): each has its own output weights and bias, chosen
    /// by the number of pieces on the board ([`output_bucket`]).
    #[must_use]
    pub fn output_buckets(&self) -> usize {
        self.output_bias.len()
    }

    /// The output bucket that scores `pos`.
    #[must_use]
    #[inline(always)]
    pub fn output_bucket_of(&self, pos: &Position) -> usize {
        // Every net but a bucketed one takes the first branch: no piece count to take.
        match self.output_buckets() {
            1 => 0,
            buckets => output_bucket(pos.board().occupied().count(), buckets),
        }
    }

    /// Lanes per hidden layer (`hidden` rounded up to multiples of [`LANE`]).
    #[must_use]
    pub const fn lanes(&self) -> usize {
        self.lanes
    }

    /// Feature `feature`'s weights, padded to whole lanes.
    #[must_use]
    #[inline(always)]
    pub fn feature_column(&self, feature: usize) -> &[Lane] {
        &self.feature_weights[feature * self.lanes..(feature + 1) * self.lanes]
    }

    /// The feature bias, padded to whole lanes.
    #[must_use]
    pub fn feature_bias_lanes(&self) -> &[Lane] {
        &self.feature_bias
    }

    /// The output weights of `bucket`, padded: the side to move's `lanes()` lanes, then the
    /// other side's.
    #[must_use]
    #[inline(always)]
    pub fn output_weight_lanes(&self, bucket: usize) -> &[Lane] {
        &self.output_weights[2 * bucket * self.lanes..2 * (bucket + 1) * self.lanes]
    }

    /// The output bias of `bucket` (scaled by QA × QB).
    #[must_use]
    #[inline(always)]
    pub fn output_bias(&self, bucket: usize) -> i32 {
        self.output_bias[bucket]
    }

    /// Every bucket's output bias, in bucket order (the file layout).
    #[must_use]
    pub fn output_biases(&self) -> &[i32] {
        &self.output_bias
    }

    /// The feature weights in the file layout (`inputs().inputs() × hidden`, feature-major).
    #[must_use]
    pub fn feature_weights(&self) -> Vec<i16> {
        from_lanes(&self.feature_weights, self.hidden, self.lanes)
    }

    /// The feature bias (`hidden` values).
    #[must_use]
    pub fn feature_bias(&self) -> Vec<i16> {
        from_lanes(&self.feature_bias, self.hidden, self.lanes)
    }

    /// The output weights in the file layout (`2 × hidden` per bucket, side to move first).
    #[must_use]
    pub fn output_weights(&self) -> Vec<i16> {
        from_lanes(&self.output_weights, self.hidden, self.lanes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::INPUTS;

    #[test]
    fn parts_round_trip_through_lanes() {
        let hidden = 20;
        let fw: Vec<i16> = (0..INPUTS * hidden).map(|i| (i % 1000) as i16 - 500).collect();
        let fb: Vec<i16> = (0..hidden as i16).collect();
        let ow: Vec<i16> = (0..2 * hidden as i16).map(|i| i - 20).collect();
        let net = Network::from_parts(
            NetVariant::Chess,
            Activation::SCReLU,
            InputLayout::Plain,
            hidden,
            &fw,
            &fb,
            &ow,
            &[-7],
        )
        .unwrap();
        assert_eq!(net.lanes(), 2);
        assert_eq!((net.output_buckets(), net.output_bias(0)), (1, -7));
        assert_eq!(net.feature_weights(), fw);
        assert_eq!(net.feature_bias(), fb);
        assert_eq!(net.output_weights(), ow);
        assert_eq!(net.feature_column(1)[0].0[0], fw[hidden]);
        assert_eq!(net.feature_column(1)[1].0[4..], [0; 12]);
    }

    #[test]
    fn bad_parts_say_what_is_wrong() {
        // A chess net of two hidden neurons with plain inputs unless said otherwise.
        let two = |activation, inputs, fb: &[i16], ow: &[i16], ob: &[i32]| {
            Network::from_parts(NetVariant::Chess, activation, inputs, 2, &[0; 1536], fb, ow, ob)
        };
        let plain = InputLayout::Plain;
        let e = Network::from_parts(NetVariant::Chess, Activation::CReLU, plain, 0, &[], &[], &[], &[0]).unwrap_err();
        assert_eq!(e, NetworkError::HiddenSize(0));
        let e = two(Activation::CReLU, plain, &[0; 3], &[0; 4], &[0]).unwrap_err();
        assert!(e.to_string().contains("feature bias has 3 values, expected 2"), "{e}");
        let mut ow = [0i16; 4];
        ow[3] = 129;
        let e = two(Activation::SCReLU, plain, &[0; 2], &ow, &[0]).unwrap_err();
        assert_eq!(e, NetworkError::OutputWeightRange { index: 3, value: 129 });
        // CReLU has no such limit.
        two(Activation::CReLU, plain, &[0; 2], &ow, &[0]).unwrap();
        for buckets in [0, 9] {
            let e = two(Activation::CReLU, plain, &[0; 2], &[], &vec![0; buckets]).unwrap_err();
            assert_eq!(e, NetworkError::OutputBuckets(buckets));
        }
        let e = two(Activation::CReLU, plain, &[0; 2], &[0; 4], &[0; 2]).unwrap_err();
        assert!(e.to_string().contains("output weights has 4 values, expected 8"), "{e}");
        // Four king buckets need four copies of the 768 features.
        let e = two(Activation::CReLU, InputLayout::King4, &[0; 2], &[0; 4], &[0]).unwrap_err();
        assert!(e.to_string().contains("feature weights has 1536 values, expected 6144"), "{e}");
    }

    #[test]
    fn output_buckets_split_the_piece_counts_evenly() {
        let of = |buckets| (2..=32).map(|pieces| output_bucket(pieces, buckets)).collect::<Vec<_>>();
        assert!(of(1).iter().all(|&b| b == 0));
        // Eight buckets: four piece counts each, the last three (30-32).
        let eight = of(8);
        assert_eq!(eight, (2..=32u32).map(|p| ((p - 2) / 4) as usize).collect::<Vec<_>>());
        for buckets in 1..=MAX_OUTPUT_BUCKETS {
            let counts: Vec<usize> = (0..buckets).map(|b| of(buckets).iter().filter(|&&x| x == b).count()).collect();
            assert!(counts.iter().all(|&c| c >= 31 / buckets), "{buckets}: {counts:?}");
            assert_eq!(output_bucket(0, buckets), 0);
            assert_eq!(output_bucket(40, buckets), buckets - 1);
        }
    }

    #[test]
    fn each_bucket_has_its_own_output_weights_and_bias() {
        let hidden = 20;
        let ow: Vec<i16> = (0..3 * 2 * hidden as i16).collect();
        let net = Network::from_parts(
            NetVariant::Chess,
            Activation::CReLU,
            InputLayout::Plain,
            hidden,
            &[0; INPUTS * 20],
            &[0; 20],
            &ow,
            &[5, 6, 7],
        )
        .unwrap();
        assert_eq!(net.output_buckets(), 3);
        assert_eq!(net.output_weights(), ow);
        assert_eq!(net.output_biases(), [5, 6, 7]);
        // Bucket 2's side to move starts at 2 × 2N; the other side's at 2 × 2N + N.
        assert_eq!(net.output_weight_lanes(2)[0].0[0], 80);
        assert_eq!(net.output_weight_lanes(2)[net.lanes()].0[0], 100);
        assert_eq!(net.output_bias(1), 6);
    }
}
