//! The dataset text format: one position a line, `<FEN> | <score> | <result>`.
//!
//! The score is the search score in centipawns and the result the game's result (1.0, 0.5 or
//! 0.0), both from white's point of view. This is the format the self-play worker will write.

use std::fmt;

use anyhow::{Context as _, Result, bail};
use ferz_chess::{Position, Variant};

/// One line of a dataset.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// The position.
    pub fen: String,
    /// Search score in centipawns, white-relative.
    pub score: i32,
    /// Game result, white-relative: 1.0 win, 0.5 draw, 0.0 loss.
    pub result: f64,
}

impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} | {} | {:.1}", self.fen, self.score, self.result)
    }
}

impl Record {
    /// Parses one line.
    ///
    /// # Errors
    /// When the line does not have three `|`-separated fields, or the score or result is not a
    /// number (the result must be 0, 0.5 or 1).
    pub fn parse(line: &str) -> Result<Record> {
        let mut fields = line.split('|').map(str::trim);
        let (Some(fen), Some(score), Some(result), None) = (fields.next(), fields.next(), fields.next(), fields.next())
        else {
            bail!("expected `<FEN> | <score> | <result>`");
        };
        let score = score.parse().with_context(|| format!("bad score {score:?}"))?;
        let result: f64 = result.parse().with_context(|| format!("bad result {result:?}"))?;
        if ![0.0, 0.5, 1.0].contains(&result) {
            bail!("result must be 0.0, 0.5 or 1.0, not {result}");
        }
        Ok(Record { fen: fen.to_string(), score, result })
    }

    /// The position, read as `variant`. Chess data may hold Chess960 positions (with
    /// Shredder-FEN castling rights, say), so chess falls back to Chess960 rules.
    ///
    /// # Errors
    /// When the FEN is not a legal position of the variant.
    pub fn position(&self, variant: Variant) -> Result<Position> {
        match Position::from_fen(&self.fen, variant) {
            Ok(pos) => Ok(pos),
            Err(_) if variant == Variant::Chess => Ok(Position::from_fen(&self.fen, Variant::Chess960)?),
            Err(e) => Err(e.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints() {
        let line = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 | -35 | 0.5";
        let r = Record::parse(line).expect("valid");
        assert_eq!(r.score, -35);
        assert_eq!(r.result, 0.5);
        assert_eq!(r.to_string(), line);
        assert!(r.position(Variant::Chess).is_ok());
        assert_eq!(Record::parse("8/8/8/8/8/8/8/K6k w - - 0 1|12|1").expect("valid").result, 1.0);
    }

    #[test]
    fn rejects_malformed_lines() {
        for bad in ["no fields", "fen | 1", "fen | x | 1.0", "fen | 1 | 0.7", "fen | 1 | 1.0 | extra"] {
            assert!(Record::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn chess960_castling_falls_back() {
        let r = Record {
            fen: "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9".into(),
            score: 0,
            result: 0.5,
        };
        assert!(r.position(Variant::Chess).is_ok());
    }
}
