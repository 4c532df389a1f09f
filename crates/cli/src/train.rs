//! `ferz train`: an NNUE from self-play datasets, with a progress bar and a clean stop.

use ferz_nnue::InputLayout;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args;
use ferz_train::{EpochReport, Observer, TrainConfig};
use indicatif::{ProgressBar, ProgressStyle};

use crate::settings;

/// Arguments of `ferz train`.
#[derive(Args, Debug)]
pub struct TrainArgs {
    /// Shard or dataset directories (replace `data.inputs`).
    #[arg(value_name = "DATASET")]
    inputs: Vec<PathBuf>,
    /// Settings file; without it `config/train.toml` is read when it exists, else the built-in
    /// defaults.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Output directory for the checkpoint, nets and loss log (overrides `output.dir`).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Epochs (overrides `train.epochs`).
    #[arg(long)]
    epochs: Option<u32>,
    /// Hidden neurons per perspective (overrides `net.hidden`).
    #[arg(long)]
    hidden: Option<usize>,
    /// Output layers, one per bucket of piece counts, 1 to 8 (overrides `net.output_buckets`).
    #[arg(long)]
    output_buckets: Option<usize>,
    /// How the inputs depend on each side's king: plain, mirrored or king4 (four king buckets,
    /// mirrored) (overrides `net.input_layout`).
    #[arg(long, value_name = "LAYOUT")]
    input_layout: Option<InputLayout>,
    /// Gradient threads, 0 = one per CPU (overrides `train.threads`).
    #[arg(long)]
    threads: Option<usize>,
    /// Weight of the game result in the target (overrides `train.lambda`).
    #[arg(long)]
    lambda: Option<f64>,
    /// Peak learning rate (overrides `optimizer.lr`).
    #[arg(long)]
    lr: Option<f64>,
    /// Positions per batch (overrides `train.batch_size`).
    #[arg(long)]
    batch_size: Option<usize>,
    /// Start from this net's weights instead of random ones: fine-tune it, widened first when
    /// `--hidden` is larger and its output layer copied into each bucket when
    /// `--output-buckets` asks for several (overrides `net.init`).
    #[arg(long, value_name = "NET")]
    init: Option<PathBuf>,
    /// Continue the run in the output directory from its checkpoint.
    #[arg(long)]
    resume: bool,
}

/// The settings after the file, the environment and the flags.
fn settings_of(args: &TrainArgs) -> anyhow::Result<(TrainConfig, String)> {
    let env: std::collections::HashMap<String, String> = std::env::vars().collect();
    let (mut config, origin): (TrainConfig, String) =
        settings::load(args.config.as_deref(), std::path::Path::new("config/train.toml"), &env)?;
    if !args.inputs.is_empty() {
        config.data.inputs.clone_from(&args.inputs);
    }
    if let Some(out) = &args.out {
        config.output.dir.clone_from(out);
    }
    if let Some(epochs) = args.epochs {
        config.train.epochs = epochs;
    }
    if let Some(hidden) = args.hidden {
        config.net.hidden = hidden;
    }
    if let Some(buckets) = args.output_buckets {
        config.net.output_buckets = buckets;
    }
    if let Some(inputs) = args.input_layout {
        config.net.input_layout = inputs;
    }
    if let Some(init) = &args.init {
        config.net.init.clone_from(init);
    }
    if let Some(threads) = args.threads {
        config.train.threads = threads;
    }
    if let Some(lambda) = args.lambda {
        config.train.lambda = lambda;
    }
    if let Some(lr) = args.lr {
        config.optimizer.lr = lr;
    }
    if let Some(batch_size) = args.batch_size {
        config.train.batch_size = batch_size;
    }
    config.validate().with_context(|| format!("settings from {origin}"))?;
    Ok((config, origin))
}

