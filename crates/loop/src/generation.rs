//! One generation: self-play with the best net, the merge, training a candidate, the gate, and
//! the promotion. Each stage leaves a complete output or one its next run resumes:
//!
//! | stage | complete when | a killed stage resumes as |
//! |---|---|---|
//! | self-play | every shard has `manifest.json` | each shard from its checkpoint |
//! | merge | `data/manifest.json` (written last) | the merge starts over |
//! | train | `run.json` records the last epoch's net | `ferz train --resume` |
//! | scale | made again at every run (`train.scale = "best"`: `candidate.nnue`) | the same |
//! | gate | `gate/verdict.json` | the match resumes its PGN |
//! | promotion | the ledger holds the generation | the copy is made again |
//!
//! No stage reads another's unfinished output: each checks the previous one's completion mark.
//! A generation is made with the recipe written when it begins (`recipe.json`): changed
//! `[selfplay]` settings apply from the next generation, changed `[train]` and `[gate]` ones
//! from the stage they shape when it has not begun.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use ferz_dataset::layout::{MANIFEST_FILE, shard_dir};
use ferz_dataset::manifest::{differences, first_difference, sha256_bytes, write_json_if_absent};
use ferz_dataset::verify::{self, open_verified};
use ferz_selfplay::{SelfplayConfig, ShardSpec, run_shard};
use ferz_train::TrainConfig;

use crate::clock::{SAVE_INTERVAL, StageClock};
use crate::config::{LoopConfig, NetFamily, Recipe, StartingPoint, TrainInit};
use crate::gate::{GateCandidate, GateFiles, gate_config, play_gate, size_caveat};
use crate::layout::{RECIPE_FILE, copy_atomically, generation_dir, hash, read, selfplay_dir, train_dir, write};
use crate::ledger::{
    DataRecord, GateRecord, GenerationRecord, Ledger, NetRef, TrainRecord, Verdict, best_file, read_losses,
};
use crate::{Control, LoopError, Progress, Stage, fault};

/// Where a stopped generation got to.
pub enum Outcome {
    /// The generation is finished: its record, for the ledger.
    Finished(Box<GenerationRecord>),
    /// A stop was asked for; the next run continues.
    Stopped,
    /// The one shard asked for ([`SelfplayScope::Shard`]) is complete.
    ShardDone,
}

/// Which self-play a run of a generation does: on one machine, all of it; on a scheduler, each
/// task one shard, and the task after them none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SelfplayScope {
    /// Play every unfinished shard, then go on with the merge.
    All,
    /// Play this shard (one task of a job array), then return [`Outcome::ShardDone`].
    Shard(u32),
    /// Play none: every shard must be complete (the job after the array).
    None,
}

