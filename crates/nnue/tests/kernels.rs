//! The AVX2 output layer returns the same integers as the portable one, and the quantised
//! network tracks the float model within the stated tolerance.

mod common;

use ferz_chess::{Position, SplitMix64, Variant};
use ferz_nnue::{
    Accumulator, Activation, FloatNetwork, InputLayout, NetVariant, evaluate, evaluate_float, evaluate_portable,
    evaluate_simd,
};

#[test]
fn avx2_equals_portable_on_random_nets() {
    let probe = common::random_extreme_net(NetVariant::Chess, Activation::CReLU, InputLayout::Plain, 16, 1, 0);
    if evaluate_simd(&probe, &Accumulator::new(&probe), &Position::new(Variant::Chess)).is_none() {
        eprintln!("this CPU has no AVX2: only the portable kernel exists here");
        return;
    }
    let mut rng = SplitMix64::new(21);
    let mut checked = 0;
    for (seed, hidden, buckets) in [(1, 16, 1), (2, 40, 8), (3, 128, 1), (4, 257, 5)] {
        for activation in [Activation::CReLU, Activation::SCReLU] {
            // Extreme nets: wrapping accumulators and sums; realistic nets: the normal range.
            let nets = [
                common::random_extreme_net(NetVariant::Chess, activation, InputLayout::Plain, hidden, buckets, seed),
                FloatNetwork::random(activation, hidden, buckets, seed).quantise(NetVariant::Chess).unwrap(),
            ];
            for net in &nets {
                let mut acc = Accumulator::new(net);
                for game in 0..4 {
                    let start = common::start(Variant::Chess960, game, &mut rng);
                    for (pos, _) in common::random_game(start, 120, &mut rng) {
                        acc.refresh(net, &pos);
                        let portable = evaluate_portable(net, &acc, &pos);
                        assert_eq!(evaluate_simd(net, &acc, &pos), Some(portable), "hidden {hidden} {activation:?}");
                        assert_eq!(evaluate(net, &acc, &pos), portable);
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 2500, "{checked}");
}

/// Each output bucket scores the positions of its piece counts with its own weights and bias:
/// the same accumulators scored by a net whose buckets differ only in their biases move by
/// exactly the bias of the position's bucket.
#[test]
fn the_piece_count_chooses_the_output_bucket() {
    let float = FloatNetwork::random(Activation::SCReLU, 32, 8, 3);
    let mut shifted = float.clone();
    for (bucket, bias) in shifted.output_bias.iter_mut().enumerate() {
        *bias += bucket as f32 * 0.25;
    }
    let (net, shifted) = (float.quantise(NetVariant::Chess).unwrap(), shifted.quantise(NetVariant::Chess).unwrap());
    let mut rng = SplitMix64::new(5);
    let mut buckets_seen = std::collections::BTreeSet::new();
    for game in 0..6 {
        let start = common::start(Variant::Chess, game, &mut rng);
        for (pos, _) in common::random_game(start, 300, &mut rng) {
            let mut acc = Accumulator::new(&net);
            acc.refresh(&net, &pos);
            let bucket = ferz_nnue::output_bucket(pos.board().occupied().count(), 8);
            buckets_seen.insert(bucket);
            assert_eq!(net.output_bucket_of(&pos), bucket);
            // 0.25 of output is 100 cp; the integer division may lose one.
            let moved = evaluate(&shifted, &acc, &pos) - evaluate(&net, &acc, &pos);
            assert!((moved - 100 * bucket as i32).abs() <= 1, "bucket {bucket}: moved {moved}");
        }
    }
    assert!(buckets_seen.len() >= 6, "{buckets_seen:?}");
}

/// For each position of random Shatranj games: (quantised - float, float) in centipawns, and
/// (quantised - dequantised float), for a net of `buckets` output buckets.
fn errors(activation: Activation, hidden: usize, buckets: usize, seed: u64) -> Vec<(f32, f32, f32)> {
    let float = FloatNetwork::random(activation, hidden, buckets, seed);
    let net = float.quantise(NetVariant::Shatranj).unwrap();
    let dequantised = FloatNetwork::dequantise(&net);
    let mut acc = Accumulator::new(&net);
    let mut rng = SplitMix64::new(seed);
    let mut out = Vec::new();
    for game in 0..10 {
        let start = common::start(Variant::Shatranj, game, &mut rng);
        for (pos, _) in common::random_game(start, 200, &mut rng) {
            acc.refresh(&net, &pos);
            let cp = evaluate(&net, &acc, &pos) as f32;
            let reference = evaluate_float(&float, &pos);
            out.push((cp - reference, reference, cp - evaluate_float(&dequantised, &pos)));
        }
    }
    out
}

/// The integer inference computes the float model of its own (dequantised) parameters to within
/// the truncation of its divisions: under 1 cp for the last one, 400/16320 cp for SCReLU's
/// division by QA, plus the float model's f32 rounding: 1.1 cp in all.
#[test]
fn integer_inference_equals_its_dequantised_float_model() {
    for activation in [Activation::CReLU, Activation::SCReLU] {
        for hidden in [32, 128, 512] {
            // With buckets, both models must also choose the same bucket by the piece count.
            for buckets in [1, 8] {
                for (_, _, exact_error) in errors(activation, hidden, buckets, hidden as u64) {
                    assert!(exact_error.abs() < 1.1, "{activation:?} N={hidden} B={buckets}: {exact_error}");
                }
            }
        }
    }
}

/// Quantisation (rounding every weight to 1/255 or 1/64) moves scores by a sum of N
/// independent rounding errors, so the error grows with the square root of the hidden size. The
/// stated tolerance, for nets with `FloatNetwork::random`'s parameter ranges: mean |error| at most
/// 1.25·√N cp and every position within 5·√N cp (N = 128: 14 cp and 57 cp).
#[test]
fn quantised_tracks_float() {
    for activation in [Activation::CReLU, Activation::SCReLU] {
        for hidden in [32, 128, 512] {
            let errs = errors(activation, hidden, 1, hidden as u64);
            let n = errs.len() as f32;
            let mean_abs = errs.iter().map(|e| e.0.abs()).sum::<f32>() / n;
            let max_abs = errs.iter().map(|e| e.0.abs()).fold(0.0, f32::max);
            let mean_ref = errs.iter().map(|e| e.1.abs()).sum::<f32>() / n;
            eprintln!(
                "{activation:?} N={hidden}: {} positions, mean |float| {mean_ref:.0} cp, \
                 |error| mean {mean_abs:.2} max {max_abs:.2} cp",
                errs.len()
            );
            let root = (hidden as f32).sqrt();
            assert!(mean_abs <= 1.25 * root, "{activation:?} N={hidden}: mean |error| {mean_abs}");
            assert!(max_abs <= 5.0 * root, "{activation:?} N={hidden}: max |error| {max_abs}");
        }
    }
}

/// A net of scale 300 scores three quarters of what the same net scores at the trainer's 400
/// (to within the last division's truncation), and its dequantised float model, which folds the
/// scale into the output layer, scores as the integer inference does.
#[test]
fn a_rescaled_net_scores_in_its_scale() {
    for activation in [Activation::CReLU, Activation::SCReLU] {
        let trained = FloatNetwork::random(activation, 64, 1, 17).quantise(NetVariant::Chess).unwrap();
        let rescaled = trained.clone().with_scale(300).unwrap();
        let dequantised = FloatNetwork::dequantise(&rescaled);
        let (mut acc, mut rescaled_acc) = (Accumulator::new(&trained), Accumulator::new(&rescaled));
        let mut rng = SplitMix64::new(17);
        let mut checked = 0;
        for game in 0..5 {
            let start = common::start(Variant::Chess, game, &mut rng);
            for (pos, _) in common::random_game(start, 120, &mut rng) {
                acc.refresh(&trained, &pos);
                rescaled_acc.refresh(&rescaled, &pos);
                let cp = evaluate(&trained, &acc, &pos);
                let rescaled_cp = evaluate(&rescaled, &rescaled_acc, &pos);
                let expected = f64::from(cp) * 0.75;
                assert!(
                    (f64::from(rescaled_cp) - expected).abs() <= 1.0,
                    "{activation:?}: {rescaled_cp} vs {expected}"
                );
                let float = evaluate_float(&dequantised, &pos);
                assert!((rescaled_cp as f32 - float).abs() < 1.1, "{activation:?}: {rescaled_cp} vs float {float}");
                checked += usize::from(cp.abs() >= 40);
            }
        }
        assert!(checked > 100, "{activation:?}: only {checked} positions with a score to scale");
    }
}
