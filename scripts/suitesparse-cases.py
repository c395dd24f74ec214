#!/usr/bin/env python3
"""Random GraphBLAS cases with SuiteSparse:GraphBLAS's answers, for tests/suitesparse_diff.rs.

    python3 scripts/suitesparse-cases.py --seed 1 --count 3000 --out cases.jsonl.gz
    python3 scripts/suitesparse-cases.py --seed 1 --only 1234 --out -     (one case, replayed)

Needs python-graphblas and suitesparse-graphblas (pip install python-graphblas
suitesparse-graphblas). Writes JSON Lines (gzipped when the name ends in .gz): a
header line {"header": {...versions, seed, count...}}, then one case a line:

    {"id": 17, "op": "mxv", "kind": "v", "type": "fp64", "semiring": "min_first",
     "accum": "plus" | null, "mask": "none" | "s" | "v" | "sc" | "vc",
     "replace": false, "ta": false, "tb": false,
     "m": OPERAND (the mask, absent when "none"), "mtype": "bool" | the case's type,
     "w": OPERAND (the output before the call), "a": ..., "b": ..., "u": ..., "v": ...,
     ...class parameters..., "result": OPERAND | {"scalar": VALUE}}

An OPERAND is a vector {"n": len, "i": [...], "x": [...]} or a matrix
{"r": nrows, "c": ncols, "i": [...], "j": [...], "x": [...]}. Values are exact:
integers as JSON integers, bool as 0/1, floats as shortest round-trip decimals, or
the strings "nan", "inf", "-inf" ("-0.0" stays -0.0). fp32 values are fp32 numbers
printed through fp64, so they parse back exactly.

Each case draws from its own generator seeded by (seed, id), so --only ID reproduces
case ID of a file. A class is one function below (CLASSES): it draws the inputs,
computes SuiteSparse's answer and returns the case; the Rust test has one function
per class too.
"""

import argparse
import gzip
import json
import math
import multiprocessing
import random
import sys

import numpy as np

import graphblas as gb
from graphblas import Matrix, Scalar, Vector, binary, monoid, semiring, unary

# One signed and one unsigned integer type, of 32 and 64 bits: each type is one
# more instantiation of everything on the Rust side (the test's build time).
TYPES = ["bool", "int32", "uint64", "fp32", "fp64"]
INTS = ["int32", "uint64"]
FLOATS = ["fp32", "fp64"]
NUMERIC = INTS + FLOATS
GB = {"bool": "BOOL", "int32": "INT32", "uint32": "UINT32", "int64": "INT64",
      "uint64": "UINT64", "fp32": "FP32", "fp64": "FP64"}
NP = {"bool": np.bool_, "int32": np.int32, "uint32": np.uint32, "int64": np.int64,
      "uint64": np.uint64, "fp32": np.float32, "fp64": np.float64}
LIMITS = {t: (int(np.iinfo(NP[t]).min), int(np.iinfo(NP[t]).max)) for t in INTS}
ALL_INTS = ["int32", "uint32", "int64", "uint64"]

# The semirings, with the element types they are drawn at (bitgraphblas has
# them built in, and the non-commutative MIN.FIRST, MIN.SECOND and PLUS.MINUS
# also as user semirings). Products at fp32 are left out: every (semiring,
# type) is one more instantiation of the products on the Rust side.
PRODUCT_TYPES = ["int32", "uint64", "fp64"]
SEMIRINGS = {
    "plus_times": PRODUCT_TYPES,
    "plus_pair": PRODUCT_TYPES,
    "min_plus": PRODUCT_TYPES,
    "max_times": ["uint64", "fp64"],
    "min_second": PRODUCT_TYPES,
    "min_first": PRODUCT_TYPES,
    "max_min": PRODUCT_TYPES,
    "any_pair": ["bool"] + PRODUCT_TYPES,
    "lor_land": ["bool"],
    "plus_minus": PRODUCT_TYPES,
}

# Binary operators (element-wise, bound in apply, accumulators). "div" is C
# division (python-graphblas's cdiv).
BINOPS = ["plus", "minus", "times", "div", "min", "max", "first", "second", "pair",
          "lor", "land", "lxor"]
