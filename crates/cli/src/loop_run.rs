//! `ferz loop`: the improvement loop in a directory, and its report.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::{Args, Subcommand};
use ferz_loop::{Control, LoopConfig, Progress, Stopped};

use crate::settings;

/// Arguments of `ferz loop`.
#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct LoopArgs {
    /// What else to do with a loop directory.
    #[command(subcommand)]
    action: Option<LoopAction>,
    /// The loop directory (created on the first run; every later run continues it).
    #[arg(value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Settings file; without it `config/loop.toml` is read when it exists, else the built-in
    /// defaults. A loop keeps its net, seed and start; changed `[selfplay]` settings apply from
    /// the next generation, changed `[train]` and `[gate]` ones from the stage they shape if it
    /// has not begun.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Stop after this many generations in all (overrides `loop.generations`).
    #[arg(long)]
    generations: Option<u32>,
    /// On a scheduler: play only this shard of the current generation's self-play (one task of
    /// a job array; without the flag, the index comes from `SLURM_ARRAY_TASK_ID` or
    /// `JOB_COMPLETION_INDEX` when `--stage shard` is given).
    #[arg(long)]
    shard_index: Option<u32>,
    /// What this run does: `loop` (generation after generation, the default), `shard` (one
    /// self-play shard of the current generation) or `finish` (the rest of the current
    /// generation once every shard is complete: merge, training, gate, promotion).
    #[arg(long, value_enum, default_value_t = Stage::Loop)]
    stage: Stage,
}

/// `--stage`: how much of the loop a run does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Stage {
    /// Generation after generation until a stop.
    Loop,
    /// One shard of the current generation's self-play.
    Shard,
    /// The rest of the current generation once its shards are complete.
    Finish,
}

