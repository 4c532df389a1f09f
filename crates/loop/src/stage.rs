//! The stages of a generation, in the order they run.

use std::fmt;

use serde::{Deserialize, Serialize};

/// One stage of a generation; the ledger's and `stages.json`'s keys are their lowercase names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// The generation's self-play shards.
    Selfplay,
    /// The shards merged into the generation's dataset.
    Merge,
    /// The candidate net trained.
    Train,
    /// The candidate against the best net, until the SPRT decides.
    Gate,
    /// The candidate made the best net (or not) and the ledger written.
    Promote,
}

impl Stage {
    /// Every stage, in the order they run.
    pub const ALL: [Stage; 5] = [Stage::Selfplay, Stage::Merge, Stage::Train, Stage::Gate, Stage::Promote];

    /// The lowercase name, as in the ledger, the log and `FERZ_LOOP_KILL_AT`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Stage::Selfplay => "selfplay",
            Stage::Merge => "merge",
            Stage::Train => "train",
            Stage::Gate => "gate",
            Stage::Promote => "promote",
        }
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_serialized_keys() {
        for stage in Stage::ALL {
            assert_eq!(serde_json::to_string(&stage).unwrap(), format!("\"{stage}\""));
        }
        let times: std::collections::BTreeMap<Stage, u32> =
            serde_json::from_str(r#"{"train": 3, "selfplay": 1}"#).unwrap();
        assert_eq!(times.into_iter().collect::<Vec<_>>(), [(Stage::Selfplay, 1), (Stage::Train, 3)]);
    }
}
