//! GPU benchmark: B2SR kernels against cuSPARSE's CSR f32 SpMV on the same
//! matrices, in one process, with the device copy bandwidth measured in the
//! same run.
//!
//! For every graph: device packing CSR -> B2SR per tile size (entries/s);
//! `mxv` time per scheme (bin_full_full PLUS.TIMES f32, bin_bin_full PLUS.PAIR
//! u32, bin_bin_bin LOR.LAND) and tile size, the three results
//! checked against the CPU backend on every graph; cuSPARSE SpMV time; the bytes each
//! B2SR product must move (matrix arrays + input + output, each once) and the
//! achieved bandwidth as a fraction of the measured copy bandwidth; triangle
//! counting (`bin_bin_sum` on L = tril(A, -1), exact, checked against the CPU
//! backend on the smaller graphs). The same f32 PLUS.TIMES product on the CSR
//! itself (this backend's CSR kernel). For every product, the bytes it must
//! move and the floor time they set (see [`Bytes`]): HBM at the copy bandwidth,
//! and beside it the L2 figure of the gathers (at the L2-resident copy bandwidth). Grids and R-MAT come from
//! `bitgraphblas::generate` (R-MAT: Graph500 parameters, edge factor 16,
//! symmetrised, vertex ids not permuted). Times are per call: medians of
//! CUDA-event-timed batches of back-to-back calls after warm-up (see `time_ms`).
//!
//! ```text
//! cargo build --release --features cuda --example gpu_bench
//! gpu_bench --data DIR --out DIR [--quick] [--skip-tc] [--only NAME,NAME..] [--ks 4,8]
//!           [--reorder rcm|degree|locality]
//! gpu_bench --pagerank-steps [--only NAME,NAME..]
//! ```
//! `--reorder ORDER` computes the vertex order on the host (timed), reports
//! the exact tile fill before and after and cuSPARSE on the given order, then
//! runs every product on the reordered matrix (cuSPARSE too).
//! `--pagerank-steps` times each operation of one PageRank iteration of
//! `bitgraphblas-algorithms` (f64, the matrix in the format Auto picks), each
//! followed by a device synchronisation, host clock, median of 5 iterations:
//! where an iteration's wall time goes, kernels and host work together.
//! A product that differs from the CPU is reported (`CHECK FAILED`) and the
//! program fails at the end, after writing its tables. Writes
//! `gpu-bench.json` and `gpu-bench.md` into `--out`.

use std::ffi::c_void;
use std::time::Instant;

use bitgraphblas::algebra::{IndexOp, LorLand, PlusPair, PlusTimes};
use bitgraphblas::backend::cuda::CudaBackend;
use bitgraphblas::container::{Flags, NoAccum};
use bitgraphblas::reorder::Order;
use bitgraphblas::storage::b2sr::{ColumnForm, Profile};
use bitgraphblas::storage::{B2sr, BitVec, Csr};
use bitgraphblas::{Backend, Cpu, Format, Matrix, Result, TileSize, Vector, VectorFormat};
use cudarc::cusparse::sys as sp;
use cudarc::driver::sys::CUevent_flags;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;

const TILES: [TileSize; 4] = [TileSize::T4, TileSize::T8, TileSize::T16, TileSize::T32];

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).expect("no NaN times"));
    v[v.len() / 2]
}

/// Time (ms) of one call of `f`: the median over `reps` CUDA-event-timed
/// batches, after `warm` calls. A batch is `inner` back-to-back calls on the
/// stream (`inner` chosen from one timed call so that a batch takes about
/// 0.5 ms, at most 64 calls), divided by `inner`: host launch work overlaps
/// the device as in any loop of products, for both sides alike.
fn time_ms(
    gpu: &CudaBackend,
    warm: usize,
    reps: usize,
    mut f: impl FnMut() -> Result<()>,
) -> Result<f64> {
    let (ctx, stream) = gpu.raw();
    let err = |e: cudarc::driver::DriverError| bitgraphblas::Error::Cuda {
        op: "event",
        detail: e.to_string(),
    };
    for _ in 0..warm {
        f()?;
    }
    gpu.synchronize()?;
    let a = ctx
        .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
        .map_err(err)?;
    let b = ctx
        .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
        .map_err(err)?;
    let mut batch = |inner: usize| -> Result<f64> {
        a.record(stream).map_err(err)?;
        for _ in 0..inner {
            f()?;
        }
        b.record(stream).map_err(err)?;
        b.synchronize().map_err(err)?;
        Ok(a.elapsed_ms(&b).map_err(err)? as f64 / inner as f64)
    };
    let one = batch(1)?;
    let inner = ((0.5 / one.max(1e-4)).ceil() as usize).clamp(1, 64);
    let mut t = Vec::with_capacity(reps);
    for _ in 0..reps {
        t.push(batch(inner)?);
    }
    Ok(median(t))
}

/// Device-to-device copy bandwidth (bytes read + written per second) of a
/// copy of `n` f32: 1 GiB measures HBM, 8 MiB (source and destination fit in
/// the 50 MB L2 together) measures L2.
fn copy_bandwidth(gpu: &CudaBackend, n: usize) -> Result<f64> {
    let (_, stream) = gpu.raw();
    let err = |e: cudarc::driver::DriverError| bitgraphblas::Error::Cuda {
        op: "copy",
        detail: e.to_string(),
    };
    let a = stream.alloc_zeros::<f32>(n).map_err(err)?;
    let mut b = stream.alloc_zeros::<f32>(n).map_err(err)?;
    let ms = time_ms(gpu, 2, 10, || stream.memcpy_dtod(&a, &mut b).map_err(err))?;
    Ok(2.0 * 4.0 * n as f64 / (ms * 1e-3))
}

/// The bytes one product must move, the floor time they set, and where the
/// gathers make the kernel L2-bound.
///
/// `hbm`: what must cross HBM at least once (the matrix arrays, the input and
/// the output vector, each once: the input is read once into L2 and gathered
/// from there); at the HBM copy bandwidth measured in the same run it gives
/// the floor. `l2`: what the gathers move through L2 when every gather of a
/// tile (CSR: every distinct 32-byte sector of a row's columns) is one sector
/// read from L2, plus the matrix arrays and the output; at the L2-resident
/// copy bandwidth (also measured in the run) it gives the L2 figure. A kernel
/// whose L2 figure exceeds its floor is reported L2-bound. The L2 figure is
/// not a lower bound: sectors that L1 catches, and L2 reads running faster
/// than an L2-resident copy, can beat it.
#[derive(Clone, Copy, Debug)]
struct Bytes {
    hbm: f64,
    l2: f64,
}

