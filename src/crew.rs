//! The copy crew: host threads that run the pieces of one copy at a time, with a dispatch of a
//! few microseconds, for the GPU's host path.
//!
//! A host sort copies each chunk into or out of pinned memory on all cores, tens of times per
//! sort, with the copy engine or the device working in between. rayon's workers fall asleep a few
//! tens of microseconds after their last job, and waking them again, one after another as the
//! work splits, made a 4 MiB copy take 150-180 us where it takes 56 us with awake threads (H200
//! machine, 16 cores; at 1M pairs host to host, two such copies up and two down were half of the
//! sort's time). A host sort holds an [`Awake`] from its start to its end: while one is held, the
//! crew's workers keep looking for work between the sort's copies (busy at first, then yielding
//! the core), and they park `GRACE` after the last one is dropped, so no core spins once the sorts
//! are over. A job is one published descriptor whose pieces the workers and the calling thread
//! claim one at a time.
//!
//! One job runs at a time: a caller that finds the crew busy (another thread's sort) runs its
//! pieces on rayon instead. A piece that panics does not leave the caller waiting: every piece
//! is counted when it ends, and the caller resumes the panic once all have.

use std::any::Any;
use std::cell::UnsafeCell;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock, TryLockError};
use std::time::{Duration, Instant};

use rayon::prelude::*;

/// How long an idle worker busy-waits for the next piece before it yields the core between
/// looks (so that threads that want the core get it).
const SPIN_BUSY: Duration = Duration::from_micros(100);
/// How long an idle worker keeps looking once no host sort holds the crew awake, before it parks.
const GRACE: Duration = Duration::from_micros(200);

/// Keeps the crew's workers from parking while it lives (see the module docs). Taking one wakes
/// nobody: parked workers wake at the next job.
#[must_use]
pub(crate) struct Awake(());

/// The crew kept awake until the returned guard drops.
pub(crate) fn awake() -> Awake {
    crew().engaged.fetch_add(1, Ordering::Relaxed);
    Awake(())
}

impl Drop for Awake {
    fn drop(&mut self) {
        crew().engaged.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Runs `f(0)`, ..., `f(pieces - 1)`, each once, on the crew and the calling thread (or on the
/// CPU backend's pool when the crew is busy); returns when all have run. A piece that calls it
/// again gets the pool.
pub(crate) fn for_each_piece(pieces: usize, f: &(dyn Fn(usize) + Sync)) {
    if pieces <= 1 {
        return (0..pieces).for_each(f);
    }
    let crew = crew();
    match crew.post.try_lock() {
        Ok(one) => crew.run(one, pieces, f),
        Err(TryLockError::Poisoned(e)) => crew.run(e.into_inner(), pieces, f),
        // The CPU backend's pool, not rayon's global one (busy, or absent in a forked child).
        Err(TryLockError::WouldBlock) => gpusort_cpu::install(|| (0..pieces).into_par_iter().for_each(f)),
    }
}

/// Threads that take pieces: the workers and the caller.
pub(crate) fn threads() -> usize {
    crew().workers.load(Ordering::Relaxed) + 1
}

/// The job being run.
#[derive(Clone, Copy)]
struct Job {
    run: *const (dyn Fn(usize) + Sync),
    pieces: usize,
}

struct Crew {
    /// Workers started (the pieces' size depends on it; the workers never read it).
    workers: AtomicUsize,
    /// The job's generation (high 32 bits) and how many of its pieces are still unclaimed (low
    /// 32): a worker claims a piece only of the generation it saw, and a claimed piece keeps the
    /// job alive until it is counted in `done`.
    claim: AtomicU64,
    /// Pieces of the current job that have ended.
    done: AtomicUsize,
    /// `Awake` guards alive.
    engaged: AtomicUsize,
    job: UnsafeCell<Job>,
    /// The first panic of the current job's pieces.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    /// Held for the length of a job.
    post: Mutex<()>,
    /// Workers parked, and where they wait.
    parked: Mutex<usize>,
    wake: Condvar,
}

// SAFETY: `job` is written only by the holder of `post`, while no piece is claimed or running,
// and before the claim word of its generation is published (Release); it is read only by a
// thread that has claimed a piece of that generation (Acquire). The function it points to is
// `Sync`, and the poster does not return before every piece has ended.
unsafe impl Sync for Crew {}
unsafe impl Send for Crew {}

fn nothing(_: usize) {}
static NOTHING: fn(usize) = nothing;

const LOW: u64 = 0xffff_ffff;

/// The crew, started on first use with as many workers as rayon's pool has threads, less one
/// (the caller works too). Workers that cannot be started are left out.
fn crew() -> &'static Crew {
    static CREW: OnceLock<&'static Crew> = OnceLock::new();
    CREW.get_or_init(|| {
        let want = rayon::current_num_threads().saturating_sub(1);
        let crew: &'static Crew = Box::leak(Box::new(Crew {
            workers: AtomicUsize::new(0),
            claim: AtomicU64::new(0),
            done: AtomicUsize::new(0),
            engaged: AtomicUsize::new(0),
            job: UnsafeCell::new(Job { run: &NOTHING as &(dyn Fn(usize) + Sync), pieces: 0 }),
            panic: Mutex::new(None),
            post: Mutex::new(()),
            parked: Mutex::new(0),
            wake: Condvar::new(),
        }));
        let started = (1..=want)
            .filter(|i| std::thread::Builder::new().name(format!("gpusort-copy-{i}")).spawn(|| crew.work()).is_ok())
            .count();
        // Fewer workers than wanted only changes how the pieces are sized: the caller claims
        // whatever no worker does.
        crew.workers.store(started, Ordering::Relaxed);
        crew
    })
}

