//! `ferz perft`: move generator counts and suite checks.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::Args;
use ferz_chess::{
    CaseReport, Move, Position, SuiteFormat, Variant, check_case, divide, parse_suite, perft, perft_make_all,
};

/// Options of `ferz perft`.
#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Rules to use: chess, chess960 or shatranj.
    #[arg(long, default_value = "chess")]
    variant: Variant,
    /// Start from this FEN instead of the variant's start position.
    #[arg(long, conflicts_with = "suite")]
    fen: Option<String>,
    /// Plies to count.
    #[arg(long, required_unless_present = "suite")]
    depth: Option<u32>,
    /// Print the count below each legal move first (`e2e4 <count>`).
    #[arg(long, conflicts_with = "suite")]
    divide: bool,
    /// Make every leaf move instead of counting the last ply in bulk.
    #[arg(long)]
    no_bulk: bool,
    /// Check every position of a suite (.perft, .epd, Chess960 .csv, or `fen|depth|nodes|960` lines).
    #[arg(long)]
    suite: Option<PathBuf>,
    /// With --suite: skip counts larger than this.
    #[arg(long)]
    max_nodes: Option<u64>,
    /// Worker threads: for --suite, positions checked in parallel (default: all cores); for one
    /// position, root moves counted in parallel (default: 1, comparable with other engines).
    #[arg(long)]
    threads: Option<usize>,
}

/// Runs `ferz perft`. Exit codes: 0 success, 1 suite mismatches, 2 bad input.
pub fn run(args: &PerftArgs) -> ExitCode {
    let result = match &args.suite {
        Some(path) => run_suite(args, path),
        None => run_single(args).map(|()| true),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(error) => {
            eprintln!("error: {}", crate::error_text(&error));
            ExitCode::from(2)
        }
    }
}

fn nps(nodes: u64, elapsed: Duration) -> u64 {
    (nodes as f64 / elapsed.as_secs_f64().max(1e-9)) as u64
}

fn run_single(args: &PerftArgs) -> anyhow::Result<()> {
    let depth = args.depth.context("--depth is required")?;
    let pos = match &args.fen {
        Some(fen) => Position::from_fen(fen, args.variant).with_context(|| format!("invalid FEN {fen:?}"))?,
        None => Position::new(args.variant),
    };
    // One thread by default, so that times compare with other engines' single-threaded perft.
    let threads = args.threads.unwrap_or(1).max(1);
    let bulk = !args.no_bulk;
    let mut out = std::io::stdout().lock();
    let start = Instant::now();
    let nodes = if depth > 0 && (args.divide || threads > 1) {
        let mut total = 0;
        for (m, n) in divide_in_parallel(&pos, depth, bulk, threads) {
            total += n;
            if args.divide {
                writeln!(out, "{} {n}", pos.uci(m))?;
            }
        }
        total
    } else if bulk {
        perft(&pos, depth)
    } else {
        perft_make_all(&pos, depth)
    };
    let elapsed = start.elapsed();
    writeln!(out, "nodes {nodes} time {} nps {}", elapsed.as_millis(), nps(nodes, elapsed))?;
    Ok(())
}

/// [`divide`] with the root moves shared out among `threads` workers.
fn divide_in_parallel(pos: &Position, depth: u32, bulk: bool, threads: usize) -> Vec<(Move, u64)> {
    if threads <= 1 {
        return divide(pos, depth, bulk);
    }
    let moves = pos.legal_moves();
    let counts: Vec<AtomicU64> = moves.iter().map(|_| AtomicU64::new(0)).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads.min(moves.len()) {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&m) = moves.get(index) else { break };
                    let mut child = *pos;
                    child.play_unchecked(m);
                    let n = if bulk { perft(&child, depth - 1) } else { perft_make_all(&child, depth - 1) };
                    counts[index].store(n, Ordering::Relaxed);
                }
            });
        }
    });
    moves.iter().zip(&counts).map(|(&m, n)| (m, n.load(Ordering::Relaxed))).collect()
}

fn run_suite(args: &PerftArgs, path: &PathBuf) -> anyhow::Result<bool> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read suite {}", path.display()))?;
    let format = SuiteFormat::detect(&path.to_string_lossy(), &text);
    let cases = parse_suite(&text, format).with_context(|| format!("malformed suite {}", path.display()))?;
    if cases.is_empty() {
        bail!("suite {} has no positions", path.display());
    }
    let max_nodes = args.max_nodes.unwrap_or(u64::MAX);
    let threads = args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1);
    let start = Instant::now();
    let next = AtomicUsize::new(0);
    let reports: Mutex<Vec<Option<CaseReport>>> = Mutex::new((0..cases.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(case) = cases.get(index) else { break };
                    let report = check_case(case, args.variant, max_nodes);
                    if !report.problems.is_empty() {
                        // Show problems as they are found; the full list is repeated in order below.
                        eprintln!("{}", report.problems.join("\n"));
                    }
                    reports.lock().expect("no panics while holding the lock")[index] = Some(report);
                }
            });
        }
    });
    let elapsed = start.elapsed();
    let reports = reports.into_inner().expect("threads finished");
    let mut out = std::io::stdout().lock();
    let (mut checks, mut mismatches, mut skipped, mut nodes) = (0, 0, 0, 0u64);
    for report in reports.into_iter().flatten() {
        for line in &report.problems {
            writeln!(out, "{line}")?;
        }
        checks += report.checks;
        mismatches += report.problems.len();
        skipped += report.skipped;
        nodes += report.nodes;
    }
    writeln!(
        out,
        "{} positions, {checks} checks, {mismatches} mismatches, {skipped} skipped over {} nodes",
        cases.len(),
        if max_nodes == u64::MAX { "no limit".to_owned() } else { max_nodes.to_string() }
    )?;
    writeln!(out, "nodes {nodes} time {} nps {}", elapsed.as_millis(), nps(nodes, elapsed))?;
    Ok(mismatches == 0)
}
