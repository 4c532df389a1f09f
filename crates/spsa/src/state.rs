//! The run on disk: `state.json` (everything a resumed run needs), and what is derived from
//! it after every iteration: `trajectory.csv`, `trajectory.svg` and `result.params`. Every file
//! is written whole through `ferz-files` (a synced temporary file renamed over the old one), so
//! a run killed at any moment, or a power cut, leaves either the old or the new file, never half
//! of one.

use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::config::GamesSection;
use crate::param::SpsaParam;

/// One finished iteration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Iteration {
    /// Its number, from 1.
    pub k: u64,
    /// Wins, draws and losses of the `θ + c·Δ` side.
    pub wdl: [u64; 3],
    /// The parameters after the update.
    pub theta: Vec<f64>,
}

/// The engine program that played from an iteration on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineRecord {
    /// The first iteration it played.
    pub from_iteration: u64,
    /// The program, as the run found it.
    pub program: String,
    /// The SHA-256 of the program file, lower-case hex.
    pub sha256: String,
}

/// A run: its settings (to refuse resuming with other ones), the engine programs that played
/// it and its iterations so far.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct State {
    /// The settings that decide the trajectory, as JSON: the parameters, the algorithm and the
    /// games.
    pub settings: serde_json::Value,
    /// The parameters.
    pub params: Vec<SpsaParam>,
    /// The engine programs, in order: one unless a resumed run was told to accept a changed
    /// engine. Empty in states written before the engine was recorded.
    #[serde(default)]
    pub engines: Vec<EngineRecord>,
    /// The finished iterations, in order.
    pub iterations: Vec<Iteration>,
}

/// A state file that cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// Reading or writing failed.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        error: std::io::Error,
    },
    /// The file is not a state.
    #[error("{path} is not an SPSA state file: {error}")]
    Format {
        /// The file.
        path: String,
        /// Why.
        error: serde_json::Error,
    },
}

impl State {
    /// The parameters now: after the last iteration, or the start values.
    #[must_use]
    pub fn theta(&self) -> Vec<f64> {
        self.iterations.last().map_or_else(|| self.params.iter().map(|p| p.start).collect(), |i| i.theta.clone())
    }

