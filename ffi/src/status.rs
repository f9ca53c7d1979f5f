//! The status every entry point returns, and its fixed strings.

use std::ffi::{c_char, c_int};

use gpusort_core::SortError;

/// What a gpusort call did. `GPUSORT_OK` is 0; every other value is a failure, and the calling
/// thread's last error (`gpusort_last_error_message`) says more. The values are part of the ABI:
/// new ones are only ever appended.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum gpusort_status {
    /// Success.
    GPUSORT_OK = 0,
    /// A NULL pointer with a nonzero length, an unknown order, algorithm or backend value, an
    /// array running past the end of the address space, misaligned or overlapping arrays; or a
    /// `GPUSORT_BACKEND` environment value other than auto, cpu or cuda (the auto backend then
    /// refuses to sort).
    GPUSORT_INVALID_ARGUMENT = 1,
    /// No NVIDIA driver (libcuda could not be loaded). Only `GPUSORT_BACKEND_CUDA` reports it:
    /// the auto backend sorts on the CPU instead.
    GPUSORT_NO_DRIVER = 2,
    /// The driver loaded but there is no usable CUDA device.
    GPUSORT_NO_DEVICE = 3,
    /// The GPU, or the host, could not hold the data and the sort's scratch space (host memory
    /// for the CPU sort or the pinned staging, device memory for a GPU sort); the data is untouched.
    GPUSORT_OUT_OF_MEMORY = 4,
    /// The backend cannot do what was asked: a sorting network (GPU only) on the CPU, a GPU older
    /// than compute capability 7.5, ...
    GPUSORT_UNSUPPORTED = 5,
    /// A CUDA driver call failed.
    GPUSORT_DRIVER_ERROR = 6,
    /// gpusort's compiled kernels could not be loaded on this device.
    GPUSORT_KERNEL_IMAGE = 7,
    /// A string did not fit the caller's buffer; the buffer holds a NUL-terminated prefix.
    GPUSORT_BUFFER_TOO_SMALL = 8,
    /// A bug in gpusort: a Rust panic was caught at the C boundary. The arrays of that call hold
    /// unspecified contents.
    GPUSORT_PANIC = 9,
    /// An error this version of the C API has no code for.
    GPUSORT_INTERNAL_ERROR = 10,
    /// Reading or writing a file failed (`gpusort_sort_file`, `gpusort_check_file`): a missing
    /// or unreadable input, a folder that cannot be written, a full disk. The message names the
    /// file and says what the system said; the output's name and the input are as they were.
    GPUSORT_IO_ERROR = 11,
    /// The caller stopped the call (a progress callback returned nonzero); it left things as a
    /// failure does.
    GPUSORT_CANCELLED = 12,
}

impl From<&SortError> for gpusort_status {
    fn from(e: &SortError) -> Self {
        match e {
            SortError::NoDriver => gpusort_status::GPUSORT_NO_DRIVER,
            SortError::NoDevice(_) => gpusort_status::GPUSORT_NO_DEVICE,
            #[cfg(feature = "cuda")]
            SortError::Driver { .. } => gpusort_status::GPUSORT_DRIVER_ERROR,
            SortError::OutOfMemory { .. } => gpusort_status::GPUSORT_OUT_OF_MEMORY,
            SortError::Unsupported { .. } => gpusort_status::GPUSORT_UNSUPPORTED,
            // A bad `GPUSORT_*` value is an argument too, one from the environment.
            SortError::InvalidArgument(_) | SortError::Config(_) => gpusort_status::GPUSORT_INVALID_ARGUMENT,
            #[cfg(feature = "cuda")]
            SortError::KernelImage { .. } => gpusort_status::GPUSORT_KERNEL_IMAGE,
            SortError::Io { .. } => gpusort_status::GPUSORT_IO_ERROR,
            SortError::Cancelled => gpusort_status::GPUSORT_CANCELLED,
            // `SortError` is non_exhaustive: a variant added later must still map to something.
            _ => gpusort_status::GPUSORT_INTERNAL_ERROR,
        }
    }
}

/// The fixed, NUL-terminated description of a status, such as "invalid argument". Takes an `int`
/// (not the enum) so that any value is safe to pass: unknown values give "unknown status". The
/// string is static: never free it.
#[no_mangle]
pub extern "C" fn gpusort_status_str(status: c_int) -> *const c_char {
    let s: &'static str = match status {
        0 => "ok\0",
        1 => "invalid argument\0",
        2 => "no CUDA driver\0",
        3 => "no CUDA device\0",
        4 => "out of memory\0",
        5 => "unsupported\0",
        6 => "CUDA driver error\0",
        7 => "kernel image could not be loaded\0",
        8 => "buffer too small\0",
        9 => "panic inside gpusort (a bug)\0",
        10 => "internal error\0",
        11 => "I/O error\0",
        12 => "cancelled\0",
        _ => "unknown status\0",
    };
    s.as_ptr().cast()
}

/// The version of the library, such as "0.1.0": static, NUL-terminated, never free it.
#[no_mangle]
pub extern "C" fn gpusort_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    #[test]
    fn every_status_has_its_own_string() {
        let all: Vec<&str> =
            (0..=12).map(|s| unsafe { CStr::from_ptr(gpusort_status_str(s)) }.to_str().unwrap()).collect();
        for (i, s) in all.iter().enumerate() {
            assert!(!s.is_empty() && *s != "unknown status", "status {i}");
            assert_eq!(all.iter().filter(|t| *t == s).count(), 1, "{s} is not unique");
        }
        assert_eq!(gpusort_status::GPUSORT_INTERNAL_ERROR as c_int, 10);
        assert_eq!(gpusort_status::GPUSORT_IO_ERROR as c_int, 11);
        assert_eq!(gpusort_status::GPUSORT_CANCELLED as c_int, 12);
        for bad in [-1, 13, c_int::MAX, c_int::MIN] {
            assert_eq!(unsafe { CStr::from_ptr(gpusort_status_str(bad)) }.to_str().unwrap(), "unknown status");
        }
    }
}
