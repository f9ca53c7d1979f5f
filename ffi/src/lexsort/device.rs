//! `gpusort_lexsort_device`: the multi-key sort of columns already in GPU memory, on the caller's
//! stream. The descriptors are host memory and checked here; the device addresses in them are
//! never dereferenced, the driver checks them (as for `gpusort_argsort_device`).

use std::ffi::c_void;

use super::gpusort_column;
use crate::sorter::gpusort_sorter;
use crate::status::gpusort_status;

#[cfg(feature = "cuda")]
mod on_device {
    //! The call into the library, which exists only with the `cuda` feature.
    use std::ffi::c_void;

    use gpusort_core::ForeignColumn;

    use super::super::{descriptors, gpusort_column, KeyKind, Options};
    use crate::args::{GPUSORT_ALGORITHM_AUTO, GPUSORT_ASCENDING};
    use crate::device::{address, on_device::stream};
    use crate::sort::with_sorter;
    use crate::sorter::gpusort_sorter;
    use crate::status::gpusort_status;

    /// Column `i` as the library takes it, its options checked.
    fn foreign(c: &gpusort_column, i: usize) -> Result<ForeignColumn, crate::failure::Failure> {
        let how = Options::of(c, i)?;
        let keys = match how.kind {
            KeyKind::Number(ty) => ForeignColumn::new(address(c.keys), ty),
            KeyKind::Bytes(width) => ForeignColumn::bytes(address(c.keys), width),
        };
        let mut column = keys.with_order(how.order);
        if let Some(floats) = how.floats {
            column = column.with_float_order(floats);
        }
        if !c.nulls.is_null() {
            column = column.with_nulls(address(c.nulls.cast()), how.nulls);
        }
        Ok(column)
    }

    pub(super) unsafe fn lexsort(
        sorter: *const gpusort_sorter,
        columns: *const gpusort_column,
        num_columns: usize,
        len: usize,
        out: *mut c_void,
        stream_handle: *mut c_void,
    ) -> gpusort_status {
        // As on the host: each column has its own order, the sorter's stays ascending.
        with_sorter(sorter, GPUSORT_ASCENDING, GPUSORT_ALGORITHM_AUTO, |s| {
            let descriptors = descriptors(columns, num_columns)?.into_ref();
            let columns = descriptors.iter().enumerate().map(|(i, c)| foreign(c, i)).collect::<Result<Vec<_>, _>>()?;
            Ok(s.lexsort_foreign::<u64>(&columns, len, address(out), stream(stream_handle))?)
        })
    }
}

/// Writes the stable permutation that orders `len` rows by the key columns `columns[0]`,
/// `columns[1]`, ... (as `gpusort_lexsort`) to the `len` `uint64_t` indices at `out`, the keys,
/// null masks and `out` all in GPU memory, on `stream`: the device form of `gpusort_lexsort`. The
/// `num_columns` descriptors themselves are host memory, read during the call only. The columns
/// are only read; they are packed into as few radix keys as their widths allow, and the
/// permutation stays on the device between passes.
///
/// The descriptors are checked as `gpusort_lexsort` checks them (at least one column, every enum
/// field known: `GPUSORT_INVALID_ARGUMENT` naming `columns[i]`) before any backend is asked. Then
/// the sorter must have a GPU (`GPUSORT_UNSUPPORTED` otherwise) and every array must be memory of
/// its device, aligned, inside one allocation, with `out` apart from the columns, and `stream` a
/// stream of that device's primary context or NULL: else `GPUSORT_INVALID_ARGUMENT`, before any
/// work is queued. Past 2^32 rows, `GPUSORT_INVALID_ARGUMENT`. Returns once the sort is queued;
/// synchronize `stream` before reading `out` on the host.
///
/// ```c
/// gpusort_column by[2] = {{.keys = d_city, .key_type = GPUSORT_KEY_U32},
///                         {.keys = d_score, .key_type = GPUSORT_KEY_F64, .order = GPUSORT_DESCENDING,
///                          .nulls = d_score_missing}};
/// gpusort_lexsort_device(NULL, by, 2, n, d_order, stream);   /* d_order: n uint64_t, cudaMalloc'd */
/// cudaStreamSynchronize(stream);
/// ```
///
/// # Safety
/// `columns` must point to `num_columns` readable descriptors. As `gpusort_sort_device_keys` for
/// every device array, except that other work may read (not write) the columns meanwhile.
#[no_mangle]
pub unsafe extern "C" fn gpusort_lexsort_device(
    sorter: *const gpusort_sorter,
    columns: *const gpusort_column,
    num_columns: usize,
    len: usize,
    out: *mut c_void,
    stream: *mut c_void,
) -> gpusort_status {
    #[cfg(feature = "cuda")]
    return on_device::lexsort(sorter, columns, num_columns, len, out, stream);
    #[cfg(not(feature = "cuda"))]
    {
        let _ = (sorter, columns, num_columns, len, out, stream);
        crate::device::without_cuda()
    }
}

