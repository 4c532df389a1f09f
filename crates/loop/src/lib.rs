//! The ferz improvement loop: generations of self-play with the best net, training a candidate
//! on the newest data, an SPRT gate against the best net, and promotion on H1.
//!
//! A loop is a directory: `ledger.json` (the newest run's settings and one record per finished
//! generation with the recipe it was made with, see [`ledger`]), `gen-NNNN/` per generation
//! (its recipe, shards, merged dataset, training run, gate PGN and verdict, see [`generation`],
//! [`gate`] and [`layout`]),
//! `best/` (the promoted nets) and the report ([`report`]); `ferz loop status` reads it
//! ([`status`]). The directory is the whole state: a loop killed at any moment continues where
//! it stopped when it is run again, and a finished loop run again changes nothing.
//!
//! It drives `ferz-selfplay`, `ferz-dataset`, `ferz-train` and `ferz-arena` in process; it
//! knows nothing of the command line, the bot or the network.

pub mod clock;
pub mod config;
pub mod cpu;
pub mod fault;
pub mod gate;
pub mod generation;
pub mod layout;
pub mod ledger;
pub mod report;
mod scale;
pub mod stage;
pub mod status;

use std::path::{Path, PathBuf};

use ferz_arena::MatchControl;
use ferz_engine::Signals;

pub use config::LoopConfig;
pub use ledger::{GenerationRecord, Ledger};
pub use stage::Stage;

