//! One self-play game: the engine against itself, in-process.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use ferz_chess::{Color, Game, GameResult, Move, Outcome, Position, Variant};
use ferz_engine::nnue::{LoadError, NetVariant};
use ferz_engine::{Engine, EngineOptions, Nets, Score, SearchLimits, Signals};

use crate::config::{MoveLimit, SearchConfig, SelfplayConfig};
use crate::journal::ShardCache;
use crate::opening::GameStart;
use ferz_book::cache::{CacheKey, update};
use ferz_book::openings::random_plies;
use ferz_chess::SplitMix64;

/// Where a move of a game came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveSource {
    /// A uniformly random opening ply.
    Random,
    /// An opening ply chosen among cached MultiPV candidates.
    Cache,
    /// An opening ply chosen among the candidates of a fresh MultiPV search.
    MultiPv,
    /// The engine's best move under the per-move limit.
    Search,
}

/// One ply of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ply {
    /// The move played.
    pub mv: Move,
    /// Where it came from.
    pub source: MoveSource,
    /// The score of the position before the move, for the side to move (searched moves only).
    pub score: Option<Score>,
    /// The depth of that search.
    pub depth: u32,
}

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Termination {
    /// By the rules: mate, stalemate, bare king, repetition, move rule, material.
    Rules(Outcome),
    /// Both sides' scores showed a decisive advantage for several plies.
    AdjudicatedWin,
    /// Both sides' scores stayed near zero for several plies.
    AdjudicatedDraw,
    /// The ply cap was reached.
    PlyCap,
}

impl std::fmt::Display for Termination {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Termination::Rules(outcome) => write!(f, "{outcome}"),
            Termination::AdjudicatedWin => f.write_str("adjudicated win"),
            Termination::AdjudicatedDraw => f.write_str("adjudicated draw"),
            Termination::PlyCap => f.write_str("ply cap"),
        }
    }
}

/// A finished game.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// The game's number within its shard.
    pub index: u64,
    /// The variant.
    pub variant: Variant,
    /// The start position (before the random plies).
    pub start: Position,
    /// Every ply, random ones included.
    pub plies: Vec<Ply>,
    /// The result.
    pub result: GameResult,
    /// Why the game ended.
    pub termination: Termination,
    /// The game's opening-cache updates in order (for the shard's journal); empty without a
    /// cache.
    pub cache_updates: Vec<(CacheKey, Vec<u8>)>,
}

/// Counters shared by all workers of a run.
#[derive(Debug, Default)]
pub struct PlayStats {
    /// Opening positions looked up in the cache.
    pub cache_lookups: AtomicU64,
    /// Of those, answered by the cache.
    pub cache_hits: AtomicU64,
    /// MultiPV opening searches run (cache misses).
    pub opening_searches: AtomicU64,
    /// Nanoseconds those searches took.
    pub opening_search_nanos: AtomicU64,
    /// Nodes searched by all workers.
    pub nodes: AtomicU64,
}

/// White's point of view of a score, in centipawns; mates as [`Score::centipawns`] counts them.
#[must_use]
pub fn white_cp(score: Score, turn: Color) -> i32 {
    let cp = score.centipawns();
    if turn == Color::White { cp } else { -cp }
}

/// The nets `[search]` asks for: the files `eval_file` and `eval_file_shatranj` name, or the
/// embedded ones, each used as the engine uses it by default (a named file always; an embedded
/// net where it won its match), and none with `use_nnue = false`.
///
/// # Errors
/// A [`LoadError`] naming a net file that cannot be read or is not a net of its variant.
pub fn search_nets(search: &SearchConfig) -> Result<Nets, LoadError> {
    let mut nets = Nets::default();
    for (variant, path) in [(NetVariant::Chess, &search.eval_file), (NetVariant::Shatranj, &search.eval_file_shatranj)]
    {
        if !path.as_os_str().is_empty() {
            nets.load(variant, path)?;
        }
    }
    if !search.use_nnue {
        nets.set_use_nnue(false);
    }
    Ok(nets)
}

/// A worker's engine and what it shares with the other workers.
pub struct Player<'a> {
    engine: Engine,
    config: &'a SelfplayConfig,
    cache: Option<&'a ShardCache>,
    signals: &'a Signals,
    stats: &'a PlayStats,
    /// The game being played and its cache updates so far.
    game_index: u64,
    cache_updates: Vec<(CacheKey, Vec<u8>)>,
}

