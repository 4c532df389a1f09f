//! An even sample of a dataset's positions: every n-th marlin record, read by seeking, since the
//! records have a fixed size. A merged dataset's records are in game order, so the sample is
//! spread over all of its games and both of a chess dataset's variants.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use ferz_chess::Position;

use crate::layout::FileKind;
use crate::marlin::{self, RECORD_SIZE};
use crate::{AnyManifest, DatasetError};

/// About `count` positions of the dataset in `dir` (of the `manifest` it was opened with,
/// [`crate::open_verified`]), evenly spaced over its marlin records in file order: all of them
/// when it has fewer. Text and PGN files are not read.
///
/// # Errors
/// A file that cannot be read or a record that does not decode, naming the file and the record.
pub fn sample_positions(dir: &Path, manifest: &AnyManifest, count: usize) -> Result<Vec<Position>, DatasetError> {
    let marlin_files: Vec<_> = manifest
        .files()
        .iter()
        .filter(|entry| matches!(FileKind::of_name(&entry.name), Some(FileKind::Marlin(_))))
        .collect();
    let total: u64 = marlin_files.iter().map(|entry| entry.records).sum();
    if count == 0 || total == 0 {
        return Ok(Vec::new());
    }
    let step = total.div_ceil(count as u64);
    let mut positions = Vec::with_capacity(count);
    // The global index of the first record of the file being read.
    let mut first = 0u64;
    for entry in marlin_files {
        let path = dir.join(&entry.name);
        let error = |reason: String| DatasetError::new(&path, reason);
        let mut file = File::open(&path).map_err(|e| error(e.to_string()))?;
        let mut index = (step - first % step) % step;
        while index < entry.records {
            let mut record = [0u8; RECORD_SIZE];
            file.seek(SeekFrom::Start(index * RECORD_SIZE as u64))
                .and_then(|_| file.read_exact(&mut record))
                .map_err(|e| error(format!("record {index}: {e}")))?;
            let decoded = marlin::decode(&record).map_err(|e| error(format!("record {index}: {e}")))?;
            positions.push(decoded.position);
            index += step;
        }
        first += entry.records;
    }
    Ok(positions)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::{ImportOptions, import};
    use crate::open_verified;

    /// A dataset of `games` imported games of eight positions each (`[%eval]` on every move).
    fn dataset(dir: &Path, games: usize) -> AnyManifest {
        let moves = "1. e4 { [%eval 0.2] } e5 { [%eval 0.3] } 2. Nf3 { [%eval 0.2] } Nc6 { [%eval 0.1] } \
                     3. Bb5 { [%eval 0.3] } a6 { [%eval 0.2] } 4. Ba4 { [%eval 0.3] } Nf6 { [%eval 0.2] } 1/2-1/2";
        let pgn: String =
            (0..games).map(|g| format!("[Event \"g{g}\"]\n[Result \"1/2-1/2\"]\n\n{moves}\n\n")).collect();
        let input = dir.join("games.pgn");
        std::fs::write(&input, pgn).unwrap();
        let out = dir.join("data");
        import(&out, &[input], ImportOptions::default()).unwrap();
        open_verified(&out).unwrap()
    }

    #[test]
    fn the_sample_is_every_nth_record_or_all_of_them() {
        let tmp = tempfile::tempdir().unwrap();
        let manifest = dataset(tmp.path(), 10);
        let data = tmp.path().join("data");
        let all = sample_positions(&data, &manifest, 1000).unwrap();
        assert_eq!(all.len() as u64, manifest.tally().positions());
        assert_eq!(all.len(), 80);
        // 80 records, about 20 asked for: every fourth, from the first.
        let some = sample_positions(&data, &manifest, 20).unwrap();
        assert_eq!(some.len(), 20);
        for (i, pos) in some.iter().enumerate() {
            assert_eq!(pos.fen(), all[i * 4].fen(), "sample {i}");
        }
        assert_eq!(sample_positions(&data, &manifest, 30).unwrap().len(), 27, "every third of 80");
        assert!(sample_positions(&data, &manifest, 0).unwrap().is_empty());
    }

    #[test]
    fn a_damaged_record_is_named() {
        let tmp = tempfile::tempdir().unwrap();
        let manifest = dataset(tmp.path(), 2);
        let data = tmp.path().join("data");
        let entry =
            manifest.files().iter().find(|e| matches!(FileKind::of_name(&e.name), Some(FileKind::Marlin(_)))).unwrap();
        let path = data.join(&entry.name);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[RECORD_SIZE * 2 + 31] = 9;
        std::fs::write(&path, bytes).unwrap();
        let error = sample_positions(&data, &manifest, 100).unwrap_err().to_string();
        assert!(error.contains(&entry.name) && error.contains("record 2"), "{error}");
    }
}