#[cfg(all(test, feature = "cuda"))]
mod tests {
    //! The checks that need no GPU run everywhere; the sorts skip without one unless
    //! `GPUSORT_REQUIRE_GPU=1` (the GPU script sets it).
    use std::ptr::{null, null_mut};
    use std::sync::Arc;

    use gpusort_core::cudarc::driver::{CudaSlice, CudaStream, DevicePtr};
    use gpusort_core::{FloatOrder, Sorter};

    use super::super::tests::*;
    use super::super::GPUSORT_KEY_BYTES;
    use super::*;
    use crate::args::key_types::*;
    use crate::args::*;
    use crate::device::{gpusort_argsort_device, gpusort_sort_device_keys};
    use crate::failure::last_error;
    use gpusort_status::*;

    /// A CUDA sorter handle and a stream of its context, or `None` (the test skips) without a GPU
    /// unless `GPUSORT_REQUIRE_GPU=1`.
    fn gpu() -> Option<(Handle, Arc<CudaStream>)> {
        let Some(handle) = handle(GPUSORT_BACKEND_CUDA) else {
            assert_ne!(std::env::var("GPUSORT_REQUIRE_GPU").as_deref(), Ok("1"), "no CUDA device");
            return None;
        };
        let stream = Sorter::cuda().ok()?.cuda_context()?.new_stream().ok()?;
        Some((handle, stream))
    }

    fn addr<T>(buf: &CudaSlice<T>, s: &Arc<CudaStream>) -> *mut c_void {
        let (p, _sync) = buf.device_ptr(s);
        p as usize as *mut c_void
    }

    #[test]
    fn descriptors_are_checked_before_the_backend_is_asked() {
        let cpu = handle(GPUSORT_BACKEND_CPU).unwrap();
        let junk = 0x1000 as *const c_void;
        let good = gpusort_column {
            keys: junk,
            nulls: null(),
            key_type: GPUSORT_KEY_F32,
            order: GPUSORT_DESCENDING,
            float_order: GPUSORT_FLOAT_ORDER_NAN_LAST,
            null_placement: GPUSORT_NULLS_FIRST,
            key_bytes: 0,
        };
        let out = 0x2000 as *mut c_void;
        let st = unsafe { gpusort_lexsort_device(cpu.0, &good, 1, 10, out, null_mut()) };
        assert_eq!(st, GPUSORT_UNSUPPORTED, "a cpu sorter: {}", last_error());
        let bad = [
            (gpusort_column { key_type: 12, ..good }, "columns[1]: key type 12"),
            (gpusort_column { order: 2, ..good }, "columns[1]: order 2"),
            (gpusort_column { float_order: 5, ..good }, "columns[1]: float order 5"),
            (gpusort_column { null_placement: 2, ..good }, "columns[1]: null placement 2"),
            (gpusort_column { key_type: GPUSORT_KEY_BYTES, ..good }, "columns[1]: key_bytes 0"),
            (gpusort_column { key_bytes: 8, ..good }, "columns[1]: key_bytes 8 for keys of 4 bytes"),
        ];
        for (column, words) in bad {
            let two = [good, column];
            for len in [0, 10] {
                let st = unsafe { gpusort_lexsort_device(cpu.0, two.as_ptr(), 2, len, out, null_mut()) };
                assert!(st == GPUSORT_INVALID_ARGUMENT && last_error().contains(words), "{words}: {}", last_error());
            }
        }
        let st = unsafe { gpusort_lexsort_device(null(), &good, 0, 10, out, null_mut()) };
        assert!(st == GPUSORT_INVALID_ARGUMENT && last_error().contains("num_columns is 0"));
        let st = unsafe { gpusort_lexsort_device(null(), null(), 3, 10, out, null_mut()) };
        assert!(st == GPUSORT_INVALID_ARGUMENT && last_error().contains("columns is NULL"));
        let top = (usize::MAX & !0xFFF) as *const gpusort_column;
        let st = unsafe { gpusort_lexsort_device(null(), top, 1 << 40, 10, out, null_mut()) };
        assert!(st == GPUSORT_INVALID_ARGUMENT && last_error().contains("address space"));
        // No rows: nothing to look at, on any sorter.
        assert_eq!(unsafe { gpusort_lexsort_device(cpu.0, &good, 1, 0, null_mut(), null_mut()) }, GPUSORT_OK);
    }

