//! Which challenges to accept: a pure function of the challenge, the settings and the bot's
//! current load, so that every rule is unit-tested without a server.
//!
//! Rules run in a fixed order and the first that fails names the decline reason Lichess shows
//! the challenger: who may challenge (lists, then bots or humans), the variant, the time control,
//! rated or casual, the rating, and finally the load (games against this opponent, free slots).

use ferz_lichess::models::{self, TimeControl};
use ferz_lichess::{Challenge, DeclineReason};

use crate::config::{ChallengeConfig, Speed, Variant};

/// What to do with a challenge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Accept it now.
    Accept,
    /// Every slot is busy: keep it and accept it when a game ends.
    Wait,
    /// Decline it with this reason.
    Decline(DeclineReason),
}

/// The bot's state when a challenge arrives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Load {
    /// Games running or accepted and about to start.
    pub games: usize,
    /// Challenges already waiting for a slot.
    pub waiting: usize,
    /// Games running against the challenger.
    pub games_with_challenger: usize,
    /// The bot is shutting down and takes no new games.
    pub stopping: bool,
}

/// The variant of a challenge as a Lichess key: PyChess's `chess` + `chess960: true` becomes
/// `chess960`, its `chess` alone `standard`.
#[must_use]
pub fn variant_key(challenge: &Challenge) -> String {
    let key = challenge.variant.key_or_name();
    match (key, challenge.chess960) {
        ("standard" | "chess", Some(true)) => "chess960".to_owned(),
        ("chess", _) => "standard".to_owned(),
        _ => key.to_owned(),
    }
}

/// Decides on a challenge addressed to us.
#[must_use]
pub fn judge(challenge: &Challenge, config: &ChallengeConfig, load: Load) -> Verdict {
    match check_rules(challenge, config) {
        Err(reason) => Verdict::Decline(reason),
        Ok(()) if load.stopping => Verdict::Decline(DeclineReason::Later),
        Ok(()) if load.games_with_challenger >= config.max_games_per_opponent => Verdict::Decline(DeclineReason::Later),
        Ok(()) if load.games < config.concurrency => Verdict::Accept,
        Ok(()) if load.waiting < config.max_waiting => Verdict::Wait,
        Ok(()) => Verdict::Decline(DeclineReason::Later),
    }
}

/// The rules that depend on the challenge alone; `Err` is the first that failed.
fn check_rules(challenge: &Challenge, config: &ChallengeConfig) -> Result<(), DeclineReason> {
    let user = &challenge.challenger;
    let id = user.user_id();
    let listed = |list: &[String]| {
        list.iter().any(|name| name.eq_ignore_ascii_case(&id) || name.eq_ignore_ascii_case(&user.name))
    };
    if listed(&config.block_list) || (!config.allow_list.is_empty() && !listed(&config.allow_list)) {
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
    Ok(())
}

/// Speeds outside the accepted ones are `tooFast` or `tooSlow` when all accepted speeds lie on
/// one side, `timeControl` otherwise; base and increment outside their ranges are `timeControl`.
fn check_time_control(challenge: &Challenge, config: &ChallengeConfig) -> Result<(), DeclineReason> {
    let (base, increment) = match &challenge.time_control {
        Some(TimeControl::Clock { limit, increment, .. }) => (*limit, *increment),
        Some(TimeControl::Correspondence { .. } | TimeControl::Unlimited) | None => {
            return if config.correspondence { Ok(()) } else { Err(DeclineReason::TooSlow) };
        }
        Some(TimeControl::Other) => return Err(DeclineReason::TimeControl),
    };
    // The server's speed when it sent one (it knows its own thresholds), else our estimate.
    let speed = match &challenge.speed {
        Some(models::Speed::Correspondence) => {
            return if config.correspondence { Ok(()) } else { Err(DeclineReason::TooSlow) };
        }
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
