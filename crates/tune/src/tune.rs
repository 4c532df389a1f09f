//! `ferz-tune tune`: Texel tuning of one variant's evaluation weights.
//!
//! The loss is the mean squared error between a position's game result and
//! `sigmoid(K × eval)`, with `eval` the static evaluation in centipawns from white's side and
//! `K` fitted once on the starting weights (and then held, so that the weights cannot drift in
//! scale).
//!
//! The evaluation is not written as a linear function of its weights (king danger is
//! quadratic and capped, drawish endings are scaled, taper rounds), so the tuner linearises it
//! numerically: for each weight `j` and position `i` the coefficient is
//! `(eval(w + step_j e_j) - eval(w)) / step_j`, kept only where it is not zero. Adam then
//! minimises the loss of that linear model in memory (stopping early where the same model's
//! loss on the validation positions was lowest), the weights are rounded to integers,
//! and the process repeats around the new weights for a few rounds so that the nonlinear terms
//! are followed. After every round the exact loss is measured with the real evaluation, on the
//! training positions and on a held-out validation slice; the round with the lowest validation
//! loss wins.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context as _, Result, bail};
use ferz_chess::{Position, Variant};
use ferz_engine::eval::tuning::{Weights, evaluate_with_params};
use ferz_engine::see::see_ge;

use crate::data::Record;

/// Everything `tune` needs; also its command line (`ferz-tune tune --help`).
#[derive(Clone, Debug, clap::Args)]
pub struct TuneConfig {
    /// `chess` tunes the chess and Chess960 weights.
    #[arg(long)]
    pub variant: Variant,
    /// Dataset files.
    #[arg(long, num_args = 1.., required = true)]
    pub data: Vec<PathBuf>,
    /// Adam epochs per round.
    #[arg(long, default_value_t = 400)]
    pub epochs: usize,
    /// Linearise-and-optimise rounds.
    #[arg(long, default_value_t = 3)]
    pub rounds: usize,
    /// Adam step size, in weight units (centipawns for most weights).
    #[arg(long, default_value_t = 1.0)]
    pub learning_rate: f64,
    /// Share of each file (its end) held out for validation.
    #[arg(long, default_value_t = 0.1)]
    pub validation_fraction: f64,
    /// Threads for measuring the coefficients.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Drop positions with a search score beyond this (decided games teach little).
    #[arg(long, default_value_t = 2000)]
    pub max_score: i32,
    /// Drop positions whose static evaluation is this far from the search score (tactics the
    /// evaluation cannot see).
    #[arg(long, default_value_t = 300)]
    pub max_eval_diff: i32,
    /// Weight of the game result in the target; the rest is sigmoid(K x search score) (1: pure
    /// Texel tuning against results).
    #[arg(long, default_value_t = 1.0)]
    pub lambda: f64,
    /// Which K turns search scores into expected results: `shared` (the evaluation's K; our
    /// own scores) or `fitted` (fitted to the scores and results; another engine's scores).
    #[arg(long, value_enum, default_value_t = ScoreK::Shared)]
    pub score_k: ScoreK,
    /// Read at most this many lines per file (0: all).
    #[arg(long, default_value_t = 0)]
    pub limit: usize,
    /// Where to write the tuned weights (e.g. crates/engine/src/eval/chess_weights.rs).
    #[arg(long)]
    pub out_rs: Option<PathBuf>,
    /// The command line, for the generated file's header.
    #[arg(skip)]
    pub command: String,
}

/// How the search score of a position becomes an expected result in the target.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ScoreK {
    /// The evaluation's own `K`: right when our engine wrote the scores (same scale).
    Shared,
    /// A `K` fitted to the scores and the results: right when another engine wrote them, whose
    /// centipawns mean a different winning chance. The evaluation keeps its own scale and
    /// learns the teacher's judgement, not its units.
    Fitted,
}

/// One training position.
#[derive(Clone, Debug)]
pub struct Sample {
    /// The position.
    pub pos: Position,
    /// The game result, white-relative.
    pub result: f64,
    /// The search score in centipawns, white-relative.
    pub score: i32,
}

/// Reasons positions were dropped while loading.
#[derive(Default, Debug)]
struct Dropped {
    score: usize,
    eval_diff: usize,
    not_quiet: usize,
}

