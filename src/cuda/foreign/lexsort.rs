//! [`Sorter::lexsort_foreign`]'s work: the permutation that sorts the rows of another library's
//! device columns, written into its index array (`lexsort::device`, the pipeline every device
//! lexsort takes).

use cudarc::driver::sys::{CUdeviceptr, CUstream};

use super::{disjoint, Borrowed, Target};
use crate::columns::{check_byte_rows, Kind};
use crate::cuda::argsort::DevicePosition;
use crate::cuda::columns::Source;
use crate::cuda::lexsort;
use crate::{ArgIndex, ForeignColumn, SortError, Sorter};

/// [`Sorter::lexsort_foreign`]'s work, once its arguments are here.
///
/// # Safety
/// As [`Sorter::lexsort_foreign`].
pub(crate) unsafe fn lexsort_foreign<I: ArgIndex>(
    sorter: &Sorter,
    columns: &[ForeignColumn],
    len: usize,
    out: CUdeviceptr,
    stream: CUstream,
) -> Result<(), SortError> {
    if columns.is_empty() {
        return Err(SortError::InvalidArgument("a lexsort needs at least one column".into()));
    }
    if len as u64 > 1 << 32 {
        return Err(SortError::InvalidArgument(format!("{len} rows: a device lexsort takes at most 2^32")));
    }
    if len == 0 {
        return Ok(());
    }
    let index = size_of::<I>();
    let target = Target::open(sorter, stream)?;
    target.check_array(out, len, index, "out")?;
    for c in columns {
        let size = c.kind.size();
        match c.kind {
            // Byte strings are read a byte at a time: aligned to nothing.
            Kind::Bytes(width) => {
                check_byte_rows(width, width)?;
                target.check_array(c.keys, len.saturating_mul(width), 1, "keys")?;
            }
            Kind::Number(_) => target.check_array(c.keys, len, size, "keys")?,
        }
        // The inputs may share memory (they are only read); none may share the output's.
        disjoint(&[(out, len * index, "out"), (c.keys, len * size, "keys")])?;
        if let Some(m) = c.nulls {
            target.check_array(m, len, 1, "nulls")?;
            disjoint(&[(out, len * index, "out"), (m, len, "nulls")])?;
        }
    }
    let floats = sorter.float_order();
    let sources: Vec<Source> = columns
        .iter()
        .map(|c| Source {
            keys: c.keys,
            kind: c.kind,
            nulls: c.nulls.unwrap_or(0),
            how: crate::columns::ColumnOrder { floats: Some(c.how.floats.unwrap_or(floats)), ..c.how },
        })
        .collect();
    match index {
        4 => target.lexsort::<u32>(&sources, out, len, sorter),
        _ => target.lexsort::<u64>(&sources, out, len, sorter),
    }
}

impl Target {
    fn lexsort<P: DevicePosition>(
        &self,
        sources: &[Source],
        op: CUdeviceptr,
        len: usize,
        sorter: &Sorter,
    ) -> Result<(), SortError> {
        // SAFETY: checked by `check_array` and apart from the inputs; written by nothing else and
        // live until the work ends (the caller's contract).
        let mut out = unsafe { Borrowed::<P>::new(&self.stream, op, len) };
        lexsort::device(&self.gpu, &self.stream, sources, sorter.order(), &mut out)
    }
}
