//! Bounds-checked little- and big-endian reads from a table file's bytes.

/// A table file's contents; every read checks its range, so a truncated or corrupt file
/// yields an error instead of a panic.
#[derive(Copy, Clone)]
pub(crate) struct Bytes<'a>(pub &'a [u8]);

impl Bytes<'_> {
    /// `len` bytes at `at`.
    pub fn slice(&self, at: usize, len: usize) -> Result<&[u8], String> {
        at.checked_add(len)
            .and_then(|end| self.0.get(at..end))
            .ok_or_else(|| format!("truncated: {len} bytes at offset {at} are past the end ({} bytes)", self.0.len()))
    }

    fn array<const N: usize>(&self, at: usize) -> Result<[u8; N], String> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.slice(at, N)?);
        Ok(out)
    }

    /// The byte at `at`.
    pub fn u8(&self, at: usize) -> Result<u8, String> {
        Ok(self.array::<1>(at)?[0])
    }

    /// A little-endian `u16` at `at`.
    pub fn u16(&self, at: usize) -> Result<u16, String> {
        Ok(u16::from_le_bytes(self.array(at)?))
    }

    /// A little-endian `u32` at `at`.
    pub fn u32(&self, at: usize) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.array(at)?))
    }

    /// A big-endian `u32` at `at` (Huffman data is read most significant bit first).
    pub fn u32_be(&self, at: usize) -> Result<u32, String> {
        Ok(u32::from_be_bytes(self.array(at)?))
    }

    /// A big-endian `u64` at `at`.
    pub fn u64_be(&self, at: usize) -> Result<u64, String> {
        Ok(u64::from_be_bytes(self.array(at)?))
    }
}
