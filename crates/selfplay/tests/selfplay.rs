//! Real self-play runs, small enough for debug builds: outputs parse back, resumes replay
//! exactly, merges check what they merge.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use ferz_book::cache::OpeningCache;
use ferz_chess::{Game, Position, Variant};
use ferz_dataset::marlin::{self, RECORD_SIZE as MARLIN_SIZE};
use ferz_dataset::verify::{self as dataset, AnyManifest};
use ferz_engine::Signals;
use ferz_selfplay::config::{SelfplayConfig, VariantMix};
use ferz_selfplay::shard::{ShardSpec, run_shard};

fn small_config(out: &Path) -> SelfplayConfig {
    let mut config = SelfplayConfig::default();
    config.run.games = 6;
    config.run.threads = 2;
    config.run.out = out.to_path_buf();
    config.run.seed = 42;
    config.variants = VariantMix { chess: 1, chess960: 1, shatranj: 1 };
    config.search.nodes = 400;
    config.search.hash_mb = 1;
    config.opening.random_plies = 4;
    config.opening.multipv_plies = 2;
    config.opening.multipv_nodes = 600;
    config.adjudication.max_plies = 120;
    config.adjudication.win_cp = 800;
    config.adjudication.win_plies = 4;
    config.filter.min_ply = 8;
    config
}

fn shard0() -> ShardSpec {
    ShardSpec { index: 0, count: 1 }
}

fn variant_of(name: &str) -> Variant {
    match name {
        "chess" => Variant::Chess,
        "chess960" => Variant::Chess960,
        _ => Variant::Shatranj,
    }
}

/// Every text line parses, every marlin record decodes to the same position, score and
/// result, and every PGN game replays legally to its stated result.
fn check_outputs(dir: &Path, manifest: &AnyManifest) {
    let mut games = 0;
    for file in manifest.files() {
        let path = dir.join(&file.name);
        let (stem, ext) = file.name.rsplit_once('.').unwrap();
        match ext {
            "txt" => {
                let text = std::fs::read_to_string(&path).unwrap();
                let lines: Vec<&str> = text.lines().collect();
                assert_eq!(lines.len() as u64, file.records, "{}", file.name);
                let marlin = std::fs::read(dir.join(format!("{stem}.marlin"))).unwrap();
                assert_eq!(marlin.len(), lines.len() * MARLIN_SIZE);
                for (line, record) in lines.iter().zip(marlin.chunks_exact(MARLIN_SIZE)) {
                    let fields: Vec<&str> = line.split(" | ").collect();
                    assert_eq!(fields.len(), 3, "{line}");
                    let pos = Position::from_fen(fields[0], variant_of(stem)).unwrap();
                    assert!(!pos.is_check(), "{line}");
                    let score: i32 = fields[1].parse().unwrap();
                    assert!(["1.0", "0.5", "0.0"].contains(&fields[2]), "{line}");
                    let decoded = marlin::decode(record.try_into().unwrap()).unwrap();
                    assert_eq!(decoded.position.board(), pos.board(), "{line}");
                    assert_eq!(decoded.position.turn(), pos.turn());
                    assert_eq!(i32::from(decoded.white_score), score);
                    assert_eq!(format!("{:.1}", decoded.result.white_score()), fields[2]);
                }
            }
            "pgn" => games += check_pgn(&std::fs::read_to_string(&path).unwrap()),
            _ => {}
        }
    }
    assert_eq!(games, manifest.tally().games);
}

