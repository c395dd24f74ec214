//! Fills the on-disk kernel cache for this machine's GPU with every built-in
//! kernel module, compiled in parallel, so that no later process pays for
//! NVRTC at first use (the cache's place: `BITGRAPHBLAS_KERNEL_CACHE`, else
//! the platform's cache directory).
//!
//! ```text
//! cargo run --release --features cuda --example kernel_cache
//! ```

use std::time::Instant;

fn main() -> bitgraphblas::Result<()> {
    let gpu = bitgraphblas::CudaBackend::new(0)?;
    let t = Instant::now();
    let compiled = gpu.warm_kernel_cache()?;
    println!(
        "{}: {compiled} kernel modules compiled into the cache in {:.1} s",
        gpu.arch(),
        t.elapsed().as_secs_f64()
    );
    Ok(())
}
