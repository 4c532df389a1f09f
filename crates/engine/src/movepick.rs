//! Move ordering: the table move first, then every other move scored once and handed out best
//! first. Scoring waits until the table move has been searched, because it often refutes the
//! node on its own; in a full-width node the other moves are not even generated until then.

use arrayvec::ArrayVec;
use ferz_chess::{AttackLayers, Bitboard, MAX_MOVES, Move, MoveList, Position, Role};

use crate::eval::piece_value;
use crate::history::{ContinuationRows, Histories, PieceTo, piece_index};
use crate::params::{CAPTURE_HISTORY_DIVISOR, GOOD_CAPTURE_SEE_MARGIN, GRADED_THREAT_ORDERING, PAWN_THREAT_ORDERING};
use crate::see::see_ge;

// The score bands, best first. Every score stays below `TT_MOVE * 2` in magnitude (captures'
// values and histories stay within a few times `HISTORY_MAX`), so that it fits in the bits above
// the move's place in the list and both share one `i32` (see `pack`).
const TT_MOVE: i32 = 1 << 21;
const GOOD_CAPTURE: i32 = 1 << 20;
const KILLER: i32 = 1 << 19;
const COUNTERMOVE: i32 = KILLER - 2;
const BAD_CAPTURE: i32 = -(1 << 20);

/// Bits below a packed score that hold the move's place in the list.
const INDEX_BITS: u32 = MAX_MOVES.trailing_zeros();
const INDEX_MASK: i32 = (1 << INDEX_BITS) - 1;
const _: () = assert!(MAX_MOVES.is_power_of_two() && TT_MOVE < 1 << (31 - INDEX_BITS));

/// A score with the place `index` of its move in the low bits, stored as the place's complement:
/// the largest packed value is then the best score and, among equal scores, the first place,
/// as a scan that keeps the first maximum would find. One `max` over the packed values, which
/// the compiler turns into vector code, finds both.
#[inline(always)]
fn pack(score: i32, index: usize) -> i32 {
    debug_assert!(score.abs() < TT_MOVE * 2 && index < MAX_MOVES, "{score} at {index}");
    (score << INDEX_BITS) | (INDEX_MASK - index as i32)
}

/// The place a packed score stands at.
#[inline(always)]
fn packed_index(packed: i32) -> usize {
    (INDEX_MASK - (packed & INDEX_MASK)) as usize
}

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
    /// The squares the opponent attacks, which index the butterfly history.
    pub threats: Bitboard,
    /// The squares the opponent attacks, by the rank of its attackers.
    pub attacks: AttackLayers,
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum Stage {
    /// The legal table move goes first: at index 0 of the list, or alone while the list waits
    /// to be generated until it has been searched.
    TableMove,
    /// The list is full (the table move, if it went first, at index 0) and not yet scored.
    Score,
    /// Scored: the best remaining move goes next.
    Rest,
}

/// The moves of one node, handed out best first.
///
/// The picker orders the caller's move list in place and keeps the scores beside it, so that
/// making a picker copies nothing: nodes are entered millions of times a second, and copying a
/// full list of (move, score) pairs into each showed up as 4% of the search in `perf`.
pub struct MovePicker<'a> {
    moves: &'a mut MoveList,
    /// `scores[i]` orders `moves[i]`, packed with `i` (see [`pack`]); filled once the table move
    /// has been tried.
    scores: ArrayVec<i32, MAX_MOVES>,
    next: usize,
    hints: OrderingHints,
    /// Where the quiet moves' continuation scores are read, from `hints.previous`.
    continuations: ContinuationRows,
    stage: Stage,
    /// Quiescence ordering: captures by victim and attacker only.
    tactical: bool,
}

