//! Which challenges to accept: a pure function of the challenge, the settings and the bot's
//! current load, so that every rule is unit-tested without a server.
//!
//! Rules run in a fixed order and the first that fails names the decline reason Lichess shows
//! the challenger: who may challenge (lists, the online block list, then bots or humans), the
//! variant, the time control (speed, base, increment, bullet without increment, days per move),
//! rated or casual, the rating (its range, then its distance to ours), and finally the load
//! (stopping, games against this opponent, recent games against bots, free slots, where bots
//! cannot take the slots reserved for humans).

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use ferz_lichess::models::{self, Compat, TimeControl};
use ferz_lichess::{Challenge, DeclineReason};

use crate::config::{ChallengeConfig, Speed, Variant};
use crate::ratings::perf_key;

/// What to do with a challenge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Accept it now.
    Accept,
    /// Every slot is busy: keep it and accept it when a game ends.
    Wait,
    /// Decline it with this reason.
    Decline(DeclineReason),
}

/// The bot's state when a challenge arrives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Load<'a> {
    /// Slots taken: games running, accepted and about to start, and our matchmaking challenge
    /// while it waits for an answer (its game will need a slot: lichess-bot issue #1163).
    pub games: usize,
    /// Challenges already waiting for a slot.
    pub waiting: usize,
    /// Games running against the challenger.
    pub games_with_challenger: usize,
    /// The bot is shutting down and takes no new games.
    pub stopping: bool,
    /// Games against bots started within `recent_bot_window_s`.
    pub recent_bot_games: usize,
    /// Our rating in the challenge's perf, if known.
    pub my_rating: Option<i64>,
    /// The names of the online block lists, lower case.
    pub blocked: &'a [String],
}

/// When our recent games against bots started, for `recent_bot_limit`.
#[derive(Clone, Debug, Default)]
pub(crate) struct RecentBotGames {
    started: VecDeque<Instant>,
}

impl RecentBotGames {
    /// A game against a bot started at `now`; starts older than `window` are forgotten.
    pub(crate) fn record(&mut self, now: Instant, window: Duration) {
        self.started.retain(|&t| now.saturating_duration_since(t) < window);
        self.started.push_back(now);
    }

    /// Games against bots started within `window` before `now`.
    #[must_use]
    pub(crate) fn count(&self, now: Instant, window: Duration) -> usize {
        self.started.iter().filter(|&&t| now.saturating_duration_since(t) < window).count()
    }
}

/// The perf that rates a challenge (`blitz`, `chess960`, `correspondence`, …): the key of our
/// rating that `rating_difference` compares with.
#[must_use]
pub(crate) fn perf_of(challenge: &Challenge) -> String {
    let speed = match (&challenge.speed, &challenge.time_control) {
        (Some(speed), _) => speed.as_str().to_owned(),
        (None, Some(TimeControl::Clock { limit: Some(limit), increment, .. })) => {
            Speed::of_clock(*limit, increment.unwrap_or(0)).as_str().to_owned()
        }
        (None, _) => "correspondence".to_owned(),
    };
    perf_key(&variant_key(challenge), &speed).to_owned()
}

/// The variant of a challenge as a Lichess key: PyChess's `chess` + `chess960: true` becomes
/// `chess960`, its `chess` alone `standard`.
#[must_use]
pub(crate) fn variant_key(challenge: &Challenge) -> String {
    let key = challenge.variant.key_or_name();
    match (key, challenge.chess960) {
        ("standard" | "chess", Some(true)) => "chess960".to_owned(),
        ("chess", _) => "standard".to_owned(),
        _ => key.to_owned(),
    }
}

/// Whether Lichess lets a bot play the challenge, by its `compat.bot` (ultraBullet games, for
/// one, are closed to bots): accepting one it will not let us play only fails later. `Err`
/// is the reason to decline with; no `compat` (PyChess, older servers) means playable.
///
/// # Errors
/// [`DeclineReason::TooFast`] for an ultraBullet challenge, else [`DeclineReason::Generic`].
pub(crate) fn check_bot_compat(challenge: &Challenge, compat: Option<&Compat>) -> Result<(), DeclineReason> {
    match compat {
        Some(compat) if !compat.bot => Err(if challenge.speed == Some(models::Speed::UltraBullet) {
            DeclineReason::TooFast
        } else {
            DeclineReason::Generic
        }),
        _ => Ok(()),
    }
}

