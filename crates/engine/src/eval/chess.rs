//! The chess and Chess960 evaluation: tapered between middlegame and endgame by the non-pawn
//! material left on the board.
//!
//! Terms: material and piece-square tables, mobility per piece type, pawn structure (doubled,
//! isolated, backward, supported and side-by-side pawns), passed pawns by rank (with a bonus
//! when the stop square is empty, king proximity in the endgame and the rule of the square in
//! pawn endings), king safety (pawn shield, open files by the king, attacks on the squares
//! around it scaled by the attacker's material), bishop pair, rooks on open and half-open
//! files, threats against pieces, and a tempo bonus for the side to move. Drawish endings
//! (opposite-coloured bishops, no pawns and less than a minor piece ahead) are scaled down.
//!
//! # Where the weights come from
//!
//! The weights in use are generated source, `chess_weights.rs`, written by the Texel tuner
//! `ferz-tune` (see `docs/tuning.md`): every middlegame and endgame half of every score below,
//! plus the king-danger percentages and cap, the passed-pawn king distances and the tempo,
//! were fitted to the results of ferz self-play games. The tuner started from Ronald
//! Friederich's published PeSTO material values and piece-square tables (numbers, reproduced as
//! facts) and hand-set values for every other term, chosen small because PeSTO's tables
//! already absorb part of what mobility and passed pawns measure. The king-attack unit weights
//! and the divisors are not tuned: they enter squared or as divisors, where one unit is a large
//! jump.

use ferz_chess::attacks::{bishop_attacks, king_attacks, knight_attacks, queen_attacks, rook_attacks};
use ferz_chess::{Bitboard, Board, Color, Position, Role, Square};

use super::{
    EVAL_LIMIT, S, Score, distance, east, fill_files, fill_forward, forward, passed_pawns, pawn_attack_set,
    relative_index, relative_rank, west,
};

use super::chess_params::Params;
use super::chess_weights::PARAMS;

/// Material for exchange decisions in the search (SEE, MVV-LVA, delta pruning), by role.
pub(super) const PIECE_VALUES: [i32; 6] = [100, 320, 330, 500, 950, 0];

/// Game phase contributed by each role; 24 is the opening's total (PeSTO's convention).
const PHASE_WEIGHTS: [i32; 6] = [0, 1, 1, 2, 4, 0];
/// The phase of a full board: pure middlegame at or above it.
const PHASE_MAX: i32 = 24;

/// Non-pawn material of one side at the start, the reference for scaling king attacks.
const NPM_FULL: i32 = 2 * 320 + 2 * 330 + 2 * 500 + 950;

/// Scores `pos` (chess or Chess960) for the side to move with the weights in use.
#[inline(always)]
pub(super) fn evaluate(pos: &Position) -> i32 {
    evaluate_with(pos, &PARAMS)
}

/// Squares and attacks of both sides that several terms share.
struct Context {
    occupied: u64,
    pawns: [u64; 2],
    pawn_attacks: [u64; 2],
    kings: [Square; 2],
    /// The squares around each king that attacks are counted on.
    king_zones: [u64; 2],
    /// Whole files holding a pawn of each side.
    pawn_files: [u64; 2],
    /// Knights, bishops, rooks and queens per side (pawns and kings are left at 0).
    counts: [[i32; 6]; 2],
    /// Non-pawn material per side, in [`PIECE_VALUES`].
    npm: [i32; 2],
}

/// What one side's pieces attack, gathered while scoring their mobility.
#[derive(Default)]
struct Attacks {
    /// Squares attacked by pawns, knights, bishops, rooks and queens (not the king).
    all: u64,
    /// Squares attacked by knights and bishops.
    minors: u64,
    /// Squares attacked by rooks.
    rooks: u64,
    /// Pieces attacking at least one square of the enemy king zone.
    king_attackers: i32,
    /// Weighted count of attacked enemy king-zone squares.
    king_units: i32,
}

