//! Lexsort of columns already on the device: cudarc buffers (`lexsort_device`) and other
//! libraries' arrays by address (`lexsort_foreign`), both on the caller's stream.

use std::any::Any;
use std::sync::Arc;

use cudarc::driver::sys::{CUdeviceptr, CUstream};
use cudarc::driver::{CudaSlice, CudaStream, DeviceRepr};

use super::Sorter;
use crate::cuda::columns::Source;
use crate::cuda::lexsort;
use crate::{ArgIndex, DeviceColumn, ForeignColumn, SortError};

impl Sorter {
    /// [`Sorter::lexsort`] of device-resident columns into `out` (`u32` or `u64` indices on the
    /// device), queued on `stream`: each word of the columns is packed and sorted there, nothing
    /// crosses the bus. The columns are only read. Uses this sorter's device whatever its policy.
    /// `InvalidArgument` without columns, for columns, null masks or `out` of different lengths,
    /// and past 2^32 rows.
    ///
    /// ```no_run
    /// use gpusort::{DeviceColumn, Order, Sorter};
    /// let sorter = Sorter::cuda()?;
    /// let stream = sorter.cuda_context().expect("a cuda() sorter has a context").default_stream();
    /// let year = stream.clone_htod(&[2024u16 as u32, 2023, 2024, 2023]).expect("upload");
    /// let price = stream.clone_htod(&[9.5f32, 3.0, 12.0, 3.0]).expect("upload");
    /// let mut order = stream.alloc_zeros::<u64>(4).expect("alloc");
    /// let columns = [DeviceColumn::new(&year), DeviceColumn::new(&price).with_order(Order::Descending)];
    /// sorter.lexsort_device(&columns, &mut order, &stream)?;
    /// assert_eq!(stream.clone_dtoh(&order).expect("download"), [1, 3, 2, 0]);
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    pub fn lexsort_device<I: ArgIndex + DeviceRepr>(
        &self,
        columns: &[DeviceColumn<'_>],
        out: &mut CudaSlice<I>,
        stream: &Arc<CudaStream>,
    ) -> Result<(), SortError> {
        let n = out.len();
        if columns.is_empty() {
            return Err(SortError::InvalidArgument("a lexsort needs at least one column".into()));
        }
        for (i, c) in columns.iter().enumerate() {
            c.check_rows().map_err(|e| match e {
                SortError::InvalidArgument(m) => SortError::InvalidArgument(format!("column {i}: {m}")),
                e => e,
            })?;
            if c.len() != n || c.null_len().is_some_and(|m| m != n) {
                return Err(SortError::InvalidArgument(format!(
                    "column {i} (or its null mask) does not have {n} rows"
                )));
            }
        }
        if n as u64 > 1 << 32 {
            return Err(SortError::InvalidArgument(format!("{n} rows: a device lexsort takes at most 2^32")));
        }
        let backend = self.device_backend()?;
        let gpu = backend.bound_gpu()?;
        let mut guards = Vec::with_capacity(2 * columns.len());
        let sources: Vec<Source> = columns
            .iter()
            .map(|c| {
                let (keys, nulls) = c.addresses(stream, &mut guards);
                let how = crate::columns::ColumnOrder { floats: Some(c.how.floats.unwrap_or(self.floats)), ..c.how };
                Source { keys, kind: c.kind(), nulls, how }
            })
            .collect();
        let out = out as &mut dyn Any;
        let r = if let Some(out) = out.downcast_mut::<CudaSlice<u32>>() {
            lexsort::device(gpu, stream, &sources, self.order, out)
        } else if let Some(out) = out.downcast_mut::<CudaSlice<u64>>() {
            lexsort::device(gpu, stream, &sources, self.order, out)
        } else {
            unreachable!("ArgIndex is sealed: u32 and u64")
        };
        drop(guards);
        self.after_sort(r)
    }

    /// [`Sorter::lexsort_device`] of other libraries' columns, known by address, `len` rows each,
    /// into the `len` indices of `I` at device address `out`, on the caller's `stream`. Returns
    /// once the work is queued. `len` 0: `Ok` at once, nothing checked.
    ///
    /// `InvalidArgument`, before any work is queued, without columns, past 2^32 rows, for an array
    /// or stream [`Sorter::sort_foreign_keys`] would refuse, and when `out` overlaps a column or
    /// null mask (the inputs may share memory).
    ///
    /// # Safety
    ///
    /// As [`Sorter::sort_foreign_keys`], for every array, except that other work may read (not
    /// write) the columns and null masks meanwhile.
    pub unsafe fn lexsort_foreign<I: ArgIndex>(
        &self,
        columns: &[ForeignColumn],
        len: usize,
        out: CUdeviceptr,
        stream: CUstream,
    ) -> Result<(), SortError> {
        // SAFETY: the caller's contract, which this function's own restates.
        unsafe { crate::cuda::foreign::lexsort_foreign::<I>(self, columns, len, out, stream) }
    }
}
