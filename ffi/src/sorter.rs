//! The sorter handle, the process-wide default sorter, the float order option
//! (`gpusort_sorter_with_float_order`), `gpusort_describe` and `gpusort_release_memory`.

use std::borrow::Cow;
use std::ffi::c_char;
use std::sync::OnceLock;

use gpusort_core::{Algorithm, FloatOrder, Order, Sorter};

use crate::args::{
    float_order, gpusort_backend, gpusort_float_order, RawArray, GPUSORT_BACKEND_AUTO, GPUSORT_BACKEND_CPU,
    GPUSORT_BACKEND_CUDA,
};
use crate::failure::Failure;
use crate::guard::guard;
use crate::status::gpusort_status;
use crate::text::write_str;

/// A sorter: a backend (CPU or a CUDA GPU) with its device context and loaded kernels, kept
/// between calls. Opaque; create it with `gpusort_sorter_new`, free it with `gpusort_sorter_free`.
/// Every function that takes one also accepts NULL, meaning the process-wide default sorter
/// (`GPUSORT_BACKEND_AUTO`, created on first use and never freed).
///
/// Thread safety: a sorter may be used by several threads at once, including the default one;
/// each call sorts only the arrays it is given. Only `gpusort_sorter_free` needs exclusive
/// access: call it once, after every other call using that sorter has returned.
///
/// Fork: a process that forks after a sort may sort in the child: host sorts run on the CPU
/// backend's own thread pool, created anew in the child; a CUDA sorter inherited across fork
/// returns an error naming fork, and an auto sorter sorts on the CPU in the child.
pub struct gpusort_sorter {
    inner: Sorter,
}

static DEFAULT: OnceLock<Sorter> = OnceLock::new();

fn default_sorter() -> &'static Sorter {
    DEFAULT.get_or_init(Sorter::auto)
}

/// The sorter `handle` stands for (NULL: the default one).
///
/// # Safety
/// `handle` must be NULL or a live pointer from `gpusort_sorter_new`.
unsafe fn sorter<'a>(handle: *const gpusort_sorter) -> &'a Sorter {
    match handle.as_ref() {
        Some(h) => &h.inner,
        None => default_sorter(),
    }
}

/// The sorter `handle` stands for (NULL: the default one), sorting in `order` with `algorithm`.
///
/// # Safety
/// As `sorter`.
pub(crate) unsafe fn resolve<'a>(handle: *const gpusort_sorter, algorithm: Algorithm, order: Order) -> Cow<'a, Sorter> {
    let sorter = sorter(handle);
    if sorter.algorithm() == algorithm && sorter.order() == order {
        Cow::Borrowed(sorter)
    } else {
        // A clone shares the backends (reference counted); only the algorithm and order differ.
        Cow::Owned(sorter.clone().with_algorithm(algorithm).with_order(order))
    }
}

/// Creates a sorter on `backend` (`GPUSORT_BACKEND_AUTO`, `_CPU` or `_CUDA`) and stores it in
/// `*out`. `GPUSORT_BACKEND_AUTO` and `_CPU` always succeed; `_CUDA` fails with
/// `GPUSORT_NO_DRIVER`, `GPUSORT_NO_DEVICE`, `GPUSORT_UNSUPPORTED` (GPU older than compute
/// capability 7.5) or a driver error when there is no usable GPU. On failure `*out` is left as
/// it was. Free the sorter with `gpusort_sorter_free`.
///
/// # Safety
/// `out` must be NULL (an error) or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sorter_new(backend: gpusort_backend, out: *mut *mut gpusort_sorter) -> gpusort_status {
    guard(|| {
        if out.is_null() {
            return Err(Failure::invalid("out (where the new sorter goes) is NULL".into()));
        }
        let inner = match backend {
            GPUSORT_BACKEND_AUTO => Sorter::auto(),
            GPUSORT_BACKEND_CPU => Sorter::cpu(),
            GPUSORT_BACKEND_CUDA => Sorter::cuda()?,
            other => {
                return Err(Failure::invalid(format!(
                    "backend {other} is not one of the GPUSORT_BACKEND_* values (0..=2)"
                )))
            }
        };
        out.write(Box::into_raw(Box::new(gpusort_sorter { inner })));
        Ok(())
    })
}

