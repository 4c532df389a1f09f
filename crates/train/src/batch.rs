//! A batch's gradient and a dataset's loss on all cores.
//!
//! A batch is cut into one contiguous slice per thread; each thread decodes its records and
//! sums its gradient into its own buffer (no locks, no atomics), and the buffers are added
//! afterwards. Scoped `std::thread`s are spawned per batch: the spawn costs microseconds against
//! a batch's tens of milliseconds.

use crate::model::{Network, SCALE, SIGMOID_CP, Scratch, backprop};
use crate::record::{Record, decode, sigmoid};

/// Set in an entry of a batch's order: train on the record mirrored left to right (plain inputs
/// only, see [`crate::record::Sample::mirror`]).
pub const MIRROR_BIT: u32 = 1 << 31;

/// Per-thread gradient buffers, kept between batches.
#[derive(Debug)]
pub struct Workspace {
    grads: Vec<Vec<f32>>,
}

impl Workspace {
    /// Buffers for `threads` threads and a network of `params` parameters.
    #[must_use]
    pub fn new(threads: usize, params: usize) -> Workspace {
        Workspace { grads: vec![vec![0.0; params]; threads.max(1)] }
    }

    /// Threads used.
    #[must_use]
    pub fn threads(&self) -> usize {
        self.grads.len()
    }
}

/// The records of `order` (indices into `records`, with [`MIRROR_BIT`] set for those to mirror)
/// as one batch: writes the mean gradient of
/// the loss into the returned slice and returns the summed loss.
///
/// Records were decoded once when loading, so decoding cannot fail here.
pub fn gradient<'w>(
    net: &Network,
    records: &[Record],
    order: &[u32],
    lambda: f32,
    work: &'w mut Workspace,
) -> (&'w [f32], f64) {
    let threads = work.grads.len();
    let weight = 1.0 / order.len().max(1) as f32;
    let chunk = order.len().div_ceil(threads).max(1);
    let losses: Vec<f64> = std::thread::scope(|scope| {
        let handles: Vec<_> = work
            .grads
            .iter_mut()
            .zip(order.chunks(chunk).chain(std::iter::repeat(&[][..])))
            .map(|(grad, part)| scope.spawn(move || slice_gradient(net, records, part, lambda, weight, grad)))
            .collect();
        handles.into_iter().map(|h| h.join().expect("a gradient thread panicked")).collect()
    });
    let (first, rest) = work.grads.split_first_mut().expect("at least one thread");
    for other in rest.iter() {
        for (a, b) in first.iter_mut().zip(other) {
            *a += b;
        }
    }
    (first.as_slice(), losses.iter().sum())
}

/// One thread's share of a batch: zeroes `grad`, adds the slice's gradient (each position's
/// times `weight`) and returns the summed loss.
fn slice_gradient(net: &Network, records: &[Record], part: &[u32], lambda: f32, weight: f32, grad: &mut [f32]) -> f64 {
    // The work is f32 row additions; baseline x86-64 builds have 4-wide SSE2 only, so a copy
    // compiled for AVX2 (8 wide) runs where the CPU has it. Without FMA both copies round
    // alike, so a run gives the same weights on either path.
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
    if std::arch::is_x86_feature_detected!("avx2") {
        // Safety: `slice_gradient_avx2` is `slice_gradient_portable` compiled with AVX2, which
        // the CPU was just checked to support.
        #[allow(unsafe_code)]
        return unsafe { slice_gradient_avx2(net, records, part, lambda, weight, grad) };
    }
    slice_gradient_portable(net, records, part, lambda, weight, grad)
}

/// [`slice_gradient_portable`] compiled with AVX2.
#[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
#[target_feature(enable = "avx2")]
fn slice_gradient_avx2(
    net: &Network,
    records: &[Record],
    part: &[u32],
    lambda: f32,
    weight: f32,
    grad: &mut [f32],
) -> f64 {
    slice_gradient_portable(net, records, part, lambda, weight, grad)
}

