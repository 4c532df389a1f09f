//! The typed values of `[matchmaking]`: the mode of a challenge, how override sets take turns,
//! the override sets themselves, and the key that `mode` replaced.

use serde::{Deserialize, Deserializer, Serialize};

use super::values::setting_names;
use super::{TimeControl, Variant};

/// Whether our challenges are rated (`[matchmaking] mode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "&'static str")]
pub enum MatchMode {
    /// `casual`: never rated.
    #[default]
    Casual,
    /// `rated`: always rated.
    Rated,
    /// `random`: rated or casual, half and half.
    Random,
}

setting_names!(MatchMode, "a matchmaking mode", Casual => "casual", Rated => "rated", Random => "random");

impl MatchMode {
    /// Whether a challenge is rated; `coin` in `0..1` decides for `random`.
    #[must_use]
    pub fn rated(self, coin: f64) -> bool {
        match self {
            MatchMode::Casual => false,
            MatchMode::Rated => true,
            MatchMode::Random => coin < 0.5,
        }
    }
}

/// How the challenge sets (the `[matchmaking]` keys, then each override) take turns
/// (`[matchmaking] override_order`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "&'static str")]
pub enum OverrideOrder {
    /// `random`: each challenge draws a set.
    #[default]
    Random,
    /// `sequential`: the sets in turn, the `[matchmaking]` keys first, then the overrides by name.
    Sequential,
}

setting_names!(OverrideOrder, "an override order", Random => "random", Sequential => "sequential");

/// `[matchmaking.overrides.<name>]`: another set of challenges. A key left out takes the
/// `[matchmaking]` value, except that `time_controls` and `days` go together: an override that
/// sets either uses only its own clocks and days.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MatchOverride {
    /// Real-time clocks, `seconds+increment`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_controls: Option<Vec<TimeControl>>,
    /// Correspondence days per move.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub days: Option<Vec<u32>>,
    /// Variants: `standard`, `chess960`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variants: Option<Vec<Variant>>,
    /// Rated, casual or random.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<MatchMode>,
}

/// The days per move Lichess offers for correspondence challenges.
pub const LICHESS_DAYS: [u32; 7] = [1, 2, 3, 5, 7, 10, 14];

/// A key that the settings no longer have: reading it fails with what replaced it, instead of
/// serde's bare "unknown field".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RemovedRated;

impl<'de> Deserialize<'de> for RemovedRated {
    fn deserialize<D: Deserializer<'de>>(_: D) -> Result<RemovedRated, D::Error> {
        Err(serde::de::Error::custom(
            "`rated` was replaced by `mode`: write mode = \"rated\" (was rated = true), \"casual\" (was rated = false) or \"random\"",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_and_orders_read_their_names() {
        let mode = |text: &str| serde_json::from_value::<MatchMode>(serde_json::json!(text));
        assert_eq!(mode("random").unwrap(), MatchMode::Random);
        assert!(mode("both").unwrap_err().to_string().contains("use casual, rated or random"));
        let order = |text: &str| serde_json::from_value::<OverrideOrder>(serde_json::json!(text));
        assert_eq!(order("sequential").unwrap(), OverrideOrder::Sequential);
        assert!(order("cyclic").unwrap_err().to_string().contains("use random or sequential"));
        assert!(!MatchMode::Casual.rated(0.0) && MatchMode::Rated.rated(0.9));
        assert!(MatchMode::Random.rated(0.2) && !MatchMode::Random.rated(0.7));
    }
}