impl Attacks {
    /// Records a piece whose attacks on the enemy king zone are `attacks_on_zone`.
    #[inline(always)]
    fn add_king_attack(&mut self, attacks_on_zone: u64, weight: i32) {
        if attacks_on_zone != 0 {
            self.king_attackers += 1;
            self.king_units += weight * attacks_on_zone.count_ones() as i32;
        }
    }
}

/// Scores `pos` with the weights `p`.
#[inline(always)]
pub(super) fn evaluate_with(pos: &Position, p: &Params) -> i32 {
    let board = pos.board();
    let ctx = context(board);
    let (white_pieces, white_attacks) = pieces(board, Color::White, &ctx, p);
    let (black_pieces, black_attacks) = pieces(board, Color::Black, &ctx, p);
    let white = white_pieces + pawns_and_king(pos, Color::White, &ctx, p, &white_attacks, &black_attacks);
    let black = black_pieces + pawns_and_king(pos, Color::Black, &ctx, p, &black_attacks, &white_attacks);
    let total = white - black;

    let phase = phase(&ctx);
    let scale = scale_factor(board, &ctx, if total.eg() > 0 { Color::White } else { Color::Black });
    let white_view = total.taper(phase, PHASE_MAX, scale) + mop_up(board, &ctx);
    let score = if pos.turn().is_white() { white_view } else { -white_view };
    (score + p.tempo).clamp(-EVAL_LIMIT, EVAL_LIMIT)
}

/// Against a bare king, mating material without pawns gains this per step the bare king stands
/// from the centre (Manhattan, 0 to 6)...
const MOP_UP_EDGE: i32 = 20;
/// ...or, with bishop and knight, per step it stands closer to a corner of the bishop's colour
/// (Manhattan, 14 at the far corners down to 0), the only corners where they mate...
const MOP_UP_BISHOP_CORNER: i32 = 20;
/// ...and this per step the kings stand closer (king distance, 7 down to 1).
const MOP_UP_KINGS_CLOSE: i32 = 10;

/// The mop-up term, from White's view: against a bare king, a side with mating material and no
/// pawns gains for driving that king to where it can be mated and for bringing its own king
/// close, which the piece-square tables alone do not teach (they cannot tell the bishop's
/// corner from the other). The net never answers there (see `NnueStack::evaluate`), and the
/// weights are constants rather than tuned, as self-play data holds no such endings: its games
/// are adjudicated long before.
fn mop_up(board: &Board, ctx: &Context) -> i32 {
    let bare = |color: Color| ctx.npm[color.index()] == 0 && ctx.pawns[color.index()] == 0;
    let strong = match (bare(Color::White), bare(Color::Black)) {
        (false, true) => Color::White,
        (true, false) => Color::Black,
        _ => return 0,
    };
    let s = strong.index();
    let value = |role: Role| PIECE_VALUES[role.index()];
    let count = |role: Role| ctx.counts[s][role.index()];
    // With pawns, promoting them is the way to win; a lone minor piece or knights cannot mate.
    if ctx.pawns[s] != 0 || ctx.npm[s] < value(Role::Rook) || count(Role::Knight) * value(Role::Knight) == ctx.npm[s] {
        return 0;
    }
    let weak_king = ctx.kings[1 - s];
    let (file, rank) = (weak_king.file().index() as i32, weak_king.rank().index() as i32);
    let only_bishop_and_knight = ctx.npm[s] == value(Role::Bishop) + value(Role::Knight) && count(Role::Bishop) == 1;
    let bishop = board.pieces(strong, Role::Bishop).first();
    let drive = match bishop {
        Some(bishop) if only_bishop_and_knight => {
            // h1 and a8 are light, a1 and h8 dark.
            let corners = if bishop.is_light() { [(7, 0), (0, 7)] } else { [(0, 0), (7, 7)] };
            let nearest = corners.iter().map(|&(f, r)| (file - f).abs() + (rank - r).abs()).min().unwrap_or(14);
            MOP_UP_BISHOP_CORNER * (14 - nearest)
        }
        _ => MOP_UP_EDGE * ((3 - file).max(file - 4) + (3 - rank).max(rank - 4)),
    };
    let bonus = drive + MOP_UP_KINGS_CLOSE * (7 - distance(ctx.kings[s], weak_king));
    if strong.is_white() { bonus } else { -bonus }
}

