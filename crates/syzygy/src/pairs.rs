//! The compressed value stream of one sub-table.
//!
//! Values are stored as symbols of a pair grammar (a symbol is a single value or a pair of
//! symbols), Huffman-coded with a canonical code in blocks of `2^block_size` bytes. An index
//! table every `2^idx_bits` positions points to a block and an offset within it; a size table
//! gives the number of values per block. Offsets here are byte offsets into the table file.

use crate::read::Bytes;

/// Where the decoder's tables of one sub-table lie, and the values derived from them.
#[derive(Clone, Debug)]
pub(crate) struct Pairs {
    /// The sub-table's flag byte (DTZ tables keep their per-file flags here).
    pub flags: u8,
    code: Code,
}

#[derive(Clone, Debug)]
enum Code {
    /// Every position has the same value.
    Constant(u8),
    Huffman(Box<Huffman>),
}

#[derive(Clone, Debug)]
struct Huffman {
    block_size: u32,
    idx_bits: u32,
    /// Blocks including the padding ones the size table also lists.
    num_blocks: u64,
    min_len: u32,
    /// File offset of the first-symbol table (`u16` per code length from `min_len`).
    offsets: usize,
    /// Smallest left-aligned code of each length from `min_len`.
    base: Vec<u64>,
    /// File offset of the symbol patterns (3 bytes per symbol).
    patterns: usize,
    /// Values a symbol expands to, minus one.
    sym_len: Vec<u32>,
    index_table: usize,
    size_table: usize,
    data: usize,
}

/// The byte sizes of a sub-table's index table, size table and data blocks.
pub(crate) type Sizes = [u64; 3];

impl Pairs {
    /// Reads a sub-table's decoder header at `*at`, advancing past it. `positions` is the
    /// sub-table's size; `wdl` tells whether a constant sub-table stores its value.
    pub fn parse(bytes: &Bytes<'_>, at: &mut usize, positions: u64, wdl: bool) -> Result<(Pairs, Sizes), String> {
        let flags = bytes.u8(*at)?;
        if flags & 0x80 != 0 {
            let value = if wdl { bytes.u8(*at + 1)? } else { 0 };
            *at += 2;
            return Ok((Pairs { flags, code: Code::Constant(value) }, [0; 3]));
        }
        let block_size = u32::from(bytes.u8(*at + 1)?);
        let idx_bits = u32::from(bytes.u8(*at + 2)?);
        let real_blocks = u64::from(bytes.u32(*at + 4)?);
        let num_blocks = real_blocks + u64::from(bytes.u8(*at + 3)?);
        let max_len = u32::from(bytes.u8(*at + 8)?);
        let min_len = u32::from(bytes.u8(*at + 9)?);
        if min_len == 0 || max_len < min_len || max_len > 32 || block_size > 32 || !(1..=40).contains(&idx_bits) {
            return Err(format!("bad code parameters at offset {at}"));
        }
        let lengths = (max_len - min_len + 1) as usize;
        let offsets = *at + 10;
        let num_syms = usize::from(bytes.u16(offsets + 2 * lengths)?);
        let patterns = offsets + 2 * lengths + 2;
        bytes.slice(patterns, 3 * num_syms)?;
        *at = patterns + 3 * num_syms + (num_syms & 1);

        let sym_len = symbol_lengths(bytes, patterns, num_syms)?;
        // Canonical Huffman: the first code of each length, computed from the longest down,
        // then left-aligned in 64 bits for comparison with the bit buffer.
        let mut base = vec![0u64; lengths];
        for i in (0..lengths - 1).rev() {
            let here = u64::from(bytes.u16(offsets + 2 * i)?);
            let next = u64::from(bytes.u16(offsets + 2 * i + 2)?);
            base[i] = base[i + 1].wrapping_add(here).wrapping_sub(next) / 2;
        }
        for (i, b) in base.iter_mut().enumerate() {
            *b = b.checked_shl(64 - (min_len + i as u32)).unwrap_or(0);
        }
        let indices = positions.div_ceil(1u64 << idx_bits);
        let sizes = [6 * indices, 2 * num_blocks, real_blocks << block_size];
        let huffman = Huffman {
            block_size,
            idx_bits,
            num_blocks,
            min_len,
            offsets,
            base,
            patterns,
            sym_len,
            index_table: 0,
            size_table: 0,
            data: 0,
        };
        Ok((Pairs { flags, code: Code::Huffman(Box::new(huffman)) }, sizes))
    }

    /// Records where the index table, size table and data blocks of this sub-table start.
    pub fn locate(&mut self, index_table: usize, size_table: usize, data: usize) {
        if let Code::Huffman(h) = &mut self.code {
            h.index_table = index_table;
            h.size_table = size_table;
            h.data = data;
        }
    }

