//! Endgame tablebases in the bot: what they say about our position, and the online
//! tablebase's move.
//!
//! - Local Syzygy tables (`[tablebase] syzygy_path`) are opened once and handed to the engine
//!   ([`Tablebases::equip`]): the in-process engine gets them directly and ranks its root moves
//!   by DTZ itself (winning fastest to zeroing, holding draws, resisting losses longest: one
//!   home for that logic, `ferz-engine`'s `tablebase.rs`), a UCI engine gets them as its
//!   `SyzygyPath` option. The bot probes them only for the [`Verdict`] its resign and draw
//!   rules use.
//! - The Lichess online tablebase (`[tablebase] online`) covers standard chess up to 7 pieces
//!   where the local tables do not: the bot plays its best move (ranked here, the same way the
//!   engine ranks local tables) without searching. A lookup that is slow, refused (429), or
//!   answers nonsense costs a log line and the engine plays, never the move.
//!
//! Tables describe standard chess without castling rights; Chess960 and From Position games
//! without castling rights are the same positions, Shatranj is never probed.

use std::fmt;
use std::time::Duration;

use ferz_chess::{Game, Move, Position, Variant};
use ferz_engine::tablebase::SyzygyOptions;
use ferz_lichess::{Category, Client, Endpoint, TablebaseAnswer};
use ferz_syzygy::Wdl;
use ferz_uci::EngineOption;

use crate::config::{EngineChoice, EngineKind, TablebaseConfig};
use crate::setup::parse_server_move;

/// A tablebase's result for the side to move: ours, when it is our turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Verdict {
    /// Lost within the 50-move rule.
    Loss,
    /// Lost, but the 50-move rule saves it.
    BlessedLoss,
    /// Drawn.
    Draw,
    /// Won, but the 50-move rule spoils it.
    CursedWin,
    /// Won within the 50-move rule.
    Win,
}

impl Verdict {
    /// A drawn result under the 50-move rule (cursed wins and blessed losses included).
    #[must_use]
    pub(crate) fn is_drawn(self) -> bool {
        matches!(self, Verdict::BlessedLoss | Verdict::Draw | Verdict::CursedWin)
    }

    /// The verdict of a local probe; without `rule50` the 50-move rule is ignored.
    #[must_use]
    pub(crate) fn of_wdl(wdl: Wdl, rule50: bool) -> Verdict {
        match wdl {
            Wdl::Win => Verdict::Win,
            Wdl::CursedWin if rule50 => Verdict::CursedWin,
            Wdl::CursedWin => Verdict::Win,
            Wdl::Draw => Verdict::Draw,
            Wdl::BlessedLoss if rule50 => Verdict::BlessedLoss,
            Wdl::BlessedLoss => Verdict::Loss,
            Wdl::Loss => Verdict::Loss,
        }
    }

    /// The verdict of an online category; `None` for the uncertain ones (`syzygy-…` and
    /// `maybe-…`, where the 50-move rule may decide, and `unknown`).
    #[must_use]
    pub(crate) fn of_category(category: Category) -> Option<Verdict> {
        match category {
            Category::Win => Some(Verdict::Win),
            Category::CursedWin => Some(Verdict::CursedWin),
            Category::Draw => Some(Verdict::Draw),
            Category::BlessedLoss => Some(Verdict::BlessedLoss),
            Category::Loss => Some(Verdict::Loss),
            Category::SyzygyWin
            | Category::MaybeWin
            | Category::MaybeLoss
            | Category::SyzygyLoss
            | Category::Unknown => None,
        }
    }

    /// The score written to the PGN and the chat's `!eval` for a move the tablebase chose,
    /// as the engine scores tablebase results (a win just below the mate scores).
    #[must_use]
    pub(crate) fn score(self) -> ferz_engine::Score {
        let win = ferz_engine::tablebase::TB_WIN - ferz_engine::MAX_PLY as i32;
        ferz_engine::Score::Cp(match self {
            Verdict::Win => win,
            Verdict::CursedWin => 2,
            Verdict::Draw => 0,
            Verdict::BlessedLoss => -2,
            Verdict::Loss => -win,
        })
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::Loss => "loss",
            Verdict::BlessedLoss => "blessed-loss",
            Verdict::Draw => "draw",
            Verdict::CursedWin => "cursed-win",
            Verdict::Win => "win",
        })
    }
}

