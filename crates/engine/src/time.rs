//! Time management: how long to think about one move.

use std::time::{Duration, Instant};

use ferz_chess::Color;

use crate::SearchLimits;

/// The deadlines of one search.
#[derive(Copy, Clone, Debug)]
pub struct TimeBudget {
    /// When the search started.
    pub start: Instant,
    /// Do not start a new iteration after this much time (scaled by how stable the best move is).
    pub soft: Option<Duration>,
    /// Stop at once after this much time.
    pub hard: Option<Duration>,
}

/// Never plan on fewer moves than this when the time control gives none (sudden death).
const SUDDEN_DEATH_MOVES: u32 = 25;

impl TimeBudget {
    /// The budget for `us` under `limits`, keeping `overhead` for the transmission of the move.
    #[must_use]
    pub fn new(limits: &SearchLimits, us: Color, overhead: Duration, start: Instant) -> TimeBudget {
        if let Some(movetime) = limits.movetime {
            // A fixed move time is used in full: no early stop between iterations.
            let time = movetime.saturating_sub(overhead).max(Duration::from_millis(1));
            return TimeBudget { start, soft: None, hard: Some(time) };
        }
        let (clock, increment) = match us {
            Color::White => (limits.wtime, limits.winc),
            Color::Black => (limits.btime, limits.binc),
        };
        let Some(clock) = clock else {
            return TimeBudget { start, soft: None, hard: None };
        };
        let moves = limits.movestogo.map_or(SUDDEN_DEATH_MOVES, |n| n.clamp(1, SUDDEN_DEATH_MOVES));
        // What may be spent at all: the clock less the overhead of this and some later moves,
        // so that a long series of fast moves cannot run the clock to zero.
        let reserve = overhead * 2 + Duration::from_millis(5).min(clock / 10);
        let usable = clock.saturating_sub(reserve);
        let soft = usable / moves + increment * 3 / 4;
        let hard_cap = if moves == 1 { usable * 9 / 10 } else { usable / 2 };
        let soft = soft.min(hard_cap).max(Duration::from_millis(1));
        let hard = (soft * 4).min(hard_cap).max(soft);
        TimeBudget { start, soft: Some(soft), hard: Some(hard) }
    }

    /// Time since the search started.
    #[must_use]
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(limits: SearchLimits) -> TimeBudget {
        TimeBudget::new(&limits, Color::White, Duration::from_millis(10), Instant::now())
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
}
