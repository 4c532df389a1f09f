//! Which shard of how many `ferz selfplay` plays: from its flags, or from the scheduler that
//! started it.
//!
//! Schedulers hand each copy of a job its index in an environment variable: a Kubernetes
//! Indexed Job sets `JOB_COMPLETION_INDEX`, a Slurm job array `SLURM_ARRAY_TASK_ID` (and the
//! number of tasks in `SLURM_ARRAY_TASK_COUNT`). clap's `env` takes one variable per flag, so
//! the flags are resolved here: a flag given on the command line wins over any variable, and
//! two index variables that disagree are an error rather than a guess.

use std::collections::HashMap;

use anyhow::{Context, bail};
use ferz_selfplay::ShardSpec;

/// The index variable of a Kubernetes Indexed Job.
pub const KUBERNETES_INDEX: &str = "JOB_COMPLETION_INDEX";
/// The index variable of a Slurm job array task.
pub const SLURM_INDEX: &str = "SLURM_ARRAY_TASK_ID";
/// The number of tasks of a Slurm job array.
pub const SLURM_COUNT: &str = "SLURM_ARRAY_TASK_COUNT";

/// A resolved shard and, when they matter, notes for the log.
#[derive(Debug, PartialEq, Eq)]
pub struct Resolved {
    /// The shard to play.
    pub shard: ShardSpec,
    /// Where the index and the count came from, for the start line.
    pub origin: String,
    /// Warnings worth a line on stderr (a flag overriding a scheduler variable).
    pub warnings: Vec<String>,
}

fn number(env: &HashMap<String, String>, name: &str) -> anyhow::Result<Option<u32>> {
    env.get(name)
        .filter(|value| !value.trim().is_empty())
        .map(|value| {
            value
                .trim()
                .parse::<u32>()
                .with_context(|| format!("{name}={value:?} is not a shard number (0, 1, 2, ...)"))
        })
        .transpose()
}

/// Resolves `--shard-index` and `--shard-count` against the scheduler variables in `env`.
///
/// Index: the flag, else `JOB_COMPLETION_INDEX` or `SLURM_ARRAY_TASK_ID` (both set and
/// different is an error), else 0. Count: the flag, else `SLURM_ARRAY_TASK_COUNT`, else 1. A
/// count flag that differs from `SLURM_ARRAY_TASK_COUNT` is kept with a warning: re-running a
/// few shards of a run (`sbatch --array=3,7`) is such a case.
pub fn resolve(index: Option<u32>, count: Option<u32>, env: &HashMap<String, String>) -> anyhow::Result<Resolved> {
    let kubernetes = number(env, KUBERNETES_INDEX)?;
    let slurm = number(env, SLURM_INDEX)?;
    let slurm_count = number(env, SLURM_COUNT)?;
    let mut warnings = Vec::new();
    let (index, index_origin) = match (index, kubernetes, slurm) {
        (Some(flag), ..) => (flag, "--shard-index".to_owned()),
        (None, Some(k), Some(s)) if k != s => bail!(
            "{KUBERNETES_INDEX}={k} and {SLURM_INDEX}={s} disagree about the shard index; \
             unset one or pass --shard-index"
        ),
        (None, Some(k), _) => (k, KUBERNETES_INDEX.to_owned()),
        (None, None, Some(s)) => (s, SLURM_INDEX.to_owned()),
        (None, None, None) => (0, "default".to_owned()),
    };
    let (count, count_origin) = match (count, slurm_count) {
        (Some(flag), Some(tasks)) if flag != tasks => {
            warnings.push(format!(
                "--shard-count {flag} differs from {SLURM_COUNT}={tasks}: using {flag} (fine when the \
                 array re-runs some shards of a larger run)"
            ));
            (flag, "--shard-count".to_owned())
        }
        (Some(flag), _) => (flag, "--shard-count".to_owned()),
        (None, Some(tasks)) => (tasks, SLURM_COUNT.to_owned()),
        (None, None) => (1, "default".to_owned()),
    };
    if count == 0 {
        bail!("the shard count ({count_origin}) is 0; a run has at least one shard");
    }
    if index >= count {
        bail!(
            "shard index {index} ({index_origin}) is not below the shard count {count} ({count_origin}); \
             shard indices run from 0 to count - 1 (sbatch --array=0-{})",
            count - 1
        );
    }
    Ok(Resolved {
        shard: ShardSpec { index, count },
        origin: format!("index {index_origin}, count {count_origin}"),
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    fn shard(index: u32, count: u32) -> ShardSpec {
        ShardSpec { index, count }
    }

    #[test]
    fn without_flags_or_variables_one_shard() {
        assert_eq!(resolve(None, None, &env(&[])).unwrap().shard, shard(0, 1));
    }

    #[test]
    fn kubernetes_sets_the_index_and_the_flag_the_count() {
        let resolved = resolve(None, Some(16), &env(&[(KUBERNETES_INDEX, "5")])).unwrap();
        assert_eq!(resolved.shard, shard(5, 16));
        assert!(resolved.warnings.is_empty());
    }

    #[test]
    fn a_slurm_array_sets_index_and_count() {
        let resolved = resolve(None, None, &env(&[(SLURM_INDEX, "3"), (SLURM_COUNT, "4")])).unwrap();
        assert_eq!(resolved.shard, shard(3, 4));
        assert_eq!(resolved.origin, "index SLURM_ARRAY_TASK_ID, count SLURM_ARRAY_TASK_COUNT");
    }

    #[test]
    fn flags_win_over_variables() {
        let vars = env(&[(KUBERNETES_INDEX, "1"), (SLURM_INDEX, "2"), (SLURM_COUNT, "4")]);
        let resolved = resolve(Some(7), Some(8), &vars).unwrap();
        assert_eq!(resolved.shard, shard(7, 8));
        assert_eq!(resolved.warnings.len(), 1, "{:?}", resolved.warnings);
        assert!(resolved.warnings[0].contains("SLURM_ARRAY_TASK_COUNT=4"));
    }

    #[test]
    fn both_index_variables_must_agree() {
        let same = env(&[(KUBERNETES_INDEX, "2"), (SLURM_INDEX, "2"), (SLURM_COUNT, "4")]);
        assert_eq!(resolve(None, None, &same).unwrap().shard, shard(2, 4));
        let different = env(&[(KUBERNETES_INDEX, "1"), (SLURM_INDEX, "2"), (SLURM_COUNT, "4")]);
        let error = resolve(None, None, &different).unwrap_err().to_string();
        assert!(error.contains("JOB_COMPLETION_INDEX=1") && error.contains("SLURM_ARRAY_TASK_ID=2"), "{error}");
    }

    #[test]
    fn bad_values_name_the_variable() {
        let error = resolve(None, None, &env(&[(SLURM_INDEX, "two")])).unwrap_err().to_string();
        assert!(error.contains("SLURM_ARRAY_TASK_ID") && error.contains("two"), "{error}");
        let error = resolve(None, None, &env(&[(SLURM_INDEX, "4"), (SLURM_COUNT, "4")])).unwrap_err().to_string();
        assert!(error.contains("not below the shard count 4") && error.contains("SLURM_ARRAY_TASK_ID"), "{error}");
        let error = resolve(None, Some(0), &env(&[])).unwrap_err().to_string();
        assert!(error.contains("is 0"), "{error}");
    }

    #[test]
    fn empty_variables_count_as_unset() {
        let resolved = resolve(None, None, &env(&[(KUBERNETES_INDEX, ""), (SLURM_INDEX, "1"), (SLURM_COUNT, "2")]));
        assert_eq!(resolved.unwrap().shard, shard(1, 2));
    }
}
