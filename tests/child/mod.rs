//! Runs a closure in a forked child process, with a deadline: a test of fork or of a memory
//! limit neither takes the test harness down with it nor hangs CI.

use std::io::Write;
use std::panic::AssertUnwindSafe;
use std::time::{Duration, Instant};

/// How a child ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    Exited(i32),
    Signalled(i32),
}

/// Writes a line to stderr from a child. The harness captures `eprintln!` per test thread, and a
/// child's capture buffer is lost at `_exit`, so children write to the file descriptor itself.
pub fn say(msg: &str) {
    let _ = writeln!(std::io::stderr(), "[child {}] {msg}", std::process::id());
}

/// Forks; the child runs `f` and exits with the code it returns (101 if it panics). The parent
/// waits at most `deadline`, then kills a child still running and fails the test.
pub fn run_in_child(what: &str, deadline: Duration, f: impl FnOnce() -> i32) -> Outcome {
    // SAFETY: the child only runs `f` (Rust code that allocates and may start threads, both fine
    // after fork with glibc) and then `_exit`s, without returning into the harness.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork: {}", std::io::Error::last_os_error());
    if pid == 0 {
        // A second guard should the parent be gone: SIGALRM's default action ends the child.
        // SAFETY: plain system calls.
        unsafe { libc::alarm(deadline.as_secs() as u32 + 60) };
        let code = std::panic::catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| {
            let msg = p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()));
            say(&format!("panicked: {}", msg.unwrap_or_default()));
            101
        });
        // SAFETY: ends the child without running the parent's exit handlers or destructors.
        unsafe { libc::_exit(code) }
    }
    let start = Instant::now();
    loop {
        let mut status = 0;
        // SAFETY: waits for our own child.
        let r = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if r == pid {
            return if libc::WIFEXITED(status) {
                Outcome::Exited(libc::WEXITSTATUS(status))
            } else {
                Outcome::Signalled(libc::WTERMSIG(status))
            };
        }
        assert_eq!(r, 0, "waitpid: {}", std::io::Error::last_os_error());
        if start.elapsed() > deadline {
            // SAFETY: our own child, still unreaped.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, &mut status, 0);
            }
            panic!("{what}: the child did not finish within {deadline:?} (hung) and was killed");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}