/// Runs (or continues) generation `g` of the loop in `dir`.
///
/// # Errors
/// A stage that fails: its error, naming the file.
pub fn run_generation(
    dir: &Path,
    ledger: &Ledger,
    g: u32,
    ferz: &Path,
    scope: SelfplayScope,
    control: &Control,
    progress: &mut dyn FnMut(Progress),
) -> Result<Outcome, LoopError> {
    let gen_dir = generation_dir(dir, g);
    std::fs::create_dir_all(&gen_dir).map_err(|source| LoopError::Io { path: gen_dir.clone(), source })?;
    let one_task = matches!(scope, SelfplayScope::Shard(_));
    let settings = &generation_settings(&gen_dir, &ledger.settings, g, !one_task, progress)?;
    let player = ledger.best();
    player.check(dir)?;
    let mut clock = StageClock::open(&gen_dir, SAVE_INTERVAL)?;

    // Self-play: `loop.threads` shards at once, each with one thread, so that every shard's
    // games are the same however often it is resumed (each checkpoints after every game).
    let selfplay = selfplay_config(dir, settings, &player, g);
    // The tasks of a job array run side by side: the generation's own records are written by
    // the job after them, never by two processes at once.
    if !one_task {
        write(&gen_dir.join("selfplay.json"), &selfplay)?;
    }
    let shards = settings.selfplay.shards;
    let unfinished = unfinished_shards(&selfplay.run.out, shards);
    let pending: Vec<u32> = match scope {
        SelfplayScope::All => unfinished,
        SelfplayScope::Shard(index) if index >= shards => {
            return Err(LoopError::Stage {
                stage: Stage::Selfplay,
                reason: format!("shard {index} of a generation of {shards} (selfplay.shards)"),
            });
        }
        SelfplayScope::Shard(index) => unfinished.into_iter().filter(|&i| i == index).collect(),
        SelfplayScope::None if !unfinished.is_empty() => {
            return Err(LoopError::Stage {
                stage: Stage::Selfplay,
                reason: format!(
                    "generation {g}: shards {unfinished:?} are not complete; play them first (ferz loop --shard-index)"
                ),
            });
        }
        SelfplayScope::None => Vec::new(),
    };
    if !pending.is_empty() {
        progress(Progress::Stage {
            generation: g,
            stage: Stage::Selfplay,
            detail: format!("{} of {shards} shards, {} at a time", pending.len(), parallel_shards(settings)),
        });
        if one_task {
            play_shards(&selfplay, shards, &pending, parallel_shards(settings), control, g, progress)?;
        } else {
            clock.start(Stage::Selfplay)?;
            let mut timed_progress = |event: Progress| {
                clock.tick();
                progress(event);
            };
            play_shards(&selfplay, shards, &pending, parallel_shards(settings), control, g, &mut timed_progress)?;
            clock.stop()?;
        }
    }
    if let SelfplayScope::Shard(index) = scope {
        let complete = shard_dir(&selfplay.run.out, index).join(MANIFEST_FILE).exists();
        return Ok(if complete { Outcome::ShardDone } else { Outcome::Stopped });
    }
    let mut shard_manifests = Vec::new();
    let played_with = serde_json::to_value(&selfplay)
        .map_err(|e| LoopError::Stage { stage: Stage::Selfplay, reason: e.to_string() })?;
    for index in 0..shards {
        let dir_of_shard = shard_dir(&selfplay.run.out, index);
        let manifest_path = dir_of_shard.join(MANIFEST_FILE);
        if !manifest_path.exists() {
            return Ok(Outcome::Stopped);
        }
        let manifest: ferz_dataset::ShardManifest = read(&manifest_path)?;
        if manifest.settings != played_with {
            return Err(LoopError::Stage {
                stage: Stage::Selfplay,
                reason: format!(
                    "{} was played with other settings than this loop's; move it away to play it again",
                    dir_of_shard.display()
                ),
            });
        }
        shard_manifests.push(hash(&manifest_path)?);
    }
    if control.stopping() {
        return Ok(Outcome::Stopped);
    }

    // The merge: into `data.part/`, renamed to `data/` when complete, so `data/` is always
    // whole and a `data.part/` left by a kill is merged again.
    let data_dir = gen_dir.join("data");
    let dataset = if data_dir.join(MANIFEST_FILE).exists() {
        open_verified(&data_dir)?
    } else {
        progress(Progress::Stage { generation: g, stage: Stage::Merge, detail: format!("{shards} shards") });
        clock.start(Stage::Merge)?;
        let manifest = merge(&gen_dir, &selfplay.run.out, shards, |_| Ok(()))?;
        clock.stop()?;
        verify::AnyManifest::Dataset(manifest)
    };
    let data = DataRecord {
        seed: selfplay.run.seed,
        shard_manifests,
        dataset_manifest: hash(&data_dir.join(MANIFEST_FILE))?,
        games: dataset.tally().games,
        positions: dataset.tally().positions(),
    };

    // Training: on the data of the generations `train.window` picks, resumed from its
    // checkpoint. Data of earlier generations that is gone is played again first.
    let (data_generations, train) = training_plan(dir, settings, &player, g);
    for &earlier in data_generations.iter().filter(|&&d| d < g) {
        if !restore_data(dir, ledger, earlier, &mut clock, control, progress)? {
            return Ok(Outcome::Stopped);
        }
    }
    let train_dir = train.output.dir.clone();
    let net_path = train_dir.join(ferz_train::trainer::NET_FILE);
    let run_path = train_dir.join(ferz_train::run::RUN_FILE);
    if !training_finished(&run_path, &net_path, &train)? {
        progress(Progress::Stage {
            generation: g,
            stage: Stage::Train,
            detail: format!("{} epochs", train.train.epochs),
        });
        clock.start(Stage::Train)?;
        let loaded = ferz_train::dataset::load(&train.data)?;
        let resume = train_dir.join(ferz_train::trainer::CHECKPOINT_FILE).exists();
        let mut observer = EpochFaults;
        let outcome = ferz_train::train(&train, &loaded, resume, &control.signals.stop, &mut observer)?;
        clock.stop()?;
        if !outcome.completed {
            return Ok(Outcome::Stopped);
        }
    }
    let run_record: ferz_train::run::RunRecord =
        ferz_train::run::RunRecord::load(&run_path).map_err(LoopError::from)?;
    let candidate = crate::scale::candidate_net(
        dir,
        &data_dir,
        settings,
        &net_path,
        &player,
        &gen_dir.join(crate::scale::CANDIDATE_FILE),
    )?;
    if !candidate.detail.is_empty() {
        progress(Progress::Stage { generation: g, stage: Stage::Train, detail: candidate.detail });
    }
    let (candidate_path, scale) = (candidate.path, candidate.scale);
    let train_record = TrainRecord {
        data_generations,
        positions: run_record.train_positions + run_record.validation_positions,
        run_record: hash(&run_path)?,
        candidate: hash(&candidate_path)?,
        scale,
        epochs: read_losses(&train_dir.join(ferz_train::trainer::LOSS_FILE))?,
    };

    // The gate: the candidate (A) against the best net (B), SPRT, resumable PGN.
    let files = GateFiles::of_generation(&gen_dir);
    let gate: GateRecord = if files.verdict.exists() {
        read(&files.verdict)?
    } else {
        let mut detail = format!("candidate vs gen {}", player.generation);
        if let Some(caveat) = size_caveat(dir, settings, &candidate_path, &player)? {
            detail.push_str("; ");
            detail.push_str(&caveat);
        }
        progress(Progress::Stage { generation: g, stage: Stage::Gate, detail });
        clock.start(Stage::Gate)?;
        let candidate = GateCandidate { net: candidate_path.clone(), name: format!("gen-{g}") };
        let config = gate_config(dir, settings, g, &candidate, &player, ferz, &files)?;
        let mut timed_progress = |event: Progress| {
            clock.tick();
            progress(event);
        };
        let played = play_gate(&config, settings, g, &files, control, &mut timed_progress)?;
        clock.stop()?;
        let Some(record) = played else { return Ok(Outcome::Stopped) };
        write(&files.verdict, &record)?;
        record
    };

    // Promotion: the candidate's copy in best/, and the export, made again after a kill.
    let promoted = gate.verdict == Verdict::AcceptH1;
    if promoted {
        clock.start(Stage::Promote)?;
        let target = dir.join(best_file(g));
        copy_atomically(&candidate_path, &target)?;
        fault::point("promote", 1);
        if !settings.run.export.as_os_str().is_empty() {
            copy_atomically(&candidate_path, &settings.run.export)?;
        }
        clock.stop()?;
    }
    Ok(Outcome::Finished(Box::new(GenerationRecord {
        generation: g,
        player,
        recipe: settings.recipe(),
        data,
        train: train_record,
        gate,
        promoted,
        stages: clock.times(),
    })))
}

