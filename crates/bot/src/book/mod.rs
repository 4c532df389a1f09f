//! Moves before the engine searches: the Polyglot books of the game's variant, then the online
//! sources ([`crate::online`]), then the self-play opening cache. Everything is opened once at
//! start ([`Books::open`], [`Books::with_online`]); a game asks [`Books::choose`] on its turn,
//! the one place that decides this order.

pub(crate) mod cache;
pub(crate) mod polyglot;

use std::fmt;
use std::path::{Path, PathBuf};

use ferz_book::polyglot::{BookError, PolyglotBook};
use ferz_chess::{Game, Move};

use self::cache::CacheBook;
use self::polyglot::BookList;
use crate::config::{BookConfig, BookSelection, Variant};
use crate::online::{Online, OnlineMove};
use crate::setup::Rules;

/// Every opening move source of the bot, opened.
#[derive(Debug, Default)]
pub(crate) struct Books {
    /// Polyglot books for standard and From Position games.
    chess: BookList,
    /// Polyglot books for Chess960 games.
    chess960: BookList,
    selection: BookSelection,
    min_weight: u16,
    max_depth: u32,
    cache: Option<CacheBook>,
    cache_max_ply: u32,
    /// The online sources, asked between the Polyglot books and the cache.
    online: Online,
}

/// A book move and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BookChoice {
    /// The move, legal in the game's position.
    pub mv: Move,
    /// Its source, for the log.
    pub source: BookSource,
}

/// Where a book move came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum BookSource {
    /// A Polyglot book.
    Polyglot {
        /// The book file.
        file: PathBuf,
        /// The entry's weight.
        weight: u16,
        /// The weights of the entries it was chosen from, summed.
        total_weight: u32,
        /// How many entries it was chosen from.
        candidates: usize,
    },
    /// An online source.
    Online(OnlineMove),
    /// The self-play opening cache.
    Cache {
        /// The cache's score, centipawns for the side to move.
        score: i32,
        /// The depth of the search behind it.
        depth: u32,
    },
}

impl fmt::Display for BookSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BookSource::Polyglot { file, weight, total_weight, candidates } => {
                write!(f, "polyglot {} (weight {weight} of {total_weight}, {candidates} candidates)", file.display())
            }
            BookSource::Online(online) => write!(f, "online {online}"),
            BookSource::Cache { score, depth } => write!(f, "cache (score {score} cp, depth {depth})"),
        }
    }
}

/// Why the books cannot be opened: the bot does not start.
#[derive(Debug, thiserror::Error)]
pub enum BooksError {
    /// A Polyglot book is missing, unreadable, truncated or unsorted.
    #[error("{key}[{index}]: {error}")]
    Polyglot {
        /// The setting listing it.
        key: &'static str,
        /// Its place in the list.
        index: usize,
        /// What is wrong with it (part of the message, not a separate cause).
        error: BookError,
    },
    /// The opening cache directory does not exist.
    #[error(
        "book.cache: no opening cache at {} (`ferz selfplay` writes one; leave the key empty for none)",
        .0.display()
    )]
    NoCache(PathBuf),
}