impl<'a> MovePicker<'a> {
    /// Orders the legal moves of a full-width node in `moves` (which it fills); `None` when the
    /// side to move has none.
    #[inline(always)]
    pub fn new(pos: &Position, moves: &'a mut MoveList, hints: OrderingHints) -> Option<MovePicker<'a>> {
        let table_move_first = hints.tt_move.is_some_and(|m| pos.is_legal(m));
        if !table_move_first {
            pos.push_legal_moves(moves);
            if moves.is_empty() {
                return None;
            }
        }
        Some(MovePicker::with_stage(moves, hints, table_move_first, false))
    }

    /// Orders the legal captures and promotions for the quiescence search (MVV-LVA with
    /// history), in `moves` (which it fills). They are generated at once: few quiescence nodes
    /// have a table move, so testing its legality first would cost more than it saves.
    #[inline(always)]
    pub fn new_tactical(pos: &Position, moves: &'a mut MoveList, tt_move: Option<Move>) -> MovePicker<'a> {
        pos.push_legal_captures_and_promotions(moves);
        let table_move = tt_move.and_then(|tt| moves.iter().position(|&m| m == tt));
        if let Some(index) = table_move {
            moves.swap(0, index);
        }
        MovePicker::with_stage(moves, OrderingHints { tt_move, ..OrderingHints::default() }, table_move.is_some(), true)
    }

    #[inline(always)]
    fn with_stage(moves: &'a mut MoveList, hints: OrderingHints, table_move_first: bool, tactical: bool) -> Self {
        MovePicker {
            moves,
            scores: ArrayVec::new(),
            next: 0,
            hints,
            continuations: ContinuationRows::of(hints.previous),
            stage: if table_move_first { Stage::TableMove } else { Stage::Score },
            tactical,
        }
    }

    /// The best remaining move and its ordering score (negative for captures that lose
    /// material).
    pub fn next(&mut self, pos: &Position, histories: &Histories) -> Option<(Move, i32)> {
        if self.stage == Stage::TableMove {
            self.stage = Stage::Score;
            self.next = 1;
            return self.hints.tt_move.map(|m| (m, TT_MOVE));
        }
        if self.stage == Stage::Score {
            self.stage = Stage::Rest;
            if self.next == 1 && self.moves.is_empty() {
                // The table move went first alone: generate the others now, the table move at
                // index 0. (Told apart by the state rather than by a stage of its own: written
                // as a `match` over four stages, this function took 1.1% more of the search's
                // instructions; see docs/measurements.md.)
                pos.push_legal_moves(self.moves);
                match self.moves.iter().position(|&m| Some(m) == self.hints.tt_move) {
                    Some(index) => self.moves.swap(0, index),
                    // Not reached (`is_legal` agrees with the generator); if it were, the whole
                    // list is scored and nothing is handed out twice.
                    None => self.next = 0,
                }
            }
            // The table move, if it was handed out, keeps a placeholder score at index 0.
            self.scores.extend((0..self.next).map(|i| pack(TT_MOVE, i)));
            for (i, &m) in self.moves.iter().enumerate().skip(self.next) {
                let score =
                    if self.tactical { tactical_score(pos, m, histories) } else { self.score(pos, m, histories) };
                self.scores.push(pack(score, i));
            }
        }
        let best = select_best(&mut self.moves[..], &mut self.scores, self.next)?;
        self.next += 1;
        Some(best)
    }

    fn score(&self, pos: &Position, m: Move, histories: &Histories) -> i32 {
        let variant = pos.variant();
        if let Some(victim) = captured_role(pos, m).or(m.promotion_role().map(|_| Role::Pawn)) {
            let mover = pos.board().piece_at(m.from()).expect("legal move has a mover");
            let promotion = m.promotion_role().map_or(0, |r| piece_value(variant, r));
            let value = 8 * (piece_value(variant, victim) + promotion)
                + histories.capture(piece_index(mover), m.to(), victim) / CAPTURE_HISTORY_DIVISOR.get(pos.variant());
            let base =
                if see_ge(pos, m, -GOOD_CAPTURE_SEE_MARGIN.get(pos.variant())) { GOOD_CAPTURE } else { BAD_CAPTURE };
            base + value
        } else if self.hints.killers[0] == Some(m) {
            KILLER
        } else if self.hints.killers[1] == Some(m) {
            KILLER - 1
        } else if histories.countermove(self.hints.previous[0]) == Some(m) {
            COUNTERMOVE
        } else {
            quiet_score(pos, m, histories, self.continuations, self.hints.threats)
                + lesser_threat_score(pos, m, &self.hints.attacks)
        }
    }
}

/// Moves the best of `moves[start..]` (by `packed`, the scores [`pack`]ed with their places) to
/// `start` and returns it with its score; the move that stood at `start` takes its place.
#[inline(always)]
fn select_best(moves: &mut [Move], packed: &mut [i32], start: usize) -> Option<(Move, i32)> {
    let best_packed = packed.get(start..)?.iter().copied().max()?;
    let best = packed_index(best_packed);
    moves.swap(start, best);
    packed[best] = pack(packed[start] >> INDEX_BITS, best);
    packed[start] = best_packed;
    Some((moves[start], best_packed >> INDEX_BITS))
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

/// The ordering bonus of a quiet piece move that leaves a square an enemy piece worth less
/// attacks for one no such piece attacks, or the malus of one that steps onto such a square: a
/// piece attacked by a lesser one is lost unless it moves, and one that steps into such an
/// attack is lost for less. With `GRADED_THREAT_ORDERING` at 0, pawns are the only lesser
/// attackers.
#[inline]
fn lesser_threat_score(pos: &Position, m: Move, attacks: &AttackLayers) -> i32 {
    let Some(mover) = pos.board().piece_at(m.from()) else { return 0 };
    let graded = GRADED_THREAT_ORDERING.get(pos.variant()) != 0;
    let lesser = match mover.role {
        Role::Knight | Role::Bishop => attacks.pawns,
        Role::Rook if graded => attacks.minors,
        Role::Queen if graded => attacks.rooks,
        Role::Rook | Role::Queen => attacks.pawns,
        Role::Pawn | Role::King => return 0,
    };
    let value = PAWN_THREAT_ORDERING.get(pos.variant()) * piece_value(pos.variant(), mover.role);
    if lesser.contains(m.to()) {
        -value
    } else if lesser.contains(m.from()) {
        value
    } else {
        0
    }
}

/// The history score of a quiet move: butterfly plus continuation from one and two plies back.
#[inline]
pub fn quiet_score(
    pos: &Position,
    m: Move,
    histories: &Histories,
    continuations: ContinuationRows,
    threats: Bitboard,
) -> i32 {
    let piece = piece_index(pos.board().piece_at(m.from()).expect("legal move has a mover"));
    histories.quiet(pos.turn(), m, threats) + histories.continuation(continuations, piece, m.to())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferz_chess::{Color, SplitMix64, Square, Variant};

    /// Selection as a scan that keeps the first maximum and swaps it forward: the order the
    /// packed selection must reproduce, ties included.
    fn reference_order(mut moves: Vec<Move>, mut scores: Vec<i32>) -> Vec<(Move, i32)> {
        let mut out = Vec::new();
        for start in 0..moves.len() {
            let mut best = start;
            for i in start + 1..moves.len() {
                if scores[i] > scores[best] {
                    best = i;
                }
            }
            moves.swap(start, best);
            scores.swap(start, best);
            out.push((moves[start], scores[start]));
        }
        out
    }

    #[test]
    fn packed_selection_equals_the_first_maximum_scan() {
        let mut rng = SplitMix64::new(29);
        let bands = [TT_MOVE, GOOD_CAPTURE, KILLER, COUNTERMOVE, 0, BAD_CAPTURE];
        for round in 0..500 {
            let len = 1 + rng.below(if round % 50 == 0 { MAX_MOVES as u64 } else { 60 }) as usize;
            let moves: Vec<Move> = (0..len)
                .map(|i| {
                    let square = |index: usize| Square::new(index as u32).expect("a square");
                    Move::normal(square(i % 64), square(i / 64))
                })
                .collect();
            // Few distinct values, so that ties are common, over every band and both signs.
            let scores: Vec<i32> =
                (0..len).map(|_| bands[rng.index(bands.len())] + rng.below(7) as i32 * 4_000 - 12_000).collect();
            let expected = reference_order(moves.clone(), scores.clone());
            let mut moves = moves;
            let mut packed: Vec<i32> = scores.iter().enumerate().map(|(i, &s)| pack(s, i)).collect();
            let got: Vec<(Move, i32)> =
                (0..len).map(|start| select_best(&mut moves, &mut packed, start).expect("a move is left")).collect();
            assert_eq!(got, expected, "round {round}");
            assert_eq!(select_best(&mut moves, &mut packed, len), None);
        }
    }

    /// Everything a picker hands out, in order.
    fn drain(pos: &Position, mut picker: MovePicker<'_>) -> Vec<Move> {
        let histories = Histories::default();
        std::iter::from_fn(|| picker.next(pos, &histories).map(|(m, _)| m)).collect()
    }

    fn sorted(mut moves: Vec<Move>) -> Vec<Move> {
        moves.sort_by_key(|m| m.to_u16());
        moves
    }

    #[test]
    fn a_picker_hands_out_every_legal_move_once_with_a_legal_table_move_first() {
        let fens = [
            ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", Variant::Chess),
            ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", Variant::Chess),
            ("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", Variant::Chess),
            ("1r2k2r/8/8/8/8/8/8/R3K1R1 w GAhb - 0 1", Variant::Chess960),
            ("rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w - - 0 1", Variant::Shatranj),
        ];
        for (fen, variant) in fens {
            let pos = Position::from_fen(fen, variant).expect("a valid FEN");
            let legal = pos.legal_moves();
            let tactical: Vec<Move> =
                legal.iter().copied().filter(|&m| is_capture(&pos, m) || m.promotion_role().is_some()).collect();
            // Every legal move as the table move, and moves of other positions that are illegal here.
            let other = Position::new(Variant::Chess).legal_moves();
            let hints = legal.iter().chain(other.iter()).map(|&m| Some(m)).chain([None]);
            for tt_move in hints {
                let mut moves = MoveList::new();
                let picker = MovePicker::new(&pos, &mut moves, OrderingHints { tt_move, ..OrderingHints::default() })
                    .expect("moves to hand out");
                let order = drain(&pos, picker);
                assert_eq!(sorted(order.clone()), sorted(legal.to_vec()), "{fen} with {tt_move:?}");
                if let Some(tt) = tt_move.filter(|m| legal.contains(m)) {
                    assert_eq!(order[0], tt, "{fen}: the legal table move first");
                }

                let mut moves = MoveList::new();
                let order = drain(&pos, MovePicker::new_tactical(&pos, &mut moves, tt_move));
                assert_eq!(sorted(order.clone()), sorted(tactical.clone()), "{fen} tactical with {tt_move:?}");
                if let Some(tt) = tt_move.filter(|m| tactical.contains(m)) {
                    assert_eq!(order[0], tt, "{fen}: the tactical table move first");
                }
            }
        }
    }

    #[test]
    fn a_picker_is_none_without_legal_moves_whatever_the_table_says() {
        let mate = Position::from_fen("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3", Variant::Chess)
            .expect("a valid FEN");
        let stalemate = Position::from_fen("k7/8/1Q6/8/8/8/8/7K b - - 0 1", Variant::Chess).expect("a valid FEN");
        let start = Position::new(Variant::Chess);
        for pos in [mate, stalemate] {
            for tt_move in start.legal_moves().iter().map(|&m| Some(m)).chain([None]) {
                let mut moves = MoveList::new();
                let hints = OrderingHints { tt_move, ..OrderingHints::default() };
                assert!(MovePicker::new(&pos, &mut moves, hints).is_none(), "{} with {tt_move:?}", pos.fen());
            }
        }
    }

    #[test]
    fn packing_keeps_the_score_and_the_place() {
        for score in [TT_MOVE, GOOD_CAPTURE + 40_000, COUNTERMOVE, 49_152, 0, -49_152, BAD_CAPTURE - 40_000] {
            for index in [0, 1, 217, MAX_MOVES - 1] {
                let packed = pack(score, index);
                assert_eq!((packed >> INDEX_BITS, packed_index(packed)), (score, index));
            }
        }
        assert!(pack(5, 3) > pack(5, 4) && pack(5, 4) > pack(4, 0));
    }

    /// A knight a pawn attacks gains its value's multiple for leaving, loses it for stepping
    /// onto another square a pawn attacks; pawn and king moves, and pieces no pawn troubles,
    /// score nothing.
    #[test]
    fn a_piece_is_ordered_out_of_a_pawns_attack_and_not_into_one() {
        // The black pawn on d6 attacks the knight on e5 and the squares c5 and e5.
        let pos = Position::from_fen("4k3/8/3p4/4N3/8/8/3P4/4K3 w - - 0 1", Variant::Chess).expect("a valid FEN");
        let threats = pos.attack_layers(Color::Black);
        let score = |uci: &str| lesser_threat_score(&pos, pos.parse_uci(uci).expect("a legal move"), &threats);
        let knight = PAWN_THREAT_ORDERING.get(Variant::Chess) * piece_value(Variant::Chess, Role::Knight);
        assert!(knight > 0);
        assert_eq!(score("e5f3"), knight, "leaves the attack");
        assert_eq!(score("e5c4"), knight, "leaves the attack");
        assert_eq!(score("d2d4"), 0, "a pawn");
        assert_eq!(score("e1f1"), 0, "the king");
        let pos = Position::from_fen("4k3/8/3p4/8/3N4/8/8/4K3 w - - 0 1", Variant::Chess).expect("a valid FEN");
        let threats = pos.attack_layers(Color::Black);
        let score = |uci: &str| lesser_threat_score(&pos, pos.parse_uci(uci).expect("a legal move"), &threats);
        assert_eq!(score("d4e6"), 0, "out of reach");
        assert_eq!(score("d4c2"), 0, "out of reach");
        let into = Position::from_fen("4k3/8/3p4/8/8/3N4/8/4K3 w - - 0 1", Variant::Chess).expect("a valid FEN");
        let threats = into.attack_layers(Color::Black);
        let m = into.parse_uci("d3e5").expect("a legal move");
        assert_eq!(lesser_threat_score(&into, m, &threats), -knight, "steps into the attack");
    }

    /// A rook a knight attacks is ordered out of the attack and not into another knight's
    /// attack, a queen not into a rook's; a queen's attack on a square does not count.
    #[test]
    fn a_piece_is_ordered_out_of_a_lesser_pieces_attack() {
        let variant = Variant::Chess;
        let value = |role| PAWN_THREAT_ORDERING.get(variant) * piece_value(variant, role);
        // The black knight on d6 attacks b5, b7, c4, c8, e4, e8, f5 and f7; the black rook on
        // h1 attacks the first rank; the black queen on h8 attacks e5 and the h-file.
        let pos = Position::from_fen("4k2q/8/3n4/1R6/8/K7/3Q4/7r w - - 0 1", variant).expect("a valid FEN");
        let threats = pos.attack_layers(Color::Black);
        let score = |uci: &str| lesser_threat_score(&pos, pos.parse_uci(uci).expect("a legal move"), &threats);
        assert!(value(Role::Rook) > 0);
        assert_eq!(score("b5b3"), value(Role::Rook), "a rook leaves a knight's attack");
        assert_eq!(score("b5e5"), value(Role::Rook), "the queen's attack on e5 is not a lesser one");
        assert_eq!(score("b5f5"), -value(Role::Rook), "a rook steps into a knight's attack");
        assert_eq!(score("d2d1"), -value(Role::Queen), "a queen steps into a rook's attack");
        assert_eq!(score("d2d3"), 0, "a queen out of reach");
    }
}
