//! Polyglot opening books (`.bin`) from the opening cache, for programs that read that format.
//!
//! A book is a sorted array of 16-byte big-endian entries: the position's Polyglot key (u64),
//! the move (u16: to-file, to-rank, from-file, from-rank in 3 bits each, then the promotion
//! piece; castling as king takes own rook), a weight (u16) and a learn field (u32, zero).
//! Only standard-chess positions are exported: the format knows no other variant.

use std::io::Write;
use std::path::Path;

use ferz_chess::{Color, Move, Position, Role, Variant};

use crate::cache::{CacheError, OpeningCache};
use crate::polyglot_random::RANDOM;

/// The Polyglot key of a standard-chess position.
#[must_use]
pub fn polyglot_key(pos: &Position) -> u64 {
    let board = pos.board();
    let mut key = 0;
    for (sq, piece) in board.iter() {
        // Polyglot orders kinds black pawn, white pawn, black knight, ... white king.
        let kind = 2 * piece.role.index() + usize::from(piece.color == Color::White);
        key ^= RANDOM[64 * kind + sq.index()];
    }
    for rook in pos.castling_rooks() {
        let white = rook.index() < 8;
        let king_side = board.king_of(if white { Color::White } else { Color::Black }).is_some_and(|k| rook > k);
        key ^= RANDOM[768 + 2 * usize::from(!white) + usize::from(!king_side)];
    }
    // The en passant file counts only when a pawn of the side to move stands beside the pawn
    // that just advanced two squares, ready to take it (whether or not the capture is legal).
    if let Some(ep) = pos.ep_square() {
        let us = pos.turn();
        let pawn_rank = if us == Color::White { 4 } else { 3 };
        let file = ep.index() % 8;
        let beside = [file.checked_sub(1), (file < 7).then_some(file + 1)];
        let capturer = beside.into_iter().flatten().any(|f| {
            ferz_chess::Square::new((pawn_rank * 8 + f) as u32)
                .and_then(|sq| board.piece_at(sq))
                .is_some_and(|p| p.role == Role::Pawn && p.color == us)
        });
        if capturer {
            key ^= RANDOM[772 + file];
        }
    }
    if pos.turn() == Color::White {
        key ^= RANDOM[780];
    }
    key
}

/// A move in Polyglot's 16-bit form.
#[must_use]
pub fn polyglot_move(m: Move) -> u16 {
    let (from, to) = (m.from().index() as u16, m.to().index() as u16);
    let promotion = match m.promotion_role() {
        Some(Role::Knight) => 1,
        Some(Role::Bishop) => 2,
        Some(Role::Rook) => 3,
        Some(Role::Queen) => 4,
        _ => 0,
    };
    (to % 8) | ((to / 8) << 3) | ((from % 8) << 6) | ((from / 8) << 9) | (promotion << 12)
}

