//! `ferz bot` and `ferz bot upgrade`: settings, token, logging, signals, and the runtime.

use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Subcommand};
use ferz_bot::BotConfig;
use ferz_lichess::Token;

use crate::settings;

/// Arguments of `ferz bot`.
#[derive(Args, Debug)]
pub struct BotArgs {
    /// Settings file; without it `config/bot.toml` is read when it exists, else the built-in
    /// defaults.
    #[arg(long, value_name = "FILE", global = true)]
    config: Option<PathBuf>,
    /// Log detail: error, warn, info, debug or trace.
    #[arg(long, default_value = "info", global = true)]
    log_level: tracing::Level,
    /// Also log to this file, a new one every day (`logs/bot.log` writes
    /// `logs/bot.2026-11-24.log`); overrides `[log] file`.
    #[arg(long, value_name = "FILE", global = true)]
    log_file: Option<PathBuf>,
    #[command(subcommand)]
    action: Option<BotAction>,
}

/// What `ferz bot` does besides playing.
#[derive(Subcommand, Debug)]
enum BotAction {
    /// Turn the token's account into a BOT account (irreversible; the account must not have
    /// played any game).
    Upgrade,
}

/// The environment variable holding the API token.
const TOKEN_VAR: &str = "LICHESS_BOT_TOKEN";
/// The alternative spelling, in the settings' override style.
const TOKEN_VAR_ALT: &str = "FERZ__LICHESS__TOKEN";

/// Runs `ferz bot`.
pub fn run(args: &BotArgs) -> anyhow::Result<ExitCode> {
    let mut env: HashMap<String, String> = std::env::vars().collect();
    // The token is not a setting: take it out before the overrides are read, so it can never
    // end up in a settings error message.
    let token = env.remove(TOKEN_VAR).or_else(|| env.remove(TOKEN_VAR_ALT)).unwrap_or_default();
    env.remove(TOKEN_VAR_ALT);
    let (config, origin): (BotConfig, String) =
        settings::load(args.config.as_deref(), Path::new("config/bot.toml"), &env)?;
    config.validate().with_context(|| format!("settings from {origin}"))?;
    if !config.pgn.dir.as_os_str().is_empty() {
        ferz_bot::check_pgn_dir(&config.pgn.dir)
            .with_context(|| format!("pgn.dir = {}: cannot write PGN files there", config.pgn.dir.display()))?;
    }
    let log_file =
        args.log_file.as_deref().or_else(|| Some(config.log.file.as_path()).filter(|f| !f.as_os_str().is_empty()));
    // Colours only on a terminal: journald, kubectl logs and files get plain text. The guard
    // lives until this function returns, so the file gets every line, the last ones too.
    let _log = crate::bot_log::init(args.log_level, log_file, config.log.keep_days, std::io::stderr().is_terminal())?;
    let token = Token::new(token.trim());
    let runtime =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting the async runtime")?;
    match args.action {
        Some(BotAction::Upgrade) => runtime.block_on(async {
            let (name, upgraded) = ferz_bot::upgrade(&config, token).await?;
            if upgraded {
                println!("{name} is now a BOT account");
            } else {
                println!("{name} already is a BOT account");
            }
            Ok(ExitCode::SUCCESS)
        }),
        None => {
            tracing::info!(settings = %origin, "starting the bot");
            let (stop_tx, stop_rx) = tokio::sync::watch::channel(0u32);
            // Ctrl-C and SIGTERM: the first stops taking games, the second exits.
            ctrlc::set_handler(move || {
                stop_tx.send_modify(|n| *n += 1);
            })
            .context("installing the Ctrl-C handler")?;
            let has_file = log_file.is_some();
            let summary = runtime.block_on(ferz_bot::run(config, token, stop_rx)).inspect_err(|e| {
                // Into the log file too (stderr gets it from `main`).
                if has_file {
                    tracing::error!(error = %e, "the bot cannot run");
                }
            })?;
            let count = |result: &str| summary.games.iter().filter(|g| g.result == result).count();
            tracing::info!(
                games = summary.games.len(),
                white_won = count("1-0"),
                black_won = count("0-1"),
                drawn = count("1/2-1/2"),
                "bot stopped"
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}
