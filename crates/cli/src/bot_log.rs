//! `ferz bot`'s log: stderr always, and a file rotated daily when `--log-file` or `[log] file`
//! names one.

use std::path::Path;

use anyhow::Context;
use tracing_appender::non_blocking::{NonBlockingBuilder, WorkerGuard};
use tracing_appender::rolling::{RollingFileAppender, Rotation};
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

/// Keeps the log file's writer thread alive; dropping it writes out every line still queued.
#[must_use = "dropping the guard stops the log file's writer"]
pub struct LogGuard {
    _file: Option<WorkerGuard>,
}

/// Sends `level` and above to stderr (colours only on a terminal) and, with `file`, to daily
/// files beside it: `logs/bot.log` writes `logs/bot.2026-11-24.log`, a new one each UTC day,
/// keeping the newest `keep_days`.
///
/// # Errors
/// The directory or the file cannot be created (the message names `log.file`).
pub fn init(level: tracing::Level, file: Option<&Path>, keep_days: usize, ansi: bool) -> anyhow::Result<LogGuard> {
    let stderr = tracing_subscriber::fmt::layer().with_target(false).with_ansi(ansi).with_writer(std::io::stderr);
    let (file_layer, guard) = match file {
        Some(path) => {
            let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            let stem = path.file_stem().and_then(|s| s.to_str()).filter(|s| !s.is_empty()).with_context(|| {
                format!("log.file = {}: name a file with a UTF-8 name, e.g. logs/bot.log", path.display())
            })?;
            std::fs::create_dir_all(dir)
                .with_context(|| format!("log.file = {}: cannot create {}", path.display(), dir.display()))?;
            let mut builder =
                RollingFileAppender::builder().rotation(Rotation::DAILY).filename_prefix(stem).max_log_files(keep_days);
            if let Some(extension) = path.extension().and_then(|e| e.to_str()) {
                builder = builder.filename_suffix(extension);
            }
            let appender = builder
                .build(dir)
                .with_context(|| format!("log.file = {}: cannot open the log file", path.display()))?;
            // Lossless: a burst of lines waits for the writer rather than being dropped.
            let (writer, guard) = NonBlockingBuilder::default().lossy(false).finish(appender);
            let layer = tracing_subscriber::fmt::layer().with_target(false).with_ansi(false).with_writer(writer);
            (Some(layer), Some(guard))
        }
        None => (None, None),
    };
    tracing_subscriber::registry().with(LevelFilter::from_level(level)).with(stderr).with(file_layer).init();
    Ok(LogGuard { _file: guard })
}
