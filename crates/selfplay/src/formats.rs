//! Dataset records: text lines, marlinformat records and PGN games.
//!
//! # Text
//!
//! `<FEN> | <score> | <result>`: the score in centipawns and the result (`1.0`, `0.5`, `0.0`)
//! both from white's side, the bullet trainer's text convention. Chess960 FENs use X-FEN
//! castling letters; Shatranj FENs use `q` for the ferz and `b` for the alfil.
//!
//! # Marlin (32 bytes a record, little-endian, white-relative)
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | occupancy bitboard (a1 = bit 0) |
//! | 8..24 | 32 four-bit pieces in occupancy order, low nibble first: type 0..5 = pawn, knight, bishop, rook, queen, king; 6 = a rook that still carries a castling right (Chess960-safe); bit 3 set = black |
//! | 24 | side to move (bit 7 set = black) and en passant square (low 7 bits; 64 = none) |
//! | 25 | halfmove clock (saturating at 255) |
//! | 26..28 | fullmove number |
//! | 28..30 | score in centipawns, white-relative |
//! | 30 | result: 0 black won, 1 draw, 2 white won |
//! | 31 | variant: 0 chess, 1 Chess960, 2 Shatranj (the format leaves this byte spare) |
//!
//! Shatranj reuses the chess codes: the ferz is written as a queen (4) and the alfil as a bishop
//! (2); Shatranj has no castling and no en passant, so code 6 and an en passant square never
//! occur. A reader must take the piece movement from byte 31.

use std::fmt::Write as _;

use ferz_chess::{Bitboard, Color, PgnMove, Piece, Position, Role, Square, Variant};

use crate::cache::{variant_of_tag, variant_tag};
use crate::game::{GameRecord, GameResult, MoveSource, Termination, white_cp};

/// Bytes of one marlin record.
pub const MARLIN_SIZE: usize = 32;

/// One text record.
#[must_use]
pub fn text_line(pos: &Position, white_score: i32, result: GameResult) -> String {
    format!("{} | {} | {}\n", pos.fen(), white_score, result.white_score_text())
}

/// One marlin record.
#[must_use]
pub fn marlin_record(pos: &Position, white_score: i32, result: GameResult) -> [u8; MARLIN_SIZE] {
    let mut out = [0; MARLIN_SIZE];
    let board = pos.board();
    let occupied = board.occupied();
    out[0..8].copy_from_slice(&occupied.0.to_le_bytes());
    let castling = pos.castling_rooks();
    for (i, sq) in occupied.enumerate() {
        let piece = board.piece_at(sq).expect("occupied square");
        let kind = if piece.role == Role::Rook && castling.contains(sq) { 6 } else { piece.role.index() as u8 };
        let nibble = kind | if piece.color == Color::Black { 8 } else { 0 };
        out[8 + i / 2] |= nibble << ((i % 2) * 4);
    }
    let ep = pos.ep_square().map_or(64, |sq| sq.index() as u8);
    out[24] = ep | if pos.turn() == Color::Black { 0x80 } else { 0 };
    out[25] = pos.halfmoves().min(255) as u8;
    out[26..28].copy_from_slice(&(pos.fullmoves().min(u32::from(u16::MAX)) as u16).to_le_bytes());
    out[28..30].copy_from_slice(&(white_score.clamp(-32_000, 32_000) as i16).to_le_bytes());
    out[30] = match result {
        GameResult::BlackWin => 0,
        GameResult::Draw => 1,
        GameResult::WhiteWin => 2,
    };
    out[31] = variant_tag(pos.variant());
    out
}

/// A marlin record read back: the position as FEN (castling rights from the code-6 rooks), its
/// score and result, white-relative.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MarlinRecord {
    /// The variant from byte 31.
    pub variant: Variant,
    /// The position.
    pub position: Position,
    /// Score, white-relative.
    pub white_score: i16,
    /// Result, white-relative.
    pub result: GameResult,
}

