//! Choosing a net's scale so that its scores are as large as another net's.

mod common;

use ferz_chess::{Position, SplitMix64, Variant};
use ferz_nnue::calibrate::{CalibrationError, median_abs_score, medians};
use ferz_nnue::{Activation, FloatNetwork, NetVariant, Network, format};

/// Positions of random Chess960 and chess games.
fn positions(count: usize, seed: u64) -> Vec<Position> {
    let mut rng = SplitMix64::new(seed);
    let mut positions = Vec::new();
    for game in 0.. {
        let variant = if game % 2 == 0 { Variant::Chess } else { Variant::Chess960 };
        let start = common::start(variant, game, &mut rng);
        positions.extend(common::random_game(start, 80, &mut rng).into_iter().map(|(pos, _)| pos));
        if positions.len() >= count {
            break;
        }
    }
    positions.truncate(count);
    positions
}

/// The scale at which `net` scores `positions` as large as `reference` does.
fn matching_scale(net: &Network, reference: &Network, positions: &[Position]) -> Result<u16, CalibrationError> {
    medians(net, reference, positions)?.matching_scale(net.scale())
}

fn embedded_chess_net() -> Network {
    let bytes = ferz_nnue::embedded::bytes(NetVariant::Chess).expect("the build embeds a chess net");
    format::parse(bytes, Some(NetVariant::Chess)).unwrap()
}

/// The same weights at another scale are brought back to the reference's scale, both ways, to
/// within the rounding of the medians.
#[test]
fn a_rescaled_net_is_matched_back_to_its_reference() {
    let reference = embedded_chess_net();
    let positions = positions(4000, 5);
    let median = median_abs_score(&reference, &positions).unwrap();
    assert!(median > 20, "a real net scores random games' positions: median {median}");
    for other in [200, 400, 1000] {
        let net = reference.clone().with_scale(other).unwrap();
        let scale = matching_scale(&net, &reference, &positions).unwrap();
        let wanted = i32::from(reference.scale());
        assert!((i32::from(scale) - wanted).abs() <= wanted / 50, "from {other}: {scale}, wanted {wanted}");
    }
    // A net twice as large in its scores is set to half the scale.
    let doubled = reference.clone().with_scale(reference.scale() * 2).unwrap();
    let scale = matching_scale(&reference, &doubled, &positions).unwrap();
    let wanted = i32::from(reference.scale()) * 2;
    assert!((i32::from(scale) - wanted).abs() <= wanted / 50, "{scale}, wanted {wanted}");
}

/// Two different nets: the matched one's median score lands on the reference's.
#[test]
fn another_net_is_matched_to_the_reference_median() {
    let reference = embedded_chess_net();
    let net = FloatNetwork::random(Activation::SCReLU, 64, 1, 3).quantise(NetVariant::Chess).unwrap();
    let positions = positions(3000, 9);
    // The medians the scale is made of are each net's own.
    let both = medians(&net, &reference, &positions).unwrap();
    assert_eq!(
        (both.net, both.reference),
        (median_abs_score(&net, &positions).unwrap(), median_abs_score(&reference, &positions).unwrap())
    );
    let scale = both.matching_scale(net.scale()).unwrap();
    let matched = net.with_scale(scale).unwrap();
    let (ours, theirs) =
        (median_abs_score(&matched, &positions).unwrap(), median_abs_score(&reference, &positions).unwrap());
    assert!(ours.abs_diff(theirs) <= theirs / 50 + 1, "matched median {ours}, reference {theirs}");
}

#[test]
fn no_positions_or_no_scores_are_errors() {
    let reference = embedded_chess_net();
    assert!(matches!(matching_scale(&reference, &reference, &[]), Err(CalibrationError::NoPositions)));
    assert_eq!(median_abs_score(&reference, &[]), None);
    // A net whose output layer is all zero scores every position 0.
    let silent = FloatNetwork::random(Activation::CReLU, 16, 1, 1);
    let silent =
        FloatNetwork { output_weights: vec![0.0; silent.output_weights.len()], output_bias: vec![0.0; 1], ..silent }
            .quantise(NetVariant::Chess)
            .unwrap();
    let positions = positions(200, 1);
    let error = matching_scale(&silent, &reference, &positions).unwrap_err();
    assert!(matches!(error, CalibrationError::NoScores { zero: 200, positions: 200 }), "{error}");
    assert!(error.to_string().contains("200 of 200 positions 0"), "{error}");
}
