//! Match statistics: game and pair counts, Elo with a 95% interval, and the sequential
//! probability ratio test (SPRT) on pentanomial pair results.
//!
//! # The formulas
//!
//! Games are played in colour-swapped pairs on the same opening, so the unit of observation is
//! a pair. Its score for engine A, averaged over the two games, is one of 0, ¼, ½, ¾ or 1 (the
//! pentanomial outcomes LL, LD, DD or WL, WD, WW). With pair frequencies `p_i` at scores `a_i`:
//!
//! - mean score `μ = Σ p_i a_i`, per-pair variance `σ² = Σ p_i (a_i − μ)²`;
//! - logistic Elo `E(μ) = −400 log10(1/μ − 1)`; the 95% interval maps `μ ± 1.959964 σ/√N`
//!   (N pairs) through `E`, and the reported error is half its width;
//! - the likelihood of superiority `LOS = Φ((μ − ½) / (σ/√N))`.
//!
//! The SPRT is the generalised SPRT (GSPRT) that fishtest (`server/fishtest/stats/LLRcalc.py`)
//! and fastchess (`app/src/matchmaking/sprt/sprt.cpp`) use, as derived by Michel Van den Bergh,
//! "Comments on Normalized Elo" (<https://www.cantate.be/Fishtest/normalized_elo_practical.pdf>):
//!
//! - `LLR = N Σ p̂_i ln(p1_i / p0_i)`, where `p̂` are the observed frequencies (a zero count is
//!   replaced by 10⁻³ so that logarithms stay finite, as both programs do) and `p0`, `p1` are
//!   the maximum-likelihood distributions on the same support under H0 and H1.
//! - **logistic** model (paper §1): H_j fixes the expected score `s_j = 1/(1 + 10^(−elo_j/400))`.
//!   The constrained maximum is `p_i = p̂_i / (1 + θ (a_i − s))` with θ the root of
//!   `Σ p̂_i (a_i − s) / (1 + θ (a_i − s)) = 0` (paper eq. 1.2, 1.3).
//! - **normalized** model (paper §4.1): H_j fixes `t = (μ − ½)/σ`. Normalized Elo is defined per
//!   game, `nElo = (μ − ½)/σ_game · 800/ln 10`; a pair's standard deviation is `σ_game/√2`, so
//!   `t_j = √2 · nelo_j / (800/ln 10)` for pentanomial results. The maximum is found by fixed
//!   point iteration: from the current `p`, with its `μ` and `σ`, set
//!   `φ_i = a_i − ½ − t σ/2 · (1 + ((a_i − μ)/σ)²)`, solve `Σ p̂_i φ_i / (1 + θ φ_i) = 0` for θ,
//!   and take `p_i = p̂_i / (1 + θ φ_i)` until `p` stops changing (paper eq. 4.9).
//! - Wald's bounds: stop and accept H1 when `LLR ≥ ln((1 − β)/α)`, accept H0 when
//!   `LLR ≤ ln(β/(1 − α))`.
//!
//! The roots are found by bisection: every equation above is strictly decreasing in θ on the
//! interval where all `1 + θ x_i` stay positive, and runs from +∞ to −∞ across it.

use std::fmt;
use std::str::FromStr;

/// `800 / ln 10`: converts a t-value (standard deviations per unit) into normalized Elo.
pub const NELO_PER_T: f64 = 800.0 / std::f64::consts::LN_10;

/// The 97.5% quantile of the standard normal distribution (two-sided 95% interval).
const Z_975: f64 = 1.959_963_984_540_054;

/// A game result from engine A's point of view.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum GameScore {
    /// A won.
    Win,
    /// A drew.
    Draw,
    /// A lost.
    Loss,
}

impl GameScore {
    /// Points for A: 1, ½ or 0.
    #[must_use]
    pub const fn points(self) -> f64 {
        match self {
            GameScore::Win => 1.0,
            GameScore::Draw => 0.5,
            GameScore::Loss => 0.0,
        }
    }