/// Whether the side to move has a capture that wins material by static exchange: the static
/// evaluation of such a position is not what quiescence search would return.
fn has_winning_capture(pos: &Position) -> bool {
    let board = pos.board();
    pos.legal_moves()
        .iter()
        .any(|&m| (m.is_en_passant() || (!m.is_castle() && board.piece_at(m.to()).is_some())) && see_ge(pos, m, 1))
}

/// Loads and filters the datasets, split into training and validation samples.
fn load(config: &TuneConfig, weights: &Weights) -> Result<(Vec<Sample>, Vec<Sample>)> {
    let (mut train, mut valid) = (Vec::new(), Vec::new());
    let mut dropped = Dropped::default();
    for path in &config.data {
        let file = File::open(path).with_context(|| format!("opening {}", path.display()))?;
        let mut lines: Vec<String> = BufReader::new(file).lines().collect::<Result<_, _>>()?;
        if config.limit > 0 {
            lines.truncate(config.limit);
        }
        // The validation slice is the end of the file: games are written whole, so almost no
        // game has positions on both sides of the split.
        let split = lines.len() - (lines.len() as f64 * config.validation_fraction).round() as usize;
        for (index, line) in lines.iter().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let record = Record::parse(line).with_context(|| format!("{}:{}", path.display(), index + 1))?;
            let pos = record.position(config.variant).with_context(|| format!("{}:{}", path.display(), index + 1))?;
            if record.score.abs() > config.max_score {
                dropped.score += 1;
                continue;
            }
            if (evaluate_with_params(&pos, weights) - record.score).abs() > config.max_eval_diff {
                dropped.eval_diff += 1;
                continue;
            }
            if pos.is_check() || has_winning_capture(&pos) {
                dropped.not_quiet += 1;
                continue;
            }
            let sample = Sample { pos, result: record.result, score: record.score };
            if index < split { train.push(sample) } else { valid.push(sample) }
        }
    }
    eprintln!(
        "loaded {} training and {} validation positions; dropped {} for |score| > {}, {} for \
         |eval - score| > {}, {} not quiet",
        train.len(),
        valid.len(),
        dropped.score,
        config.max_score,
        dropped.eval_diff,
        config.max_eval_diff,
        dropped.not_quiet
    );
    Ok((train, valid))
}

/// The logistic function.
fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Mean squared error of `sigmoid(k × eval)` against the results.
#[must_use]
pub fn loss(evals: &[f64], results: &[f64], k: f64) -> f64 {
    let sum: f64 = evals.iter().zip(results).map(|(&e, &r)| (sigmoid(k * e) - r).powi(2)).sum();
    sum / evals.len().max(1) as f64
}

/// The `K` that minimises [`loss`] for fixed evaluations: a coarse scan in log space, then a
/// golden-section search around the best point.
#[must_use]
pub fn fit_k(evals: &[f64], results: &[f64]) -> f64 {
    let candidates = (0..=60).map(|i| 1e-4 * 10f64.powf(f64::from(i) / 30.0)); // 1e-4 ..= 1e-2
    let best =
        candidates.map(|k| (k, loss(evals, results, k))).min_by(|a, b| a.1.total_cmp(&b.1)).map_or(0.005, |(k, _)| k);
    let (mut lo, mut hi) = (best / 10f64.powf(1.0 / 30.0), best * 10f64.powf(1.0 / 30.0));
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..60 {
        let a = hi - ratio * (hi - lo);
        let b = lo + ratio * (hi - lo);
        if loss(evals, results, a) < loss(evals, results, b) {
            hi = b;
        } else {
            lo = a;
        }
    }
    (lo + hi) / 2.0
}

/// The `K` that turns search `scores` into expected results: the evaluation's `k`, or one
/// fitted to the scores and `results` like the evaluation's was.
fn score_k(kind: ScoreK, k: f64, scores: &[f64], results: &[f64]) -> f64 {
    match kind {
        ScoreK::Shared => k,
        ScoreK::Fitted => fit_k(scores, results),
    }
}

