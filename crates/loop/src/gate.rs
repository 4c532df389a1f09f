//! The gate: a candidate against the best net, at the recipe's fixed nodes or clock, until an
//! SPRT decides; a generation's own candidate, or a net made outside the loop ([`gate_net`]),
//! which plays the same games.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Duration;

use ferz_arena::{
    BookOrder, DrawAdjudication, EngineCommand, EngineConfig, EngineOption, GameSettings, Limit, MatchConfig,
    OpeningSettings, ResignAdjudication, Sprt, SprtModel, SprtStatus, Timeouts, load_book, load_played, run_match,
    schedule,
};
use ferz_chess::Variant;
use ferz_dataset::manifest::{first_difference, write_json_if_absent};
use serde::{Deserialize, Serialize};

use crate::config::{GateSettings, LoopConfig, NetFamily, StartingPoint};
use crate::layout::{generation_dir, hash, read, write};
use crate::ledger::{GateRecord, Ledger, NetRef, Verdict};
use crate::{Control, LoopError, Progress, Stage, fault};

/// What a gate at fixed nodes cannot see: a net of another size searches at another speed, so
/// the same nodes cost them different time. `None` when the gate plays on the clock or the two
/// nets have the same size.
pub(crate) fn size_caveat(
    dir: &Path,
    settings: &LoopConfig,
    candidate: &Path,
    best: &NetRef,
) -> Result<Option<String>, LoopError> {
    if settings.gate.nodes == 0 {
        return Ok(None);
    }
    let Some(best_path) = best.path(dir) else { return Ok(None) };
    let hidden = |path: &Path| {
        ferz_nnue::format::load(path, None)
            .map(|net| net.hidden())
            .map_err(|e| LoopError::Stage { stage: Stage::Gate, reason: e.to_string() })
    };
    let (ours, theirs) = (hidden(candidate)?, hidden(&best_path)?);
    Ok((ours != theirs).then(|| {
        format!(
            "the candidate has {ours} hidden neurons, gen {} {theirs}: at fixed nodes the slower net's \
             search costs it nothing (gate.nodes = 0 plays on the clock)",
            best.generation
        )
    }))
}