impl Crew {
    /// Claims and runs pieces of generation `gen` until none is left unclaimed.
    fn take_pieces(&self, gen: u64) {
        let mut cur = self.claim.load(Ordering::Acquire);
        while cur >> 32 == gen && cur & LOW > 0 {
            match self.claim.compare_exchange_weak(cur, cur - 1, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => {
                    // SAFETY: a claimed piece of this generation keeps the job as published.
                    let job = unsafe { *self.job.get() };
                    let piece = job.pieces - (cur & LOW) as usize;
                    // SAFETY: the function lives until every piece has been counted in `done`.
                    let ran = catch_unwind(AssertUnwindSafe(|| unsafe { (*job.run)(piece) }));
                    if let Err(payload) = ran {
                        lock(&self.panic).get_or_insert(payload);
                    }
                    self.done.fetch_add(1, Ordering::Release);
                    cur = self.claim.load(Ordering::Acquire);
                }
                Err(now) => cur = now,
            }
        }
    }

    fn work(&self) {
        let mut seen = self.claim.load(Ordering::Acquire) >> 32;
        let mut idle = Instant::now();
        loop {
            let gen = self.claim.load(Ordering::Acquire) >> 32;
            if gen != seen {
                seen = gen;
                self.take_pieces(gen);
                idle = Instant::now();
                continue;
            }
            let waited = idle.elapsed();
            if waited < SPIN_BUSY {
                for _ in 0..32 {
                    std::hint::spin_loop();
                }
                continue;
            }
            if waited < GRACE || self.engaged.load(Ordering::Relaxed) > 0 {
                std::thread::yield_now();
                continue;
            }
            let mut parked = lock(&self.parked);
            *parked += 1;
            while self.claim.load(Ordering::Acquire) >> 32 == seen {
                parked = self.wake.wait(parked).unwrap_or_else(|e| e.into_inner());
            }
            *parked -= 1;
            drop(parked);
            idle = Instant::now();
        }
    }

