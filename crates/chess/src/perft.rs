//! Perft: counting the leaves of the legal move tree, the standard move generator test.

use crate::{Move, Position};

/// The number of move paths of exactly `depth` plies, counting the last ply in bulk (the
/// number of legal moves at depth 1) instead of making each leaf move.
#[must_use]
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal_moves(),
        _ => pos
            .legal_moves()
            .into_iter()
            .map(|m| {
                let mut next = *pos;
                next.play_unchecked(m);
                perft(&next, depth - 1)
            })
            .sum(),
    }
}

/// Like [`perft`], but makes every leaf move: this measures move making as well as generation.
#[must_use]
pub fn perft_make_all(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    pos.legal_moves()
        .into_iter()
        .map(|m| {
            let mut next = *pos;
            next.play_unchecked(m);
            perft_make_all(&next, depth - 1)
        })
        .sum()
}

/// The perft count below each legal move (at least depth 1), in generation order, with or
/// without bulk counting.
#[must_use]
pub fn divide(pos: &Position, depth: u32, bulk: bool) -> Vec<(Move, u64)> {
    let below = depth.saturating_sub(1);
    pos.legal_moves()
        .into_iter()
        .map(|m| {
            let mut next = *pos;
            next.play_unchecked(m);
            (m, if bulk { perft(&next, below) } else { perft_make_all(&next, below) })
        })
        .collect()
}

/// One position of a perft suite with its expected counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerftCase {
    /// A name for reports (the suite's id, or the line number).
    pub id: String,
    /// The position.
    pub fen: String,
    /// A second notation of the same position that must parse to it (the X-FEN column of the
    /// Chess960 start-position table).
    pub alternate_fen: Option<String>,
    /// Whether the suite marks the position as Chess960.
    pub chess960: bool,
    /// `(depth, nodes)` pairs.
    pub expected: Vec<(u32, u64)>,
    /// The line the case starts on, 1-based.
    pub line: usize,
}

/// A malformed line in a perft suite.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct SuiteError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// The text formats of perft suites.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SuiteFormat {
    /// Blocks of `id <name>`, `epd <fen>`, `perft <depth> <nodes>` lines.
    Perft,
    /// One `<fen> ;D1 <nodes> ;D2 <nodes> ...` line per position.
    Epd,
    /// `id;shredder_fen;xfen;D1;D2;...` (the Chess960 start-position table).
    Csv,
    /// `startpos|<depth>|<nodes>|<chess960>` or `fen <fen>|<depth>|<nodes>|<chess960>`.
    Pipe,
}

impl SuiteFormat {
    /// Guesses the format from a file name, then from the first meaningful line.
    #[must_use]
    pub fn detect(name: &str, text: &str) -> SuiteFormat {
        let lower = name.to_ascii_lowercase();
        if lower.ends_with(".perft") {
            return SuiteFormat::Perft;
        }
        if lower.ends_with(".epd") {
            return SuiteFormat::Epd;
        }
        if lower.ends_with(".csv") {
            return SuiteFormat::Csv;
        }
        let first = text.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with('#')).unwrap_or("");
        if first.starts_with("id ") || first.starts_with("epd ") {
            SuiteFormat::Perft
        } else if first.contains('|') {
            SuiteFormat::Pipe
        } else if first.contains(";D") {
            SuiteFormat::Epd
        } else {
            SuiteFormat::Csv
        }
    }
}

fn number<T: std::str::FromStr>(text: &str, line: usize, what: &str) -> Result<T, SuiteError> {
    text.trim().parse().map_err(|_| SuiteError { line, message: format!("{what} {:?} is not a number", text.trim()) })
}

