//! A value that cannot work, and the checks that find it.
//!
//! Serde rejects what has the wrong shape (an unknown key, a word where a number belongs, a
//! name outside an enum); these checks cover what serde cannot see: ranges and rules between
//! fields. Each names the dotted key, the value as written and what to change, so every
//! settings file reports a bad value the same way.

use std::borrow::Cow;
use std::fmt::Display;
use std::ops::RangeInclusive;

/// A value that cannot work, with the key that holds it.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
#[error("{key} = {value}: {reason}")]
pub struct InvalidSetting {
    /// The dotted key, such as `search.nodes` (built at run time for a key of a table whose
    /// keys are names, such as `search.params.LMR_BASE`).
    pub key: Cow<'static, str>,
    /// The value as written.
    pub value: String,
    /// What to change (built at run time when it names limits kept elsewhere, such as a UCI
    /// option's).
    pub reason: Cow<'static, str>,
}

impl InvalidSetting {
    /// A bad `value` of `key`, and what to change.
    pub fn new(
        key: impl Into<Cow<'static, str>>,
        value: impl Display,
        reason: impl Into<Cow<'static, str>>,
    ) -> InvalidSetting {
        InvalidSetting { key: key.into(), value: value.to_string(), reason: reason.into() }
    }
}

/// `Ok` when `ok` holds, else `value` of `key` is bad for `reason`. For rules between fields,
/// where `value` is the one to blame.
///
/// # Errors
/// The [`InvalidSetting`] when `ok` is false.
pub fn check(
    ok: bool,
    key: impl Into<Cow<'static, str>>,
    value: impl Display,
    reason: impl Into<Cow<'static, str>>,
) -> Result<(), InvalidSetting> {
    if ok { Ok(()) } else { Err(InvalidSetting::new(key, value, reason)) }
}

/// `value` of `key` must lie in `range`.
///
/// # Errors
/// The [`InvalidSetting`] when it does not.
pub fn in_range<T: PartialOrd + Display>(
    key: &'static str,
    value: T,
    range: RangeInclusive<T>,
    reason: impl Into<Cow<'static, str>>,
) -> Result<(), InvalidSetting> {
    check(range.contains(&value), key, value, reason)
}

/// `value` of `key` must lie in `limits`, kept elsewhere (an engine option's); the reason
/// names them: `use {min} to {max} {unit}`.
///
/// # Errors
/// The [`InvalidSetting`] when it does not.
pub fn within_limits<T: Copy + Display + TryInto<i64>>(
    key: &'static str,
    value: T,
    limits: RangeInclusive<i64>,
    unit: &str,
) -> Result<(), InvalidSetting> {
    let inside = value.try_into().is_ok_and(|v| limits.contains(&v));
    check(inside, key, value, format!("use {} to {} {unit}", limits.start(), limits.end()))
}

/// `value` of `key` must be at least `min`.
///
/// # Errors
/// The [`InvalidSetting`] when it is smaller.
pub fn at_least<T: PartialOrd + Display>(
    key: &'static str,
    value: T,
    min: T,
    reason: impl Into<Cow<'static, str>>,
) -> Result<(), InvalidSetting> {
    check(value >= min, key, value, reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_pass_or_name_the_key_value_and_reason() {
        assert_eq!(check(true, "a.b", 1, "why"), Ok(()));
        let err = check(false, "a.b", "x", "use y").unwrap_err();
        assert_eq!(err.to_string(), "a.b = x: use y");
        assert_eq!(in_range("s.n", 5, 1..=5, "r"), Ok(()));
        assert_eq!(in_range("s.n", 1, 1..=5, "r"), Ok(()));
        let err = in_range("s.n", 6, 1..=5, "use 1 to 5").unwrap_err();
        assert_eq!((err.key.as_ref(), err.value.as_str(), err.reason.as_ref()), ("s.n", "6", "use 1 to 5"));
        assert_eq!(at_least("s.m", 1_u64, 1, "r"), Ok(()));
        assert_eq!(at_least("s.m", 0_u64, 1, "use at least 1").unwrap_err().to_string(), "s.m = 0: use at least 1");
        assert_eq!(at_least("s.c", -3, 0, "use 0 or more").unwrap_err().value, "-3");
    }
}