/// Replays every game of a PGN file with ferz-chess; returns the number of games.
fn check_pgn(text: &str) -> u64 {
    let mut count = 0;
    for game_text in text.split("\n\n[Event").filter(|g| !g.trim().is_empty()) {
        let (headers, moves) = game_text.split_once("\n\n").expect("headers then moves");
        let header = |name: &str| {
            headers
                .lines()
                .find_map(|l| l.strip_prefix(&format!("[{name} \"")).map(|v| v.trim_end_matches("\"]").to_owned()))
        };
        let variant = match header("Variant").as_deref() {
            Some("Chess960") => Variant::Chess960,
            Some("Shatranj") => Variant::Shatranj,
            _ => Variant::Chess,
        };
        let start = header("FEN").map_or(Position::new(variant), |fen| Position::from_fen(&fen, variant).unwrap());
        let mut game = Game::new(start);
        let mut in_comment = false;
        let mut last = "";
        for token in moves.split_whitespace() {
            if in_comment || token.starts_with('{') {
                in_comment = !token.ends_with('}');
                continue;
            }
            if token.ends_with('.') || token.contains("...") {
                continue;
            }
            if ["1-0", "0-1", "1/2-1/2"].contains(&token) {
                last = token;
                break;
            }
            let m = game.position().parse_san(token).unwrap_or_else(|e| panic!("{token}: {e}"));
            game.play(m).unwrap();
        }
        assert_eq!(header("Result").as_deref(), Some(last));
        if header("Termination").as_deref() == Some("normal") {
            assert_eq!(game.outcome().map(|o| o.result()), Some(last), "{game_text}");
        }
        count += 1;
    }
    count
}

#[test]
fn a_small_run_writes_outputs_that_parse_back() {
    let dir = tempfile::tempdir().unwrap();
    let config = small_config(dir.path());
    let outcome = run_shard(&config, shard0(), false, &Signals::default(), &mut |_| {}).unwrap();
    let manifest = outcome.manifest.expect("complete");
    assert_eq!(manifest.tally.games, 6);
    assert_eq!(manifest.tally.white_wins + manifest.tally.draws + manifest.tally.black_wins, 6);
    assert!(manifest.tally.positions() > 0);
    assert!(manifest.cache.lookups >= 12, "{:?}", manifest.cache);
    let verified = dataset::open_verified(&outcome.dir).unwrap();
    check_outputs(&outcome.dir, &verified);
    assert!(!outcome.dir.join("checkpoint.json").exists());
    assert!(
        std::fs::read_dir(&outcome.dir).unwrap().all(|e| !e.unwrap().file_name().to_string_lossy().ends_with(".part"))
    );
}

#[test]
fn a_stopped_shard_resumes_into_the_same_dataset() {
    // With two threads the opening cache makes games depend on which thread finished first,
    // so the replay is exact only without it; with it a resume is still complete and
    // duplicate-free (see the system test of an Indexed Job), and with one thread exact (below).
    let straight_dir = tempfile::tempdir().unwrap();
    let mut config = small_config(straight_dir.path());
    config.cache.enabled = false;
    // Enough games that a stop after the second lands well before the end, however the two
    // workers are scheduled.
    config.run.games = 24;
    let straight = run_shard(&config, shard0(), false, &Signals::default(), &mut |_| {}).unwrap().manifest.unwrap();

    let resumed_dir = tempfile::tempdir().unwrap();
    let mut config = small_config(resumed_dir.path());
    config.cache.enabled = false;
    config.run.games = 24;
    let signals = Signals::default();
    let stopped = run_shard(&config, shard0(), false, &signals, &mut |p| {
        if p.tally.games >= 2 {
            signals.stop.store(true, Ordering::SeqCst);
        }
    })
    .unwrap();
    assert!(stopped.manifest.is_none());
    assert!(stopped.games_done >= 2 && stopped.games_done < 24, "{}", stopped.games_done);
    // Garbage after the checkpointed length (a kill mid-write) is cut away on resume.
    let part = stopped.dir.join("chess.txt.part");
    let mut bytes = std::fs::read(&part).unwrap();
    bytes.extend(b"rnbqkbnr/pppp");
    std::fs::write(&part, bytes).unwrap();
    // The resume names the output directory another way (as `ferz loop runs/x` after
    // `ferz loop /abs/runs/x` does): it is the same run.
    let mut respelled = config.clone();
    let link = tempfile::tempdir().unwrap();
    respelled.run.out = link.path().join("out");
    std::os::unix::fs::symlink(&config.run.out, &respelled.run.out).unwrap();
    let resumed = run_shard(&respelled, shard0(), true, &Signals::default(), &mut |_| {}).unwrap().manifest.unwrap();
    assert_eq!(resumed.tally, straight.tally);
    let names = |m: &ferz_dataset::manifest::ShardManifest| {
        m.files.iter().map(|f| (f.name.clone(), f.sha256.clone())).collect::<Vec<_>>()
    };
    // The PGN carries the date, which may differ across midnight; the data files must match.
    let data = |m| names(m).into_iter().filter(|(n, _)| !n.ends_with(".pgn")).collect::<Vec<_>>();
    assert_eq!(data(&resumed), data(&straight));
    // Resuming a complete shard does nothing.
    let again = run_shard(&config, shard0(), true, &Signals::default(), &mut |_| {}).unwrap();
    assert!(again.already_complete);
    // Other settings cannot resume a checkpoint.
    let stopped_again =
        run_shard(&config, shard0(), false, &signals, &mut |_| signals.stop.store(true, Ordering::SeqCst));
    assert!(stopped_again.unwrap().manifest.is_none());
    let mut other = config.clone();
    other.search.nodes += 1;
    let err = run_shard(&other, shard0(), true, &Signals::default(), &mut |_| {}).unwrap_err();
    assert!(err.to_string().contains("other settings"), "{err}");
}

