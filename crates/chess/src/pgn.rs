//! PGN for every producer and reader of PGN files (matches, self-play, the bot): writing (tags,
//! setup tags, SAN movetext with comments, line wrapping, dates) and reading ([`parse_pgn`]).

use std::fmt::Write as _;

use crate::{Move, Position, STANDARD_FEN, Variant};

/// One move of a game to write, with an optional comment (written `{...}` after the move).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnMove {
    /// The move, legal in the position it is played from.
    pub mv: Move,
    /// Text for a comment after the move; `}` is replaced, as PGN comments cannot hold it.
    pub comment: Option<String>,
}

/// Writes one game in PGN export format: the tags in the given order, the `Variant`, `SetUp`
/// and `FEN` tags the start position needs (after the caller's tags), a blank line, the SAN
/// movetext with comments (after a comment a black move repeats its number, `5... Nf6`), an
/// optional closing comment, the result, and a blank line. Lines stay under 80 characters.
///
/// The moves must be legal from `start`; they are replayed to write SAN.
#[must_use]
pub fn write_pgn(
    tags: &[(&str, String)],
    start: &Position,
    moves: &[PgnMove],
    closing_comment: Option<&str>,
    result: &str,
) -> String {
    let mut out = String::new();
    let mut tag = |key: &str, value: &str| {
        let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
        let _ = writeln!(out, "[{key} \"{escaped}\"]");
    };
    for (key, value) in tags {
        tag(key, value);
    }
    for (key, value) in setup_tags(start) {
        tag(key, &value);
    }
    out.push('\n');

    let mut tokens: Vec<String> = Vec::with_capacity(moves.len() * 2 + 2);
    let mut position = *start;
    let mut needs_number = true;
    for played in moves {
        let number = position.fullmoves();
        if position.turn().is_white() {
            tokens.push(format!("{number}."));
        } else if needs_number {
            tokens.push(format!("{number}..."));
        }
        tokens.push(position.san(played.mv));
        needs_number = false;
        if let Some(comment) = &played.comment {
            tokens.push(format!("{{{}}}", comment.replace('}', ")")));
            needs_number = true;
        }
        position.play_unchecked(played.mv);
    }
    if let Some(comment) = closing_comment.filter(|c| !c.is_empty()) {
        tokens.push(format!("{{{}}}", comment.replace('}', ")")));
    }
    tokens.push(result.to_owned());
    out.push_str(&wrap_movetext(tokens, 79));
    out.push_str("\n\n");
    out
}

/// The tags a start position needs: `Variant` for Chess960 and Shatranj, and `SetUp`/`FEN`
/// unless the game is standard chess from the usual start. Chess960 and Shatranj games always
/// carry their FEN: there are 960 arrays, and two Shatranj arrays in use.
#[must_use]
pub fn setup_tags(start: &Position) -> Vec<(&'static str, String)> {
    let variant = start.variant();
    let mut tags = Vec::new();
    match variant {
        Variant::Chess => {}
        Variant::Chess960 => tags.push(("Variant", "Chess960".to_owned())),
        Variant::Shatranj => tags.push(("Variant", "Shatranj".to_owned())),
    }
    let fen = start.fen();
    if variant != Variant::Chess || fen != STANDARD_FEN {
        tags.push(("SetUp", "1".to_owned()));
        tags.push(("FEN", fen));
    }
    tags
}

/// Joins PGN movetext tokens (move numbers, SAN moves, `{comments}`, the result) with single
/// spaces into lines of at most `width` characters (PGN's export format keeps lines under 80);
/// a token longer than `width` gets a line of its own. No trailing newline.
pub fn wrap_movetext<S: AsRef<str>>(tokens: impl IntoIterator<Item = S>, width: usize) -> String {
    let mut out = String::new();
    let mut line_len = 0;
    for token in tokens {
        let token = token.as_ref();
        if line_len > 0 && line_len + 1 + token.len() > width {
            out.push('\n');
            line_len = 0;
        } else if line_len > 0 {
            out.push(' ');
            line_len += 1;
        }
        out.push_str(token);
        line_len += token.len();
    }
    out
}

