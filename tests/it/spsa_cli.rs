//! `ferz spsa`: the real binary tunes a fake engine (a real process, `tests/fake_uci.rs`'s
//! `tunable` mode) whose games, arbitrated by `ferz match`'s machinery, go worse the farther
//! its two options are from a known optimum; a run killed with SIGKILL and resumed ends where
//! an uninterrupted one does; ferz lists and reads its own search parameters.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use ferz_tests::{TempDir, UciProcess, ferz_binary, run_ferz};

/// The optimum of the fake engine's options (`Alpha`, `Beta`).
const OPTIMUM: (f64, f64) = (40.0, -30.0);

/// Writes a settings file tuning the fake engine for `iterations` into `dir/run`.
fn settings(dir: &Path, iterations: u64) -> std::path::PathBuf {
    settings_for(dir, iterations, Path::new(env!("CARGO_BIN_EXE_fake-uci")))
}

/// [`settings`] with the fake engine at `engine`.
fn settings_for(dir: &Path, iterations: u64, engine: &Path) -> std::path::PathBuf {
    let params = dir.join("fake.spsa");
    std::fs::write(&params, "Alpha, int, 0, -100, 100, 8, 0.05\nBeta, int, 0, -100, 100, 8, 0.05\n").unwrap();
    let config = dir.join("spsa.toml");
    let text = format!(
        "[engine]\ncommand = \"uci:{} tunable\"\noptions = []\n\n[params]\nfile = \"{}\"\n\n\
         [spsa]\niterations = {iterations}\nseed = 7\n\n\
         [games]\ntc = \"\"\nnodes = 1\npairs_per_iteration = 4\nconcurrency = 2\nrandom_plies = 4\n\
         draw_adjudication = \"\"\nresign_adjudication = \"\"\n\n[output]\ndir = \"{}\"\n",
        engine.display(),
        params.display(),
        dir.join("run").display()
    );
    std::fs::write(&config, text).unwrap();
    config
}

/// The last row of the trajectory: `(Alpha, Beta)`.
fn final_values(dir: &Path) -> (f64, f64) {
    let csv = std::fs::read_to_string(dir.join("run/trajectory.csv")).unwrap();
    let last = csv.lines().last().unwrap();
    let fields: Vec<f64> = last.split(',').map(|f| f.parse().unwrap()).collect();
    (fields[4], fields[5])
}

fn distance((a, b): (f64, f64)) -> f64 {
    ((a - OPTIMUM.0).powi(2) + (b - OPTIMUM.1).powi(2)).sqrt()
}

fn spsa(config: &Path) -> (i32, String, String) {
    let output = run_ferz(&["spsa", "run", "--config", config.to_str().unwrap()]);
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (output.status.code().unwrap_or(-1), text(&output.stdout), text(&output.stderr))
}

