//! The byte streams of a file sort: where runs are read from (the input file, or mapped memory)
//! and where sorted records are written (files with page-cache hints, or mapped memory), each
//! behind a small trait so the run phase and the merge take either.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::io::{forget_read, read_full, write_all_at};
use crate::SortError;

/// Where merged or sorted records are written: a file ([`Sink`]) or memory ([`SliceOutput`]).
pub(crate) trait Output: Send {
    /// Whether the output is the input's own memory, rewritten in place.
    fn in_place(&self) -> bool {
        false
    }
    fn write(&mut self, buf: &[u8]) -> Result<(), SortError>;
}

/// Where a merge writes: each of its threads its own range, at offsets.
pub(crate) trait PositionalOutput: Sync {
    fn write_at(&self, at: u64, buf: &[u8]) -> Result<(), SortError>;
}

/// Where runs are read from: a file ([`FileSource`]) or memory ([`SliceSource`]).
pub(crate) trait Source: Send {
    /// Fills `buf` as far as the input goes; the bytes read.
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, SortError>;
}

/// The input file, read once from the start, its pages dropped from the cache once read.
pub(crate) struct FileSource<'a> {
    pub(crate) file: &'a mut File,
    pub(crate) path: &'a Path,
    pub(crate) offset: u64,
}

impl Source for FileSource<'_> {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, SortError> {
        let n = read_full(self.file, buf, self.path)?;
        self.offset += n as u64;
        forget_read(self.file, self.offset);
        Ok(n)
    }
}

/// Records in memory (a memory-mapped file), read and later written in place through a raw
/// pointer: the caller's one `&mut [u8]`, used as the input of the run phase and the output of
/// the last merge. Each byte is read before any is written: a single run is read whole before it
/// is sorted and written back, and with several runs only the last merge writes, after the
/// run phase has read everything.
#[derive(Clone, Copy)]
pub(crate) struct Mapped {
    ptr: *mut u8,
    len: usize,
}

// SAFETY: `Mapped` stands for a `&mut [u8]` that its user holds for as long as it lives; the
// phases above never read and write it at the same time, and a merge's threads write disjoint
// ranges of it.
unsafe impl Send for Mapped {}
unsafe impl Sync for Mapped {}

impl Mapped {
    pub(crate) fn new(bytes: &mut [u8]) -> Mapped {
        Mapped { ptr: bytes.as_mut_ptr(), len: bytes.len() }
    }
}

/// Reads a [`Mapped`] slice from its start.
pub(crate) struct SliceSource {
    pub(crate) mapped: Mapped,
    pub(crate) at: usize,
}

impl Source for SliceSource {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, SortError> {
        let n = buf.len().min(self.mapped.len - self.at);
        // SAFETY: bytes `at..at + n` of the live slice, which nothing writes during the reads
        // (see `Mapped`); `buf` is our own buffer.
        unsafe { std::ptr::copy_nonoverlapping(self.mapped.ptr.add(self.at), buf.as_mut_ptr(), n) };
        self.at += n;
        Ok(n)
    }
}

/// Writes a [`Mapped`] slice from its start.
pub(crate) struct SliceOutput {
    pub(crate) mapped: Mapped,
    pub(crate) at: usize,
}

impl Output for SliceOutput {
    fn in_place(&self) -> bool {
        true
    }

    fn write(&mut self, buf: &[u8]) -> Result<(), SortError> {
        if buf.len() > self.mapped.len - self.at {
            return Err(SortError::InvalidArgument("a merge wrote past the end of the records".into()));
        }
        // SAFETY: bytes `at..at + len` of the live slice, which nothing reads during the writes
        // (see `Mapped`).
        unsafe { std::ptr::copy_nonoverlapping(buf.as_ptr(), self.mapped.ptr.add(self.at), buf.len()) };
        self.at += buf.len();
        Ok(())
    }
}

