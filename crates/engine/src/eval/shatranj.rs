//! The Shatranj evaluation.
//!
//! Shatranj is slow and its pieces are weak: the rook is by far the strongest piece, the knight
//! comes next, and the ferz (one diagonal step) and the alfil (a two-square diagonal leap that
//! reaches only eight squares all game) are worth little more than one and a half pawns. A pawn
//! promotes only to a ferz, so passed pawns are worth much less than in chess. Games are won by
//! mate, by stalemating the opponent, or by baring the enemy king (capturing its last piece) when
//! it cannot bare ours straight back.
//!
//! Terms: material and piece-square tables (knights and ferz towards the centre, pawns forward,
//! the king central in the ending), rook and knight mobility, rooks on open files, pawn
//! structure, passed pawns, attacks on the king zone, the bare-king rule (a bare king against
//! two or more pieces is lost, against one piece lost unless it can take it at once, king
//! against king drawn), a heavy penalty for a last piece about to be taken, and in endings with a
//! material edge, pushing the enemy king to the edge and taking its squares away (towards a
//! bare-king capture, mate, or stalemate, which wins in Shatranj).
//!
//! # Where the weights come from
//!
//! The weights in use are generated source, `shatranj_weights.rs`, written by the Texel tuner
//! `ferz-tune` from Shatranj self-play games (see `docs/tuning.md` and the file's header, which
//! says whether the tuned set won its verification match). The starting point: piece values
//! following the ratios of Fairy-Stockfish's classical (pre-NNUE) values for these pieces (pawn
//! 126/208, knight 781/854, ferz 420/450, alfil 350/330, rook 1276/1380 in its units) brought to
//! a 100-centipawn pawn, and piece-square tables and every other weight set by hand. The
//! king-attack unit weights, the divisor, the bare-king score and the mop-up thresholds are not
//! tuned: they enter squared, divide, or switch terms on and off.

use ferz_chess::attacks::{alfil_attacks, ferz_attacks, king_attacks, knight_attacks, rook_attacks};
use ferz_chess::{Bitboard, Board, Color, Position, Role, Square};

use super::{
    EVAL_LIMIT, S, Score, distance, east, fill_files, fill_forward, forward, passed_pawns, pawn_attack_set,
    relative_index, relative_rank, west,
};

use super::shatranj_params::Params;
use super::shatranj_weights::PARAMS;

/// Material for exchange decisions in the search, by role: pawn, knight, alfil, rook, ferz, king.
pub(super) const PIECE_VALUES: [i32; 6] = [100, 320, 130, 520, 170, 0];

/// Game phase contributed by each role; the alfil and ferz hardly change the character of a
/// position, the rooks do.
const PHASE_WEIGHTS: [i32; 6] = [0, 2, 1, 4, 1, 0];
/// The phase of a full board.
const PHASE_MAX: i32 = 30;

/// Scores a Shatranj position for the side to move with the weights in use.
#[inline(always)]
pub(super) fn evaluate(pos: &Position) -> i32 {
    evaluate_with(pos, &PARAMS)
}

