//! The SPSA settings: what `config/spsa.toml` holds, with its defaults. Every section rejects
//! unknown keys; [`SpsaConfig::validate`] checks the values with messages that name the key.

use std::path::PathBuf;
use std::time::Duration;

use ferz_arena::{BookOrder, DrawAdjudication, EngineCommand, EngineOption, Limit, ResignAdjudication};
use ferz_chess::Variant;
use ferz_settings::{InvalidSetting, at_least, check, in_range};
use serde::{Deserialize, Serialize};

/// Everything an SPSA run needs to know.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SpsaConfig {
    /// The engine tuned.
    pub engine: EngineSection,
    /// The parameters tuned.
    pub params: ParamsSection,
    /// The algorithm's constants.
    pub spsa: AlgorithmSection,
    /// How each iteration's games are played.
    pub games: GamesSection,
    /// Where the state, trajectory, plot and result go.
    pub output: OutputSection,
}

/// `[engine]`: the engine both sides run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EngineSection {
    /// `ferz` (this binary, listing its search parameters) or `uci:<path> [args]`.
    pub command: String,
    /// Options set on both sides before the tuned ones, `Name=Value` each.
    pub options: Vec<String>,
    /// Seconds an engine may take to answer `uci` and `isready` at start-up.
    pub handshake_timeout_s: u64,
}

impl Default for EngineSection {
    fn default() -> EngineSection {
        EngineSection { command: "ferz".to_owned(), options: vec!["Hash=16".to_owned()], handshake_timeout_s: 20 }
    }
}

/// `[params]`: which options are tuned.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ParamsSection {
    /// A file in OpenBench's SPSA input format (`name, int, value, min, max, c_end, r_end` per
    /// line). Empty: ferz's own search parameters (what `ferz spsa params` prints), for
    /// `engine.command = "ferz"` only.
    pub file: PathBuf,
}

/// `[spsa]`: the algorithm.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AlgorithmSection {
    /// Iterations (N); each plays `games.pairs_per_iteration` game pairs.
    pub iterations: u64,
    /// The learning rate's decay exponent (α).
    pub alpha: f64,
    /// The perturbation's decay exponent (γ).
    pub gamma: f64,
    /// The stability constant A as a share of the iterations.
    pub a_share: f64,
    /// The seed of the perturbations and openings; iteration k derives its own from it.
    pub seed: u64,
}

impl Default for AlgorithmSection {
    fn default() -> AlgorithmSection {
        AlgorithmSection { iterations: 2000, alpha: 0.602, gamma: 0.101, a_share: 0.1, seed: 1 }
    }
}

/// `[games]`: the games of each iteration, as `ferz match` plays them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GamesSection {
    /// Rules: chess, chess960 or shatranj.
    pub variant: String,
    /// Clock per side, `base+increment` in seconds; empty when `nodes` is set.
    pub tc: String,
    /// Nodes per move instead of a clock (0: use `tc`).
    pub nodes: u64,
    /// Game pairs per iteration (each pair plays one opening with both colours).
    pub pairs_per_iteration: usize,
    /// Games played at once (0: one per CPU).
    pub concurrency: usize,
    /// Opening book (EPD/FEN lines or PGN); empty: the variant's start positions.
    pub book: PathBuf,
    /// With a book: shuffle it (`random`) or take it in order (`sequential`).
    pub book_order: String,
    /// Random legal plies after the opening, different in every iteration.
    pub random_plies: u32,
    /// Milliseconds an engine may exceed its clock before it loses on time.
    pub time_margin_ms: u64,
    /// Draw a game when it reaches this many plies (0: never).
    pub max_plies: u32,
    /// Draw adjudication, `movenumber=N,movecount=M,score=CP` (empty: none).
    pub draw_adjudication: String,
    /// Resign adjudication, `movecount=M,score=CP[,twosided]` (empty: none).
    pub resign_adjudication: String,
}

impl Default for GamesSection {
    fn default() -> GamesSection {
        GamesSection {
            variant: "chess".to_owned(),
            tc: "5+0.05".to_owned(),
            nodes: 0,
            pairs_per_iteration: 4,
            concurrency: 0,
            book: PathBuf::new(),
            book_order: "random".to_owned(),
            random_plies: 8,
            time_margin_ms: 100,
            max_plies: 400,
            draw_adjudication: "movenumber=40,movecount=8,score=10".to_owned(),
            resign_adjudication: "movecount=4,score=1000".to_owned(),
        }
    }
}

/// `[output]`: the run's directory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OutputSection {
    /// Holds `state.json` (the resumable run), `trajectory.csv`, `trajectory.svg` and
    /// `result.params` (`NAME = value` lines, what ferz's `ParamsFile` option reads).
    pub dir: PathBuf,
}

