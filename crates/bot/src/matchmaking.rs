//! Challenging online bots when idle: whom, in what, and when to hold back.
//!
//! The choices are pure ([`Matchmaker::due`], [`Matchmaker::pick`]); the bot loop does the
//! HTTP and reports back what happened (declined, accepted, expired, rate-limited), which
//! sets the back-offs: a decliner is left alone for `decline_backoff_s`, and the daily
//! bot-game limit (HTTP 429 with `bot.vsBot.day`) pauses matchmaking for as long as the server
//! says.
//!
//! Each challenge uses one set of time controls (clocks and correspondence days), variants and
//! mode: the `[matchmaking]` keys, or one of the named `overrides`, drawn at random or in turn.
//! While a challenge is out it holds a slot of `concurrency` (the loop counts
//! [`Matchmaker::pending`] in the load), so an incoming challenge cannot take the slot its game
//! will need.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use ferz_lichess::models::User;
use ferz_lichess::{ChallengeRequest, ChallengeTime};

use crate::config::{MatchMode, MatchmakingConfig, OverrideOrder, Speed, TimeControl, Variant};
use crate::ratings::{Ratings, perf_key};

/// A challenge we sent and wait on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Pending {
    /// Challenge id.
    pub id: String,
    /// The bot challenged (lower-case id).
    pub opponent: String,
    /// When it was sent.
    pub sent: Instant,
}

/// What to challenge next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    /// The bot to challenge (its user name).
    pub opponent: String,
    /// The challenge.
    pub request: ChallengeRequest,
    /// The set it came from: `default` (the `[matchmaking]` keys) or an override's name.
    pub set: String,
}

/// The random draws of one [`Matchmaker::pick`], each in `0..1`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Dice {
    /// The set, when `override_order = "random"`.
    pub set: f64,
    /// The clock or days.
    pub time: f64,
    /// The variant.
    pub variant: f64,
    /// Rated or casual, for `mode = "random"`.
    pub mode: f64,
    /// The opponent.
    pub opponent: f64,
}

impl Dice {
    /// Fresh draws.
    #[must_use]
    pub(crate) fn roll() -> Dice {
        Dice {
            set: fastrand::f64(),
            time: fastrand::f64(),
            variant: fastrand::f64(),
            mode: fastrand::f64(),
            opponent: fastrand::f64(),
        }
    }
}

/// How a challenge is timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Timing {
    /// A real-time clock.
    Clock(TimeControl),
    /// Correspondence, days per move.
    Days(u32),
}

/// One set of challenges: what a challenge may be.
#[derive(Clone, Debug, PartialEq, Eq)]
struct ChallengeSet {
    name: String,
    timings: Vec<Timing>,
    variants: Vec<Variant>,
    mode: MatchMode,
}

impl ChallengeSet {
    /// The `[matchmaking]` keys (named `default`), then each override by name, its left-out
    /// keys taken from `[matchmaking]`.
    fn all(config: &MatchmakingConfig) -> Vec<ChallengeSet> {
        let timings = |clocks: &[TimeControl], days: &[u32]| {
            clocks.iter().map(|&c| Timing::Clock(c)).chain(days.iter().map(|&d| Timing::Days(d))).collect()
        };
        let base = ChallengeSet {
            name: "default".to_owned(),
            timings: timings(&config.time_controls, &config.days),
            variants: config.variants.clone(),
            mode: config.mode,
        };
        let overrides = config.overrides.iter().map(|(name, o)| ChallengeSet {
            name: name.clone(),
            // Clocks and days go together: an override that sets either replaces both.
            timings: if o.time_controls.is_some() || o.days.is_some() {
                timings(o.time_controls.as_deref().unwrap_or_default(), o.days.as_deref().unwrap_or_default())
            } else {
                base.timings.clone()
            },
            variants: o.variants.clone().unwrap_or_else(|| base.variants.clone()),
            mode: o.mode.unwrap_or(base.mode),
        });
        let mut sets = vec![base.clone()];
        sets.extend(overrides);
        sets
    }
}

/// Matchmaking state.
#[derive(Clone, Debug)]
pub(crate) struct Matchmaker {
    config: MatchmakingConfig,
    /// The sets of challenges: `[matchmaking]`, then the overrides.
    sets: Vec<ChallengeSet>,
    /// The next set, with `override_order = "sequential"`.
    next_set: usize,
    /// Our id, never challenged.
    me: String,
    /// The challenge out, if any.
    pub pending: Option<Pending>,
    last_sent: Option<Instant>,
    left_alone: HashMap<String, Instant>,
    paused_until: Option<Instant>,
}