/// Creates a CUDA sorter over several devices and stores it in `*out`: `ordinals[0..count]`, or
/// every usable device when `count` is 0 (`ordinals` may then be NULL). Host sorts (radix) of at
/// least `multi_gpu_from` items are spread over all of them as one stable sort: each device sorts
/// an equal share, the devices swap key ranges peer to peer and merge, and each range comes back
/// in place; 0 takes gpusort's default (`tuning::MULTI_GPU_FROM_ITEMS`, 64M). Everything else runs
/// on the first device. A device listed twice takes two shares of itself. Fails like
/// `GPUSORT_BACKEND_CUDA` in `gpusort_sorter_new` when a listed device is not usable, and with
/// `GPUSORT_INVALID_ARGUMENT` when `ordinals` is NULL with a nonzero `count`; `*out` is then left
/// as it was. Free the sorter with `gpusort_sorter_free`.
///
/// # Safety
/// `ordinals` must be NULL or valid for reads of `count` elements; `out` NULL (an error) or valid
/// for a write.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sorter_new_devices(
    ordinals: *const usize,
    count: usize,
    multi_gpu_from: usize,
    out: *mut *mut gpusort_sorter,
) -> gpusort_status {
    guard(|| {
        if out.is_null() {
            return Err(Failure::invalid("out (where the new sorter goes) is NULL".into()));
        }
        let ordinals = RawArray::new(ordinals.cast_mut(), count, "ordinals")?.into_ref();
        let inner = if ordinals.is_empty() { Sorter::cuda_all()? } else { Sorter::cuda_devices(ordinals)? };
        let inner = if multi_gpu_from > 0 { inner.with_multi_gpu_from(multi_gpu_from) } else { inner };
        out.write(Box::into_raw(Box::new(gpusort_sorter { inner })));
        Ok(())
    })
}

/// Creates a sorter like `sorter` (NULL: the default sorter) that orders float keys as
/// `float_order` (a `GPUSORT_FLOAT_ORDER_*` value; `_DEFAULT` is `_TOTAL`) says, and stores it in
/// `*out`. The new sorter shares the backend of `sorter` (its GPU, loaded kernels and the memory
/// kept between calls), so it is cheap to make; free it with `gpusort_sorter_free`, before or
/// after `sorter`. An unknown `float_order` or a NULL `out` is `GPUSORT_INVALID_ARGUMENT`, with
/// `*out` left as it was.
///
/// The float order applies to `gpusort_sort_keys_f32`/`_f64`, `gpusort_argsort_f32`/`_f64`,
/// `gpusort_argsort_device` of float keys, and the float columns of `gpusort_lexsort*` that name
/// no float order of their own. In a keys-only sort, keys that the order makes equal but whose
/// bits differ (`-0.0` and `+0.0`, NaNs of other signs or payloads) keep their input order. Every
/// other sort of float keys (pairs, segments, top-k, records, device keys) on a sorter whose float
/// order is not `GPUSORT_FLOAT_ORDER_TOTAL` is `GPUSORT_INVALID_ARGUMENT`, nothing written; keys of
/// other types sort as before.
///
/// ```c
/// gpusort_sorter *np = NULL;        /* NumPy's order: NaN last, -0.0 == +0.0 */
/// gpusort_sorter_with_float_order(NULL, GPUSORT_FLOAT_ORDER_NAN_LAST, &np);
/// double x[] = {NAN, 1.0, -0.0, 0.0};
/// uint64_t idx[4];
/// gpusort_argsort_f64(np, x, 4, idx, GPUSORT_DESCENDING);   /* idx: 1 2 3 0 */
/// gpusort_sorter_free(np);
/// ```
///
/// # Safety
/// `sorter` must be NULL or live; `out` NULL (an error) or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sorter_with_float_order(
    sorter: *const gpusort_sorter,
    float_order: gpusort_float_order,
    out: *mut *mut gpusort_sorter,
) -> gpusort_status {
    guard(|| {
        let floats = self::float_order(float_order)?.unwrap_or(FloatOrder::Total);
        if out.is_null() {
            return Err(Failure::invalid("out (where the new sorter goes) is NULL".into()));
        }
        // A clone shares the backends (reference counted): only the float order differs.
        let inner = self::sorter(sorter).clone().with_float_order(floats);
        out.write(Box::into_raw(Box::new(gpusort_sorter { inner })));
        Ok(())
    })
}

/// Frees a sorter from `gpusort_sorter_new`. NULL is a no-op. The sorter must not be used again,
/// nor be in use by another thread.
///
/// # Safety
/// `sorter` must be NULL or a pointer from `gpusort_sorter_new` not freed before.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sorter_free(sorter: *mut gpusort_sorter) {
    if !sorter.is_null() {
        // Dropping releases GPU resources; nothing of it may unwind into C.
        guard(|| {
            drop(Box::from_raw(sorter));
            Ok(())
        });
    }
}

