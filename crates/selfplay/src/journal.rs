//! The opening cache as a shard uses it: updates wait in memory until the checkpoint that
//! covers their game, so a resumed shard finds the cache exactly as it was at its checkpoint.
//!
//! Game openings depend on the cache (its searches and its play counts), so a cache that
//! kept the updates of games a killed shard had played after its last checkpoint would make
//! the replayed games choose other openings. Here every update is tagged with its game and
//! kept in memory (readers see it at once); a checkpoint at `games_done = N` writes the
//! updates of games `0..N` to sled in one transaction together with a marker `N` for this
//! shard. The writer also appends each game's updates to the shard's journal file, which is
//! cut back to the checkpoint on resume like every other part file.
//!
//! A resumed shard reads its marker `M` (0 when the cache is a fresh copy, as after a retried
//! pod or a requeued job on another node) and replays the journal's games `M..N`: the cache
//! again holds exactly the shard's base plus games `0..N`. With one worker thread a resumed
//! shard therefore writes the same games as one that was never interrupted.

use std::collections::HashMap;
use std::sync::RwLock;

use ferz_chess::Variant;

use ferz_book::cache::{CacheEntry, CacheError, CacheKey, OpeningCache, apply_update, cache_key};

/// The cache updates of one game, in the order the game made them.
pub type GameUpdates = Vec<(CacheKey, Vec<u8>)>;

/// Why a shard's journal cannot be replayed.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// The database failed.
    #[error(transparent)]
    Cache(#[from] CacheError),
    /// The journal or the cache does not match the checkpoint.
    #[error("{0}")]
    Mismatch(String),
}

/// Updates not yet in the database, per key in the order they were made, with their game.
type Pending = HashMap<CacheKey, Vec<(u64, Vec<u8>)>>;

/// An opening cache shared by a shard's worker threads, with updates held until committed.
#[derive(Debug)]
pub struct ShardCache {
    cache: OpeningCache,
    marker: Vec<u8>,
    pending: RwLock<Pending>,
}

/// The database key of a shard's marker. It starts with a byte no variant uses, so cache
/// statistics, merges and exports skip it.
fn marker_key(token: u64) -> Vec<u8> {
    let mut key = b"\xffshard-journal/".to_vec();
    key.extend(token.to_be_bytes());
    key
}

impl ShardCache {
    /// Opens a shard's view of `cache`. `token` names the shard's run (kept in its
    /// checkpoint), `games_done` is the checkpoint's game count and `journal` the games
    /// `0..games_done` read back from the journal file; the games the cache lacks are
    /// replayed into it.
    pub fn open(
        cache: OpeningCache,
        token: u64,
        games_done: u64,
        journal: &[(u64, GameUpdates)],
    ) -> Result<ShardCache, JournalError> {
        let marker = marker_key(token);
        let committed = cache.marker(&marker)?.unwrap_or(0);
        if committed > games_done {
            return Err(JournalError::Mismatch(format!(
                "the opening cache holds {committed} games of this shard but the checkpoint only {games_done}; \
                 it was written by a later run of the shard"
            )));
        }
        let indices: Vec<u64> = journal.iter().map(|(index, _)| *index).collect();
        if indices != (0..games_done).collect::<Vec<_>>() {
            return Err(JournalError::Mismatch(format!(
                "the opening-cache journal holds {} games, not the checkpoint's {games_done} in order",
                journal.len()
            )));
        }
        let shard = ShardCache { cache, marker, pending: RwLock::new(Pending::new()) };
        if committed < games_done {
            let updates: Vec<(CacheKey, Vec<u8>)> =
                journal[committed as usize..].iter().flat_map(|(_, game)| game.iter().cloned()).collect();
            shard.cache.apply_atomically(&updates, &shard.marker, games_done)?;
        }
        Ok(shard)
    }

    /// The entry of a position: the database's, with the uncommitted updates applied.
    pub fn get(&self, variant: Variant, zobrist: u64) -> Result<Option<CacheEntry>, CacheError> {
        let key = cache_key(variant, zobrist);
        let pending = self.pending.read().expect("no thread panics holding the lock");
        let mut value = self.cache.raw(&key)?;
        for (_, op) in pending.get(&key).into_iter().flatten() {
            value = apply_update(value.as_deref(), op);
        }
        Ok(value.and_then(|v| CacheEntry::decode(&v)))
    }

    /// Holds an update of game `game` until a checkpoint covers that game.
    pub fn record(&self, game: u64, key: CacheKey, op: Vec<u8>) {
        self.pending.write().expect("no thread panics holding the lock").entry(key).or_default().push((game, op));
    }

    /// Writes the updates of games `0..games_done` to the database with the marker
    /// `games_done`, atomically and durably; later games' updates stay in memory.
    pub fn commit(&self, games_done: u64) -> Result<(), CacheError> {
        let mut pending = self.pending.write().expect("no thread panics holding the lock");
        let mut updates = Vec::new();
        for (key, ops) in pending.iter_mut() {
            ops.retain(|(game, op)| {
                let due = *game < games_done;
                if due {
                    updates.push((*key, op.clone()));
                }
                !due
            });
        }
        pending.retain(|_, ops| !ops.is_empty());
        self.cache.apply_atomically(&updates, &self.marker, games_done)
    }
}

