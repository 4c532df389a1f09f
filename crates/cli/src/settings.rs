//! Settings for the subcommands: `ferz-settings` reads them (defaults, then the file, then
//! `FERZ__<SECTION>__<KEY>` environment overrides; unknown keys and bad values fail with the
//! key and the file). Each subcommand passes its default path (`config/bot.toml`,
//! `config/selfplay.toml`, ...) and the process environment, applies its command-line overrides,
//! then runs the settings' own `validate`.
//!
//! The tests here hold the files the CLI reads by default to the crates' defaults.

use std::collections::HashMap;
use std::path::Path;

use ferz_settings::LoadError;

/// Loads one subcommand's settings (see [`ferz_settings::load_among`]): a `FERZ__` variable
/// naming a section of no ferz settings file is refused, one naming another file's section
/// is left to that file.
pub fn load<T>(
    explicit: Option<&Path>,
    default_path: &Path,
    env: &HashMap<String, String>,
) -> Result<(T, String), LoadError>
where
    T: serde::de::DeserializeOwned + serde::Serialize + Default,
{
    let mut siblings = ferz_settings::sections_of(&ferz_bot::BotConfig::default());
    siblings.extend(ferz_settings::sections_of(&ferz_selfplay::SelfplayConfig::default()));
    siblings.extend(ferz_settings::sections_of(&ferz_train::TrainConfig::default()));
    siblings.extend(ferz_settings::sections_of(&ferz_loop::LoopConfig::default()));
    siblings.extend(ferz_settings::sections_of(&ferz_spsa::SpsaConfig::default()));
    ferz_settings::load_among(explicit, default_path, env, &siblings)
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
    fn the_documented_loop_file_holds_exactly_the_defaults() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../config/loop.toml");
        let (config, _): (ferz_loop::LoopConfig, _) = load(Some(&path), Path::new("x"), &HashMap::new()).unwrap();
        assert_eq!(config, ferz_loop::LoopConfig::default());
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
    fn the_documented_spsa_file_holds_exactly_the_defaults() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../config/spsa.toml");
        let (config, _): (ferz_spsa::SpsaConfig, _) = load(Some(&path), Path::new("x"), &HashMap::new()).unwrap();
        assert_eq!(config, ferz_spsa::SpsaConfig::default());
        config.validate().unwrap();
    }

    #[test]
    fn a_platform_table_in_a_file_and_the_platform_from_the_environment() {
        use ferz_bot::config::{Speed, Variant};
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
        assert_eq!(config.lichess.platform, Platform::PyChess);
        let policy = config.challenge.for_platform(Platform::PyChess);
        assert_eq!((policy.speeds, policy.max_base_s), (vec![Speed::Rapid], 1200));
        assert_eq!(policy.variants, [Variant::Standard, Variant::Chess960, Variant::Shatranj]);
        std::fs::write(&path, "[challenge.pychess]\nvariant = [\"shatranj\"]\n").unwrap();
        let err = load::<ferz_bot::BotConfig>(Some(&path), Path::new("x"), &HashMap::new()).unwrap_err().to_string();
        assert!(err.contains("unknown field `variant`") && err.contains("bot.toml"), "{err}");
        let env = HashMap::from([("FERZ__LICHESS__PLATFORM".to_owned(), "chesscom".to_owned())]);
        let err = load::<ferz_bot::BotConfig>(None, Path::new("x"), &env).unwrap_err().to_string();
        assert!(
            err.contains("FERZ__LICHESS__PLATFORM") && err.contains("lichess.platform: unknown platform `chesscom`"),
            "{err}"
        );
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
        assert!(err.contains("search.nodes") && err.contains("selfplay.toml"), "{err}");
        let path = write(dir.path(), "[run\n");
        let err = load::<SelfplayConfig>(Some(&path), Path::new("x"), &HashMap::new()).unwrap_err().to_string();
        assert!(err.contains("selfplay.toml"), "{err}");
        let err =
            load::<SelfplayConfig>(Some(Path::new("/no/such.toml")), Path::new("x"), &HashMap::new()).unwrap_err();
        assert!(err.to_string().contains("/no/such.toml"));
    }
}

/// Every key of every settings file, given a value of the wrong type, a float for an integer
/// and an integer too large for any key, in the file and in the environment: each is refused
/// with the key and the file or variable named.
#[cfg(test)]
mod every_key {
    use std::collections::HashMap;
    use std::path::Path;

    use serde_json::Value;

    /// `(dotted key, default)` of every leaf of `value` (tables are descended into).
    fn leaves(prefix: &str, value: &Value, out: &mut Vec<(String, Value)>) {
        match value {
            Value::Object(map) => {
                for (key, value) in map {
                    let dotted = if prefix.is_empty() { key.clone() } else { format!("{prefix}.{key}") };
                    leaves(&dotted, value, out);
                }
            }
            Value::Null => {}
            other => out.push((prefix.to_owned(), other.clone())),
        }
    }