impl Books {
    /// Opens every book the settings name. A Polyglot file that cannot be used or a cache
    /// directory that does not exist is an error; a cache that exists but is held by a
    /// running self-play process only costs the cache (with a warning), since that is a
    /// normal state of a machine that also generates games.
    ///
    /// # Errors
    /// The first book that cannot be used, with its setting and file.
    pub(crate) fn open(config: &BookConfig) -> Result<Books, BooksError> {
        let list = |key: &'static str, files: &[PathBuf]| -> Result<BookList, BooksError> {
            let mut books = Vec::with_capacity(files.len());
            for (index, file) in files.iter().enumerate() {
                let book = PolyglotBook::open(file).map_err(|error| BooksError::Polyglot { key, index, error })?;
                tracing::info!(setting = key, file = %file.display(), entries = book.len(), "Polyglot book opened");
                books.push(book);
            }
            Ok(BookList::new(books))
        };
        let chess = list("book.chess", &config.chess)?;
        let chess960 = list("book.chess960", &config.chess960)?;
        let cache = open_cache(config)?;
        Ok(Books {
            chess,
            chess960,
            selection: config.selection,
            min_weight: config.min_weight,
            max_depth: config.max_depth,
            cache,
            cache_max_ply: config.cache_max_ply,
            online: Online::default(),
        })
    }

    /// The same books with the online sources `online` between the Polyglot books and the
    /// cache (they need the bot's client, which exists only after the books are checked).
    #[must_use]
    pub(crate) fn with_online(self, online: Online) -> Books {
        Books { online, ..self }
    }

    /// Whether no source at all is on (no Polyglot file, no online source, no cache).
    #[must_use]
    pub(crate) fn is_empty(&self) -> bool {
        self.chess.is_empty() && self.chess960.is_empty() && self.cache.is_none() && self.online.is_off()
    }

    /// A move for the position of the game `id`, if a source has one, in this order: the
    /// Polyglot books of the game's variant while the game is shorter than `max_depth` plies,
    /// then the online sources (each within its own limits, and while the game has not been out
    /// of their books `max_out_of_book_moves` times; `clock` is our time left, `None` without a
    /// clock), then the cache while the game is shorter than `cache_max_ply`.
    pub(crate) async fn choose(
        &self,
        id: &str,
        rules: &Rules,
        game: &Game,
        clock: Option<std::time::Duration>,
    ) -> Option<BookChoice> {
        self.choose_with(id, rules, game, clock, &mut fastrand::Rng::new()).await
    }

    /// The game `id` is over: what the sources kept for it goes.
    pub(crate) fn game_over(&self, id: &str) {
        self.online.game_over(id);
    }

    /// [`choose`](Books::choose) with a given random source.
    pub(crate) async fn choose_with(
        &self,
        id: &str,
        rules: &Rules,
        game: &Game,
        clock: Option<std::time::Duration>,
        rng: &mut fastrand::Rng,
    ) -> Option<BookChoice> {
        if let Some(choice) = self.polyglot(rules, game, rng) {
            return Some(choice);
        }
        if let Some((mv, online)) = self.online.choose(id, rules, game, clock, rng).await {
            return Some(BookChoice { mv, source: BookSource::Online(online) });
        }
        self.cached(game, rng)
    }

    /// A move from the Polyglot books of the game's variant, while the game is shorter than
    /// `max_depth` plies.
    fn polyglot(&self, rules: &Rules, game: &Game, rng: &mut fastrand::Rng) -> Option<BookChoice> {
        let plies = game.moves().len();
        let list = match Variant::from_key(&rules.key) {
            Some(Variant::Standard | Variant::FromPosition) => Some(&self.chess),
            Some(Variant::Chess960) => Some(&self.chess960),
            // Polyglot books know chess positions only.
            Some(Variant::Shatranj) | None => None,
        };
        if let Some(list) = list.filter(|l| !l.is_empty() && plies < self.max_depth as usize)
            && let Some(choice) = list.choose(game, self.selection, self.min_weight, rng)
        {
            let source = BookSource::Polyglot {
                file: choice.file,
                weight: choice.chosen.weight,
                total_weight: choice.total_weight,
                candidates: choice.candidates,
            };
            return Some(BookChoice { mv: choice.chosen.mv, source });
        }
        None
    }

    /// A move from the self-play cache, while the game is shorter than `cache_max_ply` plies.
    fn cached(&self, game: &Game, rng: &mut fastrand::Rng) -> Option<BookChoice> {
        let plies = game.moves().len();
        let cache = self.cache.as_ref().filter(|_| plies < self.cache_max_ply as usize)?;
        let found = cache.choose(game.position(), rng.f64())?;
        Some(BookChoice { mv: found.mv, source: BookSource::Cache { score: found.score, depth: found.depth } })
    }
}

