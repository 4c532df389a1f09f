//! How long to think: search limits from the game's clock and the settings.

use std::time::Duration;

use ferz_chess::Color;
use ferz_engine::SearchLimits;

use crate::config::{CorrespondenceConfig, EngineConfig};

/// The clock servers send for "no clock" (`Int.MaxValue`, 2147483647 ms): unlimited and
/// correspondence games.
pub(crate) const NO_CLOCK_MS: i64 = i32::MAX as i64;

/// The clocks of a `gameState`, in ms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Clocks {
    /// White's remaining time.
    pub wtime: i64,
    /// Black's remaining time.
    pub btime: i64,
    /// White's increment.
    pub winc: i64,
    /// Black's increment.
    pub binc: i64,
}

/// The limits of our next search.
///
/// - `nodes` in the settings wins (tests and benchmarks);
/// - correspondence and unlimited games (`correspondence` given): `[correspondence]`'s move
///   time ([`CorrespondenceConfig::move_time`]), whatever the days on the clock;
/// - our first move (the clock has not started, but the server aborts a game whose first move
///   is late): at most `first_move_ms`, and never more than a tenth of our time;
/// - otherwise the clock, minus what already passed since the state arrived; the engine keeps
///   `move_overhead_ms` back from it (see [`engine_options`]).
#[must_use]
pub(crate) fn search_limits(
    clocks: Clocks,
    us: Color,
    our_moves_made: usize,
    since_state: Duration,
    config: &EngineConfig,
    correspondence: Option<&CorrespondenceConfig>,
) -> SearchLimits {
    if config.nodes > 0 {
        return SearchLimits::nodes(config.nodes);
    }
    let (ours, inc) = match us {
        Color::White => (clocks.wtime, clocks.winc),
        Color::Black => (clocks.btime, clocks.binc),
    };
    let ours_now = Duration::from_millis(ours.max(0) as u64).saturating_sub(since_state);
    if let Some(correspondence) = correspondence {
        // Lichess shows a correspondence game's days left as its clock; unlimited has none.
        let left = (ours < NO_CLOCK_MS).then_some(ours_now);
        return SearchLimits::movetime(correspondence.move_time(left));
    }
    if our_moves_made == 0 {
        let cap = Duration::from_millis(config.first_move_ms).min(ours_now / 10).max(Duration::from_millis(50));
        return SearchLimits::movetime(cap);
    }
    let inc = Duration::from_millis(inc.max(0) as u64);
    let (wtime, btime, winc, binc) = match us {
        Color::White => (
            ours_now,
            Duration::from_millis(clocks.btime.max(0) as u64),
            inc,
            Duration::from_millis(clocks.binc.max(0) as u64),
        ),
        Color::Black => (
            Duration::from_millis(clocks.wtime.max(0) as u64),
            ours_now,
            Duration::from_millis(clocks.winc.max(0) as u64),
            inc,
        ),
    };
    SearchLimits { wtime: Some(wtime), btime: Some(btime), winc, binc, ..SearchLimits::default() }
}

/// The engine options for one game.
#[must_use]
pub(crate) fn engine_options(config: &EngineConfig) -> ferz_engine::EngineOptions {
    ferz_engine::EngineOptions {
        hash_mb: config.hash_mb,
        threads: config.threads,
        move_overhead: Duration::from_millis(config.move_overhead_ms),
        ..ferz_engine::EngineOptions::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLITZ: Clocks = Clocks { wtime: 180_000, btime: 170_000, winc: 2_000, binc: 2_000 };

    #[test]
    fn clock_limits_subtract_the_time_already_gone() {
        let config = EngineConfig::default();
        let limits = search_limits(BLITZ, Color::Black, 3, Duration::from_millis(500), &config, None);
        assert_eq!(limits.btime, Some(Duration::from_millis(169_500)));
        assert_eq!(limits.wtime, Some(Duration::from_millis(180_000)));
        assert_eq!((limits.winc, limits.binc), (Duration::from_secs(2), Duration::from_secs(2)));
        assert_eq!(limits.movetime, None);
    }

    #[test]
    fn first_moves_nodes_and_correspondence() {
        let config = EngineConfig { first_move_ms: 3000, ..EngineConfig::default() };
        let first = search_limits(BLITZ, Color::White, 0, Duration::ZERO, &config, None);
        assert_eq!(first.movetime, Some(Duration::from_secs(3)));
        let bullet = Clocks { wtime: 15_000, btime: 15_000, winc: 0, binc: 0 };
        let first = search_limits(bullet, Color::White, 0, Duration::ZERO, &config, None);
        assert_eq!(first.movetime, Some(Duration::from_millis(1500)));
        let fixed = EngineConfig { nodes: 500, ..EngineConfig::default() };
        assert_eq!(search_limits(BLITZ, Color::White, 5, Duration::ZERO, &fixed, None).nodes, Some(500));
        let correspondence = CorrespondenceConfig { move_time_s: 30, ..CorrespondenceConfig::default() };
        let unlimited = Clocks { wtime: NO_CLOCK_MS, btime: NO_CLOCK_MS, winc: 0, binc: 0 };
        let limits = search_limits(unlimited, Color::Black, 5, Duration::ZERO, &config, Some(&correspondence));
        assert_eq!(limits.movetime, Some(Duration::from_secs(30)));
        // Three days on the clock are not a real-time clock: still the move time.
        let days = Clocks { wtime: 259_200_000, btime: 259_200_000, winc: 0, binc: 0 };
        let limits = search_limits(days, Color::White, 5, Duration::ZERO, &config, Some(&correspondence));
        assert_eq!((limits.movetime, limits.wtime), (Some(Duration::from_secs(30)), None));
    }
}
