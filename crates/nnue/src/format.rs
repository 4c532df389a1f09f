//! The net file format, version 1 (little-endian throughout).
//!
//! ```text
//! offset size  field
//! 0      8     magic b"FERZNNUE"
//! 8      4     version u32 = 1
//! 12     1     variant u8: 0 = chess (standard and Chess960), 1 = shatranj
//! 13     1     activation u8: 0 = CReLU, 1 = SCReLU
//! 14     2     hidden size N u16 (1..=4096)
//! 16     2     QA u16 (255)
//! 18     2     QB u16 (64)
//! 20     2     scale u16: centipawns per unit of output (the trainer writes SCALE, 400)
//! 22     1     output buckets B minus one u8 (0..=7; 0: one output layer)
//! 23     1     input layout u8: 0 = plain, 1 = mirrored, 2 = four king buckets (K = 1, 1, 4)
//! 24     8     reserved, zero
//! 32     ...   feature weights i16[K * 768 * N], feature-major
//!        ...   feature bias i16[N]
//!        ...   output weights i16[B * 2 * N], bucket after bucket (side to move first)
//!        ...   output biases i32[B]
//! end-4  4     CRC-32 (IEEE) of every byte before it
//! ```
//!
//! A net of one output bucket and plain inputs is byte for byte the file written before buckets
//! and layouts existed (its bytes 22 and 23 were reserved and zero).
//!
//! A reader checks, in this order, the magic, the version, the size the header's hidden size,
//! output buckets and input layout imply, the checksum, the other header fields and finally the
//! variant the caller expects, and says which is wrong.

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use crate::features::InputLayout;
use crate::{Activation, MAX_HIDDEN, MAX_OUTPUT_BUCKETS, NetVariant, Network, NetworkError, QA, QB};

/// The first eight bytes of every net file.
pub const MAGIC: [u8; 8] = *b"FERZNNUE";
/// The format version this build reads and writes.
pub const VERSION: u32 = 1;
/// Bytes before the parameters.
pub const HEADER_LEN: usize = 32;

/// The size in bytes of a version-1 file with input layout `inputs`, hidden size `hidden` and
/// `buckets` output buckets.
#[must_use]
pub const fn file_size(inputs: InputLayout, hidden: usize, buckets: usize) -> usize {
    HEADER_LEN + 2 * inputs.inputs() * hidden + 2 * hidden + buckets * (4 * hidden + 4) + 4
}

/// The largest file this format can describe: four king buckets, hidden size [`MAX_HIDDEN`] and
/// [`MAX_OUTPUT_BUCKETS`] (about 25 MB). Reading stops past it, so a path like `/dev/zero` is
/// refused at once.
pub const MAX_FILE_SIZE: usize = file_size(InputLayout::King4, MAX_HIDDEN, MAX_OUTPUT_BUCKETS);

