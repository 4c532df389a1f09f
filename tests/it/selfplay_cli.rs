//! `ferz selfplay`, `ferz data` and `ferz cache` as processes: a simulated Kubernetes Indexed
//! Job with a shard killed mid-run, resumed exactly and merged. (`scripts/slurm-e2e.sh` runs
//! the same on a real Slurm cluster.)

use std::collections::HashSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ferz_chess::{Position, Variant};
use ferz_dataset::marlin::{self, RECORD_SIZE as MARLIN_SIZE};
use ferz_tests::{TempDir, ferz_binary, run_ferz};

const SETTINGS: &str = r#"
[run]
games = 40
threads = 1
seed = 9
checkpoint_seconds = 0

[variants]
chess = 2
shatranj = 1

[search]
nodes = 800
hash_mb = 2

[opening]
random_plies = 4
multipv_plies = 2
multipv_nodes = 1000

[adjudication]
max_plies = 160
win_cp = 900
win_plies = 4
"#;

fn selfplay(config: &Path, out: &Path, index: u32, resume: bool) -> Command {
    let mut command = Command::new(ferz_binary());
    command
        .args(["selfplay", "--config"])
        .arg(config)
        .arg("--out")
        .arg(out)
        .args(["--shard-count", "3"])
        .env("JOB_COMPLETION_INDEX", index.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if resume {
        command.arg("--resume");
    }
    command
}

#[test]
fn an_indexed_job_survives_a_killed_shard_and_merges_exactly() {
    let dir = TempDir::new("indexed-job");
    let config = dir.path().join("selfplay.toml");
    std::fs::write(&config, SETTINGS).unwrap();
    let out = dir.path().join("data");

    let mut children: Vec<_> = (0..3).map(|i| selfplay(&config, &out, i, false).spawn().unwrap()).collect();
    // Kill shard 1 once it has checkpointed two games (it checkpoints after every game), long
    // before it can finish its 40.
    let checkpoint = out.join("shard-00001").join("checkpoint.json");
    let started = Instant::now();
    let mut killed = false;
    while started.elapsed() < Duration::from_secs(120) {
        let text = std::fs::read_to_string(&checkpoint).unwrap_or_default();
        let done =
            text.lines().find_map(|l| l.trim().strip_prefix("\"games_done\": ")).map(|v| v.trim_end_matches(','));
        if done.is_some_and(|n| n.parse::<u32>().is_ok_and(|n| n >= 2)) {
            children[1].kill().unwrap();
            killed = true;
            break;
        }
        if out.join("shard-00001").join("manifest.json").exists() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    for (i, child) in children.into_iter().enumerate() {
        let output = child.wait_with_output().unwrap();
        if i != 1 {
            assert!(output.status.success(), "shard {i}: {}", String::from_utf8_lossy(&output.stderr));
        }
    }
    assert!(killed, "shard 1 finished before it could be killed; make the test's shards longer");
    assert!(!out.join("shard-00001").join("manifest.json").exists());

    // The retried index resumes from its checkpoint.
    let output = selfplay(&config, &out, 1, true).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8_lossy(&output.stdout).contains("games 40"));

    // The same shard uninterrupted, as a Slurm array task (index and count from the
    // environment), writes the same games: the resume was exact (one thread per shard).
    let straight = dir.path().join("straight");
    let output = Command::new(ferz_binary())
        .args(["selfplay", "--config"])
        .arg(&config)
        .arg("--out")
        .arg(&straight)
        .env("SLURM_ARRAY_TASK_ID", "1")
        .env("SLURM_ARRAY_TASK_COUNT", "3")
        .env_remove("JOB_COMPLETION_INDEX")
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("index SLURM_ARRAY_TASK_ID, count SLURM_ARRAY_TASK_COUNT")
    );
    for name in ["chess.txt", "chess.marlin", "shatranj.txt", "shatranj.marlin"] {
        let resumed = std::fs::read(out.join("shard-00001").join(name)).unwrap();
        assert!(resumed == std::fs::read(straight.join("shard-00001").join(name)).unwrap(), "{name} differs");
    }

    let merged = dir.path().join("merged");
    let shards: Vec<String> = (0..3).map(|i| out.join(format!("shard-{i:05}")).display().to_string()).collect();
    let mut args = vec!["data", "merge", merged.to_str().unwrap()];
    args.extend(shards.iter().map(String::as_str));
    let output = run_ferz(&args);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("games 120"),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );

    // No duplicate game: every (shard, game) round appears once, 120 in all.
    let pgn = std::fs::read_to_string(merged.join("games.pgn")).unwrap();
    let rounds: Vec<&str> = pgn.lines().filter(|l| l.starts_with("[Round ")).collect();
    assert_eq!(rounds.len(), 120);
    assert_eq!(rounds.iter().collect::<HashSet<_>>().len(), 120);
    // No partial record: every line and every marlin record parses.
    for (name, variant) in [("chess", Variant::Chess), ("shatranj", Variant::Shatranj)] {
        let text = std::fs::read_to_string(merged.join(format!("{name}.txt"))).unwrap();
        assert!(text.ends_with('\n'));
        for line in text.lines() {
            let fen = line.split(" | ").next().unwrap();
            Position::from_fen(fen, variant).unwrap_or_else(|e| panic!("{line}: {e}"));
            assert_eq!(line.split(" | ").count(), 3, "{line}");
        }
        let marlin = std::fs::read(merged.join(format!("{name}.marlin"))).unwrap();
        assert_eq!(marlin.len() % MARLIN_SIZE, 0);
        assert_eq!(marlin.len() / MARLIN_SIZE, text.lines().count());
        for record in marlin.chunks_exact(MARLIN_SIZE) {
            assert_eq!(marlin::decode(record.try_into().unwrap()).unwrap().variant, variant);
        }
    }

    let output = run_ferz(&["data", "stats", merged.to_str().unwrap(), &shards[1]]);
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stdout).contains("(verified)"));
    let cache = out.join("shard-00000").join("opening-cache");
    let output = run_ferz(&["cache", "stats", cache.to_str().unwrap()]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8_lossy(&output.stdout).contains("chess:"), "{}", String::from_utf8_lossy(&output.stdout));
    let merged_cache = dir.path().join("cache-merged");
    let caches: Vec<String> =
        (0..3).map(|i| out.join(format!("shard-{i:05}")).join("opening-cache").display().to_string()).collect();
    let mut args = vec!["cache", "merge", merged_cache.to_str().unwrap()];
    args.extend(caches.iter().map(String::as_str));
    assert!(run_ferz(&args).status.success());
}

