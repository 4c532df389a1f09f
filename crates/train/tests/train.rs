//! Training on a real self-play shard: the validation loss falls, the written net agrees with
//! the float model, a stopped run resumes to the same weights, and whole games are held out.

use ferz_nnue::InputLayout;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use ferz_chess::Color;
use ferz_dataset::manifest::sha256_file;
use ferz_dataset::marlin::{RECORD_SIZE as MARLIN_SIZE, decode as read_marlin};
use ferz_dataset::verify::open_verified;
use ferz_engine::Signals;
use ferz_selfplay::config::{SelfplayConfig, VariantMix};
use ferz_selfplay::shard::{ShardSpec, run_shard};
use ferz_train::config::{Activation, DataConfig, NetVariant};
use ferz_train::dataset::{Dataset, load};
use ferz_train::run::{RUN_FILE, RunRecord};
use ferz_train::{EpochReport, Observer, TrainConfig, TrainError, train};

/// A shard of chess, Chess960 and Shatranj games, played once for all tests: 800 games, so that
/// a tiny net's validation loss falls by a tenth whatever the search's tuned values make of
/// the games (with 400, one set of values gave a fall of 6.7%).
fn shard() -> &'static Path {
    static DATA: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, dir) = DATA.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let mut config = SelfplayConfig::default();
        config.run.games = 800;
        config.run.threads = 2;
        config.run.out = tmp.path().to_path_buf();
        config.run.seed = 11;
        config.variants = VariantMix { chess: 3, chess960: 1, shatranj: 1 };
        config.search.nodes = 300;
        config.search.hash_mb = 1;
        config.opening.random_plies = 6;
        config.opening.multipv_plies = 0;
        config.adjudication.max_plies = 160;
        config.adjudication.win_cp = 600;
        config.adjudication.win_plies = 4;
        config.filter.min_ply = 6;
        config.cache.enabled = false;
        config.output.text = false;
        config.output.pgn = false;
        let outcome =
            run_shard(&config, ShardSpec { index: 0, count: 1 }, false, &Signals::default(), &mut |_| {}).unwrap();
        (tmp, outcome.dir)
    });
    dir
}

fn config(out: &Path) -> TrainConfig {
    let mut config = TrainConfig::default();
    config.data.inputs = vec![shard().to_path_buf()];
    config.data.validation_fraction = 0.2;
    config.net.hidden = 16;
    config.train.epochs = 12;
    config.train.batch_size = 64;
    config.train.threads = 2;
    config.train.lambda = 0.0;
    config.optimizer.lr = 0.002;
    config.output.dir = out.to_path_buf();
    config
}

/// The data [`config`]'s runs train on (the shard's chess and Chess960 positions).
fn chess_data() -> Dataset {
    load(&config(Path::new("unused")).data).unwrap()
}

/// Counts epochs; stops the run after `stop_after` batches when set.
#[derive(Default)]
struct Watch {
    batches: u64,
    stop_after: Option<u64>,
    stop: Option<&'static AtomicBool>,
    epochs: Vec<EpochReport>,
}

impl Observer for Watch {
    fn epoch_start(&mut self, _: u32, _: u32, _: u64, _: u64) {}
    fn batch(&mut self, _: u64, loss: f64, _: f64) {
        assert!(loss.is_finite());
        self.batches += 1;
        if let (Some(n), Some(stop)) = (self.stop_after, self.stop)
            && self.batches >= n
        {
            stop.store(true, Ordering::SeqCst);
        }
    }
    fn epoch_end(&mut self, report: &EpochReport) {
        self.epochs.push(report.clone());
    }
}

#[test]
fn a_tiny_run_lowers_the_validation_loss_and_writes_a_matching_net() {
    tiny_run(1, InputLayout::Plain);
}

#[test]
fn a_tiny_run_with_output_buckets_lowers_the_validation_loss_and_writes_a_matching_net() {
    tiny_run(8, InputLayout::Plain);
}

#[test]
fn a_tiny_mirrored_run_learns_and_writes_a_matching_net() {
    tiny_run(1, InputLayout::Mirrored);
}