/// Where a verdict came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// The Syzygy tables on disk.
    Local,
    /// The Lichess online tablebase.
    Online,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Source::Local => "syzygy",
            Source::Online => "online",
        })
    }
}

/// What the tablebases know of a position where we are to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Known {
    /// Our result, when certain.
    pub verdict: Option<Verdict>,
    /// The move to play without searching (online answers; local tables leave it to the
    /// engine, which has them).
    pub mv: Option<Move>,
    /// Where it came from.
    pub source: Source,
}

/// A tablebase that cannot be used at start.
#[derive(Debug, thiserror::Error)]
pub enum TablebaseError {
    /// The Syzygy tables cannot be opened.
    #[error("tablebase.syzygy_path: {0}")]
    Syzygy(String),
}

/// The tablebases of a run, shared by every game.
#[derive(Clone, Default)]
pub(crate) struct Tablebases {
    /// The local tables, as the in-process engine takes them.
    syzygy: SyzygyOptions,
    /// The settings as given.
    config: TablebaseConfig,
}

impl Tablebases {
    /// Opens the tables `config` names; a summary is logged.
    ///
    /// # Errors
    /// Directories without Syzygy tables, corrupt tables.
    pub(crate) fn open(config: &TablebaseConfig) -> Result<Tablebases, TablebaseError> {
        let mut syzygy =
            SyzygyOptions { probe_depth: config.probe_depth, rule50: config.rule50, ..SyzygyOptions::default() };
        if !config.syzygy_path.trim().is_empty() {
            let summary = syzygy.set_path(&config.syzygy_path).map_err(TablebaseError::Syzygy)?;
            tracing::info!(path = %config.syzygy_path, "{summary}");
        }
        if config.online {
            tracing::info!(url = %config.online_url, max_pieces = config.online_max_pieces, "online tablebase on");
        }
        Ok(Tablebases { syzygy, config: config.clone() })
    }

    /// `choice` with the local tables: the in-process engine (and the stand-in of a UCI
    /// engine) gets them directly, a UCI engine as `SyzygyPath` unless its options set one.
    #[must_use]
    pub(crate) fn equip(&self, mut choice: EngineChoice) -> EngineChoice {
        if self.syzygy.tables.is_none() {
            return choice;
        }
        choice.syzygy = self.syzygy.clone();
        let set = choice.options.iter().any(|o| o.name.eq_ignore_ascii_case("SyzygyPath"));
        if choice.kind == EngineKind::Uci && !set {
            choice.options.push(EngineOption::new("SyzygyPath", self.config.syzygy_path.trim()));
        }
        choice
    }

    /// Our result in `position` by the local tables, if they cover it.
    #[must_use]
    pub(crate) fn local_verdict(&self, position: &Position) -> Option<Verdict> {
        let tables = self.syzygy.tables.as_deref()?;
        let rule50 = self.config.rule50;
        let mut wdl = tables.probe_wdl(position).ok()?;
        // WDL assumes a fresh halfmove clock. When the plies to zeroing (one DTZ probe) and the
        // clock come near 100, the engine's root ranking (a probe per move) says exactly what
        // the 50-move rule leaves of the result; without the DTZ table, WDL alone.
        let clock = position.halfmoves() as i32;
        if rule50
            && clock > 0
            && matches!(wdl, Wdl::Win | Wdl::Loss)
            && let Ok(dtz) = tables.probe_dtz(position)
            && dtz.0.abs() + clock >= 100
            && let Ok(ranked) = tables.rank_root_moves(position, rule50)
        {
            wdl = ranked.first()?.wdl;
        }
        Some(Verdict::of_wdl(wdl, rule50))
    }

