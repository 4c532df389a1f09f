//! `ferz spsa`: SPSA (simultaneous perturbation stochastic approximation) over any UCI
//! engine's spin options, with the games played by `ferz-arena` (`ferz match`'s machinery:
//! engines as child processes, openings, clocks and arbitration).
//!
//! Each iteration perturbs every parameter by ±`c_k` at once, plays game pairs between the
//! engine at `θ + c_k·Δ` and at `θ − c_k·Δ`, and moves `θ` along `Δ` by the net score. The gains
//! follow the recipe of fishtest and OpenBench: `c_k = c_end·(N/k)^γ`, `a_k = a/(A + k)^α` with
//! `a = r_end·c_end²·(A + N)^α`, `A = N/10`, `α = 0.602`, `γ = 0.101`, with `k` and `N` counted
//! in game pairs as OpenBench counts them.
//!
//! - [`config`]: [`SpsaConfig`], what `config/spsa.toml` holds.
//! - [`param`]: [`SpsaParam`], the parameters in OpenBench's SPSA input format.
//! - [`state`]: [`State`], the resumable run (atomic writes), its CSV trajectory and SVG plot.
//! - [`run`]: [`run_spsa`], the loop.

pub mod config;
pub mod param;
pub mod run;
pub mod state;

pub use config::SpsaConfig;
pub use param::{SpsaParam, parse_openbench};
pub use run::{RunError, SpsaControl, run_spsa};
pub use state::{EngineRecord, State};
