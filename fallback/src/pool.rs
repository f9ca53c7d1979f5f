//! The CPU backend's own rayon pool, which survives `fork()`.
//!
//! A forked child has only the thread that called fork: the workers of any pool made before it,
//! rayon's global pool included, are gone, and a job handed to them waits forever. So the backend
//! never uses the global pool. Its pool is made on first use and remembers the process it was
//! made in; a child that finds its parent's pool makes a new one. The stale pool is leaked, never
//! dropped: dropping it would signal worker threads that do not exist, through locks that a
//! vanished thread may have held at the fork.
//!
//! Two ways to notice a fork, as native libraries do: every lookup compares the process id, and a
//! `pthread_atfork` child handler forgets the pool at once. The pid check covers forks that skip
//! the handlers (a raw `clone` system call); the handler covers a descendant that was given, by
//! pid reuse, the pid the pool was made under.

use std::sync::atomic::{AtomicPtr, Ordering};

/// A pool and the process it belongs to.
struct Owned {
    pid: u32,
    pool: rayon::ThreadPool,
}

/// The pool of this process, or null before the first parallel sort (and right after a fork).
/// Lock-free on purpose: a lock held by another thread at the fork would stay held in the child.
static CURRENT: AtomicPtr<Owned> = AtomicPtr::new(std::ptr::null_mut());

/// Runs `f` on the CPU backend's thread pool and returns what it returns; every rayon parallel
/// iterator and `join` inside `f` runs on that pool too.
///
/// The pool is made on first use, with `RAYON_NUM_THREADS` threads when that is set, else one
/// per logical CPU, and made anew in a process forked from one that had it. A call from a thread
/// of the pool runs `f` at once. Should no thread at all be had (a thread limit), `f` runs on the
/// calling thread, and rayon's global pool serves its parallel parts.
///
/// ```
/// use rayon::prelude::*;
/// let sum: u64 = gpusort_cpu::install(|| (0..1_000_000u64).into_par_iter().sum());
/// assert_eq!(sum, 499_999_500_000);
/// ```
pub fn install<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    match pool() {
        Some(p) => p.install(f),
        None => f(),
    }
}

/// The number of threads the CPU backend sorts with: its pool's size (1 when no pool could be
/// made).
///
/// ```
/// assert!(gpusort_cpu::threads() >= 1);
/// ```
pub fn threads() -> usize {
    pool().map_or(1, |p| p.current_num_threads())
}

fn pool() -> Option<&'static rayon::ThreadPool> {
    let pid = std::process::id();
    loop {
        let seen = CURRENT.load(Ordering::Acquire);
        // SAFETY: a published `Owned` is never freed (see the module docs).
        if let Some(owned) = unsafe { seen.as_ref() } {
            if owned.pid == pid {
                return Some(&owned.pool);
            }
        }
        let fresh = Box::into_raw(Box::new(Owned { pid, pool: build()? }));
        match CURRENT.compare_exchange(seen, fresh, Ordering::AcqRel, Ordering::Acquire) {
            // What `seen` pointed to, if anything, is the parent's pool: leaked (module docs).
            // SAFETY: just published, and never freed.
            Ok(_) => return Some(unsafe { &(*fresh).pool }),
            // Another thread published a pool first. Ours never ran a job and belongs to this
            // process, so dropping it just lets its idle threads exit.
            // SAFETY: `fresh` was never shared.
            Err(_) => drop(unsafe { Box::from_raw(fresh) }),
        }
    }
}

fn build() -> Option<rayon::ThreadPool> {
    watch_forks();
    let named = |i: usize| format!("gpusort-cpu-{i}");
    rayon::ThreadPoolBuilder::new()
        .thread_name(named)
        .build()
        // A failed spawn (a thread or memory limit) leaves what was started; one thread may do.
        .or_else(|_| rayon::ThreadPoolBuilder::new().thread_name(named).num_threads(1).build())
        .ok()
}

/// Registers the fork handler once. Forgetting the pool in the child is one atomic store, which
/// is all a handler may safely do there.
fn watch_forks() {
    #[cfg(unix)]
    {
        extern "C" fn forget_in_child() {
            CURRENT.store(std::ptr::null_mut(), Ordering::Release);
        }
        static ONCE: std::sync::Once = std::sync::Once::new();
        // SAFETY: the handler only stores to an atomic; a failure to register leaves the pid check.
        ONCE.call_once(|| unsafe {
            libc::pthread_atfork(None, None, Some(forget_in_child));
        });
    }
}
