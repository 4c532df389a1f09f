//! The API token, kept out of logs, errors and `Debug` output.

use std::fmt;
use std::sync::Arc;

/// What the token is replaced with wherever text that might contain it is shown.
pub const REDACTED: &str = "<redacted>";

/// A Lichess (or PyChess) personal access token.
///
/// The only way to read it back is crate-private: `Debug` prints [`REDACTED`] and there is no
/// `Display`, so a token cannot reach a log line or an error message by formatting.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(Arc<str>);

impl Token {
    /// Wraps a token string. Surrounding whitespace (a trailing newline from a secret file) is
    /// dropped, because the server would reject it and the error would not say why.
    pub fn new(token: impl AsRef<str>) -> Self {
        Token(Arc::from(token.as_ref().trim()))
    }

    /// Whether the token is empty (not configured).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The secret itself, for the `Authorization` header and the token-test body only.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }

    /// Replaces every occurrence of the token in `text` (a response body may echo it: the
    /// token-test endpoint keys its answer by token).
    pub(crate) fn redact(&self, text: &str) -> String {
        // Very short tokens would redact ordinary words; real tokens are long.
        if self.0.len() < 4 { text.to_owned() } else { text.replace(&*self.0, REDACTED) }
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Token({REDACTED})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_and_redact_hide_the_secret() {
        let token = Token::new(" lip_secret123\n");
        assert_eq!(token.expose(), "lip_secret123");
        assert_eq!(format!("{token:?}"), "Token(<redacted>)");
        assert_eq!(token.redact("{\"lip_secret123\":null}"), "{\"<redacted>\":null}");
    }
}
