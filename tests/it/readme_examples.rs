//! The `ferz` commands the READMEs print, run as a user would run them.
//!
//! Every shell code block (fenced as `sh`, `bash`, `console` or unlabelled) of `README.md`, of
//! each `README.md` under `deploy/` and of each Markdown file in `docs/` is read; each line that
//! runs `ferz` (directly, as
//! `target/release/ferz`, through `cargo run --`, or as the `ferz` image of `docker run`) is
//! checked:
//! - a concrete command is run in a fresh directory with its sizes made small (`--games 2`, a few
//!   hundred nodes, a fast clock, one SPSA iteration of one game pair) and must exit 0; one that needs a program or a server the test
//!   machine lacks (another engine, Lichess) is checked like a synopsis instead;
//! - a synopsis line (`[--games N]`, `a|b`, `FILE...`) must name subcommands and flags that the
//!   binary's `--help` lists.
//!
//! So an example that no longer parses, or no longer works, fails the tests.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use ferz_tests::{TempDir, ferz_binary};

/// One `ferz` invocation found in a README.
#[derive(Debug)]
struct Example {
    /// Where it was found, for the failure message.
    origin: String,
    /// The arguments after the program.
    args: Vec<String>,
}

/// The workspace root (the test package sits one level below it).
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ has a parent").to_path_buf()
}

/// The documents whose examples are checked: the root README, every README under `deploy/` and
/// every Markdown file in `docs/` (where the README's longer material lives).
fn readmes() -> Vec<PathBuf> {
    let root = workspace_root();
    let mut found = vec![root.join("README.md")];
    for entry in std::fs::read_dir(root.join("docs")).expect("read docs/") {
        let path = entry.expect("directory entry").path();
        if path.extension().is_some_and(|ext| ext == "md") {
            found.push(path);
        }
    }
    let mut dirs = vec![root.join("deploy")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("read deploy/") {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.file_name().is_some_and(|name| name == "README.md") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// Splits a shell line into words: single and double quotes, backslash escapes, and a `#`
/// comment after whitespace. `None` for a line the splitter cannot read (an open quote).
fn shell_words(line: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '\'' => break,
                        other => w.push(other),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => w.push(chars.next()?),
                        other => w.push(other),
                    }
                }
            }
            '\\' => word.get_or_insert_with(String::new).push(chars.next()?),
            '#' if word.is_none() => break,
            c if c.is_whitespace() => words.extend(word.take()),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Some(words)
}

/// The `ferz` arguments of a command line, if it runs `ferz`.
fn ferz_args(words: &[String]) -> Option<Vec<String>> {
    let program = words.first()?;
    if program == "ferz" || program.ends_with("/ferz") {
        return Some(words[1..].to_vec());
    }
    // `VAR=value target/release/ferz ...`: skip environment assignments.
    if program.contains('=') && !program.starts_with('-') {
        return ferz_args(&words[1..]);
    }
    if program == "cargo" && words.get(1).is_some_and(|w| w == "run") {
        let separator = words.iter().position(|w| w == "--");
        return Some(separator.map_or_else(Vec::new, |at| words[at + 1..].to_vec()));
    }
    if program == "docker" && words.get(1).is_some_and(|w| w == "run") {
        let image = words.iter().position(|w| w == "ferz")?;
        return Some(words[image + 1..].to_vec());
    }
    None
}

/// Every `ferz` invocation in the fenced code blocks of `readme`.
fn examples_in(readme: &Path) -> Vec<Example> {
    let text = std::fs::read_to_string(readme).expect("read README");
    let name = readme.strip_prefix(workspace_root()).unwrap_or(readme).display().to_string();
    let mut examples = Vec::new();
    let mut in_block = false;
    let mut shell_block = false;
    let mut pending = String::new();
    let mut first_line = 0;
    // The 0-based number of the line after the last example found, to attach wrapped usage lines.
    let mut last_example_line = None;
    for (number, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(language) = trimmed.strip_prefix("```") {
            // Only shell blocks (and unlabelled ones, which show sessions) hold commands; a
            // `text` or `toml` block may mention `ferz` without being a command line.
            in_block = !in_block;
            shell_block = in_block && matches!(language.trim(), "" | "sh" | "bash" | "shell" | "console");
            pending.clear();
            continue;
        }
        if !in_block || !shell_block {
            continue;
        }
        // An indented line of options under a usage line continues it (a synopsis wraps
        // without a backslash).
        let continues_usage = line.starts_with(' ') && (trimmed.starts_with('[') || trimmed.starts_with('-'));
        if pending.is_empty() && continues_usage && last_example_line == Some(number) {
            if let (Some(last), Some(words)) = (examples.last_mut(), shell_words(trimmed)) {
                let last: &mut Example = last;
                last.args.extend(words);
                last_example_line = Some(number + 1);
            }
            continue;
        }
        if pending.is_empty() {
            first_line = number + 1;
        }
        let line = trimmed.strip_prefix("$ ").unwrap_or(trimmed);
        if let Some(continued) = line.strip_suffix('\\') {
            pending.push_str(continued);
            pending.push(' ');
            continue;
        }
        pending.push_str(line);
        let command = std::mem::take(&mut pending);
        let Some(words) = shell_words(&command) else { continue };
        if let Some(args) = ferz_args(&words) {
            examples.push(Example { origin: format!("{name}:{first_line}"), args });
            last_example_line = Some(number + 1);
        }
    }
    examples
}

