//! The match: worker threads playing colour-swapped pairs, one collector writing the PGN,
//! keeping the score and deciding when to stop.

use std::collections::HashMap;
use std::fs::OpenOptions;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Sender, channel};
use std::time::{Duration, Instant};

use ferz_chess::{Color, Variant};

use ferz_uci::{Launch, Reply, Setup, Timeouts, UciEngine, UciError};

use crate::engine::{MoveRequest, Player, PlayerError};
use crate::game::{GameRecord, GameSettings, Termination, play_game};
use crate::openings::Opening;
use crate::pgn::{PgnContext, today, write_game};
use crate::resume::PlayedGame;
use crate::spec::EngineConfig;
use crate::stats::{GameScore, Pentanomial, Sprt, SprtStatus, Wdl};
use ferz_chess::GameResult;
use ferz_uci::PonderStats;

/// Everything a match needs.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// Engine A (the one the statistics are about) and engine B.
    pub engines: [EngineConfig; 2],
    /// The rules.
    pub variant: Variant,
    /// One opening per pair; the match plays `2 × openings.len()` games.
    pub openings: Vec<Opening>,
    /// Games played at once.
    pub concurrency: usize,
    /// Limits and adjudication.
    pub game: GameSettings,
    /// Handshake and `isready` timeouts.
    pub timeouts: Timeouts,
    /// Where to append each finished game.
    pub pgn: Option<PathBuf>,
    /// Whether the PGN gets `{score/depth time}` comments.
    pub pgn_comments: bool,
    /// Stop when the test decides.
    pub sprt: Option<Sprt>,
    /// The PGN `Event`.
    pub event: String,
    /// The program `ferz` engines run (normally this executable).
    pub self_exe: PathBuf,
}

/// How a running match is stopped from outside (a signal handler, a test).
#[derive(Debug, Default)]
pub struct MatchControl {
    /// Start no new game; the games in progress finish and are written.
    pub drain: AtomicBool,
    /// Stop at once: the games in progress are dropped (a resumed run plays them again).
    pub abort: AtomicBool,
}

impl MatchControl {
    fn starts_games(&self) -> bool {
        !self.drain.load(Ordering::Relaxed) && !self.abort.load(Ordering::Relaxed)
    }
}

/// A match that could not be run.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    /// An engine could not be started (or restarted).
    #[error("engine {label}: {error}")]
    Engine {
        /// `A` or `B`.
        label: char,
        /// Why.
        error: UciError,
    },
    /// The PGN file could not be written.
    #[error("cannot write {path}: {error}")]
    Pgn {
        /// The file.
        path: String,
        /// Why.
        error: std::io::Error,
    },
}

/// Counts of game endings, by termination.
pub type Terminations = Vec<(Termination, u64)>;

/// The state of a match: what the progress lines and the final summary print.
#[derive(Clone, Debug)]
pub struct MatchSummary {
    /// Names of A and B.
    pub names: [String; 2],
    /// Games planned.
    pub planned: u64,
    /// A's results.
    pub wdl: Wdl,
    /// A's results in the games it had white.
    pub wdl_white: Wdl,
    /// Completed pairs.
    pub penta: Pentanomial,
    /// The test and its LLR, if one runs.
    pub sprt: Option<(Sprt, f64)>,
    /// How the games ended.
    pub terminations: Terminations,
    /// Time since the start of this run.
    pub elapsed: Duration,
    /// Games read back from the PGN of an earlier run (`--resume`).
    pub resumed: u64,
    /// How A's and B's pondering went in the games of this run.
    pub ponder: [PonderStats; 2],
}

impl MatchSummary {
    /// Games finished.
    #[must_use]
    pub fn games(&self) -> u64 {
        self.wdl.games()
    }

    /// Whether games are left to play: the match was stopped before its end without an SPRT
    /// decision.
    #[must_use]
    pub fn unfinished(&self) -> bool {
        self.games() < self.planned && self.sprt_status().is_none_or(|s| s == SprtStatus::Continue)
    }

    /// The SPRT decision so far.
    #[must_use]
    pub fn sprt_status(&self) -> Option<SprtStatus> {
        self.sprt.map(|(sprt, llr)| sprt.status(llr))
    }