/// Parses a perft suite.
///
/// # Errors
/// The first malformed line.
pub fn parse_suite(text: &str, format: SuiteFormat) -> Result<Vec<PerftCase>, SuiteError> {
    let mut cases: Vec<PerftCase> = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let content = raw.trim();
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        let fail = |message: String| SuiteError { line, message };
        match format {
            SuiteFormat::Perft => {
                let (keyword, rest) = content.split_once(char::is_whitespace).unwrap_or((content, ""));
                match keyword {
                    "id" => cases.push(PerftCase {
                        id: rest.trim().to_owned(),
                        fen: String::new(),
                        alternate_fen: None,
                        chess960: false,
                        expected: Vec::new(),
                        line,
                    }),
                    "epd" => {
                        if cases.last().is_none_or(|c| !c.fen.is_empty()) {
                            cases.push(PerftCase {
                                id: format!("line {line}"),
                                fen: String::new(),
                                alternate_fen: None,
                                chess960: false,
                                expected: Vec::new(),
                                line,
                            });
                        }
                        cases.last_mut().expect("pushed").fen = rest.trim().to_owned();
                    }
                    "perft" => {
                        let case = cases.last_mut().ok_or_else(|| fail("perft line before any epd".to_owned()))?;
                        let (depth, nodes) = rest
                            .trim()
                            .split_once(char::is_whitespace)
                            .ok_or_else(|| fail(format!("expected 'perft <depth> <nodes>', found {content:?}")))?;
                        case.expected.push((number(depth, line, "depth")?, number(nodes, line, "node count")?));
                    }
                    _ => return Err(fail(format!("unknown keyword {keyword:?}: expected id, epd or perft"))),
                }
            }
            SuiteFormat::Epd => {
                let mut parts = content.split(';');
                let fen = parts.next().unwrap_or("").trim().to_owned();
                let mut expected = Vec::new();
                for part in parts {
                    let part = part.trim();
                    let Some(rest) = part.strip_prefix('D') else {
                        continue; // other EPD operations (id, bm, ...) are not perft data
                    };
                    let (depth, nodes) = rest
                        .split_once(char::is_whitespace)
                        .ok_or_else(|| fail(format!("expected ';D<depth> <nodes>', found {part:?}")))?;
                    expected.push((number(depth, line, "depth")?, number(nodes, line, "node count")?));
                }
                cases.push(PerftCase {
                    id: format!("line {line}"),
                    fen,
                    alternate_fen: None,
                    chess960: false,
                    expected,
                    line,
                });
            }
            SuiteFormat::Csv => {
                let fields: Vec<&str> = content.split(';').collect();
                if fields.len() < 4 {
                    return Err(fail("expected id;shredder_fen;xfen;D1;...".to_owned()));
                }
                if fields[0].trim() == "id" {
                    continue; // header row
                }
                let expected = fields[3..]
                    .iter()
                    .enumerate()
                    .map(|(i, n)| Ok((i as u32 + 1, number(n, line, "node count")?)))
                    .collect::<Result<Vec<_>, SuiteError>>()?;
                cases.push(PerftCase {
                    id: fields[0].trim().to_owned(),
                    fen: fields[1].trim().to_owned(),
                    alternate_fen: Some(fields[2].trim().to_owned()),
                    chess960: true,
                    expected,
                    line,
                });
            }
            SuiteFormat::Pipe => {
                let fields: Vec<&str> = content.split('|').collect();
                if fields.len() != 4 {
                    return Err(fail("expected <position>|<depth>|<nodes>|<chess960>".to_owned()));
                }
                let position = fields[0].trim();
                let fen = if position == "startpos" {
                    crate::STANDARD_FEN.to_owned()
                } else if let Some(fen) = position.strip_prefix("fen ") {
                    fen.trim().to_owned()
                } else {
                    return Err(fail(format!("position {position:?} is neither 'startpos' nor 'fen <fen>'")));
                };
                let chess960 = match fields[3].trim() {
                    "true" => true,
                    "false" => false,
                    other => return Err(fail(format!("chess960 flag {other:?} is not true or false"))),
                };
                let depth = number(fields[1], line, "depth")?;
                let nodes = number(fields[2], line, "node count")?;
                cases.push(PerftCase {
                    id: format!("line {line}"),
                    fen,
                    alternate_fen: None,
                    chess960,
                    expected: vec![(depth, nodes)],
                    line,
                });
            }
        }
    }
    if let Some(case) = cases.iter().find(|c| c.fen.is_empty()) {
        return Err(SuiteError { line: case.line, message: format!("case {:?} has no epd line", case.id) });
    }
    Ok(cases)
}

/// What checking one [`PerftCase`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CaseReport {
    /// One line per problem: a count that differs, a FEN that does not parse, two notations
    /// that disagree.
    pub problems: Vec<String>,
    /// Counts compared.
    pub checks: usize,
    /// Counts skipped for being over the node limit.
    pub skipped: usize,
    /// Nodes counted.
    pub nodes: u64,
}

/// Checks every count of `case` that is at most `max_nodes`. A case marked Chess960 is read
/// with Chess960 castling notation when `variant` is chess.
#[must_use]
pub fn check_case(case: &PerftCase, variant: crate::Variant, max_nodes: u64) -> CaseReport {
    use crate::{CastlingNotation, Variant};

    let mut report = CaseReport::default();
    let variant = if case.chess960 && variant == Variant::Chess { Variant::Chess960 } else { variant };
    let where_ = format!("{} (line {})", case.id, case.line);
    let pos = match Position::from_fen(&case.fen, variant) {
        Ok(pos) => pos,
        Err(error) => {
            report.problems.push(format!("error: {where_}: {error} in {:?}", case.fen));
            return report;
        }
    };
    if let Some(alternate) = &case.alternate_fen {
        match Position::from_fen(alternate, variant) {
            Ok(other) if other == pos => {}
            Ok(other) => report.problems.push(format!(
                "mismatch: {where_}: {alternate:?} reads as {} but {:?} as {}",
                other.fen_with(CastlingNotation::Shredder),
                case.fen,
                pos.fen_with(CastlingNotation::Shredder)
            )),
            Err(error) => report.problems.push(format!("error: {where_}: {error} in {alternate:?}")),
        }
    }
    for &(depth, expected) in &case.expected {
        if expected > max_nodes {
            report.skipped += 1;
            continue;
        }
        let got = perft(&pos, depth);
        report.checks += 1;
        report.nodes += got;
        if got != expected {
            report
                .problems
                .push(format!("mismatch: {where_} depth {depth}: expected {expected}, got {got} in {}", case.fen));
        }
    }
    report
}
