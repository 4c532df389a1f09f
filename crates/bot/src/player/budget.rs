//! The time arithmetic of a search: the `go` an external engine gets, how long it may take
//! before it counts as stalled, what the clock holds at a given moment, and the short searches
//! that replace a failed one. Pure functions of the limits and the clock.

use std::time::{Duration, Instant};

use ferz_chess::{Color, Position};
use ferz_engine::{SearchLimits, TimeBudget};
use ferz_uci::Go;

/// The shortest move time sent to an external engine.
const MIN_MOVETIME: Duration = Duration::from_millis(10);
/// An emergency search never takes longer than this.
const EMERGENCY_CAP: Duration = Duration::from_secs(1);
/// Below this much time for a restart it is not tried: the move comes from the in-process
/// engine at once.
const MIN_RESTART: Duration = Duration::from_millis(100);
/// The longest wait for `bestmove` after `stop`.
const STOP_GRACE: Duration = Duration::from_millis(500);

/// Our clock during one search: its value when it (re)starts, and since when it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OurClock {
    /// Our time when the clock started (`None`: no clock, correspondence or unlimited).
    pub left: Option<Duration>,
    /// When it started: the state's arrival, or the ponder hit (`None`: pondering, our clock
    /// does not run yet).
    pub since: Option<Instant>,
}

impl OurClock {
    /// Our time left at `now` (`None`: no clock).
    #[must_use]
    pub(crate) fn remaining(&self, now: Instant) -> Option<Duration> {
        let left = self.left?;
        Some(match self.since {
            Some(since) => left.saturating_sub(now.saturating_duration_since(since)),
            None => left,
        })
    }
}

/// The `go` for an external engine: the bot's limits, with `overhead` (network lag) taken off
/// our own time, as the in-process engine does.
#[must_use]
pub(super) fn go_for(limits: &SearchLimits, us: Color, overhead: Duration) -> Go {
    if let Some(nodes) = limits.nodes {
        return Go::Nodes(nodes);
    }
    if let Some(depth) = limits.depth {
        return Go::Depth(depth);
    }
    if let Some(movetime) = limits.movetime {
        return Go::MoveTime(movetime.saturating_sub(overhead).max(MIN_MOVETIME));
    }
    let ours = |time: Option<Duration>| time.unwrap_or_default().saturating_sub(overhead).max(MIN_MOVETIME);
    let theirs = |time: Option<Duration>| time.unwrap_or_default();
    let (wtime, btime) = match us {
        Color::White => (ours(limits.wtime), theirs(limits.btime)),
        Color::Black => (theirs(limits.wtime), ours(limits.btime)),
    };
    Go::Clock { wtime, btime, winc: limits.winc, binc: limits.binc }
}

/// How long, once the clock runs, a search may go without `bestmove` before the engine is
/// stopped.
///
/// Searching on the clock (`go wtime btime …`), the engine plans its own time, so it is cut
/// only at the danger line: when what is left would fall below [`danger_reserve`], the time
/// a `stop`, its grace and a replacement move need. Otherwise (a move time; node and depth
/// limits, from the start) it is the time the move should take plus `stall`, never more than
/// half the time left, so that a replacement move still fits.
#[must_use]
pub(super) fn allowance(
    limits: &SearchLimits,
    root: &Position,
    overhead: Duration,
    stall: Duration,
    remaining: Option<Duration>,
) -> Duration {
    let on_clock = limits.nodes.is_none() && limits.depth.is_none() && limits.movetime.is_none();
    if on_clock && let Some(left) = remaining {
        return left.saturating_sub(danger_reserve(left, overhead)).max(MIN_MOVETIME);
    }
    let expected = if limits.nodes.is_some() || limits.depth.is_some() {
        Duration::ZERO
    } else if let Some(movetime) = limits.movetime {
        movetime
    } else {
        let untimed = SearchLimits { ponder: false, ..limits.clone() };
        TimeBudget::new(&untimed, root, overhead, Instant::now()).hard.unwrap_or_default()
    };
    let allowance = expected + stall;
    match remaining {
        Some(left) => allowance.min(left / 2).max(MIN_MOVETIME),
        None => allowance,
    }
}

