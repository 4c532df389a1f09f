//! `ferz`: the command-line entry point.
//!
//! Without arguments, or with a UCI command as arguments, `ferz` is a UCI engine:
//! GUIs, cutechess and lichess-bot start it bare, and OpenBench passes UCI commands as
//! arguments.

mod arena;
mod bot;
mod bot_log;
mod data;
mod loop_run;
mod net;
mod perft;
mod selfplay;
mod settings;
mod shard_env;
mod spsa;
mod train;

use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};
use ferz_engine::nnue::NetVariant;

/// ferz: a chess, Chess960 and Shatranj engine, Lichess bot and self-play worker.
#[derive(Parser, Debug)]
#[command(name = "ferz", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Speak UCI on standard input and output (also what `ferz` without arguments does).
    Uci {
        /// List the search's tunable parameters as UCI spin options (for a tuner such as
        /// `ferz spsa` or OpenBench; they are accepted by `setoption` either way).
        #[arg(long, env = "FERZ_TUNE")]
        tune: bool,
    },
    /// Search the built-in positions to a fixed depth; the last line is `<nodes> nodes <nps> nps`.
    Bench {
        /// Search depth.
        #[arg(default_value_t = ferz_engine::bench::DEFAULT_DEPTH)]
        depth: u32,
        /// Evaluate with NNUE (`true`) or the hand-tuned evaluation (`false`); the default is
        /// the engine's (the UCI option `UseNNUE`).
        #[arg(long)]
        use_nnue: Option<bool>,
        /// The chess and Chess960 net instead of the embedded one (the UCI option `EvalFile`).
        #[arg(long)]
        eval_file: Option<std::path::PathBuf>,
        /// The Shatranj net instead of the embedded one (the UCI option `EvalFileShatranj`).
        #[arg(long)]
        eval_file_shatranj: Option<std::path::PathBuf>,
        /// Search parameters from a params file (`NAME = value` lines, as `ferz spsa` writes;
        /// the UCI option `ParamsFile`).
        #[arg(long)]
        params: Option<std::path::PathBuf>,
    },
    /// Count the leaves of the legal move tree, or check a perft suite.
    Perft(perft::PerftArgs),
    /// Play self-play games in-process and write a dataset shard.
    Selfplay(selfplay::SelfplayArgs),
    /// Train an NNUE evaluation on self-play datasets and write the quantised net.
    Train(Box<train::TrainArgs>),
    /// Check, merge, import (PGN with evaluations), convert (bullet) and summarise datasets.
    #[command(subcommand)]
    Data(data::DataCommand),
    /// Inspect and merge opening caches.
    #[command(subcommand)]
    Cache(data::CacheCommand),
    /// Inspect net files and set a net's centipawn scale.
    #[command(subcommand)]
    Net(net::NetCommand),
    /// Play games between two engines over UCI, with Elo and an optional SPRT.
    Match(Box<arena::MatchArgs>),
    /// Tune any UCI engine's spin options by SPSA over real games (`run`), show a run's progress
    /// (`status`), or print ferz's search parameters in OpenBench's SPSA input format (`params`).
    #[command(subcommand)]
    Spsa(spsa::SpsaCommand),
    /// Run a Lichess (or PyChess) BOT account until Ctrl-C; the token comes from LICHESS_BOT_TOKEN.
    Bot(bot::BotArgs),
    /// Improve a net generation by generation: self-play, training, an SPRT gate, promotion.
    Loop(loop_run::LoopArgs),
}

/// The exit code of a run stopped by Ctrl-C or SIGTERM (128 + SIGINT, as shells report it),
/// shared by `ferz selfplay`, `ferz train` and `ferz match`.
const EXIT_INTERRUPTED: u8 = 130;

