//! `ferz loop` as a process: two tiny generations, killed (SIGKILL) in every stage and run
//! again each time, end exactly as an unbroken run does; a finished loop run again changes
//! nothing; a loop refuses another net, seed or start, and takes a changed recipe from the next
//! generation on (a grown net at a fixed-node gate is told what the gate cannot see).

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Output};

use ferz_tests::{TempDir, ferz_binary};

/// The settings of two tiny generations, shared with scripts/loop-e2e.sh and slurm-e2e.sh.
fn settings() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("data/loop/tiny.toml")).unwrap()
}

fn run_loop(dir: &Path, config: &Path, kill_at: Option<&str>) -> Output {
    let mut command = Command::new(ferz_binary());
    command.arg("loop").arg(dir).arg("--config").arg(config);
    run_killed_at(&mut command, kill_at)
}

/// Runs `command`, killed at the fault point `kill_at` (`FERZ_LOOP_KILL_AT`) or never.
fn run_killed_at(command: &mut Command, kill_at: Option<&str>) -> Output {
    match kill_at {
        Some(point) => command.env("FERZ_LOOP_KILL_AT", point),
        None => command.env_remove("FERZ_LOOP_KILL_AT"),
    };
    command.output().unwrap()
}

fn ledger(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("ledger.json")).unwrap()).unwrap()
}

/// A generation's record without what two runs in other directories cannot share: stage times,
/// and the hashes of the shard manifests and of the training record, which hold the directory's
/// paths and the seconds played. The merged dataset's manifest (every data file's SHA-256) and
/// the candidate net's hash stay: those must be equal bit for bit.
fn comparable(generation: &serde_json::Value) -> serde_json::Value {
    let mut g = rounded(generation);
    g.as_object_mut().unwrap().remove("stages");
    g["data"].as_object_mut().unwrap().remove("shard_manifests");
    g["train"].as_object_mut().unwrap().remove("run_record");
    g
}

/// Floats to nine significant digits: a resumed gate sums the same games in another order, so
/// its statistics equal the unbroken run's to the last bits, not in them.
fn rounded(value: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::Number(n) if n.is_f64() => {
            let x = n.as_f64().unwrap();
            serde_json::json!(format!("{x:.9e}").parse::<f64>().unwrap())
        }
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), rounded(v))).collect()),
        Value::Array(items) => Value::Array(items.iter().map(rounded).collect()),
        other => other.clone(),
    }
}

