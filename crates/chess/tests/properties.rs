//! Property tests over random legal games from the standard start, Chess960 starts and both
//! Shatranj arrays. At every ply: the incremental zobrist key equals the one computed from
//! scratch, FEN round-trips in both castling notations, every legal move round-trips through UCI
//! and SAN, playing a move on a copy leaves the original untouched, no legal move leaves the own
//! king attacked, `gives_check` agrees with the move played out, the square-indexed board agrees
//! with the bitboards, and the counting move generator agrees with the listing one. Along the
//! game, [`Game::repetitions`] agrees with a naive count over the FENs of the history.

use ferz_chess::{CastlingNotation, Color, Game, Move, Piece, Position, Role, ShatranjArray, Square, Variant};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// Plies per game at most.
const MAX_PLIES: usize = 200;

fn config() -> ProptestConfig {
    // Each case is a whole game with every legal move checked at every ply: a few dozen games
    // per start keep the file at a few seconds with the rules crate optimised.
    ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() }
}

/// SplitMix64: the move choices of one game, driven by the seed proptest picks.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The other notation of the same rules: chess and Chess960 differ only in how castling is
/// written. Shatranj has no twin.
fn twin(variant: Variant) -> Option<Variant> {
    match variant {
        Variant::Chess => Some(Variant::Chess960),
        Variant::Chess960 => Some(Variant::Chess),
        Variant::Shatranj => None,
    }
}

/// The part of a FEN that decides whether two positions are the same under the repetition rule
/// (board, side to move, castling rights, en passant square when a capture is possible).
fn identity(pos: &Position) -> String {
    pos.fen().split(' ').take(4).collect::<Vec<_>>().join(" ")
}

/// Every per-position property.
fn check_position(pos: &Position) -> Result<(), TestCaseError> {
    let fen = pos.fen();
    prop_assert_eq!(pos.key(), pos.compute_key(), "incremental key in {}", fen);
    let b = pos.board();
    for sq in Square::all() {
        let from_bitboards = Color::ALL.into_iter().find(|&c| b.by_color(c).contains(sq)).and_then(|color| {
            Role::ALL.into_iter().find(|&r| b.by_role(r).contains(sq)).map(|role| Piece { color, role })
        });
        prop_assert_eq!(b.piece_at(sq), from_bitboards, "square-indexed board at {} in {}", sq, fen);
    }
    let variant = pos.variant();
    prop_assert_eq!(Position::from_fen(&fen, variant), Ok(*pos), "X-FEN round trip");
    let shredder = pos.fen_with(CastlingNotation::Shredder);
    prop_assert_eq!(Position::from_fen(&shredder, variant), Ok(*pos), "Shredder-FEN round trip of {}", shredder);
    // Chess960 switches to standard notation freely unless its castling rights are not
    // standard chess's (then standard chess refuses the FEN too).
    let twin_pos = twin(variant).and_then(|v| {
        let switched = pos.with_variant(v);
        if switched.is_none() {
            assert_eq!(v, Variant::Chess);
            assert!(Position::from_fen(&fen, v).is_err(), "{fen}");
        }
        switched
    });
    if let Some(twin_pos) = twin_pos {
        prop_assert_eq!(Position::from_fen(&fen, twin_pos.variant()), Ok(twin_pos));
        prop_assert_eq!(twin_pos.key(), pos.key(), "the notation does not change the key");
    }

    let moves = pos.legal_moves();
    prop_assert_eq!(pos.count_legal_moves(), moves.len() as u64, "move count in {}", fen);
    for (i, m) in moves.iter().enumerate() {
        prop_assert!(!moves[..i].contains(m), "{:?} listed twice in {}", m, fen);
    }
    let tactical: Vec<Move> = moves
        .iter()
        .copied()
        .filter(|m| {
            m.is_en_passant()
                || m.promotion_role().is_some()
                || (!m.is_castle() && pos.board().by_color(!pos.turn()).contains(m.to()))
        })
        .collect();
    prop_assert_eq!(
        pos.legal_captures_and_promotions().to_vec(),
        tactical,
        "captures and promotions, in generation order, in {}",
        fen
    );
    for &m in &moves {
        let mut child = *pos;
        child.play_unchecked(m);
        prop_assert_eq!(pos.fen(), fen.as_str());
        prop_assert_eq!(pos.play(m), Ok(child));
        prop_assert_eq!(child.key(), child.compute_key(), "key after {:?} in {}", m, fen);
        prop_assert_ne!(child.key(), pos.key(), "a move changes at least the side to move");
        // The mover's king is never left attacked, and the checkers are those of the new side.
        let mover = pos.turn();
        let king = child.board().king_of(mover).expect("both kings stay");
        prop_assert!(!child.is_attacked_by(king, child.turn()), "{:?} leaves the king attacked in {}", m, fen);
        let their_king = child.board().king_of(child.turn()).expect("both kings stay");
        prop_assert_eq!(child.is_check(), child.is_attacked_by(their_king, mover), "checkers after {:?}", m);
        prop_assert_eq!(pos.gives_check(m), child.is_check(), "{:?} gives check? in {}", m, fen);

        let uci = pos.uci(m);
        prop_assert_eq!(pos.parse_uci(&uci), Ok(m), "UCI {} in {}", uci, fen);
        let san = pos.san(m);
        prop_assert_eq!(pos.parse_san(&san), Ok(m), "SAN {} in {}", san, fen);
        if let Some(twin_pos) = twin_pos {
            let uci = twin_pos.uci(m);
            prop_assert_eq!(twin_pos.parse_uci(&uci), Ok(m), "UCI {} in {} ({})", uci, fen, twin_pos.variant());
        }
    }
    Ok(())
}

