//! Retry, rate-limit and reconnect policy: pure bookkeeping over `tokio::time::Instant`, so tests
//! can drive it with paused time.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

use crate::endpoint::Endpoint;

/// How 5xx answers and network errors are retried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (0: never retry).
    pub max_retries: u32,
    /// The backoff before the first retry; it doubles on each further retry.
    pub initial_backoff: Duration,
    /// The backoff never grows past this.
    pub max_backoff: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 4,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(10),
        }
    }
}

impl RetryPolicy {
    /// The jittered delay before retry number `retry` (0-based): uniformly random in the upper
    /// half of the exponential step, so clients that failed together do not retry together, and
    /// never less than half of the step, so a retry never hammers a struggling server.
    pub fn backoff(&self, retry: u32) -> Duration {
        let step = self.initial_backoff.saturating_mul(1u32.checked_shl(retry.min(31)).unwrap_or(u32::MAX));
        let step = step.min(self.max_backoff);
        let half = step / 2;
        let nanos = u64::try_from(half.as_nanos()).unwrap_or(u64::MAX);
        half + Duration::from_nanos(fastrand::u64(0..=nanos))
    }
}

/// A backoff sequence for a caller's own reconnect loop (the event stream, a game stream).
#[derive(Debug, Clone)]
pub struct Backoff {
    policy: RetryPolicy,
    failures: u32,
}

impl Backoff {
    /// A fresh sequence following `policy` (its `max_retries` is ignored: reconnects never stop).
    pub fn new(policy: RetryPolicy) -> Self {
        Backoff { policy, failures: 0 }
    }

    /// The delay before the next attempt; each call grows it until `max_backoff`.
    pub fn next_delay(&mut self) -> Duration {
        let delay = self.policy.backoff(self.failures);
        self.failures = self.failures.saturating_add(1);
        delay
    }

    /// Starts over after a success (a stream that delivered data).
    pub fn reset(&mut self) {
        self.failures = 0;
    }
}

/// Endpoints held after a 429: a request to a held endpoint fails at once, without a request,
/// until the hold expires, because Lichess asks clients to wait rather than retry.
#[derive(Debug, Default)]
pub(crate) struct Holds {
    until: Mutex<HashMap<Endpoint, Instant>>,
}

impl Holds {
    /// How much longer `endpoint` is held, if it is.
    pub(crate) fn remaining(&self, endpoint: Endpoint) -> Option<Duration> {
        let now = Instant::now();
        let mut until = self.until.lock().unwrap_or_else(|e| e.into_inner());
        match until.get(&endpoint) {
            Some(&end) if end > now => Some(end - now),
            Some(_) => {
                until.remove(&endpoint);
                None
            }
            None => None,
        }
    }

    /// Holds `endpoint` for `duration` from now (a longer existing hold is kept).
    pub(crate) fn hold(&self, endpoint: Endpoint, duration: Duration) {
        let end = Instant::now() + duration;
        let mut until = self.until.lock().unwrap_or_else(|e| e.into_inner());
        let slot = until.entry(endpoint).or_insert(end);
        *slot = (*slot).max(end);
    }
}

/// How long a 429 holds its endpoint: the `Retry-After` header in seconds, else the
/// `ratelimit.seconds` of a Lichess JSON body (the daily bot-game limit), else `default`.
pub(crate) fn rate_limit_hold(retry_after: Option<&str>, body: &str, default: Duration) -> Duration {
    if let Some(secs) = retry_after.and_then(|v| v.trim().parse::<u64>().ok()) {
        return Duration::from_secs(secs);
    }
    // An HTTP-date Retry-After is rare enough here that the default is a fine answer for it.
    serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v.get("ratelimit")?.get("seconds")?.as_u64())
        .map_or(default, Duration::from_secs)
}

/// Keeps event-stream opens under Lichess's limit (30 per 10 minutes per token): the bot's
/// reconnect loop can spin on a flapping network, and the 429 that follows blocks it longer.
#[derive(Debug, Clone)]
pub struct ReconnectLimiter {
    max: usize,
    window: Duration,
    opens: VecDeque<Instant>,
}

impl ReconnectLimiter {
    /// At most `max` opens in any sliding `window` (`max` of 0 is treated as 1).
    pub fn new(max: usize, window: Duration) -> Self {
        ReconnectLimiter { max: max.max(1), window, opens: VecDeque::new() }
    }

