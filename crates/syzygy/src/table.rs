//! One table file: header parsing and value lookup.
//!
//! File layout: a 4-byte magic, a flag byte (bit 0: both sides to move stored, bit 1: pawns),
//! then per sub-table (one per leading-pawn file a-d for pawn tables, else one) the piece order
//! bytes, the decoder headers, for DTZ tables the value maps, then all index tables, all size
//! tables and the 64-byte aligned data blocks.

use std::fs::File;
use std::path::Path;

use ferz_chess::{Color, Position, Role};
use memmap2::Mmap;

use crate::encoding::{BINOMIAL, EncInfo, Layout, MAX_PIECES, PAWN_TABLES, encode, flap, piece_group_size};
use crate::error::{OpenError, ProbeError};
use crate::material::Material;
use crate::pairs::{Pairs, Sizes};
use crate::read::Bytes;
use crate::value::Wdl;

/// Win/draw/loss tables (`.rtbw`) or distance-to-zero tables (`.rtbz`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Wdl,
    Dtz,
}

impl Kind {
    fn magic(self) -> [u8; 4] {
        match self {
            Kind::Wdl => [0x71, 0xe8, 0x23, 0x5d],
            Kind::Dtz => [0xd7, 0x66, 0x0c, 0xa5],
        }
    }

    /// The name errors use.
    pub fn label(self) -> &'static str {
        match self {
            Kind::Wdl => "WDL",
            Kind::Dtz => "DTZ",
        }
    }
}

struct SubTable {
    info: EncInfo,
    pairs: Pairs,
    positions: u64,
}

/// The result of a DTZ table lookup.
pub(crate) enum DtzLookup {
    /// Plies to zeroing as stored (before the caller's +1 and 50-move adjustments).
    Plies(i32),
    /// The table stores the other side to move.
    OtherSide,
}

/// A mapped and parsed table file.
pub(crate) struct Table {
    name: String,
    kind: Kind,
    map: Mmap,
    material: Material,
    layout: Layout,
    /// `subtables[file][side]`; one side unless the WDL table stores both.
    subtables: Vec<Vec<SubTable>>,
    /// Per file, where the four DTZ value maps start (loss, blessed-loss/win... see `dtz`).
    dtz_maps: Vec<[usize; 4]>,
}

/// Which DTZ value map holds a result's values, by WDL value + 2.
const DTZ_MAP_OF_WDL: [usize; 5] = [1, 3, 0, 2, 0];
/// The DTZ flag telling that a result's values are stored in plies, not moves.
const DTZ_PLIES_FLAG: [u8; 5] = [8, 0, 0, 0, 4];

impl Table {
    /// Maps and parses `path`, the `kind` table of `material`.
    pub fn open(path: &Path, material: Material, kind: Kind) -> Result<Table, OpenError> {
        let io = |source| OpenError::Io { path: path.to_owned(), source };
        let corrupt = |reason: String| OpenError::Corrupt { path: path.to_owned(), reason };
        let file = File::open(path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        if len < 8 {
            return Err(corrupt(format!("truncated: {len} bytes")));
        }
        // SAFETY: the map is only read, and table files are not modified while an engine runs;
        // every read goes through `Bytes`, which checks bounds against the mapped length.
        #[allow(unsafe_code)]
        let map = unsafe { Mmap::map(&file) }.map_err(io)?;
        let name = path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let mut table = Table {
            name,
            kind,
            map,
            material,
            layout: layout_of(&material),
            subtables: Vec::new(),
            dtz_maps: Vec::new(),
        };
        table.parse().map_err(corrupt)?;
        Ok(table)
    }

    fn parse(&mut self) -> Result<(), String> {
        let bytes = Bytes(&self.map);
        if bytes.slice(0, 4)? != self.kind.magic() {
            return Err(format!("wrong magic number for a {} table", self.kind.label()));
        }
        let flags = bytes.u8(4)?;
        let layout = self.layout;
        if (flags & 2 != 0) != layout.has_pawns() {
            return Err("the pawn flag does not match the file name's material".into());
        }
        let sides = if self.kind == Kind::Wdl && flags & 1 != 0 { 2 } else { 1 };
        let files = if layout.has_pawns() { 4 } else { 1 };

        let mut at = 5;
        let mut infos = Vec::new();
        for file in 0..files {
            let mut per_side = Vec::new();
            for side in 0..sides {
                per_side.push(enc_info(&bytes, at, 4 * side as u32, file, &layout, &self.material)?);
            }
            infos.push(per_side);
            at += layout.pieces + 1 + usize::from(layout.pawns[1] > 0);
        }
        at += at & 1;

        let mut subtables: Vec<Vec<SubTable>> = Vec::new();
        let mut sizes: Vec<Vec<Sizes>> = Vec::new();
        for per_side in infos {
            let mut subs = Vec::new();
            let mut sub_sizes = Vec::new();
            for (info, positions) in per_side {
                let (pairs, size) = Pairs::parse(&bytes, &mut at, positions, self.kind == Kind::Wdl)?;
                subs.push(SubTable { info, pairs, positions });
                sub_sizes.push(size);
            }
            subtables.push(subs);
            sizes.push(sub_sizes);
        }

        if self.kind == Kind::Dtz {
            for subs in &subtables {
                let flags = subs[0].pairs.flags;
                let mut maps = [0usize; 4];
                if flags & 2 != 0 {
                    if flags & 16 == 0 {
                        for map in &mut maps {
                            *map = at + 1;
                            at += 1 + usize::from(bytes.u8(at)?);
                        }
                    } else {
                        at += at & 1;
                        for map in &mut maps {
                            *map = at + 2;
                            at += 2 + 2 * usize::from(bytes.u16(at)?);
                        }
                    }
                }
                self.dtz_maps.push(maps);
            }
            at += at & 1;
        }

        let advance = |at: &mut usize, size: u64| -> Result<usize, String> {
            let start = *at;
            *at = usize::try_from(size).ok().and_then(|s| at.checked_add(s)).ok_or("table sizes overflow")?;
            Ok(start)
        };
        let mut starts = vec![vec![[0usize; 3]; sides]; files];
        for part in 0..3 {
            for file in 0..files {
                for side in 0..sides {
                    if part == 2 {
                        at = at.next_multiple_of(64);
                    }
                    starts[file][side][part] = advance(&mut at, sizes[file][side][part])?;
                }
            }
        }
        if at > self.map.len() {
            return Err(format!("truncated: the header describes {at} bytes, the file has {}", self.map.len()));
        }
        for (file, subs) in subtables.iter_mut().enumerate() {
            for (side, sub) in subs.iter_mut().enumerate() {
                let [index, size, data] = starts[file][side];
                sub.pairs.locate(index, size, data);
            }
        }
        self.subtables = subtables;
        Ok(())
    }

    /// The file name, for error messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    fn corrupt(&self, reason: &'static str) -> ProbeError {
        ProbeError::Corrupt { table: self.name.clone(), reason }
    }

