//! chessdb.cn's query API (`GET /cdb.php?action=querypv&board=FEN&json=1`): its best move and
//! the line behind it, `{status: "ok", score, depth, pv: [..]}` with the score for the side to
//! move; `status` is `unknown` (or another word) when it has no move. Standard chess only.

use serde::Deserialize;

use super::{Eval, Evidence, Proposal};

/// The answer of `querypv`.
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct Answer {
    /// `ok`, or why there is no line (`unknown`, `checkmate`, `invalid board`, …).
    pub status: String,
    /// Centipawns for the side to move.
    #[serde(default)]
    pub score: Option<i32>,
    /// The depth of the line.
    #[serde(default)]
    pub depth: Option<u32>,
    /// The line, UCI.
    #[serde(default)]
    pub pv: Vec<String>,
}

/// The query for `fen`.
#[must_use]
pub(crate) fn query(fen: &str) -> Vec<(&'static str, String)> {
    vec![("action", "querypv".to_owned()), ("board", fen.to_owned()), ("json", "1".to_owned())]
}

/// The line's first move, when chessdb has a line at least `min_depth` deep.
#[must_use]
pub(crate) fn pick(answer: &Answer, min_depth: u32) -> Option<Proposal> {
    if answer.status != "ok" {
        return None;
    }
    let depth = answer.depth.unwrap_or(0);
    let first = answer.pv.first().filter(|_| depth >= min_depth)?;
    let eval = Eval::Cp(answer.score?);
    Some(Proposal { uci: first.clone(), evidence: Evidence::Eval { eval, depth } })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(json: serde_json::Value) -> Answer {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn the_first_move_of_a_deep_enough_line() {
        let a = answer(serde_json::json!({
            "status": "ok", "score": 24, "depth": 33, "pv": ["e2e4", "e7e5"], "pvSAN": ["e4", "e5"],
        }));
        let got = pick(&a, 20).unwrap();
        assert_eq!(got, Proposal { uci: "e2e4".into(), evidence: Evidence::Eval { eval: Eval::Cp(24), depth: 33 } });
        assert_eq!(pick(&a, 34), None, "too shallow");
        assert_eq!(pick(&answer(serde_json::json!({"status": "unknown"})), 0), None);
        assert_eq!(pick(&answer(serde_json::json!({"status": "ok", "score": 5, "depth": 40, "pv": []})), 0), None);
        assert!(serde_json::from_value::<Answer>(serde_json::json!({"score": 5})).is_err(), "no status");
        assert_eq!(query("x w")[1], ("board", "x w".to_owned()));
    }
}
