//! `ferz-tune gen`: self-play games with a fixed node budget per move, recording quiet
//! positions with the search score and the final result.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::{Context as _, Result, bail};
use ferz_chess::{Color, Game, Move, Position, ShatranjArray, Variant};
use ferz_engine::{Engine, EngineOptions, Score, SearchLimits, Signals};

use crate::data::Record;
use ferz_chess::SplitMix64;

/// Everything `gen` needs.
#[derive(Clone, Debug)]
pub struct GenConfig {
    /// Rules to play.
    pub variant: Variant,
    /// Games to play.
    pub games: usize,
    /// Nodes per move.
    pub nodes: u64,
    /// Opening positions (FENs); empty for the variant's own start positions.
    pub book: Vec<String>,
    /// Random legal plies played after the opening position.
    pub random_plies: usize,
    /// Games played at once.
    pub threads: usize,
    /// Seed of everything random; game `i` uses a generator derived from it and `i`.
    pub seed: u64,
    /// The dataset to write.
    pub out: PathBuf,
    /// Plies after the opening (book position and random plies) that are never recorded: the
    /// engine's own early moves add many near-identical positions.
    pub skip_plies: usize,
    /// A game still going after this many plies is scored a draw.
    pub max_plies: usize,
    /// A side wins by adjudication once the score is at least this (centipawns) for
    /// `win_plies` plies in a row, agreed by both sides.
    pub win_score: i32,
    /// See `win_score`.
    pub win_plies: usize,
    /// A game is drawn by adjudication after `draw_after` plies once the score stayed within
    /// ±`draw_score` for `draw_plies` plies in a row (0 turns this off).
    pub draw_plies: usize,
    /// See `draw_plies`.
    pub draw_score: i32,
    /// See `draw_plies`.
    pub draw_after: usize,
}

/// Reads an EPD or FEN file: one position a line, the first four fields (board, turn,
/// castling, en passant) and the two move counters when present. Blank lines and `#` comments
/// are skipped.
///
/// # Errors
/// When the file cannot be read.
pub fn read_book(path: &Path) -> Result<Vec<String>> {
    let file = File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let mut fens = Vec::new();
    for line in BufReader::new(file).lines() {
        let line = line?;
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() < 4 || fields[0].starts_with('#') {
            continue;
        }
        let counters = match fields.get(4..6) {
            Some([half, full]) if half.parse::<u32>().is_ok() && full.parse::<u32>().is_ok() => {
                format!("{half} {full}")
            }
            _ => "0 1".to_string(),
        };
        fens.push(format!("{} {counters}", fields[..4].join(" ")));
    }
    Ok(fens)
}

/// Totals of a run.
#[derive(Default, Debug)]
struct Totals {
    games: usize,
    positions: usize,
    white_wins: usize,
    draws: usize,
    black_wins: usize,
    plies: usize,
}

/// Plays `config.games` games and writes the dataset (to a temporary name first, renamed when
/// complete, so that a half-written file is never mistaken for data).
///
/// # Errors
/// When a book position is invalid or the output cannot be written.
pub fn run(config: &GenConfig) -> Result<()> {
    for fen in &config.book {
        Position::from_fen(fen, config.variant).with_context(|| format!("book position {fen}"))?;
    }
    let tmp = config.out.with_extension("tmp");
    let writer = Mutex::new(BufWriter::new(File::create(&tmp).with_context(|| format!("creating {}", tmp.display()))?));
    let next = AtomicUsize::new(0);
    let totals = Mutex::new(Totals::default());
    let start = Instant::now();
    let report_every = (config.games / 50).max(1);

    std::thread::scope(|scope| -> Result<()> {
        let mut handles = Vec::new();
        for _ in 0..config.threads.max(1) {
            handles.push(scope.spawn(|| -> Result<()> {
                let mut engine = Engine::new(EngineOptions { hash_mb: 16, threads: 1, ..EngineOptions::default() });
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= config.games {
                        return Ok(());
                    }
                    let mut rng = SplitMix64::new(config.seed ^ (index as u64).wrapping_mul(0xD1B5_4A32_D192_ED03));
                    let played = play_game(config, &mut engine, &mut rng)?;
                    let mut out = writer.lock().expect("writer lock");
                    for record in &played.records {
                        writeln!(out, "{record}")?;
                    }
                    drop(out);
                    let mut t = totals.lock().expect("totals lock");
                    t.games += 1;
                    t.positions += played.records.len();
                    t.plies += played.plies;
                    match played.result {
                        r if r > 0.75 => t.white_wins += 1,
                        r if r < 0.25 => t.black_wins += 1,
                        _ => t.draws += 1,
                    }
                    if t.games % report_every == 0 || t.games == config.games {
                        eprintln!(
                            "{}/{} games, {} positions, +{} ={} -{} (white), {:.0} plies/game, {:.0} s",
                            t.games,
                            config.games,
                            t.positions,
                            t.white_wins,
                            t.draws,
                            t.black_wins,
                            t.plies as f64 / t.games as f64,
                            start.elapsed().as_secs_f64()
                        );
                    }
                }
            }));
        }
        for handle in handles {
            handle.join().expect("generator thread panicked")?;
        }
        Ok(())
    })?;

    let mut out = writer.into_inner().expect("writer lock");
    out.flush()?;
    drop(out);
    std::fs::rename(&tmp, &config.out).with_context(|| format!("renaming to {}", config.out.display()))?;
    Ok(())
}

