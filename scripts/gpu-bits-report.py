#!/usr/bin/env python3
"""Joins bits_bench's timings (examples/bits_bench.rs) with the anchors'
(scripts/gpu-bits-anchors.py) into one table per family, and writes both,
with the tables' rows, as one JSON:

    python3 scripts/gpu-bits-report.py OURS.json ANCHORS.json --md OUT.md --json OUT.json

A ratio is the anchor's time over ours (above 1: ours is faster). A cell
whose timing is missing (not run, failed, or its check failed) shows what
happened instead of a number. Every number comes from the two files.
"""
import argparse
import json
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print(f"gpu-bits-report: {path}: {e}", file=sys.stderr)
        return None


def ms(x):
    if x is None:
        return "-"
    return f"{x:.4f}" if x < 10 else f"{x:.2f}"


def ratio(anchor_ms, ours_ms):
    if anchor_ms is None or ours_ms is None or ours_ms <= 0:
        return "-"
    return f"{anchor_ms / ours_ms:.2f}x"


def tops(ops, t):
    """T ops/s from ops and a time in ms."""
    return "-" if not t else f"{ops / (t * 1e-3) / 1e12:.3g}"


def pct(x):
    return "-" if x is None else f"{100 * x:.0f}%"


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out) + "\n"


class Anchors:
    """Lookups into the anchors' JSON (empty when it is missing)."""

    def __init__(self, a):
        self.a = a or {}
        self.gemm = {}
        for r in self.a.get("gemm", []):
            self.gemm[(r.get("m"), r.get("k"), r.get("n"))] = r
        self.spmm = {}
        for r in self.a.get("spmm", []):
            if "features" in r:
                self.spmm[(r["graph"], r["features"], r["dtype"])] = r
            else:
                self.spmm[(r.get("graph"), None, None)] = r

    def gemm_best(self, m, k, n, family):
        """(ms, path, text): the best checked variant of a family, or why none."""
        r = self.gemm.get((m, k, n))
        if r is None:
            return None, None, "not run"
        if "error" in r:
            return None, None, "error"
        if "skipped" in r:
            return None, None, "skipped"
        b = r.get("best", {}).get(family)
        if b is None:
            return None, None, "not run"
        if "ms" not in b:
            return None, None, "none passed"
        return b["ms"], b["name"], None

    def spmm_best(self, graph, f, dtype):
        r = self.spmm.get((graph, f, dtype))
        if r is None:
            g = self.spmm.get((graph, None, None))
            if g is None:
                return None, None, "not run"
            return None, None, "skipped" if "skipped" in g else "error"
        b = r.get("best", {}).get(dtype)
        if b is None or "ms" not in b:
            return None, None, "none passed"
        return b["ms"], b["name"], None


def cell(t):
    """An anchor (ms, path, why) as a table cell."""
    v, path, why = t
    return ms(v) if why is None else why


def ours_ms(r):
    """Our time, or None where the product failed its check or did not run."""
    if r is None or "ms" not in r:
        return None
    if str(r.get("check", "ok")).startswith("FAILED"):
        return None
    return r["ms"]


def ours_cell(r):
    if r is None:
        return "not run"
    if "skipped" in r:
        return "skipped"
    if "error" in r:
        return "error"
    if str(r.get("check", "ok")).startswith("FAILED"):
        return "CHECK FAILED"
    return ms(r.get("ms"))


def shape_text(m, k, n):
    return f"{m}x{k} by {k}x{n}"