#[test]
fn a_loop_killed_in_every_stage_ends_as_an_unbroken_one() {
    let tmp = TempDir::new("loop-kill");
    let config = tmp.path().join("loop.toml");
    std::fs::write(&config, settings()).unwrap();

    let unbroken = tmp.path().join("unbroken");
    let output = run_loop(&unbroken, &config, None);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let reference = ledger(&unbroken);
    let generations = reference["generations"].as_array().unwrap();
    assert_eq!(generations.len(), 2);
    assert!(generations.iter().all(|g| g["promoted"] == true), "{reference:#}");

    // Generation 1 is killed in each of its stages, generation 2 in each again.
    let killed = tmp.path().join("killed");
    let points = ["selfplay:3", "merge:1", "train:1", "scale:1", "gate:3", "promote:1", "ledger:1"];
    let mut kills = 0;
    for point in points.iter().chain(&points) {
        let output = run_loop(&killed, &config, Some(point));
        let stderr = String::from_utf8_lossy(&output.stderr);
        match output.status.signal() {
            Some(9 | 6) => {
                assert!(stderr.contains(&format!("FERZ_LOOP_KILL_AT={point}")), "{stderr}");
                kills += 1;
            }
            _ => panic!("{point}: the run was not killed ({:?}): {stderr}", output.status),
        }
    }
    assert_eq!(kills, 14);
    // Killed after generation 2's promotion, before its ledger record: `status` shows it in
    // progress with every stage done.
    let output = Command::new(ferz_binary()).args(["loop", "status"]).arg(&killed).output().unwrap();
    let status = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let positions: u64 = (0..2)
        .map(|i| {
            let manifest = killed.join(format!("gen-0002/selfplay/shard-{i:05}/manifest.json"));
            let manifest: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(manifest).unwrap()).unwrap();
            manifest["tally"]["positions_by_variant"]
                .as_object()
                .unwrap()
                .values()
                .map(|n| n.as_u64().unwrap())
                .sum::<u64>()
        })
        .sum();
    assert!(positions > 0);
    for line in [
        "1 generation finished, 1 promoted; the best net: generation 1 (best/gen-0001.nnue)",
        &format!("generation 2: selfplay 2 of 2 shards complete, 12 of 12 games, {positions} positions ("),
        "generation 2: train 2 of 2 epochs",
        "generation 2: gate decided after",
    ] {
        assert!(status.contains(line), "{line}: {status}");
    }
    let output = Command::new(ferz_binary()).args(["loop", "status"]).arg(tmp.path()).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("not a loop directory"));
    let output = run_loop(&killed, &config, None);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));

    let resumed = ledger(&killed);
    for (a, b) in generations.iter().zip(resumed["generations"].as_array().unwrap()) {
        assert_eq!(comparable(a), comparable(b), "a killed generation differs from the unbroken one");
        for stage in ["selfplay", "merge", "train", "gate", "promote"] {
            assert!(b["stages"][stage]["wall_seconds"].as_f64().unwrap() > 0.0, "{stage} has no time: {b:#}");
        }
    }
    for name in ["gen-0000.nnue", "gen-0001.nnue", "gen-0002.nnue"] {
        let a = std::fs::read(unbroken.join("best").join(name)).unwrap();
        assert!(a == std::fs::read(killed.join("best").join(name)).unwrap(), "best/{name} differs");
    }
    assert!(!killed.join("gen-0001").join("data.part").exists());
    let report = std::fs::read_to_string(killed.join("report.md")).unwrap();
    assert!(report.contains("2 generations finished, 2 promoted"), "{report}");
    assert!(report.contains("Every generation was made with the first one's recipe."), "{report}");
    let html = std::fs::read_to_string(killed.join("report.html")).unwrap();
    assert_eq!(html.matches("<svg").count(), 3, "three plots");

    // A finished loop run again changes nothing.
    let before = std::fs::read(killed.join("ledger.json")).unwrap();
    let output = run_loop(&killed, &config, None);
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stdout).contains("2 generations finished"));
    assert!(std::fs::read(killed.join("ledger.json")).unwrap() == before);

    // Other settings are refused, naming the key; more generations are allowed.
    std::fs::write(&config, settings().replace("seed = 7", "seed = 8")).unwrap();
    let output = run_loop(&killed, &config, None);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("loop.seed") && stderr.contains("ledger.json"), "{stderr}");

    // The recipe may change between generations: generation 3 begins with 4 games a shard and
    // is killed in its self-play; run again with 8, it goes on with the 4 it began with. Its
    // training has not begun, so it takes the new run's epochs (3 for 2).
    let third = settings().replace("generations = 2", "generations = 3");
    std::fs::write(&config, third.replace("\ngames = 6\n", "\ngames = 4\n")).unwrap();
    let output = run_loop(&killed, &config, Some("selfplay:2"));
    assert!(matches!(output.status.signal(), Some(9 | 6)), "{}", String::from_utf8_lossy(&output.stderr));
    let third = third.replace("\nepochs = 2\n", "\nepochs = 3\n");
    std::fs::write(&config, third.replace("\ngames = 6\n", "\ngames = 8\n")).unwrap();
    let output = run_loop(&killed, &config, None);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("generation 3: goes on with the settings it began with (selfplay.games = 4); selfplay.games = 8 applies from generation 4"),
        "{stderr}"
    );
    assert!(stderr.contains("generation 3: train.epochs = 3 (was 2): the stage it shapes has not begun"), "{stderr}");
    let after = ledger(&killed);
    let games: Vec<_> =
        after["generations"].as_array().unwrap().iter().map(|g| g["recipe"]["selfplay"]["games"].clone()).collect();
    assert_eq!(games, [6, 6, 4]);
    assert_eq!(after["generations"][2]["recipe"]["train"]["epochs"], 3);
    assert_eq!(after["generations"][2]["train"]["epochs"].as_array().unwrap().len(), 3);
    assert_eq!(after["generations"][2]["data"]["games"], 8, "2 shards of 4 games");
    assert_eq!(after["settings"]["selfplay"]["games"], 8, "the newest run's settings");
    let report = std::fs::read_to_string(killed.join("report.md")).unwrap();
    assert!(report.contains("- generation 3: selfplay.games = 4 (was 6), train.epochs = 3 (was 2)\n"), "{report}");

    // A ledger of the format before recipes (every generation made with the ledger's settings)
    // is read, and written back with each generation's recipe.
    let mut old = after.clone();
    old["format"] = "ferz-loop-ledger/1".into();
    old["settings"] = after["generations"][0]["recipe"].clone();
    old["settings"]["loop"] = after["settings"]["loop"].clone();
    old.as_object_mut().unwrap().remove("start_net");
    for g in old["generations"].as_array_mut().unwrap() {
        g.as_object_mut().unwrap().remove("recipe");
    }
    std::fs::write(killed.join("ledger.json"), serde_json::to_string(&old).unwrap()).unwrap();
    std::fs::write(&config, third.replace("generations = 3", "generations = 1")).unwrap();
    let output = run_loop(&killed, &config, None);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let upgraded = ledger(&killed);
    assert_eq!(upgraded["format"], "ferz-loop-ledger/3");
    assert_eq!(upgraded["generations"][2]["recipe"], after["generations"][0]["recipe"]);
    // Generation 0's net, pinned when the loop began, is pinned again from its file.
    assert_eq!(upgraded["start_net"], after["start_net"]);
    let (start_sha, _) = ferz_dataset::manifest::sha256_file(&killed.join("best").join("gen-0000.nnue")).unwrap();
    assert_eq!(upgraded["start_net"], start_sha.as_str());

    // A grown net, trained from scratch, at a fixed-node gate: the gate says what it cannot see.
    let grown = third
        .replace("generations = 3", "generations = 4")
        .replace("[train]\n", "[train]\ninit = \"scratch\"\nhidden = 32\n");
    std::fs::write(&config, grown).unwrap();
    let output = run_loop(&killed, &config, None);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("generation 4: gate candidate vs gen 3; the candidate has 32 hidden neurons, gen 3 256")
            && stderr.contains("(gate.nodes = 0 plays on the clock)"),
        "{stderr}"
    );
}

