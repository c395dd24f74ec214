//! The dense-matrix operations (`ops::dense_mxm`, `scale_dense_cols`,
//! `apply_dense`, `ewise_dense`, `argmax_rows`) on any backend against plain
//! host references, on the inputs of one seed. Values are small dyadic
//! numbers (multiples of 1/8), so every f32 sum is exact in any order and
//! the results must be equal, not close.

use bitgraphblas::algebra::{Abs, BindSecond, Max, MinPlus, Minus, Plus, PlusTimes, Times};
use bitgraphblas::{ops, Backend, DenseMatrix, Scalar, Vector};

/// xorshift64*.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// A multiple of 1/8 in [-4, 4).
    pub fn value(&mut self) -> f32 {
        (self.below(64) as f32 - 32.0) / 8.0
    }
    /// An awkward size.
    pub fn size(&mut self) -> usize {
        const S: [usize; 12] = [0, 1, 2, 3, 7, 15, 16, 17, 31, 33, 64, 100];
        S[self.below(S.len() as u64) as usize]
    }
}

pub fn dense(r: &mut Rng, m: usize, n: usize) -> DenseMatrix<f32> {
    DenseMatrix::from_vec(m, n, (0..m * n).map(|_| r.value()).collect()).unwrap()
}

/// `C = A ⊕.⊗ B` by the definition.
fn reference_mxm<T: Scalar>(
    a: &DenseMatrix<T>,
    b: &DenseMatrix<T>,
    zero: T,
    add: impl Fn(T, T) -> T,
    mul: impl Fn(T, T) -> T,
) -> Vec<T> {
    let (m, k, n) = (a.nrows(), a.ncols(), b.ncols());
    let mut c = vec![zero; m * n];
    for i in 0..m {
        for j in 0..n {
            for p in 0..k {
                c[i * n + j] = add(c[i * n + j], mul(a.get(i, p), b.get(p, j)));
            }
        }
    }
    c
}

fn down<B: Backend, T: Scalar>(b: &B, d: &B::Dense<T>) -> Vec<T> {
    b.download_dense(d).unwrap().into_vec()
}

/// Every operation on the inputs of `seed`; `Err` says what differs.
pub fn check_case<B: Backend>(b: &B, seed: u64) -> Result<(), String> {
    let mut r = Rng::new(seed);
    let (m, k, n) = (r.size(), r.size(), r.size());
    let a = dense(&mut r, m, k);
    let w = dense(&mut r, k, n);
    let (da, dw) = (b.upload_dense(&a).unwrap(), b.upload_dense(&w).unwrap());
    let ctx = format!("seed {seed}, {m}x{k} by {k}x{n}");
    // products: arithmetic (a GEMM on the CPU), min-plus, and i32
    let mut c = b.dense_new(m, n, f32::NAN).unwrap();
    ops::dense_mxm(b, &mut c, PlusTimes::<f32>::new(), &da, &dw).map_err(|e| e.to_string())?;
    let want = reference_mxm(&a, &w, 0.0, |x, y| x + y, |x, y| x * y);
    if down(b, &c) != want {
        return Err(format!("dense_mxm plus_times, {ctx}"));
    }
    ops::dense_mxm(b, &mut c, MinPlus::<f32>::new(), &da, &dw).map_err(|e| e.to_string())?;
    let want = reference_mxm(&a, &w, f32::INFINITY, f32::min, |x, y| x + y);
    if down(b, &c) != want {
        return Err(format!("dense_mxm min_plus, {ctx}"));
    }
    let ai = DenseMatrix::from_vec(
        m,
        k,
        a.as_slice().iter().map(|&x| (x * 8.0) as i32).collect(),
    )
    .unwrap();
    let wi = DenseMatrix::from_vec(
        k,
        n,
        w.as_slice().iter().map(|&x| (x * 8.0) as i32).collect(),
    )
    .unwrap();
    let mut ci = b.dense_new(m, n, -7i32).unwrap();
    let (dai, dwi) = (b.upload_dense(&ai).unwrap(), b.upload_dense(&wi).unwrap());
    ops::dense_mxm(b, &mut ci, PlusTimes::<i32>::new(), &dai, &dwi).map_err(|e| e.to_string())?;
    if down(b, &ci) != reference_mxm(&ai, &wi, 0, |x, y| x + y, |x, y| x * y) {
        return Err(format!("dense_mxm i32, {ctx}"));
    }
    // a bias (some entries absent: those columns are copied)
    let mut entries = Vec::new();
    for j in 0..k {
        if r.below(4) != 0 {
            entries.push((j, r.value()));
        }
    }
    let bias = Vector::from_entries(k, entries.clone()).unwrap();
    let mut s = b.dense_new(m, k, f32::NAN).unwrap();
    ops::scale_dense_cols(b, &mut s, Plus, &da, &b.upload_vector(&bias).unwrap())
        .map_err(|e| e.to_string())?;
    let mut want = a.as_slice().to_vec();
    for i in 0..m {
        for &(j, v) in &entries {
            want[i * k + j] += v;
        }
    }
    if down(b, &s) != want {
        return Err(format!("scale_dense_cols, {ctx}"));
    }
    // ReLU, |x|, and element-wise products and differences
    ops::apply_dense(b, &mut s, BindSecond(Max, 0.0f32), &da).map_err(|e| e.to_string())?;
    if down(b, &s) != a.as_slice().iter().map(|&x| x.max(0.0)).collect::<Vec<_>>() {
        return Err(format!("apply_dense relu, {ctx}"));
    }
    ops::apply_dense(b, &mut s, Abs, &da).map_err(|e| e.to_string())?;
    if down(b, &s) != a.as_slice().iter().map(|&x| x.abs()).collect::<Vec<_>>() {
        return Err(format!("apply_dense abs, {ctx}"));
    }
    let a2 = dense(&mut r, m, k);
    let da2 = b.upload_dense(&a2).unwrap();
    for (name, op) in [("times", 0), ("minus", 1)] {
        let pairs = a.as_slice().iter().zip(a2.as_slice());
        let want: Vec<f32> = if op == 0 {
            ops::ewise_dense(b, &mut s, Times, &da, &da2).map_err(|e| e.to_string())?;
            pairs.map(|(x, y)| x * y).collect()
        } else {
            ops::ewise_dense(b, &mut s, Minus, &da, &da2).map_err(|e| e.to_string())?;
            pairs.map(|(x, y)| x - y).collect()
        };
        if down(b, &s) != want {
            return Err(format!("ewise_dense {name}, {ctx}"));
        }
    }
    // argmax with ties (values from a small set) and a NaN in some rows
    if k > 0 {
        let mut t =
            DenseMatrix::from_vec(m, k, (0..m * k).map(|_| r.below(3) as f32).collect()).unwrap();
        for i in 0..m {
            if r.below(5) == 0 {
                let j = r.below(k as u64) as usize;
                t.as_mut_slice()[i * k + j] = f32::NAN;
            }
        }
        let mut p = b.dense_new(m, 1, u32::MAX).unwrap();
        ops::argmax_rows(b, &mut p, &b.upload_dense(&t).unwrap()).map_err(|e| e.to_string())?;
        let want: Vec<u32> = (0..m)
            .map(|i| {
                let row = t.row(i);
                match row.iter().position(|x| x.is_nan()) {
                    Some(j) => j as u32,
                    None => {
                        let max = row.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
                        row.iter().position(|&x| x == max).unwrap() as u32
                    }
                }
            })
            .collect();
        if down(b, &p) != want {
            return Err(format!("argmax_rows, {ctx}"));
        }
    }
    Ok(())
}

