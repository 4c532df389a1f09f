//! Alpha-beta search: iterative deepening, aspiration windows, principal variation search,
//! quiescence, and the pruning, reduction and ordering heuristics of modern engines.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use ferz_chess::{Bitboard, Move, MoveList, Position, Role, Variant};

use crate::eval::{evaluate, piece_value};
use crate::history::{ContinuationRows, Histories, PieceTo, piece_index};
use crate::limits::MAX_PLY;
use crate::movepick::{MovePicker, OrderingHints, captured_role, is_quiet, quiet_score};
use crate::nnue::NnueStack;
#[allow(clippy::wildcard_imports)] // every tuning constant; they are named for what they decide
use crate::params::{self, *};
use crate::score::{INFINITY, MATE_BOUND, from_tt, is_mate, mate_in, mated_in, to_tt};
use crate::see::see_ge;
use crate::tablebase::TbSearch;
use crate::time::TimeBudget;
use crate::tt::{Bound, TranspositionTable, TtEntry};

/// Late-move reductions by depth and move number: about ln(depth) * ln(moves) / 2.
type LmrTable = [[i32; 64]; 64];

/// The reduction table for the current [`LMR_BASE`] and [`LMR_DIVISOR`] of `variant`.
fn lmr_table(variant: Variant) -> Box<LmrTable> {
    let (base, divisor) = (percent(&LMR_BASE, variant), percent(&LMR_DIVISOR, variant));
    let mut table = Box::new([[0; 64]; 64]);
    for (depth, row) in table.iter_mut().enumerate().skip(1) {
        for (moves, r) in row.iter_mut().enumerate().skip(1) {
            *r = (base + (depth as f64).ln() * (moves as f64).ln() / divisor) as i32;
        }
    }
    table
}

/// Everything the threads of one search share.
pub struct SharedSearch<'a> {
    /// The hash table.
    pub tt: &'a TranspositionTable,
    /// Set when the search must end (a limit was reached, or the main thread finished).
    pub stop: &'a AtomicBool,
    /// The caller's stop flag.
    pub user_stop: &'a AtomicBool,
    /// Set by the user's `ponderhit`; until then a pondering search ignores the clock.
    pub ponderhit: &'a AtomicBool,
    /// Nodes of all threads, published in batches.
    pub nodes: &'a AtomicU64,
    /// Time limits.
    pub budget: TimeBudget,
    /// `go infinite`: no limit but `stop`.
    pub infinite: bool,
    /// `go ponder`: the clock starts only with a ponder hit.
    pub pondering: bool,
    /// Stop after this many nodes (per thread; exact for single-threaded searches).
    pub node_limit: Option<u64>,
    /// Syzygy tablebase probing.
    pub tb: &'a TbSearch<'a>,
}

impl SharedSearch<'_> {
    /// Whether the time limits apply now: not in an infinite search, and not while pondering
    /// before the ponder hit.
    #[must_use]
    pub fn clock_running(&self) -> bool {
        !self.infinite && (!self.pondering || self.ponderhit.load(Ordering::Relaxed))
    }

    /// Whether the search must end now.
    #[must_use]
    pub fn should_stop(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.user_stop.load(Ordering::Relaxed)
    }
}

/// A root move with what the search learnt about it.
#[derive(Clone, Debug)]
pub struct RootMove {
    /// The move.
    pub mv: Move,
    /// Its score in the last completed search of it; `-INFINITY` if it failed low.
    pub score: i32,
    /// Its score in the previous iteration, for ordering.
    pub previous_score: i32,
    /// Its principal variation, starting with the move.
    pub pv: Vec<Move>,
    /// The deepest ply reached below it.
    pub seldepth: usize,
    /// Nodes this thread spent below it in the whole search so far (all iterations).
    pub nodes: u64,
    /// How the score bounds the true value (exact unless an aspiration window failed).
    pub bound: Bound,
}

/// More beta cutoffs than this at a child's ply (see [`CUTOFF_COUNT_REDUCTION`]) make the
/// child's node likely to fail high too.
const CUTOFF_COUNT_THRESHOLD: u32 = 3;

#[derive(Copy, Clone, Default)]
struct Frame {
    eval: i32,
    moved: Option<PieceTo>,
    killers: [Option<Move>; 2],
    excluded: Option<Move>,
    /// Beta cutoffs by a move at this ply since the node two plies up began its moves.
    cutoffs: u32,
}

