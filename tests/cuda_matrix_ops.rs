//! The CUDA matrix-level operations against the CPU backend on the same random
//! inputs: CSR transpose, element-wise add/mult/union, apply, select, diagonal
//! scaling, extract, assign and column reductions, each with every mask kind
//! (valued, structural, complemented), with and without an accumulator and
//! replace, transposed inputs, CSR and B2SR operands.
//!
//! Inputs: sizes off the tile grid (and 0), empty rows, dense blocks, and a
//! full row and column (long rows and columns). Every device buffer starts
//! poisoned (0xFF bytes), so an output element no kernel wrote shows up. The
//! results must be the CPU's entry for entry: the same row pointers, the same
//! columns in the same order, the same values (NaN matches NaN).
//!
//! Without a GPU each test prints a SKIPPED line; with
//! `BITGRAPHBLAS_REQUIRE_GPU=1` a missing GPU fails instead. The seed is
//! printed and can be fixed with `BITGRAPHBLAS_SEED`.
#![cfg(feature = "cuda")]

mod common;

use bitgraphblas::algebra::{
    Abs, Ainv, BinaryOp, BindFirst, BindSecond, Div, First, Identity, IndexOp, Lnot, Lxor, Max,
    MaxTimes, Min, MinPlus, MinSecond, Minus, Monoid, One, Plus, PlusPair, PlusTimes, Second,
    Semiring, SemiringFrom, Times, UnaryOp,
};
use bitgraphblas::backend::cuda::{cuda_or_skip, CudaBackend};
use bitgraphblas::backend::EwiseKind;
use bitgraphblas::container::{Accum, Accumulate, Flags, MatrixMask, NoAccum};
use bitgraphblas::{
    Backend, Cpu, DenseMatrix, Format, Matrix, Scalar, ScalarType, TileSize, Vector, VectorFormat,
};
use common::seed;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

/// Shapes: empty, degenerate, off the tile grid, and one large enough for
/// long rows and columns.
const SHAPES: [(usize, usize); 8] = [
    (0, 0),
    (0, 5),
    (4, 0),
    (1, 1),
    (37, 29),
    (70, 45),
    (129, 67),
    (700, 530),
];

fn rand_val<T: Scalar>(rng: &mut StdRng) -> T {
    if T::TYPE == ScalarType::Bool {
        T::from_f64(rng.gen_range(0..3) as f64)
    } else if T::IS_FLOAT {
        // quarter-integers, zero often enough for valued masks
        T::from_f64(rng.gen_range(-16..24) as f64 / 4.0)
    } else {
        let lo = if T::from_f64(-1.0) < T::zero() { -8 } else { 0 };
        T::from_f64(rng.gen_range(lo..12) as f64)
    }
}

/// A random `n x m` matrix: density `p`, empty rows, a dense block, and (for
/// larger shapes) a full row 1 and column 2.
fn rand_csr<T: Scalar>(rng: &mut StdRng, n: usize, m: usize) -> Matrix<T> {
    let p = [0.0, 0.02, 0.1, 0.4][rng.gen_range(0..4)];
    let mut e = std::collections::BTreeMap::new();
    for i in 0..n {
        if i % 13 == 4 {
            continue;
        }
        for j in 0..m {
            if rng.gen_bool(p) {
                e.insert((i, j), rand_val::<T>(rng));
            }
        }
    }
    if n > 0 && m > 0 && rng.gen_bool(0.5) {
        let (bi, bj) = (rng.gen_range(0..n), rng.gen_range(0..m));
        for i in bi..(bi + 7).min(n) {
            for j in bj..(bj + 9).min(m) {
                e.insert((i, j), rand_val::<T>(rng));
            }
        }
    }
    if n > 100 && m > 100 {
        for j in 0..m {
            e.insert((1, j), rand_val::<T>(rng));
        }
        for i in 0..n {
            e.insert((i, 2), rand_val::<T>(rng));
        }
    }
    Matrix::from_triplets(n, m, e.into_iter().map(|((i, j), v)| (i, j, v)).collect()).unwrap()
}

/// CSR with random values, or (one time in three) B2SR of a random tile size
/// with an iso value.
fn rand_matrix<T: Scalar>(rng: &mut StdRng, n: usize, m: usize) -> Matrix<T> {
    let c = rand_csr::<T>(rng, n, m);
    if rng.gen_range(0..3) > 0 {
        return c;
    }
    let v = rand_val::<T>(rng);
    let t = [TileSize::T4, TileSize::T8, TileSize::T16, TileSize::T32][rng.gen_range(0..4)];
    c.to_pattern(Format::B2sr(t), v).unwrap()
}

fn rand_stored<T: Scalar>(rng: &mut StdRng, n: usize, m: usize, transposed: bool) -> Matrix<T> {
    if transposed {
        rand_matrix(rng, m, n)
    } else {
        rand_matrix(rng, n, m)
    }
}

