//! The CUDA backend against the CPU backend on the same inputs: random
//! matrices (sizes off the tile grid, empty rows, dense blocks, hub rows long
//! enough to be split across warps) and real graphs from `data/`.
//!
//! Every device buffer starts poisoned (0xFF bytes: NaN / MAX), so an output
//! element no kernel wrote shows up as a difference. Integer and boolean
//! results must match bit for bit, floats within 1e-4 relative.
//!
//! Without a GPU each test prints a SKIPPED line; with
//! `BITGRAPHBLAS_REQUIRE_GPU=1` a missing GPU fails instead. The seed of the
//! random inputs is printed and can be fixed with `BITGRAPHBLAS_SEED`.
#![cfg(feature = "cuda")]

#[path = "../common/mod.rs"]
mod common;
mod mxv;
mod products;
mod vectors;

use bitgraphblas::algebra::{
    Abs, AnyPair, BindSecond, Identity, IndexOp, LorLand, Max, MaxMin, MaxTimes, Min, MinFirst,
    MinPlus, MinSecond, Plus, PlusPair, PlusTimes, Semiring, Times,
};
use bitgraphblas::backend::cuda::{cuda_or_skip, CudaBackend};
use bitgraphblas::backend::EwiseKind;
use bitgraphblas::container::{Accum, Accumulate, Flags, NoAccum};
use bitgraphblas::{
    Backend, Cpu, DenseMatrix, Format, Matrix, Scalar, TileSize, Vector, VectorFormat,
};
use common::seed;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const TILES: [TileSize; 4] = [TileSize::T4, TileSize::T8, TileSize::T16, TileSize::T32];

/// Random pattern: density `p`, a dense block, an empty band of rows, and
/// (when `hub`) row 1 and column 2 full, so long tile rows get split.
fn pattern(rng: &mut StdRng, n: usize, m: usize, p: f64, hub: bool) -> Vec<(usize, usize)> {
    let mut e = std::collections::BTreeSet::new();
    for i in 0..n {
        if i % 17 == 5 {
            continue; // empty rows
        }
        for j in 0..m {
            if rng.gen_bool(p) {
                e.insert((i, j));
            }
        }
    }
    let (bi, bj) = (rng.gen_range(0..n), rng.gen_range(0..m));
    for i in bi..(bi + 9).min(n) {
        for j in bj..(bj + 11).min(m) {
            e.insert((i, j));
        }
    }
    if hub && n > 2 && m > 2 {
        for j in 0..m {
            e.insert((1, j));
        }
        for i in 0..n {
            e.insert((i, 2));
        }
    }
    e.into_iter().collect()
}

fn matrix<T: Scalar>(n: usize, m: usize, e: &[(usize, usize)], v: T) -> Matrix<T> {
    Matrix::from_triplets(n, m, e.iter().map(|&(i, j)| (i, j, v)).collect()).unwrap()
}

fn rand_val<T: Scalar>(rng: &mut StdRng) -> T {
    if T::TYPE == bitgraphblas::ScalarType::Bool {
        T::from_f64(rng.gen_range(0..4) as f64) // mostly true
    } else if T::IS_FLOAT {
        T::from_f64(rng.gen_range(-4.0..8.0))
    } else {
        T::from_f64(rng.gen_range(0..50) as f64)
    }
}

/// A random vector of length n in `format` (Bits: values one).
fn vector<T: Scalar>(
    rng: &mut StdRng,
    n: usize,
    p_present: f64,
    format: VectorFormat,
) -> Vector<T> {
    let mut e: Vec<(usize, T)> = Vec::new();
    for i in 0..n {
        if rng.gen_bool(p_present) {
            let v = if format == VectorFormat::Bits {
                T::one()
            } else {
                rand_val(rng)
            };
            e.push((i, v));
        }
    }
    Vector::from_entries(n, e)
        .unwrap()
        .to_format(format)
        .unwrap()
}

fn close<T: Scalar>(a: T, b: T) -> bool {
    if !T::IS_FLOAT {
        return a == b;
    }
    let (x, y) = (a.to_f64(), b.to_f64());
    x == y || (x.is_nan() && y.is_nan()) || (x - y).abs() <= 1e-4 * x.abs().max(y.abs()).max(1.0)
}

#[track_caller]
fn same_vector<T: Scalar>(cpu: &Vector<T>, gpu: &Vector<T>, ctx: &str) {
    assert_eq!(cpu.len(), gpu.len(), "{ctx}: length");
    let (a, b) = (cpu.entries(), gpu.entries());
    let ia: Vec<usize> = a.iter().map(|e| e.0).collect();
    let ib: Vec<usize> = b.iter().map(|e| e.0).collect();
    if ia != ib {
        let only_cpu: Vec<_> = ia.iter().filter(|i| !ib.contains(i)).take(8).collect();
        let only_gpu: Vec<_> = ib.iter().filter(|i| !ia.contains(i)).take(8).collect();
        panic!(
            "{ctx}: patterns differ ({} vs {} entries); only cpu {only_cpu:?}, only gpu {only_gpu:?}",
            ia.len(),
            ib.len()
        );
    }
    for (x, y) in a.iter().zip(&b) {
        assert!(
            close(x.1, y.1),
            "{ctx}: entry {}: cpu {:?} gpu {:?}",
            x.0,
            x.1,
            y.1
        );
    }
}
