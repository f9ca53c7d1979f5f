//! The files of a file sort: the input (only read), the output written under a temporary name and
//! renamed when complete, and a scratch folder of runs removed on success, on failure, and by a
//! later sort when the process that made it was killed.

use std::fs::{self, File, OpenOptions};
use std::io::{ErrorKind, Read};
use std::path::{Path, PathBuf};

use crate::SortError;

/// The prefix of scratch folders and temporary outputs, followed by the owner's process id.
const SCRATCH_PREFIX: &str = "gpusort-runs-";
const OUTPUT_TAG: &str = ".gpusort-partial-";

/// A folder of run files, removed with everything in it when dropped.
pub(crate) struct Scratch {
    dir: PathBuf,
    next: usize,
}

impl Scratch {
    /// A new folder in `parent`, after removing what killed sorts left there.
    pub(crate) fn create(parent: &Path) -> Result<Scratch, SortError> {
        remove_orphans(parent);
        let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let dir = parent.join(format!("{SCRATCH_PREFIX}{}-{stamp}", std::process::id()));
        fs::create_dir(&dir).map_err(SortError::io(format!("creating the scratch folder {}", dir.display())))?;
        Ok(Scratch { dir, next: 0 })
    }

    /// A new, empty run file, open for writing.
    pub(crate) fn new_run(&mut self) -> Result<(PathBuf, File), SortError> {
        let path = self.dir.join(format!("run-{:06}", self.next));
        self.next += 1;
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(SortError::io(format!("creating the run file {}", path.display())))?;
        Ok((path, file))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// The output being written: `.NAME.gpusort-partial-PID` beside the final name, removed when
/// dropped unless [`PartialOutput::commit`] renamed it.
pub(crate) struct PartialOutput {
    temp: PathBuf,
    target: PathBuf,
    committed: bool,
}

impl PartialOutput {
    pub(crate) fn create(target: &Path) -> Result<(PartialOutput, File), SortError> {
        let name = target.file_name().ok_or_else(|| {
            SortError::InvalidArgument(format!("the output {} does not name a file", target.display()))
        })?;
        let parent = parent_of(target);
        remove_orphans(parent);
        let temp = parent.join(format!(".{}{OUTPUT_TAG}{}", name.to_string_lossy(), std::process::id()));
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&temp)
            .map_err(SortError::io(format!("creating the output {}", temp.display())))?;
        Ok((PartialOutput { temp, target: target.to_path_buf(), committed: false }, file))
    }

    /// Makes the written file durable and gives it its final name.
    pub(crate) fn commit(mut self, file: File) -> Result<(), SortError> {
        file.sync_all().map_err(SortError::io(format!("writing the output {}", self.temp.display())))?;
        drop(file);
        fs::rename(&self.temp, &self.target)
            .map_err(SortError::io(format!("renaming the output to {}", self.target.display())))?;
        self.committed = true;
        Ok(())
    }
}

impl Drop for PartialOutput {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_file(&self.temp);
        }
    }
}

/// The folder a path lies in (`.` for a bare file name).
pub(crate) fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Removes scratch folders and partial outputs in `dir` whose owning process is gone: what a
/// killed sort left. Those of live processes (other sorts running now) are kept.
fn remove_orphans(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let owner = if let Some(rest) = name.strip_prefix(SCRATCH_PREFIX) {
            rest.split('-').next()
        } else {
            name.rsplit_once(OUTPUT_TAG).map(|(_, pid)| pid).filter(|_| name.starts_with('.'))
        };
        let Some(pid) = owner.and_then(|p| p.parse::<u32>().ok()) else { continue };
        if pid != std::process::id() && !process_alive(pid) {
            let path = entry.path();
            let _ = if path.is_dir() { fs::remove_dir_all(&path) } else { fs::remove_file(&path) };
        }
    }
}

fn process_alive(pid: u32) -> bool {
    #[cfg(target_os = "linux")]
    {
        Path::new("/proc").join(pid.to_string()).exists()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pid;
        true
    }
}

/// Fills `buf` from byte `at` of `file` without moving its cursor, so that threads share it.
pub(crate) fn read_exact_at(file: &File, mut buf: &mut [u8], mut at: u64) -> std::io::Result<()> {
    while !buf.is_empty() {
        #[cfg(unix)]
        let n = std::os::unix::fs::FileExt::read_at(file, buf, at);
        #[cfg(windows)]
        let n = std::os::windows::fs::FileExt::seek_read(file, buf, at);
        match n {
            Ok(0) => return Err(ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                buf = &mut buf[n..];
                at += n as u64;
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Writes all of `buf` at byte `at` of `file` without moving its cursor.
pub(crate) fn write_all_at(file: &File, mut buf: &[u8], mut at: u64) -> std::io::Result<()> {
    while !buf.is_empty() {
        #[cfg(unix)]
        let n = std::os::unix::fs::FileExt::write_at(file, buf, at);
        #[cfg(windows)]
        let n = std::os::windows::fs::FileExt::seek_write(file, buf, at);
        match n {
            Ok(0) => return Err(ErrorKind::WriteZero.into()),
            Ok(n) => {
                buf = &buf[n..];
                at += n as u64;
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Reads until `buf` is full or the file ends; the bytes read.
pub(crate) fn read_full(file: &mut File, buf: &mut [u8], what: &Path) -> Result<usize, SortError> {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(SortError::io(format!("reading {}", what.display()))(e)),
        }
    }
    Ok(filled)
}

/// Tells the kernel that `file` is read once from start to end: larger read-ahead, and the pages
/// read are not worth keeping.
pub(crate) fn read_sequentially(file: &File) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: a hint on an open descriptor.
        unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_SEQUENTIAL) };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = file;
}

/// Drops bytes `..end` of a file being read from the page cache.
pub(crate) fn forget_read(file: &File, end: u64) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: a hint on an open descriptor.
        unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, end as i64, libc::POSIX_FADV_DONTNEED) };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (file, end);
}

/// Frees the disk space of bytes `at..at + len` of a scratch run already read (a hole punched in
/// it; the run is read once). Never called on the input. Where the file system cannot, the space
/// is freed when the run is removed.
pub(crate) fn free_read(file: &File, at: u64, len: u64) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: a system call on an open descriptor of a run file; an error leaves it whole.
        unsafe {
            libc::fallocate(
                file.as_raw_fd(),
                libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                at as i64,
                len as i64,
            )
        };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (file, at, len);
}

/// Opens the input read-only, with its length.
pub(crate) fn open_input(path: &Path) -> Result<(File, u64), SortError> {
    let file = File::open(path).map_err(SortError::io(format!("opening the input {}", path.display())))?;
    let meta = file.metadata().map_err(SortError::io(format!("reading the size of {}", path.display())))?;
    if meta.is_dir() {
        return Err(SortError::InvalidArgument(format!("the input {} is a folder", path.display())));
    }
    Ok((file, meta.len()))
}
