//! The input features and the feature changes of a move.
//!
//! A feature is one piece (colour, role) on one square, seen from one perspective. For
//! perspective `p`, the piece's colour `c`, role `r` and square `sq` (a1 = 0 ... h8 = 63):
//!
//! ```text
//! index = (if c == p {0} else {384}) + role_index(r) * 64 + (if p == White {sq} else {sq ^ 56})
//! ```
//!
//! so each side sees its own pieces first and its own back rank as rank 1. Shatranj's alfil uses
//! the bishop planes and its ferz the queen planes (as [`Role`] names them). Castling rights, en
//! passant and the move counters are no input: one chess net serves chess and Chess960.
//!
//! A net's [`InputLayout`] may also make the features depend on the perspective's own king: the
//! board mirrored left to right when that king stands on files e-h, and one copy of the 768
//! features per king bucket ([`KingView`]).

use arrayvec::ArrayVec;
use ferz_chess::{Board, CastlingSide, Color, Move, MoveKind, Position, Role, Square};

use crate::INPUTS;

/// How a net's inputs depend on the perspective's own king.
///
/// With a mirroring layout, a perspective whose king stands on files e-h sees the board
/// mirrored left to right (file a <-> file h), so every king stands on files a-d of what the
/// net sees and the weights for the other half need no data of their own. A king-bucketed
/// layout has one copy of the 768 features per bucket of that (mirrored) king square, so the
/// same piece on the same square can weigh differently behind a castled king and in front of a
/// king in the centre.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum InputLayout {
    /// 768 inputs, independent of the king: the layout of every net before layouts existed.
    #[default]
    Plain,
    /// 768 inputs, mirrored by the perspective's king file.
    Mirrored,
    /// 4 × 768 inputs, mirrored, in four buckets of the perspective's king square (seen from
    /// its side, mirrored to files a-d): a1-b1; c1-d1; rank 2; ranks 3-8.
    King4,
}

impl InputLayout {
    /// Every layout, in code order.
    pub const ALL: [InputLayout; 3] = [InputLayout::Plain, InputLayout::Mirrored, InputLayout::King4];

    /// The net file's code (byte 23): 0 plain, 1 mirrored, 2 four king buckets.
    #[must_use]
    pub const fn code(self) -> u8 {
        match self {
            InputLayout::Plain => 0,
            InputLayout::Mirrored => 1,
            InputLayout::King4 => 2,
        }
    }

    /// The layout of a net file code.
    #[must_use]
    pub const fn from_code(code: u8) -> Option<InputLayout> {
        match code {
            0 => Some(InputLayout::Plain),
            1 => Some(InputLayout::Mirrored),
            2 => Some(InputLayout::King4),
            _ => None,
        }
    }

    /// The name settings use: `"plain"`, `"mirrored"` or `"king4"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            InputLayout::Plain => "plain",
            InputLayout::Mirrored => "mirrored",
            InputLayout::King4 => "king4",
        }
    }

    /// King buckets: copies of the 768 features.
    #[must_use]
    pub const fn king_buckets(self) -> usize {
        match self {
            InputLayout::Plain | InputLayout::Mirrored => 1,
            InputLayout::King4 => 4,
        }
    }

    /// Whether a perspective whose king stands on files e-h sees the board mirrored, so that a
    /// position and its mirror image have the same features.
    #[must_use]
    pub const fn mirrors(self) -> bool {
        !matches!(self, InputLayout::Plain)
    }

    /// Input features per perspective: 768 per king bucket.
    #[must_use]
    pub const fn inputs(self) -> usize {
        INPUTS * self.king_buckets()
    }

    /// How `perspective` sees the board when its king stands on `king`.
    #[must_use]
    #[inline(always)]
    pub const fn view(self, perspective: Color, king: Square) -> KingView {
        let relative = match perspective {
            Color::White => king.index(),
            Color::Black => king.index() ^ 56,
        };
        let flip = match self {
            InputLayout::Plain => return KingView::PLAIN,
            InputLayout::Mirrored | InputLayout::King4 if relative % 8 >= 4 => 7,
            InputLayout::Mirrored | InputLayout::King4 => 0,
        };
        let folded = relative ^ flip;
        let bucket = match self {
            InputLayout::Plain | InputLayout::Mirrored => 0,
            InputLayout::King4 => match (folded / 8, folded % 8) {
                (0, 0 | 1) => 0,
                (0, _) => 1,
                (1, _) => 2,
                _ => 3,
            },
        };
        KingView { offset: bucket * INPUTS, flip }
    }

    /// How `perspective` sees `board` (a board without that king is seen as by a plain net).
    #[must_use]
    #[inline(always)]
    pub const fn view_of(self, board: &Board, perspective: Color) -> KingView {
        // A plain net reads no king square: this runs on every move of every search.
        if let InputLayout::Plain = self {
            return KingView::PLAIN;
        }
        match board.king_of(perspective) {
            Some(king) => self.view(perspective, king),
            None => KingView::PLAIN,
        }
    }
}