/// One search thread's state.
pub struct Worker {
    /// Thread number; 0 is the main thread.
    pub id: usize,
    histories: Histories,
    frames: Vec<Frame>,
    /// Keys of the game's positions followed by the search path.
    keys: Vec<u64>,
    /// Index in `keys` of the root position.
    root_index: usize,
    pv: Vec<Vec<Move>>,
    /// Nodes searched by this thread in the current search.
    pub nodes: u64,
    unpublished: u64,
    seldepth: usize,
    /// The root moves, best first after each iteration.
    pub root_moves: Vec<RootMove>,
    /// The deepest fully completed iteration.
    pub completed_depth: i32,
    stopped: bool,
    /// The NNUE accumulators of the search path (unused with the hand-tuned evaluation).
    pub nnue: NnueStack,
    /// Late-move reductions, built from the parameters of [`crate::params`] generation
    /// `lmr_built_for.0` in variant `lmr_built_for.1`.
    lmr: Box<LmrTable>,
    lmr_built_for: (u64, Variant),
}

impl Worker {
    /// A fresh worker.
    #[must_use]
    pub fn new(id: usize) -> Worker {
        Worker {
            id,
            histories: Histories::default(),
            frames: vec![Frame::default(); MAX_PLY + 8],
            keys: Vec::new(),
            root_index: 0,
            pv: (0..=MAX_PLY).map(|_| Vec::with_capacity(MAX_PLY)).collect(),
            nodes: 0,
            unpublished: 0,
            seldepth: 0,
            root_moves: Vec::new(),
            completed_depth: 0,
            stopped: false,
            nnue: NnueStack::default(),
            lmr: lmr_table(Variant::Chess),
            lmr_built_for: (params::generation(), Variant::Chess),
        }
    }

    /// Forgets the learnt move-ordering statistics.
    pub fn clear(&mut self) {
        self.histories.clear();
    }

    /// Prepares a search of `root`, whose game history (oldest first, ending with the root's
    /// key) is `history`, over `moves` (all legal moves unless restricted).
    pub fn prepare(&mut self, root: &Position, history: &[u64], moves: &[Move]) {
        self.keys.clear();
        self.keys.extend_from_slice(history);
        if self.keys.last() != Some(&root.key()) {
            self.keys.push(root.key());
        }
        self.root_index = self.keys.len() - 1;
        // The parameters change only between searches (UCI `setoption`); each variant has its own.
        let wanted = (params::generation(), root.variant());
        if self.lmr_built_for != wanted {
            self.lmr_built_for = wanted;
            self.lmr = lmr_table(root.variant());
        }
        self.nodes = 0;
        self.unpublished = 0;
        self.seldepth = 0;
        self.completed_depth = 0;
        self.stopped = false;
        self.frames.fill(Frame::default());
        self.root_moves = moves
            .iter()
            .map(|&mv| RootMove {
                mv,
                score: -INFINITY,
                previous_score: -INFINITY,
                pv: vec![mv],
                seldepth: 0,
                nodes: 0,
                bound: Bound::Exact,
            })
            .collect();
    }

    /// Records that the iteration at `depth` finished: its scores order and centre the next.
    pub fn complete_iteration(&mut self, depth: i32) {
        self.completed_depth = depth;
        for root_move in &mut self.root_moves {
            root_move.previous_score = root_move.score;
        }
    }

    /// Whether the search was interrupted; its results are then incomplete.
    #[must_use]
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// Searches the root to `depth` for the PV line `pv_index` (earlier lines excluded), with
    /// an aspiration window around the previous score. Returns the score.
    pub fn aspiration(&mut self, root: &Position, depth: i32, pv_index: usize, shared: &SharedSearch<'_>) -> i32 {
        let previous = self.root_moves[pv_index].previous_score;
        let variant = root.variant();
        let mut delta = ASPIRATION_DELTA.get(variant);
        let (mut alpha, mut beta) =
            if depth >= ASPIRATION_MIN_DEPTH.get(variant) && previous > -INFINITY && !is_mate(previous) {
                ((previous - delta).max(-INFINITY), (previous + delta).min(INFINITY))
            } else {
                (-INFINITY, INFINITY)
            };
        loop {
            let score = self.search_root(root, depth, alpha, beta, pv_index, shared);
            self.root_moves[pv_index..].sort_by_key(|m| std::cmp::Reverse(m.score));
            if self.stopped {
                return score;
            }
            if score <= alpha {
                beta = (alpha + beta) / 2;
                alpha = (score - delta).max(-INFINITY);
                self.root_moves[pv_index].bound = Bound::Upper;
            } else if score >= beta {
                beta = (score + delta).min(INFINITY);
                self.root_moves[pv_index].bound = Bound::Lower;
            } else {
                self.root_moves[pv_index].bound = Bound::Exact;
                return score;
            }
            delta += delta / 2;
            if delta > ASPIRATION_MAX_DELTA.get(variant) {
                alpha = -INFINITY;
                beta = INFINITY;
            }
        }
    }

