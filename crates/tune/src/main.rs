//! `ferz-tune`: the developer tool that makes the evaluation weights.
//!
//! `ferz-tune tune` fits the evaluation weights to positions with their search score and game
//! result (Texel's method) and writes them as Rust source. The data is the text files
//! (`<variant>.txt`) that `ferz selfplay` writes. See `docs/tuning.md`.

mod data;
mod tune;

use anyhow::{Result, bail};
use clap::{Parser, Subcommand};
use ferz_chess::Variant;

#[derive(Parser)]
#[command(name = "ferz-tune", about = "Texel tuning of the ferz evaluations")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Fit the evaluation weights to datasets and write them as Rust source.
    Tune(tune::TuneConfig),
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Tune(mut config) => {
            if !(0.0..1.0).contains(&config.validation_fraction) {
                bail!("--validation-fraction must be in [0, 1)");
            }
            if !(0.0..=1.0).contains(&config.lambda) {
                bail!("--lambda must be in [0, 1]");
            }
            // Chess960 shares the chess weights.
            if config.variant == Variant::Chess960 {
                config.variant = Variant::Chess;
            }
            config.command =
                std::iter::once("ferz-tune".to_string()).chain(std::env::args().skip(1)).collect::<Vec<_>>().join(" ");
            tune::run(&config)
        }
    }
}