/// Decodes a marlin record; `None` if it is not a valid record.
#[must_use]
pub fn read_marlin(bytes: &[u8; MARLIN_SIZE]) -> Option<MarlinRecord> {
    let variant = variant_of_tag(bytes[31])?;
    let occupied = Bitboard(u64::from_le_bytes(bytes[0..8].try_into().ok()?));
    if occupied.count() > 32 {
        return None;
    }
    let mut placement = [None; 64];
    let mut castling = String::new();
    for (i, sq) in occupied.enumerate() {
        let nibble = (bytes[8 + i / 2] >> ((i % 2) * 4)) & 0xF;
        let color = if nibble & 8 == 0 { Color::White } else { Color::Black };
        let role = match nibble & 7 {
            0 => Role::Pawn,
            1 => Role::Knight,
            2 => Role::Bishop,
            3 | 6 => Role::Rook,
            4 => Role::Queen,
            5 => Role::King,
            _ => return None,
        };
        if nibble & 7 == 6 {
            let file = (b'a' + sq.index() as u8 % 8) as char;
            castling.push(if color == Color::White { file.to_ascii_uppercase() } else { file });
        }
        placement[sq.index()] = Some(Piece { color, role });
    }
    let mut fen = String::new();
    for rank in (0..8).rev() {
        let mut empty = 0;
        for file in 0..8 {
            match placement[rank * 8 + file] {
                None => empty += 1,
                Some(piece) => {
                    if empty > 0 {
                        write!(fen, "{empty}").ok()?;
                        empty = 0;
                    }
                    fen.push(piece.char());
                }
            }
        }
        if empty > 0 {
            write!(fen, "{empty}").ok()?;
        }
        if rank > 0 {
            fen.push('/');
        }
    }
    let turn = if bytes[24] & 0x80 == 0 { 'w' } else { 'b' };
    let ep = match bytes[24] & 0x7F {
        64 => "-".to_owned(),
        n => Square::new(u32::from(n))?.to_string(),
    };
    let castling = if castling.is_empty() { "-".to_owned() } else { sort_castling(&castling) };
    let fullmoves = u16::from_le_bytes([bytes[26], bytes[27]]);
    let fen = format!("{fen} {turn} {castling} {ep} {} {fullmoves}", bytes[25]);
    let position = Position::from_fen(&fen, variant).ok()?;
    let result = match bytes[30] {
        0 => GameResult::BlackWin,
        1 => GameResult::Draw,
        2 => GameResult::WhiteWin,
        _ => return None,
    };
    Some(MarlinRecord { variant, position, white_score: i16::from_le_bytes([bytes[28], bytes[29]]), result })
}

/// Shredder castling letters with white's first, as FEN wants them.
fn sort_castling(letters: &str) -> String {
    let mut upper: Vec<char> = letters.chars().filter(char::is_ascii_uppercase).collect();
    let mut lower: Vec<char> = letters.chars().filter(char::is_ascii_lowercase).collect();
    upper.sort_unstable();
    lower.sort_unstable();
    upper.into_iter().rev().chain(lower.into_iter().rev()).collect()
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
    use ferz_chess::{Move, ShatranjArray};

    fn round_trip(fen: &str, variant: Variant) {
        let pos = Position::from_fen(fen, variant).unwrap();
        let record = marlin_record(&pos, -123, GameResult::Draw);
        let back = read_marlin(&record).unwrap();
        assert_eq!(back.position, pos, "{fen}");
        assert_eq!((back.white_score, back.result, back.variant), (-123, GameResult::Draw, variant));
    }

    #[test]
    fn marlin_records_round_trip() {
        round_trip("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", Variant::Chess);
        round_trip("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", Variant::Chess);
        round_trip("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", Variant::Chess);
        round_trip("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", Variant::Chess960);
        round_trip(ShatranjArray::KingOnE.fen(), Variant::Shatranj);
        round_trip("8/8/4k3/8/8/8/3QK3/8 b - - 69 120", Variant::Shatranj);
    }

    #[test]
    fn marlin_layout_matches_the_specification() {
        let pos = Position::new(Variant::Chess);
        let r = marlin_record(&pos, 35, GameResult::WhiteWin);
        assert_eq!(u64::from_le_bytes(r[0..8].try_into().unwrap()), 0xFFFF_0000_0000_FFFF);
        // a1 is a castling rook (6), b1 a knight (1): the first byte holds both nibbles.
        assert_eq!(r[8], 0x16);
        // e1 king (5) and f1 bishop (2).
        assert_eq!(r[10], 0x25);
        // The last black piece, h8, is a castling rook: 6 | 8 in the high nibble of byte 23.
        assert_eq!(r[23] >> 4, 0xE);
        assert_eq!((r[24], r[25], u16::from_le_bytes([r[26], r[27]])), (64, 0, 1));
        assert_eq!((i16::from_le_bytes([r[28], r[29]]), r[30], r[31]), (35, 2, 0));
        assert!(read_marlin(&[0xFF; MARLIN_SIZE]).is_none());
    }

    #[test]
    fn text_lines_are_white_relative() {
        let pos = Position::from_fen("8/8/4k3/8/8/8/3QK3/8 b - - 0 1", Variant::Chess).unwrap();
        assert_eq!(text_line(&pos, 900, GameResult::WhiteWin), "8/8/4k3/8/8/8/3QK3/8 b - - 0 1 | 900 | 1.0\n");
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
