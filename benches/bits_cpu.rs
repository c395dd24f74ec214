//! CPU benchmark of the dense-bit BMM (issue 17): bits x bits -> i32 counts
//! (`PLUS.XNOR`) against an `f32` GEMM (`matrixmultiply::sgemm`, threaded
//! over every core) on the same shapes, in the same run. Prints a table and
//! one JSON line.
//!
//! ```text
//! cargo bench --bench bits_cpu                 # every shape
//! cargo bench --bench bits_cpu -- --quick      # fewer repetitions, no 4096
//! cargo bench --bench bits_cpu -- --only gnn   # shapes whose name contains "gnn"
//! ```

use std::time::Instant;

use bitgraphblas::algebra::BitSemiring;
use bitgraphblas::storage::{BitLayout, BitMatrix};
use bitgraphblas::{ops, BitInput, BitOutput, Cpu, DenseMatrix, Scales, Threshold};

struct Shape {
    name: &'static str,
    m: usize,
    k: usize,
    n: usize,
}

const SHAPES: &[Shape] = &[
    Shape {
        name: "square-1024",
        m: 1024,
        k: 1024,
        n: 1024,
    },
    Shape {
        name: "square-2048",
        m: 2048,
        k: 2048,
        n: 2048,
    },
    Shape {
        name: "square-4096",
        m: 4096,
        k: 4096,
        n: 4096,
    },
    Shape {
        name: "gnn-reddit",
        m: 232_965,
        k: 602,
        n: 128,
    },
    Shape {
        name: "gnn-89250",
        m: 89_250,
        k: 500,
        n: 256,
    },
];

/// xorshift64*.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// Random bits, padding kept 0.
fn random_bits(m: usize, n: usize, layout: BitLayout, rng: &mut Rng) -> BitMatrix {
    let z = BitMatrix::zeros(m, n, layout).expect("fits");
    let (stride, len) = (z.stride(), z.line_len());
    let tail = if len % 64 == 0 {
        u64::MAX
    } else {
        (1u64 << (len % 64)) - 1
    };
    let words: Vec<u64> = (0..z.words().len())
        .map(|i| {
            let w = rng.next();
            if i % stride == stride - 1 {
                w & tail
            } else {
                w
            }
        })
        .collect();
    BitMatrix::from_words(m, n, layout, words).expect("valid")
}

/// Median seconds of `reps` runs of `f` (after one warm-up run).
fn median(reps: usize, mut f: impl FnMut()) -> f64 {
    f();
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(|a, b| a.partial_cmp(b).expect("finite"));
    t[t.len() / 2]
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

fn commit() -> String {
    std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--list") {
        return;
    }
    let quick = args.iter().any(|a| a == "--quick");
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|p| args.get(p + 1).cloned());
    let threads = rayon::current_num_threads();
    let isa = bitgraphblas::backend::cpu::bits_isa();
    let cpu = Cpu::new();
    println!(
        "bits_cpu: {} ({} threads), bit kernels {isa}, commit {}",
        cpu_model(),
        threads,
        commit()
    );
    println!(
        "{:<12} {:>7} {:>5} {:>5} {:>11} {:>11} {:>11} {:>8} {:>8} {:>9}",
        "shape",
        "m",
        "k",
        "n",
        "bmm i32 ms",
        "bmm bits ms",
        "sgemm ms",
        "ratio",
        "bits x",
        "bmm GOPS"
    );
    let mut rows = Vec::new();
    for sh in SHAPES {
        if only.as_deref().is_some_and(|o| !sh.name.contains(o)) || (quick && sh.m == 4096) {
            continue;
        }
        let (m, k, n) = (sh.m, sh.k, sh.n);
        let big = m * k >= 1 << 26 || m * n * k >= 1 << 34;
        let reps = if quick {
            2
        } else if big {
            3
        } else {
            5
        };
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ m as u64);
        let a = random_bits(m, k, BitLayout::RowMajor, &mut rng);
        let w = random_bits(k, n, BitLayout::ColMajor, &mut rng);
        let mut c = DenseMatrix::filled(m, n, 0i32);
        let t_bmm = median(reps, || {
            ops::bmm(
                &cpu,
                BitOutput::Counts(&mut c),
                BitSemiring::PLUS_XNOR,
                BitInput::Bits(&a),
                &w,
            )
            .expect("bmm");
        });
        let mut h = BitMatrix::zeros(m, n, BitLayout::RowMajor).expect("fits");
        let t_bits = median(reps, || {
            let out = BitOutput::Bits {
                out: &mut h,
                scales: Scales::default(),
                threshold: Threshold::Sign,
            };
            ops::bmm(&cpu, out, BitSemiring::PLUS_XNOR, BitInput::Bits(&a), &w).expect("bmm");
        });
        drop(h);
        drop(c);
        // the f32 anchor on the same shape: x (m x k) times y (k x n), row-major
        let x: Vec<f32> = (0..m * k)
            .map(|_| (rng.next() >> 40) as f32 / (1u64 << 24) as f32 - 0.5)
            .collect();
        let y: Vec<f32> = (0..k * n)
            .map(|_| (rng.next() >> 40) as f32 / (1u64 << 24) as f32 - 0.5)
            .collect();
        let mut z = vec![0f32; m * n];
        let t_gemm = median(reps, || {
            // SAFETY: row-major m x k, k x n and m x n buffers of those sizes.
            unsafe {
                matrixmultiply::sgemm(
                    m,
                    k,
                    n,
                    1.0,
                    x.as_ptr(),
                    k as isize,
                    1,
                    y.as_ptr(),
                    n as isize,
                    1,
                    0.0,
                    z.as_mut_ptr(),
                    n as isize,
                    1,
                );
            }
        });
        std::hint::black_box(&z);
        let gops = 2.0 * (m * n * k) as f64 / t_bmm / 1e9;
        println!(
            "{:<12} {:>7} {:>5} {:>5} {:>11.3} {:>11.3} {:>11.3} {:>7.1}x {:>7.1}x {:>9.0}",
            sh.name,
            m,
            k,
            n,
            t_bmm * 1e3,
            t_bits * 1e3,
            t_gemm * 1e3,
            t_gemm / t_bmm,
            t_gemm / t_bits,
            gops
        );
        rows.push(format!(
            "{{\"shape\":\"{}\",\"m\":{m},\"k\":{k},\"n\":{n},\"bmm_i32_ms\":{:.4},\"bmm_bits_ms\":{:.4},\
             \"sgemm_ms\":{:.4},\"ratio_i32\":{:.2},\"ratio_bits\":{:.2},\"bmm_gops\":{:.1},\"reps\":{reps}}}",
            sh.name, t_bmm * 1e3, t_bits * 1e3, t_gemm * 1e3, t_gemm / t_bmm, t_gemm / t_bits, gops
        ));
    }
    println!(
        "{{\"bench\":\"bits_cpu\",\"device\":\"{}\",\"threads\":{threads},\"isa\":\"{isa}\",\"commit\":\"{}\",\
         \"semiring\":\"plus_xnor\",\"anchor\":\"matrixmultiply::sgemm (threading)\",\"rows\":[{}]}}",
        cpu_model(),
        commit(),
        rows.join(",")
    );
}
