//! The sled opening cache as a process uses it: threads counting at once, merges, reopening.

use ferz_book::cache::OpeningCache;
use ferz_chess::{Color, GameResult, Position, Variant};

#[test]
fn the_cache_counts_exactly_under_threads() {
    let dir = tempfile::tempdir().unwrap();
    let cache = OpeningCache::open(&dir.path().join("cache")).unwrap();
    let pos = Position::new(Variant::Chess);
    let moves: Vec<_> = pos.legal_moves().iter().copied().take(3).collect();
    cache.record_search(&pos, 7, &[(moves[0], 20), (moves[1], 10)]).unwrap();
    std::thread::scope(|s| {
        for t in 0..4 {
            let (cache, moves) = (&cache, &moves);
            s.spawn(move || {
                for i in 0..250 {
                    cache.record_play(Variant::Chess, pos.key(), moves[(t + i) % 3]).unwrap();
                    cache.record_result(Variant::Chess, pos.key(), GameResult::Draw).unwrap();
                }
            });
        }
    });
    let entry = cache.get(Variant::Chess, pos.key()).unwrap().unwrap();
    assert_eq!(entry.candidates.iter().map(|c| u64::from(c.plays)).sum::<u64>(), 1000);
    assert_eq!((entry.games, entry.draws), (1000, 1000));
    assert_eq!(entry.depth, 7);

    // Merging: counts add, the deeper search's scores win.
    let other = OpeningCache::open(&dir.path().join("other")).unwrap();
    other.record_search(&pos, 9, &[(moves[1], 35)]).unwrap();
    other.record_result(Variant::Chess, pos.key(), GameResult::Win(Color::White)).unwrap();
    assert_eq!(cache.absorb(&other).unwrap(), 1);
    let merged = cache.get(Variant::Chess, pos.key()).unwrap().unwrap();
    assert_eq!((merged.games, merged.white_wins, merged.depth), (1001, 1, 9));
    assert_eq!(merged.candidates[0].mv, moves[1].to_u16());
    assert_eq!(merged.candidates[0].score, 35);
    drop(cache);
    // The merge operator is registered again on reopen.
    let reopened = OpeningCache::open(&dir.path().join("cache")).unwrap();
    reopened.record_result(Variant::Chess, pos.key(), GameResult::Win(Color::Black)).unwrap();
    assert_eq!(reopened.get(Variant::Chess, pos.key()).unwrap().unwrap().games, 1002);
}