    /// The sub-table and index of `position` (whose material is the table's, colours
    /// exchanged when `flip`); `side` is 1 when the table's black is to move.
    fn locate(&self, position: &Position, flip: bool, side: usize) -> Result<(usize, &SubTable, u64), ProbeError> {
        let layout = &self.layout;
        let side = side.min(self.subtables[0].len() - 1);
        let mut squares = [0usize; MAX_PIECES];
        // Tables with pawns see the board from the side whose pawns they call white.
        let mirror = if flip && layout.has_pawns() { 0x38 } else { 0 };
        let file = if layout.has_pawns() {
            let leading = usize::from(layout.pawns[0]);
            let filled = self.fill(position, &self.subtables[0][0].info, flip, mirror, &mut squares, 0, leading)?;
            let leader = (0..filled).min_by_key(|&i| (flap(squares[i]), squares[i])).unwrap_or(0);
            squares.swap(0, leader);
            let f = squares[0] & 7;
            f.min(7 - f)
        } else {
            0
        };
        let sub = &self.subtables[file][side];
        let start = if layout.has_pawns() { usize::from(layout.pawns[0]) } else { 0 };
        self.fill(position, &sub.info, flip, mirror, &mut squares, start, layout.pieces)?;
        let index = encode(&mut squares, &sub.info, layout);
        if index >= sub.positions {
            return Err(self.corrupt("position index beyond the table"));
        }
        Ok((file, sub, index))
    }

    /// Puts the squares of `info.pieces[from..to]` into `squares`, lowest square first per
    /// piece kind. Returns how far it got (`to` unless the pieces do not match the board).
    #[allow(clippy::too_many_arguments)]
    fn fill(
        &self,
        position: &Position,
        info: &EncInfo,
        flip: bool,
        mirror: usize,
        squares: &mut [usize; MAX_PIECES],
        from: usize,
        to: usize,
    ) -> Result<usize, ProbeError> {
        let mut i = from;
        while i < to {
            let code = info.pieces[i];
            let color = Color::from_white((code & 8 == 0) != flip);
            let role = Role::ALL[usize::from((code & 7).clamp(1, 6)) - 1];
            let before = i;
            for sq in position.board().pieces(color, role) {
                if i >= MAX_PIECES {
                    return Err(self.corrupt("piece list does not match the board"));
                }
                squares[i] = sq.index() ^ mirror;
                i += 1;
            }
            if i == before {
                return Err(self.corrupt("piece list does not match the board"));
            }
        }
        Ok(i)
    }

    /// The WDL value of `position` as stored (captures and en passant not considered).
    pub fn wdl(&self, position: &Position, flip: bool, side: usize) -> Result<Wdl, ProbeError> {
        let (_, sub, index) = self.locate(position, flip, side)?;
        let value = sub.pairs.value(&Bytes(&self.map), index).map_err(|reason| self.corrupt(reason))?;
        Wdl::from_i32(i32::from(value[0]) - 2).ok_or_else(|| self.corrupt("WDL value out of range"))
    }