/// The proleptic Gregorian date `(year, month, day)` of a day count since 1970-01-01 (Howard
/// Hinnant's `civil_from_days`), so that no date crate is needed for one header.
#[must_use]
pub fn civil_date(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// Today's date (UTC) as the PGN `Date` tag writes it: `YYYY.MM.DD`.
#[must_use]
pub fn pgn_date_today() -> String {
    let days = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() / 86_400);
    let (y, m, d) = civil_date(days as i64);
    format!("{y:04}.{m:02}.{d:02}")
}

/// A game read from PGN: tags, SAN moves and comments of the main line (variations and NAGs
/// dropped) and result.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PgnGame {
    /// Tag pairs in file order.
    pub headers: Vec<(String, String)>,
    /// The moves of the main line, as written.
    pub moves: Vec<String>,
    /// The comments of the main line (`{...}` and `; ...` without their delimiters), each with
    /// the number of moves read before it: 0 before the first move, `n` after move `n`. Readers
    /// of annotations such as `[%eval]` take them from here.
    pub comments: Vec<(usize, String)>,
    /// Tag lines that are not `[Key "Value"]`, as written: a reader that needs its tags to be
    /// right can refuse the game.
    pub bad_tags: Vec<String>,
    /// The line (1-based) where the game begins, for messages that point into the file.
    pub line: usize,
    /// The game termination marker, if present.
    pub result: Option<String>,
}

