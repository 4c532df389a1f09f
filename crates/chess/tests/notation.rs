//! Notation: FEN errors and their messages, UCI moves in standard and Chess960 mode and in
//! Shatranj, SAN printing and parsing, and the Chess960 start-position numbering (checked against
//! `tests/data/chess960-startpos.csv`).

use std::collections::HashSet;

use ferz_chess::{
    CastlingNotation, Color, FenError, Move, ParseFenError, ParseUciMoveError, Position, PositionError, Role, SanError,
    ShatranjArray, Square, UciMove, UciMoveError, Variant, chess960_back_rank,
};

fn pos(fen: &str, variant: Variant) -> Position {
    Position::from_fen(fen, variant).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn chess(fen: &str) -> Position {
    pos(fen, Variant::Chess)
}

fn sq(name: &str) -> Square {
    name.parse().unwrap_or_else(|e| panic!("{e}"))
}

fn fen_error(fen: &str, variant: Variant) -> FenError {
    match Position::from_fen(fen, variant) {
        Ok(p) => panic!("{fen} was accepted as {p:?}"),
        Err(e) => e,
    }
}

fn fen_message(fen: &str) -> String {
    fen_error(fen, Variant::Chess).to_string()
}

/// Plays UCI moves one after the other.
fn play(start: Position, moves: &str) -> Position {
    moves.split_whitespace().fold(start, |p, uci| {
        let m = p.parse_uci(uci).unwrap_or_else(|e| panic!("{uci}: {e}"));
        p.play(m).expect("parse_uci returns legal moves")
    })
}

fn uci_move(p: &Position, uci: &str) -> Move {
    p.parse_uci(uci).unwrap_or_else(|e| panic!("{uci}: {e}"))
}

fn is_illegal(result: Result<Move, UciMoveError>) -> bool {
    matches!(result, Err(UciMoveError::Illegal { .. }))
}

fn is_syntax(result: Result<Move, UciMoveError>) -> bool {
    matches!(result, Err(UciMoveError::Syntax(_)))
}

// ---------------------------------------------------------------------------------------------
// FEN errors
// ---------------------------------------------------------------------------------------------

#[test]
fn fen_syntax_errors() {
    assert_eq!(
        fen_message("rnbqkbnr/pppppppp/8/8/8/ppppppppp/PPPPPPPP/RNBQKBNR w - - 0 1"),
        "rank 3 has 9 squares, expected 8"
    );
    assert!(matches!(
        fen_error("rnbqkbnr/pppppppp/8/8/8/7/PPPPPPPP/RNBQKBNR w - - 0 1", Variant::Chess),
        FenError::Parse(ParseFenError::RankLength { squares: 7, .. })
    ));
    assert_eq!(
        fen_message("4k3/8/8/8/8/8/8/4K2X w - - 0 1"),
        "unknown letter 'X' on rank 1: pieces are pnbrqk/PNBRQK, empty squares digits 1-8"
    );
    // Shatranj FENs use the chess letters: there is no 'f' for the ferz or 'e' for the alfil.
    assert!(matches!(
        fen_error("4k3/8/8/8/3F4/8/8/4K3 w - - 0 1", Variant::Shatranj),
        FenError::Parse(ParseFenError::UnknownLetter { letter: 'F', .. })
    ));
    assert_eq!(fen_message(""), "empty FEN");
    assert_eq!(fen_message("   "), "empty FEN");
    assert_eq!(fen_message("8/8/8/8/8/8/8 w - - 0 1"), "board has 7 ranks, expected 8 separated by '/'");
    assert_eq!(fen_message("4k3/8/8/8/8/8/8/4K3 x - - 0 1"), "side to move \"x\" is not 'w' or 'b'");
    assert!(fen_message("4k3/8/8/8/8/8/8/4K3 w KX - 0 1").contains("'X' is not K, Q, k, q"));
    assert!(fen_message("4k3/8/8/8/8/8/8/4K3 w - e9 0 1").starts_with("en passant field \"e9\""));
    assert!(fen_message("4k3/8/8/8/8/8/8/4K3 w - - -1 1").starts_with("halfmove clock \"-1\""));
    assert!(fen_message("4k3/8/8/8/8/8/8/4K3 w - - 0 x").starts_with("move number \"x\""));
    assert!(fen_message("4k3/8/8/8/8/8/8/4K3 w - - 0 1 junk").starts_with("unexpected text after the move number"));
}

#[test]
fn fen_position_errors() {
    for (fen, message) in [
        ("4k3/8/8/8/8/8/8/3KK3 w - - 0 1", "two white kings"),
        ("4k3/8/8/8/8/8/8/8 w - - 0 1", "no white king"),
        ("8/8/8/8/8/8/8/4K3 w - - 0 1", "no black king"),
        ("2kkk3/8/8/8/8/8/8/4K3 w - - 0 1", "three black kings"),
        ("4k3/8/8/8/8/8/8/4K3 w H - 0 1", "castling right H but no white rook on h1"),
        ("4k3/8/8/8/8/8/8/R3K3 w K - 0 1", "castling right K but no white rook on rank 1 on the h-side of the king"),
        ("4k2r/8/8/8/8/8/8/4K3 w q - 0 1", "castling right q but no black rook on rank 8 on the a-side of the king"),
        ("4k3/8/8/8/8/8/8/4K3 w E - 0 1", "castling right E names the file of the white king, not a rook"),
        ("4k3/8/8/8/8/8/4K3/7R w K - 0 1", "castling right K but the white king is not on rank 1"),
        (
            "4k3/8/8/8/8/8/8/4K1RR w GH - 0 1",
            "castling rights G and H both name a white rook on the h-side of the king",
        ),
        ("4k3/8/8/8/8/8/8/4K3 w - e6 0 1", "en passant square e6 but no black pawn on e5"),
        ("4k3/8/8/8/8/8/8/4K3 b - d3 0 1", "en passant square d3 but no white pawn on d4"),
        ("4k3/8/8/8/4p3/8/8/4K3 w - e3 0 1", "en passant square e3 is not on rank 6 (white to move)"),
        ("4k3/4n3/8/4p3/8/8/8/4K3 w - e6 0 1", "en passant square e6 but e7 is occupied"),
        ("4P3/8/8/8/8/8/8/k3K3 w - - 0 1", "white pawn on e8: pawns cannot stand on rank 8"),
        ("4k3/8/8/8/8/8/8/p3K3 w - - 0 1", "black pawn on a1: pawns cannot stand on rank 1"),
        ("4k3/8/8/8/8/8/8/4R1K1 w - - 0 1", "side not to move (black) is in check"),
        ("4k3/8/8/8/8/8/3p4/4K3 b - - 0 1", "side not to move (white) is in check"),
        (
            "rnbqkbnr/pppppppp/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
            "40 pieces on the board: at most 32 are allowed",
        ),
    ] {
        let error = fen_error(fen, Variant::Chess);
        assert!(matches!(error, FenError::Position(_)), "{fen}: {error:?}");
        assert_eq!(error.to_string(), message, "{fen}");
    }
}

#[test]
fn shatranj_fen_errors() {
    let castling = "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w KQkq - 0 1";
    assert_eq!(
        fen_error(castling, Variant::Shatranj),
        FenError::Position(PositionError::CastlingInShatranj { right: 'K' })
    );
    assert_eq!(
        fen_error(castling, Variant::Shatranj).to_string(),
        "castling right K but Shatranj has no castling: use '-'"
    );
    // The same text is a Chess960 position with castling rights; standard chess castles only
    // with the king on e1/e8.
    assert!(Position::from_fen(castling, Variant::Chess960).is_ok());
    assert!(matches!(
        fen_error(castling, Variant::Chess),
        FenError::Position(PositionError::CastlingNotStandard { right: 'K', .. })
    ));
    assert_eq!(
        fen_error("4k3/8/8/4p3/8/8/8/4K3 w - e6 0 1", Variant::Shatranj).to_string(),
        "en passant square e6 but Shatranj has no double step: use '-'"
    );
}

#[test]
fn fen_output_and_defaults() {
    // Missing trailing fields default to w - - 0 1.
    assert_eq!(chess("4k3/8/8/8/8/8/8/4K3").fen(), "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
    assert_eq!(chess("r3k2r/8/8/8/8/8/8/R3K2R b KQkq -").fen(), "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1");
    // An en passant square is written only when the capture is possible.
    let fen = "rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 2";
    assert_eq!(chess(fen).fen(), "rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 2");
    let fen = "rnbqkbnr/pppp1ppp/8/3Pp3/8/8/PPP1PPPP/RNBQKBNR w KQkq e6 0 3";
    assert_eq!(chess(fen).fen(), fen);
    // Castling rights come out in a fixed order whatever the input order.
    assert_eq!(chess("r3k2r/8/8/8/8/8/8/R3K2R w qkQK - 0 1").fen(), "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    // Both Shatranj arrays round-trip and use q for the ferz, b for the alfil.
    for array in [ShatranjArray::KingOnD, ShatranjArray::KingOnE] {
        let p = Position::shatranj(array);
        assert_eq!(p.fen(), array.fen());
        assert_eq!(p.variant(), Variant::Shatranj);
    }
    assert_eq!(Position::new(Variant::Shatranj), Position::shatranj(ShatranjArray::KingOnD));
    assert_eq!(ShatranjArray::KingOnD.fen(), "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w - - 0 1");
}

// ---------------------------------------------------------------------------------------------
// UCI
// ---------------------------------------------------------------------------------------------

const CASTLES: &str = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";

#[test]
fn uci_castling_in_standard_mode() {
    let p = chess(CASTLES);
    let short = Move::castle(Square::E1, Square::H1);
    let long = Move::castle(Square::E1, Square::A1);
    assert_eq!(p.uci(short), "e1g1");
    assert_eq!(p.uci(long), "e1c1");
    assert_eq!(p.parse_uci("e1g1"), Ok(short));
    assert_eq!(p.parse_uci("e1h1"), Ok(short));
    assert_eq!(p.parse_uci("e1c1"), Ok(long));
    assert_eq!(p.parse_uci("e1a1"), Ok(long));
    // The king's one-square moves stay normal moves.
    assert_eq!(p.parse_uci("e1f1"), Ok(Move::normal(Square::E1, Square::F1)));
    assert_eq!(p.parse_uci("e1d1"), Ok(Move::normal(Square::E1, Square::D1)));
    let black = play(p, "a1a2");
    assert_eq!(black.uci(Move::castle(Square::E8, Square::H8)), "e8g8");
    assert_eq!(black.parse_uci("e8g8"), Ok(Move::castle(Square::E8, Square::H8)));
    assert_eq!(black.parse_uci("e8a8"), Ok(Move::castle(Square::E8, Square::A8)));
    // A castling move never takes a promotion letter.
    assert!(is_illegal(p.parse_uci("e1g1q")));
}

#[test]
fn uci_castling_in_chess960_mode() {
    let p = pos(CASTLES, Variant::Chess960);
    let short = Move::castle(Square::E1, Square::H1);
    assert_eq!(p.uci(short), "e1h1");
    assert_eq!(p.uci(Move::castle(Square::E1, Square::A1)), "e1a1");
    assert_eq!(p.parse_uci("e1h1"), Ok(short));
    assert!(is_illegal(p.parse_uci("e1g1")), "Chess960 castling is written king takes rook");
    assert!(is_illegal(p.parse_uci("e1c1")));
    // The same position in standard mode again.
    assert_eq!(p.with_variant(Variant::Chess).map(|c| c.uci(short)), Some("e1g1".to_owned()));
}

#[test]
fn castling_rights_outside_the_standard_array_are_refused_in_standard_chess() {
    // Standard chess castles from e1/e8 with the corner rooks only; such a FEN with `KQkq`
    // would otherwise castle `d1a1`. The same set-ups are Chess960 positions.
    for (fen, right, king, rook) in [
        ("k7/8/8/8/8/8/8/5K1R w K - 0 1", 'K', "e1", "h1"),
        ("k7/8/8/8/8/8/8/6KR w K - 0 1", 'K', "e1", "h1"),
        ("7k/8/8/8/8/8/8/R2K4 w Q - 0 1", 'Q', "e1", "a1"),
        ("7k/8/8/8/8/8/8/R1K5 w Q - 0 1", 'Q', "e1", "a1"),
        ("k7/8/8/8/8/8/8/1K5R w K - 0 1", 'K', "e1", "h1"),
        ("rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w KQkq - 0 1", 'K', "e1", "h1"),
        ("r3k2r/8/8/8/8/8/8/1R2K2R w Q - 0 1", 'Q', "e1", "a1"),
    ] {
        let error = fen_error(fen, Variant::Chess);
        assert_eq!(
            error.to_string(),
            format!(
                "castling right {right} in standard chess needs the {} king on {king} and a rook on {rook}; other set-ups castle only in Chess960",
                if right.is_ascii_uppercase() { "white" } else { "black" }
            ),
            "{fen}"
        );
        assert!(Position::from_fen(fen, Variant::Chess960).is_ok(), "{fen}");
    }
}

#[test]
fn uci_syntax_errors() {
    let p = Position::new(Variant::Chess);
    for text in
        ["", "e", "e2", "e2e", "e2e4qq", "e2e9", "i2e4", "e2e4k", "e2e4p", "e2e2", "é2e4", "e2-e4", " e2e4", "E2E4"]
    {
        assert!(text.parse::<UciMove>().is_err(), "{text:?}");
        assert!(is_syntax(p.parse_uci(text)), "{text:?}");
    }
    assert_eq!("e2-e4".parse::<UciMove>(), Err(ParseUciMoveError("e2-e4".to_owned())),);
    assert_eq!(
        p.parse_uci("e2e9").unwrap_err().to_string(),
        "\"e2e9\" is not a UCI move: expected from and to squares and an optional promotion letter, like e2e4 or e7e8q"
    );
    // The null move is well formed but cannot be played.
    assert_eq!("0000".parse::<UciMove>(), Ok(UciMove::Null));
    assert_eq!(UciMove::Null.to_string(), "0000");
    assert!(is_illegal(p.parse_uci("0000")));
}

#[test]
fn uci_illegal_moves() {
    let p = Position::new(Variant::Chess);
    for text in ["e2e5", "e1e2", "e7e5", "a1a3", "g1g3", "e2e4q", "b1d2", "e2d3"] {
        assert!(is_illegal(p.parse_uci(text)), "{text}");
    }
    assert_eq!(
        p.parse_uci("e2e5").unwrap_err().to_string(),
        "illegal move e2e5 in rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
    // Well-formed moves print back unchanged.
    for text in ["e2e4", "g1f3", "b1c3"] {
        assert_eq!(p.uci(uci_move(&p, text)), text);
        assert_eq!(text.parse::<UciMove>().map(|u| u.to_string()), Ok(text.to_owned()));
    }
    assert_eq!(
        "e7e8q".parse::<UciMove>(),
        Ok(UciMove::Normal { from: sq("e7"), to: Square::E8, promotion: Some(Role::Queen) })
    );
}

#[test]
fn uci_promotion_in_shatranj() {
    // Black keeps a pawn: a bare black king would have lost already.
    let p = pos("8/P6k/8/8/8/7p/8/K7 w - - 0 1", Variant::Shatranj);
    let m = Move::promotion(sq("a7"), sq("a8"), Role::Queen);
    assert_eq!(p.uci(m), "a7a8q");
    assert_eq!(p.parse_uci("a7a8q"), Ok(m));
    assert_eq!(p.parse_uci("a7a8"), Ok(m), "the letter may be left out: the ferz is the only choice");
    assert!(is_illegal(p.parse_uci("a7a8r")));
    assert!(is_illegal(p.parse_uci("a7a8n")));
    // In chess the letter is required and all four are legal.
    let c = chess("8/P6k/8/8/8/7p/8/K7 w - - 0 1");
    assert!(is_illegal(c.parse_uci("a7a8")));
    for (letter, role) in [("q", Role::Queen), ("r", Role::Rook), ("b", Role::Bishop), ("n", Role::Knight)] {
        let m = uci_move(&c, &format!("a7a8{letter}"));
        assert_eq!(m.promotion_role(), Some(role));
        assert_eq!(c.uci(m), format!("a7a8{letter}"));
    }
}

#[test]
fn uci_en_passant() {
    let p = play(Position::new(Variant::Chess), "e2e4 a7a6 e4e5 d7d5");
    let m = uci_move(&p, "e5d6");
    assert_eq!(m, Move::en_passant(sq("e5"), sq("d6")));
    assert_eq!(p.uci(m), "e5d6");
}

// ---------------------------------------------------------------------------------------------
// SAN
// ---------------------------------------------------------------------------------------------

/// Checks that `uci` prints as `san` and that `san` parses back to it.
fn assert_san(p: &Position, uci: &str, san: &str) {
    let m = uci_move(p, uci);
    assert_eq!(p.san(m), san, "{uci} in {}", p.fen());
    assert_eq!(p.parse_san(san), Ok(m), "{san} in {}", p.fen());
}

#[test]
fn san_basic_moves() {
    let p = Position::new(Variant::Chess);
    assert_san(&p, "e2e4", "e4");
    assert_san(&p, "g1f3", "Nf3");
    assert_san(&p, "b1c3", "Nc3");
    let p = play(p, "e2e4 d7d5");
    assert_san(&p, "e4d5", "exd5");
    assert_san(&p, "f1b5", "Bb5+");
    let p = play(p, "g1f3 e7e5");
    assert_san(&p, "f3e5", "Nxe5");
    // Alternative spellings are accepted.
    assert_eq!(p.parse_san("Nxe5+!?"), Ok(uci_move(&p, "f3e5")));
    assert_eq!(p.parse_san("Ne5"), Ok(uci_move(&p, "f3e5")));
    assert_eq!(p.parse_san("Nf3e5"), Ok(uci_move(&p, "f3e5")));
}

#[test]
fn san_check_and_mate() {
    let p = play(Position::new(Variant::Chess), "f2f3 e7e5 g2g4");
    assert_san(&p, "d8h4", "Qh4#");
    let p = play(Position::new(Variant::Chess), "e2e4 e7e5 f1c4 b8c6 d1h5 g8f6");
    assert_san(&p, "h5f7", "Qxf7#");
    assert_san(&p, "c4f7", "Bxf7+");
}

#[test]
fn san_disambiguation() {
    // By file: knights on b1 and f3 both reach d2.
    let p = chess("4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1");
    assert_san(&p, "b1d2", "Nbd2");
    assert_san(&p, "f3d2", "Nfd2");
    assert!(matches!(p.parse_san("Nd2"), Err(SanError::Ambiguous { .. })));
    // By rank: rooks on a1 and a5 both reach a3.
    let p = chess("4k3/8/8/R7/8/8/8/R3K3 w - - 0 1");
    assert_san(&p, "a1a3", "R1a3");
    assert_san(&p, "a5a3", "R5a3");
    assert!(matches!(p.parse_san("Ra3"), Err(SanError::Ambiguous { .. })));
    // A pinned knight is no rival: the d2 knight, pinned by the bishop on b4, cannot go to f3,
    // so the g1 knight's move needs no disambiguation.
    let p = chess("4k3/8/8/8/1b6/8/3N4/4K1N1 w - - 0 1");
    assert_san(&p, "g1f3", "Nf3");
    // By file and rank: three queens reach b2.
    let p = chess("8/7k/8/8/8/Q7/8/Q1Q4K w - - 0 1");
    assert_san(&p, "a1b2", "Qa1b2");
    assert_san(&p, "a3b2", "Q3b2");
    assert_san(&p, "c1b2", "Qcb2");
    assert!(matches!(p.parse_san("Qb2"), Err(SanError::Ambiguous { .. })));
    assert!(matches!(p.parse_san("Qab2"), Err(SanError::Ambiguous { .. })));
    assert!(matches!(p.parse_san("Q1b2"), Err(SanError::Ambiguous { .. })));
    // Disambiguation with a capture.
    let p = chess("4k2K/8/8/8/8/8/8/R2n3R w - - 0 1");
    assert_san(&p, "a1d1", "Raxd1");
    assert_san(&p, "h1d1", "Rhxd1");
}

#[test]
fn san_promotion() {
    let p = chess("3r3k/4P3/8/8/8/8/8/K7 w - - 0 1");
    assert_san(&p, "e7e8q", "e8=Q+");
    assert_san(&p, "e7e8r", "e8=R+");
    assert_san(&p, "e7e8b", "e8=B");
    assert_san(&p, "e7e8n", "e8=N");
    assert_san(&p, "e7d8q", "exd8=Q+");
    assert_eq!(p.parse_san("e8Q"), Ok(uci_move(&p, "e7e8q")), "the = may be left out");
    assert!(matches!(p.parse_san("e8"), Err(SanError::Illegal { .. })), "chess needs the piece");
    assert!(matches!(p.parse_san("e8=K"), Err(SanError::Syntax(_) | SanError::Illegal { .. })));
}

#[test]
fn san_castling() {
    let p = chess(CASTLES);
    assert_san(&p, "e1g1", "O-O");
    assert_san(&p, "e1c1", "O-O-O");
    assert_eq!(p.parse_san("0-0"), Ok(uci_move(&p, "e1g1")));
    assert_eq!(p.parse_san("0-0-0"), Ok(uci_move(&p, "e1c1")));
    // Castling with check.
    let p = chess("5k2/8/8/8/8/8/8/4K2R w K - 0 1");
    assert_san(&p, "e1g1", "O-O+");
    // No right, no castling.
    let p = chess("r3k2r/8/8/8/8/8/8/R3K2R w Kkq - 0 1");
    assert!(matches!(p.parse_san("O-O-O"), Err(SanError::Illegal { .. })));
    // Chess960: king g1 and rook h1 (only the rook moves), king c1 and rook a1.
    let p = pos("k7/8/8/8/8/8/8/6KR w H - 0 1", Variant::Chess960);
    assert_san(&p, "g1h1", "O-O");
    let p = pos("1k6/8/8/8/8/8/8/R1K5 w A - 0 1", Variant::Chess960);
    assert_san(&p, "c1a1", "O-O-O");
    // King b1 with rooks a1 and h1: O-O-O moves the king one square to the right.
    let p = pos("r5k1/8/8/8/8/8/8/RK5R w HA - 0 1", Variant::Chess960);
    assert_san(&p, "b1a1", "O-O-O");
    assert_san(&p, "b1h1", "O-O");
}

#[test]
fn san_in_shatranj() {
    // Q is the ferz and B the alfil, as in the FEN.
    let p = Position::shatranj(ShatranjArray::KingOnE);
    assert_san(&p, "c1a3", "Ba3");
    assert_san(&p, "c1e3", "Be3");
    assert_san(&p, "f1h3", "Bh3");
    assert_san(&p, "g1f3", "Nf3");
    assert_san(&p, "e2e3", "e3");
    assert!(matches!(p.parse_san("e4"), Err(SanError::Illegal { .. })), "no double step");
    let p = play(p, "c2c3 a7a6");
    assert_san(&p, "d1c2", "Qc2");
    // Two alfils reach c3: disambiguation by file.
    let p = pos("4k3/7p/8/8/8/8/8/B3B1K1 w - - 0 1", Variant::Shatranj);
    assert_san(&p, "a1c3", "Bac3");
    assert_san(&p, "e1c3", "Bec3");
    // Promotion to the ferz; the letter may be left out when parsing.
    let p = pos("8/P6k/8/8/8/7p/8/K7 w - - 0 1", Variant::Shatranj);
    assert_san(&p, "a7a8q", "a8=Q");
    assert_eq!(p.parse_san("a8"), Ok(uci_move(&p, "a7a8q")));
    assert!(matches!(p.parse_san("a8=R"), Err(SanError::Illegal { .. })));
    // A ferz check (diagonal step) and an alfil check (two-square leap).
    let p = pos("4k3/7p/2Q5/8/4B3/8/8/4K3 w - - 0 1", Variant::Shatranj);
    assert_san(&p, "c6d7", "Qd7+");
    assert_san(&p, "e4g6", "Bg6+");
    assert_san(&p, "c6b7", "Qb7");
}

#[test]
fn san_errors() {
    let p = Position::new(Variant::Chess);
    for text in ["", "Nf9", "Zf3", "x", "N", "O-O-O-O"] {
        assert!(p.parse_san(text).is_err(), "{text:?}");
    }
    assert!(matches!(p.parse_san("Nf9"), Err(SanError::Syntax(_))));
    assert!(matches!(p.parse_san("Ke2"), Err(SanError::Illegal { .. })));
    assert!(matches!(p.parse_san("e5"), Err(SanError::Illegal { .. })));
    assert!(matches!(p.parse_san("O-O"), Err(SanError::Illegal { .. })));
    assert_eq!(
        p.parse_san("Ke2").unwrap_err().to_string(),
        "illegal move Ke2 in rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
}

// ---------------------------------------------------------------------------------------------
// Chess960 numbering
// ---------------------------------------------------------------------------------------------

#[test]
fn chess960_518_is_the_standard_array() {
    let p = Position::chess960(518).expect("518 < 960");
    assert_eq!(p, Position::new(Variant::Chess960));
    assert_eq!(p.with_variant(Variant::Chess), Some(Position::new(Variant::Chess)));
    assert_eq!(p.fen(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    assert_eq!(
        chess960_back_rank(518),
        Some([Role::Rook, Role::Knight, Role::Bishop, Role::Queen, Role::King, Role::Bishop, Role::Knight, Role::Rook])
    );
}

#[test]
fn chess960_0() {
    let p = Position::chess960(0).expect("0 < 960");
    assert_eq!(p.fen_with(CastlingNotation::Shredder), "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1");
    assert_eq!(p.fen(), "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1");
    assert_eq!(p.variant(), Variant::Chess960);
}

#[test]
fn chess960_out_of_range() {
    assert_eq!(Position::chess960(960), None);
    assert_eq!(Position::chess960(u32::MAX), None);
    assert_eq!(chess960_back_rank(960), None);
}

#[test]
fn chess960_numbering_matches_the_reference_table() {
    let table = include_str!("data/chess960-startpos.csv");
    let mut seen = HashSet::new();
    let mut rows = 0;
    for line in table.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let fields: Vec<&str> = line.split(';').collect();
        let n: u32 = fields[0].parse().expect("id");
        let p = Position::chess960(n).unwrap_or_else(|| panic!("chess960({n})"));
        assert_eq!(p.fen_with(CastlingNotation::Shredder), fields[1], "chess960({n})");
        assert_eq!(p.fen(), fields[2], "chess960({n})");
        // Either notation reads back to the same position.
        assert_eq!(Position::from_fen(fields[1], Variant::Chess960), Ok(p));
        assert_eq!(Position::from_fen(fields[2], Variant::Chess960), Ok(p));
        assert_eq!(p.count_legal_moves(), fields[3].parse::<u64>().expect("D1"), "chess960({n})");
        assert!(seen.insert(p.fen()), "chess960({n}) repeats an earlier array");
        rows += 1;
    }
    assert_eq!(rows, 960);
}

#[test]
fn chess960_arrays_follow_the_rules() {
    for n in 0..960 {
        let back = chess960_back_rank(n).expect("n < 960");
        let files = |role: Role| back.iter().enumerate().filter(move |(_, r)| **r == role).map(|(i, _)| i);
        let bishops: Vec<usize> = files(Role::Bishop).collect();
        let rooks: Vec<usize> = files(Role::Rook).collect();
        let king: Vec<usize> = files(Role::King).collect();
        assert_eq!(bishops.len(), 2, "{n}");
        assert_ne!(bishops[0] % 2, bishops[1] % 2, "{n}: bishops on opposite colours");
        assert_eq!(rooks.len(), 2, "{n}");
        assert_eq!(king.len(), 1, "{n}");
        assert!(rooks[0] < king[0] && king[0] < rooks[1], "{n}: king between the rooks");
        assert_eq!(files(Role::Knight).count(), 2, "{n}");
        assert_eq!(files(Role::Queen).count(), 1, "{n}");
        // Black mirrors white and both have both castling rights.
        let p = Position::chess960(n).expect("n < 960");
        for (i, &role) in back.iter().enumerate() {
            let file = ferz_chess::File::new(i as u32).expect("0..8");
            let white = Square::from_coords(file, ferz_chess::Rank::FIRST);
            let black = Square::from_coords(file, ferz_chess::Rank::EIGHTH);
            assert_eq!(p.piece_at(white).map(|pc| (pc.color, pc.role)), Some((Color::White, role)));
            assert_eq!(p.piece_at(black).map(|pc| (pc.color, pc.role)), Some((Color::Black, role)));
        }
        assert_eq!(p.castling_rooks().count(), 4, "{n}");
    }
}

#[test]
fn random_chess960_is_a_chess960_start() {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = || {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        state
    };
    let starts: HashSet<String> = (0..960).map(|n| Position::chess960(n).expect("n < 960").fen()).collect();
    for _ in 0..50 {
        let p = Position::random_chess960(&mut next);
        assert!(starts.contains(&p.fen()), "{}", p.fen());
    }
}

#[test]
fn shatranj_baring_check_is_not_written_as_mate() {
    // Taking the last black piece with check ends the game by the bare-king rule (white keeps
    // three pieces), but the black king could still move, so SAN writes `+`, not `#`.
    let pos = Position::from_fen("q6k/8/8/8/8/8/8/RN2K3 w - - 0 1", Variant::Shatranj).unwrap();
    let m = pos.parse_uci("a1a8").unwrap();
    assert_eq!(pos.san(m), "Rxa8+");
    let mut after = pos;
    after.play_unchecked(m);
    assert!(after.legal_moves().is_empty(), "the bare-king rule ended the game");
    // A real mate in Shatranj keeps its `#`.
    let mate = Position::from_fen("7k/7p/5K2/8/8/8/8/R7 w - - 0 1", Variant::Shatranj).unwrap();
    assert_eq!(mate.san(mate.parse_uci("a1a8").unwrap()), "Ra8#");
}

#[test]
fn movetext_wraps_between_tokens_within_the_width() {
    let tokens = ["1.", "e4", "{+0.30/12}", "e5", "2.", "Nf3", "Nc6", "1-0"];
    let text = ferz_chess::wrap_movetext(tokens, 12);
    assert_eq!(text, "1. e4\n{+0.30/12}\ne5 2. Nf3\nNc6 1-0");
    assert!(text.lines().all(|l| l.len() <= 12));
    assert_eq!(ferz_chess::wrap_movetext(["a-very-long-comment"], 5), "a-very-long-comment");
    assert_eq!(ferz_chess::wrap_movetext(Vec::<String>::new(), 80), "");
}
