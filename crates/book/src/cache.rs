//! The opening cache: MultiPV candidates and game counts of opening positions, in sled.
//!
//! One sled database serves every worker thread of a process (sled allows one process per
//! database). A worker that reaches a cached opening position plays from the cache instead of
//! searching, so the cost of opening searches is paid once for all threads, shards and
//! generations; among the candidates within a margin of the best it picks the least played, so
//! games spread instead of repeating.
//!
//! Every update is a sled merge (`Tree::merge`) with the merge operator of this module: sled
//! applies it atomically per key, so concurrent threads never lose a count. The merge operator
//! is not stored in the database, so [`OpeningCache::open`] registers it on every open.
//!
//! # Format (version 1)
//!
//! Key: 9 bytes, the variant tag (0 chess, 1 Chess960, 2 Shatranj) then the zobrist key of the
//! position, big-endian. Value, little-endian: `version u8 = 1`, `depth u8`, the position as a
//! 32-byte marlin record (score and result zero; all zero when unknown) so that the cache can be
//! exported to other key schemes, `count u8`, then `count` candidates of `move u16, score i16
//! (cp, side to move), plays u32`, then `games u32, white_wins u32, draws u32, black_wins u32`
//! for the games that went through the position.

use std::path::Path;
use std::time::{Duration, Instant};

use ferz_chess::{Color, GameResult, Move, Position, Variant};

use ferz_dataset::marlin::{self, RECORD_SIZE, variant_of_tag, variant_tag};

/// The value layout this build writes.
pub const FORMAT_VERSION: u8 = 1;

/// A failure of the cache's database.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    /// sled could not open or update the database.
    #[error("opening cache {path}: {}", describe_sled(path, error))]
    Sled {
        /// The database directory.
        path: String,
        /// What sled reported (described in words by the message; not chained, as sled's own
        /// text for damage is "Read corrupted data at file offset None backtrace ()").
        error: sled::Error,
    },
    /// Another process holds the database's lock (sled allows one process per database).
    #[error(
        "opening cache {path}: another process has it open (waited {waited_ms} ms for its lock); \
         stop that process or give this run its own cache path"
    )]
    Locked {
        /// The database directory.
        path: String,
        /// How long the open waited for the lock.
        waited_ms: u128,
    },
}

/// A sled error in words: damage says which of the database's files is missing, or that its
/// data cannot be read, and what to do.
fn describe_sled(path: &str, error: &sled::Error) -> String {
    match error {
        sled::Error::Corruption { .. } => {
            let missing: Vec<&str> =
                ["conf", "db"].into_iter().filter(|name| !Path::new(path).join(name).exists()).collect();
            if missing.is_empty() {
                "its data is damaged and cannot be read; restore a copy, or remove the directory to start an empty cache"
                    .to_owned()
            } else {
                format!(
                    "the cache is incomplete ({} missing); copy a cache directory whole, or remove it to start an empty cache",
                    missing.join(" and ")
                )
            }
        }
        sled::Error::Io(io) => io.to_string(),
        sled::Error::Unsupported(what) => what.clone(),
        other => other.to_string(),
    }
}

/// How long [`OpeningCache::open`] waits for a lock that another handle still holds.
///
/// sled 0.34 releases its file lock from a background flusher thread after the last `Db` handle
/// is dropped, not in the drop itself, so a reopen right after a close can find the lock still
/// held for a moment (sled issues #1234 and #1289). Waiting bridges that; a lock still held
/// after this long belongs to a live process.
const LOCK_WAIT: Duration = Duration::from_secs(3);

/// Whether sled failed to open a database because its file lock is held elsewhere.
fn is_lock_contention(error: &sled::Error) -> bool {
    // sled wraps the `flock` failure (EWOULDBLOCK) in an `Other` error with this message.
    matches!(error, sled::Error::Io(io) if io.to_string().contains("could not acquire lock"))
}

/// One candidate move of a cached position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// The move, as [`Move::to_u16`].
    pub mv: u16,
    /// Its score in centipawns for the side to move.
    pub score: i16,
    /// How many games played it from this position.
    pub plays: u32,
}