/// Writes the cache's standard-chess positions as a Polyglot book: every candidate within
/// `margin_cp` of the position's best, weighted by how often games played it (plus one).
/// Returns the number of entries.
pub fn export(cache: &OpeningCache, out: &Path, margin_cp: i32) -> Result<usize, ExportError> {
    let mut entries: Vec<(u64, u16, u16)> = Vec::new();
    for item in cache.entries() {
        let (variant, _, entry) = item?;
        if variant != Variant::Chess {
            continue;
        }
        let (Some(pos), Some(best)) = (entry.position(), entry.best_score()) else { continue };
        let key = polyglot_key(&pos);
        for c in &entry.candidates {
            let Some(m) = Move::from_u16(c.mv).filter(|&m| pos.is_legal(m)) else { continue };
            if i32::from(c.score) >= i32::from(best) - margin_cp {
                entries.push((key, polyglot_move(m), c.plays.saturating_add(1).min(u32::from(u16::MAX)) as u16));
            }
        }
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0).then(b.2.cmp(&a.2)).then(a.1.cmp(&b.1)));
    let tmp = out.with_extension("bin.tmp");
    let write = || -> std::io::Result<()> {
        let mut file = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
        for &(key, mv, weight) in &entries {
            file.write_all(&key.to_be_bytes())?;
            file.write_all(&mv.to_be_bytes())?;
            file.write_all(&weight.to_be_bytes())?;
            file.write_all(&0u32.to_be_bytes())?;
        }
        file.into_inner().map_err(std::io::IntoInnerError::into_error)?.sync_all()?;
        std::fs::rename(&tmp, out)
    };
    write().map_err(|source| ExportError::Io { path: out.display().to_string(), source })?;
    Ok(entries.len())
}

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// Reading the cache failed.
    #[error(transparent)]
    Cache(#[from] CacheError),
    /// Writing the book failed.
    #[error("{path}: {source}")]
    Io {
        /// The book file.
        path: String,
        /// What the system reported.
        source: std::io::Error,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The keys published with the Polyglot format for a short game.
    #[test]
    fn keys_match_the_published_values() {
        let mut pos = Position::new(Variant::Chess);
        assert_eq!(polyglot_key(&pos), 0x463B_9618_1691_FC9C);
        let expected = [
            ("e2e4", 0x823C_9B50_FD11_4196),
            ("d7d5", 0x0756_B944_61C5_0FB0),
            ("e4e5", 0x662F_AFB9_65DB_29D4),
            ("f7f5", 0x22A4_8B5A_8E47_FF78),
            ("e1e2", 0x652A_607C_A3F2_42C1),
            ("e8f7", 0x00FD_D303_C946_BDD9),
        ];
        for (uci, key) in expected {
            pos = pos.play(pos.parse_uci(uci).unwrap()).unwrap();
            assert_eq!(polyglot_key(&pos), key, "after {uci}");
        }
        let mut pos = Position::new(Variant::Chess);
        for uci in ["a2a4", "b7b5", "h2h4", "b5b4", "c2c4"] {
            pos = pos.play(pos.parse_uci(uci).unwrap()).unwrap();
        }
        assert_eq!(polyglot_key(&pos), 0x3C81_23EA_7B06_7637);
        for uci in ["b4c3", "a1a3"] {
            pos = pos.play(pos.parse_uci(uci).unwrap()).unwrap();
        }
        assert_eq!(polyglot_key(&pos), 0x5C3F_9B82_9B27_9560);
    }

    #[test]
    fn moves_use_polyglot_bits_and_king_takes_rook_castling() {
        let pos = Position::new(Variant::Chess);
        assert_eq!(polyglot_move(pos.parse_uci("e2e4").unwrap()), (4 | 3 << 3) | (4 << 6 | 1 << 9));
        let castle = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", Variant::Chess).unwrap();
        assert_eq!(polyglot_move(castle.parse_uci("e1g1").unwrap()), 7 | (4 << 6));
    }

    #[test]
    fn export_writes_sorted_entries_of_chess_positions() {
        let dir = tempfile::tempdir().unwrap();
        let cache = OpeningCache::open(&dir.path().join("cache")).unwrap();
        let start = Position::new(Variant::Chess);
        let e4 = start.parse_uci("e2e4").unwrap();
        let d4 = start.parse_uci("d2d4").unwrap();
        let a4 = start.parse_uci("a2a4").unwrap();
        cache.record_search(&start, 10, &[(e4, 30), (d4, 25), (a4, -40)]).unwrap();
        cache.record_play(Variant::Chess, start.key(), d4).unwrap();
        let shatranj = Position::new(Variant::Shatranj);
        let m = shatranj.legal_moves()[0];
        cache.record_search(&shatranj, 10, &[(m, 0)]).unwrap();
        let out = dir.path().join("book.bin");
        assert_eq!(export(&cache, &out, 20).unwrap(), 2);
        let bytes = std::fs::read(&out).unwrap();
        assert_eq!(bytes.len(), 32);
        assert_eq!(u64::from_be_bytes(bytes[0..8].try_into().unwrap()), 0x463B_9618_1691_FC9C);
        // d4 was played once: weight 2, first; e4 weight 1.
        assert_eq!(u16::from_be_bytes([bytes[8], bytes[9]]), polyglot_move(d4));
        assert_eq!(u16::from_be_bytes([bytes[10], bytes[11]]), 2);
        assert_eq!(u16::from_be_bytes([bytes[24], bytes[25]]), polyglot_move(e4));
    }
}
