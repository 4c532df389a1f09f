//! `ferz data` (datasets) and `ferz cache` (the opening cache).

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::Context;
use clap::Subcommand;
use ferz_book::cache::OpeningCache;
use ferz_dataset::convert;
use ferz_dataset::import::ImportOptions;
use ferz_dataset::layout::variant_name;
use ferz_dataset::verify;

/// `ferz data ...`.
#[derive(Subcommand, Debug)]
pub enum DataCommand {
    /// Check shards' checksums and combine them into one dataset.
    Merge {
        /// The new dataset directory.
        out: PathBuf,
        /// Complete shard directories (`shard-00000` ...).
        #[arg(required = true)]
        shards: Vec<PathBuf>,
        /// Shuffle the position records (not the PGN games).
        #[arg(long)]
        shuffle: bool,
        /// Seed of the shuffle.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Turn PGN games with `[%eval]` comments (the bot's files, Lichess or engine PGN) into a
    /// verified dataset.
    Import {
        /// PGN files.
        #[arg(required = true)]
        games: Vec<PathBuf>,
        /// The new dataset directory.
        #[arg(long)]
        out: PathBuf,
        /// Skip (and count) games that cannot be read instead of stopping at the first.
        #[arg(long)]
        skip_bad: bool,
    },
    /// Write a verified dataset's chess and Chess960 records in another trainer's format.
    Convert {
        /// The shard or dataset directory.
        dataset: PathBuf,
        /// The format: `bullet` (bullet's ChessBoard records, crate bulletformat) or `viriformat`
        /// (viridithas's game chains, crate viriformat).
        #[arg(long, value_enum)]
        to: ConvertTarget,
        /// The file to write.
        #[arg(long)]
        out: PathBuf,
    },
    /// Verify and summarise shards or datasets.
    Stats {
        /// Shard or dataset directories.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
    },
}

/// A format of `ferz data convert`.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum ConvertTarget {
    /// bullet's `ChessBoard` records (32 bytes each).
    Bullet,
    /// viridithas's game chains (a start record, then 4 bytes a move).
    Viriformat,
}

/// `ferz cache ...`.
#[derive(Subcommand, Debug)]
pub enum CacheCommand {
    /// Summarise an opening cache.
    Stats {
        /// The cache directory.
        path: PathBuf,
    },
    /// Fold caches into OUT: counts add, the deeper search wins.
    Merge {
        /// The cache to merge into (created if missing).
        out: PathBuf,
        /// Caches to fold in.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// The cache generation every input started as a copy of (shards of one run): it is
        /// folded in once, and of each input only what it added since.
        #[arg(long, value_name = "CACHE")]
        base: Option<PathBuf>,
    },
    /// Write the standard-chess positions as a Polyglot book (.bin).
    ExportPolyglot {
        /// The cache directory.
        cache: PathBuf,
        /// The book file to write.
        out: PathBuf,
        /// Export candidates within this many centipawns of the best move.
        #[arg(long, default_value_t = 30)]
        margin_cp: i32,
    },
}

/// Runs `ferz data ...`.
pub fn run_data(command: &DataCommand) -> anyhow::Result<()> {
    match command {
        DataCommand::Merge { out, shards, shuffle, seed } => {
            let manifest = verify::merge(out, shards, shuffle.then_some(*seed))?;
            print!("{}", verify::summary(&verify::AnyManifest::Dataset(manifest)));
            println!("wrote {}", out.display());
        }
        DataCommand::Import { games, out, skip_bad } => {
            let report = ferz_dataset::import::import(out, games, ImportOptions { skip_bad: *skip_bad })?;
            for reason in &report.bad_games {
                eprintln!("skipped {reason}");
            }
            print!("{}", verify::summary(&verify::AnyManifest::Import(Box::new(report.manifest))));
            println!("wrote {}", out.display());
        }
        DataCommand::Convert { dataset, to, out } => {
            let target = match to {
                ConvertTarget::Bullet => convert::Target::Bullet,
                ConvertTarget::Viriformat => convert::Target::Viriformat,
            };
            let report = convert::convert(dataset, target, out)?;
            let (unit, written) = match to {
                ConvertTarget::Bullet => ("records", "records"),
                ConvertTarget::Viriformat => ("games", "moves"),
            };
            if report.shatranj_skipped > 0 {
                eprintln!(
                    "left out {} Shatranj {unit}: the format is chess (the ferz and the alfil are no queen and bishop)",
                    report.shatranj_skipped
                );
            }
            println!("wrote {} {written} to {}", report.written, out.display());
        }
        DataCommand::Stats { dirs } => {
            for dir in dirs {
                let manifest = verify::open_verified(dir)?;
                println!("{}:", dir.display());
                print!("{}", verify::summary(&manifest));
            }
        }
    }
    Ok(())
}

/// Runs `ferz cache ...`.
pub fn run_cache(command: &CacheCommand) -> anyhow::Result<()> {
    match command {
        CacheCommand::Stats { path } => {
            if !path.exists() {
                anyhow::bail!("opening cache {} does not exist", path.display());
            }
            let cache = OpeningCache::open(path)?;
            let mut by_variant: BTreeMap<&str, (u64, u64, u64)> = BTreeMap::new();
            let mut depths: BTreeMap<u8, u64> = BTreeMap::new();
            for item in cache.entries() {
                let (variant, _, entry) = item?;
                let slot = by_variant.entry(variant_name(variant)).or_default();
                slot.0 += 1;
                slot.1 += u64::from(entry.games);
                slot.2 += entry.candidates.len() as u64;
                *depths.entry(entry.depth).or_default() += 1;
            }
            println!("{}: {} bytes on disk", path.display(), cache.size_on_disk()?);
            for (variant, (positions, games, candidates)) in &by_variant {
                println!("  {variant}: {positions} positions, {candidates} candidates, {games} game visits");
            }
            let depths: Vec<String> = depths.iter().map(|(d, n)| format!("{d}:{n}")).collect();
            println!("  search depths (depth:positions): {}", depths.join(" "));
        }
        CacheCommand::Merge { out, inputs, base } => {
            for input in inputs.iter().chain(base) {
                if !input.exists() {
                    anyhow::bail!("opening cache {} does not exist", input.display());
                }
            }
            let target = OpeningCache::open(out)?;
            let base = match base {
                Some(path) => {
                    let base = OpeningCache::open(path)?;
                    let merged = target.absorb(&base).with_context(|| format!("merging {}", path.display()))?;
                    println!("{} (base): {merged} positions merged", path.display());
                    Some(base)
                }
                None => None,
            };
            for input in inputs {
                let source = OpeningCache::open(input)?;
                let merged = target
                    .absorb_since(&source, base.as_ref())
                    .with_context(|| format!("merging {}", input.display()))?;
                let what =
                    if base.is_some() { "positions merged (what it added since the base)" } else { "positions merged" };
                println!("{}: {merged} {what}", input.display());
            }
            target.flush()?;
        }
        CacheCommand::ExportPolyglot { cache, out, margin_cp } => {
            if !cache.exists() {
                anyhow::bail!("opening cache {} does not exist", cache.display());
            }
            let entries = ferz_book::polyglot::export(&OpeningCache::open(cache)?, out, *margin_cp)?;
            println!("wrote {entries} entries to {}", out.display());
        }
    }
    Ok(())
}