/// Gathers what the terms below share.
fn context(board: &Board) -> Context {
    let pawns = [board.pieces(Color::White, Role::Pawn).0, board.pieces(Color::Black, Role::Pawn).0];
    // Every legal position has both kings; a1 is a harmless stand-in that keeps this total.
    let kings = [board.king_of(Color::White).unwrap_or(Square::A1), board.king_of(Color::Black).unwrap_or(Square::A1)];
    let zone = |color: Color| {
        let k = kings[color.index()];
        let around = king_attacks(k).0 | Bitboard::from_square(k).0;
        // One more rank towards the enemy: attackers gather in front of a castled king.
        around | forward(color, around)
    };
    // Pawns and kings are never needed by count.
    let counts = |color: Color| {
        let n = |role: Role| board.pieces(color, role).count() as i32;
        [0, n(Role::Knight), n(Role::Bishop), n(Role::Rook), n(Role::Queen), 0]
    };
    let counts = [counts(Color::White), counts(Color::Black)];
    let npm = |color: Color| {
        let c = &counts[color.index()];
        (1..5).map(|role| c[role] * PIECE_VALUES[role]).sum()
    };
    Context {
        occupied: board.occupied().0,
        pawns,
        pawn_attacks: [pawn_attack_set(Color::White, pawns[0]), pawn_attack_set(Color::Black, pawns[1])],
        kings,
        king_zones: [zone(Color::White), zone(Color::Black)],
        pawn_files: [fill_files(pawns[0]), fill_files(pawns[1])],
        counts,
        npm: [npm(Color::White), npm(Color::Black)],
    }
}

/// The game phase from the non-pawn material on the board: 24 at the start, 0 with pawns only.
fn phase(ctx: &Context) -> i32 {
    let [white, black] = &ctx.counts;
    (1..5).map(|role| (white[role] + black[role]) * PHASE_WEIGHTS[role]).sum::<i32>().min(PHASE_MAX)
}

/// Material, piece-square values, mobility and rook files of `color`'s pieces, from its side;
/// also returns what they attack.
#[inline(always)]
fn pieces(board: &Board, color: Color, ctx: &Context, p: &Params) -> (Score, Attacks) {
    let us = color.index();
    let them = 1 - us;
    let occupied = ctx.occupied;
    // Mobility counts squares not held by own pawns or king and not covered by enemy pawns.
    let area = !(ctx.pawns[us] | Bitboard::from_square(ctx.kings[us]).0 | ctx.pawn_attacks[them]);
    let zone = ctx.king_zones[them];
    let pawn_files = ctx.pawn_files[0] | ctx.pawn_files[1];
    let psqt = |role: Role, sq: Square| p.psqt[role.index()][relative_index(color, sq)];

    let mut score = psqt(Role::King, ctx.kings[us]);
    let mut att = Attacks { all: ctx.pawn_attacks[us], ..Attacks::default() };

    for sq in board.pieces(color, Role::Pawn) {
        score += psqt(Role::Pawn, sq);
    }
    for sq in board.pieces(color, Role::Knight) {
        let a = knight_attacks(sq).0;
        score += psqt(Role::Knight, sq) + p.mobility_knight[(a & area).count_ones() as usize];
        att.minors |= a;
        att.add_king_attack(a & zone, p.king_attack_weight[Role::Knight.index()]);
    }
    for sq in board.pieces(color, Role::Bishop) {
        let a = bishop_attacks(sq, Bitboard(occupied)).0;
        score += psqt(Role::Bishop, sq) + p.mobility_bishop[(a & area).count_ones() as usize];
        att.minors |= a;
        att.add_king_attack(a & zone, p.king_attack_weight[Role::Bishop.index()]);
    }
    for sq in board.pieces(color, Role::Rook) {
        let a = rook_attacks(sq, Bitboard(occupied)).0;
        score += psqt(Role::Rook, sq) + p.mobility_rook[(a & area).count_ones() as usize];
        let on_file = Bitboard::from_square(sq).0;
        if on_file & pawn_files == 0 {
            score += p.rook_open;
        } else if on_file & ctx.pawn_files[us] == 0 {
            score += p.rook_half_open;
        }
        att.rooks |= a;
        att.add_king_attack(a & zone, p.king_attack_weight[Role::Rook.index()]);
    }
    att.all |= att.minors | att.rooks;
    for sq in board.pieces(color, Role::Queen) {
        let a = queen_attacks(sq, Bitboard(occupied)).0;
        score += psqt(Role::Queen, sq) + p.mobility_queen[(a & area).count_ones() as usize];
        att.all |= a;
        att.add_king_attack(a & zone, p.king_attack_weight[Role::Queen.index()]);
    }
    (score, att)
}