    /// What the tablebases know about the game's position, our turn, with `clock` left on our
    /// clock (`None`: no clock): the local tables first, then the online tablebase (through
    /// `client`) when it may be asked. `None` when neither knows.
    pub(crate) async fn consult(
        &self,
        client: &Client,
        game_id: &str,
        game: &Game,
        clock: Option<Duration>,
    ) -> Option<Known> {
        let position = game.position();
        if let Some(verdict) = self.local_verdict(position) {
            return Some(Known { verdict: Some(verdict), mv: None, source: Source::Local });
        }
        if !self.config.online || !self.online_may_ask(position, clock) {
            return None;
        }
        if let Some(held) = client.held_for(Endpoint::Tablebase) {
            tracing::debug!(game = %game_id, held_s = held.as_secs(), "online tablebase held by a 429; the engine plays");
            return None;
        }
        let fen = position.fen();
        let timeout = Duration::from_millis(self.config.online_timeout_ms);
        let answer = match client.tablebase_standard(&self.config.online_url, &fen, timeout).await {
            Ok(answer) => answer,
            Err(e) if e.status() == Some(404) => {
                tracing::info!(game = %game_id, fen, "online tablebase: not a tablebase position; the engine plays");
                return None;
            }
            Err(ferz_lichess::Error::Timeout { .. }) => {
                tracing::warn!(game = %game_id, fen, timeout_ms = self.config.online_timeout_ms, "online tablebase timed out; the engine plays");
                return None;
            }
            Err(e) => {
                tracing::warn!(game = %game_id, fen, error = %e, "online tablebase failed; the engine plays");
                return None;
            }
        };
        match online_choice(position, &answer) {
            Ok(known) => Some(known),
            Err(problem) => {
                tracing::warn!(game = %game_id, fen, problem, "online tablebase answer unusable; the engine plays");
                None
            }
        }
    }

    /// Whether the online tablebase may be asked about `position`: standard chess rules (or a
    /// Chess960 position without castling rights), few enough pieces, enough time.
    fn online_may_ask(&self, position: &Position, clock: Option<Duration>) -> bool {
        position.variant() != Variant::Shatranj
            && position.castling_rooks().is_empty()
            && position.board().occupied().count() <= self.config.online_max_pieces
            && clock.is_none_or(|left| left >= Duration::from_secs(self.config.min_time_s))
    }
}

/// How good a move is for us, by the online answer: result first, then speed (a win) or
/// length (a loss). Higher is better.
fn online_rank(entry: &ferz_lichess::TablebaseMove) -> Option<(u8, i64)> {
    let ours = entry.category.flip();
    let result = match ours {
        // A rounded-DTZ win (`syzygy-win`) is surer than one whose 50-move status is unknown.
        Category::Win => 8,
        Category::SyzygyWin => 7,
        Category::MaybeWin => 6,
        Category::CursedWin => 5,
        Category::Draw => 4,
        Category::BlessedLoss => 3,
        Category::MaybeLoss => 2,
        Category::SyzygyLoss => 1,
        Category::Loss => 0,
        Category::Unknown => return None,
    };
    // Plies to the next zeroing move (mate or capture or pawn move), as the engine's DTZ
    // ranking counts them: 1 for a zeroing move, else one more than the reply's DTZ. Mate in
    // one is best of all; DTM, where known, breaks ties.
    let to_zero = if entry.checkmate {
        0
    } else if entry.zeroing {
        1
    } else {
        i64::from(entry.dtz.map_or(i32::MAX / 4, i32::abs)) + 1
    };
    let dtm = i64::from(entry.dtm.map_or(0, i32::abs));
    let speed = to_zero * 10_000 + dtm.min(9_999);
    let tiebreak = match result {
        5..=8 => -speed,
        0..=3 => speed,
        // Draws: the server's order (best first) decides.
        _ => 0,
    };
    Some((result, tiebreak))
}

/// The move to play from an online answer for `position`: the best-ranked legal move, and our
/// verdict. Errors say what is wrong with the answer.
///
/// # Errors
/// No legal move in the answer, or a best move whose result is unknown.
pub(crate) fn online_choice(position: &Position, answer: &TablebaseAnswer) -> Result<Known, String> {
    let mut best: Option<((u8, i64), Move)> = None;
    for entry in &answer.moves {
        let Ok(mv) = parse_server_move(position, &entry.uci) else {
            return Err(format!("{} is not a legal move here", entry.uci));
        };
        let Some(rank) = online_rank(entry) else { continue };
        if best.is_none_or(|(r, _)| rank > r) {
            best = Some((rank, mv));
        }
    }
    let (_, mv) = best.ok_or_else(|| "no move with a known result".to_owned())?;
    Ok(Known { verdict: Verdict::of_category(answer.category), mv: Some(mv), source: Source::Online })
}

