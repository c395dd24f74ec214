//! bitgraphblas on the CUDA backend against SuiteSparse:GraphBLAS (issue 21): the
//! cases of `tests/suitesparse_diff.rs` (operands uploaded, results downloaded),
//! in every matrix format. A result that differs fails. An operation the device
//! has no kernel for ([`Error::NoKernel`]) is counted per (operation, reason) and
//! printed as a table; it fails unless that pair is in [`KNOWN_GAPS`], so the
//! list says what the device has left to do.
//!
//! Without a GPU the test prints SKIPPED; with `BITGRAPHBLAS_REQUIRE_GPU=1` a
//! missing GPU fails instead.
#![cfg(feature = "cuda")]

mod suitesparse;

use std::collections::BTreeMap;

use bitgraphblas::backend::cuda::cuda_or_skip;
use bitgraphblas::{Error, Format};
use suitesparse::{
    describe, known_difference, load_cases, operands, run, run_name, variants, Ctx, Tally, FORMATS,
};

/// The (operation, reason) pairs of `Error::NoKernel` that the device may
/// answer with: the error's `op` and a piece of its `what`.
const KNOWN_GAPS: &[(&str, &str)] = &[
    // Device B2SR kernels take tiles of 4 to 32; a 64x64-tile operand does not upload.
    ("upload", "64x64 tiles"),
];

#[test]
fn cuda_agrees_with_suitesparse() {
    let Some(gpu) = cuda_or_skip("cuda_agrees_with_suitesparse") else {
        return;
    };
    let (_, cases) = load_cases();
    assert!(!cases.is_empty(), "no cases");
    let mut tally = Tally::default();
    let mut failures = Vec::new();
    // (operation, reason) -> (runs, whether a known gap, one case)
    let mut gaps: BTreeMap<(String, String), (usize, bool, String)> = BTreeMap::new();
    for c in &cases {
        let class = c.str("op");
        for variant in variants(c) {
            for format in FORMATS {
                let name = run_name(format, variant);
                let x = Ctx::new(c, format, variant);
                let outcome = run(gpu, &x);
                if format != Format::Csr && !x.used_format() {
                    tally.add(class, &name, 3);
                    continue;
                }
                let diff = match outcome {
                    Ok(None) => {
                        tally.add(class, &name, 0);
                        continue;
                    }
                    Ok(Some(d)) => d,
                    Err(Error::NoKernel { op, what, .. }) => {
                        let known = KNOWN_GAPS.iter().any(|(o, w)| *o == op && what.contains(w));
                        let e = gaps.entry((op.to_string(), what.clone())).or_insert((
                            0,
                            known,
                            format!("{} [{name}]", describe(c)),
                        ));
                        e.0 += 1;
                        tally.add(class, &name, 3);
                        continue;
                    }
                    Err(e) => format!("error: {e}"),
                };
                if let Some(k) = known_difference(c) {
                    tally.add(class, &name, 2);
                    *tally.known.entry(k).or_default() += 1;
                    continue;
                }
                tally.add(class, &name, 1);
                failures.push((describe(c), name, diff, operands(c)));
            }
        }
    }
    eprintln!(
        "{}\n(runs without a kernel are counted as not run)",
        tally.table()
    );
    for (k, n) in &tally.known {
        eprintln!("known difference, {n} runs: {k}");
    }
    eprintln!("NoKernel by (operation, reason):");
    for ((op, what), (n, known, example)) in &gaps {
        let tag = if *known { "known gap" } else { "NEW GAP" };
        eprintln!("  {n:>6}  {tag:<9}  {op}: {what}\n          e.g. {example}");
    }
    for (i, (what, run, diff, ops)) in failures.iter().enumerate() {
        if i < 40 {
            eprintln!("MISMATCH {what} [{run}]\n    {diff}");
            if i < 10 {
                if let Some(o) = ops {
                    eprintln!("  operands:{o}");
                }
            }
        }
    }
    let new_gaps = gaps.values().filter(|g| !g.1).count();
    assert!(
        failures.is_empty() && new_gaps == 0,
        "{} runs disagree with SuiteSparse, {new_gaps} (operation, reason) pairs without a \
         kernel are not in KNOWN_GAPS",
        failures.len()
    );
}
