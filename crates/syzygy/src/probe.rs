//! Probing: the table values corrected for captures and en passant, as Syzygy probers do.
//!
//! The tables store a value for every placement, but where a capture is at least as good as
//! the stored value, the generator was free to store anything no better (this compresses
//! better), and en passant rights are ignored. So a probe first tries the captures (an
//! alpha-beta search over captures only, which ends since every capture removes a piece), then
//! the en passant captures, and takes the better of those and the stored value. DTZ tables
//! store only one side to move; the other side is resolved by a one-ply search.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use ferz_chess::{Move, Position, Role};

use crate::error::{OpenError, ProbeError};
use crate::material::Material;
use crate::table::{DtzLookup, Kind, Table};
use crate::value::{Dtz, Wdl};

/// A set of Syzygy tables, opened from one or more directories. Cheap to share between
/// threads (`Arc` it); probing takes `&self`.
pub struct Tablebases {
    wdl: HashMap<Material, Arc<Table>>,
    dtz: HashMap<Material, Arc<Table>>,
    max_pieces: u32,
}

impl std::fmt::Debug for Tablebases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tablebases")
            .field("wdl_tables", &self.wdl.len())
            .field("dtz_tables", &self.dtz.len())
            .field("max_pieces", &self.max_pieces)
            .finish()
    }
}

/// The result of a capture search: the value, and whether a zeroing move (a capture) is the
/// best move, which makes the stored DTZ value meaningless.
#[derive(Copy, Clone)]
struct Searched {
    value: i32,
    capture_best: bool,
}

impl Tablebases {
    /// Opens every `.rtbw` and `.rtbz` file named like a table (`KQvKR.rtbw`) in `dirs`. The
    /// first directory holding a table wins. Files are memory-mapped and their headers checked
    /// now, so a truncated or corrupt file is reported here, by name.
    pub fn open<P: AsRef<Path>>(dirs: &[P]) -> Result<Tablebases, OpenError> {
        let mut tables = Tablebases { wdl: HashMap::new(), dtz: HashMap::new(), max_pieces: 0 };
        for dir in dirs {
            let dir = dir.as_ref();
            let io = |source| OpenError::Io { path: dir.to_owned(), source };
            let mut entries: Vec<_> = std::fs::read_dir(dir).map_err(io)?.collect::<Result<_, _>>().map_err(io)?;
            entries.sort_by_key(std::fs::DirEntry::file_name);
            for entry in entries {
                let path = entry.path();
                let (Some(stem), Some(extension)) = (path.file_stem(), path.extension()) else { continue };
                let kind = match extension.to_str() {
                    Some("rtbw") => Kind::Wdl,
                    Some("rtbz") => Kind::Dtz,
                    _ => continue,
                };
                let Some(material) = stem.to_str().and_then(Material::parse) else { continue };
                if material.total() > 7 {
                    continue;
                }
                let map = if kind == Kind::Wdl { &mut tables.wdl } else { &mut tables.dtz };
                if map.contains_key(&material) {
                    continue;
                }
                map.insert(material, Arc::new(Table::open(&path, material, kind)?));
                if kind == Kind::Wdl {
                    tables.max_pieces = tables.max_pieces.max(material.total());
                }
            }
        }
        Ok(tables)
    }

    /// The most pieces (kings included) of any WDL table; 0 when none was found.
    #[must_use]
    pub fn max_pieces(&self) -> u32 {
        self.max_pieces
    }

    /// How many WDL and DTZ tables are open.
    #[must_use]
    pub fn table_counts(&self) -> (usize, usize) {
        (self.wdl.len(), self.dtz.len())
    }

    /// Whether `position` is one the tables could describe: standard chess or Chess960 without
    /// castling rights, and no more pieces than the largest table.
    pub fn check(&self, position: &Position) -> Result<(), ProbeError> {
        if position.variant().is_shatranj() {
            return Err(ProbeError::Shatranj);
        }
        if position.castling_rooks().is_nonempty() {
            return Err(ProbeError::CastlingRights);
        }
        let pieces = position.board().occupied().count();
        if pieces > self.max_pieces.max(2) {
            return Err(ProbeError::TooManyPieces { pieces, max: self.max_pieces });
        }
        Ok(())
    }

    /// Win, draw or loss for the side to move, assuming the halfmove clock is zero.
    pub fn probe_wdl(&self, position: &Position) -> Result<Wdl, ProbeError> {
        self.check(position)?;
        let mut value = self.search_captures(position, -2, 2)?.value;
        if position.ep_square().is_some() {
            let mut best_ep = -3;
            for child in en_passant_children(position) {
                best_ep = best_ep.max(-self.search_captures(&child, -2, 2)?.value);
            }
            // En passant counts when it is better, or when it is the only move (the stored
            // draw may be a stalemate that en passant avoids).
            if best_ep > -3 && (best_ep >= value || (value == 0 && only_en_passant_moves(position))) {
                value = best_ep;
            }
        }
        Ok(Wdl::from_i32(value).unwrap_or(Wdl::Draw))
    }

    /// Distance to zeroing for the side to move, assuming the halfmove clock is zero.
    pub fn probe_dtz(&self, position: &Position) -> Result<Dtz, ProbeError> {
        self.check(position)?;
        self.dtz_with_en_passant(position).map(Dtz)
    }

    fn dtz_with_en_passant(&self, position: &Position) -> Result<i32, ProbeError> {
        let mut value = self.dtz_without_en_passant(position)?;
        if position.ep_square().is_none() {
            return Ok(value);
        }
        let mut best_ep = -3;
        for child in en_passant_children(position) {
            best_ep = best_ep.max(-self.search_captures(&child, -2, 2)?.value);
        }
        if best_ep > -3 {
            let ep = Dtz::before_zeroing(Wdl::from_i32(best_ep).unwrap_or(Wdl::Draw)).0;
            let better = if value < -100 {
                ep >= 0
            } else if value < 0 {
                !(-100..0).contains(&ep)
            } else if value > 100 {
                ep > 0
            } else if value > 0 {
                ep == 1
            } else {
                ep >= 0 || only_en_passant_moves(position)
            };
            if better {
                value = ep;
            }
        }
        Ok(value)
    }