impl PgnGame {
    /// The value of tag `key`.
    #[must_use]
    pub fn header(&self, key: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// The variant of the game: its `Variant` tag (the names Lichess, PyChess and ferz write),
    /// else `default`.
    ///
    /// # Errors
    /// A sentence naming a `Variant` tag that is none of chess, Chess960 and Shatranj.
    pub fn variant(&self, default: Variant) -> Result<Variant, String> {
        match self.header("Variant").map(str::to_ascii_lowercase).as_deref() {
            Some("chess960" | "chess 960" | "fischerandom" | "fischer random") => Ok(Variant::Chess960),
            Some("shatranj") => Ok(Variant::Shatranj),
            Some("standard" | "from position" | "chess") => Ok(Variant::Chess),
            None => Ok(default),
            Some(_) => Err(format!(
                "variant {:?} is not one ferz plays (chess, Chess960, Shatranj)",
                self.header("Variant").unwrap_or_default()
            )),
        }
    }

    /// The start position (from the `Variant` and `FEN` tags, else `variant`'s start) and the
    /// moves as legal moves.
    ///
    /// # Errors
    /// A sentence naming an unknown variant, the bad FEN or the first illegal move.
    pub fn replay(&self, variant: Variant) -> Result<(Position, Vec<Move>), String> {
        let variant = self.variant(variant)?;
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
    let newlines: Vec<usize> = (0..chars.len()).filter(|&j| chars[j] == '\n').collect();
    let line_of = |i: usize| newlines.partition_point(|&j| j < i) + 1;
    let mut i = 0;
    let at_line_start = |i: usize| i == 0 || chars[i - 1] == '\n';
    while i < chars.len() {
        let c = chars[i];
        if game.line == 0 && !c.is_whitespace() {
            game.line = line_of(i);
        }
        match c {
            '[' => {
                // A tag after moves starts the next game (its result marker was missing).
                if !game.moves.is_empty() || game.result.is_some() {
                    games.push(std::mem::take(&mut game));
                    game.line = line_of(i);
                }
                let end = (i..chars.len()).find(|&j| chars[j] == '\n').unwrap_or(chars.len());
                let tag: String = chars[i + 1..end].iter().collect();
                match parse_tag(&tag) {
                    Some(parsed) => game.headers.push(parsed),
                    None => game.bad_tags.push(format!("[{}", tag.trim_end())),
                }
                i = end;
            }
            '{' => {
                let end = (i..chars.len()).find(|&j| chars[j] == '}').unwrap_or(chars.len());
                game.comments.push((game.moves.len(), chars[i + 1..end].iter().collect()));
                i = (end + 1).min(chars.len());
            }
            ';' => {
                let end = (i..chars.len()).find(|&j| chars[j] == '\n').unwrap_or(chars.len());
                game.comments.push((game.moves.len(), chars[i + 1..end].iter().collect()));
                i = end;
            }
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
    if !game.moves.is_empty() || !game.headers.is_empty() || !game.bad_tags.is_empty() {
        games.push(game);
    }
    games
}

/// `Key "Value"` with `\"` and `\\` escapes; the closing `]` is optional, the closing quote
/// is not (a value without one is a tag cut short, not a value to guess).
fn parse_tag(text: &str) -> Option<(String, String)> {
    let text = text.trim_end().trim_end_matches(']');
    let (key, rest) = text.split_once(char::is_whitespace)?;
    let rest = rest.trim().strip_prefix('"')?;
    let mut value = String::new();
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => value.extend(chars.next()),
            '"' => return Some((key.to_owned(), value)),
            c => value.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pgn_numbers_black_moves_after_comments_and_adds_setup_tags() {
        let start = Position::new(Variant::Chess);
        let mut pos = start;
        let mut moves = Vec::new();
        for (uci, comment) in [("e2e4", None), ("e7e5", Some("+0.20/10")), ("g1f3", Some("x}y")), ("b8c6", None)] {
            let mv = pos.parse_uci(uci).unwrap();
            moves.push(PgnMove { mv, comment: comment.map(str::to_owned) });
            pos.play_unchecked(mv);
        }
        let text = write_pgn(&[("White", "a\"b".to_owned())], &start, &moves, Some("done"), "*");
        assert_eq!(text, "[White \"a\\\"b\"]\n\n1. e4 e5 {+0.20/10} 2. Nf3 {x)y} 2... Nc6 {done} *\n\n");
        let shatranj = Position::new(Variant::Shatranj);
        assert_eq!(setup_tags(&shatranj)[..2], [("Variant", "Shatranj".to_owned()), ("SetUp", "1".to_owned())]);
        assert!(setup_tags(&Position::new(Variant::Chess)).is_empty());
        let from = Position::from_fen("4k3/8/8/8/8/8/8/4K2R w K - 0 1", Variant::Chess).unwrap();
        assert_eq!(setup_tags(&from)[0], ("SetUp", "1".to_owned()));
    }

    #[test]
    fn reading_keeps_main_line_comments_lines_and_broken_tags() {
        let text = "[Event \"a\"]\n\n1. e4 {[%eval 0.17] [%clk 0:00:30]} e5 (1... c5 {side line}) 2. Nf3 ; rest\n1-0\n\n\
                    [Event \"b\"]\n[White \"cut short]\n[Black]\n\n{before} 1. d4 *\n";
        let games = parse_pgn(text);
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].comments, [(1, "[%eval 0.17] [%clk 0:00:30]".to_owned()), (3, " rest".to_owned())]);
        assert_eq!((games[0].line, games[1].line), (1, 6));
        assert!(games[0].bad_tags.is_empty());
        assert_eq!(games[1].bad_tags, ["[White \"cut short]", "[Black]"]);
        assert_eq!(games[1].comments, [(0, "before".to_owned())]);
        assert_eq!(games[1].headers, [("Event".to_owned(), "b".to_owned())]);
        let atomic = PgnGame { headers: vec![("Variant".into(), "Atomic".into())], ..PgnGame::default() };
        assert!(atomic.replay(Variant::Chess).unwrap_err().contains("\"Atomic\""));
    }

    #[test]
    fn civil_dates_match_the_calendar() {
        assert_eq!(civil_date(0), (1970, 1, 1));
        assert_eq!(civil_date(-1), (1969, 12, 31));
        assert_eq!(civil_date(19_723), (2024, 1, 1));
        assert_eq!(civil_date(19_782), (2024, 2, 29));
        assert_eq!(civil_date(20_778), (2026, 11, 21));
        assert_eq!(pgn_date_today().len(), 10);
    }
}
