//! Running one shard: worker threads play games, one writer appends them in game order, and a
//! checkpoint every `run.checkpoint_seconds` makes the shard resumable.
//!
//! A shard lives in `<out>/shard-<index>` (five digits). While it runs, every output file has
//! a `.part` name and `checkpoint.json` records how many games the files hold and their valid
//! lengths. A resumed shard cuts each part file back to its checkpointed length (dropping
//! whatever a kill left after it) and continues with the next game, so no game is written twice
//! and no record is cut in half. A complete shard renames its files to their final names and
//! then writes `manifest.json`: a directory with a manifest is complete, whatever else happened.
//! The opening cache follows the checkpoints too ([`crate::journal`]), so with one worker
//! thread a resumed shard writes exactly the games an uninterrupted one would.
//!
//! Seeds: the shard's seed derives from the run's seed and the shard index, and each game's
//! from the shard seed and the game number, so a replayed game is the same game; book lines are
//! taken from the slot `index × games + game`, so shards walk disjoint parts of the book.

use std::collections::{BTreeMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use ferz_chess::{Color, GameResult, Position, Variant};
use ferz_engine::nnue::LoadError;
use ferz_engine::{Score, Signals};

use crate::checkpoint::Checkpoint;
use crate::config::{InvalidSetting, SelfplayConfig};
use crate::formats::{pgn, text_line};
use crate::game::{GameRecord, MoveSource, PlayStats, Player, Termination, search_nets, white_cp};
use crate::journal::{JournalError, ShardCache, decode_journal, encode_game};
use crate::opening::{Book, BookError, draw_opening};
use ferz_book::cache::{CacheError, OpeningCache};
use ferz_chess::SplitMix64;
use ferz_dataset::layout::{CHECKPOINT_FILE, FileKind, MANIFEST_FILE, PGN_FILE, shard_dir, variant_name};
use ferz_dataset::manifest::{
    CacheReport, FileEntry, SHARD_FORMAT, ShardManifest, Tally, read_json, sha256_file, write_json_atomic,
};
use ferz_dataset::marlin;

/// Zobrist keys already written (de-duplication across a resume); removed when complete.
const KEYS_FILE: &str = "keys.bin";
/// The opening-cache updates of the written games (see [`crate::journal`]); removed when
/// complete.
const JOURNAL_FILE: &str = "cache-journal.bin";

/// Which shard of how many this process plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShardSpec {
    /// 0-based index.
    pub index: u32,
    /// Shards in the run.
    pub count: u32,
}

