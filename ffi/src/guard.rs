//! The panic boundary every entry point runs inside.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::failure::{set_last_error, Failure};
use crate::status::gpusort_status;

/// Runs `f`, turning its failure or panic into a status and the thread's last error.
///
/// `AssertUnwindSafe` is sound here: after a panic nothing `f` touched is used again except the
/// caller's arrays, whose contents the status documents as unspecified.
pub(crate) fn guard(f: impl FnOnce() -> Result<(), Failure>) -> gpusort_status {
    match run(f) {
        Ok(()) => gpusort_status::GPUSORT_OK,
        Err(failure) => {
            set_last_error(failure.message);
            failure.status
        }
    }
}

/// `guard` without recording the failure: for the call that reads the last error.
pub(crate) fn guard_quiet(f: impl FnOnce() -> Result<(), Failure>) -> gpusort_status {
    match run(f) {
        Ok(()) => gpusort_status::GPUSORT_OK,
        Err(failure) => failure.status,
    }
}

fn run(f: impl FnOnce() -> Result<(), Failure>) -> Result<(), Failure> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| Err(panicked(payload)))
}

fn panicked(payload: Box<dyn Any + Send>) -> Failure {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic with a non-string payload".into());
    // A payload whose own drop panics would unwind into C; leak it instead (a bug path anyway).
    std::mem::forget(payload);
    // The status string already says "panic inside gpusort (a bug)".
    Failure { status: gpusort_status::GPUSORT_PANIC, message: what }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_a_status_and_a_message() {
        let st = guard(|| panic!("boom {}", 42));
        assert_eq!(st, gpusort_status::GPUSORT_PANIC);
        let msg = crate::failure::last_error();
        assert!(msg.contains("boom 42"), "{msg}");
        assert_eq!(guard(|| Ok(())), gpusort_status::GPUSORT_OK);
    }
}
