#!/usr/bin/env python3
"""Compares the times of two runs of one benchmark, side by side.

    compare-bench-json.py BASE.json NEW.json [BASE2.json NEW2.json ...]

Reads the JSON that `gpu_bench --out` (gpu-bench.json), `bench_gpu --json` and
`bench_cpu --json` write, pairs every time field (`*_ms`; `median_ms` where a
row has one) by graph, tile size or algorithm, and prints base, new and
new/base per row. With several pairs (alternating runs of the two builds in one
session) it prints each pair's ratio and the spread of the base-against-base
ratio, which is the run-to-run noise to read the ratios against.
"""
import json
import statistics
import sys


def times(path):
    """{(graph, part, field): ms} for one JSON file."""
    d = json.load(open(path))
    out = {}
    if "graphs" in d:  # gpu_bench
        for g in d["graphs"]:
            for k, v in g.items():
                if k.endswith("_ms") and isinstance(v, (int, float)):
                    out[(g["graph"], "-", k)] = v
            for t in g.get("tiles", []):
                for k, v in t.items():
                    if k.endswith("_ms") and isinstance(v, (int, float)):
                        out[(g["graph"], "k=%d" % t["k"], k)] = v
            for t in g.get("triangle_counting") or []:
                out[(g["graph"], "k=%d" % t["k"], "tc_ms")] = t["ms"]
    for r in d.get("rows", []):  # bench_gpu, bench_cpu, the anchors
        field = "median_ms" if "median_ms" in r else "best_ms"
        if isinstance(r.get(field), (int, float)):
            out[(r["graph"], r["algorithm"], field)] = r[field]
    return out


def main(paths):
    if len(paths) < 2 or len(paths) % 2:
        sys.exit(__doc__)
    pairs = [(times(paths[i]), times(paths[i + 1])) for i in range(0, len(paths), 2)]
    keys = sorted(set.intersection(*[set(b) & set(n) for b, n in pairs]))
    head = "| graph | part | time | " + " | ".join(
        "base ms | new ms | new/base" for _ in pairs) + " |"
    if len(pairs) > 1:
        head += " base/base |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    worst = []
    for key in keys:
        cells, ratios = [], []
        for b, n in pairs:
            r = n[key] / b[key] if b[key] > 0 else float("nan")
            ratios.append(r)
            cells.append("%.4g | %.4g | %.3f" % (b[key], n[key], r))
        line = "| %s | %s | %s | %s |" % (key[0], key[1], key[2], " | ".join(cells))
        if len(pairs) > 1:
            noise = [pairs[i][0][key] / pairs[0][0][key] for i in range(1, len(pairs))]
            line += " %s |" % ", ".join("%.3f" % x for x in noise)
        print(line)
        worst.append((min(ratios), key))
    all_r = [r for r, _ in worst]
    if all_r:
        print()
        print("rows: %d; best-of-pairs new/base: median %.3f, max %.3f (%s)" % (
            len(all_r), statistics.median(all_r), max(all_r), " ".join(max(worst)[1])))


if __name__ == "__main__":
    main(sys.argv[1:])
