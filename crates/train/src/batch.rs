//! A batch's gradient and a dataset's loss on all cores.
//!
//! A batch is cut into one contiguous slice per thread; each thread decodes its records and
//! sums its gradient into its own buffer (no locks, no atomics), and the buffers are added
//! afterwards. Scoped `std::thread`s are spawned per batch: the spawn costs microseconds against
//! a batch's tens of milliseconds.

use crate::dataset::Record;
use crate::model::{Network, SCALE, SIGMOID_CP, Scratch, backprop};
use crate::record::{decode, sigmoid};

/// Set in an entry of a batch's order: train on the record mirrored left to right.
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
            .map(|(grad, part)| {
                scope.spawn(move || {
                    grad.fill(0.0);
                    let mut scratch = Scratch::new(net.layout.hidden);
                    let mut loss = 0.0f64;
                    for &i in part {
                        let mut sample =
                            decode(&records[(i & !MIRROR_BIT) as usize]).expect("records are checked when loaded");
                        if i & MIRROR_BIT != 0 {
                            sample.mirror();
                        }
                        let target = sample.target(lambda, SIGMOID_CP);
                        loss += f64::from(backprop(
                            net,
                            sample.stm_features(),
                            sample.nstm_features(),
                            target,
                            weight,
                            grad,
                            &mut scratch,
                        ));
                    }
                    loss
                })
            })
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
                        let sample = decode(record).expect("records are checked when loaded");
                        let (a_stm, a_nstm) = acc.split_at_mut(net.layout.hidden);
                        net.accumulate(sample.stm_features(), a_stm);
                        net.accumulate(sample.nstm_features(), a_nstm);
                        let p = sigmoid(net.output(&acc) * SCALE / SIGMOID_CP);
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
