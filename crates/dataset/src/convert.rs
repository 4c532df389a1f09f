//! `ferz data convert`: a verified dataset's chess and Chess960 records in the format another
//! trainer reads.
//!
//! `bullet`: bullet's `ChessBoard` records (32 bytes each, side-to-move relative, as the
//! `bulletformat` crate defines and writes them), one per marlin record, in the dataset's order.
//! bullet's boards are chess: Shatranj records are left out and counted (the ferz and the alfil
//! move unlike the queen and the bishop bullet would take them for), and castling rights and the
//! en passant square, which `ChessBoard` does not hold, are dropped.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use bulletformat::{BulletFormat, ChessBoard};
use ferz_chess::{Color, GameResult, Position, Variant};

use crate::layout::FileKind;
use crate::marlin::{self, RECORD_SIZE};
use crate::verify::{DatasetError, open_verified};

/// A format `ferz data convert` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// bullet's `ChessBoard` records (crate `bulletformat`).
    Bullet,
}

/// What a conversion wrote and left out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConvertReport {
    /// Records written.
    pub written: u64,
    /// Shatranj records left out.
    pub shatranj_skipped: u64,
}

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
    let result = write_bullet(dir, &manifest, target, &part);
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

fn write_bullet(
    dir: &Path,
    manifest: &crate::verify::AnyManifest,
    target: Target,
    part: &Path,
) -> Result<ConvertReport, DatasetError> {
    let Target::Bullet = target;
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