/// The gate's match: the candidate as engine A, the best net as B, one thread each.
pub(crate) fn gate_config(
    dir: &Path,
    settings: &LoopConfig,
    g: u32,
    candidate: &GateCandidate,
    best: &NetRef,
    ferz: &Path,
    files: &GateFiles,
) -> Result<MatchConfig, LoopError> {
    let gate = &settings.gate;
    let (variant, eval_option) = match settings.run.net {
        NetFamily::Chess => (Variant::Chess, "EvalFile"),
        NetFamily::Shatranj => (Variant::Shatranj, "EvalFileShatranj"),
    };
    let absolute = |path: &Path| std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let engine = |name: String, net: Option<PathBuf>, hand_tuned: bool| {
        let mut options = vec![EngineOption::new("Hash", gate.hash_mb.to_string()), EngineOption::new("Threads", "1")];
        // Both sides search with the generation's values, as its self-play did (a recipe from
        // before recipes held them has none: the build's defaults).
        if !settings.selfplay.params.is_empty() {
            options.push(EngineOption::new("ParamsFile", absolute(&files.params).display().to_string()));
        }
        if let Some(net) = net {
            options.push(EngineOption::new(eval_option, absolute(&net).display().to_string()));
        }
        if hand_tuned {
            options.push(EngineOption::new("UseNNUE", "false"));
        }
        EngineConfig { command: EngineCommand::Ferz, options, name: Some(name), ponder: false }
    };
    let best_engine = engine(
        format!("gen-{}", best.generation),
        best.file.as_ref().map(|f| dir.join(f)),
        best.generation == 0 && settings.run.start == StartingPoint::HandTuned,
    );
    let limit = if gate.nodes > 0 {
        Limit::Nodes(gate.nodes)
    } else {
        Limit::parse_clock(&gate.tc).map_err(|e| LoopError::Stage { stage: Stage::Gate, reason: e.to_string() })?
    };
    let book = if gate.book.as_os_str().is_empty() {
        None
    } else {
        Some(
            load_book(&gate.book, variant, None)
                .map_err(|e| LoopError::Stage { stage: Stage::Gate, reason: e.to_string() })?,
        )
    };
    let openings = schedule(
        book.as_deref(),
        &OpeningSettings {
            variant,
            order: if book.is_some() { BookOrder::Random } else { BookOrder::Sequential },
            seed: settings.run.generation_seed(g),
            start: 0,
            random_plies: gate.random_plies,
        },
        gate.games.div_ceil(2) as usize,
    );
    let sprt = Sprt::new(gate.elo0, gate.elo1, gate.alpha, gate.beta, SprtModel::Normalized)
        .map_err(|e| LoopError::Stage { stage: Stage::Gate, reason: e.to_string() })?;
    Ok(MatchConfig {
        engines: [engine(candidate.name.clone(), Some(candidate.net.clone()), false), best_engine],
        variant,
        openings,
        concurrency: gate.concurrency,
        game: GameSettings {
            limit,
            time_margin: Duration::from_millis(50),
            stall_timeout: Duration::from_secs(60),
            max_plies: Some(400),
            // The adjudication of the nets' earlier SPRTs: both engines agree the game is
            // drawn, or one side's own score says it is lost.
            draw_adjudication: Some(DrawAdjudication { move_number: 40, move_count: 8, score: 10 }),
            resign_adjudication: Some(ResignAdjudication { move_count: 3, score: 1000, two_sided: true }),
        },
        timeouts: Timeouts::default(),
        pgn: Some(files.pgn.clone()),
        pgn_comments: true,
        sprt: Some(sprt),
        event: format!("ferz loop gate, generation {g}"),
        self_exe: ferz.to_path_buf(),
    })
}

/// A gate's games, continued when it is run again.
const PGN_FILE: &str = "games.pgn";
/// A gate's decision, written when the match has decided.
const VERDICT_FILE: &str = "verdict.json";
/// The recipe's search parameters as a params file, for the gate's engines (`ParamsFile`).
const PARAMS_FILE: &str = "search.params";

/// The net a gate tries, and its name in the gate's PGN.
pub(crate) struct GateCandidate {
    pub(crate) net: PathBuf,
    pub(crate) name: String,
}

/// Where a gate keeps its games, its verdict and the search parameters both engines read.
pub struct GateFiles {
    /// The games, resumed from when the gate is run again.
    pub pgn: PathBuf,
    /// The decision ([`GateRecord`]), written when the match has decided.
    pub verdict: PathBuf,
    /// The recipe's search parameters as a params file (`ParamsFile`).
    pub params: PathBuf,
}

impl GateFiles {
    /// A generation's gate: `gate/games.pgn`, `gate/verdict.json` and `search.params` (beside
    /// the generation's other records, as before gates of their own existed).
    #[must_use]
    pub fn of_generation(gen_dir: &Path) -> GateFiles {
        GateFiles { params: gen_dir.join(PARAMS_FILE), ..GateFiles::in_dir(&gen_dir.join("gate")) }
    }

    /// A gate of its own in `dir`: `games.pgn`, `verdict.json` and `search.params` (and
    /// `gate.json`, what it gates, written by [`gate_net`]).
    #[must_use]
    pub fn in_dir(dir: &Path) -> GateFiles {
        GateFiles { pgn: dir.join(PGN_FILE), verdict: dir.join(VERDICT_FILE), params: dir.join(PARAMS_FILE) }
    }
}

/// The file in a [`gate_net`] directory that says what it gates.
const OUTSIDE_GATE_FILE: &str = "gate.json";

