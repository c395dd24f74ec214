//! bitgraphblas against SuiteSparse:GraphBLAS on the CPU backend (issue 21): every
//! case of `tests/data/suitesparse-cases.jsonl.gz` (or of the file named by
//! `BITGRAPHBLAS_SUITESPARSE_CASES`), in every matrix format, must give
//! SuiteSparse's pattern and values; the known differences (`suitesparse::KNOWN`)
//! are counted, not failed. See `tests/suitesparse/mod.rs` and
//! `scripts/suitesparse-cases.py`.

mod suitesparse;

use bitgraphblas::{Cpu, Format};
use suitesparse::{
    describe, known_difference, load_cases, operands, run, run_name, variants, Ctx, Tally, FORMATS,
};

#[test]
fn cpu_agrees_with_suitesparse() {
    let (_, cases) = load_cases();
    assert!(!cases.is_empty(), "no cases");
    let cpu = Cpu::new();
    let mut tally = Tally::default();
    let mut failures = Vec::new();
    for c in &cases {
        let class = c.str("op");
        for variant in variants(c) {
            for format in FORMATS {
                let name = run_name(format, variant);
                let x = Ctx::new(c, format, variant);
                let outcome = run(&cpu, &x);
                if format != Format::Csr && !x.used_format() {
                    // No operand has one value for all entries: the CSR run
                    // covered this case.
                    tally.add(class, &name, 3);
                    continue;
                }
                let diff = match outcome {
                    Ok(None) => {
                        tally.add(class, &name, 0);
                        continue;
                    }
                    Ok(Some(d)) => d,
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
    eprintln!("{}", tally.table());
    for (k, n) in &tally.known {
        eprintln!("known difference, {n} runs: {k}");
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
    assert!(
        failures.is_empty(),
        "{} runs disagree with SuiteSparse (replay one: BITGRAPHBLAS_SUITESPARSE_CASE=ID)",
        failures.len()
    );
}