    fn run(&self, _one: MutexGuard<'_, ()>, pieces: usize, f: &(dyn Fn(usize) + Sync)) {
        assert!(pieces as u64 <= LOW, "crew job of {pieces} pieces");
        let gen = ((self.claim.load(Ordering::Relaxed) >> 32) + 1) & LOW;
        // SAFETY: every piece of the previous job has ended (its poster waited for them) and none
        // of this one is published yet, so nothing reads `job`. The borrow's lifetime is erased
        // for the workers; this function returns only after every piece has ended.
        unsafe {
            let run =
                std::mem::transmute::<*const (dyn Fn(usize) + Sync + '_), *const (dyn Fn(usize) + Sync + 'static)>(f);
            *self.job.get() = Job { run, pieces };
        }
        self.done.store(0, Ordering::Relaxed);
        self.claim.store(gen << 32 | pieces as u64, Ordering::Release);
        if *lock(&self.parked) > 0 {
            self.wake.notify_all();
        }
        self.take_pieces(gen);
        while self.done.load(Ordering::Acquire) < pieces {
            std::hint::spin_loop();
        }
        if let Some(payload) = lock(&self.panic).take() {
            resume_unwind(payload);
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    fn counts(pieces: usize) -> Vec<AtomicUsize> {
        (0..pieces).map(|_| AtomicUsize::new(0)).collect()
    }

    #[test]
    fn every_piece_runs_once() {
        for (job, pieces) in [0usize, 1, 2, 3, 17, 64, 1000, 4099].into_iter().cycle().take(120).enumerate() {
            let seen = counts(pieces);
            for_each_piece(pieces, &|i| {
                seen[i].fetch_add(1, Ordering::Relaxed);
            });
            assert!(seen.iter().all(|c| c.load(Ordering::Relaxed) == 1), "job {job}: {pieces} pieces");
            if job % 40 == 39 {
                // Long enough for the workers to park: the next job wakes them.
                std::thread::sleep(GRACE * 10);
            }
        }
    }

    #[test]
    fn jobs_between_long_waits_of_an_awake_sort_run_every_piece() {
        let awake = awake();
        for pieces in [5usize, 300, 2] {
            std::thread::sleep(GRACE * 5);
            let seen = counts(pieces);
            for_each_piece(pieces, &|i| {
                seen[i].fetch_add(1, Ordering::Relaxed);
            });
            assert!(seen.iter().all(|c| c.load(Ordering::Relaxed) == 1));
        }
        drop(awake);
    }

    #[test]
    fn callers_on_several_threads_each_get_every_piece() {
        std::thread::scope(|s| {
            for t in 0..4 {
                s.spawn(move || {
                    for job in 0..50 {
                        let pieces = 7 + (t * 50 + job) % 90;
                        let seen = counts(pieces);
                        for_each_piece(pieces, &|i| {
                            seen[i].fetch_add(1, Ordering::Relaxed);
                        });
                        assert!(seen.iter().all(|c| c.load(Ordering::Relaxed) == 1));
                    }
                });
            }
        });
    }

    #[test]
    fn a_piece_calling_the_crew_again_finishes() {
        let total = AtomicUsize::new(0);
        for_each_piece(8, &|_| {
            for_each_piece(5, &|_| {
                total.fetch_add(1, Ordering::Relaxed);
            });
        });
        assert_eq!(total.into_inner(), 40);
    }

    #[test]
    fn a_panicking_piece_reaches_the_caller() {
        let ended = AtomicUsize::new(0);
        let r = catch_unwind(AssertUnwindSafe(|| {
            for_each_piece(64, &|i| {
                if i == 13 {
                    panic!("piece 13");
                }
                ended.fetch_add(1, Ordering::Relaxed);
            })
        }));
        let payload = r.expect_err("the panic comes back");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"piece 13"));
        // On the crew every other piece runs; on rayon (the crew busy with another test's job)
        // the pieces of the panicking task's share after it do not.
        assert!(ended.load(Ordering::Relaxed) <= 63);
        // The crew still works.
        let seen = counts(33);
        for_each_piece(33, &|i| {
            seen[i].fetch_add(1, Ordering::Relaxed);
        });
        assert!(seen.iter().all(|c| c.load(Ordering::Relaxed) == 1));
    }
}
