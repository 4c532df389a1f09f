//! Settings for the subcommands: `ferz-settings` reads them (defaults, then the file, then
//! `FERZ__<SECTION>__<KEY>` environment overrides; unknown keys and bad values fail with the
//! key and the file). Each subcommand passes its default path (`config/bot.toml`,
//! `config/selfplay.toml`) and the process environment, applies its command-line overrides,
//! then runs the settings' own `validate`.
//!
//! The tests here hold the files the CLI reads by default to the crates' defaults.

pub use ferz_settings::load;

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::path::Path;

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
