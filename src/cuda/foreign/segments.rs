//! Segmented sorts of arrays owned by other libraries: keys, optional `u32` values and the `u64`
//! segment offsets, all given by device address, checked with the driver as the other foreign
//! arrays are (`mod.rs`), then sorted by the code behind [`Sorter::sort_segments_device`]
//! (`cuda/segments.rs`), which checks the offsets' contents on the device first.

use cudarc::driver::sys::{CUdeviceptr, CUstream};
use cudarc::driver::DeviceRepr;

use super::{disjoint, Borrowed, Target};
use crate::cuda::CudaBackend;
use crate::{Key, KeyType, Order, SortError, Sorter};

/// [`Sorter::sort_foreign_segments`]'s work, once its arguments are here.
///
/// # Safety
/// As [`Sorter::sort_foreign_segments`].
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn sort_foreign_segments(
    sorter: &Sorter,
    keys: CUdeviceptr,
    values: Option<CUdeviceptr>,
    len: usize,
    key_type: KeyType,
    offsets: CUdeviceptr,
    num_offsets: usize,
    stream: CUstream,
) -> Result<(), SortError> {
    if num_offsets == 0 {
        return Err(SortError::InvalidArgument("segment offsets: empty; give at least [0, len]".into()));
    }
    let target = Target::open(sorter, stream)?;
    target.check_array(offsets, num_offsets, 8, "offsets")?;
    let size = key_type.size();
    // The byte lengths cannot overflow: `check_array` accepted them.
    let mut arrays = vec![(offsets, num_offsets * 8, "offsets")];
    if len > 0 {
        target.check_array(keys, len, size, "keys")?;
        arrays.push((keys, len * size, "keys"));
        if let Some(values) = values {
            target.check_array(values, len, 4, "values")?;
            arrays.push((values, len * 4, "values"));
        }
    }
    disjoint(&arrays)?;
    let segments = (keys, values, len, offsets, num_offsets);
    let order = sorter.order();
    // 64-bit keys: positions sorted by key, then by segment (`cuda/segments/wide.rs`).
    crate::with_key_type!(key_type, K => target.segments::<K>(segments, order))
}

/// Keys, values (or none), length, offsets and their count, as `sort_foreign_segments` takes them.
type Segments = (CUdeviceptr, Option<CUdeviceptr>, usize, CUdeviceptr, usize);

impl Target {
    fn segments<K: Key + DeviceRepr>(&self, (kp, vp, len, op, count): Segments, order: Order) -> Result<(), SortError> {
        // SAFETY: checked by `check_array` (unless `len` is 0: then nothing reads or writes
        // them), not overlapping (checked by the caller); live and unshared, the offsets only
        // read, until the sort ends (caller's contract).
        let (mut keys, mut values, offsets) = unsafe {
            (
                Borrowed::<K>::new(&self.stream, kp, len),
                vp.map(|vp| Borrowed::<u32>::new(&self.stream, vp, len)),
                Borrowed::<u64>::new(&self.stream, op, count),
            )
        };
        // The limits of a backend bound host sorts only; a device-resident sort reads none of them.
        let backend = CudaBackend::on(self.gpu.clone());
        backend.sort_segments_device(&self.stream, &mut keys, values.as_deref_mut(), &offsets, order)
    }
}