    /// How long from `now` until another open is allowed (zero if allowed now).
    pub fn delay_at(&mut self, now: Instant) -> Duration {
        while self.opens.front().is_some_and(|&t| now.saturating_duration_since(t) >= self.window) {
            self.opens.pop_front();
        }
        if self.opens.len() < self.max {
            return Duration::ZERO;
        }
        // The oldest open leaves the window first.
        let oldest = self.opens[self.opens.len() - self.max];
        (oldest + self.window).saturating_duration_since(now)
    }

    /// Records an open at `now`.
    pub fn record(&mut self, now: Instant) {
        self.opens.push_back(now);
    }

    /// Waits until an open is allowed, then records it.
    pub async fn acquire(&mut self) {
        loop {
            let delay = self.delay_at(Instant::now());
            if delay.is_zero() {
                break;
            }
            tracing::info!(delay_ms = delay.as_millis() as u64, "reconnect limit reached; waiting");
            tokio::time::sleep(delay).await;
        }
        self.record(Instant::now());
    }
}

impl Default for ReconnectLimiter {
    /// 25 opens per 10 minutes: a margin under Lichess's 30 for opens this process cannot see
    /// (a restart, another tool with the same token).
    fn default() -> Self {
        ReconnectLimiter::new(25, Duration::from_secs(600))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_with_jitter_and_caps() {
        let p = RetryPolicy {
            max_retries: 9,
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(1),
        };
        for _ in 0..200 {
            let d0 = p.backoff(0);
            assert!(d0 >= Duration::from_millis(50) && d0 <= Duration::from_millis(100), "{d0:?}");
            let d2 = p.backoff(2);
            assert!(d2 >= Duration::from_millis(200) && d2 <= Duration::from_millis(400), "{d2:?}");
            let big = p.backoff(40);
            assert!(big >= Duration::from_millis(500) && big <= Duration::from_secs(1), "{big:?}");
        }
        // Not all the same: jitter is there.
        let samples: std::collections::HashSet<_> = (0..50).map(|_| p.backoff(3)).collect();
        assert!(samples.len() > 1);
        let mut b = Backoff::new(p);
        let first = b.next_delay();
        let _ = b.next_delay();
        b.reset();
        assert!(b.next_delay() <= Duration::from_millis(100) && first <= Duration::from_millis(100));
    }

    #[test]
    fn hold_duration_from_header_body_or_default() {
        let d = Duration::from_secs(60);
        assert_eq!(rate_limit_hold(Some("7"), "<html>", d), Duration::from_secs(7));
        assert_eq!(rate_limit_hold(Some("Wed, 21 Oct 2015 07:28:00 GMT"), "<html>", d), d);
        assert_eq!(rate_limit_hold(None, "<!DOCTYPE html><title>too many requests</title>", d), d);
        let daily = r#"{"error":"You played 100 games against other bots today","ratelimit":{"key":"bot.vsBot.day","seconds":86398}}"#;
        assert_eq!(rate_limit_hold(None, daily, d), Duration::from_secs(86398));
    }

    #[tokio::test(start_paused = true)]
    async fn holds_expire() {
        let holds = Holds::default();
        holds.hold(Endpoint::Move, Duration::from_secs(60));
        assert_eq!(holds.remaining(Endpoint::Move), Some(Duration::from_secs(60)));
        assert_eq!(holds.remaining(Endpoint::Chat), None);
        holds.hold(Endpoint::Move, Duration::from_secs(1)); // shorter: the longer hold stays
        tokio::time::advance(Duration::from_secs(59)).await;
        assert_eq!(holds.remaining(Endpoint::Move), Some(Duration::from_secs(1)));
        tokio::time::advance(Duration::from_secs(1)).await;
        assert_eq!(holds.remaining(Endpoint::Move), None);
    }

    #[tokio::test(start_paused = true)]
    async fn reconnect_limiter_stays_under_30_per_10_minutes() {
        let mut limiter = ReconnectLimiter::default();
        let start = Instant::now();
        // A reconnect loop with no delay of its own: 100 opens.
        let mut opens = Vec::new();
        for _ in 0..100 {
            limiter.acquire().await;
            opens.push(Instant::now() - start);
        }
        // Any 10-minute window holds at most 25 of them.
        for (i, &t) in opens.iter().enumerate() {
            let in_window = opens[i..].iter().take_while(|&&u| u - t < Duration::from_secs(600)).count();
            assert!(in_window <= 25, "{in_window} opens in the window starting at {t:?}");
        }
        // The first 25 are immediate, the 26th waits for the window.
        assert_eq!(opens[24], Duration::ZERO);
        assert_eq!(opens[25], Duration::from_secs(600));
    }
}