/// Pawn structure, passed pawns, king safety, threats and the bishop pair for `color`, from its
/// side. `ours` and `theirs` are the attacks gathered by [`pieces`].
#[inline(always)]
fn pawns_and_king(pos: &Position, color: Color, ctx: &Context, p: &Params, ours: &Attacks, theirs: &Attacks) -> Score {
    let board = pos.board();
    let us = color.index();
    let them = 1 - us;
    let mut score =
        pawn_structure(color, ctx, p) + passed(pos, color, ctx, p) + king_safety(color, ctx, p, ours, theirs);

    // Threats against enemy pieces.
    let their_pieces = board.by_color(!color).0 & !ctx.pawns[them] & !Bitboard::from_square(ctx.kings[them]).0;
    let their_heavies = (board.by_role(Role::Rook).0 | board.by_role(Role::Queen).0) & their_pieces;
    let their_queens = board.by_role(Role::Queen).0 & their_pieces;
    score += p.threat_by_pawn * (ctx.pawn_attacks[us] & their_pieces).count_ones() as i32;
    score += p.threat_by_minor * (ours.minors & their_heavies).count_ones() as i32;
    score += p.threat_by_rook * (ours.rooks & their_queens).count_ones() as i32;
    let our_reach = ours.all | king_attacks(ctx.kings[us]).0;
    let their_guard = theirs.all | king_attacks(ctx.kings[them]).0;
    score += p.hanging * (their_pieces & our_reach & !their_guard).count_ones() as i32;

    let bishops = board.pieces(color, Role::Bishop);
    if (bishops & Bitboard::LIGHT).is_nonempty() && (bishops & Bitboard::DARK).is_nonempty() {
        score += p.bishop_pair;
    }
    score
}

/// Doubled, isolated, backward, supported and side-by-side pawns of `color`.
#[inline(always)]
fn pawn_structure(color: Color, ctx: &Context, p: &Params) -> Score {
    let us = color.index();
    let pawns = ctx.pawns[us];
    let count = |b: u64| b.count_ones() as i32;

    // Pawns standing in front of another own pawn: one per extra pawn on a file.
    let doubled = pawns & fill_forward(color, forward(color, pawns));
    let files = ctx.pawn_files[us];
    let isolated = pawns & !(east(files) | west(files));
    // Squares own pawns attack now or could attack after advancing.
    let attack_span = fill_forward(color, ctx.pawn_attacks[us]);
    // A pawn is backward when its stop square is covered by an enemy pawn and no own pawn can
    // ever defend it there; isolated pawns are already penalised.
    let stops = forward(color, pawns);
    let backward_stops = stops & ctx.pawn_attacks[1 - us] & !attack_span;
    let backward = forward(!color, backward_stops) & pawns & !isolated;
    let supported = pawns & ctx.pawn_attacks[us];
    let phalanx = pawns & (east(pawns) | west(pawns));

    p.doubled * count(doubled)
        + p.isolated * count(isolated)
        + p.backward * count(backward)
        + p.supported * count(supported)
        + p.phalanx * count(phalanx)
}