    /// The value stored for position `index`: the 3 bytes of its leaf symbol (the value is the
    /// first byte, or 12 bits for DTZ tables).
    pub fn value(&self, bytes: &Bytes<'_>, index: u64) -> Result<[u8; 3], &'static str> {
        let h = match &self.code {
            Code::Constant(value) => return Ok([*value, 0, 0]),
            Code::Huffman(h) => h,
        };
        let main = usize::try_from(index >> h.idx_bits).map_err(|_| "index out of range")?;
        let mut literal = (index & ((1u64 << h.idx_bits) - 1)) as i64 - (1i64 << (h.idx_bits - 1));
        let entry = h.index_table + 6 * main;
        let mut block = u64::from(bytes.u32(entry).map_err(|_| "index table out of range")?);
        literal += i64::from(bytes.u16(entry + 4).map_err(|_| "index table out of range")?);
        let block_values = |block: u64| -> Result<i64, &'static str> {
            if block >= h.num_blocks {
                return Err("block number out of range");
            }
            let size = bytes.u16(h.size_table + 2 * block as usize).map_err(|_| "size table out of range")?;
            Ok(i64::from(size) + 1)
        };
        while literal < 0 {
            block = block.checked_sub(1).ok_or("block number out of range")?;
            literal += block_values(block)?;
        }
        loop {
            let values = block_values(block)?;
            if literal < values {
                break;
            }
            literal -= values;
            block += 1;
        }

        let mut at = h.data + (block << h.block_size) as usize;
        let mut code = bytes.u64_be(at).map_err(|_| "data block out of range")?;
        at += 8;
        let mut bit_count = 0u32;
        let base = |len: u32| h.base[(len - h.min_len) as usize];
        let max_len = h.min_len + h.base.len() as u32 - 1;
        let mut symbol;
        loop {
            let mut len = h.min_len;
            while len < max_len && code < base(len) {
                len += 1;
            }
            let first = bytes.u16(h.offsets + 2 * (len - h.min_len) as usize).map_err(|_| "bad code table")?;
            symbol = usize::from(first) + ((code - base(len)) >> (64 - len)) as usize;
            let expands = i64::from(*h.sym_len.get(symbol).ok_or("symbol out of range")?) + 1;
            if literal < expands {
                break;
            }
            literal -= expands;
            code <<= len;
            bit_count += len;
            if bit_count >= 32 {
                bit_count -= 32;
                code |= u64::from(bytes.u32_be(at).map_err(|_| "data block out of range")?) << bit_count;
                at += 4;
            }
        }
        // Walk down the pair tree to the leaf holding the value.
        while h.sym_len[symbol] != 0 {
            let (left, right) = pair(bytes, h.patterns, symbol).map_err(|_| "bad symbol")?;
            let left_values = i64::from(h.sym_len[left]) + 1;
            if literal < left_values {
                symbol = left;
            } else {
                literal -= left_values;
                symbol = right;
            }
        }
        let leaf = bytes.slice(h.patterns + 3 * symbol, 3).map_err(|_| "bad symbol")?;
        Ok([leaf[0], leaf[1], leaf[2]])
    }
}

/// The two halves of symbol `s`, 12 bits each; the right one is 0xfff for a leaf.
fn pair(bytes: &Bytes<'_>, patterns: usize, s: usize) -> Result<(usize, usize), String> {
    let w = bytes.slice(patterns + 3 * s, 3)?;
    let left = (usize::from(w[1] & 0xf) << 8) | usize::from(w[0]);
    let right = (usize::from(w[2]) << 4) | usize::from(w[1] >> 4);
    Ok((left, right))
}

/// For each symbol, how many values it expands to minus one. Rejects references to missing
/// symbols and cycles (a valid grammar is a forest), so decoding always terminates.
fn symbol_lengths(bytes: &Bytes<'_>, patterns: usize, num_syms: usize) -> Result<Vec<u32>, String> {
    const LEAF: usize = 0xfff;
    let mut len = vec![0u32; num_syms];
    // 0: not visited, 1: on the stack, 2: done.
    let mut state = vec![0u8; num_syms];
    for start in 0..num_syms {
        if state[start] == 2 {
            continue;
        }
        let mut stack = vec![start];
        while let Some(&s) = stack.last() {
            let (left, right) = pair(bytes, patterns, s)?;
            if right == LEAF {
                state[s] = 2;
                stack.pop();
                continue;
            }
            if left >= num_syms || right >= num_syms {
                return Err(format!("symbol {s} refers to a missing symbol"));
            }
            state[s] = 1;
            let pending: Vec<usize> = [left, right].into_iter().filter(|&c| state[c] != 2).collect();
            if pending.is_empty() {
                len[s] = len[left].saturating_add(len[right]).saturating_add(1);
                state[s] = 2;
                stack.pop();
            } else {
                for child in pending {
                    if state[child] == 1 {
                        return Err(format!("symbol {s} is part of a cycle"));
                    }
                    stack.push(child);
                }
            }
        }
    }
    Ok(len)
}