impl<'a> Player<'a> {
    /// A player with its own engine (one search thread, `search.hash_mb` of table) evaluating
    /// with `nets` (loaded once per shard by [`search_nets`] and shared).
    #[must_use]
    pub fn new(
        config: &'a SelfplayConfig,
        nets: &Nets,
        cache: Option<&'a ShardCache>,
        signals: &'a Signals,
        stats: &'a PlayStats,
    ) -> Player<'a> {
        let options = EngineOptions { hash_mb: config.search.hash_mb, threads: 1, ..EngineOptions::default() };
        let mut engine = Engine::new(options);
        *engine.nets_mut() = nets.clone();
        Player { engine, config, cache, signals, stats, game_index: 0, cache_updates: Vec::new() }
    }

    /// Sends one update to the cache and keeps it for the game's record.
    fn update_cache(&mut self, cache: &ShardCache, (key, op): (CacheKey, Vec<u8>)) {
        cache.record(self.game_index, key, op.clone());
        self.cache_updates.push((key, op));
    }

    fn stopped(&self) -> bool {
        self.signals.stop.load(Ordering::Relaxed)
    }

    fn limits(&self) -> SearchLimits {
        match self.config.search.limit {
            MoveLimit::Nodes => SearchLimits::nodes(self.config.search.nodes),
            MoveLimit::Depth => SearchLimits::depth(self.config.search.depth),
        }
    }

    /// Plays game `index`; `draw_opening` supplies openings (another one when a start is too
    /// lopsided). Returns `None` when the run was stopped before the game ended.
    pub fn play(
        &mut self,
        index: u64,
        rng: &mut SplitMix64,
        draw_opening: &mut dyn FnMut(&mut SplitMix64) -> GameStart,
    ) -> Result<Option<GameRecord>, ferz_book::cache::CacheError> {
        if !self.config.search.keep_hash {
            self.engine.clear();
        }
        self.game_index = index;
        self.cache_updates.clear();
        let limits = self.limits();
        let adjudication = &self.config.adjudication;
        'opening: for attempt in 0.. {
            let opening = draw_opening(rng);
            let mut game = Game::new(opening.start);
            let mut plies = Vec::new();
            // MultiPV plies first: they start from positions that recur (start positions, book
            // lines), so the cache serves them and the least-played choice spreads the games.
            let mut cached_path = Vec::new();
            for _ in 0..self.config.opening.multipv_plies {
                if game.outcome().is_some() {
                    break;
                }
                let Some((m, source)) = self.opening_move(&game, rng, &mut cached_path)? else {
                    return Ok(None);
                };
                game.play(m).expect("opening candidates are legal");
                plies.push(Ply { mv: m, source, score: None, depth: 0 });
            }
            if game.outcome().is_none() {
                for m in random_plies(&game, self.config.opening.random_plies, rng) {
                    game.play(m).expect("random plies are legal");
                    plies.push(Ply { mv: m, source: MoveSource::Random, score: None, depth: 0 });
                }
            }
            let (mut white_streak, mut black_streak, mut draw_streak) = (0, 0, 0);
            let mut first_search = true;
            let (result, termination) = loop {
                if let Some(outcome) = game.outcome() {
                    break (outcome.game_result(), Termination::Rules(outcome));
                }
                if plies.len() as u32 >= adjudication.max_plies {
                    break (GameResult::Draw, Termination::PlyCap);
                }
                let found = self.engine.search(&game, &limits, self.signals, &mut |_| {});
                self.stats.nodes.fetch_add(found.nodes, Ordering::Relaxed);
                if self.stopped() {
                    return Ok(None);
                }
                let turn = game.position().turn();
                let cp = white_cp(found.score, turn);
                if first_search && cp.abs() > self.config.opening.max_start_cp && attempt < 8 {
                    continue 'opening;
                }
                first_search = false;
                let m = found.best.expect("a position with legal moves has a best move");
                plies.push(Ply { mv: m, source: MoveSource::Search, score: Some(found.score), depth: found.depth });
                game.play(m).expect("the engine plays legal moves");
                white_streak = if cp >= adjudication.win_cp { white_streak + 1 } else { 0 };
                black_streak = if cp <= -adjudication.win_cp { black_streak + 1 } else { 0 };
                let quiet = plies.len() as u32 >= adjudication.draw_min_ply && cp.abs() <= adjudication.draw_cp;
                draw_streak = if quiet { draw_streak + 1 } else { 0 };
                if white_streak >= adjudication.win_plies {
                    break (GameResult::Win(Color::White), Termination::AdjudicatedWin);
                }
                if black_streak >= adjudication.win_plies {
                    break (GameResult::Win(Color::Black), Termination::AdjudicatedWin);
                }
                if draw_streak >= adjudication.draw_plies {
                    break (GameResult::Draw, Termination::AdjudicatedDraw);
                }
            };
            if let Some(cache) = self.cache {
                for &(variant, key) in &cached_path {
                    self.update_cache(cache, update::result(variant, key, result));
                }
            }
            let record = GameRecord {
                index,
                variant: opening.variant,
                start: opening.start,
                plies,
                result,
                termination,
                cache_updates: std::mem::take(&mut self.cache_updates),
            };
            return Ok(Some(record));
        }
        unreachable!("the opening loop returns")
    }

    /// An opening move among the MultiPV candidates within the margin, the least played first,
    /// from the cache when it knows the position. `None` when the run was stopped.
    fn opening_move(
        &mut self,
        game: &Game,
        rng: &mut SplitMix64,
        cached_path: &mut Vec<(Variant, u64)>,
    ) -> Result<Option<(Move, MoveSource)>, ferz_book::cache::CacheError> {
        let pos = game.position();
        let (variant, key) = (pos.variant(), pos.key());
        let mut candidates: Vec<(Move, i32, u32)> = Vec::new();
        let mut source = MoveSource::MultiPv;
        if let Some(cache) = self.cache {
            self.stats.cache_lookups.fetch_add(1, Ordering::Relaxed);
            if let Some(entry) = cache.get(variant, key)?
                && u32::from(entry.depth) >= self.config.cache.min_depth
            {
                candidates = entry
                    .candidates
                    .iter()
                    .filter(|c| c.score != i16::MIN)
                    .filter_map(|c| {
                        Move::from_u16(c.mv).filter(|&m| pos.is_legal(m)).map(|m| (m, i32::from(c.score), c.plays))
                    })
                    .collect();
                if !candidates.is_empty() {
                    self.stats.cache_hits.fetch_add(1, Ordering::Relaxed);
                    source = MoveSource::Cache;
                }
            }
        }
        if candidates.is_empty() {
            let started = Instant::now();
            self.engine.set_multi_pv(self.config.opening.multipv);
            let mut lines: Vec<Option<(Move, i32, u32)>> = vec![None; self.config.opening.multipv];
            let limits = SearchLimits::nodes(self.config.opening.multipv_nodes);
            let found = self.engine.search(game, &limits, self.signals, &mut |info| {
                if let (Some(&m), Some(slot)) = (info.pv.first(), lines.get_mut(info.multipv as usize - 1)) {
                    let cp = match info.score {
                        Score::Cp(cp) => cp,
                        Score::Mate(n) if n > 0 => 30_000 - n,
                        Score::Mate(n) => -30_000 - n,
                    };
                    *slot = Some((m, cp, info.depth));
                }
            });
            self.engine.set_multi_pv(1);
            self.stats.nodes.fetch_add(found.nodes, Ordering::Relaxed);
            self.stats.opening_searches.fetch_add(1, Ordering::Relaxed);
            self.stats.opening_search_nanos.fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
            if self.stopped() {
                return Ok(None);
            }
            let mut seen = Vec::new();
            for (m, cp, _) in lines.iter().flatten() {
                if !seen.contains(m) {
                    seen.push(*m);
                    candidates.push((*m, *cp, 0));
                }
            }
            if candidates.is_empty() {
                let m = found.best.expect("a position with legal moves has a best move");
                candidates.push((m, 0, 0));
            }
            if let Some(cache) = self.cache {
                let scored: Vec<(Move, i32)> = candidates.iter().map(|&(m, cp, _)| (m, cp)).collect();
                self.update_cache(cache, update::search(pos, found.depth, &scored));
                // Counts of earlier games come from the cache even when this search refreshed it.
                if let Some(entry) = cache.get(variant, key)? {
                    for c in &mut candidates {
                        c.2 = entry.candidates.iter().find(|e| e.mv == c.0.to_u16()).map_or(0, |e| e.plays);
                    }
                }
            }
        }
        let best = candidates.iter().map(|c| c.1).max().expect("at least one candidate");
        let eligible: Vec<&(Move, i32, u32)> =
            candidates.iter().filter(|c| c.1 >= best - self.config.opening.margin_cp).collect();
        let fewest = eligible.iter().map(|c| c.2).min().expect("the best is eligible");
        let least_played: Vec<Move> = eligible.iter().filter(|c| c.2 == fewest).map(|c| c.0).collect();
        let m = least_played[rng.below(least_played.len() as u64) as usize];
        if let Some(cache) = self.cache {
            self.update_cache(cache, update::play(variant, key, m));
            cached_path.push((variant, key));
        }
        Ok(Some((m, source)))
    }
}
