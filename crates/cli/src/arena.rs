//! `ferz match`: games between two engines, with Elo and an SPRT.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Args;
use ferz_arena::{
    BookOrder, DrawAdjudication, EngineCommand, EngineConfig, EngineOption, GameSettings, Limit, MatchConfig,
    MatchControl, OpeningSettings, Pentanomial, ResignAdjudication, Sprt, SprtModel, Timeouts, load_book, load_played,
    run_match, schedule,
};
use ferz_chess::Variant;

/// Options of `ferz match`.
#[derive(Args, Debug)]
pub struct MatchArgs {
    /// Engine A, the one measured: `ferz` (this binary over UCI) or `uci:<path> [args]`.
    #[arg(long, default_value = "ferz", value_name = "SPEC")]
    engine_a: EngineCommand,
    /// Engine B, the opponent: `ferz` or `uci:<path> [args]`.
    #[arg(long, value_name = "SPEC", required_unless_present_any = ["vs", "pentanomial"], conflicts_with = "vs")]
    engine_b: Option<EngineCommand>,
    /// The opponent of `ferz` (same as `--engine-b`), like `--vs uci:/usr/games/stockfish`.
    #[arg(long, value_name = "SPEC")]
    vs: Option<EngineCommand>,
    /// A UCI option for engine A, `Name=Value`; repeatable.
    #[arg(long = "option-a", value_name = "NAME=VALUE")]
    options_a: Vec<EngineOption>,
    /// A UCI option for engine B, `Name=Value`; repeatable.
    #[arg(long = "option-b", value_name = "NAME=VALUE")]
    options_b: Vec<EngineOption>,
    /// Engine A's name in the PGN and reports (default: its `id name`).
    #[arg(long)]
    name_a: Option<String>,
    /// Engine B's name in the PGN and reports.
    #[arg(long)]
    name_b: Option<String>,
    /// Engine A thinks on B's time (`go ponder` on the reply it expects, then `ponderhit` or
    /// `stop`).
    #[arg(long)]
    ponder_a: bool,
    /// Engine B thinks on A's time.
    #[arg(long)]
    ponder_b: bool,
    /// Games to play, rounded up to whole colour-swapped pairs.
    #[arg(long, default_value_t = 20)]
    games: u32,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// Clock per side in seconds with increment, like `10+0.1` (the default limit).
    #[arg(long, value_name = "BASE+INC", value_parser = Limit::parse_clock, conflicts_with_all = ["nodes", "movetime", "depth"])]
    tc: Option<Limit>,
    /// Nodes per move instead of a clock.
    #[arg(long, conflicts_with_all = ["movetime", "depth"])]
    nodes: Option<u64>,
    /// Milliseconds per move instead of a clock.
    #[arg(long, value_name = "MS", conflicts_with = "depth")]
    movetime: Option<u64>,
    /// Depth per move instead of a clock.
    #[arg(long)]
    depth: Option<u32>,
    /// Milliseconds an engine may exceed its clock or move time before it loses on time.
    #[arg(long, default_value_t = 50, value_name = "MS")]
    time_margin_ms: u64,
    /// Seconds to wait for a node- or depth-limited move before the engine loses as stalled.
    #[arg(long, default_value_t = 60, value_name = "S")]
    stall_timeout_s: u64,
    /// Seconds an engine may take to answer `uci` and `isready` at start-up.
    #[arg(long, default_value_t = 20, value_name = "S")]
    handshake_timeout_s: u64,
    /// Rules: chess, chess960 or shatranj.
    #[arg(long, default_value = "chess")]
    variant: Variant,
    /// Opening book: FEN/EPD lines, or PGN games (`.pgn`). Without one: random Chess960 start
    /// positions, both Shatranj arrays in turn, or the chess start position, plus random plies.
    #[arg(long, value_name = "FILE")]
    book: Option<PathBuf>,
    /// Order of book entries: sequential or random (shuffled by the seed).
    #[arg(long, default_value = "sequential")]
    book_order: BookOrder,
    /// First book entry to use, counting from 1 (for disjoint slices of one book across runs).
    #[arg(long, default_value_t = 1)]
    book_start: usize,
    /// With a PGN book: plies of each game to play before the engines take over (default: all).
    #[arg(long)]
    book_plies: Option<usize>,
    /// Random legal plies after the opening (default: 6 without a book, except for Chess960; 0 with one).
    #[arg(long)]
    random_plies: Option<u32>,
    /// Seed for the book order, Chess960 positions and random plies.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Append every finished game to this PGN file.
    #[arg(long, value_name = "FILE")]
    pgn: Option<PathBuf>,
    /// Continue a stopped match: the games already in `--pgn` count and are not played again.
    /// Give the same settings as the first run (the games are checked against its openings).
    #[arg(long, requires = "pgn")]
    resume: bool,
    /// Leave out the `{score/depth time}` move comments in the PGN.
    #[arg(long)]
    no_pgn_comments: bool,
    /// Stop when a sequential probability ratio test decides: `elo0,elo1[,alpha,beta]`
    /// (alpha and beta default to 0.05), on pentanomial pair results.
    #[arg(long, value_name = "ELO0,ELO1[,ALPHA,BETA]")]
    sprt: Option<String>,
    /// Elo scale of the SPRT bounds: normalized (as fishtest) or logistic.
    #[arg(long, default_value = "normalized")]
    sprt_model: SprtModel,
    /// Draw when both scores stay near zero: `movenumber=N,movecount=M,score=CP`.
    #[arg(long, value_name = "RULE")]
    draw_adjudication: Option<DrawAdjudication>,
    /// Loss for an engine whose own score stays below -CP: `movecount=M,score=CP[,twosided]`.
    #[arg(long, value_name = "RULE")]
    resign_adjudication: Option<ResignAdjudication>,
    /// Draw a game when it reaches this many plies.
    #[arg(long)]
    max_plies: Option<u32>,
    /// The PGN `Event` tag.
    #[arg(long, default_value = "ferz match")]
    event: String,
    /// Play nothing: report the Elo and (with `--sprt`) the LLR and verdict of these pair
    /// counts, `LL,LD,DD,WD,WW` (pairs that scored 0, ½, 1, 1½ and 2 points), such as the sums
    /// of several machines' runs of one test, pooled as fishtest pools its workers'.
    #[arg(long, value_name = "LL,LD,DD,WD,WW", value_parser = parse_pentanomial)]
    pentanomial: Option<Pentanomial>,
}

