//! `ext::Replay`: a recorded sequence runs again at every replay, reading
//! its inputs' current contents and rewriting its outputs, on the CPU
//! (which records nothing and runs the calls again) and on the CUDA backend
//! (one CUDA graph, asserted recorded). The sequence accumulates into a
//! vector it borrows, so the count of runs shows in the result: a replay
//! that queued nothing, or ran twice, fails. The CUDA test opens a backend
//! of its own (no poison mode, which cannot be recorded, and no other test
//! queueing work on its stream); without a GPU it prints a SKIPPED line,
//! with `BITGRAPHBLAS_REQUIRE_GPU=1` a missing GPU fails instead.

use std::cell::RefCell;

use bitgraphblas::algebra::{Plus, PlusTimes};
use bitgraphblas::backend::VectorShape;
use bitgraphblas::ext::Replay;
use bitgraphblas::{ops, BackendExt, Cpu, Desc, Format, Matrix, TileSize, Vector};

/// A 300 x 300 matrix with a hub row, empty rows and a diagonal.
fn matrix() -> Matrix<f64> {
    let n = 300;
    let mut t: Vec<(usize, usize, f64)> = (0..n)
        .filter(|i| i % 7 != 3)
        .map(|i| (i, i, 1.0 + (i % 5) as f64))
        .collect();
    t.extend((0..n).map(|j| (11, j, 0.5)).filter(|&(i, j, _)| i != j));
    t.extend((0..n - 1).filter(|i| i % 3 == 0).map(|i| (i, i + 1, 2.0)));
    Matrix::from_triplets(n, n, t).unwrap()
}

/// Records `w += A u` on CSR (valued) and B2SR (the pattern), replays it
/// `k` times, and returns whether the backend recorded it and `w` after
/// each format's replays (which must be `(2 + k) A u`: one plain run and
/// one recorded run at `record`, then `k` replays).
fn accumulate_runs<B>(b: &B, k: usize) -> (bool, Vec<Vec<f64>>)
where
    B: BackendExt,
    B::MaskSource: VectorShape,
{
    let host = matrix();
    let n = host.nrows();
    let u = b
        .upload_vector(&Vector::from_dense(
            (0..n).map(|i| (i % 9) as f64 - 4.0).collect(),
        ))
        .unwrap();
    let mut recorded = true;
    let mut out = Vec::new();
    for format in [
        Format::Csr,
        Format::B2sr(TileSize::T4),
        Format::B2sr(TileSize::T8),
        Format::B2sr(TileSize::T32),
    ] {
        // B2SR holds a pattern: every entry 1
        let a = match format {
            Format::Csr => b.upload_matrix(&host).unwrap(),
            _ => b
                .upload_matrix(&host.to_pattern(format, 1.0).unwrap())
                .unwrap(),
        };
        let w = RefCell::new(
            b.upload_vector(&Vector::from_dense(vec![0.0f64; n]))
                .unwrap(),
        );
        let mut replay = Replay::record(b, |b: &B| {
            ops::mxv(
                b,
                &mut w.borrow_mut(),
                PlusTimes::<f64>::new(),
                &a,
                &u,
                &Desc::new().accum(Plus),
            )
        })
        .unwrap();
        for _ in 0..k {
            replay.run(b).unwrap();
        }
        recorded &= replay.is_recorded();
        drop(replay);
        out.push(b.download_vector(&w.into_inner()).unwrap().to_vec(0.0));
    }
    (recorded, out)
}

/// `w` after `runs` runs of `w += A u` from zero, on the host (`A`'s
/// pattern with `pattern`).
fn expected(runs: usize, pattern: bool) -> Vec<f64> {
    let a = matrix();
    let n = a.nrows();
    let u: Vec<f64> = (0..n).map(|i| (i % 9) as f64 - 4.0).collect();
    let mut w = vec![0.0; n];
    for (&x, (i, j)) in a.to_sprs().iter() {
        w[i] += if pattern { 1.0 } else { x } * u[j];
    }
    w.iter().map(|x| x * runs as f64).collect()
}

#[test]
fn a_replay_on_the_cpu_runs_the_calls_again() {
    let (recorded, out) = accumulate_runs(&Cpu::new(), 3);
    assert!(!recorded, "the CPU backend records nothing");
    for (f, w) in out.iter().enumerate() {
        assert_eq!(*w, expected(5, f > 0));
    }
}

#[cfg(feature = "cuda")]
#[test]
fn a_replay_on_the_gpu_is_one_graph_that_runs_every_time() {
    let Some(gpu) = bitgraphblas::backend::cuda::own_cuda_or_skip("replay on the GPU") else {
        return;
    };
    let (recorded, out) = accumulate_runs(&gpu, 3);
    assert!(recorded, "the CUDA backend records the sequence");
    for (f, w) in out.iter().enumerate() {
        assert_eq!(*w, expected(5, f > 0));
    }
    // poison mode synchronises after every launch: not recorded, still right
    gpu.set_poison(true);
    let (recorded, out) = accumulate_runs(&gpu, 2);
    assert!(!recorded);
    for (f, w) in out.iter().enumerate() {
        assert_eq!(*w, expected(4, f > 0));
    }
}
