//! What a column's rows hold (`Kind`: a number of a key type, or a byte string of a fixed width)
//! and the checks of byte-string rows: one definition of the widths a byte key takes, for host,
//! device and foreign columns and `Sorter::sort_records_by_bytes`.

use super::{Column, Keys};
use crate::{KeyType, SortError};

/// The widest byte-string key a column takes, in bytes.
pub const MAX_BYTE_WIDTH: usize = 4096;

/// What a column's rows hold: a number of a key type, or a byte string of a fixed width whose
/// bits, first byte on top, are its ordered bits (`memcmp` order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Number(KeyType),
    Bytes(usize),
}

impl Kind {
    /// Bytes a row's key takes.
    pub(crate) fn size(self) -> usize {
        match self {
            Kind::Number(t) => t.size(),
            Kind::Bytes(width) => width,
        }
    }

    /// The key's ordered bits.
    pub(crate) fn bits(self) -> u32 {
        8 * self.size() as u32
    }
}

/// `InvalidArgument` unless `width` is a byte-key width a column takes and `bytes` a whole
/// number of rows of it.
pub(crate) fn check_byte_rows(bytes: usize, width: usize) -> Result<(), SortError> {
    if width == 0 || width > MAX_BYTE_WIDTH {
        return Err(SortError::InvalidArgument(format!(
            "byte keys of {width} bytes: a byte column's keys take 1 to {MAX_BYTE_WIDTH} bytes"
        )));
    }
    if !bytes.is_multiple_of(width) {
        return Err(SortError::InvalidArgument(format!("{bytes} bytes are not whole rows of {width}-byte keys")));
    }
    Ok(())
}

impl Column<'_> {
    /// What the column's rows hold.
    pub(crate) fn kind(&self) -> Kind {
        match self.keys {
            Keys::Numbers(v) => Kind::Number(v.key_type()),
            Keys::Bytes { width, .. } => Kind::Bytes(width),
        }
    }

    /// `InvalidArgument` for a byte column whose rows are not whole keys of a width it takes.
    pub(crate) fn check_rows(&self) -> Result<(), SortError> {
        match self.keys {
            Keys::Numbers(_) => Ok(()),
            Keys::Bytes { rows, width } => check_byte_rows(rows.len(), width),
        }
    }
}
