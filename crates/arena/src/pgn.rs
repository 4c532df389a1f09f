//! PGN: writing finished games, and reading games back (books and checks).

use std::fmt::Write as _;

use ferz_chess::{Move, PgnMove, Position, Variant, write_pgn};

use crate::game::{GameRecord, Thought};

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

fn comment(thought: &Thought) -> String {
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
        ("Result", record.result.pgn().to_owned()),
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
    write_pgn(&tags, &record.start, &moves, Some(&record.reason), record.result.pgn())
}

/// A game read from PGN: tags, SAN moves (comments, variations and NAGs dropped) and result.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PgnGame {
    /// Tag pairs in file order.
    pub headers: Vec<(String, String)>,
    /// The moves of the main line, as written.
    pub moves: Vec<String>,
    /// The game termination marker, if present.
    pub result: Option<String>,
}

impl PgnGame {
    /// The value of tag `key`.
    #[must_use]
    pub fn header(&self, key: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// The start position (from the `Variant` and `FEN` tags, else `variant`'s start) and the
    /// moves as legal moves.
    ///
    /// # Errors
    /// A sentence naming the bad FEN or the first illegal move.
    pub fn replay(&self, variant: Variant) -> Result<(Position, Vec<Move>), String> {
        let variant = match self.header("Variant").map(str::to_ascii_lowercase).as_deref() {
            Some("chess960" | "chess 960" | "fischerandom" | "fischer random") => Variant::Chess960,
            Some("shatranj") => Variant::Shatranj,
            Some("standard" | "from position" | "chess") => Variant::Chess,
            _ => variant,
        };
        let start = match self.header("FEN") {
            Some(fen) => Position::from_fen(fen, variant).map_err(|e| format!("FEN {fen:?}: {e}"))?,
            None => Position::new(variant),
        };
        let mut position = start;
        let mut moves = Vec::with_capacity(self.moves.len());
        for (index, san) in self.moves.iter().enumerate() {
            let m = position.parse_san(san).map_err(|e| format!("ply {}: {e}", index + 1))?;
            position.play_unchecked(m);
            moves.push(m);
        }
        Ok((start, moves))
    }
}

/// Reads every game of a PGN text. Lenient: unknown tokens are kept as moves for
/// [`PgnGame::replay`] to reject with a position.
#[must_use]
pub fn parse_pgn(text: &str) -> Vec<PgnGame> {
    let mut games = Vec::new();
    let mut game = PgnGame::default();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let at_line_start = |i: usize| i == 0 || chars[i - 1] == '\n';
    while i < chars.len() {
        let c = chars[i];
        match c {
            '[' => {
                // A tag after moves starts the next game (its result marker was missing).
                if !game.moves.is_empty() || game.result.is_some() {
                    games.push(std::mem::take(&mut game));
                }
                let end = (i..chars.len()).find(|&j| chars[j] == '\n').unwrap_or(chars.len());
                let tag: String = chars[i + 1..end].iter().collect();
                if let Some(parsed) = parse_tag(&tag) {
                    game.headers.push(parsed);
                }
                i = end;
            }
            '{' => i = (i..chars.len()).find(|&j| chars[j] == '}').map_or(chars.len(), |j| j + 1),
            ';' => i = (i..chars.len()).find(|&j| chars[j] == '\n').unwrap_or(chars.len()),
            '%' if at_line_start(i) => i = (i..chars.len()).find(|&j| chars[j] == '\n').unwrap_or(chars.len()),
            '(' => {
                let mut depth = 0;
                while i < chars.len() {
                    match chars[i] {
                        '(' => depth += 1,
                        ')' => depth -= 1,
                        '{' => i = (i..chars.len()).find(|&j| chars[j] == '}').unwrap_or(chars.len() - 1),
                        _ => {}
                    }
                    i += 1;
                    if depth == 0 {
                        break;
                    }
                }
            }
            c if c.is_whitespace() || c == ')' || c == ']' || c == '}' => i += 1,
            _ => {
                let end = (i..chars.len())
                    .find(|&j| chars[j].is_whitespace() || "{}()[];".contains(chars[j]))
                    .unwrap_or(chars.len());
                let token: String = chars[i..end].iter().collect();
                i = end;
                if matches!(token.as_str(), "1-0" | "0-1" | "1/2-1/2" | "*") {
                    game.result = Some(token);
                    games.push(std::mem::take(&mut game));
                    continue;
                }
                if token.starts_with('$') {
                    continue;
                }
                // `12.`, `12...` and `12.e4`: drop the move number.
                let token = token.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
                let token = token.trim_end_matches(['!', '?']);
                if !token.is_empty() {
                    game.moves.push(token.to_owned());
                }
            }
        }
    }
    if !game.moves.is_empty() || !game.headers.is_empty() {
        games.push(game);
    }
    games
}

/// `Key "Value"` with `\"` and `\\` escapes; the closing `]` is optional.
fn parse_tag(text: &str) -> Option<(String, String)> {
    let text = text.trim_end().trim_end_matches(']');
    let (key, rest) = text.split_once(char::is_whitespace)?;
    let rest = rest.trim().strip_prefix('"')?;
    let mut value = String::new();
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => value.extend(chars.next()),
            '"' => break,
            c => value.push(c),
        }
    }
    Some((key.to_owned(), value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EngineScore;
    use crate::game::{GameResult, PlayedMove, Termination};
    use ferz_chess::Color;
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
            let thought = (i >= book).then_some(Thought {
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
            result: GameResult::Win(Color::Black),
            termination: Termination::Normal,
            reason: "Black mates".into(),
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