impl Matchmaker {
    /// A matchmaker for account `me`.
    #[must_use]
    pub(crate) fn new(config: MatchmakingConfig, me: &str) -> Matchmaker {
        Matchmaker {
            sets: ChallengeSet::all(&config),
            config,
            next_set: 0,
            me: me.to_lowercase(),
            pending: None,
            last_sent: None,
            left_alone: HashMap::new(),
            paused_until: None,
        }
    }

    /// Whether to challenge now: enabled, no challenge out, idle for `idle_s`, at least
    /// `min_interval_s` since the last one, and not paused.
    #[must_use]
    pub(crate) fn due(&self, now: Instant, idle_since: Instant, busy: bool) -> bool {
        self.config.enabled
            && !busy
            && self.pending.is_none()
            && now.duration_since(idle_since) >= Duration::from_secs(self.config.idle_s)
            && self.last_sent.is_none_or(|t| now.duration_since(t) >= Duration::from_secs(self.config.min_interval_s))
            && self.paused_until.is_none_or(|t| now >= t)
    }

    /// Chooses a set, then a challenge from it and an opponent among `bots`
    /// (`/api/bot/online`) whose rating in the challenge's perf fits, compared with `mine`
    /// (our ratings now). With `override_order = "sequential"` every call moves to the next set,
    /// whether or not a bot fits.
    pub(crate) fn pick(&mut self, bots: &[User], now: Instant, mine: &Ratings, dice: Dice) -> Option<Plan> {
        let choose = |n: usize, p: f64| ((p.clamp(0.0, 0.999_999)) * n as f64) as usize;
        let set_index = match self.config.override_order {
            OverrideOrder::Random => choose(self.sets.len(), dice.set),
            OverrideOrder::Sequential => {
                let i = self.next_set % self.sets.len().max(1);
                self.next_set = i + 1;
                i
            }
        };
        let set = self.sets.get(set_index)?;
        let timing = *set.timings.get(choose(set.timings.len(), dice.time))?;
        let variant = *set.variants.get(choose(set.variants.len(), dice.variant))?;
        let speed = match timing {
            Timing::Clock(c) => Speed::of_clock(i64::from(c.initial_s), i64::from(c.increment_s)).as_str(),
            Timing::Days(_) => "correspondence",
        };
        let perf = perf_key(variant.key(), speed);
        let mine = mine.get(perf);
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
        let opponent = candidates.get(choose(candidates.len(), dice.opponent))?;
        let mut request = ChallengeRequest::clock(0, 0);
        request.time = match timing {
            Timing::Clock(c) => ChallengeTime::Clock { limit_secs: c.initial_s, increment_secs: c.increment_s },
            Timing::Days(days) => ChallengeTime::Correspondence { days },
        };
        request.rated = set.mode.rated(dice.mode);
        request.variant = variant.key().to_owned();
        Some(Plan { opponent: opponent.username.clone(), request, set: set.name.clone() })
    }

    /// We sent challenge `id` to `opponent`.
    pub(crate) fn sent(&mut self, id: &str, opponent: &str, now: Instant) {
        self.pending = Some(Pending { id: id.to_owned(), opponent: opponent.to_lowercase(), sent: now });
        self.last_sent = Some(now);
    }

    /// Sending failed (not a limit): try again after the usual interval.
    pub(crate) fn failed(&mut self, now: Instant) {
        self.last_sent = Some(now);
    }

    /// The server's daily or rate limit: no challenges for `wait`.
    pub(crate) fn pause(&mut self, now: Instant, wait: Duration) {
        self.paused_until = Some(now + wait);
        self.last_sent = Some(now);
    }

    /// Leave `opponent` alone for `wait` (it declined, or it hit its own daily limit).
    pub(crate) fn leave_alone(&mut self, opponent: &str, now: Instant, wait: Duration) {
        self.left_alone.insert(opponent.to_lowercase(), now + wait);
    }

    /// Challenge `id` was declined: leave its bot alone for a while.
    pub(crate) fn declined(&mut self, id: &str, now: Instant) {
        if let Some(p) = self.pending.take_if(|p| p.id == id) {
            let wait = Duration::from_secs(self.config.decline_backoff_s);
            self.leave_alone(&p.opponent, now, wait);
        }
    }