/// What the cache knows of one position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheEntry {
    /// Depth of the search that produced the candidates.
    pub depth: u8,
    /// The position as a marlin record; all zero when unknown.
    pub position: [u8; RECORD_SIZE],
    /// Candidate moves, best first.
    pub candidates: Vec<Candidate>,
    /// Games that went through the position.
    pub games: u32,
    /// Of those, won by white.
    pub white_wins: u32,
    /// Drawn.
    pub draws: u32,
    /// Won by black.
    pub black_wins: u32,
}

impl Default for CacheEntry {
    fn default() -> CacheEntry {
        CacheEntry {
            depth: 0,
            position: [0; RECORD_SIZE],
            candidates: Vec::new(),
            games: 0,
            white_wins: 0,
            draws: 0,
            black_wins: 0,
        }
    }
}

impl CacheEntry {
    /// The cached position, when the entry carries one.
    #[must_use]
    pub fn position(&self) -> Option<Position> {
        (self.position != [0; RECORD_SIZE]).then(|| marlin::decode(&self.position).ok().map(|r| r.position)).flatten()
    }

    /// Decodes a stored value; `None` for a value this build cannot read.
    #[must_use]
    pub fn decode(bytes: &[u8]) -> Option<CacheEntry> {
        let mut r = Reader(bytes);
        if r.u8()? != FORMAT_VERSION {
            return None;
        }
        let depth = r.u8()?;
        let position = r.take::<RECORD_SIZE>()?;
        let count = r.u8()?;
        let mut candidates = Vec::with_capacity(usize::from(count));
        for _ in 0..count {
            candidates.push(Candidate { mv: r.u16()?, score: r.u16()? as i16, plays: r.u32()? });
        }
        let entry = CacheEntry {
            depth,
            position,
            candidates,
            games: r.u32()?,
            white_wins: r.u32()?,
            draws: r.u32()?,
            black_wins: r.u32()?,
        };
        r.0.is_empty().then_some(entry)
    }

    /// Encodes the entry in the current format.
    #[must_use]
    pub fn encode(&self) -> Vec<u8> {
        let count = self.candidates.len().min(255);
        let mut out = Vec::with_capacity(3 + RECORD_SIZE + count * 8 + 16);
        out.extend([FORMAT_VERSION, self.depth]);
        out.extend(self.position);
        out.push(count as u8);
        for c in &self.candidates[..count] {
            out.extend(c.mv.to_le_bytes());
            out.extend(c.score.to_le_bytes());
            out.extend(c.plays.to_le_bytes());
        }
        for n in [self.games, self.white_wins, self.draws, self.black_wins] {
            out.extend(n.to_le_bytes());
        }
        out
    }

    /// Folds `other` into `self`: counts add, the deeper search's scores win, and moves only
    /// one side knows keep their counts.
    pub fn absorb(&mut self, other: &CacheEntry) {
        let other_deeper = other.depth > self.depth;
        for theirs in &other.candidates {
            match self.candidates.iter_mut().find(|c| c.mv == theirs.mv) {
                Some(ours) => {
                    ours.plays = ours.plays.saturating_add(theirs.plays);
                    if other_deeper {
                        ours.score = theirs.score;
                    }
                }
                None => self.candidates.push(*theirs),
            }
        }
        if other_deeper {
            self.depth = other.depth;
        }
        if self.position == [0; RECORD_SIZE] {
            self.position = other.position;
        }
        self.sort();
        self.games = self.games.saturating_add(other.games);
        self.white_wins = self.white_wins.saturating_add(other.white_wins);
        self.draws = self.draws.saturating_add(other.draws);
        self.black_wins = self.black_wins.saturating_add(other.black_wins);
    }

    /// What this entry added since `base`, an earlier copy of it: play and game counts
    /// minus the base's, candidates and scores as they are now. Absorbing the result into a
    /// cache that already holds `base` counts the base once, however many copies of it grew.
    #[must_use]
    pub fn since(&self, base: &CacheEntry) -> CacheEntry {
        let mut added = self.clone();
        for candidate in &mut added.candidates {
            let before = base.candidates.iter().find(|c| c.mv == candidate.mv).map_or(0, |c| c.plays);
            candidate.plays = candidate.plays.saturating_sub(before);
        }
        added.games = self.games.saturating_sub(base.games);
        added.white_wins = self.white_wins.saturating_sub(base.white_wins);
        added.draws = self.draws.saturating_sub(base.draws);
        added.black_wins = self.black_wins.saturating_sub(base.black_wins);
        added
    }