/// Why a shard could not run or finish.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A setting is out of range.
    #[error("invalid setting {0}")]
    Setting(#[from] InvalidSetting),
    /// The shard index is not below the shard count.
    #[error("shard index {index} is not below the shard count {count}")]
    Shard {
        /// The index.
        index: u32,
        /// The count.
        count: u32,
    },
    /// The opening book could not be read.
    #[error(transparent)]
    Book(#[from] BookError),
    /// The opening cache failed.
    #[error(transparent)]
    Cache(#[from] CacheError),
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What the system reported.
        source: std::io::Error,
    },
    /// A net file of `[search]` could not be loaded.
    #[error(transparent)]
    Net(#[from] LoadError),
    /// The checkpoint cannot be resumed.
    #[error("cannot resume {path}: {reason}")]
    Resume {
        /// The shard directory.
        path: String,
        /// Why, and what to do.
        reason: String,
    },
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> RunError + '_ {
    move |source| RunError::Io { path: path.display().to_string(), source }
}

/// Progress of a running shard, reported after every written game.
#[derive(Clone, Debug)]
pub struct Progress {
    /// Games the shard plays in all.
    pub games_total: u64,
    /// Totals written so far (including earlier sessions of a resumed shard).
    pub tally: Tally,
    /// Games written in this session.
    pub session_games: u64,
    /// Positions written in this session.
    pub session_positions: u64,
    /// Time since this session started.
    pub elapsed: Duration,
    /// Opening positions looked up in the cache, and hits.
    pub cache_lookups: u64,
    /// Cache hits.
    pub cache_hits: u64,
}

/// How a shard run ended.
#[derive(Clone, Debug)]
pub struct ShardOutcome {
    /// The shard directory.
    pub dir: PathBuf,
    /// The manifest when the shard is complete; `None` when it was stopped (resumable).
    pub manifest: Option<ShardManifest>,
    /// Games in the files.
    pub games_done: u64,
    /// Whether the shard was already complete (a resume with nothing left to do).
    pub already_complete: bool,
}

/// The data files a shard with these settings writes, in a fixed order.
#[must_use]
pub fn data_files(config: &SelfplayConfig) -> Vec<String> {
    let mix = &config.variants;
    let mut names = Vec::new();
    for (variant, weight) in
        [(Variant::Chess, mix.chess), (Variant::Chess960, mix.chess960), (Variant::Shatranj, mix.shatranj)]
    {
        if weight == 0 {
            continue;
        }
        if config.output.text {
            names.push(FileKind::Text(variant).file_name());
        }
        if config.output.marlin {
            names.push(FileKind::Marlin(variant).file_name());
        }
    }
    if config.output.pgn {
        names.push(PGN_FILE.to_owned());
    }
    names
}

fn part_name(name: &str) -> String {
    format!("{name}.part")
}

/// An output file being appended to, with its valid length and record count.
struct PartFile {
    path: PathBuf,
    writer: BufWriter<File>,
    bytes: u64,
    records: u64,
}

impl PartFile {
    /// Opens `path`, cut back to `bytes` (the checkpointed length).
    fn open(path: PathBuf, bytes: u64, records: u64) -> Result<PartFile, RunError> {
        let file = OpenOptions::new().create(true).truncate(false).write(true).open(&path).map_err(io_error(&path))?;
        let actual = file.metadata().map_err(io_error(&path))?.len();
        if actual < bytes {
            return Err(RunError::Resume {
                path: path.display().to_string(),
                reason: format!("the file has {actual} bytes but the checkpoint counted {bytes}; run without --resume"),
            });
        }
        file.set_len(bytes).map_err(io_error(&path))?;
        let mut writer = BufWriter::with_capacity(1 << 16, file);
        std::io::Seek::seek(&mut writer, std::io::SeekFrom::Start(bytes)).map_err(io_error(&path))?;
        Ok(PartFile { path, writer, bytes, records })
    }

    fn append(&mut self, data: &[u8], records: u64) -> Result<(), RunError> {
        self.writer.write_all(data).map_err(io_error(&self.path))?;
        self.bytes += data.len() as u64;
        self.records += records;
        Ok(())
    }

    fn sync(&mut self) -> Result<(), RunError> {
        self.writer.flush().map_err(io_error(&self.path))?;
        self.writer.get_ref().sync_data().map_err(io_error(&self.path))
    }
}

/// Everything the writer keeps between games.
struct Writer {
    dir: PathBuf,
    files: BTreeMap<String, PartFile>,
    keys_file: Option<PartFile>,
    journal_file: Option<PartFile>,
    seen: HashSet<u64>,
    tally: Tally,
    date: String,
    engine: String,
    shard: ShardSpec,
}

impl Writer {
    fn write_game(&mut self, game: &GameRecord, config: &SelfplayConfig) -> Result<u64, RunError> {
        let variant = variant_name(game.variant);
        let filter = &config.filter;
        let mut text = String::new();
        let mut marlin = Vec::new();
        let mut keys = Vec::new();
        let mut written = 0;
        let mut pos: Position = game.start;
        for (ply, record) in game.plies.iter().enumerate() {
            if let (MoveSource::Search, Some(score)) = (record.source, record.score) {
                let white = white_cp(score, pos.turn());
                let tactical = record.mv.promotion_role().is_some()
                    || record.mv.is_en_passant()
                    || pos.board().color_at(record.mv.to()) == Some(!pos.turn());
                let keep = ply as u32 >= filter.min_ply
                    && !(filter.skip_check && pos.is_check())
                    && !(filter.skip_tactical && tactical)
                    && !(filter.skip_mate && matches!(score, Score::Mate(_)))
                    && white.abs() <= filter.max_cp;
                if keep {
                    if filter.dedup && !self.seen.insert(pos.key()) {
                        self.tally.duplicates_skipped += 1;
                    } else {
                        if filter.dedup {
                            keys.extend(pos.key().to_le_bytes());
                        }
                        text.push_str(&text_line(&pos, white, game.result));
                        marlin.extend(marlin::encode(&pos, white, game.result));
                        written += 1;
                    }
                }
            }
            pos.play_unchecked(record.mv);
        }
        if let Some(file) = self.files.get_mut(&format!("{variant}.txt")) {
            file.append(text.as_bytes(), written)?;
        }
        if let Some(file) = self.files.get_mut(&format!("{variant}.marlin")) {
            file.append(&marlin, written)?;
        }
        if let Some(file) = self.files.get_mut(PGN_FILE) {
            let round = format!("{}.{}", self.shard.index, game.index + 1);
            file.append(pgn(game, &round, &self.date, &self.engine).as_bytes(), 1)?;
        }
        if let Some(file) = &mut self.keys_file {
            file.append(&keys, written)?;
        }
        if let Some(file) = &mut self.journal_file {
            file.append(&encode_game(game.index, &game.cache_updates), 1)?;
        }
        let t = &mut self.tally;
        t.games += 1;
        t.plies += game.plies.len() as u64;
        match game.result {
            GameResult::Win(Color::White) => t.white_wins += 1,
            GameResult::Draw => t.draws += 1,
            GameResult::Win(Color::Black) => t.black_wins += 1,
        }
        *t.games_by_variant.entry(variant.to_owned()).or_default() += 1;
        *t.positions_by_variant.entry(variant.to_owned()).or_default() += written;
        let how = match game.termination {
            Termination::Rules(_) => "rules",
            Termination::AdjudicatedWin => "adjudicated_win",
            Termination::AdjudicatedDraw => "adjudicated_draw",
            Termination::PlyCap => "ply_cap",
        };
        *t.terminations.entry(how.to_owned()).or_default() += 1;
        Ok(written)
    }

    fn sync(&mut self) -> Result<BTreeMap<String, (u64, u64)>, RunError> {
        let mut lengths = BTreeMap::new();
        for (name, file) in &mut self.files {
            file.sync()?;
            lengths.insert(name.clone(), (file.bytes, file.records));
        }
        if let Some(file) = &mut self.keys_file {
            file.sync()?;
            lengths.insert(KEYS_FILE.to_owned(), (file.bytes, file.records));
        }
        if let Some(file) = &mut self.journal_file {
            file.sync()?;
            lengths.insert(JOURNAL_FILE.to_owned(), (file.bytes, file.records));
        }
        Ok(lengths)
    }
}

fn cache_report(stats: &PlayStats, earlier: &CacheReport) -> CacheReport {
    let lookups = earlier.lookups + stats.cache_lookups.load(Ordering::Relaxed);
    let hits = earlier.hits + stats.cache_hits.load(Ordering::Relaxed);
    let opening_searches = earlier.opening_searches + stats.opening_searches.load(Ordering::Relaxed);
    let opening_search_seconds =
        earlier.opening_search_seconds + stats.opening_search_nanos.load(Ordering::Relaxed) as f64 / 1e9;
    let per_search = if opening_searches > 0 { opening_search_seconds / opening_searches as f64 } else { 0.0 };
    CacheReport {
        lookups,
        hits,
        opening_searches,
        opening_search_seconds,
        estimated_seconds_saved: hits as f64 * per_search,
    }
}

/// Removes a shard's files (not its opening cache) so that it starts over.
fn clear_shard(dir: &Path, config: &SelfplayConfig) -> Result<(), RunError> {
    let mut names: Vec<String> = data_files(config);
    names.extend([KEYS_FILE.to_owned(), JOURNAL_FILE.to_owned()]);
    // Files of other settings (another variant mix) go too: the shard is rewritten whole.
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let base = name.strip_suffix(".part").unwrap_or(&name);
            if FileKind::of_name(base).is_some() || base == KEYS_FILE || base == JOURNAL_FILE {
                names.push(base.to_owned());
            }
        }
    }
    for name in
        names.iter().flat_map(|n| [n.clone(), part_name(n)]).chain([MANIFEST_FILE.into(), CHECKPOINT_FILE.into()])
    {
        let path = dir.join(name);
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io_error(&path)(e)),
        }
    }
    Ok(())
}

