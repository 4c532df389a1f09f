//! One test per rule of `docs/rules.md`: how games end (mate, stalemate, material, move rules,
//! repetition, the Shatranj bare king) and the special moves (en passant, promotion, castling in
//! chess and Chess960, the Shatranj pieces). Expected values come from the rules or from the
//! Fairy-Stockfish reference counts in `tests/data/shatranj.perft`.

use ferz_chess::{
    CastlingNotation, Color, DrawReason, Game, Move, Outcome, Piece, Position, Role, Square, UciMoveError, Variant,
    WinReason,
};

fn pos(fen: &str, variant: Variant) -> Position {
    Position::from_fen(fen, variant).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn chess(fen: &str) -> Position {
    pos(fen, Variant::Chess)
}

fn chess960(fen: &str) -> Position {
    pos(fen, Variant::Chess960)
}

fn shatranj(fen: &str) -> Position {
    pos(fen, Variant::Shatranj)
}

fn sq(name: &str) -> Square {
    name.parse().unwrap_or_else(|e| panic!("{e}"))
}

/// Plays UCI moves one after the other.
fn play(start: Position, moves: &str) -> Position {
    moves.split_whitespace().fold(start, |p, uci| {
        let m = p.parse_uci(uci).unwrap_or_else(|e| panic!("{uci}: {e}"));
        p.play(m).expect("parse_uci returns legal moves")
    })
}

fn game(start: Position, moves: &str) -> Game {
    let mut game = Game::new(start);
    for uci in moves.split_whitespace() {
        game.play_uci(uci).unwrap_or_else(|e| panic!("{uci}: {e}"));
    }
    game
}

fn piece(c: char) -> Option<Piece> {
    Piece::from_char(c)
}

fn win(winner: Color, reason: WinReason) -> Option<Outcome> {
    Some(Outcome::Decisive { winner, reason })
}

fn draw(reason: DrawReason) -> Option<Outcome> {
    Some(Outcome::Draw(reason))
}

/// The legal moves of the piece on `from`, as UCI strings, sorted.
fn moves_from(p: &Position, from: &str) -> Vec<String> {
    let from = sq(from);
    let mut moves: Vec<String> = p.legal_moves().into_iter().filter(|m| m.from() == from).map(|m| p.uci(m)).collect();
    moves.sort();
    moves
}

// ---------------------------------------------------------------------------------------------
// Checkmate and stalemate
// ---------------------------------------------------------------------------------------------

#[test]
fn fools_mate_is_checkmate() {
    let p = play(Position::new(Variant::Chess), "f2f3 e7e5 g2g4 d8h4");
    assert!(p.is_check());
    assert!(p.legal_moves().is_empty());
    assert_eq!(p.outcome(), win(Color::Black, WinReason::Checkmate));
    assert_eq!(p.outcome().map(Outcome::result), Some("0-1"));
}

#[test]
fn check_with_a_block_is_not_mate() {
    // e2-e4 instead of g2-g4 leaves g2-g3 to block the diagonal.
    let p = play(Position::new(Variant::Chess), "f2f3 e7e5 e2e4 d8h4");
    assert!(p.is_check());
    assert!(p.parse_uci("g2g3").is_ok());
    assert_eq!(p.outcome(), None);
}

#[test]
fn back_rank_mate_in_chess_and_shatranj() {
    // Rook mates on the back rank; the rook moves the same in both games.
    let before = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1";
    for variant in Variant::ALL {
        let p = play(pos(before, variant), "a1a8");
        assert_eq!(p.outcome(), win(Color::White, WinReason::Checkmate), "{variant}");
    }
}

#[test]
fn stalemate_is_a_draw_in_chess_and_a_loss_in_shatranj() {
    // Black: king h8 and a pawn blocked on a3; white: king g6 and a queen (ferz) on f7. The queen
    // covers g8 and h7 in chess; in Shatranj the ferz covers g8 and the king covers g7 and h7.
    let fen = "7k/5Q2/6K1/8/8/p7/P7/8 b - - 0 1";
    for variant in [Variant::Chess, Variant::Chess960] {
        let p = pos(fen, variant);
        assert!(!p.is_check());
        assert_eq!(p.count_legal_moves(), 0);
        assert_eq!(p.outcome(), draw(DrawReason::Stalemate), "{variant}");
    }
    let p = shatranj(fen);
    assert!(!p.is_check());
    assert_eq!(p.count_legal_moves(), 0);
    // The side that cannot move loses: black is stalemated, white wins.
    assert_eq!(p.outcome(), win(Color::White, WinReason::Stalemate));
    assert_eq!(p.outcome().map(Outcome::result), Some("1-0"));
}

#[test]
fn stalemating_move_draws_in_chess_and_wins_in_shatranj() {
    // Qf5-g6 (a one-step diagonal move for the Shatranj ferz too) takes h7 from the king on h8;
    // the king on f7 covers g8 and g7, and the black pawn on a3 is blocked.
    let before = "7k/5K2/8/5Q2/8/p7/P7/8 w - - 0 1";
    let p = play(chess(before), "f5g6");
    assert_eq!(p.outcome(), draw(DrawReason::Stalemate));
    let p = play(shatranj(before), "f5g6");
    assert!(!p.is_check());
    assert_eq!(p.outcome(), win(Color::White, WinReason::Stalemate));
}

// ---------------------------------------------------------------------------------------------
// Insufficient material (chess only)
// ---------------------------------------------------------------------------------------------

#[test]
fn insufficient_material_draws() {
    for (fen, why) in [
        ("8/8/4k3/8/8/4K3/8/8 w - - 0 1", "K v K"),
        ("8/8/4k3/8/8/4KB2/8/8 w - - 0 1", "KB v K"),
        ("8/8/4k3/8/8/4KN2/8/8 b - - 0 1", "KN v K"),
        ("8/8/3nk3/8/8/4K3/8/8 w - - 0 1", "K v KN"),
        // c1, e1 and a3 are all dark squares.
        ("8/8/4k3/8/8/b3K3/8/2B1B3 w - - 0 1", "bishops all on dark squares"),
        // c4 and d1 are light.
        ("8/8/4k3/8/2b5/4K3/8/3B4 w - - 0 1", "KB v KB, same colour"),
    ] {
        let p = chess(fen);
        assert!(p.is_insufficient_material(), "{why}");
        assert_eq!(p.outcome(), draw(DrawReason::InsufficientMaterial), "{why}");
        assert_eq!(p.with_variant(Variant::Chess960).and_then(|p| p.outcome()), p.outcome(), "{why}");
    }
}

#[test]
fn sufficient_material_plays_on() {
    for (fen, why) in [
        ("8/8/4k3/8/8/4K3/8/3NN3 w - - 0 1", "KNN v K (mate possible with help)"),
        // c4 is light, c1 dark.
        ("8/8/4k3/8/2b5/4K3/8/2B5 w - - 0 1", "KB v KB, opposite colours"),
        ("8/8/4k3/8/8/4K3/4P3/8 w - - 0 1", "a white pawn"),
        ("8/4p3/4k3/8/8/4K3/8/8 w - - 0 1", "a black pawn"),
        ("8/8/4k3/8/8/4K3/8/R7 w - - 0 1", "a rook"),
        ("8/8/4k3/8/8/4K3/8/Q7 w - - 0 1", "a queen"),
        ("8/8/4k3/8/8/4K3/8/1NB5 w - - 0 1", "KBN v K"),
        ("8/8/3nk3/8/8/4KN2/8/8 w - - 0 1", "KN v KN"),
        ("8/8/3nk3/8/8/4KB2/8/8 w - - 0 1", "KB v KN"),
        // b1 is light, c1 dark: a pair of bishops on both colours.
        ("8/8/4k3/8/8/4K3/8/1BB5 w - - 0 1", "bishops on both colours"),
    ] {
        let p = chess(fen);
        assert!(!p.is_insufficient_material(), "{why}");
        assert_eq!(p.outcome(), None, "{why}");
    }
}

#[test]
fn capture_into_insufficient_material() {
    // Kxe5 removes the last pawn and leaves king and bishop against king.
    let p = chess("8/6k1/8/4p3/3K4/8/8/6B1 w - - 0 1");
    assert_eq!(p.outcome(), None);
    let p = play(p, "d4e5");
    assert!(p.is_insufficient_material());
    assert_eq!(p.outcome(), draw(DrawReason::InsufficientMaterial));
}

// ---------------------------------------------------------------------------------------------
// Move rules
// ---------------------------------------------------------------------------------------------

#[test]
fn fifty_move_rule() {
    let fen = |halfmoves: u32| format!("8/8/4k3/8/8/4K3/8/R7 w - - {halfmoves} 80");
    assert_eq!(chess(&fen(99)).outcome(), None);
    assert_eq!(chess(&fen(100)).outcome(), draw(DrawReason::MoveRule));
    assert_eq!(chess(&fen(150)).outcome(), draw(DrawReason::MoveRule));
    assert_eq!(chess960(&fen(100)).outcome(), draw(DrawReason::MoveRule));
    // The 100th halfmove completes the rule; a capture or a pawn move resets the count.
    let quiet = play(chess(&fen(99)), "a1a2");
    assert_eq!(quiet.halfmoves(), 100);
    assert_eq!(quiet.outcome(), draw(DrawReason::MoveRule));
    let p = play(chess("8/8/4k3/8/8/3K4/4P3/R7 w - - 99 80"), "e2e3");
    assert_eq!(p.halfmoves(), 0);
    assert_eq!(p.outcome(), None);
    let p = play(chess("8/8/4k3/8/8/4K3/8/R3n3 w - - 99 80"), "a1e1");
    assert_eq!(p.halfmoves(), 0);
    assert_eq!(p.outcome(), None);
}

#[test]
fn mate_on_the_hundredth_halfmove_is_mate() {
    let p = play(chess("6k1/5ppp/8/8/8/8/8/R5K1 w - - 99 80"), "a1a8");
    assert_eq!(p.halfmoves(), 100);
    assert_eq!(p.outcome(), win(Color::White, WinReason::Checkmate));
    // Stalemate with the count reached is a stalemate draw, not a move-rule draw.
    let p = chess("7k/5Q2/6K1/8/8/p7/P7/8 b - - 100 80");
    assert_eq!(p.outcome(), draw(DrawReason::Stalemate));
}

#[test]
fn seventy_move_rule_in_shatranj() {
    // King and rook each: no bare king, no draw by material.
    let fen = |halfmoves: u32| format!("r3k3/8/8/8/8/8/8/R3K3 w - - {halfmoves} 90");
    assert_eq!(shatranj(&fen(100)).outcome(), None, "the 50-move rule does not apply to Shatranj");
    assert_eq!(shatranj(&fen(139)).outcome(), None);
    assert_eq!(shatranj(&fen(140)).outcome(), draw(DrawReason::MoveRule));
    let p = play(shatranj(&fen(139)), "e1f1");
    assert_eq!(p.halfmoves(), 140);
    assert_eq!(p.outcome(), draw(DrawReason::MoveRule));
    // A mate on the 140th halfmove is a mate.
    let p = play(shatranj("6k1/5ppp/8/8/8/8/8/R5K1 w - - 139 80"), "a1a8");
    assert_eq!(p.outcome(), win(Color::White, WinReason::Checkmate));
    // A pawn move (single step only) resets the count.
    let p = play(shatranj("r3k3/8/8/8/8/8/4P3/R3K3 w - - 139 90"), "e2e3");
    assert_eq!(p.halfmoves(), 0);
    assert_eq!(p.outcome(), None);
}

// ---------------------------------------------------------------------------------------------
// Threefold repetition
// ---------------------------------------------------------------------------------------------

const KNIGHT_SHUFFLE: &str = "g1f3 g8f6 f3g1 f6g8";

#[test]
fn threefold_repetition_by_knight_shuffles() {
    let start = Position::new(Variant::Chess);
    let mut g = Game::new(start);
    assert_eq!(g.repetitions(), 1);
    for uci in KNIGHT_SHUFFLE.split_whitespace() {
        g.play_uci(uci).expect("legal");
    }
    assert_eq!(g.position().fen(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 4 3");
    assert_eq!(g.repetitions(), 2);
    assert_eq!(g.outcome(), None, "twice is not a draw");
    for uci in "g1f3 g8f6 f3g1".split_whitespace() {
        g.play_uci(uci).expect("legal");
        assert_eq!(g.outcome(), None);
    }
    g.play_uci("f6g8").expect("legal");
    assert_eq!(g.repetitions(), 3);
    assert_eq!(g.outcome(), draw(DrawReason::ThreefoldRepetition));
    assert_eq!(g.moves().len(), 8);
    // The position itself does not know its history.
    assert_eq!(g.position().outcome(), None);
}

#[test]
fn repetition_needs_the_same_side_to_move() {
    // The white king walks a triangle (e1-d1-d2-e1, three moves) while the black knight goes
    // out and back (two moves): the board repeats with the other side to move.
    let start = chess("4k1n1/8/8/8/8/8/8/1N2K3 w - - 0 1");
    let mut g = game(start, "e1d1 g8f6 d1d2 f6g8 d2e1");
    assert_eq!(g.position().board(), start.board());
    assert_eq!(g.position().turn(), Color::Black);
    assert_ne!(g.position().key(), start.key());
    assert_eq!(g.repetitions(), 1);
    // Knights out and back: the same board again with black to move.
    for uci in "g8f6 b1c3 f6g8 c3b1".split_whitespace() {
        g.play_uci(uci).expect("legal");
    }
    // Third time this board stands, but only twice with black to move.
    assert_eq!(g.position().board(), start.board());
    assert_eq!(g.repetitions(), 2);
    assert_eq!(g.outcome(), None);
    for uci in "g8f6 b1c3 f6g8 c3b1".split_whitespace() {
        g.play_uci(uci).expect("legal");
    }
    assert_eq!(g.repetitions(), 3);
    assert_eq!(g.outcome(), draw(DrawReason::ThreefoldRepetition));
}

#[test]
fn repetition_needs_the_same_castling_rights() {
    // The queen's rooks step aside and back: the board is the start again, but without the
    // queenside rights.
    let start = chess("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    let rook_shuffle = "a1b1 a8b8 b1a1 b8a8";
    let mut g = game(start, rook_shuffle);
    assert_eq!(g.position().board(), start.board());
    assert_eq!(g.position().fen(), "r3k2r/8/8/8/8/8/8/R3K2R w Kk - 4 3");
    assert_eq!(g.repetitions(), 1);
    for uci in rook_shuffle.split_whitespace() {
        g.play_uci(uci).expect("legal");
    }
    // The board has now stood three times, the same position (rights included) twice.
    assert_eq!(g.repetitions(), 2);
    assert_eq!(g.outcome(), None);
    for uci in rook_shuffle.split_whitespace() {
        g.play_uci(uci).expect("legal");
    }
    assert_eq!(g.repetitions(), 3);
    assert_eq!(g.outcome(), draw(DrawReason::ThreefoldRepetition));
}

#[test]
fn repetition_needs_the_same_en_passant_right() {
    // After d7-d5 white may take en passant; after the knight shuffle the same board no longer
    // allows it, so it is a different position.
    let mut g = game(chess("4k1n1/3p4/8/4P3/8/8/8/4K1N1 b - - 0 1"), "d7d5");
    assert_eq!(g.position().ep_square(), Some(sq("d6")));
    let after_double_step = *g.position().board();
    for round in 1..=3 {
        for uci in KNIGHT_SHUFFLE.split_whitespace() {
            g.play_uci(uci).expect("legal");
        }
        assert_eq!(g.position().board(), &after_double_step);
        assert_eq!(g.position().ep_square(), None);
        assert_eq!(g.repetitions(), round, "round {round}");
    }
    assert_eq!(g.outcome(), draw(DrawReason::ThreefoldRepetition));
}

#[test]
fn an_en_passant_square_without_a_capture_is_no_right() {
    // No white pawn can take on d6, so the position after d7-d5 is the same as after the
    // shuffles: the third occurrence comes one round earlier than in the test above.
    let mut g = game(chess("4k1n1/3p4/8/8/8/8/8/4K1N1 b - - 0 1"), "d7d5");
    assert_eq!(g.position().ep_square(), None);
    for uci in KNIGHT_SHUFFLE.split_whitespace() {
        g.play_uci(uci).expect("legal");
    }
    assert_eq!(g.repetitions(), 2);
    assert_eq!(g.outcome(), None);
    for uci in KNIGHT_SHUFFLE.split_whitespace() {
        g.play_uci(uci).expect("legal");
    }
    assert_eq!(g.repetitions(), 3);
    assert_eq!(g.outcome(), draw(DrawReason::ThreefoldRepetition));
}

#[test]
fn an_irreversible_move_ends_the_repetition_window() {
    // Two occurrences, then a pawn move and a shuffle that brings back nothing seen before.
    let mut g = game(Position::new(Variant::Chess), KNIGHT_SHUFFLE);
    assert_eq!(g.repetitions(), 2);
    g.play_uci("e2e3").expect("legal");
    for uci in "g8f6 g1f3 f6g8 f3g1".split_whitespace() {
        g.play_uci(uci).expect("legal");
    }
    assert_eq!(g.repetitions(), 2, "the position after e3 ...: once after e3, once now");
    assert_eq!(g.outcome(), None);
}

#[test]
fn threefold_repetition_in_shatranj() {
    let mut g = Game::new(Position::shatranj(ferz_chess::ShatranjArray::KingOnE));
    for _ in 0..2 {
        for uci in KNIGHT_SHUFFLE.split_whitespace() {
            g.play_uci(uci).expect("legal");
        }
    }
    assert_eq!(g.outcome(), draw(DrawReason::ThreefoldRepetition));
}

// ---------------------------------------------------------------------------------------------
// Shatranj: bare king, counter-baring, K v K
// ---------------------------------------------------------------------------------------------

#[test]
fn baring_with_two_pieces_left_wins_at_once() {
    // Kxd2 takes black's last piece while white keeps a rook and a pawn: the bared side cannot
    // take both, so white wins immediately.
    let p = shatranj("4k3/8/8/8/8/8/3q3P/R3K3 w - - 0 1");
    assert!(p.is_check(), "the ferz on d2 checks e1 diagonally");
    let p = play(p, "e1d2");
    assert_eq!(p.turn(), Color::Black);
    assert_eq!(p.outcome(), win(Color::White, WinReason::BareKing));
    assert_eq!(p.legal_moves().len(), 0, "the game is over, as in Fairy-Stockfish");
    assert_eq!(p.shatranj_bare_king_winner(), Some(Color::White));
}

#[test]
fn baring_with_one_piece_left_wins_unless_it_is_taken_back() {
    // Kxd2 leaves white with king and rook: black gets one move to bare white in return.
    let p = play(shatranj("4k3/8/8/8/8/8/3q4/R3K3 w - - 0 1"), "e1d2");
    assert_eq!(p.outcome(), None);
    assert!(p.count_legal_moves() > 0);
    // The rook on a1 is out of reach: whatever black plays, white has won.
    for m in p.legal_moves() {
        let next = p.play(m).expect("legal");
        assert_eq!(next.outcome(), win(Color::White, WinReason::BareKing), "{}", p.uci(m));
        assert_eq!(next.legal_moves().len(), 0);
    }
}

#[test]
fn counter_baring_draws() {
    // Rxe6 takes the last black piece, but the rook lands next to the black king undefended.
    let p = play(shatranj("8/4k3/4n3/8/8/8/8/4R1K1 w - - 0 1"), "e1e6");
    assert!(p.is_check());
    assert_eq!(p.outcome(), None, "black may still bare white");
    // Kxe6: king against king.
    let kk = play(p, "e7e6");
    assert_eq!(kk.board().occupied().count(), 2);
    assert_eq!(kk.outcome(), draw(DrawReason::BareKings));
    assert_eq!(kk.outcome().map(Outcome::result), Some("1/2-1/2"));
    // Move generation goes on in K v K (Fairy-Stockfish perft counts those moves).
    assert!(kk.count_legal_moves() > 0);
    // Any other reply loses to the bare-king rule.
    let p2 = play(p, "e7d7");
    assert_eq!(p2.outcome(), win(Color::White, WinReason::BareKing));
    assert_eq!(p2.legal_moves().len(), 0);
}

#[test]
fn king_against_king_in_shatranj() {
    let p = shatranj("8/8/5k2/8/4K3/8/8/8 w - - 0 1");
    assert_eq!(p.outcome(), draw(DrawReason::BareKings));
    assert_eq!(p.legal_moves().len(), 6, "hand-04 in shatranj.perft");
    // In chess the same position is a draw by insufficient material instead.
    assert_eq!(chess("8/8/5k2/8/4K3/8/8/8 w - - 0 1").outcome(), draw(DrawReason::InsufficientMaterial));
}

#[test]
fn one_minor_piece_is_not_insufficient_in_shatranj() {
    // K+alfil v K+knight: no draw by material in Shatranj (only the bare-king rules apply).
    let p = shatranj("8/8/4k3/n7/8/4K3/8/2B5 w - - 0 1");
    assert_eq!(p.outcome(), None);
}

/// The hand-picked Shatranj positions of `tests/data/shatranj.perft`: each id with the
/// outcome the rules give and why. The move counts are the reference `perft 1` values.
const HAND_PICKED: &[(&str, Option<Outcome>, &str)] = &[
    // Black is bare against king and rook and to move: not over yet, black may take the rook
    // (Kxf6 is legal, the white king on e4 does not guard f6).
    ("hand-02", None, "bared side to move, counter-bare possible"),
    // The same with white to move: black moved and stayed bare, so white has won.
    (
        "hand-03",
        Some(Outcome::Decisive { winner: Color::White, reason: WinReason::BareKing }),
        "bared side moved without counter-baring",
    ),
    // King against king: a draw, but moves are still generated.
    ("hand-04", Some(Outcome::Draw(DrawReason::BareKings)), "K v K"),
    // Bare black king cannot reach the rook on f6 from d7: it still has its one move.
    ("hand-05", None, "bared side to move, counter-bare impossible, not decided yet"),
    // Bare black king against king, rook and pawn: it cannot take two pieces, white has won.
    (
        "hand-06",
        Some(Outcome::Decisive { winner: Color::White, reason: WinReason::BareKing }),
        "bared side to move facing two pieces",
    ),
    // Bare white king to move against king and ferz (out of reach): one move left.
    ("hand-07", None, "bared side to move facing one piece"),
    // Bare white king against two ferzes: black has won.
    (
        "hand-08",
        Some(Outcome::Decisive { winner: Color::Black, reason: WinReason::BareKing }),
        "bared side to move facing two pieces",
    ),
    // Knight g7 checks e8; d8 (pawn c7), e7, d7 and f8 (rook f7), f7 (pawn g6) are covered.
    ("hand-09", Some(Outcome::Decisive { winner: Color::White, reason: WinReason::Checkmate }), "checkmate"),
    // Rook h8 checks h6; the white rook cannot interpose on h7 through its own king.
    ("hand-10", Some(Outcome::Decisive { winner: Color::Black, reason: WinReason::Checkmate }), "checkmate"),
    // Bare white king on h6, not in check (a ferz does not attack orthogonally), no move:
    // stalemate, which the stalemating side wins even though the bare-king rule has not ended
    // the game.
    (
        "hand-11",
        Some(Outcome::Decisive { winner: Color::Black, reason: WinReason::Stalemate }),
        "stalemate of a bare king",
    ),
    // The mirror image with colours swapped.
    (
        "hand-12",
        Some(Outcome::Decisive { winner: Color::White, reason: WinReason::Stalemate }),
        "stalemate of a bare king",
    ),
    ("hand-13", None, "rook and king each: play goes on"),
    ("hand-14", None, "promotion probe"),
    ("hand-15", None, "alfil between pawns"),
    ("hand-16", None, "black promotes to a ferz"),
    ("hand-17", None, "promotions on both sides"),
    ("hand-18", None, "no castling in Shatranj"),
    ("hand-19", None, "promotion with rooks"),
    ("hand-20", None, "ferz against alfil and knight"),
    ("hand-21", None, "four alfils in the corners"),
    // The alfil on e2 is pinned by the rook on e7 (a leaper still cannot leave the file).
    ("hand-22", None, "pinned alfil"),
];

/// `(epd, perft 1)` of each case in the Shatranj suite.
fn shatranj_suite() -> Vec<(String, String, u64)> {
    let text = include_str!("data/shatranj.perft");
    let mut cases = Vec::new();
    let mut id = None;
    let mut epd = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("id ") {
            id = Some(rest.trim().to_owned());
        } else if let Some(rest) = line.strip_prefix("epd ") {
            epd = Some(rest.trim().to_owned());
        } else if let Some(rest) = line.strip_prefix("perft 1 ") {
            let nodes = rest.trim().parse().expect("node count");
            cases.push((id.take().expect("id"), epd.take().expect("epd"), nodes));
        }
    }
    cases
}

#[test]
fn shatranj_hand_picked_cases() {
    let suite = shatranj_suite();
    for &(id, expected, why) in HAND_PICKED {
        let (_, epd, nodes) = suite.iter().find(|(i, _, _)| i == id).unwrap_or_else(|| panic!("{id} missing"));
        let p = shatranj(epd);
        assert_eq!(p.legal_moves().len() as u64, *nodes, "{id} ({why}): {epd}");
        assert_eq!(p.count_legal_moves(), *nodes, "{id} ({why})");
        assert_eq!(p.outcome(), expected, "{id} ({why}): {epd}");
    }
    // Every hand-picked id of the suite after the start position is covered.
    let hand_ids = suite.iter().filter(|(id, _, _)| id.starts_with("hand-") && id != "hand-01").count();
    assert_eq!(hand_ids, HAND_PICKED.len());
}

// ---------------------------------------------------------------------------------------------
// En passant
// ---------------------------------------------------------------------------------------------

#[test]
fn en_passant_capture() {
    let p = play(Position::new(Variant::Chess), "e2e4 a7a6 e4e5 d7d5");
    assert_eq!(p.ep_square(), Some(sq("d6")));
    let m = p.parse_uci("e5d6").expect("en passant is legal");
    assert!(m.is_en_passant());
    assert_eq!(p.san(m), "exd6");
    let after = p.play(m).expect("legal");
    assert_eq!(after.piece_at(sq("d6")), piece('P'));
    assert_eq!(after.piece_at(sq("d5")), None, "the captured pawn is removed");
    assert_eq!(after.piece_at(sq("e5")), None);
    assert_eq!(after.halfmoves(), 0);
    assert_eq!(after.fen(), "rnbqkbnr/1pp1pppp/p2P4/8/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3");
}

#[test]
fn en_passant_only_on_the_very_next_move() {
    let p = play(Position::new(Variant::Chess), "e2e4 a7a6 e4e5 d7d5 g1f3 g8f6");
    assert_eq!(p.ep_square(), None);
    assert!(matches!(p.parse_uci("e5d6"), Err(UciMoveError::Illegal { .. })));
    assert!(!p.legal_moves().iter().any(|m| m.is_en_passant()));
}

#[test]
fn en_passant_illegal_through_a_rank_pin() {
    // Both pawns leave the fifth rank, exposing the white king on a5 to the rook on h5.
    let p = play(chess("8/2p5/8/KP5r/8/8/8/4k3 b - - 0 1"), "c7c5");
    assert_eq!(p.ep_square(), None, "no legal capture, so no en passant right");
    assert!(p.fen().contains(" w - - 0 2"), "{}", p.fen());
    assert!(matches!(p.parse_uci("b5c6"), Err(UciMoveError::Illegal { .. })));
    // Without the rook the same capture is legal.
    let p = play(chess("8/2p5/8/KP6/8/8/8/4k3 b - - 0 1"), "c7c5");
    assert_eq!(p.ep_square(), Some(sq("c6")));
    assert!(p.parse_uci("b5c6").expect("legal").is_en_passant());
}

#[test]
fn en_passant_illegal_for_a_diagonally_pinned_pawn() {
    // The c4 pawn is pinned by the bishop on a2 against the king on e6.
    let p = play(chess("8/8/4k3/8/2p5/8/B2P4/7K w - - 0 1"), "d2d4");
    assert_eq!(p.ep_square(), None);
    assert!(matches!(p.parse_uci("c4d3"), Err(UciMoveError::Illegal { .. })));
    // Unpinned (king on e7), the same capture is legal.
    let p = play(chess("8/4k3/8/8/2p5/8/B2P4/7K w - - 0 1"), "d2d4");
    assert!(p.parse_uci("c4d3").expect("legal").is_en_passant());
}

#[test]
fn en_passant_that_resolves_a_check() {
    // d7-d5 checks the king on e4 (the pawn on d5 attacks e4); taking it en passant removes
    // the checker, although d6 is not a square between checker and king.
    let p = play(chess("4k3/3p4/8/4P3/4K3/8/8/8 b - - 0 1"), "d7d5");
    assert!(p.is_check());
    let m = p.parse_uci("e5d6").expect("en passant removes the checking pawn");
    assert!(m.is_en_passant());
}

#[test]
fn en_passant_by_black() {
    let p = play(chess("4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1"), "e2e4");
    assert_eq!(p.ep_square(), Some(sq("e3")));
    let after = play(p, "d4e3");
    assert_eq!(after.piece_at(sq("e4")), None);
    assert_eq!(after.piece_at(sq("e3")), piece('p'));
}

// ---------------------------------------------------------------------------------------------
// Promotion
// ---------------------------------------------------------------------------------------------

#[test]
fn promotion_to_every_role_in_chess() {
    let p = chess("8/P6k/8/8/8/8/8/K7 w - - 0 1");
    assert_eq!(moves_from(&p, "a7"), ["a7a8b", "a7a8n", "a7a8q", "a7a8r"]);
    for (suffix, role) in [('q', Role::Queen), ('r', Role::Rook), ('b', Role::Bishop), ('n', Role::Knight)] {
        let m = p.parse_uci(&format!("a7a8{suffix}")).expect("legal");
        assert_eq!(m.promotion_role(), Some(role));
        let after = p.play(m).expect("legal");
        assert_eq!(after.piece_at(sq("a8")), Some(Piece { color: Color::White, role }));
        assert_eq!(after.piece_at(sq("a7")), None);
        assert_eq!(p.san(m), format!("a8={}", role.upper_char()));
    }
    assert!(matches!(p.parse_uci("a7a8"), Err(UciMoveError::Illegal { .. })), "chess needs the suffix");
    // Promoting with capture, and black promoting.
    let p = chess("1r5k/P7/8/8/8/8/7p/K7 w - - 0 1");
    assert_eq!(moves_from(&p, "a7").len(), 8);
    assert_eq!(p.san(p.parse_uci("a7b8n").expect("legal")), "axb8=N");
    let p = play(p, "a1a2");
    assert_eq!(moves_from(&p, "h2"), ["h2h1b", "h2h1n", "h2h1q", "h2h1r"]);
}

#[test]
fn many_queens_may_exist() {
    let p = play(chess("7k/PPPP4/8/8/8/8/8/4K3 w - - 0 1"), "a7a8q h8h7 b7b8q h7h6 c7c8q");
    assert_eq!(p.board().pieces(Color::White, Role::Queen).count(), 3);
}

#[test]
fn promotion_only_to_ferz_in_shatranj() {
    // Black keeps a pawn: a bare black king would have lost already.
    let p = shatranj("8/P6k/8/8/8/7p/8/K7 w - - 0 1");
    assert_eq!(moves_from(&p, "a7"), ["a7a8q"]);
    let m = p.parse_uci("a7a8q").expect("legal");
    assert_eq!(p.parse_uci("a7a8"), Ok(m), "the only promotion may omit its letter");
    for other in ["a7a8r", "a7a8b", "a7a8n"] {
        assert!(matches!(p.parse_uci(other), Err(UciMoveError::Illegal { .. })), "{other}");
    }
    assert_eq!(p.san(m), "a8=Q");
    let after = p.play(m).expect("legal");
    assert_eq!(after.piece_at(sq("a8")), piece('Q'));
    // The new ferz moves one step diagonally (b7 only, the a8 corner has one diagonal).
    let after = play(after, "h7h6");
    assert_eq!(moves_from(&after, "a8"), ["a8b7"]);
}

// ---------------------------------------------------------------------------------------------
// Shatranj pieces and missing moves
// ---------------------------------------------------------------------------------------------

#[test]
fn no_double_step_in_shatranj() {
    let p = Position::shatranj(ferz_chess::ShatranjArray::KingOnD);
    assert_eq!(p.legal_moves().len(), 16);
    assert!(matches!(p.parse_uci("e2e4"), Err(UciMoveError::Illegal { .. })));
    assert_eq!(moves_from(&p, "e2"), ["e2e3"]);
    // A pawn on its start rank advanced one square can go on one more: still single steps.
    let p = play(p, "e2e3 d7d6 e3e4 d6d5");
    assert_eq!(p.ep_square(), None);
    assert!(!p.legal_moves().iter().any(|m| m.is_en_passant()));
}

#[test]
fn no_castling_in_shatranj() {
    let p = shatranj("r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1");
    assert!(p.castling_rooks().is_empty());
    assert!(!p.legal_moves().iter().any(|m| m.is_castle()));
    for uci in ["e1g1", "e1h1", "e1c1", "e1a1"] {
        assert!(matches!(p.parse_uci(uci), Err(UciMoveError::Illegal { .. })), "{uci}");
    }
    assert!(p.parse_san("O-O").is_err());
    assert!(Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", Variant::Shatranj).is_err());
    // The same board in chess castles both ways.
    assert_eq!(chess("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").legal_moves().iter().filter(|m| m.is_castle()).count(), 2);
}

#[test]
fn alfil_leaps_over_pieces() {
    // The alfil on d4 is boxed in by its own pawns but leaps over them.
    // Black keeps a pawn on h7: a bare black king would have lost already.
    let fen = "4k3/7p/8/2PPP3/2PBP3/2PPP3/8/4K3 w - - 0 1";
    let p = shatranj(fen);
    assert_eq!(moves_from(&p, "d4"), ["d4b2", "d4b6", "d4f2", "d4f6"]);
    // A chess bishop in the same box cannot move.
    assert_eq!(moves_from(&chess(fen), "d4"), Vec::<String>::new());
    // An own piece on a landing square blocks it, an enemy piece there is captured, and the
    // square between does not matter.
    let p = shatranj("4k3/7p/1n3P2/2PPP3/2PBP3/2PPP3/8/4K3 w - - 0 1");
    assert_eq!(moves_from(&p, "d4"), ["d4b2", "d4b6", "d4f2"]);
    // An alfil in the corner has one square; it never reaches the square next to it.
    let p = shatranj("4k3/7p/8/8/8/8/8/B3K3 w - - 0 1");
    assert_eq!(moves_from(&p, "a1"), ["a1c3"]);
}

#[test]
fn alfil_checks_over_a_piece() {
    // The alfil on c6 attacks e8 over d7: check, and interposing on d7 does not help.
    let p = shatranj("4k3/3r4/2B5/8/8/8/8/4K3 b - - 0 1");
    assert!(p.is_check());
    assert_eq!(moves_from(&p, "d7"), Vec::<String>::new(), "the rook cannot block a leap");
    assert!(p.count_legal_moves() > 0);
}

#[test]
fn ferz_steps_one_square_diagonally() {
    let p = shatranj("4k3/7p/8/8/3Q4/8/8/4K3 w - - 0 1");
    assert_eq!(moves_from(&p, "d4"), ["d4c3", "d4c5", "d4e3", "d4e5"]);
    // A chess queen on the same square has 27 moves.
    assert_eq!(moves_from(&chess("4k3/8/8/8/3Q4/8/8/4K3 w - - 0 1"), "d4").len(), 27);
    // The ferz does not check orthogonally.
    assert!(!shatranj("4k3/4Q3/8/8/8/8/8/4K3 b - - 0 1").is_check());
    assert!(shatranj("4k3/3Q4/8/8/8/8/8/4K3 b - - 0 1").is_check());
}

// ---------------------------------------------------------------------------------------------
// Castling in chess
// ---------------------------------------------------------------------------------------------

fn castles(p: &Position) -> Vec<Move> {
    p.legal_moves().into_iter().filter(|m| m.is_castle()).collect()
}

#[test]
fn standard_castling_moves_king_and_rook() {
    let p = chess("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    let after = play(p, "e1g1");
    assert_eq!(after.fen(), "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1");
    let after = play(after, "e8c8");
    assert_eq!(after.fen(), "2kr3r/8/8/8/8/8/8/R4RK1 w - - 2 2");
}

#[test]
fn castling_through_or_into_check_is_illegal() {
    // The rook on f8 attacks f1, which the king crosses on its way to g1.
    let p = chess("4kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    assert_eq!(castles(&p), [Move::castle(Square::E1, Square::A1)]);
    // g1 attacked: the king would land in check.
    let p = chess("4k1r1/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    assert_eq!(castles(&p), [Move::castle(Square::E1, Square::A1)]);
    // b1 attacked: the king does not cross b1, only the rook does.
    let p = chess("1r2k3/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    assert_eq!(castles(&p).len(), 2);
    // In check: no castling at all.
    let p = chess("4r1k1/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    assert!(p.is_check());
    assert!(castles(&p).is_empty());
    // A piece between king and rook blocks, even on b1.
    let p = chess("4k3/8/8/8/8/8/8/RN2K2R w KQ - 0 1");
    assert_eq!(castles(&p), [Move::castle(Square::E1, Square::H1)]);
}

#[test]
fn castling_rights_are_lost_for_good() {
    let p = play(chess("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"), "h1g1 a8b8 g1h1 b8a8");
    assert_eq!(p.fen(), "r3k2r/8/8/8/8/8/8/R3K2R w Qk - 4 3");
    assert_eq!(castles(&p), [Move::castle(Square::E1, Square::A1)]);
    // A captured rook takes its right with it.
    let p = play(chess("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"), "a1a8");
    assert_eq!(p.fen(), "R3k2r/8/8/8/8/8/8/4K2R b Kk - 0 1");
    // A king move loses both.
    let p = play(chess("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"), "e1e2 e8e7 e2e1 e7e8");
    assert_eq!(p.fen(), "r3k2r/8/8/8/8/8/8/R3K2R w - - 4 3");
}

// ---------------------------------------------------------------------------------------------
// Castling in Chess960
// ---------------------------------------------------------------------------------------------

#[test]
fn chess960_castling_where_only_the_king_moves() {
    // King on g1, rook on h1: O-O leaves the king on g1 and puts the rook on f1.
    let p = chess960("k7/8/8/8/8/8/8/6KR w H - 0 1");
    let m = Move::castle(Square::G1, Square::H1);
    assert_eq!(castles(&p), [m]);
    assert_eq!(p.uci(m), "g1h1");
    assert_eq!(p.san(m), "O-O");
    let after = p.play(m).expect("legal");
    assert_eq!(after.piece_at(Square::G1), piece('K'));
    assert_eq!(after.piece_at(Square::F1), piece('R'));
    assert_eq!(after.piece_at(Square::H1), None);
    assert_eq!(after.fen(), "k7/8/8/8/8/8/8/5RK1 b - - 1 1");
    // f1 must be empty for the rook.
    assert!(castles(&chess960("k7/8/8/8/8/8/8/5NKR w H - 0 1")).is_empty());
}

#[test]
fn chess960_castling_where_only_the_rook_moves() {
    // King on c1, rook on a1: O-O-O leaves the king on c1 and puts the rook on d1; b1 and d1
    // must be empty.
    let p = chess960("1k6/8/8/8/8/8/8/R1K5 w A - 0 1");
    let m = Move::castle(Square::C1, Square::A1);
    assert_eq!(castles(&p), [m]);
    assert_eq!(p.uci(m), "c1a1");
    assert_eq!(p.san(m), "O-O-O");
    assert_eq!(play(p, "c1a1").fen(), "1k6/8/8/8/8/8/8/2KR4 b - - 1 1");
    // Rook on b1: the same.
    let p = chess960("k7/8/8/8/8/8/8/1RK5 w B - 0 1");
    assert_eq!(play(p, "c1b1").fen(), "k7/8/8/8/8/8/8/2KR4 b - - 1 1");
    // Blocked on b1 (the rook crosses it) or on d1 (its destination).
    assert!(castles(&chess960("1k6/8/8/8/8/8/8/RNK5 w A - 0 1")).is_empty());
    assert!(castles(&chess960("1k6/8/8/8/8/8/8/R1KN4 w A - 0 1")).is_empty());
}

#[test]
fn chess960_castling_with_king_and_rook_swapping_squares() {
    // King f1, rook g1: after O-O the king is on g1 and the rook on f1, with nothing else
    // needing to move, so it is possible on move one in a start position.
    let p = chess960("k7/8/8/8/8/8/8/5KR1 w G - 0 1");
    assert_eq!(play(p, "f1g1").fen(), "k7/8/8/8/8/8/8/5RK1 b - - 1 1");
    // Queenside mirror: king d1, rook c1.
    let p = chess960("k7/8/8/8/8/8/8/2RK4 w C - 0 1");
    assert_eq!(play(p, "d1c1").fen(), "k7/8/8/8/8/8/8/2KR4 b - - 1 1");
}

#[test]
fn chess960_castling_on_move_one() {
    // In a start array every square but the king's and the rook's is full, so castling is
    // legal at once exactly when king and rook stand on each other's destination squares.
    let mut possible = 0;
    for n in 0..960 {
        let p = Position::chess960(n).expect("0..960");
        let king = p.board().king_of(Color::White).expect("king");
        let expected: Vec<Move> = [(Square::F1, Square::G1), (Square::D1, Square::C1)]
            .into_iter()
            .filter(|&(k, r)| king == k && p.piece_at(r) == piece('R'))
            .map(|(k, r)| Move::castle(k, r))
            .collect();
        possible += expected.len();
        assert_eq!(castles(&p), expected, "chess960({n})");
    }
    assert!(possible > 0);
}

#[test]
fn chess960_castling_blocked_by_an_attacked_king_path() {
    // King b1 to g1 crosses c1..g1; the rook on e8 attacks e1.
    let p = chess960("k3r3/8/8/8/8/8/8/1K5R w H - 0 1");
    assert!(castles(&p).is_empty());
    // Attack on the destination g1.
    assert!(castles(&chess960("k5r1/8/8/8/8/8/8/1K5R w H - 0 1")).is_empty());
    // Without the black rook the same castling is legal.
    let p = chess960("k7/8/8/8/8/8/8/1K5R w H - 0 1");
    assert_eq!(play(p, "b1h1").fen(), "k7/8/8/8/8/8/8/5RK1 b - - 1 1");
    // An attack on a square only the rook crosses (b1) does not matter.
    let p = chess960("1r4k1/8/8/8/8/8/8/R5K1 w A - 0 1");
    assert_eq!(play(p, "g1a1").fen(), "1r4k1/8/8/8/8/8/8/2KR4 b - - 1 1");
}

#[test]
fn castling_with_the_rook_shielding_the_destination_is_illegal() {
    // The castling rook on g1 hides g1 from the black rook on h1; once it moves to f1 the king
    // would stand in check on g1.
    // Chess960 only: standard chess castles only with the corner rooks.
    let p = chess960("k7/8/8/8/8/8/8/4K1Rr w G - 0 1");
    assert!(!p.is_check());
    assert!(castles(&p).is_empty());
    // Queenside: the rook on b1 shields b1 and c1 from the rook on a1.
    let p = chess960("k7/8/8/8/8/8/8/rR3K2 w B - 0 1");
    assert!(castles(&p).is_empty());
    // Without the black rooks both are legal.
    assert_eq!(castles(&chess960("k7/8/8/8/8/8/8/4K1R1 w G - 0 1")).len(), 1);
    assert_eq!(castles(&chess960("k7/8/8/8/8/8/8/1R3K2 w B - 0 1")).len(), 1);
}

#[test]
fn two_rooks_on_one_side_only_the_lettered_one_castles() {
    // Shredder-FEN G: the inner rook on g1 castles (the king takes its square), h1 stays.
    let p = chess960("4k3/8/8/8/8/8/8/4K1RR w G - 0 1");
    assert_eq!(castles(&p), [Move::castle(Square::E1, Square::G1)]);
    assert_eq!(play(p, "e1g1").fen(), "4k3/8/8/8/8/8/8/5RKR b - - 1 1");
    // H (or K, the outermost rook): the g1 rook stands in the king's way.
    for right in ["H", "K"] {
        let p = chess960(&format!("4k3/8/8/8/8/8/8/4K1RR w {right} - 0 1"));
        assert_eq!(p.castling_rooks().count(), 1);
        assert!(p.castling_rooks().contains(Square::H1), "{right}");
        assert!(castles(&p).is_empty(), "{right}");
    }
    // Queenside: rooks on a1 and b1, only b1 lettered.
    let p = chess960("4k3/8/8/8/8/8/8/RR2K3 w B - 0 1");
    assert_eq!(castles(&p), [Move::castle(Square::E1, sq("b1"))]);
    assert_eq!(play(p, "e1b1").fen(), "4k3/8/8/8/8/8/8/R1KR4 b - - 1 1");
    // Both rooks of one side lettered is not a position.
    assert!(Position::from_fen("4k3/8/8/8/8/8/8/4K1RR w GH - 0 1", Variant::Chess960).is_err());
}

#[test]
fn x_fen_with_an_inner_rook() {
    // X-FEN names an inner rook by its file and the outermost by K/Q.
    let p = chess960("rr2k3/8/8/8/8/8/8/R1R1K3 w Cb - 0 1");
    assert_eq!(p.fen(), "rr2k3/8/8/8/8/8/8/R1R1K3 w Cb - 0 1");
    assert_eq!(p.fen_with(CastlingNotation::Shredder), "rr2k3/8/8/8/8/8/8/R1R1K3 w Cb - 0 1");
    // The inner rook castles: the king goes to c1 (the rook's square), the rook to d1.
    assert_eq!(play(p, "e1c1").fen(), "rr2k3/8/8/8/8/8/8/R1KR4 b b - 1 1");
    // Q names the a-rook, the outermost one; it is blocked by the c-rook.
    let q = chess960("rr2k3/8/8/8/8/8/8/R1R1K3 w Qq - 0 1");
    assert!(q.castling_rooks().contains(Square::A1));
    assert_eq!(q.fen(), "rr2k3/8/8/8/8/8/8/R1R1K3 w Qq - 0 1");
    assert_eq!(q.fen_with(CastlingNotation::Shredder), "rr2k3/8/8/8/8/8/8/R1R1K3 w Aa - 0 1");
    assert!(castles(&q).is_empty());
    // Mixed notations name the same rooks: X-FEN K and Shredder H for the h1 rook.
    let mixed = chess960("r3k2r/8/8/8/8/8/8/R3K2R w Hq - 0 1");
    assert_eq!(mixed.fen(), "r3k2r/8/8/8/8/8/8/R3K2R w Kq - 0 1");
    assert_eq!(mixed, chess960("r3k2r/8/8/8/8/8/8/R3K2R w Ka - 0 1"));
}

#[test]
fn game_results_read_back_from_their_pgn_tokens() {
    use ferz_chess::{Color, GameResult};
    for result in [GameResult::Win(Color::White), GameResult::Win(Color::Black), GameResult::Draw] {
        assert_eq!(GameResult::from_pgn(result.pgn()), Some(Some(result)));
        assert_eq!(GameResult::from_winner(result.winner()), result);
    }
    assert_eq!(GameResult::from_pgn("*"), Some(None));
    assert_eq!(GameResult::pgn_of(None), "*");
    assert_eq!(GameResult::from_pgn("1-1"), None);
    assert_eq!(GameResult::Win(Color::Black).white_score(), 0.0);
}
