//! `config/loop.toml`: what a loop plays, trains and gates each generation, and when it stops.
//!
//! The sections name the few settings a loop is steered by; everything else of self-play and
//! training keeps its defaults, and each generation records the complete settings it ran with
//! (`gen-NNNN/selfplay.json`, the training run's `run.json`) so that it can be run again.

use std::collections::BTreeMap;
use std::path::PathBuf;

use ferz_chess::Variant;
use ferz_settings::{InvalidSetting, at_least, check, in_range};
use serde::{Deserialize, Serialize};

/// Everything a loop needs to know.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LoopConfig {
    /// The net, the seed, the start and the stop.
    #[serde(rename = "loop")]
    pub run: RunSettings,
    /// Each generation's self-play.
    pub selfplay: SelfplaySettings,
    /// Each generation's training.
    pub train: TrainSettings,
    /// Each candidate's match against the best net.
    pub gate: GateSettings,
}

/// Which family of rules a loop improves the net of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NetFamily {
    /// The chess net: trained on chess and Chess960 games, gated in chess.
    Chess,
    /// The Shatranj net.
    Shatranj,
}

/// What generation 0 (the first best net) is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StartingPoint {
    /// The net embedded in the binary.
    Embedded,
    /// The hand-tuned evaluation (no net).
    HandTuned,
}

/// `[loop]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RunSettings {
    /// The net the loop improves.
    pub net: NetFamily,
    /// The loop's seed: every generation's self-play, training and gate seeds derive from it
    /// and the generation's number.
    pub seed: u64,
    /// Generation 0: the embedded net or the hand-tuned evaluation.
    pub start: StartingPoint,
    /// Stop after this many generations (0: never).
    pub generations: u32,
    /// Stop after this many generations in a row whose candidate was not promoted (0: never).
    pub plateau: u32,
    /// Threads for self-play and training; 0 = one per CPU.
    pub threads: usize,
    /// Also copy each promoted net to this file (for example `crates/nnue/nets/chess.nnue` of
    /// a checkout, to make it the default of the next build); empty: no copy.
    pub export: PathBuf,
}

impl RunSettings {
    /// What generation 0 is: "the embedded chess net", "the hand-tuned Shatranj evaluation".
    #[must_use]
    pub fn generation_zero(&self) -> String {
        let net = self.net_name();
        match self.start {
            StartingPoint::Embedded => format!("the embedded {net} net"),
            StartingPoint::HandTuned => format!("the hand-tuned {net} evaluation"),
        }
    }

    /// The seed of generation `g`'s self-play, training and gate openings, derived from the
    /// loop's seed.
    #[must_use]
    pub fn generation_seed(&self, g: u32) -> u64 {
        ferz_chess::SplitMix64::derive(self.seed, u64::from(g)).next_u64()
    }

    /// The loop's net as prose: "chess" (standard and Chess960) or "Shatranj".
    #[must_use]
    pub fn net_name(&self) -> &'static str {
        match self.net {
            NetFamily::Chess => "chess",
            NetFamily::Shatranj => "Shatranj",
        }
    }
}

impl NetFamily {
    /// The net files' variant.
    #[must_use]
    pub fn nnue_variant(self) -> ferz_nnue::NetVariant {
        match self {
            NetFamily::Chess => ferz_nnue::NetVariant::Chess,
            NetFamily::Shatranj => ferz_nnue::NetVariant::Shatranj,
        }
    }
}

impl Default for RunSettings {
    fn default() -> RunSettings {
        RunSettings {
            net: NetFamily::Chess,
            seed: 1,
            start: StartingPoint::Embedded,
            generations: 0,
            plateau: 0,
            threads: 0,
            export: PathBuf::new(),
        }
    }
}

/// `[selfplay]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SelfplaySettings {
    /// Games per shard.
    pub games: u64,
    /// Shards per generation (on a scheduler, one task each).
    pub shards: u32,
    /// Nodes per move.
    pub nodes: u64,
    /// Weight of chess among a chess loop's games.
    pub chess: u32,
    /// Weight of Chess960 among a chess loop's games.
    pub chess960: u32,
    /// Plies chosen among MultiPV candidates through the opening cache.
    pub multipv_plies: u32,
    /// Nodes of each of those MultiPV searches. (Records from before the key was kept were
    /// played at 50,000, its default.)
    pub multipv_nodes: u64,
    /// Uniformly random plies after those.
    pub random_plies: u32,
    /// Transposition table per worker thread, in MiB.
    pub hash_mb: usize,
    /// Search parameter values in place of the build's defaults (names as `ferz spsa params`
    /// lists them). A generation's recipe holds every parameter's value, these or the defaults
    /// of the build that began it, so that its games are played again alike by a build whose
    /// defaults were tuned since.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub params: BTreeMap<String, i32>,
}