/// The data files' names and checksums (not the PGN, whose date may change at midnight).
fn data_checksums(manifest: &ferz_dataset::manifest::ShardManifest) -> Vec<(String, String)> {
    manifest.files.iter().filter(|f| !f.name.ends_with(".pgn")).map(|f| (f.name.clone(), f.sha256.clone())).collect()
}

#[test]
fn with_one_thread_a_resume_is_exact_even_with_the_opening_cache() {
    // Openings depend on the cache's play counts; the shard's cache journal keeps the games
    // after the checkpoint out of the cache, so the replayed games choose the same openings,
    // whether the resume finds the shard's cache or a fresh copy of its base (a job retried
    // on another machine).
    // The stop comes from the writer after its third game while the worker plays on, so the
    // shard has games enough that the worker cannot finish them all first on a loaded machine
    // (with 8 it once did).
    let config_in = |dir: &Path| {
        let mut config = small_config(dir);
        config.run.games = 24;
        config.run.threads = 1;
        config.run.checkpoint_seconds = 0;
        config.opening.multipv_plies = 3;
        config.cache.path = dir.join("local-cache");
        config
    };
    let straight_dir = tempfile::tempdir().unwrap();
    let config = config_in(straight_dir.path());
    let straight = run_shard(&config, shard0(), false, &Signals::default(), &mut |_| {}).unwrap().manifest.unwrap();
    let again =
        run_shard(&config_in(tempfile::tempdir().unwrap().path()), shard0(), false, &Signals::default(), &mut |_| {});
    assert_eq!(
        data_checksums(&again.unwrap().manifest.unwrap()),
        data_checksums(&straight),
        "one thread is deterministic"
    );

    for fresh_cache in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let config = config_in(dir.path());
        let signals = Signals::default();
        let stopped = run_shard(&config, shard0(), false, &signals, &mut |p| {
            if p.tally.games >= 3 {
                signals.stop.store(true, Ordering::SeqCst);
            }
        })
        .unwrap();
        assert!(stopped.manifest.is_none());
        if fresh_cache {
            std::fs::remove_dir_all(&config.cache.path).unwrap();
        }
        let resumed = run_shard(&config, shard0(), true, &Signals::default(), &mut |_| {}).unwrap().manifest.unwrap();
        assert_eq!(resumed.tally, straight.tally, "fresh cache: {fresh_cache}");
        assert_eq!(data_checksums(&resumed), data_checksums(&straight), "fresh cache: {fresh_cache}");
        assert!(!stopped.dir.join("cache-journal.bin.part").exists());
        // The shard's cache holds every game once, as the uninterrupted shard's does.
        let totals = |path: &Path| {
            let cache = OpeningCache::open(path).unwrap();
            let entries: Vec<_> = cache.entries().map(Result::unwrap).collect();
            (entries.len(), entries.iter().map(|(_, _, e)| u64::from(e.games)).sum::<u64>())
        };
        assert_eq!(totals(&config.cache.path), totals(&config_in(straight_dir.path()).cache.path));
    }
}

