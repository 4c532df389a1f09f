//! Reading a settings struct from its layers, later ones winning: the struct's built-in
//! defaults, a TOML file (an explicit `--config`, or the default path when it exists), then
//! environment variables `FERZ__<SECTION>__<KEY>` (`FERZ__CHALLENGE__PYCHESS__MAX_BASE_S` for
//! a nested table).
//!
//! Only variables whose section the struct has are taken, so `FERZ__LICHESS__...` for the bot
//! does not trouble the self-play worker. The structs reject unknown keys themselves
//! (`#[serde(deny_unknown_fields)]`); the errors here say which key, in which file or
//! variable, and what to do. Range checks are the struct's `validate`, run by the caller
//! after any command-line overrides.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use config::ConfigError;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// The prefix of environment overrides.
pub const ENV_PREFIX: &str = "FERZ__";

/// Why settings could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The settings file given explicitly is not there.
    #[error("settings file {} does not exist", .0.display())]
    Missing(PathBuf),
    /// An environment override names a key that cannot be set.
    #[error("environment variable {name}: {message}")]
    Environment {
        /// The variable.
        name: String,
        /// What is wrong with it.
        message: String,
    },
    /// The file could not be read or is not TOML.
    #[error("reading {origin}: {message}")]
    Syntax {
        /// The file.
        origin: String,
        /// The parser's message, with the line.
        message: String,
    },
    /// A key is unknown, or a value does not fit its key.
    #[error("{origin}: {message}")]
    Value {
        /// The file (or the built-in defaults) and the environment variables applied.
        origin: String,
        /// The key and what is wrong with its value.
        message: String,
    },
}

/// Loads settings of type `T` from `explicit` (which must exist) or else from `default_path`
/// (used only when it exists), with environment overrides from `env`. Returns the settings and
/// where they came from (`config/bot.toml + FERZ__CHALLENGE__CONCURRENCY`), for the log.
///
/// # Errors
/// A missing explicit file, a file that is not TOML, an unknown key or a value of the wrong
/// type (in the file or the environment): each names the key and the file or variable.
pub fn load<T>(
    explicit: Option<&Path>,
    default_path: &Path,
    env: &HashMap<String, String>,
) -> Result<(T, String), LoadError>
where
    T: DeserializeOwned + Serialize + Default,
{
    let path = match explicit {
        Some(path) if !path.is_file() => return Err(LoadError::Missing(path.to_owned())),
        Some(path) => Some(path),
        None => default_path.is_file().then_some(default_path),
    };
    let file_origin = path.map_or_else(|| "built-in defaults".to_owned(), |p| p.display().to_string());
    let sections = sections_of(&T::default());
    let mut builder = config::Config::builder();
    if let Some(path) = path {
        builder = builder.add_source(config::File::from(path).format(config::FileFormat::Toml));
    }
    // Sorted, so that the origin (and which of two conflicting variables wins) does not depend
    // on the environment's order.
    let mut names: Vec<&String> = env.keys().collect();
    names.sort();
    let mut overrides = Vec::new();
    for name in names {
        let Some(rest) = name.strip_prefix(ENV_PREFIX) else { continue };
        let key = rest.to_ascii_lowercase().replace("__", ".");
        let section = key.split('.').next().unwrap_or_default();
        if sections.iter().any(|s| s == section) {
            builder = builder
                .set_override(&key, parse_env_value(&env[name]))
                .map_err(|e| LoadError::Environment { name: name.clone(), message: describe(&e) })?;
            overrides.push(name.clone());
        }
    }
    let origin =
        if overrides.is_empty() { file_origin.clone() } else { format!("{file_origin} + {}", overrides.join(", ")) };
    let settings = builder.build().map_err(|e| LoadError::Syntax { origin: file_origin, message: describe(&e) })?;
    let value = settings.try_deserialize().map_err(|e| {
        let mut message = describe(&e);
        if message.contains("unknown field") {
            message.push_str("; remove or rename the key (every key is listed with its default in config/)");
        }
        LoadError::Value { origin: origin.clone(), message }
    })?;
    Ok((value, origin))
}

/// A `config` error with its key in front (`matchmaking.time_controls[1]: "100+1" is not a
/// Lichess clock ...`) instead of trailing `for key ...` after a long message.
fn describe(error: &ConfigError) -> String {
    match error {
        ConfigError::At { error, key: Some(key), .. } => format!("{key}: {}", describe(error)),
        ConfigError::Type { unexpected, expected, key: Some(key), .. } => {
            format!("{key}: invalid type: {unexpected}, expected {expected}")
        }
        other => other.to_string(),
    }
}

/// The top-level sections of a settings struct, read off its default value.
fn sections_of<T: Serialize>(value: &T) -> Vec<String> {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::Object(map)) => map.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