/// Generation `g`'s training: the generations whose data it trains on (`train.window`), and
/// its settings, starting from `player`'s weights or random ones.
fn training_plan(dir: &Path, settings: &LoopConfig, player: &NetRef, g: u32) -> (Vec<u32>, TrainConfig) {
    let data_generations = settings.train.window.generations(g, player.generation);
    let init = match settings.train.init {
        TrainInit::Scratch => None,
        TrainInit::Best => player.path(dir),
    };
    let config = train_config(dir, settings, g, &data_generations, init);
    (data_generations, config)
}

/// The `ferz train` settings of generation `g`'s candidate (by default the generation in
/// progress, or the next): its data, seed, starting net, shape and schedule, so that a run of
/// `ferz train` with them trains the loop's candidate again, or, with a key changed, another
/// shape on the same data (`ferz loop gate` then judges it as the loop would).
///
/// # Errors
/// A generation the loop has not reached (beyond the next), or a recipe that cannot be read.
pub fn candidate_training(dir: &Path, ledger: &Ledger, g: Option<u32>) -> Result<(u32, TrainConfig), LoopError> {
    let next = ledger.generations.len() as u32 + 1;
    let g = g.unwrap_or(next);
    if g == 0 || g > next {
        return Err(LoopError::Ledger {
            path: dir.join(crate::ledger::LEDGER_FILE),
            reason: format!("no generation {g}: the loop has finished {} and the next is {next}", next - 1),
        });
    }
    let (settings, player) = ledger.made_with(dir, g)?;
    Ok((g, training_plan(dir, &settings, &player, g).1))
}

