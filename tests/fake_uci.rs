//! A misbehaving UCI engine for the `ferz match` and `ferz bot` system tests.
//!
//! `fake-uci [MODE [N [MS]]]` plays the first legal move of every position (naming the first
//! legal reply as its ponder move) and reports a score of 0, except that on its N-th `go`
//! (counted over the process's life) it: `illegal` answers a well-formed illegal move; `crash`
//! exits without answering; `hang` never answers, not even `stop`; `slow` answers after MS
//! milliseconds. `crash-after` and `hang-after` do the same after N answered searches (on the
//! N+1-th `go`), so that a restarted engine plays N more moves before it fails again. `pace`
//! answers every `go` after MS milliseconds (N is ignored). `no-uciok` never finishes the
//! handshake. `tunable` lists two spin options, `Alpha` and `Beta` (-100 to 100, default 0),
//! and plays worse the farther they are from the optimum (`Alpha` 40, `Beta` -30): before
//! each move it answers an illegal move (a loss by the arbiter's rules) with a probability
//! growing with the distance, decided by a hash of the position and its options so that the
//! same game is played again the same way; otherwise a legal move chosen by the same hash.
//! `slow-quit` plays legally and takes MS milliseconds to exit after `quit`. Without a mode it
//! always plays legally.
//!
//! `go ponder` is answered only after `ponderhit` or `stop`, as the protocol requires.

use std::io::{BufRead, Write};

use ferz_chess::{Game, Position, SplitMix64, Square, Variant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let given = args.first().map_or("legal", String::as_str).to_owned();
    let n: u32 = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(1);
    // `crash-after N` is `crash` on the go after N answered ones.
    let (mode, at) = match given.strip_suffix("-after") {
        Some(base) => (base.to_owned(), n + 1),
        None => (given, n),
    };
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
    // A `go ponder` waiting for `ponderhit` or `stop`: the answer it will give.
    let mut pondering: Option<String> = None;
    // `tunable`'s options.
    let (mut alpha, mut beta) = (0_i64, 0_i64);
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
                say("option name Ponder type check default false");
                if mode == "tunable" {
                    say("option name Alpha type spin default 0 min -100 max 100");
                    say("option name Beta type spin default 0 min -100 max 100");
                }
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
                let value = words.last().and_then(|v| v.parse::<i64>().ok()).unwrap_or(0);
                if lower.starts_with("setoption name alpha value") {
                    alpha = value;
                } else if lower.starts_with("setoption name beta value") {
                    beta = value;
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
            Some("ponderhit" | "stop") => {
                if let Some(answer) = pondering.take() {
                    say(&answer);
                }
            }
            Some("go") => {
                searches += 1;
                let position = *game.position();
                let legal = position.legal_moves();
                let illegal_move = || {
                    let (from, to) = Square::all()
                        .flat_map(|from| Square::all().map(move |to| (from, to)))
                        .find(|&(from, to)| from != to && !legal.iter().any(|m| m.from() == from && m.to() == to))
                        .expect("some move is illegal");
                    format!("bestmove {from}{to}")
                };
                if mode == "tunable" && !legal.is_empty() {
                    let distance = (((alpha - 40).pow(2) + (beta + 30).pow(2)) as f64).sqrt();
                    let blunder = 0.02 + 0.25 * (distance / 100.0).powi(2);
                    let mut hash = SplitMix64::derive(position.key(), (alpha * 1000 + beta) as u64);
                    if ((hash.next_u64() >> 11) as f64 / (1u64 << 53) as f64) < blunder {
                        say(&illegal_move());
                    } else {
                        let m = legal[hash.index(legal.len())];
                        say(&format!("bestmove {}", position.uci(m)));
                    }
                    continue;
                }
                if searches == at {
                    match mode.as_str() {
                        "illegal" => {
                            say(&illegal_move());
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
                let answer = match legal.first() {
                    Some(&m) => {
                        let mut after = position;
                        after.play_unchecked(m);
                        let reply = after.legal_moves().first().map(|&r| format!(" ponder {}", after.uci(r)));
                        say(&format!("info depth 1 score cp 0 nodes 1 pv {}", position.uci(m)));
                        format!("bestmove {}{}", position.uci(m), reply.unwrap_or_default())
                    }
                    None => "bestmove (none)".to_owned(),
                };
                if words.get(1) == Some(&"ponder") {
                    pondering = Some(answer);
                } else {
                    say(&answer);
                }
            }
            Some("quit") => {
                if mode == "slow-quit" {
                    std::thread::sleep(std::time::Duration::from_millis(millis));
                }
                break;
            }
            _ => {}
        }
    }
}
