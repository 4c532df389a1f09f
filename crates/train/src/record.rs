//! Marlin records straight to feature indices, without building a `Position`.
//!
//! The layout is `ferz_dataset::marlin`'s (32 bytes, white-relative, the variant in byte 31).
//! Building a [`ferz_chess::Position`] through [`ferz_dataset::marlin::decode`] means a
//! FEN string and a parse per record; reading the occupancy and the nibbles directly is what
//! keeps decoding a small part of a training step (docs/train.md has the measurement).

use ferz_chess::{Color, Piece, Role, Square};
use ferz_dataset::marlin::{self, RECORD_SIZE as MARLIN_SIZE};
use ferz_nnue::InputLayout;

/// One raw marlin record, as the dataset loads it and the batches decode it.
pub type Record = [u8; MARLIN_SIZE];

/// Most pieces a record can hold.
pub const MAX_PIECES: usize = 32;

/// One position as the network reads it: the active features of the side to move and of the
/// other side, and the output bucket of its piece count.
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    /// The side to move's features.
    pub stm: &'a [u16],
    /// The other side's features.
    pub nstm: &'a [u16],
    /// The output bucket.
    pub bucket: usize,
}

/// One record as training input: the active features of both perspectives and the labels.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// Feature indices from the side to move's perspective (`len` of them are valid).
    pub stm: [u16; MAX_PIECES],
    /// Feature indices from the other side's perspective.
    pub nstm: [u16; MAX_PIECES],
    /// Pieces on the board.
    pub len: usize,
    /// The search score in centipawns, from the side to move's view.
    pub score_cp: f32,
    /// The game result from the side to move's view: 1 win, 0.5 draw, 0 loss.
    pub result: f32,
}

impl Sample {
    /// The side to move's features.
    #[must_use]
    pub fn stm_features(&self) -> &[u16] {
        &self.stm[..self.len]
    }

    /// The other side's features.
    #[must_use]
    pub fn nstm_features(&self) -> &[u16] {
        &self.nstm[..self.len]
    }

    /// The position as a net of `output_buckets` output buckets reads it: both feature lists
    /// and the bucket of its piece count.
    #[must_use]
    #[inline]
    pub fn input(&self, output_buckets: usize) -> Input<'_> {
        let bucket = ferz_nnue::output_bucket(self.len as u32, output_buckets);
        Input { stm: self.stm_features(), nstm: self.nstm_features(), bucket }
    }

    /// The training target: `lambda * result + (1 - lambda) * sigmoid(score / scale)`.
    #[must_use]
    pub fn target(&self, lambda: f32, scale: f32) -> f32 {
        lambda * self.result + (1.0 - lambda) * sigmoid(self.score_cp / scale)
    }
}

/// The logistic function.
#[must_use]
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The variant tag of a record (byte 31: 0 chess, 1 Chess960, 2 Shatranj).
#[must_use]
pub const fn variant_tag(record: &[u8; MARLIN_SIZE]) -> u8 {
    record[31]
}

/// What tells games apart in a file where they follow each other: the ply, the piece count and
/// the result. Within one game the ply rises, the piece count never rises and the result is
/// the same, so a record that breaks any of these starts a new game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameMark {
    ply: u32,
    pieces: u32,
    result: u8,
}

impl GameMark {
    /// The mark of a record.
    #[must_use]
    pub fn of(record: &[u8; MARLIN_SIZE]) -> GameMark {
        let fullmoves = u32::from(u16::from_le_bytes([record[26], record[27]]));
        let black = u32::from(record[24] >> 7);
        let occupied = u64::from_le_bytes(record[0..8].try_into().expect("8 bytes"));
        GameMark { ply: 2 * fullmoves.saturating_sub(1) + black, pieces: occupied.count_ones(), result: record[30] }
    }

    /// Whether `next` cannot be a later position of the game `self` is from.
    #[must_use]
    pub fn starts_new_game(&self, next: &GameMark) -> bool {
        next.ply <= self.ply || next.pieces > self.pieces || next.result != self.result
    }
}

/// The feature index of a piece for `perspective` in a plain net, as the inference crate
/// defines it (below 768; seen through a king view, below 4 × 768: it fits a `u16`).
#[must_use]
#[inline]
pub fn feature_index(perspective: Color, color: Color, role: Role, square: Square) -> u16 {
    ferz_nnue::features::index(perspective, color, role, square) as u16
}