impl Default for SelfplaySettings {
    fn default() -> SelfplaySettings {
        SelfplaySettings {
            games: 1000,
            shards: 8,
            nodes: 5000,
            chess: 1,
            chess960: 1,
            multipv_plies: 8,
            multipv_nodes: 50_000,
            random_plies: 2,
            hash_mb: 16,
            params: BTreeMap::new(),
        }
    }
}

/// Where a candidate's training starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TrainInit {
    /// From the best net's weights (fine-tuning; the hand-tuned start has none: from scratch).
    Best,
    /// From random weights.
    Scratch,
}

/// The scale a candidate plays its gate at (`train.scale`), and is promoted at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CandidateScale {
    /// The scale the trainer wrote (every recipe written before the key existed).
    Trained,
    /// The scale at which its median absolute score over the generation's positions equals the
    /// best net's ([`ferz_nnue::calibrate`]): a net trained on its predecessor's search scores
    /// scores larger than it, and the search's margins were tuned for the scores' size. Played
    /// at the trained scale when the best net is the hand-tuned evaluation.
    Best,
}

/// Which generations' data a candidate trains on (`train.window`): a number of the newest, or
/// `"best"`, every generation from the one that made the best net on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrainWindow {
    /// The newest this many generations, the one in progress among them (0: every generation).
    Newest(u32),
    /// Every generation from the one that made the best net on (from the first while the best
    /// net is generation 0): that generation's games and every game the best net has played. It
    /// grows while candidates lose their gates and begins again at a promotion, so a candidate
    /// always trains on more than the best net's last generation alone; a candidate trained from
    /// random weights wants more data than that after a promotion, which [`TrainWindow::Newest`]
    /// keeps.
    FromBest,
}

impl TrainWindow {
    /// The spelling of [`TrainWindow::FromBest`] in settings and recipes.
    const BEST: &'static str = "best";

    /// The generations generation `g` trains on when the best net is generation `best` (which
    /// was made by generation `best` and played every generation after it).
    #[must_use]
    pub fn generations(self, g: u32, best: u32) -> Vec<u32> {
        match self {
            TrainWindow::Newest(0) => (1..=g).collect(),
            TrainWindow::Newest(w) => (g.saturating_sub(w) + 1..=g).collect(),
            TrainWindow::FromBest => (best.max(1)..=g).collect(),
        }
    }
}

impl Serialize for TrainWindow {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            TrainWindow::Newest(n) => serializer.serialize_u32(*n),
            TrainWindow::FromBest => serializer.serialize_str(Self::BEST),
        }
    }
}

impl<'de> Deserialize<'de> for TrainWindow {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<TrainWindow, D::Error> {
        /// Reads a count of generations or `"best"`.
        struct WindowVisitor;

        impl serde::de::Visitor<'_> for WindowVisitor {
            type Value = TrainWindow;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(f, "a number of generations (0: all) or \"{}\"", TrainWindow::BEST)
            }

            fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<TrainWindow, E> {
                u32::try_from(n)
                    .map(TrainWindow::Newest)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(n), &self))
            }

            fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<TrainWindow, E> {
                u32::try_from(n)
                    .map(TrainWindow::Newest)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Signed(n), &self))
            }

            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<TrainWindow, E> {
                // A count written as text ("2") is refused, as for every number key (the
                // environment's numbers arrive as numbers).
                if text == TrainWindow::BEST {
                    Ok(TrainWindow::FromBest)
                } else {
                    Err(E::invalid_value(serde::de::Unexpected::Str(text), &self))
                }
            }
        }

        deserializer.deserialize_any(WindowVisitor)
    }
}

