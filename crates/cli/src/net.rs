//! `ferz net`: what a net file is, and a net's centipawn scale.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use ferz_dataset::manifest::sha256_file;
use ferz_nnue::calibrate::medians;
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
    #[arg(long, required_unless_present = "like", conflicts_with = "like")]
    scale: Option<u16>,
    /// Instead of --scale: the scale at which the net's median absolute score over --data's
    /// positions equals this net's (as `ferz loop` sets its candidates to the best net's).
    #[arg(long, requires = "data")]
    like: Option<PathBuf>,
    /// The dataset (a shard or merged directory) whose positions --like compares the nets on: an
    /// even sample of 20,000 of them.
    #[arg(long, requires = "like")]
    data: Option<PathBuf>,
    /// Where to write the copy (refused if it exists).
    #[arg(long)]
    out: PathBuf,
}

/// Positions `--like` compares two nets' scores on, as `ferz loop` does.
const LIKE_POSITIONS: usize = 20_000;

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
            if args.out.exists() {
                bail!("{} exists: choose another --out", args.out.display());
            }
            let net = format::load(&args.net, None)?;
            let was = net.scale();
            let scale = match (&args.like, &args.data, args.scale) {
                (Some(like), Some(data), _) => scale_like(&net, like, data)?,
                (_, _, Some(scale)) => scale,
                _ => bail!("give --scale, or --like and --data"),
            };
            let rescaled = net.with_scale(scale).context("--scale")?;
            format::save(&rescaled, &args.out).with_context(|| format!("writing {}", args.out.display()))?;
            println!("{}: scale {scale} (was {was})", args.out.display());
            Ok(())
        }
    }
}

/// The scale at which `net` scores `data`'s positions as large as the net at `like` does.
fn scale_like(net: &ferz_nnue::Network, like: &Path, data: &Path) -> Result<u16> {
    let reference = format::load(like, Some(net.variant()))?;
    let manifest = ferz_dataset::open_verified(data)?;
    let mut positions = ferz_dataset::sample::sample_positions(data, &manifest, LIKE_POSITIONS)?;
    // A dataset may hold other variants than the net's (self-play of all three, say).
    positions.retain(|pos| ferz_nnue::NetVariant::of(pos.variant()) == net.variant());
    let context = || format!("matching {}'s scores on {}", like.display(), data.display());
    let medians = medians(net, &reference, &positions).with_context(context)?;
    println!(
        "{} positions of {}: median |score| {} cp at scale {}, {} cp for {}",
        positions.len(),
        data.display(),
        medians.net,
        net.scale(),
        medians.reference,
        like.display()
    );
    medians.matching_scale(net.scale()).with_context(context)
}
