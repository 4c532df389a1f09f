//! The marlin position record: 32 bytes, little-endian, white-relative.
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

use ferz_chess::{Bitboard, Color, GameResult, Piece, Position, Role, Square, Variant};

/// Bytes of one marlin record.
pub const RECORD_SIZE: usize = 32;

/// One marlin record: the position with its score (centipawns, white-relative, clamped to
/// ±32,000) and the game's result.
#[must_use]
pub fn encode(pos: &Position, white_score: i32, result: GameResult) -> [u8; RECORD_SIZE] {
    let mut out = [0; RECORD_SIZE];
    let board = pos.board();
    let occupied = board.occupied();
    out[0..8].copy_from_slice(&occupied.0.to_le_bytes());
    let castling = pos.castling_rooks();
    for (i, sq) in occupied.enumerate() {
        let piece = board.piece_at(sq).expect("occupied square");
        let kind =
            if piece.role == Role::Rook && castling.contains(sq) { CASTLING_ROOK } else { piece.role.index() as u8 };
        let nibble = kind | if piece.color == Color::Black { 8 } else { 0 };
        out[8 + i / 2] |= nibble << ((i % 2) * 4);
    }
    let ep = pos.ep_square().map_or(64, |sq| sq.index() as u8);
    out[24] = ep | if pos.turn() == Color::Black { 0x80 } else { 0 };
    out[25] = pos.halfmoves().min(255) as u8;
    out[26..28].copy_from_slice(&(pos.fullmoves().min(u32::from(u16::MAX)) as u16).to_le_bytes());
    out[28..30].copy_from_slice(&(white_score.clamp(-32_000, 32_000) as i16).to_le_bytes());
    out[30] = match result {
        GameResult::Win(Color::Black) => 0,
        GameResult::Draw => 1,
        GameResult::Win(Color::White) => 2,
    };
    out[31] = variant_tag(pos.variant());
    out
}

/// A position alone as a marlin record, for stores that keep positions rather than training
/// records (the opening cache): the score and result bytes are zero and a draw, and carry no
/// meaning there.
#[must_use]
pub fn encode_position(pos: &Position) -> [u8; RECORD_SIZE] {
    encode(pos, 0, GameResult::Draw)
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

/// The code of a rook that still carries a castling right (Chess960-safe castling rights).
const CASTLING_ROOK: u8 = 6;

/// The pieces of a record in occupancy order (a1 first): each square with its 4-bit code as
/// stored, low nibble first. More than 32 occupied squares yield only the first 32.
pub fn piece_codes(bytes: &[u8; RECORD_SIZE]) -> impl Iterator<Item = (Square, u8)> + '_ {
    let mut occupancy = [0; 8];
    occupancy.copy_from_slice(&bytes[0..8]);
    Bitboard(u64::from_le_bytes(occupancy))
        .into_iter()
        .take(32)
        .enumerate()
        .map(|(i, sq)| (sq, (bytes[8 + i / 2] >> ((i % 2) * 4)) & 0xF))
}

/// The piece a 4-bit code names (a castling rook, code 6, is a rook); `None` for the unused
/// codes 7 and 15.
#[must_use]
pub const fn piece_of_code(code: u8) -> Option<Piece> {
    let color = if code & 8 == 0 { Color::White } else { Color::Black };
    let role = match code & 7 {
        0 => Role::Pawn,
        1 => Role::Knight,
        2 => Role::Bishop,
        3 | CASTLING_ROOK => Role::Rook,
        4 => Role::Queen,
        5 => Role::King,
        _ => return None,
    };
    Some(Piece { color, role })
}

/// Why a 32-byte record is not a marlin record.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// Byte 31 names no variant.
    #[error("byte 31 is {0}, not a variant (0 chess, 1 Chess960, 2 Shatranj)")]
    Variant(u8),
    /// More than 32 squares are occupied.
    #[error("{0} occupied squares (at most 32)")]
    Occupancy(u32),
    /// A piece nibble is 7 (or 15), which no piece has.
    #[error("piece code {0} on {1}")]
    Piece(u8, Square),
    /// The en passant byte is neither a square nor 64.
    #[error("en passant byte {0}")]
    EnPassant(u8),
    /// Byte 30 is not 0, 1 or 2.
    #[error("result byte {0} (0 black won, 1 draw, 2 white won)")]
    Result(u8),
    /// The pieces, rights and counters do not make a legal position.
    #[error("not a legal position ({fen}): {reason}")]
    Position {
        /// The position as decoded.
        fen: String,
        /// What is wrong with it.
        reason: String,
    },
}

