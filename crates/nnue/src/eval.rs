//! The output layer: from a pair of accumulators to centipawns.

use ferz_chess::Position;

use crate::simd;
use crate::{Accumulator, Activation, Network, QA, QB};

/// Scores `pos`, whose accumulators are `acc`, in centipawns for the side to move, with the
/// output layer of its bucket of piece counts.
///
/// Uses AVX2 when the CPU has it (probed once), else [`evaluate_portable`]; both return the same
/// integer.
#[must_use]
#[inline]
pub fn evaluate(net: &Network, acc: &Accumulator, pos: &Position) -> i32 {
    evaluate_simd(net, acc, pos).unwrap_or_else(|| evaluate_portable(net, acc, pos))
}

/// The portable output layer.
///
/// CReLU: `(Σ clamp(a_stm,0,QA)·w + Σ clamp(a_nstm,0,QA)·w' + bias) · scale / (QA·QB)`;
/// SCReLU: `((Σ clamp(a_stm,0,QA)²·w + Σ clamp(a_nstm,0,QA)²·w') / QA + bias) · scale / (QA·QB)`,
/// divisions truncating toward zero; `w`, `w'` and `bias` those of `pos`'s output bucket.
#[must_use]
pub fn evaluate_portable(net: &Network, acc: &Accumulator, pos: &Position) -> i32 {
    let (stm, bucket) = (pos.turn(), net.output_bucket_of(pos));
    let (ours, theirs) = net.output_weight_lanes(bucket).split_at(net.lanes());
    let sum = match net.activation() {
        Activation::CReLU => simd::crelu_dot_portable(acc.perspective(stm), ours)
            .wrapping_add(simd::crelu_dot_portable(acc.perspective(!stm), theirs)),
        Activation::SCReLU => simd::screlu_dot_portable(acc.perspective(stm), ours)
            .wrapping_add(simd::screlu_dot_portable(acc.perspective(!stm), theirs)),
    };
    finish(net, bucket, sum)
}

/// The AVX2 output layer, or `None` when the CPU (or the build's architecture) lacks AVX2.
#[must_use]
#[inline]
pub fn evaluate_simd(net: &Network, acc: &Accumulator, pos: &Position) -> Option<i32> {
    #[cfg(target_arch = "x86_64")]
    if simd::avx2_available() {
        let (stm, bucket) = (pos.turn(), net.output_bucket_of(pos));
        let (ours, theirs) = net.output_weight_lanes(bucket).split_at(net.lanes());
        // Safety: the CPU was just checked to support AVX2.
        #[allow(unsafe_code)]
        let sum = unsafe {
            match net.activation() {
                Activation::CReLU => simd::x86::crelu_dot(acc.perspective(stm), ours)
                    .wrapping_add(simd::x86::crelu_dot(acc.perspective(!stm), theirs)),
                Activation::SCReLU => simd::x86::screlu_dot(acc.perspective(stm), ours)
                    .wrapping_add(simd::x86::screlu_dot(acc.perspective(!stm), theirs)),
            }
        };
        return Some(finish(net, bucket, sum));
    }
    let _ = (net, acc, pos);
    None
}

/// The name of the output kernel [`evaluate`] uses on this CPU: `"avx2"` or `"portable"`.
#[must_use]
pub fn simd_name() -> &'static str {
    if simd::avx2_available() { "avx2" } else { "portable" }
}

/// Bias and scaling after the dot products. The contract computes in i32; the last steps use
/// i64 so that an extreme net cannot overflow there, which gives the same result whenever i32
/// would not overflow.
#[inline(always)]
fn finish(net: &Network, bucket: usize, sum: i32) -> i32 {
    let pre = match net.activation() {
        Activation::CReLU => i64::from(sum),
        Activation::SCReLU => i64::from(sum / QA),
    };
    let out = (pre + i64::from(net.output_bias(bucket))) * i64::from(net.scale()) / i64::from(QA * QB);
    // |out| < (2^31 + 2^31) * MAX_SCALE / 16320 < 2^30: it fits.
    out as i32
}
