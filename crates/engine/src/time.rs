//! Time management: how long to think about one move.

use std::time::{Duration, Instant};

use ferz_chess::{Color, Position, Variant};

use crate::SearchLimits;
use crate::params::{
    STALL_ALLOWANCE, TM_CHANGES_BASE, TM_CHANGES_WEIGHT, TM_DROP_DIVISOR, TM_DROP_MAX, TM_HARD_CLOCK_SHARE,
    TM_HARD_INCREMENT_SHARE, TM_HARD_SOFT_SHARE, TM_INCREMENT_SHARE, TM_LAST_MOVE_SHARE, TM_SHARE_OFFSET,
    TM_SHARE_WEIGHT, TM_SUDDEN_DEATH_MOVES, Tunable, percent,
};

/// The deadlines of one search.
#[derive(Copy, Clone, Debug)]
pub struct TimeBudget {
    /// When the search started.
    pub start: Instant,
    /// Do not start a new iteration after this much time (scaled by how stable the best move is).
    pub soft: Option<Duration>,
    /// Stop at once after this much time.
    pub hard: Option<Duration>,
    /// Whose time-management parameters decide when to stop between iterations.
    pub variant: Variant,
}

impl TimeBudget {
    /// The budget for the side to move in `root` under `limits`, keeping `overhead` for the
    /// transmission of the move.
    #[must_use]
    pub fn new(limits: &SearchLimits, root: &Position, overhead: Duration, start: Instant) -> TimeBudget {
        let variant = root.variant();
        if let Some(movetime) = limits.movetime {
            // A fixed move time is used in full: no early stop between iterations.
            let time = movetime.saturating_sub(overhead).max(Duration::from_millis(1));
            return TimeBudget { start, soft: None, hard: Some(time), variant };
        }
        let (clock, increment) = match root.turn() {
            Color::White => (limits.wtime, limits.winc),
            Color::Black => (limits.btime, limits.binc),
        };
        let Some(clock) = clock else {
            return TimeBudget { start, soft: None, hard: None, variant };
        };
        let sudden_death_moves = TM_SUDDEN_DEATH_MOVES.get(variant).unsigned_abs().max(1);
        let moves = limits.movestogo.map_or(sudden_death_moves, |n| n.clamp(1, sudden_death_moves));
        let share = |t: &Tunable| t.get(variant).unsigned_abs();
        // A cushion the clock is not planned below: the overhead of this and a later move, three
        // increments and a quarter second. A move can arrive that late on a loaded machine (a
        // virtual machine whose host takes its CPU away stalls a process for 100-300 ms), and a
        // clock living on its increment (2+0.02) would flag from that alone. Below the cushion a
        // move spends at most half the increment, so the clock climbs back; without an increment
        // the moves get as fast as they can.
        let cushion = overhead * 2 + increment * 3 + STALL_ALLOWANCE;
        let usable = clock.saturating_sub(cushion);
        // The increment as it reaches the search: each move also loses the overhead.
        let net_increment = increment.saturating_sub(overhead);
        let soft = usable / moves + net_increment * share(&TM_INCREMENT_SHARE) / 100;
        let hard_cap = if moves == 1 {
            usable * share(&TM_LAST_MOVE_SHARE) / 100
        } else {
            usable * share(&TM_HARD_CLOCK_SHARE) / 100 + net_increment * share(&TM_HARD_INCREMENT_SHARE) / 100
        };
        let soft = soft.min(hard_cap).max(Duration::from_millis(1));
        let hard = (soft * share(&TM_HARD_SOFT_SHARE) / 100).min(hard_cap).max(soft);
        TimeBudget { start, soft: Some(soft), hard: Some(hard), variant }
    }

    /// Time since the search started.
    #[must_use]
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Whether a search that has run for `elapsed` should not start another iteration, given
    /// how settled it looks.
    #[must_use]
    pub fn iteration_time_is_up(&self, elapsed: Duration, progress: &SearchProgress) -> bool {
        self.soft.is_some_and(|soft| elapsed.as_secs_f64() >= soft.as_secs_f64() * progress.soft_scale(self.variant))
            || self.hard.is_some_and(|hard| elapsed >= hard)
    }
}

/// How settled a search looks after an iteration: what decides whether the next iteration is
/// worth its time.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct SearchProgress {
    /// Best-move changes between iterations, decaying (halved after every iteration).
    pub best_move_changes: f64,
    /// The share (0 to 1) of the main thread's nodes that went below the current best move.
    pub best_move_share: f64,
    /// How far (centipawns) the best score fell since the previous iteration; 0 if it held.
    pub score_drop: i32,
}

