//! How a tuner walks an evaluation's weight table (cargo feature `tuning`): each `Params` type
//! hands its fields, in declaration order, to a [`Visitor`], which reads, writes, names or renders
//! them.

use super::Score;

/// How the values handed to a [`Visitor`] are laid out in their field.
#[derive(Copy, Clone, Debug)]
pub(super) enum Shape {
    /// A single value.
    Scalar,
    /// A one-dimensional array.
    Array,
    /// Piece-square tables: one row of 64 squares (a1 first) per role, rows named by the slice.
    Psqt(&'static [&'static str; 6]),
}

/// Something that walks every field of a `Params` table in declaration order.
pub(super) trait Visitor {
    /// A field of packed scores, all of whose halves are tunable.
    fn scores(&mut self, field: &'static str, shape: Shape, values: &mut [Score]);
    /// A field of integers; `tuned` says whether they belong to the tunable vector.
    fn ints(&mut self, field: &'static str, shape: Shape, values: &mut [i32], tuned: bool);
}