    /// Counts a finished game; returns whether it completed its pair (the pentanomial and the
    /// SPRT are updated then).
    fn record(
        &mut self,
        termination: Termination,
        a_white: bool,
        score: GameScore,
        pair: usize,
        first_of_pair: &mut HashMap<usize, GameScore>,
    ) -> bool {
        self.wdl.add(score);
        if a_white {
            self.wdl_white.add(score);
        }
        match self.terminations.iter_mut().find(|(t, _)| *t == termination) {
            Some((_, n)) => *n += 1,
            None => self.terminations.push((termination, 1)),
        }
        let Some(first) = first_of_pair.remove(&pair) else {
            first_of_pair.insert(pair, score);
            return false;
        };
        self.penta.add(first, score);
        if let Some((sprt, llr)) = &mut self.sprt {
            *llr = sprt.llr(&self.penta);
        }
        true
    }

    /// One line: games, W/D/L, score, Elo, pentanomial counts, LLR and bounds.
    #[must_use]
    pub fn progress_line(&self) -> String {
        let mut line = format!(
            "Games {}/{}: +{} ={} -{}, score {:.1}%",
            self.games(),
            self.planned,
            self.wdl.wins,
            self.wdl.draws,
            self.wdl.losses,
            100.0 * self.wdl.points() / self.games().max(1) as f64
        );
        match self.penta.elo().or_else(|| self.wdl.elo()) {
            Some(elo) => line.push_str(&format!(", Elo {elo} (LOS {:.1}%)", 100.0 * elo.los)),
            None => line.push_str(", Elo -"),
        }
        line.push_str(&format!(", penta {}", self.penta));
        if let Some((sprt, llr)) = self.sprt {
            let (lower, upper) = sprt.bounds();
            line.push_str(&format!(", LLR {llr:.2} ({lower:.2}, {upper:.2}) [{}, {}]", sprt.elo0, sprt.elo1));
        }
        line
    }

    /// The final report, several lines.
    #[must_use]
    pub fn report(&self) -> String {
        let mut out = String::new();
        let [a, b] = &self.names;
        out.push_str(&format!(
            "Match {}: {} of {} games in {:.1} s",
            if self.unfinished() { "stopped" } else { "finished" },
            self.games(),
            self.planned,
            self.elapsed.as_secs_f64()
        ));
        if self.resumed > 0 {
            out.push_str(&format!(" ({} of them from the earlier run)", self.resumed));
        }
        out.push('\n');
        out.push_str(&format!("A: {a}\nB: {b}\n"));
        out.push_str(&format!(
            "Score of A vs B: +{} ={} -{} ({:.1}/{}, {:.1}%)\n",
            self.wdl.wins,
            self.wdl.draws,
            self.wdl.losses,
            self.wdl.points(),
            self.games(),
            100.0 * self.wdl.points() / self.games().max(1) as f64
        ));
        out.push_str(&format!(
            "A with white: +{} ={} -{}; A with black: +{} ={} -{}\n",
            self.wdl_white.wins,
            self.wdl_white.draws,
            self.wdl_white.losses,
            self.wdl.wins - self.wdl_white.wins,
            self.wdl.draws - self.wdl_white.draws,
            self.wdl.losses - self.wdl_white.losses
        ));
        match self.penta.elo() {
            Some(elo) => out.push_str(&format!(
                "Elo {elo} (95%: {:+.1} to {:+.1}), LOS {:.1}%, from {} pairs\n",
                elo.low,
                elo.high,
                100.0 * elo.los,
                self.penta.pairs()
            )),
            None => out.push_str("Elo: no complete pair\n"),
        }
        out.push_str(&format!(
            "Pentanomial [LL, LD, DD+WL, WD, WW]: {} (DD {}, WL {})\n",
            self.penta, self.penta.dd, self.penta.wl
        ));
        if let Some((sprt, llr)) = self.sprt {
            let (lower, upper) = sprt.bounds();
            let verdict = match sprt.status(llr) {
                SprtStatus::AcceptH1 => "H1 accepted: A is stronger by at least elo1",
                SprtStatus::AcceptH0 => "H0 accepted: A is not stronger by elo1",
                SprtStatus::Continue => "no decision yet",
            };
            out.push_str(&format!("SPRT {sprt}: LLR {llr:.2} ({lower:.2}, {upper:.2}), {verdict}\n"));
        }
        for (label, stats) in ['A', 'B'].into_iter().zip(self.ponder) {
            if let Some(rate) = stats.hit_rate() {
                let pondered_ms = stats.pondered.as_secs_f64() * 1000.0;
                out.push_str(&format!(
                    "Pondering {label}: {} hits, {} misses ({:.1}% hits), {:.0} ms pondered per hit, {:.0} ms per move over {} moves\n",
                    stats.hits,
                    stats.misses,
                    100.0 * rate,
                    pondered_ms / f64::from(stats.hits.max(1)),
                    pondered_ms / f64::from(stats.moves.max(1)),
                    stats.moves
                ));
            }
        }
        let endings: Vec<String> = self.terminations.iter().map(|(t, n)| format!("{} {n}", t.pgn())).collect();
        out.push_str(&format!("Endings: {}\n", if endings.is_empty() { "-".to_owned() } else { endings.join(", ") }));
        out
    }
}

