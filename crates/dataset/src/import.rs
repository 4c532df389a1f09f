//! `ferz data import`: PGN games with `[%eval]` comments (the bot's own PGN files, Lichess
//! exports, any engine's PGN with evaluations) as a verified dataset.
//!
//! Each position after a move whose comment holds `[%eval E]` becomes a marlin record: the
//! position the evaluation describes, `E` as white-relative centipawns and the game's result.
//! `E` is written as Lichess writes it, from white's view: pawns (`0.17`, `-1.5`), optionally
//! with the depth after a comma (`0.31,12`, as the bot writes it), or a mate (`#3`, `#-2`).
//! Mates become ferz's own mate scores, as self-play records them (the search's
//! `Score::centipawns`): ±(32,000 − plies to mate), where a mate in `n` moves is `2n − 1` plies
//! away when the mating side is to move and `2n` when it is not; a mate further than 1,000 plies
//! is scored as one at 1,000. Evaluations in pawns are clamped below the mate range, to
//! ±30,999. Moves without an evaluation (book moves, the opponent's moves in the bot's files)
//! give no record, nor do positions without a legal move (mate, stalemate).
//!
//! Games without a result (`*`) are skipped and counted. A game that cannot be read (a broken
//! tag, no result marker, an unknown variant, a bad FEN, an illegal move, an unreadable or
//! misplaced evaluation) stops the import with an error naming the file, the game (its number
//! in the file, its line and players) and the move; with `skip_bad` it is skipped and counted
//! instead. The output is written as a shard is: data files under temporary names, renamed when
//! complete, the manifest ([`ImportManifest`], format [`IMPORT_FORMAT`]) last; a failed import
//! leaves no files behind.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use ferz_chess::{GameResult, PgnGame, PgnMove, Position, Variant, parse_pgn, write_pgn};
use serde::{Deserialize, Serialize};

use crate::error::DatasetError;
use crate::layout::{FileKind, MANIFEST_FILE, variant_name};
use crate::manifest::{FileEntry, Tally, sha256_file, write_json_atomic};
use crate::marlin;

/// The `format` value of imported datasets' manifests.
pub const IMPORT_FORMAT: &str = "ferz-import/1";

/// The score of mate on the board, as ferz's search counts it (`ferz_engine::score::MATE`).
pub const MATE_CP: i32 = 32_000;
/// The mate distance (plies) beyond which mates all score as this one.
const MATE_PLIES_CAP: i32 = 1_000;
/// The largest evaluation in pawns a record keeps: one below the mate range.
pub const MAX_EVAL_CP: i32 = MATE_CP - MATE_PLIES_CAP - 1;

/// One PGN file read by an import.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportSource {
    /// The path as given.
    pub path: String,
    /// Its size.
    pub bytes: u64,
    /// SHA-256 of its contents, lower-case hex.
    pub sha256: String,
    /// Games in the file.
    pub games: u64,
    /// Of those, imported.
    pub imported: u64,
    /// Skipped for having no result (`*`).
    pub unfinished: u64,
    /// Skipped as unreadable (with `--skip-bad`).
    pub bad: u64,
}

/// What an import left out, over all its files.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportSkips {
    /// Games without a result (`*`).
    pub unfinished_games: u64,
    /// Games that could not be read (only with `--skip-bad`; without it the import stops).
    pub bad_games: u64,
    /// Moves of imported games without an evaluation.
    pub moves_without_eval: u64,
    /// Evaluations of positions without a legal move (mate, stalemate), which are no records.
    pub terminal_positions: u64,
}

/// `manifest.json` of an imported dataset.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ImportManifest {
    /// Always [`IMPORT_FORMAT`].
    pub format: String,
    /// `ferz <version>`.
    pub engine: String,
    /// The PGN files, in the order read.
    pub sources: Vec<ImportSource>,
    /// What was left out.
    pub skipped: ImportSkips,
    /// Totals of the imported games (`terminations` from their `Termination` tags).
    pub tally: Tally,
    /// The files, with sizes and checksums.
    pub files: Vec<FileEntry>,
}