    /// Uploads `columns` and sorts them on the device into `u64` indices; the indices, or the status.
    fn on_device(
        h: &Handle,
        s: &Arc<CudaStream>,
        columns: &[TestColumn],
        n: usize,
    ) -> Result<Vec<u64>, gpusort_status> {
        let keys: Vec<CudaSlice<u64>> = columns.iter().map(|c| s.clone_htod(&c.packed).unwrap()).collect();
        let nulls: Vec<Option<CudaSlice<u8>>> =
            columns.iter().map(|c| c.nulls.as_ref().map(|m| s.clone_htod(m).unwrap())).collect();
        let descriptors: Vec<gpusort_column> = columns
            .iter()
            .enumerate()
            .map(|(i, c)| gpusort_column {
                keys: addr(&keys[i], s),
                nulls: nulls[i].as_ref().map_or(null(), |m| addr(m, s).cast()),
                ..c.descriptor()
            })
            .collect();
        let out = s.alloc_zeros::<u64>(n).unwrap();
        let stream = s.cu_stream().cast();
        let st = unsafe { gpusort_lexsort_device(h.0, descriptors.as_ptr(), columns.len(), n, addr(&out, s), stream) };
        if st != GPUSORT_OK {
            return Err(st);
        }
        Ok(s.clone_dtoh(&out).unwrap())
    }

    #[test]
    fn device_columns_sort_like_the_reference() {
        let Some((h, s)) = gpu() else { return };
        let mut rng = 77;
        for shapes in TABLES {
            for pattern in 0..PATTERNS.len() {
                for &n in SIZES.iter().chain(&[65_537, 300_007]).filter(|&&n| n >= 2) {
                    let columns = table(shapes, pattern, n, &mut rng);
                    let got = on_device(&h, &s, &columns, n);
                    assert_eq!(got, Ok(reference(&columns, n, FloatOrder::Total)), "{shapes:?} {pattern} n={n}");
                }
            }
        }
        // The sorter's float order: lexsort columns naming none, the device argsort of floats;
        // the device sorts that keep total order refuse float keys.
        let np = with_floats(h.0, GPUSORT_FLOAT_ORDER_NAN_LAST);
        let stream = s.cu_stream().cast();
        for n in [2, 4097, 100_003] {
            let shape = [Shape(gpusort_core::KeyType::F32, GPUSORT_DESCENDING, GPUSORT_FLOAT_ORDER_DEFAULT, None)];
            let columns = table(&shape, 6, n, &mut rng);
            let want = reference(&columns, n, FloatOrder::NanLast);
            assert_eq!(on_device(&np, &s, &columns, n), Ok(want.clone()), "lexsort, NaN last, n={n}");
            let (keys, out) = (s.clone_htod(&columns[0].packed).unwrap(), s.alloc_zeros::<u64>(n).unwrap());
            let (kp, op) = (addr(&keys, &s), addr(&out, &s));
            let st = unsafe { gpusort_argsort_device(np.0, GPUSORT_KEY_F32, kp, n, op, GPUSORT_DESCENDING, stream) };
            assert_eq!((st, s.clone_dtoh(&out).unwrap()), (GPUSORT_OK, want), "argsort, NaN last, n={n}");
            let st = unsafe { gpusort_sort_device_keys(np.0, GPUSORT_KEY_F32, kp, n, GPUSORT_ASCENDING, 0, stream) };
            assert_eq!(st, GPUSORT_INVALID_ARGUMENT, "device keys in another float order: {}", last_error());
        }
    }

    #[test]
    fn host_memory_and_overlaps_are_refused_untouched() {
        let Some((h, s)) = gpu() else { return };
        let stream = s.cu_stream().cast();
        let d = s.clone_htod(&[3u32, 2, 1, 0, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9]).unwrap();
        let p = addr(&d, &s);
        let host = [4u32, 3, 2, 1];
        let out = s.clone_htod(&[7u64; 4]).unwrap();
        let column = |keys: *const c_void| gpusort_column {
            keys,
            nulls: null(),
            key_type: GPUSORT_KEY_U32,
            order: 0,
            float_order: 0,
            null_placement: 0,
            key_bytes: 0,
        };
        let cases = [
            ([column(host.as_ptr().cast())], addr(&out, &s), "host memory as keys"),
            ([column(p)], p.wrapping_byte_add(8), "out over the keys"),
            ([gpusort_column { nulls: addr(&out, &s).cast(), ..column(p) }], addr(&out, &s), "out over the nulls"),
            ([column(p.wrapping_byte_add(2))], addr(&out, &s), "misaligned keys"),
        ];
        for (columns, o, why) in cases {
            let st = unsafe { gpusort_lexsort_device(h.0, columns.as_ptr(), 1, 4, o, stream) };
            assert_eq!(st, GPUSORT_INVALID_ARGUMENT, "{why}");
        }
        assert_eq!(s.clone_dtoh(&out).unwrap(), [7; 4]);
        assert_eq!(s.clone_dtoh(&d).unwrap()[..5], [3, 2, 1, 0, 9]);
    }
}
