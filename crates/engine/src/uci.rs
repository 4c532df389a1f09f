//! The UCI protocol: what GUIs, cutechess, python-chess, lichess-bot and OpenBench speak.
//!
//! Commands are read on the calling thread; a search runs on its own thread so that `stop`,
//! `ponderhit` and `isready` are answered while it thinks. Malformed input never ends the
//! session: an unknown command is reported and ignored, a bad `position` keeps the last valid
//! position, and every `go` ends in exactly one `bestmove`.

use std::io::{BufRead, Write};
use std::str::FromStr;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use ferz_chess::{Game, Position, Variant};

use ferz_nnue::NetVariant;

use crate::params;
use crate::{Bound, Engine, EngineOptions, Nets, SearchInfo, SearchLimits, SearchResult, Signals};

/// The `EvalFile` / `EvalFileShatranj` value that means the net compiled into the binary (none
/// if the build had none); an empty value means the same.
const EMBEDDED_NET: &str = "<embedded>";

/// The value of a string option that means none (`SyzygyPath`, `ParamsFile`).
const EMPTY: &str = "<empty>";

/// What a UCI option holds, with its default and limits: what `uci` lists and what
/// `setoption` parses and clamps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// An integer, clamped to `min..=max`.
    Spin {
        /// The value before any `setoption`.
        default: i64,
        /// The smallest value.
        min: i64,
        /// The largest value.
        max: i64,
    },
    /// A boolean.
    Check {
        /// The value before any `setoption`.
        default: bool,
    },
    /// One of a list of words.
    Combo {
        /// The value before any `setoption`.
        default: &'static str,
        /// The words.
        values: &'static [&'static str],
    },
    /// Free text (a path).
    String {
        /// The value before any `setoption`.
        default: &'static str,
    },
    /// An action without a value.
    Button,
}

/// A value `setoption` read, typed by its option's kind.
#[derive(Clone, Debug, PartialEq, Eq)]
enum OptionValue {
    Spin(i64),
    Check(bool),
    Text(String),
    Button,
}

impl OptionKind {
    /// `value` read as this kind: whole numbers of any size clamped into the range (the caller
    /// says so), booleans `true`/`false`, combo words as given (the option checks them). `None`
    /// when it cannot be read.
    fn parse(&self, value: &str) -> Option<OptionValue> {
        match self {
            OptionKind::Spin { min, max, .. } => value
                .parse::<i128>()
                .ok()
                .map(|n| OptionValue::Spin(n.clamp(i128::from(*min), i128::from(*max)) as i64)),
            OptionKind::Check { .. } => match value.to_ascii_lowercase().as_str() {
                "true" => Some(OptionValue::Check(true)),
                "false" => Some(OptionValue::Check(false)),
                _ => None,
            },
            OptionKind::Combo { .. } | OptionKind::String { .. } => Some(OptionValue::Text(value.to_owned())),
            OptionKind::Button => Some(OptionValue::Button),
        }
    }
}

/// Which option a [`UciOption`] is, for `setoption`'s dispatch.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum OptionId {
    /// `Hash`.
    Hash,
    /// `Threads`.
    Threads,
    /// `MultiPV`.
    MultiPv,
    /// `Ponder`.
    Ponder,
    /// `Move Overhead`.
    MoveOverhead,
    /// `Clear Hash`.
    ClearHash,
    /// `UCI_Chess960`.
    Chess960,
    /// `UCI_Variant`.
    Variant,
    /// `UCI_ShowWDL`.
    ShowWdl,
    /// `SyzygyPath`.
    SyzygyPath,
    /// `SyzygyProbeDepth`.
    SyzygyProbeDepth,
    /// `Syzygy50MoveRule`.
    Syzygy50MoveRule,
    /// `SyzygyProbeLimit`.
    SyzygyProbeLimit,
    /// `UseNNUE`.
    UseNnue,
    /// `EvalFile`.
    EvalFile,
    /// `EvalFileShatranj`.
    EvalFileShatranj,
    /// `ParamsFile`.
    ParamsFile,
}

/// One UCI option: its name, kind, default and limits, declared once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UciOption {
    /// Which option.
    pub id: OptionId,
    /// The name `uci` lists and `setoption` matches (case-insensitively).
    pub name: &'static str,
    /// Kind, default and limits.
    pub kind: OptionKind,
}

