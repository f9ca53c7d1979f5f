//! [`Sorter::argsort_foreign`]'s work: the permutation of another library's device keys, written
//! into its index array (`argsort::device`, the pipeline every argsort takes).

use cudarc::driver::sys::{CUdeviceptr, CUstream};

use super::{disjoint, Borrowed, Target};
use crate::cuda::argsort::DevicePosition;
use crate::cuda::device_calls::{holds, Lent};
use crate::cuda::dispatch::DeviceSort;
use crate::cuda::key_class::CudaKey;
use crate::{Algorithm, ArgIndex, KeyType, Order, SortError, Sorter};

/// [`Sorter::argsort_foreign`]'s work, once its arguments are here.
///
/// # Safety
/// As [`Sorter::argsort_foreign`].
pub(crate) unsafe fn argsort_foreign<I: ArgIndex>(
    sorter: &Sorter,
    keys: CUdeviceptr,
    len: usize,
    key_type: KeyType,
    out: CUdeviceptr,
    stream: CUstream,
    lent: Lent,
) -> Result<(), SortError> {
    if len as u64 > 1 << 32 {
        return Err(SortError::InvalidArgument(format!("{len} keys: a device argsort takes at most 2^32")));
    }
    if len == 0 {
        return Ok(());
    }
    let (size, index) = (key_type.size(), size_of::<I>());
    let mut target = Target::open(sorter, stream)?;
    target.check_array(keys, len, size, "keys")?;
    target.check_array(out, len, index, "out")?;
    // The byte lengths cannot overflow: `check_array` accepted them.
    let arrays = [(keys, len * size, "keys"), (out, len * index, "out")];
    disjoint(&arrays)?;
    target.lend(lent, &arrays)?;
    let order = sorter.order();
    crate::with_key_type!(key_type, K => match index {
        4 => target.argsort::<K, u32>(keys, out, len, order),
        _ => target.argsort::<K, u64>(keys, out, len, order),
    })
}

impl Target {
    fn argsort<K: CudaKey, P: DevicePosition>(
        &self,
        kp: CUdeviceptr,
        op: CUdeviceptr,
        len: usize,
        order: Order,
    ) -> Result<(), SortError> {
        // SAFETY: checked by `check_array`, and disjoint; the keys only read, the output written by
        // nothing else, both live until the work ends (the caller's contract).
        let (keys, mut out) =
            unsafe { (Borrowed::<K>::new(&self.stream, kp, len), Borrowed::<P>::new(&self.stream, op, len)) };
        let sort = DeviceSort { algorithm: Algorithm::Radix, ..self.sort(order) };
        holds(self.arena.as_ref(), || K::argsort_need(&sort, len, size_of::<P>() > 4))?;
        K::device_argsort(&sort, &self.stream, &keys, &mut out)
    }
}
