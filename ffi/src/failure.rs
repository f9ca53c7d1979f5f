//! Failures and the per-thread slot that keeps the last one's message: the bottom layer every
//! entry point reports through (`guard` records into it, `error` reads it out to C).

use std::cell::RefCell;

use gpusort_core::SortError;

use crate::status::gpusort_status;

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
            // "opening the input /data/in: No such file or directory (os error 2)".
            SortError::Io { op, source } => format!("{op}: {source}"),
            // The status string says "cancelled"; the only way to cancel is a progress callback.
            SortError::Cancelled => "the progress callback stopped the sort".into(),
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

pub(crate) fn last_error() -> String {
    LAST_ERROR.try_with(|slot| slot.borrow().clone()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::status::gpusort_status_str;
    use std::ffi::CStr;

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
            SortError::Io {
                op: "opening the input /tmp/in".into(),
                source: std::sync::Arc::new(std::io::Error::from(std::io::ErrorKind::NotFound)),
            }
            .into(),
            SortError::Cancelled.into(),
        ];
        for f in failures {
            let status = unsafe { CStr::from_ptr(gpusort_status_str(f.status as i32)) }.to_str().unwrap();
            assert!(!f.message.starts_with(status), "{status}: {}", f.message);
            assert!(!f.message.is_empty());
        }
        let refused: Failure = SortError::Config("GPUSORT_BACKEND=gpuu".into()).into();
        assert_eq!(
            (refused.status, refused.message.as_str()),
            (gpusort_status::GPUSORT_INVALID_ARGUMENT, "GPUSORT_BACKEND=gpuu")
        );
        let io: Failure = SortError::Io {
            op: "creating the output /x/.out.gpusort-partial-1".into(),
            source: std::sync::Arc::new(std::io::Error::from_raw_os_error(28)),
        }
        .into();
        assert_eq!(io.status, gpusort_status::GPUSORT_IO_ERROR);
        assert!(
            io.message.starts_with("creating the output /x/.out") && io.message.contains("os error 28"),
            "{}",
            io.message
        );
        assert_eq!(Failure::from(SortError::Cancelled).status, gpusort_status::GPUSORT_CANCELLED);
    }
}