/// Decodes a marlin record, saying what is wrong with one that is not valid.
///
/// # Errors
/// A [`DecodeError`] naming the byte or the rule that the record breaks.
pub fn decode(bytes: &[u8; RECORD_SIZE]) -> Result<MarlinRecord, DecodeError> {
    let variant = variant_of_tag(bytes[31]).ok_or(DecodeError::Variant(bytes[31]))?;
    let mut occupancy = [0; 8];
    occupancy.copy_from_slice(&bytes[0..8]);
    let occupied = Bitboard(u64::from_le_bytes(occupancy));
    if occupied.count() > 32 {
        return Err(DecodeError::Occupancy(occupied.count()));
    }
    let mut placement = [None; 64];
    let mut castling = String::new();
    for (sq, nibble) in piece_codes(bytes) {
        let Piece { color, role } = piece_of_code(nibble).ok_or(DecodeError::Piece(nibble, sq))?;
        if nibble & 7 == CASTLING_ROOK {
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
                        fen.push(char::from(b'0' + empty));
                        empty = 0;
                    }
                    fen.push(piece.char());
                }
            }
        }
        if empty > 0 {
            fen.push(char::from(b'0' + empty));
        }
        if rank > 0 {
            fen.push('/');
        }
    }
    let turn = if bytes[24] & 0x80 == 0 { 'w' } else { 'b' };
    let ep = match bytes[24] & 0x7F {
        64 => "-".to_owned(),
        n => Square::new(u32::from(n)).ok_or(DecodeError::EnPassant(n))?.to_string(),
    };
    let castling = if castling.is_empty() { "-".to_owned() } else { sort_castling(&castling) };
    let fullmoves = u16::from_le_bytes([bytes[26], bytes[27]]);
    let fen = format!("{fen} {turn} {castling} {ep} {} {fullmoves}", bytes[25]);
    let position = Position::from_fen(&fen, variant)
        .map_err(|e| DecodeError::Position { fen: fen.clone(), reason: e.to_string() })?;
    let result = match bytes[30] {
        0 => GameResult::Win(Color::Black),
        1 => GameResult::Draw,
        2 => GameResult::Win(Color::White),
        other => return Err(DecodeError::Result(other)),
    };
    Ok(MarlinRecord { variant, position, white_score: i16::from_le_bytes([bytes[28], bytes[29]]), result })
}

/// Shredder castling letters with white's first, as FEN wants them.
fn sort_castling(letters: &str) -> String {
    let mut upper: Vec<char> = letters.chars().filter(char::is_ascii_uppercase).collect();
    let mut lower: Vec<char> = letters.chars().filter(char::is_ascii_lowercase).collect();
    upper.sort_unstable();
    lower.sort_unstable();
    upper.into_iter().rev().chain(lower.into_iter().rev()).collect()
}

/// The variant byte of marlin records, cache keys and manifests: 0 chess, 1 Chess960, 2 Shatranj.
#[must_use]
pub const fn variant_tag(variant: Variant) -> u8 {
    match variant {
        Variant::Chess => 0,
        Variant::Chess960 => 1,
        Variant::Shatranj => 2,
    }
}

/// The variant of a tag.
#[must_use]
pub const fn variant_of_tag(tag: u8) -> Option<Variant> {
    match tag {
        0 => Some(Variant::Chess),
        1 => Some(Variant::Chess960),
        2 => Some(Variant::Shatranj),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferz_chess::ShatranjArray;

    fn round_trip(fen: &str, variant: Variant) {
        let pos = Position::from_fen(fen, variant).unwrap();
        let record = encode(&pos, -123, GameResult::Draw);
        let back = decode(&record).unwrap();
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
        let r = encode(&pos, 35, GameResult::Win(Color::White));
        assert_eq!(u64::from_le_bytes(r[0..8].try_into().unwrap()), 0xFFFF_0000_0000_FFFF);
        // a1 is a castling rook (6), b1 a knight (1): the first byte holds both nibbles.
        assert_eq!(r[8], 0x16);
        // e1 king (5) and f1 bishop (2).
        assert_eq!(r[10], 0x25);
        // The last black piece, h8, is a castling rook: 6 | 8 in the high nibble of byte 23.
        assert_eq!(r[23] >> 4, 0xE);
        assert_eq!((r[24], r[25], u16::from_le_bytes([r[26], r[27]])), (64, 0, 1));
        assert_eq!((i16::from_le_bytes([r[28], r[29]]), r[30], r[31]), (35, 2, 0));
    }

    #[test]
    fn broken_records_say_what_is_wrong() {
        assert_eq!(decode(&[0xFF; RECORD_SIZE]), Err(DecodeError::Variant(0xFF)));
        let good = encode(&Position::new(Variant::Chess), 0, GameResult::Draw);
        let mut bad = good;
        bad[30] = 7;
        assert_eq!(decode(&bad), Err(DecodeError::Result(7)));
        let mut bad = good;
        bad[8] = 0x17;
        assert!(matches!(decode(&bad), Err(DecodeError::Piece(7, _))));
        let mut bad = good;
        bad[24] = 70;
        assert_eq!(decode(&bad), Err(DecodeError::EnPassant(70)));
        let mut bad = good;
        bad[0..8].copy_from_slice(&u64::MAX.to_le_bytes());
        assert_eq!(decode(&bad), Err(DecodeError::Occupancy(64)));
        // Two white kings: e1's king nibble copied onto d1.
        let mut bad = good;
        bad[9] = (bad[9] & 0x0F) | 0x50;
        assert!(matches!(decode(&bad), Err(DecodeError::Position { .. })), "{:?}", decode(&bad));
    }
}