/// The CPU's result and the device's, entry for entry.
#[track_caller]
fn same<T: Scalar>(cpu: &Matrix<T>, gpu: &Matrix<T>, ctx: &str) {
    let (x, y) = (cpu.as_csr(), gpu.as_csr());
    assert_eq!(
        (x.nrows(), x.ncols()),
        (y.nrows(), y.ncols()),
        "{ctx}: shape"
    );
    assert_eq!(x.row_ptr(), y.row_ptr(), "{ctx}: row pointers");
    assert_eq!(x.col_idx(), y.col_idx(), "{ctx}: columns");
    for (p, (a, b)) in x.values().iter().zip(y.values()).enumerate() {
        #[allow(clippy::eq_op)]
        let both_nan = a != a && b != b;
        assert!(a == b || both_nan, "{ctx}: value {p}: cpu {a:?} gpu {b:?}");
    }
}

/// One call's inputs: the old output, operands, mask, mask kind (0 none,
/// 1 valued, 2 structural, 3 complemented valued, 4 complemented
/// structural), accumulator (`PLUS`) and flags.
struct Case<T> {
    c0: Matrix<T>,
    a: Matrix<T>,
    b: Matrix<T>,
    mask: Matrix<T>,
    mk: u8,
    accum: bool,
    flags: Flags,
}

impl<T: Scalar> Case<T> {
    /// Output `n x m`, operands `a` (`na x ma` as read) and `b` of the output's shape.
    fn gen(rng: &mut StdRng, n: usize, m: usize, a_dims: (usize, usize)) -> Case<T> {
        let flags = Flags {
            replace: rng.gen_bool(0.5),
            transpose_a: rng.gen_bool(0.4),
            transpose_b: rng.gen_bool(0.4),
        };
        Case {
            c0: rand_matrix(rng, n, m),
            a: rand_stored(rng, a_dims.0, a_dims.1, flags.transpose_a),
            b: rand_stored(rng, n, m, flags.transpose_b),
            mask: rand_matrix(rng, n, m),
            mk: rng.gen_range(0..5),
            accum: rng.gen_bool(0.4),
            flags,
        }
    }
    fn ctx(&self, what: &str) -> String {
        format!(
            "{what} {:?} C {}x{} A {}x{} ({:?}) mask={} accum={} flags={:?}",
            T::TYPE,
            self.c0.nrows(),
            self.c0.ncols(),
            self.a.nrows(),
            self.a.ncols(),
            self.a.format(),
            self.mk,
            self.accum,
            self.flags
        )
    }
}

/// Which operation a [`Case`] runs.
enum MatOp<T> {
    Ewise(EwiseKind<T>, u8),
    Apply(u8, T),
    Select(IndexOp<T>),
    Extract(Vec<usize>, Vec<usize>),
    Assign(Vec<usize>, Vec<usize>),
}

/// Runs `$body` with `$o` bound to the binary operator of code `$code`.
macro_rules! with_binop {
    ($code:expr, $o:ident => $body:expr) => {
        match $code {
            0 => {
                let $o = Plus;
                $body
            }
            1 => {
                let $o = Minus;
                $body
            }
            2 => {
                let $o = Times;
                $body
            }
            3 => {
                let $o = Div;
                $body
            }
            4 => {
                let $o = Min;
                $body
            }
            5 => {
                let $o = Max;
                $body
            }
            6 => {
                let $o = First;
                $body
            }
            7 => {
                let $o = Second;
                $body
            }
            _ => {
                let $o = Lxor;
                $body
            }
        }
    };
}