/// How an import treats games it cannot read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ImportOptions {
    /// Skip (and count) unreadable games instead of stopping at the first.
    pub skip_bad: bool,
}

/// An import's manifest and, with `skip_bad`, why each skipped game was skipped.
#[derive(Clone, Debug)]
pub struct ImportReport {
    /// The manifest written.
    pub manifest: ImportManifest,
    /// One sentence per skipped bad game, naming the file, the game and the move.
    pub bad_games: Vec<String>,
}

/// An evaluation from a `[%eval]` comment, white-relative.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Eval {
    /// Centipawns.
    Cp(i32),
    /// Mate in this many moves: positive when white mates, negative when black does.
    Mate(i32),
}

impl Eval {
    /// Reads the text after `%eval`: `0.17`, `-1.5`, `0.31,12` (with a depth), `#3`, `#-2`.
    ///
    /// # Errors
    /// What is wrong with the text.
    pub fn parse(text: &str) -> Result<Eval, String> {
        let value = text.split(',').next().unwrap_or_default().trim();
        let bad = || format!("evaluation {:?} is neither pawns (0.17) nor a mate (#-3)", text.trim());
        if let Some(mate) = value.strip_prefix('#') {
            return mate.trim_start_matches('+').parse::<i32>().map(Eval::Mate).map_err(|_| bad());
        }
        let pawns: f64 = value.parse().map_err(|_| bad())?;
        if !pawns.is_finite() {
            return Err(bad());
        }
        Ok(Eval::Cp((pawns * 100.0).round().clamp(-f64::from(MAX_EVAL_CP), f64::from(MAX_EVAL_CP)) as i32))
    }

    /// White-relative centipawns of the evaluation of `pos` (see the module's notes on mates).
    /// `None` for a mate that contradicts the position (`#0` where the side to move is not mated).
    #[must_use]
    pub fn white_cp(self, pos: &Position) -> Option<i32> {
        match self {
            Eval::Cp(cp) => Some(cp),
            Eval::Mate(0) => None,
            Eval::Mate(n) => {
                let white_mates = n > 0;
                let mover_mates = white_mates == pos.turn().is_white();
                let plies = (2 * n.abs() - i32::from(mover_mates)).min(MATE_PLIES_CAP);
                let cp = MATE_CP - plies;
                Some(if white_mates { cp } else { -cp })
            }
        }
    }
}

/// The `[%eval ...]` of a comment, if it has one.
fn eval_command(comment: &str) -> Option<&str> {
    let start = comment.find("[%eval")? + "[%eval".len();
    let rest = &comment[start..];
    Some(rest.split(']').next().unwrap_or(rest))
}

/// A game read for import: its start, moves and records.
struct ReadGame {
    variant: Variant,
    result: GameResult,
    plies: u64,
    records: Vec<[u8; marlin::RECORD_SIZE]>,
    pgn: String,
    termination: String,
    without_eval: u64,
    terminal: u64,
}

/// How a game is named in messages: its number in the file, its line and players.
fn game_name(index: usize, game: &PgnGame) -> String {
    let mut name = format!("game {} (line {}", index + 1, game.line);
    if let (Some(white), Some(black)) = (game.header("White"), game.header("Black")) {
        name.push_str(&format!(", {white} - {black}"));
    }
    if let Some(round) = game.header("Round").filter(|r| !r.is_empty() && *r != "?" && *r != "-") {
        name.push_str(&format!(", round {round}"));
    }
    name.push(')');
    name
}

/// A move as a reader finds it in the movetext: `12. e4` or `12... Nf6`.
fn move_name(pos: &Position, san: &str) -> String {
    let dots = if pos.turn().is_white() { "." } else { "..." };
    format!("move {}{dots} {san}", pos.fullmoves())
}