/// What is wrong with a net file's content.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    /// Reading the bytes failed.
    #[error("cannot read the net: {0}")]
    Io(#[from] io::Error),
    /// Too short to hold a header and a checksum.
    #[error("the file is {actual} bytes, too short for a net file (header {HEADER_LEN} bytes)")]
    TooShort {
        /// The file's size.
        actual: usize,
    },
    /// Longer than any net file can be ([`MAX_FILE_SIZE`]).
    #[error("more than {MAX_FILE_SIZE} bytes, larger than any net file (hidden size at most {MAX_HIDDEN})")]
    TooLarge,
    /// The first eight bytes are not `FERZNNUE`.
    #[error("not a ferz net file: the magic is {found:?}, expected \"FERZNNUE\"")]
    BadMagic {
        /// The first eight bytes, lossily as text.
        found: String,
    },
    /// A format version this build cannot read.
    #[error("net format version {found}, but this build reads version {VERSION}")]
    Version {
        /// The version in the file.
        found: u32,
    },
    /// The header's hidden size is out of range.
    #[error("the header's hidden size is {found}, expected 1..={MAX_HIDDEN}")]
    HiddenSize {
        /// The hidden size in the file.
        found: usize,
    },
    /// The header's output bucket count is out of range.
    #[error("the header says {found} output buckets, expected 1..={MAX_OUTPUT_BUCKETS}")]
    OutputBuckets {
        /// The bucket count in the file (its byte plus one).
        found: usize,
    },
    /// An unknown input layout code.
    #[error("unknown input layout code {0} in the header (0 = plain, 1 = mirrored, 2 = four king buckets)")]
    UnknownInputLayout(u8),
    /// The file is not as long as its hidden size, output buckets and input layout imply.
    #[error("the file is {actual} bytes, but a {inputs} net of hidden size {hidden} and {buckets} output bucket{} is {expected} bytes ({})",
        if *buckets == 1 { "" } else { "s" }, if actual < expected { "truncated" } else { "trailing bytes" })]
    Size {
        /// The file's size.
        actual: usize,
        /// The size the header implies.
        expected: usize,
        /// The header's hidden size.
        hidden: usize,
        /// The header's output buckets.
        buckets: usize,
        /// The header's input layout.
        inputs: InputLayout,
    },
    /// The stored CRC-32 does not match the content.
    #[error("checksum mismatch: the file says {stored:08x}, its content gives {computed:08x} (corrupt file)")]
    Checksum {
        /// The CRC-32 in the last four bytes.
        stored: u32,
        /// The CRC-32 of the bytes before them.
        computed: u32,
    },
    /// An unknown variant code.
    #[error("unknown variant code {0} in the header (0 = chess, 1 = shatranj)")]
    UnknownVariant(u8),
    /// An unknown activation code.
    #[error("unknown activation code {0} in the header (0 = CReLU, 1 = SCReLU)")]
    UnknownActivation(u8),
    /// A quantisation constant other than this build's.
    #[error("the header's {name} is {found}, but this build uses {expected}")]
    Quantisation {
        /// `QA` or `QB`.
        name: &'static str,
        /// The value in the file.
        found: u16,
        /// The value this build uses.
        expected: i32,
    },
    /// A net for another rule set than the one asked for.
    #[error("this is a {found} net, expected a {expected} net")]
    WrongVariant {
        /// The variant the caller asked for.
        expected: NetVariant,
        /// The variant in the file.
        found: NetVariant,
    },
    /// The parameters do not make a network the kernels accept.
    #[error(transparent)]
    Network(#[from] NetworkError),
}

/// A net file that could not be loaded: where, and why.
#[derive(Debug, thiserror::Error)]
#[error("net file {}: {source}", path.display())]
pub struct LoadError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong with it.
    #[source]
    pub source: FormatError,
}

fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// `count` little-endian i16 starting at `at`.
fn i16s(bytes: &[u8], at: usize, count: usize) -> Vec<i16> {
    bytes[at..at + 2 * count].chunks_exact(2).map(|c| i16::from_le_bytes([c[0], c[1]])).collect()
}

/// Decodes a whole net file held in memory. With `expected`, a net for another variant is an
/// error.
///
/// # Errors
/// The first [`FormatError`] found, in the order the module documentation gives.
pub fn parse(bytes: &[u8], expected: Option<NetVariant>) -> Result<Network, FormatError> {
    if bytes.len() < MAGIC.len() || bytes[..MAGIC.len()] != MAGIC {
        let found = String::from_utf8_lossy(&bytes[..bytes.len().min(MAGIC.len())]).into_owned();
        return Err(FormatError::BadMagic { found });
    }
    if bytes.len() < HEADER_LEN + 4 {
        return Err(FormatError::TooShort { actual: bytes.len() });
    }
    let version = u32_at(bytes, 8);
    if version != VERSION {
        return Err(FormatError::Version { found: version });
    }
    let hidden = usize::from(u16_at(bytes, 14));
    if !(1..=MAX_HIDDEN).contains(&hidden) {
        return Err(FormatError::HiddenSize { found: hidden });
    }
    let buckets = usize::from(bytes[22]) + 1;
    if buckets > MAX_OUTPUT_BUCKETS {
        return Err(FormatError::OutputBuckets { found: buckets });
    }
    let inputs = InputLayout::from_code(bytes[23]).ok_or(FormatError::UnknownInputLayout(bytes[23]))?;
    let size = file_size(inputs, hidden, buckets);
    if bytes.len() != size {
        return Err(FormatError::Size { actual: bytes.len(), expected: size, hidden, buckets, inputs });
    }
    let stored = u32_at(bytes, size - 4);
    let computed = crc32fast::hash(&bytes[..size - 4]);
    if stored != computed {
        return Err(FormatError::Checksum { stored, computed });
    }
    let variant = NetVariant::from_code(bytes[12]).ok_or(FormatError::UnknownVariant(bytes[12]))?;
    let activation = Activation::from_code(bytes[13]).ok_or(FormatError::UnknownActivation(bytes[13]))?;
    for (name, at, expected) in [("QA", 16, QA), ("QB", 18, QB)] {
        let found = u16_at(bytes, at);
        if i32::from(found) != expected {
            return Err(FormatError::Quantisation { name, found, expected });
        }
    }
    let scale = crate::network::checked_scale(u16_at(bytes, 20))?;
    if let Some(expected) = expected
        && expected != variant
    {
        return Err(FormatError::WrongVariant { expected, found: variant });
    }
    let mut at = HEADER_LEN;
    let feature_weights = i16s(bytes, at, inputs.inputs() * hidden);
    at += 2 * inputs.inputs() * hidden;
    let feature_bias = i16s(bytes, at, hidden);
    at += 2 * hidden;
    let output_weights = i16s(bytes, at, 2 * hidden * buckets);
    at += 4 * hidden * buckets;
    let output_bias: Vec<i32> = (0..buckets).map(|b| u32_at(bytes, at + 4 * b) as i32).collect();
    Ok(Network::from_parts(
        variant,
        activation,
        inputs,
        hidden,
        &feature_weights,
        &feature_bias,
        &output_weights,
        &output_bias,
    )?
    .with_scale(scale)?)
}