/// What the repository keeps of a loop (`ledger.json` and the promoted nets; docs/loops/) is
/// enough to go on: the data of the generations a candidate trains on is played again from the
/// ledger, exactly as it was (the merged dataset's SHA-256 is the ledger's), with the search
/// parameters it was played with although the settings' have changed since, as a build's tuned
/// defaults do, and a parameter its build did not have at the value from before it; data that
/// comes out otherwise than the ledger records stops the loop, naming both hashes and the way
/// out.
#[test]
fn a_loop_whose_data_is_gone_plays_it_again_from_the_ledger() {
    let tmp = TempDir::new("loop-regenerate");
    let config = tmp.path().join("loop.toml");
    // LMR_TT_CAPTURE = 0 plays the search from before that parameter existed: the records kept
    // below leave it out, as a build from before it wrote them, and must play again the same.
    let tuned = "\n[selfplay.params]\nLMR_BASE = 130\nnmp_base_reduction = 5\nLMR_TT_CAPTURE = 0\n";
    std::fs::write(&config, settings() + tuned).unwrap();
    let full = tmp.path().join("full");
    let output = run_loop(&full, &config, None);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let recorded = ledger(&full);
    let params = &recorded["generations"][0]["recipe"]["selfplay"]["params"];
    let listed = String::from_utf8(Command::new(ferz_binary()).args(["spsa", "params"]).output().unwrap().stdout);
    assert_eq!(params.as_object().unwrap().len(), listed.unwrap().lines().count(), "every parameter: {params}");
    assert_eq!((&params["LMR_BASE"], &params["NMP_BASE_REDUCTION"]), (&130.into(), &5.into()));
    let gate_params = std::fs::read_to_string(full.join("gen-0001").join("search.params")).unwrap();
    assert!(gate_params.contains("\nLMR_BASE = 130\n") && gate_params.contains("\nNMP_BASE_REDUCTION = 5\n"));

    let keep = |name: &str, ledger: &serde_json::Value| {
        let kept = tmp.path().join(name);
        std::fs::create_dir_all(kept.join("best")).unwrap();
        std::fs::write(kept.join("ledger.json"), serde_json::to_string(ledger).unwrap()).unwrap();
        for net in ["gen-0001.nnue", "gen-0002.nnue"] {
            std::fs::copy(full.join("best").join(net), kept.join("best").join(net)).unwrap();
        }
        kept
    };
    let mut from_before = recorded.clone();
    for generation in from_before["generations"].as_array_mut().unwrap() {
        generation["recipe"]["selfplay"]["params"].as_object_mut().unwrap().remove("LMR_TT_CAPTURE").unwrap();
    }
    let kept = keep("kept", &from_before);
    let mut wrong = recorded.clone();
    wrong["generations"][0]["data"]["dataset_manifest"] = "0".repeat(64).into();
    let tampered = keep("tampered", &wrong);

    std::fs::write(&config, settings().replace("generations = 2", "generations = 3")).unwrap();
    let output = run_loop(&kept, &config, None);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    for g in ["gen-0001", "gen-0002"] {
        assert!(stderr.contains(&format!("{g}/data is gone: playing it again from the ledger")), "{stderr}");
    }
    let after = ledger(&kept);
    for (g, record) in recorded["generations"].as_array().unwrap().iter().enumerate() {
        let manifest = kept.join(format!("gen-{:04}", g + 1)).join("data").join("manifest.json");
        let (sha, _) = ferz_dataset::manifest::sha256_file(&manifest).unwrap();
        assert_eq!(record["data"]["dataset_manifest"], sha.as_str(), "generation {} differs", g + 1);
    }
    assert_eq!(after["generations"].as_array().unwrap().len(), 3);
    assert_eq!(after["generations"][2]["train"]["data_generations"], serde_json::json!([1, 2, 3]));
    let third = &after["generations"][2]["recipe"]["selfplay"]["params"];
    assert_ne!(third["LMR_BASE"], 130, "generation 3 plays with this run's (the build's) values");

    // With `train.window = "best"` generation 3 trains on generations 2-3 (generation 2 made the
    // best net): generation 2's data is played again, generation 1's is not needed.
    let from_best = keep("from-best", &recorded);
    let best_config = tmp.path().join("from-best.toml");
    let window_best =
        settings().replace("generations = 2", "generations = 3").replace("[train]\n", "[train]\nwindow = \"best\"\n");
    std::fs::write(&best_config, window_best).unwrap();
    let output = run_loop(&from_best, &best_config, None);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("gen-0002/data is gone") && !stderr.contains("gen-0001/data is gone"), "{stderr}");
    let third = &ledger(&from_best)["generations"][2];
    assert_eq!(
        (&third["train"]["data_generations"], &third["recipe"]["train"]["window"]),
        (&serde_json::json!([2, 3]), &"best".into())
    );
    assert!(!from_best.join("gen-0001").join("data").exists());

    let output = run_loop(&tampered, &config, None);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("generation 1's data, played again, is not the data the ledger records")
            && stderr.contains(&"0".repeat(64))
            && stderr.contains("train.window"),
        "{stderr}"
    );
    assert!(!tampered.join("gen-0001").join("data").exists(), "data the ledger does not describe was kept");
    assert_eq!(ledger(&tampered)["generations"].as_array().unwrap().len(), 2);
}

