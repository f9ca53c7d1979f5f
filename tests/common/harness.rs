//! The harness of the test binaries with GPU cases (`harness = false` in Cargo.toml): libtest's
//! command line and output, through libtest-mimic, with one difference that matters: a GPU case on
//! a machine without a usable GPU is reported as ignored, with the reason, not as passed, so a
//! summary tells a CPU-only run from a full one. `GPUSORT_REQUIRE_GPU=1` makes it a failure.

use std::process::ExitCode;
use std::sync::OnceLock;

use gpusort::Sorter;
use libtest_mimic::{Arguments, Completion, Failed, Trial};

/// Why no GPU case can run here, or `None` when a GPU is usable (probed once per process).
pub fn gpu_missing() -> Option<&'static str> {
    static PROBE: OnceLock<Option<String>> = OnceLock::new();
    PROBE.get_or_init(|| Sorter::cuda().err().map(|e| e.to_string())).as_deref()
}

fn require_gpu() -> bool {
    std::env::var("GPUSORT_REQUIRE_GPU").as_deref() == Ok("1")
}

/// A case that runs on any machine.
pub fn cpu(name: &str, f: impl FnOnce() + Send + 'static) -> Trial {
    Trial::test(name, move || {
        f();
        Ok(())
    })
}

/// A case that needs a usable GPU: ignored without one (a failure with `GPUSORT_REQUIRE_GPU=1`).
pub fn gpu(name: &str, f: impl FnOnce() + Send + 'static) -> Trial {
    Trial::ignorable_test(name, move || match gpu_missing() {
        None => {
            f();
            Ok(Completion::Completed)
        }
        Some(why) if require_gpu() => Err(Failed::from(format!("GPUSORT_REQUIRE_GPU=1 but no usable GPU: {why}"))),
        Some(why) => Ok(Completion::ignored_with(format!("no CUDA device: {why}"))),
    })
}

/// Runs the cases the command line selects, as libtest would, and says once why GPU cases are
/// ignored when they are.
pub fn run(trials: Vec<Trial>) -> ExitCode {
    let args = Arguments::from_args();
    if let Some(why) = gpu_missing().filter(|_| !require_gpu() && !args.list) {
        eprintln!("no CUDA device ({why}): GPU cases are reported as ignored; GPUSORT_REQUIRE_GPU=1 fails them");
    }
    libtest_mimic::run(&args, trials).exit_code()
}