    fn dtz_without_en_passant(&self, position: &Position) -> Result<i32, ProbeError> {
        let searched = self.search_captures(position, -2, 2)?;
        let wdl = searched.value;
        if wdl == 0 {
            return Ok(0);
        }
        if searched.capture_best {
            return Ok(if wdl == 2 { 1 } else { 101 });
        }
        let moves = position.legal_moves();
        if wdl > 0 {
            // A pawn move that keeps the result is a zeroing move: DTZ 1 (or 101).
            for &m in moves.iter().filter(|&&m| is_pawn_move(position, m) && !is_capture(position, m)) {
                let value = -self.search_captures(&child(position, m), -2, -wdl + 1)?.value;
                if value == wdl {
                    return Ok(if wdl == 2 { 1 } else { 101 });
                }
            }
        }
        let (table, flip, side) = self.table_for(&self.dtz, position, Kind::Dtz)?;
        let wdl_value = Wdl::from_i32(wdl).unwrap_or(Wdl::Draw);
        if let DtzLookup::Plies(plies) = table.dtz(position, flip, side, wdl_value)? {
            let dtz = plies + 1 + if wdl & 1 != 0 { 100 } else { 0 };
            return Ok(if wdl > 0 { dtz } else { -dtz });
        }
        // The table stores the other side to move: search one ply.
        if wdl > 0 {
            let mut best = 0xffff;
            for &m in moves.iter().filter(|&&m| !is_pawn_move(position, m) && !is_capture(position, m)) {
                let value = -self.dtz_with_en_passant(&child(position, m))?;
                if value > 0 && value + 1 < best {
                    best = value + 1;
                }
            }
            Ok(best)
        } else {
            let mut best = -1;
            for &m in &moves {
                let next = child(position, m);
                let value = if next.halfmoves() == 0 {
                    if wdl == -2 {
                        -1
                    } else {
                        let reply = self.search_captures(&next, 1, 2)?.value;
                        if reply == 2 { 0 } else { -101 }
                    }
                } else {
                    -self.dtz_with_en_passant(&next)? - 1
                };
                best = best.min(value);
            }
            Ok(best)
        }
    }

    /// Alpha-beta over captures (en passant aside) and the stored value: the WDL value of
    /// `position` in `alpha..beta`.
    fn search_captures(&self, position: &Position, mut alpha: i32, beta: i32) -> Result<Searched, ProbeError> {
        for m in position.legal_captures_and_promotions() {
            if !is_capture(position, m) || m.is_en_passant() {
                continue;
            }
            let value = -self.search_captures(&child(position, m), -beta, -alpha)?.value;
            if value > alpha {
                if value >= beta {
                    return Ok(Searched { value, capture_best: true });
                }
                alpha = value;
            }
        }
        let stored = self.stored_wdl(position)?.to_i32();
        Ok(if alpha >= stored {
            Searched { value: alpha, capture_best: alpha > 0 }
        } else {
            Searched { value: stored, capture_best: false }
        })
    }

    fn stored_wdl(&self, position: &Position) -> Result<Wdl, ProbeError> {
        if position.board().occupied().count() == 2 {
            return Ok(Wdl::Draw);
        }
        let (table, flip, side) = self.table_for(&self.wdl, position, Kind::Wdl)?;
        table.wdl(position, flip, side)
    }

    /// The table of `position`'s material, whether its colours are exchanged, and which of the
    /// table's sides is to move (1: the table's black).
    fn table_for<'a>(
        &self,
        tables: &'a HashMap<Material, Arc<Table>>,
        position: &Position,
        kind: Kind,
    ) -> Result<(&'a Table, bool, usize), ProbeError> {
        let material = Material::of(position);
        let black_to_move = !position.turn().is_white();
        if material.is_symmetric() {
            if let Some(table) = tables.get(&material) {
                // A symmetric table stores white to move; black to move is read mirrored.
                return Ok((table, black_to_move, 0));
            }
        } else if let Some(table) = tables.get(&material) {
            return Ok((table, false, usize::from(black_to_move)));
        } else if let Some(table) = tables.get(&material.flipped()) {
            return Ok((table, true, usize::from(!black_to_move)));
        }
        Err(ProbeError::MissingTable { kind: kind.label(), material: material.to_string() })
    }

    /// The name of the table a position's material uses (for messages), if it is open.
    #[must_use]
    pub fn table_name(&self, position: &Position) -> Option<String> {
        self.table_for(&self.wdl, position, Kind::Wdl).ok().map(|(t, _, _)| t.name().to_owned())
    }
}

fn child(position: &Position, m: Move) -> Position {
    let mut next = *position;
    next.play_unchecked(m);
    next
}

fn is_capture(position: &Position, m: Move) -> bool {
    m.is_en_passant() || (!m.is_castle() && position.board().color_at(m.to()).is_some_and(|c| c != position.turn()))
}

fn is_pawn_move(position: &Position, m: Move) -> bool {
    position.board().role_at(m.from()) == Some(Role::Pawn)
}

fn en_passant_children(position: &Position) -> impl Iterator<Item = Position> + '_ {
    position.legal_captures_and_promotions().into_iter().filter(|m| m.is_en_passant()).map(|m| child(position, m))
}

fn only_en_passant_moves(position: &Position) -> bool {
    position.legal_moves().iter().all(|m| m.is_en_passant())
}
