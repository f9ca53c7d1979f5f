//! Sorting data that is already on the GPU: the caller's device buffer and stream, no copy
//! through host memory. Needs the `cuda` feature (on by default) and, to do anything, a GPU:
//! without one it says so and exits successfully.
//!
//! `cargo run --release --example device`

use gpusort::cudarc::driver::CudaSlice;
use gpusort::{Kvp, Order, Sorter};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let sorter = match Sorter::cuda() {
        Ok(s) => s,
        Err(e) => {
            println!("this example needs a CUDA GPU: {e}");
            return Ok(());
        }
    };
    println!("{sorter}");
    // Buffers for the `*_device` methods come from the sorter's context (`gpusort::cudarc` is the
    // cudarc version gpusort was built with).
    let ctx = sorter.cuda_context().expect("a cuda() sorter has a context");
    let stream = ctx.new_stream()?;
    let host: Vec<Kvp> = (0..1_000_000u32).map(|i| Kvp::new(i.wrapping_mul(2_654_435_761), i)).collect();
    let mut data: CudaSlice<Kvp> = stream.clone_htod(&host)?;

    // Queued on `stream`: other work on it runs after the sort, with no wait on the host.
    sorter.clone().with_order(Order::Descending).sort_kvp_device(&mut data, &stream)?;

    let back = stream.clone_dtoh(&data)?;
    assert!(back.windows(2).all(|w| w[0].key >= w[1].key));
    println!("largest key {} (value {})", back[0].key, back[0].value);

    // The 10 largest of a million scores on the device, with their positions, without sorting
    // them all; the results stay on the device too.
    let scores: Vec<f32> = (0..1_000_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 8) as f32 / 1e3).collect();
    let d_scores = stream.clone_htod(&scores)?;
    let top = sorter.with_order(Order::Descending).top_k_device(&d_scores, 10, &stream)?;
    let (best, at) = (stream.clone_dtoh(&top.keys)?, stream.clone_dtoh(&top.indices)?);
    assert!(best.windows(2).all(|w| w[0] >= w[1]) && at.iter().zip(&best).all(|(&i, &s)| scores[i as usize] == s));
    println!("best score {} at {}", best[0], at[0]);
    Ok(())
}