    /// Values that cannot be right for a key whose default is `default`, as TOML text.
    fn wrong_values(default: &Value) -> Vec<&'static str> {
        match default {
            Value::Number(n) if n.is_f64() => vec!["\"fast\"", "true"],
            Value::Number(_) => vec!["\"7\"", "1.5", "99999999999999999999999", "true"],
            Value::Bool(_) => vec!["\"yes\"", "1"],
            Value::String(_) => vec!["[1, 2]", "{ a = 1 }"],
            Value::Array(_) => vec!["7", "{ a = 1 }"],
            _ => vec![],
        }
    }

    fn check_every_key<T>(file_name: &str)
    where
        T: serde::de::DeserializeOwned + serde::Serialize + Default,
    {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(file_name);
        let mut keys = Vec::new();
        leaves("", &serde_json::to_value(T::default()).unwrap(), &mut keys);
        assert!(keys.len() > 10, "{file_name}: {keys:?}");
        let mut tried = 0;
        for (key, default) in &keys {
            let (table, leaf) = key.rsplit_once('.').unwrap_or(("", key));
            // A seed may be written as digits: TOML's integers end at i64::MAX, seeds do not.
            let digits_allowed = key.as_str() == "data.seed" && file_name == "train.toml";
            for wrong in wrong_values(default).into_iter().filter(|w| !(digits_allowed && *w == "\"7\"")) {
                let text = if table.is_empty() {
                    format!("{leaf} = {wrong}\n")
                } else {
                    format!("[{table}]\n{leaf} = {wrong}\n")
                };
                std::fs::write(&path, &text).unwrap();
                let err = match super::load::<T>(Some(&path), Path::new("x"), &HashMap::new()) {
                    Ok(_) => panic!("{file_name}: {key} = {wrong} accepted"),
                    Err(err) => err.to_string(),
                };
                assert!(err.contains(file_name) && err.contains(key.as_str()), "{key} = {wrong}: {err}");
                tried += 1;
                // The environment's spelling of the same value.
                if !wrong.starts_with(['[', '{']) {
                    let name = format!("FERZ__{}", key.to_ascii_uppercase().replace('.', "__"));
                    let env = HashMap::from([(name.clone(), wrong.trim_matches('"').to_owned())]);
                    if super::load::<T>(None, Path::new("x"), &env).is_ok() {
                        // A string key takes any text; "7" for a number is the only legal reading.
                        assert!(matches!(default, Value::String(_)) || wrong == "\"7\"", "{name}={wrong} accepted");
                    } else {
                        let err = super::load::<T>(None, Path::new("x"), &env).err().unwrap().to_string();
                        assert!(err.contains(&name) && err.contains(key.as_str()), "{name}={wrong}: {err}");
                    }
                }
            }
        }
        assert!(tried > keys.len(), "{file_name}: {tried} tries");
    }

    #[test]
    fn every_selfplay_key_refuses_wrong_values() {
        check_every_key::<ferz_selfplay::SelfplayConfig>("selfplay.toml");
    }

    #[test]
    fn every_bot_key_refuses_wrong_values() {
        check_every_key::<ferz_bot::BotConfig>("bot.toml");
    }

    #[test]
    fn every_train_key_refuses_wrong_values() {
        check_every_key::<ferz_train::TrainConfig>("train.toml");
    }

    #[test]
    fn every_loop_key_refuses_wrong_values() {
        check_every_key::<ferz_loop::LoopConfig>("loop.toml");
    }

    #[test]
    fn every_spsa_key_refuses_wrong_values() {
        check_every_key::<ferz_spsa::SpsaConfig>("spsa.toml");
    }

    #[test]
    fn a_variable_of_no_section_is_refused_and_games_zero_is_invalid() {
        let env = HashMap::from([("FERZ__NOSECTION__X".to_owned(), "1".to_owned())]);
        let err = super::load::<ferz_selfplay::SelfplayConfig>(None, Path::new("x"), &env).unwrap_err().to_string();
        assert!(err.contains("FERZ__NOSECTION__X") && err.contains("unknown section"), "{err}");
        // Another file's section is that file's business.
        let env = HashMap::from([("FERZ__LICHESS__URL".to_owned(), "http://x".to_owned())]);
        assert!(super::load::<ferz_selfplay::SelfplayConfig>(None, Path::new("x"), &env).is_ok());
        let mut config = ferz_selfplay::SelfplayConfig::default();
        config.run.games = 0;
        assert_eq!(config.validate().unwrap_err().key, "run.games");
    }
}
