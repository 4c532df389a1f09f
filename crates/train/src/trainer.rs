//! The training loop: epochs of shuffled batches, AdamW, validation, checkpoints and nets.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use ferz_chess::SplitMix64;
use ferz_dataset::manifest::sha256_file;

use crate::TrainError;
use crate::batch::{MIRROR_BIT, Workspace, gradient, mean_loss};
use crate::checkpoint::Checkpoint;
use crate::config::TrainConfig;
use crate::dataset::Dataset;
use crate::export::write_net;
use crate::model::{Layout, Network};
use crate::optimizer::{AdamW, learning_rate};
use crate::run::{NetDigest, RUN_FILE, RunRecord};

/// The checkpoint's file name in the output directory.
pub const CHECKPOINT_FILE: &str = "checkpoint.bin";
/// The latest quantised net's file name.
pub const NET_FILE: &str = "net.nnue";
/// The loss log's file name: one CSV line per epoch.
pub const LOSS_FILE: &str = "loss.csv";

/// What one epoch did.
#[derive(Clone, Debug, PartialEq)]
pub struct EpochReport {
    /// The epoch, 1-based.
    pub epoch: u32,
    /// Mean training loss over the epoch's batches (as they were trained).
    pub train_loss: f64,
    /// Mean loss over the held-out games after the epoch (NaN without validation data).
    pub validation_loss: f64,
    /// The learning rate of the epoch's last batch.
    pub lr: f64,
    /// Wall time of the epoch's training (validation excluded).
    pub seconds: f64,
    /// Training positions per second.
    pub positions_per_second: f64,
}

/// Hears how a run goes (the CLI draws a progress bar from it).
pub trait Observer {
    /// The validation loss of the starting weights (not called on a resume).
    fn initial(&mut self, _validation_loss: f64) {}
    /// An epoch (1-based) of `positions` begins, `done` of them already trained (on a resume).
    fn epoch_start(&mut self, epoch: u32, epochs: u32, positions: u64, done: u64);
    /// After each batch: positions of the epoch done, the epoch's mean loss so far, and the
    /// speed since this call of [`train`] began the epoch.
    fn batch(&mut self, done: u64, loss: f64, positions_per_second: f64);
    /// An epoch ended.
    fn epoch_end(&mut self, report: &EpochReport);
}

/// The end of [`train`].
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// Whether every epoch ran (false: stopped; the checkpoint continues it).
    pub completed: bool,
    /// Validation loss of the starting weights (NaN on a resume or without validation data).
    pub initial_validation_loss: f64,
    /// The epochs this call of [`train`] completed.
    pub epochs: Vec<EpochReport>,
    /// The float network at the end.
    pub net: Network,
    /// The quantised net written last.
    pub net_path: PathBuf,
    /// Time in batch gradients and in optimiser steps during this call of [`train`].
    pub gradient_time: Duration,
    /// See `gradient_time`.
    pub optimizer_time: Duration,
}

