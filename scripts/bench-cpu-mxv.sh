#!/usr/bin/env bash
# The boolean mxv targets of issue 2, measured back to back on one machine:
# SuiteSparse:GraphBLAS LOR.LAND mxv on 1 and 2 threads (per graph the faster),
# then our `cargo bench --bench mxv` (every format, Auto last), then a verdict
# table for what a user gets by default (Format::Auto / TileSize::Auto).
#
#   scripts/bench-cpu-mxv.sh                 # every graph, minimum of 21
#   REPS=41 ONLY=road scripts/bench-cpu-mxv.sh
#
# The printed tables are the current figures of benches/results/cpu-mxv.md
# (replace its tables and its commit/machine lines with them).
#
# Targets: mesh, road, grid (delaunay_n14, USA-road-d.NY, grid_1024): Auto at
# least 4x sprs's f32 SpMV and 2x SuiteSparse; power-law (ego-Twitter,
# cnr-2000, rmat_18): Auto no slower than either (ratio >= 1).
# Needs python-graphblas (PY, default /work/venv-gb/bin/python).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-/work/venv-gb/bin/python}
REPS=${REPS:-21}
ONLY=${ONLY:-}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
only_arg=()
[ -n "$ONLY" ] && only_arg=(--only "$ONLY")

echo "# $(date -u '+%F %T UTC'), commit $(git rev-parse --short HEAD), $(nproc) cpus, $(uptime | sed 's/.*load/load/')"
cargo bench -q --bench mxv -- --write-mtx "$OUT" --only _ >/dev/null
for t in 1 2; do
    "$PY" scripts/suitesparse_mxv.py --threads $t --min --reps "$REPS" --gen-dir "$OUT" \
        "${only_arg[@]}" >"$OUT/ss$t.csv" 2>/dev/null
done
# Per (graph, op): the faster of the two thread counts.
awk -F, 'NF == 3 { k = $1 "," $2; if (!(k in b) || $3 < b[k]) b[k] = $3 }
         END { for (k in b) print k "," b[k] }' "$OUT/ss1.csv" "$OUT/ss2.csv" >"$OUT/ssbest.csv"
cargo bench -q --bench mxv -- --min --lor-only --no-mxm --suitesparse "$OUT/ssbest.csv" \
    "${only_arg[@]}" 2>"$OUT/profile.txt" | tee "$OUT/ours.md"
echo "# $(uptime | sed 's/.*load/load/')"

echo
echo "| graph | Auto | lor_land ms | sprs f32 ms | SuiteSparse ms | vs sprs | vs SuiteSparse | target | met |"
echo "|---|---|---|---|---|---|---|---|---|"
awk -F'|' -v ss="$OUT/ssbest.csv" '
    BEGIN { while ((getline l < ss) > 0) { split(l, p, ","); if (p[2] == "lor_land") t[p[1]] = p[3] } }
    function trim(s) { gsub(/^ +| +$/, "", s); return s }
    trim($5) ~ /^auto/ {
        g = trim($2); ours = trim($8); sp = trim($11)
        s = (g in t) ? t[g] : ""
        mesh = (g ~ /delaunay|road|grid/)
        vs_sprs = sp / ours; vs_ss = (s == "") ? 0 : s / ours
        need_sprs = mesh ? 4 : 1; need_ss = mesh ? 2 : 1
        ok = (vs_sprs >= need_sprs) && (s != "" && vs_ss >= need_ss)
        printf "| %s | %s | %s | %s | %s | %.2f | %s | >= %dx / >= %dx | %s |\n", g, trim($5), ours, sp,
            (s == "" ? "-" : s), vs_sprs, (s == "" ? "-" : sprintf("%.2f", vs_ss)), need_sprs, need_ss,
            (s == "" ? "?" : (ok ? "yes" : "no"))
    }' "$OUT/ours.md"
echo
echo "(files in $OUT)"