/// `[train]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TrainSettings {
    /// Where each candidate's training starts: the best net's weights or random ones.
    pub init: TrainInit,
    /// Generations of data a candidate trains on.
    pub window: TrainWindow,
    /// Datasets from outside the loop that every generation trains on too, before the loop's
    /// own (earlier rounds, imported games).
    pub extra_inputs: Vec<PathBuf>,
    /// Hidden neurons per perspective.
    pub hidden: usize,
    /// How the inputs depend on each side's king: `"plain"`, `"mirrored"` or `"king4"` (four
    /// king buckets, mirrored). A net keeps its layout, so a change needs `init = "scratch"`.
    /// Left out of the recipe when plain, as `output_buckets` is when 1.
    #[serde(with = "ferz_train::config::input_layout_name", skip_serializing_if = "ferz_train::config::is_plain")]
    pub input_layout: ferz_nnue::InputLayout,
    /// Output layers, one per bucket of piece counts. Left out of the recipe when 1, so that
    /// the recipes of earlier generations read as they were written ([`Recipe::spelled_out`]
    /// writes it in).
    #[serde(skip_serializing_if = "ferz_train::config::is_one_bucket")]
    pub output_buckets: usize,
    /// Epochs.
    pub epochs: u32,
    /// Weight of the game result in the target.
    pub lambda: f64,
    /// Peak learning rate.
    pub lr: f64,
    /// Positions per batch.
    pub batch_size: usize,
    /// The scale the candidate plays its gate at.
    pub scale: CandidateScale,
}

impl Default for TrainSettings {
    fn default() -> TrainSettings {
        TrainSettings {
            init: TrainInit::Best,
            window: TrainWindow::Newest(0),
            extra_inputs: Vec::new(),
            hidden: 256,
            input_layout: ferz_nnue::InputLayout::Plain,
            output_buckets: 1,
            // A gentle fine-tune of the best net: the chess loop's, which won its gate where
            // 10 epochs at lr 0.0005 had fitted a generation's data (docs/loops/chess.toml).
            epochs: 8,
            lambda: 0.1,
            lr: 0.0002,
            batch_size: 16384,
            scale: CandidateScale::Best,
        }
    }
}

/// `[gate]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GateSettings {
    /// Clock per side, `base+increment` in seconds; used when `nodes` is 0.
    pub tc: String,
    /// Nodes per move instead of a clock (0: play on the clock).
    pub nodes: u64,
    /// Most games; a test still undecided then fails the candidate.
    pub games: u64,
    /// Elo of H0 (normalized Elo, as fishtest).
    pub elo0: f64,
    /// Elo of H1.
    pub elo1: f64,
    /// False positive rate.
    pub alpha: f64,
    /// False negative rate.
    pub beta: f64,
    /// Games played at once.
    pub concurrency: usize,
    /// Hash of each engine, in MiB.
    pub hash_mb: u32,
    /// Opening book (EPD/FEN or PGN); empty: the start position (random Chess960 and both
    /// Shatranj arrays) with random plies.
    pub book: PathBuf,
    /// Random plies after each opening.
    pub random_plies: u32,
}

impl GateSettings {
    /// These settings with `concurrency` games at once. How many games run side by side is each
    /// run's own (the machine's), never part of a recipe: the games are the same either way.
    #[must_use]
    pub fn with_concurrency(&self, concurrency: usize) -> GateSettings {
        GateSettings { concurrency, ..self.clone() }
    }
}

impl Default for GateSettings {
    fn default() -> GateSettings {
        GateSettings {
            tc: "10+0.1".to_owned(),
            nodes: 0,
            games: 1000,
            elo0: 0.0,
            elo1: 10.0,
            alpha: 0.05,
            beta: 0.05,
            concurrency: 1,
            hash_mb: 64,
            book: PathBuf::new(),
            random_plies: 6,
        }
    }
}