    fn sort(&mut self) {
        self.candidates.sort_by(|a, b| b.score.cmp(&a.score).then(a.mv.cmp(&b.mv)));
    }

    /// The best candidate's score.
    #[must_use]
    pub fn best_score(&self) -> Option<i16> {
        self.candidates.iter().map(|c| c.score).max()
    }
}

/// An update, applied by the merge operator.
enum Op {
    /// New search results: replace the scores when at least as deep; plays stay.
    Search { depth: u8, position: [u8; RECORD_SIZE], candidates: Vec<(u16, i16)> },
    /// A game played this move from the position.
    Play(u16),
    /// A game through the position ended.
    Result(GameResult),
    /// Another cache's entry (merging caches).
    Absorb(CacheEntry),
}

impl Op {
    fn encode(&self) -> Vec<u8> {
        match self {
            Op::Search { depth, position, candidates } => {
                let mut out = vec![1, *depth];
                out.extend(position);
                out.push(candidates.len().min(255) as u8);
                for (mv, score) in candidates.iter().take(255) {
                    out.extend(mv.to_le_bytes());
                    out.extend(score.to_le_bytes());
                }
                out
            }
            Op::Play(mv) => {
                let mut out = vec![2];
                out.extend(mv.to_le_bytes());
                out
            }
            Op::Result(result) => vec![
                3,
                match result {
                    GameResult::Win(Color::White) => 0,
                    GameResult::Draw => 1,
                    GameResult::Win(Color::Black) => 2,
                },
            ],
            Op::Absorb(entry) => {
                let mut out = vec![4];
                out.extend(entry.encode());
                out
            }
        }
    }

    fn decode(bytes: &[u8]) -> Option<Op> {
        let (&tag, rest) = bytes.split_first()?;
        let mut r = Reader(rest);
        let op = match tag {
            1 => {
                let depth = r.u8()?;
                let position = r.take::<RECORD_SIZE>()?;
                let count = r.u8()?;
                let candidates = (0..count).map(|_| Some((r.u16()?, r.u16()? as i16))).collect::<Option<Vec<_>>>()?;
                Op::Search { depth, position, candidates }
            }
            2 => Op::Play(r.u16()?),
            3 => Op::Result(match r.u8()? {
                0 => GameResult::Win(Color::White),
                1 => GameResult::Draw,
                2 => GameResult::Win(Color::Black),
                _ => return None,
            }),
            4 => return CacheEntry::decode(rest).map(Op::Absorb),
            _ => return None,
        };
        r.0.is_empty().then_some(op)
    }

    fn apply(self, entry: &mut CacheEntry) {
        match self {
            Op::Search { depth, position, candidates } => {
                entry.position = position;
                if depth >= entry.depth || entry.candidates.is_empty() {
                    entry.depth = depth;
                    for (mv, score) in candidates {
                        match entry.candidates.iter_mut().find(|c| c.mv == mv) {
                            Some(c) => c.score = score,
                            None => entry.candidates.push(Candidate { mv, score, plays: 0 }),
                        }
                    }
                    entry.sort();
                }
            }
            Op::Play(mv) => match entry.candidates.iter_mut().find(|c| c.mv == mv) {
                Some(c) => c.plays = c.plays.saturating_add(1),
                None => entry.candidates.push(Candidate { mv, score: i16::MIN, plays: 1 }),
            },
            Op::Result(result) => {
                entry.games = entry.games.saturating_add(1);
                let slot = match result {
                    GameResult::Win(Color::White) => &mut entry.white_wins,
                    GameResult::Draw => &mut entry.draws,
                    GameResult::Win(Color::Black) => &mut entry.black_wins,
                };
                *slot = slot.saturating_add(1);
            }
            Op::Absorb(other) => entry.absorb(&other),
        }
    }
}

/// sled's merge operator: applies one [`Op`] to the stored entry.
///
/// A stored value this build cannot read (a newer format) is kept as it is rather than
/// overwritten, and so is an operand it cannot read.
fn merge_operator(_key: &[u8], old: Option<&[u8]>, operand: &[u8]) -> Option<Vec<u8>> {
    let mut entry = match old {
        Some(bytes) => match CacheEntry::decode(bytes) {
            Some(entry) => entry,
            None => return Some(bytes.to_vec()),
        },
        None => CacheEntry::default(),
    };
    match Op::decode(operand) {
        Some(op) => op.apply(&mut entry),
        None => return old.map(<[u8]>::to_vec),
    }
    Some(entry.encode())
}

