//! `[correspondence]`: how the bot keeps up with correspondence and unlimited games.
//!
//! These games last days, so they do not hold a `[challenge] concurrency` slot and their game
//! stream is not kept open for their whole life: the bot closes it after `disconnect_s` of the
//! opponent's silence while it waits for them, and checks in every `checkin_period_s`
//! (`/api/account/playing`), reopening the games where it is its turn. Their searches take
//! turns: `max_thinking` at once, each on one thread, so that they never crowd out the live
//! games.

use std::time::Duration;

use ferz_settings::{InvalidSetting, check, in_range};
use ferz_uci::EngineOption;
use serde::{Deserialize, Serialize};

use super::{EngineChoice, EngineConfig};

/// `[correspondence]`: the check-in cycle of correspondence and unlimited games.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CorrespondenceConfig {
    /// Correspondence and unlimited games at once; more challenges are declined with `later`.
    /// They are counted apart from `[challenge] concurrency`, which counts real-time games.
    pub max_games: usize,
    /// Seconds between check-ins: the bot lists its ongoing games and reopens those where it
    /// is its turn.
    pub checkin_period_s: u64,
    /// Seconds of thinking per move.
    pub move_time_s: u64,
    /// When above 0: think this share of the time left for the move instead, when that is
    /// longer than `move_time_s` (0.1 of three days is over seven hours).
    pub time_share: f64,
    /// Seconds of the opponent's silence, while it is their turn, after which the game
    /// stream is closed (the next check-in reopens it once it is our turn).
    pub disconnect_s: u64,
    /// Correspondence searches at once. The others wait, the game with the least time left
    /// next; each search has its own engine (and hash table) only while it runs, on one thread.
    pub max_thinking: usize,
}

impl Default for CorrespondenceConfig {
    fn default() -> CorrespondenceConfig {
        CorrespondenceConfig {
            max_games: 10,
            checkin_period_s: 600,
            move_time_s: 30,
            time_share: 0.0,
            disconnect_s: 300,
            max_thinking: 1,
        }
    }
}

impl CorrespondenceConfig {
    /// How long to think over a move with `left` on our clock (`None`: no clock, an unlimited
    /// game): `move_time_s`, or `time_share` of `left` when longer, and never more than half
    /// of `left`, so that a move never risks the game.
    #[must_use]
    pub fn move_time(&self, left: Option<Duration>) -> Duration {
        let base = Duration::from_secs(self.move_time_s);
        let Some(left) = left else { return base };
        let wanted = if self.time_share > 0.0 { base.max(left.mul_f64(self.time_share)) } else { base };
        wanted.min(left / 2)
    }

    /// The engine settings of a correspondence search: `engine` and `choice` with one search
    /// thread (the in-process engine's `threads`, and an external engine's `Threads` option when
    /// the settings give one), so that these searches leave the cores to the real-time games.
    #[must_use]
    pub fn one_thread(engine: &EngineConfig, mut choice: EngineChoice) -> (EngineConfig, EngineChoice) {
        let engine = EngineConfig { threads: 1, ..engine.clone() };
        for option in &mut choice.options {
            if option.name.eq_ignore_ascii_case("threads") {
                *option = EngineOption::new(option.name.clone(), "1");
            }
        }
        (engine, choice)
    }

    /// The check-in period.
    #[must_use]
    pub fn checkin_period(&self) -> Duration {
        Duration::from_secs(self.checkin_period_s)
    }

    /// The opponent's silence after which the game stream is closed.
    #[must_use]
    pub fn disconnect_after(&self) -> Duration {
        Duration::from_secs(self.disconnect_s)
    }