/// Scores a Shatranj position with the weights `p`.
#[inline(always)]
pub(super) fn evaluate_with(pos: &Position, p: &Params) -> i32 {
    let board = pos.board();
    let turn = pos.turn();
    let pieces = [non_king(board, Color::White), non_king(board, Color::Black)];
    if pieces[0] == 0 || pieces[1] == 0 {
        return bare_king(pos, pieces, p);
    }

    let pawns = [board.pieces(Color::White, Role::Pawn).0, board.pieces(Color::Black, Role::Pawn).0];
    let pawn_attacks = [pawn_attack_set(Color::White, pawns[0]), pawn_attack_set(Color::Black, pawns[1])];
    let kings = [board.king_of(Color::White).unwrap_or(Square::A1), board.king_of(Color::Black).unwrap_or(Square::A1)];
    let counts = [counts(board, Color::White), counts(board, Color::Black)];
    let material = counts.map(|c| (0..6).map(|role| c[role] * PIECE_VALUES[role]).sum::<i32>());
    let pawn_files = [fill_files(pawns[0]), fill_files(pawns[1])];
    let ctx = Context { pawns, pawn_attacks, pawn_files, kings, counts, material };

    let (white, white_attacks) = side(board, Color::White, &ctx, p);
    let (black, black_attacks) = side(board, Color::Black, &ctx, p);
    let mut total = white - black;
    let attacks = [white_attacks, black_attacks];

    // King attacks: only with two or more pieces taking part, since a lone knight or rook
    // seldom mates.
    for color in Color::ALL {
        let a = &attacks[color.index()];
        if a.king_attackers >= 2 {
            let danger = (a.king_units * a.king_units / p.king_danger_divisor).min(p.king_danger_max);
            let bonus = S(danger, danger / 4);
            total += if color.is_white() { bonus } else { -bonus };
        }
    }

    let phase = phase(&ctx);
    let lead = material[0] - material[1];
    if phase <= p.mop_up_max_phase && lead.abs() >= p.mop_up_min_lead {
        let strong = if lead > 0 { Color::White } else { Color::Black };
        let bonus = mop_up(board, strong, &ctx, &attacks[strong.index()], p);
        total += if strong.is_white() { bonus } else { -bonus };
    }

    let scale = scale_factor(&ctx, if total.eg() > 0 { Color::White } else { Color::Black });
    let mut white_view = total.taper(phase, PHASE_MAX, scale);

    // Losing the last piece loses the game in any phase and however drawish the material
    // looks, so this applies after tapering and scaling.
    for color in Color::ALL {
        if pieces[color.index()] == 1 {
            let penalty = last_piece(pos, color, p);
            white_view += if color.is_white() { -penalty } else { penalty };
        }
    }
    let score = if turn.is_white() { white_view } else { -white_view };
    (score + p.tempo).clamp(-EVAL_LIMIT, EVAL_LIMIT)
}

/// What several terms share.
struct Context {
    pawns: [u64; 2],
    pawn_attacks: [u64; 2],
    /// Whole files holding a pawn of each side.
    pawn_files: [u64; 2],
    kings: [Square; 2],
    /// Pieces per side and role.
    counts: [[i32; 6]; 2],
    /// Material per side in [`PIECE_VALUES`], pawns included.
    material: [i32; 2],
}

/// Attacks of one side gathered while scoring it.
#[derive(Default)]
struct Attacks {
    /// Every square attacked by the side's pieces, pawns and king.
    all: u64,
    /// Pieces attacking the enemy king's surroundings.
    king_attackers: i32,
    /// Weighted count of attacked squares around the enemy king.
    king_units: i32,
}

/// The number of `color`'s pieces other than the king (pawns included: the bare-king rule
/// counts them).
fn non_king(board: &Board, color: Color) -> u32 {
    board.by_color(color).count().saturating_sub(1)
}

/// `color`'s pieces by role.
fn counts(board: &Board, color: Color) -> [i32; 6] {
    Role::ALL.map(|role| board.pieces(color, role).count() as i32)
}

/// `color`'s material in [`PIECE_VALUES`], pawns included.
fn material(board: &Board, color: Color) -> i32 {
    counts(board, color).iter().zip(PIECE_VALUES).map(|(n, value)| n * value).sum()
}

/// The game phase from the pieces on the board: 30 at the start, 0 with pawns only.
fn phase(ctx: &Context) -> i32 {
    let [white, black] = &ctx.counts;
    (1..5).map(|role| (white[role] + black[role]) * PHASE_WEIGHTS[role]).sum::<i32>().min(PHASE_MAX)
}

/// A side has nothing but its king. King against king is a draw; a bare king facing one piece
/// draws if it may take that piece at once (the other side is bared in turn), and otherwise the
/// side with pieces has won.
fn bare_king(pos: &Position, pieces: [u32; 2], p: &Params) -> i32 {
    let board = pos.board();
    if pieces[0] == 0 && pieces[1] == 0 {
        return 0;
    }
    let strong = if pieces[0] > 0 { Color::White } else { Color::Black };
    let bare = !strong;
    let (Some(bare_king), Some(strong_king)) = (board.king_of(bare), board.king_of(strong)) else { return 0 };
    if pieces[strong.index()] == 1 && pos.turn() == bare {
        let last = board.by_color(strong) & !Bitboard::from_square(strong_king);
        if let Some(sq) = last.first() {
            // Only the strong king can defend its last piece.
            if king_attacks(bare_king).contains(sq) && !king_attacks(strong_king).contains(sq) {
                return 0;
            }
        }
    }
    let value = (p.bare_king_win + material(board, strong)).min(EVAL_LIMIT);
    if pos.turn() == strong { value } else { -value }
}