fn mask_of<B: Backend>(mm: MatrixMask<'_, B>, mk: u8) -> Option<MatrixMask<'_, B>> {
    match mk {
        0 => None,
        1 => Some(mm),
        2 => Some(mm.structure()),
        3 => Some(mm.complement()),
        _ => Some(mm.structure().complement()),
    }
}

fn apply_op<B: Backend, T: Scalar, F: UnaryOp<T>, A: Accumulate<T>>(
    be: &B,
    c: &mut B::Matrix<T>,
    mask: Option<MatrixMask<'_, B>>,
    acc: A,
    f: F,
    a: &B::Matrix<T>,
    flags: Flags,
) -> bitgraphblas::Result<()> {
    be.apply_matrix(c, mask, acc, f, a, flags)
}

fn run_acc<B: Backend, T: Scalar, A: Accumulate<T>>(
    be: &B,
    k: &Case<T>,
    op: &MatOp<T>,
    acc: A,
) -> bitgraphblas::Result<Matrix<T>> {
    let a = be.upload_matrix(&k.a)?;
    let b = be.upload_matrix(&k.b)?;
    let m = be.upload_matrix(&k.mask)?;
    let mut c = be.upload_matrix(&k.c0)?;
    let mask = mask_of(B::matrix_mask(&m), k.mk);
    let f = k.flags;
    match op {
        MatOp::Ewise(kind, code) => {
            with_binop!(code, o => be.ewise_matrix(&mut c, mask, acc, *kind, o, &a, &b, f))?
        }
        MatOp::Apply(code, s) => match code {
            0 => apply_op(be, &mut c, mask, acc, Identity, &a, f)?,
            1 => apply_op(be, &mut c, mask, acc, Ainv, &a, f)?,
            2 => apply_op(be, &mut c, mask, acc, Abs, &a, f)?,
            3 => apply_op(be, &mut c, mask, acc, Lnot, &a, f)?,
            4 => apply_op(be, &mut c, mask, acc, One, &a, f)?,
            5 => apply_op(be, &mut c, mask, acc, BindFirst(Minus, *s), &a, f)?,
            _ => apply_op(be, &mut c, mask, acc, BindSecond(Times, *s), &a, f)?,
        },
        MatOp::Select(p) => be.select_matrix(&mut c, mask, acc, *p, &a, f)?,
        MatOp::Extract(r, cc) => be.extract_matrix(&mut c, mask, acc, &a, r, cc, f)?,
        MatOp::Assign(r, cc) => be.assign_matrix(&mut c, mask, acc, &a, r, cc, f)?,
    }
    be.download_matrix(&c)
}

fn run<B: Backend, T: Scalar>(
    be: &B,
    k: &Case<T>,
    op: &MatOp<T>,
) -> bitgraphblas::Result<Matrix<T>> {
    if k.accum {
        run_acc(be, k, op, Accum(Plus))
    } else {
        run_acc(be, k, op, NoAccum)
    }
}

/// The CPU's result and the device's for one case.
fn check<T: Scalar>(gpu: &CudaBackend, k: &Case<T>, op: &MatOp<T>, ctx: &str) {
    let cpu = run(&Cpu::new(), k, op).unwrap_or_else(|e| panic!("{ctx}: cpu: {e}"));
    let dev = run(gpu, k, op).unwrap_or_else(|e| panic!("{ctx}: cuda: {e}"));
    same(&cpu, &dev, ctx);
}

fn ewise_type<T: Scalar>(gpu: &CudaBackend, rng: &mut StdRng) {
    for &(n, m) in &SHAPES {
        for rep in 0..6 {
            let k = Case::<T>::gen(rng, n, m, (n, m));
            let kind = match rep % 3 {
                0 => EwiseKind::Add,
                1 => EwiseKind::Mult,
                _ => EwiseKind::Union {
                    alpha: rand_val(rng),
                    beta: rand_val(rng),
                },
            };
            let code = rng.gen_range(0..9u8);
            let ctx = k.ctx(&format!("ewise {kind:?} op {code}"));
            check(gpu, &k, &MatOp::Ewise(kind, code), &ctx);
        }
    }
}

#[test]
fn ewise_matrix_matches_cpu() {
    let Some(gpu) = cuda_or_skip("ewise_matrix_matches_cpu") else {
        return;
    };
    let mut rng = StdRng::seed_from_u64(seed());
    ewise_type::<i32>(gpu, &mut rng);
    ewise_type::<u64>(gpu, &mut rng);
    ewise_type::<f32>(gpu, &mut rng);
    ewise_type::<f64>(gpu, &mut rng);
    ewise_type::<bool>(gpu, &mut rng);
}

fn apply_select_type<T: Scalar>(gpu: &CudaBackend, rng: &mut StdRng) {
    for &(n, m) in &SHAPES {
        for rep in 0..7u8 {
            let k = Case::<T>::gen(rng, n, m, (n, m));
            let s = rand_val::<T>(rng);
            check(
                gpu,
                &k,
                &MatOp::Apply(rep, s),
                &k.ctx(&format!("apply {rep}")),
            );
            let d = rng.gen_range(-3..4i64);
            let p = [
                IndexOp::Tril(d),
                IndexOp::Triu(d),
                IndexOp::Diag(d),
                IndexOp::OffDiag(d),
                IndexOp::RowLe(d + 20),
                IndexOp::RowGt(d + 20),
                IndexOp::ValueEq(s),
                IndexOp::ValueNe(s),
                IndexOp::ValueGt(s),
                IndexOp::ValueGe(s),
                IndexOp::ValueLt(s),
                IndexOp::ValueLe(s),
            ];
            for pred in [p[rep as usize], p[rep as usize + 5]] {
                check(
                    gpu,
                    &k,
                    &MatOp::Select(pred),
                    &k.ctx(&format!("select {pred:?}")),
                );
            }
        }
    }
}

#[test]
fn apply_and_select_matrix_match_cpu() {
    let Some(gpu) = cuda_or_skip("apply_and_select_matrix_match_cpu") else {
        return;
    };
    let mut rng = StdRng::seed_from_u64(seed());
    apply_select_type::<i32>(gpu, &mut rng);
    apply_select_type::<f32>(gpu, &mut rng);
    apply_select_type::<u32>(gpu, &mut rng);
    apply_select_type::<f64>(gpu, &mut rng);
    apply_select_type::<bool>(gpu, &mut rng);
}

/// `len` indices below `bound`: distinct or with repeats, sorted or not.
fn indices(rng: &mut StdRng, bound: usize, len: usize, distinct: bool, sorted: bool) -> Vec<usize> {
    let mut v: Vec<usize> = if distinct {
        let mut all: Vec<usize> = (0..bound).collect();
        all.shuffle(rng);
        all.truncate(len.min(bound));
        all
    } else if bound == 0 {
        vec![]
    } else {
        (0..len).map(|_| rng.gen_range(0..bound)).collect()
    };
    if sorted {
        v.sort_unstable();
    }
    v
}

fn extract_assign_type<T: Scalar>(gpu: &CudaBackend, rng: &mut StdRng) {
    for &(n, m) in &SHAPES {
        for rep in 0..6 {
            let sorted = rep % 2 == 0;
            // extract: A is n x m as read, C is |rows| x |cols|
            let (lr, lc) = (rng.gen_range(0..=n + 3), rng.gen_range(0..=m + 3));
            let rows = indices(rng, n, lr, false, sorted);
            let cols = indices(rng, m, lc, rep % 3 == 0, sorted);
            let k = Case::<T>::gen(rng, rows.len(), cols.len(), (n, m));
            let ctx = k.ctx(&format!(
                "extract rows {} cols {} sorted={sorted}",
                rows.len(),
                cols.len()
            ));
            check(gpu, &k, &MatOp::Extract(rows, cols), &ctx);
            // assign: C is n x m, A is |rows| x |cols| as read (distinct indices)
            let lr = rng.gen_range(0..=n);
            let rows = indices(rng, n, lr, true, sorted);
            let lc = rng.gen_range(0..=m);
            let cols = indices(rng, m, lc, true, sorted);
            let k = Case::<T>::gen(rng, n, m, (rows.len(), cols.len()));
            let ctx = k.ctx(&format!(
                "assign rows {} cols {} sorted={sorted}",
                rows.len(),
                cols.len()
            ));
            check(gpu, &k, &MatOp::Assign(rows, cols), &ctx);
        }
    }
}

#[test]
fn extract_and_assign_matrix_match_cpu() {
    let Some(gpu) = cuda_or_skip("extract_and_assign_matrix_match_cpu") else {
        return;
    };
    let mut rng = StdRng::seed_from_u64(seed());
    extract_assign_type::<i64>(gpu, &mut rng);
    extract_assign_type::<f32>(gpu, &mut rng);
    extract_assign_type::<bool>(gpu, &mut rng);
}

#[test]
fn csr_transpose_matches_cpu() {
    let Some(gpu) = cuda_or_skip("csr_transpose_matches_cpu") else {
        return;
    };
    let cpu = Cpu::new();
    let mut rng = StdRng::seed_from_u64(seed());
    // wide and tall shapes: 1, 2, 3 radix passes (more than 256 and 65536 columns)
    let mut shapes = SHAPES.to_vec();
    shapes.extend([(3, 300), (5, 70_000), (2000, 1)]);
    for &(n, m) in &shapes {
        for _ in 0..4 {
            let a = rand_matrix::<f32>(&mut rng, n, m);
            let ga = gpu.upload_matrix(&a).unwrap();
            let t = gpu.csr_transpose(&ga).unwrap();
            let want = Matrix::from_csr(a.as_csr().transpose());
            same(
                &want,
                &gpu.download_matrix(&t).unwrap(),
                &format!("transpose {n}x{m}"),
            );
            // the whole entry point: C<mask> = accum(C, A') (A with transpose_a)
            let k = Case::<f32>::gen(&mut rng, m, n, (m, n));
            // with transpose_a the input is read as A', so C = A (m x n)
            let a = if k.flags.transpose_a {
                rand_matrix::<f32>(&mut rng, m, n)
            } else {
                a.clone()
            };
            let (ga, gm) = (
                gpu.upload_matrix(&a).unwrap(),
                gpu.upload_matrix(&k.mask).unwrap(),
            );
            let (mut cc, mut gc) = (k.c0.clone(), gpu.upload_matrix(&k.c0).unwrap());
            let (cm, dm) = (
                mask_of(k.mask.as_mask(), k.mk),
                mask_of(CudaBackend::matrix_mask(&gm), k.mk),
            );
            if k.accum {
                cpu.transpose(&mut cc, cm, Accum(Plus), &a, k.flags)
                    .unwrap();
                gpu.transpose_into::<f32, Accum<Plus>>(&mut gc, dm, &ga, k.flags)
                    .unwrap();
            } else {
                cpu.transpose(&mut cc, cm, NoAccum, &a, k.flags).unwrap();
                gpu.transpose_into::<f32, NoAccum>(&mut gc, dm, &ga, k.flags)
                    .unwrap();
            }
            same(
                &cc,
                &gpu.download_matrix(&gc).unwrap(),
                &k.ctx("transpose_into"),
            );
        }
    }
}

fn rand_vector<T: Scalar>(rng: &mut StdRng, n: usize) -> Vector<T> {
    let fmt = [
        VectorFormat::Dense,
        VectorFormat::Bits,
        VectorFormat::Sparse,
    ][rng.gen_range(0..3)];
    let p = [1.0, 0.6, 0.1][rng.gen_range(0..3)];
    let mut e = Vec::new();
    for i in 0..n {
        if rng.gen_bool(p) {
            let v = if fmt == VectorFormat::Bits {
                T::one()
            } else {
                rand_val(rng)
            };
            e.push((i, v));
        }
    }
    Vector::from_entries(n, e).unwrap().to_format(fmt).unwrap()
}

fn scale_with<T: Scalar, Op: BinaryOp<T>>(gpu: &CudaBackend, rng: &mut StdRng, op: Op) {
    let cpu = Cpu::new();
    for &(n, m) in &SHAPES {
        for rows in [true, false] {
            let a = rand_matrix::<T>(rng, n, m);
            let d = rand_vector::<T>(rng, if rows { n } else { m });
            let c0 = rand_matrix::<T>(rng, n, m);
            let (mut cc, mut gc) = (c0.clone(), gpu.upload_matrix(&c0).unwrap());
            cpu.scale(&mut cc, op, &d, &a, rows).unwrap();
            let (ga, gd) = (
                gpu.upload_matrix(&a).unwrap(),
                gpu.upload_vector(&d).unwrap(),
            );
            gpu.scale(&mut gc, op, &gd, &ga, rows).unwrap();
            let ctx = format!(
                "scale {} {:?} {n}x{m} rows={rows} d={:?}",
                Op::NAME,
                T::TYPE,
                d.format()
            );
            same(&cc, &gpu.download_matrix(&gc).unwrap(), &ctx);
        }
    }
}

#[test]
fn scale_matches_cpu() {
    let Some(gpu) = cuda_or_skip("scale_matches_cpu") else {
        return;
    };
    let mut rng = StdRng::seed_from_u64(seed());
    scale_with::<f32, _>(gpu, &mut rng, Times);
    scale_with::<f64, _>(gpu, &mut rng, Div);
    scale_with::<i32, _>(gpu, &mut rng, Minus);
    scale_with::<u64, _>(gpu, &mut rng, Max);
    scale_with::<bool, _>(gpu, &mut rng, Second);
}

fn column_reduce_with<T: Scalar, M: Monoid<T>>(gpu: &CudaBackend, rng: &mut StdRng, monoid: M) {
    let cpu = Cpu::new();
    for &(n, m) in &SHAPES {
        for transpose_a in [true, false] {
            let a = rand_matrix::<T>(rng, n, m);
            let len = if transpose_a { m } else { n };
            let w0 = rand_vector::<T>(rng, len)
                .to_format(VectorFormat::Dense)
                .unwrap();
            let mv = rand_vector::<T>(rng, len);
            let flags = Flags {
                replace: rng.gen_bool(0.5),
                transpose_a,
                transpose_b: false,
            };
            let (mut cw, mut gw) = (w0.clone(), gpu.upload_vector(&w0).unwrap());
            let (ga, gm) = (
                gpu.upload_matrix(&a).unwrap(),
                gpu.upload_vector(&mv).unwrap(),
            );
            cpu.reduce_rows(&mut cw, Some(mv.as_mask()), Accum(Plus), monoid, &a, flags)
                .unwrap();
            gpu.reduce_rows(
                &mut gw,
                Some(CudaBackend::mask(&gm)),
                Accum(Plus),
                monoid,
                &ga,
                flags,
            )
            .unwrap();
            let g = gpu.download_vector(&gw).unwrap();
            let ctx = format!(
                "reduce {} {:?} {n}x{m} transpose={transpose_a}",
                M::NAME,
                T::TYPE
            );
            assert_eq!(cw.entries(), g.entries(), "{ctx}");
        }
    }
}

#[test]
fn column_reductions_match_cpu() {
    let Some(gpu) = cuda_or_skip("column_reductions_match_cpu") else {
        return;
    };
    let mut rng = StdRng::seed_from_u64(seed());
    column_reduce_with::<f32, _>(gpu, &mut rng, Plus);
    column_reduce_with::<i32, _>(gpu, &mut rng, Min);
    column_reduce_with::<u64, _>(gpu, &mut rng, Times);
    column_reduce_with::<f64, _>(gpu, &mut rng, Max);
}

#[test]
fn user_operators_are_no_kernel_errors() {
    let Some(gpu) = cuda_or_skip("user_operators_are_no_kernel_errors") else {
        return;
    };
    let a = gpu
        .upload_matrix(&Matrix::from_triplets(2, 2, vec![(0, 1, 1.0f32)]).unwrap())
        .unwrap();
    let mut c = gpu.upload_matrix(&Matrix::<f32>::empty(2, 2)).unwrap();
    let user = bitgraphblas::algebra::BinaryFn::<f32>::new(|x, y| x * y + 1.0);
    let e = gpu
        .ewise_matrix(
            &mut c,
            None,
            NoAccum,
            EwiseKind::Add,
            user,
            &a,
            &a,
            Flags::default(),
        )
        .unwrap_err();
    assert!(matches!(e, bitgraphblas::Error::NoKernel { .. }), "{e}");
    let f = bitgraphblas::algebra::UnaryFn::<f32>(|x| x * 2.0);
    let e = gpu
        .apply_matrix(&mut c, None, NoAccum, f, &a, Flags::default())
        .unwrap_err();
    assert!(matches!(e, bitgraphblas::Error::NoKernel { .. }), "{e}");
}

fn dense<T: Scalar>(rng: &mut StdRng, n: usize, m: usize) -> DenseMatrix<T> {
    let v = (0..n * m).map(|_| rand_val::<T>(rng)).collect();
    DenseMatrix::from_vec(n, m, v).unwrap()
}

#[track_caller]
fn same_dense<T: Scalar>(cpu: &DenseMatrix<T>, gpu: &DenseMatrix<T>, ctx: &str) {
    assert_eq!(
        (cpu.nrows(), cpu.ncols()),
        (gpu.nrows(), gpu.ncols()),
        "{ctx}: shape"
    );
    for (q, (a, b)) in cpu.as_slice().iter().zip(gpu.as_slice()).enumerate() {
        #[allow(clippy::eq_op)]
        let both_nan = a != a && b != b;
        assert!(
            a == b || both_nan,
            "{ctx}: element {q}: cpu {a:?} gpu {b:?}"
        );
    }
}

fn mxm_dense_with<S: Semiring + Copy>(gpu: &CudaBackend, rng: &mut StdRng, s: S)
where
    Accum<Plus>: Accumulate<S::T>,
{
    let cpu = Cpu::new();
    for &(n, m) in &SHAPES {
        for nf in [1usize, 5, 33] {
            let transpose_a = rng.gen_bool(0.5);
            let a = rand_stored::<S::T>(rng, n, m, transpose_a);
            let b = dense::<S::T>(rng, m, nf);
            let c0 = dense::<S::T>(rng, n, nf);
            let flags = Flags {
                transpose_a,
                ..Flags::default()
            };
            let (ga, gb) = (
                gpu.upload_matrix(&a).unwrap(),
                gpu.upload_dense(&b).unwrap(),
            );
            for accum in [false, true] {
                let (mut cc, mut gc) = (c0.clone(), gpu.upload_dense(&c0).unwrap());
                if accum {
                    cpu.mxm_dense(&mut cc, Accum(Plus), s, &a, &b, flags)
                        .unwrap();
                    gpu.mxm_dense_csr_into::<S, Accum<Plus>>(&mut gc, s, &ga, &gb, flags)
                        .unwrap();
                } else {
                    cpu.mxm_dense(&mut cc, NoAccum, s, &a, &b, flags).unwrap();
                    gpu.mxm_dense_csr_into::<S, NoAccum>(&mut gc, s, &ga, &gb, flags)
                        .unwrap();
                }
                let ctx = format!(
                    "mxm_dense {} {n}x{m} ({:?}) nf={nf} transpose={transpose_a} accum={accum}",
                    S::NAME,
                    a.format()
                );
                same_dense(&cc, &gpu.download_dense(&gc).unwrap(), &ctx);
            }
        }
    }
}

#[test]
fn csr_mxm_dense_matches_cpu() {
    let Some(gpu) = cuda_or_skip("csr_mxm_dense_matches_cpu") else {
        return;
    };
    let mut rng = StdRng::seed_from_u64(seed());
    mxm_dense_with(gpu, &mut rng, PlusTimes::<f32>::new());
    mxm_dense_with(gpu, &mut rng, MinPlus::<f64>::new());
    mxm_dense_with(gpu, &mut rng, PlusPair::<u32>::new());
    mxm_dense_with(gpu, &mut rng, MaxTimes::<f32>::new());
    mxm_dense_with(gpu, &mut rng, MinSecond::<i64>::new());
    // user semirings: compiled into the same semiring-module kernel
    mxm_dense_with(gpu, &mut rng, SemiringFrom::<i64, _, _>::new(Plus, Minus));
    mxm_dense_with(gpu, &mut rng, SemiringFrom::<f64, _, _>::new(Min, First));
}

/// A GCN-style pipeline on real graphs, each step against the CPU: `A'`,
/// `S = A + A'`, column sums, `D^-1 S` (row scaling), `S<S, struct> = S .* S`,
/// `tril(S)`, and the aggregation `(D^-1 S) X` on the CSR path.
#[test]
fn real_graphs_pipeline_matches_cpu() {
    let Some(gpu) = cuda_or_skip("real_graphs_pipeline_matches_cpu") else {
        return;
    };
    let cpu = Cpu::new();
    let mut rng = StdRng::seed_from_u64(seed());
    for name in [
        "karate.mtx",
        "ash292.mtx",
        "delaunay_n14.mtx",
        "curtis54.mtx",
    ] {
        let path = bitgraphblas::io::data_path(name);
        let g = bitgraphblas::io::read_matrix_market::<f32>(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let (n, m) = (g.nrows(), g.ncols());
        // random values on the graph's pattern
        let csr = g.as_csr();
        let mut e = Vec::new();
        for i in 0..n {
            for &j in csr.row(i).0 {
                e.push((i, j as usize, rand_val::<f32>(&mut rng)));
            }
        }
        let a = Matrix::from_triplets(n, m, e).unwrap();
        let ga = gpu.upload_matrix(&a).unwrap();
        let ctx = |s: &str| format!("{name}: {s}");
        // A'
        let gt = gpu.csr_transpose(&ga).unwrap();
        let at = Matrix::from_csr(a.as_csr().transpose());
        same(&at, &gpu.download_matrix(&gt).unwrap(), &ctx("transpose"));
        if n != m {
            continue;
        }
        // S = A + A' (B read transposed)
        let tb = Flags {
            transpose_b: true,
            ..Flags::default()
        };
        let mut s = Matrix::empty(n, n);
        let mut gs = gpu.upload_matrix(&s).unwrap();
        cpu.ewise_matrix(&mut s, None, NoAccum, EwiseKind::Add, Plus, &a, &a, tb)
            .unwrap();
        gpu.ewise_matrix(&mut gs, None, NoAccum, EwiseKind::Add, Plus, &ga, &ga, tb)
            .unwrap();
        same(&s, &gpu.download_matrix(&gs).unwrap(), &ctx("A + A'"));
        // column sums of S
        let ta = Flags {
            transpose_a: true,
            ..Flags::default()
        };
        let mut d = Vector::empty(n);
        let mut gd = gpu.upload_vector(&d).unwrap();
        cpu.reduce_rows(&mut d, None, NoAccum, Plus, &s, ta)
            .unwrap();
        gpu.reduce_rows(&mut gd, None, NoAccum, Plus, &gs, ta)
            .unwrap();
        assert_eq!(
            d.entries(),
            gpu.download_vector(&gd).unwrap().entries(),
            "{name}: column sums"
        );
        // D^-1 S: c_ij = s_ij / d_i
        let (mut ns, mut gns) = (s.clone(), gpu.upload_matrix(&s).unwrap());
        cpu.scale(&mut ns, Div, &d, &s, true).unwrap();
        gpu.scale(&mut gns, Div, &gd, &gs, true).unwrap();
        same(&ns, &gpu.download_matrix(&gns).unwrap(), &ctx("D^-1 S"));
        // S<S, structural> = S .* S, then tril
        let (mut q, mut gq) = (s.clone(), gpu.upload_matrix(&s).unwrap());
        cpu.ewise_matrix(
            &mut q,
            Some(s.as_mask().structure()),
            NoAccum,
            EwiseKind::Mult,
            Times,
            &s,
            &s,
            Flags::default(),
        )
        .unwrap();
        gpu.ewise_matrix(
            &mut gq,
            Some(CudaBackend::matrix_mask(&gs).structure()),
            NoAccum,
            EwiseKind::Mult,
            Times,
            &gs,
            &gs,
            Flags::default(),
        )
        .unwrap();
        same(&q, &gpu.download_matrix(&gq).unwrap(), &ctx("S .* S"));
        let (mut l, mut gl) = (q.clone(), gpu.upload_matrix(&q).unwrap());
        cpu.select_matrix(
            &mut l,
            None,
            NoAccum,
            IndexOp::Tril(-1),
            &q,
            Flags::default(),
        )
        .unwrap();
        gpu.select_matrix(
            &mut gl,
            None,
            NoAccum,
            IndexOp::Tril(-1),
            &gq,
            Flags::default(),
        )
        .unwrap();
        same(&l, &gpu.download_matrix(&gl).unwrap(), &ctx("tril"));
        // aggregation (D^-1 S) X
        let x = dense::<f32>(&mut rng, n, 16);
        let gx = gpu.upload_dense(&x).unwrap();
        let mut y = DenseMatrix::filled(n, 16, 0.0f32);
        let mut gy = gpu.upload_dense(&y).unwrap();
        let pt = PlusTimes::<f32>::new();
        cpu.mxm_dense(&mut y, NoAccum, pt, &ns, &x, Flags::default())
            .unwrap();
        gpu.mxm_dense_csr_into::<_, NoAccum>(&mut gy, pt, &gns, &gx, Flags::default())
            .unwrap();
        same_dense(&y, &gpu.download_dense(&gy).unwrap(), &ctx("(D^-1 S) X"));
    }
}

/// 16-bit tile columns on the device: a band plus tile rows whose columns
/// span more than a `u16` of tiles (escaped), uploaded in the host's 16-bit
/// form. The products (the one-launch `mxv`, which reads that form; the
/// transposed product, on 32-bit columns made from it) equal the CPU's and
/// those on the same matrix with 32-bit columns packed on the device, and the
/// matrix downloads as the host's.
#[test]
fn sixteen_bit_tile_columns_match_cpu() {
    use bitgraphblas::algebra::LorLand;
    use bitgraphblas::container::MatrixRepr;
    use bitgraphblas::storage::b2sr::ColumnForm;
    let Some(gpu) = cuda_or_skip("sixteen_bit_tile_columns_match_cpu") else {
        return;
    };
    let n: usize = 4 * 70_000;
    let mut t: Vec<(usize, usize, f32)> = (0..n)
        .flat_map(|i| (i.saturating_sub(6)..(i + 7).min(n)).map(move |j| (i, j, 1.0)))
        .collect();
    t.extend([(1, n - 1, 1.0), (4097, n - 3, 1.0), (n - 1, 0, 1.0)]);
    t.sort_unstable_by_key(|e| (e.0, e.1));
    let a = Matrix::from_triplets(n, n, t).unwrap();
    let x = Vector::from_entries(
        n,
        (0..n)
            .step_by(7)
            .map(|i| (i, (i % 5) as f32 + 1.0))
            .collect(),
    )
    .unwrap();
    let xb = Vector::from_entries(n, (0..n).step_by(7).map(|i| (i, true)).collect()).unwrap();
    let (f, ft) = (
        Flags::default(),
        Flags {
            transpose_a: true,
            ..Flags::default()
        },
    );
    for tile in [TileSize::T4, TileSize::T8] {
        let packed_host = a.to_format(Format::B2sr(tile)).unwrap();
        let MatrixRepr::B2sr { pattern, .. } = packed_host.repr() else {
            unreachable!()
        };
        let pattern = pattern.clone().with_columns(ColumnForm::Narrow);
        let host = Matrix::from_b2sr(pattern.clone(), 1.0f32);
        let host_b = Matrix::from_b2sr(pattern, true);
        let cpu = |flags: Flags| {
            let mut y = Vector::<f32>::empty(n);
            Cpu::new()
                .mxv(
                    &mut y,
                    None,
                    NoAccum,
                    PlusTimes::<f32>::new(),
                    &host,
                    &x,
                    flags,
                )
                .unwrap();
            y
        };
        // (stored entries, values): the CPU gives a full vector where every
        // row has a value, the GPU a dense one with presence
        let view = |y: &Vector<f32>| (y.nvals(), y.to_vec(-1.0));
        let (want, want_t) = (view(&cpu(f)), view(&cpu(ft)));
        let mut want_b = Vector::<bool>::empty(n);
        Cpu::new()
            .mxv(&mut want_b, None, NoAccum, LorLand, &host_b, &xb, f)
            .unwrap();
        let uploaded = gpu.upload_matrix(&host).unwrap();
        let packed = gpu
            .convert(&gpu.upload_matrix(&a).unwrap(), Format::B2sr(tile))
            .unwrap();
        let uploaded_b = gpu.upload_matrix(&host_b).unwrap();
        assert!(uploaded.narrow_columns() && !packed.narrow_columns());
        let (gx, gxb) = (
            gpu.upload_vector(&x).unwrap(),
            gpu.upload_vector(&xb).unwrap(),
        );
        for (how, g) in [("uploaded", &uploaded), ("packed", &packed)] {
            let ctx = format!("{tile} {how}");
            let run = |flags: Flags| {
                let mut y = gpu.vector_new::<f32>(n, None, VectorFormat::Dense).unwrap();
                gpu.mxv(
                    &mut y,
                    None,
                    NoAccum,
                    PlusTimes::<f32>::new(),
                    g,
                    &gx,
                    flags,
                )
                .unwrap();
                view(&gpu.download_vector(&y).unwrap())
            };
            assert_eq!(run(f), want, "{ctx}: A x");
            assert_eq!(run(ft), want_t, "{ctx}: A' x");
            let back = gpu.download_matrix(g).unwrap();
            assert_eq!(
                back.as_csr().into_owned(),
                host.as_csr().into_owned(),
                "{ctx}: download"
            );
        }
        let mut yb = gpu.vector_new::<bool>(n, None, VectorFormat::Bits).unwrap();
        gpu.mxv(&mut yb, None, NoAccum, LorLand, &uploaded_b, &gxb, f)
            .unwrap();
        let got_b = gpu.download_vector(&yb).unwrap();
        assert_eq!(
            (got_b.nvals(), got_b.to_vec(false)),
            (want_b.nvals(), want_b.to_vec(false)),
            "{tile}: LOR.LAND on bits"
        );
    }
}
