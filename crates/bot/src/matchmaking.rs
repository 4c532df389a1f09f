//! Challenging online bots when idle: whom, in what, and when to hold back.
//!
//! The choices are pure ([`Matchmaker::due`], [`Matchmaker::pick`]); the bot loop does the
//! HTTP and reports back what happened (declined, accepted, expired, rate-limited), which
//! sets the back-offs: a decliner is left alone for `decline_backoff_s`, and the daily
//! bot-game limit (HTTP 429 with `bot.vsBot.day`) pauses matchmaking for as long as the server
//! says.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use ferz_lichess::models::User;
use ferz_lichess::{ChallengeRequest, ChallengeTime};

use crate::config::{MatchmakingConfig, Speed, Variant};

/// A challenge we sent and wait on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pending {
    /// Challenge id.
    pub id: String,
    /// The bot challenged (lower-case id).
    pub opponent: String,
    /// When it was sent.
    pub sent: Instant,
}

/// What to challenge next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The bot to challenge (its user name).
    pub opponent: String,
    /// The challenge.
    pub request: ChallengeRequest,
}

/// Matchmaking state.
#[derive(Clone, Debug)]
pub struct Matchmaker {
    config: MatchmakingConfig,
    /// Our id, never challenged.
    me: String,
    /// Our ratings by perf.
    my_ratings: HashMap<String, i64>,
    /// The challenge out, if any.
    pub pending: Option<Pending>,
    last_sent: Option<Instant>,
    left_alone: HashMap<String, Instant>,
    paused_until: Option<Instant>,
}

impl Matchmaker {
    /// A matchmaker for account `me` with these ratings.
    #[must_use]
    pub fn new(config: MatchmakingConfig, me: &str, my_ratings: HashMap<String, i64>) -> Matchmaker {
        Matchmaker {
            config,
            me: me.to_lowercase(),
            my_ratings,
            pending: None,
            last_sent: None,
            left_alone: HashMap::new(),
            paused_until: None,
        }
    }

    /// Whether to challenge now: enabled, no challenge out, idle for `idle_s`, at least
    /// `min_interval_s` since the last one, and not paused.
    #[must_use]
    pub fn due(&self, now: Instant, idle_since: Instant, busy: bool) -> bool {
        self.config.enabled
            && !busy
            && self.pending.is_none()
            && now.duration_since(idle_since) >= Duration::from_secs(self.config.idle_s)
            && self.last_sent.is_none_or(|t| now.duration_since(t) >= Duration::from_secs(self.config.min_interval_s))
            && self.paused_until.is_none_or(|t| now >= t)
    }

    /// Chooses an opponent and a challenge among `bots` (`/api/bot/online`). `pick` in `0..1`
    /// chooses the time control and variant, `pick2` the opponent.
    #[must_use]
    pub fn pick(&self, bots: &[User], now: Instant, pick: f64, pick2: f64) -> Option<Plan> {
        let controls = &self.config.time_controls;
        let choose = |n: usize, p: f64| ((p.clamp(0.0, 0.999_999)) * n as f64) as usize;
        let clock = *controls.get(choose(controls.len(), pick))?;
        let (base, inc) = (clock.initial_s, clock.increment_s);
        let variants = &self.config.variants;
        let variant = *variants.get(choose(variants.len(), (pick * 7.0).fract()))?;
        let perf = if variant == Variant::Chess960 {
            "chess960"
        } else {
            Speed::of_clock(i64::from(base), i64::from(inc)).as_str()
        };
        let mine = self.my_ratings.get(perf).copied();
        let candidates: Vec<&User> = bots
            .iter()
            .filter(|b| b.id.to_lowercase() != self.me && b.is_bot() && b.disabled != Some(true))
            .filter(|b| {
                !self
                    .config
                    .block_list
                    .iter()
                    .any(|x| x.eq_ignore_ascii_case(&b.id) || x.eq_ignore_ascii_case(&b.username))
            })
            .filter(|b| self.left_alone.get(&b.id.to_lowercase()).is_none_or(|&until| now >= until))
            .filter(|b| {
                let Some(rating) = b.perfs.get(perf).and_then(|p| p.rating).map(|r| r as i64) else { return false };
                let in_range = (self.config.min_rating..=self.config.max_rating).contains(&rating);
                let close = self.config.max_rating_diff == 0
                    || mine.is_none_or(|m| (rating - m).abs() <= self.config.max_rating_diff);
                in_range && close
            })
            .collect();
        let opponent = candidates.get(choose(candidates.len(), pick2))?;
        let mut request = ChallengeRequest::clock(base, inc);
        request.time = ChallengeTime::Clock { limit_secs: base, increment_secs: inc };
        request.rated = self.config.rated;
        request.variant = variant.key().to_owned();
        Some(Plan { opponent: opponent.username.clone(), request })
    }

    /// We sent challenge `id` to `opponent`.
    pub fn sent(&mut self, id: &str, opponent: &str, now: Instant) {
        self.pending = Some(Pending { id: id.to_owned(), opponent: opponent.to_lowercase(), sent: now });
        self.last_sent = Some(now);
    }

