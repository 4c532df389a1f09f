//! PGN: writing finished games, and reading games back (books and checks).

use std::fmt::Write as _;

use ferz_chess::{GameResult, PgnMove, write_pgn};

use crate::game::{GameRecord, MoveReport};

/// What the PGN needs besides the game itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnContext {
    /// `Event`.
    pub event: String,
    /// `Date`, `YYYY.MM.DD`.
    pub date: String,
    /// `Round`: the game's number in the match.
    pub round: u64,
    /// `TimeControl`.
    pub time_control: String,
    /// Whether to write `{score/depth time}` after each engine move.
    pub comments: bool,
}

/// Today's date (UTC) in PGN form.
#[must_use]
pub fn today() -> String {
    ferz_chess::pgn_date_today()
}

fn comment(thought: &MoveReport) -> String {
    let mut text = String::new();
    if let Some(score) = thought.score {
        text.push_str(&score.to_string());
        if let Some(depth) = thought.depth {
            let _ = write!(text, "/{depth}");
        }
        text.push(' ');
    }
    let _ = write!(text, "{:.3}s", thought.elapsed.as_secs_f64());
    text
}

/// Writes one game as PGN (export-format headers, SAN moves, lines of at most 80 characters,
/// a blank line after it).
#[must_use]
pub fn write_game(record: &GameRecord, context: &PgnContext) -> String {
    let tags = [
        ("Event", context.event.clone()),
        ("Site", "?".to_owned()),
        ("Date", context.date.clone()),
        ("Round", context.round.to_string()),
        ("White", record.white.clone()),
        ("Black", record.black.clone()),
        ("Result", GameResult::pgn_of(record.result).to_owned()),
        ("TimeControl", context.time_control.clone()),
        ("Termination", record.termination.pgn().to_owned()),
        ("PlyCount", record.moves.len().to_string()),
    ];
    let moves: Vec<PgnMove> = record
        .moves
        .iter()
        .map(|played| PgnMove {
            mv: played.mv,
            comment: played.thought.as_ref().filter(|_| context.comments).map(comment),
        })
        .collect();
    write_pgn(&tags, &record.start, &moves, Some(&record.reason), GameResult::pgn_of(record.result))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{PlayedMove, Termination};
    use ferz_chess::Color;
    use ferz_chess::{Position, Variant, parse_pgn};
    use ferz_uci::EngineScore;
    use std::time::Duration;

    fn context() -> PgnContext {
        PgnContext {
            event: "ferz match".into(),
            date: "2026.11.21".into(),
            round: 3,
            time_control: "10+0.1".into(),
            comments: true,
        }
    }

    fn record(start: Position, ucis: &[&str], book: usize) -> GameRecord {
        let mut position = start;
        let mut moves = Vec::new();
        for (i, text) in ucis.iter().enumerate() {
            let mv = position.parse_uci(text).unwrap();
            let thought = (i >= book).then_some(MoveReport {
                score: Some(EngineScore::Cp(35 - 10 * i as i32)),
                depth: Some(7),
                elapsed: Duration::from_millis(153),
            });
            moves.push(PlayedMove { mv, thought });
            position.play_unchecked(mv);
        }
        GameRecord {
            white: "ferz \"A\"".into(),
            black: "other".into(),
            start,
            moves,
            result: Some(GameResult::Win(Color::Black)),
            termination: Termination::Normal,
            reason: "Black mates".into(),
            ponder: Default::default(),
        }
    }

    #[test]
    fn writes_headers_san_and_comments() {
        let game = record(Position::new(Variant::Chess), &["f2f3", "e7e5", "g2g4", "d8h4"], 1);
        let pgn = write_game(&game, &context());
        let expected = "\
[Event \"ferz match\"]
[Site \"?\"]
[Date \"2026.11.21\"]
[Round \"3\"]
[White \"ferz \\\"A\\\"\"]
[Black \"other\"]
[Result \"0-1\"]
[TimeControl \"10+0.1\"]
[Termination \"normal\"]
[PlyCount \"4\"]

1. f3 e5 {+0.25/7 0.153s} 2. g4 {+0.15/7 0.153s} 2... Qh4# {+0.05/7 0.153s}
{Black mates} 0-1

";
        assert_eq!(pgn, expected);
        let plain = write_game(&game, &PgnContext { comments: false, ..context() });
        assert!(plain.ends_with("\n1. f3 e5 2. g4 Qh4# {Black mates} 0-1\n\n"), "{plain}");
    }

    #[test]
    fn variants_and_set_up_positions_get_fen_tags() {
        let c960 = Position::chess960(0).unwrap();
        let pgn = write_game(&record(c960, &["e2e4"], 0), &context());
        assert!(pgn.contains("[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1\"]"), "{pgn}");
        let black_first = Position::from_fen("4k3/8/8/8/8/8/4P3/4K3 b - - 0 40", Variant::Chess).unwrap();
        let pgn = write_game(&record(black_first, &["e8d7", "e2e4"], 0), &context());
        assert!(pgn.contains("\n40... Kd7 {+0.35/7 0.153s} 41. e4"), "{pgn}");
    }

    #[test]
    fn long_games_wrap_at_80_columns_and_read_back() {
        let mut position = Position::new(Variant::Shatranj);
        let mut ucis = Vec::new();
        for _ in 0..60 {
            let m = position.legal_moves()[0];
            ucis.push(position.uci(m));
            position.play_unchecked(m);
            if position.legal_moves().is_empty() {
                break;
            }
        }
        let refs: Vec<&str> = ucis.iter().map(String::as_str).collect();
        let game = record(Position::new(Variant::Shatranj), &refs, 2);
        let pgn = write_game(&game, &context());
        assert!(pgn.lines().all(|l| l.len() <= 80), "{pgn}");
        let parsed = parse_pgn(&format!("{pgn}{pgn}"));
        assert_eq!(parsed.len(), 2);
        assert_eq!(parsed[0].header("White"), Some("ferz \"A\""));
        assert_eq!(parsed[0].header("Variant"), Some("Shatranj"));
        assert_eq!(parsed[0].result.as_deref(), Some("0-1"));
        let (start, moves) = parsed[1].replay(Variant::Chess).unwrap();
        assert_eq!(start, Position::new(Variant::Shatranj));
        assert_eq!(moves, game.moves.iter().map(|m| m.mv).collect::<Vec<_>>());
    }

    #[test]
    fn reads_comments_variations_nags_and_numbers() {
        let text = "[Event \"x\"]\n% escape line\n1.e4 {a {comment} e5?! $1 (1... c5 (1... e6) 2. Nf3) 2.Nf3!! ; rest\nNc6 1/2-1/2";
        let games = parse_pgn(text);
        assert_eq!(games.len(), 1);
        assert_eq!(games[0].moves, ["e4", "e5", "Nf3", "Nc6"]);
        assert_eq!(games[0].result.as_deref(), Some("1/2-1/2"));
        assert!(games[0].replay(Variant::Chess).is_ok());
        let bad = &parse_pgn("1. e4 e5 Kf3 *")[0];
        assert!(bad.replay(Variant::Chess).unwrap_err().starts_with("ply 3"));
    }

    #[test]
    fn dates() {
        assert_eq!(today().len(), 10);
    }
}