    /// Reads a state file; `None` if there is none.
    ///
    /// # Errors
    /// A file that cannot be read or is not a state.
    pub fn load(path: &Path) -> Result<Option<State>, StateError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(StateError::Io { path: path.display().to_string(), error }),
        };
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|error| StateError::Format { path: path.display().to_string(), error })
    }

    /// Writes the state and the files derived from it into `dir`.
    ///
    /// # Errors
    /// A file that cannot be written.
    pub fn save(&self, dir: &Path) -> Result<(), StateError> {
        let json = serde_json::to_string(self).expect("a state serialises");
        write_atomic(&dir.join("state.json"), json.as_bytes())?;
        write_atomic(&dir.join("trajectory.csv"), self.csv().as_bytes())?;
        write_atomic(&dir.join("trajectory.svg"), self.svg().as_bytes())?;
        write_atomic(&dir.join("result.params"), self.result_params().as_bytes())
    }

    /// The trajectory: a header, the start, then one row per iteration.
    #[must_use]
    pub fn csv(&self) -> String {
        let mut csv = String::from("iteration,wins,draws,losses");
        for p in &self.params {
            let _ = write!(csv, ",{}", p.name);
        }
        csv.push('\n');
        let start: Vec<f64> = self.params.iter().map(|p| p.start).collect();
        let rows = std::iter::once((0, [0; 3], &start)).chain(self.iterations.iter().map(|i| (i.k, i.wdl, &i.theta)));
        for (k, [w, d, l], theta) in rows {
            let _ = write!(csv, "{k},{w},{d},{l}");
            for value in theta {
                let _ = write!(csv, ",{value:.4}");
            }
            csv.push('\n');
        }
        csv
    }

    /// Where the run stands, for `ferz spsa status`: the iterations and games played, how many
    /// parameters the result changes as the engine reads them (integers rounded), then one line
    /// per parameter (start, now, the move so far in units of its `c_end`, the result's value),
    /// those that moved furthest first.
    #[must_use]
    pub fn status(&self) -> String {
        let done = self.iterations.len();
        let planned = self.settings.pointer("/spsa/iterations").and_then(serde_json::Value::as_u64);
        let [w, d, l] =
            self.iterations.iter().fold([0u64; 3], |t, i| [t[0] + i.wdl[0], t[1] + i.wdl[1], t[2] + i.wdl[2]]);
        let mut text = match planned {
            Some(planned) => format!("{done} of {planned} iterations"),
            None => format!("{done} iterations"),
        };
        let _ = writeln!(text, ", {} games; the θ + c·Δ side scored +{w} ={d} -{l}", w + d + l);
        for engine in &self.engines {
            let _ = writeln!(
                text,
                "engine from iteration {}: {} (SHA-256 {})",
                engine.from_iteration,
                engine.program,
                ferz_dataset::manifest::short_sha(&engine.sha256)
            );
        }
        let theta = self.theta();
        // A move that rounds away leaves the engine as it was: an SPRT of such a result tests
        // only the parameters that did change.
        let changed =
            self.params.iter().zip(&theta).filter(|(p, now)| p.option_value(**now) != p.option_value(p.start)).count();
        let _ = writeln!(
            text,
            "result.params changes {changed} of {} parameters from their start (as the engine reads them)",
            self.params.len()
        );
        let mut rows: Vec<(&SpsaParam, f64)> = self.params.iter().zip(theta).collect();
        rows.sort_by(|(a, x), (b, y)| ((y - b.start) / b.c_end).abs().total_cmp(&((x - a.start) / a.c_end).abs()));
        let width = self.params.iter().map(|p| p.name.len()).max().unwrap_or(0).max("parameter".len());
        let _ = writeln!(
            text,
            "{:width$}  {:>9}  {:>9}  {:>9}  {:>8}  {:>9}  range",
            "parameter", "start", "now", "moved", "÷ c_end", "result"
        );
        for (p, now) in rows {
            let moved = now - p.start;
            let _ = writeln!(
                text,
                "{:width$}  {:>9}  {:>9.2}  {:>+9.2}  {:>+8.2}  {:>9}  {}..{}",
                p.name,
                p.option_value(p.start),
                now,
                moved,
                moved / p.c_end,
                p.option_value(now),
                p.min,
                p.max
            );
        }
        text
    }

    /// The result: a comment naming the iterations and the games they were played as, then
    /// `NAME = value` per parameter (rounded for integer options), the format of ferz's
    /// `ParamsFile` option.
    #[must_use]
    pub fn result_params(&self) -> String {
        let mut text = format!("# ferz spsa after {} iterations", self.iterations.len());
        // The values hold for the games they were tuned on: say which, so that a file applied
        // later (to another variant's defaults, say) carries its own provenance.
        let games = self.settings.get("games").and_then(|g| GamesSection::deserialize(g).ok());
        if let Some(games) = games {
            let _ = write!(text, " of {} games", games.variant);
            let _ = match (games.nodes, games.tc.as_str()) {
                (0, "") => Ok(()),
                (0, tc) => write!(text, " at {tc}"),
                (1, _) => write!(text, " at 1 node a move"),
                (nodes, _) => write!(text, " at {nodes} nodes a move"),
            };
        }
        text.push('\n');
        for (p, value) in self.params.iter().zip(self.theta()) {
            let _ = writeln!(text, "{} = {}", p.name, p.option_value(value));
        }
        text
    }

    /// Small multiples: one panel per parameter, its value over the iterations between its
    /// minimum (bottom) and maximum (top), the start value dashed.
    #[must_use]
    pub fn svg(&self) -> String {
        const W: f64 = 240.0;
        const H: f64 = 110.0;
        const COLUMNS: usize = 4;
        let rows = self.params.len().div_ceil(COLUMNS);
        let n = self.iterations.len().max(1) as f64;
        let mut svg = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" font-family=\"sans-serif\" font-size=\"11\">\n\
             <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
            W * COLUMNS as f64,
            H * rows as f64
        );
        for (index, p) in self.params.iter().enumerate() {
            let (x0, y0) = ((index % COLUMNS) as f64 * W + 10.0, (index / COLUMNS) as f64 * H + 18.0);
            let (w, h) = (W - 20.0, H - 30.0);
            let span = (p.max - p.min).max(f64::MIN_POSITIVE);
            let y = |v: f64| y0 + h - (v - p.min) / span * h;
            let now = self.iterations.last().map_or(p.start, |i| i.theta[index]);
            let _ = writeln!(
                svg,
                "<text x=\"{x0}\" y=\"{:.1}\">{} {} → {}</text>\n<rect x=\"{x0}\" y=\"{y0}\" width=\"{w}\" height=\"{h}\" fill=\"none\" stroke=\"#bbb\"/>\n\
                 <line x1=\"{x0}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>",
                y0 - 5.0,
                p.name,
                p.option_value(p.start),
                p.option_value(now),
                x0 + w,
                y(p.start),
                y(p.start)
            );
            let points: String = std::iter::once((0.0, p.start))
                .chain(self.iterations.iter().map(|i| (i.k as f64, i.theta[index])))
                .map(|(k, v)| format!("{:.1},{:.1} ", x0 + k / n * w, y(v)))
                .collect();
            let _ = writeln!(svg, "<polyline points=\"{}\" fill=\"none\" stroke=\"#1f5fbf\"/>", points.trim_end());
        }
        svg.push_str("</svg>\n");
        svg
    }
}

/// Writes `bytes` as the whole of `path` ([`ferz_files::write_atomic`]), naming `path` in the error.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), StateError> {
    ferz_files::write_atomic(path, bytes).map_err(|error| StateError::Io { path: path.display().to_string(), error })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(settings: serde_json::Value) -> String {
        let state = State { settings, params: Vec::new(), engines: Vec::new(), iterations: Vec::new() };
        state.result_params().lines().next().unwrap().to_owned()
    }

    #[test]
    fn result_names_the_games_it_was_tuned_on() {
        let games = |games| serde_json::json!({ "games": games });
        let timed = header(games(serde_json::json!({ "variant": "shatranj", "tc": "5+0.05", "nodes": 0 })));
        assert_eq!(timed, "# ferz spsa after 0 iterations of shatranj games at 5+0.05");
        let fixed = header(games(serde_json::json!({ "variant": "chess", "tc": "", "nodes": 2000 })));
        assert_eq!(fixed, "# ferz spsa after 0 iterations of chess games at 2000 nodes a move");
        // A state whose settings do not say (none written by `ferz spsa` lacks them).
        assert_eq!(header(serde_json::json!({})), "# ferz spsa after 0 iterations");
    }
}
