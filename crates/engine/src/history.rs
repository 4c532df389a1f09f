//! Move-ordering statistics learnt during search.

use ferz_chess::{Color, Move, Piece, Role, Square};

/// History values stay within ±this; updates shrink towards zero as they approach it.
pub const HISTORY_MAX: i32 = 16_384;

/// Moves the value `bonus` towards the bound, slower the closer it is ("gravity").
#[inline]
fn update(value: &mut i16, bonus: i32) {
    let bonus = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
    let v = i32::from(*value);
    *value = (v + bonus - v * bonus.abs() / HISTORY_MAX) as i16;
}

/// Index of a piece for the tables: 0..12.
#[inline]
pub fn piece_index(piece: Piece) -> usize {
    piece.color.index() * 6 + piece.role.index()
}

/// A continuation-history table: how good a move was after a given earlier move.
pub type ContinuationTable = [[i16; 64]; 12];

/// All the statistics one search thread keeps.
pub struct Histories {
    /// Quiet moves by side, from and to square.
    butterfly: Box<[[[i16; 64]; 64]; 2]>,
    /// Captures by moving piece, target square and captured role.
    captures: Box<[[[i16; 6]; 64]; 12]>,
    /// Continuation history: indexed by an earlier move's piece and target, then this move's.
    continuation: Box<[[ContinuationTable; 64]; 12]>,
    /// The quiet move that last refuted a move, by that move's piece and target.
    countermoves: Box<[[Option<Move>; 64]; 12]>,
    /// Correction history: how far search results have been from the static evaluation, by
    /// side to move and pawn structure (in 1/256 centipawn).
    pawn_correction: Box<[[i32; CORRECTION_SIZE]; 2]>,
}

const CORRECTION_SIZE: usize = 16_384;
/// Corrections are kept in 1/256 centipawn for smooth averaging.
const CORRECTION_GRAIN: i32 = 256;
/// Largest correction, in centipawns.
const CORRECTION_LIMIT: i32 = 64;

/// A hash of the pawn structure, for the correction history.
#[inline]
fn pawn_index(pos: &ferz_chess::Position) -> usize {
    let b = pos.board();
    let white = b.pieces(Color::White, Role::Pawn).0;
    let black = b.pieces(Color::Black, Role::Pawn).0;
    let hash = white.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ black.wrapping_mul(0xc2b2_ae3d_27d4_eb4f).rotate_left(29);
    (hash >> 50) as usize % CORRECTION_SIZE
}

impl Default for Histories {
    fn default() -> Histories {
        Histories {
            butterfly: Box::new([[[0; 64]; 64]; 2]),
            captures: Box::new([[[0; 6]; 64]; 12]),
            continuation: vec![[[[0i16; 64]; 12]; 64]; 12].into_boxed_slice().try_into().expect("12 tables"),
            countermoves: Box::new([[None; 64]; 12]),
            pawn_correction: Box::new([[0; CORRECTION_SIZE]; 2]),
        }
    }
}

/// A previous move in the search path: the piece that moved and where it went.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PieceTo {
    /// `piece_index` of the mover.
    pub piece: usize,
    /// Its target square.
    pub to: Square,
}

impl Histories {
    /// Forgets everything.
    pub fn clear(&mut self) {
        *self = Histories::default();
    }

    /// The butterfly score of a quiet move.
    #[inline]
    pub fn quiet(&self, color: Color, m: Move) -> i32 {
        i32::from(self.butterfly[color.index()][m.from().index()][m.to().index()])
    }

    /// Updates the butterfly score of a quiet move.
    #[inline]
    pub fn update_quiet(&mut self, color: Color, m: Move, bonus: i32) {
        update(&mut self.butterfly[color.index()][m.from().index()][m.to().index()], bonus);
    }

    /// The capture-history score.
    #[inline]
    pub fn capture(&self, piece: usize, to: Square, captured: Role) -> i32 {
        i32::from(self.captures[piece][to.index()][captured.index()])
    }

    /// Updates the capture-history score.
    #[inline]
    pub fn update_capture(&mut self, piece: usize, to: Square, captured: Role, bonus: i32) {
        update(&mut self.captures[piece][to.index()][captured.index()], bonus);
    }

    /// The continuation score of playing `piece` to `to` after `previous`.
    #[inline]
    pub fn continuation(&self, previous: Option<PieceTo>, piece: usize, to: Square) -> i32 {
        previous.map_or(0, |p| i32::from(self.continuation[p.piece][p.to.index()][piece][to.index()]))
    }

    /// Updates the continuation score.
    #[inline]
    pub fn update_continuation(&mut self, previous: Option<PieceTo>, piece: usize, to: Square, bonus: i32) {
        if let Some(p) = previous {
            update(&mut self.continuation[p.piece][p.to.index()][piece][to.index()], bonus);
        }
    }

    /// The static evaluation corrected by what searches of similar positions found.
    #[inline]
    pub fn corrected_eval(&self, pos: &ferz_chess::Position, raw: i32) -> i32 {
        raw + self.pawn_correction[pos.turn().index()][pawn_index(pos)] / CORRECTION_GRAIN
    }

    /// Moves the correction for `pos` towards `searched - raw`, more for deeper searches.
    #[inline]
    pub fn update_correction(&mut self, pos: &ferz_chess::Position, raw: i32, searched: i32, depth: i32) {
        let entry = &mut self.pawn_correction[pos.turn().index()][pawn_index(pos)];
        let target = (searched - raw).clamp(-CORRECTION_LIMIT, CORRECTION_LIMIT) * CORRECTION_GRAIN;
        let weight = (depth + 1).min(16);
        *entry = (*entry * (256 - weight) + target * weight) / 256;
    }

    /// The countermove of `previous`.
    #[inline]
    pub fn countermove(&self, previous: Option<PieceTo>) -> Option<Move> {
        previous.and_then(|p| self.countermoves[p.piece][p.to.index()])
    }

    /// Records `m` as the refutation of `previous`.
    #[inline]
    pub fn set_countermove(&mut self, previous: Option<PieceTo>, m: Move) {
        if let Some(p) = previous {
            self.countermoves[p.piece][p.to.index()] = Some(m);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gravity_keeps_values_bounded() {
        let mut v = 0i16;
        for _ in 0..1000 {
            update(&mut v, 4000);
        }
        assert!(i32::from(v) <= HISTORY_MAX && i32::from(v) > HISTORY_MAX - 100);
        for _ in 0..1000 {
            update(&mut v, -4000);
        }
        assert!(i32::from(v) >= -HISTORY_MAX);
    }
}