#[test]
fn bad_loop_settings_fail_at_start_with_the_key() {
    let tmp = TempDir::new("loop-bad");
    let config = tmp.path().join("loop.toml");
    for (text, key) in [
        ("[gate]\ntc = \"fast\"\n", "gate.tc"),
        ("[selfplay]\nshards = 0\n", "selfplay.shards"),
        ("[train]\nwindoww = 2\n", "windoww"),
        ("[loop]\nnet = \"xiangqi\"\n", "xiangqi"),
        ("[selfplay.params]\nNO_SUCH = 3\n", "selfplay.params.NO_SUCH = 3: not a search parameter"),
        (
            "[selfplay.params]\nLMR_BASE = 100000\n",
            "selfplay.params.LMR_BASE = 100000: 100000 is outside LMR_BASE's range",
        ),
    ] {
        std::fs::write(&config, text).unwrap();
        let output = run_loop(&tmp.path().join("dir"), &config, None);
        assert_eq!(output.status.code(), Some(1), "{text}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(key), "{text}: {stderr}");
        assert!(!tmp.path().join("dir").join("ledger.json").exists(), "{text}: a ledger was written");
    }
}

/// `ferz loop gate` plays a net made outside the loop as the loop's own gate plays its
/// candidate: given the candidate of a generation whose gate has begun, it reaches the loop's
/// verdict over the same games, and leaves the loop's directory as it was. Run again, it plays
/// nothing; its directory is not reused for another gate; a file that is not a net of the loop's
/// variant, and a directory without a loop, are refused with their names.
#[test]
fn a_net_from_outside_is_gated_as_the_loop_gates_its_candidates() {
    let tmp = TempDir::new("loop-gate");
    let config = tmp.path().join("loop.toml");
    std::fs::write(&config, settings()).unwrap();
    let dir = tmp.path().join("loop");
    let output = run_loop(&dir, &config, Some("gate:1"));
    assert!(matches!(output.status.signal(), Some(9 | 6)), "{}", String::from_utf8_lossy(&output.stderr));
    let net = tmp.path().join("by-hand.nnue");
    std::fs::copy(dir.join("gen-0001/train/net.nnue"), &net).unwrap();
    let loop_files = || {
        ["ledger.json", "gen-0001/gate/games.pgn", "gen-0001/recipe.json"].map(|f| std::fs::read(dir.join(f)).unwrap())
    };
    let before = loop_files();

    let out = tmp.path().join("gate");
    let gate_killed_at = |net: &Path, dir: &Path, out: &Path, kill_at: Option<&str>| {
        run_killed_at(
            Command::new(ferz_binary()).args(["loop", "gate"]).arg(dir).arg(net).arg("--out").arg(out),
            kill_at,
        )
    };
    let gate_into = |net: &Path, dir: &Path, out: &Path| gate_killed_at(net, dir, out, None);
    let gate = |net: &Path, dir: &Path| gate_into(net, dir, &out);
    let output = gate(&net, &dir);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("generation 1's gate") && stdout.contains("Elo over"), "{stdout}");
    assert!(loop_files() == before, "the loop's directory changed");
    let pgn = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    assert!(pgn.contains("[White \"by-hand\"]") || pgn.contains("[Black \"by-hand\"]"), "{pgn}");
    let verdict: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("verdict.json")).unwrap()).unwrap();

    let again = gate(&net, &dir);
    assert!(again.status.success());
    assert_eq!(String::from_utf8_lossy(&again.stdout), stdout, "run again, it reports the verdict it wrote");
    assert_eq!(std::fs::read_to_string(out.join("games.pgn")).unwrap(), pgn, "run again, it played more");

    // The loop finishes its own gate of the same net: the same games, the same verdict.
    let output = run_loop(&dir, &config, None);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(rounded(&verdict), rounded(&ledger(&dir)["generations"][0]["gate"]));

    // The loop has moved on: the directory still answers with its verdict for that net, and
    // refuses a gate of another one.
    let after = gate(&net, &dir);
    assert!(after.status.success(), "{}", String::from_utf8_lossy(&after.stderr));
    assert_eq!(String::from_utf8_lossy(&after.stdout), stdout);
    let output = gate(&dir.join("best/gen-0000.nnue"), &dir);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("gate.json") && stderr.contains("give another --out"), "{stderr}");

    // A gate begun with other gate settings (a recipe's `[gate]` may change until the
    // generation's own gate begins) is not continued with these: the error names the setting.
    let unfinished = tmp.path().join("unfinished");
    let output = gate_killed_at(&net, &dir, &unfinished, Some("gate:1"));
    assert!(matches!(output.status.signal(), Some(9 | 6)), "{}", String::from_utf8_lossy(&output.stderr));
    let record = std::fs::read_to_string(unfinished.join("gate.json")).unwrap();
    assert!(record.contains("\"nodes\": 300"), "{record}");
    std::fs::write(unfinished.join("gate.json"), record.replace("\"nodes\": 300", "\"nodes\": 301")).unwrap();
    let output = gate_into(&net, &dir, &unfinished);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("with gate.nodes = 301; the recipe now says 300"), "{stderr}");
    std::fs::write(unfinished.join("gate.json"), record).unwrap();
    let output = gate_into(&net, &dir, &unfinished);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));

    // A directory with a gate this command did not begin (the generation's own) is refused.
    let own_gate = dir.join("gen-0001/gate");
    let verdict_before = std::fs::read(own_gate.join("verdict.json")).unwrap();
    let output = gate_into(&net, &dir, &own_gate);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("gen-0001/gate") && stderr.contains("no gate.json"), "{stderr}");
    assert!(std::fs::read(own_gate.join("verdict.json")).unwrap() == verdict_before);
    assert!(!own_gate.join("gate.json").exists());

    let junk = tmp.path().join("junk.nnue");
    std::fs::write(&junk, b"not a net").unwrap();
    let shatranj = Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/nnue/nets/shatranj.nnue");
    std::fs::remove_dir_all(&out).unwrap();
    for (net, dir, named) in [
        (&junk, &dir, "junk.nnue"),
        (&shatranj, &dir, "shatranj.nnue"),
        (&tmp.path().join("missing.nnue"), &dir, "missing.nnue"),
        (&net, &tmp.path().to_path_buf(), "not a loop directory"),
    ] {
        let output = gate(net, dir);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{named}: {stderr}");
        assert!(stderr.contains(named), "{named}: {stderr}");
        assert!(!out.join("verdict.json").exists(), "{named}: a verdict was written");
    }
}

