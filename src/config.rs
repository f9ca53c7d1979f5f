//! The `GPUSORT_*` environment variables the library reads, parsed once per process. A value that
//! is not understood is reported on stderr once, with the accepted values; where going on would
//! sort elsewhere than asked (`GPUSORT_BACKEND`), the value is refused instead and the sorters it
//! decides return `SortError::Config`.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::OnceLock;

/// The backend `GPUSORT_BACKEND` asks `Sorter::auto()` for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ForcedBackend {
    Auto,
    Cpu,
    Cuda,
}

#[derive(Debug)]
pub(crate) struct Config {
    /// `Err`: why `auto()` sorters refuse to sort.
    pub(crate) backend: Result<ForcedBackend, String>,
    /// The device pool's release threshold, `None` for gpusort's default.
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    pub(crate) pool_keep_bytes: Option<u64>,
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    pub(crate) overlap_launches: bool,
    /// Where kernel images override the committed ones (kernel development only).
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    pub(crate) kernels_dir: Option<PathBuf>,
}

/// Debug builds and the `testing` feature load kernel images from `GPUSORT_KERNELS_DIR`; a
/// release build runs only the images it was built with.
const KERNELS_DIR_HONOURED: bool = cfg!(any(debug_assertions, feature = "testing"));

/// The process's configuration, read from the environment on first use (reporting what it does
/// not understand on stderr, once).
pub(crate) fn get() -> &'static Config {
    static CONFIG: OnceLock<Config> = OnceLock::new();
    CONFIG.get_or_init(|| {
        let (config, problems) = Config::read(|name| std::env::var_os(name), KERNELS_DIR_HONOURED);
        for p in problems {
            eprintln!("gpusort: {p}");
        }
        config
    })
}

impl Config {
    /// The configuration that `lookup` (a variable's value by name) gives, with a line for each
    /// value not understood.
    pub(crate) fn read(lookup: impl Fn(&str) -> Option<OsString>, kernels_dir_honoured: bool) -> (Config, Vec<String>) {
        let mut problems = Vec::new();
        let text = |name: &str, problems: &mut Vec<String>| -> Option<String> {
            let v = lookup(name)?;
            match v.into_string() {
                Ok(s) => Some(s.trim().to_string()),
                Err(raw) => {
                    problems.push(format!("{name}={raw:?} is not UTF-8"));
                    Some(String::from("\u{fffd}"))
                }
            }
        };
        let backend = backend(text("GPUSORT_BACKEND", &mut problems).as_deref());
        if let Err(e) = &backend {
            problems.push(format!("{e}; Sorter::auto() refuses to sort until it is fixed"));
        }
        let pool_keep_bytes = text("GPUSORT_POOL_KEEP_BYTES", &mut problems).and_then(|v| {
            v.parse::<u64>()
                .map_err(|_| {
                    problems.push(format!(
                        "GPUSORT_POOL_KEEP_BYTES={v} is not a number of bytes (such as 0 or 4294967296); \
                         ignored: the device's memory pool keeps up to half the device"
                    ))
                })
                .ok()
        });
        let overlap_launches = match text("GPUSORT_OVERLAP_LAUNCHES", &mut problems).as_deref() {
            None | Some("1") | Some("") => true,
            Some("0") => false,
            Some(other) => {
                problems.push(format!("GPUSORT_OVERLAP_LAUNCHES={other} is not 0 or 1; ignored (1)"));
                true
            }
        };
        let kernels_dir = lookup("GPUSORT_KERNELS_DIR").filter(|d| !d.is_empty()).and_then(|dir| {
            let dir = PathBuf::from(dir);
            if !kernels_dir_honoured {
                problems.push(format!(
                    "GPUSORT_KERNELS_DIR={} ignored: only debug builds or the `testing` feature load \
                     kernel images from a directory",
                    dir.display()
                ));
                return None;
            }
            if !dir.is_dir() {
                problems.push(format!(
                    "GPUSORT_KERNELS_DIR={} is not a directory; the committed kernel images are used",
                    dir.display()
                ));
                return None;
            }
            Some(dir)
        });
        (Config { backend, pool_keep_bytes, overlap_launches, kernels_dir }, problems)
    }
}