/// The part of `left` an engine searching on the clock must never eat into: half of it (no
/// sane time management spends more on one move; a hung engine still leaves a clock to play
/// on), and at least what `stop`, its grace and a replacement move take (overhead, the stop
/// grace and the emergency search's cap).
#[must_use]
pub(super) fn danger_reserve(left: Duration, overhead: Duration) -> Duration {
    (left / 2).max(overhead + STOP_GRACE + EMERGENCY_CAP)
}

/// How long to wait for `bestmove` after `stop`, with `remaining` on our clock.
#[must_use]
pub(super) fn stop_grace(remaining: Option<Duration>) -> Duration {
    remaining.map_or(STOP_GRACE, |left| (left / 4).min(STOP_GRACE))
}

/// How long a restart (handshake, options, `isready`) may take with `remaining` on our clock
/// and the settings' `handshake` timeout; `None` when there is no time for one.
#[must_use]
pub(super) fn restart_budget(remaining: Option<Duration>, handshake: Duration) -> Option<Duration> {
    match remaining {
        None => Some(handshake),
        Some(left) => Some((left / 3).min(handshake)).filter(|&budget| budget >= MIN_RESTART),
    }
}

/// The limits of a search that continues after a restart: the same limits, with our clock (or
/// the move time) cut to what is left.
#[must_use]
pub(super) fn resumed(limits: &SearchLimits, us: Color, clock: &OurClock, now: Instant) -> SearchLimits {
    let mut limits = SearchLimits { ponder: false, ..limits.clone() };
    let Some(left) = clock.remaining(now) else { return limits };
    if limits.movetime.is_some() {
        let spent = clock.since.map_or(Duration::ZERO, |since| now.saturating_duration_since(since));
        limits.movetime = limits.movetime.map(|t| t.saturating_sub(spent).min(left).max(MIN_MOVETIME));
    } else if limits.nodes.is_none() && limits.depth.is_none() {
        match us {
            Color::White => limits.wtime = Some(left),
            Color::Black => limits.btime = Some(left),
        }
    }
    limits
}

