//! The search's tuning constants, in one place: every margin, reduction, extension,
//! move-ordering and time-management number the search uses, named for what it decides. Depths are in plies, scores in centipawns, shares in percent.
//!
//! Each is declared once, in the table below, with its default, the range a tuner may move it
//! in and the step a tuner perturbs it by (SPSA's `c`). A parameter may have another default in
//! Shatranj, whose slower pieces may want other margins (`NAME = 7 (shatranj 8) in …`): each
//! variant keeps the values that were tested in it. Chess960 plays by chess's values.
//! Chess's defaults are the values `ferz spsa` found at 5+0.05 (`docs/spsa-runs/chess-stc/`),
//! which won their SPRT at 10+0.1 against the hand-chosen ones; Shatranj keeps those.
//!
//! A tunable added after records began to hold every value (a loop generation's recipe, an SPSA
//! result) also declares the value that plays the search from before it existed (`… step 1
//! (before 0)`): a record of an earlier build, which cannot name it, then plays again as it
//! played ([`play_with`]).
//!
//! The values live in process-wide atomics, one per parameter and variant, that the search
//! reads with relaxed loads (one `mov` on the usual targets): the values change only between
//! searches (`setoption`, a params file), and a process that searches chess and Shatranj at once
//! (self-play, the bot) reads each game's own values. A value that is set holds in every variant:
//! a tuner or a params file means the value it sends, whichever variant is played.
//! `ferz uci --tune` lists them as UCI spin options; `ferz spsa params` prints them in
//! OpenBench's SPSA input format.
//!
//! Changing one changes the search (and most change `ferz bench`'s node count): measure with
//! `ferz match --sprt` before adopting a new value.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};
use std::time::Duration;

use ferz_chess::Variant;

/// One tunable search parameter: its declaration and its current value.
#[derive(Debug)]
pub struct Tunable {
    /// The name, as a UCI option and in params files (`RFP_MARGIN_PER_DEPTH`).
    pub name: &'static str,
    /// What it decides.
    pub doc: &'static str,
    /// The smallest value a tuner may try.
    pub min: i32,
    /// The largest value a tuner may try.
    pub max: i32,
    /// The perturbation a tuner starts from (SPSA's `c_end` in OpenBench's terms).
    pub step: i32,
    /// The value that plays the search from before this tunable existed, for a record of every
    /// value written then; `None` for one that is older than every such record.
    pub before: Option<i32>,
    /// The built-in values, indexed by the variant itself (Chess960's is chess's).
    defaults: [i32; 3],
    /// The current values, indexed as `defaults`, so that a read is one load.
    values: [AtomicI32; 3],
}

// `Tunable::defaults` and `values` are indexed by the variant's discriminant.
const _: () =
    assert!(Variant::Chess as usize == 0 && Variant::Chess960 as usize == 1 && Variant::Shatranj as usize == 2);

impl Tunable {
    const fn new(
        name: &'static str,
        doc: &'static str,
        chess: i32,
        shatranj: i32,
        min: i32,
        max: i32,
        step: i32,
    ) -> Tunable {
        assert!(
            min <= chess && chess <= max && min <= shatranj && shatranj <= max,
            "a tunable's defaults lie in its range"
        );
        assert!(step > 0, "a tunable's step is positive");
        let defaults = [chess, chess, shatranj];
        let values = [AtomicI32::new(defaults[0]), AtomicI32::new(defaults[1]), AtomicI32::new(defaults[2])];
        Tunable { name, doc, min, max, step, before: None, defaults, values }
    }

    /// This tunable, declared after records of every value began, with `value` as the one that
    /// plays the search from before it existed.
    const fn added_after_records(self, value: i32) -> Tunable {
        assert!(self.min <= value && value <= self.max, "a tunable's value from before it existed lies in its range");
        Tunable { before: Some(value), ..self }
    }

    /// The built-in value in `variant`.
    #[must_use]
    pub const fn default(&self, variant: Variant) -> i32 {
        self.defaults[variant as usize]
    }

