//! Small PGN helpers shared by every writer of PGN files (matches, self-play).

/// Joins PGN movetext tokens (move numbers, SAN moves, `{comments}`, the result) with single
/// spaces into lines of at most `width` characters (PGN's export format keeps lines under 80);
/// a token longer than `width` gets a line of its own. No trailing newline.
pub fn wrap_movetext<S: AsRef<str>>(tokens: impl IntoIterator<Item = S>, width: usize) -> String {
    let mut out = String::new();
    let mut line_len = 0;
    for token in tokens {
        let token = token.as_ref();
        if line_len > 0 && line_len + 1 + token.len() > width {
            out.push('\n');
            line_len = 0;
        } else if line_len > 0 {
            out.push(' ');
            line_len += 1;
        }
        out.push_str(token);
        line_len += token.len();
    }
    out
}

/// The proleptic Gregorian date `(year, month, day)` of a day count since 1970-01-01 (Howard
/// Hinnant's `civil_from_days`), so that no date crate is needed for one header.
#[must_use]
pub fn civil_date(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// Today's date (UTC) as the PGN `Date` tag writes it: `YYYY.MM.DD`.
#[must_use]
pub fn pgn_date_today() -> String {
    let days = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() / 86_400);
    let (y, m, d) = civil_date(days as i64);
    format!("{y:04}.{m:02}.{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates_match_the_calendar() {
        assert_eq!(civil_date(0), (1970, 1, 1));
        assert_eq!(civil_date(-1), (1969, 12, 31));
        assert_eq!(civil_date(19_723), (2024, 1, 1));
        assert_eq!(civil_date(19_782), (2024, 2, 29));
        assert_eq!(civil_date(20_778), (2026, 11, 21));
        assert_eq!(pgn_date_today().len(), 10);
    }
}
