//! Helpers shared by the integration tests: random games and random nets.

#![allow(dead_code)]

use ferz_chess::{Move, Position, ShatranjArray, SplitMix64, Variant};
use ferz_nnue::{Activation, InputLayout, NetVariant, Network};

/// The start position of game `game` of a test in `variant`: Chess960 games start from random
/// arrays, Shatranj games alternate the two arrays.
pub fn start(variant: Variant, game: u64, rng: &mut SplitMix64) -> Position {
    match variant {
        Variant::Chess => Position::new(Variant::Chess),
        Variant::Chess960 => Position::random_chess960(|| rng.next_u64()),
        Variant::Shatranj => {
            Position::shatranj(if game.is_multiple_of(2) { ShatranjArray::KingOnD } else { ShatranjArray::KingOnE })
        }
    }
}

/// A random legal game of at most `max_plies` plies: the positions before each move and the
/// moves. Captures are preferred half of the time so games reach endgames and promotions.
pub fn random_game(start: Position, max_plies: usize, rng: &mut SplitMix64) -> Vec<(Position, Move)> {
    let mut pos = start;
    let mut game = Vec::new();
    for _ in 0..max_plies {
        let moves = pos.legal_moves();
        if moves.is_empty() || pos.board().occupied().count() <= 2 {
            break;
        }
        let special: Vec<Move> = moves
            .iter()
            .copied()
            .filter(|&m| {
                m.is_castle() || m.is_en_passant() || m.promotion_role().is_some() || pos.piece_at(m.to()).is_some()
            })
            .collect();
        let m = if !special.is_empty() && rng.below(2) == 0 {
            special[rng.index(special.len())]
        } else {
            moves[rng.index(moves.len())]
        };
        game.push((pos, m));
        pos.play_unchecked(m);
    }
    game
}

/// A random integer net of input layout `inputs` and `buckets` output buckets over the full i16
/// range of feature weights, so accumulators wrap: for checking that kernels agree bit for bit,
/// not for realistic scores.
pub fn random_extreme_net(
    variant: NetVariant,
    activation: Activation,
    inputs: InputLayout,
    hidden: usize,
    buckets: usize,
    seed: u64,
) -> Network {
    let mut rng = SplitMix64::new(seed);
    let mut i16s = |count: usize, bound: i64| -> Vec<i16> {
        (0..count).map(|_| (rng.below(2 * bound as u64 + 1) as i64 - bound) as i16).collect()
    };
    let fw = i16s(inputs.inputs() * hidden, 32767);
    let fb = i16s(hidden, 32767);
    let ow = i16s(2 * hidden * buckets, if activation == Activation::SCReLU { 128 } else { 32767 });
    let biases: Vec<i32> = (0..buckets).map(|_| (rng.next_u64() as i32) / 4).collect();
    Network::from_parts(variant, activation, inputs, hidden, &fw, &fb, &ow, &biases).expect("valid sizes")
}