    fn search_root(
        &mut self,
        root: &Position,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        pv_index: usize,
        shared: &SharedSearch<'_>,
    ) -> i32 {
        let mut best = -INFINITY;
        self.pv[0].clear();
        self.frames[2].cutoffs = 0;
        for index in pv_index..self.root_moves.len() {
            let mv = self.root_moves[index].mv;
            let mut child = *root;
            child.play_unchecked(mv);
            self.seldepth = 0;
            let nodes_before = self.nodes;
            self.enter(root, mv, &child, 0);
            let gives_check = child.is_check();
            let new_depth = depth - 1 + i32::from(gives_check);
            // `pv[1]` holds this move's line only after a PV search of it: a move that fails
            // high on the null window alone leaves there the line of a move searched before.
            let (score, searched_as_pv) = if index == pv_index {
                (-self.negamax::<true>(&child, new_depth, -beta, -alpha, 1, false, shared), true)
            } else {
                let score = -self.negamax::<false>(&child, new_depth, -alpha - 1, -alpha, 1, true, shared);
                if score > alpha && score < beta {
                    (-self.negamax::<true>(&child, new_depth, -beta, -alpha, 1, false, shared), true)
                } else {
                    (score, false)
                }
            };
            self.keys.pop();
            // Counted before the stop check: an interrupted search of a move was still spent on it.
            self.root_moves[index].nodes += self.nodes - nodes_before;
            if self.stopped {
                return best;
            }
            let root_move = &mut self.root_moves[index];
            if index == pv_index || score > alpha {
                root_move.score = score;
                root_move.seldepth = self.seldepth;
                root_move.pv.clear();
                root_move.pv.push(mv);
                if searched_as_pv {
                    root_move.pv.extend_from_slice(&self.pv[1]);
                }
            } else {
                root_move.score = -INFINITY;
            }
            if score > best {
                best = score;
            }
            if score > alpha {
                alpha = score;
                if score >= beta {
                    break;
                }
            }
        }
        best
    }

    /// Records a move into the search path: its piece for the histories, the child's key for
    /// repetition detection.
    #[inline]
    fn enter(&mut self, pos: &Position, mv: Move, child: &Position, ply: usize) {
        let piece = pos.board().piece_at(mv.from()).expect("legal move has a mover");
        let to = if mv.is_castle() { pos.castling_side(mv.to()).destinations(pos.turn()).0 } else { mv.to() };
        self.frames[ply].moved = Some(PieceTo { piece: piece_index(piece), to });
        self.keys.push(child.key());
        self.nnue.push(ply, pos, mv, child);
    }

    #[inline]
    fn count_node(&mut self, shared: &SharedSearch<'_>) {
        self.nodes += 1;
        self.unpublished += 1;
        if self.unpublished >= 1024 {
            shared.nodes.fetch_add(self.unpublished, Ordering::Relaxed);
            self.unpublished = 0;
            if shared.should_stop() {
                self.stopped = true;
            } else if self.id == 0
                && shared.clock_running()
                && shared.budget.hard.is_some_and(|h| shared.budget.elapsed() >= h)
            {
                self.stopped = true;
                shared.stop.store(true, Ordering::Relaxed);
            }
        }
        if shared.node_limit.is_some_and(|limit| self.nodes >= limit) {
            self.stopped = true;
            shared.stop.store(true, Ordering::Relaxed);
        }
    }

    /// What every node does first: count itself, and settle positions whose value is known
    /// without search (stopped search, Shatranj bare king, draws by rule, maximum ply).
    #[inline]
    fn enter_node(&mut self, pos: &Position, ply: usize, shared: &SharedSearch<'_>) -> Option<i32> {
        self.count_node(shared);
        if self.stopped {
            return Some(0);
        }
        self.seldepth = self.seldepth.max(ply);
        if let Some(winner) = pos.variant().is_shatranj().then(|| pos.shatranj_bare_king_winner()).flatten() {
            return Some(if winner == pos.turn() { mate_in(ply) } else { mated_in(ply) });
        }
        if self.is_draw(pos) {
            return Some(0);
        }
        if ply >= MAX_PLY - 1 {
            return Some(self.evaluate(pos, ply));
        }
        None
    }