/// Plays a random game from `start`, checking every position on the way. Half the time a
/// capture is preferred when there is one, so that games reach endings (promotions, bare kings)
/// within the ply budget.
fn check_game(start: Position, seed: u64) -> Result<(), TestCaseError> {
    let mut rng = Rng(seed);
    let mut game = Game::new(start);
    let mut history = vec![identity(&start)];
    for _ in 0..MAX_PLIES {
        let pos = *game.position();
        check_position(&pos)?;
        let naive = history.iter().filter(|&id| *id == identity(&pos)).count();
        prop_assert_eq!(game.repetitions(), naive, "repetitions of {}", pos.fen());
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        let captures: Vec<Move> =
            moves.iter().copied().filter(|m| pos.board().by_color(!pos.turn()).contains(m.to())).collect();
        let m = if !captures.is_empty() && rng.next().is_multiple_of(2) {
            captures[rng.below(captures.len())]
        } else {
            moves[rng.below(moves.len())]
        };
        prop_assert!(game.play(m).is_ok());
        history.push(identity(game.position()));
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn random_games_from_the_standard_start(seed in any::<u64>()) {
        check_game(Position::new(Variant::Chess), seed)?;
    }

    #[test]
    fn random_chess960_games(n in 0u32..960, seed in any::<u64>()) {
        let start = Position::chess960(n).expect("n < 960");
        check_game(start, seed)?;
    }

    #[test]
    fn random_shatranj_games_kings_on_d(seed in any::<u64>()) {
        check_game(Position::shatranj(ShatranjArray::KingOnD), seed)?;
    }

    #[test]
    fn random_shatranj_games_kings_on_e(seed in any::<u64>()) {
        check_game(Position::shatranj(ShatranjArray::KingOnE), seed)?;
    }
}

#[test]
fn null_moves_keep_keys_consistent() {
    for fen in [
        "rnbqkbnr/pppp1ppp/8/4p3/3P4/8/PPP1PPPP/RNBQKBNR w KQkq e6 0 2",
        "rnbqkbnr/ppp1pppp/8/8/3pP3/5N2/PPPP1PPP/RNBQKB1R b KQkq e3 0 3",
    ] {
        let pos = Position::from_fen(fen, Variant::Chess).unwrap();
        let mut passed = pos;
        passed.play_null();
        assert_eq!(passed.key(), passed.compute_key(), "{fen}");
        assert_eq!(passed.turn(), !pos.turn());
        assert_eq!(passed.ep_square(), None);
        passed.play_null();
        assert_eq!(passed.board(), pos.board());
        assert_eq!(passed.key(), Position::from_fen(&passed.fen(), Variant::Chess).unwrap().key());
    }
}
