//! The search's tuning constants, in one place: every margin, reduction and limit of
//! [`crate::search`], named for what it decides. Depths are in plies, scores in centipawns.
//!
//! Changing one changes the search (and `ferz bench`'s node count): measure with `ferz match
//! --sprt` before adopting a new value.

/// Aspiration windows: the first half-width around the previous iteration's score.
pub const ASPIRATION_DELTA: i32 = 25;
/// Aspiration windows are used from this depth on (shallower searches are too unstable).
pub const ASPIRATION_MIN_DEPTH: i32 = 4;
/// Beyond this half-width the window opens fully.
pub const ASPIRATION_MAX_DELTA: i32 = 1000;

/// Table cutoffs are skipped within this many plies of the move rule, where a stored score may
/// not know that the same position is now close to a draw.
pub const MOVE_RULE_TT_MARGIN: u32 = 10;

/// Reverse futility pruning: at most this depth...
pub const RFP_MAX_DEPTH: i32 = 8;
/// ...when the evaluation beats beta by this much per ply of depth...
pub const RFP_MARGIN_PER_DEPTH: i32 = 70;
/// ...less this when the evaluation is improving (pruning is then safer).
pub const RFP_IMPROVING_BONUS: i32 = 40;

/// Null-move pruning from this depth on.
pub const NMP_MIN_DEPTH: i32 = 3;
/// The null move's base reduction...
pub const NMP_BASE_REDUCTION: i32 = 3;
/// ...plus one ply for every this many plies of depth...
pub const NMP_DEPTH_DIVISOR: i32 = 3;
/// ...plus one ply for every this many centipawns the evaluation beats beta by...
pub const NMP_EVAL_DIVISOR: i32 = 200;
/// ...up to this many plies for the evaluation term.
pub const NMP_MAX_EVAL_REDUCTION: i32 = 3;

/// Internal iterative reduction: nodes of at least this depth without a table move search one
/// ply shallower.
pub const IIR_MIN_DEPTH: i32 = 4;

/// Late-move pruning: quiet moves after `(LMP_BASE + depth²)` (halved when not improving) are
/// skipped.
pub const LMP_BASE: i32 = 3;

/// Futility pruning of quiet moves: at most this depth...
pub const FUTILITY_MAX_DEPTH: i32 = 6;
/// ...when the evaluation plus this base...
pub const FUTILITY_BASE: i32 = 100;
/// ...plus this per ply of depth cannot reach alpha.
pub const FUTILITY_PER_DEPTH: i32 = 110;

/// SEE pruning of quiet moves: at most this depth...
pub const SEE_QUIET_MAX_DEPTH: i32 = 7;
/// ...when the move loses more than this times depth² in exchanges.
pub const SEE_QUIET_MARGIN: i32 = 25;
/// SEE pruning of captures: at most this depth...
pub const SEE_CAPTURE_MAX_DEPTH: i32 = 6;
/// ...when the capture loses more than this times depth.
pub const SEE_CAPTURE_MARGIN: i32 = 90;

/// Singular extensions: from this depth on...
pub const SINGULAR_MIN_DEPTH: i32 = 8;
/// ...when the table entry is at most this many plies shallower than the node.
pub const SINGULAR_TT_DEPTH_MARGIN: i32 = 3;
/// The singular search's window sits this much per ply of depth below the table score.
pub const SINGULAR_MARGIN_PER_DEPTH: i32 = 2;
/// Falling this far below the singular window earns a double extension (non-PV nodes).
pub const DOUBLE_EXTENSION_MARGIN: i32 = 20;

/// Late-move reductions apply from this depth on.
pub const LMR_MIN_DEPTH: i32 = 3;
/// The reduction table: `LMR_BASE + ln(depth) · ln(move number) / LMR_DIVISOR` plies.
pub const LMR_BASE: f64 = 0.75;
/// See [`LMR_BASE`].
pub const LMR_DIVISOR: f64 = 2.25;
/// One ply less reduction per this much quiet-move history.
pub const LMR_HISTORY_DIVISOR: i32 = 8000;

/// History bonus after a cutoff: `min(16·depth² + 32·depth, HISTORY_BONUS_MAX)`.
pub const HISTORY_BONUS_MAX: i32 = 2000;

/// Quiescence delta pruning: a capture that cannot lift the score within this of alpha, even
/// winning the piece, is skipped.
pub const DELTA_MARGIN: i32 = 200;