/// Reads and decodes a net from `input` (see [`parse`]).
///
/// # Errors
/// [`FormatError::Io`] if reading fails, else as [`parse`].
pub fn read(input: impl Read, expected: Option<NetVariant>) -> Result<Network, FormatError> {
    parse(&read_bounded(input)?, expected)
}

/// All of `input`, refused as [`FormatError::TooLarge`] as soon as it passes
/// [`MAX_FILE_SIZE`] (an endless stream is not read to its end).
fn read_bounded(input: impl Read) -> Result<Vec<u8>, FormatError> {
    let mut bytes = Vec::new();
    input.take(MAX_FILE_SIZE as u64 + 1).read_to_end(&mut bytes)?;
    if bytes.len() > MAX_FILE_SIZE {
        return Err(FormatError::TooLarge);
    }
    Ok(bytes)
}

/// Loads the net file at `path` (see [`parse`]).
///
/// # Errors
/// A [`LoadError`] naming the file and what is wrong with it.
pub fn load(path: &Path, expected: Option<NetVariant>) -> Result<Network, LoadError> {
    let wrap = |source| LoadError { path: path.to_owned(), source };
    let file = fs::File::open(path).map_err(|e| wrap(FormatError::Io(e)))?;
    // A regular file's size is known up front: a huge one is refused without reading it.
    if file.metadata().is_ok_and(|m| m.is_file() && m.len() > MAX_FILE_SIZE as u64) {
        return Err(wrap(FormatError::TooLarge));
    }
    let bytes = read_bounded(file).map_err(wrap)?;
    parse(&bytes, expected).map_err(wrap)
}

/// The file's bytes for `net`.
#[must_use]
pub fn to_bytes(net: &Network) -> Vec<u8> {
    let (inputs, hidden, buckets) = (net.inputs(), net.hidden(), net.output_buckets());
    let mut out = Vec::with_capacity(file_size(inputs, hidden, buckets));
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.push(net.variant().code());
    out.push(net.activation().code());
    // `Network` keeps the hidden size within 1..=4096, so it fits.
    out.extend_from_slice(&(hidden as u16).to_le_bytes());
    for constant in [QA as u16, QB as u16, net.scale()] {
        out.extend_from_slice(&constant.to_le_bytes());
    }
    // `Network` keeps the bucket count within 1..=8.
    out.push((buckets - 1) as u8);
    out.push(inputs.code());
    out.resize(HEADER_LEN, 0);
    for values in [net.feature_weights(), net.feature_bias(), net.output_weights()] {
        out.extend(values.iter().flat_map(|v| v.to_le_bytes()));
    }
    out.extend(net.output_biases().iter().flat_map(|b| b.to_le_bytes()));
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    debug_assert_eq!(out.len(), file_size(inputs, hidden, buckets));
    out
}

/// Writes `net` in the file format to `out`.
///
/// # Errors
/// Any error of `out`.
pub fn write(net: &Network, mut out: impl Write) -> io::Result<()> {
    out.write_all(&to_bytes(net))?;
    out.flush()
}

/// Saves `net` to `path` through a temporary file in the same directory, renamed into place, so
/// that `path` is never left half written.
///
/// # Errors
/// Any error creating, writing or renaming the file.
pub fn save(net: &Network, path: &Path) -> io::Result<()> {
    ferz_files::write_atomic(path, &to_bytes(net))
}