/// One game's journal record: `game u64`, `updates u32`, then per update the 9-byte key,
/// `length u16` and the encoded update; all little-endian.
#[must_use]
pub fn encode_game(game: u64, updates: &[(CacheKey, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend(game.to_le_bytes());
    out.extend((updates.len() as u32).to_le_bytes());
    for (key, op) in updates {
        out.extend(key);
        out.extend((op.len() as u16).to_le_bytes());
        out.extend(op);
    }
    out
}

/// Reads a journal back; an error says where it stops making sense.
pub fn decode_journal(mut bytes: &[u8]) -> Result<Vec<(u64, GameUpdates)>, String> {
    fn take<'a>(bytes: &mut &'a [u8], n: usize, at: usize) -> Result<&'a [u8], String> {
        if bytes.len() < n {
            return Err(format!("the journal ends inside a record (game {at})"));
        }
        let (head, rest) = bytes.split_at(n);
        *bytes = rest;
        Ok(head)
    }
    let mut games = Vec::new();
    while !bytes.is_empty() {
        let at = games.len();
        let game = u64::from_le_bytes(take(&mut bytes, 8, at)?.try_into().expect("8 bytes"));
        let count = u32::from_le_bytes(take(&mut bytes, 4, at)?.try_into().expect("4 bytes"));
        let mut updates = Vec::new();
        for _ in 0..count {
            let key: CacheKey = take(&mut bytes, 9, at)?.try_into().expect("9 bytes");
            let len = u16::from_le_bytes(take(&mut bytes, 2, at)?.try_into().expect("2 bytes"));
            updates.push((key, take(&mut bytes, usize::from(len), at)?.to_vec()));
        }
        games.push((game, updates));
    }
    Ok(games)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferz_book::cache::update;
    use ferz_chess::GameResult;
    use ferz_chess::Position;

    fn games(pos: &Position) -> Vec<(u64, GameUpdates)> {
        let moves: Vec<_> = pos.legal_moves().iter().copied().take(2).collect();
        let mut journal = Vec::new();
        for game in 0..4u64 {
            let mut updates = Vec::new();
            if game == 0 {
                updates.push(update::search(pos, 6, &[(moves[0], 15), (moves[1], 5)]));
            }
            updates.push(update::play(Variant::Chess, pos.key(), moves[game as usize % 2]));
            updates.push(update::result(Variant::Chess, pos.key(), GameResult::Draw));
            journal.push((game, updates));
        }
        journal
    }

    #[test]
    fn the_journal_round_trips_and_rejects_a_cut_record() {
        let journal = games(&Position::new(Variant::Chess));
        let bytes: Vec<u8> = journal.iter().flat_map(|(game, updates)| encode_game(*game, updates)).collect();
        assert_eq!(decode_journal(&bytes).unwrap(), journal);
        let error = decode_journal(&bytes[..bytes.len() - 1]).unwrap_err();
        assert!(error.contains("game 3"), "{error}");
    }

    #[test]
    fn updates_are_visible_at_once_and_stored_only_when_committed() {
        let dir = tempfile::tempdir().unwrap();
        let pos = Position::new(Variant::Chess);
        let journal = games(&pos);
        let cache = ShardCache::open(OpeningCache::open(&dir.path().join("c")).unwrap(), 7, 0, &[]).unwrap();
        for (game, updates) in &journal {
            for (key, op) in updates {
                cache.record(*game, *key, op.clone());
            }
        }
        assert_eq!(cache.get(Variant::Chess, pos.key()).unwrap().unwrap().games, 4);
        cache.commit(2).unwrap();
        assert_eq!(cache.get(Variant::Chess, pos.key()).unwrap().unwrap().games, 4);
        drop(cache);

        // Reopened at checkpoint 2: only games 0 and 1 are in the database.
        let reopened = OpeningCache::open(&dir.path().join("c")).unwrap();
        assert_eq!(reopened.get(Variant::Chess, pos.key()).unwrap().unwrap().games, 2);
        // Checkpoint 3: game 2 is replayed from the journal, once.
        let cache = ShardCache::open(reopened, 7, 3, &journal[..3]).unwrap();
        assert_eq!(cache.get(Variant::Chess, pos.key()).unwrap().unwrap().games, 3);
        drop(cache);
        let cache = ShardCache::open(OpeningCache::open(&dir.path().join("c")).unwrap(), 7, 3, &journal[..3]).unwrap();
        assert_eq!(cache.get(Variant::Chess, pos.key()).unwrap().unwrap().games, 3);
        drop(cache);

        // A fresh copy of the base replays every game; a cache ahead of the checkpoint is refused.
        let fresh = ShardCache::open(OpeningCache::open(&dir.path().join("f")).unwrap(), 7, 3, &journal[..3]).unwrap();
        let entry = fresh.get(Variant::Chess, pos.key()).unwrap().unwrap();
        assert_eq!((entry.games, entry.depth), (3, 6));
        drop(fresh);
        let error = ShardCache::open(OpeningCache::open(&dir.path().join("c")).unwrap(), 7, 2, &journal[..2]);
        assert!(error.unwrap_err().to_string().contains("later run"));
        let error = ShardCache::open(OpeningCache::open(&dir.path().join("g")).unwrap(), 7, 3, &journal[..2]);
        assert!(error.unwrap_err().to_string().contains("journal holds 2 games"));

        // The marker is no position: statistics and merges do not see it.
        let merged = OpeningCache::open(&dir.path().join("m")).unwrap();
        assert_eq!(merged.absorb(&OpeningCache::open(&dir.path().join("c")).unwrap()).unwrap(), 1);
        assert_eq!(merged.entries().count(), 1);
    }
}
