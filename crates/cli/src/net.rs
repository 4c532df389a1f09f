//! `ferz net`: what a net file is, and a net's centipawn scale.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use ferz_dataset::manifest::sha256_file;
use ferz_nnue::format;

/// Inspect net files and set a net's centipawn scale.
#[derive(Subcommand, Debug)]
pub enum NetCommand {
    /// Print each net's variant, shape, centipawn scale and SHA-256.
    Info {
        /// Net files.
        #[arg(required = true)]
        nets: Vec<PathBuf>,
    },
    /// Write a copy of a net whose evaluation is in another centipawn scale.
    Rescale(RescaleArgs),
}

/// `ferz net rescale`.
#[derive(Args, Debug)]
pub struct RescaleArgs {
    /// The net to copy.
    net: PathBuf,
    /// The new scale, centipawns per unit of the trained output: the trainer writes 400, and 300
    /// makes every score three quarters of the trained one (1..=4000).
    #[arg(long)]
    scale: u16,
    /// Where to write the copy (refused if it exists).
    #[arg(long)]
    out: PathBuf,
}

/// Runs a `ferz net` command.
pub fn run(command: &NetCommand) -> Result<()> {
    match command {
        NetCommand::Info { nets } => {
            for path in nets {
                // `load` refuses a file larger than any net before reading it, and names the file.
                let net = format::load(path, None)?;
                let (sha256, _) = sha256_file(path).with_context(|| format!("net file {}", path.display()))?;
                println!(
                    "{}: {} net, {} inputs, {} hidden, {:?}, {} output bucket(s), scale {}, sha256 {}",
                    path.display(),
                    net.variant(),
                    net.inputs(),
                    net.hidden(),
                    net.activation(),
                    net.output_buckets(),
                    net.scale(),
                    sha256
                );
            }
            Ok(())
        }
        NetCommand::Rescale(args) => {
            let net = format::load(&args.net, None)?;
            let was = net.scale();
            let rescaled = net.with_scale(args.scale).context("--scale")?;
            if args.out.exists() {
                bail!("{} exists: choose another --out", args.out.display());
            }
            format::save(&rescaled, &args.out).with_context(|| format!("writing {}", args.out.display()))?;
            println!("{}: scale {} (was {was})", args.out.display(), args.scale);
            Ok(())
        }
    }
}