/// The loop proper; always inlined so that each caller compiles it for its own target features.
#[inline(always)]
fn slice_gradient_portable(
    net: &Network,
    records: &[Record],
    part: &[u32],
    lambda: f32,
    weight: f32,
    grad: &mut [f32],
) -> f64 {
    grad.fill(0.0);
    let mut scratch = Scratch::new(net.layout.hidden);
    let mut loss = 0.0f64;
    for &i in part {
        let record = &records[(i & !MIRROR_BIT) as usize];
        let mut sample = decode(record, net.layout.inputs).expect("records are checked when loaded");
        if i & MIRROR_BIT != 0 {
            sample.mirror();
        }
        let target = sample.target(lambda, SIGMOID_CP);
        let input = sample.input(net.layout.output_buckets);
        loss += f64::from(backprop(net, input, target, weight, grad, &mut scratch));
    }
    loss
}

/// The mean loss over `records` on `threads` threads.
#[must_use]
pub fn mean_loss(net: &Network, records: &[Record], lambda: f32, threads: usize) -> f64 {
    if records.is_empty() {
        return f64::NAN;
    }
    let chunk = records.len().div_ceil(threads.max(1));
    let total: f64 = std::thread::scope(|scope| {
        let handles: Vec<_> = records
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    let mut acc = vec![0.0; 2 * net.layout.hidden];
                    let mut loss = 0.0f64;
                    for record in part {
                        let sample = decode(record, net.layout.inputs).expect("records are checked when loaded");
                        let input = sample.input(net.layout.output_buckets);
                        let (a_stm, a_nstm) = acc.split_at_mut(net.layout.hidden);
                        net.accumulate(input.stm, a_stm);
                        net.accumulate(input.nstm, a_nstm);
                        let p = sigmoid(net.output(&acc, input.bucket) * SCALE / SIGMOID_CP);
                        let error = p - sample.target(lambda, SIGMOID_CP);
                        loss += f64::from(error * error);
                    }
                    loss
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("a loss thread panicked")).sum()
    });
    total / records.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Activation;
    use crate::model::Layout;
    use ferz_chess::{Color, GameResult};
    use ferz_chess::{Position, Variant};
    use ferz_dataset::marlin::encode as marlin_record;

    fn records() -> Vec<Record> {
        let mut pos = Position::new(Variant::Chess);
        let mut out = Vec::new();
        for (ply, uci) in ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5c6", "d7c6"].iter().enumerate() {
            let mv = pos.parse_uci(uci).unwrap();
            pos.play_unchecked(mv);
            out.push(marlin_record(&pos, 40 * ply as i32 - 100, GameResult::Win(Color::White)));
        }
        out
    }

    #[test]
    fn the_dispatched_gradient_equals_the_portable_one_bit_for_bit() {
        let records = records();
        let net = Network::random(Layout::plain(24, 1), Activation::Screlu, 2);
        let order: Vec<u32> = (0..records.len() as u32).map(|i| if i % 3 == 0 { i | MIRROR_BIT } else { i }).collect();
        let mut dispatched = vec![0.0; net.params.len()];
        let mut portable = vec![1.0; net.params.len()];
        let a = slice_gradient(&net, &records, &order, 0.3, 0.125, &mut dispatched);
        let b = slice_gradient_portable(&net, &records, &order, 0.3, 0.125, &mut portable);
        assert_eq!(a.to_bits(), b.to_bits());
        assert!(dispatched.iter().zip(&portable).all(|(x, y)| x.to_bits() == y.to_bits()));
        assert!(dispatched.iter().any(|&g| g != 0.0));
    }

    #[test]
    fn threads_split_the_batch_and_sum_to_the_single_thread_gradient() {
        let records = records();
        let net = Network::random(
            Layout { inputs: ferz_nnue::InputLayout::King4, ..Layout::plain(24, 8) },
            Activation::Crelu,
            4,
        );
        let order: Vec<u32> = (0..records.len() as u32).collect();
        let mut one = Workspace::new(1, net.params.len());
        let mut three = Workspace::new(3, net.params.len());
        let (g1, l1) = gradient(&net, &records, &order, 0.5, &mut one);
        let (g3, l3) = gradient(&net, &records, &order, 0.5, &mut three);
        assert!((l1 - l3).abs() < 1e-9);
        assert!(g1.iter().zip(g3).all(|(a, b)| (a - b).abs() <= 1e-6 * a.abs().max(1e-3)));
        assert!((mean_loss(&net, &records, 0.5, 2) - l1 / records.len() as f64).abs() < 1e-7);
    }
}