/// Environment values are strings; numbers and booleans are typed so that they fit the fields.
fn parse_env_value(value: &str) -> config::Value {
    if let Ok(b) = value.parse::<bool>() {
        return b.into();
    }
    if let Ok(i) = value.parse::<i64>() {
        return i.into();
    }
    if let Ok(f) = value.parse::<f64>() {
        return f.into();
    }
    value.into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    /// A settings struct of the usual shape: sections of keys, an enum, a nested table.
    #[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
    #[serde(default, deny_unknown_fields)]
    struct Sample {
        run: Run,
        server: Server,
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default, deny_unknown_fields)]
    struct Run {
        games: u64,
        threads: usize,
        name: String,
    }

    impl Default for Run {
        fn default() -> Run {
            Run { games: 100, threads: 0, name: "ferz".into() }
        }
    }

    #[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum Kind {
        #[default]
        Fast,
        Slow,
    }

    #[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
    #[serde(default, deny_unknown_fields)]
    struct Server {
        kind: Kind,
        extra: Extra,
    }

    #[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
    #[serde(default, deny_unknown_fields)]
    struct Extra {
        limit: Option<u64>,
    }

    fn write(dir: &Path, text: &str) -> PathBuf {
        let path = dir.join("sample.toml");
        std::fs::write(&path, text).unwrap();
        path
    }

    fn no_env() -> HashMap<String, String> {
        HashMap::new()
    }

    #[test]
    fn files_and_environment_layer_over_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "[run]\ngames = 7\n[server]\nkind = \"slow\"\n");
        let env = HashMap::from([
            ("FERZ__RUN__THREADS".to_owned(), "3".to_owned()),
            ("FERZ__SERVER__EXTRA__LIMIT".to_owned(), "1200".to_owned()),
            ("FERZ__LICHESS__URL".to_owned(), "http://x".to_owned()),
            ("OTHER".to_owned(), "1".to_owned()),
        ]);
        let (sample, origin): (Sample, _) = load(Some(&path), Path::new("missing.toml"), &env).unwrap();
        assert_eq!((sample.run.games, sample.run.threads, sample.run.name.as_str()), (7, 3, "ferz"));
        assert_eq!((sample.server.kind, sample.server.extra.limit), (Kind::Slow, Some(1200)));
        // The variables taken are named, in order; the other section's is not.
        assert!(origin.ends_with("sample.toml + FERZ__RUN__THREADS, FERZ__SERVER__EXTRA__LIMIT"), "{origin}");
        // The environment beats the file.
        let env = HashMap::from([("FERZ__SERVER__KIND".to_owned(), "fast".to_owned())]);
        let (sample, _): (Sample, _) = load(Some(&path), Path::new("x"), &env).unwrap();
        assert_eq!(sample.server.kind, Kind::Fast);
    }

    #[test]
    fn the_default_path_is_optional_and_the_explicit_one_is_not() {
        let (sample, origin): (Sample, _) = load(None, Path::new("/nonexistent/sample.toml"), &no_env()).unwrap();
        assert_eq!((sample, origin.as_str()), (Sample::default(), "built-in defaults"));
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "[run]\ngames = 9\n");
        let (sample, _): (Sample, _) = load(None, &path, &no_env()).unwrap();
        assert_eq!(sample.run.games, 9);
        let err = load::<Sample>(Some(Path::new("/no/such.toml")), &path, &no_env()).unwrap_err();
        assert_eq!(err.to_string(), "settings file /no/such.toml does not exist");
    }

    #[test]
    fn unknown_keys_and_bad_values_name_the_key_and_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "[run]\ngamez = 7\n");
        let err = load::<Sample>(Some(&path), Path::new("x"), &no_env()).unwrap_err().to_string();
        assert!(err.contains("sample.toml: run: unknown field `gamez`"), "{err}");
        assert!(err.contains("remove or rename the key"), "{err}");
        let path = write(dir.path(), "[sever]\nkind = \"fast\"\n");
        let err = load::<Sample>(Some(&path), Path::new("x"), &no_env()).unwrap_err().to_string();
        assert!(err.contains("unknown field `sever`"), "{err}");
        let path = write(dir.path(), "[run]\ngames = \"many\"\n");
        let err = load::<Sample>(Some(&path), Path::new("x"), &no_env()).unwrap_err().to_string();
        assert!(err.contains("sample.toml: run.games: invalid type: string \"many\""), "{err}");
        let path = write(dir.path(), "[server]\nkind = \"medium\"\n");
        let err = load::<Sample>(Some(&path), Path::new("x"), &no_env()).unwrap_err().to_string();
        assert!(err.contains("sample.toml: server.kind: ") && err.contains("medium"), "{err}");
        let path = write(dir.path(), "[run\n");
        let err = load::<Sample>(Some(&path), Path::new("x"), &no_env()).unwrap_err();
        assert!(matches!(err, LoadError::Syntax { .. }), "{err}");
        assert!(err.to_string().starts_with("reading ") && err.to_string().contains("sample.toml"), "{err}");
    }

    #[test]
    fn bad_environment_values_name_the_variable() {
        let env = HashMap::from([("FERZ__RUN__GAMEZ".to_owned(), "3".to_owned())]);
        let err = load::<Sample>(None, Path::new("x"), &env).unwrap_err().to_string();
        assert!(err.contains("FERZ__RUN__GAMEZ") && err.contains("unknown field `gamez`"), "{err}");
        let env = HashMap::from([("FERZ__RUN__GAMES".to_owned(), "lots".to_owned())]);
        let err = load::<Sample>(None, Path::new("x"), &env).unwrap_err().to_string();
        assert!(err.contains("FERZ__RUN__GAMES") && err.contains("run.games"), "{err}");
    }

    #[test]
    fn environment_values_are_typed() {
        assert_eq!(parse_env_value("true"), config::Value::from(true));
        assert_eq!(parse_env_value("-4"), config::Value::from(-4_i64));
        assert_eq!(parse_env_value("0.5"), config::Value::from(0.5));
        assert_eq!(parse_env_value("180+2"), config::Value::from("180+2"));
    }
}
