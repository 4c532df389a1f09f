//! `ferz-tune`: the developer tool that makes the evaluation weights.
//!
//! `ferz-tune tune` fits the evaluation weights to positions with their search score and game
//! result (Texel's method) and writes them as Rust source. The data is the text files
//! (`<variant>.txt`) that `ferz selfplay` writes. See `docs/tuning.md`.

mod data;
mod tune;

use std::path::PathBuf;

use anyhow::{Result, bail};
use clap::{Parser, Subcommand, ValueEnum};
use ferz_chess::Variant;

#[derive(Parser)]
#[command(name = "ferz-tune", about = "Texel tuning of the ferz evaluations")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The rule sets, as the command line names them.
#[derive(Copy, Clone, Debug, ValueEnum)]
enum VariantArg {
    Chess,
    Chess960,
    Shatranj,
}

impl From<VariantArg> for Variant {
    fn from(v: VariantArg) -> Variant {
        match v {
            VariantArg::Chess => Variant::Chess,
            VariantArg::Chess960 => Variant::Chess960,
            VariantArg::Shatranj => Variant::Shatranj,
        }
    }
}

#[derive(Subcommand)]
enum Command {
    /// Fit the evaluation weights to datasets and write them as Rust source.
    Tune {
        /// `chess` tunes the chess and Chess960 weights.
        #[arg(long, value_enum)]
        variant: VariantArg,
        /// Dataset files.
        #[arg(long, num_args = 1.., required = true)]
        data: Vec<PathBuf>,
        /// Adam epochs per round.
        #[arg(long, default_value_t = 400)]
        epochs: usize,
        /// Linearise-and-optimise rounds.
        #[arg(long, default_value_t = 3)]
        rounds: usize,
        /// Adam step size, in weight units (centipawns for most weights).
        #[arg(long, default_value_t = 1.0)]
        learning_rate: f64,
        /// Share of each file (its end) held out for validation.
        #[arg(long, default_value_t = 0.1)]
        validation_fraction: f64,
        /// Threads for measuring the coefficients.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Drop positions with a search score beyond this.
        #[arg(long, default_value_t = 2000)]
        max_score: i32,
        /// Drop positions whose static evaluation is this far from the search score.
        #[arg(long, default_value_t = 300)]
        max_eval_diff: i32,
        /// Weight of the game result in the target; the rest is sigmoid(K x search score).
        #[arg(long, default_value_t = 1.0)]
        lambda: f64,
        /// Which K turns search scores into expected results: `shared` (the evaluation's K; our
        /// own scores) or `fitted` (fitted to the scores and results; another engine's scores).
        #[arg(long, value_enum, default_value_t = tune::ScoreK::Shared)]
        score_k: tune::ScoreK,
        /// Read at most this many lines per file (0: all).
        #[arg(long, default_value_t = 0)]
        limit: usize,
        /// Where to write the tuned weights (e.g. crates/engine/src/eval/chess_weights.rs).
        #[arg(long)]
        out_rs: Option<PathBuf>,
    },
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Tune {
            variant,
            data,
            epochs,
            rounds,
            learning_rate,
            validation_fraction,
            threads,
            max_score,
            max_eval_diff,
            lambda,
            score_k,
            limit,
            out_rs,
        } => {
            if !(0.0..1.0).contains(&validation_fraction) {
                bail!("--validation-fraction must be in [0, 1)");
            }
            if !(0.0..=1.0).contains(&lambda) {
                bail!("--lambda must be in [0, 1]");
            }
            // Chess960 shares the chess weights.
            let variant = match Variant::from(variant) {
                Variant::Chess960 => Variant::Chess,
                v => v,
            };
            let command = std::iter::once("ferz-tune".to_string()).chain(std::env::args().skip(1)).collect::<Vec<_>>();
            tune::run(&tune::TuneConfig {
                variant,
                data,
                epochs,
                rounds,
                learning_rate,
                validation_fraction,
                threads,
                max_score,
                max_eval_diff,
                lambda,
                score_k,
                limit,
                out_rs,
                command: command.join(" "),
            })
        }
    }
}
