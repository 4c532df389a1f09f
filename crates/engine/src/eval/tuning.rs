//! A flat view of the evaluation weights, for tuners (cargo feature `tuning`).
//!
//! [`Weights`] holds one variant's whole weight table. Its tunable part reads and writes as a
//! `Vec<i32>` in a fixed order ([`Weights::names`] says which weight each entry is): the
//! middlegame and endgame halves of every packed score, then the plain integers that are worth
//! tuning. Structural integers (divisors, thresholds, the bare-king score) stay out of the vector
//! because changing them by one unit makes large, discontinuous jumps. [`evaluate_with_params`]
//! scores a position with such a table, and [`Weights::to_rust`] writes the table back as the
//! source of `chess_weights.rs` or `shatranj_weights.rs`.
//!
//! The evaluation code is the same as the engine's: the tuner measures exactly what the search
//! will see.

use std::fmt::Write as _;

use ferz_chess::{Position, Role, Square, Variant};

use super::visit::{Shape, Visitor};
use super::{S, Score, chess, chess_params, shatranj, shatranj_params};

/// One variant's evaluation weights.
#[derive(Clone, Debug)]
pub struct Weights {
    table: Table,
}

#[derive(Clone, Debug)]
enum Table {
    Chess(Box<chess_params::Params>),
    Shatranj(Box<shatranj_params::Params>),
}

impl Weights {
    /// The weights the engine uses for `variant` (chess and Chess960 share theirs).
    #[must_use]
    pub fn defaults(variant: Variant) -> Weights {
        let table = match variant {
            Variant::Chess | Variant::Chess960 => Table::Chess(Box::new(super::chess_weights::PARAMS.clone())),
            Variant::Shatranj => Table::Shatranj(Box::new(super::shatranj_weights::PARAMS.clone())),
        };
        Weights { table }
    }

    /// Whether these are Shatranj weights (otherwise chess and Chess960).
    #[must_use]
    pub fn is_shatranj(&self) -> bool {
        matches!(self.table, Table::Shatranj(_))
    }

    fn visit(&mut self, visitor: &mut dyn Visitor) {
        match &mut self.table {
            Table::Chess(p) => p.visit(visitor),
            Table::Shatranj(p) => p.visit(visitor),
        }
    }

    /// Runs a visitor over a copy, for the read-only walks (the copy is cheap next to what
    /// callers do with the result).
    fn visit_copy(&self, visitor: &mut dyn Visitor) {
        self.clone().visit(visitor);
    }

    /// The name of each tunable weight, in vector order: `psqt[knight][e4].mg`,
    /// `mobility_rook[3].eg`, `tempo`, ...
    #[must_use]
    pub fn names(&self) -> Vec<String> {
        let mut names = Names(Vec::new());
        self.visit_copy(&mut names);
        names.0
    }

    /// The piece and square (from white's side; black pieces use the vertically mirrored
    /// square) of tunable weight `index` when it is a piece-square entry, so that a tuner can
    /// skip positions where it cannot matter. Both evaluations start with their piece-square
    /// tables, a middlegame and an endgame half per entry.
    #[must_use]
    pub fn psqt_entry(&self, index: usize) -> Option<(Role, Square)> {
        let entry = index / 2;
        (entry < 6 * 64).then(|| (Role::ALL[entry / 64], Square::new((entry % 64) as u32).expect("64 squares")))
    }

    /// The tunable weights as one vector, in [`Weights::names`] order.
    #[must_use]
    pub fn get(&self) -> Vec<i32> {
        let mut get = Get(Vec::new());
        self.visit_copy(&mut get);
        get.0
    }

    /// Replaces the tunable weights with `values` (in [`Weights::names`] order).
    ///
    /// # Panics
    /// If `values` does not have one entry per tunable weight, or a score half leaves `i16`.
    pub fn set(&mut self, values: &[i32]) {
        let mut set = Set { values, next: 0 };
        self.visit(&mut set);
        assert_eq!(set.next, values.len(), "one value per tunable weight");
    }

    /// The whole table as the source of a `*_weights.rs` module: `header` lines become the
    /// module documentation, then comes the `PARAMS` static.
    #[must_use]
    pub fn to_rust(&self, header: &[String]) -> String {
        let mut out = String::new();
        for line in header {
            if line.is_empty() {
                out.push_str("//!\n");
            } else {
                let _ = writeln!(out, "//! {line}");
            }
        }
        let module = if self.is_shatranj() { "shatranj" } else { "chess" };
        let _ = write!(
            out,
            "\nuse super::S;\nuse super::{module}_params::Params;\n\n\
             /// The weights in use. Piece-square tables are white-oriented: each table starts \
             at a1,\n/// one line per rank from the first to the eighth.\n\
             #[rustfmt::skip]\npub(super) static PARAMS: Params = Params {{\n"
        );
        let mut render = Render(out);
        self.visit_copy(&mut render);
        let mut out = render.0;
        out.push_str("};\n");
        out
    }
}

