//! Reading a settings struct from its layers, later ones winning: the struct's built-in
//! defaults, a TOML file (an explicit `--config`, or the default path when it exists), then
//! environment variables `FERZ__<SECTION>__<KEY>` (`FERZ__CHALLENGE__PYCHESS__MAX_BASE_S` for
//! a nested table).
//!
//! Values are taken as written, never coerced: an integer key takes an integer that fits it,
//! not `1.5`, `1e30` or `"0"`; a number too large for its key is refused naming the key. The
//! structs reject unknown keys themselves (`#[serde(deny_unknown_fields)]`); the errors here
//! say which key, in which file or variable, and what to do. [`load`] takes only variables
//! whose section the struct has (so `FERZ__LICHESS__...` for the bot does not trouble the
//! self-play worker); [`load_among`] also refuses a variable naming a section that no
//! settings file has. Range checks are the struct's `validate`, run by the caller after any
//! command-line overrides.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

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
        /// The parser's message, with the key or line.
        message: String,
    },
    /// A key is unknown, or a value does not fit its key.
    #[error("{origin}: {message}")]
    Value {
        /// The file (or the built-in defaults), or the environment variable that set the key.
        origin: String,
        /// The key and what is wrong with its value.
        message: String,
    },
}

/// Loads settings of type `T` from `explicit` (which must exist) or else from `default_path`
/// (used only when it exists), with environment overrides from `env` for the sections `T`
/// has (others are left to the settings they belong to). Returns the settings and where they
/// came from (`config/bot.toml + FERZ__CHALLENGE__CONCURRENCY`), for the log.
///
/// # Errors
/// A missing explicit file, a file that is not TOML, an unknown key or a value of the wrong
/// type or size (in the file or the environment): each names the key and the file or variable.
pub fn load<T>(
    explicit: Option<&Path>,
    default_path: &Path,
    env: &HashMap<String, String>,
) -> Result<(T, String), LoadError>
where
    T: DeserializeOwned + Serialize + Default,
{
    load_layers(explicit, default_path, env, None)
}

/// As [`load`], but a `FERZ__` variable whose section is neither `T`'s nor one of
/// `sibling_sections` (the sections of the other settings files sharing the environment) is
/// refused as an unknown key, as a misspelt key inside a known section is.
///
/// # Errors
/// As [`load`], and [`LoadError::Environment`] for a variable of no known section.
pub fn load_among<T>(
    explicit: Option<&Path>,
    default_path: &Path,
    env: &HashMap<String, String>,
    sibling_sections: &[String],
) -> Result<(T, String), LoadError>
where
    T: DeserializeOwned + Serialize + Default,
{
    load_layers(explicit, default_path, env, Some(sibling_sections))
}

/// The top-level sections of a settings struct, read off its default value.
#[must_use]
pub fn sections_of<T: Serialize>(value: &T) -> Vec<String> {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::Object(map)) => map.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

