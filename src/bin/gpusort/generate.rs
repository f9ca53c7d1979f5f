//! Test files: random records, binary or printable lines, the same for the same seed.

use std::fs::File;
use std::io::Write;
use std::path::Path;

use gpusort::SortError;
use gpusort_cpu::rng::splitmix64;
use rayon::prelude::*;

/// Records made at a time (in parallel), then written.
const BATCH: u64 = 1 << 20;

/// Writes `count` records of `record` bytes to `path`. Record i depends on `seed` and i only.
/// ASCII records are printable characters (' ' to '~') ending in '\n', so each is a line.
pub fn write(path: &Path, record: usize, count: u64, ascii: bool, seed: u64) -> Result<(), SortError> {
    if record == 0 || (ascii && record < 2) {
        return Err(SortError::InvalidArgument(format!("records of {record} bytes")));
    }
    let mut file = File::create(path).map_err(failed(format!("creating {}", path.display())))?;
    let mut buf = vec![0u8; BATCH as usize * record];
    let mut first = 0;
    while first < count {
        let n = (count - first).min(BATCH) as usize;
        let chunk = &mut buf[..n * record];
        chunk.par_chunks_mut(record).enumerate().for_each(|(i, r)| fill(r, seed, first + i as u64, ascii));
        file.write_all(chunk).map_err(failed(format!("writing {}", path.display())))?;
        first += n as u64;
    }
    file.sync_all().map_err(failed(format!("writing {}", path.display())))
}

fn fill(r: &mut [u8], seed: u64, index: u64, ascii: bool) {
    for (j, piece) in r.chunks_mut(8).enumerate() {
        let bits = splitmix64(splitmix64(seed, index), j as u64);
        piece.copy_from_slice(&bits.to_le_bytes()[..piece.len()]);
    }
    if ascii {
        let last = r.len() - 1;
        r[..last].iter_mut().for_each(|b| *b = b' ' + (u32::from(*b) * 95 / 256) as u8);
        r[last] = b'\n';
    }
}

fn failed(op: String) -> impl FnOnce(std::io::Error) -> SortError {
    move |e| SortError::Io { op, source: std::sync::Arc::new(e) }
}
