//! The search with Syzygy tables: DTZ-ranked roots, WDL probes inside, never in Shatranj.

use std::path::PathBuf;

use ferz_chess::{Game, Position, Variant};
use ferz_engine::{Engine, EngineOptions, Score, SearchInfo, SearchLimits, SearchResult, Signals};
use ferz_syzygy::Tablebases;

fn tables_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../syzygy/tests/data/syzygy")
}

fn engine_with_tables() -> Engine {
    let mut engine = Engine::new(EngineOptions::default());
    let summary = engine.set_syzygy_path(tables_dir().to_str().unwrap()).expect("test tables open");
    assert_eq!(summary, "Syzygy tablebases: 35 WDL and 35 DTZ tables, up to 4 pieces");
    engine
}

fn search(engine: &mut Engine, fen: &str, variant: Variant, depth: u32) -> (SearchResult, Vec<SearchInfo>) {
    let position = Position::from_fen(fen, variant).unwrap();
    let mut infos = Vec::new();
    let result = engine.search(&Game::new(position), &SearchLimits::depth(depth), &Signals::default(), &mut |i| {
        infos.push(i.clone());
    });
    (result, infos)
}

#[test]
fn a_won_root_plays_a_fastest_converting_move_and_reports_the_win() {
    let tables = Tablebases::open(&[tables_dir()]).unwrap();
    let mut engine = engine_with_tables();
    for fen in ["B7/8/6N1/8/8/8/7K/1k6 w - - 0 1", "k7/8/7K/2b5/8/8/1n6/8 b - - 0 1", "8/1K6/8/1R6/8/8/4k3/8 w - - 0 1"]
    {
        let (result, infos) = search(&mut engine, fen, Variant::Chess, 6);
        let position = Position::from_fen(fen, Variant::Chess).unwrap();
        let ranked = tables.rank_root_moves(&position, true).unwrap();
        let best: Vec<_> = ranked.iter().filter(|r| r.rank == ranked[0].rank).map(|r| r.mv).collect();
        assert!(best.contains(&result.best.unwrap()), "{fen}: {:?} not among {best:?}", result.best);
        assert!(matches!(result.score, Score::Cp(cp) if cp > 19_000), "{fen}: {:?}", result.score);
        let hits = infos.last().unwrap().tbhits.unwrap();
        assert!(hits >= position.legal_moves().len() as u64, "{fen}: {hits} tbhits");
    }
}

#[test]
fn a_drawn_root_keeps_the_draw() {
    let mut engine = engine_with_tables();
    // KRvKR: every move holds the draw except those that lose the rook, which the ranking drops.
    let (result, _) = search(&mut engine, "8/8/3k4/3r4/8/3K4/3R4/8 w - - 0 1", Variant::Chess, 8);
    assert_eq!(result.score, Score::Cp(0));
}

#[test]
fn captures_into_the_tables_are_probed_inside_the_search() {
    let mut engine = engine_with_tables();
    // Five pieces: not in the 4-piece tables at the root; Rxd2 reaches a won KQvK.
    let (result, infos) = search(&mut engine, "7k/8/8/8/8/8/3r4/K2R2Q1 w - - 0 1", Variant::Chess, 6);
    assert!(infos.last().unwrap().tbhits.unwrap() > 0);
    assert!(matches!(result.score, Score::Cp(cp) if cp > 19_000) || matches!(result.score, Score::Mate(m) if m > 0));
}

#[test]
fn shatranj_is_never_probed() {
    let mut engine = engine_with_tables();
    let (_, infos) = search(&mut engine, "7k/8/8/8/8/8/3r4/K2R4 w - - 0 1", Variant::Shatranj, 6);
    assert_eq!(infos.last().unwrap().tbhits, Some(0));
}

#[test]
fn without_tables_no_tbhits_are_reported() {
    let mut engine = Engine::new(EngineOptions::default());
    let (_, infos) = search(&mut engine, "8/8/3k4/3r4/8/3K4/3R4/8 w - - 0 1", Variant::Chess, 4);
    assert!(infos.iter().all(|i| i.tbhits.is_none()));
}