impl Bytes {
    /// `(floor ms, L2 figure ms, "HBM" or "L2")`.
    fn floor(self, bw: f64, l2bw: f64) -> (f64, f64, &'static str) {
        let (h, l) = (self.hbm / bw * 1e3, self.l2 / l2bw * 1e3);
        (h, l, if l > h { "L2" } else { "HBM" })
    }
}

/// Distinct 32-byte sectors of an f32 vector that the rows of `a` gather
/// (columns sorted within a row: a new sector wherever `col / 8` changes).
fn csr_gather_sectors(a: &Csr<f32>) -> usize {
    (0..a.nrows())
        .into_par_iter()
        .map(|i| {
            let c = a.row(i).0;
            c.windows(2).filter(|w| w[0] / 8 != w[1] / 8).count() + usize::from(!c.is_empty())
        })
        .sum()
}

/// cuSPARSE CSR f32 SpMV (y = A x) on the device CSR of `a`.
struct CuSparse {
    handle: sp::cusparseHandle_t,
    mat: sp::cusparseSpMatDescr_t,
    x: sp::cusparseDnVecDescr_t,
    y: sp::cusparseDnVecDescr_t,
    buf: cudarc::driver::CudaSlice<u8>,
    _xy: (
        cudarc::driver::CudaSlice<f32>,
        cudarc::driver::CudaSlice<f32>,
    ),
    /// The values of a matrix that stores its one value once (cuSPARSE
    /// reads a value an entry).
    _vals: Option<cudarc::driver::CudaSlice<f32>>,
}

fn chk(s: sp::cusparseStatus_t, what: &str) -> Result<()> {
    if s == sp::cusparseStatus_t::CUSPARSE_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(bitgraphblas::Error::Cuda {
            op: "cusparse",
            detail: format!("{what}: {s:?}"),
        })
    }
}

impl CuSparse {
    fn new(
        gpu: &CudaBackend,
        a: &bitgraphblas::backend::cuda::CudaMatrix<f32>,
        x_host: &[f32],
    ) -> Result<Self> {
        use cudarc::driver::DevicePtr;
        let (_, stream) = gpu.raw();
        let err = |e: cudarc::driver::DriverError| bitgraphblas::Error::Cuda {
            op: "alloc",
            detail: e.to_string(),
        };
        let (rp, ci, vals, nnz) = a.csr_device_ptrs().expect("CSR");
        let filled = match (vals, a.iso_value()) {
            (None, Some(v)) => Some(stream.clone_htod(&vec![v; nnz]).map_err(err)?),
            _ => None,
        };
        let vals = match (vals, &filled) {
            (Some(v), _) => v,
            (None, Some(f)) => f.device_ptr(stream).0,
            (None, None) => unreachable!("a CSR matrix without values is iso"),
        };
        let (n, m) = (
            bitgraphblas::backend::MatrixShape::nrows(a),
            bitgraphblas::backend::MatrixShape::ncols(a),
        );
        let x = stream.clone_htod(x_host).map_err(err)?;
        let y = stream.alloc_zeros::<f32>(n).map_err(err)?;
        let xp = x.device_ptr(stream).0;
        let yp = y.device_ptr(stream).0;
        unsafe {
            let mut handle = std::ptr::null_mut();
            chk(sp::cusparseCreate(&mut handle), "create")?;
            chk(
                sp::cusparseSetStream(handle, stream.cu_stream() as sp::cudaStream_t),
                "stream",
            )?;
            let mut mat = std::ptr::null_mut();
            chk(
                sp::cusparseCreateCsr(
                    &mut mat,
                    n as i64,
                    m as i64,
                    nnz as i64,
                    rp as *mut c_void,
                    ci as *mut c_void,
                    vals as *mut c_void,
                    sp::cusparseIndexType_t::CUSPARSE_INDEX_32I,
                    sp::cusparseIndexType_t::CUSPARSE_INDEX_32I,
                    sp::cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ZERO,
                    sp::cudaDataType::CUDA_R_32F,
                ),
                "csr",
            )?;
            let mut xd = std::ptr::null_mut();
            chk(
                sp::cusparseCreateDnVec(
                    &mut xd,
                    m as i64,
                    xp as *mut c_void,
                    sp::cudaDataType::CUDA_R_32F,
                ),
                "x",
            )?;
            let mut yd = std::ptr::null_mut();
            chk(
                sp::cusparseCreateDnVec(
                    &mut yd,
                    n as i64,
                    yp as *mut c_void,
                    sp::cudaDataType::CUDA_R_32F,
                ),
                "y",
            )?;
            let (alpha, beta) = (1.0f32, 0.0f32);
            let mut size = 0usize;
            chk(
                sp::cusparseSpMV_bufferSize(
                    handle,
                    sp::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE,
                    &alpha as *const f32 as *const c_void,
                    mat as _,
                    xd as _,
                    &beta as *const f32 as *const c_void,
                    yd,
                    sp::cudaDataType::CUDA_R_32F,
                    sp::cusparseSpMVAlg_t::CUSPARSE_SPMV_ALG_DEFAULT,
                    &mut size,
                ),
                "buffer size",
            )?;
            let buf = stream.alloc_zeros::<u8>(size.max(4)).map_err(err)?;
            Ok(CuSparse {
                handle,
                mat,
                x: xd,
                y: yd,
                buf,
                _xy: (x, y),
                _vals: filled,
            })
        }
    }
    fn run(&self, gpu: &CudaBackend) -> Result<()> {
        use cudarc::driver::DevicePtr;
        let (_, stream) = gpu.raw();
        let (alpha, beta) = (1.0f32, 0.0f32);
        let bp = self.buf.device_ptr(stream).0;
        unsafe {
            chk(
                sp::cusparseSpMV(
                    self.handle,
                    sp::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE,
                    &alpha as *const f32 as *const c_void,
                    self.mat as _,
                    self.x as _,
                    &beta as *const f32 as *const c_void,
                    self.y,
                    sp::cudaDataType::CUDA_R_32F,
                    sp::cusparseSpMVAlg_t::CUSPARSE_SPMV_ALG_DEFAULT,
                    bp as *mut c_void,
                ),
                "spmv",
            )
        }
    }
}

impl Drop for CuSparse {
    fn drop(&mut self) {
        unsafe {
            sp::cusparseDestroySpMat(self.mat as _);
            sp::cusparseDestroyDnVec(self.x as _);
            sp::cusparseDestroyDnVec(self.y as _);
            sp::cusparseDestroy(self.handle);
        }
    }
}