fn parse_pentanomial(text: &str) -> Result<Pentanomial, String> {
    let counts: Vec<u64> = text
        .split(',')
        .map(|n| n.trim().parse::<u64>().map_err(|_| format!("{n:?} is not a count of pairs")))
        .collect::<Result<_, _>>()?;
    let [ll, ld, dd, wd, ww] = counts[..] else {
        return Err(format!("expected five counts LL,LD,DD,WD,WW, got {}", counts.len()));
    };
    Ok(Pentanomial { ll, ld, dd, wl: 0, wd, ww })
}

/// The statistics of `penta` as a match reports them, and the SPRT's verdict on them.
fn pentanomial_report(penta: &Pentanomial, sprt: Option<&Sprt>) -> String {
    let pairs = penta.pairs();
    let elo = penta.elo().map_or_else(|| "-".to_owned(), |e| format!("{e} (LOS {:.1}%)", 100.0 * e.los));
    let mut out = format!("Pairs {pairs} ({} games): Elo {elo}, penta {penta}\n", 2 * pairs);
    if let Some(sprt) = sprt {
        let llr = sprt.llr(penta);
        let (lower, upper) = sprt.bounds();
        out.push_str(&format!("SPRT {sprt}: LLR {llr:.2} ({lower:.2}, {upper:.2}), {}\n", sprt.status(llr)));
    }
    out
}

fn parse_sprt(text: &str, model: SprtModel) -> anyhow::Result<Sprt> {
    let numbers: Vec<f64> = text
        .split([',', ' '])
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<f64>().with_context(|| format!("--sprt {text:?}: {s:?} is not a number")))
        .collect::<anyhow::Result<_>>()?;
    let (elo0, elo1, alpha, beta) = match numbers[..] {
        [elo0, elo1] => (elo0, elo1, 0.05, 0.05),
        [elo0, elo1, alpha, beta] => (elo0, elo1, alpha, beta),
        _ => bail!("--sprt {text:?}: expected elo0,elo1 or elo0,elo1,alpha,beta, like 0,5 or 0,5,0.05,0.05"),
    };
    Ok(Sprt::new(elo0, elo1, alpha, beta, model)?)
}