/// Trains on `data` as `config` says, from scratch or (`resume`) from the output directory's
/// checkpoint. `stop` ends the run after the current batch, with a checkpoint.
pub fn train(
    config: &TrainConfig,
    data: &Dataset,
    resume: bool,
    stop: &AtomicBool,
    observer: &mut dyn Observer,
) -> Result<Outcome, TrainError> {
    let out = &config.output.dir;
    std::fs::create_dir_all(out).map_err(|source| TrainError::Io { path: out.clone(), source })?;
    let checkpoint_path = out.join(CHECKPOINT_FILE);
    let threads = config.threads();
    let lambda = config.train.lambda as f32;
    let mut state = start_state(config, &checkpoint_path, resume)?;
    let run_path = out.join(RUN_FILE);
    let mut run = RunRecord::new(config, data);
    if resume && run_path.exists() {
        let recorded = RunRecord::load(&run_path)?;
        recorded.check_resume(&run).map_err(|reason| TrainError::Run { path: run_path.clone(), reason })?;
        run.net = recorded.net;
    }
    // Written before the first batch: a fresh run's record, or a resume's once checked (a run
    // directory from before run records existed gets one from this resume's inputs).
    run.save(&run_path)?;
    let initial_validation_loss = if resume {
        f64::NAN
    } else {
        let loss = mean_loss(&state.net, &data.validation, lambda, threads);
        append_loss_line(out, &format!("0,,{loss:.6},,,"))?;
        observer.initial(loss);
        loss
    };

    let epochs = config.train.epochs;
    let batch_size = config.train.batch_size;
    let positions = data.train.len() as u64;
    let batches = positions.div_ceil(batch_size as u64);
    let total_steps = batches * u64::from(epochs);
    let mut work = Workspace::new(threads, state.net.params.len());
    let (mut gradient_time, mut optimizer_time) = (Duration::ZERO, Duration::ZERO);
    let mut reports = Vec::new();
    let net_path = out.join(NET_FILE);

    // `stop` ends the run after a batch (mid-epoch) or an epoch, its checkpoint and net written.
    'epochs: while state.epoch < epochs {
        let epoch = state.epoch;
        let mut order: Vec<u32> = (0..positions as u32).collect();
        let mut rng = SplitMix64::derive(config.data.seed, u64::from(epoch) + 1);
        rng.shuffle(&mut order);
        // A mirroring layout sees a position and its mirror image alike: nothing to add.
        if config.train.mirror && !config.net.input_layout.mirrors() {
            for entry in &mut order {
                if rng.next_u64() & 1 == 1 {
                    *entry |= MIRROR_BIT;
                }
            }
        }
        observer.epoch_start(epoch + 1, epochs, positions, (state.batch * batch_size as u64).min(positions));
        let started = Instant::now();
        let mut session_positions = 0u64;
        let mut lr = 0.0;
        for (b, part) in order.chunks(batch_size).enumerate().skip(state.batch as usize) {
            let t = Instant::now();
            let (grad, loss) = gradient(&state.net, &data.train, part, lambda, &mut work);
            let t2 = Instant::now();
            lr = learning_rate(&config.optimizer, u64::from(epoch) * batches + b as u64, total_steps, epoch);
            state.adam.update(&mut state.net.params, grad, lr, state.net.layout, &config.optimizer);
            gradient_time += t2 - t;
            optimizer_time += t2.elapsed();
            state.loss_sum += loss;
            state.loss_count += part.len() as u64;
            state.batch = b as u64 + 1;
            session_positions += part.len() as u64;
            let speed = session_positions as f64 / started.elapsed().as_secs_f64().max(1e-9);
            observer.batch(
                (state.batch * batch_size as u64).min(positions),
                state.loss_sum / state.loss_count as f64,
                speed,
            );
            if stop.load(Ordering::Relaxed) && state.batch < batches {
                state.to_checkpoint().save(&checkpoint_path)?;
                write_net(&state.net, config.data.variant, &net_path)?;
                record_net(&mut run, &run_path, &net_path, &state)?;
                break 'epochs;
            }
        }
        let seconds = started.elapsed().as_secs_f64();
        let report = EpochReport {
            epoch: epoch + 1,
            train_loss: state.loss_sum / state.loss_count.max(1) as f64,
            validation_loss: mean_loss(&state.net, &data.validation, lambda, threads),
            lr,
            seconds,
            positions_per_second: session_positions as f64 / seconds.max(1e-9),
        };
        state.epoch += 1;
        state.batch = 0;
        state.loss_sum = 0.0;
        state.loss_count = 0;
        state.to_checkpoint().save(&checkpoint_path)?;
        write_net(&state.net, config.data.variant, &net_path)?;
        record_net(&mut run, &run_path, &net_path, &state)?;
        if config.output.keep_epoch_nets {
            let kept = out.join(format!("net-epoch{}.nnue", epoch + 1));
            write_net(&state.net, config.data.variant, &kept)?;
        }
        append_loss_line(
            out,
            &format!(
                "{},{:.6},{:.6},{:.3e},{:.1},{:.0}",
                report.epoch,
                report.train_loss,
                report.validation_loss,
                report.lr,
                report.seconds,
                report.positions_per_second
            ),
        )?;
        observer.epoch_end(&report);
        reports.push(report);
        if stop.load(Ordering::Relaxed) && state.epoch < epochs {
            break;
        }
    }
    // A stop leaves an epoch to run: one stopped mid-epoch has not counted it.
    let completed = state.epoch >= epochs;
    if completed && reports.is_empty() {
        // A resume of a finished run: the net is rewritten so the output is complete.
        write_net(&state.net, config.data.variant, &net_path)?;
        record_net(&mut run, &run_path, &net_path, &state)?;
    }
    Ok(Outcome {
        completed,
        initial_validation_loss,
        epochs: reports,
        net: state.net,
        net_path,
        gradient_time,
        optimizer_time,
    })
}

/// The mutable state of a run: what a checkpoint holds.
struct State {
    variant: crate::config::NetVariant,
    net: Network,
    adam: AdamW,
    epoch: u32,
    batch: u64,
    loss_sum: f64,
    loss_count: u64,
}

impl State {
    fn to_checkpoint(&self) -> Checkpoint {
        Checkpoint {
            variant: self.variant,
            net: self.net.clone(),
            adam: self.adam.clone(),
            epoch: self.epoch,
            batch: self.batch,
            loss_sum: self.loss_sum,
            loss_count: self.loss_count,
        }
    }
}