#[test]
fn a_tiny_run_with_king_buckets_learns_and_writes_a_matching_net() {
    tiny_run(8, InputLayout::King4);
}

/// A tiny run of a net of `buckets` output buckets and input layout `inputs`, and its net file
/// checked against the trainer's model.
fn tiny_run(buckets: usize, inputs: InputLayout) {
    let out = tempfile::tempdir().unwrap();
    let mut config = config(out.path());
    config.net.output_buckets = buckets;
    config.net.input_layout = inputs;
    let data = chess_data();
    assert!(data.train.len() > 5000 && !data.validation.is_empty(), "{}", data.summary);
    let mut watch = Watch::default();
    let outcome = train(&config, &data, false, &AtomicBool::new(false), &mut watch).unwrap();
    assert!(outcome.completed);
    assert_eq!(watch.epochs.len(), 12);
    let last = watch.epochs.last().unwrap().validation_loss;
    // A mirroring layout gives each weight the positions of both halves of the board that a
    // plain net, trained on mirrored copies too, shares between two weights: on this shard of
    // a few thousand games it fits the training positions closer and the held-out ones less
    // well (mirrored: training loss 0.0055, validation 0.0299 after 12 epochs, against plain's
    // 0.0076 and 0.0244; four king buckets overfit further). So plain inputs are held to the
    // validation loss, and the others to learning their training positions.
    if inputs == InputLayout::Plain {
        assert!(
            last < 0.9 * outcome.initial_validation_loss,
            "validation loss {} -> {last}",
            outcome.initial_validation_loss
        );
    } else {
        let (first, end) = (watch.epochs[0].train_loss, watch.epochs.last().unwrap().train_loss);
        assert!(end < 0.5 * first, "training loss {first} -> {end}");
    }
    assert!(watch.epochs.last().unwrap().train_loss < watch.epochs[0].train_loss);
    let csv = std::fs::read_to_string(out.path().join("loss.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 1 + 12, "{csv}");

    // The file on disk is the trained float model, quantised: the inference crate's integer
    // evaluation and its float forward agree with the trainer's model on held-out positions.
    let net = ferz_nnue::format::load(&outcome.net_path, Some(ferz_nnue::NetVariant::Chess)).unwrap();
    assert_eq!((net.output_buckets(), net.inputs()), (buckets, inputs));
    let float = outcome.net.to_float();
    let dequantised = ferz_nnue::FloatNetwork::dequantise(&net);
    // Every written parameter is the trained one rounded to its step: 1/QA in the first layer,
    // 1/QB for the output weights, 1/(QA·QB) for the output bias.
    let within_half_a_step = |written: &[f32], trained: &[f32], scale: i32, what: &str| {
        assert_eq!(written.len(), trained.len(), "{what}");
        for (i, (w, t)) in written.iter().zip(trained).enumerate() {
            assert!((w - t).abs() <= 0.5 / scale as f32 + 1e-6, "{what}[{i}]: written {w}, trained {t}");
        }
    };
    within_half_a_step(&dequantised.feature_weights, &float.feature_weights, ferz_nnue::QA, "feature weight");
    within_half_a_step(&dequantised.feature_bias, &float.feature_bias, ferz_nnue::QA, "feature bias");
    within_half_a_step(&dequantised.output_weights, &float.output_weights, ferz_nnue::QB, "output weight");
    within_half_a_step(&dequantised.output_bias, &float.output_bias, ferz_nnue::QA * ferz_nnue::QB, "output bias");
    let (mut worst, mut total) = (0.0f32, 0.0f32);
    for record in &data.validation {
        let pos = read_marlin(record).unwrap().position;
        let sample = ferz_train::record::decode(record, inputs).unwrap();
        let ours = outcome.net.evaluate(sample.input(outcome.net.layout.output_buckets)) * 400.0;
        let reference = ferz_nnue::evaluate_float(&float, &pos);
        assert!((ours - reference).abs() < 1e-2, "float models differ: {ours} vs {reference}");
        let mut acc = ferz_nnue::Accumulator::new(&net);
        acc.refresh(&net, &pos);
        let quantised = ferz_nnue::evaluate(&net, &acc, &pos) as f32;
        // The integers are the written parameters' float forward up to the integer divisions.
        let written = ferz_nnue::evaluate_float(&dequantised, &pos);
        assert!((quantised - written).abs() <= 2.0, "{}: integer {quantised}, its float {written}", pos.fen());
        // And the written parameters are the trained ones up to rounding.
        worst = worst.max((quantised - ours).abs());
        total += (quantised - ours).abs();
    }
    let mean = total / data.validation.len() as f32;
    eprintln!("quantised vs trained float: mean {mean:.2} cp, worst {worst:.1} cp");
    // The parameters were checked exactly above; this is a loose check of the forward passes on
    // top. Rounding the 2·16 output weights to 1/64 may move an evaluation by up to
    // 400·32/128 = 100 cp, but on shards of this size the mean is 3-7 cp: a mean past 10 cp or a
    // position past 50 cp means the integer and float forwards disagree, not that rounding did it.
    assert!(mean < 10.0 && worst < 50.0, "quantised vs trained float: mean {mean} cp, worst {worst} cp");
}

#[test]
fn a_stopped_run_resumes_to_the_same_weights() {
    let straight_dir = tempfile::tempdir().unwrap();
    let mut straight_config = config(straight_dir.path());
    straight_config.train.epochs = 3;
    let data = chess_data();
    let straight = train(&straight_config, &data, false, &AtomicBool::new(false), &mut Watch::default()).unwrap();

    let dir = tempfile::tempdir().unwrap();
    let mut config = config(dir.path());
    config.train.epochs = 3;
    static STOP: AtomicBool = AtomicBool::new(false);
    // Stop in the middle of the second epoch.
    let batches = (data.train.len() as u64).div_ceil(64);
    let mut watch = Watch { stop_after: Some(batches + 2), stop: Some(&STOP), ..Watch::default() };
    let stopped = train(&config, &data, false, &STOP, &mut watch).unwrap();
    assert!(!stopped.completed);
    assert_eq!(watch.epochs.len(), 1);
    // Without --resume the run directory is not overwritten.
    let err = train(&config, &data, false, &AtomicBool::new(false), &mut Watch::default()).unwrap_err();
    assert!(err.to_string().contains("--resume"), "{err}");
    // A resume that would change the shuffles or the gradient sums is refused, naming the key.
    let mut other = config.clone();
    other.train.batch_size = 32;
    let err = train(&other, &data, true, &AtomicBool::new(false), &mut Watch::default()).unwrap_err();
    assert!(matches!(err, TrainError::Run { .. }) && err.to_string().contains("train.batch_size = 64"), "{err}");
    other = config.clone();
    other.train.threads = 1;
    let err = train(&other, &data, true, &AtomicBool::new(false), &mut Watch::default()).unwrap_err();
    assert!(err.to_string().contains("train.threads = 2"), "{err}");
    let stopped_record = RunRecord::load(&dir.path().join(RUN_FILE)).unwrap();
    let at_stop = stopped_record.net.as_ref().unwrap();
    assert_eq!((at_stop.epochs, at_stop.batches), (1, 2));
    let resumed = train(&config, &data, true, &AtomicBool::new(false), &mut Watch::default()).unwrap();
    assert!(resumed.completed);
    assert_eq!(resumed.net, straight.net, "the resumed run took another path");
    assert_eq!(std::fs::read(&resumed.net_path).unwrap(), std::fs::read(&straight.net_path).unwrap());
    // Both run records name the same data and the same net.
    let record = RunRecord::load(&dir.path().join(RUN_FILE)).unwrap();
    let straight_record = RunRecord::load(&straight_dir.path().join(RUN_FILE)).unwrap();
    assert_eq!(record, straight_record);
    let net = record.net.as_ref().unwrap();
    assert_eq!((net.epochs, net.batches), (3, 0));
    assert_eq!(net.sha256, sha256_file(&resumed.net_path).unwrap().0);
    let manifest = shard().join("manifest.json");
    assert_eq!(record.inputs[0].manifest_sha256, sha256_file(&manifest).unwrap().0);
    assert_eq!(record.inputs[0].positions, (data.train.len() + data.validation.len()) as u64);

    // Another shape than the checkpoint's is refused.
    config.net.hidden = 8;
    let err = train(&config, &data, true, &AtomicBool::new(false), &mut Watch::default()).unwrap_err();
    assert!(matches!(err, TrainError::Checkpoint { .. }) && err.to_string().contains("16"), "{err}");
    config.net.hidden = 16;
    config.net.activation = Activation::Crelu;
    assert!(train(&config, &data, true, &AtomicBool::new(false), &mut Watch::default()).is_err());
}

#[test]
fn a_net_fine_tuned_wider_starts_where_the_narrow_one_stands() {
    let data = chess_data();
    let narrow_dir = tempfile::tempdir().unwrap();
    let mut narrow_config = config(narrow_dir.path());
    narrow_config.train.epochs = 3;
    let narrow = train(&narrow_config, &data, false, &AtomicBool::new(false), &mut Watch::default()).unwrap();

    // Fine-tuning the written net at its own size and at twice its size starts from the same
    // validation loss: the widened net computes what the narrow one does.
    let start_from = |hidden: usize, buckets: usize| {
        let dir = tempfile::tempdir().unwrap();
        let mut config = config(dir.path());
        config.train.epochs = 2;
        config.net.hidden = hidden;
        config.net.output_buckets = buckets;
        config.net.init = narrow.net_path.clone();
        let mut watch = Watch::default();
        let outcome = train(&config, &data, false, &AtomicBool::new(false), &mut watch).unwrap();
        let net = ferz_nnue::format::load(&outcome.net_path, Some(ferz_nnue::NetVariant::Chess)).unwrap();
        let shape = (net.hidden(), net.output_buckets());
        (outcome.initial_validation_loss, watch.epochs.last().unwrap().validation_loss, shape, dir)
    };
    let (same_start, _, same_shape, _same) = start_from(16, 1);
    let (wide_start, wide_end, wide_shape, _wide) = start_from(32, 1);
    assert_eq!((same_shape, wide_shape), ((16, 1), (32, 1)));
    assert!(
        (same_start - wide_start).abs() < 1e-9,
        "the widened net starts at {wide_start}, the narrow at {same_start}"
    );
    assert!(wide_end < wide_start, "the widened net did not learn: {wide_start} -> {wide_end}");
    // Given output buckets (and widened too), every bucket starts as the one output layer.
    let (bucketed_start, bucketed_end, bucketed_shape, bucketed_dir) = start_from(32, 8);
    assert_eq!(bucketed_shape, (32, 8));
    assert!(
        (same_start - bucketed_start).abs() < 1e-6,
        "the bucketed net starts at {bucketed_start}, the one-bucket net at {same_start}"
    );
    assert!(bucketed_end < bucketed_start, "the bucketed net did not learn: {bucketed_start} -> {bucketed_end}");
    // Buckets are not merged: a bucketed net cannot fine-tune into one output layer.
    let dir = tempfile::tempdir().unwrap();
    let mut merged = config(dir.path());
    merged.net.hidden = 32;
    merged.net.init = bucketed_dir.path().join(ferz_train::trainer::NET_FILE);
    let err = train(&merged, &data, false, &AtomicBool::new(false), &mut Watch::default()).unwrap_err();
    assert!(err.to_string().contains("8 output buckets"), "{err}");

    // A net does not shrink: a smaller `net.hidden` than the init net's is refused.
    let dir = tempfile::tempdir().unwrap();
    let mut config = config(dir.path());
    config.net.hidden = 8;
    config.net.init = narrow.net_path.clone();
    let err = train(&config, &data, false, &AtomicBool::new(false), &mut Watch::default()).unwrap_err();
    assert!(err.to_string().contains("net.init") && err.to_string().contains("shrink"), "{err}");
}

#[test]
fn whole_games_are_held_out_and_the_variant_byte_is_honoured() {
    let manifest = open_verified(shard()).unwrap();
    let tally = manifest.tally();
    let games = |v: &str| tally.games_by_variant.get(v).copied().unwrap_or(0);
    let positions = |v: &str| tally.positions_by_variant.get(v).copied().unwrap_or(0);
    assert!(games("shatranj") > 0 && games("chess960") > 0);

    let chess = load(&DataConfig {
        inputs: vec![shard().to_path_buf()],
        variant: NetVariant::Chess,
        validation_fraction: 0.3,
        seed: 5,
    })
    .unwrap();
    // Every game is found: the boundaries split neither more nor fewer.
    assert_eq!(chess.summary.games, games("chess") + games("chess960"), "{}", chess.summary);
    assert_eq!(chess.summary.records, positions("chess") + positions("chess960"));
    assert_eq!(chess.summary.other_variant, positions("shatranj"));
    assert!(chess.summary.validation_games > 0 && chess.summary.validation_games < chess.summary.games);
    assert!(chess.train.iter().chain(&chess.validation).all(|r| r[31] <= 1));
    // No game has positions on both sides of the split: a game is a run of records in its file,
    // so every file's records, cut at the game marks, land wholly in one set.
    let file = std::fs::read(shard().join("chess.marlin")).unwrap();
    let records: Vec<[u8; MARLIN_SIZE]> = file.chunks_exact(MARLIN_SIZE).map(|c| c.try_into().unwrap()).collect();
    let mut game_of_record = Vec::new();
    let mut game = 0;
    for (i, r) in records.iter().enumerate() {
        if i > 0
            && ferz_train::record::GameMark::of(&records[i - 1]).starts_new_game(&ferz_train::record::GameMark::of(r))
        {
            game += 1;
        }
        game_of_record.push(game);
    }
    let validation: HashSet<&[u8; MARLIN_SIZE]> = chess.validation.iter().collect();
    let mut side_of_game: HashMap<usize, bool> = HashMap::new();
    for (record, game) in records.iter().zip(&game_of_record) {
        let held_out = validation.contains(record);
        assert_eq!(*side_of_game.entry(*game).or_insert(held_out), held_out, "game {game} is split");
    }
    assert_eq!(side_of_game.len(), game + 1);

    let shatranj = load(&DataConfig {
        inputs: vec![shard().to_path_buf()],
        variant: NetVariant::Shatranj,
        validation_fraction: 0.0,
        seed: 5,
    })
    .unwrap();
    assert_eq!(shatranj.summary.records, positions("shatranj"));
    assert!(shatranj.validation.is_empty());
    assert!(shatranj.train.iter().all(|r| r[31] == 2));
    let sample = ferz_train::record::decode(&shatranj.train[0], InputLayout::Plain).unwrap();
    let pos = read_marlin(&shatranj.train[0]).unwrap().position;
    let stm: Vec<usize> = ferz_nnue::features::active(InputLayout::Plain, &pos, pos.turn()).collect();
    let mut ours: Vec<usize> = sample.stm_features().iter().map(|&f| usize::from(f)).collect();
    ours.sort_unstable();
    let mut theirs = stm;
    theirs.sort_unstable();
    assert_eq!(ours, theirs);
    assert_eq!(pos.turn() == Color::White, shatranj.train[0][24] & 0x80 == 0);
}

#[test]
fn damaged_or_missing_data_is_refused_with_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("shard");
    std::fs::create_dir(&copy).unwrap();
    for entry in std::fs::read_dir(shard()).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), copy.join(entry.file_name())).unwrap();
    }
    let marlin = copy.join("chess.marlin");
    let mut bytes = std::fs::read(&marlin).unwrap();
    bytes[40] ^= 0x10;
    std::fs::write(&marlin, bytes).unwrap();
    let err =
        load(&DataConfig { inputs: vec![copy.clone()], variant: NetVariant::Chess, validation_fraction: 0.1, seed: 1 })
            .unwrap_err()
            .to_string();
    assert!(err.contains("chess.marlin") && err.contains("checksum"), "{err}");
    let err = load(&DataConfig {
        inputs: vec![tmp.path().join("nowhere")],
        variant: NetVariant::Chess,
        validation_fraction: 0.1,
        seed: 1,
    })
    .unwrap_err()
    .to_string();
    assert!(err.contains("nowhere") && err.contains("manifest"), "{err}");
}