fn load_layers<T>(
    explicit: Option<&Path>,
    default_path: &Path,
    env: &HashMap<String, String>,
    sibling_sections: Option<&[String]>,
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
    let mut table = match path {
        Some(path) => {
            let syntax = |message: String| LoadError::Syntax { origin: file_origin.clone(), message };
            let text = std::fs::read_to_string(path).map_err(|e| syntax(e.to_string()))?;
            text.parse::<toml::Table>().map_err(|e| syntax(describe(&e, &text)))?
        }
        None => toml::Table::new(),
    };
    // Sorted, so that the origin (and which of two conflicting variables wins) does not depend
    // on the environment's order.
    let mut names: Vec<&String> = env.keys().collect();
    names.sort();
    let mut overrides: Vec<(String, String)> = Vec::new();
    for name in names {
        let Some(rest) = name.strip_prefix(ENV_PREFIX) else { continue };
        let key = rest.to_ascii_lowercase().replace("__", ".");
        let section = key.split('.').next().unwrap_or_default();
        if !sections.iter().any(|s| s == section) {
            match sibling_sections {
                Some(siblings) if !siblings.iter().any(|s| s == section) => {
                    let mut known: Vec<&String> = sections.iter().chain(siblings).collect();
                    known.sort();
                    known.dedup();
                    let known: Vec<&str> = known.iter().map(|s| s.as_str()).collect();
                    return Err(LoadError::Environment {
                        name: name.clone(),
                        message: format!("unknown section `{section}`; the sections are {}", known.join(", ")),
                    });
                }
                _ => continue,
            }
        }
        let environment = |message: String| LoadError::Environment { name: name.clone(), message };
        let value = parse_env_value(&env[name]).map_err(|m| environment(format!("{key}: {m}")))?;
        set_dotted(&mut table, &key, value).map_err(|m| environment(format!("{key}: {m}")))?;
        overrides.push((name.clone(), key));
    }
    let origin = if overrides.is_empty() {
        file_origin.clone()
    } else {
        let names: Vec<&str> = overrides.iter().map(|(name, _)| name.as_str()).collect();
        format!("{file_origin} + {}", names.join(", "))
    };
    // The merged layers are written out in TOML's canonical form and read back with the
    // struct's own types: no coercion, and an error's position names its key.
    let merged =
        toml::to_string(&table).map_err(|e| LoadError::Value { origin: origin.clone(), message: e.to_string() })?;
    let value = toml::from_str::<T>(&merged).map_err(|e| {
        let key = e.span().and_then(|span| key_at(&merged, span.start));
        // A key set by a variable is reported against that variable, not the file.
        let origin = key
            .as_deref()
            .and_then(|key| overrides.iter().rev().find(|(_, set)| key == set || key.starts_with(&format!("{set}."))))
            .map_or_else(|| file_origin.clone(), |(name, _)| format!("environment variable {name}"));
        let mut message = match key {
            Some(key) => format!("{key}: {}", e.message().trim()),
            None => e.message().trim().to_owned(),
        };
        if message.contains("unknown field") {
            message.push_str("; remove or rename the key (every key is listed with its default in config/)");
        }
        LoadError::Value { origin, message }
    })?;
    Ok((value, origin))
}

/// A TOML syntax error as `<key>: <message>` (the key read off the line the error points at),
/// or `line N: <message>`.
fn describe(error: &toml::de::Error, text: &str) -> String {
    let message = error.message().trim();
    let Some(span) = error.span() else { return message.to_owned() };
    match key_at(text, span.start) {
        Some(key) => format!("{key}: {message}"),
        None => format!("line {}: {message}", text[..span.start.min(text.len())].lines().count().max(1)),
    }
}

/// The dotted key of the `key = value` line (or `[table]` header) holding byte `at` of a
/// TOML text: the nearest table header above it, then the line's own key.
fn key_at(text: &str, at: usize) -> Option<String> {
    let at = at.min(text.len());
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = text[line_start..].lines().next().unwrap_or("").trim();
    let header = |line: &str| {
        let inner = line.strip_prefix('[')?.trim_start_matches('[');
        Some(inner.split(']').next()?.trim().replace(['"', ' '], ""))
    };
    if let Some(table) = header(line) {
        return Some(table);
    }
    let own = line.split('=').next()?.trim().trim_matches('"');
    if own.is_empty() {
        return None;
    }
    let table = text[..line_start].lines().rev().find_map(|l| header(l.trim()));
    let key = match table {
        Some(table) if !table.is_empty() => format!("{table}.{own}"),
        _ => own.to_owned(),
    };
    Some(key + &array_index(&text[line_start..at]))
}

/// `[i]` when a line's text up to an error (`key = ["a", "b`) ends inside an inline array:
/// the element's index, counted by the commas outside strings; else nothing.
fn array_index(before: &str) -> String {
    let Some((_, value)) = before.split_once('=') else { return String::new() };
    let (mut depth, mut index, mut in_string, mut escaped) = (0_usize, 0_usize, false, false);
    for c in value.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_string => escaped = true,
            '"' => in_string = !in_string,
            '[' if !in_string => depth += 1,
            ']' if !in_string => depth = depth.saturating_sub(1),
            ',' if !in_string && depth == 1 => index += 1,
            _ => {}
        }
    }
    if depth == 1 { format!("[{index}]") } else { String::new() }
}