/// CSR pattern (values 1.0) from directed edges: deduplicated, self loops dropped,
/// symmetrised when asked.
fn csr_from_edges(n: usize, mut e: Vec<u64>, symmetrise: bool) -> Result<Matrix<f32>> {
    if symmetrise {
        let rev: Vec<u64> = e.par_iter().map(|&x| x.rotate_right(32)).collect();
        e.extend(rev);
    }
    e.retain(|&x| (x >> 32) != (x & 0xffff_ffff));
    e.par_sort_unstable();
    e.dedup();
    let mut row_ptr = vec![0usize; n + 1];
    for &x in &e {
        row_ptr[(x >> 32) as usize + 1] += 1;
    }
    for i in 0..n {
        row_ptr[i + 1] += row_ptr[i];
    }
    let col: Vec<u32> = e.par_iter().map(|&x| x as u32).collect();
    let vals = vec![1.0f32; col.len()];
    Ok(Matrix::from_csr(Csr::try_new(n, n, row_ptr, col, vals)?))
}

/// Symmetric pattern without the diagonal (for triangle counting).
fn symmetrised(a: &Matrix<f32>) -> Result<Matrix<f32>> {
    let c = a.as_csr();
    let mut e = Vec::with_capacity(c.nnz());
    for i in 0..c.nrows() {
        for &j in c.row(i).0 {
            e.push(((i as u64) << 32) | j as u64);
        }
    }
    csr_from_edges(c.nrows(), e, true)
}

/// The same pattern with every value `v` (another element type).
fn retype<U: bitgraphblas::Scalar>(a: &Matrix<f32>, v: U) -> Result<Matrix<U>> {
    let c = a.as_csr();
    Ok(Matrix::from_csr(Csr::try_new(
        c.nrows(),
        c.ncols(),
        c.row_ptr().to_vec(),
        c.col_idx().to_vec(),
        vec![v; c.nnz()],
    )?))
}