#[cfg(test)]
mod tests {
    //! The checks that need no GPU run everywhere; the rest skip without a device (the Python
    //! package's device tests cover PyTorch and CuPy arrays on the GPU machine).
    use super::super::tests::cuda;
    use super::*;
    use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, ValidAsZeroBits};
    use std::sync::Arc;

    #[test]
    fn no_offsets_are_refused_first_and_a_cpu_sorter_has_no_device() {
        let cpu = Sorter::cpu();
        let null = std::ptr::null_mut();
        let r = unsafe { cpu.sort_foreign_segments(0x1000, None, 10, KeyType::U32, 0x2000, 0, null) };
        assert!(matches!(r, Err(SortError::InvalidArgument(_))), "{r:?}");
        for len in [0, 10] {
            let r = unsafe { cpu.sort_foreign_segments(0x1000, Some(0x3000), len, KeyType::F32, 0x2000, 2, null) };
            assert!(matches!(r, Err(SortError::Unsupported { .. })), "len {len}: {r:?}");
        }
    }

    /// Offsets cutting `n` items: `lengths` gives each segment's length in turn (cycled, the last
    /// segment cut short at `n`).
    fn offsets(n: usize, lengths: impl Iterator<Item = usize>) -> Vec<u64> {
        let mut o = vec![0u64];
        let mut at = 0usize;
        for l in lengths {
            if at == n {
                break;
            }
            at = (at + l).min(n);
            o.push(at as u64);
        }
        if at < n {
            o.push(n as u64);
        }
        o
    }

    /// A reproducible stream of numbers (xorshift).
    fn numbers(seed: u64) -> impl Iterator<Item = u64> {
        let mut x = seed | 1;
        std::iter::repeat_with(move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        })
    }

    /// Cuts of `n` keys: one segment, empty segments at both ends and inside, many short ones
    /// (0 to 50 keys), a few long ones.
    fn cuts(n: usize) -> Vec<Vec<u64>> {
        let third = n.div_ceil(3).max(1);
        let mut empty_ends = vec![0u64, 0];
        empty_ends.extend(offsets(n, [5, 0, 0, 17].into_iter().cycle()).into_iter().skip(1));
        empty_ends.push(n as u64);
        vec![
            vec![0, n as u64],
            empty_ends,
            offsets(n, numbers(n as u64).map(|x| (x % 51) as usize)),
            offsets(n, [third].into_iter().cycle()),
        ]
    }

    fn bits<K: Key>(v: &[K]) -> Vec<u8> {
        // SAFETY: the key types are plain numbers, without padding.
        unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) }.to_vec()
    }

    fn ptr<T>(d: &CudaSlice<T>, s: &Arc<CudaStream>) -> CUdeviceptr {
        // The guard only records an event; the tests synchronize before reading.
        d.device_ptr(s).0
    }

    /// Each cut of each length in both orders, keys alone and with values, against the host sort.
    fn matches_the_host<K: Key + DeviceRepr + ValidAsZeroBits>(sorter: &Sorter, key_type: KeyType, pool: &[K]) {
        let stream = sorter.cuda_context().unwrap().new_stream().unwrap();
        for n in [0usize, 1, 2, 3, 255, 4099, 300_007] {
            let keys: Vec<K> = numbers(7 + n as u64).take(n).map(|x| pool[(x % pool.len() as u64) as usize]).collect();
            for cut in cuts(n) {
                let o: Vec<usize> = cut.iter().map(|&x| x as usize).collect();
                let d_offsets = stream.clone_htod(&cut).unwrap();
                for order in [Order::Ascending, Order::Descending] {
                    let s = sorter.clone().with_order(order);
                    let what = format!("{key_type:?}, n = {n}, {} offsets, {order:?}", cut.len());
                    let (mut want_k, mut want_v) = (keys.clone(), (0..n as u32).collect::<Vec<_>>());
                    Sorter::cpu().with_order(order).sort_segments(&mut want_k, &mut want_v, &o).unwrap();
                    let (dk, dv) = (
                        stream.clone_htod(&keys).unwrap(),
                        stream.clone_htod(&(0..n as u32).collect::<Vec<_>>()).unwrap(),
                    );
                    let (kp, vp, op) = (ptr(&dk, &stream), ptr(&dv, &stream), ptr(&d_offsets, &stream));
                    let (count, cu) = (cut.len(), stream.cu_stream());
                    unsafe { s.sort_foreign_segments(kp, Some(vp), n, key_type, op, count, cu) }.unwrap();
                    assert_eq!(bits(&stream.clone_dtoh(&dk).unwrap()), bits(&want_k), "keys, {what}");
                    assert_eq!(stream.clone_dtoh(&dv).unwrap(), want_v, "values, {what}");
                    let alone = stream.clone_htod(&keys).unwrap();
                    unsafe { s.sort_foreign_segments(ptr(&alone, &stream), None, n, key_type, op, count, cu) }.unwrap();
                    assert_eq!(bits(&stream.clone_dtoh(&alone).unwrap()), bits(&want_k), "keys alone, {what}");
                }
            }
        }
    }

    #[test]
    fn foreign_segments_match_the_host_segmented_sort() {
        let Some(sorter) = cuda() else { return };
        matches_the_host(&sorter, KeyType::U32, &[5u32, 0, u32::MAX, 5, 17, 3, 1 << 31]);
        matches_the_host(&sorter, KeyType::I32, &[i32::MIN, -1, 0, 7, i32::MAX, 7, -7]);
        let f = [f32::NAN, -f32::NAN, -0.0, 0.0, 1.5, f32::NEG_INFINITY, 1.5, f32::INFINITY, -2.0];
        matches_the_host(&sorter, KeyType::F32, &f);
        matches_the_host(&sorter, KeyType::U64, &[5u64, 0, u64::MAX, 5, 17 << 40, 3, 1 << 63]);
        matches_the_host(&sorter, KeyType::I64, &[i64::MIN, -1, 0, 7 << 33, i64::MAX, 7 << 33, -7]);
        let f = [f64::NAN, -f64::NAN, -0.0, 0.0, 1.5, f64::NEG_INFINITY, 1.5, f64::INFINITY, -2.0, 5e-324];
        matches_the_host(&sorter, KeyType::F64, &f);
    }

    #[test]
    fn bad_offsets_and_pointers_are_refused_untouched() {
        let Some(sorter) = cuda() else { return };
        let stream = sorter.cuda_context().unwrap().new_stream().unwrap();
        let s = stream.cu_stream();
        let keys: Vec<u32> = (0..8).rev().collect();
        let dk = stream.clone_htod(&keys).unwrap();
        let dv = stream.clone_htod(&[0u32, 1, 2, 3, 4, 5, 6, 7]).unwrap();
        let wide = stream.clone_htod(&[9u64, 8, 7, 6, 5, 4, 3, 2]).unwrap();
        let (k, v, w) = (ptr(&dk, &stream), ptr(&dv, &stream), ptr(&wide, &stream));
        let host = [0u64, 8];
        let h = host.as_ptr() as u64;
        let bad_contents: [&[u64]; 5] = [&[0, 5, 3, 8], &[0, 7], &[0, 9], &[1, 8], &[0, 4, 8, 8, 9]];
        let wide_types = [KeyType::U64, KeyType::I64, KeyType::F64];
        for cut in bad_contents {
            let o = stream.clone_htod(cut).unwrap();
            for vp in [None, Some(v)] {
                let op = ptr(&o, &stream);
                let r = unsafe { sorter.sort_foreign_segments(k, vp, 8, KeyType::U32, op, cut.len(), s) };
                assert!(matches!(r, Err(SortError::InvalidArgument(_))), "{cut:?}: {r:?}");
                for key_type in wide_types {
                    let r = unsafe { sorter.sort_foreign_segments(w, vp, 8, key_type, op, cut.len(), s) };
                    assert!(matches!(r, Err(SortError::InvalidArgument(_))), "{key_type:?} {cut:?}: {r:?}");
                }
            }
        }
        let o = stream.clone_htod(&[0u64, 4, 8]).unwrap();
        let op = ptr(&o, &stream);
        // (keys, values, offsets, count) against the 8 keys at k.
        let bad = [
            (k, None, h, 2, "offsets in host memory"),
            (k, None, op + 4, 2, "offsets misaligned"),
            (k, None, op + 8, 3, "offsets past the end"),
            (k, Some(v + 2), op, 3, "values misaligned"),
            (k, Some(h), op, 3, "values in host memory"),
            (k + 4, None, op, 3, "keys past the end"),
            (k, Some(k), op, 3, "values over the keys"),
            (w, None, w + 32, 3, "offsets over the keys"),
            (k, Some(w), w + 8, 3, "offsets over the values"),
        ];
        for (kp, vp, op, count, why) in bad {
            let key_type = if kp == w { KeyType::U64 } else { KeyType::U32 };
            let r = unsafe { sorter.sort_foreign_segments(kp, vp, 8, key_type, op, count, s) };
            assert!(matches!(r, Err(SortError::InvalidArgument(_))), "{why}: {r:?}");
        }
        assert_eq!(stream.clone_dtoh(&dk).unwrap(), keys, "keys untouched");
        assert_eq!(stream.clone_dtoh(&dv).unwrap(), [0, 1, 2, 3, 4, 5, 6, 7], "values untouched");
        assert_eq!(stream.clone_dtoh(&wide).unwrap(), [9, 8, 7, 6, 5, 4, 3, 2], "64-bit keys untouched");
        // No keys: null addresses are fine, the offsets are still checked.
        let zero = stream.clone_htod(&[0u64, 0, 0]).unwrap();
        let zp = ptr(&zero, &stream);
        assert!(unsafe { sorter.sort_foreign_segments(0, Some(0), 0, KeyType::F32, zp, 3, s) }.is_ok());
        let r = unsafe { sorter.sort_foreign_segments(0, None, 0, KeyType::I32, op, 3, s) };
        assert!(matches!(r, Err(SortError::InvalidArgument(_))), "offsets past no keys: {r:?}");
    }
}