/// `ferz loop train-config` prints a generation's training settings as the TOML `ferz train`
/// reads: trained with them, the loop's candidate comes out again bit for bit. A generation the
/// loop has not reached is refused.
#[test]
fn a_candidates_training_settings_train_it_again() {
    let tmp = TempDir::new("loop-train-config");
    let config = tmp.path().join("loop.toml");
    std::fs::write(&config, settings()).unwrap();
    let dir = tmp.path().join("loop");
    let output = run_loop(&dir, &config, None);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let train_config = |generation: &str| {
        Command::new(ferz_binary())
            .args(["loop", "train-config"])
            .arg(&dir)
            .args(["--generation", generation])
            .output()
            .unwrap()
    };
    let output = train_config("2");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let settings_file = tmp.path().join("train.toml");
    std::fs::write(&settings_file, &output.stdout).unwrap();
    let again = tmp.path().join("again");
    let output = Command::new(ferz_binary())
        .arg("train")
        .arg("--config")
        .arg(&settings_file)
        .arg("--out")
        .arg(&again)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let candidate = std::fs::read(dir.join("gen-0002/train/net.nnue")).unwrap();
    assert!(std::fs::read(again.join("net.nnue")).unwrap() == candidate, "another net than the loop's candidate");

    // TOML's integers are signed: a seed above i64::MAX is written, and read, as digits.
    let text = String::from_utf8(std::fs::read(&settings_file).unwrap()).unwrap();
    let seed_line = text.lines().find(|line| line.starts_with("seed = ")).unwrap().to_owned();
    // Generation 2's seed is above i64::MAX: the retraining above read it as digits.
    assert!(seed_line.starts_with("seed = \""), "{seed_line}");
    for (seed, accepted) in
        [("\"18446744073709551615\"", true), ("\"18446744073709551616\"", false), ("\"12x\"", false)]
    {
        std::fs::write(&settings_file, text.replace(&seed_line, &format!("seed = {seed}"))).unwrap();
        let output = Command::new(ferz_binary())
            .arg("train")
            .arg("--config")
            .arg(&settings_file)
            .args(["--epochs", "1", "--out"])
            .arg(tmp.path().join("big-seed"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.success(), accepted, "{seed}: {stderr}");
        if !accepted {
            assert!(stderr.contains("data.seed") && stderr.contains("is not a whole number"), "{seed}: {stderr}");
        }
    }

    let output = train_config("4");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no generation 4: the loop has finished 2 and the next is 3"), "{stderr}");
}