/// Why a loop cannot go on, with the file or stage concerned.
#[derive(Debug, thiserror::Error)]
pub enum LoopError {
    /// The settings change the loop's net, seed or starting point.
    #[error("{}: the loop began with {key} = {was}, the settings now say {now}; a loop keeps its net, seed and start (start another directory for others)", path.display())]
    Settings {
        /// The ledger.
        path: PathBuf,
        /// The dotted key.
        key: String,
        /// The value the loop began with.
        was: String,
        /// The value now.
        now: String,
    },
    /// A ledger or stage record that cannot be read.
    #[error("{}: {reason}", path.display())]
    Ledger {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A file that cannot be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// A dataset that fails its checks.
    #[error(transparent)]
    Dataset(#[from] ferz_dataset::DatasetError),
    /// The training stage failed.
    #[error("train: {0}")]
    Train(#[from] ferz_train::TrainError),
    /// Another stage failed.
    #[error("{stage}: {reason}")]
    Stage {
        /// The stage.
        stage: Stage,
        /// What went wrong.
        reason: String,
    },
}

/// How a running loop is stopped from outside (a signal handler, a test).
#[derive(Debug, Default)]
pub struct Control {
    /// Stops self-play (after the game in progress, checkpointed) and training (after the
    /// batch, checkpointed).
    pub signals: Signals,
    /// Stops the gate (its games in progress finish and are written, or are dropped on abort).
    pub gate: MatchControl,
}

impl Control {
    /// True once Ctrl-C (or a test) asked the loop to stop.
    #[must_use]
    pub fn stopping(&self) -> bool {
        self.signals.stop.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Asks every stage to stop where it can continue from.
    pub fn stop(&self) {
        self.signals.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        self.gate.drain.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

/// What the loop reports as it goes.
#[derive(Clone, Debug, PartialEq)]
pub enum Progress {
    /// A stage of a generation begins (or continues).
    Stage {
        /// The generation.
        generation: u32,
        /// The stage.
        stage: Stage,
        /// More about it.
        detail: String,
    },
    /// A self-play game was written.
    Games {
        /// The generation.
        generation: u32,
        /// The shard.
        shard: u32,
        /// Games of the shard written.
        done: u64,
        /// Games of the shard in all.
        total: u64,
    },
    /// A line of the gate's match log (`Finished game ...`, the progress lines).
    Gate {
        /// The generation.
        generation: u32,
        /// The line.
        line: String,
    },
    /// A generation in progress takes this run's value of a setting for a stage that has not
    /// begun (its training or its gate), and records it in its recipe.
    AdoptedRecipe {
        /// The generation.
        generation: u32,
        /// The setting (dotted key).
        key: String,
        /// Its value in the generation's recipe until now.
        was: String,
        /// Its value in this run's settings, which the generation now takes.
        now: String,
    },
    /// A generation in progress goes on with the recipe of a stage that has begun although this
    /// run's settings differ; they apply from the next generation.
    KeptRecipe {
        /// The generation.
        generation: u32,
        /// The first setting that differs (dotted key).
        key: String,
        /// Its value in the generation's recipe.
        began: String,
        /// Its value in this run's settings.
        now: String,
    },
    /// A generation finished.
    Finished(Box<GenerationRecord>),
}

/// How much of the loop a run does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Generation after generation until a stop (one machine).
    Loop,
    /// One shard of the current generation's self-play (one task of a scheduler's job array).
    Shard(u32),
    /// The rest of the current generation once its shards are complete: merge, training, gate,
    /// promotion (the scheduler's job after the array).
    FinishGeneration,
}

/// Why a loop returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// `loop.generations` generations are finished.
    Generations(u32),
    /// `loop.plateau` candidates in a row were not promoted.
    Plateau(u32),
    /// A stop was asked for; running the loop again continues it.
    Asked,
    /// The shard of [`Scope::Shard`] is complete.
    ShardDone(u32),
    /// The generation of [`Scope::FinishGeneration`] is finished; `more` says whether the loop
    /// goes on (another generation is due).
    GenerationDone {
        /// The generation.
        generation: u32,
        /// Whether the stop settings leave another generation to play.
        more: bool,
    },
}

/// Opens the loop in `dir` (creating it with `settings` when new) and checks that `settings`
/// keep the net, seed and starting point it began with; the rest of them is this run's.
///
/// # Errors
/// A ledger that cannot be read, or settings that change the loop's identity.
pub fn open(dir: &Path, settings: &LoopConfig) -> Result<Ledger, LoopError> {
    open_as(dir, settings, true)
}

/// [`open`], persisting a change of the run controls only when `write` (the tasks of a job
/// array read the ledger side by side and leave it to the job after them).
fn open_as(dir: &Path, settings: &LoopConfig, write: bool) -> Result<Ledger, LoopError> {
    std::fs::create_dir_all(dir).map_err(|source| LoopError::Io { path: dir.to_path_buf(), source })?;
    let Some(mut ledger) = Ledger::load(dir)? else {
        let mut ledger = Ledger::new(settings.clone());
        generation::pin_generation_zero(dir, &mut ledger)?;
        ledger.save(dir)?;
        return Ok(ledger);
    };
    // This run's settings, but for the loop's identity: a change of it would break the chain of
    // seeds and best nets the generations so far were made in.
    let allowed = settings.with_identity_of(&ledger.settings);
    let json = |settings: &LoopConfig| serde_json::to_value(settings).expect("settings serialise");
    if let Some((key, was, now)) = ferz_dataset::manifest::first_difference(&json(&allowed), &json(settings), "") {
        return Err(LoopError::Settings { path: dir.join(ledger::LEDGER_FILE), key, was, now });
    }
    let pinned = generation::pin_generation_zero(dir, &mut ledger)?;
    if ledger.settings != allowed || pinned {
        ledger.settings = allowed;
        if write {
            ledger.save(dir)?;
        }
    }
    Ok(ledger)
}

/// Runs the loop in `dir` until it stops: generation after generation, each recorded in the
/// ledger and the report as it finishes. `ferz` is the binary the gate's engines run.
///
/// # Errors
/// A stage that fails; the generation continues from there when the loop is run again.
pub fn run(
    dir: &Path,
    settings: &LoopConfig,
    ferz: &Path,
    scope: Scope,
    control: &Control,
    progress: &mut dyn FnMut(Progress),
) -> Result<Stopped, LoopError> {
    let mut ledger = open_as(dir, settings, !matches!(scope, Scope::Shard(_)))?;
    if scope == Scope::Loop {
        report::write(dir, &ledger)?;
    }
    loop {
        if let Some(stop) = stop_rule(&ledger) {
            return Ok(stop);
        }
        if control.stopping() {
            return Ok(Stopped::Asked);
        }
        let g = ledger.generations.len() as u32 + 1;
        let selfplay = match scope {
            Scope::Loop => generation::SelfplayScope::All,
            Scope::Shard(index) => generation::SelfplayScope::Shard(index),
            Scope::FinishGeneration => generation::SelfplayScope::None,
        };
        match generation::run_generation(dir, &ledger, g, ferz, selfplay, control, progress)? {
            generation::Outcome::Stopped => return Ok(Stopped::Asked),
            generation::Outcome::ShardDone => {
                let Scope::Shard(index) = scope else { unreachable!("only a shard run plays one shard") };
                return Ok(Stopped::ShardDone(index));
            }
            generation::Outcome::Finished(record) => {
                ledger.generations.push((*record).clone());
                fault::point("ledger", 1);
                ledger.save(dir)?;
                report::write(dir, &ledger)?;
                progress(Progress::Finished(record));
                if scope == Scope::FinishGeneration {
                    return Ok(Stopped::GenerationDone { generation: g, more: stop_rule(&ledger).is_none() });
                }
            }
        }
    }
}

/// Whether the stop settings end the loop as it stands.
fn stop_rule(ledger: &Ledger) -> Option<Stopped> {
    let finished = ledger.generations.len() as u32;
    let run = &ledger.settings.run;
    if run.generations > 0 && finished >= run.generations {
        return Some(Stopped::Generations(finished));
    }
    (run.plateau > 0 && ledger.failures_in_a_row() >= run.plateau).then(|| Stopped::Plateau(ledger.failures_in_a_row()))
}
