//! A request as the server read it, and the decoding of its parts.

use std::time::Instant;

/// A request as the server read it.
#[derive(Debug, Clone)]
pub struct Request {
    /// `GET`, `POST`, …
    pub method: String,
    /// The path as sent (still percent-encoded), without the query.
    pub path: String,
    /// The raw query string, `""` if none.
    pub query: String,
    /// Headers in the order sent, names lower-cased, values trimmed.
    pub headers: Vec<(String, String)>,
    /// The body (bytes that are not UTF-8 replaced).
    pub body: String,
    /// When the head had arrived.
    pub at: Instant,
}

impl Request {
    /// A header by lower-case name (the first if sent twice).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// The path split into percent-decoded segments, empty segments dropped.
    pub fn segments(&self) -> Vec<String> {
        self.path.split('/').filter(|s| !s.is_empty()).map(percent_decode).collect()
    }

    /// The query's pairs, decoded.
    pub fn query_pairs(&self) -> Vec<(String, String)> {
        decode_pairs(&self.query)
    }

    /// A query parameter by name, decoded (the first if sent twice).
    pub fn query_param(&self, name: &str) -> Option<String> {
        self.query_pairs().into_iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }

    /// The body read as a url-encoded form, decoded.
    pub fn form(&self) -> Vec<(String, String)> {
        decode_pairs(&self.body)
    }

    /// The body's fields: a JSON object's members (scalars written as text, strings without
    /// their quotes) if the body is JSON, else the url-encoded form. A JSON body that is not an
    /// object has no fields.
    pub fn fields(&self) -> Vec<(String, String)> {
        let json =
            self.header("content-type").is_some_and(|t| t.contains("json")) || self.body.trim_start().starts_with('{');
        if !json {
            return self.form();
        }
        let Ok(serde_json::Value::Object(map)) = serde_json::from_str::<serde_json::Value>(&self.body) else {
            return Vec::new();
        };
        map.into_iter()
            .map(|(k, v)| {
                let text = match v {
                    serde_json::Value::String(s) => s,
                    other => other.to_string(),
                };
                (k, text)
            })
            .collect()
    }

    /// Whether the client may send another request on this connection (it did not send
    /// `Connection: close`).
    pub fn keeps_alive(&self) -> bool {
        !self.header("connection").is_some_and(|c| c.eq_ignore_ascii_case("close"))
    }
}

/// Decodes `a=1&b=x%20y` into pairs; a pair without `=` has an empty value.
pub fn decode_pairs(s: &str) -> Vec<(String, String)> {
    s.split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (percent_decode(k), percent_decode(v))
        })
        .collect()
}

/// Decodes `%xx` escapes and `+` (a space); an invalid escape is kept as it is, and bytes that
/// do not form UTF-8 are replaced.
pub fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok().and_then(|h| u8::from_str_radix(h, 16).ok());
                match hex {
                    Some(b) => {
                        out.push(b);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(path: &str, query: &str, headers: &[(&str, &str)], body: &str) -> Request {
        Request {
            method: "POST".into(),
            path: path.into(),
            query: query.into(),
            headers: headers.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect(),
            body: body.into(),
            at: Instant::now(),
        }
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode("a%20b+c%2Fd"), "a b c/d");
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz%4"), "%zz%4");
        assert_eq!(percent_decode("%41"), "A");
        assert_eq!(percent_decode("%C3%A9"), "é");
    }

    #[test]
    fn query_form_segments_and_json_fields() {
        let r = request("/api/challenge/Bob%20by/accept", "a=1&b=x%20y&flag", &[], "reason=tooFast&x=%26");
        assert_eq!(r.segments(), ["api", "challenge", "Bob by", "accept"]);
        assert_eq!(r.query_param("b").as_deref(), Some("x y"));
        assert_eq!(r.query_param("flag").as_deref(), Some(""));
        assert_eq!(r.query_param("none"), None);
        assert_eq!(r.form(), [("reason".to_owned(), "tooFast".to_owned()), ("x".to_owned(), "&".to_owned())]);
        assert_eq!(r.fields(), r.form());

        let json = request("/", "", &[("content-type", "application/json")], r#"{"rated":true,"variant":"x"}"#);
        let mut fields = json.fields();
        fields.sort();
        assert_eq!(fields, [("rated".to_owned(), "true".to_owned()), ("variant".to_owned(), "x".to_owned())]);
        assert!(request("/", "", &[("content-type", "application/json")], "[1]").fields().is_empty());
    }

    #[test]
    fn connection_close_ends_keep_alive() {
        assert!(request("/", "", &[], "").keeps_alive());
        assert!(!request("/", "", &[("connection", "Close")], "").keeps_alive());
    }
}
