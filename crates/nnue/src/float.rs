//! The float model: the network as the trainer sees it, and the reference the quantised
//! inference is tested against.

use ferz_chess::{Position, SplitMix64};

use crate::features::{self, InputLayout};
use crate::{Activation, NetVariant, Network, NetworkError, QA, QB, SCALE, output_bucket};

/// A network with f32 parameters, in the file format's layout.
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNetwork {
    /// The hidden activation.
    pub activation: Activation,
    /// How the inputs depend on each perspective's king.
    pub inputs: InputLayout,
    /// The hidden size N.
    pub hidden: usize,
    /// `inputs.inputs() × N`, feature-major: feature `f`'s weights are `[f * N .. (f + 1) * N]`.
    pub feature_weights: Vec<f32>,
    /// `N` values.
    pub feature_bias: Vec<f32>,
    /// `2 × N` per output bucket, bucket after bucket: the side to move's accumulator first,
    /// then the other side's.
    pub output_weights: Vec<f32>,
    /// The output bias of each output bucket: its length is the number of buckets.
    pub output_bias: Vec<f32>,
}

/// A uniform value in `[-range, range)`.
fn uniform(rng: &mut SplitMix64, range: f32) -> f32 {
    // 24 random bits make an exact f32 in [0, 1).
    let unit = (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
    (unit * 2.0 - 1.0) * range
}

impl FloatNetwork {
    /// A network of `buckets` output buckets with seeded random parameters in the ranges a
    /// trained net has (feature weights ±0.25, biases ±0.5, output weights ±0.5): for tests and
    /// benchmarks of the machinery, not for play.
    #[must_use]
    pub fn random(activation: Activation, hidden: usize, buckets: usize, seed: u64) -> FloatNetwork {
        FloatNetwork::random_with_inputs(InputLayout::Plain, activation, hidden, buckets, seed)
    }

    /// [`FloatNetwork::random`] with the input layout `inputs`.
    #[must_use]
    pub fn random_with_inputs(
        inputs: InputLayout,
        activation: Activation,
        hidden: usize,
        buckets: usize,
        seed: u64,
    ) -> FloatNetwork {
        let mut rng = SplitMix64::new(seed);
        let feature_weights = (0..inputs.inputs() * hidden).map(|_| uniform(&mut rng, 0.25)).collect();
        let feature_bias = (0..hidden).map(|_| uniform(&mut rng, 0.5)).collect();
        let output_weights = (0..2 * hidden * buckets).map(|_| uniform(&mut rng, 0.5)).collect();
        let output_bias = (0..buckets).map(|_| uniform(&mut rng, 0.5)).collect();
        FloatNetwork { activation, inputs, hidden, feature_weights, feature_bias, output_weights, output_bias }
    }

    /// The number of output buckets.
    #[must_use]
    pub fn output_buckets(&self) -> usize {
        self.output_bias.len()
    }

    /// The float network a quantised one stands for: every parameter divided by its scale.
    /// Its output differs from the integer inference only by the integer divisions' truncation.
    /// A net of another centipawn scale than [`SCALE`] has it folded into its output layer, so
    /// that the float model, whose output times `SCALE` is centipawns, scores as the net does.
    #[must_use]
    pub fn dequantise(net: &Network) -> FloatNetwork {
        let scaled = |values: Vec<i16>, scale: f32| values.into_iter().map(|v| f32::from(v) / scale).collect();
        let rescale = f32::from(net.scale()) / SCALE as f32;
        FloatNetwork {
            activation: net.activation(),
            inputs: net.inputs(),
            hidden: net.hidden(),
            feature_weights: scaled(net.feature_weights(), QA as f32),
            feature_bias: scaled(net.feature_bias(), QA as f32),
            output_weights: scaled(net.output_weights(), QB as f32 / rescale),
            output_bias: net.output_biases().iter().map(|&b| b as f32 * rescale / (QA * QB) as f32).collect(),
        }
    }

    /// The raw output (before × SCALE) of output bucket `bucket` for the active features of the
    /// side to move (`stm`) and of the other side (`nstm`).
    #[must_use]
    pub fn forward(&self, stm: &[usize], nstm: &[usize], bucket: usize) -> f32 {
        let n = self.hidden;
        let mut out = self.output_bias[bucket];
        let output_weights = &self.output_weights[2 * n * bucket..2 * n * (bucket + 1)];
        for (side, active) in [stm, nstm].into_iter().enumerate() {
            let mut acc = self.feature_bias.clone();
            for &f in active {
                for (a, w) in acc.iter_mut().zip(&self.feature_weights[f * n..(f + 1) * n]) {
                    *a += w;
                }
            }
            for (a, w) in acc.iter().zip(&output_weights[side * n..(side + 1) * n]) {
                let v = a.clamp(0.0, 1.0);
                let act = match self.activation {
                    Activation::CReLU => v,
                    Activation::SCReLU => v * v,
                };
                out += act * w;
            }
        }
        out
    }

    /// Quantises: feature weights and bias `round(w * QA)`, output weights `round(w * QB)`,
    /// output bias `round(b * QA * QB)`.
    ///
    /// # Errors
    /// [`NetworkError`] when a value does not fit its integer type, or the sizes are wrong.
    pub fn quantise(&self, variant: NetVariant) -> Result<Network, NetworkError> {
        fn to_i16(name: &'static str, values: &[f32], scale: i32) -> Result<Vec<i16>, NetworkError> {
            values
                .iter()
                .enumerate()
                .map(|(index, &w)| {
                    let q = (w * scale as f32).round();
                    if (f32::from(i16::MIN)..=f32::from(i16::MAX)).contains(&q) {
                        Ok(q as i16)
                    } else {
                        Err(NetworkError::QuantiseRange { name, index, value: w })
                    }
                })
                .collect()
        }
        let biases = self
            .output_bias
            .iter()
            .enumerate()
            .map(|(index, &value)| {
                let bias = (f64::from(value) * f64::from(QA * QB)).round();
                if (f64::from(i32::MIN)..=f64::from(i32::MAX)).contains(&bias) {
                    Ok(bias as i32)
                } else {
                    Err(NetworkError::QuantiseRange { name: "output bias", index, value })
                }
            })
            .collect::<Result<Vec<i32>, NetworkError>>()?;
        Network::from_parts(
            variant,
            self.activation,
            self.inputs,
            self.hidden,
            &to_i16("feature weights", &self.feature_weights, QA)?,
            &to_i16("feature bias", &self.feature_bias, QA)?,
            &to_i16("output weights", &self.output_weights, QB)?,
            &biases,
        )
    }
}

/// The float model's score of `pos` in centipawns for the side to move (`forward × SCALE`, with
/// the output bucket of `pos`'s piece count).
#[must_use]
pub fn evaluate_float(net: &FloatNetwork, pos: &Position) -> f32 {
    let stm: Vec<usize> = features::active(net.inputs, pos, pos.turn()).collect();
    let nstm: Vec<usize> = features::active(net.inputs, pos, !pos.turn()).collect();
    let bucket = output_bucket(pos.board().occupied().count(), net.output_buckets());
    net.forward(&stm, &nstm, bucket) * SCALE as f32
}
