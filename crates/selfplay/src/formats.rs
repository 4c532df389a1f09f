//! Dataset records: text lines and PGN games; marlin records come from `ferz-book`.
//!
//! # Text
//!
//! `<FEN> | <score> | <result>`: the score in centipawns and the result (`1.0`, `0.5`, `0.0`)
//! both from white's side, the bullet trainer's text convention. Chess960 FENs use X-FEN
//! castling letters; Shatranj FENs use `q` for the ferz and `b` for the alfil.
//!
//! # Marlin
//!
//! 32-byte marlinformat records with the variant in byte 31, written by
//! [`ferz_dataset::marlin::encode`] (the codec's home, which the opening cache shares).

use ferz_chess::{Color, GameResult, PgnMove, Position};

use crate::game::{GameRecord, MoveSource, Termination, white_cp};

/// One text record.
#[must_use]
pub fn text_line(pos: &Position, white_score: i32, result: GameResult) -> String {
    format!("{} | {} | {:.1}\n", pos.fen(), white_score, result.white_score())
}

/// The PGN of a finished game: headers, SAN moves with scores, result.
#[must_use]
pub fn pgn(game: &GameRecord, round: &str, date: &str, engine: &str) -> String {
    let termination = match game.termination {
        Termination::Rules(_) => "normal",
        Termination::AdjudicatedWin | Termination::AdjudicatedDraw | Termination::PlyCap => "adjudication",
    };
    let tags = [
        ("Event", "ferz self-play".to_owned()),
        ("Site", "?".to_owned()),
        ("Date", date.to_owned()),
        ("Round", round.to_owned()),
        ("White", engine.to_owned()),
        ("Black", engine.to_owned()),
        ("Result", game.result.pgn().to_owned()),
        ("Termination", termination.to_owned()),
        ("PlyCount", game.plies.len().to_string()),
    ];
    let mut pos = game.start;
    let moves: Vec<PgnMove> = game
        .plies
        .iter()
        .map(|ply| {
            let comment = match (ply.source, ply.score) {
                (MoveSource::Search, Some(score)) => {
                    let mover = white_cp(score, pos.turn()) * if pos.turn() == Color::White { 1 } else { -1 };
                    let text = match score {
                        ferz_engine::Score::Mate(n) => format!("{}M{}", if n > 0 { "+" } else { "-" }, n.abs()),
                        ferz_engine::Score::Cp(_) => format!("{:+.2}", f64::from(mover) / 100.0),
                    };
                    Some(format!("{text}/{}", ply.depth))
                }
                (MoveSource::Random, _) => Some("random".to_owned()),
                (MoveSource::Cache | MoveSource::MultiPv, _) => Some("book".to_owned()),
                (MoveSource::Search, None) => None,
            };
            pos.play_unchecked(ply.mv);
            PgnMove { mv: ply.mv, comment }
        })
        .collect();
    ferz_chess::write_pgn(&tags, &game.start, &moves, Some(&game.termination.to_string()), game.result.pgn())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferz_chess::{Move, ShatranjArray, Variant};

    #[test]
    fn text_lines_are_white_relative() {
        let pos = Position::from_fen("8/8/4k3/8/8/8/3QK3/8 b - - 0 1", Variant::Chess).unwrap();
        assert_eq!(text_line(&pos, 900, GameResult::Win(Color::White)), "8/8/4k3/8/8/8/3QK3/8 b - - 0 1 | 900 | 1.0\n");
    }

    #[test]
    fn pgn_has_headers_san_and_scores() {
        let start = Position::shatranj(ShatranjArray::KingOnD);
        let mut pos = start;
        let mut plies = Vec::new();
        for (uci, source, score) in
            [("e2e3", MoveSource::Random, None), ("e7e6", MoveSource::Search, Some(ferz_engine::Score::Cp(-20)))]
        {
            let m: Move = pos.parse_uci(uci).unwrap();
            plies.push(crate::game::Ply { mv: m, source, score, depth: 7 });
            pos.play_unchecked(m);
        }
        let game = GameRecord {
            index: 3,
            variant: Variant::Shatranj,
            start,
            plies,
            result: GameResult::Draw,
            termination: Termination::PlyCap,
            cache_updates: Vec::new(),
        };
        let text = pgn(&game, "0.3", "2026.11.21", "ferz 0.1.0");
        assert!(text.contains("[Variant \"Shatranj\"]"), "{text}");
        assert!(text.contains("[SetUp \"1\"]\n[FEN \"rnbkqbnr/"), "the array is always written: {text}");
        // After a comment, black's move repeats its number (PGN export format).
        assert!(text.contains("1. e3 {random} 1... e6 {-0.20/7} {ply cap} 1/2-1/2"), "{text}");
    }
}