fn open_cache(config: &BookConfig) -> Result<Option<CacheBook>, BooksError> {
    let path: &Path = &config.cache;
    if path.as_os_str().is_empty() {
        return Ok(None);
    }
    if !path.is_dir() {
        return Err(BooksError::NoCache(path.to_owned()));
    }
    match CacheBook::open(path, config.cache_min_depth, config.cache_margin_cp) {
        Ok(cache) => Ok(Some(cache)),
        Err(e) => {
            tracing::warn!(error = %e, "playing without the opening cache");
            Ok(None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferz_book::cache::OpeningCache;
    use ferz_book::polyglot::{Entry, game_key, polyglot_move, write_book};
    use ferz_chess::{Position, Variant as Rules960};

    /// A book that knows `uci` (weight `weight`) after `line` from the start position.
    fn book_entry(line: &[&str], uci: &str, weight: u16) -> Entry {
        let mut game = Game::new(Position::new(Rules960::Chess));
        for m in line {
            game.play_uci(m).unwrap();
        }
        let mv = game.position().parse_uci(uci).unwrap();
        Entry { key: game_key(&game), raw_move: polyglot_move(mv), weight, learn: 0 }
    }

    fn rules(key: &str) -> Rules {
        Rules::new(key, false, "startpos").unwrap()
    }

    #[tokio::test]
    async fn polyglot_first_then_the_cache_each_within_its_depth() {
        let dir = tempfile::tempdir().unwrap();
        let book = dir.path().join("a.bin");
        write_book(&book, &mut [book_entry(&[], "e2e4", 5), book_entry(&["e2e4", "e7e5"], "g1f3", 5)]).unwrap();
        let cache_dir = dir.path().join("cache");
        let start = Position::new(Rules960::Chess);
        {
            let cache = OpeningCache::open(&cache_dir).unwrap();
            cache.record_search(&start, 12, &[(start.parse_uci("d2d4").unwrap(), 10)]).unwrap();
            let after = start.play(start.parse_uci("a2a3").unwrap()).unwrap();
            cache.record_search(&after, 12, &[(after.parse_uci("h7h6").unwrap(), 10)]).unwrap();
            cache.flush().unwrap();
        }
        let config = BookConfig {
            chess: vec![book.clone()],
            max_depth: 2,
            cache: cache_dir,
            cache_max_ply: 2,
            ..BookConfig::default()
        };
        let books = Books::open(&config).unwrap();
        let mut game = Game::new(start);
        let standard = rules("standard");
        let choice = books.choose("g1", &standard, &game, None).await.unwrap();
        assert_eq!(game.position().uci(choice.mv), "e2e4");
        assert!(matches!(&choice.source, BookSource::Polyglot { file, weight: 5, .. } if *file == book));
        assert!(choice.source.to_string().starts_with("polyglot "), "{}", choice.source);
        // Chess960 games have no Polyglot book here, From Position games share chess's, and
        // Shatranj has none: the cache answers for the first two only by position.
        assert!(matches!(
            books.choose("g1", &rules("chess960"), &game, None).await.unwrap().source,
            BookSource::Cache { .. }
        ));
        assert_eq!(
            game.position().uci(books.choose("g1", &rules("fromPosition"), &game, None).await.unwrap().mv),
            "e2e4"
        );
        // Out of the Polyglot book (a2a3), the cache still has a move.
        game.play_uci("a2a3").unwrap();
        let cached = books.choose("g1", &standard, &game, None).await.unwrap();
        assert_eq!(game.position().uci(cached.mv), "h7h6");
        assert_eq!(cached.source, BookSource::Cache { score: 10, depth: 12 });
        // At two plies both depths are reached, though the book knows the position.
        let mut deep = Game::new(start);
        deep.play_uci("e2e4").unwrap();
        deep.play_uci("e7e5").unwrap();
        assert_eq!(books.choose("g1", &standard, &deep, None).await, None);
        let longer = Books::open(&BookConfig { max_depth: 3, ..config.clone() }).unwrap();
        assert_eq!(deep.position().uci(longer.choose("g1", &standard, &deep, None).await.unwrap().mv), "g1f3");
    }

    #[test]
    fn unusable_books_name_the_setting_and_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("good.bin");
        write_book(&good, &mut [book_entry(&[], "e2e4", 5)]).unwrap();
        let bad = dir.path().join("bad.bin");
        std::fs::write(&bad, [0u8; 20]).unwrap();
        let missing = dir.path().join("missing.bin");
        let err = |config: BookConfig| Books::open(&config).unwrap_err().to_string();
        let e = err(BookConfig { chess: vec![good.clone(), missing.clone()], ..BookConfig::default() });
        assert!(e.starts_with("book.chess[1]: ") && e.contains("missing.bin"), "{e}");
        let e = err(BookConfig { chess960: vec![bad], ..BookConfig::default() });
        assert!(e.starts_with("book.chess960[0]: ") && e.contains("bad.bin: truncated"), "{e}");
        let e = err(BookConfig { cache: dir.path().join("no-cache"), ..BookConfig::default() });
        assert!(e.starts_with("book.cache: no opening cache at ") && e.contains("no-cache"), "{e}");
        assert!(!dir.path().join("no-cache").exists(), "opening must not create the cache");
        Books::open(&BookConfig { chess: vec![good], ..BookConfig::default() }).unwrap();
    }
}