/// The penalty for `color` when its only piece besides the king is attacked and its king does
/// not defend it: taking it bares our king for good.
fn last_piece(pos: &Position, color: Color, p: &Params) -> i32 {
    let board = pos.board();
    let Some(king) = board.king_of(color) else { return 0 };
    let Some(sq) = (board.by_color(color) & !Bitboard::from_square(king)).first() else { return 0 };
    let attackers = pos.attackers_to(sq, board.by_color(!color), board.occupied());
    if attackers.is_empty() || king_attacks(king).contains(sq) {
        return 0;
    }
    if pos.turn() == color { p.last_piece_attacked } else { p.last_piece_hanging }
}

/// Material and tables, mobility, rook files, pawn structure and passed pawns of `color`, from
/// its side; also returns its attacks.
#[inline(always)]
fn side(board: &Board, color: Color, ctx: &Context, p: &Params) -> (Score, Attacks) {
    let us = color.index();
    let them = 1 - us;
    let occupied = board.occupied();
    let area = !(ctx.pawns[us] | Bitboard::from_square(ctx.kings[us]).0 | ctx.pawn_attacks[them]);
    let their_king = ctx.kings[them];
    let zone = king_attacks(their_king).0 | Bitboard::from_square(their_king).0;
    let pawn_files = ctx.pawn_files[0] | ctx.pawn_files[1];
    let psqt = |role: Role, sq: Square| p.psqt[role.index()][relative_index(color, sq)];

    let mut score = psqt(Role::King, ctx.kings[us]);
    let mut att = Attacks { all: ctx.pawn_attacks[us] | king_attacks(ctx.kings[us]).0, ..Attacks::default() };
    let king_attack = |att: &mut Attacks, a: u64, role: Role| {
        att.all |= a;
        if a & zone != 0 {
            att.king_attackers += 1;
            att.king_units += p.king_attack_weight[role.index()] * (a & zone).count_ones() as i32;
        }
    };

    for sq in board.pieces(color, Role::Pawn) {
        score += psqt(Role::Pawn, sq);
    }
    for sq in board.pieces(color, Role::Knight) {
        let a = knight_attacks(sq).0;
        score += psqt(Role::Knight, sq) + p.mobility_knight[(a & area).count_ones() as usize];
        king_attack(&mut att, a, Role::Knight);
    }
    for sq in board.pieces(color, Role::Bishop) {
        score += psqt(Role::Bishop, sq);
        king_attack(&mut att, alfil_attacks(sq).0, Role::Bishop);
    }
    for sq in board.pieces(color, Role::Queen) {
        score += psqt(Role::Queen, sq);
        king_attack(&mut att, ferz_attacks(sq).0, Role::Queen);
    }
    for sq in board.pieces(color, Role::Rook) {
        let a = rook_attacks(sq, occupied).0;
        score += psqt(Role::Rook, sq) + p.mobility_rook[(a & area).count_ones() as usize];
        let on_file = Bitboard::from_square(sq).0;
        if on_file & pawn_files == 0 {
            score += p.rook_open;
        } else if on_file & ctx.pawn_files[us] == 0 {
            score += p.rook_half_open;
        }
        king_attack(&mut att, a, Role::Rook);
    }

    score += pawns(board, color, ctx, p);
    (score, att)
}

/// Pawn structure and passed pawns of `color`.
#[inline(always)]
fn pawns(board: &Board, color: Color, ctx: &Context, p: &Params) -> Score {
    let us = color.index();
    let them = 1 - us;
    let pawns = ctx.pawns[us];
    let count = |b: u64| b.count_ones() as i32;
    let doubled = pawns & fill_forward(color, forward(color, pawns));
    let files = ctx.pawn_files[us];
    let isolated = pawns & !(east(files) | west(files));
    let supported = pawns & ctx.pawn_attacks[us];
    let phalanx = pawns & (east(pawns) | west(pawns));
    let mut score = p.doubled * count(doubled)
        + p.isolated * count(isolated)
        + p.supported * count(supported)
        + p.phalanx * count(phalanx);

    let occupied = board.occupied().0;
    for sq in Bitboard(passed_pawns(color, pawns, ctx.pawns[them])) {
        let rank = relative_rank(color, sq);
        score += p.passed[rank];
        let stop_bit = forward(color, Bitboard::from_square(sq).0);
        let Some(stop) = Bitboard(stop_bit).first() else { continue };
        if occupied & stop_bit == 0 {
            score += p.passed_free[rank];
        }
        if rank >= 3 {
            let weight = rank as i32 - 2;
            let kings = distance(ctx.kings[them], stop) * p.passed_king_their
                - distance(ctx.kings[us], stop) * p.passed_king_own;
            score += S(0, kings * weight);
        }
    }
    score
}

