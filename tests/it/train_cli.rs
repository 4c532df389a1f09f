//! `ferz train` as a process: a shard from `ferz selfplay`, a short run, the refusal to overwrite
//! it, a resume of the finished run, and settings errors that name the key.

use ferz_tests::{TempDir, run_ferz};

const SELFPLAY: &str = r#"
[run]
games = 30
threads = 2
seed = 3

[variants]
chess = 1
chess960 = 1

[search]
nodes = 300
hash_mb = 1

[opening]
multipv_plies = 0
random_plies = 6

[adjudication]
win_cp = 700
win_plies = 4

[filter]
min_ply = 6

[cache]
enabled = false
"#;

#[test]
fn trains_a_net_on_a_selfplay_shard() {
    let dir = TempDir::new("train");
    let settings = dir.path().join("selfplay.toml");
    std::fs::write(&settings, SELFPLAY).unwrap();
    let data = dir.path().join("data");
    let out = run_ferz(&["selfplay", "--config", settings.to_str().unwrap(), "--out", data.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let shard = data.join("shard-00000");
    let run = dir.path().join("run");
    let args = [
        "train",
        shard.to_str().unwrap(),
        "--out",
        run.to_str().unwrap(),
        "--epochs",
        "2",
        "--hidden",
        "8",
        "--batch-size",
        "256",
        "--threads",
        "2",
    ];
    let out = run_ferz(&args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("epoch 0: validation loss") && stdout.contains("epoch 2: train loss"), "{stdout}");
    let net = std::fs::read(run.join("net.nnue")).unwrap();
    assert_eq!(&net[..8], b"FERZNNUE");
    assert_eq!(net.len(), 32 + 2 * 768 * 8 + 2 * 8 + 4 * 8 + 4 + 4);
    assert_eq!(std::fs::read_to_string(run.join("loss.csv")).unwrap().lines().count(), 4);

    // The same command again refuses to overwrite the run; --resume of a finished run only
    // rewrites the net.
    let out = run_ferz(&args);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--resume"));
    let mut resume = args.to_vec();
    resume.push("--resume");
    let out = run_ferz(&resume);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read(run.join("net.nnue")).unwrap(), net);

    // run.json names the data (the shard's manifest hash), the settings and the net written.
    let record: serde_json::Value = serde_json::from_slice(&std::fs::read(run.join("run.json")).unwrap()).unwrap();
    assert_eq!(record["settings"]["train"]["batch_size"], 256);
    assert_eq!(record["net"]["epochs"], 2);
    assert_eq!(record["net"]["sha256"].as_str().unwrap().len(), 64);
    assert_eq!(record["inputs"][0]["manifest_sha256"].as_str().unwrap().len(), 64);
    // A resume with another batch size would not continue the run: refused, naming the key.
    let mut other = resume.clone();
    let batch_size = other.iter().position(|a| *a == "256").unwrap();
    other[batch_size] = "128";
    let out = run_ferz(&other);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("run.json") && stderr.contains("train.batch_size = 256"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(run.join("net.nnue")).unwrap(), net);

    // A net of four king buckets: not from the plain net (a net keeps its input layout), from
    // random weights; its file says so, and the engine searches with it.
    let king4 = dir.path().join("run-king4");
    let mut args = args.to_vec();
    args[3] = king4.to_str().unwrap();
    args.extend(["--input-layout", "king4"]);
    let mut from_plain = args.clone();
    let plain_net = run.join("net.nnue");
    from_plain.extend(["--init", plain_net.to_str().unwrap()]);
    let out = run_ferz(&from_plain);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("net.input_layout") && stderr.contains("plain"), "{stderr}");
    let out = run_ferz(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("net 3072->8x2->1 (king4 inputs)"), "{stderr}");
    let net = std::fs::read(king4.join("net.nnue")).unwrap();
    assert_eq!(net[23], 2);
    assert_eq!(net.len(), 32 + 2 * 4 * 768 * 8 + 2 * 8 + 4 * 8 + 4 + 4);
    let net_path = king4.join("net.nnue");
    let out = run_ferz(&["bench", "6", "--eval-file", net_path.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && stderr.contains("hidden 8, king4 inputs"), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).trim_end().ends_with(" nps"));
}

#[test]
fn bad_settings_name_the_key() {
    let dir = TempDir::new("train-settings");
    let file = dir.path().join("train.toml");
    std::fs::write(&file, "[train]\nepochz = 3\n").unwrap();
    let out = run_ferz(&["train", "x", "--config", file.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr.contains("epochz") && stderr.contains("train.toml"), "{stderr}");
    std::fs::write(&file, "[net]\ninput_layout = \"king8\"\n").unwrap();
    let out = run_ferz(&["train", "x", "--config", file.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("king8") && stderr.contains("plain, mirrored, king4"), "{stderr}");
    let out = run_ferz(&["train", "x", "--input-layout", "king8"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("plain, mirrored, king4"), "{stderr}");
    let out = run_ferz(&["train", dir.path().join("missing").to_str().unwrap(), "--lambda", "2"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("train.lambda"));
    let out = run_ferz(&["train", dir.path().join("missing").to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("missing") && stderr.contains("manifest"), "{stderr}");
}