#[test]
fn shards_merge_into_one_checked_dataset() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = small_config(dir.path());
    config.run.games = 3;
    config.run.threads = 1;
    let mut shards: Vec<PathBuf> = Vec::new();
    let mut total = ferz_dataset::manifest::Tally::default();
    for index in 0..2 {
        let outcome =
            run_shard(&config, ShardSpec { index, count: 2 }, false, &Signals::default(), &mut |_| {}).unwrap();
        total.add(&outcome.manifest.unwrap().tally);
        shards.push(outcome.dir);
    }
    let merged_dir = dir.path().join("merged");
    let merged = dataset::merge(&merged_dir, &shards, Some(7)).unwrap();
    assert_eq!(merged.tally, total);
    let verified = dataset::open_verified(&merged_dir).unwrap();
    check_outputs(&merged_dir, &verified);
    assert!(dataset::summary(&verified).contains("merged from 2 shards, shuffled"));

    // A shard given twice, a merged output that exists, and a tampered file are refused.
    let twice = dataset::merge(&dir.path().join("m2"), &[shards[0].clone(), shards[0].clone()], None).unwrap_err();
    assert!(twice.reason.contains("given twice"), "{twice}");
    assert!(dataset::merge(&merged_dir, &shards, None).unwrap_err().reason.contains("already holds"));
    let pgn = shards[1].join("games.pgn");
    let mut text = std::fs::read_to_string(&pgn).unwrap();
    text.push(' ');
    std::fs::write(&pgn, text).unwrap();
    let tampered = dataset::merge(&dir.path().join("m3"), &shards, None).unwrap_err();
    assert!(tampered.to_string().contains("games.pgn"), "{tampered}");
    assert!(!dir.path().join("m3").join("manifest.json").exists());
}

/// `[search]` chooses the evaluation: the embedded net by default, the same net from a file
/// gives the same games, the hand-tuned evaluation other games, and a bad net file stops the
/// shard before any game, naming the file.
#[test]
fn the_evaluation_comes_from_the_settings_and_a_bad_net_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, edit: &dyn Fn(&mut SelfplayConfig)| {
        let mut config = small_config(&dir.path().join(name));
        config.run.games = 2;
        config.run.threads = 1;
        config.variants = VariantMix { chess: 1, chess960: 0, shatranj: 0 };
        config.opening.multipv_plies = 0;
        edit(&mut config);
        run_shard(&config, shard0(), false, &Signals::default(), &mut |_| {})
    };
    let records = |name: &str, edit: &dyn Fn(&mut SelfplayConfig)| {
        data_checksums(&run(name, edit).unwrap().manifest.expect("complete"))
    };
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("../nnue/nets/chess.nnue");
    let default = records("default", &|_| {});
    let hand_tuned = records("hand-tuned", &|c| c.search.use_nnue = false);
    assert_ne!(default, hand_tuned, "the embedded net plays other games than the hand-tuned evaluation");
    assert_eq!(records("file", &|c| c.search.eval_file = shipped.clone()), default);

    let broken = dir.path().join("broken.nnue");
    std::fs::write(&broken, b"FERZNNUE but not a net").unwrap();
    let error = run("broken", &|c| c.search.eval_file = broken.clone()).unwrap_err().to_string();
    assert!(error.contains("broken.nnue"), "{error}");
    let error = run("shatranj", &|c| c.search.eval_file_shatranj = shipped.clone()).unwrap_err().to_string();
    assert!(error.contains("chess.nnue") && error.contains("expected a shatranj net"), "{error}");
    assert!(!dir.path().join("broken/shard-00000/manifest.json").exists());
}