#[test]
fn bad_settings_fail_at_start_with_the_key_and_file() {
    let dir = TempDir::new("selfplay-bad");
    let config = dir.path().join("bad.toml");
    std::fs::write(&config, "[run]\ngamez = 3\n").unwrap();
    let output = run_ferz(&["selfplay", "--config", config.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("gamez") && err.contains("bad.toml"), "{err}");

    std::fs::write(&config, "[variants]\nchess = 0\n").unwrap();
    let output = run_ferz(&["selfplay", "--config", config.to_str().unwrap()]);
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("variants"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );

    let output =
        run_ferz(&["selfplay", "--config", config.to_str().unwrap(), "--shard-index", "3", "--shard-count", "2"]);
    assert_eq!(output.status.code(), Some(1));
    // Two schedulers' index variables that disagree are refused, naming both.
    std::fs::write(&config, "[run]\ngames = 1\n").unwrap();
    let output = Command::new(ferz_binary())
        .args(["selfplay", "--config", config.to_str().unwrap()])
        .env("JOB_COMPLETION_INDEX", "0")
        .env("SLURM_ARRAY_TASK_ID", "1")
        .env("SLURM_ARRAY_TASK_COUNT", "2")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("JOB_COMPLETION_INDEX=0") && err.contains("SLURM_ARRAY_TASK_ID=1"), "{err}");
    let output = run_ferz(&["data", "stats", dir.path().to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("manifest.json"));
}

/// Rewrites a data file of a shard and records its new checksum in the manifest, as someone
/// who damaged the file and "repaired" the manifest would: the bytes then verify, and only the
/// meaning checks can tell.
fn tamper(shard: &Path, name: &str, edit: impl FnOnce(&mut Vec<u8>)) {
    let path = shard.join(name);
    let mut bytes = std::fs::read(&path).unwrap();
    edit(&mut bytes);
    std::fs::write(&path, &bytes).unwrap();
    let (sha, size) = ferz_dataset::manifest::sha256_file(&path).unwrap();
    let manifest = shard.join("manifest.json");
    let mut json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    let entry = json["files"].as_array_mut().unwrap().iter_mut().find(|f| f["name"] == name).unwrap();
    entry["sha256"] = sha.into();
    entry["bytes"] = size.into();
    std::fs::write(&manifest, serde_json::to_string_pretty(&json).unwrap()).unwrap();
}

#[test]
fn datasets_are_checked_for_meaning_not_only_bytes() {
    let dir = TempDir::new("dataset-meaning");
    let config = dir.path().join("selfplay.toml");
    std::fs::write(
        &config,
        "[run]\ngames = 4\nthreads = 1\nseed = 5\n[search]\nnodes = 300\nhash_mb = 2\n\
         [opening]\nmultipv_plies = 0\nrandom_plies = 4\n[adjudication]\nmax_plies = 60\n",
    )
    .unwrap();
    let out = dir.path().join("data");
    let output = run_ferz(&["selfplay", "--config", config.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let pristine = out.join("shard-00000");
    let copy = |name: &str| {
        let to = dir.path().join(name);
        std::fs::create_dir_all(&to).unwrap();
        for entry in std::fs::read_dir(&pristine).unwrap().flatten() {
            if entry.file_type().unwrap().is_file() {
                std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
            }
        }
        to
    };
    let refused = |shard: &Path, expected: &[&str]| {
        let shard = shard.to_str().unwrap();
        let merged = dir.path().join("merged");
        for args in [vec!["data", "stats", shard], vec!["data", "merge", merged.to_str().unwrap(), shard]] {
            let output = run_ferz(&args);
            let err = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(1), "{args:?} accepted it: {err}");
            for word in expected {
                assert!(err.contains(word), "{args:?}: {word:?} missing from {err}");
            }
            assert!(!merged.join("manifest.json").exists());
        }
    };
    assert!(run_ferz(&["data", "stats", pristine.to_str().unwrap()]).status.success());

    // The game count edited in the manifest: the totals and the PGN disagree with it.
    let games = copy("games-edited");
    let manifest = games.join("manifest.json");
    let text = std::fs::read_to_string(&manifest).unwrap().replacen("\"games\": 4", "\"games\": 5", 1);
    std::fs::write(&manifest, text).unwrap();
    refused(&games, &["manifest.json", "5 games"]);

    // A record's variant byte made impossible, its checksum recomputed.
    let variant = copy("variant-byte");
    tamper(&variant, "chess.marlin", |bytes| bytes[32 + 31] = 7);
    refused(&variant, &["chess.marlin", "record 1", "byte 31 is 7"]);

    // A chess record relabelled as Shatranj: decodable, but not of its file's variant.
    let relabelled = copy("relabelled");
    tamper(&relabelled, "chess.marlin", |bytes| bytes[31] = 2);
    refused(&relabelled, &["chess.marlin", "record 0"]);

    // A record cut off the end, checksum recomputed: the count no longer matches.
    let short = copy("short");
    tamper(&short, "chess.marlin", |bytes| bytes.truncate(bytes.len() - MARLIN_SIZE));
    refused(&short, &["chess.marlin", "records, the manifest says"]);

    // A text record damaged.
    let text = copy("text");
    tamper(&text, "chess.txt", |bytes| {
        let at = bytes.iter().position(|&b| b == b'|').unwrap();
        bytes[at] = b'#';
    });
    refused(&text, &["chess.txt", "line 1"]);

    // The trainer refuses the edited manifest too.
    let output = run_ferz(&["train", games.to_str().unwrap(), "--out", dir.path().join("net").to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("5 games"), "{}", String::from_utf8_lossy(&output.stderr));
}