/// True for a usage line rather than a command: optional parts, alternatives or placeholders.
fn is_synopsis(args: &[String]) -> bool {
    args.iter().any(|a| {
        a.contains('[')
            || a.contains('|')
            || a.ends_with("...")
            || (a.len() > 1 && a.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
            || (a.len() == 1 && a.chars().all(|c| c.is_ascii_uppercase()))
    })
}

/// Runs `ferz` with `args` in `dir` and returns (success, stdout + stderr).
fn run_in(dir: &Path, args: &[String], stdin: &str) -> (bool, String) {
    use std::io::Write;
    let mut child = Command::new(ferz_binary())
        .args(args)
        .current_dir(dir)
        .env("FERZ__RUN__GAMES", "2")
        // `ferz spsa run`: one pair of fast games per iteration.
        .env("FERZ__GAMES__TC", "1+0.01")
        .env("FERZ__GAMES__PAIRS_PER_ITERATION", "1")
        .env_remove("LICHESS_BOT_TOKEN")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start ferz");
    child.stdin.take().expect("piped stdin").write_all(stdin.as_bytes()).expect("write stdin");
    let output = child.wait_with_output().expect("wait for ferz");
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&output.stderr));
    (output.status.success(), text)
}

/// The subcommand names listed under "Commands:" in a clap help text.
fn subcommands_in(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

/// The help text of `path` and of all its nested subcommands, concatenated.
fn help_tree(dir: &Path, path: &[String]) -> (String, BTreeSet<String>) {
    let mut args = path.to_vec();
    args.push("--help".into());
    let (ok, help) = run_in(dir, &args, "");
    assert!(ok, "`ferz {}` fails:\n{help}", args.join(" "));
    let mut all = help.clone();
    let mut names = BTreeSet::new();
    for sub in subcommands_in(&help) {
        names.insert(sub.clone());
        let mut sub_path = path.to_vec();
        sub_path.push(sub);
        let (text, nested) = help_tree(dir, &sub_path);
        all.push_str(&text);
        names.extend(nested);
    }
    (all, names)
}

/// Checks that the example's subcommand exists and that every flag and subcommand word it names
/// appears in the binary's help.
fn check_against_help(dir: &Path, example: &Example) {
    let (top_help, top_names) = help_tree(dir, &[]);
    let Some(subcommand) = example.args.first().filter(|a| !a.starts_with('-')) else {
        for flag in flags_of(&example.args) {
            assert!(top_help.contains(&flag), "{}: `ferz --help` lists no {flag}", example.origin);
        }
        return;
    };
    assert!(
        top_names.contains(subcommand),
        "{}: `ferz {subcommand}` is not a subcommand (`ferz --help` lists {top_names:?})",
        example.origin
    );
    let (help, names) = help_tree(dir, std::slice::from_ref(subcommand));
    for flag in flags_of(&example.args) {
        assert!(help.contains(&flag), "{}: `ferz {subcommand} --help` lists no {flag}", example.origin);
    }
    // Lower-case words right after a `|` or the subcommand are sub-subcommands (`cache stats |
    // merge`); they must exist too.
    let words: Vec<&str> = example.args.iter().map(String::as_str).collect();
    for (i, word) in words.iter().enumerate().skip(1) {
        let after_choice = words[i - 1] == "|" || i == 1;
        let looks_like_name =
            !word.starts_with('-') && !word.is_empty() && word.chars().all(|c| c.is_ascii_lowercase() || c == '-');
        if after_choice && looks_like_name && !names.is_empty() {
            assert!(names.contains(*word), "{}: `ferz {subcommand} {word}` is not a subcommand", example.origin);
        }
    }
}

/// The `--flags` an example names, without brackets or values.
fn flags_of(args: &[String]) -> Vec<String> {
    args.iter()
        .flat_map(|a| a.split('|'))
        .map(|a| a.trim_matches(|c| c == '[' || c == ']'))
        .filter(|a| a.starts_with("--"))
        .map(|a| a.split('=').next().unwrap_or(a).to_owned())
        .collect()
}

/// The example with its sizes made small enough for a test, and the files it names created;
/// `None` when it needs something the test machine does not have.
fn runnable(dir: &Path, args: &[String]) -> Result<Vec<String>, String> {
    if args.first().is_some_and(|sub| sub == "bot") {
        return Err("the bot needs a Lichess server (tests/it/bot.rs runs it against a fake one)".into());
    }
    let mut out = Vec::with_capacity(args.len());
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        let value = args.get(i + 1);
        match (arg.as_str(), value) {
            ("--games", Some(_)) => out.extend(["--games".into(), "2".into()]),
            ("--nodes", Some(_)) => out.extend(["--nodes".into(), "300".into()]),
            ("--tc", Some(_)) => out.extend(["--tc".into(), "1+0.01".into()]),
            ("--iterations", Some(_)) => out.extend(["--iterations".into(), "1".into()]),
            ("--depth", Some(depth)) => {
                let depth: u32 = depth.parse().map_err(|_| format!("--depth {depth} is no number"))?;
                out.extend(["--depth".into(), depth.min(4).to_string()]);
            }
            ("--book", Some(book)) => {
                // The user brings the book; the test brings a small one of the same name.
                let path = dir.join(book);
                if !path.exists() {
                    std::fs::write(&path, SMALL_BOOK).map_err(|e| e.to_string())?;
                }
                out.extend([arg.clone(), book.clone()]);
            }
            _ => {
                if let Some(program) = arg.strip_prefix("uci:")
                    && !Path::new(program).exists()
                {
                    return Err(format!("{program} is not installed"));
                }
                out.push(arg.clone());
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    Ok(out)
}

/// Four short openings in EPD, for examples that name a book file.
const SMALL_BOOK: &str = "\
rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - id \"e4\";
rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - id \"d4\";
rnbqkbnr/pppppppp/8/8/2P5/8/PP1PPPPP/RNBQKBNR b KQkq - id \"c4\";
rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - id \"Nf3\";
";

#[test]
fn every_ferz_example_in_the_readmes_parses_and_runs() {
    let examples: Vec<Example> = readmes().iter().flat_map(|readme| examples_in(readme)).collect();
    // README.md, deploy/ and docs/ show over a dozen; finding fewer means the extraction broke.
    assert!(examples.len() >= 8, "only {} examples found: {examples:?}", examples.len());
    let mut ran = 0;
    for example in &examples {
        let dir = TempDir::new("readme-example");
        if is_synopsis(&example.args) {
            check_against_help(dir.path(), example);
            continue;
        }
        match runnable(dir.path(), &example.args) {
            Ok(args) => {
                // A bare `ferz` is the UCI engine: it must answer a handshake and quit.
                let stdin = if args.is_empty() { "uci\nisready\nquit\n" } else { "" };
                let started = std::time::Instant::now();
                let (ok, output) = run_in(dir.path(), &args, stdin);
                eprintln!(
                    "{}: `ferz {}` ran in {:.1} s",
                    example.origin,
                    args.join(" "),
                    started.elapsed().as_secs_f64()
                );
                assert!(ok, "{}: `ferz {}` failed:\n{output}", example.origin, args.join(" "));
                if args.is_empty() {
                    assert!(output.contains("uciok"), "{}: no uciok:\n{output}", example.origin);
                }
                ran += 1;
            }
            Err(why) => {
                eprintln!("{}: checked against --help only: {why}", example.origin);
                check_against_help(dir.path(), example);
            }
        }
    }
    assert!(ran >= 3, "only {ran} examples were run");
}

#[test]
fn the_shell_splitter_reads_quotes_escapes_and_comments() {
    let words = shell_words(r#"ferz match --vs 'uci:/a b' --option-b "Skill Level=3" x\ y   # note"#).unwrap();
    assert_eq!(words, ["ferz", "match", "--vs", "uci:/a b", "--option-b", "Skill Level=3", "x y"]);
    assert_eq!(shell_words("echo 'open"), None);
    let docker = shell_words("docker run -v $PWD/data:/data ferz selfplay --games 100").unwrap();
    assert_eq!(ferz_args(&docker).unwrap(), ["selfplay", "--games", "100"]);
    let cargo = shell_words("cargo run --release -- selfplay").unwrap();
    assert_eq!(ferz_args(&cargo).unwrap(), ["selfplay"]);
    assert_eq!(ferz_args(&shell_words("cargo test --workspace").unwrap()), None);
    assert!(is_synopsis(&shell_words("perft --depth N").unwrap()));
    assert!(!is_synopsis(&shell_words("match --vs ferz --games 8").unwrap()));
}