impl LoopConfig {
    /// Checks every value; the error names the key.
    ///
    /// # Errors
    /// The first value that cannot work.
    pub fn validate(&self) -> Result<(), InvalidSetting> {
        let (s, t, g) = (&self.selfplay, &self.train, &self.gate);
        at_least("selfplay.games", s.games, 1, "play at least one game a shard")?;
        at_least("selfplay.shards", s.shards, 1, "use at least one shard")?;
        at_least("selfplay.nodes", s.nodes, 1, "search at least one node a move")?;
        if self.run.net == NetFamily::Chess {
            check(s.chess + s.chess960 > 0, "selfplay.chess", s.chess, "chess and chess960 cannot both be 0")?;
        }
        at_least("selfplay.multipv_nodes", s.multipv_nodes, 1, "search at least one node")?;
        at_least("selfplay.hash_mb", s.hash_mb, 1, "use at least 1 MiB")?;
        ferz_selfplay::config::check_search_params("selfplay.params", &s.params)?;
        in_range("train.hidden", t.hidden, 1..=4096, "use 1 to 4096 (the net file's limit)")?;
        in_range(
            "train.output_buckets",
            t.output_buckets,
            1..=ferz_nnue::MAX_OUTPUT_BUCKETS,
            "use 1 to 8 (the net file's limit)",
        )?;
        at_least("train.epochs", t.epochs, 1, "train at least one epoch")?;
        in_range("train.lambda", t.lambda, 0.0..=1.0, "use a weight from 0 to 1")?;
        check(t.lr > 0.0 && t.lr.is_finite(), "train.lr", t.lr, "use a positive learning rate")?;
        at_least("train.batch_size", t.batch_size, 1, "use at least one position a batch")?;
        if g.nodes == 0 {
            check(
                ferz_arena::Limit::parse_clock(&g.tc).is_ok(),
                "gate.tc",
                &g.tc,
                "write base+increment in seconds, like 10+0.1 (or set gate.nodes)",
            )?;
        }
        at_least("gate.games", g.games, 2, "play at least one pair of games")?;
        check(
            ferz_arena::Sprt::new(g.elo0, g.elo1, g.alpha, g.beta, ferz_arena::SprtModel::Normalized).is_ok(),
            "gate.elo0",
            g.elo0,
            "elo0 must be below elo1, both within ±200 (normalized Elo), alpha and beta between 0 and 1 with alpha + beta below 1",
        )?;
        at_least("gate.concurrency", g.concurrency, 1, "play at least one game at a time")?;
        at_least("gate.hash_mb", g.hash_mb, 1, "use at least 1 MiB")?;
        Ok(())
    }

    /// These settings with `began`'s identity: the net, the seed and the starting point, the
    /// only settings a loop keeps from its first run to its last (the generations' seeds and
    /// their chain of best nets derive from them). Everything else may change between runs:
    /// when the loop stops and how many cores it uses at once, and its [`Recipe`] from the next
    /// generation on.
    #[must_use]
    pub fn with_identity_of(&self, began: &LoopConfig) -> LoopConfig {
        let mut merged = self.clone();
        merged.run.net = began.run.net;
        merged.run.seed = began.run.seed;
        merged.run.start = began.run.start;
        merged
    }

    /// What these settings make a generation with, the search parameters in full.
    #[must_use]
    pub fn recipe(&self) -> Recipe {
        let variant = match self.run.net {
            NetFamily::Chess => Variant::Chess,
            NetFamily::Shatranj => Variant::Shatranj,
        };
        let params = ferz_engine::params::values_with(variant, &self.selfplay.params);
        Recipe {
            selfplay: SelfplaySettings { params, ..self.selfplay.clone() },
            train: self.train.clone(),
            gate: self.gate.clone(),
        }
    }

    /// These settings with a generation's recipe in place of their own, but for the number of
    /// games the gate plays at once, which is this run's.
    #[must_use]
    pub fn with_recipe(&self, recipe: &Recipe) -> LoopConfig {
        let mut merged = self.clone();
        merged.selfplay = recipe.selfplay.clone();
        merged.train = recipe.train.clone();
        merged.gate = recipe.gate.with_concurrency(self.gate.concurrency);
        merged
    }
}

/// What a generation is made with: its self-play, training and gate settings. A generation keeps
/// the self-play settings it began with, and the training and gate settings from when each of
/// those stages begins, whatever later runs ask for; the ledger records each generation's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RecordedRecipe")]
pub struct Recipe {
    /// `[selfplay]`.
    pub selfplay: SelfplaySettings,
    /// `[train]`.
    pub train: TrainSettings,
    /// `[gate]`.
    pub gate: GateSettings,
}

/// A recipe as a record holds it (unknown keys refused here, as `Recipe` reads through it).
/// Recipes written before `train.scale` existed played their candidates at the trained scale:
/// read so, whatever today's default.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RecordedRecipe {
    selfplay: SelfplaySettings,
    train: serde_json::Map<String, serde_json::Value>,
    gate: GateSettings,
}

impl TryFrom<RecordedRecipe> for Recipe {
    type Error = String;