impl std::fmt::Display for InputLayout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no [`InputLayout`]'s.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown input layout {0:?}, expected one of plain, mirrored, king4")]
pub struct UnknownInputLayout(pub String);

impl std::str::FromStr for InputLayout {
    type Err = UnknownInputLayout;

    /// The layout of a settings name (`"plain"`, `"mirrored"` or `"king4"`).
    fn from_str(name: &str) -> Result<InputLayout, UnknownInputLayout> {
        InputLayout::ALL.into_iter().find(|layout| layout.name() == name).ok_or_else(|| UnknownInputLayout(name.into()))
    }
}

/// How one perspective sees the board under an [`InputLayout`]: the first feature of its king
/// bucket and whether files are mirrored.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct KingView {
    /// The king bucket times 768.
    offset: usize,
    /// 7 to mirror files (`square ^ 7`), else 0.
    flip: usize,
}

impl KingView {
    /// The view of a plain net: bucket 0, not mirrored.
    pub const PLAIN: KingView = KingView { offset: 0, flip: 0 };

    /// The feature of a plain feature index (see [`index`]) in this view.
    ///
    /// The square is the index's low six bits and the file its low three, so mirroring is
    /// `^ 7` on the index; it commutes with black's vertical flip (`^ 56`).
    #[must_use]
    #[inline(always)]
    pub const fn feature(self, plain: usize) -> usize {
        self.offset + (plain ^ self.flip)
    }

    /// The king bucket (0 for a layout without buckets).
    #[must_use]
    pub const fn bucket(self) -> usize {
        self.offset / INPUTS
    }

    /// Whether files are mirrored.
    #[must_use]
    pub const fn mirrored(self) -> bool {
        self.flip != 0
    }
}

/// The feature index of a `color` `role` on `square` for `perspective` (0..768).
#[must_use]
#[inline(always)]
pub const fn index(perspective: Color, color: Color, role: Role, square: Square) -> usize {
    let side = if color.index() == perspective.index() { 0 } else { 384 };
    let sq = match perspective {
        Color::White => square.index(),
        Color::Black => square.index() ^ 56,
    };
    side + role.index() * 64 + sq
}

/// One piece on one square, independent of perspective.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct PieceSquare {
    /// The owner.
    pub color: Color,
    /// The piece kind.
    pub role: Role,
    /// Where it stands.
    pub square: Square,
}

impl PieceSquare {
    /// The feature index of this piece for `perspective` in a plain net.
    #[must_use]
    #[inline(always)]
    pub const fn index(self, perspective: Color) -> usize {
        index(perspective, self.color, self.role, self.square)
    }

    /// The feature index of this piece for `perspective` seen through `view`.
    #[must_use]
    #[inline(always)]
    pub const fn feature(self, perspective: Color, view: KingView) -> usize {
        view.feature(self.index(perspective))
    }
}

/// The active features of `pos` for `perspective` under `layout`, one per piece, in square
/// order.
pub fn active(layout: InputLayout, pos: &Position, perspective: Color) -> impl Iterator<Item = usize> + '_ {
    let view = layout.view_of(pos.board(), perspective);
    pos.board().iter().map(move |(square, piece)| view.feature(index(perspective, piece.color, piece.role, square)))
}