const SUBCOMMANDS: &[&str] =
    &["uci", "bench", "perft", "match", "spsa", "selfplay", "train", "data", "cache", "bot", "loop", "help"];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // Only a real UCI command (OpenBench's `ferz isready`, `ferz go depth 5`, …) runs as one;
    // any other first word is a command-line mistake that clap reports ("unrecognized
    // subcommand", with a suggestion) with a non-zero exit, so a script does not believe a
    // mistyped job ran.
    let is_uci = args.first().is_some_and(|first| {
        !SUBCOMMANDS.contains(&first.as_str()) && ferz_engine::uci::COMMANDS.contains(&first.as_str())
    });
    if args.is_empty() || is_uci {
        let first = (!args.is_empty()).then(|| args.join(" "));
        // A GUI starts ferz bare: the tunables are listed only when FERZ_TUNE asks for them.
        let tune = std::env::var("FERZ_TUNE").is_ok_and(|v| matches!(v.as_str(), "1" | "true" | "yes" | "on"));
        ferz_engine::uci::run_stdio(first.as_deref(), tune);
        return ExitCode::SUCCESS;
    }
    match Cli::parse().command {
        Command::Uci { tune } => {
            ferz_engine::uci::run_stdio(None, tune);
            ExitCode::SUCCESS
        }
        Command::Bench { depth, use_nnue, eval_file, eval_file_shatranj, params } => {
            report(bench(depth, use_nnue, eval_file.as_deref(), eval_file_shatranj.as_deref(), params.as_deref()))
        }
        Command::Perft(args) => perft::run(&args),
        Command::Selfplay(args) => report(selfplay::run(&args)),
        Command::Train(args) => report(train::run(&args)),
        Command::Data(command) => report(data::run_data(&command).map(|()| ExitCode::SUCCESS)),
        Command::Cache(command) => report(data::run_cache(&command).map(|()| ExitCode::SUCCESS)),
        Command::Net(command) => report(net::run(&command).map(|()| ExitCode::SUCCESS)),
        Command::Match(args) => arena::run(*args),
        Command::Spsa(command) => report(spsa::run(&command)),
        Command::Bot(args) => report(bot::run(&args)),
        Command::Loop(args) => report(loop_run::run(&args)),
    }
}

/// `ferz bench`: the built-in search benchmark, optionally with NNUE nets.
fn bench(
    depth: u32,
    use_nnue: Option<bool>,
    eval_file: Option<&std::path::Path>,
    eval_file_shatranj: Option<&std::path::Path>,
    params: Option<&std::path::Path>,
) -> anyhow::Result<ExitCode> {
    if let Some(path) = params {
        let text = std::fs::read_to_string(path).with_context(|| format!("--params {}", path.display()))?;
        ferz_engine::params::apply_params(&text).with_context(|| format!("--params {}", path.display()))?;
    }
    let mut nets = ferz_engine::Nets::default();
    for (variant, path) in [(NetVariant::Chess, eval_file), (NetVariant::Shatranj, eval_file_shatranj)] {
        if let Some(path) = path {
            nets.load(variant, path)?;
            // Stdout ends in the node count that scripts read; say which net on stderr.
            eprintln!("bench: {}", nets.describe(variant));
        }
    }
    if let Some(on) = use_nnue {
        nets.set_use_nnue(on);
    }
    let result =
        ferz_engine::bench::run_with(depth, nets, |index, fen, nodes| println!("{:>2} {nodes:>10} {fen}", index + 1));
    println!("{} nodes {} nps", result.nodes, result.nps());
    Ok(ExitCode::SUCCESS)
}

/// Prints an error with its chain of causes; the exit status is 1.
fn report(result: anyhow::Result<ExitCode>) -> ExitCode {
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {}", error_text(&error));
            ExitCode::from(1)
        }
    }
}

/// An error and its causes joined by `: `, each cause once: many errors already print their
/// source in their own message, and anyhow's `{:#}` would repeat it ("X: X: X").
pub(crate) fn error_text(error: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in error.chain() {
        let part = cause.to_string();
        if text.contains(&part) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An error that prints its source in its own message, as many do.
    #[derive(Debug)]
    struct Outer(std::io::Error);

    impl std::fmt::Display for Outer {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "net file x.nnue: {}", self.0)
        }
    }

    impl std::error::Error for Outer {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn an_error_chain_names_each_cause_once() {
        let error = anyhow::Error::new(Outer(std::io::Error::other("too large"))).context("loading nets");
        assert_eq!(error_text(&error), "loading nets: net file x.nnue: too large");
        assert_eq!(format!("{error:#}"), "loading nets: net file x.nnue: too large: too large");
    }
}
