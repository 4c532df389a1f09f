//! A misbehaving UCI engine for `ferz match` system tests.
//!
//! `fake-uci [MODE [N [MS]]]` plays the first legal move of every position and reports a
//! score of 0, except that on its N-th `go` (counted over the process's life) it:
//! `illegal` answers a well-formed illegal move; `crash` exits without answering; `hang` never
//! answers, not even `stop`; `slow` answers after MS milliseconds. `pace` answers every `go`
//! after MS milliseconds (N is ignored). `no-uciok` never finishes the handshake. Without a mode
//! it always plays legally.

use std::io::{BufRead, Write};

use ferz_chess::{Game, Position, Square, Variant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = args.first().map_or("legal", String::as_str).to_owned();
    let at: u32 = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(1);
    let millis: u64 = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(1000);
    let mut out = std::io::stdout();
    let mut say = |line: &str| {
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    };
    let mut variant = Variant::Chess;
    let mut chess960 = false;
    let mut game = Game::new(Position::new(Variant::Chess));
    let mut searches = 0;
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.first().copied() {
            Some("uci") if mode == "no-uciok" => {}
            Some("uci") => {
                say("id name fake-uci");
                say("option name UCI_Chess960 type check default false");
                say("option name UCI_Variant type combo default chess var chess var shatranj");
                say("option name Hash type spin default 1 min 1 max 16");
                say("uciok");
            }
            Some("isready") => say("readyok"),
            Some("setoption") => {
                let lower = line.to_ascii_lowercase();
                if lower.contains("uci_variant value shatranj") {
                    variant = Variant::Shatranj;
                } else if lower.contains("uci_chess960 value true") {
                    chess960 = true;
                }
            }
            Some("position") => {
                let rules = if variant == Variant::Shatranj {
                    Variant::Shatranj
                } else if chess960 {
                    Variant::Chess960
                } else {
                    Variant::Chess
                };
                let rest = line["position".len()..].trim();
                let (setup, moves) = rest.split_once(" moves ").unwrap_or((rest, ""));
                let start = match setup.strip_prefix("fen ") {
                    Some(fen) => Position::from_fen(fen, rules).expect("valid FEN"),
                    None => Position::new(rules),
                };
                game = Game::new(start);
                for m in moves.split_whitespace() {
                    game.play_uci(m).expect("legal moves from the arbiter");
                }
            }
            Some("go") => {
                searches += 1;
                let position = *game.position();
                let legal = position.legal_moves();
                if searches == at {
                    match mode.as_str() {
                        "illegal" => {
                            let illegal = Square::all()
                                .flat_map(|from| Square::all().map(move |to| (from, to)))
                                .find(|&(from, to)| {
                                    from != to && !legal.iter().any(|m| m.from() == from && m.to() == to)
                                })
                                .expect("some move is illegal");
                            say(&format!("bestmove {}{}", illegal.0, illegal.1));
                            continue;
                        }
                        "crash" => std::process::exit(3),
                        "hang" => loop {
                            std::thread::sleep(std::time::Duration::from_secs(3600));
                        },
                        "slow" => std::thread::sleep(std::time::Duration::from_millis(millis)),
                        _ => {}
                    }
                }
                if mode == "pace" {
                    std::thread::sleep(std::time::Duration::from_millis(millis));
                }
                say("info depth 1 score cp 0 nodes 1 pv");
                match legal.first() {
                    Some(&m) => say(&format!("bestmove {}", position.uci(m))),
                    None => say("bestmove (none)"),
                }
            }
            Some("quit") => break,
            _ => {}
        }
    }
}