    /// Half points for A: 2, 1 or 0 (exact arithmetic for pair sums).
    const fn half_points(self) -> u32 {
        match self {
            GameScore::Win => 2,
            GameScore::Draw => 1,
            GameScore::Loss => 0,
        }
    }
}

/// Pair outcomes for engine A. `WL` and `DD` both score one point per pair; they are counted
/// apart for the report and merged for the statistics.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial {
    /// Two losses.
    pub ll: u64,
    /// A loss and a draw.
    pub ld: u64,
    /// Two draws.
    pub dd: u64,
    /// A win and a loss.
    pub wl: u64,
    /// A win and a draw.
    pub wd: u64,
    /// Two wins.
    pub ww: u64,
}

impl Pentanomial {
    /// Counts one pair.
    pub fn add(&mut self, first: GameScore, second: GameScore) {
        match first.half_points() + second.half_points() {
            0 => self.ll += 1,
            1 => self.ld += 1,
            2 if first == GameScore::Draw => self.dd += 1,
            2 => self.wl += 1,
            3 => self.wd += 1,
            _ => self.ww += 1,
        }
    }

    /// Pairs counted.
    #[must_use]
    pub const fn pairs(&self) -> u64 {
        self.ll + self.ld + self.dd + self.wl + self.wd + self.ww
    }

    /// Counts at pair scores 0, ¼, ½, ¾, 1 (`WL` and `DD` merged).
    #[must_use]
    pub const fn counts(&self) -> [u64; 5] {
        [self.ll, self.ld, self.dd + self.wl, self.wd, self.ww]
    }

    /// Elo of A over B from the pair scores, `None` before the first pair.
    #[must_use]
    pub fn elo(&self) -> Option<EloEstimate> {
        EloEstimate::from_counts(&PENTA_SCORES, &self.counts())
    }
}

impl fmt::Display for Pentanomial {
    /// `[LL, LD, DD+WL, WD, WW]`, the order fishtest and fastchess print.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b, c, d, e] = self.counts();
        write!(f, "[{a}, {b}, {c}, {d}, {e}]")
    }
}

/// Pair scores (the mean of the two games) of the pentanomial outcomes.
const PENTA_SCORES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];
/// Game scores of the trinomial outcomes.
const TRI_SCORES: [f64; 3] = [0.0, 0.5, 1.0];

/// Wins, draws and losses of engine A.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Wdl {
    /// Games A won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games A lost.
    pub losses: u64,
}

impl Wdl {
    /// Counts one game.
    pub fn add(&mut self, score: GameScore) {
        match score {
            GameScore::Win => self.wins += 1,
            GameScore::Draw => self.draws += 1,
            GameScore::Loss => self.losses += 1,
        }
    }

    /// Games counted.
    #[must_use]
    pub const fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// A's points.
    #[must_use]
    pub fn points(&self) -> f64 {
        self.wins as f64 + self.draws as f64 / 2.0
    }

    /// Elo of A over B treating games as independent, `None` before the first game.
    #[must_use]
    pub fn elo(&self) -> Option<EloEstimate> {
        EloEstimate::from_counts(&TRI_SCORES, &[self.losses, self.draws, self.wins])
    }
}

/// An Elo difference with its 95% confidence interval.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct EloEstimate {
    /// Mean score of A, 0..1.
    pub score: f64,
    /// Logistic Elo of A over B.
    pub elo: f64,
    /// Lower end of the 95% interval.
    pub low: f64,
    /// Upper end of the 95% interval.
    pub high: f64,
    /// Probability that A is stronger than B.
    pub los: f64,
}