    fn try_from(recorded: RecordedRecipe) -> Result<Recipe, String> {
        let mut train = recorded.train;
        train.entry("scale").or_insert_with(|| serde_json::to_value(CandidateScale::Trained).expect("serialises"));
        let train = serde_json::from_value(serde_json::Value::Object(train)).map_err(|e| format!("train: {e}"))?;
        Ok(Recipe { selfplay: recorded.selfplay, train, gate: recorded.gate })
    }
}

impl Recipe {
    /// The recipe as JSON with the settings its record leaves out at their defaults (see the
    /// `skip_serializing_if` attributes above) written in, so that a comparison of two recipes
    /// shows both values of such a setting. The search parameters are the values played, those
    /// added after the record was written at their value from before them
    /// ([`ferz_engine::params::as_played`]), and stay left out when empty: a record without them
    /// predates them. The games the gate plays at once are left out: they are the run's, not the
    /// recipe's ([`GateSettings::with_concurrency`]).
    #[must_use]
    pub fn spelled_out(&self) -> serde_json::Value {
        let mut json = serde_json::to_value(self).expect("recipes serialise");
        if !self.selfplay.params.is_empty() {
            json["selfplay"]["params"] = serde_json::to_value(ferz_engine::params::as_played(&self.selfplay.params))
                .expect("parameters serialise");
        }
        json["train"]["output_buckets"] = self.train.output_buckets.into();
        json["train"]["input_layout"] = self.train.input_layout.name().into();
        if let Some(gate) = json["gate"].as_object_mut() {
            gate.remove("concurrency");
        }
        json
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_valid_and_bad_values_name_their_key() {
        LoopConfig::default().validate().unwrap();
        let mut config = LoopConfig::default();
        config.gate.tc = "fast".into();
        assert_eq!(config.validate().unwrap_err().key, "gate.tc");
        let mut config = LoopConfig::default();
        config.gate.elo1 = -1.0;
        assert_eq!(config.validate().unwrap_err().key, "gate.elo0");
        let mut config = LoopConfig::default();
        config.selfplay.chess = 0;
        config.selfplay.chess960 = 0;
        assert_eq!(config.validate().unwrap_err().key, "selfplay.chess");
        let mut config = LoopConfig::default();
        config.train.output_buckets = 9;
        assert_eq!(config.validate().unwrap_err().key, "train.output_buckets");
    }

    /// A recipe keeps `train.output_buckets` only when the net has several, so that the recipes
    /// in ledgers written before buckets existed compare equal to today's.
    #[test]
    fn one_output_bucket_is_left_out_of_the_recipe() {
        let mut train = TrainSettings::default();
        assert!(!serde_json::to_string(&train).unwrap().contains("output_buckets"));
        train.output_buckets = 8;
        assert!(serde_json::to_string(&train).unwrap().contains("\"output_buckets\":8"));
        assert!(!serde_json::to_string(&train).unwrap().contains("input_layout"));
        train.input_layout = ferz_nnue::InputLayout::King4;
        assert!(serde_json::to_string(&train).unwrap().contains("\"input_layout\":\"king4\""));
    }

    /// Loads `[train]` settings of a loop from `toml`, with the environment `env`.
    fn load_train(toml: &str, env: &[(&str, &str)]) -> Result<TrainSettings, String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("loop.toml");
        std::fs::write(&path, format!("[train]\n{toml}\n")).unwrap();
        let env = env.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        ferz_settings::load::<LoopConfig>(Some(&path), &path, &env).map(|(c, _)| c.train).map_err(|e| e.to_string())
    }

    /// `train.window` is a count, as every recipe before `"best"` wrote it, or `"best"`: in a
    /// settings file, in the environment, and in a recipe.
    #[test]
    fn a_window_is_a_count_or_the_best_nets_games() {
        for (toml, window) in
            [("2", TrainWindow::Newest(2)), ("0", TrainWindow::Newest(0)), ("\"best\"", TrainWindow::FromBest)]
        {
            let train = load_train(&format!("window = {toml}"), &[]).unwrap();
            assert_eq!(train.window, window);
            let json = serde_json::to_string(&train).unwrap();
            assert_eq!(serde_json::from_str::<TrainSettings>(&json).unwrap().window, window);
        }
        assert_eq!(load_train("", &[("FERZ__TRAIN__WINDOW", "best")]).unwrap().window, TrainWindow::FromBest);
        assert_eq!(load_train("", &[("FERZ__TRAIN__WINDOW", "3")]).unwrap().window, TrainWindow::Newest(3));
        assert!(serde_json::to_string(&TrainSettings::default()).unwrap().contains("\"window\":0"));
        for bad in ["-1", "\"newest\"", "\"2\"", "2.5"] {
            let error = load_train(&format!("window = {bad}"), &[]).unwrap_err();
            assert!(error.contains("a number of generations (0: all) or \"best\""), "{bad}: {error}");
            assert!(error.contains("window"), "{bad}: {error}");
        }
    }

