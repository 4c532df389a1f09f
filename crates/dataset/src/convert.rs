//! `ferz data convert`: a verified dataset's chess and Chess960 records in the format another
//! trainer reads.
//!
//! `bullet`: bullet's `ChessBoard` records (32 bytes each, side-to-move relative, as the
//! `bulletformat` crate defines and writes them), one per marlin record, in the dataset's order.
//! bullet's boards are chess: Shatranj records are left out and counted (the ferz and the alfil
//! move unlike the queen and the bishop bullet would take them for), and castling rights and the
//! en passant square, which `ChessBoard` does not hold, are dropped.
//!
//! `viriformat`: viridithas's game chains (the `viriformat` crate): per game the start position
//! as a marlinformat record with the result, then each move with the white-relative evaluation
//! of the position it is played from. The chains come from the dataset's `games.pgn`, the only
//! place that holds whole games: the evaluation of a move is the self-play search's score
//! written after it (`+0.20/10`, from the mover's view) or, in imported games, the `[%eval]`
//! after the move before (which scores the position the move is played from). A move without
//! one (book and random moves, the first move of an imported game, the opponent's moves in the
//! bot's files) carries 32,767, which viriformat's default filter (`max_eval` 31,339) drops,
//! as it drops ferz's mate scores. Shatranj games are left out and counted.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use bulletformat::{BulletFormat, ChessBoard};
use ferz_chess::{Color, GameResult, Move, Position, Square, Variant, parse_pgn};
use viriformat::chess::board::{Board, DrawType, GameOutcome, WinType};
use viriformat::dataformat::Game;

use crate::import::Eval;
use crate::layout::PGN_FILE;

use crate::error::DatasetError;
use crate::layout::FileKind;
use crate::marlin::{self, RECORD_SIZE};
use crate::verify::open_verified;

/// A format `ferz data convert` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// bullet's `ChessBoard` records (crate `bulletformat`).
    Bullet,
    /// viridithas's game chains (crate `viriformat`).
    Viriformat,
}

/// What a conversion wrote and left out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConvertReport {
    /// Records written.
    pub written: u64,
    /// Shatranj records (bullet) or games (viriformat) left out.
    pub shatranj_skipped: u64,
}

/// The evaluation viriformat gets for a move without one: beyond viriformat's default filter.
pub const NO_EVAL: i16 = i16::MAX;

/// bullet's `ChessBoard` of a chess or Chess960 position with its white-relative score and
/// result; `None` for a Shatranj position.
#[must_use]
pub fn bullet_board(pos: &Position, white_score: i16, result: GameResult) -> Option<ChessBoard> {
    if pos.variant() == Variant::Shatranj {
        return None;
    }
    // bulletformat's order: white, black, then pawn, knight, bishop, rook, queen, king.
    let mut bbs = [0u64; 8];
    let board = pos.board();
    for sq in board.occupied() {
        let piece = board.piece_at(sq).expect("occupied square");
        let bit = 1u64 << sq.index();
        bbs[usize::from(piece.color == Color::Black)] |= bit;
        bbs[2 + piece.role.index()] |= bit;
    }
    let result = match result {
        GameResult::Win(Color::White) => 1.0,
        GameResult::Draw => 0.5,
        GameResult::Win(Color::Black) => 0.0,
    };
    let stm = usize::from(pos.turn() == Color::Black);
    // from_raw fails only on an occupied square without a piece, which a position never has.
    ChessBoard::from_raw(bbs, stm, white_score, result).ok()
}

/// Converts the verified dataset `dir` into `out` (written under a temporary name and renamed
/// when complete).
///
/// # Errors
/// A [`DatasetError`] naming the dataset or file that cannot be read or written.
pub fn convert(dir: &Path, target: Target, out: &Path) -> Result<ConvertReport, DatasetError> {
    let manifest = open_verified(dir)?;
    let part = PathBuf::from(format!("{}.part", out.display()));
    let result = match target {
        Target::Bullet => write_bullet(dir, &manifest, &part),
        Target::Viriformat => write_viriformat(dir, &manifest, &part),
    };
    match result {
        Ok(report) => {
            std::fs::rename(&part, out).map_err(|e| DatasetError::new(out, e.to_string()))?;
            Ok(report)
        }
        Err(e) => {
            let _ = std::fs::remove_file(&part);
            Err(e)
        }
    }
}