/// What a worker tells the collector.
enum Event {
    /// Boxed: a record holds positions, and the other events should not carry their size.
    Game {
        number: u64,
        a_white: bool,
        record: Box<GameRecord>,
    },
    Note(String),
    Fatal(MatchError),
}

/// A's score in a game.
fn a_score(result: Option<GameResult>, a_white: bool) -> Option<GameScore> {
    let a = Color::from_white(a_white);
    match result? {
        GameResult::Win(winner) if winner == a => Some(GameScore::Win),
        GameResult::Win(_) => Some(GameScore::Loss),
        GameResult::Draw => Some(GameScore::Draw),
    }
}

/// Runs the match, writing progress lines to `log`, and returns the final state. `played` are
/// the games an earlier run finished (see [`crate::load_played`]): they count, and only the
/// other games are played. `control` stops the match early.
///
/// # Errors
/// When an engine cannot be started (or restarted after a crash) or the PGN cannot be written.
pub fn run_match(
    config: &MatchConfig,
    played: &[PlayedGame],
    control: &MatchControl,
    log: &mut dyn Write,
) -> Result<MatchSummary, MatchError> {
    let started = Instant::now();
    let pairs = config.openings.len();
    let mut summary = MatchSummary {
        names: [0, 1].map(|i| config.engines[i].name.clone().unwrap_or_else(|| config.engines[i].command.to_string())),
        planned: 2 * pairs as u64,
        wdl: Wdl::default(),
        wdl_white: Wdl::default(),
        penta: Pentanomial::default(),
        sprt: config.sprt.map(|s| (s, 0.0)),
        terminations: Vec::new(),
        elapsed: Duration::ZERO,
        resumed: played.len() as u64,
        ponder: [PonderStats::default(); 2],
    };
    let mut first_of_pair: HashMap<usize, GameScore> = HashMap::new();
    let mut done = vec![[false; 2]; pairs];
    for game in played {
        let score = a_score(Some(game.result), game.a_white()).expect("finished games only");
        summary.record(game.termination, game.a_white(), score, game.pair(), &mut first_of_pair);
        done[game.pair()][usize::from(!game.a_white())] = true;
    }
    let named = played.first().map(|g| if g.a_white() { [&g.white, &g.black] } else { [&g.black, &g.white] });
    if let (Some([a, b]), [None, None]) = (named, [&config.engines[0].name, &config.engines[1].name]) {
        summary.names = [a.clone(), b.clone()];
    }
    if !played.is_empty() {
        let _ = writeln!(log, "Resuming: {} games read back; {}", played.len(), summary.progress_line());
    }
    // The games still to play, pair by pair: `[A white, B white]`.
    let work: Vec<(usize, [bool; 2])> =
        done.iter().enumerate().filter(|(_, d)| !(d[0] && d[1])).map(|(pair, d)| (pair, [!d[0], !d[1]])).collect();
    let mut pgn = match &config.pgn {
        Some(path) => Some(
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|error| MatchError::Pgn { path: path.display().to_string(), error })?,
        ),
        None => None,
    };
    let next = AtomicUsize::new(0);
    let stop = &control.abort;
    let (sender, events) = channel();
    let date = today();
    let mut failure = None;
    std::thread::scope(|scope| {
        for worker in 0..config.concurrency.clamp(1, work.len().max(1)) {
            let sender = sender.clone();
            let (next, work) = (&next, &work);
            std::thread::Builder::new()
                .name(format!("match-worker-{worker}"))
                .spawn_scoped(scope, move || run_worker(config, work, next, control, &sender))
                .expect("spawn worker thread");
        }
        drop(sender);
        let mut named = named.is_some();
        // Once the SPRT decides, a game that still ends is dropped like any game in progress:
        // a worker may have begun it before the decision reached it.
        let mut decided = false;
        for event in events {
            match event {
                Event::Note(text) => {
                    let _ = writeln!(log, "{text}");
                }
                Event::Fatal(error) => {
                    stop.store(true, Ordering::Relaxed);
                    failure.get_or_insert(error);
                }
                Event::Game { number, a_white, record } => {
                    let Some(score) = a_score(record.result, a_white).filter(|_| !decided) else { continue };
                    if !named {
                        // The engines' own names, once known, unless the user chose names.
                        let (a, b) =
                            if a_white { (&record.white, &record.black) } else { (&record.black, &record.white) };
                        summary.names = [a.clone(), b.clone()];
                        named = true;
                    }
                    if let Some(file) = &mut pgn {
                        let context = PgnContext {
                            event: config.event.clone(),
                            date: date.clone(),
                            round: number,
                            time_control: config.game.limit.pgn_tag(),
                            comments: config.pgn_comments,
                        };
                        // Each game is written and flushed as it ends, so a crash of the runner
                        // loses no finished game.
                        let written =
                            file.write_all(write_game(&record, &context).as_bytes()).and_then(|()| file.flush());
                        if let Err(error) = written {
                            let path = config.pgn.as_ref().map(|p| p.display().to_string()).unwrap_or_default();
                            failure.get_or_insert(MatchError::Pgn { path, error });
                            stop.store(true, Ordering::Relaxed);
                        }
                    }
                    let [white, black] = record.ponder;
                    let (a, b) = if a_white { (white, black) } else { (black, white) };
                    summary.ponder[0].add(a);
                    summary.ponder[1].add(b);
                    let pair = ((number - 1) / 2) as usize;
                    let pair_done = summary.record(record.termination, a_white, score, pair, &mut first_of_pair);
                    let _ = writeln!(
                        log,
                        "Finished game {number} ({} vs {}): {} {{{}}}",
                        record.white,
                        record.black,
                        GameResult::pgn_of(record.result),
                        record.reason
                    );
                    if pair_done {
                        if summary.sprt_status().is_some_and(|s| s != SprtStatus::Continue) {
                            decided = true;
                            stop.store(true, Ordering::Relaxed);
                        }
                        summary.elapsed = started.elapsed();
                        let _ = writeln!(log, "{}", summary.progress_line());
                    }
                }
            }
        }
    });
    summary.elapsed = started.elapsed();
    match failure {
        Some(error) => Err(error),
        None => Ok(summary),
    }
}