/// Reads one game; `Ok(None)` for a game without a result.
fn read_game(game: &PgnGame) -> Result<Option<ReadGame>, String> {
    if let Some(tag) = game.bad_tags.first() {
        return Err(format!("tag {tag} is not [Key \"Value\"]"));
    }
    let Some(marker) = game.result.as_deref() else {
        return Err("no result marker (1-0, 0-1, 1/2-1/2 or *): the file ends inside the game, or the next game \
                    begins without one"
            .to_owned());
    };
    let Some(result) = GameResult::from_pgn(marker).flatten() else { return Ok(None) };
    if let Some(tag) = game.header("Result").filter(|&tag| tag != marker) {
        return Err(format!("the Result tag says {tag} but the movetext ends with {marker}"));
    }
    let variant = game.variant(Variant::Chess)?;
    let start = match game.header("FEN") {
        Some(fen) => Position::from_fen(fen, variant).map_err(|e| format!("FEN {fen:?}: {e}"))?,
        None => Position::new(variant),
    };
    let mut comments: BTreeMap<usize, Vec<&str>> = BTreeMap::new();
    for (after, comment) in &game.comments {
        if *after == 0
            && let Some(text) = eval_command(comment)
        {
            return Err(format!(
                "[%eval{text}] before the first move: an evaluation follows the move whose position it scores"
            ));
        }
        comments.entry(*after).or_default().push(comment.trim());
    }
    let mut pos = start;
    let mut moves = Vec::with_capacity(game.moves.len());
    let mut records = Vec::new();
    let (mut without_eval, mut terminal) = (0, 0);
    for (index, san) in game.moves.iter().enumerate() {
        let mover = move_name(&pos, san);
        let mv = pos.parse_san(san).map_err(|e| format!("{mover}: {e}"))?;
        pos.play_unchecked(mv);
        let after = comments.get(&(index + 1)).map(Vec::as_slice).unwrap_or_default();
        moves.push(PgnMove { mv, comment: Some(after.join(" ")).filter(|c| !c.is_empty()) });
        let mut evals = after.iter().filter_map(|c| eval_command(c));
        let Some(text) = evals.next() else {
            without_eval += 1;
            continue;
        };
        if evals.next().is_some() {
            return Err(format!("{mover}: two evaluations of one position"));
        }
        let eval = Eval::parse(text).map_err(|e| format!("{mover}: {e}"))?;
        if pos.legal_moves().is_empty() {
            terminal += 1;
            continue;
        }
        let cp = eval
            .white_cp(&pos)
            .ok_or_else(|| format!("{mover}: a mate on the board (#0), but the side to move has legal moves"))?;
        records.push(marlin::encode(&pos, cp, result));
    }
    let termination = game.header("Termination").filter(|t| !t.is_empty()).unwrap_or("unknown").to_ascii_lowercase();
    // games.pgn counts games by their `[Event` tags, so every game starts with one; the setup
    // tags are written again from the start position.
    let mut tags: Vec<(&str, String)> = vec![("Event", game.header("Event").unwrap_or("?").to_owned())];
    for (key, value) in &game.headers {
        if !matches!(key.as_str(), "Event" | "Variant" | "SetUp" | "FEN") {
            tags.push((key.as_str(), value.clone()));
        }
    }
    let pgn = write_pgn(&tags, &start, &moves, None, marker);
    Ok(Some(ReadGame { variant, result, plies: moves.len() as u64, records, pgn, termination, without_eval, terminal }))
}

/// The data files being written, under temporary names until [`Outputs::finish`].
struct Outputs {
    dir: PathBuf,
    open: BTreeMap<String, (BufWriter<File>, u64)>,
}

impl Outputs {
    fn part(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.part"))
    }

    fn append(&mut self, kind: FileKind, bytes: &[u8], records: u64) -> Result<(), DatasetError> {
        let name = kind.file_name();
        if !self.open.contains_key(&name) {
            let path = self.part(&name);
            let file = File::create(&path).map_err(|e| DatasetError::new(&path, e.to_string()))?;
            self.open.insert(name.clone(), (BufWriter::with_capacity(1 << 16, file), 0));
        }
        let path = self.part(&name);
        let (writer, count) = self.open.get_mut(&name).expect("opened above");
        writer.write_all(bytes).map_err(|e| DatasetError::new(&path, e.to_string()))?;
        *count += records;
        Ok(())
    }