impl SearchProgress {
    /// The factor on the soft limit under `variant`'s parameters: about half when the search
    /// has settled, above 4 when nothing has (the hard limit, at most four soft limits, then ends
    /// the search).
    #[must_use]
    pub fn soft_scale(&self, variant: Variant) -> f64 {
        // A best move that keeps changing needs more time, a stable one less.
        let changes = percent(&TM_CHANGES_BASE, variant)
            + self.best_move_changes.clamp(0.0, 2.0) * percent(&TM_CHANGES_WEIGHT, variant);
        // When nearly all the effort goes below one move, the others were refuted cheaply and
        // more depth is unlikely to change the choice; an even spread means close alternatives.
        let share = (percent(&TM_SHARE_OFFSET, variant) - self.best_move_share.clamp(0.0, 1.0))
            * percent(&TM_SHARE_WEIGHT, variant);
        // A falling score means the search found trouble: look further before moving.
        let drop = 1.0
            + f64::from(self.score_drop.clamp(0, TM_DROP_MAX.get(variant))) / f64::from(TM_DROP_DIVISOR.get(variant));
        changes * share * drop
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unsettled_search_gets_more_time_than_a_settled_one() {
        let settled = SearchProgress { best_move_changes: 0.0, best_move_share: 0.95, score_drop: 0 };
        assert!(settled.soft_scale(Variant::Chess) < 0.6, "{}", settled.soft_scale(Variant::Chess));
        let changing = SearchProgress { best_move_changes: 1.5, ..settled };
        let spread = SearchProgress { best_move_share: 0.4, ..settled };
        let falling = SearchProgress { score_drop: 80, ..settled };
        for unsettled in [changing, spread, falling] {
            assert!(unsettled.soft_scale(Variant::Chess) > settled.soft_scale(Variant::Chess) * 1.3, "{unsettled:?}");
        }
        let worst = SearchProgress { best_move_changes: 9.0, best_move_share: 0.0, score_drop: 30_000 };
        assert!((4.0..6.0).contains(&worst.soft_scale(Variant::Chess)), "{}", worst.soft_scale(Variant::Chess));
        // The hard limit holds whatever the scale.
        let ms = Duration::from_millis;
        let b = TimeBudget { start: Instant::now(), soft: Some(ms(100)), hard: Some(ms(200)), variant: Variant::Chess };
        assert!(!b.iteration_time_is_up(ms(50), &settled) && b.iteration_time_is_up(ms(60), &settled));
        assert!(!b.iteration_time_is_up(ms(199), &worst) && b.iteration_time_is_up(ms(200), &worst));
    }

    fn budget(limits: SearchLimits) -> TimeBudget {
        TimeBudget::new(&limits, &Position::new(Variant::Chess), Duration::from_millis(10), Instant::now())
    }

    #[test]
    fn budgets_stay_inside_the_clock() {
        let ms = Duration::from_millis;
        let b = budget(SearchLimits { wtime: Some(ms(1000)), winc: ms(10), ..SearchLimits::default() });
        assert!(b.soft.unwrap() < ms(100) && b.hard.unwrap() <= ms(500), "{b:?}");
        let b = budget(SearchLimits { wtime: Some(ms(30)), ..SearchLimits::default() });
        assert!(b.hard.unwrap() < ms(30), "{b:?}");
        let b = budget(SearchLimits { wtime: Some(ms(5)), ..SearchLimits::default() });
        assert!(b.hard.unwrap() <= ms(5), "{b:?}");
        let b = budget(SearchLimits { wtime: Some(ms(60_000)), movestogo: Some(1), ..SearchLimits::default() });
        assert!(b.hard.unwrap() < ms(60_000) && b.soft.unwrap() > ms(10_000), "{b:?}");
        let b = budget(SearchLimits::movetime(ms(500)));
        assert_eq!(b.hard, Some(ms(490)));
        assert_eq!(budget(SearchLimits::depth(5)).hard, None);
    }

    /// Plays `moves` moves in which every search runs to its hard limit (or, with `soft`, to
    /// its soft one) and then loses another `delay` to the machine, and returns the lowest the
    /// clock got (ms; negative = flag).
    fn lowest_clock(base_ms: u64, inc_ms: u64, moves: usize, delay_ms: u64, soft: bool) -> i64 {
        let mut clock = base_ms as i64;
        let mut lowest = clock;
        for _ in 0..moves {
            let limits = SearchLimits {
                wtime: Some(Duration::from_millis(clock.max(0) as u64)),
                winc: Duration::from_millis(inc_ms),
                ..SearchLimits::default()
            };
            let b = budget(limits);
            let used = if soft { b.soft } else { b.hard }.unwrap().as_millis() as i64 + delay_ms as i64;
            clock -= used;
            lowest = lowest.min(clock);
            clock += inc_ms as i64;
        }
        lowest
    }

    #[test]
    fn the_worst_case_never_flags_and_keeps_a_cushion() {
        // Every move to the hard limit plus 10 ms of lag (the overhead the engine was told).
        for (base, inc) in [(2_000, 20), (10_000, 100), (60_000, 1_000), (180_000, 2_000)] {
            let lowest = lowest_clock(base, inc, 300, 10, false);
            assert!(lowest > 0, "{base}+{inc}: the clock reached {lowest} ms");
        }
        // 1+0.01: an increment no larger than the overhead; with 5 ms of real lag a move.
        let lowest = lowest_clock(1_000, 10, 300, 5, false);
        assert!(lowest > 0, "1+0.01: the clock reached {lowest} ms");
        // 2+0.02 with the increment rebuilding the clock: after a long game a move that comes
        // 250 ms later than planned still does not flag.
        let settled = lowest_clock(2_000, 20, 300, 10, false);
        assert!(settled >= 250, "2+0.02 settles {settled} ms above zero");
        // Sudden death: 60 moves at the planned time still leave time.
        assert!(lowest_clock(60_000, 0, 60, 10, true) > 1_000);
    }
}
