//! NNUE in the engine: the search's accumulator stack agrees with a full refresh, and
//! searches with a net are deterministic, differ from the hand-tuned evaluation, and leave it
//! untouched when `UseNNUE` is off.

use std::sync::Arc;

use ferz_chess::{Game, Position, SplitMix64, Variant};
use ferz_engine::nnue::{NetVariant, NnueStack};
use ferz_engine::{Engine, EngineOptions, Nets, SearchLimits, Signals};
use ferz_nnue::{Accumulator, Activation, FloatNetwork, InputLayout, Network};

/// A random net of eight output buckets, so that every score also checks the bucket choice.
fn random_net(variant: NetVariant, hidden: usize) -> Arc<Network> {
    random_net_with(InputLayout::Plain, variant, hidden)
}

/// [`random_net`] with the input layout `inputs`.
fn random_net_with(inputs: InputLayout, variant: NetVariant, hidden: usize) -> Arc<Network> {
    Arc::new(FloatNetwork::random_with_inputs(inputs, Activation::SCReLU, hidden, 8, 3).quantise(variant).unwrap())
}

fn fresh_eval(net: &Network, pos: &Position) -> i32 {
    let mut acc = Accumulator::new(net);
    acc.refresh(net, pos);
    ferz_nnue::evaluate(net, &acc, pos).clamp(-ferz_engine::eval::EVAL_LIMIT, ferz_engine::eval::EVAL_LIMIT)
}

/// Walks random lines down and back up the stack the way the search does (push at ply, evaluate
/// some nodes, skip others, null moves, return to a shallower ply and take another move), and
/// compares every evaluation with a refresh of the same position, for nets whose inputs do and
/// do not depend on the king.
#[test]
fn stack_matches_refresh_along_search_like_paths() {
    for (variant, net_variant, inputs) in [
        (Variant::Chess, NetVariant::Chess, InputLayout::Plain),
        (Variant::Chess960, NetVariant::Chess, InputLayout::Plain),
        (Variant::Shatranj, NetVariant::Shatranj, InputLayout::Plain),
        (Variant::Chess, NetVariant::Chess, InputLayout::King4),
        (Variant::Chess960, NetVariant::Chess, InputLayout::Mirrored),
        (Variant::Shatranj, NetVariant::Shatranj, InputLayout::King4),
    ] {
        let net = random_net_with(inputs, net_variant, 48);
        let mut rng = SplitMix64::new(17);
        let mut checked = 0;
        for _ in 0..30 {
            let root = if variant == Variant::Chess960 {
                Position::random_chess960(|| rng.next_u64())
            } else {
                Position::new(variant)
            };
            let mut stack = NnueStack::default();
            stack.prepare(Some(Arc::clone(&net)), &root);
            let mut path = vec![root];
            for _ in 0..200 {
                let ply = path.len() - 1;
                let pos = path[ply];
                // Sometimes back up a few plies, as the search does after a subtree.
                if ply > 0 && rng.below(4) == 0 {
                    path.truncate(path.len() - 1 - rng.index(ply.min(3)));
                    continue;
                }
                let moves = pos.legal_moves();
                if moves.is_empty() || ply + 2 >= ferz_engine::MAX_PLY {
                    path.truncate(1);
                    continue;
                }
                let mut child = pos;
                if !pos.is_check() && rng.below(10) == 0 {
                    child.play_null();
                    stack.push_null(ply);
                } else {
                    let m = moves[rng.index(moves.len())];
                    child.play_unchecked(m);
                    stack.push(ply, &pos, m, &child);
                }
                path.push(child);
                // Only some nodes evaluate (others end on a table hit), which leaves gaps.
                if rng.below(3) == 0 {
                    assert_eq!(stack.evaluate(&child, ply + 1), Some(fresh_eval(&net, &child)), "{}", child.fen());
                    checked += 1;
                }
            }
        }
        assert!(checked > 1000, "{checked}");
    }
}

fn bench_like(nets: Nets, variant: Variant, fen: &str, depth: u32) -> (u64, Option<ferz_chess::Move>) {
    let mut engine = Engine::new(EngineOptions::default());
    *engine.nets_mut() = nets;
    let pos = Position::from_fen(fen, variant).unwrap();
    let result = engine.search(&Game::new(pos), &SearchLimits::depth(depth), &Signals::default(), &mut |_| {});
    (result.nodes, result.best)
}

