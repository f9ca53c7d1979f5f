//! Strings into caller-owned C buffers.

use std::ffi::c_char;

use crate::args::byte_range;
use crate::failure::Failure;
use crate::status::gpusort_status;

/// Writes `s` into `buf[..len]` NUL-terminated, cut at a UTF-8 boundary when it does not fit
/// (`GPUSORT_BUFFER_TOO_SMALL`), and its full length (without the NUL) into `*written`.
///
/// # Safety
/// `buf` must be valid for writes of `len` bytes; `written` must be NULL or valid for a write.
pub(crate) unsafe fn write_str(s: &str, buf: *mut c_char, len: usize, written: *mut usize) -> Result<(), Failure> {
    if buf.is_null() && len > 0 {
        return Err(Failure::invalid(format!("the string buffer is NULL but its length is {len}")));
    }
    if byte_range(buf as usize, len, 1).is_none() {
        return Err(Failure::invalid(format!(
            "the string buffer at {buf:p} with {len} bytes runs past the end of the address space"
        )));
    }
    if !written.is_null() {
        written.write(s.len());
    }
    if len == 0 {
        return Err(too_small(s, len));
    }
    let mut fit = s.len().min(len - 1);
    while !s.is_char_boundary(fit) {
        fit -= 1;
    }
    std::ptr::copy_nonoverlapping(s.as_ptr(), buf.cast::<u8>(), fit);
    buf.add(fit).write(0);
    if fit < s.len() {
        return Err(too_small(s, len));
    }
    Ok(())
}

fn too_small(s: &str, len: usize) -> Failure {
    Failure {
        status: gpusort_status::GPUSORT_BUFFER_TOO_SMALL,
        message: format!("a buffer of {len} bytes is too small for a string of {} bytes and its NUL", s.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(s: &str, len: usize) -> (Result<(), gpusort_status>, Vec<u8>, usize) {
        let mut buf = vec![0x55u8; len + 1];
        let mut n = usize::MAX;
        let r = unsafe { write_str(s, buf.as_mut_ptr().cast(), len, &mut n) }.map_err(|f| f.status);
        assert_eq!(buf[len], 0x55, "wrote past len");
        (r, buf[..len].to_vec(), n)
    }

    #[test]
    fn fits_truncates_and_reports_the_needed_length() {
        assert_eq!(write("abc", 4), (Ok(()), b"abc\0".to_vec(), 3));
        assert_eq!(write("abc", 3), (Err(gpusort_status::GPUSORT_BUFFER_TOO_SMALL), b"ab\0".to_vec(), 3));
        assert_eq!(write("abc", 1), (Err(gpusort_status::GPUSORT_BUFFER_TOO_SMALL), b"\0".to_vec(), 3));
        assert_eq!(write("", 1), (Ok(()), b"\0".to_vec(), 0));
        assert_eq!(write("abc", 0).0, Err(gpusort_status::GPUSORT_BUFFER_TOO_SMALL));
        // "é" is two bytes: never split it.
        assert_eq!(write("aé", 3), (Err(gpusort_status::GPUSORT_BUFFER_TOO_SMALL), b"a\0\x55".to_vec(), 3));
        let mut n = 0;
        let r = unsafe { write_str("abc", std::ptr::null_mut(), 0, &mut n) };
        assert_eq!((r.unwrap_err().status, n), (gpusort_status::GPUSORT_BUFFER_TOO_SMALL, 3));
        let r = unsafe { write_str("abc", std::ptr::null_mut(), 5, std::ptr::null_mut()) };
        assert_eq!(r.unwrap_err().status, gpusort_status::GPUSORT_INVALID_ARGUMENT);
        // A buffer whose end would wrap the address space: refused before a byte is written.
        let top = (usize::MAX & !0xFFF) as *mut c_char;
        let r = unsafe { write_str("abc", top, 0x1001, std::ptr::null_mut()) }.unwrap_err();
        assert_eq!(r.status, gpusort_status::GPUSORT_INVALID_ARGUMENT);
        assert!(r.message.contains("address space"), "{}", r.message);
    }
}
