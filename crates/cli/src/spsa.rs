//! `ferz spsa`: tune any UCI engine's spin options by SPSA (`ferz-spsa`), show a run's progress,
//! and print ferz's own search parameters in OpenBench's SPSA input format.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use anyhow::{Context, bail};
use clap::{Args, Subcommand};
use ferz_arena::EngineCommand;
use ferz_chess::Variant;
use ferz_spsa::{SpsaConfig, SpsaControl, parse_openbench, run_spsa};

/// `ferz spsa run`, `ferz spsa status` and `ferz spsa params`.
#[derive(Subcommand, Debug)]
pub enum SpsaCommand {
    /// Tune: play the iterations config/spsa.toml asks for (resuming from its output
    /// directory's state), then write the result as a params file.
    Run(SpsaRunArgs),
    /// Print ferz's search parameters in OpenBench's SPSA input format
    /// (`name, int, value, min, max, c_end, r_end`), with their values in one variant.
    Params {
        /// Whose values: chess (Chess960 plays by the same) or shatranj.
        #[arg(long, default_value = "chess")]
        variant: Variant,
    },
    /// Show where a run stands: iterations and games so far, and each parameter's start, value
    /// now and move, the furthest first (reads the output directory only; safe beside the run).
    Status {
        /// The run's output directory (`output.dir`, which holds `state.json`).
        dir: PathBuf,
    },
}

/// Options of `ferz spsa run`.
#[derive(Args, Debug)]
pub struct SpsaRunArgs {
    /// The settings file (default: config/spsa.toml when it exists, else the built-in defaults).
    #[arg(long, short)]
    config: Option<PathBuf>,
    /// Iterations, instead of `spsa.iterations`.
    #[arg(long)]
    iterations: Option<u64>,
    /// Games at once, instead of `games.concurrency`.
    #[arg(long)]
    concurrency: Option<usize>,
    /// The output directory, instead of `output.dir`.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Resume even though the engine program changed since the last iteration (a rebuilt
    /// engine); the state records from which iteration the new one plays.
    #[arg(long)]
    accept_engine_change: bool,
}

/// Runs `ferz spsa`. Exit codes: 0 when the run finished (or the parameters were printed), 130
/// when it was stopped by a signal (run it again to resume), 1 on bad settings or a failure.
pub fn run(command: &SpsaCommand) -> anyhow::Result<ExitCode> {
    match command {
        SpsaCommand::Params { variant } => {
            print!("{}", ferz_engine::params::openbench_spsa_input(*variant));
            Ok(ExitCode::SUCCESS)
        }
        SpsaCommand::Run(args) => tune(args),
        SpsaCommand::Status { dir } => {
            let path = dir.join("state.json");
            let state = ferz_spsa::State::load(&path)?
                .with_context(|| format!("{} holds no SPSA run (no state.json)", dir.display()))?;
            print!("{}: {}", dir.display(), state.status());
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn tune(args: &SpsaRunArgs) -> anyhow::Result<ExitCode> {
    let env: HashMap<String, String> = std::env::vars().collect();
    let (mut config, origin): (SpsaConfig, _) =
        crate::settings::load(args.config.as_deref(), Path::new("config/spsa.toml"), &env)?;
    if let Some(iterations) = args.iterations {
        config.spsa.iterations = iterations;
    }
    if let Some(concurrency) = args.concurrency {
        config.games.concurrency = concurrency;
    }
    if let Some(out) = &args.out {
        config.output.dir.clone_from(out);
    }
    let resolved = config.validate()?;
    let params = if config.params.file.as_os_str().is_empty() {
        if resolved.command != EngineCommand::Ferz {
            bail!("params.file is required to tune an engine other than ferz (OpenBench SPSA input lines)");
        }
        // Each variant starts from its own defaults.
        let input = ferz_engine::params::openbench_spsa_input(resolved.variant);
        parse_openbench(&input, "ferz's search parameters")?
    } else {
        let path = &config.params.file;
        let text = std::fs::read_to_string(path).with_context(|| format!("params.file {}", path.display()))?;
        parse_openbench(&text, &path.display().to_string())?
    };
    println!("Settings: {origin}");
    let control = Arc::new(SpsaControl::default());
    install_interrupt(&control)?;
    let self_exe = std::env::current_exe().context("cannot find the ferz executable")?;
    let outcome = run_spsa(&config, &params, &self_exe, args.accept_engine_change, &control, &mut std::io::stdout())?;
    let games = outcome.elapsed.as_secs_f64();
    println!(
        "{} games in {:.0} s ({:.0} games/h); the tuner's own share of the wall time: {:.3}%",
        outcome.games,
        games,
        outcome.games as f64 * 3600.0 / games.max(1e-9),
        100.0 * outcome.overhead.as_secs_f64() / games.max(1e-9)
    );
    if outcome.finished {
        Ok(ExitCode::SUCCESS)
    } else {
        println!("To continue: the same command");
        Ok(ExitCode::from(crate::EXIT_INTERRUPTED))
    }
}

/// Ctrl-C and SIGTERM: the first drops the iteration in progress (the state holds every
/// finished one), the second quits at once.
fn install_interrupt(control: &Arc<SpsaControl>) -> anyhow::Result<()> {
    let presses = AtomicU32::new(0);
    let control = Arc::clone(control);
    ctrlc::set_handler(move || {
        if presses.fetch_add(1, Ordering::SeqCst) == 0 {
            eprintln!("stopping: the iteration in progress is dropped and played again on resume");
            control.abort.store(true, Ordering::SeqCst);
        } else {
            std::process::exit(i32::from(crate::EXIT_INTERRUPTED));
        }
    })
    .context("installing the Ctrl-C / SIGTERM handler")
}