    /// The static evaluation of `pos`, the position at `ply`: the net's when one is in use (and
    /// the position is one it plays, see [`NnueStack::evaluate`]), else the hand-tuned one.
    #[inline]
    fn evaluate(&mut self, pos: &Position, ply: usize) -> i32 {
        self.nnue.evaluate(pos, ply).unwrap_or_else(|| evaluate(pos))
    }

    /// Publishes the nodes not yet added to the shared count.
    pub fn flush_nodes(&mut self, shared: &SharedSearch<'_>) {
        shared.nodes.fetch_add(self.unpublished, Ordering::Relaxed);
        self.unpublished = 0;
    }

    /// Whether the position at the end of the search path is drawn by rule: repetition (once
    /// inside the search, or twice counting the game before the root), the move rules, or
    /// material.
    fn is_draw(&self, pos: &Position) -> bool {
        if pos.variant().is_shatranj() {
            if pos.board().occupied().count() == 2 {
                return true;
            }
        } else if pos.is_insufficient_material() {
            return true;
        }
        if pos.halfmoves() >= pos.variant().move_rule_plies() && (!pos.is_check() || pos.count_legal_moves() > 0) {
            return true;
        }
        let last = self.keys.len() - 1;
        let key = self.keys[last];
        let window = (pos.halfmoves() as usize).min(last);
        let mut seen_before_root = 0;
        let mut back = 4;
        while back <= window {
            let index = last - back;
            if self.keys[index] == key {
                if index > self.root_index {
                    return true;
                }
                seen_before_root += 1;
                if seen_before_root >= 2 {
                    return true;
                }
            }
            back += 2;
        }
        false
    }

    /// Whether the side to move has pieces besides pawns and king.
    fn has_pieces(pos: &Position) -> bool {
        let b = pos.board();
        let ours = b.by_color(pos.turn());
        (ours & !(b.by_role(Role::Pawn) | b.by_role(Role::King))).is_nonempty()
    }

    /// Whether passing is a safe test of the position: zugzwang is common when the side to
    /// move has only pawns and a single minor piece (and in Shatranj, where the pieces are
    /// short-ranged, with fewer than two pieces besides a rook), so null moves are skipped then.
    fn null_move_safe(pos: &Position) -> bool {
        let b = pos.board();
        let ours = b.by_color(pos.turn());
        let pieces = ours & !(b.by_role(Role::Pawn) | b.by_role(Role::King));
        let majors = if pos.variant().is_shatranj() {
            Bitboard::EMPTY
        } else {
            pieces & (b.by_role(Role::Rook) | b.by_role(Role::Queen))
        };
        majors.is_nonempty() || pieces.count() >= 2
    }