/// Wrong shapes: an error naming the operation, the output unchanged.
pub fn check_bad_shapes<B: Backend>(b: &B) {
    let a = b.upload_dense(&DenseMatrix::filled(2, 3, 1.0f32)).unwrap();
    let w = b.upload_dense(&DenseMatrix::filled(2, 3, 1.0f32)).unwrap();
    let mut c = b.dense_new(2, 3, 5.0f32).unwrap();
    let before = down(b, &c);
    let e = ops::dense_mxm(b, &mut c, PlusTimes::<f32>::new(), &a, &w).unwrap_err();
    assert!(e.to_string().contains("dense_mxm"), "{e}");
    let v = b
        .upload_vector(&Vector::from_dense(vec![1.0f32; 2]))
        .unwrap();
    let e = ops::scale_dense_cols(b, &mut c, Plus, &a, &v).unwrap_err();
    assert!(e.to_string().contains("scale_dense_cols"), "{e}");
    let mut small = b.dense_new(1, 1, 5.0f32).unwrap();
    let e = ops::apply_dense(b, &mut small, Abs, &a).unwrap_err();
    assert!(e.to_string().contains("apply_dense"), "{e}");
    let other = b.upload_dense(&DenseMatrix::filled(3, 2, 1.0f32)).unwrap();
    let e = ops::ewise_dense(b, &mut c, Plus, &a, &other).unwrap_err();
    assert!(e.to_string().contains("ewise_dense"), "{e}");
    let mut p = b.dense_new(3, 1, 9u32).unwrap();
    let e = ops::argmax_rows(b, &mut p, &a).unwrap_err();
    assert!(e.to_string().contains("argmax_rows"), "{e}");
    let empty = b.upload_dense(&DenseMatrix::filled(2, 0, 1.0f32)).unwrap();
    let mut p2 = b.dense_new(2, 1, 9u32).unwrap();
    assert!(ops::argmax_rows(b, &mut p2, &empty).is_err());
    assert_eq!(down(b, &c), before);
    assert_eq!(down(b, &p), vec![9; 3]);
    assert_eq!(down(b, &p2), vec![9; 2]);
}
