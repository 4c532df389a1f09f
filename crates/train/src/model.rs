//! The float network, (768·K -> N) x 2 -> 1 with K king buckets of inputs
//! ([`ferz_nnue::InputLayout`]) and one output layer per output bucket, as the trainer holds it.
//!
//! All parameters live in one flat vector so that the gradient, AdamW's moments and the
//! checkpoint are plain vectors of the same layout: the feature weights (768·K x N,
//! feature-major, as the net file stores them), the feature bias (N), the output weights (2N
//! per bucket, bucket after bucket: side to move first) and the output biases (one per bucket).
//! A net of one bucket has exactly the layout it had before buckets existed.

use ferz_chess::SplitMix64;
use ferz_nnue::InputLayout;

use crate::config::{Activation, NetConfig};
use crate::record::Input;

/// Input features per perspective and king bucket.
pub const INPUTS: usize = ferz_nnue::INPUTS;
/// The float output times this is centipawns (the net file's SCALE).
pub const SCALE: f32 = ferz_nnue::SCALE as f32;
/// Centipawns in the sigmoid that turns an evaluation into an expected result (the targets'
/// `sigmoid(cp / 400)`).
pub const SIGMOID_CP: f32 = 400.0;

/// Where each parameter block starts in the flat vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// How the inputs depend on each perspective's king.
    pub inputs: InputLayout,
    /// Hidden neurons per perspective.
    pub hidden: usize,
    /// Output layers, one per bucket of piece counts ([`ferz_nnue::output_bucket`]).
    pub output_buckets: usize,
}

impl Layout {
    /// The layout of a net with plain inputs.
    #[must_use]
    pub const fn plain(hidden: usize, output_buckets: usize) -> Layout {
        Layout { inputs: InputLayout::Plain, hidden, output_buckets }
    }

    /// The layout the `[net]` settings ask for.
    #[must_use]
    pub const fn of(net: &NetConfig) -> Layout {
        Layout { inputs: net.input_layout, hidden: net.hidden, output_buckets: net.output_buckets }
    }

    /// Input features per perspective (768 per king bucket).
    #[must_use]
    pub const fn input_count(&self) -> usize {
        self.inputs.inputs()
    }

    /// The feature weights: `input_count() * hidden`, feature `f`'s at `f * hidden ..`.
    #[must_use]
    pub const fn feature_weights(&self) -> std::ops::Range<usize> {
        0..self.input_count() * self.hidden
    }

    /// The feature bias.
    #[must_use]
    pub const fn feature_bias(&self) -> std::ops::Range<usize> {
        self.input_count() * self.hidden..(self.input_count() + 1) * self.hidden
    }

    /// Every bucket's output weights, bucket after bucket.
    #[must_use]
    pub const fn output_weights(&self) -> std::ops::Range<usize> {
        let start = (self.input_count() + 1) * self.hidden;
        start..start + 2 * self.hidden * self.output_buckets
    }

    /// The output weights of `bucket`: the side to move's `hidden`, then the other side's.
    #[must_use]
    pub const fn bucket_output_weights(&self, bucket: usize) -> std::ops::Range<usize> {
        let start = (self.input_count() + 1) * self.hidden + 2 * self.hidden * bucket;
        start..start + 2 * self.hidden
    }

    /// The output biases, one per bucket.
    #[must_use]
    pub const fn output_biases(&self) -> std::ops::Range<usize> {
        let start = self.output_weights().end;
        start..start + self.output_buckets
    }

    /// The output bias of `bucket`.
    #[must_use]
    pub const fn output_bias(&self, bucket: usize) -> usize {
        self.output_weights().end + bucket
    }

    /// Parameters in all.
    #[must_use]
    pub const fn len(&self) -> usize {
        self.output_biases().end
    }

    /// Never: a network has at least one hidden neuron.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        false
    }
}

/// The float network.
#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    /// Where the blocks are.
    pub layout: Layout,
    /// The hidden layer's activation.
    pub activation: Activation,
    /// All parameters, in [`Layout`] order.
    pub params: Vec<f32>,
}

/// The activation and its derivative at `x`.
#[inline(always)]
fn activate(activation: Activation, x: f32) -> (f32, f32) {
    let c = x.clamp(0.0, 1.0);
    let inside = if x > 0.0 && x < 1.0 { 1.0 } else { 0.0 };
    match activation {
        Activation::Crelu => (c, inside),
        Activation::Screlu => (c * c, 2.0 * c * inside),
    }
}

