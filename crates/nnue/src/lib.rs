//! ferz's NNUE evaluation: a (768·K → N) × 2 → 1 network over piece-square inputs, seen from both
//! sides (optionally mirrored by and bucketed on each side's king: K king buckets), with one output
//! layer or one per bucket of piece counts, and quantised integer inference.
//!
//! The contract shared with the trainer (`docs/nnue.md`) lives here in one place:
//! - [`features`]: the input feature index and the feature changes a move makes;
//! - [`mod@format`]: the net file (header, quantised parameters, CRC-32);
//! - [`Network`]: the quantised parameters; [`FloatNetwork`] and [`evaluate_float`]: the float
//!   reference the quantised network approximates;
//! - [`Accumulator`] and [`evaluate`]: incremental inference, with an AVX2 path chosen at run time
//!   and a portable fallback that return identical integers;
//! - [`calibrate`]: the scale at which a net's scores are as large as another's.
//!
//! It knows positions and moves (`ferz-chess`) and nothing of search, datasets or training: the
//! engine and the trainer build on it.
//!
//! ```
//! use ferz_chess::{Position, Variant};
//! use ferz_nnue::{Accumulator, Activation, FloatNetwork, NetVariant, evaluate};
//!
//! let float = FloatNetwork::random(Activation::SCReLU, 32, 1, 7);
//! let net = float.quantise(NetVariant::Chess).unwrap();
//! let pos = Position::new(Variant::Chess);
//! let mut acc = Accumulator::new(&net);
//! acc.refresh(&net, &pos);
//! let cp = evaluate(&net, &acc, &pos);
//! // The quantised score tracks the float model (see the tests for the tolerance).
//! let float_cp = ferz_nnue::evaluate_float(&float, &pos);
//! assert!((cp as f32 - float_cp).abs() <= 0.02 * float_cp.abs() + 10.0);
//! ```

mod accumulator;
pub mod calibrate;
pub mod embedded;
mod eval;
pub mod features;
mod float;
pub mod format;
mod network;
mod simd;

pub use accumulator::Accumulator;
pub use eval::{evaluate, evaluate_portable, evaluate_simd, simd_name};
pub use features::InputLayout;
pub use float::{FloatNetwork, evaluate_float};
pub use network::{Activation, LANE, Lane, NetVariant, Network, NetworkError, output_bucket};

/// Input features per perspective and king bucket: 2 colours × 6 roles × 64 squares.
pub const INPUTS: usize = 768;
/// Quantisation of the feature weights and biases: `i16 = round(w * QA)`; also the clamp of the
/// activations.
pub const QA: i32 = 255;
/// Quantisation of the output weights: `i16 = round(w * QB)`.
pub const QB: i32 = 64;
/// The float model's output times `SCALE` is centipawns: the scale the trainer learns in and
/// writes. A net file may carry another ([`Network::scale`]), which scales its evaluation.
pub const SCALE: i32 = 400;
/// The largest scale a net file may carry: ten times the trainer's, so that the evaluation's
/// last step cannot overflow.
pub const MAX_SCALE: u16 = 4000;
/// The largest hidden size a net file may declare.
pub const MAX_HIDDEN: usize = 4096;
/// The most output buckets a net may have ([`output_bucket`]).
pub const MAX_OUTPUT_BUCKETS: usize = 8;