/// The error of `path` from an I/O error.
fn io(path: &Path) -> impl Fn(std::io::Error) -> DatasetError + '_ {
    move |e| DatasetError::new(path, e.to_string())
}

fn write_bullet(dir: &Path, manifest: &crate::verify::AnyManifest, part: &Path) -> Result<ConvertReport, DatasetError> {
    let mut writer = BufWriter::with_capacity(1 << 16, File::create(part).map_err(io(part))?);
    let mut report = ConvertReport::default();
    for entry in manifest.files() {
        let Some(FileKind::Marlin(variant)) = FileKind::of_name(&entry.name) else { continue };
        if variant == Variant::Shatranj {
            report.shatranj_skipped += entry.records;
            continue;
        }
        let path = dir.join(&entry.name);
        let mut reader = BufReader::with_capacity(1 << 16, File::open(&path).map_err(io(&path))?);
        let mut boards = Vec::with_capacity(4096);
        let mut record = [0u8; RECORD_SIZE];
        for index in 0..entry.records {
            reader.read_exact(&mut record).map_err(io(&path))?;
            let decoded =
                marlin::decode(&record).map_err(|e| DatasetError::new(&path, format!("record {index}: {e}")))?;
            boards.extend(bullet_board(&decoded.position, decoded.white_score, decoded.result));
            if boards.len() == boards.capacity() {
                writer.write_all(ChessBoard::as_bytes_slice(&boards)).map_err(io(part))?;
                report.written += boards.len() as u64;
                boards.clear();
            }
        }
        writer.write_all(ChessBoard::as_bytes_slice(&boards)).map_err(io(part))?;
        report.written += boards.len() as u64;
    }
    let file = writer.into_inner().map_err(|e| DatasetError::new(part, e.into_error().to_string()))?;
    file.sync_all().map_err(io(part))?;
    Ok(report)
}

/// The evaluation a self-play comment gives the move it follows (`+0.20/10`, `-M3/12`, from the
/// mover's view), white-relative; `None` for other comments (`book`, `random`).
fn selfplay_eval(comment: &str, before: &Position) -> Option<i32> {
    let score = comment.trim().split('/').next()?;
    let (sign, rest) = match score.as_bytes().first()? {
        b'+' => (1, &score[1..]),
        b'-' => (-1, &score[1..]),
        _ => return None,
    };
    let white = if before.turn() == Color::White { 1 } else { -1 };
    let eval = match rest.strip_prefix('M') {
        Some(moves) => Eval::Mate(sign * white * moves.parse::<i32>().ok()?),
        None => Eval::Cp(sign * white * (rest.parse::<f64>().ok()? * 100.0).round() as i32),
    };
    eval.white_cp(before)
}

/// The FEN of `pos` with Chess960 castling rights as the rooks' files (`HFhf`), which say
/// which rook castles where `KQkq` may not.
fn shredder_fen(pos: &Position) -> String {
    let fen = pos.fen();
    if pos.variant() != Variant::Chess960 {
        return fen;
    }
    let mut rooks: Vec<Square> = pos.castling_rooks().collect();
    rooks.sort_by_key(|sq| std::cmp::Reverse(sq.index()));
    let mut letters: String = rooks
        .iter()
        .filter(|sq| sq.index() < 8)
        .map(|sq| (b'A' + sq.index() as u8 % 8) as char)
        .chain(rooks.iter().filter(|sq| sq.index() >= 56).map(|sq| (b'a' + sq.index() as u8 % 8) as char))
        .collect();
    if letters.is_empty() {
        letters.push('-');
    }
    let mut fields: Vec<&str> = fen.split(' ').collect();
    fields[2] = &letters;
    fields.join(" ")
}

