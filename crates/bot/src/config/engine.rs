//! Which engine plays: the in-process ferz engine or an external UCI engine, its command,
//! options and pondering, and the per-variant overrides (`[engine.variant.chess960]`).
//!
//! The keys live in `[engine]` ([`super::EngineConfig`]); this module holds their types, the
//! resolution of an override against the base ([`super::EngineConfig::choice`]) and their checks.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use ferz_engine::tablebase::SyzygyOptions;
use ferz_settings::{InvalidSetting, check, in_range};
use ferz_uci::{EngineOption, Launch};
use serde::{Deserialize, Serialize};

use super::EngineConfig;

/// `kind`: which engine plays.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "&'static str")]
pub enum EngineKind {
    /// `ferz`: the ferz engine, in process.
    #[default]
    Ferz,
    /// `uci`: an external UCI engine run as a child process (`command`).
    Uci,
}

super::values::setting_names!(EngineKind, "an engine kind", Ferz => "ferz", Uci => "uci");

/// The value of one UCI option as written in the settings: text, a number or a boolean, sent
/// to the engine as text.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum OptionValue {
    /// `true` / `false` (a `check` option).
    Bool(bool),
    /// A whole number (a `spin` option).
    Int(i64),
    /// A fraction (engines that read one from a `string` option).
    Float(f64),
    /// Text (`string`, `combo`; empty for a `button`).
    Text(String),
}

impl fmt::Display for OptionValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionValue::Bool(b) => write!(f, "{b}"),
            OptionValue::Int(i) => write!(f, "{i}"),
            OptionValue::Float(x) => write!(f, "{x}"),
            OptionValue::Text(s) => f.write_str(s),
        }
    }
}