impl Sample {
    /// Mirrors the position left to right (file a <-> file h) in place: for samples of plain
    /// inputs only. (A mirroring layout sees a position and its mirror image alike, so the
    /// trainer does not mirror its samples.)
    ///
    /// An index is `side * 384 + role * 64 + square` with the square in its low six bits, and
    /// flipping the file (`square ^ 7`) commutes with black's vertical flip (`square ^ 56`), so
    /// both perspectives' indices mirror with `^ 7`.
    pub fn mirror(&mut self) {
        for f in self.stm[..self.len].iter_mut().chain(self.nstm[..self.len].iter_mut()) {
            *f ^= 7;
        }
    }
}

/// Decodes one record into a [`Sample`] of a net with input layout `inputs`; the error says
/// what is wrong with it.
pub fn decode(record: &[u8; MARLIN_SIZE], inputs: InputLayout) -> Result<Sample, String> {
    if record[31] > 2 {
        return Err(format!("variant byte {} is not 0, 1 or 2", record[31]));
    }
    let occupied = u64::from_le_bytes(record[0..8].try_into().expect("8 bytes"));
    let len = occupied.count_ones() as usize;
    if len > MAX_PIECES {
        return Err(format!("{len} pieces on the board (at most 32)"));
    }
    let stm = if record[24] & 0x80 == 0 { Color::White } else { Color::Black };
    let mut sample = Sample { stm: [0; MAX_PIECES], nstm: [0; MAX_PIECES], len, score_cp: 0.0, result: 0.0 };
    let mut kings = [0u8; 2];
    let mut king_squares = [Square::A1; 2];
    for (i, (square, code)) in marlin::piece_codes(record).enumerate() {
        let Piece { color, role } = marlin::piece_of_code(code).ok_or(format!("piece code {code} on {square}"))?;
        if role == Role::King {
            kings[color as usize] += 1;
            king_squares[color as usize] = square;
        }
        sample.stm[i] = feature_index(stm, color, role, square);
        sample.nstm[i] = feature_index(!stm, color, role, square);
    }
    if kings != [1, 1] {
        return Err(format!("{} white and {} black kings", kings[0], kings[1]));
    }
    // A layout that depends on the king moves each perspective's features into its view, once
    // its king is known; plain features are their own view.
    if inputs != InputLayout::Plain {
        for (perspective, features) in [(stm, &mut sample.stm), (!stm, &mut sample.nstm)] {
            let view = inputs.view(perspective, king_squares[perspective as usize]);
            for f in &mut features[..len] {
                *f = view.feature(usize::from(*f)) as u16;
            }
        }
    }
    let white_score = f32::from(i16::from_le_bytes([record[28], record[29]]));
    let white_result = match record[30] {
        0 => 0.0,
        1 => 0.5,
        2 => 1.0,
        other => return Err(format!("result byte {other} is not 0, 1 or 2")),
    };
    (sample.score_cp, sample.result) =
        if stm == Color::White { (white_score, white_result) } else { (-white_score, 1.0 - white_result) };
    Ok(sample)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferz_chess::{Color, GameResult};
    use ferz_chess::{Position, ShatranjArray, Variant};
    use ferz_dataset::marlin::{decode as read_marlin, encode as marlin_record};

    /// The features the slow way: through a `Position`, as the inference crate finds them.
    fn features_of(inputs: InputLayout, pos: &Position, perspective: Color) -> Vec<u16> {
        let mut out: Vec<u16> = ferz_nnue::features::active(inputs, pos, perspective).map(|f| f as u16).collect();
        out.sort_unstable();
        out
    }

    fn sorted(features: &[u16]) -> Vec<u16> {
        let mut v = features.to_vec();
        v.sort_unstable();
        v
    }

    #[test]
    fn direct_decoding_agrees_with_the_position() {
        let cases = [
            ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1", Variant::Chess),
            ("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", Variant::Chess960),
            (ShatranjArray::KingOnE.fen(), Variant::Shatranj),
        ];
        for (fen, variant) in cases {
            let pos = Position::from_fen(fen, variant).unwrap();
            let record = marlin_record(&pos, 150, GameResult::Win(Color::White));
            let back = read_marlin(&record).unwrap().position;
            for inputs in InputLayout::ALL {
                let sample = decode(&record, inputs).unwrap();
                let stm = back.turn();
                assert_eq!(sorted(sample.stm_features()), features_of(inputs, &back, stm), "{inputs} {fen}");
                assert_eq!(sorted(sample.nstm_features()), features_of(inputs, &back, !stm), "{inputs} {fen}");
                let (score, result) = if stm == Color::White { (150.0, 1.0) } else { (-150.0, 0.0) };
                assert_eq!((sample.score_cp, sample.result), (score, result), "{fen}");
            }
        }
    }

    #[test]
    fn mirroring_swaps_the_files() {
        let fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b - - 0 1";
        let mirrored_fen = "r2k3r/1bpqpp1p/1pnp2nb/3NP3/3P2p1/p1Q2N2/PPPBBPPP/R2K3R b - - 0 1";
        let sample = |fen: &str| {
            let pos = Position::from_fen(fen, Variant::Chess).unwrap();
            decode(&marlin_record(&pos, 0, GameResult::Draw), InputLayout::Plain).unwrap()
        };
        let mut mirrored = sample(fen);
        mirrored.mirror();
        let expected = sample(mirrored_fen);
        assert_eq!(sorted(mirrored.stm_features()), sorted(expected.stm_features()));
        assert_eq!(sorted(mirrored.nstm_features()), sorted(expected.nstm_features()));
        assert_ne!(sorted(mirrored.stm_features()), sorted(sample(fen).stm_features()));
    }

    #[test]
    fn the_spec_indices_of_the_start_position() {
        let record = marlin_record(&Position::new(Variant::Chess), 0, GameResult::Draw);
        let sample = decode(&record, InputLayout::Plain).unwrap();
        // White's a1 rook from white's view: own, rook plane (3), square 0.
        assert!(sample.stm_features().contains(&(3 * 64)));
        // Black's e8 king from black's view: own king plane, e8 mirrored to e1 (4).
        assert!(sample.nstm_features().contains(&(5 * 64 + 4)));
        // White's e1 king from black's view: the opponent's king, e1 mirrored to e8 (60).
        assert!(sample.nstm_features().contains(&(384 + 5 * 64 + 60)));
        assert_eq!(sample.result, 0.5);
    }

    #[test]
    fn corrupt_records_are_refused_with_a_reason() {
        let good = marlin_record(&Position::new(Variant::Chess), 0, GameResult::Draw);
        let mut bad = good;
        bad[31] = 7;
        assert!(decode(&bad, InputLayout::Plain).unwrap_err().contains("variant"));
        let mut bad = good;
        bad[30] = 3;
        assert!(decode(&bad, InputLayout::Plain).unwrap_err().contains("result"));
        let mut bad = good;
        bad[8] = 0x77;
        assert!(decode(&bad, InputLayout::Plain).unwrap_err().contains("piece code"));
        let mut bad = good;
        bad[10] = 0x24; // e1 king written as a queen
        assert!(decode(&bad, InputLayout::Plain).unwrap_err().contains("kings"));
        assert!(decode(&[0xFF; MARLIN_SIZE], InputLayout::King4).is_err());
    }

    #[test]
    fn game_marks_split_games_but_never_a_game() {
        let mut pos = Position::new(Variant::Chess);
        let mut marks = vec![GameMark::of(&marlin_record(&pos, 0, GameResult::Draw))];
        for uci in ["e2e4", "d7d5", "e4d5", "d8d5"] {
            let mv = pos.parse_uci(uci).unwrap();
            pos.play_unchecked(mv);
            marks.push(GameMark::of(&marlin_record(&pos, 0, GameResult::Draw)));
        }
        assert!(marks.windows(2).all(|w| !w[0].starts_new_game(&w[1])));
        let restart = GameMark::of(&marlin_record(&Position::new(Variant::Chess), 0, GameResult::Draw));
        assert!(marks[4].starts_new_game(&restart));
        let other_result = GameMark::of(&marlin_record(&pos, 0, GameResult::Win(Color::White)));
        assert!(marks[3].starts_new_game(&other_result));
    }
}