/// With a material lead in the ending: drive the weaker king to the edge, bring the own king
/// close, and take squares away from the weaker king (towards mate, stalemate, which wins in
/// Shatranj, or catching its last pieces).
fn mop_up(board: &Board, strong: Color, ctx: &Context, strong_attacks: &Attacks, p: &Params) -> Score {
    let weak = !strong;
    let weak_king = ctx.kings[weak.index()];
    let strong_king = ctx.kings[strong.index()];
    let file = weak_king.file().index() as i32;
    let rank = weak_king.rank().index() as i32;
    let from_centre = (3 - file).max(file - 4) + (3 - rank).max(rank - 4);
    let flight = king_attacks(weak_king).0 & !board.by_color(weak).0 & !strong_attacks.all;
    let restricted = 8 - flight.count_ones() as i32;
    let bonus = p.mop_up_edge * from_centre
        + p.mop_up_kings_close * (7 - distance(strong_king, weak_king))
        + p.mop_up_king_restricted * restricted;
    S(0, bonus)
}

/// How much of the endgame score `strong` keeps, out of 64: without pawns, less than a knight
/// ahead seldom wins (the weaker side keeps its pieces away from the king).
fn scale_factor(ctx: &Context, strong: Color) -> i32 {
    let (s, w) = (strong.index(), 1 - strong.index());
    // With no strong pawns, the lead is all in pieces.
    let weak_npm = ctx.material[w] - ctx.counts[w][Role::Pawn.index()] * PIECE_VALUES[Role::Pawn.index()];
    if ctx.pawns[s] == 0 && ctx.material[s] - weak_npm < PIECE_VALUES[Role::Knight.index()] { 16 } else { 64 }
}

#[cfg(test)]
mod tests {
    use ferz_chess::Variant;

    use super::super::test_util::{flip_turn, mirror_fen, pos};
    use super::*;

    fn eval(fen: &str) -> i32 {
        evaluate(&pos(fen, Variant::Shatranj))
    }

    const POSITIONS: [&str; 13] = [
        "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w - - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
        "r1bkqbnr/pppp1ppp/2n5/4p3/3P4/2N5/PPP1PPPP/R1BKQBNR w - - 0 3",
        "r2k3r/1pp2p2/p1n1bq1p/3pp3/3PP3/P1N1BQ1P/1PP2P2/R2K3R w - - 0 12",
        "3k4/8/8/8/8/8/8/R2K4 b - - 0 40",
        "8/3k4/8/2p5/8/1P6/3K4/8 w - - 0 50",
        "8/2k5/8/3q4/8/4R3/3K4/8 b - - 0 60",
        "4k3/8/2n5/8/8/5N2/8/2R1K3 w - - 0 30",
        "8/8/4k3/8/8/2r5/8/1R2K3 w - - 0 44",
        "2k5/8/1P6/8/8/8/8/1K6 b - - 0 70",
        "r3k2r/8/8/8/8/8/8/R3K2R w - - 0 30",
        "6k1/5ppp/8/8/8/8/5PPP/1R4K1 w - - 0 25",
        "1nbk1b2/r1pp1ppr/pp2p2p/4qn2/2P5/1PN1P1PN/P2PBPP1/R3KB1R w - - 3 14",
    ];

    #[test]
    fn mirrored_positions_score_the_same() {
        for fen in POSITIONS {
            let mirrored = mirror_fen(fen);
            assert_eq!(eval(fen), eval(&mirrored), "{fen} vs {mirrored}");
        }
    }

    #[test]
    fn start_positions_are_balanced() {
        for fen in &POSITIONS[..2] {
            let score = eval(fen);
            assert_eq!(score, PARAMS.tempo, "{fen}");
        }
    }

    #[test]
    fn side_to_move_only_changes_the_sign_and_tempo() {
        // Positions without bare kings or last pieces, whose terms depend on the side to move.
        for fen in [POSITIONS[0], POSITIONS[2], POSITIONS[3], POSITIONS[11], POSITIONS[12]] {
            let flipped = pos(&flip_turn(fen), Variant::Shatranj);
            assert_eq!(eval(fen) + evaluate(&flipped), 2 * PARAMS.tempo, "{fen}");
        }
    }

