//! Checking a sorted file: every record's key in order after the one before, and a checksum of
//! the records that does not depend on their order, to compare with the input's.

use std::path::Path;

use super::io::{open_input, read_full, read_sequentially};
use super::layout::{KeyWords, RecordLayout};
use crate::{SortError, Sorter};

/// Bytes read at a time.
const BLOCK: usize = 16 << 20;

/// What [`Sorter::check_file`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct FileCheck {
    /// Records in the file.
    pub records: u64,
    /// The first record whose key is out of order after the one before it (`None`: sorted).
    pub first_unsorted: Option<u64>,
    /// The sum of a 64-bit hash of each record, wrapping: the same for any order of the same
    /// records, so the input's and the output's agree when the sort lost or changed none.
    pub checksum: u64,
}

impl FileCheck {
    /// Whether every key is in order.
    #[must_use]
    pub fn is_sorted(&self) -> bool {
        self.first_unsorted.is_none()
    }
}

impl Sorter {
    /// Reads `path` and checks that its records are in this sorter's order of their keys, with
    /// the checksum of its records ([`FileCheck::checksum`]). `InvalidArgument` for a file that
    /// is not a whole number of records, and (as [`Sorter::sort_file`]) for float keys with a
    /// float order other than `Total`.
    pub fn check_file(&self, path: impl AsRef<Path>, layout: &RecordLayout) -> Result<FileCheck, SortError> {
        let path = path.as_ref();
        self.file_checks(layout)?;
        let record = layout.record_size();
        let (mut file, len) = open_input(path)?;
        if !len.is_multiple_of(record as u64) {
            return Err(SortError::InvalidArgument(format!(
                "{} holds {len} bytes, not a whole number of {record}-byte records",
                path.display()
            )));
        }
        read_sequentially(&file);
        let keys = KeyWords::new(layout, self.order());
        let words = keys.words();
        let (mut last, mut now) = (vec![0u64; words], vec![0u64; words]);
        let mut block = vec![0u8; (BLOCK / record).max(1) * record];
        let mut check = FileCheck { records: 0, first_unsorted: None, checksum: 0 };
        loop {
            let n = read_full(&mut file, &mut block, path)?;
            for rec in block[..n].chunks_exact(record) {
                keys.all_words(rec, &mut now);
                if check.records > 0 && now < last && check.first_unsorted.is_none() {
                    check.first_unsorted = Some(check.records);
                }
                std::mem::swap(&mut last, &mut now);
                check.checksum = check.checksum.wrapping_add(record_hash(rec));
                check.records += 1;
            }
            if n < block.len() {
                return Ok(check);
            }
        }
    }
}

/// A 64-bit hash of one record's bytes (8 at a time, multiplied and folded).
fn record_hash(rec: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut h = rec.len() as u64 ^ K;
    let mut chunks = rec.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
        h = (h ^ w).wrapping_mul(K).rotate_left(29);
    }
    let mut tail = [0u8; 8];
    tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    h = (h ^ u64::from_le_bytes(tail)).wrapping_mul(K);
    h ^ (h >> 32)
}
