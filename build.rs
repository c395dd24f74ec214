//! Embeds the CUDA kernel sources for run-time compilation (NVRTC).
//!
//! Each `cuda/*.cu` file is written to `$OUT_DIR` with its local
//! `#include "x.cuh"` lines replaced by the header's text (once per header),
//! so NVRTC gets one self-contained string and needs no include paths. The
//! `.cu` files stay valid input for `nvcc`/`ptxas` on a machine with a toolkit.
//! No CUDA toolkit is needed to build.

use std::collections::HashSet;
use std::fs;
use std::path::Path;

fn inline(path: &Path, dir: &Path, seen: &mut HashSet<String>, out: &mut String) {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    for line in text.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("#include \"") {
            let name = rest.trim_end_matches('"').to_string();
            if seen.insert(name.clone()) {
                out.push_str(&format!("// ---- begin {name}\n"));
                inline(&dir.join(&name), dir, seen, out);
                out.push_str(&format!("// ---- end {name}\n"));
            }
        } else if t == "#pragma once" {
            continue;
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
}

fn main() {
    let dir = Path::new("cuda");
    let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    println!("cargo:rerun-if-changed=cuda");
    println!("cargo:rerun-if-changed=build.rs");
    let mut names: Vec<_> = fs::read_dir(dir)
        .expect("cuda/ exists")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "cu"))
        .collect();
    names.sort();
    for p in names {
        println!("cargo:rerun-if-changed={}", p.display());
        let mut out = String::new();
        inline(&p, dir, &mut HashSet::new(), &mut out);
        let name = p.file_name().expect("a file name");
        fs::write(Path::new(&out_dir).join(name), out).expect("write to OUT_DIR");
    }
    for e in fs::read_dir(dir).expect("cuda/ exists").flatten() {
        println!("cargo:rerun-if-changed={}", e.path().display());
    }
}
