//! Checks of the CUDA layer itself, independent of any sort: the driver probe, the module cache
//! and a launch through a typed wrapper. Skipped loudly without a GPU.

use cudarc::driver::{DevicePtrMut, LaunchConfig};

use super::gpu;
use super::overlap::{self, Args, Launch};

#[test]
fn probe_kernel_loads_once_and_runs() {
    let g = match gpu(0) {
        Ok(g) => g,
        Err(e) => {
            assert!(std::env::var("GPUSORT_REQUIRE_GPU").as_deref() != Ok("1"), "no usable GPU: {e}");
            skip_loudly(&format!("skipped: no CUDA device ({e})"));
            return;
        }
    };
    let t = std::time::Instant::now();
    let f = g.function(&gpusort_kernels::PROBE, "probe_fill").unwrap();
    let first_load = t.elapsed();
    let t = std::time::Instant::now();
    let _again = g.function(&gpusort_kernels::PROBE, "probe_fill").unwrap();
    assert!(t.elapsed() < first_load.max(std::time::Duration::from_micros(50)), "second lookup must hit the cache");
    let stream = g.ctx.new_stream().unwrap();
    let n = 100_003u32;
    let mut buf = stream.clone_htod(&vec![0xFFFF_FFFFu32; n as usize]).unwrap();
    let cfg = LaunchConfig { grid_dim: (n.div_ceil(256), 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
    {
        let (p, _written) = buf.device_ptr_mut(&stream);
        let mut args = Args::new();
        args.arg(p).arg(n);
        // SAFETY: probe_fill(unsigned *p, unsigned n) writes p[0..n); buf holds n elements.
        unsafe { overlap::launch(&g, &stream, &f, Launch::Plain, cfg, &mut args) }.unwrap();
    }
    let host = stream.clone_dtoh(&buf).unwrap();
    assert!(host.iter().enumerate().all(|(i, &x)| x == i as u32));
    skip_loudly(&format!("{}: module load {:?}", g.describe(), first_load));
}

/// Test output is captured unless written to the stderr handle directly.
fn skip_loudly(msg: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{msg}");
}

#[test]
fn every_committed_image_loads() {
    let Ok(g) = gpu(0) else { return skip_loudly("skipped: no CUDA device") };
    for image in gpusort_kernels::ALL {
        g.module(image).unwrap_or_else(|e| panic!("{}: {e}", image.name));
    }
}