/// The settings generation `g` runs with: this run's, with the recipe the generation began with
/// when it has begun. A generation that begins now takes this run's recipe; of the tasks of a
/// job array that begin one side by side, the first to write it sets it for all.
///
/// A stage that has not begun takes this run's settings for it, so that a training shape or a
/// gate chosen while the hours of self-play run applies to the generation in progress: `[train]`
/// until the training's directory exists, `[gate]` until its games begin (`adopt`, which a task
/// of a job array does not: it plays shards only, and the job after the array adopts). The
/// recipe file is rewritten with them, so the ledger records what the generation was made with.
/// Settings the generation keeps though this run's differ are reported.
fn generation_settings(
    gen_dir: &Path,
    settings: &LoopConfig,
    g: u32,
    adopt: bool,
    progress: &mut dyn FnMut(Progress),
) -> Result<LoopConfig, LoopError> {
    let path = gen_dir.join(RECIPE_FILE);
    let this_run = settings.with_recipe(&settings.recipe());
    if !path.exists()
        && write_json_if_absent(&path, &this_run.recipe())
            .map_err(|source| LoopError::Io { path: path.clone(), source })?
    {
        return Ok(this_run);
    }
    let began = read::<Recipe>(&path)?;
    let mut recipe = began.clone();
    if adopt {
        let wanted = this_run.recipe();
        if !train_dir(gen_dir).exists() {
            recipe.train = wanted.train;
        }
        let gate = GateFiles::of_generation(gen_dir);
        if !gate.pgn.exists() && !gate.verdict.exists() {
            recipe.gate = wanted.gate.with_concurrency(began.gate.concurrency);
        }
        if recipe != began {
            for (key, was, now) in differences(&began.spelled_out(), &recipe.spelled_out(), "") {
                progress(Progress::AdoptedRecipe { generation: g, key, was, now });
            }
            write(&path, &recipe)?;
        }
    }
    let kept = settings.with_recipe(&recipe);
    let json = |settings: &LoopConfig| serde_json::to_value(settings).expect("settings serialise");
    if let Some((key, began, now)) = first_difference(&json(&kept), &json(&this_run), "") {
        progress(Progress::KeptRecipe { generation: g, key, began, now });
    }
    Ok(kept)
}

/// Merges a generation's complete shards into `data/`: written as `data.part/` and renamed when
/// complete, so `data/` is always whole and a `data.part/` left by a kill is merged again.
/// `check` sees the merged manifest first; its error leaves `data/` unwritten.
fn merge(
    gen_dir: &Path,
    selfplay_out: &Path,
    shards: u32,
    check: impl FnOnce(&Path) -> Result<(), LoopError>,
) -> Result<ferz_dataset::DatasetManifest, LoopError> {
    let part = gen_dir.join("data.part");
    if part.exists() {
        std::fs::remove_dir_all(&part).map_err(|source| LoopError::Io { path: part.clone(), source })?;
    }
    let shard_dirs: Vec<PathBuf> = (0..shards).map(|i| shard_dir(selfplay_out, i)).collect();
    let manifest = verify::merge(&part, &shard_dirs, None)?;
    check(&part.join(MANIFEST_FILE))?;
    fault::point("merge", 1);
    let data_dir = gen_dir.join("data");
    std::fs::rename(&part, &data_dir).map_err(|source| LoopError::Io { path: data_dir, source })?;
    Ok(manifest)
}