#[cfg(test)]
mod tests {
    use ferz_lichess::TablebaseMove;

    use super::*;

    fn entry(uci: &str, category: Category, dtz: Option<i32>, zeroing: bool, checkmate: bool) -> TablebaseMove {
        TablebaseMove { uci: uci.into(), category, dtz, dtm: None, zeroing, checkmate }
    }

    fn position(fen: &str) -> Position {
        Position::from_fen(fen, Variant::Chess).unwrap()
    }

    #[test]
    fn a_win_is_converted_fastest_to_zeroing_and_a_mate_comes_first() {
        // KQvK: the server's order is not trusted; the ranking is ours.
        let pos = position("8/8/8/8/8/2k5/8/KQ6 w - - 0 1");
        let answer = TablebaseAnswer {
            category: Category::Win,
            dtz: Some(9),
            dtm: Some(9),
            moves: vec![
                entry("b1b2", Category::Draw, Some(0), false, false),
                entry("b1b6", Category::Loss, Some(-12), false, false),
                entry("b1e4", Category::Loss, Some(-8), false, false),
                entry("a1a2", Category::CursedWin, Some(101), false, false),
            ],
        };
        let known = online_choice(&pos, &answer).unwrap();
        assert_eq!(pos.uci(known.mv.unwrap()), "b1e4");
        assert_eq!((known.verdict, known.source), (Some(Verdict::Win), Source::Online));
        let mut with_mate = answer.clone();
        with_mate.moves.push(entry("b1b4", Category::Loss, Some(-20), false, true));
        assert_eq!(pos.uci(online_choice(&pos, &with_mate).unwrap().mv.unwrap()), "b1b4");
    }

    #[test]
    fn a_loss_resists_longest_and_a_draw_is_held() {
        // KvKQ, black to move: every move loses; the longest resistance avoids zeroing.
        let pos = position("8/8/8/8/8/2k5/8/KQ6 b - - 0 1");
        let answer = TablebaseAnswer {
            category: Category::Loss,
            dtz: Some(-10),
            dtm: None,
            moves: vec![
                entry("c3d4", Category::Win, Some(5), false, false),
                entry("c3c4", Category::Win, Some(9), false, false),
                entry("c3d2", Category::Draw, Some(0), false, false),
            ],
        };
        let known = online_choice(&pos, &answer).unwrap();
        assert_eq!(pos.uci(known.mv.unwrap()), "c3d2", "a draw beats any loss");
        let mut lost = answer;
        lost.moves.pop();
        let known = online_choice(&pos, &lost).unwrap();
        assert_eq!((pos.uci(known.mv.unwrap()).as_str(), known.verdict), ("c3c4", Some(Verdict::Loss)));
    }

    #[test]
    fn unusable_answers_are_errors_and_uncertain_ones_give_no_verdict() {
        let pos = position("8/8/8/8/8/2k5/8/KQ6 w - - 0 1");
        let illegal = TablebaseAnswer {
            category: Category::Win,
            dtz: None,
            dtm: None,
            moves: vec![entry("a1h8", Category::Loss, Some(-3), false, false)],
        };
        assert!(online_choice(&pos, &illegal).unwrap_err().contains("a1h8"));
        let unknown = TablebaseAnswer {
            category: Category::Unknown,
            dtz: None,
            dtm: None,
            moves: vec![entry("b1b2", Category::Unknown, None, false, false)],
        };
        assert_eq!(online_choice(&pos, &unknown).unwrap_err(), "no move with a known result");
        let maybe = TablebaseAnswer {
            category: Category::MaybeWin,
            dtz: Some(99),
            dtm: None,
            moves: vec![entry("b1b2", Category::MaybeLoss, Some(-98), false, false)],
        };
        assert_eq!(online_choice(&pos, &maybe).unwrap().verdict, None);
    }