/// Decides on a challenge addressed to us.
#[must_use]
pub(crate) fn judge(challenge: &Challenge, config: &ChallengeConfig, load: Load<'_>) -> Verdict {
    let bot = challenge.challenger.is_bot();
    // Bots may fill the slots that are not kept for humans.
    let slots = if bot { config.concurrency.saturating_sub(config.reserved_for_humans) } else { config.concurrency };
    let too_many_bot_games = bot && config.recent_bot_limit > 0 && load.recent_bot_games >= config.recent_bot_limit;
    match check_rules(challenge, config, &load) {
        Err(reason) => Verdict::Decline(reason),
        Ok(()) if load.stopping => Verdict::Decline(DeclineReason::Later),
        Ok(()) if load.games_with_challenger >= config.max_games_per_opponent => Verdict::Decline(DeclineReason::Later),
        Ok(()) if too_many_bot_games => Verdict::Decline(DeclineReason::Later),
        Ok(()) if load.games < slots => Verdict::Accept,
        Ok(()) if load.waiting < config.max_waiting => Verdict::Wait,
        Ok(()) => Verdict::Decline(DeclineReason::Later),
    }
}

/// The rules that do not depend on the bot's games; `Err` is the first that failed.
fn check_rules(challenge: &Challenge, config: &ChallengeConfig, load: &Load<'_>) -> Result<(), DeclineReason> {
    let user = &challenge.challenger;
    let id = user.user_id();
    let listed = |list: &[String]| {
        list.iter().any(|name| name.eq_ignore_ascii_case(&id) || name.eq_ignore_ascii_case(&user.name))
    };
    if listed(&config.block_list)
        || listed(load.blocked)
        || (!config.allow_list.is_empty() && !listed(&config.allow_list))
    {
        return Err(DeclineReason::Generic);
    }
    if user.is_bot() && !config.bots {
        return Err(DeclineReason::NoBot);
    }
    if !user.is_bot() && !config.humans {
        return Err(DeclineReason::OnlyBot);
    }
    let variant = Variant::from_key(&variant_key(challenge));
    if !variant.is_some_and(|v| config.variants.contains(&v)) {
        let only_standard = config.variants.iter().all(|&v| v == Variant::Standard);
        return Err(if only_standard { DeclineReason::Standard } else { DeclineReason::Variant });
    }
    check_time_control(challenge, config)?;
    if challenge.rated && !config.rated {
        return Err(DeclineReason::Casual);
    }
    if !challenge.rated && !config.casual {
        return Err(DeclineReason::Rated);
    }
    if let Some(rating) = user.rating
        && !(config.min_rating..=config.max_rating).contains(&rating)
    {
        return Err(DeclineReason::Generic);
    }
    // Without our rating in that perf (or the challenger's) there is nothing to compare.
    if let (Some(max), Some(rating), Some(mine)) = (config.rating_difference, user.rating, load.my_rating)
        && rating.abs_diff(mine) > u64::from(max)
    {
        return Err(DeclineReason::Generic);
    }
    Ok(())
}

/// `min_days` and `max_days` for a correspondence challenge with `days` per move (`None`:
/// unlimited): too few days are `tooFast`, too many (or none at all) `tooSlow`.
fn check_days(days: Option<i64>, config: &ChallengeConfig) -> Result<(), DeclineReason> {
    if !config.correspondence {
        return Err(DeclineReason::TooSlow);
    }
    match (days, config.max_days) {
        (Some(d), _) if d < i64::from(config.min_days) => Err(DeclineReason::TooFast),
        (Some(d), Some(max)) if d > i64::from(max) => Err(DeclineReason::TooSlow),
        (None, Some(_)) => Err(DeclineReason::TooSlow),
        _ => Ok(()),
    }
}