    /// Flushes every file to disk and gives it its name; returns the manifest's entries.
    fn finish(mut self) -> Result<Vec<FileEntry>, DatasetError> {
        let mut files = Vec::new();
        for (name, (writer, records)) in std::mem::take(&mut self.open) {
            let part = self.part(&name);
            let io = |e: std::io::Error| DatasetError::new(&part, e.to_string());
            let file = writer.into_inner().map_err(|e| io(e.into_error()))?;
            file.sync_all().map_err(io)?;
            let target = self.dir.join(&name);
            std::fs::rename(&part, &target).map_err(|e| DatasetError::new(&target, e.to_string()))?;
            let (sha256, bytes) = sha256_file(&target).map_err(|e| DatasetError::new(&target, e.to_string()))?;
            files.push(FileEntry { name, bytes, records, sha256 });
        }
        Ok(files)
    }

    /// Removes what a failed import wrote.
    fn abandon(mut self) {
        for name in std::mem::take(&mut self.open).into_keys() {
            let _ = std::fs::remove_file(self.part(&name));
        }
    }
}

/// Imports `inputs` (PGN files) into a new dataset directory `out`.
///
/// # Errors
/// A [`DatasetError`] naming the file, and for a bad game the game and the move; `out` then
/// holds nothing of the import.
pub fn import(out: &Path, inputs: &[PathBuf], options: ImportOptions) -> Result<ImportReport, DatasetError> {
    if inputs.is_empty() {
        return Err(DatasetError::new(out, "no PGN files to import"));
    }
    if out.join(MANIFEST_FILE).exists() {
        return Err(DatasetError::new(out, "already holds a dataset; choose another output directory"));
    }
    let created = !out.exists();
    std::fs::create_dir_all(out).map_err(|e| DatasetError::new(out, e.to_string()))?;
    let mut outputs = Outputs { dir: out.to_owned(), open: BTreeMap::new() };
    match import_into(&mut outputs, inputs, options) {
        Ok((sources, skipped, tally, bad_games)) => {
            let files = outputs.finish()?;
            let manifest = ImportManifest {
                format: IMPORT_FORMAT.to_owned(),
                engine: format!("ferz {}", env!("CARGO_PKG_VERSION")),
                sources,
                skipped,
                tally,
                files,
            };
            write_json_atomic(&out.join(MANIFEST_FILE), &manifest)
                .map_err(|e| DatasetError::new(out, e.to_string()))?;
            Ok(ImportReport { manifest, bad_games })
        }
        Err(e) => {
            outputs.abandon();
            if created {
                let _ = std::fs::remove_dir(out);
            }
            Err(e)
        }
    }
}

type Imported = (Vec<ImportSource>, ImportSkips, Tally, Vec<String>);