    #[test]
    fn verdicts_follow_the_50_move_setting() {
        assert_eq!(Verdict::of_wdl(Wdl::CursedWin, true), Verdict::CursedWin);
        assert_eq!(Verdict::of_wdl(Wdl::CursedWin, false), Verdict::Win);
        assert_eq!(Verdict::of_wdl(Wdl::BlessedLoss, false), Verdict::Loss);
        assert!(Verdict::BlessedLoss.is_drawn() && !Verdict::Loss.is_drawn() && !Verdict::Win.is_drawn());
        assert_eq!(Verdict::of_category(Category::MaybeLoss), None);
        assert!(Verdict::Win.score().centipawns() > 19_000 && Verdict::Loss.score().centipawns() < -19_000);
    }

    #[test]
    fn local_tables_give_verdicts_and_reach_the_engine() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../syzygy/tests/data/syzygy");
        let config = TablebaseConfig { syzygy_path: dir.to_string_lossy().into_owned(), ..TablebaseConfig::default() };
        let tables = Tablebases::open(&config).unwrap();
        assert_eq!(tables.local_verdict(&position("8/8/8/8/8/2k5/8/KQ6 w - - 0 1")), Some(Verdict::Win));
        assert_eq!(tables.local_verdict(&position("8/8/8/8/8/2k5/8/KQ6 b - - 0 1")), Some(Verdict::Loss));
        assert_eq!(tables.local_verdict(&position("8/8/8/8/8/2k5/8/K6N w - - 0 1")), Some(Verdict::Draw));
        // With the halfmove clock: the same result as the best move of the engine's root
        // ranking, which probes every move.
        let syzygy = ferz_syzygy::Tablebases::open(&[&dir]).unwrap();
        for fen in ["8/8/8/8/8/2k5/8/KQ6", "8/1K6/8/1R6/8/8/4k3/8", "8/8/4k3/8/8/8/8/Q6K", "k7/8/8/8/8/8/8/KBN5"] {
            for side in ["w", "b"] {
                for clock in [0, 60, 85, 99] {
                    let Ok(pos) = Position::from_fen(&format!("{fen} {side} - - {clock} 80"), Variant::Chess) else {
                        continue;
                    };
                    let Some(best) = syzygy.rank_root_moves(&pos, true).unwrap().first().map(|r| r.wdl) else {
                        continue;
                    };
                    assert_eq!(tables.local_verdict(&pos), Some(Verdict::of_wdl(best, true)), "{}", pos.fen());
                }
            }
        }
        assert_eq!(
            tables.local_verdict(&position("8/1K6/8/1R6/8/8/4k3/8 w - - 90 80")),
            Some(Verdict::CursedWin),
            "DTZ 25 from a clock of 90"
        );
        // Too many pieces for the 3-4 piece set.
        assert_eq!(tables.local_verdict(&position("8/8/8/8/8/2k1r3/8/KQ5R w - - 0 1")), None);
        let config = crate::config::EngineConfig::default();
        let ferz = tables.equip(config.choice(crate::config::EngineVariant::Standard));
        assert!(ferz.syzygy.tables.is_some() && ferz.options.is_empty());
        let mut uci = config.choice(crate::config::EngineVariant::Standard);
        uci.kind = EngineKind::Uci;
        let equipped = tables.equip(uci.clone());
        assert_eq!(equipped.options, [EngineOption::new("SyzygyPath", dir.to_str().unwrap())]);
        uci.options.push(EngineOption::new("syzygypath", "/mine"));
        assert_eq!(tables.equip(uci).options, [EngineOption::new("syzygypath", "/mine")], "the user's own wins");
        let none = Tablebases::default();
        assert!(none.local_verdict(&position("8/8/8/8/8/2k5/8/KQ6 w - - 0 1")).is_none());
        assert!(
            Tablebases::open(&TablebaseConfig { syzygy_path: "/nonexistent".into(), ..TablebaseConfig::default() })
                .is_err()
        );
    }
}
