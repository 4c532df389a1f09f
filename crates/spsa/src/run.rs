//! The SPSA loop: perturb, play, update, save; resumable after every iteration.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ferz_arena::{
    EngineCommand, EngineConfig, EngineOption, GameSettings, MatchConfig, MatchControl, MatchError, Opening,
    OpeningSettings, Timeouts, load_book, run_match, schedule,
};
use ferz_chess::SplitMix64;
use ferz_dataset::manifest::short_sha;
use ferz_settings::InvalidSetting;

use crate::config::{Resolved, SpsaConfig};
use crate::param::SpsaParam;
use crate::state::{EngineRecord, Iteration, State, StateError};

/// Why a run stopped before its end.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A setting cannot work.
    #[error(transparent)]
    Setting(#[from] InvalidSetting),
    /// The opening book cannot be read.
    #[error("games.book: {0}")]
    Book(String),
    /// The output directory already holds a run with other settings.
    #[error("{0} holds a run with other settings (parameters, [spsa] or [games]); use another output.dir or remove it")]
    OtherRun(String),
    /// The state or its derived files cannot be read or written.
    #[error(transparent)]
    State(#[from] StateError),
    /// The games could not be played (an engine does not start or lacks an option).
    #[error(transparent)]
    Match(#[from] MatchError),
    /// The engine program cannot be found or read (to record which engine plays).
    #[error("engine program {program}: {error}")]
    EngineProgram {
        /// The program as configured.
        program: String,
        /// Why.
        error: std::io::Error,
    },
    /// A resumed run's engine program is not the one that played its last iterations.
    #[error(
        "{state}: the engine program changed: {} has SHA-256 {}, the one that played from iteration {} on had {}; \
         a run goes on with the engine it was playing. To go on with the new one, add --accept-engine-change \
         (the state records from which iteration it plays), or use another output.dir",
        now.program, short_sha(&now.sha256), was.from_iteration, short_sha(&was.sha256)
    )]
    EngineChanged {
        /// The state file.
        state: String,
        /// The engine that played the last iterations.
        was: Box<EngineRecord>,
        /// The engine found now.
        now: Box<EngineRecord>,
    },
    /// The output directory cannot be created.
    #[error("cannot create {path}: {error}")]
    Output {
        /// The directory.
        path: String,
        /// Why.
        error: std::io::Error,
    },
}

/// How the run ended.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// The state as saved.
    pub state: State,
    /// Whether all iterations are done (otherwise it was stopped; run it again to resume).
    pub finished: bool,
    /// Wall time of this process's iterations.
    pub elapsed: Duration,
    /// The part of it spent outside the games (perturbing, updating, saving).
    pub overhead: Duration,
    /// Games played by this process.
    pub games: u64,
}

/// What stops a run from outside: `abort` drops the iteration in progress (a resumed run plays
/// it again from its start).
pub type SpsaControl = MatchControl;

/// The gains of iteration `k` (from 1) for `param`: the perturbation `c_k` and the learning
/// rate `r_k = a_k / c_k²`. As in OpenBench, the schedule counts game pairs: iteration `k`
/// stands at pair `(k − 1)·P + 1` of `N·P` (P pairs per iteration), so `c_end` and `r_end`
/// mean what they mean there whatever the batch size.
#[must_use]
pub fn gains(param: &SpsaParam, config: &SpsaConfig, k: u64) -> (f64, f64) {
    let s = &config.spsa;
    let pairs = config.games.pairs_per_iteration.max(1) as u64;
    let (n, k) = ((s.iterations * pairs) as f64, ((k - 1) * pairs + 1) as f64);
    let stability = s.a_share * n;
    let c = param.c_end * n.powf(s.gamma);
    let a_end = param.r_end * param.c_end * param.c_end;
    let a = a_end * (stability + n).powf(s.alpha);
    let c_k = c / k.powf(s.gamma);
    let a_k = a / (stability + k).powf(s.alpha);
    (c_k, a_k / (c_k * c_k))
}

/// The settings that decide the trajectory (not the concurrency or the output directory).
fn fingerprint(config: &SpsaConfig, params: &[SpsaParam]) -> serde_json::Value {
    let mut games = serde_json::to_value(&config.games).expect("settings serialise");
    if let Some(map) = games.as_object_mut() {
        map.remove("concurrency");
    }
    serde_json::json!({
        "engine": config.engine,
        "params": params,
        "spsa": config.spsa,
        "games": games,
    })
}

