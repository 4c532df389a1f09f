//! `[challenge] online_block_list`: user names to decline, read from text files on the web
//! (one name a line) at start and every `online_block_list_refresh_s` (those reads go out
//! beside the event loop, [`crate::refresh`]). A list that cannot be read keeps its last
//! contents, so a web server's bad hour never lets the blocked in.

use ferz_lichess::Client;

/// The lists of every address, each as last read.
#[derive(Clone, Debug, Default)]
pub(crate) struct OnlineBlockList {
    /// Per address: the names last read (`None` before the first successful read).
    lists: Vec<(String, Option<Vec<String>>)>,
    /// Every name of every list, lower case.
    names: Vec<String>,
}

/// The user names of a block-list file: one a line, trimmed, lower case; blank lines and lines
/// starting with `#` are skipped.
#[must_use]
pub(crate) fn parse(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(str::to_lowercase)
        .collect()
}

/// Reads the lists at `urls`, one after the other: each one's text, or why it could not be read.
pub(crate) async fn read(client: &Client, urls: &[String]) -> Vec<Result<String, String>> {
    let mut reads = Vec::with_capacity(urls.len());
    for url in urls {
        reads.push(client.fetch_text(url).await.map_err(|e| e.to_string()));
    }
    reads
}

impl OnlineBlockList {
    /// The lists at these addresses, none read yet.
    #[must_use]
    pub(crate) fn new(urls: &[String]) -> OnlineBlockList {
        OnlineBlockList { lists: urls.iter().map(|u| (u.clone(), None)).collect(), names: Vec::new() }
    }

    /// Whether there is any address to read.
    #[must_use]
    pub(crate) fn is_empty(&self) -> bool {
        self.lists.is_empty()
    }

    /// Every blocked name, lower case.
    #[must_use]
    pub(crate) fn names(&self) -> &[String] {
        &self.names
    }

    /// The addresses, in order.
    #[must_use]
    pub(crate) fn urls(&self) -> Vec<String> {
        self.lists.iter().map(|(url, _)| url.clone()).collect()
    }

    /// Reads every list again; failures are logged and keep the list's last contents.
    pub(crate) async fn refresh(&mut self, client: &Client) {
        let reads = read(client, &self.urls()).await;
        self.apply_all(reads);
    }

    /// Takes the outcome of reading every list, in the order of [`OnlineBlockList::urls`].
    pub(crate) fn apply_all(&mut self, reads: Vec<Result<String, String>>) {
        for (index, read) in reads.into_iter().enumerate() {
            self.apply(index, read);
        }
    }

    /// Takes the outcome of reading list `index`.
    pub(crate) fn apply(&mut self, index: usize, read: Result<String, String>) {
        let Some((url, list)) = self.lists.get_mut(index) else { return };
        match read {
            Ok(text) => {
                let names = parse(&text);
                tracing::info!(url = %url, names = names.len(), "online block list read");
                *list = Some(names);
            }
            Err(error) => tracing::warn!(
                url = %url,
                error = %error,
                kept = list.as_ref().map_or(0, Vec::len),
                "cannot read the online block list; keeping its last contents"
            ),
        }
        self.names = self.lists.iter().filter_map(|(_, l)| l.as_ref()).flatten().cloned().collect();
        self.names.sort_unstable();
        self.names.dedup();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_read_keeps_the_last_list() {
        assert_eq!(parse("Troll\n\n  # comment\n spammer  \r\n"), ["troll", "spammer"]);
        let mut list = OnlineBlockList::new(&["http://a/list.txt".into(), "http://b/list.txt".into()]);
        list.apply(1, Err("HTTP 500".into()));
        assert!(list.names().is_empty());
        list.apply(0, Ok("Troll\nspammer\n".into()));
        list.apply(1, Ok("troll\ncheater\n".into()));
        assert_eq!(list.names(), ["cheater", "spammer", "troll"]);
        list.apply(0, Err("network error".into()));
        assert_eq!(list.names(), ["cheater", "spammer", "troll"], "the failed list keeps its names");
        list.apply(0, Ok(String::new()));
        assert_eq!(list.names(), ["cheater", "troll"]);
    }
}