/// `ferz loop <action>`.
#[derive(Subcommand, Debug)]
pub enum LoopAction {
    /// Write the report (report.md and report.html) of a loop directory from its ledger.
    Report {
        /// The loop directory.
        dir: PathBuf,
    },
    /// Show where a loop stands: the finished generations in brief and how far each stage of
    /// the one in progress got (reads the directory only; safe beside a running loop).
    Status {
        /// The loop directory.
        dir: PathBuf,
    },
    /// Print the `ferz train` settings (TOML) of a generation's candidate: its data, seed,
    /// starting net, shape and schedule. `ferz train --config` with them trains the loop's
    /// candidate again; with a key changed, another shape on the same data, for `ferz loop gate`.
    TrainConfig {
        /// The loop directory.
        dir: PathBuf,
        /// The generation (default: the one in progress, or the next).
        #[arg(long)]
        generation: Option<u32>,
    },
    /// Gate a net made outside the loop (by hand, or by another trainer on the loop's data)
    /// against the loop's best net exactly as the loop gates its own candidates: the recipe of
    /// the generation in progress (or of the next one), its search parameters and opening seed.
    /// The PGN and verdict go to `--out`; run again, it continues. The loop's directory is only
    /// read, so it is safe beside a running loop (both then share the cores).
    Gate {
        /// The loop directory.
        dir: PathBuf,
        /// The net file to gate (a net of the loop's variant).
        net: PathBuf,
        /// Where the gate's games.pgn, verdict.json and search.params go.
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
}

/// A loop's control, stopped by the first Ctrl-C or SIGTERM where its stage can continue; the
/// second quits at once.
fn stop_on_ctrl_c() -> anyhow::Result<Arc<Control>> {
    let control = Arc::new(Control::default());
    let presses = AtomicU32::new(0);
    let handler = Arc::clone(&control);
    ctrlc::set_handler(move || {
        if presses.fetch_add(1, Ordering::SeqCst) == 0 {
            eprintln!("stopping: the stage in progress stops where it can continue (Ctrl-C again quits at once)");
            handler.stop();
        } else {
            std::process::exit(i32::from(crate::EXIT_INTERRUPTED));
        }
    })
    .context("installing the Ctrl-C / SIGTERM handler")?;
    Ok(control)
}

/// `ferz loop gate DIR NET --out OUT`.
fn gate(dir: &std::path::Path, net: &std::path::Path, out: &std::path::Path) -> anyhow::Result<ExitCode> {
    let ledger = ferz_loop::Ledger::load_existing(dir)?;
    let ferz = std::env::current_exe().context("cannot find the ferz executable")?;
    let control = stop_on_ctrl_c()?;
    let gated = ferz_loop::gate::gate_net(dir, &ledger, net, out, &ferz, &control, &mut |progress| match progress {
        Progress::Stage { generation, detail, .. } => eprintln!("generation {generation}: gate: {detail}"),
        Progress::Gate { line, .. } if !line.starts_with("Finished game") => eprintln!("gate: {line}"),
        _ => {}
    })?;
    let Some((generation, record)) = gated else {
        eprintln!("stopped; run the same command again to continue {}", out.display());
        return Ok(ExitCode::from(crate::EXIT_INTERRUPTED));
    };
    println!("{}: {} (generation {generation}'s gate); verdict in {}", net.display(), record.summary(), out.display());
    Ok(ExitCode::SUCCESS)
}

/// `ferz loop train-config DIR [--generation G]`: the candidate's training settings as TOML.
fn train_config(dir: &std::path::Path, generation: Option<u32>) -> anyhow::Result<ExitCode> {
    let ledger = ferz_loop::Ledger::load_existing(dir)?;
    let (g, config) = ferz_loop::generation::candidate_training(dir, &ledger, generation)?;
    let mut settings = serde_json::to_value(&config).context("writing the training settings")?;
    // TOML's integers are signed: a seed above i64::MAX goes as digits, which `ferz train`
    // reads too.
    if i64::try_from(config.data.seed).is_err() {
        settings["data"]["seed"] = serde_json::Value::String(config.data.seed.to_string());
    }
    // Not the loop's own run directory: a run there would be the loop's candidate.
    settings["output"]["dir"] = serde_json::Value::String(format!("gen-{g:04}-candidate"));
    let text = toml::to_string(&settings).context("writing the training settings as TOML")?;
    println!("# `ferz train` settings of generation {g}'s candidate in the loop {}", dir.display());
    print!("{text}");
    Ok(ExitCode::SUCCESS)
}

/// Runs `ferz loop`.
pub fn run(args: &LoopArgs) -> anyhow::Result<ExitCode> {
    match &args.action {
        Some(LoopAction::Report { dir }) => {
            let ledger = ferz_loop::Ledger::load_existing(dir)?;
            ferz_loop::report::write(dir, &ledger)?;
            print!("{}", ferz_loop::report::markdown(&ledger));
            println!("wrote {} and {}", dir.join("report.md").display(), dir.join("report.html").display());
            return Ok(ExitCode::SUCCESS);
        }
        Some(LoopAction::Status { dir }) => {
            print!("{}", ferz_loop::status::status(dir)?);
            return Ok(ExitCode::SUCCESS);
        }
        Some(LoopAction::Gate { dir, net, out }) => return gate(dir, net, out),
        Some(LoopAction::TrainConfig { dir, generation }) => return train_config(dir, *generation),
        None => {}
    }
    let dir = args.dir.clone().context("give the loop directory: ferz loop DIR")?;
    let env: std::collections::HashMap<String, String> = std::env::vars().collect();
    let (mut config, origin): (LoopConfig, String) =
        settings::load(args.config.as_deref(), std::path::Path::new("config/loop.toml"), &env)?;
    if let Some(generations) = args.generations {
        config.run.generations = generations;
    }
    config.validate()?;
    let ferz = std::env::current_exe().context("cannot find the ferz executable")?;
    let scope = match args.stage {
        Stage::Loop => ferz_loop::Scope::Loop,
        Stage::Finish => ferz_loop::Scope::FinishGeneration,
        Stage::Shard => {
            let env: std::collections::HashMap<String, String> = std::env::vars().collect();
            let resolved = crate::shard_env::resolve(args.shard_index, Some(config.selfplay.shards), &env)?;
            for warning in &resolved.warnings {
                eprintln!("warning: {warning}");
            }
            ferz_loop::Scope::Shard(resolved.shard.index)
        }
    };

    let control = stop_on_ctrl_c()?;

    eprintln!(
        "ferz loop: {} ({:?} net, seed {}), settings from {origin}",
        dir.display(),
        config.run.net,
        config.run.seed
    );
    let mut last_games = Instant::now() - Duration::from_secs(60);
    let stopped = ferz_loop::run(&dir, &config, &ferz, scope, &control, &mut |progress| match progress {
        Progress::Stage { generation, stage, detail } => eprintln!("generation {generation}: {stage} {detail}"),
        Progress::Games { generation, shard, done, total } => {
            if last_games.elapsed() >= Duration::from_secs(30) || done == total {
                last_games = Instant::now();
                eprintln!("generation {generation}: selfplay shard {shard}: {done}/{total} games");
            }
        }
        Progress::Gate { generation, line } => {
            if !line.starts_with("Finished game") {
                eprintln!("generation {generation}: gate: {line}");
            }
        }
        Progress::AdoptedRecipe { generation, key, was, now } => {
            eprintln!("generation {generation}: {key} = {now} (was {was}): the stage it shapes has not begun")
        }
        Progress::KeptRecipe { generation, key, began, now } => eprintln!(
            "generation {generation}: goes on with the settings it began with ({key} = {began}); {key} = {now} applies from generation {}",
            generation + 1
        ),
        Progress::Finished(record) => println!("{}", record.summary()),
    })?;
    match stopped {
        Stopped::Generations(n) => {
            println!(
                "stopped: {} finished; report in {}",
                ferz_loop::ledger::generations(n as usize),
                dir.join("report.html").display()
            )
        }
        Stopped::Plateau(n) => println!(
            "stopped: {n} candidates in a row were not promoted; report in {}",
            dir.join("report.html").display()
        ),
        Stopped::ShardDone(index) => println!("shard {index} of the current generation is complete"),
        // A scheduler's driver (deploy/slurm/loop-finish.sbatch) reads this line to decide
        // whether to submit the next generation.
        Stopped::GenerationDone { generation, more } => {
            println!(
                "generation {generation} is finished; {}",
                if more { "the loop goes on" } else { "the loop is done" }
            );
        }
        Stopped::Asked => {
            eprintln!("stopped; run the same command again to continue {}", dir.display());
            return Ok(ExitCode::from(crate::EXIT_INTERRUPTED));
        }
    }
    Ok(ExitCode::SUCCESS)
}