/// Plays finished generation `d`'s data again when `gen-000d/data/` is gone (a new machine, or
/// old data deleted for space) and a candidate is to train on it. The ledger's record has all it
/// takes: the net that played (checked against its SHA-256), the recipe and the seed. The merged
/// dataset must hash to the ledger's SHA-256, so the candidate trains on exactly the data the
/// ledger describes; a build that searches differently plays other games, and then the loop
/// stops and says so rather than train on data no record describes. Returns `false` when a
/// stop was asked for first (the shards continue next time). The time counts as the current
/// generation's self-play.
fn restore_data(
    dir: &Path,
    ledger: &Ledger,
    d: u32,
    clock: &mut StageClock,
    control: &Control,
    progress: &mut dyn FnMut(Progress),
) -> Result<bool, LoopError> {
    let gen_dir = generation_dir(dir, d);
    if gen_dir.join("data").join(MANIFEST_FILE).exists() {
        return Ok(true);
    }
    let ledger_path = dir.join(crate::ledger::LEDGER_FILE);
    let Some(record) = ledger.generations.iter().find(|r| r.generation == d) else {
        return Err(LoopError::Ledger {
            path: ledger_path,
            reason: format!("generation {d}'s data is gone and the ledger has no record to play it again from"),
        });
    };
    record.player.check(dir)?;
    std::fs::create_dir_all(&gen_dir).map_err(|source| LoopError::Io { path: gen_dir.clone(), source })?;
    let settings = ledger.settings.with_recipe(&record.recipe);
    let selfplay = selfplay_config(dir, &settings, &record.player, d);
    let shards = settings.selfplay.shards;
    let unfinished = unfinished_shards(&selfplay.run.out, shards);
    progress(Progress::Stage {
        generation: d,
        stage: Stage::Selfplay,
        detail: format!(
            "{} is gone: playing it again from the ledger ({} of {shards} shards, {} games, seed {})",
            gen_dir.join("data").display(),
            unfinished.len(),
            record.data.games,
            record.data.seed
        ),
    });
    clock.start(Stage::Selfplay)?;
    if !unfinished.is_empty() {
        let mut timed_progress = |event: Progress| {
            clock.tick();
            progress(event);
        };
        play_shards(&selfplay, shards, &unfinished, parallel_shards(&settings), control, d, &mut timed_progress)?;
    }
    if !unfinished_shards(&selfplay.run.out, shards).is_empty() || control.stopping() {
        clock.stop()?;
        return Ok(false);
    }
    let expected = record.data.dataset_manifest.as_str();
    let check = |manifest: &Path| {
        let found = hash(manifest)?;
        if found == expected {
            return Ok(());
        }
        Err(LoopError::Stage {
            stage: Stage::Selfplay,
            reason: format!(
                "generation {d}'s data, played again, is not the data the ledger records (dataset \
                 manifest SHA-256 {found}, the ledger's {expected}): this build searches otherwise than \
                 the one that played it. Put the original {} back, or train without it (train.window)",
                gen_dir.join("data").display()
            ),
        })
    };
    let merged = merge(&gen_dir, &selfplay.run.out, shards, check);
    clock.stop()?;
    merged?;
    Ok(true)
}

/// The shards of a self-play run in `out` that have no `manifest.json` yet.
fn unfinished_shards(out: &Path, shards: u32) -> Vec<u32> {
    (0..shards).filter(|&i| !shard_dir(out, i).join(MANIFEST_FILE).exists()).collect()
}

/// Shards played at once: one per thread the loop may use.
fn parallel_shards(settings: &LoopConfig) -> usize {
    match settings.run.threads {
        0 => std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
        n => n,
    }
}

/// Plays the `pending` shards, `parallel` at a time; returns when they are complete or a stop
/// was asked for (each stopped shard checkpointed).
fn play_shards(
    selfplay: &SelfplayConfig,
    count: u32,
    pending: &[u32],
    parallel: usize,
    control: &Control,
    generation: u32,
    progress: &mut dyn FnMut(Progress),
) -> Result<(), LoopError> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let (sender, events) = std::sync::mpsc::channel::<Result<Progress, String>>();
    std::thread::scope(|scope| {
        for _ in 0..parallel.min(pending.len()) {
            let sender = sender.clone();
            let next = &next;
            scope.spawn(move || {
                while let Some(&index) = pending.get(next.fetch_add(1, Ordering::SeqCst)) {
                    if control.stopping() {
                        break;
                    }
                    let result = run_shard(selfplay, ShardSpec { index, count }, true, &control.signals, &mut |p| {
                        fault::point("selfplay", p.session_games);
                        let games =
                            Progress::Games { generation, shard: index, done: p.tally.games, total: p.games_total };
                        let _ = sender.send(Ok(games));
                    });
                    if let Err(e) = result {
                        // One failed shard stops the others where they can continue.
                        control.signals.stop.store(true, Ordering::SeqCst);
                        let _ = sender.send(Err(format!("shard {index}: {e}")));
                        break;
                    }
                }
            });
        }
        drop(sender);
        let mut failure = None;
        for event in events {
            match event {
                Ok(event) => progress(event),
                Err(e) => {
                    failure.get_or_insert(e);
                }
            }
        }
        failure.map_or(Ok(()), |reason| Err(LoopError::Stage { stage: Stage::Selfplay, reason }))
    })
}

