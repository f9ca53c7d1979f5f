//! Failures and the per-thread last error.

use std::cell::RefCell;
use std::ffi::c_char;

use gpusort_core::SortError;

use crate::guard::guard_quiet;
use crate::status::gpusort_status;
use crate::text::write_str;

/// A failed call: the status it returns and the message `gpusort_last_error_message` gives.
///
/// The message is the detail only, never the status's own words: callers print
/// `gpusort_status_str(status): message` (the Python and C# bindings do the same), so a message
/// that began with "invalid argument: " would read "invalid argument: invalid argument: ...".
#[derive(Debug)]
pub(crate) struct Failure {
    pub status: gpusort_status,
    pub message: String,
}

impl Failure {
    pub fn invalid(message: String) -> Failure {
        Failure { status: gpusort_status::GPUSORT_INVALID_ARGUMENT, message }
    }
}

impl From<SortError> for Failure {
    fn from(e: SortError) -> Failure {
        // `SortError`'s `Display` opens with what `gpusort_status_str` already says; keep the rest.
        let message = match &e {
            SortError::NoDriver => "libcuda could not be loaded".into(),
            SortError::NoDevice(why) | SortError::InvalidArgument(why) | SortError::Config(why) => why.clone(),
            #[cfg(feature = "cuda")]
            SortError::Driver { op, source } => format!("in {op}: {source}"),
            SortError::OutOfMemory { op, bytes } => format!("{op}, {bytes} bytes requested"),
            SortError::Unsupported { backend, what } => format!("on the {backend} backend: {what}"),
            #[cfg(feature = "cuda")]
            SortError::KernelImage { image, source } => format!("`{image}`: {source}"),
            other => other.to_string(),
        };
        Failure { status: (&e).into(), message }
    }
}

thread_local! {
    // Per thread, like errno, so that threads sharing a sorter never see each other's errors.
    static LAST_ERROR: RefCell<String> = const { RefCell::new(String::new()) };
}

pub(crate) fn set_last_error(message: String) {
    // `try_with`: during thread teardown the slot may be gone; losing the message then is fine.
    let _ = LAST_ERROR.try_with(|slot| *slot.borrow_mut() = message);
}

fn last_error() -> String {
    LAST_ERROR.try_with(|slot| slot.borrow().clone()).unwrap_or_default()
}

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
    use std::ffi::CStr;
    use std::ptr;

    #[test]
    fn messages_do_not_repeat_the_status_string() {
        let failures = [
            Failure::invalid("order 7 is neither ...".into()),
            SortError::InvalidArgument("3 keys but 2 values".into()).into(),
            SortError::Unsupported { backend: "cpu", what: "Bitonic is a GPU sorting network".into() }.into(),
            SortError::NoDriver.into(),
            SortError::NoDevice("no devices".into()).into(),
            SortError::OutOfMemory { op: "cuMemAlloc", bytes: 8 }.into(),
            SortError::Config("GPUSORT_BACKEND=gpuu is not one of auto, cpu, cuda".into()).into(),
        ];
        for f in failures {
            let status = unsafe { CStr::from_ptr(crate::gpusort_status_str(f.status as i32)) }.to_str().unwrap();
            assert!(!f.message.starts_with(status), "{status}: {}", f.message);
            assert!(!f.message.is_empty());
        }
        let refused: Failure = SortError::Config("GPUSORT_BACKEND=gpuu".into()).into();
        assert_eq!(
            (refused.status, refused.message.as_str()),
            (gpusort_status::GPUSORT_INVALID_ARGUMENT, "GPUSORT_BACKEND=gpuu")
        );
    }

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