impl<'de> Deserialize<'de> for OptionValue {
    /// By hand rather than `untagged`, whose error ("did not match any variant") names neither
    /// the key nor what fits.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<OptionValue, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = OptionValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a UCI option value: a string, a number or a boolean")
            }
            fn visit_bool<E>(self, v: bool) -> Result<OptionValue, E> {
                Ok(OptionValue::Bool(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<OptionValue, E> {
                Ok(OptionValue::Int(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<OptionValue, E> {
                i64::try_from(v).map(OptionValue::Int).map_err(|_| E::custom(format!("{v} is too large")))
            }
            fn visit_f64<E>(self, v: f64) -> Result<OptionValue, E> {
                Ok(OptionValue::Float(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<OptionValue, E> {
                Ok(OptionValue::Text(v.to_owned()))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// `options`: UCI option name → value, free-form on purpose (each engine has its own), sent
/// in name order after the handshake. Names are matched to the engine's list without regard to
/// case, so `FERZ__ENGINE__OPTIONS__HASH=256` works too.
pub type UciOptions = BTreeMap<String, OptionValue>;

/// Options the bot sets itself: from the game's variant, and from `ponder`.
const RESERVED_OPTIONS: [&str; 3] = ["UCI_Chess960", "UCI_Variant", "Ponder"];

/// `[engine.variant.standard]`, `[engine.variant.chess960]`, `[engine.variant.shatranj]`:
/// another engine or other options for one variant. `standard` also covers `fromPosition`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct VariantEngines {
    /// Standard chess and From Position.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub standard: Option<EngineOverride>,
    /// Chess960.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chess960: Option<EngineOverride>,
    /// Shatranj (PyChess).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shatranj: Option<EngineOverride>,
}

/// One variant's override. Keys left out keep `[engine]`'s. An override that names another
/// engine (a different `kind` or `command`) starts from no `args`, `working_dir` or `options`:
/// the base ones belong to the other engine. Otherwise its `options` are added to the base's,
/// replacing those of the same name.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EngineOverride {
    /// `ferz` or `uci`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<EngineKind>,
    /// The external engine's program.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<PathBuf>,
    /// Its arguments.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<String>>,
    /// The directory it runs in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub working_dir: Option<PathBuf>,
    /// UCI options.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub options: Option<UciOptions>,
    /// Ponder in real-time games.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ponder: Option<bool>,
}

/// The variant families an engine can be chosen for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EngineVariant {
    /// Standard chess and From Position.
    Standard,
    /// Chess960.
    Chess960,
    /// Shatranj.
    Shatranj,
}

impl EngineVariant {
    /// Every family, in the settings' order.
    pub const ALL: [EngineVariant; 3] = [EngineVariant::Standard, EngineVariant::Chess960, EngineVariant::Shatranj];

    /// The family of a game's variant key (`standard`, `fromPosition`, `chess960`, `shatranj`).
    #[must_use]
    pub fn of_key(key: &str) -> EngineVariant {
        match key {
            "chess960" => EngineVariant::Chess960,
            "shatranj" => EngineVariant::Shatranj,
            _ => EngineVariant::Standard,
        }
    }

    /// The table's name: `standard`, `chess960`, `shatranj`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            EngineVariant::Standard => "standard",
            EngineVariant::Chess960 => "chess960",
            EngineVariant::Shatranj => "shatranj",
        }
    }

    /// The keys of this family's table, for error messages.
    fn keys(self) -> Keys {
        match self {
            EngineVariant::Standard => Keys {
                command: "engine.variant.standard.command",
                working_dir: "engine.variant.standard.working_dir",
                options: "engine.variant.standard.options",
            },
            EngineVariant::Chess960 => Keys {
                command: "engine.variant.chess960.command",
                working_dir: "engine.variant.chess960.working_dir",
                options: "engine.variant.chess960.options",
            },
            EngineVariant::Shatranj => Keys {
                command: "engine.variant.shatranj.command",
                working_dir: "engine.variant.shatranj.working_dir",
                options: "engine.variant.shatranj.options",
            },
        }
    }
}

/// Dotted keys of one table (`InvalidSetting` wants them static).
struct Keys {
    command: &'static str,
    working_dir: &'static str,
    options: &'static str,
}

const BASE_KEYS: Keys =
    Keys { command: "engine.command", working_dir: "engine.working_dir", options: "engine.options" };

/// The engine that plays one variant, with everything resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineChoice {
    /// Which engine.
    pub kind: EngineKind,
    /// How to run it (`kind = "uci"`).
    pub launch: Launch,
    /// Its UCI options, in name order.
    pub options: Vec<EngineOption>,
    /// Whether it ponders in real-time games.
    pub ponder: bool,
    /// Syzygy tables for the in-process engine (and a UCI engine's in-process stand-in),
    /// from `[tablebase]` (the bot's `Tablebases::equip`); none by default.
    pub syzygy: SyzygyOptions,
}

impl EngineChoice {
    /// A short description for the log: `ferz` or `uci:/usr/games/stockfish`.
    #[must_use]
    pub fn describe(&self) -> String {
        match self.kind {
            EngineKind::Ferz => "ferz".to_owned(),
            EngineKind::Uci => format!("uci:{}", self.launch.program.display()),
        }
    }
}

impl EngineConfig {
    /// The override table of `variant`, if the settings have one.
    #[must_use]
    pub fn override_for(&self, variant: EngineVariant) -> Option<&EngineOverride> {
        match variant {
            EngineVariant::Standard => self.variant.standard.as_ref(),
            EngineVariant::Chess960 => self.variant.chess960.as_ref(),
            EngineVariant::Shatranj => self.variant.shatranj.as_ref(),
        }
    }

    /// The engine for games of `variant`: `[engine]` with that variant's table applied.
    #[must_use]
    pub fn choice(&self, variant: EngineVariant) -> EngineChoice {
        let base = EngineChoice {
            kind: self.kind,
            launch: launch(&self.command, &self.args, &self.working_dir),
            options: uci_options(&self.options),
            ponder: self.ponder,
            syzygy: SyzygyOptions::default(),
        };
        let Some(table) = self.override_for(variant) else { return base };
        let kind = table.kind.unwrap_or(self.kind);
        let command = table.command.clone().unwrap_or_else(|| self.command.clone());
        let same_engine = kind == self.kind && command == self.command;
        let args = table.args.clone().unwrap_or_else(|| if same_engine { self.args.clone() } else { Vec::new() });
        let working_dir = table
            .working_dir
            .clone()
            .unwrap_or_else(|| if same_engine { self.working_dir.clone() } else { PathBuf::new() });
        let mut options = if same_engine { self.options.clone() } else { UciOptions::new() };
        options.extend(table.options.clone().unwrap_or_default());
        EngineChoice {
            kind,
            launch: launch(&command, &args, &working_dir),
            options: uci_options(&options),
            ponder: table.ponder.unwrap_or(self.ponder),
            syzygy: SyzygyOptions::default(),
        }
    }

    /// The key that names `variant`'s command: its table's when the table sets one.
    #[must_use]
    pub fn command_key(&self, variant: EngineVariant) -> &'static str {
        match self.override_for(variant).and_then(|table| table.command.as_ref()) {
            Some(_) => variant.keys().command,
            None => BASE_KEYS.command,
        }
    }

    /// The checks of the engine choice: a UCI engine needs a command, a working directory
    /// must exist, option names must be given and must not be ones the bot sets itself.
    pub(super) fn validate_choice(&self) -> Result<(), InvalidSetting> {
        in_range("engine.handshake_timeout_s", self.handshake_timeout_s, 1..=300, "use 1 to 300 seconds")?;
        in_range("engine.stall_ms", self.stall_ms, 100..=60_000, "use 100 to 60000 ms")?;
        check_table(self.kind, &self.command, &self.working_dir, &self.options, &BASE_KEYS)?;
        for variant in EngineVariant::ALL {
            let Some(table) = self.override_for(variant) else { continue };
            let choice = self.choice(variant);
            let keys = variant.keys();
            let command = self.command_key(variant);
            let working_dir = table.working_dir.as_ref().map_or(BASE_KEYS.working_dir, |_| keys.working_dir);
            let keys = Keys { command, working_dir, options: keys.options };
            let options: UciOptions = table.options.clone().unwrap_or_default();
            check_table(
                choice.kind,
                &choice.launch.program,
                &choice.launch.working_dir.unwrap_or_default(),
                &options,
                &keys,
            )?;
        }
        Ok(())
    }
}

fn check_table(
    kind: EngineKind,
    command: &std::path::Path,
    working_dir: &std::path::Path,
    options: &UciOptions,
    keys: &Keys,
) -> Result<(), InvalidSetting> {
    check(
        kind == EngineKind::Ferz || !command.as_os_str().is_empty(),
        keys.command,
        "\"\"",
        "kind = \"uci\" needs the engine's program, for example command = \"/usr/games/stockfish\"",
    )?;
    check(
        working_dir.as_os_str().is_empty() || working_dir.is_dir(),
        keys.working_dir,
        working_dir.display(),
        "not a directory",
    )?;
    for name in options.keys() {
        check(!name.trim().is_empty(), keys.options, "\"\"", "an option needs a name")?;
        check(
            !RESERVED_OPTIONS.iter().any(|r| r.eq_ignore_ascii_case(name.trim())),
            keys.options,
            name,
            "the bot sets UCI_Chess960 and UCI_Variant from the game's variant, and Ponder from engine.ponder",
        )?;
    }
    Ok(())
}

fn launch(command: &std::path::Path, args: &[String], working_dir: &std::path::Path) -> Launch {
    Launch {
        program: command.to_owned(),
        args: args.to_vec(),
        working_dir: (!working_dir.as_os_str().is_empty()).then(|| working_dir.to_owned()),
    }
}

fn uci_options(options: &UciOptions) -> Vec<EngineOption> {
    options.iter().map(|(name, value)| EngineOption::new(name.trim(), value.to_string())).collect()
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::path::Path;

    use super::*;
    use crate::config::BotConfig;

    fn load(text: &str, env: &[(&str, &str)]) -> Result<BotConfig, String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bot.toml");
        std::fs::write(&path, text).unwrap();
        let env: HashMap<String, String> = env.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        ferz_settings::load::<BotConfig>(Some(&path), Path::new("x"), &env).map(|(c, _)| c).map_err(|e| e.to_string())
    }

    #[test]
    fn the_shipped_settings_file_lists_the_engine_defaults() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../config/bot.toml");
        let (config, _) = ferz_settings::load::<BotConfig>(Some(&path), Path::new("x"), &HashMap::new()).unwrap();
        assert_eq!(config.engine, BotConfig::default().engine);
    }

    #[test]
    fn the_in_process_engine_is_the_default_and_ponders() {
        let config = BotConfig::default();
        let choice = config.engine.choice(EngineVariant::Chess960);
        assert_eq!((choice.kind, choice.ponder, choice.options.len()), (EngineKind::Ferz, true, 0));
        assert_eq!(choice.describe(), "ferz");
    }

    #[test]
    fn a_uci_engine_with_free_form_options_in_their_own_spelling() {
        let config = load(
            "[engine]\nkind = \"uci\"\ncommand = \"/usr/games/stockfish\"\nargs = [\"--x\"]\nponder = false\n\
             [engine.options]\nHash = 256\n\"Move Overhead\" = 100\nUCI_ShowWDL = true\nSyzygyPath = \"/tb\"\nSlowMover = 1.5\n",
            &[("FERZ__ENGINE__OPTIONS__THREADS", "4")],
        )
        .unwrap();
        config.validate().unwrap();
        let choice = config.engine.choice(EngineVariant::Standard);
        assert_eq!(choice.kind, EngineKind::Uci);
        assert_eq!(choice.launch, Launch::new("/usr/games/stockfish", &["--x".to_owned()]));
        assert!(!choice.ponder);
        let options: Vec<String> = choice.options.iter().map(ToString::to_string).collect();
        assert_eq!(
            options,
            ["Hash=256", "Move Overhead=100", "SlowMover=1.5", "SyzygyPath=/tb", "UCI_ShowWDL=true", "threads=4"],
            "names as written (an environment override arrives in lower case; the engine's list decides)"
        );
        assert_eq!(choice.describe(), "uci:/usr/games/stockfish");
    }

    #[test]
    fn variant_tables_override_or_name_another_engine() {
        let config = load(
            "[engine]\nkind = \"uci\"\ncommand = \"/opt/a\"\nargs = [\"-q\"]\n[engine.options]\nHash = 64\nThreads = 2\n\
             [engine.variant.chess960.options]\nHash = 128\n\
             [engine.variant.shatranj]\ncommand = \"/opt/fairy\"\n[engine.variant.shatranj.options]\nVariantPath = \"v.ini\"\n\
             [engine.variant.standard]\nkind = \"ferz\"\n",
            &[],
        )
        .unwrap();
        config.validate().unwrap();
        let e = &config.engine;
        // The same engine: the base options with the table's on top.
        let c960 = e.choice(EngineVariant::Chess960);
        assert_eq!(c960.launch, Launch::new("/opt/a", &["-q".to_owned()]));
        let names: Vec<String> = c960.options.iter().map(ToString::to_string).collect();
        assert_eq!(names, ["Hash=128", "Threads=2"]);
        // Another program: nothing of the base's arguments or options.
        let shatranj = e.choice(EngineVariant::Shatranj);
        assert_eq!(
            (shatranj.kind, shatranj.launch.program.to_str(), shatranj.launch.args.len()),
            (EngineKind::Uci, Some("/opt/fairy"), 0)
        );
        assert_eq!(shatranj.options, [EngineOption::new("VariantPath", "v.ini")]);
        // Back to the in-process engine for standard chess.
        assert_eq!(e.choice(EngineVariant::Standard).kind, EngineKind::Ferz);
        assert_eq!(EngineVariant::of_key("fromPosition"), EngineVariant::Standard);
    }

    #[test]
    fn bad_engine_settings_name_their_key() {
        let err = |text: &str| {
            let config = load(text, &[]).unwrap();
            config.validate().unwrap_err()
        };
        let e = err("[engine]\nkind = \"uci\"\n");
        assert_eq!(e.key, "engine.command");
        assert!(e.to_string().contains("kind = \"uci\" needs the engine's program"), "{e}");
        let e = err("[engine.variant.chess960]\nkind = \"uci\"\n");
        assert_eq!(e.key, "engine.command", "the table names no command: the base's is missing");
        let e = err("[engine]\nkind = \"uci\"\ncommand = \"/x\"\n[engine.variant.shatranj]\ncommand = \"\"\n");
        assert_eq!(e.key, "engine.variant.shatranj.command");
        let e = err("[engine]\nworking_dir = \"/nonexistent/dir\"\n");
        assert_eq!((e.key.as_ref(), e.value.as_str()), ("engine.working_dir", "/nonexistent/dir"));
        let e = err("[engine.options]\nUCI_Chess960 = true\n");
        assert_eq!((e.key.as_ref(), e.value.as_str()), ("engine.options", "UCI_Chess960"));
        let e = err("[engine.variant.standard.options]\nponder = true\n");
        assert_eq!((e.key.as_ref(), e.value.as_str()), ("engine.variant.standard.options", "ponder"));
        let e = err("[engine]\nstall_ms = 5\n");
        assert_eq!(e.key, "engine.stall_ms");
        let e = err("[engine]\nhandshake_timeout_s = 0\n");
        assert_eq!(e.key, "engine.handshake_timeout_s");
        // Shapes serde rejects while reading, with the key.
        let read_err = |text: &str| load(text, &[]).unwrap_err();
        let e = read_err("[engine]\nkind = \"xboard\"\n");
        assert!(e.contains("engine.kind: \"xboard\" is not an engine kind: use ferz or uci"), "{e}");
        let e = read_err("[engine.variant.atomic]\nkind = \"uci\"\n");
        assert!(e.contains("unknown field `atomic`"), "{e}");
        let e = read_err("[engine.variant.chess960]\ncomand = \"/x\"\n");
        assert!(e.contains("unknown field `comand`"), "{e}");
        let e = read_err("[engine.options]\nHash = [1, 2]\n");
        assert!(e.contains("engine.options") && e.contains("a string, a number or a boolean"), "{e}");
    }
}