/// A worker's pair of engine processes, restarted when they break.
struct Seats<'a> {
    config: &'a MatchConfig,
    engines: [Option<UciEngine>; 2],
}

impl Seats<'_> {
    /// Engine `i`, started or restarted if needed. A restart is retried a few times because a
    /// crash can come from a passing lack of memory or processes.
    fn ready(&mut self, i: usize, sender: &Sender<Event>) -> Result<(), MatchError> {
        let label = if i == 0 { 'A' } else { 'B' };
        let restarting = self.engines[i].as_ref().is_some_and(UciEngine::is_broken);
        if restarting {
            let _ = sender.send(Event::Note(format!("Engine {label} stopped working; restarting it")));
            self.engines[i] = None;
        }
        if self.engines[i].is_none() {
            let config = &self.config.engines[i];
            let (program, args) = config.command.resolve(&self.config.self_exe);
            let attempts = if restarting { 3 } else { 1 };
            let mut last = None;
            for attempt in 0..attempts {
                if attempt > 0 {
                    std::thread::sleep(Duration::from_millis(200));
                }
                let launch = Launch::new(program, args);
                let setup = Setup { variant: self.config.variant, options: &config.options, ponder: config.ponder };
                match UciEngine::start(&launch, &setup, self.config.timeouts) {
                    Ok(engine) => {
                        self.engines[i] = Some(engine);
                        break;
                    }
                    Err(error) => last = Some(error),
                }
            }
            if self.engines[i].is_none() {
                return Err(MatchError::Engine { label, error: last.expect("an attempt failed") });
            }
        }
        Ok(())
    }

    /// Both engines started and told that a new game begins.
    fn new_game(&mut self, sender: &Sender<Event>) -> Result<(), MatchError> {
        for i in 0..2 {
            // An engine that does not confirm `ucinewgame` is restarted once.
            for _ in 0..2 {
                self.ready(i, sender)?;
                if self.engines[i].as_mut().expect("ready").new_game().is_ok() {
                    break;
                }
            }
        }
        Ok(())
    }
}