    /// Game `id` started: if it was our challenge, it is no longer pending.
    pub(crate) fn started(&mut self, id: &str) {
        self.pending.take_if(|p| p.id == id);
    }

    /// The pending challenge, if it has waited longer than `challenge_timeout_s` (to cancel);
    /// it counts as declined.
    pub(crate) fn expired(&mut self, now: Instant) -> Option<Pending> {
        let timeout = Duration::from_secs(self.config.challenge_timeout_s);
        let expired = self.pending.take_if(|p| now.duration_since(p.sent) >= timeout)?;
        self.leave_alone(&expired.opponent, now, Duration::from_secs(self.config.decline_backoff_s));
        Some(expired)
    }

    /// Stop: forget the pending challenge (the caller cancels it).
    pub(crate) fn stop(&mut self) -> Option<Pending> {
        self.config.enabled = false;
        self.pending.take()
    }
}

/// The wait a challenge-creation error asks for: lila's `ratelimit.seconds` (the daily bot-game
/// limit), else `Retry-After`.
#[must_use]
pub(crate) fn limit_wait(error: &ferz_lichess::Error) -> Option<Duration> {
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
    use crate::config::{MatchOverride, TimeControl};
    use serde_json::json;

    fn bots() -> Vec<User> {
        let bot = |id: &str, blitz: i64| {
            serde_json::from_value(json!({"id": id, "username": id.to_uppercase(), "title": "BOT",
                "perfs": {"blitz": {"rating": blitz, "games": 10}, "chess960": {"rating": 1500, "games": 3},
                    "correspondence": {"rating": blitz - 400, "games": 4}}}))
            .unwrap()
        };
        vec![bot("me", 2000), bot("near", 2100), bot("far", 2600), bot("low", 900)]
    }

    fn blitz(rating: i64) -> Ratings {
        Ratings::from_pairs([("blitz", rating), ("correspondence", rating - 400)])
    }

    fn config() -> MatchmakingConfig {
        MatchmakingConfig {
            enabled: true,
            time_controls: vec![TimeControl { initial_s: 180, increment_s: 2 }],
            ..MatchmakingConfig::default()
        }
    }

    fn matchmaker() -> Matchmaker {
        Matchmaker::new(config(), "me")
    }

    fn dice(opponent: f64) -> Dice {
        Dice { opponent, ..Dice::default() }
    }

    #[test]
    fn picks_a_bot_near_our_rating_and_never_ourselves() {
        let mut mm = matchmaker();
        let now = Instant::now();
        for p in [0.0, 0.5, 0.99] {
            let plan = mm.pick(&bots(), now, &blitz(2000), dice(p)).unwrap();
            assert_eq!(plan.opponent, "NEAR");
            assert_eq!(plan.request.time, ChallengeTime::Clock { limit_secs: 180, increment_secs: 2 });
            assert_eq!(
                (plan.request.variant.as_str(), plan.request.rated, plan.set.as_str()),
                ("standard", false, "default")
            );
        }
    }

    #[test]
    fn our_refreshed_rating_moves_the_window() {
        let mut mm = matchmaker();
        let now = Instant::now();
        assert_eq!(mm.pick(&bots(), now, &blitz(2000), dice(0.0)).unwrap().opponent, "NEAR");
        // We climbed to 2500: the 2600 bot is near now, the 2100 one too far.
        assert_eq!(mm.pick(&bots(), now, &blitz(2500), dice(0.0)).unwrap().opponent, "FAR");
    }

    #[test]
    fn modes_rated_casual_and_random() {
        let now = Instant::now();
        for (mode, coin, rated) in [
            (MatchMode::Rated, 0.9, true),
            (MatchMode::Casual, 0.1, false),
            (MatchMode::Random, 0.1, true),
            (MatchMode::Random, 0.9, false),
        ] {
            let mut mm = Matchmaker::new(MatchmakingConfig { mode, ..config() }, "me");
            let plan = mm.pick(&bots(), now, &blitz(2000), Dice { mode: coin, ..Dice::default() }).unwrap();
            assert_eq!(plan.request.rated, rated, "{mode} {coin}");
        }
    }

    #[test]
    fn correspondence_challenges_use_days_and_that_rating() {
        let config = MatchmakingConfig { time_controls: Vec::new(), days: vec![3], ..config() };
        let mut mm = Matchmaker::new(config, "me");
        // Correspondence ratings are 400 below blitz here: near is 1700, we are 1600.
        let plan = mm.pick(&bots(), Instant::now(), &blitz(2000), dice(0.0)).unwrap();
        assert_eq!((plan.opponent.as_str(), plan.request.time), ("NEAR", ChallengeTime::Correspondence { days: 3 }));
    }

    fn with_overrides(order: OverrideOrder) -> Matchmaker {
        let bullet = MatchOverride {
            time_controls: Some(vec![TimeControl { initial_s: 60, increment_s: 1 }]),
            mode: Some(MatchMode::Rated),
            ..MatchOverride::default()
        };
        let corr960 =
            MatchOverride { days: Some(vec![2]), variants: Some(vec![Variant::Chess960]), ..MatchOverride::default() };
        let config = MatchmakingConfig {
            overrides: [("bullet".to_owned(), bullet), ("corr960".to_owned(), corr960)].into(),
            override_order: order,
            ..config()
        };
        Matchmaker::new(config, "me")
    }

    fn ratings_everywhere() -> Ratings {
        Ratings::from_pairs([("blitz", 2000), ("bullet", 2000), ("chess960", 1500), ("correspondence", 1600)])
    }

    fn everyone() -> Vec<User> {
        let bot = serde_json::from_value(json!({"id": "all", "username": "All", "title": "BOT",
            "perfs": {"blitz": {"rating": 2000}, "bullet": {"rating": 2000}, "chess960": {"rating": 1500}}}))
        .unwrap();
        vec![bot]
    }

    #[test]
    fn overrides_in_turn() {
        let mut mm = with_overrides(OverrideOrder::Sequential);
        let now = Instant::now();
        let mut seen = Vec::new();
        for _ in 0..4 {
            let plan = mm.pick(&everyone(), now, &ratings_everywhere(), Dice::default()).unwrap();
            seen.push((plan.set, plan.request.time, plan.request.variant, plan.request.rated));
        }
        let clock = |l, i| ChallengeTime::Clock { limit_secs: l, increment_secs: i };
        assert_eq!(
            seen,
            [
                ("default".to_owned(), clock(180, 2), "standard".to_owned(), false),
                ("bullet".to_owned(), clock(60, 1), "standard".to_owned(), true),
                ("corr960".to_owned(), ChallengeTime::Correspondence { days: 2 }, "chess960".to_owned(), false),
                ("default".to_owned(), clock(180, 2), "standard".to_owned(), false),
            ]
        );
        // A set with no fitting bot still passes its turn.
        assert!(mm.pick(&[], now, &ratings_everywhere(), Dice::default()).is_none());
        assert_eq!(mm.pick(&everyone(), now, &ratings_everywhere(), Dice::default()).unwrap().set, "corr960");
    }

    #[test]
    fn overrides_at_random() {
        let mut mm = with_overrides(OverrideOrder::Random);
        let now = Instant::now();
        let set = |mm: &mut Matchmaker, p| {
            mm.pick(&everyone(), now, &ratings_everywhere(), Dice { set: p, ..Dice::default() }).unwrap().set
        };
        assert_eq!(set(&mut mm, 0.1), "default");
        assert_eq!(set(&mut mm, 0.5), "bullet");
        assert_eq!(set(&mut mm, 0.9), "corr960");
        assert_eq!(set(&mut mm, 0.9), "corr960", "random order does not advance");
    }

    #[test]
    fn timing_declines_expiry_and_pauses() {
        let mut mm = matchmaker();
        let start = Instant::now();
        let later = start + Duration::from_secs(61);
        let mine = blitz(2000);
        assert!(!mm.due(start, start, false), "not idle long enough");
        assert!(mm.due(later, start, false));
        assert!(!mm.due(later, start, true), "busy");
        mm.sent("c1", "NEAR", later);
        assert!(!mm.due(later + Duration::from_secs(100), start, false), "one challenge at a time");
        mm.declined("c1", later);
        assert!(mm.pick(&bots(), later, &mine, dice(0.0)).is_none(), "the decliner is left alone");
        assert!(mm.pick(&bots(), later + Duration::from_secs(3601), &mine, dice(0.0)).is_some());
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