/// Speeds outside the accepted ones are `tooFast` or `tooSlow` when all accepted speeds lie on
/// one side, `timeControl` otherwise; base and increment outside their ranges are `timeControl`.
fn check_time_control(challenge: &Challenge, config: &ChallengeConfig) -> Result<(), DeclineReason> {
    let (base, increment) = match &challenge.time_control {
        Some(TimeControl::Clock { limit: Some(limit), increment: Some(increment), .. }) => (*limit, *increment),
        // A clock without its limit or increment (both optional in the specification) cannot be
        // checked against the accepted ranges.
        Some(TimeControl::Clock { .. }) => return Err(DeclineReason::TimeControl),
        Some(TimeControl::Correspondence { days_per_turn }) => return check_days(*days_per_turn, config),
        Some(TimeControl::Unlimited) | None => return check_days(None, config),
        Some(TimeControl::Other) => return Err(DeclineReason::TimeControl),
    };
    // The server's speed when it sent one (it knows its own thresholds), else our estimate.
    let speed = match &challenge.speed {
        Some(models::Speed::Correspondence) => return check_days(None, config),
        Some(speed) => Speed::from_name(speed.as_str()).unwrap_or_else(|| Speed::of_clock(base, increment)),
        None => Speed::of_clock(base, increment),
    };
    if !config.speeds.contains(&speed) {
        // Speeds are ordered fastest first.
        return Err(if config.speeds.iter().all(|&s| s > speed) {
            DeclineReason::TooFast
        } else if config.speeds.iter().all(|&s| s < speed) {
            DeclineReason::TooSlow
        } else {
            DeclineReason::TimeControl
        });
    }
    let in_range = |value: i64, min: u64, max: u64| value >= 0 && (min..=max).contains(&value.unsigned_abs());
    if !in_range(base, config.min_base_s, config.max_base_s)
        || !in_range(increment, config.min_increment_s, config.max_increment_s)
    {
        return Err(DeclineReason::TimeControl);
    }
    // Speeds are ordered fastest first: bullet and ultra-bullet.
    if config.bullet_requires_increment && speed <= Speed::Bullet && increment == 0 {
        return Err(DeclineReason::TimeControl);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn challenge(overrides: serde_json::Value) -> Challenge {
        let mut base = json!({
            "id": "abcd1234",
            "challenger": {"id": "alice", "name": "Alice", "rating": 1800},
            "variant": {"key": "standard", "name": "Standard"},
            "rated": true,
            "speed": "blitz",
            "timeControl": {"type": "clock", "limit": 300, "increment": 3, "show": "5+3"},
            "color": "random"
        });
        if let (Some(b), Some(o)) = (base.as_object_mut(), overrides.as_object()) {
            for (k, v) in o {
                b.insert(k.clone(), v.clone());
            }
        }
        serde_json::from_value(base).unwrap()
    }

    fn verdict(overrides: serde_json::Value, config: &ChallengeConfig) -> Verdict {
        judge(&challenge(overrides), config, Load::default())
    }

    fn declined(reason: DeclineReason) -> Verdict {
        Verdict::Decline(reason)
    }

    #[test]
    fn a_challenge_lichess_closes_to_bots_is_declined() {
        let ultra =
            challenge(json!({"speed": "ultraBullet", "timeControl": {"type": "clock", "limit": 15, "increment": 0}}));
        let closed = Compat { bot: false, board: false };
        assert_eq!(check_bot_compat(&ultra, Some(&closed)), Err(DeclineReason::TooFast));
        assert_eq!(check_bot_compat(&challenge(json!({})), Some(&closed)), Err(DeclineReason::Generic));
        assert_eq!(check_bot_compat(&challenge(json!({})), Some(&Compat { bot: true, board: false })), Ok(()));
        assert_eq!(check_bot_compat(&challenge(json!({})), None), Ok(()));
    }

    #[test]
    fn a_clock_without_its_limit_or_increment_is_declined_not_dropped() {
        let config = ChallengeConfig::default();
        for time_control in
            [json!({"type": "clock", "increment": 2}), json!({"type": "clock", "limit": 300}), json!({"type": "clock"})]
        {
            let verdict = verdict(json!({"speed": null, "timeControl": time_control}), &config);
            assert_eq!(verdict, declined(DeclineReason::TimeControl), "{time_control}");
        }
    }

    #[test]
    fn a_plain_challenge_is_accepted() {
        assert_eq!(verdict(json!({}), &ChallengeConfig::default()), Verdict::Accept);
    }

    #[test]
    fn every_decline_reason() {
        let config = ChallengeConfig::default();
        let bot = json!({"challenger": {"id": "b0t", "name": "B0t", "title": "BOT", "rating": 2000}});
        let no_bots = ChallengeConfig { bots: false, ..config.clone() };
        assert_eq!(verdict(bot.clone(), &no_bots), declined(DeclineReason::NoBot));
        let only_bots = ChallengeConfig { humans: false, ..config.clone() };
        assert_eq!(verdict(json!({}), &only_bots), declined(DeclineReason::OnlyBot));
        assert_eq!(verdict(bot, &only_bots), Verdict::Accept);

        let atomic = json!({"variant": {"key": "atomic"}});
        assert_eq!(verdict(atomic.clone(), &config), declined(DeclineReason::Variant));
        let standard_only = ChallengeConfig { variants: vec![Variant::Standard], ..config.clone() };
        assert_eq!(verdict(atomic, &standard_only), declined(DeclineReason::Standard));

        let bullet = json!({"speed": "bullet", "timeControl": {"type": "clock", "limit": 60, "increment": 0}});
        let ultra = json!({"speed": "ultraBullet", "timeControl": {"type": "clock", "limit": 15, "increment": 0}});
        let classical = json!({"speed": "classical", "timeControl": {"type": "clock", "limit": 1800, "increment": 0}});
        let blitz_rapid = ChallengeConfig { speeds: vec![Speed::Blitz, Speed::Rapid], ..config.clone() };
        assert_eq!(verdict(bullet.clone(), &blitz_rapid), declined(DeclineReason::TooFast));
        assert_eq!(verdict(classical, &blitz_rapid), declined(DeclineReason::TooSlow));
        let gap = ChallengeConfig { speeds: vec![Speed::UltraBullet, Speed::Blitz], ..config.clone() };
        assert_eq!(verdict(bullet, &gap), declined(DeclineReason::TimeControl));
        assert_eq!(verdict(ultra, &config), declined(DeclineReason::TooFast));
        let short_inc = ChallengeConfig { max_increment_s: 2, ..config.clone() };
        assert_eq!(verdict(json!({}), &short_inc), declined(DeclineReason::TimeControl));
        let long_base = ChallengeConfig { min_base_s: 600, ..config.clone() };
        assert_eq!(verdict(json!({}), &long_base), declined(DeclineReason::TimeControl));
        let corr = json!({"speed": "correspondence", "timeControl": {"type": "correspondence", "daysPerTurn": 3}});
        assert_eq!(verdict(corr.clone(), &config), declined(DeclineReason::TooSlow));
        let corr_ok = ChallengeConfig { correspondence: true, ..config.clone() };
        assert_eq!(verdict(corr, &corr_ok), Verdict::Accept);
        let unlimited = json!({"speed": "correspondence", "timeControl": {"type": "unlimited"}});
        assert_eq!(verdict(unlimited, &config), declined(DeclineReason::TooSlow));

        let casual_only = ChallengeConfig { rated: false, ..config.clone() };
        assert_eq!(verdict(json!({}), &casual_only), declined(DeclineReason::Casual));
        let rated_only = ChallengeConfig { casual: false, ..config.clone() };
        assert_eq!(verdict(json!({"rated": false}), &rated_only), declined(DeclineReason::Rated));

        let strong_only = ChallengeConfig { min_rating: 2000, ..config.clone() };
        assert_eq!(verdict(json!({}), &strong_only), declined(DeclineReason::Generic));
        let blocked = ChallengeConfig { block_list: vec!["ALICE".into()], ..config.clone() };
        assert_eq!(verdict(json!({}), &blocked), declined(DeclineReason::Generic));
        let allowed = ChallengeConfig { allow_list: vec!["bob".into()], ..config.clone() };
        assert_eq!(verdict(json!({}), &allowed), declined(DeclineReason::Generic));
        let allowed = ChallengeConfig { allow_list: vec!["alice".into()], ..config };
        assert_eq!(verdict(json!({}), &allowed), Verdict::Accept);
    }

    #[test]
    fn the_first_failing_rule_wins() {
        // A bot, in a variant we do not play, too fast, rated: the bot rule comes first.
        let config = ChallengeConfig { bots: false, rated: false, speeds: vec![Speed::Rapid], ..Default::default() };
        let all_wrong = json!({"challenger": {"name": "X", "title": "BOT"}, "variant": {"key": "atomic"}});
        assert_eq!(verdict(all_wrong, &config), declined(DeclineReason::NoBot));
        let config = ChallengeConfig { rated: false, speeds: vec![Speed::Rapid], ..Default::default() };
        assert_eq!(verdict(json!({}), &config), declined(DeclineReason::TooFast));
    }

    #[test]
    fn load_decides_between_accept_wait_and_later() {
        let config = ChallengeConfig { concurrency: 2, max_waiting: 1, ..Default::default() };
        let ch = challenge(json!({}));
        assert_eq!(judge(&ch, &config, Load { games: 1, ..Load::default() }), Verdict::Accept);
        assert_eq!(judge(&ch, &config, Load { games: 2, ..Load::default() }), Verdict::Wait);
        assert_eq!(
            judge(&ch, &config, Load { games: 2, waiting: 1, ..Load::default() }),
            declined(DeclineReason::Later)
        );
        let busy_with_alice = Load { games_with_challenger: 1, ..Load::default() };
        assert_eq!(judge(&ch, &config, busy_with_alice), declined(DeclineReason::Later));
        assert_eq!(judge(&ch, &config, Load { stopping: true, ..Load::default() }), declined(DeclineReason::Later));
        // A rule failure is reported before the load.
        let atomic = challenge(json!({"variant": {"key": "atomic"}}));
        assert_eq!(
            judge(&atomic, &config, Load { stopping: true, ..Load::default() }),
            declined(DeclineReason::Variant)
        );
    }

    #[test]
    fn bots_cannot_take_the_slots_reserved_for_humans() {
        let config = ChallengeConfig { concurrency: 3, reserved_for_humans: 1, max_waiting: 0, ..Default::default() };
        let bot = challenge(json!({"challenger": {"name": "B0t", "title": "BOT", "rating": 2000}}));
        let human = challenge(json!({}));
        let load = |games| Load { games, ..Load::default() };
        assert_eq!(judge(&bot, &config, load(1)), Verdict::Accept);
        assert_eq!(judge(&bot, &config, load(2)), declined(DeclineReason::Later));
        assert_eq!(judge(&human, &config, load(2)), Verdict::Accept);
        assert_eq!(judge(&human, &config, load(3)), declined(DeclineReason::Later));
        // With room in the queue, the bot waits for a slot it may take.
        let queue = ChallengeConfig { max_waiting: 1, ..config };
        assert_eq!(judge(&bot, &queue, load(2)), Verdict::Wait);
    }

    #[test]
    fn recent_games_against_bots_are_limited() {
        let config = ChallengeConfig { concurrency: 4, recent_bot_limit: 2, ..Default::default() };
        let bot = challenge(json!({"challenger": {"name": "B0t", "title": "BOT", "rating": 2000}}));
        let recent = |n| Load { recent_bot_games: n, ..Load::default() };
        assert_eq!(judge(&bot, &config, recent(1)), Verdict::Accept);
        assert_eq!(judge(&bot, &config, recent(2)), declined(DeclineReason::Later));
        // Humans are not counted, and 0 means no limit.
        assert_eq!(judge(&challenge(json!({})), &config, recent(9)), Verdict::Accept);
        let unlimited = ChallengeConfig { recent_bot_limit: 0, ..config };
        assert_eq!(judge(&bot, &unlimited, recent(99)), Verdict::Accept);

        let start = Instant::now();
        let window = Duration::from_secs(3600);
        let mut games = RecentBotGames::default();
        games.record(start, window);
        games.record(start + Duration::from_secs(1800), window);
        assert_eq!(games.count(start + Duration::from_secs(1801), window), 2);
        assert_eq!(games.count(start + Duration::from_secs(3600), window), 1, "the first left the window");
        games.record(start + Duration::from_secs(7200), window);
        assert_eq!(games.count(start + Duration::from_secs(7200), window), 1);
    }

    #[test]
    fn the_rating_difference_is_to_our_current_rating() {
        let config = ChallengeConfig { rating_difference: Some(300), ..Default::default() };
        let mine = |rating| Load { my_rating: Some(rating), ..Load::default() };
        // Alice is 1800.
        assert_eq!(judge(&challenge(json!({})), &config, mine(2100)), Verdict::Accept);
        assert_eq!(judge(&challenge(json!({})), &config, mine(2101)), declined(DeclineReason::Generic));
        assert_eq!(judge(&challenge(json!({})), &config, mine(1500)), Verdict::Accept);
        assert_eq!(judge(&challenge(json!({})), &config, mine(1499)), declined(DeclineReason::Generic));
        // Unknown ratings are not compared; no setting, no limit.
        assert_eq!(judge(&challenge(json!({})), &config, Load::default()), Verdict::Accept);
        assert_eq!(judge(&challenge(json!({})), &ChallengeConfig::default(), mine(3000)), Verdict::Accept);
        // The perf compared: the speed, the variant's own, or correspondence.
        assert_eq!(perf_of(&challenge(json!({}))), "blitz");
        assert_eq!(perf_of(&challenge(json!({"variant": {"key": "chess960"}}))), "chess960");
        let corr = json!({"speed": null, "timeControl": {"type": "correspondence", "daysPerTurn": 3}});
        assert_eq!(perf_of(&challenge(corr)), "correspondence");
        let estimated = json!({"speed": null, "timeControl": {"type": "clock", "limit": 60, "increment": 0}});
        assert_eq!(perf_of(&challenge(estimated)), "bullet");
    }

    #[test]
    fn days_per_move_and_unlimited_games() {
        let config = ChallengeConfig { correspondence: true, min_days: 2, max_days: Some(7), ..Default::default() };
        let days =
            |d: i64| json!({"speed": "correspondence", "timeControl": {"type": "correspondence", "daysPerTurn": d}});
        assert_eq!(verdict(days(1), &config), declined(DeclineReason::TooFast));
        assert_eq!(verdict(days(2), &config), Verdict::Accept);
        assert_eq!(verdict(days(7), &config), Verdict::Accept);
        assert_eq!(verdict(days(10), &config), declined(DeclineReason::TooSlow));
        let unlimited = json!({"speed": "correspondence", "timeControl": {"type": "unlimited"}});
        assert_eq!(verdict(unlimited.clone(), &config), declined(DeclineReason::TooSlow));
        let any_days = ChallengeConfig { max_days: None, ..config.clone() };
        assert_eq!(verdict(unlimited.clone(), &any_days), Verdict::Accept);
        assert_eq!(verdict(days(14), &any_days), Verdict::Accept);
        let no_corr = ChallengeConfig { correspondence: false, ..config };
        assert_eq!(verdict(days(3), &no_corr), declined(DeclineReason::TooSlow));
    }

    #[test]
    fn bullet_may_require_an_increment() {
        let config = ChallengeConfig { bullet_requires_increment: true, ..Default::default() };
        let clock = |speed: &str, limit: i64, inc: i64| json!({"speed": speed, "timeControl": {"type": "clock", "limit": limit, "increment": inc}});
        assert_eq!(verdict(clock("bullet", 60, 0), &config), declined(DeclineReason::TimeControl));
        assert_eq!(verdict(clock("bullet", 60, 1), &config), Verdict::Accept);
        assert_eq!(verdict(clock("blitz", 180, 0), &config), Verdict::Accept);
        let with_ultra = ChallengeConfig { speeds: Speed::ALL.to_vec(), ..config };
        assert_eq!(verdict(clock("ultraBullet", 15, 0), &with_ultra), declined(DeclineReason::TimeControl));
        assert_eq!(verdict(clock("bullet", 60, 0), &ChallengeConfig::default()), Verdict::Accept);
    }

    #[test]
    fn the_online_block_list_declines_with_generic() {
        let config = ChallengeConfig::default();
        let blocked = ["troll".to_owned(), "alice".to_owned()];
        let load = Load { blocked: &blocked, ..Load::default() };
        assert_eq!(judge(&challenge(json!({})), &config, load), declined(DeclineReason::Generic));
        let bob = challenge(json!({"challenger": {"id": "bob", "name": "Bob", "rating": 1800}}));
        assert_eq!(judge(&bob, &config, load), Verdict::Accept);
    }

    /// A challenge as PyChess's event stream sends it: no challenger id, an empty title, the
    /// variant's key only, a separate Chess960 flag, always unrated.
    fn pychess_challenge(variant: &str, chess960: bool, limit: i64, increment: i64) -> Challenge {
        let event = json!({
            "id": "Pq7xZ2aB",
            "challenger": {"name": "Alice", "rating": 1500, "title": ""},
            "variant": {"key": variant},
            "rated": false,
            "timeControl": {"type": "clock", "limit": limit, "increment": increment},
            "color": "random",
            "finalColor": "white",
            "speed": Speed::of_clock(limit, increment).as_str(),
            "perf": {"name": variant},
            "level": 0,
            "chess960": chess960
        });
        serde_json::from_value(event).unwrap()
    }

    #[test]
    fn the_policy_of_each_platform() {
        use crate::config::PlatformChallenge;
        use ferz_lichess::Platform;
        let config = ChallengeConfig::default();
        let on = |platform| config.for_platform(platform);
        let shatranj = pychess_challenge("shatranj", false, 300, 3);
        assert_eq!(judge(&shatranj, &on(Platform::PyChess), Load::default()), Verdict::Accept);
        assert_eq!(judge(&shatranj, &on(Platform::Lichess), Load::default()), declined(DeclineReason::Variant));
        for (key, chess960) in [("standard", false), ("standard", true)] {
            let ch = pychess_challenge(key, chess960, 180, 2);
            assert_eq!(judge(&ch, &on(Platform::PyChess), Load::default()), Verdict::Accept, "{key} {chess960}");
        }
        // Shatranj only, and only slow games, on PyChess; Lichess keeps the [challenge] keys.
        let config = ChallengeConfig {
            pychess: PlatformChallenge {
                variants: Some(vec![Variant::Shatranj]),
                speeds: Some(vec![Speed::Rapid, Speed::Classical]),
                max_increment_s: Some(10),
                ..PlatformChallenge::default()
            },
            ..ChallengeConfig::default()
        };
        let pychess = config.for_platform(Platform::PyChess);
        let chess = pychess_challenge("standard", false, 900, 5);
        assert_eq!(judge(&chess, &pychess, Load::default()), declined(DeclineReason::Variant));
        assert_eq!(judge(&pychess_challenge("shatranj", false, 900, 5), &pychess, Load::default()), Verdict::Accept);
        assert_eq!(
            judge(&pychess_challenge("shatranj", false, 180, 2), &pychess, Load::default()),
            declined(DeclineReason::TooFast)
        );
        assert_eq!(
            judge(&pychess_challenge("shatranj", false, 900, 20), &pychess, Load::default()),
            declined(DeclineReason::TimeControl)
        );
        assert_eq!(
            judge(&challenge(json!({})), &config.for_platform(Platform::Lichess), Load::default()),
            Verdict::Accept
        );
    }

    #[test]
    fn pychess_variants_and_estimated_speeds() {
        let ch = challenge(json!({"variant": {"key": "chess"}, "chess960": true}));
        assert_eq!(variant_key(&ch), "chess960");
        let ch = challenge(json!({"variant": {"key": "chess"}}));
        assert_eq!(variant_key(&ch), "standard");
        let mut config = ChallengeConfig::default();
        let shatranj = json!({"variant": {"key": "shatranj"}, "speed": null});
        assert_eq!(verdict(shatranj.clone(), &config), declined(DeclineReason::Variant));
        config.variants.push(Variant::Shatranj);
        assert_eq!(verdict(shatranj, &config), Verdict::Accept);
        // Without the server's speed, the clock decides: 600+5 is rapid.
        config.speeds = vec![Speed::Blitz];
        let rapid = json!({"speed": null, "timeControl": {"type": "clock", "limit": 600, "increment": 5}});
        assert_eq!(verdict(rapid, &config), declined(DeclineReason::TooSlow));
    }
}
