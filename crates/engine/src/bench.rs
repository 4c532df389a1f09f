//! `bench`: a fixed search over built-in positions of all three variants, for speed
//! measurement and as a signature that changes whenever the search changes.

use std::time::{Duration, Instant};

use ferz_chess::{Game, Position, Variant};

use crate::{Engine, EngineOptions, Nets, SearchLimits, Signals};

/// The depth `ferz bench` uses without an argument.
pub const DEFAULT_DEPTH: u32 = 10;

/// The bench positions: standard chess (openings, middlegames, endgames), Chess960 and
/// Shatranj (both start arrays and positions from play).
pub const POSITIONS: &[(Variant, &str)] = &[
    (Variant::Chess, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
    (Variant::Chess, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
    (Variant::Chess, "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"),
    (Variant::Chess, "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"),
    (Variant::Chess, "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8"),
    (Variant::Chess, "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10"),
    (Variant::Chess, "rnbqkb1r/pp1p1ppp/4pn2/2p5/2PP4/2N5/PP2PPPP/R1BQKBNR w KQkq - 0 4"),
    (Variant::Chess, "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 3 8"),
    (Variant::Chess, "r2q1rk1/1b1nbppp/pp1ppn2/8/2PNP3/1PN1B3/P3BPPP/R2Q1RK1 w - - 2 12"),
    (Variant::Chess, "2r2rk1/pp1q1ppp/2n1pn2/3p4/3P4/P1NBPN2/1P3PPP/2RQ1RK1 b - - 4 15"),
    (Variant::Chess, "r1b2rk1/2q1bppp/p2p1n2/np2p3/3PP3/2P2N1P/PPB2PP1/RNBQR1K1 w - - 1 12"),
    (Variant::Chess, "rnkq1bnr/p3ppp1/1ppp3p/3B4/6b1/2PQ3P/PP1PPP2/RNB1K1NR w KQ - 0 1"),
    (Variant::Chess, "r7/p6r/1p3k2/q1B1p2p/Pb3pp1/1PnPQ2N/1R2PPP1/1N2KB1R w - - 0 1"),
    (Variant::Chess, "rn2kbnr/p1q2pp1/8/1pppp2P/5Pb1/PB2P3/1PPPQ2P/RNB1K1NR w KQkq - 0 1"),
    (Variant::Chess, "r2qkb1r/p1pp1p1p/b1n4n/1p2p1B1/2QP4/6P1/PPP1PP1P/RN2KBNR b KQkq - 0 1"),
    (Variant::Chess, "8/rp4k1/1P2pnp1/5p1p/2R4P/2r5/3bK1b1/8 w - - 0 1"),
    (Variant::Chess, "6r1/2R5/7k/3q4/n6K/8/6B1/1b6 b - - 0 1"),
    (Variant::Chess, "8/k7/B3p3/2K1P2p/4P2P/8/3N4/8 b - - 0 1"),
    (Variant::Chess, "8/5k2/7B/2K1P1P1/ppR5/P4B1p/1P6/8 w - - 0 1"),
    (Variant::Chess, "8/8/1p1k4/p1pP4/P1P5/1P1K4/8/8 w - - 0 1"),
    (Variant::Chess, "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"),
    (Variant::Chess, "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1"),
    (Variant::Chess, "8/3k4/8/8/8/8/1Q6/4K3 w - - 0 1"),
    (Variant::Chess, "2kr3r/ppp2ppp/2n5/2b1q3/4P1b1/2N2N2/PPP1QPPP/R1B2RK1 w - - 0 11"),
    (Variant::Chess960, "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"),
    (Variant::Chess960, "b1q1rrkb/pppppppp/3nn3/8/P7/1PPP4/4PPPP/BQNNRKRB w GE - 1 9"),
    (Variant::Chess960, "nbrq1kbr/Bp3ppp/2pnp3/3p4/5P2/2P4P/PP1PP1P1/NBRQNK1R w HChc - 0 9"),
    (Variant::Chess960, "nrbb2rq/pppk1ppp/4p1n1/3p4/6P1/1BP5/PP1PPPQP/NRB1KNR1 w GB - 0 9"),
    (Variant::Chess960, "rq1nkbbr/1p2pppp/p2n4/2pp4/1P4P1/P2N4/2PPPP1P/RQ1NKBBR w HAha - 0 9"),
    (Variant::Chess960, "bbrqknnr/ppp4p/3pp3/5pp1/4PP2/5Q2/PPPP2PP/BBR1KNNR w HChc - 0 9"),
    (Variant::Chess960, "rk1bbqrn/pp1pp1pp/3n4/5p2/3p4/1PP5/PK2PPPP/R1NBBQRN w ga - 0 9"),
    (Variant::Shatranj, "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w - - 0 1"),
    (Variant::Shatranj, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"),
    (Variant::Shatranj, "8/8/2k5/P4q2/5KP1/8/8/8 b - - 0 1"),
    (Variant::Shatranj, "2bk3n/p6q/8/4K3/4P2p/P1r2P1B/5NP1/2B5 w - - 0 1"),
    (Variant::Shatranj, "4qb1r/p2pn1pp/3kp3/P7/2b1p3/B3P1P1/3r3P/4KBNR w - - 0 1"),
    (Variant::Shatranj, "rn1kq1nr/1pppp1pp/p3bp1b/8/8/3P1P1N/PPP1PQPP/RNBK1B1R w - - 0 1"),
    (Variant::Shatranj, "r1bkqbnr/ppppppp1/8/6Np/1n6/8/PPPPPPPP/RNBKQB1R w - - 0 1"),
    (Variant::Shatranj, "1r2q3/4kpp1/bp2p3/p2n3p/3p3P/P2PP1PB/RP5R/4K3 w - - 0 1"),
    (Variant::Shatranj, "1n2q3/8/p6p/5k2/1p3P2/3rP2P/P6R/1K2Q1B1 w - - 0 1"),
];

/// The totals of a bench run.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BenchResult {
    /// Nodes over all positions (deterministic for a given depth and build).
    pub nodes: u64,
    /// Wall time of the searches.
    pub time: Duration,
}

impl BenchResult {
    /// Nodes per second.
    #[must_use]
    pub fn nps(&self) -> u64 {
        (self.nodes as f64 / self.time.as_secs_f64().max(1e-9)) as u64
    }
}

/// Searches every bench position to `depth` with one thread and a fresh 16 MiB table, calling
/// `each` with the position's index, FEN and nodes. Evaluates as the engine does by default.
///
/// # Panics
/// If a built-in position is invalid (a test guards against that).
pub fn run(depth: u32, each: impl FnMut(usize, &str, u64)) -> BenchResult {
    run_with(depth, Nets::default(), each)
}

/// [`run`] with the given NNUE nets and `UseNNUE` setting.
///
/// # Panics
/// If a built-in position is invalid (a test guards against that).
pub fn run_with(depth: u32, nets: Nets, mut each: impl FnMut(usize, &str, u64)) -> BenchResult {
    let mut engine = Engine::new(EngineOptions { hash_mb: 16, threads: 1, ..EngineOptions::default() });
    *engine.nets_mut() = nets;
    let mut total = BenchResult { nodes: 0, time: Duration::ZERO };
    for (index, &(variant, fen)) in POSITIONS.iter().enumerate() {
        let position = Position::from_fen(fen, variant).expect("bench positions are valid");
        engine.clear();
        let start = Instant::now();
        let result = engine.search(&Game::new(position), &SearchLimits::depth(depth), &Signals::default(), &mut |_| {});
        total.time += start.elapsed();
        total.nodes += result.nodes;
        each(index, fen, result.nodes);
    }
    total
}