fn backend(value: Option<&str>) -> Result<ForcedBackend, String> {
    match value.map(str::to_ascii_lowercase).as_deref() {
        None | Some("") | Some("auto") => Ok(ForcedBackend::Auto),
        Some("cpu") => Ok(ForcedBackend::Cpu),
        Some("cuda") | Some("gpu") => Ok(ForcedBackend::Cuda),
        Some(_) => Err(format!("GPUSORT_BACKEND={} is not one of auto, cpu, cuda", value.unwrap_or_default())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(vars: &[(&str, &str)], honoured: bool) -> (Config, Vec<String>) {
        let vars: Vec<(String, OsString)> = vars.iter().map(|(k, v)| (k.to_string(), OsString::from(v))).collect();
        Config::read(|name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()), honoured)
    }

    #[test]
    fn nothing_set_is_the_default_without_a_word() {
        let (c, problems) = read(&[], true);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(c.backend, Ok(ForcedBackend::Auto));
        assert_eq!((c.pool_keep_bytes, c.overlap_launches, c.kernels_dir), (None, true, None));
    }

    #[test]
    fn backend_values() {
        for (v, want) in [
            ("auto", ForcedBackend::Auto),
            ("", ForcedBackend::Auto),
            (" CPU ", ForcedBackend::Cpu),
            ("cuda", ForcedBackend::Cuda),
            ("gpu", ForcedBackend::Cuda),
        ] {
            let (c, problems) = read(&[("GPUSORT_BACKEND", v)], true);
            assert_eq!((c.backend, problems.len()), (Ok(want), 0), "{v:?}");
        }
        let (c, problems) = read(&[("GPUSORT_BACKEND", "gpuu")], true);
        let e = c.backend.unwrap_err();
        assert!(e.contains("GPUSORT_BACKEND=gpuu") && e.contains("auto, cpu, cuda"), "{e}");
        assert_eq!(problems.len(), 1);
        assert!(problems[0].contains("refuses"), "{problems:?}");
    }

    #[test]
    fn bad_numbers_and_switches_are_reported_and_ignored() {
        let (c, problems) = read(&[("GPUSORT_POOL_KEEP_BYTES", "abc"), ("GPUSORT_OVERLAP_LAUNCHES", "no")], true);
        assert_eq!((c.pool_keep_bytes, c.overlap_launches), (None, true));
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].contains("GPUSORT_POOL_KEEP_BYTES=abc") && problems[0].contains("number of bytes"));
        assert!(problems[1].contains("GPUSORT_OVERLAP_LAUNCHES=no") && problems[1].contains("0 or 1"));
        let (c, problems) = read(&[("GPUSORT_POOL_KEEP_BYTES", " 4096 "), ("GPUSORT_OVERLAP_LAUNCHES", "0")], true);
        assert_eq!((c.pool_keep_bytes, c.overlap_launches, problems.len()), (Some(4096), false, 0));
    }

    #[test]
    fn kernels_dir_only_where_honoured_and_only_a_directory() {
        let dir = std::env::temp_dir();
        let d = dir.to_str().unwrap();
        let (c, problems) = read(&[("GPUSORT_KERNELS_DIR", d)], true);
        assert_eq!((c.kernels_dir, problems.len()), (Some(dir.clone()), 0));
        let (c, problems) = read(&[("GPUSORT_KERNELS_DIR", d)], false);
        assert_eq!(c.kernels_dir, None);
        assert!(problems[0].contains("only debug builds"), "{problems:?}");
        let (c, problems) = read(&[("GPUSORT_KERNELS_DIR", "/nonexistent/gpusort-kernels")], true);
        assert_eq!(c.kernels_dir, None);
        assert!(problems[0].contains("not a directory"), "{problems:?}");
    }
}