impl UciOption {
    /// The `option name ... type ...` line `uci` prints.
    #[must_use]
    pub fn uci_line(&self) -> String {
        let name = self.name;
        match &self.kind {
            OptionKind::Spin { default, min, max } => {
                format!("option name {name} type spin default {default} min {min} max {max}")
            }
            OptionKind::Check { default } => format!("option name {name} type check default {default}"),
            OptionKind::Combo { default, values } => {
                let vars: String = values.iter().map(|v| format!(" var {v}")).collect();
                format!("option name {name} type combo default {default}{vars}")
            }
            OptionKind::String { default } => format!("option name {name} type string default {default}"),
            OptionKind::Button => format!("option name {name} type button"),
        }
    }
}

/// Every UCI option of the engine, in the order `uci` lists them (the search's tunable
/// parameters, [`params::TUNABLES`], come after them when asked for).
#[must_use]
pub fn options() -> [UciOption; 17] {
    use OptionKind::{Button, Check, Combo, Spin};
    let option = |id, name, kind| UciOption { id, name, kind };
    let string = |default| OptionKind::String { default };
    [
        option(OptionId::Hash, "Hash", Spin { default: 16, min: 1, max: 65_536 }),
        option(OptionId::Threads, "Threads", Spin { default: 1, min: 1, max: 256 }),
        option(OptionId::MultiPv, "MultiPV", Spin { default: 1, min: 1, max: 256 }),
        option(OptionId::Ponder, "Ponder", Check { default: false }),
        option(OptionId::MoveOverhead, "Move Overhead", Spin { default: 10, min: 0, max: 5000 }),
        option(OptionId::ClearHash, "Clear Hash", Button),
        option(OptionId::Chess960, "UCI_Chess960", Check { default: false }),
        option(OptionId::Variant, "UCI_Variant", Combo { default: "chess", values: &["chess", "shatranj"] }),
        option(OptionId::ShowWdl, "UCI_ShowWDL", Check { default: false }),
        option(OptionId::SyzygyPath, "SyzygyPath", string(EMPTY)),
        option(OptionId::SyzygyProbeDepth, "SyzygyProbeDepth", Spin { default: 1, min: 1, max: 100 }),
        option(OptionId::Syzygy50MoveRule, "Syzygy50MoveRule", Check { default: true }),
        option(OptionId::SyzygyProbeLimit, "SyzygyProbeLimit", Spin { default: 7, min: 0, max: 7 }),
        option(OptionId::UseNnue, "UseNNUE", Check { default: Nets::use_nnue_default() }),
        option(OptionId::EvalFile, "EvalFile", string(EMBEDDED_NET)),
        option(OptionId::EvalFileShatranj, "EvalFileShatranj", string(EMBEDDED_NET)),
        option(OptionId::ParamsFile, "ParamsFile", string(EMPTY)),
    ]
}

/// The row of option `id` in [`options`]: its name, kind, default and limits, for settings that
/// set the option and must accept what it accepts (self-play's `[search]`, the bot's `[engine]`).
///
/// # Panics
/// If `id` has no row (a mistake in this file).
#[must_use]
pub fn option(id: OptionId) -> UciOption {
    options().into_iter().find(|o| o.id == id).unwrap_or_else(|| panic!("{id:?} has no row in options()"))
}

/// The limits of the spin option `id`, for settings files that must accept what it accepts.
///
/// # Panics
/// If `id` is not a spin option (a mistake in the caller).
#[must_use]
pub fn spin_limits(id: OptionId) -> std::ops::RangeInclusive<i64> {
    match option(id).kind {
        OptionKind::Spin { min, max, .. } => min..=max,
        other => panic!("{id:?} is not a spin option: {other:?}"),
    }
}

/// The default of the spin option `id`, for [`EngineOptions`]' defaults.
///
/// # Panics
/// If `id` is not a spin option (a mistake in this file).
#[must_use]
pub fn spin_default(id: OptionId) -> i64 {
    match options().into_iter().find(|o| o.id == id).map(|o| o.kind) {
        Some(OptionKind::Spin { default, .. }) => default,
        other => panic!("{id:?} is not a spin option: {other:?}"),
    }
}

