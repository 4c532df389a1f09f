//! Move ordering: the table move first, then every other move scored once and handed out best
//! first. Scoring waits until the table move has been searched, because it often refutes the
//! node on its own.

use arrayvec::ArrayVec;
use ferz_chess::{MAX_MOVES, Move, MoveList, Position, Role};

use crate::eval::piece_value;
use crate::history::{Histories, PieceTo, piece_index};
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
pub struct MovePicker {
    entries: ArrayVec<(Move, i32), MAX_MOVES>,
    next: usize,
    hints: OrderingHints,
    stage: Stage,
    /// Quiescence ordering: captures by victim and attacker only.
    tactical: bool,
}

impl MovePicker {
    /// Orders the moves of a full-width node.
    pub fn new(moves: &MoveList, hints: OrderingHints) -> MovePicker {
        MovePicker {
            entries: moves.iter().map(|&m| (m, 0)).collect(),
            next: 0,
            hints,
            stage: Stage::TableMove,
            tactical: false,
        }
    }

    /// Orders captures and promotions for the quiescence search (MVV-LVA with history).
    pub fn new_tactical(moves: &MoveList, tt_move: Option<Move>) -> MovePicker {
        MovePicker {
            entries: moves.iter().map(|&m| (m, 0)).collect(),
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
                && let Some(index) = self.entries.iter().position(|&(m, _)| m == tt)
            {
                self.entries.swap(0, index);
                self.next = 1;
                return Some((tt, TT_MOVE));
            }
        }
        if self.stage == Stage::Score {
            self.stage = Stage::Rest;
            let start = self.next;
            for i in start..self.entries.len() {
                let m = self.entries[i].0;
                self.entries[i].1 =
                    if self.tactical { tactical_score(pos, m, histories) } else { self.score(pos, m, histories) };
            }
        }
        let rest = self.entries.get_mut(self.next..)?;
        let mut best = 0;
        for i in 1..rest.len() {
            if rest[i].1 > rest[best].1 {
                best = i;
            }
        }
        if rest.is_empty() {
            return None;
        }
        rest.swap(0, best);
        self.next += 1;
        Some(rest[0])
    }

    fn score(&self, pos: &Position, m: Move, histories: &Histories) -> i32 {
        let variant = pos.variant();
        if let Some(victim) = captured_role(pos, m).or(m.promotion_role().map(|_| Role::Pawn)) {
            let mover = pos.board().piece_at(m.from()).expect("legal move has a mover");
            let promotion = m.promotion_role().map_or(0, |r| piece_value(variant, r));
            let value = 8 * (piece_value(variant, victim) + promotion)
                + histories.capture(piece_index(mover), m.to(), victim) / 16;
            let base = if see_ge(pos, m, -50) { GOOD_CAPTURE } else { BAD_CAPTURE };
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