/// The positions a game recorded, its result and length.
struct Played {
    records: Vec<Record>,
    result: f64,
    plies: usize,
}

/// The opening: a book position or a start position of the variant, then random plies. Starts
/// where the game would already be over are drawn again.
fn opening(config: &GenConfig, rng: &mut SplitMix64) -> Result<Game> {
    for _ in 0..100 {
        let start = if !config.book.is_empty() {
            Position::from_fen(&config.book[rng.index(config.book.len())], config.variant)?
        } else {
            match config.variant {
                Variant::Chess => Position::new(Variant::Chess),
                Variant::Chess960 => Position::random_chess960(|| rng.next_u64()),
                Variant::Shatranj => {
                    let array = if rng.index(2) == 0 { ShatranjArray::KingOnD } else { ShatranjArray::KingOnE };
                    Position::shatranj(array)
                }
            }
        };
        let mut game = Game::new(start);
        for _ in 0..config.random_plies {
            let moves = game.position().legal_moves();
            if moves.is_empty() {
                break;
            }
            game.play(moves[rng.index(moves.len())])?;
        }
        if game.outcome().is_none() {
            return Ok(game);
        }
    }
    bail!("no playable opening found in 100 tries")
}

/// Whether `m` takes something or promotes (castling is king-takes-own-rook internally and
/// does not count).
fn is_noisy(pos: &Position, m: Move) -> bool {
    m.promotion_role().is_some() || m.is_en_passant() || (!m.is_castle() && pos.piece_at(m.to()).is_some())
}

/// A search score in centipawns from white's side, with mates as ±`mate_cp`.
fn white_cp(score: Score, turn: Color, mate_cp: i32) -> (i32, bool) {
    let (cp, mate) = match score {
        Score::Cp(cp) => (cp, false),
        Score::Mate(m) => (if m > 0 { mate_cp } else { -mate_cp }, true),
    };
    (if turn.is_white() { cp } else { -cp }, mate)
}

fn play_game(config: &GenConfig, engine: &mut Engine, rng: &mut SplitMix64) -> Result<Played> {
    let mut game = opening(config, rng)?;
    engine.clear();
    let signals = Signals::default();
    let limits = SearchLimits::nodes(config.nodes);
    let mut pending: Vec<(String, i32)> = Vec::new();
    let (mut white_streak, mut black_streak, mut draw_streak) = (0, 0, 0);
    let mut plies = 0;
    let result = loop {
        if let Some(outcome) = game.outcome() {
            break match outcome.winner() {
                Some(Color::White) => 1.0,
                Some(Color::Black) => 0.0,
                None => 0.5,
            };
        }
        if plies >= config.max_plies {
            break 0.5;
        }
        let pos = *game.position();
        let found = engine.search(&game, &limits, &signals, &mut |_| {});
        let best = found.best.context("a position with legal moves has a best move")?;
        let (cp, mate) = white_cp(found.score, pos.turn(), 100_000);

        if plies >= config.skip_plies && !mate && !pos.is_check() && !is_noisy(&pos, best) {
            pending.push((pos.fen(), cp));
        }

        white_streak = if cp >= config.win_score { white_streak + 1 } else { 0 };
        black_streak = if cp <= -config.win_score { black_streak + 1 } else { 0 };
        draw_streak = if cp.abs() <= config.draw_score { draw_streak + 1 } else { 0 };
        if white_streak >= config.win_plies {
            break 1.0;
        }
        if black_streak >= config.win_plies {
            break 0.0;
        }
        if config.draw_plies > 0 && plies >= config.draw_after && draw_streak >= config.draw_plies {
            break 0.5;
        }
        game.play(best)?;
        plies += 1;
    };
    let records = pending.into_iter().map(|(fen, score)| Record { fen, score, result }).collect();
    Ok(Played { records, result, plies })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(variant: Variant, out: PathBuf) -> GenConfig {
        GenConfig {
            variant,
            games: 2,
            nodes: 300,
            book: Vec::new(),
            random_plies: 4,
            threads: 1,
            seed: 1,
            out,
            skip_plies: 2,
            max_plies: 60,
            win_score: 1000,
            win_plies: 4,
            draw_plies: 8,
            draw_score: 10,
            draw_after: 40,
        }
    }

    #[test]
    fn writes_parseable_records() {
        let dir = std::env::temp_dir().join(format!("ferz-tune-gen-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        for variant in Variant::ALL {
            let out = dir.join(format!("{variant}.txt"));
            run(&config(variant, out.clone())).expect("gen runs");
            let text = std::fs::read_to_string(&out).expect("written");
            assert!(!text.is_empty(), "{variant}");
            for line in text.lines() {
                let record = Record::parse(line).expect("parseable");
                let pos = record.position(variant).expect("legal");
                assert!(!pos.is_check(), "{line}");
            }
            assert!(!out.with_extension("tmp").exists());
        }
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn books_keep_counters_or_default_them() {
        let path = std::env::temp_dir().join(format!("ferz-tune-book-{}.epd", std::process::id()));
        std::fs::write(
            &path,
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n\n\
             rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - c0 \"start\";\n",
        )
        .expect("write book");
        let book = read_book(&path).expect("read");
        assert_eq!(book.len(), 2);
        assert!(book[0].ends_with(" b KQkq - 0 1"));
        assert!(book[1].ends_with(" w KQkq - 0 1"));
        std::fs::remove_file(&path).ok();
    }
}
