//! `ferz loop status`: where a loop stands, read from its directory without changing anything
//! (safe beside a running loop): the finished generations in brief, and how far each stage of
//! the generation in progress got.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use ferz_dataset::layout::{CHECKPOINT_FILE, MANIFEST_FILE, shard_dir};
use ferz_dataset::manifest::{DatasetManifest, ShardManifest};
use ferz_selfplay::checkpoint::Checkpoint;

use crate::clock::StageClock;
use crate::config::{LoopConfig, Recipe};
use crate::cpu::StageTime;
use crate::gate::GateFiles;
use crate::layout::{generation_dir, read, selfplay_dir, train_dir};
use crate::ledger::{GateRecord, GenerationRecord, Ledger, NetRef, generations, read_losses};
use crate::{LoopError, Stage};

/// A loop directory's state.
#[derive(Clone, Debug)]
pub struct LoopStatus {
    /// The newest run's settings (the loop's net, seed and start among them).
    pub settings: LoopConfig,
    /// The finished generations.
    pub finished: Vec<GenerationRecord>,
    /// The best net.
    pub best: NetRef,
    /// What generation 0 is (with its net's SHA-256 when it is a net).
    pub generation_zero: String,
    /// The generation after the finished ones.
    pub next: NextGeneration,
}

/// The generation after the finished ones.
#[derive(Clone, Debug)]
pub enum NextGeneration {
    /// Its directory does not exist yet.
    NotBegun(u32),
    /// It has begun.
    InProgress(Box<GenerationStatus>),
}

/// How far a generation in progress got.
#[derive(Clone, Debug)]
pub struct GenerationStatus {
    /// The generation.
    pub generation: u32,
    /// The recipe it is made with ([`Ledger::made_with`]).
    pub recipe: Recipe,
    /// Each shard's games written so far (0 for a shard not begun), in shard order.
    pub shard_games: Vec<u64>,
    /// Positions the shards have written so far.
    pub selfplay_positions: u64,
    /// Shards complete.
    pub shards_complete: u32,
    /// Positions of the merged dataset, once merged.
    pub merged_positions: Option<u64>,
    /// Training epochs finished.
    pub epochs_done: u32,
    /// Gate games in its PGN.
    pub gate_games: u64,
    /// The gate's decision, once made.
    pub verdict: Option<GateRecord>,
    /// Time per stage so far (saved every 30 s while a stage runs).
    pub stages: BTreeMap<Stage, StageTime>,
}

/// Reads the state of the loop in `dir`.
///
/// # Errors
/// No ledger (not a loop directory) or a record that cannot be read, naming the file.
pub fn status(dir: &Path) -> Result<LoopStatus, LoopError> {
    let ledger = Ledger::load_existing(dir)?;
    let g = ledger.generations.len() as u32 + 1;
    let gen_dir = generation_dir(dir, g);
    let next = if gen_dir.is_dir() {
        let (settings, _) = ledger.made_with(dir, g)?;
        NextGeneration::InProgress(Box::new(generation_status(&gen_dir, g, settings.recipe())?))
    } else {
        NextGeneration::NotBegun(g)
    };
    Ok(LoopStatus {
        best: ledger.best(),
        generation_zero: ledger.generation_zero(),
        finished: ledger.generations,
        settings: ledger.settings,
        next,
    })
}