/// The pieces a move takes off and puts on the board: at most two each way.
///
/// Applying it to the features of the position before the move gives the features of the
/// position after it. A piece removed and put back on the same square (a Chess960 king or rook
/// that castles onto its own square) appears in neither list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FeatureDelta {
    /// Pieces put on the board.
    pub added: ArrayVec<PieceSquare, 2>,
    /// Pieces taken off the board.
    pub removed: ArrayVec<PieceSquare, 2>,
}

impl FeatureDelta {
    /// Whether the move changes no feature (only a null move does that).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty()
    }

    fn add(&mut self, color: Color, role: Role, square: Square) {
        let ps = PieceSquare { color, role, square };
        // Castling may put a piece back where it was taken from: the two cancel.
        if let Some(i) = self.removed.iter().position(|&r| r == ps) {
            self.removed.remove(i);
        } else {
            self.added.push(ps);
        }
    }

    fn remove(&mut self, color: Color, role: Role, square: Square) {
        self.removed.push(PieceSquare { color, role, square });
    }
}

/// The feature changes `m` makes when played in `pos`.
///
/// `m` must be legal in `pos` (as from `Position::legal_moves`); for anything else the result
/// describes no real move but is still at most two pieces each way.
#[must_use]
pub fn move_delta(pos: &Position, m: Move) -> FeatureDelta {
    let us = pos.turn();
    let them = !us;
    let board = pos.board();
    let (from, to) = (m.from(), m.to());
    let mut delta = FeatureDelta::default();
    match m.kind() {
        MoveKind::Castle => {
            // Encoded as king takes own rook; the destinations depend only on the side.
            let side = if to.file() > from.file() { CastlingSide::KingSide } else { CastlingSide::QueenSide };
            let (king_to, rook_to) = side.destinations(us);
            delta.remove(us, Role::King, from);
            delta.remove(us, Role::Rook, to);
            delta.add(us, Role::King, king_to);
            delta.add(us, Role::Rook, rook_to);
        }
        MoveKind::EnPassant => {
            let captured = Square::from_coords(to.file(), from.rank());
            delta.remove(us, Role::Pawn, from);
            delta.remove(them, Role::Pawn, captured);
            delta.add(us, Role::Pawn, to);
        }
        MoveKind::Normal | MoveKind::Promotion(_) => {
            let role = board.role_at(from).unwrap_or(Role::Pawn);
            delta.remove(us, role, from);
            if let Some(captured) = board.piece_at(to).filter(|p| p.color == them) {
                delta.remove(them, captured.role, to);
            }
            let landed = m.promotion_role().unwrap_or(role);
            delta.add(us, landed, to);
        }
    }
    delta
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferz_chess::Variant;

    #[test]
    fn index_follows_the_contract() {
        let w = Color::White;
        let b = Color::Black;
        assert_eq!(index(w, w, Role::Pawn, Square::A1), 0);
        assert_eq!(index(w, w, Role::King, Square::H8), 5 * 64 + 63);
        assert_eq!(index(w, b, Role::Pawn, Square::A1), 384);
        // Black sees its own pieces first and the board flipped vertically.
        assert_eq!(index(b, b, Role::Knight, Square::A8), 64);
        assert_eq!(index(b, w, Role::Queen, Square::D1), 384 + 4 * 64 + (3 ^ 56));
        let all: std::collections::HashSet<usize> = Color::ALL
            .iter()
            .flat_map(|&c| Role::ALL.iter().flat_map(move |&r| Square::all().map(move |s| index(w, c, r, s))))
            .collect();
        assert_eq!(all.len(), 768);
        assert!(all.iter().all(|&i| i < 768));
    }

    #[test]
    fn king_views_mirror_by_the_king_file_and_bucket_its_square() {
        use InputLayout::{King4, Mirrored, Plain};
        let (w, b) = (Color::White, Color::Black);
        let sq = |name: &str| name.parse::<Square>().unwrap();
        assert_eq!(Plain.view(w, sq("g1")), KingView::PLAIN);
        assert_eq!(Mirrored.view(w, sq("d1")), KingView::PLAIN);
        let g1 = Mirrored.view(w, sq("g1"));
        assert!(g1.mirrored() && g1.bucket() == 0);
        // Each bucket of four kings, white's view; black's is the same seen from its side.
        for (king, bucket, mirrored) in
            [("a1", 0, false), ("g1", 0, true), ("c1", 1, false), ("e1", 1, true), ("h2", 2, true), ("d5", 3, false)]
        {
            let view = King4.view(w, sq(king));
            assert_eq!((view.bucket(), view.mirrored()), (bucket, mirrored), "{king}");
            let flipped = sq(king).flip_vertical();
            assert_eq!(King4.view(b, flipped), view, "{king} seen by black");
        }
        // A feature moves to its bucket's copy and, mirrored, to the other file.
        let view = King4.view(w, sq("g2"));
        assert_eq!(view.feature(index(w, b, Role::Pawn, sq("a7"))), 2 * INPUTS + index(w, b, Role::Pawn, sq("h7")));
        for layout in InputLayout::ALL {
            assert_eq!(InputLayout::from_code(layout.code()), Some(layout));
            assert_eq!(layout.name().parse(), Ok(layout));
        }
        assert_eq!(InputLayout::from_code(3), None);
        let names: Vec<&str> = InputLayout::ALL.iter().map(|l| l.name()).collect();
        let e = "king8".parse::<InputLayout>().unwrap_err();
        assert_eq!(e.to_string(), format!("unknown input layout \"king8\", expected one of {}", names.join(", ")));
    }

    /// A mirroring layout sees a position and its mirror image alike: the net need not learn
    /// both halves of the board.
    #[test]
    fn mirroring_layouts_see_a_mirrored_position_alike() {
        let fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R5K1 b kq - 0 1";
        let mirrored = "r2k3r/1bpqpp1p/1pnp2nb/3NP3/3P2p1/p1Q2N2/PPPBBPPP/1K5R b - - 0 1";
        let pos = Position::from_fen(fen, Variant::Chess).unwrap();
        let other = Position::from_fen(mirrored, Variant::Chess).unwrap();
        for perspective in Color::ALL {
            let sorted = |layout: InputLayout, pos: &Position| {
                let mut v: Vec<usize> = active(layout, pos, perspective).collect();
                v.sort_unstable();
                v
            };
            for layout in [InputLayout::Mirrored, InputLayout::King4] {
                assert_eq!(sorted(layout, &pos), sorted(layout, &other), "{layout} {perspective:?}");
                assert!(sorted(layout, &pos).iter().all(|&f| f < layout.inputs()));
            }
            assert_ne!(sorted(InputLayout::Plain, &pos), sorted(InputLayout::Plain, &other));
        }
    }

    #[test]
    fn chess960_castling_onto_own_squares_cancels() {
        // King d1, rook c1, queen side: king to c1, rook to d1 (they swap squares).
        let pos = Position::from_fen("7k/8/8/8/8/8/8/2RK4 w C - 0 1", Variant::Chess960).unwrap();
        let m = Move::castle(Square::D1, Square::C1);
        assert!(pos.is_legal(m));
        let delta = move_delta(&pos, m);
        assert_eq!(delta.removed.len(), 2);
        assert_eq!(delta.added.len(), 2);
        // King f1, rook g1, king side: king to g1, rook to f1.
        let pos = Position::from_fen("7k/8/8/8/8/8/8/5KR1 w G - 0 1", Variant::Chess960).unwrap();
        let m = Move::castle(Square::F1, Square::G1);
        assert!(pos.is_legal(m));
        assert_eq!(move_delta(&pos, m).removed.len(), 2);
        // King g1, rook h1: the king stays on g1, only the rook moves.
        let pos = Position::from_fen("k7/8/8/8/8/8/8/6KR w H - 0 1", Variant::Chess960).unwrap();
        let m = Move::castle(Square::G1, Square::H1);
        assert!(pos.is_legal(m));
        let delta = move_delta(&pos, m);
        assert_eq!(
            delta.removed.as_slice(),
            &[PieceSquare { color: Color::White, role: Role::Rook, square: Square::H1 }]
        );
        assert_eq!(
            delta.added.as_slice(),
            &[PieceSquare { color: Color::White, role: Role::Rook, square: Square::F1 }]
        );
    }
}