impl EloEstimate {
    /// From counts at the given scores.
    fn from_counts(scores: &[f64], counts: &[u64]) -> Option<EloEstimate> {
        let n: u64 = counts.iter().sum();
        if n == 0 {
            return None;
        }
        let probs: Vec<f64> = counts.iter().map(|&c| c as f64 / n as f64).collect();
        let (mean, variance) = mean_and_variance(scores, &probs);
        let stderr = (variance / n as f64).sqrt();
        let los = if stderr > 0.0 {
            normal_cdf((mean - 0.5) / stderr)
        } else if mean > 0.5 {
            1.0
        } else if mean < 0.5 {
            0.0
        } else {
            0.5
        };
        Some(EloEstimate {
            score: mean,
            elo: score_to_elo(mean),
            low: score_to_elo(mean - Z_975 * stderr),
            high: score_to_elo(mean + Z_975 * stderr),
            los,
        })
    }

    /// Half the width of the 95% interval, the `±` figure.
    #[must_use]
    pub fn error(&self) -> f64 {
        (self.high - self.low) / 2.0
    }
}

impl fmt::Display for EloEstimate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:+.1} ± {:.1}", self.elo, self.error())
    }
}

/// Logistic Elo of a mean score; ±∞ scores are clamped so that a clean sweep still prints.
#[must_use]
pub fn score_to_elo(score: f64) -> f64 {
    let s = score.clamp(1e-6, 1.0 - 1e-6);
    // Adding zero turns −0 into +0, so an even score prints as +0.0.
    -400.0 * (1.0 / s - 1.0).log10() + 0.0
}

/// Expected score at a logistic Elo difference.
#[must_use]
pub fn elo_to_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

fn mean_and_variance(scores: &[f64], probs: &[f64]) -> (f64, f64) {
    let mean: f64 = scores.iter().zip(probs).map(|(a, p)| a * p).sum();
    let variance = scores.iter().zip(probs).map(|(a, p)| p * (a - mean) * (a - mean)).sum();
    (mean, variance)
}

/// The standard normal distribution function.
fn normal_cdf(x: f64) -> f64 {
    0.5 * (1.0 + erf(x / std::f64::consts::SQRT_2))
}

/// The error function (Abramowitz and Stegun 7.1.26, absolute error below 1.5e-7: plenty for
/// a percentage printed with one decimal).
fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let poly =
        t * (0.254_829_592 + t * (-0.284_496_736 + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let y = 1.0 - poly * (-x * x).exp();
    if x >= 0.0 { y } else { -y }
}

/// Which Elo the SPRT bounds `elo0`, `elo1` are expressed in.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum SprtModel {
    /// Normalized Elo (fishtest's and fastchess's default): independent of the draw rate and
    /// of the opening book's balance.
    #[default]
    Normalized,
    /// Logistic Elo, the scale of the Elo estimate printed next to it.
    Logistic,
}

impl FromStr for SprtModel {
    type Err = String;

    fn from_str(s: &str) -> Result<SprtModel, String> {
        match s {
            "normalized" => Ok(SprtModel::Normalized),
            "logistic" => Ok(SprtModel::Logistic),
            _ => Err(format!("unknown SPRT model {s:?}: expected normalized or logistic")),
        }
    }
}

impl fmt::Display for SprtModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SprtModel::Normalized => "normalized",
            SprtModel::Logistic => "logistic",
        })
    }
}

/// SPRT parameters: H0 is `elo = elo0`, H1 is `elo = elo1`, with error rates α and β.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Sprt {
    /// Elo under H0.
    pub elo0: f64,
    /// Elo under H1.
    pub elo1: f64,
    /// False positive rate (accepting H1 when H0 holds).
    pub alpha: f64,
    /// False negative rate (accepting H0 when H1 holds).
    pub beta: f64,
    /// The Elo scale of `elo0` and `elo1`.
    pub model: SprtModel,
}

/// SPRT parameters out of range.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid SPRT: {0}")]
pub struct SprtError(String);

/// Where the test stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SprtStatus {
    /// Between the bounds: play on.
    Continue,
    /// The LLR fell to the lower bound: H0 (`elo0`) accepted, the change failed.
    AcceptH0,
    /// The LLR reached the upper bound: H1 (`elo1`) accepted, the change passed.
    AcceptH1,
}