/// The self-play settings of generation `g`: the loop's few settings over the defaults, the
/// best net as the evaluation, and the generation's seed.
#[must_use]
pub fn selfplay_config(dir: &Path, settings: &LoopConfig, player: &NetRef, g: u32) -> SelfplayConfig {
    let s = &settings.selfplay;
    let mut config = SelfplayConfig::default();
    config.run.games = s.games;
    // One thread a shard: with more, threads share the opening cache in an order that depends
    // on timing, and a shard could not be played again exactly.
    config.run.threads = 1;
    config.run.out = selfplay_dir(&generation_dir(dir, g));
    config.run.seed = settings.run.generation_seed(g);
    config.run.checkpoint_seconds = 2;
    config.variants = match settings.run.net {
        NetFamily::Chess => ferz_selfplay::config::VariantMix { chess: s.chess, chess960: s.chess960, shatranj: 0 },
        NetFamily::Shatranj => ferz_selfplay::config::VariantMix { chess: 0, chess960: 0, shatranj: 1 },
    };
    config.search.nodes = s.nodes;
    config.search.hash_mb = s.hash_mb;
    config.search.params.clone_from(&s.params);
    config.search.use_nnue = !(player.generation == 0 && settings.run.start == StartingPoint::HandTuned);
    if let Some(file) = &player.file {
        let path = dir.join(file);
        match settings.run.net {
            NetFamily::Chess => config.search.eval_file = path,
            NetFamily::Shatranj => config.search.eval_file_shatranj = path,
        }
    }
    config.opening.multipv_plies = s.multipv_plies;
    config.opening.multipv_nodes = s.multipv_nodes;
    config.opening.random_plies = s.random_plies;
    // Position records in marlin form and the games: the text copy would double the disk.
    config.output.text = false;
    config
}

/// The training settings of generation `g`.
#[must_use]
pub fn train_config(
    dir: &Path,
    settings: &LoopConfig,
    g: u32,
    data_generations: &[u32],
    init: Option<PathBuf>,
) -> TrainConfig {
    let t = &settings.train;
    let mut config = TrainConfig::default();
    config.net.init = init.unwrap_or_default();
    config.data.inputs = t.extra_inputs.clone();
    config.data.inputs.extend(data_generations.iter().map(|&d| generation_dir(dir, d).join("data")));
    config.data.variant = match settings.run.net {
        NetFamily::Chess => ferz_train::config::NetVariant::Chess,
        NetFamily::Shatranj => ferz_train::config::NetVariant::Shatranj,
    };
    config.data.seed = settings.run.generation_seed(g);
    config.net.hidden = t.hidden;
    config.net.output_buckets = t.output_buckets;
    config.net.input_layout = t.input_layout;
    config.train.epochs = t.epochs;
    config.train.lambda = t.lambda;
    config.train.batch_size = t.batch_size;
    config.train.threads = settings.run.threads;
    config.optimizer.lr = t.lr;
    config.output.dir = train_dir(&generation_dir(dir, g));
    config
}

/// Pins generation 0's net for a loop that starts from the embedded net: the first time, the
/// embedded net is written to `best/gen-0000.nnue` and its SHA-256 goes into the ledger; later,
/// the file must still be that net (it is written again from the binary when missing and the
/// binary still embeds it). Every later use of generation 0 plays that file, so a build with
/// another default net continues the same loop. Returns whether the ledger changed.
///
/// A ledger of an older format has no pin: the file is then the net its generations used (the
/// loop wrote it before training first started from it) or, before that, the embedded net.
///
/// # Errors
/// A build without a net for the loop's variant, a `best/gen-0000.nnue` that is not the pinned
/// net, or one that cannot be written.
pub fn pin_generation_zero(dir: &Path, ledger: &mut Ledger) -> Result<bool, LoopError> {
    if ledger.settings.run.start == StartingPoint::HandTuned {
        return Ok(false);
    }
    let variant = ledger.settings.run.net.nnue_variant();
    let name = ledger.settings.run.net_name();
    let path = dir.join(best_file(0));
    if path.exists() {
        let found = hash(&path)?;
        return match &ledger.start_net {
            Some(pinned) if *pinned != found => Err(LoopError::Ledger {
                path,
                reason: format!("SHA-256 {found}, but the ledger's generation 0 is the net with SHA-256 {pinned}"),
            }),
            Some(_) => Ok(false),
            None => {
                ledger.start_net = Some(found);
                Ok(true)
            }
        };
    }
    let Some(bytes) = ferz_nnue::embedded::bytes(variant) else {
        return Err(LoopError::Ledger {
            path,
            reason: format!(
                "missing, and this build embeds no {name} net to start from (loop.start = \"hand-tuned\" starts \
                 from the hand-tuned evaluation)"
            ),
        });
    };
    let embedded_sha = sha256_bytes(bytes);
    if let Some(pinned) = &ledger.start_net
        && *pinned != embedded_sha
    {
        return Err(LoopError::Ledger {
            path,
            reason: format!(
                "missing; the loop's generation 0 is the net with SHA-256 {pinned}, and this build embeds \
                 another {name} net ({embedded_sha}): put that net here to continue the loop"
            ),
        });
    }
    std::fs::create_dir_all(dir.join("best")).map_err(|source| LoopError::Io { path: dir.join("best"), source })?;
    // The temporary file is this writer's own: the tasks of a job array may pin side by side.
    ferz_files::write_atomic(&path, bytes).map_err(|source| LoopError::Io { path: path.clone(), source })?;
    let changed = ledger.start_net.is_none();
    ledger.start_net = Some(embedded_sha);
    Ok(changed)
}