/// A short in-process search that replaces one that failed, with `remaining` on our clock:
/// a twentieth of it, at most a second, on top of the overhead the engine keeps back.
#[must_use]
pub(super) fn emergency(remaining: Option<Duration>, overhead: Duration) -> SearchLimits {
    let usable = remaining.map_or(EMERGENCY_CAP * 20, |left| left.saturating_sub(overhead));
    SearchLimits::movetime(overhead + (usable / 20).clamp(MIN_MOVETIME, EMERGENCY_CAP))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    fn white_to_move() -> Position {
        Position::new(ferz_chess::Variant::Chess)
    }

    fn clock(wtime: u32, btime: u32, inc: u32) -> SearchLimits {
        SearchLimits {
            wtime: Some(wtime * MS),
            btime: Some(btime * MS),
            winc: inc * MS,
            binc: inc * MS,
            ..SearchLimits::default()
        }
    }

    #[test]
    fn go_commands_keep_the_overhead_back_from_our_time_only() {
        let go = go_for(&clock(60_000, 50_000, 1000), Color::Black, 300 * MS);
        assert_eq!(go.to_string(), "go wtime 60000 btime 49700 winc 1000 binc 1000");
        let go = go_for(&clock(200, 50_000, 0), Color::White, 300 * MS);
        assert_eq!(go.to_string(), "go wtime 10 btime 50000 winc 0 binc 0", "never zero");
        assert_eq!(go_for(&SearchLimits::nodes(1500), Color::White, 300 * MS), Go::Nodes(1500));
        assert_eq!(go_for(&SearchLimits::depth(9), Color::White, 300 * MS), Go::Depth(9));
        let movetime = go_for(&SearchLimits::movetime(3000 * MS), Color::White, 300 * MS);
        assert_eq!(movetime, Go::MoveTime(2700 * MS));
    }

    #[test]
    fn on_the_clock_the_engine_is_cut_only_at_the_danger_line() {
        let stall = 2000 * MS;
        // 1+1 with 35 s left: ferz's own hard limit plus 2 s (about 10 s) used to cut a healthy
        // engine; now it may use up to half its clock.
        let bullet = allowance(&clock(35_000, 35_000, 1000), &white_to_move(), 300 * MS, stall, Some(35_000 * MS));
        assert_eq!(bullet, 17_500 * MS);
        let own_hard = TimeBudget::new(&clock(35_000, 35_000, 1000), &white_to_move(), 300 * MS, Instant::now()).hard;
        assert!(bullet > own_hard.unwrap() + stall, "{bullet:?}");
        // Blitz, 180 s: cut at 90 s.
        let blitz = allowance(&clock(180_000, 180_000, 2000), &white_to_move(), 300 * MS, stall, Some(180_000 * MS));
        assert_eq!(blitz, 90_000 * MS);
        // 3 s left: the reserve's floor (overhead + stop grace + emergency search) holds 1.8 s.
        let low = allowance(&clock(3000, 60_000, 0), &white_to_move(), 300 * MS, stall, Some(3000 * MS));
        assert_eq!(low, 1200 * MS);
        // Nearly flagged: the shortest move time, never nothing.
        assert_eq!(allowance(&clock(500, 60_000, 0), &white_to_move(), 300 * MS, stall, Some(500 * MS)), 10 * MS);
        // Node limits: the stall margin alone; a move time: that time plus the margin.
        assert_eq!(allowance(&SearchLimits::nodes(9), &white_to_move(), MS, stall, Some(60_000 * MS)), stall);
        assert_eq!(allowance(&SearchLimits::movetime(500 * MS), &white_to_move(), MS, stall, None), 2500 * MS);
        // A pondering search is judged as if its clock ran (it does from the hit on).
        let ponder = SearchLimits { ponder: true, ..clock(180_000, 180_000, 2000) };
        assert_eq!(allowance(&ponder, &white_to_move(), 300 * MS, stall, Some(180_000 * MS)), blitz);
    }

    #[test]
    fn the_clock_runs_from_its_start_and_not_while_pondering() {
        let start = Instant::now();
        let running = OurClock { left: Some(5000 * MS), since: Some(start) };
        assert_eq!(running.remaining(start + 1200 * MS), Some(3800 * MS));
        assert_eq!(running.remaining(start + 9000 * MS), Some(Duration::ZERO));
        let pondering = OurClock { left: Some(5000 * MS), since: None };
        assert_eq!(pondering.remaining(start + 9000 * MS), Some(5000 * MS));
        assert_eq!(OurClock { left: None, since: Some(start) }.remaining(start), None);
    }

    #[test]
    fn restarts_and_emergency_searches_fit_in_what_is_left() {
        let handshake = 20_000 * MS;
        assert_eq!(restart_budget(Some(60_000 * MS), handshake), Some(handshake));
        assert_eq!(restart_budget(Some(3000 * MS), handshake), Some(1000 * MS));
        assert_eq!(restart_budget(Some(200 * MS), handshake), None, "no time: play from the fallback at once");
        assert_eq!(restart_budget(None, handshake), Some(handshake));
        assert_eq!(stop_grace(Some(1000 * MS)), 250 * MS);
        assert_eq!(stop_grace(None), 500 * MS);
        assert_eq!(emergency(Some(10_300 * MS), 300 * MS).movetime, Some(800 * MS));
        assert_eq!(emergency(Some(100 * MS), 300 * MS).movetime, Some(310 * MS));
        assert_eq!(emergency(None, 300 * MS).movetime, Some(1300 * MS));
        let start = Instant::now();
        let ours = OurClock { left: Some(8000 * MS), since: Some(start) };
        let resumed_clock = resumed(&clock(8000, 9000, 100), Color::White, &ours, start + 3000 * MS);
        assert_eq!((resumed_clock.wtime, resumed_clock.btime), (Some(5000 * MS), Some(9000 * MS)));
        let movetime = resumed(&SearchLimits::movetime(2000 * MS), Color::White, &ours, start + 1500 * MS);
        assert_eq!(movetime.movetime, Some(500 * MS));
        let pondered = SearchLimits { ponder: true, ..SearchLimits::nodes(7) };
        let nodes = resumed(&pondered, Color::Black, &ours, start);
        assert_eq!((nodes.nodes, nodes.ponder), (Some(7), false));
    }
}