/// Reads the first `bytes` of a part file.
fn read_prefix(path: &Path, bytes: u64) -> Result<Vec<u8>, RunError> {
    let mut data = Vec::new();
    File::open(path).map_err(io_error(path))?.take(bytes).read_to_end(&mut data).map_err(io_error(path))?;
    Ok(data)
}

/// Reads the de-duplication keys of a resumed shard.
fn read_keys(path: &Path, bytes: u64) -> Result<HashSet<u64>, RunError> {
    let data = read_prefix(path, bytes)?;
    Ok(data.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))).collect())
}

/// A token for a shard run's cache marker: distinct for every fresh start of a shard.
fn new_cache_token(shard_seed: u64) -> u64 {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    SplitMix64::derive(shard_seed ^ nanos, u64::from(std::process::id())).next_u64()
}

/// The seed of a shard.
#[must_use]
pub fn shard_seed(run_seed: u64, index: u32) -> u64 {
    SplitMix64::derive(run_seed, u64::from(index)).next_u64()
}

/// Plays (or resumes, or restarts) one shard; stops early, resumably, when `signals.stop` is
/// set. `progress` is called after every written game.
pub fn run_shard(
    config: &SelfplayConfig,
    shard: ShardSpec,
    resume: bool,
    signals: &Signals,
    progress: &mut dyn FnMut(&Progress),
) -> Result<ShardOutcome, RunError> {
    config.validate()?;
    // Validated above: the names are tunables and the values in their ranges.
    ferz_engine::params::play_with(&config.search.params)
        .map_err(|e| InvalidSetting::new("search.params", format!("{:?}", config.search.params), e.0))?;
    if shard.index >= shard.count {
        return Err(RunError::Shard { index: shard.index, count: shard.count });
    }
    let dir = shard_dir(&config.run.out, shard.index);
    std::fs::create_dir_all(&dir).map_err(io_error(&dir))?;
    let manifest_path = dir.join(MANIFEST_FILE);
    let checkpoint_path = dir.join(CHECKPOINT_FILE);
    if resume && manifest_path.exists() {
        let manifest: ShardManifest =
            read_json(&manifest_path).map_err(|reason| RunError::Resume { path: dir.display().to_string(), reason })?;
        return Ok(ShardOutcome {
            dir,
            games_done: manifest.tally.games,
            manifest: Some(manifest),
            already_complete: true,
        });
    }
    let checkpoint = if resume && checkpoint_path.exists() {
        let checkpoint: Checkpoint = read_json(&checkpoint_path)
            .map_err(|reason| RunError::Resume { path: dir.display().to_string(), reason })?;
        // The checkpoint lives inside the output directory, so a resume reaching it under another
        // spelling of that path (relative, absolute, through a link) is the same run.
        let mut same_place = config.clone();
        same_place.run.out.clone_from(&checkpoint.settings.run.out);
        if checkpoint.settings != same_place || checkpoint.shard != (shard.index, shard.count) {
            return Err(RunError::Resume {
                path: dir.display().to_string(),
                reason: "it was started with other settings or another shard count; run without --resume to start over"
                    .into(),
            });
        }
        Some(checkpoint)
    } else {
        clear_shard(&dir, config)?;
        None
    };

    let book =
        if config.opening.book.as_os_str().is_empty() { Book::default() } else { Book::load(&config.opening.book)? };
    let nets = search_nets(&config.search)?;
    let first_game = checkpoint.as_ref().map_or(0, |c| c.games_done);
    let seed = shard_seed(config.run.seed, shard.index);
    let cache_token = checkpoint.as_ref().map_or_else(|| new_cache_token(seed), |c| c.cache_token);
    let mut files = BTreeMap::new();
    let lengths = checkpoint.as_ref().map(|c| c.files.clone()).unwrap_or_default();
    let (cache, journal_file) = if config.cache.enabled && config.opening.multipv_plies > 0 {
        let path = if config.cache.path.as_os_str().is_empty() {
            dir.join("opening-cache")
        } else {
            config.cache.path.clone()
        };
        let journal_path = dir.join(part_name(JOURNAL_FILE));
        let (bytes, records) = lengths.get(JOURNAL_FILE).copied().unwrap_or((0, 0));
        let file = PartFile::open(journal_path.clone(), bytes, records)?;
        let resume_error = |reason: String| RunError::Resume { path: dir.display().to_string(), reason };
        let journal = decode_journal(&read_prefix(&journal_path, bytes)?).map_err(&resume_error)?;
        let cache =
            ShardCache::open(OpeningCache::open(&path)?, cache_token, first_game, &journal).map_err(|e| match e {
                JournalError::Cache(e) => RunError::Cache(e),
                JournalError::Mismatch(reason) => {
                    resume_error(format!("{reason} (cache {}); run without --resume to start over", path.display()))
                }
            })?;
        (Some(cache), Some(file))
    } else {
        (None, None)
    };

    for name in data_files(config) {
        let part = dir.join(part_name(&name));
        // A kill between the final renames and the manifest leaves final names: take them back.
        if !part.exists() && dir.join(&name).exists() {
            std::fs::rename(dir.join(&name), &part).map_err(io_error(&part))?;
        }
        let (bytes, records) = lengths.get(&name).copied().unwrap_or((0, 0));
        files.insert(name, PartFile::open(part, bytes, records)?);
    }
    let (keys_file, seen) = if config.filter.dedup {
        let path = dir.join(part_name(KEYS_FILE));
        let (bytes, records) = lengths.get(KEYS_FILE).copied().unwrap_or((0, 0));
        let file = PartFile::open(path.clone(), bytes, records)?;
        (Some(file), read_keys(&path, bytes)?)
    } else {
        (None, HashSet::new())
    };
    let mut writer = Writer {
        dir: dir.clone(),
        files,
        keys_file,
        journal_file,
        seen,
        tally: checkpoint.as_ref().map(|c| c.tally.clone()).unwrap_or_default(),
        date: ferz_chess::pgn_date_today(),
        engine: format!("ferz {}", env!("CARGO_PKG_VERSION")),
        shard,
    };
    let earlier_cache = checkpoint.as_ref().map(|c| c.cache.clone()).unwrap_or_default();
    let earlier_nodes = checkpoint.as_ref().map_or(0, |c| c.nodes);
    let earlier_seconds = checkpoint.as_ref().map_or(0.0, |c| c.seconds);
    let games_total = config.run.games;
    let slot_base = u64::from(shard.index) * games_total;

    let stats = PlayStats::default();
    let next_game = AtomicU64::new(first_game);
    let started = Instant::now();
    let mut next_write = first_game;
    let mut session_positions = 0;
    let mut failure: Option<RunError> = None;
    let mut last_checkpoint = Instant::now();
    let save_checkpoint = |writer: &mut Writer, games_done: u64, stats: &PlayStats| -> Result<(), RunError> {
        let files = writer.sync()?;
        let checkpoint = Checkpoint {
            settings: config.clone(),
            shard: (shard.index, shard.count),
            games_done,
            files,
            tally: writer.tally.clone(),
            cache: cache_report(stats, &earlier_cache),
            nodes: earlier_nodes + stats.nodes.load(Ordering::Relaxed),
            seconds: earlier_seconds + started.elapsed().as_secs_f64(),
            cache_token,
        };
        write_json_atomic(&writer.dir.join(CHECKPOINT_FILE), &checkpoint).map_err(io_error(&checkpoint_path))?;
        // After the checkpoint: a kill in between leaves the cache behind it, and the resume
        // replays the missing games from the journal (never the other way round).
        if let Some(cache) = &cache {
            cache.commit(games_done)?;
        }
        Ok(())
    };
    save_checkpoint(&mut writer, first_game, &stats)?;

    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<Result<GameRecord, CacheError>>();
        for _ in 0..config.worker_threads() {
            let tx = tx.clone();
            let (stats, next_game, cache, book, nets) = (&stats, &next_game, cache.as_ref(), &book, &nets);
            scope.spawn(move || {
                let mut player = Player::new(config, nets, cache, signals, stats);
                loop {
                    let index = next_game.fetch_add(1, Ordering::Relaxed);
                    if index >= games_total || signals.stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let mut rng = SplitMix64::derive(seed, index);
                    let slot = slot_base + index;
                    let mut opening = |rng: &mut SplitMix64| draw_opening(&config.variants, book, slot, rng);
                    match player.play(index, &mut rng, &mut opening) {
                        Ok(Some(game)) => {
                            if tx.send(Ok(game)).is_err() {
                                break;
                            }
                        }
                        Ok(None) => break,
                        Err(e) => {
                            let _ = tx.send(Err(e));
                            break;
                        }
                    }
                }
            });
        }
        drop(tx);
        let mut pending = BTreeMap::new();
        for message in rx {
            let game = match message {
                Ok(game) => game,
                Err(e) => {
                    failure.get_or_insert(RunError::Cache(e));
                    signals.stop.store(true, Ordering::Relaxed);
                    continue;
                }
            };
            if failure.is_some() {
                continue;
            }
            pending.insert(game.index, game);
            while let Some(game) = pending.remove(&next_write) {
                let step = writer.write_game(&game, config).and_then(|written| {
                    next_write += 1;
                    session_positions += written;
                    if last_checkpoint.elapsed() >= Duration::from_secs(config.run.checkpoint_seconds) {
                        last_checkpoint = Instant::now();
                        save_checkpoint(&mut writer, next_write, &stats)?;
                    }
                    Ok(())
                });
                if let Err(e) = step {
                    failure.get_or_insert(e);
                    signals.stop.store(true, Ordering::Relaxed);
                    break;
                }
                progress(&Progress {
                    games_total,
                    tally: writer.tally.clone(),
                    session_games: next_write - first_game,
                    session_positions,
                    elapsed: started.elapsed(),
                    cache_lookups: stats.cache_lookups.load(Ordering::Relaxed),
                    cache_hits: stats.cache_hits.load(Ordering::Relaxed),
                });
            }
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    save_checkpoint(&mut writer, next_write, &stats)?;
    if next_write < games_total {
        return Ok(ShardOutcome { dir, manifest: None, games_done: next_write, already_complete: false });
    }
    let manifest = finish(
        &mut writer,
        config,
        shard,
        seed,
        &stats,
        &earlier_cache,
        earlier_nodes,
        earlier_seconds + started.elapsed().as_secs_f64(),
    )?;
    Ok(ShardOutcome { dir, games_done: manifest.tally.games, manifest: Some(manifest), already_complete: false })
}

/// Renames the part files to their final names and writes the manifest.
#[allow(clippy::too_many_arguments)]
fn finish(
    writer: &mut Writer,
    config: &SelfplayConfig,
    shard: ShardSpec,
    seed: u64,
    stats: &PlayStats,
    earlier_cache: &CacheReport,
    earlier_nodes: u64,
    seconds: f64,
) -> Result<ShardManifest, RunError> {
    writer.sync()?;
    let mut entries = Vec::new();
    for (name, file) in &writer.files {
        let target = writer.dir.join(name);
        std::fs::rename(&file.path, &target).map_err(io_error(&target))?;
        let (sha256, bytes) = sha256_file(&target).map_err(io_error(&target))?;
        entries.push(FileEntry { name: name.clone(), bytes, records: file.records, sha256 });
    }
    let manifest = ShardManifest {
        format: SHARD_FORMAT.to_owned(),
        engine: format!("ferz {}", env!("CARGO_PKG_VERSION")),
        shard_index: shard.index,
        shard_count: shard.count,
        seed: config.run.seed,
        shard_seed: seed,
        tally: writer.tally.clone(),
        cache: cache_report(stats, earlier_cache),
        nodes: earlier_nodes + stats.nodes.load(Ordering::Relaxed),
        seconds,
        settings: serde_json::to_value(config).map_err(|e| io_error(&writer.dir)(std::io::Error::other(e)))?,
        files: entries,
    };
    let path = writer.dir.join(MANIFEST_FILE);
    write_json_atomic(&path, &manifest).map_err(io_error(&path))?;
    for stale in [part_name(KEYS_FILE), part_name(JOURNAL_FILE), CHECKPOINT_FILE.to_owned()] {
        let path = writer.dir.join(stale);
        if path.exists() {
            std::fs::remove_file(&path).map_err(io_error(&path))?;
        }
    }
    Ok(manifest)
}