/// The perturbation used to measure weight `value`'s coefficient: large enough that the
/// integer rounding of the taper (a sixty-fourth here, a twenty-fourth there) stays a small
/// error, small enough that nonlinear terms stay local.
fn step_for(is_score_half: bool, value: i32) -> i32 {
    if is_score_half { 32 } else { (value.abs() / 4).clamp(4, 32) }
}

/// The evaluation as a sparse linear function of the weights around `x0`:
/// `eval_i(x) = base_i + Σ_j c_ij (x_j - x0_j)`.
#[derive(Clone, Debug)]
pub struct Linear {
    /// The weights the model was built around.
    pub x0: Vec<f64>,
    /// Exact evaluations at `x0`.
    pub base: Vec<f64>,
    /// Row `i`'s entries are `cols[rows[i]..rows[i + 1]]` (compressed sparse rows).
    rows: Vec<usize>,
    cols: Vec<u32>,
    coefs: Vec<f32>,
}

impl Linear {
    /// A model from explicit rows of `(weight, coefficient)` pairs.
    #[cfg(test)]
    #[must_use]
    pub fn from_rows(x0: Vec<f64>, base: Vec<f64>, rows_in: &[Vec<(u32, f32)>]) -> Linear {
        let mut rows = vec![0];
        let (mut cols, mut coefs) = (Vec::new(), Vec::new());
        for row in rows_in {
            for &(j, c) in row {
                cols.push(j);
                coefs.push(c);
            }
            rows.push(cols.len());
        }
        Linear { x0, base, rows, cols, coefs }
    }