#[test]
fn searches_with_a_net_are_deterministic_and_use_it() {
    let fen_chess = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 3 8";
    let fen_shatranj = "rn1kq1nr/1pppp1pp/p3bp1b/8/8/3P1P1N/PPP1PQPP/RNBK1B1R w - - 0 1";
    for (variant, fen) in [(Variant::Chess, fen_chess), (Variant::Shatranj, fen_shatranj)] {
        let mut with_net = Nets::default();
        with_net.set(NetVariant::Chess, Some(random_net(NetVariant::Chess, 32)), None);
        with_net.set(NetVariant::Shatranj, Some(random_net(NetVariant::Shatranj, 32)), None);
        let mut off = with_net.clone();
        off.set_use_nnue(false);
        with_net.set_use_nnue(true);

        let mut hand_tuned = Nets::default();
        hand_tuned.set_use_nnue(false);
        let classic = bench_like(hand_tuned, variant, fen, 7);
        assert_eq!(bench_like(off, variant, fen, 7), classic, "UseNNUE=false is the hand-tuned search");
        let first = bench_like(with_net.clone(), variant, fen, 7);
        assert_eq!(bench_like(with_net, variant, fen, 7), first, "deterministic");
        assert_ne!(first.0, classic.0, "{variant}: the net changes the search");
        assert!(first.1.is_some());
    }
}

#[test]
fn a_variant_without_a_net_falls_back_to_the_hand_tuned_evaluation() {
    let fen = "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w - - 0 1";
    let mut chess_only = Nets::default();
    chess_only.set(NetVariant::Chess, Some(random_net(NetVariant::Chess, 32)), None);
    chess_only.set(NetVariant::Shatranj, None, None);
    chess_only.set_use_nnue(true);
    let mut classic = Nets::default();
    classic.set_use_nnue(false);
    assert_eq!(bench_like(chess_only, Variant::Shatranj, fen, 6), bench_like(classic, Variant::Shatranj, fen, 6));
}

/// The default evaluation (the embedded chess net, when the build has one) finds the mates that
/// `tests/search.rs` checks with the hand-tuned evaluation. A net's numbers decide which moves
/// the search reduces, so the depths are the net's: the rook sacrifice of the mate in two is the
/// last move the net orders at the root and is first seen at depth 10.
#[test]
fn the_default_evaluation_finds_the_search_tests_mates() {
    let cases = [
        ("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", Variant::Chess, 4, 1, "h5f7"),
        ("kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1", Variant::Chess, 12, 2, "a1a6"),
        ("kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1", Variant::Chess960, 12, 2, "a1a6"),
    ];
    for (fen, variant, depth, mate, best) in cases {
        let mut engine = Engine::new(EngineOptions::default());
        let pos = Position::from_fen(fen, variant).unwrap();
        let result = engine.search(&Game::new(pos), &SearchLimits::depth(depth), &Signals::default(), &mut |_| {});
        assert_eq!(result.score, ferz_engine::Score::Mate(mate), "{fen}");
        assert_eq!(pos.uci(result.best.unwrap()), best, "{fen}");
    }
    // Queen and king against a bare king: a mate within three moves.
    let pos = Position::from_fen("7k/8/5K2/8/8/8/8/1Q6 w - - 0 1", Variant::Chess).unwrap();
    let result = Engine::new(EngineOptions::default()).search(
        &Game::new(pos),
        &SearchLimits::depth(8),
        &Signals::default(),
        &mut |_| {},
    );
    assert!(matches!(result.score, ferz_engine::Score::Mate(1..=3)), "{:?}", result.score);
}

/// Naming a net file asks for that net: until `UseNNUE` is set, a variant plays with a net
/// loaded from a file instead of its embedded one, and `UseNNUE false` still turns every net
/// off, whichever came first. (The rule for an embedded net that is off by default is unit-tested
/// in `nnue.rs`: every embedded net is on today.)
#[test]
fn a_net_loaded_from_a_file_is_used_unless_use_nnue_is_false() {
    let fen = "rn1kq1nr/1pppp1pp/p3bp1b/8/8/3P1P1N/PPP1PQPP/RNBK1B1R w - - 0 1";
    let dir = std::env::temp_dir().join(format!("ferz-engine-nnue-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("shatranj.nnue");
    ferz_nnue::format::save(&random_net(NetVariant::Shatranj, 32), &path).unwrap();

    let mut from_file = Nets::default();
    from_file.load(NetVariant::Shatranj, &path).unwrap();
    let mut forced = Nets::default();
    forced.set(NetVariant::Shatranj, Some(random_net(NetVariant::Shatranj, 32)), None);
    forced.set_use_nnue(true);
    let mut off_after = from_file.clone();
    off_after.set_use_nnue(false);
    let mut off_before = Nets::default();
    off_before.set_use_nnue(false);
    off_before.load(NetVariant::Shatranj, &path).unwrap();
    let mut classic = Nets::default();
    classic.set_use_nnue(false);
    std::fs::remove_dir_all(&dir).unwrap();

    let hand_tuned = bench_like(classic, Variant::Shatranj, fen, 6);
    let with_file = bench_like(from_file, Variant::Shatranj, fen, 6);
    assert_eq!(with_file, bench_like(forced, Variant::Shatranj, fen, 6), "the file's net is used");
    assert_ne!(with_file.0, hand_tuned.0, "the net changes the search");
    assert_eq!(bench_like(off_after, Variant::Shatranj, fen, 6), hand_tuned);
    assert_eq!(bench_like(off_before, Variant::Shatranj, fen, 6), hand_tuned);
}