    /// Sending failed (not a limit): try again after the usual interval.
    pub fn failed(&mut self, now: Instant) {
        self.last_sent = Some(now);
    }

    /// The server's daily or rate limit: no challenges for `wait`.
    pub fn pause(&mut self, now: Instant, wait: Duration) {
        self.paused_until = Some(now + wait);
        self.last_sent = Some(now);
    }

    /// Leave `opponent` alone for `wait` (it declined, or it hit its own daily limit).
    pub fn leave_alone(&mut self, opponent: &str, now: Instant, wait: Duration) {
        self.left_alone.insert(opponent.to_lowercase(), now + wait);
    }

    /// Challenge `id` was declined: leave its bot alone for a while.
    pub fn declined(&mut self, id: &str, now: Instant) {
        if let Some(p) = self.pending.take_if(|p| p.id == id) {
            let wait = Duration::from_secs(self.config.decline_backoff_s);
            self.leave_alone(&p.opponent, now, wait);
        }
    }

    /// Game `id` started: if it was our challenge, it is no longer pending.
    pub fn started(&mut self, id: &str) {
        self.pending.take_if(|p| p.id == id);
    }

    /// The pending challenge, if it has waited longer than `challenge_timeout_s` (to cancel);
    /// it counts as declined.
    pub fn expired(&mut self, now: Instant) -> Option<Pending> {
        let timeout = Duration::from_secs(self.config.challenge_timeout_s);
        let expired = self.pending.take_if(|p| now.duration_since(p.sent) >= timeout)?;
        self.leave_alone(&expired.opponent, now, Duration::from_secs(self.config.decline_backoff_s));
        Some(expired)
    }

    /// Stop: forget the pending challenge (the caller cancels it).
    pub fn stop(&mut self) -> Option<Pending> {
        self.config.enabled = false;
        self.pending.take()
    }
}

/// The wait a challenge-creation error asks for: lila's `ratelimit.seconds` (the daily bot-game
/// limit), else `Retry-After`.
#[must_use]
pub fn limit_wait(error: &ferz_lichess::Error) -> Option<Duration> {
    let from_body = error
        .body()
        .and_then(|b| serde_json::from_str::<serde_json::Value>(b).ok())
        .and_then(|v| v.pointer("/ratelimit/seconds").and_then(serde_json::Value::as_u64))
        .map(Duration::from_secs);
    from_body.or_else(|| error.retry_after())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TimeControl;
    use serde_json::json;

    fn bots() -> Vec<User> {
        let bot = |id: &str, blitz: i64| {
            serde_json::from_value(json!({"id": id, "username": id.to_uppercase(), "title": "BOT",
                "perfs": {"blitz": {"rating": blitz, "games": 10}, "chess960": {"rating": 1500, "games": 3}}}))
            .unwrap()
        };
        vec![bot("me", 2000), bot("near", 2100), bot("far", 2600), bot("low", 900)]
    }

    fn matchmaker() -> Matchmaker {
        let config = MatchmakingConfig {
            enabled: true,
            time_controls: vec![TimeControl { initial_s: 180, increment_s: 2 }],
            ..MatchmakingConfig::default()
        };
        Matchmaker::new(config, "me", HashMap::from([("blitz".to_owned(), 2000)]))
    }

    #[test]
    fn picks_a_bot_near_our_rating_and_never_ourselves() {
        let mm = matchmaker();
        let now = Instant::now();
        for p in [0.0, 0.5, 0.99] {
            let plan = mm.pick(&bots(), now, 0.0, p).unwrap();
            assert_eq!(plan.opponent, "NEAR");
            assert_eq!(plan.request.time, ChallengeTime::Clock { limit_secs: 180, increment_secs: 2 });
            assert_eq!(plan.request.variant, "standard");
        }
    }

    #[test]
    fn timing_declines_expiry_and_pauses() {
        let mut mm = matchmaker();
        let start = Instant::now();
        let later = start + Duration::from_secs(61);
        assert!(!mm.due(start, start, false), "not idle long enough");
        assert!(mm.due(later, start, false));
        assert!(!mm.due(later, start, true), "busy");
        mm.sent("c1", "NEAR", later);
        assert!(!mm.due(later + Duration::from_secs(100), start, false), "one challenge at a time");
        mm.declined("c1", later);
        assert!(mm.pick(&bots(), later, 0.0, 0.0).is_none(), "the decliner is left alone");
        assert!(mm.pick(&bots(), later + Duration::from_secs(3601), 0.0, 0.0).is_some());
        mm.sent("c2", "NEAR", later);
        assert!(mm.expired(later + Duration::from_secs(10)).is_none());
        assert_eq!(mm.expired(later + Duration::from_secs(25)).unwrap().id, "c2");
        mm.pause(later, Duration::from_secs(86_000));
        assert!(!mm.due(later + Duration::from_secs(3600), start, false));
        assert!(mm.due(later + Duration::from_secs(86_001), start, false));
        mm.stop();
        assert!(!mm.due(later + Duration::from_secs(90_000), start, false));
    }
}