/// Whether the training run in `train_dir` wrote the net of its last epoch.
fn training_finished(run_path: &Path, net_path: &Path, config: &TrainConfig) -> Result<bool, LoopError> {
    if !run_path.exists() || !net_path.exists() {
        return Ok(false);
    }
    let record = ferz_train::run::RunRecord::load(run_path)?;
    Ok(record.net.is_some_and(|net| net.epochs == config.train.epochs && hash(net_path).ok() == Some(net.sha256)))
}

/// Training without a progress display (the loop reports stages, not batches), with the
/// fault point after each epoch.
struct EpochFaults;

impl ferz_train::Observer for EpochFaults {
    fn epoch_start(&mut self, _: u32, _: u32, _: u64, _: u64) {}
    fn batch(&mut self, _: u64, _: f64, _: f64) {}
    fn epoch_end(&mut self, report: &ferz_train::EpochReport) {
        fault::point("train", u64::from(report.epoch));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::LoopConfig;

    /// A loop directory holding `bytes` as the best net of `generation`.
    fn with_best_net(generation: u32, bytes: &[u8]) -> tempfile::TempDir {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("best")).unwrap();
        std::fs::write(tmp.path().join(best_file(generation)), bytes).unwrap();
        tmp
    }

    fn embedded_chess() -> &'static [u8] {
        ferz_nnue::embedded::bytes(ferz_nnue::NetVariant::Chess).expect("the build embeds a chess net")
    }

    #[test]
    fn a_stage_that_has_not_begun_takes_this_runs_settings() {
        let tmp = tempfile::tempdir().unwrap();
        let gen_dir = tmp.path();
        // With the search parameters spelled out, as a recipe holds them.
        let began = LoopConfig::default().with_recipe(&LoopConfig::default().recipe());
        let mut now = began.clone();
        now.selfplay.games += 1;
        now.train.epochs += 1;
        now.gate.games += 1;
        now.gate.concurrency += 1;
        let settings = |run: &LoopConfig, adopt: bool| {
            let mut events = Vec::new();
            let kept = generation_settings(gen_dir, run, 3, adopt, &mut |event| events.push(event)).unwrap();
            let keys: Vec<String> = events
                .into_iter()
                .map(|event| match event {
                    Progress::AdoptedRecipe { key, .. } => format!("adopted {key}"),
                    Progress::KeptRecipe { key, .. } => format!("kept {key}"),
                    _ => unreachable!(),
                })
                .collect();
            (kept, keys)
        };
        let recipe = || read::<Recipe>(&gen_dir.join(RECIPE_FILE)).unwrap();

        // The generation begins with the first run's recipe.
        assert_eq!(settings(&began, true).0, began);
        // A task of a job array plays shards only: it adopts nothing, and the recipe stays (the
        // first difference, in key order, is reported).
        let (kept, keys) = settings(&now, false);
        assert_eq!((kept.train.epochs, keys), (began.train.epochs, vec!["kept gate.games".to_owned()]));
        assert_eq!(recipe(), began.recipe());
        // Neither the training nor the gate has begun: both take this run's settings, the
        // self-play keeps its own, and the gate's concurrency is this run's without a record.
        let (kept, keys) = settings(&now, true);
        assert_eq!(keys, ["adopted gate.games", "adopted train.epochs", "kept selfplay.games"]);
        assert_eq!(
            (kept.selfplay.games, kept.train.epochs, kept.gate.games),
            (began.selfplay.games, now.train.epochs, now.gate.games)
        );
        assert_eq!(kept.gate.concurrency, now.gate.concurrency);
        assert_eq!((recipe().train.epochs, recipe().gate.concurrency), (now.train.epochs, began.gate.concurrency));

        // Once the training and the gate have begun, their settings stay.
        std::fs::create_dir_all(train_dir(gen_dir)).unwrap();
        let files = GateFiles::of_generation(gen_dir);
        std::fs::create_dir_all(files.pgn.parent().unwrap()).unwrap();
        std::fs::write(&files.pgn, "").unwrap();
        let mut later = now.clone();
        later.train.epochs += 1;
        later.gate.games += 1;
        let (kept, keys) = settings(&later, true);
        assert_eq!((kept.train.epochs, kept.gate.games), (now.train.epochs, now.gate.games));
        assert_eq!(keys, ["kept gate.games"]);
    }

    #[test]
    fn generation_zero_is_pinned_to_the_net_the_loop_began_with() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let mut ledger = Ledger::new(LoopConfig::default());
        assert!(pin_generation_zero(dir, &mut ledger).unwrap());
        let file = dir.join(best_file(0));
        assert_eq!(std::fs::read(&file).unwrap(), embedded_chess());
        let pinned = ledger.start_net.clone().unwrap();
        assert_eq!(pinned, sha256_bytes(embedded_chess()));
        let best = ledger.best();
        assert_eq!((best.generation, best.file, best.sha256), (0, Some(best_file(0)), Some(pinned.clone())));
        assert!(ledger.generation_zero().starts_with("the chess net embedded when the loop began (SHA-256 "));
        assert!(!pin_generation_zero(dir, &mut ledger).unwrap(), "a second opening changes nothing");

        // Gone: written again from the binary, which still embeds that net.
        std::fs::remove_file(&file).unwrap();
        assert!(!pin_generation_zero(dir, &mut ledger).unwrap());
        assert_eq!(std::fs::read(&file).unwrap(), embedded_chess());

        // Another net in its place is refused, naming the file and both hashes.
        std::fs::write(&file, b"another net").unwrap();
        let error = pin_generation_zero(dir, &mut ledger).unwrap_err().to_string();
        let other = sha256_bytes(b"another net");
        assert!(error.contains("gen-0000.nnue") && error.contains(&other) && error.contains(&pinned), "{error}");

        // Gone, and this build embeds another net: the loop cannot go on without the pinned one.
        std::fs::remove_file(&file).unwrap();
        ledger.start_net = Some("ab".repeat(32));
        let error = pin_generation_zero(dir, &mut ledger).unwrap_err().to_string();
        assert!(error.contains("missing") && error.contains(&"ab".repeat(32)) && error.contains(&pinned), "{error}");
        assert!(!file.exists());
    }

    #[test]
    fn a_ledger_from_before_the_pin_adopts_the_net_its_generations_played() {
        let tmp = with_best_net(0, b"the net of an earlier build");
        let dir = tmp.path();
        let mut ledger = Ledger::new(LoopConfig::default());
        assert!(pin_generation_zero(dir, &mut ledger).unwrap());
        assert_eq!(ledger.start_net, Some(sha256_bytes(b"the net of an earlier build")));
    }

    #[test]
    fn the_hand_tuned_start_pins_no_net() {
        let tmp = tempfile::tempdir().unwrap();
        let mut settings = LoopConfig::default();
        settings.run.start = StartingPoint::HandTuned;
        let mut ledger = Ledger::new(settings);
        assert!(!pin_generation_zero(tmp.path(), &mut ledger).unwrap());
        assert_eq!(ledger.start_net, None);
        assert!(!tmp.path().join(best_file(0)).exists());
        assert_eq!((ledger.best().file, ledger.best().sha256), (None, None));
        assert_eq!(ledger.generation_zero(), "the hand-tuned chess evaluation");
    }

    #[test]
    fn a_best_net_that_is_not_the_ledgers_is_refused_before_it_plays() {
        let tmp = with_best_net(2, b"generation 2");
        let dir = tmp.path();
        let best = NetRef { generation: 2, file: Some(best_file(2)), sha256: Some(sha256_bytes(b"generation 2")) };
        best.check(dir).unwrap();
        std::fs::write(dir.join(best_file(2)), b"generation 2, damaged").unwrap();
        let error = best.check(dir).unwrap_err().to_string();
        assert!(error.contains("gen-0002.nnue") && error.contains("the ledger's generation 2"), "{error}");
        std::fs::remove_file(dir.join(best_file(2))).unwrap();
        assert!(best.check(dir).unwrap_err().to_string().contains("gen-0002.nnue"));
    }
}
