//! Move-ordering statistics learnt during search.

use ferz_chess::{Bitboard, Color, Move, Piece, Role, Square};

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

/// Butterfly scores of one side's quiet moves, by whether the origin is attacked, whether the
/// target is, then origin and target square.
type ButterflyTable = [[[[i16; 64]; 64]; 2]; 2];

/// A continuation-history table: how good a move was after a given earlier move.
pub type ContinuationTable = [[i16; 64]; 12];

/// All the statistics one search thread keeps.
pub struct Histories {
    /// Quiet moves by side, whether the opponent attacks the origin and the target, and from
    /// and to square: the same move is good for other reasons when it escapes or walks into an
    /// attack.
    butterfly: Box<[ButterflyTable; 2]>,
    /// Captures by moving piece, target square and captured role.
    captures: Box<[[[i16; 6]; 64]; 12]>,
    /// Continuation history: a row per earlier move (see [`ContinuationRows`]), then indexed by
    /// this move's piece and target.
    continuation: Box<[ContinuationTable; CONTINUATION_ROWS]>,
    /// The quiet move that last refuted a move, by that move's piece and target.
    countermoves: Box<[[Option<Move>; 64]; 12]>,
    /// Correction history: how far search results have been from the static evaluation, by
    /// side to move and pawn structure (in 1/256 centipawn).
    pawn_correction: Box<[[i32; CORRECTION_SIZE]; 2]>,
}

/// Continuation-history rows: one per earlier move (its piece and target square), and a last
/// row that is never written, standing for "no earlier move" (the root, a null move), so that
/// reading needs no branch.
const CONTINUATION_ROWS: usize = 12 * 64 + 1;
const NO_PREVIOUS_MOVE: usize = CONTINUATION_ROWS - 1;

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
            butterfly: Box::new([[[[[0; 64]; 64]; 2]; 2]; 2]),
            captures: Box::new([[[0; 6]; 64]; 12]),
            continuation: vec![[[0i16; 64]; 12]; CONTINUATION_ROWS]
                .into_boxed_slice()
                .try_into()
                .expect("one table a row"),
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

impl PieceTo {
    /// This move's row of the continuation history.
    #[inline]
    fn continuation_row(self) -> usize {
        self.piece * 64 + self.to.index()
    }
}

/// The continuation-history rows a node's quiet moves are scored from: those of the moves one
/// and two plies back. Found once a node rather than once a move, since every move reads them.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ContinuationRows([usize; 2]);

impl ContinuationRows {
    /// The rows of `previous` (the move one ply back, then two); a missing move reads zeros.
    #[must_use]
    pub fn of(previous: [Option<PieceTo>; 2]) -> ContinuationRows {
        ContinuationRows(previous.map(|p| p.map_or(NO_PREVIOUS_MOVE, PieceTo::continuation_row)))
    }
}

impl Histories {
    /// Forgets everything.
    pub fn clear(&mut self) {
        *self = Histories::default();
    }

    /// The butterfly score of a quiet move, `threats` being the squares the opponent attacks.
    #[inline]
    pub fn quiet(&self, color: Color, m: Move, threats: Bitboard) -> i32 {
        i32::from(*self.butterfly_entry(color, m, threats))
    }

    /// Updates the butterfly score of a quiet move, `threats` being the squares the opponent attacks.
    #[inline]
    pub fn update_quiet(&mut self, color: Color, m: Move, threats: Bitboard, bonus: i32) {
        update(self.butterfly_entry_mut(color, m, threats), bonus);
    }

    #[inline]
    fn butterfly_entry(&self, color: Color, m: Move, threats: Bitboard) -> &i16 {
        let (from, to) = (m.from(), m.to());
        &self.butterfly[color.index()][usize::from(threats.contains(from))][usize::from(threats.contains(to))]
            [from.index()][to.index()]
    }

    #[inline]
    fn butterfly_entry_mut(&mut self, color: Color, m: Move, threats: Bitboard) -> &mut i16 {
        let (from, to) = (m.from(), m.to());
        &mut self.butterfly[color.index()][usize::from(threats.contains(from))][usize::from(threats.contains(to))]
            [from.index()][to.index()]
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

    /// The continuation scores of playing `piece` to `to` after the moves of `rows`, summed.
    #[inline]
    pub fn continuation(&self, rows: ContinuationRows, piece: usize, to: Square) -> i32 {
        let [one_back, two_back] = rows.0;
        i32::from(self.continuation[one_back][piece][to.index()])
            + i32::from(self.continuation[two_back][piece][to.index()])
    }

    /// Updates the continuation score.
    #[inline]
    pub fn update_continuation(&mut self, previous: Option<PieceTo>, piece: usize, to: Square, bonus: i32) {
        if let Some(p) = previous {
            update(&mut self.continuation[p.continuation_row()][piece][to.index()], bonus);
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

    /// A quiet move has four butterfly scores, one for each answer to "is its origin attacked?"
    /// and "is its target attacked?"; the attacks elsewhere on the board do not matter, and an
    /// empty attack map reads the table a search without the split uses.
    #[test]
    fn butterfly_scores_are_kept_apart_by_attacks_on_origin_and_target() {
        let mut histories = Histories::default();
        let square = |i: u32| Square::new(i).expect("a square");
        let (from, to) = (square(12), square(28));
        let m = Move::normal(from, to);
        let maps =
            [Bitboard::EMPTY, Bitboard::from(from), Bitboard::from(to), Bitboard::from(from) | Bitboard::from(to)];
        for (i, &threats) in maps.iter().enumerate() {
            histories.update_quiet(Color::White, m, threats, 100 * (i as i32 + 1));
        }
        for (i, &threats) in maps.iter().enumerate() {
            let elsewhere = threats | Bitboard::from(square(48)) | Bitboard::from(square(7));
            assert_eq!(histories.quiet(Color::White, m, elsewhere), 100 * (i as i32 + 1), "map {i}");
            assert_eq!(histories.quiet(Color::Black, m, threats), 0, "the other side's table, map {i}");
        }
    }

    /// Each earlier move has a row of its own, and a missing one reads zeros even after every
    /// row has been updated.
    #[test]
    fn continuation_rows_are_per_earlier_move_and_a_missing_move_reads_zero() {
        let mut histories = Histories::default();
        let square = |i: u32| Square::new(i).expect("a square");
        for piece in 0..12 {
            for to in 0..64 {
                let previous = Some(PieceTo { piece, to: square(to) });
                let bonus = 1 + (piece * 64) as i32 + to as i32;
                histories.update_continuation(previous, 5, square(9), bonus);
                histories.update_continuation(None, 5, square(9), 9_999);
            }
        }
        for piece in 0..12 {
            for to in 0..64 {
                let one = Some(PieceTo { piece, to: square(to) });
                let alone = histories.continuation(ContinuationRows::of([one, None]), 5, square(9));
                assert_eq!(alone, 1 + (piece * 64) as i32 + to as i32, "piece {piece} to {to}");
                let two_back = histories.continuation(ContinuationRows::of([None, one]), 5, square(9));
                assert_eq!(two_back, alone);
            }
        }
        let both = [Some(PieceTo { piece: 0, to: square(0) }), Some(PieceTo { piece: 11, to: square(63) })];
        assert_eq!(histories.continuation(ContinuationRows::of(both), 5, square(9)), 1 + 768);
        assert_eq!(histories.continuation(ContinuationRows::of([None, None]), 5, square(9)), 0);
        assert_eq!(histories.continuation(ContinuationRows::of(both), 5, square(10)), 0);
    }
}