/// The default of the check option `id`, for [`EngineOptions`]' defaults.
///
/// # Panics
/// If `id` is not a check option (a mistake in this file).
#[must_use]
pub fn check_default(id: OptionId) -> bool {
    match options().into_iter().find(|o| o.id == id).map(|o| o.kind) {
        Some(OptionKind::Check { default }) => default,
        other => panic!("{id:?} is not a check option: {other:?}"),
    }
}

/// The commands [`Session::execute`] knows: what `ferz <command>` may pass as a UCI command.
pub const COMMANDS: &[&str] =
    &["uci", "isready", "ucinewgame", "setoption", "position", "go", "stop", "ponderhit", "quit", "d"];

type SharedOutput = Arc<Mutex<Box<dyn Write + Send>>>;

fn send(output: &SharedOutput, line: &str) {
    let mut out = output.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    // A closed stdout (the GUI went away) is not worth a panic: the next read ends the loop.
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// A UCI session.
pub struct Session {
    output: SharedOutput,
    engine: Option<Engine>,
    search: Option<JoinHandle<Engine>>,
    signals: Arc<Signals>,
    game: Game,
    uci_variant: Variant,
    chess960: bool,
    ponder: bool,
    /// Whether `uci` lists the search's tunable parameters as spin options.
    list_tunables: bool,
}

impl Session {
    /// A session writing its replies to `output`.
    pub fn new(output: impl Write + Send + 'static) -> Session {
        Session {
            output: Arc::new(Mutex::new(Box::new(output))),
            engine: Some(Engine::new(EngineOptions::default())),
            search: None,
            signals: Arc::new(Signals::default()),
            game: Game::new(Position::new(Variant::Chess)),
            uci_variant: Variant::Chess,
            chess960: false,
            ponder: false,
            list_tunables: false,
        }
    }

    /// Makes `uci` list the search's tunable parameters ([`params::TUNABLES`]) as spin options,
    /// for a tuner; a GUI user does not see them.
    pub fn list_tunables(&mut self, on: bool) {
        self.list_tunables = on;
    }

    /// Reads commands from `input` until `quit` or the end of input, then waits for a running
    /// search to finish its `bestmove`.
    ///
    /// Input is read as bytes: a line that is not UTF-8 (a GUI sending a Latin-1 path) is
    /// reported and skipped, never taken for the end of input. Only end of file or a read
    /// error ends the loop.
    pub fn run(&mut self, mut input: impl BufRead) {
        let mut bytes = Vec::new();
        loop {
            bytes.clear();
            match input.read_until(b'\n', &mut bytes) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let Ok(line) = std::str::from_utf8(&bytes) else {
                let shown = String::from_utf8_lossy(&bytes);
                self.info_string(&format!("ignoring a line that is not UTF-8: {:?}", clip(shown.trim_end())));
                continue;
            };
            if !self.execute(line) {
                break;
            }
        }
        self.finish_search();
    }

    /// The variant new positions are set up in.
    fn variant(&self) -> Variant {
        match self.uci_variant {
            Variant::Shatranj => Variant::Shatranj,
            _ if self.chess960 => Variant::Chess960,
            _ => Variant::Chess,
        }
    }

    fn info_string(&self, text: &str) {
        send(&self.output, &format!("info string {text}"));
    }

    /// Handles one command line. Returns `false` for `quit`.
    pub fn execute(&mut self, line: &str) -> bool {
        let line = line.trim();
        let (command, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        match command {
            "" => {}
            "uci" => self.identify(),
            "isready" => send(&self.output, "readyok"),
            "ucinewgame" => {
                self.finish_search();
                if let Some(engine) = &mut self.engine {
                    engine.clear();
                }
                self.game = Game::new(Position::new(self.variant()));
            }
            "setoption" => self.set_option(rest),
            "position" => self.set_position(rest),
            "go" => self.go(rest),
            "stop" => self.finish_search(),
            "ponderhit" => self.signals.ponderhit.store(true, Ordering::Relaxed),
            "quit" => return false,
            "d" => {
                let fen = self.game.position().fen();
                self.info_string(&format!("{} {fen}", self.variant()));
            }
            _ => self.info_string(&format!("unknown command: {}", clip(line))),
        }
        true
    }

    fn identify(&self) {
        send(&self.output, &format!("id name ferz {}", env!("CARGO_PKG_VERSION")));
        send(&self.output, "id author the ferz developers");
        for option in options() {
            send(&self.output, &option.uci_line());
        }
        if self.list_tunables {
            for tunable in params::TUNABLES {
                send(&self.output, &params::uci_option_line(tunable, self.variant()));
            }
        }
        send(&self.output, "uciok");
    }

    fn set_option(&mut self, rest: &str) {
        let Some(after_name) = rest.strip_prefix("name") else {
            return self.info_string(&format!("setoption needs 'name <id> [value <x>]': {}", clip(rest)));
        };
        let (name, value) = match after_name.split_once(" value") {
            Some((name, value)) => (name.trim(), value.trim()),
            None => (after_name.trim(), ""),
        };
        // Options are applied between searches.
        self.finish_search();
        // The tunables are accepted whether listed or not: tuners send them without asking.
        if let Some(tunable) = params::find(name) {
            return match value.parse::<i64>() {
                Ok(number) => {
                    tunable.set(number);
                }
                Err(_) => self.info_string(&format!("invalid value {:?} for option {name}", clip(value))),
            };
        }
        let options = options();
        let Some(option) = options.iter().find(|o| o.name.eq_ignore_ascii_case(name)) else {
            return self.info_string(&format!("unknown option: {}", clip(name)));
        };
        let Some(parsed) = option.kind.parse(value) else {
            return self.info_string(&format!("invalid value {:?} for option {name}", clip(value)));
        };
        // A number outside the advertised range was clamped into it: say so.
        if let (OptionKind::Spin { min, max, .. }, Ok(number), OptionValue::Spin(kept)) =
            (&option.kind, value.parse::<i128>(), &parsed)
            && i128::from(*kept) != number
        {
            self.info_string(&format!("{} {number} is outside {min} to {max}; using {kept}", option.name));
        }
        let engine = self.engine.as_mut().expect("no search running");
        match (option.id, parsed) {
            (OptionId::Hash, OptionValue::Spin(mb)) => {
                let wanted = mb as usize;
                let resize = engine.set_hash_mb(wanted);
                if resize.kept_mb < wanted {
                    let limit = resize.limit_mb.map_or_else(String::new, |mb| format!(" (at most {mb} MiB)"));
                    self.info_string(&format!(
                        "Hash {wanted} MiB is more than this machine can spare{limit}; using {} MiB",
                        resize.kept_mb
                    ));
                }
            }
            (OptionId::Threads, OptionValue::Spin(n)) => engine.set_threads(n as usize),
            (OptionId::MultiPv, OptionValue::Spin(n)) => engine.set_multi_pv(n as usize),
            (OptionId::MoveOverhead, OptionValue::Spin(ms)) => {
                engine.set_move_overhead(Duration::from_millis(ms as u64));
            }
            (OptionId::Ponder, OptionValue::Check(on)) => self.ponder = on,
            (OptionId::ClearHash, _) => engine.clear(),
            (OptionId::Chess960, OptionValue::Check(on)) => self.chess960 = on,
            (OptionId::ShowWdl, OptionValue::Check(on)) => engine.set_show_wdl(on),
            (OptionId::SyzygyPath, OptionValue::Text(path)) => {
                // Opening reports what was found, or why nothing is used.
                let message = engine.set_syzygy_path(&path).unwrap_or_else(|error| error);
                return self.info_string(&message);
            }
            (OptionId::SyzygyProbeDepth, OptionValue::Spin(d)) => engine.set_syzygy_probe_depth(d as i32),
            (OptionId::Syzygy50MoveRule, OptionValue::Check(on)) => engine.set_syzygy_rule50(on),
            (OptionId::SyzygyProbeLimit, OptionValue::Spin(n)) => engine.set_syzygy_probe_limit(n as u32),
            (OptionId::UseNnue, OptionValue::Check(on)) => {
                engine.nets_mut().set_use_nnue(on);
                // The table stores static evaluations: drop those of the other evaluation.
                engine.clear();
            }
            (OptionId::EvalFile, OptionValue::Text(path)) => return self.load_net(NetVariant::Chess, &path),
            (OptionId::EvalFileShatranj, OptionValue::Text(path)) => {
                return self.load_net(NetVariant::Shatranj, &path);
            }
            (OptionId::ParamsFile, OptionValue::Text(path)) => return self.load_params(&path),
            (OptionId::Variant, OptionValue::Text(variant)) => match Variant::from_str(&variant) {
                Ok(Variant::Shatranj) => self.uci_variant = Variant::Shatranj,
                Ok(Variant::Chess) => self.uci_variant = Variant::Chess,
                _ => return self.info_string(&format!("invalid value {:?} for option {name}", clip(value))),
            },
            (id, parsed) => unreachable!("option {id:?} parsed as {parsed:?}"),
        };
        // Keep the current position under the new rules where that makes sense.
        if self.game.position().variant() != self.variant() {
            self.game = rebuild(&self.game, self.variant());
        }
    }

    /// `ParamsFile`: sets the search parameters a params file names (the others keep their
    /// values), or restores every default for an empty value.
    fn load_params(&mut self, value: &str) {
        if value.is_empty() || value == EMPTY {
            params::reset();
            return self.info_string("search parameters reset to their defaults");
        }
        let applied = std::fs::read_to_string(value)
            .map_err(|error| format!("cannot read params file {value}: {error}"))
            .and_then(|text| params::apply_params(&text).map_err(|error| format!("params file {value}: {error}")));
        match applied {
            Ok(count) => self.info_string(&format!("set {count} search parameters from {value}")),
            Err(error) => self.info_string(&format!("error: {error}; keeping the current parameters")),
        }
    }

    /// `EvalFile` / `EvalFileShatranj`: loads the net at `value`, or restores the embedded one.
    /// A bad file is reported and the current net kept.
    fn load_net(&mut self, variant: NetVariant, value: &str) {
        let engine = self.engine.as_mut().expect("no search running");
        let result = if value.is_empty() || value == EMBEDDED_NET {
            engine.nets_mut().reset(variant);
            Ok(())
        } else {
            engine.nets_mut().load(variant, std::path::Path::new(value))
        };
        if result.is_ok() {
            // The table stores static evaluations: drop those of the previous net.
            engine.clear();
        }
        let described = engine.nets().describe(variant);
        match result {
            Ok(()) => self.info_string(&format!("using {described}")),
            Err(error) => self.info_string(&format!("error: {error}; keeping {described}")),
        }
    }

    fn set_position(&mut self, rest: &str) {
        match parse_position(rest, self.variant()) {
            Ok(game) => self.game = game,
            Err(reason) => self.info_string(&format!("{reason}; keeping {}", self.game.position().fen())),
        }
    }

    fn go(&mut self, rest: &str) {
        self.finish_search();
        let tokens: Vec<&str> = rest.split_whitespace().collect();
        if tokens.first() == Some(&"perft") {
            return self.perft(tokens.get(1).copied());
        }
        let limits = match parse_go(&tokens, self.game.position()) {
            Ok(limits) => limits,
            Err(reason) => {
                self.info_string(&format!("{reason}; searching without that limit"));
                parse_go_lenient(&tokens, self.game.position())
            }
        };
        let mut engine = self.engine.take().expect("no search running");
        self.signals = Arc::new(Signals::default());
        let signals = Arc::clone(&self.signals);
        let output = Arc::clone(&self.output);
        let game = self.game.clone();
        let ponder_enabled = self.ponder;
        self.search = Some(std::thread::spawn(move || {
            let position = *game.position();
            let mut on_info = |info: &SearchInfo| send(&output, &format_info(&position, info));
            let result = engine.search(&game, &limits, &signals, &mut on_info);
            send(&output, &format_bestmove(&position, &result, ponder_enabled || limits.ponder));
            engine
        }));
    }

    fn perft(&mut self, depth: Option<&str>) {
        let Some(depth) = depth.and_then(|d| d.parse::<u32>().ok()) else {
            return self.info_string("go perft needs a depth");
        };
        let position = *self.game.position();
        let mut total = u64::from(depth == 0);
        if depth > 0 {
            for (m, count) in ferz_chess::divide(&position, depth, true) {
                total += count;
                send(&self.output, &format!("{}: {count}", position.uci(m)));
            }
        }
        send(&self.output, "");
        send(&self.output, &format!("Nodes searched: {total}"));
    }

    /// Stops a running search and waits for its `bestmove`.
    fn finish_search(&mut self) {
        if let Some(handle) = self.search.take() {
            self.signals.stop.store(true, Ordering::Relaxed);
            match handle.join() {
                Ok(engine) => self.engine = Some(engine),
                Err(_) => {
                    // The search panicked: report it, answer the `go`, and carry on fresh.
                    send(&self.output, "info string internal error in search");
                    send(&self.output, "bestmove (none)");
                    self.engine = Some(Engine::new(EngineOptions::default()));
                }
            }
        }
    }
}

/// The same game (start position and moves) under another variant's notation.
fn rebuild(game: &Game, variant: Variant) -> Game {
    let start = game.start().with_variant(variant).unwrap_or_else(|| Position::new(variant));
    let mut rebuilt = Game::new(start);
    for &m in game.moves() {
        if rebuilt.play(m).is_err() {
            return Game::new(Position::new(variant));
        }
    }
    rebuilt
}

fn clip(text: &str) -> String {
    text.chars().take(80).collect()
}

/// Parses `startpos | fen <fen>` and optional `moves ...` into a game.
///
/// # Errors
/// A sentence saying what is wrong.
pub fn parse_position(rest: &str, variant: Variant) -> Result<Game, String> {
    let (setup, moves) = match rest.split_once("moves") {
        Some((setup, moves)) => (setup.trim(), moves.split_whitespace().collect::<Vec<_>>()),
        None => (rest.trim(), Vec::new()),
    };
    let start = if setup == "startpos" {
        Position::new(variant)
    } else if let Some(fen) = setup.strip_prefix("fen") {
        Position::from_fen(fen.trim(), variant).map_err(|e| format!("invalid FEN {:?}: {e}", clip(fen.trim())))?
    } else {
        return Err(format!("position needs 'startpos' or 'fen <fen>', got {:?}", clip(setup)));
    };
    let mut game = Game::new(start);
    for (i, text) in moves.iter().enumerate() {
        game.play_uci(text).map_err(|e| format!("move {} ({text}): {e}", i + 1))?;
    }
    Ok(game)
}

fn duration_ms(value: &str) -> Option<Duration> {
    // Some GUIs send negative clock times when a player is about to flag.
    value.parse::<i64>().ok().map(|ms| Duration::from_millis(ms.max(0) as u64))
}

/// Parses the arguments of `go`.
///
/// # Errors
/// A sentence naming the first malformed argument.
pub fn parse_go(tokens: &[&str], position: &Position) -> Result<SearchLimits, String> {
    let mut limits = SearchLimits::default();
    let mut i = 0;
    while i < tokens.len() {
        let token = tokens[i];
        let value = tokens.get(i + 1).copied().unwrap_or("");
        let bad = || format!("go {token} needs a number, got {:?}", clip(value));
        let mut takes_value = true;
        match token {
            "wtime" => limits.wtime = Some(duration_ms(value).ok_or_else(bad)?),
            "btime" => limits.btime = Some(duration_ms(value).ok_or_else(bad)?),
            "winc" => limits.winc = duration_ms(value).ok_or_else(bad)?,
            "binc" => limits.binc = duration_ms(value).ok_or_else(bad)?,
            "movestogo" => limits.movestogo = Some(value.parse().map_err(|_| bad())?).filter(|&n| n > 0),
            "movetime" => limits.movetime = Some(duration_ms(value).ok_or_else(bad)?),
            "depth" => limits.depth = Some(value.parse().map_err(|_| bad())?),
            "nodes" => limits.nodes = Some(value.parse().map_err(|_| bad())?),
            "mate" => limits.mate = Some(value.parse().map_err(|_| bad())?),
            "infinite" => {
                limits.infinite = true;
                takes_value = false;
            }
            "ponder" => {
                limits.ponder = true;
                takes_value = false;
            }
            "searchmoves" => {
                i += 1;
                while let Some(Ok(m)) = tokens.get(i).map(|t| position.parse_uci(t)) {
                    limits.searchmoves.push(m);
                    i += 1;
                }
                continue;
            }
            other => return Err(format!("unknown go argument {:?}", clip(other))),
        }
        i += if takes_value { 2 } else { 1 };
    }
    Ok(limits)
}

/// Like [`parse_go`], but skips what it cannot read.
fn parse_go_lenient(tokens: &[&str], position: &Position) -> SearchLimits {
    let mut kept: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let pair = &tokens[i..(i + 2).min(tokens.len())];
        if parse_go(pair, position).is_ok() {
            kept.extend_from_slice(pair);
            i += pair.len();
        } else if parse_go(&pair[..1], position).is_ok() {
            kept.push(pair[0]);
            i += 1;
        } else {
            i += 1;
        }
    }
    parse_go(&kept, position).unwrap_or_default()
}

/// Formats an `info` line.
#[must_use]
pub fn format_info(position: &Position, info: &SearchInfo) -> String {
    let mut line =
        format!("info depth {} seldepth {} multipv {} score {}", info.depth, info.seldepth, info.multipv, info.score);
    match info.bound {
        Some(Bound::Lower) => line.push_str(" lowerbound"),
        Some(Bound::Upper) => line.push_str(" upperbound"),
        _ => {}
    }
    if let Some((w, d, l)) = info.wdl {
        line.push_str(&format!(" wdl {w} {d} {l}"));
    }
    line.push_str(&format!(" nodes {} nps {} hashfull {}", info.nodes, info.nps, info.hashfull));
    if let Some(hits) = info.tbhits {
        line.push_str(&format!(" tbhits {hits}"));
    }
    line.push_str(&format!(" time {} pv", info.time.as_millis()));
    let mut pos = *position;
    for &m in &info.pv {
        line.push(' ');
        line.push_str(&pos.uci(m));
        pos.play_unchecked(m);
    }
    line
}

/// Formats the `bestmove` line.
#[must_use]
pub fn format_bestmove(position: &Position, result: &SearchResult, with_ponder: bool) -> String {
    let Some(best) = result.best else {
        return "bestmove (none)".to_owned();
    };
    let mut line = format!("bestmove {}", position.uci(best));
    if let Some(ponder) = result.ponder.filter(|_| with_ponder) {
        let mut next = *position;
        next.play_unchecked(best);
        line.push_str(&format!(" ponder {}", next.uci(ponder)));
    }
    line
}

/// Runs a UCI session on standard input and output, first executing `first` (commands given
/// on the command line) if any.
/// With `tunables`, `uci` lists the search's tunable parameters.
pub fn run_stdio(first: Option<&str>, tunables: bool) {
    let mut session = Session::new(std::io::stdout());
    session.list_tunables(tunables);
    if let Some(command) = first
        && !session.execute(command)
    {
        session.finish_search();
        return;
    }
    session.run(std::io::stdin().lock());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_option_table_is_consistent_and_parses_by_kind() {
        let options = options();
        let mut names: Vec<String> = options.iter().map(|o| o.name.to_ascii_lowercase()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), options.len());
        for option in &options {
            if let OptionKind::Spin { default, min, max } = option.kind {
                assert!(min <= default && default <= max, "{option:?}");
            }
            assert!(params::find(option.name).is_none(), "{} is also a search parameter", option.name);
        }
        let hash = options.iter().find(|o| o.id == OptionId::Hash).unwrap();
        assert_eq!(hash.uci_line(), "option name Hash type spin default 16 min 1 max 65536");
        assert_eq!(hash.kind.parse("99999999"), Some(OptionValue::Spin(65_536)));
        assert_eq!(hash.kind.parse("0"), Some(OptionValue::Spin(1)));
        assert_eq!(hash.kind.parse("-5"), Some(OptionValue::Spin(1)));
        assert_eq!(hash.kind.parse("-99999999999999999999999"), Some(OptionValue::Spin(1)));
        assert_eq!(hash.kind.parse("lots"), None);
        assert_eq!(OptionKind::Check { default: false }.parse("TRUE"), Some(OptionValue::Check(true)));
        assert_eq!(EngineOptions::default().hash_mb, 16);
    }
}
