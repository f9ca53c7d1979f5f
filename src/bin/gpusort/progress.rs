//! The progress bar on stderr, and stopping a sort cleanly on SIGINT / SIGTERM: the handler only
//! sets a flag, which the progress callback turns into a cancelled sort (its files removed).

use std::io::{IsTerminal, Write};
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use gpusort::{FileProgress, Phase};

static STOP: AtomicBool = AtomicBool::new(false);

#[cfg(unix)]
extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

/// Makes SIGINT and SIGTERM stop the sort at its next progress report (Unix; elsewhere a
/// stopped sort's files are removed by the next one).
pub fn stop_on_signals() {
    #[cfg(unix)]
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::signal(libc::SIGINT, handler);
        libc::signal(libc::SIGTERM, handler);
    }
}

/// A one-line bar, redrawn at most ten times a second, when stderr is a terminal.
pub struct Bar {
    shown: bool,
    started: Instant,
    drawn: Option<Instant>,
}

impl Bar {
    pub fn new(wanted: bool) -> Bar {
        Bar { shown: wanted && std::io::stderr().is_terminal(), started: Instant::now(), drawn: None }
    }

    pub fn update(&mut self, p: &FileProgress) -> ControlFlow<()> {
        if STOP.load(Ordering::SeqCst) {
            return ControlFlow::Break(());
        }
        if self.shown && self.drawn.is_none_or(|t| t.elapsed().as_millis() >= 100) {
            self.drawn = Some(Instant::now());
            let phase = match p.phase {
                Phase::Runs => "runs ".to_string(),
                Phase::Merge { pass } => format!("merge {pass}/{}", p.merge_passes),
                _ => "     ".to_string(),
            };
            let share = if p.total == 0 { 1.0 } else { p.done as f64 / p.total as f64 };
            let filled = (share * 30.0) as usize;
            let _ = write!(
                std::io::stderr(),
                "\r{phase} [{}{}] {:5.1}% {:.1}/{:.1} GB {:.0} s ",
                "#".repeat(filled),
                " ".repeat(30 - filled.min(30)),
                100.0 * share,
                p.done as f64 / 1e9,
                p.total as f64 / 1e9,
                self.started.elapsed().as_secs_f64()
            );
        }
        ControlFlow::Continue(())
    }

    pub fn finish(&self) {
        if self.shown && self.drawn.is_some() {
            let _ = writeln!(std::io::stderr());
        }
    }
}