impl fmt::Display for SprtStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SprtStatus::Continue => "continue",
            SprtStatus::AcceptH0 => "H0 accepted",
            SprtStatus::AcceptH1 => "H1 accepted",
        })
    }
}

/// The largest normalized Elo an SPRT bound may have (see [`Sprt::new`]).
pub const MAX_NORMALIZED_ELO: f64 = 200.0;

impl Sprt {
    /// Checks the parameters.
    ///
    /// # Errors
    /// When `elo0 >= elo1`, α or β is outside (0, 1), `α + β >= 1`, or a normalized bound lies
    /// beyond ±[`MAX_NORMALIZED_ELO`].
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64, model: SprtModel) -> Result<Sprt, SprtError> {
        // Written to reject NaN as well.
        if elo0.partial_cmp(&elo1) != Some(std::cmp::Ordering::Less) {
            return Err(SprtError(format!("elo0 ({elo0}) must be less than elo1 ({elo1})")));
        }
        for (name, value) in [("alpha", alpha), ("beta", beta)] {
            if !(0.0..1.0).contains(&value) || value == 0.0 {
                return Err(SprtError(format!("{name} ({value}) must be between 0 and 1")));
            }
        }
        if alpha + beta >= 1.0 {
            return Err(SprtError(format!("alpha + beta ({}) must be less than 1", alpha + beta)));
        }
        // Beyond this the normalized model asks for more than 0.8 standard deviations of pair
        // score per pair, and its likelihood maximisation stops converging (the LLR would be NaN
        // and the test would never stop). Changes worth an SPRT are far inside it.
        if model == SprtModel::Normalized && elo0.abs().max(elo1.abs()) > MAX_NORMALIZED_ELO {
            return Err(SprtError(format!(
                "normalized Elo bounds must lie within ±{MAX_NORMALIZED_ELO} (got [{elo0}, {elo1}])"
            )));
        }
        Ok(Sprt { elo0, elo1, alpha, beta, model })
    }

    /// Wald's bounds `(ln(β/(1−α)), ln((1−β)/α))`.
    #[must_use]
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// The log-likelihood ratio of H1 against H0 for these pairs (0 before the first pair).
    #[must_use]
    pub fn llr(&self, penta: &Pentanomial) -> f64 {
        if penta.pairs() == 0 {
            return 0.0;
        }
        self.llr_of(&PENTA_SCORES, &penta.counts(), std::f64::consts::SQRT_2)
    }

    /// The log-likelihood ratio treating games as independent (trinomial), for comparison.
    #[must_use]
    pub fn llr_trinomial(&self, wdl: &Wdl) -> f64 {
        if wdl.games() == 0 {
            return 0.0;
        }
        self.llr_of(&TRI_SCORES, &[wdl.losses, wdl.draws, wdl.wins], 1.0)
    }

    /// `t_scale` converts a per-game t-value into one for the observation unit (√2 for pairs).
    fn llr_of(&self, scores: &[f64], counts: &[u64], t_scale: f64) -> f64 {
        let regularized: Vec<f64> = counts.iter().map(|&c| if c == 0 { 1e-3 } else { c as f64 }).collect();
        let total: f64 = regularized.iter().sum();
        let probs: Vec<f64> = regularized.iter().map(|c| c / total).collect();
        let (p0, p1) = match self.model {
            SprtModel::Logistic => (
                mle_expected_score(scores, &probs, elo_to_score(self.elo0)),
                mle_expected_score(scores, &probs, elo_to_score(self.elo1)),
            ),
            SprtModel::Normalized => (
                mle_t_value(scores, &probs, 0.5, t_scale * self.elo0 / NELO_PER_T),
                mle_t_value(scores, &probs, 0.5, t_scale * self.elo1 / NELO_PER_T),
            ),
        };
        total * probs.iter().zip(p0.iter().zip(&p1)).map(|(p, (q0, q1))| p * (q1.ln() - q0.ln())).sum::<f64>()
    }

    /// What to do at this LLR.
    #[must_use]
    pub fn status(&self, llr: f64) -> SprtStatus {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtStatus::AcceptH1
        } else if llr <= lower {
            SprtStatus::AcceptH0
        } else {
            SprtStatus::Continue
        }
    }
}

