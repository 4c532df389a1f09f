//! Move ordering: the table move first, then every other move scored once and handed out best
//! first. Scoring waits until the table move has been searched, because it often refutes the
//! node on its own.

use arrayvec::ArrayVec;
use ferz_chess::{MAX_MOVES, Move, MoveList, Position, Role};

use crate::eval::piece_value;
use crate::history::{Histories, PieceTo, piece_index};
use crate::params::{CAPTURE_HISTORY_DIVISOR, GOOD_CAPTURE_SEE_MARGIN};
use crate::see::see_ge;

const TT_MOVE: i32 = 1 << 30;
const GOOD_CAPTURE: i32 = 1 << 28;
const KILLER: i32 = 1 << 27;
const COUNTERMOVE: i32 = KILLER - 2;
const BAD_CAPTURE: i32 = -(1 << 28);

/// Whether `m` captures something (en passant included).
#[inline]
pub fn is_capture(pos: &Position, m: Move) -> bool {
    m.is_en_passant() || (!m.is_castle() && pos.board().by_color(!pos.turn()).contains(m.to()))
}

/// Whether `m` is neither a capture nor a promotion.
#[inline]
pub fn is_quiet(pos: &Position, m: Move) -> bool {
    !is_capture(pos, m) && m.promotion_role().is_none()
}

/// The role `m` captures, if any.
#[inline]
pub fn captured_role(pos: &Position, m: Move) -> Option<Role> {
    if m.is_en_passant() {
        Some(Role::Pawn)
    } else if m.is_castle() || !pos.board().by_color(!pos.turn()).contains(m.to()) {
        None
    } else {
        pos.board().role_at(m.to())
    }
}

/// What a node knows that helps ordering, besides the histories.
#[derive(Copy, Clone, Debug, Default)]
pub struct OrderingHints {
    /// The transposition table's move.
    pub tt_move: Option<Move>,
    /// Two quiet moves that caused cutoffs at this ply.
    pub killers: [Option<Move>; 2],
    /// The opponent's last move and our own move before it.
    pub previous: [Option<PieceTo>; 2],
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum Stage {
    TableMove,
    Score,
    Rest,
}

/// The moves of one node, handed out best first.
///
/// The picker orders the caller's move list in place and keeps the scores beside it, so that
/// making a picker copies nothing: nodes are entered millions of times a second, and copying a
/// full list of (move, score) pairs into each showed up as 4% of the search in `perf`.
pub struct MovePicker<'a> {
    moves: &'a mut MoveList,
    /// `scores[i]` orders `moves[i]`; filled once the table move has been tried.
    scores: ArrayVec<i32, MAX_MOVES>,
    next: usize,
    hints: OrderingHints,
    stage: Stage,
    /// Quiescence ordering: captures by victim and attacker only.
    tactical: bool,
}

impl<'a> MovePicker<'a> {
    /// Orders the moves of a full-width node.
    pub fn new(moves: &'a mut MoveList, hints: OrderingHints) -> MovePicker<'a> {
        MovePicker { moves, scores: ArrayVec::new(), next: 0, hints, stage: Stage::TableMove, tactical: false }
    }

    /// Orders captures and promotions for the quiescence search (MVV-LVA with history).
    pub fn new_tactical(moves: &'a mut MoveList, tt_move: Option<Move>) -> MovePicker<'a> {
        MovePicker {
            moves,
            scores: ArrayVec::new(),
            next: 0,
            hints: OrderingHints { tt_move, ..OrderingHints::default() },
            stage: Stage::TableMove,
            tactical: true,
        }
    }

    /// The best remaining move and its ordering score (negative for captures that lose
    /// material).
    pub fn next(&mut self, pos: &Position, histories: &Histories) -> Option<(Move, i32)> {
        if self.stage == Stage::TableMove {
            self.stage = Stage::Score;
            if let Some(tt) = self.hints.tt_move
                && let Some(index) = self.moves.iter().position(|&m| m == tt)
            {
                self.moves.swap(0, index);
                self.next = 1;
                return Some((tt, TT_MOVE));
            }
        }
        if self.stage == Stage::Score {
            self.stage = Stage::Rest;
            // The table move, if it was handed out, keeps a placeholder score at index 0.
            self.scores.extend(std::iter::repeat_n(TT_MOVE, self.next));
            for &m in &self.moves[self.next..] {
                let score =
                    if self.tactical { tactical_score(pos, m, histories) } else { self.score(pos, m, histories) };
                self.scores.push(score);
            }
        }
        let start = self.next;
        let scores = self.scores.get(start..)?;
        let (&first, rest) = scores.split_first()?;
        // Keeping the running best in registers lets this hot scan compile without reloads.
        let (mut best, mut best_score) = (0, first);
        for (i, &score) in rest.iter().enumerate() {
            if score > best_score {
                (best, best_score) = (i + 1, score);
            }
        }
        self.moves.swap(start, start + best);
        self.scores.swap(start, start + best);
        self.next += 1;
        Some((self.moves[start], best_score))
    }

    fn score(&self, pos: &Position, m: Move, histories: &Histories) -> i32 {
        let variant = pos.variant();
        if let Some(victim) = captured_role(pos, m).or(m.promotion_role().map(|_| Role::Pawn)) {
            let mover = pos.board().piece_at(m.from()).expect("legal move has a mover");
            let promotion = m.promotion_role().map_or(0, |r| piece_value(variant, r));
            let value = 8 * (piece_value(variant, victim) + promotion)
                + histories.capture(piece_index(mover), m.to(), victim) / CAPTURE_HISTORY_DIVISOR.get();
            let base = if see_ge(pos, m, -GOOD_CAPTURE_SEE_MARGIN.get()) { GOOD_CAPTURE } else { BAD_CAPTURE };
            base + value
        } else if self.hints.killers[0] == Some(m) {
            KILLER
        } else if self.hints.killers[1] == Some(m) {
            KILLER - 1
        } else if histories.countermove(self.hints.previous[0]) == Some(m) {
            COUNTERMOVE
        } else {
            quiet_score(pos, m, histories, self.hints.previous)
        }
    }
}

fn tactical_score(pos: &Position, m: Move, histories: &Histories) -> i32 {
    let variant = pos.variant();
    let mover = pos.board().piece_at(m.from()).expect("legal move has a mover");
    let captured = captured_role(pos, m);
    let victim = captured.map_or(0, |r| piece_value(variant, r));
    let promotion = m.promotion_role().map_or(0, |r| piece_value(variant, r));
    let history = captured.map_or(0, |r| histories.capture(piece_index(mover), m.to(), r));
    16 * (victim + promotion) - piece_value(variant, mover.role) + history / 32
}

/// The history score of a quiet move: butterfly plus continuation from one and two plies back.
#[inline]
pub fn quiet_score(pos: &Position, m: Move, histories: &Histories, previous: [Option<PieceTo>; 2]) -> i32 {
    let piece = piece_index(pos.board().piece_at(m.from()).expect("legal move has a mover"));
    histories.quiet(pos.turn(), m)
        + histories.continuation(previous[0], piece, m.to())
        + histories.continuation(previous[1], piece, m.to())
}
