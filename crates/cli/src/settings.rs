//! Loading a TOML settings file into a crate's configuration struct.
//!
//! Layers, later ones winning: the struct's built-in defaults, the file (`--config`, or the
//! default path when it exists), then environment variables `FERZ__<SECTION>__<KEY>`. Only
//! variables whose section the struct has are taken, so `FERZ__LICHESS__...` for the bot does
//! not trouble the self-play worker. Unknown keys and bad values fail with the key and the
//! file, and the settings struct's own validation runs afterwards.

use std::collections::HashMap;
use std::path::Path;

use anyhow::{Context, bail};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// The prefix of environment overrides.
const ENV_PREFIX: &str = "FERZ__";

/// Loads settings of type `T` from `explicit` (which must exist) or else from `default_path`
/// (used only when it exists), with environment overrides from `env`.
pub fn load<T>(
    explicit: Option<&Path>,
    default_path: &Path,
    env: &HashMap<String, String>,
) -> anyhow::Result<(T, String)>
where
    T: DeserializeOwned + Serialize + Default,
{
    let (path, origin) = match explicit {
        Some(path) => {
            if !path.is_file() {
                bail!("settings file {} does not exist", path.display());
            }
            (Some(path), path.display().to_string())
        }
        None if default_path.is_file() => (Some(default_path), default_path.display().to_string()),
        None => (None, "built-in defaults".to_owned()),
    };
    let sections = sections_of(&T::default());
    let mut builder = config::Config::builder();
    if let Some(path) = path {
        builder = builder.add_source(config::File::from(path).format(config::FileFormat::Toml));
    }
    let mut overrides = Vec::new();
    for (name, value) in env {
        let Some(rest) = name.strip_prefix(ENV_PREFIX) else { continue };
        let key = rest.to_ascii_lowercase().replace("__", ".");
        let section = key.split('.').next().unwrap_or_default();
        if sections.iter().any(|s| s == section) {
            overrides.push(name.clone());
            builder = builder
                .set_override(&key, parse_env_value(value))
                .with_context(|| format!("environment variable {name}"))?;
        }
    }
    let settings = builder.build().with_context(|| format!("reading {origin}"))?;
    let value: T = settings.try_deserialize().map_err(|e| {
        let hint = if e.to_string().contains("unknown field") {
            "; remove or rename the key (every key is listed with its default in config/)"
        } else {
            ""
        };
        let env_note = if overrides.is_empty() { String::new() } else { format!(" with {}", overrides.join(", ")) };
        anyhow::anyhow!("{origin}{env_note}: {e}{hint}")
    })?;
    let origin = if overrides.is_empty() { origin } else { format!("{origin} + {}", overrides.join(", ")) };
    Ok((value, origin))
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
    use ferz_selfplay::SelfplayConfig;

    fn write(dir: &Path, text: &str) -> std::path::PathBuf {
        let path = dir.join("selfplay.toml");
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn files_and_environment_layer_over_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "[run]\ngames = 7\n[search]\nnodes = 1234\n");
        let env = HashMap::from([
            ("FERZ__RUN__THREADS".to_owned(), "3".to_owned()),
            ("FERZ__LICHESS__URL".to_owned(), "http://x".to_owned()),
            ("OTHER".to_owned(), "1".to_owned()),
        ]);
        let (config, origin): (SelfplayConfig, _) = load(Some(&path), Path::new("missing.toml"), &env).unwrap();
        assert_eq!((config.run.games, config.run.threads, config.search.nodes), (7, 3, 1234));
        assert_eq!(config.filter, SelfplayConfig::default().filter);
        assert!(origin.contains("FERZ__RUN__THREADS"), "{origin}");
    }

    #[test]
    fn the_documented_file_holds_exactly_the_defaults() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../config/selfplay.toml");
        let (config, _): (SelfplayConfig, _) = load(Some(&path), Path::new("x"), &HashMap::new()).unwrap();
        assert_eq!(config, SelfplayConfig::default());
    }

    #[test]
    fn the_documented_bot_file_holds_exactly_the_defaults() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../config/bot.toml");
        let (config, _): (ferz_bot::BotConfig, _) = load(Some(&path), Path::new("x"), &HashMap::new()).unwrap();
        assert_eq!(config, ferz_bot::BotConfig::default());
        let env = HashMap::from([("FERZ__CHALLENGE__CONCURRENCY".to_owned(), "4".to_owned())]);
        let (config, _): (ferz_bot::BotConfig, _) = load(Some(&path), Path::new("x"), &env).unwrap();
        assert_eq!(config.challenge.concurrency, 4);
    }

    #[test]
    fn the_documented_train_file_holds_exactly_the_defaults() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../config/train.toml");
        let (config, _): (ferz_train::TrainConfig, _) = load(Some(&path), Path::new("x"), &HashMap::new()).unwrap();
        assert_eq!(config, ferz_train::TrainConfig::default());
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("train.toml");
        std::fs::write(&path, "[optimizer]\nschedule = \"linear\"\n").unwrap();
        let err = load::<ferz_train::TrainConfig>(Some(&path), Path::new("x"), &HashMap::new()).unwrap_err();
        assert!(err.to_string().contains("linear") && err.to_string().contains("train.toml"), "{err}");
    }

    #[test]
    fn a_platform_table_in_a_file_and_the_platform_from_the_environment() {
        use ferz_lichess::Platform;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bot.toml");
        std::fs::write(&path, "[challenge]\nspeeds = [\"blitz\"]\n\n[challenge.pychess]\nspeeds = [\"rapid\"]\n")
            .unwrap();
        let env = HashMap::from([
            ("FERZ__LICHESS__PLATFORM".to_owned(), "pychess".to_owned()),
            ("FERZ__CHALLENGE__PYCHESS__MAX_BASE_S".to_owned(), "1200".to_owned()),
        ]);
        let (config, _): (ferz_bot::BotConfig, _) = load(Some(&path), Path::new("x"), &env).unwrap();
        config.validate().unwrap();
        assert_eq!(config.lichess.platform().unwrap(), Platform::PyChess);
        let policy = config.challenge.for_platform(Platform::PyChess);
        assert_eq!((policy.speeds, policy.max_base_s), (vec!["rapid".to_owned()], 1200));
        assert_eq!(policy.variants, ["standard", "chess960", "shatranj"]);
        std::fs::write(&path, "[challenge.pychess]\nvariant = [\"shatranj\"]\n").unwrap();
        let err = load::<ferz_bot::BotConfig>(Some(&path), Path::new("x"), &HashMap::new()).unwrap_err().to_string();
        assert!(err.contains("unknown field `variant`") && err.contains("bot.toml"), "{err}");
    }

    #[test]
    fn defaults_apply_without_a_file() {
        let (config, origin): (SelfplayConfig, _) =
            load(None, Path::new("/nonexistent/selfplay.toml"), &HashMap::new()).unwrap();
        assert_eq!(config, SelfplayConfig::default());
        assert_eq!(origin, "built-in defaults");
    }

    #[test]
    fn unknown_keys_and_bad_values_name_the_key_and_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "[run]\ngamez = 7\n");
        let err = load::<SelfplayConfig>(Some(&path), Path::new("x"), &HashMap::new()).unwrap_err().to_string();
        assert!(err.contains("gamez") && err.contains("selfplay.toml"), "{err}");
        let path = write(dir.path(), "[search]\nnodes = \"many\"\n");
        let err = load::<SelfplayConfig>(Some(&path), Path::new("x"), &HashMap::new()).unwrap_err().to_string();
        assert!(err.contains("nodes") && err.contains("selfplay.toml"), "{err}");
        let path = write(dir.path(), "[run\n");
        let err = load::<SelfplayConfig>(Some(&path), Path::new("x"), &HashMap::new()).unwrap_err().to_string();
        assert!(err.contains("selfplay.toml"), "{err}");
        let err =
            load::<SelfplayConfig>(Some(Path::new("/no/such.toml")), Path::new("x"), &HashMap::new()).unwrap_err();
        assert!(err.to_string().contains("/no/such.toml"));
    }
}
