//! `ferz`: the command-line entry point.

mod perft;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// ferz: a chess, Chess960 and Shatranj engine, Lichess bot and self-play worker.
#[derive(Parser, Debug)]
#[command(name = "ferz", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Count the leaves of the legal move tree, or check a perft suite.
    Perft(perft::PerftArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Perft(args) => perft::run(&args),
    }
}