/// Runs `ferz train`.
pub fn run(args: &TrainArgs) -> anyhow::Result<ExitCode> {
    let (config, origin) = settings_of(args)?;
    let stop = Arc::new(AtomicBool::new(false));
    let presses = Arc::new(AtomicU32::new(0));
    {
        let (stop, presses) = (Arc::clone(&stop), Arc::clone(&presses));
        ctrlc::set_handler(move || {
            if presses.fetch_add(1, Ordering::SeqCst) == 0 {
                eprintln!("stopping: writing the checkpoint after this batch (press Ctrl-C again to quit at once)");
                stop.store(true, Ordering::SeqCst);
            } else {
                std::process::exit(i32::from(crate::EXIT_INTERRUPTED));
            }
        })
        .context("installing the Ctrl-C / SIGTERM handler")?;
    }
    eprintln!(
        "ferz train: {:?} net {}->{}x2->1{}{} {:?}, {} epochs of batches of {}, lambda {}, {} threads, settings from \
         {origin}",
        config.data.variant,
        config.net.input_layout.inputs(),
        config.net.hidden,
        match config.net.input_layout {
            InputLayout::Plain => String::new(),
            inputs => format!(" ({inputs} inputs)"),
        },
        match config.net.output_buckets {
            1 => String::new(),
            buckets => format!(" ({buckets} output buckets)"),
        },
        config.net.activation,
        config.train.epochs,
        config.train.batch_size,
        config.train.lambda,
        config.threads()
    );
    let started = Instant::now();
    let data = ferz_train::dataset::load(&config.data)?;
    eprintln!(
        "data: {} (checksums verified, {:.1} s); {} training and {} validation positions",
        data.summary,
        started.elapsed().as_secs_f64(),
        data.train.len(),
        data.validation.len()
    );
    let mut reporter = Reporter::new();
    let outcome = ferz_train::train(&config, &data, args.resume, &stop, &mut reporter)?;
    reporter.finish();
    let seconds = (outcome.gradient_time + outcome.optimizer_time).as_secs_f64().max(1e-9);
    println!(
        "time: {:.1} s in gradients, {:.2} s in AdamW steps ({:.2}%)",
        outcome.gradient_time.as_secs_f64(),
        outcome.optimizer_time.as_secs_f64(),
        100.0 * outcome.optimizer_time.as_secs_f64() / seconds
    );
    println!(
        "wrote {}, {} and {}",
        outcome.net_path.display(),
        config.output.dir.join(ferz_train::trainer::LOSS_FILE).display(),
        config.output.dir.join(ferz_train::run::RUN_FILE).display()
    );
    if outcome.completed {
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("stopped; continue with the same settings and --resume");
        Ok(ExitCode::from(crate::EXIT_INTERRUPTED))
    }
}

/// A progress bar per epoch on a terminal, a log line every ten seconds elsewhere; a line per
/// epoch either way.
struct Reporter {
    bar: Option<ProgressBar>,
    last_log: Instant,
    epoch: u32,
    epochs: u32,
    positions: u64,
}

impl Reporter {
    fn new() -> Reporter {
        Reporter { bar: None, last_log: Instant::now(), epoch: 0, epochs: 0, positions: 0 }
    }

    fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

impl Observer for Reporter {
    fn initial(&mut self, validation_loss: f64) {
        println!("epoch 0: validation loss {validation_loss:.6}");
    }

    fn epoch_start(&mut self, epoch: u32, epochs: u32, positions: u64, done: u64) {
        (self.epoch, self.epochs, self.positions) = (epoch, epochs, positions);
        self.finish();
        self.bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(positions);
            bar.set_style(
                ProgressStyle::with_template("epoch {prefix} {bar:30} {pos}/{len} positions  {msg}  ETA {eta}")
                    .expect("a valid template"),
            );
            bar.set_prefix(format!("{epoch}/{epochs}"));
            bar.set_position(done);
            bar
        });
        self.last_log = Instant::now();
    }

    fn batch(&mut self, done: u64, loss: f64, positions_per_second: f64) {
        let message = format!("loss {loss:.6}  {positions_per_second:.0} positions/s");
        match &self.bar {
            Some(bar) => {
                bar.set_position(done);
                bar.set_message(message);
            }
            None if self.last_log.elapsed() >= Duration::from_secs(10) => {
                self.last_log = Instant::now();
                eprintln!("epoch {}/{} {done}/{} positions  {message}", self.epoch, self.epochs, self.positions);
            }
            None => {}
        }
    }

    fn epoch_end(&mut self, r: &EpochReport) {
        self.finish();
        println!(
            "epoch {}: train loss {:.6}, validation loss {:.6}, lr {:.2e}, {:.1} s, {:.0} positions/s",
            r.epoch, r.train_loss, r.validation_loss, r.lr, r.seconds, r.positions_per_second
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: TrainArgs,
    }

    #[test]
    fn flags_override_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("train.toml");
        std::fs::write(&file, "[train]\nepochs = 3\nlambda = 0.5\n[net]\nhidden = 64\n").unwrap();
        let cli = Cli::parse_from([
            "x",
            "d1",
            "d2",
            "--config",
            file.to_str().unwrap(),
            "--epochs",
            "9",
            "--hidden",
            "32",
            "--out",
            "o",
        ]);
        let (config, _) = settings_of(&cli.args).unwrap();
        assert_eq!(config.data.inputs, [PathBuf::from("d1"), PathBuf::from("d2")]);
        assert_eq!((config.train.epochs, config.net.hidden, config.train.lambda), (9, 32, 0.5));
        assert_eq!(config.output.dir, PathBuf::from("o"));
        let cli = Cli::parse_from(["x", "--config", file.to_str().unwrap()]);
        let err = format!("{:#}", settings_of(&cli.args).unwrap_err());
        assert!(err.contains("data.inputs"), "{err}");
    }
}
