//! Position lists: one FEN or EPD position a line, as opening books and test suites hold them.

use crate::{Position, Variant};

/// A line of a position list that is not a legal position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct EpdError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong with it.
    pub reason: String,
}

/// Reads one position a line: a FEN, or an EPD whose first four fields are the position (its
/// operations, `bm e4; id "x";`, are ignored). Blank lines and lines starting with `#` are
/// skipped. Fields five and six are taken as FEN move counters only when both are numbers;
/// otherwise the counters are 0 and 1.
///
/// # Errors
/// The first line with fewer than four fields or that is not a legal position in `variant`.
pub fn parse_positions(text: &str, variant: Variant) -> Result<Vec<Position>, EpdError> {
    let mut positions = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let error = |reason: String| EpdError { line: index + 1, reason };
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() < 4 {
            return Err(error(format!("expected at least 4 FEN fields, found {}", fields.len())));
        }
        let counters_given = fields.len() >= 6 && fields[4..6].iter().all(|f| f.parse::<u32>().is_ok());
        let fen = if counters_given { fields[..6].join(" ") } else { format!("{} 0 1", fields[..4].join(" ")) };
        positions.push(Position::from_fen(&fen, variant).map_err(|e| error(e.to_string()))?);
    }
    Ok(positions)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fen_and_epd_lines_read_with_comments_and_blanks_skipped() {
        let text = "# a book\n\nrnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - bm e5; id \"e4\";\n\
                    8/8/4k3/8/8/8/3QK3/8 w - - 12 40\n";
        let positions = parse_positions(text, Variant::Chess).unwrap();
        assert_eq!(positions.len(), 2);
        assert_eq!(positions[0].fen(), "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
        assert_eq!(positions[1].fen(), "8/8/4k3/8/8/8/3QK3/8 w - - 12 40");
    }

    #[test]
    fn bad_lines_are_named() {
        let err = parse_positions("\n8/8/8 w -\n", Variant::Chess).unwrap_err();
        assert_eq!((err.line, err.reason.as_str()), (2, "expected at least 4 FEN fields, found 3"));
        let err = parse_positions("8/8/8/8/8/8/8/8 w - -\n", Variant::Chess).unwrap_err();
        assert_eq!(err.line, 1);
        assert!(err.to_string().starts_with("line 1: "), "{err}");
    }
}