/// What a [`gate_net`] directory gates: the net, the generation whose gate it plays, the best net
/// it meets and the gate's settings.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct OutsideGate {
    net_sha256: String,
    generation: u32,
    best: NetRef,
    /// The recipe's gate settings: a generation's `[gate]` may change until its own gate begins,
    /// and games played with others must not be continued. (None in a file from before they were
    /// recorded, which is not checked.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    settings: Option<GateSettings>,
}

impl OutsideGate {
    /// Whether `self`, read from a gate's directory, is the gate `now` would play.
    fn continued_by(&self, now: &OutsideGate) -> bool {
        self.net_sha256 == now.net_sha256
            && self.generation == now.generation
            && self.best == now.best
            && self.settings_differ(now).is_none()
    }

    /// The first gate setting `now` plays with that `self` was not played with, as (dotted key,
    /// value played, value now); the concurrency is not compared. A file without settings is not
    /// checked.
    fn settings_differ(&self, now: &OutsideGate) -> Option<(String, String, String)> {
        let played_as =
            |settings: &GateSettings| serde_json::to_value(settings.with_concurrency(1)).expect("settings serialise");
        match (&self.settings, &now.settings) {
            (Some(was), Some(now)) => first_difference(&played_as(was), &played_as(now), "gate"),
            _ => None,
        }
    }
}

/// Plays a gate until its SPRT decides or its games are played, continuing its PGN; `None` when
/// a stop was asked for first. Writes the params file its engines read, not the verdict.
pub(crate) fn play_gate(
    config: &MatchConfig,
    settings: &LoopConfig,
    g: u32,
    files: &GateFiles,
    control: &Control,
    progress: &mut dyn FnMut(Progress),
) -> Result<Option<GateRecord>, LoopError> {
    if let Some(parent) = files.pgn.parent() {
        std::fs::create_dir_all(parent).map_err(|source| LoopError::Io { path: parent.to_path_buf(), source })?;
    }
    if !settings.selfplay.params.is_empty() {
        write_params_file(&files.params, g, &settings.selfplay.params)?;
    }
    let played = if files.pgn.exists() {
        load_played(&files.pgn, config.variant, &config.openings)
            .map_err(|e| LoopError::Stage { stage: Stage::Gate, reason: e.to_string() })?
    } else {
        Vec::new()
    };
    // A decided SPRT sets `abort` to end its match: clear what the last gate left (a stop
    // asked for since is in `signals.stop` and returns above or below).
    control.gate.abort.store(false, Ordering::SeqCst);
    control.gate.drain.store(control.stopping(), Ordering::SeqCst);
    let mut log = GateLog { generation: g, games: 0, progress, line: Vec::new() };
    let summary = run_match(config, &played, &control.gate, &mut log)
        .map_err(|e| LoopError::Stage { stage: Stage::Gate, reason: e.to_string() })?;
    if control.stopping() && summary.unfinished() {
        return Ok(None);
    }
    let (sprt, llr) = summary.sprt.expect("the gate runs an SPRT");
    let verdict = match sprt.status(llr) {
        SprtStatus::AcceptH1 => Verdict::AcceptH1,
        SprtStatus::AcceptH0 => Verdict::AcceptH0,
        SprtStatus::Continue => Verdict::Inconclusive,
    };
    let elo = summary.penta.elo().or_else(|| summary.wdl.elo());
    Ok(Some(GateRecord {
        games: summary.games(),
        wins: summary.wdl.wins,
        draws: summary.wdl.draws,
        losses: summary.wdl.losses,
        elo: elo.map_or(0.0, |e| e.elo),
        elo_low: elo.map_or(0.0, |e| e.low),
        elo_high: elo.map_or(0.0, |e| e.high),
        llr,
        llr_bounds: sprt.bounds(),
        verdict,
    }))
}