impl Default for OutputSection {
    fn default() -> OutputSection {
        OutputSection { dir: PathBuf::from("spsa-run") }
    }
}

/// The settings read into the types the run uses.
#[derive(Clone, Debug)]
pub struct Resolved {
    /// The engine.
    pub command: EngineCommand,
    /// Its fixed options.
    pub options: Vec<EngineOption>,
    /// The rules.
    pub variant: Variant,
    /// The limit per move.
    pub limit: Limit,
    /// Draw adjudication.
    pub draw: Option<DrawAdjudication>,
    /// Resign adjudication.
    pub resign: Option<ResignAdjudication>,
    /// Games at once.
    pub concurrency: usize,
    /// The book's order.
    pub book_order: BookOrder,
    /// The handshake timeout.
    pub handshake: Duration,
}

impl SpsaConfig {
    /// Checks the values and reads them into their types.
    ///
    /// # Errors
    /// The first value that cannot work, with its key.
    pub fn validate(&self) -> Result<Resolved, InvalidSetting> {
        let s = &self.spsa;
        at_least("spsa.iterations", s.iterations, 1, "at least one iteration")?;
        in_range("spsa.alpha", s.alpha, 0.0..=1.0, "use 0 to 1; 0.602 is the standard")?;
        in_range("spsa.gamma", s.gamma, 0.0..=1.0, "use 0 to 1; 0.101 is the standard")?;
        in_range("spsa.a_share", s.a_share, 0.0..=1.0, "use 0 to 1; 0.1 is the standard")?;
        let g = &self.games;
        at_least("games.pairs_per_iteration", g.pairs_per_iteration, 1, "at least one pair")?;
        let command = self.engine.command.parse::<EngineCommand>().map_err(|_| {
            InvalidSetting::new("engine.command", &self.engine.command, "use `ferz` or `uci:<path> [args]`")
        })?;
        let options = self
            .engine
            .options
            .iter()
            .map(|o| o.parse::<EngineOption>())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| InvalidSetting::new("engine.options", e.0, "write each option as Name=Value"))?;
        let variant = g
            .variant
            .parse::<Variant>()
            .map_err(|_| InvalidSetting::new("games.variant", &g.variant, "use chess, chess960 or shatranj"))?;
        check(
            g.tc.trim().is_empty() != (g.nodes == 0),
            "games.tc",
            &g.tc,
            "give either a clock (tc) or nodes, not both and not neither",
        )?;
        let limit = if g.nodes > 0 {
            Limit::Nodes(g.nodes)
        } else {
            Limit::parse_clock(&g.tc)
                .map_err(|_| InvalidSetting::new("games.tc", &g.tc, "write seconds[+increment], like 5+0.05"))?
        };
        let draw = Some(g.draw_adjudication.trim())
            .filter(|t| !t.is_empty())
            .map(str::parse::<DrawAdjudication>)
            .transpose()
            .map_err(|_| {
                InvalidSetting::new(
                    "games.draw_adjudication",
                    &g.draw_adjudication,
                    "write movenumber=N,movecount=M,score=CP",
                )
            })?;
        let resign = Some(g.resign_adjudication.trim())
            .filter(|t| !t.is_empty())
            .map(str::parse::<ResignAdjudication>)
            .transpose()
            .map_err(|_| {
                InvalidSetting::new(
                    "games.resign_adjudication",
                    &g.resign_adjudication,
                    "write movecount=M,score=CP[,twosided]",
                )
            })?;
        let book_order = g
            .book_order
            .parse::<BookOrder>()
            .map_err(|_| InvalidSetting::new("games.book_order", &g.book_order, "use random or sequential"))?;
        let concurrency = if g.concurrency == 0 {
            std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
        } else {
            g.concurrency
        };
        at_least("engine.handshake_timeout_s", self.engine.handshake_timeout_s, 1, "at least one second")?;
        Ok(Resolved {
            command,
            options,
            variant,
            limit,
            draw,
            resign,
            concurrency,
            book_order,
            handshake: Duration::from_secs(self.engine.handshake_timeout_s),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_bad_values_name_their_key() {
        SpsaConfig::default().validate().unwrap();
        let mut config = SpsaConfig::default();
        config.games.nodes = 1000;
        let err = config.validate().unwrap_err();
        assert_eq!(err.key, "games.tc");
        config.games.tc.clear();
        assert!(matches!(config.validate().unwrap().limit, Limit::Nodes(1000)));
        config.games.variant = "xiangqi".to_owned();
        assert_eq!(config.validate().unwrap_err().key, "games.variant");
    }
}