fn config(args: MatchArgs) -> anyhow::Result<MatchConfig> {
    let limit = match (args.tc, args.nodes, args.movetime, args.depth) {
        (Some(tc), ..) => tc,
        (_, Some(0), ..) => bail!("--nodes must be positive"),
        (_, Some(nodes), ..) => Limit::Nodes(nodes),
        (_, _, Some(ms), _) => Limit::MoveTime(Duration::from_millis(ms.max(1))),
        (.., Some(depth)) => Limit::Depth(depth.max(1)),
        _ => Limit::parse_clock("10+0.1")?,
    };
    let sprt = args.sprt.as_deref().map(|text| parse_sprt(text, args.sprt_model)).transpose()?;
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    if args.book_start == 0 {
        bail!("--book-start counts from 1");
    }
    let pairs = args.games.div_ceil(2) as usize;
    let book = args.book.as_deref().map(|path| load_book(path, args.variant, args.book_plies)).transpose()?;
    let random_plies =
        args.random_plies.unwrap_or(if book.is_none() && args.variant != Variant::Chess960 { 6 } else { 0 });
    let openings = schedule(
        book.as_deref(),
        &OpeningSettings {
            variant: args.variant,
            order: args.book_order,
            seed: args.seed,
            start: args.book_start - 1,
            random_plies,
        },
        pairs,
    );
    let engine_b = args.engine_b.or(args.vs).context("--engine-b or --vs is required")?;
    let engine = |command, options, name, ponder| EngineConfig { command, options, name, ponder };
    Ok(MatchConfig {
        engines: [
            engine(args.engine_a, args.options_a, args.name_a, args.ponder_a),
            engine(engine_b, args.options_b, args.name_b, args.ponder_b),
        ],
        variant: args.variant,
        openings,
        concurrency: args.concurrency.max(1),
        game: GameSettings {
            limit,
            time_margin: Duration::from_millis(args.time_margin_ms),
            stall_timeout: Duration::from_secs(args.stall_timeout_s.max(1)),
            max_plies: args.max_plies,
            draw_adjudication: args.draw_adjudication,
            resign_adjudication: args.resign_adjudication,
        },
        timeouts: Timeouts { handshake: Duration::from_secs(args.handshake_timeout_s.max(1)), ..Timeouts::default() },
        pgn: args.pgn,
        pgn_comments: !args.no_pgn_comments,
        sprt,
        event: args.event,
        self_exe: std::env::current_exe().context("cannot find the ferz executable")?,
    })
}

/// Ctrl-C and SIGTERM: the first lets the games in progress finish, the second drops them, the
/// third quits at once. Every finished game is already in the PGN, so `--resume` continues.
fn install_interrupt(control: &Arc<MatchControl>) -> anyhow::Result<()> {
    let presses = AtomicU32::new(0);
    let control = Arc::clone(control);
    ctrlc::set_handler(move || match presses.fetch_add(1, Ordering::SeqCst) {
        0 => {
            eprintln!("stopping: finishing the games in progress (Ctrl-C again drops them)");
            control.drain.store(true, Ordering::SeqCst);
        }
        1 => {
            eprintln!("stopping now: the games in progress are dropped");
            control.abort.store(true, Ordering::SeqCst);
        }
        _ => std::process::exit(i32::from(crate::EXIT_INTERRUPTED)),
    })
    .context("installing the Ctrl-C / SIGTERM handler")
}

/// Runs `ferz match`. Exit codes: 0 when the match ran to its end or its SPRT decision
/// (whatever the result), 130 when it was stopped by a signal, 2 on bad input or an engine
/// that cannot be started.
pub fn run(args: MatchArgs) -> ExitCode {
    if let Some(penta) = &args.pentanomial {
        return match args.sprt.as_deref().map(|text| parse_sprt(text, args.sprt_model)).transpose() {
            Ok(sprt) => {
                print!("{}", pentanomial_report(penta, sprt.as_ref()));
                ExitCode::SUCCESS
            }
            Err(error) => {
                eprintln!("error: {}", crate::error_text(&error));
                ExitCode::from(2)
            }
        };
    }
    let resume = args.resume;
    let control = Arc::new(MatchControl::default());
    let result = config(args).and_then(|config| {
        let played = match (&config.pgn, resume) {
            (Some(path), true) => load_played(path, config.variant, &config.openings)?,
            _ => Vec::new(),
        };
        println!(
            "Match: A = {} vs B = {}, {} games, {}, {}, concurrency {}",
            config.engines[0],
            config.engines[1],
            2 * config.openings.len(),
            config.variant,
            config.game.limit,
            config.concurrency
        );
        if let Some(sprt) = &config.sprt {
            let (lower, upper) = sprt.bounds();
            println!("SPRT {sprt}, bounds ({lower:.2}, {upper:.2}), pentanomial");
        }
        install_interrupt(&control)?;
        Ok(run_match(&config, &played, &control, &mut std::io::stdout())?)
    });
    match result {
        Ok(summary) => {
            print!("{}", summary.report());
            if summary.unfinished() {
                println!("To continue: the same command with --resume");
                return ExitCode::from(crate::EXIT_INTERRUPTED);
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {}", crate::error_text(&error));
            ExitCode::from(2)
        }
    }
}