/// viriformat's move for ferz's `mv` in `board`: the legal move with the same squares, or for
/// castling the castling move to the same side.
fn viri_move(board: &mut Board, mv: Move) -> Option<viriformat::chess::chessmove::Move> {
    let from = mv.from().index() as u8;
    let to = mv.to().index() as u8;
    board.legal_moves().into_iter().find(|m| {
        let (f, t) = (m.from().inner(), m.to().inner());
        if mv.is_castle() {
            m.is_castle() && f == from && (t % 8 > f % 8) == (to % 8 > from % 8)
        } else {
            !m.is_castle()
                && f == from
                && t == to
                && m.promotion_type().map(|p| p.inner()) == mv.promotion_role().map(|r| r.index() as u8)
        }
    })
}

fn write_viriformat(
    dir: &Path,
    manifest: &crate::verify::AnyManifest,
    part: &Path,
) -> Result<ConvertReport, DatasetError> {
    let mut report = ConvertReport::default();
    if !manifest.files().iter().any(|f| f.name == PGN_FILE) {
        return Err(DatasetError::new(dir, "has no games.pgn: viriformat's chains are whole games"));
    }
    let pgn_path = dir.join(PGN_FILE);
    let text = std::fs::read_to_string(&pgn_path).map_err(io(&pgn_path))?;
    let mut writer = BufWriter::with_capacity(1 << 16, File::create(part).map_err(io(part))?);
    for (index, game) in parse_pgn(&text).iter().enumerate() {
        let bad = |reason: String| DatasetError::new(&pgn_path, format!("game {}: {reason}", index + 1));
        let (start, moves) = game.replay(Variant::Chess).map_err(bad)?;
        if start.variant() == Variant::Shatranj {
            report.shatranj_skipped += 1;
            continue;
        }
        let outcome = match game.result.as_deref().and_then(GameResult::from_pgn).flatten() {
            Some(GameResult::Win(Color::White)) => GameOutcome::WhiteWin(WinType::Adjudication),
            Some(GameResult::Win(Color::Black)) => GameOutcome::BlackWin(WinType::Adjudication),
            Some(GameResult::Draw) => GameOutcome::Draw(DrawType::Adjudication),
            None => return Err(bad(format!("result {:?} in a dataset", game.result))),
        };
        let mut board = Board::new();
        let fen = shredder_fen(&start);
        board
            .set_from_fen(&fen, start.variant() == Variant::Chess960)
            .map_err(|e| bad(format!("viriformat refuses the start {fen}: {e}")))?;
        let mut chain = Game::new(&board);
        chain.set_outcome(outcome);
        let mut pos = start;
        for (ply, &mv) in moves.iter().enumerate() {
            let comments = game.comments.iter().filter(|(after, _)| *after == ply + 1).map(|(_, c)| c.as_str());
            let before_comments = game.comments.iter().filter(|(after, _)| *after == ply).map(|(_, c)| c.as_str());
            // Self-play writes the search's score after the move it chose; an imported game's
            // [%eval] after the move before scores this position.
            let eval = comments
                .clone()
                .find_map(|c| selfplay_eval(c, &pos))
                .or_else(|| {
                    before_comments
                        .filter_map(|c| c.find("[%eval").map(|i| &c[i + 6..]))
                        .find_map(|c| Eval::parse(c.split(']').next().unwrap_or(c)).ok())
                        .and_then(|e| e.white_cp(&pos))
                })
                .map_or(NO_EVAL, |cp| cp.clamp(-32_000, 32_000) as i16);
            let viri = viri_move(&mut board, mv)
                .ok_or_else(|| bad(format!("viriformat finds no move {} in {}", pos.uci(mv), pos.fen())))?;
            chain.add_move(viri, eval);
            board.make_move_simple(viri);
            pos.play_unchecked(mv);
            report.written += 1;
        }
        chain.serialise_into(&mut writer).map_err(io(part))?;
    }
    let file = writer.into_inner().map_err(|e| DatasetError::new(part, e.into_error().to_string()))?;
    file.sync_all().map_err(io(part))?;
    Ok(report)
}
