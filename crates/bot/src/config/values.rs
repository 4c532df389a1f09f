//! The typed values of the bot's settings: variants, speeds, matchmaking time controls, the
//! book selection, who sees `!eval`, and how PGN files are grouped.
//!
//! Each deserializes from the spelling users write in `config/bot.toml` (`"chess960"`,
//! `"ultraBullet"`, `"180+2"`), so a misspelt name fails while the file is read, with the key
//! and the value, and the bot's code never compares strings. They read through `TryFrom<String>`
//! rather than serde's enum support, whose message from the settings reader names neither the
//! choices nor the PyChess spelling.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Gives a unit enum of the settings its spelling: `ALL`, `as_str`, reading through
/// `TryFrom<String>` (the error lists the choices), writing, and `Display`. For the plain
/// choices whose names have no aliases; [`Variant`] and [`Speed`] keep their own impls.
macro_rules! setting_names {
    ($ty:ident, $what:literal, $($variant:ident => $name:literal),+ $(,)?) => {
        impl $ty {
            /// Every choice, in the order the settings list them.
            pub const ALL: &'static [$ty] = &[$($ty::$variant),+];

            /// The settings' spelling.
            #[must_use]
            pub fn as_str(self) -> &'static str {
                match self {
                    $($ty::$variant => $name),+
                }
            }
        }

        impl TryFrom<String> for $ty {
            type Error = String;

            fn try_from(name: String) -> Result<$ty, String> {
                $ty::ALL.iter().copied().find(|choice| choice.as_str() == name).ok_or_else(|| {
                    format!("{name:?} is not {}: use {}", $what, $crate::config::values::one_of(&[$($name),+]))
                })
            }
        }

        impl From<$ty> for &'static str {
            fn from(choice: $ty) -> &'static str {
                choice.as_str()
            }
        }

        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}
pub(crate) use setting_names;

/// `a, b or c`: the choices of a setting, for error messages.
pub(crate) fn one_of(names: &[&str]) -> String {
    match names.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// A variant the bot can play, by the bot's (Lichess's) key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "&'static str")]
pub enum Variant {
    /// `standard` (PyChess spells it `chess`, which is accepted too).
    Standard,
    /// `chess960`.
    Chess960,
    /// `fromPosition`: standard rules from a set-up position (Lichess only).
    FromPosition,
    /// `shatranj` (PyChess only).
    Shatranj,
}

impl Variant {
    /// Every variant, in the order the settings list them.
    pub const ALL: [Variant; 4] = [Variant::Standard, Variant::Chess960, Variant::FromPosition, Variant::Shatranj];

    /// The bot's key: `standard`, `chess960`, `fromPosition`, `shatranj`.
    #[must_use]
    pub fn key(self) -> &'static str {
        match self {
            Variant::Standard => "standard",
            Variant::Chess960 => "chess960",
            Variant::FromPosition => "fromPosition",
            Variant::Shatranj => "shatranj",
        }
    }

    /// The variant of a key (PyChess's `chess` is `standard`), or `None` for one the bot does
    /// not play.
    #[must_use]
    pub fn from_key(key: &str) -> Option<Variant> {
        match key {
            "chess" => Some(Variant::Standard),
            _ => Variant::ALL.into_iter().find(|v| v.key() == key),
        }
    }

    /// PyChess's name of the variant, if PyChess has it.
    #[must_use]
    pub fn pychess_name(self) -> Option<&'static str> {
        match self {
            Variant::Standard => Some("chess"),
            Variant::Chess960 => Some("chess960"),
            Variant::Shatranj => Some("shatranj"),
            Variant::FromPosition => None,
        }
    }
}

impl TryFrom<String> for Variant {
    type Error = String;

    fn try_from(name: String) -> Result<Variant, String> {
        Variant::from_key(&name).ok_or_else(|| {
            format!("{name:?} is not a variant the bot plays: use standard (PyChess: chess), chess960, fromPosition or shatranj")
        })
    }
}

impl From<Variant> for &'static str {
    fn from(variant: Variant) -> &'static str {
        variant.key()
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// A Lichess speed category, fastest first (the order is what `tooFast` and `tooSlow` mean).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "&'static str")]
pub enum Speed {
    /// `ultraBullet`: under 30 s estimated.
    UltraBullet,
    /// `bullet`: under 3 min.
    Bullet,
    /// `blitz`: under 8 min.
    Blitz,
    /// `rapid`: under 25 min.
    Rapid,
    /// `classical`: the rest.
    Classical,
}

impl Speed {
    /// Every speed, fastest first.
    pub const ALL: [Speed; 5] = [Speed::UltraBullet, Speed::Bullet, Speed::Blitz, Speed::Rapid, Speed::Classical];