#[test]
fn spsa_moves_a_fake_engine_toward_its_optimum() {
    let dir = TempDir::new("spsa-optimum");
    let config = settings(dir.path(), 60);
    let (code, stdout, stderr) = spsa(&config);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("Iteration 60/60") && stdout.contains("iterations/h"), "{stdout}");
    let start = distance((0.0, 0.0));
    let end = final_values(dir.path());
    assert!(distance(end) < start * 0.5, "from distance {start:.1} only to {end:?} ({:.1})", distance(end));
    let result = std::fs::read_to_string(dir.path().join("run/result.params")).unwrap();
    assert!(result.starts_with("# ferz spsa after 60 iterations of chess games at 1 node a move\n"), "{result}");
    assert!(result.contains(&format!("Alpha = {}", end.0.round())), "{result}");
    let svg = std::fs::read_to_string(dir.path().join("run/trajectory.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.matches("<polyline").count() == 2, "{svg}");
    // `status` reads the same state: the games, and each parameter's move, the furthest first.
    let run = dir.path().join("run");
    let status = run_ferz(&["spsa", "status", run.to_str().unwrap()]);
    let status = String::from_utf8_lossy(&status.stdout).into_owned();
    assert!(status.contains("60 of 60 iterations, 480 games"), "{status}");
    let changed = [end.0, end.1].iter().filter(|v| v.round() != 0.0).count();
    assert!(status.contains(&format!("result.params changes {changed} of 2 parameters")), "{status}");
    let moved = |name: &str| -> f64 {
        let line = status.lines().find(|l| l.starts_with(name)).unwrap_or_else(|| panic!("{name}: {status}"));
        line.split_whitespace().nth(3).unwrap().parse().unwrap()
    };
    assert!((moved("Alpha") - end.0).abs() <= 0.01 && (moved("Beta") - end.1).abs() <= 0.01, "{end:?} {status}");
    let result_column = |name: &str| status.lines().find(|l| l.starts_with(name)).unwrap().split_whitespace().nth(5);
    assert_eq!(result_column("Alpha"), Some(format!("{}", end.0.round())).as_deref(), "{status}");
    let furthest = if end.0.abs() >= end.1.abs() { "Alpha" } else { "Beta" };
    let first_row = status.lines().skip_while(|l| !l.starts_with("parameter")).nth(1).unwrap();
    assert!(first_row.starts_with(furthest), "{status}");
    assert!(status.contains(&format!("engine from iteration 1: {}", env!("CARGO_BIN_EXE_fake-uci"))), "{status}");
    let output = run_ferz(&["spsa", "status", dir.path().to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.code() == Some(1) && stderr.contains("no state.json"), "{stderr}");
    // A second run with the same settings finds the run finished and plays nothing.
    let (code, stdout, _) = spsa(&config);
    assert_eq!(code, 0);
    assert!(stdout.contains("after iteration 60") && !stdout.contains("Iteration "), "{stdout}");
}

#[test]
fn a_run_killed_and_resumed_equals_an_uninterrupted_one() {
    let whole = TempDir::new("spsa-whole");
    let (code, stdout, stderr) = spsa(&settings(whole.path(), 30));
    assert_eq!(code, 0, "{stdout}\n{stderr}");

    let killed = TempDir::new("spsa-killed");
    let config = settings(killed.path(), 30);
    let mut child = Command::new(ferz_binary())
        .args(["spsa", "run", "--config", config.to_str().unwrap()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kill it (SIGKILL) once the state holds a few iterations, as the state file says.
    let state = killed.path().join("run/state.json");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        let done = std::fs::read_to_string(&state).map(|s| s.matches("\"k\":").count()).unwrap_or(0);
        if done >= 8 {
            break;
        }
        assert!(child.try_wait().unwrap().is_none(), "the run ended before it was killed");
        assert!(std::time::Instant::now() < deadline, "no progress in the state file");
        std::thread::yield_now();
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let at_kill = std::fs::read_to_string(&state).unwrap().matches("\"k\":").count();
    assert!(at_kill < 30, "killed after the end");
    let (code, stdout, stderr) = spsa(&config);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains(&format!("after iteration {at_kill}")), "{stdout}");
    for file in ["state.json", "trajectory.csv", "result.params"] {
        let read = |dir: &TempDir| std::fs::read_to_string(dir.path().join("run").join(file)).unwrap();
        // The state names its params file, which differs between the two directories.
        let normalise = |text: String, dir: &TempDir| text.replace(&dir.path().display().to_string(), "DIR");
        assert_eq!(normalise(read(&whole), &whole), normalise(read(&killed), &killed), "{file} differs");
    }
}

#[test]
fn a_state_from_other_settings_is_refused() {
    let dir = TempDir::new("spsa-other");
    let config = settings(dir.path(), 2);
    assert_eq!(spsa(&config).0, 0);
    let text = std::fs::read_to_string(&config).unwrap().replace("seed = 7", "seed = 8");
    std::fs::write(&config, text).unwrap();
    let (code, _, stderr) = spsa(&config);
    assert_eq!(code, 1);
    assert!(stderr.contains("other settings") && stderr.contains("state.json"), "{stderr}");
    std::fs::write(&config, "[spsa]\niteratons = 3\n").unwrap();
    let (code, _, stderr) = spsa(&config);
    assert!(code == 1 && stderr.contains("iteratons"), "{stderr}");
}

/// A finished 4-iteration run on a copy of the fake engine, cut back to what a kill after
/// iteration 2 leaves; `edit` changes the state further. Returns the engine's copy, the settings
/// and the state file.
fn run_cut_after_two(dir: &Path, edit: impl FnOnce(&mut serde_json::Value)) -> (PathBuf, PathBuf, PathBuf) {
    let engine = dir.join("fake-uci");
    std::fs::copy(env!("CARGO_BIN_EXE_fake-uci"), &engine).unwrap();
    let config = settings_for(dir, 4, &engine);
    let (code, stdout, stderr) = spsa(&config);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let state_path = dir.join("run/state.json");
    let mut state: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&state_path).unwrap()).unwrap();
    state["iterations"].as_array_mut().unwrap().truncate(2);
    edit(&mut state);
    std::fs::write(&state_path, state.to_string()).unwrap();
    (engine, config, state_path)
}

fn engines(state_path: &Path) -> Vec<serde_json::Value> {
    let state: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(state_path).unwrap()).unwrap();
    state["engines"].as_array().cloned().unwrap_or_default()
}

