//! The parameters tuned, read from OpenBench's SPSA input format: one parameter per line,
//! `name, int, value, min, max, c_end, r_end` (`float` for real-valued options).

use serde::{Deserialize, Serialize};

/// One parameter: a spin option of the engine and its SPSA constants.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpsaParam {
    /// The UCI option's name.
    pub name: String,
    /// Whether values are sent rounded (`int`) or as decimals (`float`).
    pub integer: bool,
    /// The starting value.
    pub start: f64,
    /// The smallest value tried.
    pub min: f64,
    /// The largest value tried.
    pub max: f64,
    /// The perturbation at the last iteration (`c_end`).
    pub c_end: f64,
    /// The learning rate at the last iteration (`r_end`): a net won game then moves the
    /// parameter by `r_end·c_end`.
    pub r_end: f64,
}

impl SpsaParam {
    /// `value` as the engine's option takes it.
    #[must_use]
    pub fn option_value(&self, value: f64) -> String {
        if self.integer { format!("{}", value.round() as i64) } else { format!("{value:.4}") }
    }

    /// `value` held to the range.
    #[must_use]
    pub fn clamp(&self, value: f64) -> f64 {
        value.clamp(self.min, self.max)
    }
}

/// A line of the parameters file that is not `name, int|float, value, min, max, c_end, r_end`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{origin} line {line}: {message}")]
pub struct ParamSyntaxError {
    /// The file.
    pub origin: String,
    /// The line number, from 1.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// Parses OpenBench SPSA input (`#` starts a comment; blank lines are skipped). `origin` names
/// the text in errors.
///
/// # Errors
/// A malformed line, a value outside its range, a non-positive `c_end` or `r_end`, or a name
/// given twice.
pub fn parse_openbench(text: &str, origin: &str) -> Result<Vec<SpsaParam>, ParamSyntaxError> {
    let mut params: Vec<SpsaParam> = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let error = |message: String| ParamSyntaxError { origin: origin.to_owned(), line: index + 1, message };
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let (name, kind, numbers) = match fields.as_slice() {
            [name, kind, numbers @ ..] if numbers.len() == 5 && !name.is_empty() => (*name, *kind, numbers),
            _ => return Err(error(format!("expected `name, int, value, min, max, c_end, r_end`, got {line:?}"))),
        };
        let integer = match kind.to_ascii_lowercase().as_str() {
            "int" => true,
            "float" => false,
            other => return Err(error(format!("type {other:?}: expected int or float"))),
        };
        let mut values = [0.0; 5];
        for (value, text) in values.iter_mut().zip(numbers) {
            *value = text
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| error(format!("{text:?} is not a number")))?;
        }
        let [start, min, max, c_end, r_end] = values;
        if !(min <= start && start <= max) {
            return Err(error(format!("{name}: value {start} is outside {min}..={max}")));
        }
        if c_end <= 0.0 || r_end <= 0.0 {
            return Err(error(format!("{name}: c_end and r_end must be positive")));
        }
        if params.iter().any(|p| p.name.eq_ignore_ascii_case(name)) {
            return Err(error(format!("{name} is given twice")));
        }
        params.push(SpsaParam { name: (*name).to_owned(), integer, start, min, max, c_end, r_end });
    }
    if params.is_empty() {
        return Err(ParamSyntaxError { origin: origin.to_owned(), line: 0, message: "no parameters".to_owned() });
    }
    Ok(params)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_openbench_lines_and_names_the_bad_one() {
        let params = parse_openbench(
            "# search\nRfpMargin, int, 70, 30, 150, 6, 0.002\nLmr, float, 0.75, 0, 2, 0.1, 0.002\n",
            "x",
        )
        .unwrap();
        assert_eq!(params.len(), 2);
        assert!(params[0].integer && !params[1].integer);
        assert_eq!((params[0].start, params[0].c_end), (70.0, 6.0));
        assert_eq!(params[0].option_value(70.6), "71");
        let err = parse_openbench("A, int, 1, 0, 2, 1, 0.002\nB, int, 5, 0, 2, 1, 0.002\n", "p.txt").unwrap_err();
        assert_eq!(err.line, 2);
        assert!(err.to_string().contains("p.txt line 2") && err.to_string().contains("outside"), "{err}");
        assert!(parse_openbench("A, int, 1, 0\n", "x").is_err());
        let err = parse_openbench("garbage\n", "p.txt").unwrap_err();
        assert!(err.to_string().contains("p.txt line 1") && err.to_string().contains("garbage"), "{err}");
        assert!(parse_openbench("A, bool, 1, 0, 2, 1, 0.002\n", "x").is_err());
        assert!(parse_openbench("", "x").is_err());
    }
}