fn json_str(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "'"))
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let get = |k: &str| {
        args.iter()
            .position(|a| a == k)
            .and_then(|p| args.get(p + 1))
            .cloned()
    };
    let data = get("--data").unwrap_or_else(|| "data".into());
    let out = get("--out").unwrap_or_else(|| ".".into());
    let only: Option<Vec<String>> =
        get("--only").map(|o| o.split(',').map(str::to_string).collect());
    // tile sizes to run (default all): `--ks 4,8`
    let ks: Vec<usize> = get("--ks").map_or_else(
        || TILES.iter().filter_map(|t| t.k()).collect(),
        |o| o.split(',').filter_map(|x| x.parse().ok()).collect(),
    );
    let quick = args.iter().any(|a| a == "--quick");
    // `--reorder rcm|degree|locality`: products on the reordered matrices
    let reorder: Order = get("--reorder").map_or(Ok(Order::None), |o| o.parse())?;
    let skip_tc = args.iter().any(|a| a == "--skip-tc");
    let reps = if quick { 5 } else { 20 };

    let gpu = CudaBackend::new(0)?;
    if args.iter().any(|a| a == "--pagerank-steps") {
        return pagerank_steps(&gpu, only.as_deref());
    }
    let bw = copy_bandwidth(&gpu, 1 << 28)?;
    let l2bw = copy_bandwidth(&gpu, 1 << 21)?;
    let commit = std::env::var("BITGRAPHBLAS_COMMIT").unwrap_or_else(|_| "unknown".into());
    println!(
        "device {} ({}), commit {commit}",
        gpu.device_name(),
        gpu.arch()
    );
    println!(
        "device copy bandwidth {:.3} TB/s (read + write); L2-resident copy {:.3} TB/s",
        bw / 1e12,
        l2bw / 1e12
    );
    let floor_of = |b: Bytes| b.floor(bw, l2bw);

    type Loader<'a> = Box<dyn Fn() -> Result<Matrix<f32>> + 'a>;
    let graphs: Vec<(&str, Loader)> = vec![
        (
            "delaunay_n14",
            Box::new(|| {
                bitgraphblas::io::read_matrix_market::<f32>(format!("{data}/delaunay_n14.mtx"))
            }),
        ),
        (
            "USA-road-d.NY",
            Box::new(|| {
                bitgraphblas::io::read_matrix_market::<f32>(format!(
                    "{data}/large/USA-road-d.NY.mtx.gz"
                ))
            }),
        ),
        (
            "cit-HepPh",
            Box::new(|| {
                bitgraphblas::io::read_matrix_market::<f32>(format!(
                    "{data}/large/cit-HepPh.mtx.gz"
                ))
            }),
        ),
        (
            "ego-Twitter",
            Box::new(|| {
                bitgraphblas::io::read_matrix_market::<f32>(format!(
                    "{data}/large/ego-Twitter.mtx.gz"
                ))
            }),
        ),
        (
            "cnr-2000",
            Box::new(|| {
                bitgraphblas::io::read_matrix_market::<f32>(format!("{data}/large/cnr-2000.mtx.gz"))
            }),
        ),
        (
            "grid-1024",
            Box::new(|| Ok(bitgraphblas::generate::grid_2d::<f32>(1024))),
        ),
        (
            "grid-4096",
            Box::new(|| Ok(bitgraphblas::generate::grid_2d::<f32>(4096))),
        ),
        (
            "rmat-18",
            Box::new(|| Ok(bitgraphblas::generate::rmat::<f32>(18, 16, 18))),
        ),
        (
            "rmat-22",
            Box::new(|| Ok(bitgraphblas::generate::rmat::<f32>(22, 16, 22))),
        ),
    ];

    let mut rows_json = Vec::new();
    // products that differed from the CPU
    let mut failed: Vec<String> = Vec::new();
    let mut md = String::new();
    md.push_str(&format!(
        "Device: {} ({}); commit {commit}; copy bandwidth {:.3} TB/s (read + write, 1 GiB dtod). Times (ms): per call, the median of {reps} CUDA-event-timed batches of back-to-back calls (outputs preallocated on both sides: cuSPARSE's y, and the B2SR product writes into w's buffers). `x cuSP` = cuSPARSE CSR f32 SpMV time / B2SR time; `%bw` = (B2SR arrays + input + output bytes) / time / copy bandwidth.\n\n",
        gpu.device_name(), gpu.arch(), bw / 1e12
    ));
    md.push_str("| graph | n | nnz | cuSPARSE ms | k | tiles | B2SR MB (column bits) | pack ms (G nnz/s) | bin_full_full ms (x cuSP, %bw) | bin_bin_full ms (x cuSP, %bw) | bin_bin_bin ms (x cuSP, %bw) |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
    let mut reorder_md = String::from("\n| graph | order | reorder s | tile fill 4x4 (gain) | tile fill 8x8 (gain) | cuSPARSE on the given order ms |\n|---|---|---|---|---|---|\n");
    let mut forms_md = String::from("\nTile columns in 32 and 16 bits (k <= 8): the device's own packing (`packed`: 32-bit columns) and the other form (packed on the host, uploaded as it is), the same products in this run; ms 32-bit / 16-bit (ratio > 1: 16-bit faster).\n\n| graph | k | packed | MB, 32-bit columns | MB, 16-bit | bin_full_full | bin_bin_full | bin_bin_bin |\n|---|---|---|---|---|---|---|---|\n");
    let mut auto_md = String::from("\n| graph | cuSPARSE ms | ours CSR ms (x cuSP) | Auto picks | choice + convert ms | Auto bin_full_full ms (x cuSP) |\n|---|---|---|---|---|---|\n");
    let mut floor_md = String::from(
        "\n| graph | product | k | HBM MB | L2 MB | HBM floor ms | L2 figure ms | bound | ms | floor / ms |\n|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let mut tc_md =
        String::from("\n| graph | triangles | k | TC ms | CPU check |\n|---|---|---|---|---|\n");

    for (name, load) in &graphs {
        if only.as_ref().is_some_and(|o| !o.iter().any(|x| x == name)) {
            continue;
        }
        let t0 = Instant::now();
        let a = load()?.to_pattern(Format::Csr, 1.0f32)?;
        let (n, m, nnz) = (a.nrows(), a.ncols(), a.nvals());
        println!(
            "\n== {name}: {n} x {m}, {nnz} entries (loaded in {:.1} s)",
            t0.elapsed().as_secs_f64()
        );
        // `--reorder`: cuSPARSE on the given order first, then every product
        // below on the reordered matrix
        let (a, reorder_json) = match reorder {
            Order::None => (a, String::new()),
            order => {
                let given = gpu.upload_matrix(&a)?;
                let x: Vec<f32> = (0..m).map(|i| (i % 7) as f32 - 3.0).collect();
                let cus = CuSparse::new(&gpu, &given, &x)?;
                let cus_given_ms = time_ms(&gpu, 3, reps, || cus.run(&gpu))?;
                drop((cus, given));
                let t = Instant::now();
                let perm = order.compute(&a.as_csr())?;
                let reorder_s = t.elapsed().as_secs_f64();
                let r = perm.permute_symmetric(&a)?;
                let fill = |c: &Csr<f32>| {
                    let p = Profile::sample_with(c, usize::MAX, 1);
                    [TileSize::T4, TileSize::T8].map(|t| p.estimate(t).map_or(0.0, |e| e.fill))
                };
                let (before, after) = (fill(&a.as_csr()), fill(&r.as_csr()));
                println!(
                    "reorder {order}: {reorder_s:.2} s; tile fill 4x4 {:.4} -> {:.4} ({:.2}x), 8x8 {:.4} -> {:.4} ({:.2}x); cuSPARSE on the given order {cus_given_ms:.4} ms",
                    before[0], after[0], after[0] / before[0], before[1], after[1], after[1] / before[1]
                );
                reorder_md.push_str(&format!(
                    "| {name} | {order} | {reorder_s:.2} | {:.4} -> {:.4} ({:.2}x) | {:.4} -> {:.4} ({:.2}x) | {cus_given_ms:.4} |\n",
                    before[0], after[0], after[0] / before[0], before[1], after[1], after[1] / before[1]
                ));
                let json = format!(
                    "\"reorder\":{{\"order\":\"{order}\",\"seconds\":{reorder_s:.4},\"fill4\":[{:.5},{:.5}],\"fill8\":[{:.5},{:.5}],\"cusparse_given_order_ms\":{cus_given_ms:.5}}},",
                    before[0], after[0], before[1], after[1]
                );
                (r, json)
            }
        };

        let ga = gpu.upload_matrix(&a)?;
        let mut rng = StdRng::seed_from_u64(7);
        let x: Vec<f32> = (0..m).map(|_| rng.gen_range(-1.0..1.0)).collect();
        let cus = CuSparse::new(&gpu, &ga, &x)?;
        let cus_ms = time_ms(&gpu, 3, reps, || cus.run(&gpu))?;
        let csr_bytes = 4 * (n + 1) + 8 * nnz + 4 * m + 4 * n;
        println!(
            "cuSPARSE CSR f32 SpMV {cus_ms:.4} ms ({:.0}% of copy bw for {:.1} MB)",
            100.0 * csr_bytes as f64 / (cus_ms * 1e-3) / bw,
            csr_bytes as f64 / 1e6
        );

        let u_full = gpu.upload_vector(&Vector::from_dense(x.clone()))?;
        let bits = BitVec::from_bools(&(0..m).map(|_| rng.gen_bool(0.5)).collect::<Vec<_>>());
        let u_bits_b = gpu.upload_vector(&Vector::<bool>::from_bits(bits.clone()))?;
        let u_bits_c = gpu.upload_vector(&Vector::<u32>::from_bits(bits.clone()))?;
        // CPU references of the f32 and LOR.LAND products (every graph: the
        // check covers every kernel path the sizes select)
        let f = Flags::default();
        let cpu_f32 = {
            let mut cw = Vector::<f32>::empty(n);
            Cpu::new().mxv(
                &mut cw,
                None,
                NoAccum,
                PlusTimes::<f32>::new(),
                &a,
                &Vector::from_dense(x.clone()),
                f,
            )?;
            cw.to_vec(0.0)
        };
        let cpu_u32 = {
            let mut cw = Vector::<u32>::empty(n);
            Cpu::new().mxv(
                &mut cw,
                None,
                NoAccum,
                PlusPair::<u32>::new(),
                &retype(&a, 1u32)?,
                &Vector::<u32>::from_bits(bits.clone()),
                f,
            )?;
            cw
        };
        let cpu_bool = {
            let mut cw = Vector::<bool>::empty(n);
            Cpu::new().mxv(
                &mut cw,
                None,
                NoAccum,
                LorLand,
                &retype(&a, true)?,
                &Vector::<bool>::from_bits(bits),
                f,
            )?;
            cw.to_vec(false)
        };
        // The f32 PLUS.TIMES product on the CSR itself (this backend's CSR
        // kernel), and the bytes both CSR products must move.
        let csr_host = a.as_csr();
        let csr_sectors = csr_gather_sectors(&csr_host);
        let row_spread = bitgraphblas::storage::b2sr::row_spread(
            csr_host.row_ptr().windows(2).map(|w| w[1] - w[0]),
        );
        let csr_arrays = (4 * (n + 1) + 8 * nnz) as f64;
        let csr_b = Bytes {
            hbm: csr_arrays + 4.0 * (m + n) as f64,
            l2: csr_arrays + 32.0 * csr_sectors as f64 + 4.0 * n as f64,
        };
        let mut w_csr = gpu.vector_new::<f32>(n, None, VectorFormat::Dense)?;
        let ours_csr_ms = time_ms(&gpu, 3, reps, || {
            gpu.mxv(
                &mut w_csr,
                None,
                NoAccum,
                PlusTimes::<f32>::new(),
                &ga,
                &u_full,
                f,
            )
        })?;
        let rp = csr_host.row_ptr();
        let differs = |gw: &[f32]| {
            (0..n).find(|&i| {
                let (p, q) = (cpu_f32[i], gw[i]);
                (p - q).abs() > 1e-3 * p.abs().max(1.0) + 1e-6 * (rp[i + 1] - rp[i]) as f32
            })
        };
        if let Some(i) = differs(&gpu.download_vector(&w_csr)?.to_vec(0.0)) {
            failed.push(format!(
                "{name} CSR: PLUS.TIMES row {i} differs from the CPU"
            ));
            println!("CHECK FAILED: {}", failed.last().expect("pushed"));
        }
        drop(w_csr);
        let (csr_floor, csr_l2, csr_bound) = floor_of(csr_b);
        println!(
            "ours CSR f32 PLUS.TIMES {ours_csr_ms:.4} ms ({:.2}x cuSPARSE); CSR floor {csr_floor:.4} ms, L2 figure {csr_l2:.4} ms ({csr_bound}-bound; {:.1} MB HBM, {:.1} MB L2)",
            cus_ms / ours_csr_ms,
            csr_b.hbm / 1e6,
            csr_b.l2 / 1e6
        );
        let mut floor_row = |what: &str, k: usize, b: Bytes, ms: f64| {
            let (fl, l2, bound) = floor_of(b);
            floor_md.push_str(&format!(
                "| {name} | {what} | {} | {:.2} | {:.2} | {fl:.4} | {l2:.4} | {bound} | {ms:.4} | {:.0}% |\n",
                if k == 0 { "CSR".to_string() } else { k.to_string() },
                b.hbm / 1e6,
                b.l2 / 1e6,
                100.0 * fl / ms
            ));
            format!(
                "{{\"product\":{},\"k\":{k},\"hbm_bytes\":{:.0},\"l2_bytes\":{:.0},\"floor_ms\":{fl:.5},\"l2_ms\":{l2:.5},\"bound\":\"{bound}\",\"ms\":{ms:.5},\"floor_frac\":{:.4}}}",
                json_str(what), b.hbm, b.l2, fl / ms
            )
        };
        let mut floors_json = vec![
            floor_row("cuSPARSE f32", 0, csr_b, cus_ms),
            floor_row("ours CSR f32", 0, csr_b, ours_csr_ms),
        ];
        let mut tiles_json = Vec::new();
        for t in TILES {
            let k = t.k().expect("fixed");
            if !ks.contains(&k) {
                continue;
            }
            // device packing, timed by the host clock around the whole call (it syncs)
            let mut pack = Vec::new();
            let mut gb = None;
            for _ in 0..if quick { 2 } else { 4 } {
                gpu.synchronize()?;
                let s = Instant::now();
                let b = gpu.convert(&ga, Format::B2sr(t))?;
                gpu.synchronize()?;
                pack.push(s.elapsed().as_secs_f64() * 1e3);
                gb = Some(b);
            }
            pack.remove(0);
            let pack_ms = median(pack);
            let gb = gb.expect("packed");
            // the arrays as stored: tile columns in 16 bits where that pays
            let bytes = gb.bytes();
            let col_bits = if gb.narrow_columns() { 16 } else { 32 };
            let mut w = gpu.vector_new::<f32>(n, None, VectorFormat::Dense)?;
            let mut wc = gpu.vector_new::<u32>(n, None, VectorFormat::Dense)?;
            let mut wb = gpu.vector_new::<bool>(n, None, VectorFormat::Bits)?;
            let (bff, bbf, bbb) = {
                let bff = time_ms(&gpu, 3, reps, || {
                    gpu.mxv(
                        &mut w,
                        None,
                        NoAccum,
                        PlusTimes::<f32>::new(),
                        &gb,
                        &u_full,
                        f,
                    )
                })?;
                // one B2SR copy per element type, each dropped after its timing
                let gu32 = gpu.convert(&gpu.upload_matrix(&retype(&a, 1u32)?)?, Format::B2sr(t))?;
                let bbf = time_ms(&gpu, 3, reps, || {
                    gpu.mxv(
                        &mut wc,
                        None,
                        NoAccum,
                        PlusPair::<u32>::new(),
                        &gu32,
                        &u_bits_c,
                        f,
                    )
                })?;
                drop(gu32);
                let gbool =
                    gpu.convert(&gpu.upload_matrix(&retype(&a, true)?)?, Format::B2sr(t))?;
                let bbb = time_ms(&gpu, 3, reps, || {
                    gpu.mxv(&mut wb, None, NoAccum, LorLand, &gbool, &u_bits_b, f)
                })?;
                drop(gbool);
                // correctness check of the three products against the CPU
                // f32 sums in another order: 1e-3 relative, plus 1e-6 per entry of the row
                let gw = gpu.download_vector(&w)?.to_vec(0.0);
                let bad = differs(&gw);
                // a difference is reported, the run goes on, and the program fails at the end
                let before = failed.len();
                if let Some(i) = bad {
                    failed.push(format!(
                        "{name} k={k}: PLUS.TIMES row {i}: cpu {} gpu {}",
                        cpu_f32[i], gw[i]
                    ));
                }
                let gc_out = gpu.download_vector(&wc)?;
                if gc_out.nvals() != cpu_u32.nvals() || gc_out.to_vec(0) != cpu_u32.to_vec(0) {
                    failed.push(format!("{name} k={k}: PLUS.PAIR differs from the CPU"));
                }
                let gb_out = gpu.download_vector(&wb)?.to_vec(false);
                if gb_out != cpu_bool {
                    failed.push(format!("{name} k={k}: LOR.LAND differs from the CPU"));
                }
                for e in &failed[before..] {
                    println!("CHECK FAILED: {e}");
                }
                (bff, bbf, bbb)
            };
            // The same three products with the tile columns in the other form
            // (packed on the host, uploaded as they are), timed and checked in
            // this run: what 16-bit columns save (k <= 8: the kernel that
            // reads them).
            let other = if k > 8 {
                String::new()
            } else {
                let narrow = gb.narrow_columns();
                let form = if narrow {
                    ColumnForm::Wide
                } else {
                    ColumnForm::Narrow
                };
                let pat = B2sr::from_csr(&a.as_csr(), t)?.with_columns(form);
                let iso = a.iso_value().unwrap_or(1.0);
                let gf = gpu.upload_matrix(&Matrix::from_b2sr(pat.clone(), iso))?;
                let gc = gpu.upload_matrix(&Matrix::from_b2sr(pat.clone(), 1u32))?;
                let gbo = gpu.upload_matrix(&Matrix::from_b2sr(pat.clone(), true))?;
                let mut ow = gpu.vector_new::<f32>(n, None, VectorFormat::Dense)?;
                let mut owc = gpu.vector_new::<u32>(n, None, VectorFormat::Dense)?;
                let mut owb = gpu.vector_new::<bool>(n, None, VectorFormat::Bits)?;
                let pt = PlusTimes::<f32>::new();
                let of = time_ms(&gpu, 3, reps, || {
                    gpu.mxv(&mut ow, None, NoAccum, pt, &gf, &u_full, f)
                })?;
                let pp = PlusPair::<u32>::new();
                let oc = time_ms(&gpu, 3, reps, || {
                    gpu.mxv(&mut owc, None, NoAccum, pp, &gc, &u_bits_c, f)
                })?;
                let ob = time_ms(&gpu, 3, reps, || {
                    gpu.mxv(&mut owb, None, NoAccum, LorLand, &gbo, &u_bits_b, f)
                })?;
                // the same kernel in the same order: the same bits
                let same = gpu.download_vector(&ow)?.to_vec(0.0)
                    == gpu.download_vector(&w)?.to_vec(0.0)
                    && gpu.download_vector(&owc)?.to_vec(0) == gpu.download_vector(&wc)?.to_vec(0)
                    && gpu.download_vector(&owb)?.to_vec(false)
                        == gpu.download_vector(&wb)?.to_vec(false);
                if !same {
                    failed.push(format!("{name} k={k}: the two tile column forms differ"));
                    println!("CHECK FAILED: {}", failed.last().expect("pushed"));
                }
                let bits = |n: bool| if n { 16 } else { 32 };
                let (ob_bits, o_bytes) = (bits(!narrow), pat.bytes());
                println!(
                    "k={k:2}: {ob_bits}-bit tile columns {:.1} MB: bin_full_full {of:.4} ms, bin_bin_full {oc:.4} ms, bin_bin_bin {ob:.4} ms",
                    o_bytes as f64 / 1e6
                );
                // columns: 32-bit then 16-bit, whichever was chosen
                let (mb32, mb16) = if narrow {
                    (o_bytes, bytes)
                } else {
                    (bytes, o_bytes)
                };
                let pair = |o: f64, c: f64| if narrow { (o, c) } else { (c, o) };
                let ((f32_, f16_), (c32, c16), (b32, b16)) =
                    (pair(of, bff), pair(oc, bbf), pair(ob, bbb));
                forms_md.push_str(&format!(
                    "| {name} | {k} | {} | {:.2} | {:.2} | {f32_:.4} / {f16_:.4} ({:.2}x) | {c32:.4} / {c16:.4} ({:.2}x) | {b32:.4} / {b16:.4} ({:.2}x) |\n",
                    bits(narrow), mb32 as f64 / 1e6, mb16 as f64 / 1e6, f32_ / f16_, c32 / c16, b32 / b16
                ));
                format!(
                    ",\"other_columns\":{{\"column_bits\":{ob_bits},\"b2sr_bytes\":{o_bytes},\"bin_full_full_ms\":{of:.5},\"bin_bin_full_ms\":{oc:.5},\"bin_bin_bin_ms\":{ob:.5}}}"
                )
            };
            let bits_n = n.div_ceil(8) as f64;
            let bf = (bytes as f64 + 4.0 * m as f64 + 4.0 * n as f64 + bits_n) / (bff * 1e-3) / bw;
            let bc =
                (bytes as f64 + m.div_ceil(8) as f64 + 4.0 * n as f64 + bits_n) / (bbf * 1e-3) / bw;
            let bb = (bytes as f64 + m.div_ceil(8) as f64 + bits_n) / (bbb * 1e-3) / bw;
            // floors: a tile gathers k f32 (k / 8 sectors, at least one) or k bits (one sector)
            let (arrays, tiles_n) = (bytes as f64, gb.ntiles() as f64);
            let gather_f32 = 32.0 * tiles_n * (k / 8).max(1) as f64;
            let gather_bits = 32.0 * tiles_n;
            let b2sr = |input: f64, gather: f64, output: f64| Bytes {
                hbm: arrays + input + output,
                l2: arrays + gather + output,
            };
            floors_json.push(floor_row(
                "bin_full_full",
                k,
                b2sr(4.0 * m as f64, gather_f32, 4.0 * n as f64),
                bff,
            ));
            floors_json.push(floor_row(
                "bin_bin_full",
                k,
                b2sr(m.div_ceil(8) as f64, gather_bits, 4.0 * n as f64),
                bbf,
            ));
            floors_json.push(floor_row(
                "bin_bin_bin",
                k,
                b2sr(m.div_ceil(8) as f64, gather_bits, bits_n),
                bbb,
            ));
            let rate = nnz as f64 / (pack_ms * 1e-3) / 1e9;
            println!(
                "k={k:2}: {} tiles, {:.1} MB; pack {pack_ms:.3} ms ({rate:.2} G nnz/s); bin_full_full {bff:.4} ms ({:.2}x, {:.0}%); bin_bin_full {bbf:.4} ms ({:.2}x, {:.0}%); bin_bin_bin {bbb:.4} ms ({:.2}x, {:.0}%)",
                gb.ntiles(), bytes as f64 / 1e6, cus_ms / bff, 100.0 * bf, cus_ms / bbf, 100.0 * bc, cus_ms / bbb, 100.0 * bb
            );
            md.push_str(&format!(
                "| {name} | {n} | {nnz} | {cus_ms:.4} | {k} | {} | {:.2} ({col_bits}) | {pack_ms:.3} ({rate:.2}) | {bff:.4} ({:.2}x, {:.0}%) | {bbf:.4} ({:.2}x, {:.0}%) | {bbb:.4} ({:.2}x, {:.0}%) |\n",
                gb.ntiles(), bytes as f64 / 1e6, cus_ms / bff, 100.0 * bf, cus_ms / bbf, 100.0 * bc, cus_ms / bbb, 100.0 * bb
            ));
            tiles_json.push(format!(
                "{{\"k\":{k},\"tiles\":{},\"b2sr_bytes\":{bytes},\"column_bits\":{col_bits},\"pack_ms\":{pack_ms:.5},\"pack_gnnz_per_s\":{rate:.4},\"bin_full_full_ms\":{bff:.5},\"bin_bin_full_ms\":{bbf:.5},\"bin_bin_bin_ms\":{bbb:.5},\"bin_full_full_bw_frac\":{bf:.4},\"bin_bin_full_bw_frac\":{bc:.4},\"bin_bin_bin_bw_frac\":{bb:.4},\"speedup_bin_full_full\":{:.4},\"speedup_bin_bin_full\":{:.4},\"speedup_bin_bin_bin\":{:.4}{other}}}",
                gb.ntiles(), cus_ms / bff, cus_ms / bbf, cus_ms / bbb
            ));
        }
        // Format::Auto: the format this backend's cost model picks, the
        // choice timed (tile counting included) and the product on it
        let mut choice = Vec::new();
        let mut gauto = None;
        for _ in 0..3 {
            gpu.synchronize()?;
            let s = Instant::now();
            gauto = Some(gpu.convert(&ga, Format::Auto)?);
            gpu.synchronize()?;
            choice.push(s.elapsed().as_secs_f64() * 1e3);
        }
        let gauto = gauto.expect("converted");
        let auto_name = gauto
            .tile_size()
            .map_or("CSR".to_string(), |k| format!("B2SR-{k}"));
        let mut w_auto = gpu.vector_new::<f32>(n, None, VectorFormat::Dense)?;
        let auto_ms = time_ms(&gpu, 3, reps, || {
            gpu.mxv(
                &mut w_auto,
                None,
                NoAccum,
                PlusTimes::<f32>::new(),
                &gauto,
                &u_full,
                f,
            )
        })?;
        if let Some(i) = differs(&gpu.download_vector(&w_auto)?.to_vec(0.0)) {
            failed.push(format!(
                "{name} Auto ({auto_name}): PLUS.TIMES row {i} differs from the CPU"
            ));
            println!("CHECK FAILED: {}", failed.last().expect("pushed"));
        }
        let auto_convert_ms = median(choice);
        println!(
            "Auto: {auto_name} (chosen and converted in {auto_convert_ms:.3} ms); bin_full_full {auto_ms:.4} ms ({:.2}x cuSPARSE)",
            cus_ms / auto_ms
        );
        auto_md.push_str(&format!(
            "| {name} | {cus_ms:.4} | {ours_csr_ms:.4} ({:.2}x) | {auto_name} | {auto_convert_ms:.3} | {auto_ms:.4} ({:.2}x) |\n",
            cus_ms / ours_csr_ms,
            cus_ms / auto_ms
        ));
        drop((gauto, w_auto));
        drop(cus);

        let mut tc_json = Vec::new();
        if !skip_tc {
            // triangle counting: L = tril(S, -1) of the symmetrised pattern, count = sum(L .* (L L'))
            let s = symmetrised(&a)?;
            let su = retype(&s, 1u64)?;
            let gs = gpu.upload_matrix(&su)?;
            let cpu_count = if s.nvals() < 2_000_000 {
                let l = su.to_format(Format::Csr)?;
                let mut lc = Matrix::<u64>::empty(n, n);
                Cpu::new().select_matrix(
                    &mut lc,
                    None,
                    NoAccum,
                    IndexOp::Tril(-1),
                    &l,
                    Flags::default(),
                )?;
                Some(Cpu::new().mxm_reduce(
                    lc.as_mask().structure(),
                    PlusPair::<u64>::new(),
                    &lc,
                    &lc,
                    Flags {
                        transpose_b: true,
                        ..Flags::default()
                    },
                )?)
            } else {
                None
            };
            let mut slow = false;
            for t in TILES {
                if slow {
                    println!(
                        "triangles k={}: skipped (the previous tile size took over 2 s)",
                        t
                    );
                    continue;
                }
                let k = t.k().expect("fixed");
                let gsb = gpu.convert(&gs, Format::B2sr(t))?;
                let mut gl = gpu.upload_matrix(&Matrix::<u64>::empty(n, n))?;
                gpu.select_matrix(
                    &mut gl,
                    None,
                    NoAccum,
                    IndexOp::Tril(-1),
                    &gsb,
                    Flags::default(),
                )?;
                drop(gsb);
                let fl = Flags {
                    transpose_b: true,
                    ..Flags::default()
                };
                let mut count = 0;
                let mut times = Vec::new();
                for _ in 0..if quick { 2 } else { 4 } {
                    gpu.synchronize()?;
                    let st = Instant::now();
                    count = gpu.mxm_reduce(
                        CudaBackend::matrix_mask(&gl).structure(),
                        PlusPair::<u64>::new(),
                        &gl,
                        &gl,
                        fl,
                    )?;
                    times.push(st.elapsed().as_secs_f64() * 1e3);
                    if times[0] > 2000.0 {
                        slow = true;
                        break;
                    }
                }
                if times.len() > 1 {
                    times.remove(0);
                }
                let tc_ms = median(times);
                if let Some(c) = cpu_count {
                    assert_eq!(c, count, "{name} k={k}: triangles gpu {count} cpu {c}");
                }
                let check =
                    cpu_count.map_or("not run (large)".to_string(), |c| format!("{c} (equal)"));
                println!("triangles k={k}: {count} in {tc_ms:.3} ms; cpu {check}");
                tc_md.push_str(&format!(
                    "| {name} | {count} | {k} | {tc_ms:.3} | {check} |\n"
                ));
                tc_json.push(format!(
                    "{{\"k\":{k},\"triangles\":{count},\"ms\":{tc_ms:.5}}}"
                ));
            }
        }
        rows_json.push(format!(
            "{{\"graph\":{},{reorder_json}\"n\":{n},\"nnz\":{nnz},\"cusparse_spmv_ms\":{cus_ms:.5},\"ours_csr_ms\":{ours_csr_ms:.5},\"row_spread\":{row_spread:.4},\"auto\":{{\"format\":{},\"convert_ms\":{auto_convert_ms:.5},\"bin_full_full_ms\":{auto_ms:.5}}},\"csr_bytes\":{csr_bytes},\"csr_gather_sectors\":{csr_sectors},\"tiles\":[{}],\"floors\":[{}],\"triangle_counting\":[{}]}}",
            json_str(name),
            json_str(&auto_name),
            tiles_json.join(","),
            floors_json.join(","),
            tc_json.join(",")
        ));
    }
    let json = format!(
        "{{\"device\":{},\"arch\":{},\"commit\":{},\"copy_bandwidth_bytes_per_s\":{bw:.0},\"l2_copy_bandwidth_bytes_per_s\":{l2bw:.0},\"reps\":{reps},\"graphs\":[{}]}}\n",
        json_str(gpu.device_name()),
        json_str(gpu.arch()),
        json_str(&commit),
        rows_json.join(",\n")
    );
    if reorder != Order::None {
        md.push_str(&reorder_md);
    }
    md.push_str(&forms_md);
    md.push_str(&auto_md);
    md.push_str(&floor_md);
    md.push_str(&tc_md);
    std::fs::write(format!("{out}/gpu-bench.json"), json).map_err(|e| bitgraphblas::Error::Io {
        path: out.clone().into(),
        source: e,
    })?;
    std::fs::write(format!("{out}/gpu-bench.md"), &md).map_err(|e| bitgraphblas::Error::Io {
        path: out.clone().into(),
        source: e,
    })?;
    println!("\n{md}");
    assert!(
        failed.is_empty(),
        "{} products differ from the CPU: {failed:?}",
        failed.len()
    );
    Ok(())
}

/// One PageRank iteration of `algorithms/src/pagerank.rs`, op by op, each
/// timed by the host clock around the op and a device synchronisation
/// (median of 5 iterations after one warm-up), on the 4096² grid and R-MAT 22
/// (generated as in `algorithms/examples/bench_gpu.rs`).
fn pagerank_steps(gpu: &CudaBackend, only: Option<&[String]>) -> Result<()> {
    use bitgraphblas::algebra::{Abs, Identity, Minus, Plus, Times};
    use bitgraphblas::{ops, Desc};
    // the formats `Format::Auto` picks for them (bench_gpu's log)
    type Make = fn() -> Matrix<f64>;
    let graphs: [(&str, Make, Format); 2] = [
        (
            "grid4096",
            || bitgraphblas::generate::grid_2d::<f64>(4096),
            Format::B2sr(TileSize::T32),
        ),
        (
            "rmat22",
            || bitgraphblas::generate::rmat::<f64>(22, 16, 1),
            Format::Csr,
        ),
    ];
    for (name, make, format) in graphs {
        if only.is_some_and(|o| !o.iter().any(|x| x == name)) {
            continue;
        }
        let a = make().to_pattern(Format::Csr, 1.0f64)?;
        let n = a.nrows();
        let at = gpu.upload_matrix(&a)?;
        let at = if format == Format::Csr {
            at
        } else {
            gpu.convert(&at, format)?
        };
        let rp = a.as_csr().row_ptr().to_vec();
        let e: Vec<(usize, f64)> = (0..n)
            .filter(|&i| rp[i + 1] > rp[i])
            .map(|i| (i, 0.85 / (rp[i + 1] - rp[i]) as f64))
            .collect();
        let dangling_count = n - e.len();
        let dout = gpu.upload_vector(&Vector::from_entries(n, e)?)?;
        let scale = gpu.convert_vector(&dout, VectorFormat::Dense)?;
        println!(
            "== {name}: n {n}, {} entries, format {:?} (tile size), {dangling_count} dangling",
            a.nvals(),
            at.tile_size()
        );
        let mut x = gpu.vector_new::<f64>(n, Some(1.0 / n as f64), VectorFormat::Dense)?;
        let mut w = gpu.vector_new::<f64>(n, None, VectorFormat::Sparse)?;
        let mut dangling = gpu.vector_new::<f64>(n, None, VectorFormat::Sparse)?;
        let mut diff = gpu.vector_new::<f64>(n, None, VectorFormat::Dense)?;
        let mut absdiff = gpu.vector_new::<f64>(n, None, VectorFormat::Dense)?;
        let steps = [
            "ewise_mult w = x .* scale",
            "dangling: apply under !struct(dout) + reduce",
            "vector_new xn = c",
            "mxv xn += A' w (PLUS.TIMES f64)",
            "ewise_add diff = xn - x",
            "apply absdiff = |diff|",
            "reduce sum(absdiff)",
        ];
        let mut t = vec![Vec::new(); steps.len()];
        for it in 0..6 {
            let mut lap = |k: usize, s: Instant| -> Result<()> {
                gpu.synchronize()?;
                if it > 0 {
                    t[k].push(s.elapsed().as_secs_f64() * 1e3);
                }
                Ok(())
            };
            let s = Instant::now();
            ops::ewise_mult(gpu, &mut w, Times, &x, &scale, &Desc::new())?;
            lap(0, s)?;
            let s = Instant::now();
            let dsum = if dangling_count > 0 {
                let m = Desc::new()
                    .mask(CudaBackend::mask(&dout).structure().complement())
                    .replace();
                ops::apply(gpu, &mut dangling, Identity, &x, &m)?;
                ops::reduce(gpu, Plus, &dangling)?
            } else {
                0.0
            };
            lap(1, s)?;
            let s = Instant::now();
            let c = 0.15 / n as f64 + 0.85 * dsum / n as f64;
            let mut xn = gpu.vector_new::<f64>(n, Some(c), VectorFormat::Dense)?;
            lap(2, s)?;
            let s = Instant::now();
            ops::mxv(
                gpu,
                &mut xn,
                PlusTimes::<f64>::new(),
                &at,
                &w,
                &Desc::new().accum(Plus),
            )?;
            lap(3, s)?;
            let s = Instant::now();
            ops::ewise_add(gpu, &mut diff, Minus, &xn, &x, &Desc::new())?;
            lap(4, s)?;
            let s = Instant::now();
            ops::apply(gpu, &mut absdiff, Abs, &diff, &Desc::new())?;
            lap(5, s)?;
            let s = Instant::now();
            let err = ops::reduce(gpu, Plus, &absdiff)?;
            lap(6, s)?;
            x = xn;
            if it == 5 {
                println!("L1 change after 6 iterations: {err:.3e}");
            }
        }
        let mut total = 0.0;
        for (k, name) in steps.iter().enumerate() {
            let m = median(t[k].clone());
            total += m;
            println!("{m:9.3} ms  {name}");
        }
        println!("{total:9.3} ms  one iteration (sum of the medians)");
    }
    Ok(())
}
