//! The engine's side of NNUE: which nets are loaded and whether they are used ([`Nets`]), and
//! the per-thread accumulator stack the search keeps in step with its moves ([`NnueStack`]).
//!
//! The search copies positions instead of undoing moves, so the stack is indexed by ply: making
//! a move from ply `p` computes the accumulator of ply `p + 1` from its parent's, and returning
//! from the child needs nothing, since the next move at ply `p` overwrites the entry.

use std::path::Path;
use std::sync::{Arc, LazyLock};

use ferz_chess::{Color, Move, Position, Variant};
pub use ferz_nnue::NetVariant;
use ferz_nnue::features::move_delta;
pub use ferz_nnue::format::LoadError;
use ferz_nnue::{Accumulator, Network, embedded, format};

use crate::eval::EVAL_LIMIT;
use crate::limits::MAX_PLY;

/// Whether each variant uses its net unless `UseNNUE` says otherwise: `true` only for variants
/// whose shipped (embedded) net won its match against the hand-tuned evaluation: the chess net
/// and the Shatranj net each won a 10+0.1 SPRT (docs/nnue.md).
pub const USE_NNUE_BY_DEFAULT: [(NetVariant, bool); 2] = [(NetVariant::Chess, true), (NetVariant::Shatranj, true)];

/// The embedded nets, decoded once. The build checked them; a failure here would be a build bug.
static EMBEDDED: LazyLock<[Option<Arc<Network>>; 2]> = LazyLock::new(|| {
    [NetVariant::Chess, NetVariant::Shatranj].map(|variant| {
        embedded::bytes(variant)
            .map(|bytes| Arc::new(format::parse(bytes, Some(variant)).expect("embedded net checked by build.rs")))
    })
});

fn slot(variant: NetVariant) -> usize {
    usize::from(variant.code())
}

/// The net embedded for `variant`, if the build had one.
#[must_use]
pub fn embedded_net(variant: NetVariant) -> Option<Arc<Network>> {
    EMBEDDED[slot(variant)].clone()
}

/// The nets an engine evaluates with, and whether to use them.
#[derive(Clone, Debug)]
pub struct Nets {
    nets: [Option<Arc<Network>>; 2],
    /// Where each net came from: `None` for the embedded default.
    sources: [Option<String>; 2],
    /// `UseNNUE` once set; before that, each variant's [`USE_NNUE_BY_DEFAULT`], or `true` for
    /// a variant whose net was loaded from a file.
    use_nnue: Option<bool>,
}

impl Default for Nets {
    /// The embedded nets, used as [`USE_NNUE_BY_DEFAULT`] says.
    fn default() -> Nets {
        Nets {
            nets: [embedded_net(NetVariant::Chess), embedded_net(NetVariant::Shatranj)],
            sources: [None, None],
            use_nnue: None,
        }
    }
}

impl Nets {
    /// Sets `UseNNUE`: `true` evaluates with the variant's net wherever one is loaded, `false`
    /// always with the hand-tuned evaluation.
    pub fn set_use_nnue(&mut self, on: bool) {
        self.use_nnue = Some(on);
    }

    /// The value `UseNNUE` shows by default: whether any variant uses its net by default.
    #[must_use]
    pub fn use_nnue_default() -> bool {
        USE_NNUE_BY_DEFAULT.iter().any(|&(variant, on)| on && embedded_net(variant).is_some())
    }

    /// Loads the net at `path` for `variant`; on error the current net stays.
    ///
    /// # Errors
    /// A [`LoadError`] naming the file and what is wrong with it.
    pub fn load(&mut self, variant: NetVariant, path: &Path) -> Result<(), LoadError> {
        let net = format::load(path, Some(variant))?;
        self.set(variant, Some(Arc::new(net)), Some(path.display().to_string()));
        Ok(())
    }

    /// Restores the embedded net of `variant` (none if the build has none).
    pub fn reset(&mut self, variant: NetVariant) {
        self.set(variant, embedded_net(variant), None);
    }

    /// Installs `net` for `variant` (`None`: no net), with a description of where it came from.
    pub fn set(&mut self, variant: NetVariant, net: Option<Arc<Network>>, source: Option<String>) {
        self.nets[slot(variant)] = net;
        self.sources[slot(variant)] = source;
    }

    /// The net a search in `variant` evaluates with: `None` for the hand-tuned evaluation.
    ///
    /// Until `UseNNUE` is set, a variant uses its net if [`USE_NNUE_BY_DEFAULT`] says so or if
    /// the net was loaded from a file: naming a net file asks for that net, whichever order the
    /// options came in, while an embedded net that has not won its match stays off.
    #[must_use]
    pub fn active(&self, variant: Variant) -> Option<Arc<Network>> {
        let net_variant = NetVariant::of(variant);
        let from_file = self.sources[slot(net_variant)].is_some();
        let on = uses_net(self.use_nnue, USE_NNUE_BY_DEFAULT[slot(net_variant)].1, from_file);
        if on { self.nets[slot(net_variant)].clone() } else { None }
    }