    /// The API's name: `ultraBullet`, `bullet`, `blitz`, `rapid`, `classical` (also the perf
    /// key of the ratings).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Speed::UltraBullet => "ultraBullet",
            Speed::Bullet => "bullet",
            Speed::Blitz => "blitz",
            Speed::Rapid => "rapid",
            Speed::Classical => "classical",
        }
    }

    /// The speed of an API name, `None` for others (`correspondence`).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Speed> {
        Speed::ALL.into_iter().find(|s| s.as_str() == name)
    }

    /// Lichess's speed of a clock: by `estimated = base + 40 × increment` seconds.
    #[must_use]
    pub fn of_clock(base_s: i64, increment_s: i64) -> Speed {
        match base_s.saturating_add(increment_s.saturating_mul(40)) {
            ..30 => Speed::UltraBullet,
            30..180 => Speed::Bullet,
            180..480 => Speed::Blitz,
            480..1500 => Speed::Rapid,
            _ => Speed::Classical,
        }
    }
}

impl TryFrom<String> for Speed {
    type Error = String;

    fn try_from(name: String) -> Result<Speed, String> {
        Speed::from_name(&name)
            .ok_or_else(|| format!("{name:?} is not a speed: use ultraBullet, bullet, blitz, rapid or classical"))
    }
}

impl From<Speed> for &'static str {
    fn from(speed: Speed) -> &'static str {
        speed.as_str()
    }
}

impl fmt::Display for Speed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A clock Lichess lets a bot challenge with, written `seconds+increment` (`"180+2"`): an
/// initial time of 0, 15, 30, 45, 60, 90 or a multiple of 60 up to 10800 seconds, an
/// increment up to 60 seconds, not both zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct TimeControl {
    /// Initial time, seconds.
    pub initial_s: u32,
    /// Increment per move, seconds.
    pub increment_s: u32,
}

/// What a time control must look like, for error messages.
const TIME_CONTROL_RULE: &str =
    "use seconds+increment, e.g. \"180+2\" (0, 15, 30, 45, 60, 90 or multiples of 60 up to 10800; increment up to 60)";

impl FromStr for TimeControl {
    type Err = String;

    fn from_str(text: &str) -> Result<TimeControl, String> {
        let parsed = text.split_once('+').and_then(|(base, inc)| {
            Some(TimeControl { initial_s: base.trim().parse().ok()?, increment_s: inc.trim().parse().ok()? })
        });
        match parsed {
            Some(tc) if tc.is_lichess_clock() => Ok(tc),
            Some(_) => Err(format!("{text:?} is not a Lichess clock: {TIME_CONTROL_RULE}")),
            None => Err(format!("{text:?} is not seconds+increment: {TIME_CONTROL_RULE}")),
        }
    }
}

impl TimeControl {
    fn is_lichess_clock(self) -> bool {
        let base = self.initial_s;
        let base_ok = matches!(base, 0 | 15 | 30 | 45 | 60 | 90) || (base.is_multiple_of(60) && base <= 10_800);
        base_ok && self.increment_s <= 60 && base + self.increment_s > 0
    }
}

impl TryFrom<String> for TimeControl {
    type Error = String;

    fn try_from(text: String) -> Result<TimeControl, String> {
        text.parse()
    }
}

impl From<TimeControl> for String {
    fn from(tc: TimeControl) -> String {
        tc.to_string()
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}+{}", self.initial_s, self.increment_s)
    }
}

/// How a move is picked among a Polyglot book's moves for a position (`[book] selection`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "&'static str")]
pub enum BookSelection {
    /// `best`: the highest weight (the first such entry on ties).
    Best,
    /// `weighted`: at random, in proportion to the weights.
    #[default]
    Weighted,
    /// `uniform`: at random, every move alike.
    Uniform,
}

setting_names!(BookSelection, "a book selection", Best => "best", Weighted => "weighted", Uniform => "uniform");

/// Who may see our evaluation through `!eval` (`[chat] eval`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "&'static str")]
pub enum EvalAudience {
    /// `spectators`: the spectator room at any time; the opponent once the game is over.
    #[default]
    Spectators,
    /// `everyone`: the opponent during the game too.
    Everyone,
    /// `nobody`: never.
    Nobody,
}

setting_names!(EvalAudience, "an eval audience", Spectators => "spectators", Everyone => "everyone", Nobody => "nobody");

/// Which games share a PGN file (`[pgn] grouping`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "&'static str")]
pub enum PgnGrouping {
    /// `game`: one file per game.
    #[default]
    Game,
    /// `opponent`: one file per opponent, games appended.
    Opponent,
    /// `all`: one file for every game.
    All,
}

