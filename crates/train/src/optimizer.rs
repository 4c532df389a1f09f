//! AdamW over the flat parameter vector, and the learning-rate schedule.
//!
//! The update is dense: every parameter's moments decay every step. A lazy (sparse) Adam that
//! touches only the rows of features seen in the batch would save nothing here, because a
//! batch of thousands of positions touches nearly all 768 rows (docs/train.md has the count),
//! and the dense update of 100k parameters costs well under a percent of a batch's gradient.

use crate::config::{OptimizerConfig, Schedule};
use crate::model::Layout;

/// AdamW's state: the moments and the step count.
#[derive(Clone, Debug, PartialEq)]
pub struct AdamW {
    /// First moments, in parameter order.
    pub m: Vec<f32>,
    /// Second moments.
    pub v: Vec<f32>,
    /// Steps taken (for the bias correction).
    pub step: u64,
}

impl AdamW {
    /// Zero moments for `len` parameters.
    #[must_use]
    pub fn new(len: usize) -> AdamW {
        AdamW { m: vec![0.0; len], v: vec![0.0; len], step: 0 }
    }

    /// One step with learning rate `lr` on `params` along `grad`. Weight decay applies to the
    /// weights, not the biases; afterwards weights and the feature bias are clipped to `±clip`
    /// (the output biases are i32 in the net file and need no clip).
    pub fn update(&mut self, params: &mut [f32], grad: &[f32], lr: f64, layout: Layout, o: &OptimizerConfig) {
        self.step += 1;
        let (b1, b2) = (o.beta1 as f32, o.beta2 as f32);
        let correction1 = 1.0 - o.beta1.powf(self.step as f64);
        let correction2 = 1.0 - o.beta2.powf(self.step as f64);
        // Folding both corrections into the step size: lr * sqrt(c2) / c1 (Kingma and Ba, 2.1).
        let step_size = (lr * correction2.sqrt() / correction1) as f32;
        let eps = (o.epsilon * correction2.sqrt()) as f32;
        let decay = (lr * o.weight_decay) as f32;
        let clip = o.clip as f32;
        let (biases, output_biases) = ([layout.feature_bias(), layout.output_biases()], layout.output_biases());
        for (i, ((p, g), (m, v))) in
            params.iter_mut().zip(grad).zip(self.m.iter_mut().zip(self.v.iter_mut())).enumerate()
        {
            *m = b1 * *m + (1.0 - b1) * g;
            *v = b2 * *v + (1.0 - b2) * g * g;
            let is_bias = biases.iter().any(|r| r.contains(&i));
            if !is_bias {
                *p -= decay * *p;
            }
            *p -= step_size * *m / (v.sqrt() + eps);
            if !output_biases.contains(&i) {
                *p = p.clamp(-clip, clip);
            }
        }
    }
}

/// The learning rate of step `step` (0-based) of a run of `total_steps`, in epoch `epoch`.
#[must_use]
pub fn learning_rate(o: &OptimizerConfig, step: u64, total_steps: u64, epoch: u32) -> f64 {
    match o.schedule {
        Schedule::Cosine => {
            let progress = (step as f64 / total_steps.max(1) as f64).min(1.0);
            let floor = o.lr * o.final_lr_fraction;
            floor + (o.lr - floor) * 0.5 * (1.0 + (std::f64::consts::PI * progress).cos())
        }
        Schedule::Step => o.lr * o.step_gamma.powi((epoch / o.step_epochs) as i32),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules_fall_as_configured() {
        let mut o = OptimizerConfig::default();
        assert!((learning_rate(&o, 0, 100, 0) - o.lr).abs() < 1e-12);
        assert!((learning_rate(&o, 100, 100, 9) - o.lr * o.final_lr_fraction).abs() < 1e-12);
        let mid = learning_rate(&o, 50, 100, 4);
        assert!((mid - o.lr * (1.0 + o.final_lr_fraction) / 2.0).abs() < 1e-9);
        o.schedule = Schedule::Step;
        assert_eq!(learning_rate(&o, 999, 100, 7), o.lr);
        assert!((learning_rate(&o, 0, 100, 8) - o.lr * o.step_gamma).abs() < 1e-12);
        assert!((learning_rate(&o, 0, 100, 17) - o.lr * o.step_gamma * o.step_gamma).abs() < 1e-12);
    }

    #[test]
    fn adamw_descends_a_quadratic_and_clips() {
        // Minimise sum (p - 3)^2 over a tiny network-shaped vector: the weights head for 3 but
        // stop at the clip; the output bias (unclipped, undecayed) reaches 3.
        let layout = Layout::plain(1, 2);
        let o = OptimizerConfig { weight_decay: 0.0, ..OptimizerConfig::default() };
        let mut params = vec![0.0f32; layout.len()];
        let mut adam = AdamW::new(layout.len());
        for _ in 0..5000 {
            let grad: Vec<f32> = params.iter().map(|p| 2.0 * (p - 3.0)).collect();
            adam.update(&mut params, &grad, 0.01, layout, &o);
        }
        let weights_end = layout.output_biases().start;
        assert!(params[..weights_end].iter().all(|&p| (p - 1.98).abs() < 1e-6), "{params:?}");
        assert!(params[layout.output_biases()].iter().all(|&p| (p - 3.0).abs() < 1e-2), "{params:?}");
        assert_eq!(adam.step, 5000);
    }

    #[test]
    fn weight_decay_shrinks_weights_not_biases() {
        let layout = Layout::plain(1, 2);
        let o = OptimizerConfig { weight_decay: 0.5, ..OptimizerConfig::default() };
        let mut params = vec![1.0f32; layout.len()];
        let mut adam = AdamW::new(layout.len());
        adam.update(&mut params, &vec![0.0; layout.len()], 0.1, layout, &o);
        assert!((params[0] - 0.95).abs() < 1e-6);
        assert_eq!(params[layout.feature_bias().start], 1.0);
        assert!(params[layout.output_biases()].iter().all(|&p| p == 1.0));
    }
}