    #[allow(clippy::too_many_arguments, clippy::too_many_lines)]
    fn negamax<const PV: bool>(
        &mut self,
        pos: &Position,
        mut depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        cut_node: bool,
        shared: &SharedSearch<'_>,
    ) -> i32 {
        if PV {
            self.pv[ply].clear();
        }
        if depth <= 0 {
            return self.quiescence::<PV>(pos, alpha, beta, ply, shared);
        }
        if let Some(score) = self.enter_node(pos, ply, shared) {
            return score;
        }
        // Mate distance pruning: no line from here beats a mate already found nearer the root.
        alpha = alpha.max(mated_in(ply));
        beta = beta.min(mate_in(ply + 1));
        if alpha >= beta {
            return alpha;
        }

        let excluded = self.frames[ply].excluded;
        let variant = pos.variant();
        let key = pos.key();
        let tt_entry = if excluded.is_none() { shared.tt.probe(key) } else { None };
        let tt_move = tt_entry.and_then(|e| e.mv);
        // Near the move rule a stored score may be stale: the same position is then closer to a draw.
        let near_move_rule = pos.halfmoves() + MOVE_RULE_TT_MARGIN.get(variant) as u32 >= variant.move_rule_plies();
        if let Some(score) = tt_entry
            .filter(|e| !PV && e.depth >= depth && !near_move_rule)
            .and_then(|e| tt_cutoff(&e, ply, alpha, beta))
        {
            return score;
        }
        // Endgame tablebases (see `tablebase.rs`).
        if excluded.is_none()
            && let Some(score) = shared.tb.probe(pos, depth, alpha, beta, ply, shared.tt)
        {
            return score;
        }

        let in_check = pos.is_check();
        // The static evaluation (stored in the table) and its corrected form.
        let raw_eval = if in_check { -INFINITY } else { tt_entry.map_or_else(|| self.evaluate(pos, ply), |e| e.eval) };
        let static_eval = if in_check { -INFINITY } else { self.histories.corrected_eval(pos, raw_eval) };
        // A bound from the table is a better estimate than the static evaluation.
        let eval =
            if in_check { -INFINITY } else { tt_entry.map_or(static_eval, |e| refined_eval(&e, ply, static_eval)) };
        self.frames[ply].eval = static_eval;
        let improving = !in_check && ply >= 2 && static_eval > self.frames[ply - 2].eval;
        self.frames[ply + 1].killers = [None; 2];
        self.frames[ply + 2].killers = [None; 2];
        self.frames[ply + 2].cutoffs = 0;

        if !PV && !in_check && excluded.is_none() {
            // Reverse futility pruning: far above beta, a shallow search will not fall below it.
            if depth <= RFP_MAX_DEPTH.get(variant)
                && eval
                    - (RFP_MARGIN_PER_DEPTH.get(variant) * depth
                        - RFP_IMPROVING_BONUS.get(variant) * i32::from(improving))
                    >= beta
                && eval < MATE_BOUND
            {
                return eval;
            }
            // Null-move pruning: if passing still holds beta, a real move will too.
            if depth >= NMP_MIN_DEPTH.get(variant)
                && eval >= beta
                && self.frames[ply.saturating_sub(1)].moved.is_some()
                && Self::null_move_safe(pos)
                && beta > -MATE_BOUND
            {
                let reduction = NMP_BASE_REDUCTION.get(variant)
                    + depth * 100 / NMP_DEPTH_DIVISOR_X100.get(variant)
                    + ((eval - beta) / NMP_EVAL_DIVISOR.get(variant)).min(NMP_MAX_EVAL_REDUCTION.get(variant));
                let mut child = *pos;
                child.play_null();
                shared.tt.prefetch(child.key());
                self.frames[ply].moved = None;
                self.keys.push(child.key());
                self.nnue.push_null(ply);
                let score =
                    -self.negamax::<false>(&child, depth - reduction, -beta, -beta + 1, ply + 1, !cut_node, shared);
                self.keys.pop();
                if self.stopped {
                    return 0;
                }
                if score >= beta {
                    return if is_mate(score) { beta } else { score };
                }
            }
        }

        // Internal iterative reduction: without a table move this node is likely unimportant.
        if depth >= IIR_MIN_DEPTH.get(variant) && tt_move.is_none() && (PV || cut_node) {
            depth -= 1;
        }

        let previous = [
            self.frames[ply.saturating_sub(1)].moved.filter(|_| ply >= 1),
            self.frames[ply.saturating_sub(2)].moved.filter(|_| ply >= 2),
        ];
        let continuations = ContinuationRows::of(previous);
        let attacks = pos.attack_layers(!pos.turn());
        let threats = if HISTORY_THREATS.get(variant) != 0 { attacks.all } else { Bitboard::EMPTY };
        let mut moves = MoveList::new();
        let hints = OrderingHints { tt_move, killers: self.frames[ply].killers, previous, threats, attacks };
        let Some(mut picker) = MovePicker::new(pos, &mut moves, hints) else {
            // Checkmate, or stalemate: a draw in chess, a loss for the stalemated side in Shatranj.
            return if in_check || pos.variant() == Variant::Shatranj { mated_in(ply) } else { 0 };
        };

        let original_alpha = alpha;
        let mut best_score = -INFINITY;
        let mut best_move = None;
        let mut move_count = 0;
        let mut quiets_tried: arrayvec::ArrayVec<Move, 64> = arrayvec::ArrayVec::new();
        let mut captures_tried: arrayvec::ArrayVec<Move, 32> = arrayvec::ArrayVec::new();
        let tt_capture = tt_move.is_some_and(|m| !is_quiet(pos, m));
        let lmp_limit = (LMP_BASE.get(variant) + depth * depth) / if improving { 1 } else { 2 };

        while let Some((mv, ordering)) = picker.next(pos, &self.histories) {
            if Some(mv) == excluded {
                continue;
            }
            move_count += 1;
            let quiet = is_quiet(pos, mv);
            if best_score > -MATE_BOUND && !in_check && Self::has_pieces(pos) {
                let prunable = if quiet {
                    // Late-move pruning, futility pruning, and quiet moves that lose material.
                    move_count as i32 > lmp_limit
                        || (depth <= FUTILITY_MAX_DEPTH.get(variant)
                            && eval + FUTILITY_BASE.get(variant) + FUTILITY_PER_DEPTH.get(variant) * depth <= alpha)
                        || (depth <= SEE_QUIET_MAX_DEPTH.get(variant)
                            && !see_ge(pos, mv, -SEE_QUIET_MARGIN.get(variant) * depth * depth))
                } else {
                    depth <= SEE_CAPTURE_MAX_DEPTH.get(variant)
                        && !see_ge(pos, mv, -SEE_CAPTURE_MARGIN.get(variant) * depth)
                };
                // Checking moves are kept (a "losing" capture that mates is not losing). Asking
                // before the move is played spares most pruned moves the copy and the move.
                if prunable && !pos.gives_check(mv) {
                    continue;
                }
            }
            let mut child = *pos;
            child.play_unchecked(mv);
            // The child probes the table first thing: ask for its bucket as early as it is known.
            shared.tt.prefetch(child.key());
            let gives_check = child.is_check();

            // Singular extension: if every other move falls well short of the table move's
            // score, the table move is forced and deserves a deeper look.
            let mut extension = i32::from(gives_check && ply < 2 * MAX_PLY / 3);
            if let Some(entry) = tt_entry.filter(|e| {
                Some(mv) == tt_move
                    && depth >= SINGULAR_MIN_DEPTH.get(variant)
                    && excluded.is_none()
                    && ply < 2 * MAX_PLY / 3
                    && e.depth >= depth - SINGULAR_TT_DEPTH_MARGIN.get(variant)
                    && e.bound != Bound::Upper
                    && !is_mate(e.score)
            }) {
                let singular_beta = from_tt(entry.score, ply) - SINGULAR_MARGIN_PER_DEPTH_X16.get(variant) * depth / 16;
                self.frames[ply].excluded = Some(mv);
                let score = self.negamax::<false>(
                    pos,
                    (depth - 1) / 2,
                    singular_beta - 1,
                    singular_beta,
                    ply,
                    cut_node,
                    shared,
                );
                self.frames[ply].excluded = None;
                if self.stopped {
                    return 0;
                }
                if score < singular_beta {
                    extension = if !PV && score < singular_beta - DOUBLE_EXTENSION_MARGIN.get(variant) { 2 } else { 1 };
                } else if singular_beta >= beta {
                    // Multi-cut: a second move also beats beta.
                    return singular_beta;
                }
            }

            self.enter(pos, mv, &child, ply);
            let new_depth = depth - 1 + extension;

            let mut score;
            if depth >= LMR_MIN_DEPTH.get(variant) && move_count > 1 + usize::from(PV) && (quiet || ordering < 0) {
                let mut reduction = self.lmr[depth.min(63) as usize][move_count.min(63)];
                reduction += i32::from(!PV) + i32::from(cut_node);
                reduction -= i32::from(improving) + i32::from(gives_check);
                // Where the nodes of the child's ply keep failing high (this node's earlier
                // children and its siblings' children), the move is likely refuted as well.
                reduction += CUTOFF_COUNT_REDUCTION.get(variant)
                    * i32::from(self.frames[ply + 1].cutoffs > CUTOFF_COUNT_THRESHOLD);
                if quiet {
                    reduction += LMR_TT_CAPTURE.get(variant) * i32::from(tt_capture);
                    let history = quiet_score(pos, mv, &self.histories, continuations, threats);
                    reduction -= history / LMR_HISTORY_DIVISOR.get(variant);
                }
                let reduced = (new_depth - reduction.max(0)).clamp(1, new_depth.max(1));
                score = -self.negamax::<false>(&child, reduced, -alpha - 1, -alpha, ply + 1, true, shared);
                if score > alpha && reduced < new_depth {
                    score = -self.negamax::<false>(&child, new_depth, -alpha - 1, -alpha, ply + 1, !cut_node, shared);
                }
            } else if !PV || move_count > 1 {
                score = -self.negamax::<false>(&child, new_depth, -alpha - 1, -alpha, ply + 1, !cut_node, shared);
            } else {
                score = -INFINITY;
            }
            // `pv[ply + 1]` holds this move's line only after a PV search of it (see `search_root`).
            let searched_as_pv = PV && (move_count == 1 || (score > alpha && score < beta));
            if searched_as_pv {
                score = -self.negamax::<true>(&child, new_depth, -beta, -alpha, ply + 1, false, shared);
            }
            self.keys.pop();
            if self.stopped {
                return 0;
            }

            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = Some(mv);
                    alpha = score;
                    if PV {
                        let (head, tail) = self.pv.split_at_mut(ply + 1);
                        head[ply].clear();
                        head[ply].push(mv);
                        if searched_as_pv {
                            head[ply].extend_from_slice(&tail[0]);
                        }
                    }
                    if score >= beta {
                        self.frames[ply].cutoffs += 1;
                        self.reward(pos, mv, depth, ply, &hints, &quiets_tried, &captures_tried);
                        break;
                    }
                }
            }
            if quiet {
                let _ = quiets_tried.try_push(mv);
            } else {
                let _ = captures_tried.try_push(mv);
            }
        }

        if move_count == 0 {
            // Every move was the excluded one.
            return alpha;
        }
        if excluded.is_none() {
            let bound = if best_score >= beta {
                Bound::Lower
            } else if PV && best_score > original_alpha {
                Bound::Exact
            } else {
                Bound::Upper
            };
            let stored_eval = if in_check { 0 } else { raw_eval };
            shared.tt.store(
                key,
                TtEntry { mv: best_move.or(tt_move), score: to_tt(best_score, ply), eval: stored_eval, depth, bound },
            );
            let quiet_best = best_move.is_none_or(|m| is_quiet(pos, m));
            if !in_check
                && quiet_best
                && !is_mate(best_score)
                // A bound says nothing about the error when it lies on the evaluation's side.
                && (bound != Bound::Lower || best_score > static_eval)
                && (bound != Bound::Upper || best_score < static_eval)
            {
                self.histories.update_correction(pos, raw_eval, best_score, depth);
            }
        }
        best_score
    }

    /// Updates killers and histories after `best` caused a beta cutoff; `hints` are the node's
    /// (its earlier moves and the opponent's attacks index the histories).
    #[allow(clippy::too_many_arguments)]
    fn reward(
        &mut self,
        pos: &Position,
        best: Move,
        depth: i32,
        ply: usize,
        hints: &OrderingHints,
        quiets: &[Move],
        captures: &[Move],
    ) {
        let variant = pos.variant();
        let bonus = (depth * depth * HISTORY_BONUS_QUADRATIC.get(variant) + depth * HISTORY_BONUS_LINEAR.get(variant))
            .min(HISTORY_BONUS_MAX.get(variant));
        let us = pos.turn();
        let piece_of = |m: Move| piece_index(pos.board().piece_at(m.from()).expect("legal move has a mover"));
        if is_quiet(pos, best) {
            let frame = &mut self.frames[ply];
            if frame.killers[0] != Some(best) {
                frame.killers = [Some(best), frame.killers[0]];
            }
            self.histories.set_countermove(hints.previous[0], best);
            for (m, b) in std::iter::once((best, bonus)).chain(quiets.iter().map(|&m| (m, -bonus))) {
                let piece = piece_of(m);
                self.histories.update_quiet(us, m, hints.threats, b);
                self.histories.update_continuation(hints.previous[0], piece, m.to(), b);
                self.histories.update_continuation(hints.previous[1], piece, m.to(), b);
            }
        } else if let Some(victim) = captured_role(pos, best) {
            self.histories.update_capture(piece_of(best), best.to(), victim, bonus);
        }
        for &m in captures {
            if let Some(victim) = captured_role(pos, m) {
                self.histories.update_capture(piece_of(m), m.to(), victim, -bonus);
            }
        }
    }

    fn quiescence<const PV: bool>(
        &mut self,
        pos: &Position,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        shared: &SharedSearch<'_>,
    ) -> i32 {
        if let Some(score) = self.enter_node(pos, ply, shared) {
            return score;
        }
        let key = pos.key();
        let tt_entry = shared.tt.probe(key);
        if let Some(score) = tt_entry.filter(|_| !PV).and_then(|e| tt_cutoff(&e, ply, alpha, beta)) {
            return score;
        }

        let in_check = pos.is_check();
        let tt_move = tt_entry.and_then(|e| e.mv);
        let mut moves = MoveList::new();
        let stand_pat;
        let mut picker = if in_check {
            stand_pat = -INFINITY;
            let Some(evasions) =
                MovePicker::new(pos, &mut moves, OrderingHints { tt_move, ..OrderingHints::default() })
            else {
                return mated_in(ply);
            };
            evasions
        } else {
            stand_pat = tt_entry.map_or_else(|| self.evaluate(pos, ply), |e| e.eval);
            if stand_pat >= beta {
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            MovePicker::new_tactical(pos, &mut moves, tt_move)
        };
        let original_alpha = alpha;
        let mut best_score = stand_pat;
        let mut best_move = None;
        let variant = pos.variant();
        while let Some((mv, _)) = picker.next(pos, &self.histories) {
            if !in_check {
                // Delta pruning: even winning the piece cannot lift the score to alpha.
                let gain = captured_role(pos, mv).map_or(0, |r| piece_value(variant, r))
                    + mv.promotion_role().map_or(0, |r| piece_value(variant, r) - piece_value(variant, Role::Pawn));
                if stand_pat + gain + DELTA_MARGIN.get(variant) <= alpha || !see_ge(pos, mv, 0) {
                    continue;
                }
            }
            let mut child = *pos;
            child.play_unchecked(mv);
            shared.tt.prefetch(child.key());
            self.keys.push(child.key());
            self.nnue.push(ply, pos, mv, &child);
            let score = -self.quiescence::<PV>(&child, -beta, -alpha, ply + 1, shared);
            self.keys.pop();
            if self.stopped {
                return 0;
            }
            if score > best_score {
                best_score = score;
                if score > alpha {
                    alpha = score;
                    best_move = Some(mv);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        let bound = if best_score >= beta {
            Bound::Lower
        } else if PV && best_score > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let eval = if in_check { 0 } else { stand_pat };
        shared.tt.store(key, TtEntry { mv: best_move, score: to_tt(best_score, ply), eval, depth: 0, bound });
        best_score
    }
}

/// The better estimate of a position's value than its evaluation `eval`: the stored score
/// where its bound says the true value lies beyond `eval` (mate scores aside: a bound on a mate
/// says nothing about the position's standing).
#[inline]
fn refined_eval(entry: &TtEntry, ply: usize, eval: i32) -> i32 {
    if is_mate(entry.score) {
        return eval;
    }
    let score = from_tt(entry.score, ply);
    match entry.bound {
        Bound::Lower if score > eval => score,
        Bound::Upper if score < eval => score,
        Bound::Exact => score,
        _ => eval,
    }
}

/// The stored score if its bound settles the window `(alpha, beta)`.
#[inline]
fn tt_cutoff(entry: &TtEntry, ply: usize, alpha: i32, beta: i32) -> Option<i32> {
    let score = from_tt(entry.score, ply);
    let settles = match entry.bound {
        Bound::Exact => true,
        Bound::Lower => score >= beta,
        Bound::Upper => score <= alpha,
    };
    settles.then_some(score)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(score: i32, bound: Bound) -> TtEntry {
        TtEntry { mv: None, score: to_tt(score, 3), eval: 0, depth: 4, bound }
    }

    #[test]
    fn a_bound_beyond_the_evaluation_replaces_it_and_one_short_of_it_does_not() {
        let eval = 40;
        assert_eq!(refined_eval(&entry(90, Bound::Lower), 3, eval), 90, "at least 90 is better than 40");
        assert_eq!(refined_eval(&entry(10, Bound::Lower), 3, eval), eval, "at least 10 says nothing against 40");
        assert_eq!(refined_eval(&entry(-20, Bound::Upper), 3, eval), -20, "at most -20 is better than 40");
        assert_eq!(refined_eval(&entry(70, Bound::Upper), 3, eval), eval, "at most 70 says nothing against 40");
        assert_eq!(refined_eval(&entry(10, Bound::Exact), 3, eval), 10, "an exact score is the value");
    }

    #[test]
    fn a_mate_bound_leaves_the_evaluation() {
        assert_eq!(refined_eval(&entry(mate_in(7), Bound::Lower), 3, 40), 40);
        assert_eq!(refined_eval(&entry(mated_in(9), Bound::Exact), 3, 40), 40);
    }
}