fn import_into(outputs: &mut Outputs, inputs: &[PathBuf], options: ImportOptions) -> Result<Imported, DatasetError> {
    let mut sources = Vec::new();
    let mut skipped = ImportSkips::default();
    let mut tally = Tally::default();
    let mut bad_games = Vec::new();
    for input in inputs {
        let bytes = std::fs::read(input).map_err(|e| DatasetError::new(input, e.to_string()))?;
        let text = String::from_utf8(bytes).map_err(|e| {
            DatasetError::new(input, format!("not UTF-8 text (byte {}): not a PGN file", e.utf8_error().valid_up_to()))
        })?;
        let (sha256, size) = sha256_file(input).map_err(|e| DatasetError::new(input, e.to_string()))?;
        let games = parse_pgn(&text);
        if games.is_empty() {
            return Err(DatasetError::new(input, "holds no PGN games"));
        }
        let mut source = ImportSource {
            path: input.display().to_string(),
            bytes: size,
            sha256,
            games: games.len() as u64,
            imported: 0,
            unfinished: 0,
            bad: 0,
        };
        for (index, game) in games.iter().enumerate() {
            let read = match read_game(game) {
                Ok(Some(read)) => read,
                Ok(None) => {
                    source.unfinished += 1;
                    continue;
                }
                Err(reason) => {
                    let reason = format!("{}: {reason}", game_name(index, game));
                    if !options.skip_bad {
                        return Err(DatasetError::new(input, reason));
                    }
                    bad_games.push(format!("{}: {reason}", input.display()));
                    source.bad += 1;
                    continue;
                }
            };
            let variant = variant_name(read.variant).to_owned();
            outputs.append(FileKind::Marlin(read.variant), &read.records.concat(), read.records.len() as u64)?;
            outputs.append(FileKind::Pgn, read.pgn.as_bytes(), 1)?;
            source.imported += 1;
            tally.games += 1;
            match read.result {
                GameResult::Win(ferz_chess::Color::White) => tally.white_wins += 1,
                GameResult::Win(ferz_chess::Color::Black) => tally.black_wins += 1,
                GameResult::Draw => tally.draws += 1,
            }
            *tally.games_by_variant.entry(variant.clone()).or_default() += 1;
            *tally.positions_by_variant.entry(variant).or_default() += read.records.len() as u64;
            *tally.terminations.entry(read.termination).or_default() += 1;
            tally.plies += read.plies;
            skipped.moves_without_eval += read.without_eval;
            skipped.terminal_positions += read.terminal;
        }
        skipped.unfinished_games += source.unfinished;
        skipped.bad_games += source.bad;
        sources.push(source);
    }
    if tally.games == 0 {
        return Err(DatasetError::new(
            &inputs[0],
            format!(
                "no game to import: {} without a result, {} unreadable",
                skipped.unfinished_games, skipped.bad_games
            ),
        ));
    }
    Ok((sources, skipped, tally, bad_games))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evaluations_read_as_lichess_and_the_bot_write_them() {
        assert_eq!(Eval::parse(" 0.17"), Ok(Eval::Cp(17)));
        assert_eq!(Eval::parse(" -1.5"), Ok(Eval::Cp(-150)));
        assert_eq!(Eval::parse(" 0.31,12"), Ok(Eval::Cp(31)));
        assert_eq!(Eval::parse(" #-3"), Ok(Eval::Mate(-3)));
        assert_eq!(Eval::parse(" #2,20"), Ok(Eval::Mate(2)));
        assert_eq!(Eval::parse(" 999"), Ok(Eval::Cp(MAX_EVAL_CP)));
        assert!(Eval::parse(" abc").unwrap_err().contains("\"abc\""));
        assert!(Eval::parse(" NaN").is_err());
        assert_eq!(eval_command("[%eval 0.17] [%clk 0:00:30]"), Some(" 0.17"));
        assert_eq!(eval_command("[%clk 0:00:30]"), None);
    }

    #[test]
    fn mates_score_as_the_search_scores_them() {
        let white = Position::new(Variant::Chess);
        let black =
            Position::from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", Variant::Chess).unwrap();
        // White to move and mating in 1: one ply away.
        assert_eq!(Eval::Mate(1).white_cp(&white), Some(31_999));
        // Black to move and white mating in 1: black's move, then white's.
        assert_eq!(Eval::Mate(1).white_cp(&black), Some(31_998));
        assert_eq!(Eval::Mate(-2).white_cp(&black), Some(-31_997));
        assert_eq!(Eval::Mate(-2).white_cp(&white), Some(-31_996));
        assert_eq!(Eval::Mate(5000).white_cp(&white), Some(31_000));
        assert!(Eval::Mate(1).white_cp(&white) > Eval::Mate(2).white_cp(&white));
        assert!(Eval::Mate(40).white_cp(&white) > Eval::Cp(MAX_EVAL_CP).white_cp(&white));
        assert_eq!(Eval::Mate(0).white_cp(&white), None);
    }
}