/// A position's key in the database.
pub type CacheKey = [u8; 9];

/// Whether a database key is a position's (rather than a marker's).
fn is_entry_key(key: &[u8]) -> bool {
    key.len() == 9 && variant_of_tag(key[0]).is_some()
}

/// Updates as bytes, for callers that apply them later (the shard's journal): each is the
/// key it updates and the encoded operand of the merge operator.
pub mod update {
    use super::{CacheKey, Op, cache_key, marlin};
    use ferz_chess::{GameResult, Move, Position, Variant};

    /// A MultiPV search of `pos`: candidates `(move, score)` at `depth`.
    pub fn search(pos: &Position, depth: u32, candidates: &[(Move, i32)]) -> (CacheKey, Vec<u8>) {
        let candidates =
            candidates.iter().map(|&(m, score)| (m.to_u16(), score.clamp(-30_000, 30_000) as i16)).collect();
        let position = marlin::encode_position(pos);
        let op = Op::Search { depth: depth.min(255) as u8, position, candidates };
        (cache_key(pos.variant(), pos.key()), op.encode())
    }

    /// One more game playing `m` from the position.
    pub fn play(variant: Variant, zobrist: u64, m: Move) -> (CacheKey, Vec<u8>) {
        (cache_key(variant, zobrist), Op::Play(m.to_u16()).encode())
    }

    /// One more game through the position ended with `result`.
    pub fn result(variant: Variant, zobrist: u64, result: GameResult) -> (CacheKey, Vec<u8>) {
        (cache_key(variant, zobrist), Op::Result(result).encode())
    }
}

/// Applies one encoded update to a stored value, as sled's merge operator does.
pub fn apply_update(old: Option<&[u8]>, op: &[u8]) -> Option<Vec<u8>> {
    merge_operator(&[], old, op)
}

/// The cache key of a position.
#[must_use]
pub fn cache_key(variant: Variant, zobrist: u64) -> CacheKey {
    let mut key = [0; 9];
    key[0] = variant_tag(variant);
    key[1..].copy_from_slice(&zobrist.to_be_bytes());
    key
}

/// The opening cache of one process; cheap to clone and share between threads.
#[derive(Clone)]
pub struct OpeningCache {
    db: sled::Db,
    path: String,
}

impl std::fmt::Debug for OpeningCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpeningCache").field("path", &self.path).finish_non_exhaustive()
    }
}