/// Scores `pos` with `weights`, in centipawns from **white's** point of view (the engine's own
/// [`super::evaluate`] is from the side to move's; the tempo bonus therefore counts for white
/// when white is to move and against it otherwise).
///
/// # Panics
/// In debug builds, if the weights do not belong to the position's variant.
#[must_use]
pub fn evaluate_with_params(pos: &Position, weights: &Weights) -> i32 {
    debug_assert_eq!(weights.is_shatranj(), pos.variant().is_shatranj(), "weights of another variant");
    let side_relative = evaluate_dispatch(pos, weights);
    if pos.turn().is_white() { side_relative } else { -side_relative }
}

#[inline(always)]
fn evaluate_portable(pos: &Position, weights: &Weights) -> i32 {
    match &weights.table {
        Table::Chess(p) => chess::evaluate_with(pos, p),
        Table::Shatranj(p) => shatranj::evaluate_with(pos, p),
    }
}

// The same `popcnt` dispatch as the engine's `evaluate`: a tuner evaluates hundreds of millions
// of times, and baseline x86-64 builds would otherwise emulate the instruction.
#[cfg(all(target_arch = "x86_64", not(target_feature = "popcnt")))]
#[target_feature(enable = "popcnt")]
fn evaluate_popcnt(pos: &Position, weights: &Weights) -> i32 {
    evaluate_portable(pos, weights)
}

fn evaluate_dispatch(pos: &Position, weights: &Weights) -> i32 {
    #[cfg(all(target_arch = "x86_64", not(target_feature = "popcnt")))]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // Safety: the CPU was just checked to support `popcnt`.
        #[allow(unsafe_code)]
        return unsafe { evaluate_popcnt(pos, weights) };
    }
    evaluate_portable(pos, weights)
}

/// The name of entry `index` of a field of the given shape (without the phase suffix).
fn entry_name(field: &str, shape: Shape, index: usize) -> String {
    match shape {
        Shape::Scalar => field.to_string(),
        Shape::Array => format!("{field}[{index}]"),
        Shape::Psqt(roles) => {
            let square = Square::new((index % 64) as u32).expect("64 squares");
            format!("{field}[{}][{square}]", roles[index / 64])
        }
    }
}

struct Names(Vec<String>);

impl Visitor for Names {
    fn scores(&mut self, field: &'static str, shape: Shape, values: &mut [Score]) {
        for index in 0..values.len() {
            let name = entry_name(field, shape, index);
            self.0.push(format!("{name}.mg"));
            self.0.push(format!("{name}.eg"));
        }
    }

    fn ints(&mut self, field: &'static str, shape: Shape, values: &mut [i32], tuned: bool) {
        if tuned {
            self.0.extend((0..values.len()).map(|index| entry_name(field, shape, index)));
        }
    }
}

struct Get(Vec<i32>);

impl Visitor for Get {
    fn scores(&mut self, _: &'static str, _: Shape, values: &mut [Score]) {
        for s in values {
            self.0.extend([s.mg(), s.eg()]);
        }
    }

    fn ints(&mut self, _: &'static str, _: Shape, values: &mut [i32], tuned: bool) {
        if tuned {
            self.0.extend_from_slice(values);
        }
    }
}

struct Set<'a> {
    values: &'a [i32],
    next: usize,
}

impl Set<'_> {
    fn take(&mut self) -> i32 {
        let value = *self.values.get(self.next).expect("one value per tunable weight");
        self.next += 1;
        value
    }
}

impl Visitor for Set<'_> {
    fn scores(&mut self, _: &'static str, _: Shape, values: &mut [Score]) {
        for s in values {
            let (mg, eg) = (self.take(), self.take());
            assert!(i16::try_from(mg).is_ok() && i16::try_from(eg).is_ok(), "score half out of range: {mg}, {eg}");
            *s = S(mg, eg);
        }
    }

    fn ints(&mut self, _: &'static str, _: Shape, values: &mut [i32], tuned: bool) {
        if tuned {
            for v in values {
                *v = self.take();
            }
        }
    }
}

/// Writes each field as a line (or block) of a Rust struct literal.
struct Render(String);

impl Render {
    /// Writes `items` as an array literal, `per_line` to a line, indented by `indent`.
    fn array(&mut self, items: &[String], per_line: usize, indent: &str) {
        self.0.push_str("[\n");
        for line in items.chunks(per_line) {
            let _ = writeln!(self.0, "{indent}    {},", line.join(", "));
        }
        let _ = write!(self.0, "{indent}]");
    }
}