    /// Ranges of every key.
    ///
    /// # Errors
    /// The first key out of its range, with what to change.
    pub fn validate(&self) -> Result<(), InvalidSetting> {
        in_range("correspondence.max_games", self.max_games, 1..=1000, "use 1 to 1000 games")?;
        in_range(
            "correspondence.checkin_period_s",
            self.checkin_period_s,
            1..=86_400,
            "use 1 second to 1 day (86400)",
        )?;
        in_range("correspondence.move_time_s", self.move_time_s, 1..=86_400, "use 1 second to 1 day (86400)")?;
        check(
            self.time_share.is_finite() && (0.0..=0.5).contains(&self.time_share),
            "correspondence.time_share",
            self.time_share,
            "use 0 (off) to 0.5 of the time left",
        )?;
        in_range("correspondence.disconnect_s", self.disconnect_s, 1..=86_400, "use 1 second to 1 day (86400)")?;
        in_range("correspondence.max_thinking", self.max_thinking, 1..=64, "use 1 to 64 searches at once")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{EngineVariant, OptionValue};

    #[test]
    fn move_time_is_the_setting_or_a_share_of_the_time_left_and_never_half_of_it() {
        let config = CorrespondenceConfig { move_time_s: 60, ..CorrespondenceConfig::default() };
        let day = Duration::from_secs(86_400);
        assert_eq!(config.move_time(None), Duration::from_secs(60), "unlimited: the setting");
        assert_eq!(config.move_time(Some(day)), Duration::from_secs(60));
        assert_eq!(config.move_time(Some(Duration::from_secs(50))), Duration::from_secs(25), "half the time left");
        let share = CorrespondenceConfig { time_share: 0.01, ..config.clone() };
        assert_eq!(share.move_time(Some(day)), Duration::from_secs(864));
        assert_eq!(
            share.move_time(Some(Duration::from_secs(1000))),
            Duration::from_secs(60),
            "the setting when longer"
        );
        assert_eq!(share.move_time(None), Duration::from_secs(60));
    }

    #[test]
    fn every_key_is_checked() {
        CorrespondenceConfig::default().validate().unwrap();
        let cases: [(CorrespondenceConfig, &str); 7] = [
            (CorrespondenceConfig { max_games: 0, ..Default::default() }, "correspondence.max_games"),
            (CorrespondenceConfig { checkin_period_s: 0, ..Default::default() }, "correspondence.checkin_period_s"),
            (CorrespondenceConfig { move_time_s: 0, ..Default::default() }, "correspondence.move_time_s"),
            (CorrespondenceConfig { time_share: 0.9, ..Default::default() }, "correspondence.time_share"),
            (CorrespondenceConfig { disconnect_s: 0, ..Default::default() }, "correspondence.disconnect_s"),
            (CorrespondenceConfig { max_thinking: 0, ..Default::default() }, "correspondence.max_thinking"),
            (CorrespondenceConfig { max_thinking: 65, ..Default::default() }, "correspondence.max_thinking"),
        ];
        for (config, key) in cases {
            assert_eq!(config.validate().unwrap_err().key, key);
        }
        let nan = CorrespondenceConfig { time_share: f64::NAN, ..Default::default() };
        assert_eq!(nan.validate().unwrap_err().key, "correspondence.time_share");
    }

    #[test]
    fn a_correspondence_search_runs_on_one_thread() {
        let mut engine = EngineConfig { threads: 4, hash_mb: 32, ..EngineConfig::default() };
        engine.options.insert("threads".into(), OptionValue::Int(8));
        engine.options.insert("Hash".into(), OptionValue::Int(256));
        let choice = engine.choice(EngineVariant::Standard);
        let (one, choice) = CorrespondenceConfig::one_thread(&engine, choice);
        assert_eq!((one.threads, one.hash_mb), (1, 32));
        let options: Vec<String> = choice.options.iter().map(|o| format!("{}={}", o.name, o.value)).collect();
        assert_eq!(options, ["Hash=256", "threads=1"], "the engine's own name kept, other options untouched");
        // An external engine whose settings name no thread option gets none.
        let plain = EngineConfig::default();
        let (_, choice) = CorrespondenceConfig::one_thread(&plain, plain.choice(EngineVariant::Standard));
        assert!(choice.options.is_empty());
    }
}