/// A gate of a net made outside the loop (by hand, or by another trainer on the loop's data):
/// `net` against the loop's best net exactly as the loop gates its own candidates, with the
/// recipe of the generation in progress (or, before it begins, of the next one), its search
/// parameters and its opening seed. Its files are in `out` ([`GateFiles::in_dir`]); the loop's
/// directory is only read. Run again, it continues the PGN, or returns the verdict it wrote (also
/// once the loop has moved on).
/// Returns the generation whose gate it played and the verdict, `None` when a stop was asked
/// for first.
///
/// # Errors
/// A loop without a ledger, a best net that is not the ledger's, a file that is not a net of
/// the loop's variant, or a match that fails.
pub fn gate_net(
    dir: &Path,
    ledger: &Ledger,
    net: &Path,
    out: &Path,
    ferz: &Path,
    control: &Control,
    progress: &mut dyn FnMut(Progress),
) -> Result<Option<(u32, GateRecord)>, LoopError> {
    let g = ledger.generations.len() as u32 + 1;
    let (settings, player) = ledger.made_with(dir, g)?;
    let variant = settings.run.net.nnue_variant();
    ferz_nnue::format::load(net, Some(variant))
        .map_err(|e| LoopError::Stage { stage: Stage::Gate, reason: e.to_string() })?;
    player.check(dir)?;
    let files = GateFiles::in_dir(out);
    // What `out` gates, written before its first game: a run that would continue another net's
    // games, or another generation's gate, is refused, and so is a directory holding a gate this
    // command did not begin (a generation's own `gate/`, say).
    let this_gate = OutsideGate {
        net_sha256: hash(net)?,
        generation: g,
        best: player.clone(),
        settings: Some(settings.gate.clone()),
    };
    let gate_path = out.join(OUTSIDE_GATE_FILE);
    if !gate_path.exists() && (files.pgn.exists() || files.verdict.exists()) {
        return Err(LoopError::Ledger {
            path: out.to_path_buf(),
            reason: format!("holds a gate's games or verdict but no {OUTSIDE_GATE_FILE}: give another --out"),
        });
    }
    std::fs::create_dir_all(out).map_err(|source| LoopError::Io { path: out.to_path_buf(), source })?;
    if !write_json_if_absent(&gate_path, &this_gate)
        .map_err(|source| LoopError::Io { path: gate_path.clone(), source })?
    {
        let began: OutsideGate = read(&gate_path)?;
        // A decided gate of this net stays its verdict, whatever the loop has done since.
        if began.net_sha256 == this_gate.net_sha256 && files.verdict.exists() {
            return Ok(Some((began.generation, read(&files.verdict)?)));
        }
        if !began.continued_by(&this_gate) {
            let settings_now = began
                .settings_differ(&this_gate)
                .map(|(key, was, now)| format!(" with {key} = {was}; the recipe now says {now}"))
                .unwrap_or_default();
            return Err(LoopError::Ledger {
                path: gate_path,
                reason: format!(
                    "this directory holds the gate of the net with SHA-256 {} against generation {}'s best net \
                     (gen {}){settings_now}; now it would gate SHA-256 {} in generation {} against gen {}: give \
                     another --out",
                    began.net_sha256,
                    began.generation,
                    began.best.generation,
                    this_gate.net_sha256,
                    this_gate.generation,
                    this_gate.best.generation
                ),
            });
        }
    }
    let name = net.file_stem().map_or_else(|| "candidate".to_owned(), |stem| stem.to_string_lossy().into_owned());
    let mut detail = format!("{name} vs gen {} with generation {g}'s gate", player.generation);
    if let Some(caveat) = size_caveat(dir, &settings, net, &player)? {
        detail.push_str("; ");
        detail.push_str(&caveat);
    }
    progress(Progress::Stage { generation: g, stage: Stage::Gate, detail });
    // The net as the loop would play its own candidate: at the best net's scale with
    // `train.scale = "best"`, matched on the newest merged data (that of the generation in
    // progress once its self-play is done) when the gate begins. The copy made then plays to the
    // gate's end, whatever data a later generation merges.
    let copy = out.join(crate::scale::CANDIDATE_FILE);
    let playing = if copy.exists() {
        copy
    } else {
        let newest_data = (1..=g)
            .rev()
            .map(|d| generation_dir(dir, d).join("data"))
            .find(|data| data.join(ferz_dataset::layout::MANIFEST_FILE).exists())
            .unwrap_or_else(|| generation_dir(dir, g).join("data"));
        let scaled = crate::scale::candidate_net(dir, &newest_data, &settings, net, &player, &copy)?;
        if !scaled.detail.is_empty() {
            progress(Progress::Stage { generation: g, stage: Stage::Gate, detail: scaled.detail });
        }
        scaled.path
    };
    let candidate = GateCandidate { net: playing, name };
    let config = gate_config(dir, &settings, g, &candidate, &player, ferz, &files)?;
    let Some(record) = play_gate(&config, &settings, g, &files, control, progress)? else { return Ok(None) };
    write(&files.verdict, &record)?;
    Ok(Some((g, record)))
}