impl OpeningCache {
    /// Opens (or creates) the cache at `path`.
    pub fn open(path: &Path) -> Result<OpeningCache, CacheError> {
        let shown = path.display().to_string();
        let config = sled::Config::new().path(path).cache_capacity(64 << 20);
        let started = Instant::now();
        let db = loop {
            match config.open() {
                Ok(db) => break db,
                Err(e) if is_lock_contention(&e) => {
                    if started.elapsed() >= LOCK_WAIT {
                        return Err(CacheError::Locked { path: shown, waited_ms: started.elapsed().as_millis() });
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(error) => return Err(CacheError::Sled { path: shown, error }),
            }
        };
        db.set_merge_operator(merge_operator);
        Ok(OpeningCache { db, path: shown })
    }

    fn sled<T>(&self, result: sled::Result<T>) -> Result<T, CacheError> {
        result.map_err(|error| CacheError::Sled { path: self.path.clone(), error })
    }

    /// The entry of a position, if the cache has one it can read.
    pub fn get(&self, variant: Variant, zobrist: u64) -> Result<Option<CacheEntry>, CacheError> {
        let value = self.sled(self.db.get(cache_key(variant, zobrist)))?;
        Ok(value.and_then(|v| CacheEntry::decode(&v)))
    }

    /// Records a MultiPV search of `pos`: candidates `(move, score)` at `depth`.
    pub fn record_search(&self, pos: &Position, depth: u32, candidates: &[(Move, i32)]) -> Result<(), CacheError> {
        let (key, op) = update::search(pos, depth, candidates);
        self.sled(self.db.merge(key, op)).map(drop)
    }

    /// Counts one more game playing `m` from the position.
    pub fn record_play(&self, variant: Variant, zobrist: u64, m: Move) -> Result<(), CacheError> {
        let (key, op) = update::play(variant, zobrist, m);
        self.sled(self.db.merge(key, op)).map(drop)
    }

    /// Counts the result of one more game through the position.
    pub fn record_result(&self, variant: Variant, zobrist: u64, result: GameResult) -> Result<(), CacheError> {
        let (key, op) = update::result(variant, zobrist, result);
        self.sled(self.db.merge(key, op)).map(drop)
    }

    /// The stored value of a key, undecoded.
    pub fn raw(&self, key: &[u8]) -> Result<Option<Vec<u8>>, CacheError> {
        Ok(self.sled(self.db.get(key))?.map(|v| v.to_vec()))
    }

    /// Applies `updates` (each an encoded update of one key, in order) and sets the marker
    /// `marker` to `value`, all in one sled transaction, then flushes: after a crash the
    /// database holds all of them or none.
    ///
    /// Only one writer may use this at a time (the shard's journal holds a lock): values are
    /// read, updated and written back rather than merged.
    pub fn apply_atomically(
        &self,
        updates: &[(CacheKey, Vec<u8>)],
        marker: &[u8],
        value: u64,
    ) -> Result<(), CacheError> {
        let mut values: std::collections::HashMap<CacheKey, Option<Vec<u8>>> = std::collections::HashMap::new();
        for (key, op) in updates {
            if !values.contains_key(key) {
                values.insert(*key, self.raw(key)?);
            }
            let slot = values.get_mut(key).expect("inserted above");
            *slot = apply_update(slot.as_deref(), op);
        }
        let result: sled::transaction::TransactionResult<(), ()> = self.db.transaction(|tx| {
            for (key, value) in &values {
                if let Some(value) = value {
                    tx.insert(&key[..], value.as_slice())?;
                }
            }
            tx.insert(marker, &value.to_le_bytes()[..])?;
            Ok(())
        });
        result.map_err(|e| match e {
            sled::transaction::TransactionError::Storage(error) => CacheError::Sled { path: self.path.clone(), error },
            sled::transaction::TransactionError::Abort(()) => unreachable!("the transaction never aborts"),
        })?;
        self.flush()
    }

    /// The value of a marker set by [`OpeningCache::apply_atomically`].
    pub fn marker(&self, marker: &[u8]) -> Result<Option<u64>, CacheError> {
        Ok(self.raw(marker)?.and_then(|v| Some(u64::from_le_bytes(v.as_slice().try_into().ok()?))))
    }

    /// Folds every entry of `other` into this cache: counts add, deeper searches win. Unlike
    /// sled's `import`, keys both caches hold are merged, not refused.
    pub fn absorb(&self, other: &OpeningCache) -> Result<u64, CacheError> {
        self.absorb_since(other, None)
    }

    /// Folds into this cache what `other` added since `base`, the cache generation `other`
    /// started as a copy of (see [`CacheEntry::since`]); with `None`, every entry of `other`
    /// whole. Shards that each began from a copy of one generation are merged by absorbing the
    /// generation once and then each shard since it: the generation's counts are not
    /// multiplied by the number of shards.
    pub fn absorb_since(&self, other: &OpeningCache, base: Option<&OpeningCache>) -> Result<u64, CacheError> {
        let mut merged = 0;
        for item in other.db.iter() {
            let (key, value) = other.sled(item)?;
            // Markers (a shard's journal position) belong to their cache, not to merges.
            if !is_entry_key(&key) {
                continue;
            }
            let Some(mut entry) = CacheEntry::decode(&value) else { continue };
            if let Some(base) = base
                && let Some(before) = base.raw(&key)?.as_deref().and_then(CacheEntry::decode)
            {
                entry = entry.since(&before);
            }
            self.sled(self.db.merge(key, Op::Absorb(entry).encode()))?;
            merged += 1;
        }
        Ok(merged)
    }

    /// Every readable entry with its variant and zobrist key.
    pub fn entries(&self) -> impl Iterator<Item = Result<(Variant, u64, CacheEntry), CacheError>> + '_ {
        self.db.iter().filter_map(move |item| match self.sled(item) {
            Err(e) => Some(Err(e)),
            Ok((key, value)) => {
                let variant = variant_of_tag(*key.first()?)?;
                let zobrist = u64::from_be_bytes(key.get(1..9)?.try_into().ok()?);
                Some(Ok((variant, zobrist, CacheEntry::decode(&value)?)))
            }
        })
    }

    /// Writes everything to disk.
    pub fn flush(&self) -> Result<(), CacheError> {
        self.sled(self.db.flush()).map(drop)
    }

    /// Bytes the database occupies on disk.
    pub fn size_on_disk(&self) -> Result<u64, CacheError> {
        self.sled(self.db.size_on_disk())
    }
}

/// Little-endian reads that fail at the end of input.
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (head, rest) = self.0.split_first_chunk::<N>()?;
        self.0 = rest;
        Some(*head)
    }
    fn u8(&mut self) -> Option<u8> {
        self.take::<1>().map(|[b]| b)
    }
    fn u16(&mut self) -> Option<u16> {
        self.take().map(u16::from_le_bytes)
    }
    fn u32(&mut self) -> Option<u32> {
        self.take().map(u32::from_le_bytes)
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn entry() -> CacheEntry {
        CacheEntry {
            depth: 9,
            position: [0; RECORD_SIZE],
            candidates: vec![Candidate { mv: 7, score: 30, plays: 2 }, Candidate { mv: 9, score: -5, plays: 0 }],
            games: 2,
            white_wins: 1,
            draws: 1,
            black_wins: 0,
        }
    }

    #[test]
    fn entries_round_trip_and_reject_garbage() {
        let e = entry();
        assert_eq!(CacheEntry::decode(&e.encode()), Some(e.clone()));
        let mut bytes = e.encode();
        bytes[0] = 2;
        assert_eq!(CacheEntry::decode(&bytes), None);
        assert_eq!(CacheEntry::decode(&e.encode()[..10]), None);
        assert_eq!(CacheEntry::decode(&[]), None);
    }

    #[test]
    fn merge_operator_applies_each_update() {
        let position = marlin::encode_position(&Position::new(Variant::Chess));
        let search = Op::Search { depth: 5, position, candidates: vec![(7, 10), (8, 20)] }.encode();
        let v = merge_operator(b"k", None, &search).unwrap();
        let v = merge_operator(b"k", Some(&v), &Op::Play(7).encode()).unwrap();
        let v = merge_operator(b"k", Some(&v), &Op::Result(GameResult::Win(Color::Black)).encode()).unwrap();
        let e = CacheEntry::decode(&v).unwrap();
        assert_eq!(e.depth, 5);
        assert_eq!(e.position(), Some(Position::new(Variant::Chess)));
        assert_eq!(e.candidates[0], Candidate { mv: 8, score: 20, plays: 0 });
        assert_eq!(e.candidates[1], Candidate { mv: 7, score: 10, plays: 1 });
        assert_eq!((e.games, e.black_wins), (1, 1));
        // A shallower search does not replace deeper scores.
        let shallow = Op::Search { depth: 3, position, candidates: vec![(7, 99)] }.encode();
        let e2 = CacheEntry::decode(&merge_operator(b"k", Some(&v), &shallow).unwrap()).unwrap();
        assert_eq!(e2, e);
        // Unreadable operands and values are left alone.
        assert_eq!(merge_operator(b"k", Some(&v), &[9, 9]).unwrap(), v);
        assert_eq!(merge_operator(b"k", Some(&[7, 7]), &Op::Play(1).encode()).unwrap(), vec![7, 7]);
    }

    #[test]
    fn absorb_adds_counts_and_keeps_the_deeper_scores() {
        let mut a = entry();
        let b = CacheEntry {
            depth: 12,
            position: [0; RECORD_SIZE],
            candidates: vec![Candidate { mv: 9, score: 40, plays: 3 }, Candidate { mv: 11, score: 1, plays: 1 }],
            games: 4,
            white_wins: 0,
            draws: 2,
            black_wins: 2,
        };
        a.absorb(&b);
        assert_eq!(a.depth, 12);
        assert_eq!(
            a.candidates,
            vec![
                Candidate { mv: 9, score: 40, plays: 3 },
                Candidate { mv: 7, score: 30, plays: 2 },
                Candidate { mv: 11, score: 1, plays: 1 },
            ]
        );
        assert_eq!((a.games, a.white_wins, a.draws, a.black_wins), (6, 1, 3, 2));
    }

    #[test]
    fn a_cache_held_by_a_live_handle_is_refused_after_a_bounded_wait() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cache");
        let held = OpeningCache::open(&path).unwrap();
        // A second handle (as from another process) finds the lock taken and gives up clearly.
        let err = OpeningCache::open(&path).unwrap_err();
        assert!(matches!(err, CacheError::Locked { waited_ms, .. } if waited_ms >= LOCK_WAIT.as_millis()), "{err}");
        assert!(err.to_string().contains("another process has it open"), "{err}");
        drop(held);
        // Once the holder is gone, the open succeeds, however late sled lets go of the lock.
        OpeningCache::open(&path).unwrap();
    }

    fn copy_dir(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for item in std::fs::read_dir(from).unwrap() {
            let item = item.unwrap();
            if item.file_type().unwrap().is_dir() {
                copy_dir(&item.path(), &to.join(item.file_name()));
            } else {
                std::fs::copy(item.path(), to.join(item.file_name())).unwrap();
            }
        }
    }

    #[test]
    fn shards_grown_from_one_generation_count_it_once() {
        let dir = tempfile::tempdir().unwrap();
        let pos = Position::new(Variant::Chess);
        let e4 = pos.parse_uci("e2e4").unwrap();
        let d4 = pos.parse_uci("d2d4").unwrap();
        let (variant, key) = (pos.variant(), pos.key());
        let base_path = dir.path().join("current");
        {
            let base = OpeningCache::open(&base_path).unwrap();
            base.record_search(&pos, 10, &[(e4, 30), (d4, 25)]).unwrap();
            for _ in 0..5 {
                base.record_play(variant, key, e4).unwrap();
                base.record_result(variant, key, GameResult::Draw).unwrap();
            }
            base.flush().unwrap();
        }
        // Two shards start from copies of the generation and each play games of their own.
        let shards: Vec<PathBuf> = (0..2).map(|i| dir.path().join(format!("shard-{i}"))).collect();
        for (i, shard) in shards.iter().enumerate() {
            copy_dir(&base_path, shard);
            let cache = OpeningCache::open(shard).unwrap();
            for _ in 0..=i {
                cache.record_play(variant, key, d4).unwrap();
                cache.record_result(variant, key, GameResult::Win(Color::White)).unwrap();
            }
            cache.flush().unwrap();
        }
        let merge = |with_base: bool| {
            let out = OpeningCache::open(&dir.path().join(format!("next-{with_base}"))).unwrap();
            let base = OpeningCache::open(&base_path).unwrap();
            if with_base {
                out.absorb(&base).unwrap();
            }
            for shard in &shards {
                let shard = OpeningCache::open(shard).unwrap();
                out.absorb_since(&shard, with_base.then_some(&base)).unwrap();
            }
            out.get(variant, key).unwrap().unwrap()
        };
        let merged = merge(true);
        let plays = |e: &CacheEntry, m: Move| e.candidates.iter().find(|c| c.mv == m.to_u16()).unwrap().plays;
        assert_eq!((merged.games, merged.draws, merged.white_wins), (5 + 3, 5, 3));
        assert_eq!((plays(&merged, e4), plays(&merged, d4)), (5, 3));
        assert_eq!(merged.depth, 10);
        // Without the base, each shard brings the generation's games again.
        let naive = merge(false);
        assert_eq!((naive.games, plays(&naive, e4)), (5 + 5 + 3, 10));
    }
}

#[cfg(test)]
mod sled_error_tests {
    use super::*;

    #[test]
    fn damage_is_described_in_words_naming_the_missing_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().display().to_string();
        let damaged = sled::Error::Corruption { at: None, bt: () };
        let text = CacheError::Sled { path: path.clone(), error: damaged }.to_string();
        assert!(text.contains("conf and db missing") && !text.contains("offset None"), "{text}");
        std::fs::write(dir.path().join("conf"), "x").unwrap();
        std::fs::write(dir.path().join("db"), "x").unwrap();
        let damaged = sled::Error::Corruption { at: None, bt: () };
        let text = CacheError::Sled { path, error: damaged }.to_string();
        assert!(text.contains("damaged and cannot be read"), "{text}");
    }
}