/// A fresh state, or the checkpoint's after checking it fits the settings.
fn start_state(config: &TrainConfig, checkpoint_path: &Path, resume: bool) -> Result<State, TrainError> {
    let mismatch = |reason: String| TrainError::Checkpoint { path: checkpoint_path.to_path_buf(), reason };
    if !resume {
        if checkpoint_path.exists() {
            return Err(mismatch(
                "the output directory already holds a run; continue it with --resume or choose another output.dir"
                    .into(),
            ));
        }
        let net = initial_net(config)?;
        let adam = AdamW::new(net.params.len());
        return Ok(State { variant: config.data.variant, net, adam, epoch: 0, batch: 0, loss_sum: 0.0, loss_count: 0 });
    }
    if !checkpoint_path.exists() {
        return Err(mismatch("--resume given, but there is no checkpoint to resume".into()));
    }
    let c = Checkpoint::load(checkpoint_path)?;
    let (ours, asked) = (c.net.layout, Layout::of(&config.net));
    if ours != asked || c.net.activation != config.net.activation {
        return Err(mismatch(format!(
            "the checkpoint is a {} {:?} net of {} output buckets and {} inputs, the settings ask for {} {:?} of {} \
             and {}",
            ours.hidden,
            c.net.activation,
            ours.output_buckets,
            ours.inputs,
            asked.hidden,
            config.net.activation,
            asked.output_buckets,
            asked.inputs
        )));
    }
    if c.variant != config.data.variant {
        return Err(mismatch(format!(
            "the checkpoint is a {:?} net, the settings say {:?}",
            c.variant, config.data.variant
        )));
    }
    Ok(State {
        variant: c.variant,
        net: c.net,
        adam: c.adam,
        epoch: c.epoch,
        batch: c.batch,
        loss_sum: c.loss_sum,
        loss_count: c.loss_count,
    })
}

/// The weights a fresh run starts from: random, or the net file `net.init` names (widened to
/// `net.hidden` when that is bigger, its one output layer copied into each of
/// `net.output_buckets`; its input layout must be `net.input_layout`).
fn initial_net(config: &TrainConfig) -> Result<Network, TrainError> {
    let path = &config.net.init;
    let buckets = config.net.output_buckets;
    if path.as_os_str().is_empty() {
        return Ok(Network::random(Layout::of(&config.net), config.net.activation, config.data.seed));
    }
    let error = |reason: String| TrainError::Net { path: path.clone(), reason: format!("net.init: {reason}") };
    let quantised = ferz_nnue::format::load(path, Some(crate::export::nnue_variant(config.data.variant)))
        .map_err(|e| error(e.source.to_string()))?;
    let net = Network::from_float(&ferz_nnue::FloatNetwork::dequantise(&quantised));
    if net.layout.hidden > config.net.hidden || net.activation != config.net.activation {
        return Err(error(format!(
            "a {} {:?} net, the settings ask for {} {:?} (net.hidden, net.activation; a net can grow, not shrink)",
            net.layout.hidden, net.activation, config.net.hidden, config.net.activation
        )));
    }
    if net.layout.inputs != config.net.input_layout {
        return Err(error(format!(
            "a net of {} inputs, the settings ask for {} (net.input_layout; a net keeps its input layout: a mirrored \
             or king-bucketed net does not compute what a plain one does)",
            net.layout.inputs, config.net.input_layout
        )));
    }
    let have = net.layout.output_buckets;
    if have != buckets && have != 1 {
        return Err(error(format!(
            "a net of {have} output buckets, the settings ask for {buckets} (net.output_buckets; one output layer \
             can be copied into buckets, buckets cannot be merged or split)"
        )));
    }
    Ok(net.with_output_buckets(buckets).widened(config.net.hidden, config.data.seed))
}

/// Puts the net just written, and where the run stands, into the run record.
fn record_net(run: &mut RunRecord, run_path: &Path, net_path: &Path, state: &State) -> Result<(), TrainError> {
    let (sha256, _) =
        sha256_file(net_path).map_err(|source| TrainError::Io { path: net_path.to_path_buf(), source })?;
    run.net = Some(NetDigest { file: NET_FILE.to_owned(), sha256, epochs: state.epoch, batches: state.batch });
    run.save(run_path)
}

/// Appends a line to `loss.csv`, writing the header first when the file is new.
fn append_loss_line(out: &Path, line: &str) -> Result<(), TrainError> {
    let path = out.join(LOSS_FILE);
    let io = |source| TrainError::Io { path: path.clone(), source };
    let new = !path.exists();
    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(&path).map_err(io)?;
    if new {
        writeln!(file, "epoch,train_loss,validation_loss,lr,seconds,positions_per_second").map_err(io)?;
    }
    writeln!(file, "{line}").map_err(io)
}