impl Network {
    /// A network of `layout` with small random weights: uniform in `±1/sqrt(768)` for the
    /// feature weights (whatever the king buckets: a position has as many active features in
    /// each layout) and `±1/sqrt(2N)` for the output weights, and zero biases. The draws come in
    /// the layout's order, so a plain one-bucket net is the one this made before buckets and
    /// input layouts existed.
    #[must_use]
    pub fn random(layout: Layout, activation: Activation, seed: u64) -> Network {
        let hidden = layout.hidden;
        let mut rng = SplitMix64::derive(seed, 0x1417);
        let mut uniform = |bound: f32| ((rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * bound;
        let mut params = vec![0.0; layout.len()];
        let feature_bound = 1.0 / (INPUTS as f32).sqrt();
        for w in &mut params[layout.feature_weights()] {
            *w = uniform(feature_bound);
        }
        let output_bound = 1.0 / ((2 * hidden) as f32).sqrt();
        for w in &mut params[layout.output_weights()] {
            *w = uniform(output_bound);
        }
        Network { layout, activation, params }
    }

    /// Fills `acc` with the accumulator of `features`: the bias plus their weight rows.
    #[inline(always)]
    pub fn accumulate(&self, features: &[u16], acc: &mut [f32]) {
        let n = self.layout.hidden;
        acc.copy_from_slice(&self.params[self.layout.feature_bias()]);
        let weights = &self.params[self.layout.feature_weights()];
        for &f in features {
            let row = &weights[f as usize * n..][..n];
            for (a, w) in acc.iter_mut().zip(row) {
                *a += w;
            }
        }
    }

    /// The output (times [`SCALE`] = centipawns for the side to move) of a position.
    #[must_use]
    pub fn evaluate(&self, input: Input<'_>) -> f32 {
        let n = self.layout.hidden;
        let mut acc = vec![0.0; 2 * n];
        let (a_stm, a_nstm) = acc.split_at_mut(n);
        self.accumulate(input.stm, a_stm);
        self.accumulate(input.nstm, a_nstm);
        self.output(&acc, input.bucket)
    }

    /// The output of `bucket` from both accumulators (side to move's first).
    #[must_use]
    #[inline(always)]
    pub fn output(&self, acc: &[f32], bucket: usize) -> f32 {
        let w = &self.params[self.layout.bucket_output_weights(bucket)];
        let mut sum = self.params[self.layout.output_bias(bucket)];
        for (a, w) in acc.iter().zip(w) {
            sum += activate(self.activation, *a).0 * w;
        }
        sum
    }

    /// The network of the inference crate's float model (a dequantised net file, to fine-tune).
    #[must_use]
    pub fn from_float(net: &ferz_nnue::FloatNetwork) -> Network {
        let layout = Layout { inputs: net.inputs, hidden: net.hidden, output_buckets: net.output_buckets() };
        let mut params = vec![0.0; layout.len()];
        params[layout.feature_weights()].copy_from_slice(&net.feature_weights);
        params[layout.feature_bias()].copy_from_slice(&net.feature_bias);
        params[layout.output_weights()].copy_from_slice(&net.output_weights);
        params[layout.output_biases()].copy_from_slice(&net.output_bias);
        let activation = match net.activation {
            ferz_nnue::Activation::CReLU => Activation::Crelu,
            ferz_nnue::Activation::SCReLU => Activation::Screlu,
        };
        Network { layout, activation, params }
    }

    /// The same parameters as the inference crate's float model.
    #[must_use]
    pub fn to_float(&self) -> ferz_nnue::FloatNetwork {
        let l = self.layout;
        ferz_nnue::FloatNetwork {
            activation: match self.activation {
                Activation::Crelu => ferz_nnue::Activation::CReLU,
                Activation::Screlu => ferz_nnue::Activation::SCReLU,
            },
            inputs: l.inputs,
            hidden: l.hidden,
            feature_weights: self.params[l.feature_weights()].to_vec(),
            feature_bias: self.params[l.feature_bias()].to_vec(),
            output_weights: self.params[l.output_weights()].to_vec(),
            output_bias: self.params[l.output_biases()].to_vec(),
        }
    }

    /// The same function with `buckets` output layers: each is a copy of this net's one
    /// output layer, so that training starts where this net stands and lets the buckets part
    /// ways. A net that already has `buckets` buckets is returned as it is.
    ///
    /// # Panics
    /// If the net has several buckets and `buckets` is another number.
    #[must_use]
    pub fn with_output_buckets(&self, buckets: usize) -> Network {
        let old = self.layout;
        if old.output_buckets == buckets {
            return self.clone();
        }
        assert_eq!(old.output_buckets, 1, "a net of {} output buckets cannot become {buckets}", old.output_buckets);
        let new = Layout { output_buckets: buckets, ..old };
        let mut params = self.params[..old.output_weights().start].to_vec();
        for _ in 0..buckets {
            params.extend_from_slice(&self.params[old.output_weights()]);
        }
        params.extend(std::iter::repeat_n(self.params[old.output_bias(0)], buckets));
        debug_assert_eq!(params.len(), new.len());
        Network { layout: new, activation: self.activation, params }
    }

    /// The same function with `hidden` neurons per perspective (at least as many as now): the
    /// present neurons are kept, and each new one gets small random feature weights (as
    /// [`Network::random`] draws them), a zero bias and zero output weights. The output is
    /// unchanged, and training can put the new neurons to use: their output weights get a
    /// gradient at once, their feature weights as soon as those move. So a bigger net starts
    /// where the smaller one stands instead of from random weights.
    ///
    /// # Panics
    /// If `hidden` is smaller than the present size.
    #[must_use]
    pub fn widened(&self, hidden: usize, seed: u64) -> Network {
        let (old, new) = (self.layout, Layout { hidden, ..self.layout });
        assert!(hidden >= old.hidden, "a net of {} neurons cannot widen to {hidden}", old.hidden);
        let fresh = Network::random(new, self.activation, seed);
        let mut params = vec![0.0; new.len()];
        for feature in 0..old.input_count() {
            let (from, to) = (feature * old.hidden, feature * new.hidden);
            params[to..to + old.hidden].copy_from_slice(&self.params[from..from + old.hidden]);
            params[to + old.hidden..to + new.hidden].copy_from_slice(&fresh.params[to + old.hidden..to + new.hidden]);
        }
        let bias = new.feature_bias().start;
        params[bias..bias + old.hidden].copy_from_slice(&self.params[old.feature_bias()]);
        let (old_out, new_out) = (old.output_weights().start, new.output_weights().start);
        // Each bucket's two sides, in order.
        for half in 0..2 * old.output_buckets {
            params[new_out + half * new.hidden..][..old.hidden]
                .copy_from_slice(&self.params[old_out + half * old.hidden..][..old.hidden]);
        }
        params[new.output_biases()].copy_from_slice(&self.params[old.output_biases()]);
        Network { layout: new, activation: self.activation, params }
    }

    /// Clips every weight and bias of the first layer and the output weights to `±clip`.
    pub fn clip(&mut self, clip: f32) {
        let end = self.layout.output_biases().start;
        for p in &mut self.params[..end] {
            *p = p.clamp(-clip, clip);
        }
    }
}

/// Buffers of one thread's forward and backward passes: the accumulators and their gradients.
#[derive(Clone, Debug)]
pub struct Scratch {
    acc: Vec<f32>,
    delta: Vec<f32>,
}

impl Scratch {
    /// Buffers for a net of `hidden` neurons per perspective.
    #[must_use]
    pub fn new(hidden: usize) -> Scratch {
        Scratch { acc: vec![0.0; 2 * hidden], delta: vec![0.0; 2 * hidden] }
    }
}

/// One position's forward and backward pass: adds the gradient of `(sigmoid(out) - target)^2`
/// times `weight` to `grad` and returns the unweighted loss. Only the output layer of the
/// position's bucket gets a gradient.
#[inline(always)]
pub fn backprop(
    net: &Network,
    input: Input<'_>,
    target: f32,
    weight: f32,
    grad: &mut [f32],
    scratch: &mut Scratch,
) -> f32 {
    let Scratch { acc, delta } = scratch;
    let layout = net.layout;
    let n = layout.hidden;
    let (stm, nstm) = (input.stm, input.nstm);
    let (a_stm, a_nstm) = acc.split_at_mut(n);
    net.accumulate(stm, a_stm);
    net.accumulate(nstm, a_nstm);
    let out = net.output(acc, input.bucket);
    let k = SCALE / SIGMOID_CP;
    let p = crate::record::sigmoid(out * k);
    let error = p - target;
    // d/d out of (p - t)^2.
    let g = weight * 2.0 * error * p * (1.0 - p) * k;
    let w_out = &net.params[layout.bucket_output_weights(input.bucket)];
    let grad_out = &mut grad[layout.bucket_output_weights(input.bucket)];
    for i in 0..2 * n {
        let (h, dh) = activate(net.activation, acc[i]);
        grad_out[i] += g * h;
        delta[i] = g * w_out[i] * dh;
    }
    grad[layout.output_bias(input.bucket)] += g;
    let (d_stm, d_nstm) = delta.split_at(n);
    for (b, (x, y)) in grad[layout.feature_bias()].iter_mut().zip(d_stm.iter().zip(d_nstm)) {
        *b += x + y;
    }
    // Only the rows of active features get a gradient: ~30 of 768·K per perspective.
    let grad_w = &mut grad[layout.feature_weights()];
    for (features, d) in [(stm, d_stm), (nstm, d_nstm)] {
        for &f in features {
            for (gw, x) in grad_w[f as usize * n..][..n].iter_mut().zip(d) {
                *gw += x;
            }
        }
    }
    error * error
}

#[cfg(test)]
mod tests {
    use super::*;
    /// The loss in f64, written from the formula independently of `backprop`.
    fn loss64(layout: Layout, activation: Activation, params: &[f64], input: Input<'_>, target: f64) -> f64 {
        let n = layout.hidden;
        let act = |x: f64| {
            let c = x.clamp(0.0, 1.0);
            if activation == Activation::Screlu { c * c } else { c }
        };
        let mut out = params[layout.output_bias(input.bucket)];
        for (side, features) in [input.stm, input.nstm].into_iter().enumerate() {
            for i in 0..n {
                let mut a = params[layout.feature_bias().start + i];
                for &f in features {
                    a += params[f as usize * n + i];
                }
                out += act(a) * params[layout.bucket_output_weights(input.bucket).start + side * n + i];
            }
        }
        let p = 1.0 / (1.0 + (-out * f64::from(SCALE / SIGMOID_CP)).exp());
        (p - target) * (p - target)
    }

    /// Every analytic partial derivative agrees with a central difference of the loss, for a
    /// net of one output bucket and for one of three (the position in the middle one).
    fn gradient_check(activation: Activation, buckets: usize, inputs: InputLayout) {
        let hidden = 8;
        let mut net = Network::random(Layout { inputs, hidden, output_buckets: buckets }, activation, 3);
        // Spread the biases so some neurons sit inside (0, 1) and some are clipped.
        let mut rng = SplitMix64::new(9);
        for p in &mut net.params {
            *p += ((rng.next_u64() % 1000) as f32 / 1000.0 - 0.3) * 0.6;
        }
        // Features of the last king bucket where there are several.
        let offset = (inputs.king_buckets() - 1) as u16 * INPUTS as u16;
        let stm = [3u16, 70, 200, 321, 400, 705].map(|f| f + offset);
        let nstm = [10u16, 64, 250, 390, 500, 760];
        let input = Input { stm: &stm, nstm: &nstm, bucket: buckets / 2 };
        let target = 0.3;
        let layout = net.layout;
        let mut grad = vec![0.0; layout.len()];
        backprop(&net, input, target, 1.0, &mut grad, &mut Scratch::new(hidden));
        let mut params: Vec<f64> = net.params.iter().map(|&p| f64::from(p)).collect();
        let h = 1e-6;
        let mut checked = 0;
        let active_rows: Vec<usize> = stm.iter().chain(&nstm).map(|&f| f as usize).collect();
        for i in 0..layout.len() {
            let in_feature_weights = layout.feature_weights().contains(&i);
            if in_feature_weights && !active_rows.contains(&(i / hidden)) {
                assert_eq!(grad[i], 0.0, "an inactive feature row has no gradient");
                continue;
            }
            let original = params[i];
            params[i] = original + h;
            let up = loss64(layout, activation, &params, input, f64::from(target));
            params[i] = original - h;
            let down = loss64(layout, activation, &params, input, f64::from(target));
            params[i] = original;
            let numeric = (up - down) / (2.0 * h);
            let analytic = f64::from(grad[i]);
            assert!(
                (numeric - analytic).abs() <= 1e-3 * numeric.abs().max(analytic.abs()) + 1e-7,
                "parameter {i}: numeric {numeric}, analytic {analytic}"
            );
            checked += 1;
        }
        assert!(checked > 12 * hidden, "checked {checked}");
        assert!(grad.iter().any(|&g| g != 0.0));
        // The other buckets' output layers have no say in this position, so no gradient.
        for bucket in (0..buckets).filter(|&b| b != input.bucket) {
            assert!(grad[layout.bucket_output_weights(bucket)].iter().all(|&g| g == 0.0));
            assert_eq!(grad[layout.output_bias(bucket)], 0.0);
        }
    }

    #[test]
    fn gradients_match_finite_differences_crelu() {
        gradient_check(Activation::Crelu, 1, InputLayout::Plain);
        gradient_check(Activation::Crelu, 3, InputLayout::Plain);
        gradient_check(Activation::Crelu, 3, InputLayout::King4);
    }

    #[test]
    fn gradients_match_finite_differences_screlu() {
        gradient_check(Activation::Screlu, 1, InputLayout::Plain);
        gradient_check(Activation::Screlu, 3, InputLayout::Plain);
        gradient_check(Activation::Screlu, 1, InputLayout::King4);
    }

    #[test]
    fn a_widened_net_computes_the_same_and_its_new_neurons_learn() {
        let mut small = Network::random(Layout::plain(8, 1), Activation::Screlu, 5);
        let mut rng = SplitMix64::new(4);
        for p in &mut small.params {
            *p += ((rng.next_u64() % 1000) as f32 / 1000.0 - 0.3) * 0.6;
        }
        let wide = small.widened(24, 6);
        assert_eq!(wide.layout.hidden, 24);
        let positions: [(&[u16], &[u16]); 3] =
            [(&[3, 70, 200, 321], &[10, 64, 250, 390]), (&[0, 767], &[1, 766]), (&[400, 401, 402], &[5, 6, 700])];
        for (stm, nstm) in positions {
            let input = Input { stm, nstm, bucket: 0 };
            let (before, after) = (small.evaluate(input), wide.evaluate(input));
            assert!((before - after).abs() < 1e-5, "{before} became {after}");
        }
        // The new neurons have random feature weights and no say in the output yet...
        let (n, out) = (24, wide.layout.output_weights().start);
        assert!(wide.params[..768 * n].chunks(n).all(|row| row[8..].iter().any(|&w| w != 0.0)));
        assert!((0..2).all(|side| wide.params[out + side * n + 8..out + side * n + n].iter().all(|&w| w == 0.0)));
        // ...and a gradient step gives them one.
        let mut grad = vec![0.0; wide.layout.len()];
        let (stm, nstm) = positions[0];
        backprop(&wide, Input { stm, nstm, bucket: 0 }, 0.9, 1.0, &mut grad, &mut Scratch::new(n));
        assert!(grad[out + 8..out + n].iter().any(|&g| g != 0.0));
        // Widening to the same size changes nothing.
        assert_eq!(small.widened(8, 6), small);

        // Then given output buckets, and widened again with them: every bucket still computes
        // the one-bucket net's function.
        let bucketed = small.with_output_buckets(8).widened(24, 6);
        assert_eq!((bucketed.layout.output_buckets, bucketed.layout.hidden), (8, 24));
        for (stm, nstm) in positions {
            let before = small.evaluate(Input { stm, nstm, bucket: 0 });
            for bucket in 0..8 {
                let after = bucketed.evaluate(Input { stm, nstm, bucket });
                assert!((before - after).abs() < 1e-5, "bucket {bucket}: {before} became {after}");
            }
        }
        assert_eq!(bucketed.with_output_buckets(8), bucketed);
    }

    #[test]
    fn the_layout_is_the_files() {
        let layout = Layout::plain(128, 1);
        assert_eq!(layout.len(), 768 * 128 + 128 + 256 + 1);
        assert_eq!(layout.feature_bias().start, layout.feature_weights().end);
        assert_eq!(layout.output_weights().end, layout.output_bias(0));
        let layout = Layout::plain(128, 8);
        assert_eq!(layout.len(), 768 * 128 + 128 + 8 * 256 + 8);
        assert_eq!(layout.bucket_output_weights(7).end, layout.output_biases().start);
        assert_eq!(layout.bucket_output_weights(1).start, layout.bucket_output_weights(0).end);
        let layout = Layout { inputs: InputLayout::King4, hidden: 128, output_buckets: 8 };
        assert_eq!(layout.len(), 4 * 768 * 128 + 128 + 8 * 256 + 8);
        assert_eq!(layout.feature_bias().start, layout.feature_weights().end);
    }

    /// A one-bucket net draws its random weights as nets did before buckets existed, so runs
    /// from random weights are what their records say.
    #[test]
    fn extra_buckets_draw_after_the_first_ones_weights() {
        let (one, eight) = (
            Network::random(Layout::plain(16, 1), Activation::Screlu, 9),
            Network::random(Layout::plain(16, 8), Activation::Screlu, 9),
        );
        let first = one.layout.output_weights().end;
        assert_eq!(one.params[..first], eight.params[..first]);
    }
}