/// Passed pawns of `color`: by rank, free stop square, king distances, and the rule of the
/// square when the enemy has only pawns.
#[inline(always)]
fn passed(pos: &Position, color: Color, ctx: &Context, p: &Params) -> Score {
    let us = color.index();
    let them = 1 - us;
    let mut score = Score::ZERO;
    for sq in Bitboard(passed_pawns(color, ctx.pawns[us], ctx.pawns[them])) {
        let rank = relative_rank(color, sq);
        score += p.passed[rank];
        // A pawn never stands on its last rank, so the stop square exists.
        let stop_bit = forward(color, Bitboard::from_square(sq).0);
        let Some(stop) = Bitboard(stop_bit).first() else { continue };
        if ctx.occupied & stop_bit == 0 {
            score += p.passed_free[rank];
        }
        if rank >= 3 {
            // The enemy king must reach the path and the own king should escort the pawn; both
            // matter more the further the pawn is.
            let weight = rank as i32 - 2;
            let kings = distance(ctx.kings[them], stop) * p.passed_king_their
                - distance(ctx.kings[us], stop) * p.passed_king_own;
            score += S(0, kings * weight);
        }
        if ctx.npm[them] == 0 && unstoppable(pos, color, sq, rank, ctx) {
            score += p.unstoppable;
        }
    }
    score
}

/// The rule of the square: with only pawns against it, the enemy king cannot catch the passed
/// pawn on `sq` before it promotes (own pieces in its way make us not count on it).
fn unstoppable(pos: &Position, color: Color, sq: Square, rank: usize, ctx: &Context) -> bool {
    let path = fill_forward(color, forward(color, Bitboard::from_square(sq).0));
    if path & pos.board().by_color(color).0 != 0 {
        return false;
    }
    let Some(promotion) = Bitboard(path & Bitboard::BACKRANKS.0).first() else { return false };
    // From its second rank a pawn may step twice at once.
    let pawn_moves = (7 - rank as i32).min(5);
    let tempo = i32::from(pos.turn() != color);
    distance(ctx.kings[1 - color.index()], promotion) - tempo > pawn_moves
}

/// King safety of `color`'s king: pawn shield, open files by the king, and enemy attacks on its
/// zone, scaled by how many pieces take part and how much material the attacker has.
#[inline(always)]
fn king_safety(color: Color, ctx: &Context, p: &Params, ours: &Attacks, theirs: &Attacks) -> Score {
    let us = color.index();
    let them = 1 - us;
    let king = ctx.kings[us];
    let pawns = ctx.pawns[us];
    let mut score = Score::ZERO;

    if relative_rank(color, king) <= 1 {
        let k = Bitboard::from_square(king).0;
        let near = forward(color, k | east(k) | west(k));
        let far = forward(color, near);
        score += p.shield_near * (pawns & near).count_ones() as i32 + p.shield_far * (pawns & far).count_ones() as i32;
    }

    let king_files = ((0b111u32 << king.file().index()) >> 1) & 0xff;
    // The first rank of a filled file set is its file mask.
    let no_own = king_files & !(ctx.pawn_files[us] as u32 & 0xff);
    let no_pawn = no_own & !(ctx.pawn_files[them] as u32 & 0xff);
    score += p.king_semi_open * no_own.count_ones() as i32 + p.king_open * no_pawn.count_ones() as i32;

    if theirs.king_attackers > 0 {
        let zone = ctx.king_zones[us];
        let weak = zone & theirs.all & !ours.all;
        let units = theirs.king_units + p.king_weak_square * weak.count_ones() as i32;
        let attackers = (theirs.king_attackers as usize).min(7);
        let danger = units * units * p.king_attackers_percent[attackers] / 100 / p.king_danger_divisor;
        // An attack without material behind it (say a lone bishop left) is worth less.
        let danger = danger.min(p.king_danger_max) * ctx.npm[them].min(NPM_FULL) / NPM_FULL;
        score -= S(danger, danger / p.king_danger_eg_divisor);
    }
    score
}

