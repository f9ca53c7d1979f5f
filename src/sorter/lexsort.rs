//! The permutation that sorts rows by several key columns (`lexsort`): one job for the sorter's
//! backend, which packs the columns into as few radix words as their widths allow and sorts them
//! least significant first (`columns.rs`).

use super::records::zeroed_positions;
use super::Sorter;
use crate::backend::SortJob;
use crate::{ArgIndex, Column, SortError};

impl Sorter {
    /// The stable permutation that orders the rows of `columns` by the first column, ties by the
    /// second, and so on: `p[0]`, `p[1]`, ... are row numbers in that order, and rows equal in
    /// every column keep their input order. Each [`Column`] has its own order, float order and
    /// nulls; a descending sorter reverses every column. Columns whose keys fit 64 bits together
    /// (two `u32`s, a `u8` and an `f32`, ...) sort as one key, others one pass per 64-bit word.
    /// The columns are only read. `InvalidArgument` without columns, for columns (or null masks) of
    /// different lengths, and past 2^32 rows.
    ///
    /// ```
    /// use gpusort::{Column, Order, Sorter};
    /// let year = [2024u16, 2023, 2024, 2023];
    /// let price = [9.5f32, 3.0, 12.0, 3.0];
    /// let p: Vec<u32> = Sorter::auto().lexsort(&[Column::new(&year), Column::new(&price).with_order(Order::Descending)])?;
    /// assert_eq!(p, [1, 3, 2, 0]);
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    pub fn lexsort(&self, columns: &[Column<'_>]) -> Result<Vec<u32>, SortError> {
        let n = columns.first().map_or(0, Column::len);
        let mut out = zeroed_positions(n, "lexsort indices (host memory)")?;
        self.lexsort_into(columns, &mut out)?;
        Ok(out)
    }

    /// [`Sorter::lexsort`] into `out` (`u32` or `u64` indices, one per row). On the GPU the
    /// columns go up at their own widths and only the indices come down; the words are packed,
    /// gathered and sorted on the device. On failure `out` holds what it held or the complete
    /// result, never part of one.
    pub fn lexsort_into<I: ArgIndex>(&self, columns: &[Column<'_>], out: &mut [I]) -> Result<(), SortError> {
        let n = out.len();
        check_columns(columns, n)?;
        if n.saturating_sub(1) as u64 > I::MAX {
            return Err(SortError::InvalidArgument(format!("{n} rows: u32 indices count up to 2^32; use u64")));
        }
        if n as u64 > 1 << 32 {
            return Err(SortError::InvalidArgument(format!("{n} rows: a lexsort takes at most 2^32")));
        }
        if n < 2 {
            self.check_config()?;
            out.iter_mut().for_each(|o| *o = I::from_position(0));
            return Ok(());
        }
        let columns: Vec<Column<'_>> = columns.iter().map(|c| c.floats_or(self.floats)).collect();
        self.run_stable(SortJob::Lexsort(&columns, I::positions(out)))
    }
}

/// Every column (and null mask) has `n` rows, and there is at least one column.
pub(crate) fn check_columns(columns: &[Column<'_>], n: usize) -> Result<(), SortError> {
    if columns.is_empty() {
        return Err(SortError::InvalidArgument("a lexsort needs at least one column".into()));
    }
    for (i, c) in columns.iter().enumerate() {
        c.check_rows().map_err(|e| match e {
            SortError::InvalidArgument(m) => SortError::InvalidArgument(format!("column {i}: {m}")),
            e => e,
        })?;
        if c.len() != n {
            return Err(SortError::InvalidArgument(format!("column {i} has {} keys, not {n}", c.len())));
        }
        if let Some(m) = c.nulls.filter(|m| m.len() != n) {
            return Err(SortError::InvalidArgument(format!("column {i}'s null mask has {} flags, not {n}", m.len())));
        }
    }
    Ok(())
}