/// Writes `params` as a params file (`NAME = value` lines) through a temporary file and a rename.
fn write_params_file(path: &Path, g: u32, params: &BTreeMap<String, i32>) -> Result<(), LoopError> {
    let mut text = format!("# The search parameters of generation {g}'s recipe (selfplay.params)\n");
    for (name, value) in params {
        text.push_str(&format!("{name} = {value}\n"));
    }
    ferz_files::write_atomic(path, text.as_bytes()).map_err(|source| LoopError::Io { path: path.to_path_buf(), source })
}

/// The gate's log: each line to the loop's progress, the fault point after each game.
struct GateLog<'a> {
    generation: u32,
    games: u64,
    progress: &'a mut dyn FnMut(Progress),
    line: Vec<u8>,
}

impl std::io::Write for GateLog<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        for &b in bytes {
            if b != b'\n' {
                self.line.push(b);
                continue;
            }
            let line = String::from_utf8_lossy(&self.line).into_owned();
            self.line.clear();
            if line.starts_with("Finished game") {
                self.games += 1;
                fault::point("gate", self.games);
            }
            (self.progress)(Progress::Gate { generation: self.generation, line });
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gate_plays_with_the_search_parameters_of_the_generations_recipe() {
        let tmp = tempfile::tempdir().unwrap();
        let mut settings = LoopConfig::default();
        settings.gate.nodes = 100;
        let best = NetRef { generation: 0, file: None, sha256: None };
        let params_files = |settings: &LoopConfig| {
            let candidate = GateCandidate { net: PathBuf::from("candidate.nnue"), name: "gen-3".to_owned() };
            let files = GateFiles::of_generation(&crate::layout::generation_dir(tmp.path(), 3));
            let config = gate_config(tmp.path(), settings, 3, &candidate, &best, Path::new("ferz"), &files);
            let engines = config.unwrap().engines;
            engines
                .iter()
                .map(|e| e.options.iter().find(|o| o.name == "ParamsFile").map(|o| PathBuf::from(&o.value)))
                .collect::<Vec<_>>()
        };
        let files = params_files(&settings.with_recipe(&settings.recipe()));
        let expected = std::path::absolute(tmp.path().join("gen-0003").join(PARAMS_FILE)).unwrap();
        assert_eq!(files, [Some(expected.clone()), Some(expected)]);
        assert_eq!(params_files(&settings), [None, None], "a recipe without them: the build's defaults");

        let values = settings.recipe().selfplay.params;
        let file = tmp.path().join(PARAMS_FILE);
        write_params_file(&file, 3, &values).unwrap();
        let read = ferz_engine::params::parse_params(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let written: BTreeMap<String, i32> = read.into_iter().map(|(name, v)| (name, v as i32)).collect();
        assert_eq!(written, values, "the file the engine reads holds the recipe's values");
    }
}
