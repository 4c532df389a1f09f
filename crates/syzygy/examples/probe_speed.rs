//! Times WDL and DTZ probes over the positions of a `FEN;...` file (the oracle fixture).
//!
//! `cargo run --release -p ferz-syzygy --example probe_speed -- TABLE_DIR POSITIONS [ROUNDS]`

use std::time::Instant;

use ferz_chess::{Position, Variant};
use ferz_syzygy::Tablebases;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, file, rest @ ..] = &args[..] else {
        return Err("usage: probe_speed TABLE_DIR POSITIONS [ROUNDS]".into());
    };
    let rounds: u32 = rest.first().map_or(Ok(20), |r| r.parse())?;
    let start = Instant::now();
    let tables = Tablebases::open(&[dir])?;
    println!("opened {:?} in {:.1} ms", tables.table_counts(), start.elapsed().as_secs_f64() * 1e3);
    let text = std::fs::read_to_string(file)?;
    let positions = text
        .lines()
        .map(|line| Position::from_fen(line.split(';').next().unwrap_or(""), Variant::Chess))
        .collect::<Result<Vec<_>, _>>()?;
    for (name, dtz) in [("WDL", false), ("DTZ", true)] {
        let start = Instant::now();
        let mut probes = 0u64;
        for _ in 0..rounds {
            for position in &positions {
                let ok = if dtz { tables.probe_dtz(position).is_ok() } else { tables.probe_wdl(position).is_ok() };
                probes += u64::from(ok);
            }
        }
        let seconds = start.elapsed().as_secs_f64();
        println!(
            "{name}: {probes} probes in {seconds:.3} s, {:.2} us per probe, {:.0} probes/s",
            seconds * 1e6 / probes as f64,
            probes as f64 / seconds
        );
    }
    Ok(())
}