# Accumulators of the product classes: fewer, so the Rust side instantiates fewer
# products (each accumulator is one more instantiation of every product at every
# semiring); MINUS catches operand-order bugs in the write-back. The classes
# without an operator of their own (select, extract, assign, transpose) take
# every accumulator.
PRODUCT_ACCUMS = ["min", "minus"]
# Accumulators of the classes that also choose an operator (element-wise, apply,
# reduce_rows): fewer again, for the same reason.
OP_ACCUMS = ["minus"]
ACCUMS = ["plus", "minus", "div", "min", "first", "second"]
UNARY = ["identity", "ainv", "abs", "lnot", "one"]
# Binary operators bound to a scalar in apply: the order-sensitive ones.
BIND_OPS = ["minus", "div", "min", "first", "second"]
SELECT_INDEX = ["tril", "triu", "diag", "offdiag", "rowle", "rowgt"]
SELECT_VALUE = ["valueeq", "valuene", "valuegt", "valuege", "valuelt", "valuele"]


def binop(name, ty=None):
    """The operator, typed where the case's type is known: python-graphblas's
    untyped `pair` resolves to an int64 operator, through which a lone entry of
    a float ewise_add is cast (-2.5 becomes -2)."""
    op = binary.cdiv if name == "div" else getattr(binary, name)
    return op[GB[ty]] if ty else op


# ---------------------------------------------------------------- values


class Draw:
    """The value distribution of one case: small integers and quarter-integers
    (exact under any summation order), zeros and -0.0, and in some cases the
    type's extremes, NaN and infinities, or inexact reals."""

    def __init__(self, rng, ty):
        self.rng, self.ty = rng, ty
        self.special = rng.random() < 0.3
        self.inexact = ty in FLOATS and rng.random() < 0.15

    def __call__(self):
        rng, ty = self.rng, self.ty
        r = rng.random()
        if ty == "bool":
            return r < 0.65
        if ty in INTS:
            lo, hi = LIMITS[ty]
            if self.special and r < 0.05:
                return hi
            if self.special and r < 0.10:
                return lo
            if r < 0.2:
                return 0
            return rng.randint(-8, 8) if lo < 0 else rng.randint(0, 16)
        if r < 0.12:
            return 0.0
        if r < 0.15:
            return -0.0
        if self.special and r < 0.19:
            return math.nan
        if self.special and r < 0.23:
            return math.inf
        if self.special and r < 0.26:
            return -math.inf
        if self.inexact and r < 0.45:
            return float(NP[ty](rng.uniform(-10, 10)))
        return rng.randint(-32, 32) / 4.0

    def iso(self):
        """An iso value: often not 1 (B2SR keeps one value for every entry)."""
        r = self.rng.random()
        if r < 0.25:
            return True if self.ty == "bool" else (1 if self.ty in INTS else 1.0)
        return self()


def scalar(ty, x):
    return Scalar.from_value(NP[ty](x), dtype=GB[ty])


def enc(ty, x):
    if ty == "bool":
        return 1 if x else 0
    if ty in INTS:
        return int(x)
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def dim(rng):
    r = rng.random()
    if r < 0.12:
        return rng.randint(0, 4)
    if r < 0.22:
        return rng.choice([4, 8, 16, 32, 64]) + rng.randint(-1, 1)
    if r < 0.75:
        return rng.randint(5, 70)
    if r < 0.97:
        return rng.randint(71, 300)
    return rng.randint(301, 3000)


# ---------------------------------------------------------------- operands


