//! Time in the simulation: instants that cannot overflow, the epoch clock, lila's "no clock".

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// A clock value for "no clock": lila's `Int.MaxValue`.
pub(crate) const UNLIMITED_MS: i64 = 2_147_483_647;

/// `t + d`, with `d` capped at a year so that huge durations cannot overflow an `Instant`.
pub(crate) fn after(t: Instant, d: Duration) -> Instant {
    t + d.min(Duration::from_secs(365 * 86_400))
}

/// Milliseconds since the Unix epoch.
pub(crate) fn epoch_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}