    #[test]
    fn material_ordering() {
        let start = "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w - - 0 1";
        let rook_up = eval("1nbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w - - 0 1");
        let knight_up = eval("r1bkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w - - 0 1");
        let ferz_up = eval("rnbk1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w - - 0 1");
        let alfil_up = eval("rn1kqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w - - 0 1");
        assert!(rook_up > 300, "{rook_up}");
        assert!(rook_up > knight_up && knight_up > ferz_up && ferz_up > alfil_up && alfil_up > eval(start));
        assert!(ferz_up < 250 && alfil_up < 200, "{ferz_up} {alfil_up}");
    }

    #[test]
    fn bare_king_scores() {
        // King against king is a draw whoever moves.
        assert_eq!(eval("8/3k4/8/8/8/8/3K4/8 w - - 0 1"), 0);
        // A bare king against two pieces has lost, from either side's point of view.
        let won = eval("3k4/8/8/8/8/8/8/R2KN3 w - - 0 1");
        let lost = eval("3k4/8/8/8/8/8/8/R2KN3 b - - 0 1");
        assert!(won >= PARAMS.bare_king_win, "{won}");
        assert!(lost <= -PARAMS.bare_king_win, "{lost}");
        // Against one piece it has lost unless it can take that piece at once.
        assert!(eval("3k4/8/8/8/8/8/8/R2K4 b - - 0 1") <= -PARAMS.bare_king_win);
        assert_eq!(eval("8/8/8/8/8/8/2kR4/7K b - - 0 1"), 0, "the king takes the undefended rook");
        assert!(eval("8/8/8/8/8/8/2kR4/4K3 b - - 0 1") <= -PARAMS.bare_king_win, "the rook is defended");
        // Every bare-king score stays far from mate scores.
        assert!(won < EVAL_LIMIT);
    }

    #[test]
    fn last_piece_is_guarded() {
        // Black's last piece, a knight, attacked by the white rook with white to move, is lost,
        // and with it the game; the same knight out of reach is merely a piece down.
        let hanging = eval("4k3/8/8/8/2n4R/8/P7/4K3 w - - 0 1");
        let safe = eval("4k3/8/2n5/8/7R/8/P7/4K3 w - - 0 1");
        assert!(hanging > safe + 400, "{hanging} vs {safe}");
        // Defended by its king it is not hanging.
        let defended = eval("8/8/8/3k4/2n4R/8/P7/4K3 w - - 0 1");
        assert!(defended < hanging - 400, "{defended} vs {hanging}");
        // One piece each: the rook about to take the lone knight wins, even with no other piece.
        let one_each = eval("4k3/8/8/8/2n4R/8/8/4K3 w - - 0 1");
        let apart = eval("4k3/8/2n5/8/7R/8/8/4K3 w - - 0 1");
        assert!(one_each > apart + 400, "{one_each} vs {apart}");
    }

    #[test]
    fn passed_pawns_by_rank() {
        let seventh = eval("4k1n1/1P6/8/8/8/8/8/4K1N1 w - - 0 1");
        let third = eval("4k1n1/8/8/8/8/1P6/8/4K1N1 w - - 0 1");
        assert!(seventh > third + 30, "{seventh} vs {third}");
        // Promotion gives only a ferz: a far passer is worth less than in chess.
        assert!(seventh < 250, "{seventh}");
    }

    #[test]
    fn restricting_the_weaker_king_helps() {
        // Rook and king against king and alfil: the cornered king scores better for white.
        let cornered = eval("k7/2K5/8/8/8/8/1R6/7b w - - 0 1");
        let central = eval("8/8/8/3k4/8/8/1R6/K6b w - - 0 1");
        assert!(cornered > central, "{cornered} vs {central}");
    }

    #[test]
    fn scores_stay_bounded_on_the_perft_suite() {
        let text = include_str!("../../../chess/tests/data/shatranj.perft");
        for line in text.lines().filter_map(|l| l.strip_prefix("epd ")) {
            let p = pos(line, Variant::Shatranj);
            let score = evaluate(&p);
            assert!(score.abs() <= EVAL_LIMIT, "{line}: {score}");
            assert_eq!(score, evaluate(&pos(&mirror_fen(line), Variant::Shatranj)), "{line}");
        }
    }
}