/// Puts `value` at the dotted `key` of `table`, making the tables on the way.
fn set_dotted(table: &mut toml::Table, key: &str, value: toml::Value) -> Result<(), String> {
    let mut parts: Vec<&str> = key.split('.').collect();
    let last = parts.pop().unwrap_or_default();
    let mut current = table;
    for part in parts {
        let entry = current.entry(part.to_owned()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
        current = entry.as_table_mut().ok_or_else(|| format!("`{part}` is not a table"))?;
    }
    current.insert(last.to_owned(), value);
    Ok(())
}

/// Environment values are strings; booleans, numbers and arrays are read as TOML reads them
/// so that they meet the fields' types as a file's values do, and anything else is a string.
/// An integer too large for 64 bits is refused here, before it could pass for a float.
fn parse_env_value(value: &str) -> Result<toml::Value, String> {
    let text = value.trim();
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) && text.parse::<i64>().is_err() {
        return Err(format!("{text} is too large for a number here"));
    }
    if let Ok(table) = format!("v = {text}").parse::<toml::Table>()
        && let Some(parsed) = table.get("v")
        && matches!(
            parsed,
            toml::Value::Boolean(_) | toml::Value::Integer(_) | toml::Value::Float(_) | toml::Value::Array(_)
        )
    {
        return Ok(parsed.clone());
    }
    Ok(toml::Value::String(value.to_owned()))
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
        assert!(err.contains("sample.toml: run.gamez: unknown field `gamez`"), "{err}");
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
    fn numbers_are_taken_as_written_not_coerced() {
        let dir = tempfile::tempdir().unwrap();
        for (text, key, says) in [
            ("[run]\ngames = 1.5\n", "run.games", "floating point `1.5`"),
            ("[run]\ngames = 1e30\n", "run.games", "floating point"),
            ("[run]\nthreads = \"0\"\n", "run.threads", "string \"0\""),
            ("[run]\nthreads = -1\n", "run.threads", "-1"),
            ("[run]\ngames = 99999999999999999999999\n", "run.games", ""),
            ("[server.extra]\nlimit = 2.5\n", "server.extra.limit", "floating point"),
        ] {
            let path = write(dir.path(), text);
            let err = load::<Sample>(Some(&path), Path::new("x"), &no_env()).unwrap_err().to_string();
            assert!(
                err.contains("sample.toml") && err.contains(&format!("{key}: ")) && err.contains(says),
                "{text}: {err}"
            );
        }
        for (name, value, key) in [
            ("FERZ__RUN__THREADS", "1.5", "run.threads"),
            ("FERZ__RUN__GAMES", "99999999999999999999999", "run.games"),
            ("FERZ__RUN__GAMES", "1e30", "run.games"),
            ("FERZ__RUN__GAMES", "-3", "run.games"),
            ("FERZ__SERVER__EXTRA__LIMIT", "0.5", "server.extra.limit"),
        ] {
            let env = HashMap::from([(name.to_owned(), value.to_owned())]);
            let err = load::<Sample>(None, Path::new("x"), &env).unwrap_err().to_string();
            assert!(err.contains(name) && err.contains(key), "{name}={value}: {err}");
        }
    }

    #[test]
    fn a_variable_of_no_known_section_is_refused_among_siblings() {
        let env = HashMap::from([("FERZ__NOSECTION__X".to_owned(), "1".to_owned())]);
        // Alone, a struct cannot tell another file's section from a misspelt one...
        assert!(load::<Sample>(None, Path::new("x"), &env).is_ok());
        // ...among its siblings it can.
        let siblings = vec!["lichess".to_owned()];
        let err = load_among::<Sample>(None, Path::new("x"), &env, &siblings).unwrap_err().to_string();
        assert!(err.contains("FERZ__NOSECTION__X") && err.contains("unknown section `nosection`"), "{err}");
        let env = HashMap::from([("FERZ__LICHESS__URL".to_owned(), "http://x".to_owned())]);
        assert!(load_among::<Sample>(None, Path::new("x"), &env, &siblings).is_ok());
    }

    #[test]
    fn environment_values_are_typed() {
        assert_eq!(parse_env_value("true"), Ok(toml::Value::Boolean(true)));
        assert_eq!(parse_env_value("-4"), Ok(toml::Value::Integer(-4)));
        assert_eq!(parse_env_value("0.5"), Ok(toml::Value::Float(0.5)));
        assert_eq!(parse_env_value("180+2"), Ok(toml::Value::String("180+2".into())));
        assert!(parse_env_value("99999999999999999999999").unwrap_err().contains("too large"));
    }
}