/// Runs (or resumes) the tuning of `params` as `config` says, writing progress lines to `log`.
/// `self_exe` is the program `engine.command = "ferz"` runs, as `ferz uci --tune`. A resumed run
/// refuses an engine program whose SHA-256 differs from the one that played its last iterations,
/// unless `accept_engine_change`.
///
/// # Errors
/// Bad settings, an unreadable book, a state from other settings, a changed engine, an engine
/// that cannot be started or a file that cannot be written.
pub fn run_spsa(
    config: &SpsaConfig,
    params: &[SpsaParam],
    self_exe: &Path,
    accept_engine_change: bool,
    control: &SpsaControl,
    log: &mut dyn Write,
) -> Result<Outcome, RunError> {
    let resolved = config.validate()?;
    let dir = &config.output.dir;
    std::fs::create_dir_all(dir).map_err(|error| RunError::Output { path: dir.display().to_string(), error })?;
    let settings = fingerprint(config, params);
    let state_path = dir.join("state.json");
    let mut state = match State::load(&state_path)? {
        Some(state) if state.settings != settings => return Err(RunError::OtherRun(state_path.display().to_string())),
        Some(state) => {
            let _ = writeln!(log, "Resuming {} after iteration {}", state_path.display(), state.iterations.len());
            state
        }
        None => State { settings, params: params.to_vec(), engines: Vec::new(), iterations: Vec::new() },
    };
    let book = if config.games.book.as_os_str().is_empty() {
        None
    } else {
        Some(load_book(&config.games.book, resolved.variant, None).map_err(|e| RunError::Book(e.to_string()))?)
    };
    let (command, program) = match resolved.command.clone() {
        // ferz lists its search parameters only when asked.
        EngineCommand::Ferz => (
            EngineCommand::External { program: self_exe.to_owned(), args: vec!["uci".to_owned(), "--tune".to_owned()] },
            self_exe.to_owned(),
        ),
        EngineCommand::External { program, args } => {
            (EngineCommand::External { program: program.clone(), args }, program)
        }
    };
    // A finished run plays no more games, so whatever program sits at the path now is no concern.
    let done = state.iterations.len() as u64;
    let engine = if done < config.spsa.iterations { Some(identify(&program, done + 1)?) } else { None };
    match (state.engines.last(), engine) {
        (_, None) => {}
        (Some(last), Some(engine)) if last.sha256 == engine.sha256 => {}
        (Some(last), Some(engine)) if !accept_engine_change => {
            return Err(RunError::EngineChanged {
                state: state_path.display().to_string(),
                was: Box::new(last.clone()),
                now: Box::new(engine),
            });
        }
        (last, Some(engine)) => {
            if last.is_some() || done > 0 {
                let _ = writeln!(
                    log,
                    "From iteration {} on, the engine is {} (SHA-256 {})",
                    engine.from_iteration,
                    engine.program,
                    short_sha(&engine.sha256)
                );
            }
            state.engines.push(engine);
        }
    }
    let n = config.spsa.iterations;
    let pairs = config.games.pairs_per_iteration;
    let _ = writeln!(
        log,
        "SPSA: {} parameters, {n} iterations of {pairs} game pairs, {}, concurrency {}; first iteration moves a \
         parameter by r_1·c_1 = {} per net game won",
        params.len(),
        resolved.limit,
        resolved.concurrency,
        params
            .iter()
            .map(|p| {
                let (c, r) = gains(p, config, 1);
                format!("{}: {:.3}", p.name, r * c)
            })
            .take(4)
            .collect::<Vec<_>>()
            .join(", ")
            + if params.len() > 4 { ", ..." } else { "" }
    );
    let started = Instant::now();
    let (mut overhead, mut games) = (Duration::ZERO, 0);
    let first = state.iterations.len() as u64 + 1;
    for k in first..=n {
        let begin = Instant::now();
        let theta = state.theta();
        let mut signs = SplitMix64::derive(config.spsa.seed, 2 * k);
        let delta: Vec<f64> = params.iter().map(|_| if signs.next_u64() & 1 == 0 { 1.0 } else { -1.0 }).collect();
        let gain: Vec<(f64, f64)> = params.iter().map(|p| gains(p, config, k)).collect();
        let side = |sign: f64| -> Vec<EngineOption> {
            let tuned = params.iter().zip(&theta).zip(&delta).zip(&gain).map(|(((p, &t), &d), &(c, _))| {
                EngineOption::new(p.name.clone(), p.option_value(p.clamp(t + sign * c * d)))
            });
            resolved.options.iter().cloned().chain(tuned).collect()
        };
        let openings = iteration_openings(config, &resolved, book.as_deref(), k);
        let match_config = match_config(&resolved, &command, [side(1.0), side(-1.0)], openings, self_exe, config);
        let games_start = Instant::now();
        let summary = run_match(&match_config, &[], control, &mut std::io::sink())?;
        let games_time = games_start.elapsed();
        if summary.unfinished() {
            let _ = writeln!(log, "Stopped during iteration {k}; it is played again on resume");
            return Ok(Outcome { state, finished: false, elapsed: started.elapsed(), overhead, games });
        }
        games += summary.games();
        let wdl = summary.wdl;
        let net = wdl.wins as f64 - wdl.losses as f64;
        let theta: Vec<f64> = params
            .iter()
            .zip(&theta)
            .zip(&delta)
            .zip(&gain)
            .map(|(((p, &t), &d), &(c, r))| p.clamp(t + r * c * net * d))
            .collect();
        state.iterations.push(Iteration { k, wdl: [wdl.wins, wdl.draws, wdl.losses], theta });
        state.save(dir)?;
        let total = begin.elapsed();
        overhead += total.saturating_sub(games_time);
        let elapsed = started.elapsed().as_secs_f64();
        let per_hour = (k - first + 1) as f64 * 3600.0 / elapsed.max(1e-9);
        let _ = writeln!(
            log,
            "Iteration {k}/{n}: +{} ={} -{}  {per_hour:.1} iterations/h, {:.0} games/h, tuner overhead {:.3}%, {} left",
            wdl.wins,
            wdl.draws,
            wdl.losses,
            games as f64 * 3600.0 / elapsed.max(1e-9),
            100.0 * overhead.as_secs_f64() / elapsed.max(1e-9),
            hours((n - k) as f64 / per_hour.max(1e-9)),
        );
    }
    let _ = writeln!(log, "Done: {}", dir.join("result.params").display());
    Ok(Outcome { state, finished: true, elapsed: started.elapsed(), overhead, games })
}