impl Visitor for Render {
    fn scores(&mut self, field: &'static str, shape: Shape, values: &mut [Score]) {
        let items: Vec<String> = values.iter().map(|s| format!("S({}, {})", s.mg(), s.eg())).collect();
        let _ = write!(self.0, "    {field}: ");
        match shape {
            Shape::Scalar => self.0.push_str(&items[0]),
            Shape::Array => self.array(&items, 8, "    "),
            Shape::Psqt(roles) => {
                self.0.push_str("[\n");
                for (role, table) in roles.iter().zip(items.chunks(64)) {
                    let _ = write!(self.0, "        // {role}\n        ");
                    self.array(table, 8, "        ");
                    self.0.push_str(",\n");
                }
                self.0.push_str("    ]");
            }
        }
        self.0.push_str(",\n");
    }

    fn ints(&mut self, field: &'static str, shape: Shape, values: &mut [i32], _: bool) {
        let items: Vec<String> = values.iter().map(ToString::to_string).collect();
        match shape {
            Shape::Scalar => {
                let _ = writeln!(self.0, "    {field}: {},", items[0]);
            }
            Shape::Array | Shape::Psqt(_) => {
                let _ = writeln!(self.0, "    {field}: [{}],", items.join(", "));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::test_util::pos;

    /// The module documentation lines of a generated weights file.
    fn header(source: &str) -> Vec<String> {
        source
            .lines()
            .take_while(|l| l.starts_with("//!"))
            .map(|l| l.trim_start_matches("//!").trim_start().to_string())
            .collect()
    }

    #[test]
    fn committed_weights_are_what_the_renderer_writes() {
        // Rendering the weights in use reproduces the generated files byte for byte: the
        // round trip table -> source -> table loses nothing, and nobody edited them by hand.
        for (variant, source) in [
            (Variant::Chess, include_str!("chess_weights.rs")),
            (Variant::Shatranj, include_str!("shatranj_weights.rs")),
        ] {
            let rendered = Weights::defaults(variant).to_rust(&header(source));
            assert_eq!(rendered, source, "{variant}");
        }
    }

    #[test]
    fn get_set_round_trip() {
        for variant in [Variant::Chess, Variant::Shatranj] {
            let mut w = Weights::defaults(variant);
            let names = w.names();
            let values = w.get();
            assert_eq!(names.len(), values.len());
            let unique: std::collections::HashSet<&String> = names.iter().collect();
            assert_eq!(unique.len(), names.len(), "names are unique");
            let changed: Vec<i32> = values.iter().enumerate().map(|(i, v)| v + (i as i32 % 7) - 3).collect();
            w.set(&changed);
            assert_eq!(w.get(), changed);
            w.set(&values);
            assert_eq!(w.get(), values);
        }
    }

    #[test]
    fn psqt_entries_match_their_names() {
        for variant in [Variant::Chess, Variant::Shatranj] {
            let w = Weights::defaults(variant);
            for (index, name) in w.names().iter().enumerate() {
                match w.psqt_entry(index) {
                    Some((_, square)) => assert!(name.starts_with("psqt[") && name.contains(&format!("][{square}]"))),
                    None => assert!(!name.starts_with("psqt["), "{name}"),
                }
            }
            assert_eq!(w.psqt_entry(2 * 64 + 1), Some((Role::Knight, Square::A1)));
        }
    }

    #[test]
    fn evaluation_matches_the_engine() {
        let p = pos("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1", Variant::Chess);
        let w = Weights::defaults(Variant::Chess);
        assert_eq!(evaluate_with_params(&p, &w), -super::super::evaluate(&p));
        let s = pos("rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w - - 0 1", Variant::Shatranj);
        let w = Weights::defaults(Variant::Shatranj);
        assert_eq!(evaluate_with_params(&s, &w), super::super::evaluate(&s));
    }

    #[test]
    fn a_named_weight_moves_the_evaluation() {
        let p = pos("4k3/8/8/8/8/8/8/4KR2 w - - 0 1", Variant::Chess);
        let mut w = Weights::defaults(Variant::Chess);
        let index = w.names().iter().position(|n| n == "psqt[rook][f1].eg").expect("named");
        let before = evaluate_with_params(&p, &w);
        let mut values = w.get();
        values[index] += 64;
        w.set(&values);
        // Only the endgame half moves, and this position is nearly pure endgame.
        let after = evaluate_with_params(&p, &w);
        assert!(after - before >= 50, "{before} -> {after}");
    }
}