fn generation_status(gen_dir: &Path, generation: u32, recipe: Recipe) -> Result<GenerationStatus, LoopError> {
    let shards = selfplay_dir(gen_dir);
    let mut shard_games = Vec::new();
    let mut selfplay_positions = 0;
    let mut shards_complete = 0;
    for index in 0..recipe.selfplay.shards {
        let shard = shard_dir(&shards, index);
        let (games, positions) = if shard.join(MANIFEST_FILE).exists() {
            shards_complete += 1;
            let tally = read::<ShardManifest>(&shard.join(MANIFEST_FILE))?.tally;
            (tally.games, tally.positions())
        } else if shard.join(CHECKPOINT_FILE).exists() {
            let checkpoint = read::<Checkpoint>(&shard.join(CHECKPOINT_FILE))?;
            (checkpoint.games_done, checkpoint.tally.positions())
        } else {
            (0, 0)
        };
        shard_games.push(games);
        selfplay_positions += positions;
    }
    // The manifest alone: a status check should not hash the whole dataset.
    let merged = gen_dir.join("data").join(MANIFEST_FILE);
    let merged_positions =
        if merged.exists() { Some(read::<DatasetManifest>(&merged)?.tally.positions()) } else { None };
    let losses = train_dir(gen_dir).join(ferz_train::trainer::LOSS_FILE);
    let epochs_done = if losses.exists() { read_losses(&losses)?.len() as u32 } else { 0 };
    let GateFiles { pgn, verdict, .. } = GateFiles::of_generation(gen_dir);
    let gate_games = if pgn.exists() {
        ferz_dataset::verify::count_pgn_games(&pgn).map_err(|source| LoopError::Io { path: pgn.clone(), source })?
    } else {
        0
    };
    let verdict = if verdict.exists() { Some(read(&verdict)?) } else { None };
    let stages = StageClock::open(gen_dir, crate::clock::SAVE_INTERVAL)?.times();
    Ok(GenerationStatus {
        generation,
        recipe,
        shard_games,
        selfplay_positions,
        shards_complete,
        merged_positions,
        epochs_done,
        gate_games,
        verdict,
        stages,
    })
}

impl fmt::Display for LoopStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let run = &self.settings.run;
        let start = &self.generation_zero;
        writeln!(f, "seed {}, generation 0: {start}", run.seed)?;
        let best = match &self.best.file {
            Some(file) if self.best.generation > 0 => {
                format!("generation {} ({})", self.best.generation, file.display())
            }
            _ => format!("generation 0, {start}"),
        };
        for record in &self.finished {
            writeln!(f, "{}", record.summary())?;
        }
        let promoted = self.finished.iter().filter(|r| r.promoted).count();
        writeln!(f, "{} finished, {promoted} promoted; the best net: {best}", generations(self.finished.len()))?;
        let status = match &self.next {
            NextGeneration::NotBegun(g) => return writeln!(f, "generation {g}: not begun"),
            NextGeneration::InProgress(status) => status,
        };
        let g = status.generation;
        let recipe = &status.recipe;
        let games: u64 = status.shard_games.iter().sum();
        let wanted = recipe.selfplay.games * u64::from(recipe.selfplay.shards);
        // At the rate of every run of the stage so far, whatever shared the machine then.
        let time = status.stages.get(&Stage::Selfplay);
        let wall = time.map_or(0.0, |t| t.wall_seconds);
        let cpu = time.map_or(0.0, |t| t.cpu_seconds);
        let positions = status.selfplay_positions;
        let rate =
            if cpu > 0.0 { format!(" ({:.0} k per CPU-hour)", positions as f64 / cpu * 3.6) } else { String::new() };
        let left = match games {
            0 => String::new(),
            _ if games >= wanted => String::new(),
            _ => format!(
                ", about {:.0} min left at the rate so far",
                wall / games as f64 * (wanted - games) as f64 / 60.0
            ),
        };
        writeln!(
            f,
            "generation {g}: selfplay {} of {} shards complete, {games} of {wanted} games, {positions} positions{rate}{left}",
            status.shards_complete, recipe.selfplay.shards
        )?;
        match status.merged_positions {
            Some(positions) => writeln!(f, "generation {g}: merge done, {positions} positions")?,
            None => writeln!(f, "generation {g}: merge not done")?,
        }
        writeln!(f, "generation {g}: train {} of {} epochs", status.epochs_done, recipe.train.epochs)?;
        match &status.verdict {
            Some(gate) => writeln!(
                f,
                "generation {g}: gate decided after {} games: {:+.1} Elo ({:+.1} to {:+.1}), LLR {:.2}, {}",
                gate.games,
                gate.elo,
                gate.elo_low,
                gate.elo_high,
                gate.llr,
                gate.verdict.name()
            )?,
            None => writeln!(f, "generation {g}: gate {} of at most {} games", status.gate_games, recipe.gate.games)?,
        }
        for (stage, time) in &status.stages {
            writeln!(
                f,
                "generation {g}: {stage} so far {:.0} s wall, {:.0} s CPU",
                time.wall_seconds, time.cpu_seconds
            )?;
        }
        Ok(())
    }
}