setting_names!(PgnGrouping, "a PGN grouping", Game => "game", Opponent => "opponent", All => "all");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_read_both_spellings_and_name_themselves() {
        let read = |text: &str| serde_json::from_value::<Variant>(serde_json::json!(text));
        assert_eq!(read("chess").unwrap(), Variant::Standard);
        assert_eq!(read("fromPosition").unwrap(), Variant::FromPosition);
        let err = read("atomic").unwrap_err().to_string();
        assert!(err.starts_with("\"atomic\" is not a variant the bot plays: use standard (PyChess: chess)"), "{err}");
        for v in Variant::ALL {
            assert_eq!(Variant::from_key(v.key()), Some(v));
            assert_eq!(serde_json::to_value(v).unwrap(), serde_json::json!(v.key()));
        }
        assert_eq!(Variant::from_key("chess"), Some(Variant::Standard));
        assert_eq!(Variant::from_key("crazyhouse"), None);
        assert_eq!(Variant::FromPosition.pychess_name(), None);
    }

    #[test]
    fn speeds_in_order_and_by_clock() {
        assert!(Speed::UltraBullet < Speed::Bullet && Speed::Rapid < Speed::Classical);
        assert_eq!(serde_json::from_value::<Speed>(serde_json::json!("ultraBullet")).unwrap(), Speed::UltraBullet);
        let err = serde_json::from_value::<Speed>(serde_json::json!("fast")).unwrap_err().to_string();
        assert!(err.starts_with("\"fast\" is not a speed: use ultraBullet, bullet"), "{err}");
        assert_eq!(serde_json::to_value(Speed::UltraBullet).unwrap(), serde_json::json!("ultraBullet"));
        assert_eq!(Speed::from_name("correspondence"), None);
        assert_eq!(Speed::of_clock(60, 0), Speed::Bullet);
        assert_eq!(Speed::of_clock(120, 1), Speed::Bullet);
        assert_eq!(Speed::of_clock(180, 0), Speed::Blitz);
        assert_eq!(Speed::of_clock(15, 0), Speed::UltraBullet);
        assert_eq!(Speed::of_clock(600, 5), Speed::Rapid);
        assert_eq!(Speed::of_clock(1800, 20), Speed::Classical);
    }

    #[test]
    fn time_controls_parse() {
        let tc = |text: &str| text.parse::<TimeControl>();
        assert_eq!(tc("180+2"), Ok(TimeControl { initial_s: 180, increment_s: 2 }));
        assert_eq!(tc("15+0"), Ok(TimeControl { initial_s: 15, increment_s: 0 }));
        assert_eq!(tc("0+1").unwrap().to_string(), "0+1");
        for bad in ["0+0", "61+0", "60+61", "10860+0"] {
            let err = tc(bad).unwrap_err();
            assert!(err.starts_with(&format!("{bad:?} is not a Lichess clock: use seconds+increment")), "{err}");
        }
        for bad in ["3", "a+1", "3+x", "-60+1"] {
            assert!(tc(bad).unwrap_err().contains("is not seconds+increment"), "{bad}");
        }
        let json = serde_json::to_value(TimeControl { initial_s: 300, increment_s: 3 }).unwrap();
        assert_eq!(json, serde_json::json!("300+3"));
        assert_eq!(
            serde_json::from_value::<TimeControl>(json).unwrap(),
            TimeControl { initial_s: 300, increment_s: 3 }
        );
    }

    #[test]
    fn book_selections_read_their_names() {
        let read = |text: &str| serde_json::from_value::<BookSelection>(serde_json::json!(text));
        assert_eq!(read("best").unwrap(), BookSelection::Best);
        assert_eq!(read("uniform").unwrap(), BookSelection::Uniform);
        let err = read("weighted_random").unwrap_err().to_string();
        assert!(err.starts_with("\"weighted_random\" is not a book selection: use best, weighted or uniform"), "{err}");
        assert_eq!(serde_json::to_value(BookSelection::Weighted).unwrap(), serde_json::json!("weighted"));
    }

    #[test]
    fn eval_audiences_and_pgn_groupings_read_their_names() {
        let audience = |text: &str| serde_json::from_value::<EvalAudience>(serde_json::json!(text));
        assert_eq!(audience("everyone").unwrap(), EvalAudience::Everyone);
        let err = audience("opponent").unwrap_err().to_string();
        assert!(err.starts_with("\"opponent\" is not an eval audience: use spectators"), "{err}");
        let grouping = |text: &str| serde_json::from_value::<PgnGrouping>(serde_json::json!(text));
        assert_eq!(grouping("opponent").unwrap(), PgnGrouping::Opponent);
        assert!(grouping("day").unwrap_err().to_string().contains("use game, opponent or all"));
        for &g in PgnGrouping::ALL {
            assert_eq!(serde_json::to_value(g).unwrap(), serde_json::json!(g.as_str()));
        }
    }
}