impl PositionalOutput for SliceOutput {
    fn write_at(&self, at: u64, buf: &[u8]) -> Result<(), SortError> {
        let at = usize::try_from(at).ok().filter(|&a| a <= self.mapped.len && buf.len() <= self.mapped.len - a);
        let Some(at) = at else {
            return Err(SortError::InvalidArgument("a merge wrote past the end of the records".into()));
        };
        // SAFETY: bytes `at..at + len` of the live slice; the merge's threads write disjoint
        // ranges and nothing reads the slice meanwhile (see `Mapped`).
        unsafe { std::ptr::copy_nonoverlapping(buf.as_ptr(), self.mapped.ptr.add(at), buf.len()) };
        Ok(())
    }
}

/// Writes all of `buf`, then asks the kernel to start writing it out and drop it from the page
/// cache once written, so that a sort larger than memory does not fill the cache with dirty
/// pages of its own output.
pub(crate) struct Sink {
    file: File,
    path: PathBuf,
    written: u64,
    flushed: u64,
    #[cfg(feature = "testing")]
    fail_after: Option<u64>,
}

/// Bytes written between two write-outs of the page cache.
const FLUSH_EVERY: u64 = 64 << 20;

impl Sink {
    pub(crate) fn new(file: File, path: &Path) -> Sink {
        Sink {
            file,
            path: path.to_path_buf(),
            written: 0,
            flushed: 0,
            #[cfg(feature = "testing")]
            fail_after: super::faults::write_limit(path),
        }
    }

    pub(crate) fn into_file(self) -> File {
        self.file
    }
}

impl Output for Sink {
    fn write(&mut self, buf: &[u8]) -> Result<(), SortError> {
        #[cfg(feature = "testing")]
        if self.fail_after.is_some_and(|limit| self.written + buf.len() as u64 > limit) {
            let e = std::io::Error::from_raw_os_error(28); // ENOSPC
            return Err(SortError::io(format!("writing {}", self.path.display()))(e));
        }
        self.file.write_all(buf).map_err(SortError::io(format!("writing {}", self.path.display())))?;
        self.written += buf.len() as u64;
        if self.written - self.flushed >= FLUSH_EVERY {
            self.write_out();
        }
        Ok(())
    }
}

impl PositionalOutput for Sink {
    /// Writes `buf` at `at` and starts writing it out; then waits until the block before it (the
    /// same thread's previous one, started then) is on disk and drops it from the page cache, so
    /// each merging thread keeps at most two blocks there.
    fn write_at(&self, at: u64, buf: &[u8]) -> Result<(), SortError> {
        let len = buf.len() as u64;
        #[cfg(feature = "testing")]
        if self.fail_after.is_some_and(|limit| at + len > limit) {
            let e = std::io::Error::from_raw_os_error(28); // ENOSPC
            return Err(SortError::io(format!("writing {}", self.path.display()))(e));
        }
        write_all_at(&self.file, buf, at).map_err(SortError::io(format!("writing {}", self.path.display())))?;
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            let fd = self.file.as_raw_fd();
            // SAFETY: hints on an open descriptor; errors only mean no hint.
            unsafe {
                libc::sync_file_range(fd, at as i64, len as i64, libc::SYNC_FILE_RANGE_WRITE);
                let before = at.saturating_sub(len) as i64;
                let wait =
                    libc::SYNC_FILE_RANGE_WAIT_BEFORE | libc::SYNC_FILE_RANGE_WRITE | libc::SYNC_FILE_RANGE_WAIT_AFTER;
                libc::sync_file_range(fd, before, (at as i64 - before).max(0), wait);
                libc::posix_fadvise(fd, before, (at as i64 - before).max(0), libc::POSIX_FADV_DONTNEED);
            }
        }
        Ok(())
    }
}

impl Sink {
    /// Starts writeback of what was written since the last call, and drops from the cache what
    /// the call before started (written by now, or soon).
    fn write_out(&mut self) {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            let fd = self.file.as_raw_fd();
            // SAFETY: plain system calls on an open descriptor; errors only mean no hint.
            unsafe {
                libc::sync_file_range(
                    fd,
                    self.flushed as i64,
                    (self.written - self.flushed) as i64,
                    libc::SYNC_FILE_RANGE_WRITE,
                );
                libc::posix_fadvise(fd, 0, self.flushed as i64, libc::POSIX_FADV_DONTNEED);
            }
        }
        self.flushed = self.written;
    }
}