    /// `train.scale` is `"best"` in new settings, and a recipe written before the key existed
    /// reads as the trained scale its candidate played at.
    #[test]
    fn a_recipe_without_a_scale_played_at_the_trained_one() {
        assert_eq!(LoopConfig::default().train.scale, CandidateScale::Best);
        assert_eq!(load_train("scale = \"trained\"", &[]).unwrap().scale, CandidateScale::Trained);
        assert_eq!(load_train("", &[("FERZ__TRAIN__SCALE", "trained")]).unwrap().scale, CandidateScale::Trained);
        let error = load_train("scale = \"large\"", &[]).unwrap_err();
        assert!(error.contains("scale") && error.contains("large"), "{error}");

        let recipe = LoopConfig::default().recipe();
        let mut json = serde_json::to_value(&recipe).unwrap();
        assert_eq!(json["train"]["scale"], "best");
        assert_eq!(serde_json::from_value::<Recipe>(json.clone()).unwrap(), recipe);
        json["train"].as_object_mut().unwrap().remove("scale");
        let old = serde_json::from_value::<Recipe>(json.clone()).unwrap();
        assert_eq!(old.train.scale, CandidateScale::Trained);
        assert_eq!(Recipe { train: TrainSettings { scale: CandidateScale::Best, ..old.train }, ..old }, recipe);
        // The record's other keys are still checked, at the top and inside `train`.
        let mut top = json.clone();
        top["trian"] = serde_json::json!({});
        let error = serde_json::from_value::<Recipe>(top).unwrap_err().to_string();
        assert!(error.contains("trian"), "{error}");
        json["train"]["epochz"] = 3.into();
        let error = serde_json::from_value::<Recipe>(json).unwrap_err().to_string();
        assert!(error.contains("epochz"), "{error}");
    }

    /// A recipe recorded before `LMR_TT_CAPTURE` existed is kept as written and spelled out as
    /// it plays, without the reduction; one that names it, or that names no parameter, is
    /// spelled out as it is.
    #[test]
    fn a_recipe_from_before_a_search_parameter_existed_is_spelled_out_with_its_value_from_then() {
        let recipe = LoopConfig::default().recipe();
        assert_eq!(recipe.spelled_out()["selfplay"]["params"]["LMR_TT_CAPTURE"], 1, "the build's default");
        let mut json = serde_json::to_value(&recipe).unwrap();
        json["selfplay"]["params"].as_object_mut().unwrap().remove("LMR_TT_CAPTURE");
        let old = serde_json::from_value::<Recipe>(json.clone()).unwrap();
        assert!(!old.selfplay.params.contains_key("LMR_TT_CAPTURE"), "the record as written");
        assert_eq!(old.spelled_out()["selfplay"]["params"]["LMR_TT_CAPTURE"], 0);
        json["selfplay"]["params"] = serde_json::json!({});
        let none = serde_json::from_value::<Recipe>(json).unwrap();
        assert!(none.spelled_out()["selfplay"].get("params").is_none());
    }

    #[test]
    fn each_window_picks_its_generations() {
        assert_eq!(TrainWindow::Newest(0).generations(3, 0), [1, 2, 3]);
        assert_eq!(TrainWindow::Newest(2).generations(7, 5), [6, 7]);
        assert_eq!(TrainWindow::Newest(2).generations(1, 0), [1]);
        // Generation 5 made the best net; every generation after it was played by that net.
        assert_eq!(TrainWindow::FromBest.generations(6, 5), [5, 6]);
        assert_eq!(TrainWindow::FromBest.generations(8, 5), [5, 6, 7, 8]);
        assert_eq!(TrainWindow::FromBest.generations(2, 0), [1, 2]);
    }
}