def pattern(rng, nr, nc, cap=600):
    """Distinct (i, j) cells: empty, full, a single entry, a band, or density
    u*u; plus at times a dense block and cleared rows. At most about `cap`."""
    cells = nr * nc
    if cells == 0:
        return []
    style = rng.random()
    if style < 0.07:
        out = set()
    elif style < 0.14 and cells <= cap:
        out = {(i, j) for i in range(nr) for j in range(nc)}
    elif style < 0.20:
        out = {(rng.randrange(nr), rng.randrange(nc))}
    elif style < 0.27:
        w = rng.randint(0, 3)
        out = {(i, j) for i in range(nr) for j in range(max(0, i - w), min(nc, i + w + 1))}
    else:
        p = rng.random() * rng.random()
        k = min(int(p * cells), cap)
        if k * 3 > cells:
            out = {(c // nc, c % nc) for c in range(cells) if rng.random() < k / cells}
        else:
            out = {(rng.randrange(nr), rng.randrange(nc)) for _ in range(k)}
    if rng.random() < 0.25:
        r0, c0 = rng.randrange(nr), rng.randrange(nc)
        h, w = rng.randint(1, min(12, nr - r0)), rng.randint(1, min(12, nc - c0))
        out |= {(i, j) for i in range(r0, r0 + h) for j in range(c0, c0 + w)}
    if rng.random() < 0.3:
        drop = {i for i in range(nr) if rng.random() < 0.3}
        out = {(i, j) for (i, j) in out if i not in drop}
    return sorted(out)


class Op:
    """An operand: its JSON form and the python-graphblas object."""

    def __init__(self, js, obj):
        self.js, self.obj = js, obj


def values(draw, n, iso):
    if iso:
        v = draw.iso()
        return [v] * n
    return [draw() for _ in range(n)]


def matrix(rng, draw, ty, nr, nc, iso=None):
    cells = pattern(rng, nr, nc)
    iso = rng.random() < 0.4 if iso is None else iso
    xs = values(draw, len(cells), iso)
    rows = [i for i, _ in cells]
    cols = [j for _, j in cells]
    obj = Matrix.from_coo(rows, cols, np.array(xs, dtype=NP[ty]), nrows=nr, ncols=nc,
                          dtype=GB[ty]) if cells else Matrix(GB[ty], nr, nc)
    js = {"r": nr, "c": nc, "i": rows, "j": cols, "x": [enc(ty, x) for x in xs]}
    return Op(js, obj)


def vector(rng, draw, ty, n):
    cells = [i for i, _ in pattern(rng, n, 1)]
    if n and rng.random() < 0.1:
        cells = list(range(n))
    xs = values(draw, len(cells), rng.random() < 0.2)
    obj = Vector.from_coo(cells, np.array(xs, dtype=NP[ty]), size=n, dtype=GB[ty]) \
        if cells else Vector(GB[ty], n)
    return Op({"n": n, "i": cells, "x": [enc(ty, x) for x in xs]}, obj)


def result_js(ty, obj):
    if isinstance(obj, Vector):
        i, x = obj.to_coo()
        return {"n": obj.size, "i": [int(k) for k in i], "x": [enc(ty, v) for v in x]}
    i, j, x = obj.to_coo()
    return {"r": obj.nrows, "c": obj.ncols, "i": [int(k) for k in i],
            "j": [int(k) for k in j], "x": [enc(ty, v) for v in x]}


# ---------------------------------------------------------------- the common frame


class Frame:
    """The output, mask, accumulator and flags of one call: w<mask> = accum(w, t)."""

    def __init__(self, rng, case, ty, accums=ACCUMS):
        self.rng, self.case, self.ty = rng, case, ty
        self.draw = Draw(rng, ty)
        case["type"] = ty
        case["accum"] = rng.choice(accums) if rng.random() < 0.4 else None
        case["mask"] = rng.choice(["none", "none", "s", "v", "sc", "vc"])
        case["replace"] = case["mask"] != "none" and rng.random() < 0.4
        case["ta"] = case["tb"] = False

    def output(self, shape):
        """The old output and the mask over `shape` (n,) or (nr, nc)."""
        rng, case, ty = self.rng, self.case, self.ty
        make = (lambda d, t: vector(rng, d, t, shape[0])) if len(shape) == 1 else \
            (lambda d, t: matrix(rng, d, t, *shape))
        if rng.random() < 0.4:
            w = make(self.draw, ty)
            w.js["i"], w.js["x"] = [], []
            if "j" in w.js:
                w.js["j"] = []
            w.obj.clear()
        else:
            w = make(self.draw, ty)
        case["w"] = w.js
        self.w = w.obj
        self.mask = None
        if case["mask"] != "none":
            mt = ty if rng.random() < 0.5 else "bool"
            m = make(Draw(rng, mt), mt)
            case["mtype"], case["m"] = mt, m.js
            mo = m.obj.S if case["mask"] in ("s", "sc") else m.obj.V
            self.mask = ~mo if case["mask"] in ("sc", "vc") else mo

    def store(self, expr):
        """w<mask> = accum(w, expr), SuiteSparse's answer into the case."""
        accum = binop(self.case["accum"], self.ty) if self.case["accum"] else None
        self.w(mask=self.mask, accum=accum, replace=self.case["replace"]) << expr
        self.case["result"] = result_js(self.ty, self.w)
        return self.case

    def matrix(self, nr, nc, transposed):
        """A matrix operand read as nr x nc, stored transposed when asked."""
        m = matrix(self.rng, self.draw, self.ty, *((nc, nr) if transposed else (nr, nc)))
        return m.js, (m.obj.T if transposed else m.obj)


# ---------------------------------------------------------------- the classes


def pick_semiring(rng):
    name = rng.choice(list(SEMIRINGS))
    return name, rng.choice(SEMIRINGS[name])


def gen_mxv(rng, case):
    name, ty = pick_semiring(rng)
    f = Frame(rng, case, ty, PRODUCT_ACCUMS)
    case["semiring"] = name
    m, n = dim(rng), dim(rng)
    case["ta"] = rng.random() < 0.4
    case["a"], a = f.matrix(m, n, case["ta"])
    u = vector(rng, f.draw, ty, n)
    case["u"] = u.js
    f.output((m,))
    return f.store(a.mxv(u.obj, getattr(semiring, name)))


def gen_vxm(rng, case):
    name, ty = pick_semiring(rng)
    f = Frame(rng, case, ty, PRODUCT_ACCUMS)
    case["semiring"] = name
    m, n = dim(rng), dim(rng)
    case["ta"] = rng.random() < 0.4
    case["a"], a = f.matrix(m, n, case["ta"])
    u = vector(rng, f.draw, ty, m)
    case["u"] = u.js
    f.output((n,))
    return f.store(u.obj.vxm(a, getattr(semiring, name)))


def small_dim(rng):
    d = dim(rng)
    return d if d <= 100 else rng.randint(0, 100)


def gen_mxm(rng, case):
    name, ty = pick_semiring(rng)
    f = Frame(rng, case, ty, PRODUCT_ACCUMS)
    case["semiring"] = name
    m, k, n = small_dim(rng), small_dim(rng), small_dim(rng)
    case["ta"], case["tb"] = rng.random() < 0.35, rng.random() < 0.35
    case["a"], a = f.matrix(m, k, case["ta"])
    case["b"], b = f.matrix(k, n, case["tb"])
    f.output((m, n))
    return f.store(a.mxm(b, getattr(semiring, name)))


def elementwise(which):
    def gen(rng, case):
        ty = rng.choice(TYPES)
        f = Frame(rng, case, ty, OP_ACCUMS)
        op = rng.choice(BINOPS)
        case["binop"] = op
        if rng.random() < 0.5:
            case["kind"] = "v"
            n = dim(rng)
            u, v = vector(rng, f.draw, ty, n), vector(rng, f.draw, ty, n)
            case["u"], case["v"] = u.js, v.js
            x, y, shape = u.obj, v.obj, (n,)
        else:
            case["kind"] = "m"
            m, n = small_dim(rng), small_dim(rng)
            case["ta"], case["tb"] = rng.random() < 0.3, rng.random() < 0.3
            case["a"], x = f.matrix(m, n, case["ta"])
            case["b"], y = f.matrix(m, n, case["tb"])
            shape = (m, n)
        f.output(shape)
        if which == "add":
            expr = x.ewise_add(y, binop(op, ty))
        elif which == "mult":
            expr = x.ewise_mult(y, binop(op, ty))
        else:
            alpha, beta = f.draw(), f.draw()
            case["alpha"], case["beta"] = enc(ty, alpha), enc(ty, beta)
            expr = x.ewise_union(y, binop(op, ty), scalar(ty, alpha),
                                 scalar(ty, beta))
        return f.store(expr)
    return gen


def unary_input(rng, f, case, allow_transpose=True):
    """The vector or matrix input of apply, select and friends."""
    if rng.random() < 0.4:
        case["kind"] = "v"
        n = dim(rng)
        u = vector(rng, f.draw, f.ty, n)
        case["u"] = u.js
        return u.obj, (n,)
    case["kind"] = "m"
    m, n = dim(rng), dim(rng)
    case["ta"] = allow_transpose and rng.random() < 0.3
    case["a"], a = f.matrix(m, n, case["ta"])
    return a, (m, n)


def gen_apply(rng, case):
    ty = rng.choice(TYPES)
    f = Frame(rng, case, ty, OP_ACCUMS)
    x, shape = unary_input(rng, f, case)
    f.output(shape)
    r = rng.random()
    if r < 0.4:
        op = rng.choice(UNARY)
        case["unary"] = op
        return f.store(x.apply(getattr(unary, op)))
    op = rng.choice(BIND_OPS)
    s = f.draw()
    case["binop"], case["scalar"] = op, enc(ty, s)
    sc = scalar(ty, s)
    if r < 0.7:
        case["bind"] = "first"
        return f.store(x.apply(binop(op, ty), left=sc))
    case["bind"] = "second"
    return f.store(x.apply(binop(op, ty), right=sc))


def gen_select(rng, case):
    ty = rng.choice(TYPES)
    f = Frame(rng, case, ty)
    x, shape = unary_input(rng, f, case, allow_transpose=False)
    f.output(shape)
    if rng.random() < 0.55:
        op = rng.choice(SELECT_INDEX)
        k = rng.randint(-6, 6) if rng.random() < 0.8 else rng.randint(-400, 400)
        case["select"], case["k"] = op, k
        return f.store(x.select(op, k))
    op = rng.choice(SELECT_VALUE)
    k = f.draw()
    case["select"], case["k"] = op, enc(ty, k)
    return f.store(x.select(op, scalar(ty, k)))


def pick_monoid(rng, ty):
    # SuiteSparse has the logical monoids for bool only, and no PLUS or TIMES
    # monoid for bool.
    return rng.choice(["lor", "land", "lxor", "min", "max"] if ty == "bool" else
                      ["plus", "times", "min", "max"])


def gen_reduce_rows(rng, case):
    ty = rng.choice(TYPES)
    f = Frame(rng, case, ty, OP_ACCUMS)
    mo = pick_monoid(rng, ty)
    case["monoid"] = mo
    m, n = dim(rng), dim(rng)
    case["ta"] = rng.random() < 0.4
    case["a"], a = f.matrix(m, n, False)
    f.output((n,) if case["ta"] else (m,))
    expr = a.reduce_columnwise(getattr(monoid, mo)) if case["ta"] else \
        a.reduce_rowwise(getattr(monoid, mo))
    return f.store(expr)


def gen_reduce_scalar(rng, case):
    ty = rng.choice(TYPES)
    f = Frame(rng, case, ty)
    case["accum"], case["mask"], case["replace"] = None, "none", False
    mo = pick_monoid(rng, ty)
    case["monoid"] = mo
    x, _ = unary_input(rng, f, case, allow_transpose=False)
    if case["kind"] == "v":
        s = x.reduce(getattr(monoid, mo), allow_empty=False).new()
    else:
        s = x.reduce_scalar(getattr(monoid, mo), allow_empty=False).new()
    case["result"] = {"scalar": enc(ty, s.value)}
    return case


def indices(rng, bound, count, distinct):
    if bound == 0:
        return []
    if distinct:
        count = min(count, bound)
        return rng.sample(range(bound), count)
    return [rng.randrange(bound) for _ in range(count)]


def ix(idx):
    return np.array(idx, dtype=np.uint64)


def gen_extract(rng, case):
    ty = rng.choice(TYPES)
    f = Frame(rng, case, ty)
    sorted_ = rng.random() < 0.4
    if rng.random() < 0.5:
        case["kind"] = "v"
        n = dim(rng)
        u = vector(rng, f.draw, ty, n)
        case["u"] = u.js
        idx = indices(rng, n, rng.randint(0, int(n * 1.3) + 2), rng.random() < 0.5)
        if sorted_:
            idx.sort()
        case["I"] = idx
        f.output((len(idx),))
        return f.store(u.obj[ix(idx)])
    case["kind"] = "m"
    m, n = small_dim(rng), small_dim(rng)
    case["ta"] = rng.random() < 0.3
    case["a"], a = f.matrix(m, n, case["ta"])
    rows = indices(rng, m, rng.randint(0, m + 3), rng.random() < 0.5)
    cols = indices(rng, n, rng.randint(0, n + 3), rng.random() < 0.5)
    if sorted_:
        rows.sort()
        cols.sort()
    case["I"], case["J"] = rows, cols
    f.output((len(rows), len(cols)))
    if case["ta"]:
        a = a.new()  # python-graphblas extracts from a materialised transpose
    return f.store(a[ix(rows), ix(cols)])


def gen_assign(rng, case):
    ty = rng.choice(TYPES)
    f = Frame(rng, case, ty)
    if rng.random() < 0.5:
        case["kind"] = "v"
        n = dim(rng)
        idx = indices(rng, n, rng.randint(0, n), True)
        case["I"] = idx
        u = vector(rng, f.draw, ty, len(idx))
        case["u"] = u.js
        f.output((n,))
        accum = binop(case["accum"], ty) if case["accum"] else None
        f.w(mask=f.mask, accum=accum, replace=case["replace"])[ix(idx)] << u.obj
    else:
        case["kind"] = "m"
        m, n = small_dim(rng), small_dim(rng)
        rows = indices(rng, m, rng.randint(0, m), True)
        cols = indices(rng, n, rng.randint(0, n), True)
        case["I"], case["J"] = rows, cols
        case["ta"] = rng.random() < 0.3
        case["a"], a = f.matrix(len(rows), len(cols), case["ta"])
        f.output((m, n))
        accum = binop(case["accum"], ty) if case["accum"] else None
        f.w(mask=f.mask, accum=accum, replace=case["replace"])[ix(rows), ix(cols)] << a
    case["result"] = result_js(ty, f.w)
    return case


def gen_assign_scalar(rng, case):
    ty = rng.choice(TYPES)
    f = Frame(rng, case, ty)
    case["kind"] = "v"
    n = dim(rng)
    s = f.draw()
    case["scalar"] = enc(ty, s)
    all_ = rng.random() < 0.3
    idx = list(range(n)) if all_ else indices(rng, n, rng.randint(0, n), True)
    case["I"] = None if all_ else idx
    f.output((n,))
    accum = binop(case["accum"], ty) if case["accum"] else None
    f.w(mask=f.mask, accum=accum, replace=case["replace"])[ix(idx)] << scalar(ty, s)
    case["result"] = result_js(ty, f.w)
    return case


def gen_transpose(rng, case):
    ty = rng.choice(TYPES)
    f = Frame(rng, case, ty)
    case["kind"] = "m"
    m, n = dim(rng), dim(rng)
    case["ta"] = rng.random() < 0.3
    # C = A' (with the input transposed by the descriptor: C = A)
    case["a"], a = f.matrix(n, m, case["ta"])
    f.output((m, n))
    return f.store(a.T)


# class -> (generator, weight)
CLASSES = {
    "mxv": (gen_mxv, 12),
    "vxm": (gen_vxm, 12),
    "mxm": (gen_mxm, 12),
    "ewise_add": (elementwise("add"), 7),
    "ewise_mult": (elementwise("mult"), 7),
    "ewise_union": (elementwise("union"), 6),
    "apply": (gen_apply, 8),
    "select": (gen_select, 8),
    "reduce_rows": (gen_reduce_rows, 6),
    "reduce_scalar": (gen_reduce_scalar, 4),
    "extract": (gen_extract, 6),
    "assign": (gen_assign, 7),
    "assign_scalar": (gen_assign_scalar, 4),
    "transpose": (gen_transpose, 4),
}


REJECTED = {}


def make_case(seed, cid):
    """Case `cid` of `seed`; a draw that python-graphblas refuses (an operator
    it has not at that type) is drawn again, and counted."""
    for attempt in range(20):
        rng = random.Random(f"{seed}:{cid}:{attempt}" if attempt else f"{seed}:{cid}")
        names = list(CLASSES)
        op = rng.choices(names, weights=[CLASSES[n][1] for n in names])[0]
        case = {"id": cid, "op": op, "kind": "v" if op in ("mxv", "vxm") else "m"}
        try:
            return CLASSES[op][0](rng, case)
        except (KeyError, TypeError, AttributeError, gb.exceptions.GraphblasException) as e:
            key = f"{op}: {type(e).__name__}: {str(e)[:80]}"
            REJECTED[key] = REJECTED.get(key, 0) + 1
    raise RuntimeError(f"case {cid}: no acceptable draw")


def worker(seed, ids, conn):
    """Makes cases in a child process, so that one SuiteSparse call that never
    returns (seen: a masked mxm with an empty inner dimension) or crashes costs
    that case, not the run."""
    for cid in ids:
        case = make_case(seed, cid)
        conn.send((cid, case["op"], json.dumps(case, separators=(",", ":"), allow_nan=False)))
    conn.send((None, dict(REJECTED), None))


def generate(seed, ids, timeout):
    """Yields (id, op, line) for every id whose case SuiteSparse answers in time."""
    ctx = multiprocessing.get_context("fork")
    ids = list(ids)
    while ids:
        parent, child = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=worker, args=(seed, ids, child), daemon=True)
        proc.start()
        child.close()
        while True:
            got = None
            try:
                if parent.poll(timeout):
                    got = parent.recv()
            except EOFError:
                pass
            if got is None:
                stuck = ids[0]
                proc.kill()
                proc.join()
                why = "died" if proc.exitcode not in (None, -9) else f"gave no answer in {timeout} s"
                print(f"case {stuck}: SuiteSparse {why} (exit {proc.exitcode}); left out "
                      f"(replay: --seed {seed} --only {stuck})", file=sys.stderr)
                SKIPPED.append(stuck)
                ids = ids[1:]
                break
            cid, op, line = got
            if cid is None:
                for k, n in op.items():
                    REJECTED[k] = REJECTED.get(k, 0) + n
                proc.join()
                ids = []
                break
            ids = ids[1:]
            yield cid, op, line


SKIPPED = []


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=3000)
    ap.add_argument("--only", type=int, help="write this case id only")
    ap.add_argument("--timeout", type=float, default=30.0,
                    help="seconds SuiteSparse may take over one case")
    ap.add_argument("--out", default="-")
    args = ap.parse_args()
    ids = [args.only] if args.only is not None else range(args.count)
    lines, counts = [], {}
    for _, op, line in generate(args.seed, ids, args.timeout):
        counts[op] = counts.get(op, 0) + 1
        lines.append(line)
    header = {"header": {
        "suitesparse-graphblas": ".".join(map(str, gb.ss.about["library_version"])),
        "python-graphblas": gb.__version__,
        "python-suitesparse-graphblas": __import__("suitesparse_graphblas").__version__,
        "numpy": np.__version__,
        "seed": args.seed, "count": len(lines), "left_out": SKIPPED,
        "generator": "scripts/suitesparse-cases.py"}}
    if args.out == "-":
        out = sys.stdout
    elif args.out.endswith(".gz"):
        # mtime=0: the same seed gives the same bytes
        out = gzip.GzipFile(args.out, "wb", compresslevel=9, mtime=0)
    else:
        out = open(args.out, "wb")
    text = "\n".join([json.dumps(header, separators=(",", ":"))] + lines) + "\n"
    if out is sys.stdout:
        out.write(text)
    else:
        out.write(text.encode())
        out.close()
    print("cases per class:", json.dumps(counts, sort_keys=True), file=sys.stderr)
    for k, n in sorted(REJECTED.items()):
        print(f"redrawn {n}x: {k}", file=sys.stderr)


if __name__ == "__main__":
    main()