    /// The current value in `variant`.
    #[inline(always)]
    pub fn get(&self, variant: Variant) -> i32 {
        self.values[variant as usize].load(Ordering::Relaxed)
    }

    /// Sets the value in every variant, clamped to the range (as UCI clamps spin options);
    /// returns what was set.
    pub fn set(&self, value: i64) -> i32 {
        let clamped = value.clamp(i64::from(self.min), i64::from(self.max)) as i32;
        for slot in &self.values {
            slot.store(clamped, Ordering::Relaxed);
        }
        GENERATION.fetch_add(1, Ordering::Relaxed);
        clamped
    }

    /// Restores the built-in value of every variant.
    fn restore(&self) {
        for (slot, &default) in self.values.iter().zip(&self.defaults) {
            slot.store(default, Ordering::Relaxed);
        }
        GENERATION.fetch_add(1, Ordering::Relaxed);
    }

    /// Makes `values` (indexed as `defaults`) the current ones, storing only those that differ,
    /// so that a search running meanwhile with these values never reads another.
    fn hold(&self, values: [i32; 3]) {
        for (slot, value) in self.values.iter().zip(values) {
            if slot.load(Ordering::Relaxed) != value {
                slot.store(value, Ordering::Relaxed);
                GENERATION.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// Whether `value` lies in the range, or why not.
    ///
    /// # Errors
    /// The range, when `value` is outside it.
    pub fn check(&self, value: i64) -> Result<(), String> {
        if (i64::from(self.min)..=i64::from(self.max)).contains(&value) {
            Ok(())
        } else {
            Err(format!("{value} is outside {}'s range {}..={}", self.name, self.min, self.max))
        }
    }
}

/// Bumped on every change, so that tables derived from the values (the LMR table) know when to
/// be rebuilt.
static GENERATION: AtomicU64 = AtomicU64::new(0);

/// A number that changes whenever a value does.
#[must_use]
pub fn generation() -> u64 {
    GENERATION.load(Ordering::Relaxed)
}

/// The first of its arguments: a Shatranj default if one is given, else the chess default.
macro_rules! first_of {
    ($first:literal $(, $rest:literal)*) => {
        $first
    };
}

macro_rules! tunables {
    ($(
        $(#[doc = $doc:literal])+
        $name:ident = $default:literal $((shatranj $shatranj:literal))? in $min:literal ..= $max:literal step $step:literal $((before $before:literal))?;
    )+) => {
        $(
            $(#[doc = $doc])+
            pub static $name: Tunable = Tunable::new(
                stringify!($name),
                concat!($($doc),+),
                $default,
                first_of!($($shatranj,)? $default),
                $min,
                $max,
                $step,
            )$(.added_after_records($before))?;
        )+
        /// Every tunable parameter, in declaration order.
        pub static TUNABLES: &[&Tunable] = &[$(&$name),+];
    };
}

tunables! {
    /// Aspiration windows: the first half-width around the previous iteration's score.
    ASPIRATION_DELTA = 23 (shatranj 25) in 5..=80 step 4;
    /// Aspiration windows are used from this depth on (shallower searches are too unstable).
    ASPIRATION_MIN_DEPTH = 4 in 2..=8 step 1;
    /// Beyond this half-width the window opens fully.
    ASPIRATION_MAX_DELTA = 1025 (shatranj 1000) in 200..=3000 step 150;

    /// Table cutoffs are skipped within this many plies of the move rule, where a stored score
    /// may not know that the same position is now close to a draw.
    MOVE_RULE_TT_MARGIN = 10 in 2..=30 step 2;

    /// Reverse futility pruning: at most this depth...
    RFP_MAX_DEPTH = 7 (shatranj 8) in 4..=12 step 1;
    /// ...when the evaluation beats beta by this much per ply of depth...
    RFP_MARGIN_PER_DEPTH = 68 (shatranj 70) in 30..=150 step 6;
    /// ...less this when the evaluation is improving (pruning is then safer).
    RFP_IMPROVING_BONUS = 42 (shatranj 40) in 0..=100 step 6;

    /// Null-move pruning from this depth on.
    NMP_MIN_DEPTH = 3 in 1..=6 step 1;
    /// The null move's base reduction...
    NMP_BASE_REDUCTION = 4 (shatranj 3) in 1..=6 step 1;
    /// ...plus one ply for every this many hundredths of a ply of depth (hundredths, so that a
    /// tuner can settle between whole plies)...
    NMP_DEPTH_DIVISOR_X100 = 291 (shatranj 300) in 200..=800 step 40;
    /// ...plus one ply for every this many centipawns the evaluation beats beta by...
    NMP_EVAL_DIVISOR = 198 (shatranj 200) in 80..=400 step 20;
    /// ...up to this many plies for the evaluation term.
    NMP_MAX_EVAL_REDUCTION = 3 in 1..=6 step 1;

    /// Internal iterative reduction: nodes of at least this depth without a table move search
    /// one ply shallower.
    IIR_MIN_DEPTH = 4 in 2..=8 step 1;

    /// Late-move pruning: quiet moves after `(LMP_BASE + depth²)` (halved when not improving)
    /// are skipped.
    LMP_BASE = 4 (shatranj 3) in 0..=10 step 1;

    /// Futility pruning of quiet moves: at most this depth...
    FUTILITY_MAX_DEPTH = 6 in 3..=10 step 1;
    /// ...when the evaluation plus this base...
    FUTILITY_BASE = 96 (shatranj 100) in 20..=250 step 10;
    /// ...plus this per ply of depth cannot reach alpha.
    FUTILITY_PER_DEPTH = 109 (shatranj 110) in 40..=250 step 10;

    /// SEE pruning of quiet moves: at most this depth...
    SEE_QUIET_MAX_DEPTH = 7 in 3..=12 step 1;
    /// ...when the move loses more than this times depth² in exchanges.
    SEE_QUIET_MARGIN = 24 (shatranj 25) in 5..=80 step 4;
    /// SEE pruning of captures: at most this depth...
    SEE_CAPTURE_MAX_DEPTH = 6 in 3..=12 step 1;
    /// ...when the capture loses more than this times depth.
    SEE_CAPTURE_MARGIN = 91 (shatranj 90) in 30..=200 step 8;

    /// Singular extensions: from this depth on...
    SINGULAR_MIN_DEPTH = 8 in 4..=12 step 1;
    /// ...when the table entry is at most this many plies shallower than the node.
    SINGULAR_TT_DEPTH_MARGIN = 3 in 1..=6 step 1;
    /// The singular search's window sits this many sixteenths of a centipawn per ply of depth
    /// below the table score.
    SINGULAR_MARGIN_PER_DEPTH_X16 = 32 in 8..=96 step 6;
    /// Falling this far below the singular window earns a double extension (non-PV nodes).
    DOUBLE_EXTENSION_MARGIN = 20 in 0..=60 step 4;

    /// Late-move reductions apply from this depth on.
    LMR_MIN_DEPTH = 2 (shatranj 3) in 1..=6 step 1;
    /// The reduction table: `LMR_BASE/100 + ln(depth) · ln(move number) / (LMR_DIVISOR/100)`
    /// plies.
    LMR_BASE = 81 (shatranj 75) in 0..=200 step 10;
    /// See [`LMR_BASE`].
    LMR_DIVISOR = 224 (shatranj 225) in 120..=400 step 15;
    /// Quiet moves are reduced this many plies more when the table move is a capture or a
    /// promotion: the node's best line is then likely tactical, and a quiet move seldom refutes it.
    LMR_TT_CAPTURE = 1 (shatranj 0) in 0..=2 step 1 (before 0);
    /// Late moves are reduced this many plies more when more than three nodes of the child's
    /// ply have failed high since this node's parent began (this node's earlier children and its
    /// siblings' children): the move is then likely refuted as well.
    CUTOFF_COUNT_REDUCTION = 1 (shatranj 0) in 0..=2 step 1 (before 0);
    /// One ply less reduction per this much quiet-move history.
    LMR_HISTORY_DIVISOR = 7905 (shatranj 8000) in 2000..=20000 step 600;

    /// History bonus after a cutoff: `min(HISTORY_BONUS_QUADRATIC·depth² +
    /// HISTORY_BONUS_LINEAR·depth, HISTORY_BONUS_MAX)`.
    HISTORY_BONUS_QUADRATIC = 18 (shatranj 16) in 0..=64 step 3;
    /// See [`HISTORY_BONUS_QUADRATIC`].
    HISTORY_BONUS_LINEAR = 33 (shatranj 32) in 0..=128 step 6;
    /// See [`HISTORY_BONUS_QUADRATIC`].
    HISTORY_BONUS_MAX = 2026 (shatranj 2000) in 500..=6000 step 150;
    /// 1: the butterfly history keeps a quiet move's scores apart by whether the opponent
    /// attacks its origin and its target (the same move is good for escaping an attack and bad
    /// for walking into one); 0: one score per origin and target.
    HISTORY_THREATS = 1 in 0..=1 step 1 (before 0);

    /// Move ordering: a capture is ordered with the good ones when it loses at most this much
    /// in exchanges.
    GOOD_CAPTURE_SEE_MARGIN = 50 in 0..=200 step 10;
    /// Move ordering: capture history counts `1/this` against eight times the victim's value.
    CAPTURE_HISTORY_DIVISOR = 16 in 4..=64 step 3;
    /// Move ordering: a quiet piece move (not a pawn's or the king's) that leaves a square an
    /// enemy pawn attacks for one it does not gains this many times the piece's value, and one
    /// that steps onto such a square loses as much.
    PAWN_THREAT_ORDERING = 16 in 0..=48 step 4 (before 0);
    /// 1: the ordering bonus of [`PAWN_THREAT_ORDERING`] also takes a rook from a square a
    /// knight or bishop attacks, and a queen from one a rook or minor piece attacks; 0: only
    /// pawns' attacks count.
    GRADED_THREAT_ORDERING = 1 (shatranj 0) in 0..=1 step 1 (before 0);

    /// Quiescence delta pruning: a capture that cannot lift the score within this of alpha,
    /// even winning the piece, is skipped.
    DELTA_MARGIN = 213 (shatranj 200) in 50..=500 step 20;

    /// Time management: without `movestogo` the clock is planned for this many more moves.
    TM_SUDDEN_DEATH_MOVES = 26 (shatranj 25) in 10..=60 step 3;
    /// Time management: the share (percent) of the increment added to a move's soft limit.
    TM_INCREMENT_SHARE = 74 (shatranj 75) in 25..=100 step 6;
    /// Time management: the share (percent) of the usable clock the last move before the time
    /// control may take.
    TM_LAST_MOVE_SHARE = 90 in 50..=95 step 4;
    /// Time management: the hard limit's cap, this share (percent) of the usable clock...
    TM_HARD_CLOCK_SHARE = 52 (shatranj 50) in 20..=80 step 4;
    /// ...plus this share (percent) of the increment.
    TM_HARD_INCREMENT_SHARE = 50 in 0..=100 step 6;
    /// Time management: the hard limit is this share (percent) of the soft limit (within its
    /// cap).
    TM_HARD_SOFT_SHARE = 393 (shatranj 400) in 200..=800 step 30;
    /// Time management: the soft limit's scale starts at this (percent)...
    TM_CHANGES_BASE = 70 in 30..=120 step 6;
    /// ...plus this (percent) per recent best-move change (at most two)...
    TM_CHANGES_WEIGHT = 52 (shatranj 50) in 0..=120 step 6;
    /// ...times (this − the best move's node share) (percent)...
    TM_SHARE_OFFSET = 149 (shatranj 150) in 110..=200 step 6;
    /// ...times this (percent)...
    TM_SHARE_WEIGHT = 136 (shatranj 140) in 60..=250 step 10;
    /// ...times one plus the score's drop since the last iteration (at most this many
    /// centipawns)...
    TM_DROP_MAX = 124 (shatranj 120) in 0..=300 step 15;
    /// ...divided by this.
    TM_DROP_DIVISOR = 242 (shatranj 240) in 60..=600 step 25;
}

/// The longest stall of the process (or the machine under it) that the clock is planned to
/// survive. Not tunable: a tuner on an idle machine would shrink it and the engine would flag
/// on a loaded one.
pub const STALL_ALLOWANCE: Duration = Duration::from_millis(250);

/// A tunable's value in `variant` as a fraction (`value / 100`).
#[inline]
#[must_use]
pub fn percent(tunable: &Tunable, variant: Variant) -> f64 {
    f64::from(tunable.get(variant)) / 100.0
}

/// The tunable named `name` (case-insensitive, as UCI option names are).
#[must_use]
pub fn find(name: &str) -> Option<&'static Tunable> {
    TUNABLES.iter().copied().find(|t| t.name.eq_ignore_ascii_case(name))
}

/// Restores every default, in every variant.
pub fn reset() {
    for tunable in TUNABLES {
        tunable.restore();
    }
}

/// Every tunable's value in `variant`, by name: the build's defaults with `overrides` (names in
/// any case; those that are not tunables are left out, as a validated setting has none) in
/// their place. It is the complete set a search plays with, for a record that must replay it
/// whatever the defaults of a later build.
#[must_use]
pub fn values_with(variant: Variant, overrides: &BTreeMap<String, i32>) -> BTreeMap<String, i32> {
    TUNABLES.iter().map(|t| (t.name.to_owned(), value_named(overrides, t).unwrap_or(t.default(variant)))).collect()
}

/// What a set of values leaves out that it still decides: when it names every tunable declared
/// without a `before` value (`named` tells which it names), it is a record of every value an
/// earlier build played with, and each tunable it does not name did not exist in that build and
/// plays its `before` value; those are returned. A set that names only some tunables leaves the
/// rest at their defaults: nothing is returned.
fn left_out_of_record<'t>(table: &[&'t Tunable], named: impl Fn(&Tunable) -> bool) -> Vec<(&'t Tunable, i32)> {
    if !table.iter().filter(|t| t.before.is_none()).all(|t| named(t)) {
        return Vec::new();
    }
    table.iter().filter(|t| !named(t)).filter_map(|&t| t.before.map(|before| (t, before))).collect()
}

/// `values` as they play: a complete record of an earlier build with each tunable added since
/// written in at its value from before it (see [`play_with`]); another set as it is. For
/// showing a record as it plays, and for playing it; the record itself is kept as written.
#[must_use]
pub fn as_played(values: &BTreeMap<String, i32>) -> BTreeMap<String, i32> {
    as_played_in(TUNABLES, values)
}

/// [`as_played`] over a table of tunables.
fn as_played_in(table: &[&Tunable], values: &BTreeMap<String, i32>) -> BTreeMap<String, i32> {
    let left_out = left_out_of_record(table, |t| value_named(values, t).is_some());
    let mut played = values.clone();
    played.extend(left_out.into_iter().map(|(tunable, before)| (tunable.name.to_owned(), before)));
    played
}

/// Plays with exactly `values` (as [`values_with`] gives them): each named tunable takes its
/// value in every variant, every other one its defaults, or, when `values` is a complete record
/// of an earlier build's values, the value from before it existed ([`as_played`]). Only values
/// that change are stored, so threads that call this with the same values while others already
/// search (the shards of one self-play run) change nothing under those searches.
///
/// # Errors
/// A name that is not a tunable or a value outside its range; nothing is changed then.
pub fn play_with(values: &BTreeMap<String, i32>) -> Result<(), ParamsFileError> {
    play_with_in(TUNABLES, values)
}

/// [`play_with`] over a table of tunables.
fn play_with_in(table: &[&Tunable], values: &BTreeMap<String, i32>) -> Result<(), ParamsFileError> {
    for (name, &value) in values {
        let tunable = table
            .iter()
            .find(|t| t.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| ParamsFileError(format!("unknown parameter {name:?}")))?;
        tunable.check(i64::from(value)).map_err(ParamsFileError)?;
    }
    let played = as_played_in(table, values);
    for tunable in table {
        tunable.hold(value_named(&played, tunable).map_or(tunable.defaults, |value| [value; 3]));
    }
    Ok(())
}

/// The value `values` gives `tunable`, its name written in any case (as UCI option names are).
fn value_named(values: &BTreeMap<String, i32>, tunable: &Tunable) -> Option<i32> {
    values.iter().find(|(name, _)| name.eq_ignore_ascii_case(tunable.name)).map(|(_, &value)| value)
}

/// The UCI `option` line of a tunable, with its current value in `variant` as the default.
#[must_use]
pub fn uci_option_line(tunable: &Tunable, variant: Variant) -> String {
    let value = tunable.get(variant);
    format!("option name {} type spin default {value} min {} max {}", tunable.name, tunable.min, tunable.max)
}

/// OpenBench's learning rate at the end (`r_end`) printed with every parameter: the value the
/// OpenBench documentation suggests.
pub const OPENBENCH_R_END: f64 = 0.002;

/// Every tunable in OpenBench's SPSA input format, one per line, starting from its current
/// value in `variant`: `name, int, value, min, max, c_end, r_end`.
#[must_use]
pub fn openbench_spsa_input(variant: Variant) -> String {
    TUNABLES
        .iter()
        .map(|t| {
            let value = t.get(variant);
            format!("{}, int, {value}, {}, {}, {}, {OPENBENCH_R_END}\n", t.name, t.min, t.max, t.step)
        })
        .collect()
}

/// Where a params file went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamsFileError(pub String);

impl std::fmt::Display for ParamsFileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParamsFileError {}

/// Parses a params file: `NAME = value` lines (`#` starts a comment; blank lines are skipped),
/// the format `ferz spsa` writes its result in. Returns the pairs in order.
///
/// # Errors
/// A line that is not `NAME = integer`, named by its number.
pub fn parse_params(text: &str) -> Result<Vec<(String, i64)>, ParamsFileError> {
    let mut pairs = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let parsed = line.split_once('=').and_then(|(name, value)| {
            let value = value.trim();
            // SPSA's values are real numbers; an engine option takes the nearest integer.
            let number = value.parse::<i64>().ok().or_else(|| value.parse::<f64>().ok().map(|v| v.round() as i64));
            Some((name.trim().to_owned(), number?)).filter(|(name, _)| !name.is_empty())
        });
        match parsed {
            Some(pair) => pairs.push(pair),
            None => {
                return Err(ParamsFileError(format!("line {}: expected `NAME = number`, got {line:?}", number + 1)));
            }
        }
    }
    Ok(pairs)
}

/// Applies a params file's text to the tunables: each named one takes its value, and when the
/// file is a complete record of an earlier build's values (see [`play_with`]) each tunable it
/// does not name takes its value from before it existed. Returns how many values the file
/// named.
///
/// # Errors
/// A malformed line or a name that is not a tunable; nothing is changed then.
pub fn apply_params(text: &str) -> Result<usize, ParamsFileError> {
    apply_params_in(TUNABLES, text)
}

/// [`apply_params`] over a table of tunables.
fn apply_params_in(table: &[&Tunable], text: &str) -> Result<usize, ParamsFileError> {
    let pairs = parse_params(text)?;
    let resolved = pairs
        .iter()
        .map(|(name, value)| {
            let tunable = table.iter().find(|t| t.name.eq_ignore_ascii_case(name));
            tunable.map(|&t| (t, *value)).ok_or_else(|| ParamsFileError(format!("unknown parameter {name:?}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let named = |tunable: &Tunable| resolved.iter().any(|(t, _)| std::ptr::eq(*t, tunable));
    for (tunable, before) in left_out_of_record(table, named) {
        tunable.set(i64::from(before));
    }
    for (tunable, value) in &resolved {
        tunable.set(*value);
    }
    Ok(resolved.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        let mut names: Vec<&str> = TUNABLES.iter().map(|t| t.name).collect();
        names.sort_unstable();
        names.dedup();
        // (The defaults' ranges are checked where they are declared: `Tunable::new` is const.)
        assert_eq!(names.len(), TUNABLES.len());
    }

    #[test]
    fn openbench_lines_have_seven_fields() {
        for variant in [Variant::Chess, Variant::Shatranj] {
            let text = openbench_spsa_input(variant);
            assert_eq!(text.lines().count(), TUNABLES.len());
            for (line, t) in text.lines().zip(TUNABLES) {
                let expected =
                    format!("{}, int, {}, {}, {}, {}, 0.002", t.name, t.default(variant), t.min, t.max, t.step);
                assert_eq!(line, expected, "{variant:?}");
            }
        }
    }

    /// A parameter of its own, so that no test changes what another test's search reads.
    static LOCAL: Tunable = Tunable::new("LOCAL", "A test's own.", 7, 9, 0, 20, 1);

    #[test]
    fn each_variant_starts_from_its_default_and_a_set_value_holds_in_every_variant() {
        assert_eq!([Variant::Chess, Variant::Chess960, Variant::Shatranj].map(|v| LOCAL.get(v)), [7, 7, 9]);
        assert_eq!([Variant::Chess960, Variant::Shatranj].map(|v| LOCAL.default(v)), [7, 9]);
        let before = generation();
        assert_eq!(LOCAL.set(25), 20, "clamped to the range");
        assert!(generation() > before, "a change is seen by the tables built from the values");
        assert_eq!([Variant::Chess, Variant::Shatranj].map(|v| LOCAL.get(v)), [20, 20]);
        LOCAL.restore();
        assert_eq!([Variant::Chess, Variant::Shatranj].map(|v| LOCAL.get(v)), [7, 9]);
    }

    mod declared {
        use super::super::*;

        tunables! {
            /// With a Shatranj default.
            BOTH = 3 (shatranj 5) in 0..=9 step 1;
            /// Without.
            CHESS_ONLY = -4 in -9..=9 step 2;
        }
    }

    /// A table of its own for the records' test, which changes its values.
    mod recorded {
        use super::super::*;

        tunables! {
            /// Declared before records of every value began.
            FIRST = 3 in 0..=9 step 1;
            /// Also.
            SECOND = -4 in -9..=9 step 2;
            /// Added after records of every value began: 0 plays the search from before it.
            ADDED = 2 in 0..=4 step 1 (before 0);
        }
    }

    #[test]
    fn the_table_takes_an_optional_shatranj_default() {
        let [both, chess_only] = [&declared::BOTH, &declared::CHESS_ONLY];
        let defaults = |t: &Tunable| [Variant::Chess, Variant::Chess960, Variant::Shatranj].map(|v| t.default(v));
        assert_eq!((defaults(both), both.doc), ([3, 3, 5], " With a Shatranj default."));
        assert_eq!((defaults(chess_only), chess_only.step), ([-4, -4, -4], 2));
        assert_eq!(declared::TUNABLES.iter().map(|t| t.name).collect::<Vec<_>>(), ["BOTH", "CHESS_ONLY"]);
        assert_eq!([both.before, recorded::ADDED.before], [None, Some(0)]);
    }

    #[test]
    fn a_complete_record_from_before_a_tunable_existed_plays_the_value_from_before_it() {
        let table = recorded::TUNABLES;
        let current = || table.iter().map(|t| t.get(Variant::Chess)).collect::<Vec<_>>();
        let record = |pairs: &[(&str, i32)]| -> BTreeMap<String, i32> {
            pairs.iter().map(|&(name, value)| (name.to_owned(), value)).collect()
        };
        play_with_in(table, &record(&[("FIRST", 4), ("SECOND", -2)])).unwrap();
        assert_eq!(current(), [4, -2, 0], "every original named: a record from before ADDED");
        play_with_in(table, &record(&[("first", 4), ("SECOND", -2), ("ADDED", 3)])).unwrap();
        assert_eq!(current(), [4, -2, 3], "a value it names is played");
        play_with_in(table, &record(&[("FIRST", 4)])).unwrap();
        assert_eq!(current(), [4, -4, 2], "some named: the rest play their defaults");
        play_with_in(table, &BTreeMap::new()).unwrap();
        assert_eq!(current(), [3, -4, 2]);

        assert_eq!(apply_params_in(table, "FIRST = 6\nSECOND = 1\n").unwrap(), 2);
        assert_eq!(current(), [6, 1, 0], "a params file that is a complete record");
        recorded::ADDED.restore();
        assert_eq!(apply_params_in(table, "FIRST = 5\n").unwrap(), 1);
        assert_eq!(current(), [5, 1, 2], "a partial file sets what it names");
        play_with_in(table, &BTreeMap::new()).unwrap();
    }

    #[test]
    fn playing_with_a_set_of_values_holds_exactly_those_and_changes_only_what_differs() {
        let [both, chess_only] = [&declared::BOTH, &declared::CHESS_ONLY];
        let table = declared::TUNABLES;
        let current = |t: &Tunable| [Variant::Chess, Variant::Shatranj].map(|v| t.get(v));
        let set: BTreeMap<String, i32> = [("both".to_owned(), 7)].into();
        play_with_in(table, &set).unwrap();
        assert_eq!((current(both), current(chess_only)), ([7, 7], [-4, -4]));
        let before = generation();
        play_with_in(table, &set).unwrap();
        assert_eq!(generation(), before, "the same values again store nothing");
        chess_only.set(5);
        play_with_in(table, &BTreeMap::new()).unwrap();
        assert_eq!((current(both), current(chess_only)), ([3, 5], [-4, -4]), "the rest go back to their defaults");
        for (name, value, reason) in
            [("NOPE", 1, "unknown parameter \"NOPE\""), ("BOTH", 10, "10 is outside BOTH's range 0..=9")]
        {
            let err = play_with_in(table, &[(name.to_owned(), value)].into()).unwrap_err();
            assert_eq!(err.0, reason);
            assert_eq!(current(both), [3, 5], "nothing changed");
        }
        let overrides = [("rfp_max_depth".to_owned(), 5), ("NOPE".to_owned(), 1)].into();
        let resolved = values_with(Variant::Shatranj, &overrides);
        assert_eq!(resolved.len(), TUNABLES.len(), "every tunable of the build, by its declared name");
        assert_eq!(resolved["RFP_MAX_DEPTH"], 5);
        let defaults = resolved.iter().filter(|(name, _)| *name != "RFP_MAX_DEPTH");
        assert!(defaults.into_iter().all(|(name, &v)| v == find(name).unwrap().default(Variant::Shatranj)));
    }

    #[test]
    fn params_files_parse_and_reject_with_the_line() {
        let pairs = parse_params("# tuned\nA = 3\n\nB=-4.6 # rounded\n").unwrap();
        assert_eq!(pairs, [("A".to_owned(), 3), ("B".to_owned(), -5)]);
        let err = parse_params("A = 3\nB 4\n").unwrap_err();
        assert!(err.0.contains("line 2"), "{err}");
        let err = apply_params("NO_SUCH_PARAM = 3\n").unwrap_err();
        assert!(err.0.contains("NO_SUCH_PARAM"), "{err}");
    }
}