/// Writes one line about `sorter` (NULL: the default sorter) into `buf`: the backend, the GPU,
/// and why the CPU is used where it is (for example "no CUDA driver found").
///
/// `buf` may be NULL only when `len` is 0. `written`, when not NULL, receives the line's full
/// length in bytes, not counting the NUL, whether or not it fitted: call with `len` 0 to size a
/// buffer of `*written + 1` bytes. When it does not fit, `buf` gets the longest prefix that does
/// (cut at a UTF-8 character boundary, NUL-terminated when `len > 0`) and the call returns
/// `GPUSORT_BUFFER_TOO_SMALL`.
///
/// # Safety
/// `sorter` must be NULL or live; `buf` valid for writes of `len` bytes; `written` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn gpusort_describe(
    sorter: *const gpusort_sorter,
    buf: *mut c_char,
    len: usize,
    written: *mut usize,
) -> gpusort_status {
    guard(|| write_str(&self::sorter(sorter).describe(), buf, len, written))
}

/// Frees the memory kept between sorts for speed: the pinned host staging buffers and the device
/// memory pool of the sorter's GPU, and the CPU backend's scratch buffer (up to 1 GiB). Every
/// sorter of the process shares them, so this frees them for all; the next sort allocates them
/// again. `sorter` may be NULL: the default sorter (if it was never used, only the CPU scratch
/// is freed: no GPU is opened just to free nothing).
///
/// Returns `GPUSORT_OK` (`GPUSORT_PANIC` only on a bug). Other threads may sort meanwhile, with
/// this or any sorter: memory a running sort uses stays allocated until it finishes, and this
/// call may wait for that sort.
///
/// # Safety
/// `sorter` must be NULL or a live pointer from `gpusort_sorter_new`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_release_memory(sorter: *const gpusort_sorter) -> gpusort_status {
    guard(|| {
        match (sorter.as_ref(), DEFAULT.get()) {
            (Some(h), _) => h.inner.release_memory(),
            (None, Some(default)) => default.release_memory(),
            // The CPU scratch is process-wide: any CPU sorter frees it.
            (None, None) => Sorter::cpu().release_memory(),
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::{GPUSORT_ALGORITHM_RADIX, GPUSORT_ASCENDING};
    use crate::sort::gpusort_sort_keys_u32;
    use std::ptr;

    fn sorted_after_release(sorter: *const gpusort_sorter, seed: u32) -> bool {
        let mut keys: Vec<u32> = (0..300_000u32).map(|i| i.wrapping_mul(2_654_435_761).rotate_left(seed)).collect();
        let st = unsafe {
            gpusort_sort_keys_u32(sorter, keys.as_mut_ptr(), keys.len(), GPUSORT_ASCENDING, GPUSORT_ALGORITHM_RADIX)
        };
        st == gpusort_status::GPUSORT_OK
            && unsafe { gpusort_release_memory(sorter) } == gpusort_status::GPUSORT_OK
            && keys.windows(2).all(|w| w[0] <= w[1])
    }

    #[test]
    fn device_lists_are_checked_and_sort_where_a_gpu_is() {
        let mut s = ptr::null_mut();
        // NULL ordinals with a count, or nowhere to put the sorter: refused, `out` untouched.
        assert_eq!(
            unsafe { gpusort_sorter_new_devices(ptr::null(), 2, 0, &mut s) },
            gpusort_status::GPUSORT_INVALID_ARGUMENT
        );
        assert!(s.is_null());
        let two = [0usize, 0];
        assert_eq!(
            unsafe { gpusort_sorter_new_devices(two.as_ptr(), 2, 0, ptr::null_mut()) },
            gpusort_status::GPUSORT_INVALID_ARGUMENT
        );
        // Two shares of device 0, spreading every sort: sorts where a GPU is, fails cleanly
        // (no sorter made) where none is.
        match unsafe { gpusort_sorter_new_devices(two.as_ptr(), 2, 1, &mut s) } {
            gpusort_status::GPUSORT_OK => {
                assert!(sorted_after_release(s, 3));
                unsafe { gpusort_sorter_free(s) };
            }
            other => {
                assert_ne!(other, gpusort_status::GPUSORT_PANIC);
                assert!(s.is_null());
            }
        }
    }

    #[test]
    fn release_memory_succeeds_for_every_sorter_and_sorts_go_on() {
        assert_eq!(unsafe { gpusort_release_memory(ptr::null()) }, gpusort_status::GPUSORT_OK);
        let mut cpu = ptr::null_mut();
        assert_eq!(unsafe { gpusort_sorter_new(GPUSORT_BACKEND_CPU, &mut cpu) }, gpusort_status::GPUSORT_OK);
        for round in 0..3 {
            assert!(sorted_after_release(cpu, round) && sorted_after_release(ptr::null(), round + 7));
        }
        // Releasing while other threads sort: every sort stays right, nothing deadlocks.
        let cpu_addr = cpu as usize;
        let workers: Vec<_> = (0..3)
            .map(|t| std::thread::spawn(move || (0..4).all(|r| sorted_after_release(cpu_addr as *const _, t * 4 + r))))
            .collect();
        assert!(workers.into_iter().all(|w| w.join().unwrap()));
        unsafe { gpusort_sorter_free(cpu) };
    }
}
