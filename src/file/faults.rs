//! Fault injection for the file sort's tests: writes into a folder fail as a full disk does
//! once a file there has been given a number of bytes.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

static FULL_DISKS: Mutex<Vec<(PathBuf, u64)>> = Mutex::new(Vec::new());

/// Writes to files in `dir` fail with `ENOSPC` past `bytes` bytes per file, until
/// [`clear`] is called for it.
pub fn fill_disk_after(dir: &Path, bytes: u64) {
    FULL_DISKS.lock().unwrap_or_else(|e| e.into_inner()).push((dir.to_path_buf(), bytes));
}

/// Ends [`fill_disk_after`] for `dir`.
pub fn clear(dir: &Path) {
    FULL_DISKS.lock().unwrap_or_else(|e| e.into_inner()).retain(|(d, _)| d != dir);
}

/// The byte limit of a file at `path`, if a test set one for its folder.
pub(crate) fn write_limit(path: &Path) -> Option<u64> {
    let disks = FULL_DISKS.lock().unwrap_or_else(|e| e.into_inner());
    disks.iter().filter(|(d, _)| path.starts_with(d)).map(|&(_, b)| b).min()
}