/// How much of the endgame score `strong` (the side it favours) keeps, out of 64.
fn scale_factor(board: &Board, ctx: &Context, strong: Color) -> i32 {
    let s = strong.index();
    let w = 1 - s;
    let bishop = PIECE_VALUES[Role::Bishop.index()];
    let rook = PIECE_VALUES[Role::Rook.index()];
    if ctx.pawns[s] == 0 && ctx.npm[s] - ctx.npm[w] <= bishop {
        // Without pawns, less than a minor piece ahead rarely wins: a lone minor never does,
        // rook against minor or rook and minor against rook seldom.
        return if ctx.npm[s] < rook {
            0
        } else if ctx.npm[w] <= bishop {
            4
        } else {
            14
        };
    }
    if ctx.pawns[s] == 0
        && ctx.npm[w] == 0
        && ctx.counts[s][Role::Knight.index()] == 2
        && ctx.npm[s] == 2 * PIECE_VALUES[Role::Knight.index()]
    {
        // Two knights cannot force mate against a bare king.
        return 2;
    }
    let bishop_count = |color: usize| ctx.counts[color][Role::Bishop.index()];
    if bishop_count(0) == 1 && bishop_count(1) == 1 {
        let light = |color: Color| (board.pieces(color, Role::Bishop) & Bitboard::LIGHT).is_nonempty();
        if light(Color::White) != light(Color::Black) {
            // Opposite-coloured bishops: alone they hold many pawns down; other pieces help
            // the stronger side.
            return if ctx.npm[0] == bishop && ctx.npm[1] == bishop { 24 } else { 48 };
        }
    }
    64
}

#[cfg(test)]
mod tests {
    use ferz_chess::Variant;

    use super::super::test_util::{flip_turn, mirror_fen, pos};
    use super::*;

    fn eval(fen: &str) -> i32 {
        evaluate(&pos(fen, Variant::Chess))
    }

    #[test]
    fn the_mop_up_drives_a_bare_king_to_the_corner_bishop_and_knight_mate_in() {
        // A dark-squared bishop (c1) mates in a1 or h8, not in a8 or the centre.
        let at = |king: &str| eval(&format!("{king}/8/8/8/8/8/8/2B1NK2 w - - 0 1"));
        let (right, wrong) = (at("7k"), at("k7"));
        let centre = eval("8/8/8/4k3/8/8/8/2B1NK2 w - - 0 1");
        assert!(right > wrong && wrong >= centre, "h8 {right}, a8 {wrong}, centre {centre}");
        // A rook drives the king to any edge; the side to move does not change the sign.
        let edge = eval("4k3/8/8/8/8/8/8/R3K3 b - - 0 1");
        let middle = eval("8/8/8/4k3/8/8/8/R3K3 b - - 0 1");
        assert!(edge < middle, "the bare king's side: edge {edge}, centre {middle}");
    }

