//! Lichess cloud evaluation (`GET /api/cloud-eval?fen=…&multiPv=…&variant=…`): the stored
//! analysis of a position, `{fen, knodes, depth, pvs: [{moves: "e2e4 e7e5 …", cp | mate}]}`,
//! scores from white's side; 404 when the position is not in the cloud.

use serde::Deserialize;

use super::{Chess, Eval, Evidence, Proposal};
use crate::config::online::CloudEvalConfig;

/// The answer.
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct Answer {
    /// The depth of the analysis.
    pub depth: u32,
    /// The lines, best first.
    pub pvs: Vec<Line>,
}

/// One line of the answer.
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct Line {
    /// Its moves, space-separated UCI.
    pub moves: String,
    /// Centipawns for white.
    pub cp: Option<i32>,
    /// Mate in this many moves for white (negative: black mates).
    pub mate: Option<i32>,
}

/// The query for `fen`.
#[must_use]
pub(crate) fn query(fen: &str, chess: Chess, multipv: u32) -> Vec<(&'static str, String)> {
    vec![("fen", fen.to_owned()), ("multiPv", multipv.to_string()), ("variant", chess.key().to_owned())]
}

/// The move to play: among the lines within `max_score_loss_cp` of the best (for the side to
/// move, white when `white`), one at random; none when the analysis is shallower than
/// `min_depth` or has no line with a move and a score.
#[must_use]
pub(crate) fn pick(
    answer: &Answer,
    white: bool,
    config: &CloudEvalConfig,
    rng: &mut fastrand::Rng,
) -> Option<Proposal> {
    if answer.depth < config.min_depth {
        return None;
    }
    let ours = |n: i32| if white { n } else { -n };
    let lines: Vec<(&str, Eval)> = answer
        .pvs
        .iter()
        .filter_map(|line| {
            let first = line.moves.split_whitespace().next()?;
            let eval = match (line.mate, line.cp) {
                (Some(n), _) => Eval::Mate(ours(n)),
                (None, Some(cp)) => Eval::Cp(ours(cp)),
                (None, None) => return None,
            };
            Some((first, eval))
        })
        .collect();
    let best = lines.iter().map(|(_, e)| e.rank()).max()?;
    let near: Vec<&(&str, Eval)> =
        lines.iter().filter(|(_, e)| e.rank() >= best - i64::from(config.max_score_loss_cp)).collect();
    let &(uci, eval) = near[rng.usize(..near.len())];
    Some(Proposal { uci: uci.to_owned(), evidence: Evidence::Eval { eval, depth: answer.depth } })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(json: serde_json::Value) -> Answer {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn the_best_line_or_one_near_it_for_the_side_to_move() {
        let a = answer(serde_json::json!({
            "fen": "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", "knodes": 1000, "depth": 40,
            "pvs": [{"moves": "c7c5 g1f3", "cp": 30}, {"moves": "e7e5 g1f3", "cp": 35}, {"moves": "a7a5", "cp": 120}],
        }));
        let config = CloudEvalConfig { min_depth: 30, max_score_loss_cp: 0, ..CloudEvalConfig::default() };
        let mut rng = fastrand::Rng::with_seed(3);
        // Black to move: white's +30 is black's -30, the best of the three.
        let best = pick(&a, false, &config, &mut rng).unwrap();
        assert_eq!(best, Proposal { uci: "c7c5".into(), evidence: Evidence::Eval { eval: Eval::Cp(-30), depth: 40 } });
        // Within 10 cp: c7c5 or e7e5, never a7a5.
        let wide = CloudEvalConfig { max_score_loss_cp: 10, ..config.clone() };
        let seen: std::collections::BTreeSet<String> =
            (0..50).map(|_| pick(&a, false, &wide, &mut rng).unwrap().uci).collect();
        assert_eq!(seen.into_iter().collect::<Vec<_>>(), ["c7c5", "e7e5"]);
        // Too shallow.
        assert_eq!(pick(&a, false, &CloudEvalConfig { min_depth: 41, ..config.clone() }, &mut rng), None);
    }

    #[test]
    fn mates_and_lines_without_moves() {
        let a = answer(serde_json::json!({
            "depth": 25, "pvs": [{"moves": "", "cp": 900}, {"moves": "d8h4", "mate": -1}, {"moves": "a7a6"}],
        }));
        let config = CloudEvalConfig { min_depth: 20, ..CloudEvalConfig::default() };
        let got = pick(&a, false, &config, &mut fastrand::Rng::with_seed(1)).unwrap();
        assert_eq!((got.uci.as_str(), got.evidence), ("d8h4", Evidence::Eval { eval: Eval::Mate(1), depth: 25 }));
        let empty = answer(serde_json::json!({"depth": 30, "pvs": []}));
        assert_eq!(pick(&empty, true, &config, &mut fastrand::Rng::with_seed(1)), None);
        assert!(serde_json::from_value::<Answer>(serde_json::json!({"pvs": "e2e4"})).is_err());
    }

    #[test]
    fn the_query_names_the_variant_and_lines() {
        let q = query("fen w", Chess::Chess960, 3);
        assert_eq!(q, [("fen", "fen w".to_owned()), ("multiPv", "3".to_owned()), ("variant", "chess960".to_owned())]);
    }
}