    /// Measures the model of `positions` around `weights` (`threads` threads share the
    /// weights).
    #[must_use]
    pub fn measure(positions: &[Position], weights: &Weights, threads: usize) -> Linear {
        let x0 = weights.get();
        let names = weights.names();
        let base: Vec<i32> = positions.iter().map(|p| evaluate_with_params(p, weights)).collect();
        let count = x0.len();
        let threads = threads.clamp(1, count.max(1));
        // A piece-square entry can only matter where such a piece stands on that square (for
        // black, the mirrored one): index the positions by the entries they occupy, so that
        // the three quarters of the weights that are piece-square entries are measured on a
        // few per cent of the positions each.
        let mut occupants: Vec<Vec<u32>> = vec![Vec::new(); 6 * 64];
        for (i, p) in positions.iter().enumerate() {
            let board = p.board();
            for sq in board.occupied() {
                if let Some(piece) = board.piece_at(sq) {
                    let relative = if piece.color.is_white() { sq.index() } else { sq.index() ^ 56 };
                    let entry = piece.role.index() * 64 + relative;
                    if occupants[entry].last() != Some(&(i as u32)) {
                        occupants[entry].push(i as u32);
                    }
                }
            }
        }
        let all: Vec<u32> = (0..positions.len() as u32).collect();
        // Each thread perturbs its own weights one at a time and evaluates the positions where
        // that weight may matter; the (position, weight, coefficient) triples are then sorted
        // into rows.
        let triples: Vec<Vec<(u32, u32, f32)>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let (x0, names, base, occupants, all) = (&x0, &names, &base, &occupants, &all);
                    let mut w = weights.clone();
                    scope.spawn(move || {
                        let mut out = Vec::new();
                        let mut x = x0.clone();
                        for j in (t..count).step_by(threads) {
                            let step = step_for(names[j].ends_with(".mg") || names[j].ends_with(".eg"), x0[j]);
                            let rows = match w.psqt_entry(j) {
                                Some((role, sq)) => &occupants[role.index() * 64 + sq.index()],
                                None => all,
                            };
                            x[j] = x0[j] + step;
                            w.set(&x);
                            x[j] = x0[j];
                            for &i in rows {
                                let d = evaluate_with_params(&positions[i as usize], &w) - base[i as usize];
                                if d != 0 {
                                    out.push((i, j as u32, d as f32 / step as f32));
                                }
                            }
                        }
                        out
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().expect("linearisation thread panicked")).collect()
        });
        let mut per_row = vec![0usize; positions.len() + 1];
        for &(i, _, _) in triples.iter().flatten() {
            per_row[i as usize + 1] += 1;
        }
        for i in 0..positions.len() {
            per_row[i + 1] += per_row[i];
        }
        let total = per_row[positions.len()];
        let mut next = per_row.clone();
        let (mut cols, mut coefs) = (vec![0u32; total], vec![0f32; total]);
        for &(i, j, c) in triples.iter().flatten() {
            let at = &mut next[i as usize];
            cols[*at] = j;
            coefs[*at] = c;
            *at += 1;
        }
        Linear {
            x0: x0.iter().map(|&v| f64::from(v)).collect(),
            base: base.iter().map(|&v| f64::from(v)).collect(),
            rows: per_row,
            cols,
            coefs,
        }
    }

    /// Stored coefficients.
    #[must_use]
    pub fn nonzeros(&self) -> usize {
        self.cols.len()
    }

    /// The model's evaluation of position `i` at weights `x`.
    #[must_use]
    pub fn eval(&self, i: usize, x: &[f64]) -> f64 {
        let range = self.rows[i]..self.rows[i + 1];
        self.base[i]
            + self.cols[range.clone()]
                .iter()
                .zip(&self.coefs[range])
                .map(|(&j, &c)| f64::from(c) * (x[j as usize] - self.x0[j as usize]))
                .sum::<f64>()
    }

    /// The loss of the model at `x` against `results`, and its gradient written to `grad`.
    pub fn loss_and_gradient(&self, x: &[f64], results: &[f64], k: f64, grad: &mut [f64]) -> f64 {
        grad.fill(0.0);
        let n = results.len().max(1) as f64;
        let mut sum = 0.0;
        for (i, &r) in results.iter().enumerate() {
            let s = sigmoid(k * self.eval(i, x));
            let d = s - r;
            sum += d * d;
            let g = 2.0 * d * s * (1.0 - s) * k / n;
            let range = self.rows[i]..self.rows[i + 1];
            for (&j, &c) in self.cols[range.clone()].iter().zip(&self.coefs[range]) {
                grad[j as usize] += g * f64::from(c);
            }
        }
        sum / n
    }

    /// Runs `epochs` full-batch Adam steps from `x0`, the step size falling linearly from
    /// `learning_rate` to a tenth of it, and returns the weights and the model's loss there.
    ///
    /// With a validation model (the same weights measured on held-out positions), the loss on
    /// it is checked every epoch and the weights where it was lowest are returned: early
    /// stopping, the guard against fitting the noise of a few thousand games.
    #[must_use]
    pub fn adam(
        &self,
        results: &[f64],
        k: f64,
        epochs: usize,
        learning_rate: f64,
        validation: Option<(&Linear, &[f64])>,
    ) -> (Vec<f64>, f64) {
        let (beta1, beta2, epsilon) = (0.9, 0.999, 1e-12);
        let mut x = self.x0.clone();
        let mut grad = vec![0.0; x.len()];
        let mut scratch = vec![0.0; x.len()];
        let (mut m, mut v) = (vec![0.0; x.len()], vec![0.0; x.len()]);
        let validation_loss = |x: &[f64], scratch: &mut [f64]| {
            validation.filter(|(_, r)| !r.is_empty()).map(|(model, r)| model.loss_and_gradient(x, r, k, scratch))
        };
        let start_loss = self.loss_and_gradient(&x, results, k, &mut grad);
        let mut best: Option<(f64, Vec<f64>, f64)> =
            validation_loss(&x, &mut scratch).map(|l| (l, x.clone(), start_loss));
        for epoch in 0..epochs {
            let train_loss = self.loss_and_gradient(&x, results, k, &mut grad);
            let valid_loss = validation_loss(&x, &mut scratch);
            if epoch % 50 == 0 {
                eprintln!(
                    "  epoch {epoch}: model loss train {train_loss:.6}, validation {:.6}",
                    valid_loss.unwrap_or(f64::NAN)
                );
            }
            if let Some(l) = valid_loss
                && best.as_ref().is_some_and(|b| l < b.0)
            {
                best = Some((l, x.clone(), train_loss));
            }
            let t = epoch as i32 + 1;
            let lr = learning_rate * (1.0 - 0.9 * epoch as f64 / epochs.max(1) as f64);
            for j in 0..x.len() {
                m[j] = beta1 * m[j] + (1.0 - beta1) * grad[j];
                v[j] = beta2 * v[j] + (1.0 - beta2) * grad[j] * grad[j];
                let m_hat = m[j] / (1.0 - beta1.powi(t));
                let v_hat = v[j] / (1.0 - beta2.powi(t));
                x[j] -= lr * m_hat / (v_hat.sqrt() + epsilon);
            }
        }
        let final_loss = self.loss_and_gradient(&x, results, k, &mut grad);
        match (validation_loss(&x, &mut scratch), best) {
            (Some(l), Some(b)) if b.0 <= l => (b.1, b.2),
            _ => (x, final_loss),
        }
    }
}