    /// The stored distance to zero of `position`, whose result is `wdl`.
    pub fn dtz(&self, position: &Position, flip: bool, side: usize, wdl: Wdl) -> Result<DtzLookup, ProbeError> {
        let flags_of_file = |file: usize| self.subtables[file][0].pairs.flags;
        let (file, sub, index) = self.locate(position, flip, side)?;
        let flags = flags_of_file(file);
        if !self.material.is_symmetric() && usize::from(flags & 1) != side {
            return Ok(DtzLookup::OtherSide);
        }
        let bytes = Bytes(&self.map);
        let leaf = sub.pairs.value(&bytes, index).map_err(|reason| self.corrupt(reason))?;
        let mut value = usize::from(leaf[0]) | (usize::from(leaf[1] & 0xf) << 8);
        let w = (wdl.to_i32() + 2) as usize;
        if flags & 2 != 0 {
            let map = self.dtz_maps[file][DTZ_MAP_OF_WDL[w]];
            let mapped = if flags & 16 == 0 {
                bytes.u8(map + value).map(usize::from)
            } else {
                bytes.u16(map + 2 * value).map(usize::from)
            };
            value = mapped.map_err(|_| self.corrupt("DTZ map entry out of range"))?;
        }
        let mut plies = value as i32;
        if flags & DTZ_PLIES_FLAG[w] == 0 || wdl.to_i32() & 1 != 0 {
            plies *= 2;
        }
        Ok(DtzLookup::Plies(plies))
    }
}

/// How a material's table numbers its pieces.
fn layout_of(material: &Material) -> Layout {
    let pieces = material.total() as usize;
    let white = material.count(Color::White, Role::Pawn);
    let black = material.count(Color::Black, Role::Pawn);
    if white + black == 0 {
        let unique = [Color::White, Color::Black]
            .into_iter()
            .flat_map(|c| Role::ALL.map(|r| material.count(c, r)))
            .filter(|&n| n == 1)
            .count();
        return Layout { pieces, kings_only: unique == 2, pawns: [0, 0] };
    }
    // The leading pawns are the colour with fewer pawns (white when equal), if it has any.
    let pawns = if black > 0 && (white == 0 || white > black) { [black, white] } else { [white, black] };
    Layout { pieces, kings_only: false, pawns }
}

/// Reads the piece order of one sub-table at `at` (nibble `shift`) and derives its group
/// sizes and multipliers. Returns the encoding and the number of positions.
fn enc_info(
    bytes: &Bytes<'_>,
    at: usize,
    shift: u32,
    file: usize,
    layout: &Layout,
    material: &Material,
) -> Result<(EncInfo, u64), String> {
    let n = layout.pieces;
    let more_pawns = layout.pawns[1] > 0;
    let mut info = EncInfo::default();
    let mut seen = [[0u8; 6]; 2];
    for i in 0..n {
        let code = (bytes.u8(at + i + 1 + usize::from(more_pawns))? >> shift) & 0x0f;
        let role = usize::from(code & 7);
        if !(1..=6).contains(&role) {
            return Err(format!("invalid piece code {code} at offset {}", at + i + 1));
        }
        seen[usize::from(code >> 3)][role - 1] += 1;
        info.pieces[i] = code;
    }
    // The pieces must be the file name's, in one colour orientation or the other.
    let counts = |m: &Material| [Color::White, Color::Black].map(|c| Role::ALL.map(|r| m.count(c, r)));
    if seen != counts(material) && seen != counts(&material.flipped()) {
        return Err("the piece list does not match the file name's material".into());
    }
    let order = usize::from((bytes.u8(at)? >> shift) & 0x0f);
    let order2 = if more_pawns { usize::from((bytes.u8(at + 1)? >> shift) & 0x0f) } else { 0x0f };

    let mut k = if layout.has_pawns() {
        usize::from(layout.pawns[0])
    } else if layout.kings_only {
        2
    } else {
        3
    };
    info.norm[0] = k as u8;
    if more_pawns {
        info.norm[k] = layout.pawns[1];
        k += usize::from(layout.pawns[1]);
    }
    let mut i = k;
    while i < n {
        let run = info.pieces[i..n].iter().take_while(|&&p| p == info.pieces[i]).count();
        info.norm[i] = run as u8;
        i += run;
    }

    let mut free = 64 - k;
    let mut size = 1u64;
    let mut set_first = false;
    let mut i = 0;
    while k < n || i == order || i == order2 {
        let factor = if i == order {
            info.factor[0] = size;
            set_first = true;
            if layout.has_pawns() {
                PAWN_TABLES.1[usize::from(info.norm[0]) - 1][file]
            } else {
                piece_group_size(layout.kings_only)
            }
        } else if i == order2 {
            let leading = usize::from(info.norm[0]);
            info.factor[leading] = size;
            BINOMIAL[usize::from(info.norm[leading])][48 - leading]
        } else {
            info.factor[k] = size;
            let group = usize::from(info.norm[k]);
            let f = BINOMIAL[group][free];
            free -= group;
            k += group;
            f
        };
        size = size.checked_mul(factor).ok_or("table size overflows")?;
        i += 1;
    }
    if !set_first {
        return Err(format!("the piece order byte at offset {at} is out of range"));
    }
    Ok((info, size))
}
