//! Streams kept for the host sorts of one device: creating a stream took 30-40 us of every host
//! sort (H200 machine, 2026-11-27: at 64K pairs host to host, 0.19-0.25 ms in all), so they
//! are made once and handed out again.

use std::sync::{Arc, Mutex};

use cudarc::driver::{CudaContext, CudaStream};

use crate::SortError;

/// Streams kept at most; sorts running at once beyond that make (and destroy) their own.
const KEEP: usize = 8;

/// The device's kept streams. One is free when the pool holds its only handle: whoever gets it
/// keeps it (and every buffer allocated on it keeps it) until done.
#[derive(Default)]
pub(crate) struct Streams(Mutex<Vec<Arc<CudaStream>>>);

impl Streams {
    /// A stream that no one else is using, on `ctx`.
    pub(crate) fn get(&self, ctx: &Arc<CudaContext>) -> Result<Arc<CudaStream>, SortError> {
        let mut kept = self.0.lock().unwrap_or_else(|p| p.into_inner());
        // A count of one cannot grow meanwhile: only holders clone a stream, and the lock is held.
        if let Some(free) = kept.iter().find(|s| Arc::strong_count(s) == 1) {
            return Ok(free.clone());
        }
        let stream = ctx.new_stream().map_err(SortError::driver("cuStreamCreate", 0))?;
        if kept.len() < KEEP {
            kept.push(stream.clone());
        }
        Ok(stream)
    }
}