/// Exact evaluations of `samples` with `weights`.
fn evals(samples: &[Sample], weights: &Weights) -> Vec<f64> {
    samples.iter().map(|s| f64::from(evaluate_with_params(&s.pos, weights))).collect()
}

/// Rounds tuned values to integers; the plain integer weights (attack percentages, caps,
/// king-distance weights, tempo, mop-up terms) mean nothing below zero.
fn round_weights(x: &[f64], names: &[String]) -> Vec<i32> {
    x.iter()
        .zip(names)
        .map(|(&v, name)| {
            let v = v.round() as i32;
            if name.ends_with(".mg") || name.ends_with(".eg") { v.clamp(-20_000, 20_000) } else { v.max(0) }
        })
        .collect()
}

/// Today's date (UTC) as `YYYY-MM-DD`, from the system clock.
fn today() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (year, month, day) = ferz_chess::civil_date((secs / 86_400) as i64);
    format!("{year:04}-{month:02}-{day:02}")
}

/// Tunes and writes the result.
///
/// # Errors
/// When the data cannot be read or the output written.
pub fn run(config: &TuneConfig) -> Result<()> {
    let start = Instant::now();
    let mut weights = Weights::defaults(config.variant);
    let names = weights.names();
    let (train, valid) = load(config, &weights)?;
    if train.is_empty() {
        bail!("no training positions left");
    }
    let train_results: Vec<f64> = train.iter().map(|s| s.result).collect();
    let valid_results: Vec<f64> = valid.iter().map(|s| s.result).collect();
    let positions: Vec<Position> = train.iter().map(|s| s.pos).collect();
    let valid_positions: Vec<Position> = valid.iter().map(|s| s.pos).collect();

    let k = fit_k(&evals(&train, &weights), &train_results);
    let scores: Vec<f64> = train.iter().map(|s| f64::from(s.score)).collect();
    let score_k = score_k(config.score_k, k, &scores, &train_results);
    // A few thousand games give few independent results for a thousand weights; mixing in the
    // search score, which differs from position to position, is what keeps the fit from
    // learning the noise of single games.
    let target = |s: &Sample| config.lambda * s.result + (1.0 - config.lambda) * sigmoid(score_k * f64::from(s.score));
    let train_targets: Vec<f64> = train.iter().map(target).collect();
    let valid_targets: Vec<f64> = valid.iter().map(target).collect();
    let losses = |weights: &Weights| {
        let (t, v) = (evals(&train, weights), evals(&valid, weights));
        [
            loss(&t, &train_results, k),
            loss(&v, &valid_results, k),
            loss(&t, &train_targets, k),
            loss(&v, &valid_targets, k),
        ]
    };
    let before = losses(&weights);
    eprintln!(
        "{} weights; K = {k:.6} per centipawn (search scores: {score_k:.6}); loss against results before: \
         train {:.6}, validation {:.6}; against the targets (lambda {}): train {:.6}, validation {:.6}",
        names.len(),
        before[0],
        before[1],
        config.lambda,
        before[2],
        before[3]
    );

    // The best round by validation loss against the training target.
    let mut best = (before, weights.get());
    let summary = Summary { k, score_k, before, train: train.len(), valid: valid.len() };
    for round in 1..=config.rounds {
        let t = Instant::now();
        let model = Linear::measure(&positions, &weights, config.threads);
        let valid_model = Linear::measure(&valid_positions, &weights, config.threads);
        let measured = t.elapsed().as_secs_f64();
        let validation = Some((&valid_model, valid_targets.as_slice()));
        let (x, model_loss) = model.adam(&train_targets, k, config.epochs, config.learning_rate, validation);
        let values = round_weights(&x, &names);
        weights.set(&values);
        let after = losses(&weights);
        eprintln!(
            "round {round}: {} coefficients ({:.1} per position) measured in {measured:.0} s; model loss \
             {model_loss:.6}; exact loss against results: train {:.6}, validation {:.6}; against the targets: \
             train {:.6}, validation {:.6} ({:.0} s)",
            model.nonzeros(),
            model.nonzeros() as f64 / positions.len() as f64,
            after[0],
            after[1],
            after[2],
            after[3],
            t.elapsed().as_secs_f64()
        );
        if valid.is_empty() || after[3] < best.0[3] {
            best = (after, values);
            // Written after every better round, so that a long run can be stopped early.
            write_source(config, &best, &summary)?;
        }
    }
    let changed = best.1.iter().zip(Weights::defaults(config.variant).get()).filter(|(a, b)| *a != b).count();
    eprintln!(
        "best: against results train {:.6}, validation {:.6}; {changed} of {} weights changed; {:.0} s in all",
        best.0[0],
        best.0[1],
        names.len(),
        start.elapsed().as_secs_f64()
    );
    if config.rounds == 0 {
        write_source(config, &best, &summary)?;
    }
    Ok(())
}