/// A named player: the engine, with the name the match gives it and whether it ponders.
struct Named<'a> {
    engine: &'a mut UciEngine,
    name: &'a str,
    ponder: bool,
}

impl Player for Named<'_> {
    fn name(&self) -> &str {
        self.name
    }

    fn new_game(&mut self) -> Result<(), PlayerError> {
        Player::new_game(self.engine)
    }

    fn play(&mut self, request: &MoveRequest<'_>) -> Result<Reply, PlayerError> {
        self.engine.play(request)
    }

    fn ponder(&mut self, game: &ferz_chess::Game, go: &ferz_uci::Go) -> Result<bool, PlayerError> {
        if self.ponder { self.engine.ponder(game, go) } else { Ok(false) }
    }

    fn ponder_hit(&mut self, timeout: Duration) -> Result<Reply, PlayerError> {
        self.engine.ponder_hit(timeout)
    }

    fn ponder_miss(&mut self) -> Result<(), PlayerError> {
        self.engine.ponder_miss()
    }
}

/// Names for the PGN: the user's, else the engines' `id name`, told apart when equal.
fn display_names(config: &MatchConfig, ids: [&str; 2]) -> [String; 2] {
    let same = ids[0] == ids[1];
    [0, 1].map(|i| match &config.engines[i].name {
        Some(name) => name.clone(),
        None if same => format!("{} ({})", ids[i], if i == 0 { 'A' } else { 'B' }),
        None => ids[i].to_owned(),
    })
}

fn run_worker(
    config: &MatchConfig,
    work: &[(usize, [bool; 2])],
    next: &AtomicUsize,
    control: &MatchControl,
    sender: &Sender<Event>,
) {
    let stop = &control.abort;
    let mut seats = Seats { config, engines: [None, None] };
    'pairs: while control.starts_games() {
        let Some(&(pair, todo)) = work.get(next.fetch_add(1, Ordering::Relaxed)) else { break };
        let opening = &config.openings[pair];
        for game_in_pair in (0..2).filter(|&g| todo[g]) {
            if !control.starts_games() {
                break 'pairs;
            }
            if let Err(error) = seats.new_game(sender) {
                let _ = sender.send(Event::Fatal(error));
                break 'pairs;
            }
            let [Some(a), Some(b)] = &mut seats.engines else { unreachable!("both engines ready") };
            let names = display_names(config, [a.id_name(), b.id_name()]);
            let mut a = Named { engine: a, name: &names[0], ponder: config.engines[0].ponder };
            let mut b = Named { engine: b, name: &names[1], ponder: config.engines[1].ponder };
            // A has white in the first game of each pair, B in the second.
            let a_white = game_in_pair == 0;
            let players: [&mut dyn Player; 2] = if a_white { [&mut a, &mut b] } else { [&mut b, &mut a] };
            let record = play_game(players, opening, &config.game, stop);
            let number = 2 * pair as u64 + game_in_pair as u64 + 1;
            if matches!(record.termination, Termination::Disconnect | Termination::Stall) {
                let _ = sender.send(Event::Note(format!("Game {number}: {}", record.reason)));
            }
            let unfinished = record.result.is_none();
            if sender.send(Event::Game { number, a_white, record: Box::new(record) }).is_err() || unfinished {
                break 'pairs;
            }
        }
    }
    for engine in seats.engines.into_iter().flatten() {
        engine.quit();
    }
}