def report(ours, anchors):
    A = Anchors(anchors)
    o = ours or {}
    md = []
    rows_json = {}
    bw = o.get("copy_bandwidth_bytes_per_s")
    abw = (anchors or {}).get("copy_bandwidth_bytes_per_s")
    peaks = o.get("peaks", {})
    pk_mma, pk_wg = peaks.get("mma_sync_ops_per_s"), peaks.get("wgmma_ops_per_s")
    md.append(f"Device: {o.get('device', '?')} ({o.get('arch', '?')}); commit {o.get('commit', '?')}; "
              f"anchors on {(anchors or {}).get('device', 'no anchor run')} with PyTorch "
              f"{(anchors or {}).get('torch', '-')} (CUDA {(anchors or {}).get('cuda', '-')}), "
              f"CuPy {(anchors or {}).get('cupy', '-')}.\n")
    md.append("Copy bandwidth (1 GiB device-to-device, read + write): "
              + (f"{bw / 1e12:.3f} TB/s (bits_bench)" if bw else "-")
              + (f", {abw / 1e12:.3f} TB/s (anchors)" if abw else "") + ".\n")
    md.append(f"Times (ms): per call, the median of {o.get('reps', '?')} CUDA-event-timed batches of "
              "back-to-back calls after warm-up, on both sides; an anchor is the fastest of its "
              "variants (screened, checked, then timed in full; gpu-bits-anchors.json lists them all). "
              "Ratios: anchor time / our time (above 1: ours faster). "
              + (f"Peaks (binary ops/s, measured on this H100 for issue 17, not in this run): mma.sync "
                 f"{pk_mma / 1e15:.1f}e15, wgmma {pk_wg / 1e15:.1f}e15; ops = 2 m n k."
                 if pk_mma and pk_wg else "") + "\n")
    if o.get("failed"):
        md.append("**Checks failed:** " + "; ".join(o["failed"]) + "\n")

    # 1. BMM square
    rows = []
    for r in [r for r in o.get("bmm", []) if r.get("family") == "square"]:
        m, k, n = r["m"], r["k"], r["n"]
        t = ours_ms(r)
        f16, i8, f8 = A.gemm_best(m, k, n, "f16"), A.gemm_best(m, k, n, "int8"), A.gemm_best(m, k, n, "fp8")
        rows.append([f"{m}", ours_cell(r), tops(r["ops"], t),
                     pct(r.get("frac_mma")) if t else "-", pct(r.get("frac_wgmma")) if t else "-",
                     cell(f16), ratio(f16[0], t), cell(i8), f"{i8[1]}" if i8[1] else "-", ratio(i8[0], t),
                     cell(f8), ratio(f8[0], t)])
    rows_json["bmm_square"] = rows
    md.append("\n### BMM, bits x bits -> i32 (" + (o.get("bmm_semiring") or "?") + "), square\n\n")
    md.append(table(["m = k = n", "ours ms", "binary TOPS", "% mma.sync", "% wgmma", "cuBLAS f16 ms",
                     "f16 / ours", "best int8 ms", "int8 path", "int8 / ours", "fp8 ms", "fp8 / ours"], rows))

    # 2. BMM GNN shapes, every output kind
    rows = []
    for r in [r for r in o.get("bmm", []) if r.get("family") == "gnn"]:
        m, k, n = r["m"], r["k"], r["n"]
        t = ours_ms(r)
        f16, i8 = A.gemm_best(m, k, n, "f16"), A.gemm_best(m, k, n, "int8")
        floor = r.get("floor_ms")
        rows.append([shape_text(m, k, n), r["kind"], ours_cell(r), tops(r["ops"], t),
                     pct(r.get("frac_mma")) if t else "-",
                     f"{r['bytes'] / 1e6:.1f}" if "bytes" in r else "-", ms(floor),
                     pct(floor / t) if (t and floor) else "-",
                     cell(f16), ratio(f16[0], t), cell(i8), ratio(i8[0], t)])
    rows_json["bmm_gnn"] = rows
    md.append("\n### BMM at the GNN shapes, every output kind\n\n"
              "T ops/s counts 2 m n k (binary ops for the bit inputs). Kinds: BB->i32 (counts), BBF (bits x bits -> f32 with row and column scales), BBB (bits "
              "out, re-binarised in the kernel), FBF (f32 activations x bits -> f32), FBB (f32 x bits "
              "-> bits). Byte floor: the operands read once and the output written once, at the copy "
              "bandwidth above; % floor = floor / ours.\n\n")
    md.append(table(["shape", "kind", "ours ms", "T ops/s (2mnk)", "% mma.sync", "MB moved", "floor ms",
                     "% floor", "cuBLAS f16 ms", "f16 / ours", "best int8 ms", "int8 / ours"], rows))

    # 3. BSpMM
    rows = []
    for r in o.get("bspmm", []):
        g, f = r["graph"], r["features"]
        outs = r.get("outputs", {})
        ti, tf, tb = ours_ms(outs.get("i32")), ours_ms(outs.get("f32")), ours_ms(outs.get("bits"))
        s32, s16 = A.spmm_best(g, f, "f32"), A.spmm_best(g, f, "f16")
        rows.append([g, r.get("n", "-"), r.get("nnz", "-"), r["format"], f,
                     ours_cell(outs.get("i32")), ours_cell(outs.get("f32")), ours_cell(outs.get("bits")),
                     cell(s32), cell(s16), ratio(s32[0], tb), ratio(s16[0], tb), ratio(s32[0], ti),
                     ratio(s32[0], tf)])
    rows_json["bspmm"] = rows
    md.append("\n### BSpMM, pattern x bits (" + (o.get("bspmm_semiring") or "?") + ")\n\n"
              "Formats: B2SR at the profile's tile size (the CPU's `Format::Auto` choice of size), at "
              "32x32, and CSR (what the CUDA backend's `Format::Auto` keeps for products by dense "
              "operands); the graphs' list below says what the CPU's `Format::Auto` picks. cuSPARSE: the fastest "
              "checked SpMM variant on the same CSR pattern (values 1), dense operand of the same "
              "width.\n\n")
    md.append(table(["graph", "n", "nnz", "format", "F", "ours i32 ms", "ours f32 ms", "ours bits ms",
                     "cuSPARSE f32 ms", "cuSPARSE f16 ms", "cuSP f32 / ours bits", "cuSP f16 / ours bits",
                     "cuSP f32 / ours i32", "cuSP f32 / ours f32"], rows))
    gl = []
    for g in o.get("graphs", []):
        note = g.get("skipped") or g.get("error") or ""
        gen = g.get("generation") or {}
        if gen.get("tries"):
            note = "; ".join(f"{k} {v}" for t in gen["tries"] for k, v in t.items() if k != "entries") \
                + f" -> {g.get('nnz')} entries (target {gen.get('target_entries')})"
        gl.append([g.get("name"), g.get("n", "-"), g.get("nnz", "-"), g.get("source", "-"),
                   g.get("profile_tile", "-"), g.get("auto_format", "-"), note])
    if gl:
        md.append("\n" + table(["graph", "n", "nnz", "source", "profile tile", "CPU Format::Auto", "note"], gl))

    # 4. Bit-plane BMM
    rows = []
    crossover = []
    by_shape = {}
    for r in o.get("bmm_planes", []):
        by_shape.setdefault((r["m"], r["k"], r["n"]), []).append(r)
    for (m, k, n), rs in by_shape.items():
        f16, i8 = A.gemm_best(m, k, n, "f16"), A.gemm_best(m, k, n, "int8")
        best = min([x for x in (f16[0], i8[0]) if x is not None], default=None)
        wins = []
        for r in sorted(rs, key=lambda r: r["bits"]):
            outs = r.get("outputs", {})
            ti, tf = ours_ms(outs.get("i32")), ours_ms(outs.get("f32"))
            t1 = ti if ti is not None else tf
            rows.append([shape_text(m, k, n), r["bits"], ours_cell(outs.get("i32")), ours_cell(outs.get("f32")),
                         tops(r["binary_ops"], t1),
                         cell(f16), cell(i8), ratio(best, ti), ratio(best, tf)])
            if best is not None and ti is not None:
                wins.append((r["bits"], ti < best))
        if wins:
            faster = [b for b, w in wins if w]
            slower = [b for b, w in wins if not w]
            if not slower:
                crossover.append(f"{shape_text(m, k, n)}: ours (i32) faster than the best of f16 and int8 "
                                 f"at every b timed ({', '.join(str(b) for b, _ in wins)})")
            elif not faster:
                crossover.append(f"{shape_text(m, k, n)}: the best of f16 and int8 is faster at every b timed")
            else:
                crossover.append(f"{shape_text(m, k, n)}: ours (i32) faster at b = "
                                 f"{', '.join(map(str, faster))}; the tensor cores' f16/int8 faster at b = "
                                 f"{', '.join(map(str, slower))}")
    rows_json["bmm_planes"] = rows
    rows_json["bmm_planes_crossover"] = crossover
    md.append("\n### Bit-plane BMM (both operands b-bit codes; b * b one-bit products)\n\n"
              "binary TOPS counts the one-bit products done (2 m n k b^2 / time). Best anchor: the faster "
              "of cuBLAS f16 and the best int8 path at the same shape.\n\n")
    md.append(table(["shape", "b", "ours i32 ms", "ours f32 ms", "binary TOPS", "cuBLAS f16 ms",
                     "best int8 ms", "best / ours i32", "best / ours f32"], rows))
    if crossover:
        md.append("\nCrossover: " + "; ".join(crossover) + ".\n")

    # 5. Bit-plane BSpMM
    rows = []
    for r in o.get("bspmm_planes", []):
        g, f = r["graph"], r["features"]
        outs = r.get("outputs", {})
        ti, tf = ours_ms(outs.get("i32")), ours_ms(outs.get("f32"))
        s32, s16 = A.spmm_best(g, f, "f32"), A.spmm_best(g, f, "f16")
        rows.append([g, r["format"], f, r["bits"], ours_cell(outs.get("i32")), ours_cell(outs.get("f32")),
                     cell(s32), cell(s16), ratio(s32[0], ti), ratio(s16[0], ti)])
    rows_json["bspmm_planes"] = rows
    md.append("\n### Bit-plane BSpMM (pattern x b-bit codes)\n\n")
    md.append(table(["graph", "format", "F", "b", "ours i32 ms", "ours f32 ms", "cuSPARSE f32 ms",
                     "cuSPARSE f16 ms", "cuSP f32 / ours i32", "cuSP f16 / ours i32"], rows))

    # 6. the anchors' variants (which int8 path is fastest), and int8 against f16
    lines = []
    for r in (anchors or {}).get("gemm", []):
        m, k, n = r["m"], r["k"], r["n"]
        f16, i8 = A.gemm_best(m, k, n, "f16"), A.gemm_best(m, k, n, "int8")
        if f16[0] is not None and i8[0] is not None:
            faster = "int8" if i8[0] < f16[0] else "f16"
            lines.append(f"{shape_text(m, k, n)}: int8 ({i8[1]}) {ms(i8[0])} ms, f16 ({f16[1]}) "
                         f"{ms(f16[0])} ms: {faster} faster")
    rows_json["int8_vs_f16"] = lines
    if lines:
        md.append("\n### The stronger GEMM anchor: int8 or f16\n\n" + "".join(f"- {x}\n" for x in lines))
    rows = []
    for r in (anchors or {}).get("gemm", []):
        for v in r.get("variants", []):
            rows.append([shape_text(r["m"], r["k"], r["n"]), v.get("family"), v.get("name"),
                         ms(v.get("screen_ms")) if "screen_ms" in v else "error",
                         v.get("check", v.get("error", "-"))[:80], v.get("note", "")])
    rows_json["gemm_variants"] = rows
    if rows:
        md.append("\n### GEMM anchor variants (screen: median of 3 single calls)\n\n")
        md.append(table(["shape", "type", "path", "screen ms", "check", "note"], rows))
    return "".join(md), rows_json


def main(argv):
    p = argparse.ArgumentParser(description="bits_bench + anchors -> tables and one JSON")
    p.add_argument("ours")
    p.add_argument("anchors")
    p.add_argument("--md", default=None)
    p.add_argument("--json", default=None)
    a = p.parse_args(argv)
    ours, anchors = load(a.ours), load(a.anchors)
    if ours is None:
        print("gpu-bits-report: no bits_bench results: nothing to report", file=sys.stderr)
        return 1
    md, rows = report(ours, anchors)
    print(md)
    if a.md:
        with open(a.md, "w") as f:
            f.write(md)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"ours": ours, "anchors": anchors, "tables": rows}, f, indent=1)
    return 0 if anchors is not None else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
