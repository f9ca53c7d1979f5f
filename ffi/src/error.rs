//! `gpusort_last_error_message`: the calling thread's last failure, copied out to C.

use std::ffi::c_char;

use crate::failure::last_error;
use crate::guard::guard_quiet;
use crate::status::gpusort_status;
use crate::text::write_str;

/// Copies the message of the most recent failed gpusort call on the calling thread into `buf` as
/// a NUL-terminated UTF-8 string ("" when no call on this thread has failed yet). Successful calls
/// leave the message alone, so read it right after the call whose status was not `GPUSORT_OK`.
/// The message is the detail without the status string, such as "order 7 is neither ...": print
/// it after `gpusort_status_str(status)` and ": ".
///
/// `buf` may be NULL only when `len` is 0. `written`, when not NULL, receives the message's full
/// length in bytes, not counting the NUL: a buffer of `*written + 1` bytes holds it all. When it
/// does not fit, `buf` gets the longest prefix that does (cut at a UTF-8 character boundary,
/// NUL-terminated when `len > 0`) and the call returns `GPUSORT_BUFFER_TOO_SMALL`. This function
/// never changes the last error itself.
///
/// # Safety
/// `buf` must be valid for writes of `len` bytes; `written` must be NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn gpusort_last_error_message(
    buf: *mut c_char,
    len: usize,
    written: *mut usize,
) -> gpusort_status {
    guard_quiet(|| write_str(&last_error(), buf, len, written))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::failure::set_last_error;
    use std::ptr;

    fn read() -> (gpusort_status, String) {
        let mut buf = [0 as c_char; 256];
        let mut n = usize::MAX;
        let st = unsafe { gpusort_last_error_message(buf.as_mut_ptr(), buf.len(), &mut n) };
        let s = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }.to_str().unwrap().to_owned();
        assert_eq!(n, s.len());
        (st, s)
    }

    #[test]
    fn last_error_is_per_thread_and_survives_a_too_small_read() {
        assert_eq!(read(), (gpusort_status::GPUSORT_OK, String::new()));
        set_last_error("first failure".into());
        std::thread::spawn(|| assert_eq!(read().1, "")).join().unwrap();
        let mut tiny = [0 as c_char; 4];
        let mut n = 0;
        let st = unsafe { gpusort_last_error_message(tiny.as_mut_ptr(), tiny.len(), &mut n) };
        assert_eq!((st, n), (gpusort_status::GPUSORT_BUFFER_TOO_SMALL, "first failure".len()));
        assert_eq!(read(), (gpusort_status::GPUSORT_OK, "first failure".into()));
        let st = unsafe { gpusort_last_error_message(ptr::null_mut(), 8, ptr::null_mut()) };
        assert_eq!(st, gpusort_status::GPUSORT_INVALID_ARGUMENT);
        assert_eq!(read().1, "first failure");
    }
}