impl fmt::Display for Sprt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "elo0={} elo1={} alpha={} beta={} ({} Elo)", self.elo0, self.elo1, self.alpha, self.beta, self.model)
    }
}

/// The root of `Σ w_i x_i / (1 + θ x_i) = 0` with every `1 + θ x_i > 0`; needs some `x_i < 0`
/// and some `x_i > 0` with positive weight.
fn solve_theta(weights: &[f64], xs: &[f64]) -> f64 {
    let f = |theta: f64| weights.iter().zip(xs).map(|(w, x)| w * x / (1.0 + theta * x)).sum::<f64>();
    let max = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let min = xs.iter().copied().fold(f64::INFINITY, f64::min);
    // Open interval (−1/max, −1/min); f decreases from +∞ to −∞ across it.
    let (mut lo, mut hi) = (-1.0 / max, -1.0 / min);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The distribution on `scores` closest in likelihood to `probs` with expected score `s`.
fn mle_expected_score(scores: &[f64], probs: &[f64], s: f64) -> Vec<f64> {
    let xs: Vec<f64> = scores.iter().map(|a| a - s).collect();
    let theta = solve_theta(probs, &xs);
    probs.iter().zip(&xs).map(|(p, x)| p / (1.0 + theta * x)).collect()
}

/// The distribution on `scores` closest in likelihood to `probs` with `(μ − mu_ref)/σ = t`.
fn mle_t_value(scores: &[f64], probs: &[f64], mu_ref: f64, t: f64) -> Vec<f64> {
    let mut p = vec![1.0 / scores.len() as f64; scores.len()];
    for _ in 0..1000 {
        let (mu, variance) = mean_and_variance(scores, &p);
        let sigma = variance.sqrt();
        let phi: Vec<f64> =
            scores.iter().map(|a| a - mu_ref - 0.5 * t * sigma * (1.0 + ((a - mu) / sigma).powi(2))).collect();
        let theta = solve_theta(probs, &phi);
        let next: Vec<f64> = probs.iter().zip(&phi).map(|(q, x)| q / (1.0 + theta * x)).collect();
        let change = next.iter().zip(&p).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        p = next;
        if change < 1e-12 {
            break;
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    fn penta(counts: [u64; 5]) -> Pentanomial {
        let [ll, ld, dd, wd, ww] = counts;
        Pentanomial { ll, ld, dd, wl: 0, wd, ww }
    }

    #[test]
    fn the_llr_is_finite_for_every_count_at_the_widest_bounds_allowed() {
        // Every mix of empty, single, small and huge counts, including one outcome only (a gate
        // of two equal engines that draws every pair, or a mismatch that wins every game).
        let values = [0_u64, 1, 100_000];
        for (model, widest) in [(SprtModel::Normalized, MAX_NORMALIZED_ELO), (SprtModel::Logistic, 400.0)] {
            for (elo0, elo1) in [(-widest, widest), (0.0, widest), (-widest, 0.0), (0.0, 5.0), (-3.0, 1.0)] {
                let sprt = Sprt::new(elo0, elo1, 0.05, 0.05, model).unwrap();
                for code in 1..values.len().pow(5) {
                    let digit = |i: u32| values[code / values.len().pow(i) % values.len()];
                    let counts = [digit(0), digit(1), digit(2), digit(3), digit(4)];
                    let llr = sprt.llr(&penta(counts));
                    assert!(llr.is_finite(), "{model} [{elo0}, {elo1}] {counts:?}: {llr}");
                }
            }
        }
        let too_wide = Sprt::new(0.0, MAX_NORMALIZED_ELO + 1.0, 0.05, 0.05, SprtModel::Normalized);
        assert!(too_wide.unwrap_err().to_string().contains("within ±200"));
        assert!(Sprt::new(0.0, 300.0, 0.05, 0.05, SprtModel::Logistic).is_ok());
    }

    #[test]
    fn pairs_are_classified_by_their_total() {
        use GameScore::*;
        let mut p = Pentanomial::default();
        p.add(Loss, Loss);
        p.add(Loss, Draw);
        p.add(Draw, Loss);
        p.add(Draw, Draw);
        p.add(Win, Loss);
        p.add(Loss, Win);
        p.add(Win, Draw);
        p.add(Win, Win);
        assert_eq!(p, Pentanomial { ll: 1, ld: 2, dd: 1, wl: 2, wd: 1, ww: 1 });
        assert_eq!(p.counts(), [1, 2, 3, 1, 1]);
        assert_eq!(p.to_string(), "[1, 2, 3, 1, 1]");
        assert_eq!(p.pairs(), 8);
    }

    #[test]
    fn elo_conversions_round_trip() {
        assert!((score_to_elo(0.5)).abs() < 1e-12);
        assert_eq!(format!("{:+.1}", score_to_elo(0.5)), "+0.0");
        assert!((score_to_elo(0.75) - 190.848_501_887_864_9).abs() < 1e-9);
        for elo in [-300.0, -10.0, 0.0, 5.0, 400.0] {
            assert!((score_to_elo(elo_to_score(elo)) - elo).abs() < 1e-9);
        }
    }

    #[test]
    fn elo_interval_from_pairs() {
        // Reference values by hand: μ = (3·0.25 + 10·0.5 + 5·0.75 + 2·1)/20 = 0.575,
        // σ² = Σ p (a − μ)² = 0.044375, stderr = √(σ²/20) = 0.047104, so the interval is
        // E(0.575 ∓ 1.959964·0.047104) = [E(0.48268), E(0.66732)] = [−12.04, +120.92].
        let estimate = penta([0, 3, 10, 5, 2]).elo().unwrap();
        assert!((estimate.score - 0.575).abs() < 1e-12);
        assert!((estimate.elo - 52.5116).abs() < 1e-3, "{estimate:?}");
        assert!((estimate.low - (-12.0409)).abs() < 1e-3, "{estimate:?}");
        assert!((estimate.high - 120.9241).abs() < 1e-3, "{estimate:?}");
        assert!((estimate.los - 0.944_334).abs() < 1e-5, "{estimate:?}");
        assert_eq!(Pentanomial::default().elo(), None);
    }

    #[test]
    fn elo_from_games() {
        // 10 wins, 20 draws, 10 losses: score ½, Elo 0, LOS ½.
        let wdl = Wdl { wins: 10, draws: 20, losses: 10 };
        let estimate = wdl.elo().unwrap();
        assert!(estimate.elo.abs() < 1e-9);
        assert!((estimate.los - 0.5).abs() < 1e-9);
        assert!((estimate.low + estimate.high).abs() < 1e-9);
        assert!((wdl.points() - 20.0).abs() < 1e-12);
    }

    #[test]
    fn bounds_are_walds() {
        let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05, SprtModel::Normalized).unwrap();
        let (lower, upper) = sprt.bounds();
        assert!((lower - (-2.944_438_979_166_440_5)).abs() < 1e-12);
        assert!((upper - 2.944_438_979_166_440_5).abs() < 1e-12);
        assert_eq!(sprt.status(3.0), SprtStatus::AcceptH1);
        assert_eq!(sprt.status(-3.0), SprtStatus::AcceptH0);
        assert_eq!(sprt.status(0.0), SprtStatus::Continue);
        assert!(Sprt::new(5.0, 0.0, 0.05, 0.05, SprtModel::Normalized).is_err());
        assert!(Sprt::new(0.0, 5.0, 0.0, 0.05, SprtModel::Normalized).is_err());
        assert!(Sprt::new(0.0, 5.0, 0.6, 0.5, SprtModel::Normalized).is_err());
    }

    // Reference LLRs from an independent implementation of the same formulas
    // (`scripts/sprt_reference.py`: plain Python from the paper, each maximum checked against its
    // Lagrange condition).
    const CASES: &[([u64; 5], f64, f64, SprtModel, f64)] = &[
        ([100, 800, 2000, 800, 100], 0.0, 5.0, SprtModel::Normalized, -0.7870),
        ([90, 780, 2000, 820, 110], 0.0, 5.0, SprtModel::Normalized, 1.2625),
        ([60, 700, 2050, 900, 150], 0.0, 2.0, SprtModel::Normalized, 3.7842),
        ([0, 3, 10, 5, 2], 0.0, 10.0, SprtModel::Normalized, 0.2850),
        ([100, 800, 2000, 800, 100], 0.0, 5.0, SprtModel::Logistic, -2.4899),
        ([90, 780, 2000, 820, 110], -1.75, 0.25, SprtModel::Logistic, 1.7578),
        ([0, 3, 10, 5, 2], 0.0, 10.0, SprtModel::Logistic, 0.4729),
    ];

    #[test]
    fn llr_matches_reference_values() {
        for &(counts, elo0, elo1, model, expected) in CASES {
            let sprt = Sprt::new(elo0, elo1, 0.05, 0.05, model).unwrap();
            let llr = sprt.llr(&penta(counts));
            assert!((llr - expected).abs() < 2e-3, "{counts:?} {elo0} {elo1} {model}: {llr} vs {expected}");
        }
    }

    #[test]
    fn llr_is_close_to_the_normal_approximation() {
        // For small Elo differences the GSPRT LLR is close to N (s1 − s0)(2μ − s0 − s1) / (2σ²).
        let p = penta([90, 780, 2000, 820, 110]);
        let sprt = Sprt::new(-1.75, 0.25, 0.05, 0.05, SprtModel::Logistic).unwrap();
        let n = p.pairs() as f64;
        let probs: Vec<f64> = p.counts().iter().map(|&c| c as f64 / n).collect();
        let (mu, var) = mean_and_variance(&PENTA_SCORES, &probs);
        let (s0, s1) = (elo_to_score(-1.75), elo_to_score(0.25));
        let approx = n * (s1 - s0) * (2.0 * mu - s0 - s1) / (2.0 * var);
        assert!((sprt.llr(&p) - approx).abs() < 0.02, "{} vs {approx}", sprt.llr(&p));
    }

    #[test]
    fn normalized_mle_has_the_requested_t_value() {
        let probs = [0.02, 0.2, 0.5, 0.23, 0.05];
        for t in [-0.05, 0.0, 0.03] {
            let p = mle_t_value(&PENTA_SCORES, &probs, 0.5, t);
            assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-9);
            let (mu, var) = mean_and_variance(&PENTA_SCORES, &p);
            assert!(((mu - 0.5) / var.sqrt() - t).abs() < 1e-9, "t {t}: {p:?}");
        }
    }

    #[test]
    fn a_winning_engine_drives_the_llr_up_and_a_losing_one_down() {
        let sprt = Sprt::new(0.0, 10.0, 0.05, 0.05, SprtModel::Normalized).unwrap();
        assert!(sprt.llr(&penta([0, 0, 50, 200, 300])) > sprt.bounds().1);
        assert!(sprt.llr(&penta([300, 200, 50, 0, 0])) < sprt.bounds().0);
        assert_eq!(sprt.llr(&Pentanomial::default()), 0.0);
        assert!(sprt.llr_trinomial(&Wdl { wins: 50, draws: 10, losses: 5 }) > 0.0);
    }
}
