//! The Lichess opening explorer: `GET /masters?fen=…` and `GET /lichess?variant=…&fen=…&
//! speeds=…&ratings=…`, both answering `{white, draws, black, moves: [{uci, san, white, draws,
//! black, averageRating}]}`, the most played moves first.

use serde::Deserialize;

use super::{Chess, Evidence, Proposal};
use crate::config::BookSelection;
use crate::config::online::ExplorerConfig;

/// The answer.
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct Answer {
    /// The moves played here, most played first.
    pub moves: Vec<ExplorerMove>,
}

/// One move of the answer.
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct ExplorerMove {
    /// The move, UCI.
    pub uci: String,
    /// Games white won after it.
    pub white: u64,
    /// Games drawn after it.
    pub draws: u64,
    /// Games black won after it.
    pub black: u64,
}

impl ExplorerMove {
    fn games(&self) -> u64 {
        self.white + self.draws + self.black
    }

    /// The score of the side to move (white when `white`), in half points per game.
    fn score(&self, white: bool) -> f64 {
        let wins = if white { self.white } else { self.black };
        (wins as f64 + self.draws as f64 / 2.0) / self.games().max(1) as f64
    }
}

/// The query for `fen` of the masters database (`masters`) or the Lichess one.
#[must_use]
pub(crate) fn query(masters: bool, fen: &str, chess: Chess, config: &ExplorerConfig) -> Vec<(&'static str, String)> {
    let mut query = vec![("fen", fen.to_owned()), ("moves", config.max_moves.to_string()), ("topGames", "0".into())];
    if !masters {
        let speeds: Vec<&str> = config.speeds.iter().map(|s| s.as_str()).collect();
        let ratings: Vec<String> = config.ratings.iter().map(u32::to_string).collect();
        query.push(("variant", chess.key().to_owned()));
        query.push(("speeds", speeds.join(",")));
        query.push(("ratings", ratings.join(",")));
        query.push(("recentGames", "0".into()));
    }
    query
}

/// A move among the `max_moves` most played ones with at least `min_games` games, chosen by
/// `selection`: the best score for the side to move (white when `white`; more games break
/// ties), in proportion to the games, or uniformly.
#[must_use]
pub(crate) fn pick(answer: &Answer, white: bool, config: &ExplorerConfig, rng: &mut fastrand::Rng) -> Option<Proposal> {
    let candidates: Vec<&ExplorerMove> =
        answer.moves.iter().take(config.max_moves as usize).filter(|m| m.games() >= config.min_games.max(1)).collect();
    let chosen = match config.selection {
        BookSelection::Best => candidates
            .iter()
            .copied()
            .max_by(|a, b| a.score(white).total_cmp(&b.score(white)).then(a.games().cmp(&b.games())))?,
        BookSelection::Weighted => {
            let total: u64 = candidates.iter().map(|m| m.games()).sum();
            let mut at = rng.u64(..total.max(1));
            candidates.iter().copied().find(|m| {
                let inside = at < m.games();
                at = at.saturating_sub(m.games());
                inside
            })?
        }
        BookSelection::Uniform => *candidates.get(rng.usize(..candidates.len().max(1)))?,
    };
    let score_pct = (chosen.score(white) * 100.0).round() as u32;
    let evidence = Evidence::Games { games: chosen.games(), score_pct, candidates: candidates.len() };
    Some(Proposal { uci: chosen.uci.clone(), evidence })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::config::Speed;

    fn answer() -> Answer {
        serde_json::from_value(serde_json::json!({
            "white": 1000, "draws": 900, "black": 800,
            "moves": [
                {"uci": "e2e4", "san": "e4", "white": 400, "draws": 300, "black": 300, "averageRating": 2400},
                {"uci": "d2d4", "san": "d4", "white": 300, "draws": 200, "black": 100, "averageRating": 2410},
                {"uci": "g1f3", "san": "Nf3", "white": 5, "draws": 2, "black": 1, "averageRating": 2390},
                {"uci": "b2b4", "san": "b4", "white": 0, "draws": 0, "black": 20, "averageRating": 2000},
            ],
        }))
        .unwrap()
    }

    fn config(selection: BookSelection) -> ExplorerConfig {
        ExplorerConfig { selection, min_games: 10, max_moves: 12, ..ExplorerConfig::default() }
    }

    #[test]
    fn best_is_the_best_score_for_the_side_to_move() {
        let mut rng = fastrand::Rng::with_seed(1);
        let white = pick(&answer(), true, &config(BookSelection::Best), &mut rng).unwrap();
        // d4 scores 67% for white; Nf3 (75%) has too few games.
        assert_eq!(white.uci, "d2d4");
        assert_eq!(white.evidence, Evidence::Games { games: 600, score_pct: 67, candidates: 3 });
        // For black the same numbers favour b4 (100% for black).
        assert_eq!(pick(&answer(), false, &config(BookSelection::Best), &mut rng).unwrap().uci, "b2b4");
        // Only the two most played moves.
        let two = ExplorerConfig { max_moves: 2, ..config(BookSelection::Best) };
        assert_eq!(pick(&answer(), false, &two, &mut rng).unwrap().uci, "e2e4");
    }

    #[test]
    fn weighted_follows_the_games_and_uniform_does_not() {
        let mut rng = fastrand::Rng::with_seed(7);
        let mut count = |selection| {
            let mut seen = BTreeMap::new();
            for _ in 0..2000 {
                *seen.entry(pick(&answer(), true, &config(selection), &mut rng).unwrap().uci).or_insert(0u32) += 1;
            }
            seen
        };
        let weighted = count(BookSelection::Weighted);
        // 1000 : 600 : 20 games.
        assert!(weighted["e2e4"] > 1100 && weighted["d2d4"] > 600 && weighted["b2b4"] < 80, "{weighted:?}");
        assert!(!weighted.contains_key("g1f3"));
        let uniform = count(BookSelection::Uniform);
        assert!(uniform.values().all(|&n| n > 500), "{uniform:?}");
    }

    #[test]
    fn no_candidates_no_move_and_the_queries() {
        let empty: Answer =
            serde_json::from_value(serde_json::json!({"white": 0, "draws": 0, "black": 0, "moves": []})).unwrap();
        for selection in [BookSelection::Best, BookSelection::Weighted, BookSelection::Uniform] {
            assert_eq!(pick(&empty, true, &config(selection), &mut fastrand::Rng::with_seed(1)), None);
        }
        assert!(serde_json::from_value::<Answer>(serde_json::json!({"moves": [{"uci": "e2e4"}]})).is_err());
        let config = ExplorerConfig {
            speeds: vec![Speed::Blitz, Speed::Rapid],
            ratings: vec![2200, 2500],
            ..config(BookSelection::Best)
        };
        let masters = query(true, "f w", Chess::Standard, &config);
        assert_eq!(masters, [("fen", "f w".to_owned()), ("moves", "12".to_owned()), ("topGames", "0".to_owned())]);
        let lichess = query(false, "f w", Chess::Chess960, &config);
        assert!(lichess.contains(&("variant", "chess960".to_owned())));
        assert!(lichess.contains(&("speeds", "blitz,rapid".to_owned())));
        assert!(lichess.contains(&("ratings", "2200,2500".to_owned())));
    }
}
