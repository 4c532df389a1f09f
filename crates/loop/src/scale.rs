//! The net a generation's gate plays (`train.scale`): the trained net itself, or a copy of it set
//! to the best net's scale ([`ferz_nnue::calibrate`]) over an even sample of the generation's
//! positions.

use std::path::{Path, PathBuf};

use ferz_dataset::sample::sample_positions;
use ferz_nnue::MAX_SCALE;
use ferz_nnue::calibrate::{CalibrationError, median_abs_score, medians};
use ferz_nnue::format;

use crate::config::{CandidateScale, LoopConfig};
use crate::ledger::NetRef;
use crate::{LoopError, Stage};

/// The candidate at the best net's scale: in a generation's directory, or in the directory of a
/// gate of a net made outside the loop.
pub(crate) const CANDIDATE_FILE: &str = "candidate.nnue";

/// Positions the two nets' scores are compared on: the median of this many is steady to about
/// one percent.
const SAMPLE_POSITIONS: usize = 20_000;

/// The net a gate plays.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Candidate {
    /// Its file: the trained net's, or the copy at the best net's scale.
    pub path: PathBuf,
    /// The scale it was set to (`None`: the trained net's).
    pub scale: Option<u16>,
    /// How its scale was chosen, for the log (empty when it was not).
    pub detail: String,
}

