//! `ferz selfplay`: one shard of self-play games, with a progress bar and a clean stop.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args;
use ferz_engine::Signals;
use ferz_selfplay::{Progress, SelfplayConfig};
use indicatif::{ProgressBar, ProgressStyle};

use crate::{settings, shard_env};

/// Arguments of `ferz selfplay`.
#[derive(Args, Debug)]
pub struct SelfplayArgs {
    /// Settings file; without it `config/selfplay.toml` is read when it exists, else the
    /// built-in defaults.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Games this shard plays (overrides `run.games`).
    #[arg(long)]
    games: Option<u64>,
    /// Worker threads (overrides `run.threads`).
    #[arg(long)]
    threads: Option<usize>,
    /// Dataset directory (overrides `run.out`).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Run seed (overrides `run.seed`).
    #[arg(long)]
    seed: Option<u64>,
    /// This process's shard, 0-based [default: JOB_COMPLETION_INDEX (Kubernetes Indexed Job)
    /// or SLURM_ARRAY_TASK_ID (Slurm job array), else 0].
    #[arg(long)]
    shard_index: Option<u32>,
    /// Shards in the run [default: SLURM_ARRAY_TASK_COUNT, else 1].
    #[arg(long)]
    shard_count: Option<u32>,
    /// Continue an interrupted shard from its checkpoint instead of starting it over.
    #[arg(long)]
    resume: bool,
}

/// Runs `ferz selfplay`.
pub fn run(args: &SelfplayArgs) -> anyhow::Result<ExitCode> {
    let env: std::collections::HashMap<String, String> = std::env::vars().collect();
    let (mut config, origin): (SelfplayConfig, String) =
        settings::load(args.config.as_deref(), std::path::Path::new("config/selfplay.toml"), &env)?;
    if let Some(games) = args.games {
        config.run.games = games;
    }
    if let Some(threads) = args.threads {
        config.run.threads = threads;
    }
    if let Some(out) = &args.out {
        config.run.out.clone_from(out);
    }
    if let Some(seed) = args.seed {
        config.run.seed = seed;
    }
    config.validate().with_context(|| format!("settings from {origin}"))?;
    let resolved = shard_env::resolve(args.shard_index, args.shard_count, &env)?;
    for warning in &resolved.warnings {
        eprintln!("warning: {warning}");
    }
    let shard = resolved.shard;

    let signals = Arc::new(Signals::default());
    let presses = Arc::new(AtomicU32::new(0));
    {
        let (signals, presses) = (Arc::clone(&signals), Arc::clone(&presses));
        ctrlc::set_handler(move || {
            if presses.fetch_add(1, Ordering::SeqCst) == 0 {
                eprintln!("stopping: finishing the checkpoint (press Ctrl-C again to quit at once)");
                signals.stop.store(true, Ordering::SeqCst);
            } else {
                std::process::exit(i32::from(crate::EXIT_INTERRUPTED));
            }
        })
        .context("installing the Ctrl-C / SIGTERM handler")?;
    }

    eprintln!(
        "ferz selfplay: shard {}/{} ({}) of seed {}, {} games, {} threads, settings from {origin}",
        shard.index,
        shard.count,
        resolved.origin,
        config.run.seed,
        config.run.games,
        config.worker_threads()
    );
    let mut reporter = Reporter::new(config.run.games);
    let outcome = ferz_selfplay::run_shard(&config, shard, args.resume, &signals, &mut |p| reporter.update(p))?;
    reporter.finish();
    match &outcome.manifest {
        Some(manifest) if outcome.already_complete => {
            eprintln!("{} is already complete ({} games)", outcome.dir.display(), manifest.tally.games);
            Ok(ExitCode::SUCCESS)
        }
        Some(manifest) => {
            print!(
                "{}",
                ferz_dataset::verify::summary(&ferz_dataset::verify::AnyManifest::Shard(Box::new(manifest.clone())))
            );
            println!("wrote {}", outcome.dir.display());
            Ok(ExitCode::SUCCESS)
        }
        None => {
            eprintln!(
                "stopped after {} of {} games; run again with --resume to continue {}",
                outcome.games_done,
                config.run.games,
                outcome.dir.display()
            );
            Ok(ExitCode::from(crate::EXIT_INTERRUPTED))
        }
    }
}

/// A progress bar on a terminal, a log line every ten seconds elsewhere.
struct Reporter {
    bar: Option<ProgressBar>,
    last_log: Instant,
}

impl Reporter {
    fn new(total: u64) -> Reporter {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(total);
            bar.set_style(
                ProgressStyle::with_template("{bar:30} {pos}/{len} games  {msg}  ETA {eta}").expect("a valid template"),
            );
            bar
        });
        Reporter { bar, last_log: Instant::now() }
    }

    fn update(&mut self, p: &Progress) {
        let seconds = p.elapsed.as_secs_f64().max(1e-3);
        let t = &p.tally;
        let hit_rate = if p.cache_lookups > 0 { 100.0 * p.cache_hits as f64 / p.cache_lookups as f64 } else { 0.0 };
        let message = format!(
            "{:.2} games/s  {:.0} positions/s  +{} ={} -{}  cache {:.0}%",
            p.session_games as f64 / seconds,
            p.session_positions as f64 / seconds,
            t.white_wins,
            t.draws,
            t.black_wins,
            hit_rate
        );
        match &self.bar {
            Some(bar) => {
                bar.set_position(t.games);
                bar.set_message(message);
            }
            None if self.last_log.elapsed() >= Duration::from_secs(10) || t.games == p.games_total => {
                self.last_log = Instant::now();
                eprintln!("{}/{} games  {message}", t.games, p.games_total);
            }
            None => {}
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
