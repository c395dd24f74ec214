//! Kernel compilation without a GPU: NVRTC compiles every module of the
//! kernel table for sm_90a (the H100 and H200 target), the table and the PTX `.entry` sets must match in
//! both directions, and `ptxas -v` must report no spills.
//!
//! Needs libnvrtc on the library path (`.ci/cuda-kernels.sh` installs the PyPI
//! wheels). Without it the test prints SKIPPED, or fails when
//! `BITGRAPHBLAS_REQUIRE_NVRTC=1`. `ptxas` is found through `BITGRAPHBLAS_PTXAS`,
//! then `.ci/cuda-tools/nvidia/cu13/bin/ptxas`, then `PATH`.
#![cfg(feature = "cuda")]

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

use bitgraphblas::algebra::{BuiltinOp, DeviceOps};
use bitgraphblas::backend::cuda::kernels::{
    all_modules, compile_ptx, ptx_entries, ModuleId, ModuleSpec, SrKey,
};
use bitgraphblas::ScalarType;

/// The semiring templates instantiated for user semirings (operators given as
/// source, or built-in operators in a user pairing), at boolean, integer and
/// float types, ⊗ either way round.
fn user_semiring_modules() -> Vec<ModuleSpec> {
    let cases = [
        (
            ScalarType::Bool,
            DeviceOps::new("x != y", "x && y", "false"),
        ),
        (ScalarType::I64, DeviceOps::new("x + y", "x - y", "0")),
        (
            ScalarType::F32,
            DeviceOps::new("fmaxf(x, y)", "x * y + 1.0f", "-__int_as_float(0x7f800000)"),
        ),
        (
            ScalarType::U64,
            DeviceOps::of_builtin(BuiltinOp::Min, BuiltinOp::Minus),
        ),
        (
            ScalarType::Bool,
            DeviceOps::of_builtin(BuiltinOp::Lxor, BuiltinOp::Land),
        ),
    ];
    cases
        .into_iter()
        .flat_map(|(t, ops)| [ops, ops.flipped()].map(|o| (t, SrKey::user(o))))
        .flat_map(|(t, key)| {
            [
                ModuleId::Sr(key, t).spec(),
                ModuleId::Push(key, t).spec(),
                ModuleId::DenseMxm(key, t).spec(),
            ]
        })
        .collect()
}

fn require() -> bool {
    std::env::var("BITGRAPHBLAS_REQUIRE_NVRTC").is_ok_and(|v| v == "1")
}

fn ptxas() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("BITGRAPHBLAS_PTXAS") {
        return Some(p.into());
    }
    let local =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".ci/cuda-tools/nvidia/cu13/bin/ptxas");
    if local.exists() {
        return Some(local);
    }
    let ok = Command::new("ptxas")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then(|| "ptxas".into())
}

/// What checking one module found, and how long NVRTC and ptxas took over it.
struct Checked {
    name: String,
    entries: usize,
    problems: Vec<String>,
    seconds: f64,
}

/// Compiles one module; returns its entry count and any problems found.
fn check(spec: &ModuleSpec, ptxas: Option<&PathBuf>, dir: &std::path::Path) -> Checked {
    let start = std::time::Instant::now();
    let (entries, problems) = check_module(spec, ptxas, dir);
    Checked {
        name: spec.name.clone(),
        entries,
        problems,
        seconds: start.elapsed().as_secs_f64(),
    }
}

fn check_module(
    spec: &ModuleSpec,
    ptxas: Option<&PathBuf>,
    dir: &std::path::Path,
) -> (usize, Vec<String>) {
    let mut problems = Vec::new();
    let ptx = match compile_ptx(spec, "sm_90a") {
        Ok(p) => p,
        Err(e) => return (0, vec![e.to_string()]),
    };
    let found: BTreeSet<String> = ptx_entries(&ptx).into_iter().collect();
    let table: BTreeSet<String> = spec.entries.iter().cloned().collect();
    for e in table.difference(&found) {
        problems.push(format!("{}: in the table, not in the PTX: {e}", spec.name));
    }
    for e in found.difference(&table) {
        problems.push(format!("{}: in the PTX, not in the table: {e}", spec.name));
    }
    if let Some(ptxas) = ptxas {
        let path = dir.join(format!("{}.ptx", spec.name));
        std::fs::write(&path, &ptx).expect("write PTX");
        match Command::new(ptxas)
            .args(["-arch=sm_90a", "-v", "-o", "/dev/null"])
            .arg(&path)
            .output()
        {
            Ok(out) => {
                let log = String::from_utf8_lossy(&out.stderr);
                if !out.status.success() {
                    problems.push(format!("{}: ptxas failed:\n{log}", spec.name));
                }
                let mut current = String::new();
                for line in log.lines() {
                    if let Some(rest) = line.split("Compiling entry function '").nth(1) {
                        current = rest.split('\'').next().unwrap_or("").to_string();
                    }
                    if line.contains("spill")
                        && !line.contains(" 0 bytes spill stores, 0 bytes spill loads")
                    {
                        problems.push(format!("{}: {current}: {}", spec.name, line.trim()));
                    }
                }
            }
            Err(e) => problems.push(format!("{}: cannot run ptxas: {e}", spec.name)),
        }
    }
    (found.len(), problems)
}

#[test]
fn every_kernel_compiles_for_sm_90a_without_spills() {
    // SAFETY: only probes for the shared library.
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        assert!(
            !require(),
            "BITGRAPHBLAS_REQUIRE_NVRTC=1 but libnvrtc is not on the library path"
        );
        eprintln!("SKIPPED every_kernel_compiles_for_sm_90a_without_spills: libnvrtc not found");
        return;
    }
    let ptxas = ptxas();
    match &ptxas {
        Some(p) => eprintln!("ptxas: {}", p.display()),
        None => {
            assert!(
                !require(),
                "BITGRAPHBLAS_REQUIRE_NVRTC=1 but ptxas was not found"
            );
            eprintln!("no ptxas: spill check SKIPPED");
        }
    }
    let dir = std::env::temp_dir().join(format!("bitgraphblas-ptx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut modules = all_modules();
    modules.extend(user_semiring_modules());
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(8);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(spec) = modules.get(i) else { break };
                let r = check(spec, ptxas.as_ref(), &dir);
                results.lock().expect("lock").push(r);
            });
        }
    });
    let _ = std::fs::remove_dir_all(&dir);
    let mut results: Vec<Checked> = results.into_inner().expect("lock");
    // The slowest modules, so that a kernel that makes CI slow is seen.
    results.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
    let all: f64 = results.iter().map(|r| r.seconds).sum();
    println!("compile time {all:.0} s in all; slowest modules:");
    for r in results.iter().take(12) {
        println!("  {:7.1} s  {} ({} kernels)", r.seconds, r.name, r.entries);
    }
    let total: usize = results.iter().map(|r| r.entries).sum();
    let problems: Vec<String> = results.into_iter().flat_map(|r| r.problems).collect();
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
    let expected: usize = modules.iter().map(|m| m.entries.len()).sum();
    assert_eq!(total, expected);
    println!(
        "compiled {total} kernels for sm_90a ({} modules)",
        modules.len()
    );
}
