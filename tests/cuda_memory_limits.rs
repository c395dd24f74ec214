//! Device memory beyond what the device has is an `Err`, never an abort or a
//! panic: a request just above the device's total memory, one of 8 TiB, and
//! a length whose byte count overflows the address space. Afterwards the
//! device still works (the failed requests left no error behind).
//!
//! Without a GPU each test prints a SKIPPED line; with
//! `BITGRAPHBLAS_REQUIRE_GPU=1` a missing GPU fails instead.
#![cfg(feature = "cuda")]

use bitgraphblas::backend::cuda::cuda_or_skip;
use bitgraphblas::{Backend, Error, Vector, VectorFormat};

#[test]
fn more_than_the_device_has_is_an_error() {
    let Some(gpu) = cuda_or_skip("more_than_the_device_has_is_an_error") else {
        return;
    };
    let total = cudarc::driver::CudaContext::new(0)
        .and_then(|c| c.total_mem())
        .expect("the device reports its memory");
    // A dense f64 matrix of 2^20 rows and as many columns as take the whole
    // device, plus 1024: 8 GiB more than the device has.
    let cols = ((total / 8) >> 20) + 1024;
    match gpu.dense_new::<f64>(1 << 20, cols, 0.0) {
        Err(Error::Cuda { op, detail }) => {
            assert_eq!(op, "alloc", "{detail}");
        }
        Err(e) => panic!("{total} bytes on the device: unexpected error {e}"),
        Ok(_) => panic!(
            "{total} bytes on the device, but {} more were given",
            8u64 << 30
        ),
    }
    // 8 TiB, more than any device.
    let r = gpu.dense_new::<f64>(1 << 20, 1 << 20, 1.0);
    assert!(matches!(r, Err(Error::Cuda { .. })), "8 TiB: {:?}", r.err());
    // A length whose bytes do not fit a usize.
    let r = gpu.vector_new::<f64>(usize::MAX / 4, Some(0.0), VectorFormat::Dense);
    assert!(matches!(r, Err(Error::TooLarge { .. })), "{:?}", r.err());
    // The device still works.
    let v = Vector::from_entries(5, vec![(1, 2.5f64), (4, -1.0)]).unwrap();
    let d = gpu.upload_vector(&v).unwrap();
    assert_eq!(gpu.download_vector(&d).unwrap(), v);
    let z = gpu
        .vector_new::<f64>(1000, Some(3.0), VectorFormat::Dense)
        .unwrap();
    assert_eq!(
        gpu.download_vector(&z).unwrap().to_vec(0.0),
        vec![3.0; 1000]
    );
}