    /// A one-line description of the net of `variant`, for `info string`.
    #[must_use]
    pub fn describe(&self, variant: NetVariant) -> String {
        match (&self.nets[slot(variant)], &self.sources[slot(variant)]) {
            (None, _) => format!("the hand-tuned evaluation (no {variant} net)"),
            (Some(net), source) => format!(
                "{variant} net {} ({:?}, hidden {}{}{})",
                source.as_deref().unwrap_or("<embedded>"),
                net.activation(),
                net.hidden(),
                match net.inputs() {
                    ferz_nnue::InputLayout::Plain => String::new(),
                    inputs => format!(", {inputs} inputs"),
                },
                match net.output_buckets() {
                    1 => String::new(),
                    buckets => format!(", {buckets} output buckets"),
                }
            ),
        }
    }
}

/// Whether a variant evaluates with its net: `UseNNUE` once set, else the variant's default or
/// a net loaded from a file (see [`Nets::active`]).
fn uses_net(use_nnue: Option<bool>, on_by_default: bool, from_file: bool) -> bool {
    use_nnue.unwrap_or(on_by_default || from_file)
}

/// One search thread's accumulators, indexed by ply.
///
/// Each is computed as soon as its move is made: nearly every node evaluates, and the update
/// right after the move finds the parent's accumulator still in cache (measured 1-6% faster in
/// `bench` CPU time than updating lazily when a node asks for its evaluation, docs/nnue.md).
#[derive(Debug, Default)]
pub struct NnueStack {
    net: Option<Arc<Network>>,
    accumulators: Vec<Accumulator>,
}

impl NnueStack {
    /// Sets up for a search from `root` with `net` (`None`: the hand-tuned evaluation).
    pub fn prepare(&mut self, net: Option<Arc<Network>>, root: &Position) {
        let Some(net) = net else {
            self.net = None;
            return;
        };
        let plies = MAX_PLY + 8;
        if self.accumulators.len() != plies || !self.accumulators[0].fits(&net) {
            self.accumulators = (0..plies).map(|_| Accumulator::new(&net)).collect();
        }
        self.accumulators[0].refresh(&net, root);
        self.net = Some(net);
    }

    /// Records that `mv`, made in `pos` at `ply`, leads to `child`, the position at `ply + 1`.
    #[inline]
    pub fn push(&mut self, ply: usize, pos: &Position, mv: Move, child: &Position) {
        if let Some(net) = &self.net {
            let (before, after) = self.accumulators.split_at_mut(ply + 1);
            after[0].update_from(net, &before[ply], &move_delta(pos, mv), child);
        }
    }

    /// Records a null move at `ply`: the position at `ply + 1` has the same pieces.
    #[inline]
    pub fn push_null(&mut self, ply: usize) {
        if self.net.is_some() {
            let (before, after) = self.accumulators.split_at_mut(ply + 1);
            after[0].clone_from(&before[ply]);
        }
    }

    /// The net's score of `pos` (the position at `ply`) for the side to move, or `None` when
    /// searching with the hand-tuned evaluation or when one side has a bare king. Self-play games
    /// are adjudicated long before a lone king is driven to the edge, so the data holds almost
    /// none of those endings and the net has not learned the technique; the hand-tuned
    /// evaluation's mop-up terms (king to the edge, to the bishop's corner) convert them.
    /// Accumulators stay up to date on every move either way, so nothing has to catch up.
    #[inline]
    pub fn evaluate(&mut self, pos: &Position, ply: usize) -> Option<i32> {
        self.net.as_ref()?;
        let board = pos.board();
        if board.by_color(Color::White).count() == 1 || board.by_color(Color::Black).count() == 1 {
            return None;
        }
        let net = self.net.as_ref()?;
        let score = ferz_nnue::evaluate(net, &self.accumulators[ply], pos);
        Some(score.clamp(-EVAL_LIMIT, EVAL_LIMIT))
    }
}

#[cfg(test)]
mod tests {
    use super::uses_net;

    /// Every embedded net is on by default today, so the engine's tests cannot reach the case
    /// this rule exists for: an embedded net that has not won its match stays off, a net named
    /// by a file is on, and `UseNNUE` decides over both.
    #[test]
    fn a_file_turns_a_net_on_and_use_nnue_decides_over_everything() {
        assert!(!uses_net(None, false, false), "an embedded net that has not won stays off");
        assert!(uses_net(None, false, true), "a net from a file is on");
        assert!(uses_net(None, true, false), "an embedded net that won is on");
        assert!(!uses_net(Some(false), true, true), "UseNNUE false turns every net off");
        assert!(uses_net(Some(true), false, false), "UseNNUE true turns every net on");
    }
}