/// The engine record of `program` (a path, or a name looked up on `PATH` as a child process's
/// program is) playing from iteration `from_iteration` on.
fn identify(program: &Path, from_iteration: u64) -> Result<EngineRecord, RunError> {
    let error = |error| RunError::EngineProgram { program: program.display().to_string(), error };
    let file = if program.components().count() > 1 {
        program.to_owned()
    } else {
        std::env::var_os("PATH")
            .and_then(|paths| std::env::split_paths(&paths).map(|dir| dir.join(program)).find(|path| path.is_file()))
            .ok_or_else(|| error(std::io::Error::new(std::io::ErrorKind::NotFound, "not found on PATH")))?
    };
    let (sha256, _) = ferz_dataset::manifest::sha256_file(&file).map_err(error)?;
    Ok(EngineRecord { from_iteration, program: file.display().to_string(), sha256 })
}

/// `h:mm`.
fn hours(hours: f64) -> String {
    let minutes = (hours * 60.0).round() as u64;
    format!("{}:{:02} h", minutes / 60, minutes % 60)
}

/// Iteration `k`'s openings: its own seed for the random plies (and the shuffle), and the next
/// `pairs` book entries.
fn iteration_openings(config: &SpsaConfig, resolved: &Resolved, book: Option<&[Opening]>, k: u64) -> Vec<Opening> {
    let pairs = config.games.pairs_per_iteration;
    let settings = OpeningSettings {
        variant: resolved.variant,
        order: resolved.book_order,
        seed: SplitMix64::derive(config.spsa.seed, 2 * k + 1).next_u64(),
        start: (k as usize - 1) * pairs,
        random_plies: config.games.random_plies,
    };
    schedule(book, &settings, pairs)
}

fn match_config(
    resolved: &Resolved,
    command: &EngineCommand,
    options: [Vec<EngineOption>; 2],
    openings: Vec<Opening>,
    self_exe: &Path,
    config: &SpsaConfig,
) -> MatchConfig {
    let [plus, minus] = options;
    let engine = |options, name: &str| EngineConfig {
        command: command.clone(),
        options,
        name: Some(name.to_owned()),
        ponder: false,
    };
    MatchConfig {
        engines: [engine(plus, "theta+"), engine(minus, "theta-")],
        variant: resolved.variant,
        openings,
        concurrency: resolved.concurrency,
        game: GameSettings {
            limit: resolved.limit,
            time_margin: Duration::from_millis(config.games.time_margin_ms),
            max_plies: Some(config.games.max_plies).filter(|&p| p > 0),
            draw_adjudication: resolved.draw,
            resign_adjudication: resolved.resign,
            ..GameSettings::default()
        },
        timeouts: Timeouts { handshake: resolved.handshake, ..Timeouts::default() },
        pgn: None::<PathBuf>,
        pgn_comments: false,
        sprt: None,
        event: "ferz spsa".to_owned(),
        self_exe: self_exe.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gains_follow_the_openbench_recipe() {
        let config = SpsaConfig::default();
        let p = SpsaParam {
            name: "X".to_owned(),
            integer: true,
            start: 0.0,
            min: -100.0,
            max: 100.0,
            c_end: 4.0,
            r_end: 0.002,
        };
        let mut config = config;
        config.games.pairs_per_iteration = 1;
        let (c_end, r_end) = gains(&p, &config, config.spsa.iterations);
        assert!((c_end - 4.0).abs() < 1e-9 && (r_end - 0.002).abs() < 1e-12, "{c_end} {r_end}");
        let (c_1, r_1) = gains(&p, &config, 1);
        // Early iterations perturb more and move further per net game won.
        assert!(c_1 > c_end && r_1 * c_1 > r_end * c_end);
    }
}