/// The candidate a gate plays (and the loop promotes): `trained` itself, or its copy at `out` set
/// to the best net's scale over an even sample of the merged dataset `data_dir`. The copy is made
/// again each time, so the same bytes result whenever a run gets here, and it is written
/// (through a temporary file) only when `out` does not hold them already. A candidate whose
/// scores are nearly all 0 keeps its trained scale, and one whose matching scale is outside the
/// file format's range gets the nearest the format holds: a net so unlike the best one is left to
/// its gate to judge, not allowed to stop the loop.
///
/// # Errors
/// A net or the data that cannot be read.
pub(crate) fn candidate_net(
    dir: &Path,
    data_dir: &Path,
    settings: &LoopConfig,
    trained: &Path,
    best: &NetRef,
    out: &Path,
) -> Result<Candidate, LoopError> {
    let as_trained = |detail: String| Candidate { path: trained.to_path_buf(), scale: None, detail };
    let Some(best_path) = best.path(dir) else { return Ok(as_trained(String::new())) };
    if settings.train.scale == CandidateScale::Trained {
        return Ok(as_trained(String::new()));
    }
    let fail = |reason: String| LoopError::Stage { stage: Stage::Train, reason };
    let variant = Some(settings.run.net.nnue_variant());
    let net = format::load(trained, variant).map_err(|e| fail(e.to_string()))?;
    let reference = format::load(&best_path, variant).map_err(|e| fail(e.to_string()))?;
    if !data_dir.join(ferz_dataset::layout::MANIFEST_FILE).exists() {
        return Err(fail(format!(
            "{} is not merged yet: a candidate's scale is matched to the best net's on it (train.scale = \"best\")",
            data_dir.display()
        )));
    }
    let manifest = ferz_dataset::open_verified(data_dir)?;
    let positions = sample_positions(data_dir, &manifest, SAMPLE_POSITIONS)?;
    let medians = medians(&net, &reference, &positions).map_err(|e| fail(format!("{}: {e}", data_dir.display())))?;
    let scale = match medians.matching_scale(net.scale()) {
        Ok(scale) => scale,
        Err(CalibrationError::Scale { wanted, .. }) => wanted.clamp(1.0, f64::from(MAX_SCALE)) as u16,
        Err(e) => return Ok(as_trained(format!("candidate at its trained scale: {e}"))),
    };
    let trained_scale = net.scale();
    let candidate = net.with_scale(scale).map_err(|e| fail(e.to_string()))?;
    let ours = median_abs_score(&candidate, &positions).unwrap_or(0);
    let bytes = format::to_bytes(&candidate);
    if std::fs::read(out).ok().as_deref() != Some(bytes.as_slice()) {
        ferz_files::write_atomic(out, &bytes).map_err(|source| LoopError::Io { path: out.to_path_buf(), source })?;
    }
    crate::fault::point("scale", 1);
    let detail = format!(
        "candidate at scale {scale} (trained at {trained_scale}): median |score| {ours} cp over {} positions, gen {}'s \
         {} cp",
        positions.len(),
        best.generation,
        medians.reference
    );
    Ok(Candidate { path: out.to_path_buf(), scale: Some(scale), detail })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::best_file;
    use ferz_dataset::import::{ImportOptions, import};
    use ferz_dataset::manifest::sha256_bytes;

    /// A loop directory whose best net (generation 0) is the embedded chess net, and a
    /// generation directory with data and that net trained, as the trainer writes it, at 400.
    fn loop_with_a_trained_candidate() -> (tempfile::TempDir, PathBuf, PathBuf, NetRef) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let bytes = ferz_nnue::embedded::bytes(ferz_nnue::NetVariant::Chess).unwrap();
        std::fs::create_dir_all(dir.join("best")).unwrap();
        std::fs::write(dir.join(best_file(0)), bytes).unwrap();
        let best = NetRef { generation: 0, file: Some(best_file(0)), sha256: Some(sha256_bytes(bytes)) };
        let gen_dir = dir.join("gen-0001");
        let pgn = gen_dir.join("games.pgn");
        std::fs::create_dir_all(&gen_dir).unwrap();
        let openings = [
            "e4 e5 Nf3 Nc6 Bc4 Bc5 c3 Nf6 d4 exd4 cxd4 Bb4+ Bd2 Bxd2+ Nbxd2 d5",
            "d4 d5 c4 e6 Nc3 Nf6 Bg5 Be7 e3 O-O Nf3 Nbd7 Rc1 c6 Bd3 dxc4",
            "e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6 Be3 e5 Nb3 Be6 f3 Be7",
        ];
        // Every move carries an evaluation, so that every position is imported.
        let games: String = openings
            .iter()
            .enumerate()
            .map(|(i, line)| {
                let moves: Vec<String> = line
                    .split(' ')
                    .enumerate()
                    .map(|(ply, san)| {
                        let number = if ply % 2 == 0 { format!("{}. ", ply / 2 + 1) } else { String::new() };
                        format!("{number}{san} {{ [%eval 0.1] }}")
                    })
                    .collect();
                format!("[Event \"g{i}\"]\n[Result \"1/2-1/2\"]\n\n{} 1/2-1/2\n\n", moves.join(" "))
            })
            .collect();
        std::fs::write(&pgn, games).unwrap();
        import(&gen_dir.join("data"), &[pgn], ImportOptions::default()).unwrap();
        let trained = gen_dir.join("net.nnue");
        let net = format::parse(bytes, None).unwrap().with_scale(400).unwrap();
        format::save(&net, &trained).unwrap();
        (tmp, gen_dir, trained, best)
    }

    /// The candidate of `trained` in the generation `gen_dir`, copied to its `candidate.nnue`.
    fn choose(
        dir: &Path,
        gen_dir: &Path,
        settings: &LoopConfig,
        trained: &Path,
        best: &NetRef,
    ) -> Result<Candidate, LoopError> {
        candidate_net(dir, &gen_dir.join("data"), settings, trained, best, &gen_dir.join(CANDIDATE_FILE))
    }

    #[test]
    fn a_candidate_is_set_to_the_best_nets_scale() {
        let (tmp, gen_dir, trained, best) = loop_with_a_trained_candidate();
        let settings = LoopConfig::default();
        assert_eq!(settings.train.scale, CandidateScale::Best);
        let candidate = choose(tmp.path(), &gen_dir, &settings, &trained, &best).unwrap();
        let path = gen_dir.join(CANDIDATE_FILE);
        assert_eq!(candidate.path, path);
        // The same weights as the best net: at the chosen scale the candidate's median score is
        // the best net's, to the centipawn, and so the scale is the best net's to within what
        // whole-centipawn medians resolve (the sample's openings score a few tens of cp).
        let scale = candidate.scale.unwrap();
        assert!(candidate.detail.starts_with(&format!("candidate at scale {scale} (trained at 400): median |score| ")));
        assert!(candidate.detail.contains("over 48 positions, gen 0's "), "{}", candidate.detail);
        let data_dir = gen_dir.join("data");
        let manifest = ferz_dataset::open_verified(&data_dir).unwrap();
        let positions = sample_positions(&data_dir, &manifest, SAMPLE_POSITIONS).unwrap();
        let best_net = format::load(&tmp.path().join(best_file(0)), None).unwrap();
        let median = |net: &ferz_nnue::Network| i32::try_from(median_abs_score(net, &positions).unwrap()).unwrap();
        let (ours, theirs) = (median(&format::load(&path, None).unwrap()), median(&best_net));
        assert!(theirs > 0 && (ours - theirs).abs() <= 1, "median {ours} cp against {theirs}");
        // Each median is whole centipawns: the ratio of the two is good to about 2/theirs.
        let best_scale = i32::from(best_net.scale());
        let resolution = 2 * best_scale / theirs + 1;
        assert!((i32::from(scale) - best_scale).abs() <= resolution, "{scale} for a best net of {best_scale}");
        let written = format::load(&path, None).unwrap();
        assert_eq!(written.scale(), scale);
        assert_eq!(written.feature_weights(), format::load(&trained, None).unwrap().feature_weights());

        // Again: the same bytes, left as they are.
        let before = std::fs::metadata(&path).unwrap().modified().unwrap();
        assert_eq!(choose(tmp.path(), &gen_dir, &settings, &trained, &best).unwrap(), candidate);
        assert_eq!(std::fs::metadata(&path).unwrap().modified().unwrap(), before);
        // A damaged copy is written again.
        std::fs::write(&path, b"damaged").unwrap();
        choose(tmp.path(), &gen_dir, &settings, &trained, &best).unwrap();
        assert_eq!(format::load(&path, None).unwrap().scale(), scale);
    }

    #[test]
    fn the_trained_scale_and_the_hand_tuned_best_keep_the_trained_net() {
        let (tmp, gen_dir, trained, best) = loop_with_a_trained_candidate();
        let as_trained = Candidate { path: trained.clone(), scale: None, detail: String::new() };
        let mut settings = LoopConfig::default();
        settings.train.scale = CandidateScale::Trained;
        assert_eq!(choose(tmp.path(), &gen_dir, &settings, &trained, &best).unwrap(), as_trained);
        let hand_tuned = NetRef { generation: 0, file: None, sha256: None };
        let settings = LoopConfig::default();
        assert_eq!(choose(tmp.path(), &gen_dir, &settings, &trained, &hand_tuned).unwrap(), as_trained);
        assert!(!gen_dir.join(CANDIDATE_FILE).exists());
    }

    /// A net unlike the best one does not stop the loop: one that scores (nearly) every position
    /// 0 keeps its trained scale, and one whose scores are too small for every scale of the
    /// format gets the largest.
    #[test]
    fn a_net_without_a_matching_scale_is_left_to_its_gate() {
        let (tmp, gen_dir, trained, best) = loop_with_a_trained_candidate();
        let settings = LoopConfig::default();
        let float = ferz_nnue::FloatNetwork::dequantise(&format::load(&trained, None).unwrap());
        let weaker = |factor: f32| {
            let net = ferz_nnue::FloatNetwork {
                output_weights: float.output_weights.iter().map(|w| w * factor).collect(),
                output_bias: float.output_bias.iter().map(|b| b * factor).collect(),
                ..float.clone()
            };
            // At the format's largest scale: the scores are `factor × 10` of the trained net's.
            let net = net.quantise(ferz_nnue::NetVariant::Chess).unwrap().with_scale(ferz_nnue::MAX_SCALE).unwrap();
            format::save(&net, &trained).unwrap();
        };
        weaker(0.0);
        let candidate = choose(tmp.path(), &gen_dir, &settings, &trained, &best).unwrap();
        assert_eq!((&candidate.path, candidate.scale), (&trained, None));
        assert!(
            candidate.detail.starts_with("candidate at its trained scale: the net scores 48 of 48"),
            "{}",
            candidate.detail
        );
        // About a fifth of the trained net's scores, where the best net's are three quarters of
        // them: the matching scale would be above 10,000.
        weaker(0.02);
        let candidate = choose(tmp.path(), &gen_dir, &settings, &trained, &best).unwrap();
        assert_eq!(candidate.scale, Some(ferz_nnue::MAX_SCALE));
    }

    #[test]
    fn missing_data_or_a_damaged_net_is_named() {
        let (tmp, gen_dir, trained, best) = loop_with_a_trained_candidate();
        let settings = LoopConfig::default();
        std::fs::write(&trained, b"not a net").unwrap();
        let error = choose(tmp.path(), &gen_dir, &settings, &trained, &best).unwrap_err().to_string();
        assert!(error.contains("net.nnue"), "{error}");
        std::fs::remove_dir_all(gen_dir.join("data")).unwrap();
        let net = format::parse(ferz_nnue::embedded::bytes(ferz_nnue::NetVariant::Chess).unwrap(), None).unwrap();
        format::save(&net, &trained).unwrap();
        let error = choose(tmp.path(), &gen_dir, &settings, &trained, &best).unwrap_err().to_string();
        assert!(error.contains("data is not merged yet"), "{error}");
        assert!(!gen_dir.join(CANDIDATE_FILE).exists());
    }
}