/// What the generated file's header reports besides the final losses.
struct Summary {
    k: f64,
    /// The `K` applied to search scores in the target.
    score_k: f64,
    /// Losses of the starting weights: against results (training, validation), then against
    /// the targets.
    before: [f64; 4],
    train: usize,
    valid: usize,
}

/// Writes `best` (losses as in [`Summary::before`], weights) as Rust source to `--out-rs`.
fn write_source(config: &TuneConfig, best: &([f64; 4], Vec<i32>), summary: &Summary) -> Result<()> {
    let Some(out) = &config.out_rs else { return Ok(()) };
    let mut weights = Weights::defaults(config.variant);
    weights.set(&best.1);
    let files: Vec<String> = config
        .data
        .iter()
        .map(|p| p.file_name().map_or_else(|| p.display().to_string(), |f| f.to_string_lossy().into_owned()))
        .collect();
    let what = if config.variant.is_shatranj() { "Shatranj" } else { "chess and Chess960" };
    let title = if config.rounds == 0 {
        format!("Weights of the {what} evaluation, not tuned: the starting weights rendered as source.")
    } else {
        format!("Tuned weights of the {what} evaluation: generated source, do not edit by hand.")
    };
    let Summary { k, score_k, before, train, valid } = summary;
    let header = vec![
        title,
        String::new(),
        format!("Generated on {} by `{}`", today(), config.command),
        format!("from {} ({train} training and {valid} validation positions after filtering).", files.join(", ")),
        // With `--score-k shared` the two Ks are the same number.
        format!(
            "K = {k:.6} per centipawn; target = {} x result + {} x sigmoid({score_k:.6} x search score).",
            config.lambda,
            1.0 - config.lambda
        ),
        format!(
            "Mean squared error against game results: training {:.6} -> {:.6}, validation {:.6} -> {:.6}.",
            before[0], best.0[0], before[1], best.0[1]
        ),
        "How the data was made and how to redo this: docs/tuning.md.".to_string(),
    ];
    ferz_files::write_atomic(out, weights.to_rust(&header).as_bytes())
        .with_context(|| format!("writing {}", out.display()))?;
    eprintln!("wrote {}", out.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn k_fit_recovers_the_generating_k() {
        // Results drawn deterministically from sigmoid(0.004 e): the fitted K lands near it.
        let evals: Vec<f64> = (-400..400).map(f64::from).collect();
        let results: Vec<f64> = evals.iter().map(|&e| sigmoid(0.004 * e)).collect();
        let k = fit_k(&evals, &results);
        assert!((k - 0.004).abs() < 1e-5, "{k}");
    }

    #[test]
    fn a_teacher_with_larger_centipawns_gets_its_own_k() {
        // The evaluation predicts the results with K = 0.004; a teacher writes 1.5 times its
        // numbers for the same positions, so its scores need K = 0.004 / 1.5.
        let evals: Vec<f64> = (-400..400).map(f64::from).collect();
        let results: Vec<f64> = evals.iter().map(|&e| sigmoid(0.004 * e)).collect();
        let teacher: Vec<f64> = evals.iter().map(|&e| 1.5 * e).collect();
        let k = fit_k(&evals, &results);
        assert_eq!(score_k(ScoreK::Shared, k, &teacher, &results), k);
        let fitted = score_k(ScoreK::Fitted, k, &teacher, &results);
        assert!((fitted - 0.004 / 1.5).abs() < 1e-5, "{fitted}");
    }

    #[test]
    fn gradient_matches_finite_differences() {
        // Three positions, two weights; eval_0 = 10 + 2 x0, eval_1 = -5 + x0 - 3 x1, eval_2 = 40 + x1.
        let model = Linear::from_rows(
            vec![0.0, 0.0],
            vec![10.0, -5.0, 40.0],
            &[vec![(0, 2.0)], vec![(0, 1.0), (1, -3.0)], vec![(1, 1.0)]],
        );
        let results = [1.0, 0.0, 0.5];
        let (k, x) = (0.01, [20.0, -7.0]);
        let mut grad = [0.0; 2];
        let l = model.loss_and_gradient(&x, &results, k, &mut grad);
        let mut scratch = [0.0; 2];
        for j in 0..2 {
            let h = 1e-4;
            let mut up = x;
            up[j] += h;
            let mut down = x;
            down[j] -= h;
            let numeric = (model.loss_and_gradient(&up, &results, k, &mut scratch)
                - model.loss_and_gradient(&down, &results, k, &mut scratch))
                / (2.0 * h);
            assert!((numeric - grad[j]).abs() < 1e-9, "weight {j}: {numeric} vs {}", grad[j]);
        }
        let evals: Vec<f64> = (0..3).map(|i| model.eval(i, &x)).collect();
        assert!((loss(&evals, &results, k) - l).abs() < 1e-12);
    }

    fn sample_positions() -> Vec<(Position, f64)> {
        // Material edges that the results agree with, and a few balanced draws.
        [
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 0.5),
            ("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 1.0),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR w KQkq - 0 1", 0.0),
            ("4k3/pppp4/8/8/8/8/PPPPP3/4K3 w - - 0 1", 1.0),
            ("4k3/ppppp3/8/8/8/8/PPPP4/4K3 b - - 0 1", 0.0),
            ("r3k3/8/8/8/8/8/8/4K2R w - - 0 1", 0.5),
            ("4k3/8/8/3n4/8/8/8/4K3 w - - 0 1", 0.5),
            ("4k3/8/8/8/8/8/PPP5/4K3 w - - 0 1", 1.0),
        ]
        .iter()
        .map(|&(fen, r)| (Position::from_fen(fen, Variant::Chess).expect("valid"), r))
        .collect()
    }

    #[test]
    fn measured_model_is_exact_at_its_centre_and_tuning_lowers_the_loss() {
        let samples = sample_positions();
        let positions: Vec<Position> = samples.iter().map(|s| s.0).collect();
        let results: Vec<f64> = samples.iter().map(|s| s.1).collect();
        let weights = Weights::defaults(Variant::Chess);
        let model = Linear::measure(&positions, &weights, 2);
        let x0 = model.x0.clone();
        for (i, p) in positions.iter().enumerate() {
            assert_eq!(model.eval(i, &x0), f64::from(evaluate_with_params(p, &weights)));
        }
        let k = 0.004;
        let before = loss(&model.base, &results, k);
        let (x, _) = model.adam(&results, k, 50, 2.0, None);
        let mut tuned = weights.clone();
        tuned.set(&round_weights(&x, &weights.names()));
        let after: Vec<f64> = positions.iter().map(|p| f64::from(evaluate_with_params(p, &tuned))).collect();
        assert!(loss(&after, &results, k) < before, "{} !< {before}", loss(&after, &results, k));
    }

    #[test]
    fn dates_are_civil() {
        let date = today();
        assert_eq!(date.len(), 10);
        assert!(date.starts_with("20"), "{date}");
    }
}