    #[test]
    fn no_mop_up_where_the_material_cannot_mate_or_pawns_decide() {
        // Two knights cannot force mate: the bare king's square does not matter.
        assert_eq!(mop_up_of("k7/8/8/8/8/8/8/1N2NK2 w - - 0 1"), 0);
        // With a pawn, promoting it is the plan.
        assert_eq!(mop_up_of("k7/8/8/8/8/8/4P3/1R2K3 w - - 0 1"), 0);
        // A rook: a8 is 3 + 3 steps from the centre, the kings 7 apart; from Black's view too.
        assert_eq!(mop_up_of("k7/8/8/8/8/8/8/1R2K3 w - - 0 1"), MOP_UP_EDGE * 6);
        assert_eq!(mop_up_of("K7/8/8/8/8/8/8/1r2k3 w - - 0 1"), -MOP_UP_EDGE * 6);
    }

    fn mop_up_of(fen: &str) -> i32 {
        let position = pos(fen, Variant::Chess);
        mop_up(position.board(), &context(position.board()))
    }

    /// Quiet positions of every kind: openings, middlegames, endgames, castled kings, passers.
    const POSITIONS: [&str; 14] = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        "2r3k1/pp3ppp/2n5/3p4/3P4/2N2N2/PP3PPP/2R3K1 b - - 0 20",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "8/8/4k3/8/2P5/8/5K2/8 w - - 0 1",
        "8/5pk1/6p1/8/8/1b2B3/5PPP/6K1 w - - 0 1",
        "6k1/5ppp/8/8/8/8/1r3PPP/R5K1 w - - 0 1",
        "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8",
        "4k3/8/8/8/8/8/8/RN2K3 w Q - 0 1",
        "1k6/1pp5/8/8/8/8/PPP5/1K1Q4 b - - 0 1",
        "3qk3/pppppppp/8/8/8/8/PPPPPPPP/3QK3 w - - 0 1",
        "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",
    ];

    #[test]
    fn mirrored_positions_score_the_same() {
        for fen in POSITIONS {
            let mirrored = mirror_fen(fen);
            assert_eq!(eval(fen), eval(&mirrored), "{fen} vs {mirrored}");
            let p960 = pos(fen, Variant::Chess960);
            assert_eq!(super::super::evaluate(&p960), eval(fen), "Chess960 shares the evaluation");
        }
    }

    #[test]
    fn start_position_is_balanced() {
        let score = eval("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert!(score.abs() < 50, "{score}");
        assert_eq!(score, PARAMS.tempo, "the start is symmetric, so only the tempo remains");
    }

    #[test]
    fn material_ordering() {
        // White is a queen up, then a rook up, then a knight up, in otherwise quiet positions.
        let queen_up = eval("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        let rook_up = eval("rnbqkbn1/ppppppp1/8/8/8/8/PPPPPPP1/RNBQKBNR w KQq - 0 1");
        let knight_up = eval("r1bqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert!(queen_up > 700, "{queen_up}");
        assert!(rook_up > 400, "{rook_up}");
        assert!(knight_up > 200, "{knight_up}");
        assert!(queen_up > rook_up && rook_up > knight_up);
        // From the other side the same positions are lost.
        assert!(eval(&flip_turn("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")) < -700);
    }

    #[test]
    fn side_to_move_only_changes_the_sign_and_tempo() {
        for fen in POSITIONS {
            let other = flip_turn(fen);
            // Skip positions where the side to move would be giving check.
            let Ok(flipped) = Position::from_fen(&other, Variant::Chess) else { continue };
            assert_eq!(eval(fen) + evaluate(&flipped), 2 * PARAMS.tempo, "{fen}");
        }
    }

    #[test]
    fn advanced_passed_pawn_is_worth_more() {
        // Knights on both sides keep the rule of the square out of it.
        let seventh = eval("4k1n1/1P6/8/8/8/8/8/4K1N1 w - - 0 1");
        let third = eval("4k1n1/8/8/8/8/1P6/8/4K1N1 w - - 0 1");
        assert!(seventh > third + 100, "{seventh} vs {third}");
        // A blocked passer is worth less than a free one.
        let free = eval("6k1/8/8/3P4/8/8/8/6K1 w - - 0 1");
        let blocked = eval("6k1/8/3n4/3P4/8/8/8/3N2K1 w - - 0 1");
        let blocked_base = eval("6k1/8/4n3/3P4/8/8/8/3N2K1 w - - 0 1");
        assert!(free > 0);
        assert!(blocked < blocked_base, "{blocked} vs {blocked_base}");
    }

    #[test]
    fn rule_of_the_square() {
        // The black king catches the a-pawn in one case and not in the other.
        let caught = eval("8/8/8/2k5/P7/8/8/7K w - - 0 1");
        let runs = eval("8/8/8/8/P7/8/6k1/K7 w - - 0 1");
        assert!(runs > caught + 300, "{runs} vs {caught}");
    }

    #[test]
    fn bishop_pair_bonus_appears() {
        let fen = "r2qk2r/ppp2ppp/2n2n2/3pp3/3PP3/2N2N2/PPPBBPPP/R2QK2R w KQkq - 0 1";
        let p = pos(fen, Variant::Chess);
        let mut without = PARAMS.clone();
        without.bishop_pair = Score::ZERO;
        let with = evaluate_with(&p, &PARAMS);
        let no_pair = evaluate_with(&p, &without);
        assert!(with > no_pair, "{with} vs {no_pair}");
        // Only white has the pair; with one bishop each nothing changes.
        let one_each = pos("r2qkb1r/ppp2ppp/2n2n2/3pp3/3PP3/2N2N2/PPP1BPPP/R2QK2R w KQkq - 0 1", Variant::Chess);
        assert_eq!(evaluate_with(&one_each, &PARAMS), evaluate_with(&one_each, &without));
    }

    #[test]
    fn drawish_endings_are_scaled_down() {
        // Opposite-coloured bishops and a pawn more: much less than the same with same colours.
        let opposite = eval("6k1/5ppp/8/8/8/2b5/4BPPP/6K1 w - - 0 1");
        let opposite_up = eval("6k1/6pp/8/8/8/2b5/4BPPP/6K1 w - - 0 1");
        let same_up = eval("6k1/6pp/8/8/8/1b6/4BPPP/6K1 w - - 0 1");
        assert!(opposite_up - opposite < same_up - opposite, "{opposite_up} {same_up} {opposite}");
        // Rook against bishop without pawns is close to a draw; a lone knight cannot win.
        assert!(eval("4k3/8/8/2b5/8/8/8/R3K3 w - - 0 1").abs() < 60);
        assert!(eval("4k3/8/8/8/8/8/8/1N2K3 w - - 0 1").abs() < 50);
        // King, bishop and knight against king stays winning, as does king and rook.
        assert!(eval("4k3/8/8/8/8/8/8/1NB1K3 w - - 0 1") > 400);
        assert!(eval("4k3/8/8/8/8/8/8/R3K3 w - - 0 1") > 400);
    }

    #[test]
    fn king_shelter_matters() {
        // The same material with an intact shelter and with the shelter pawns pushed far away.
        let sheltered = eval("r1bq1rk1/pppp1ppp/2n2n2/4p3/4P3/2N2N2/PPPP1PPP/R1BQ1RK1 w - - 0 1");
        let exposed = eval("r1bq1rk1/pppp1ppp/2n2n2/4p1PP/4P1P1/2N2N2/PPPP4/R1BQ1RK1 w - - 0 1");
        assert!(sheltered > exposed, "{sheltered} vs {exposed}");
    }

    #[test]
    fn scores_stay_bounded_on_a_test_suite() {
        let text = include_str!("../../../chess/tests/data/random.perft");
        for line in text.lines().filter_map(|l| l.strip_prefix("epd ")).take(2000) {
            let p = pos(line, Variant::Chess);
            let score = evaluate(&p);
            assert!(score.abs() < 10_000, "{line}: {score}");
            let mirrored = pos(&mirror_fen(line), Variant::Chess);
            assert_eq!(score, evaluate(&mirrored), "{line}");
        }
    }
}