#[test]
fn a_changed_engine_program_is_refused_unless_accepted() {
    let dir = TempDir::new("spsa-engine");
    let (engine, config, state_path) = run_cut_after_two(dir.path(), |_| ());
    let recorded = engines(&state_path);
    assert_eq!(recorded.len(), 1, "{recorded:?}");
    assert_eq!(recorded[0]["from_iteration"], 1);
    // A rebuilt engine: other bytes at the same path (an executable runs with bytes appended).
    let mut bytes = std::fs::read(&engine).unwrap();
    bytes.extend_from_slice(b"\0rebuilt");
    std::fs::write(&engine, bytes).unwrap();
    let before = std::fs::read_to_string(&state_path).unwrap();
    let (code, stdout, stderr) = spsa(&config);
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    assert!(
        stderr.contains("engine program changed")
            && stderr.contains("from iteration 1")
            && stderr.contains("--accept-engine-change"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&state_path).unwrap(), before, "a refused run changed its state");

    let output = run_ferz(&["spsa", "run", "--config", config.to_str().unwrap(), "--accept-engine-change"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("From iteration 3 on, the engine is"), "{stdout}");
    let recorded = engines(&state_path);
    assert_eq!(recorded.len(), 2, "{recorded:?}");
    assert_eq!(recorded[1]["from_iteration"], 3);
    assert_ne!(recorded[0]["sha256"], recorded[1]["sha256"]);
    let status = run_ferz(&["spsa", "status", dir.path().join("run").to_str().unwrap()]);
    let status = String::from_utf8_lossy(&status.stdout);
    assert!(status.contains("engine from iteration 1") && status.contains("engine from iteration 3"), "{status}");
    // A finished run plays nothing more, so another program at the path does not stop it.
    std::fs::copy(env!("CARGO_BIN_EXE_fake-uci"), &engine).unwrap();
    let (code, stdout, stderr) = spsa(&config);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert_eq!(engines(&state_path).len(), 2);
}

#[test]
fn a_state_without_its_engine_records_the_one_that_resumes_it() {
    let dir = TempDir::new("spsa-no-engine");
    let (_, config, state_path) = run_cut_after_two(dir.path(), |state| {
        state.as_object_mut().unwrap().remove("engines");
    });
    let (code, stdout, stderr) = spsa(&config);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("From iteration 3 on, the engine is"), "{stdout}");
    let recorded = engines(&state_path);
    assert_eq!(recorded.len(), 1, "{recorded:?}");
    assert_eq!(recorded[0]["from_iteration"], 3);
}

#[test]
fn ferz_lists_its_tunables_only_when_asked_and_reads_a_params_file() {
    let params = run_ferz(&["spsa", "params"]);
    let params = String::from_utf8(params.stdout).unwrap();
    let names: Vec<&str> = params.lines().map(|l| l.split(',').next().unwrap()).collect();
    assert!(names.len() > 30 && names.contains(&"RFP_MARGIN_PER_DEPTH"), "{params}");
    assert!(params.lines().all(|l| l.split(',').count() == 7), "{params}");
    // Shatranj's values, under the same names; an unknown variant is refused by name.
    let shatranj = String::from_utf8(run_ferz(&["spsa", "params", "--variant", "shatranj"]).stdout).unwrap();
    let shatranj_names: Vec<&str> = shatranj.lines().map(|l| l.split(',').next().unwrap()).collect();
    assert_eq!(shatranj_names, names);
    let unknown = run_ferz(&["spsa", "params", "--variant", "xiangqi"]);
    assert!(!unknown.status.success() && String::from_utf8_lossy(&unknown.stderr).contains("xiangqi"));

    let listing = |args: &[&str]| {
        let mut engine = UciProcess::start(args);
        engine.send("uci");
        engine.read_until(10, |l| l == "uciok")
    };
    let plain = listing(&[]);
    assert!(plain.iter().any(|l| l.starts_with("option name ParamsFile type string")), "{plain:?}");
    assert!(!plain.iter().any(|l| l.contains("RFP_MARGIN_PER_DEPTH")), "{plain:?}");
    let tuned = listing(&["uci", "--tune"]);
    for name in &names {
        assert!(tuned.iter().any(|l| l.starts_with(&format!("option name {name} type spin"))), "{name}: {tuned:?}");
    }

    // A params file changes the search, as the bench node count shows; a bad one is refused.
    let dir = TempDir::new("spsa-params");
    let file = dir.path().join("tuned.params");
    std::fs::write(&file, "# tuned\nLMR_BASE = 150\nRFP_MARGIN_PER_DEPTH = 40\n").unwrap();
    let nodes = |args: &[&str]| {
        let out = String::from_utf8(run_ferz(args).stdout).unwrap();
        out.lines().last().unwrap().split_whitespace().next().unwrap().to_owned()
    };
    let default = nodes(&["bench", "5"]);
    let with_file = nodes(&["bench", "5", "--params", file.to_str().unwrap()]);
    assert_ne!(default, with_file);
    let mut engine = UciProcess::start(&[]);
    engine.send(&format!("setoption name ParamsFile value {}", file.display()));
    engine.send("isready");
    let lines = engine.read_until(10, |l| l == "readyok");
    assert!(lines.iter().any(|l| l.contains("set 2 search parameters")), "{lines:?}");
    std::fs::write(&file, "NO_SUCH = 1\n").unwrap();
    engine.send(&format!("setoption name ParamsFile value {}", file.display()));
    engine.send("isready");
    let lines = engine.read_until(10, |l| l == "readyok");
    assert!(lines.iter().any(|l| l.contains("error") && l.contains("NO_SUCH")), "{lines:?}");
}
