//! The differential test against SuiteSparse:GraphBLAS (issue 21), shared by
//! `tests/suitesparse_diff.rs` (CPU) and `tests/cuda_suitesparse_diff.rs` (CUDA).
//!
//! The cases come from `scripts/suitesparse-cases.py`: random inputs and the
//! answer python-graphblas got from SuiteSparse. The test reads
//! `tests/data/suitesparse-cases.jsonl.gz`; `BITGRAPHBLAS_SUITESPARSE_CASES=PATH` another file
//! (CI writes one with a fresh seed) and `BITGRAPHBLAS_SUITESPARSE_CASE=ID` runs one
//! case. Each case runs once per matrix format (CSR, then B2SR at each tile size
//! wherever an operand has one value for all its entries, as B2SR stores it), and
//! the non-commutative MIN.FIRST and MIN.SECOND also as user semirings
//! (`SemiringFrom`); PLUS.MINUS is a user semiring only.
//!
//! One function per operation class ([`run_typed`] dispatches); a class added to
//! the script needs one function here.
#![allow(dead_code)]

pub mod json;

use std::cell::Cell;
use std::collections::BTreeMap;
use std::io::Read;

use bitgraphblas::algebra::{
    Abs, Ainv, AnyPair, BindFirst, BindSecond, Div, First, Identity, IndexOp, Land, Lnot, Lor,
    LorLand, Lxor, Max, MaxMin, MaxTimes, Min, MinFirst, MinPlus, MinSecond, Minus, One, Pair,
    Plus, PlusPair, PlusTimes, Second, Semiring, SemiringFrom, Times,
};
use bitgraphblas::backend::{MatrixShape, VectorShape};
use bitgraphblas::container::{Mask, MatrixMask};
use bitgraphblas::{
    ops, Backend, Desc, Error, Format, Matrix, Scalar, TileSize, Vector, VectorFormat,
};
use json::Json;

/// The committed case file, relative to the checkout root (the working
/// directory of `cargo test` and of the GPU bundle's runner).
const COMMITTED: &str = "tests/data/suitesparse-cases.jsonl.gz";

/// The header line and the cases.
pub fn load_cases() -> (Json, Vec<Json>) {
    let name = std::env::var("BITGRAPHBLAS_SUITESPARSE_CASES").unwrap_or_else(|_| {
        let here = std::path::Path::new(COMMITTED);
        if here.exists() {
            COMMITTED.to_string()
        } else {
            format!("{}/{COMMITTED}", env!("CARGO_MANIFEST_DIR"))
        }
    });
    let bytes = std::fs::read(&name).unwrap_or_else(|e| panic!("{name}: {e}"));
    let text = if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut s = String::new();
        flate2::read::MultiGzDecoder::new(&bytes[..])
            .read_to_string(&mut s)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        s
    } else {
        String::from_utf8(bytes).expect("UTF-8 case file")
    };
    let only: Option<i64> = std::env::var("BITGRAPHBLAS_SUITESPARSE_CASE")
        .ok()
        .map(|s| s.parse().expect("BITGRAPHBLAS_SUITESPARSE_CASE=ID"));
    let mut header = Json::Null;
    let mut cases = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let j = Json::parse(line).unwrap_or_else(|e| panic!("{name}:{}: {e}", n + 1));
        if j.has("header") {
            header = j.get("header").clone();
        } else if only.is_none() || only == Some(j.int("id")) {
            cases.push(j);
        }
    }
    eprintln!(
        "{} cases from {name}: SuiteSparse:GraphBLAS {}, python-graphblas {}, seed {}",
        cases.len(),
        header.opt_str("suitesparse-graphblas").unwrap_or("?"),
        header.opt_str("python-graphblas").unwrap_or("?"),
        match header.get("seed") {
            Json::Num(s) => s.as_str(),
            _ => "?",
        }
    );
    (header, cases)
}

// ---------------------------------------------------------------- values

/// An element type of the cases: how to read a value and how to compare two.
pub trait Val: Scalar {
    /// The case file's value (see the script: integers, 0/1, or floats with
    /// "nan", "inf", "-inf" spelt out).
    fn parse(j: &Json) -> Self;
    /// The same value, bit for bit (NaN matches NaN; 0.0 does not match -0.0).
    fn identical(a: Self, b: Self) -> bool;
    /// Agreement of two results: exact, except that NaN matches NaN and, where
    /// `sums` says that floats were added or multiplied in an order that may
    /// legitimately differ (a PLUS or TIMES reduction), a relative 1e-9 (fp64) or
    /// 1e-4 (fp32). 0.0 matches -0.0 (IEEE equality).
    fn agree(a: Self, b: Self, sums: bool) -> bool;
    /// SuiteSparse's MIN or MAX over a row whose only terms are NaN: it folds
    /// from the monoid's identity with `fmin`/`fmax`, which drop a NaN, and
    /// answers the identity (`want` infinite); both backends fold the present
    /// terms only and answer NaN (see `cas_fold` in `cuda/semiring.cuh`).
    fn lone_nan(want: Self, got: Self) -> bool {
        let _ = (want, got);
        false
    }
}

macro_rules! int_val {
    ($($t:ty),*) => {$(
        impl Val for $t {
            fn parse(j: &Json) -> Self {
                let v: i128 = j.num().parse().expect("an integer value");
                <$t>::try_from(v).expect("value in range")
            }
            fn identical(a: Self, b: Self) -> bool {
                a == b
            }
            fn agree(a: Self, b: Self, _sums: bool) -> bool {
                a == b
            }
        }
    )*};
}
int_val!(i32, u64);

impl Val for bool {
    fn parse(j: &Json) -> Self {
        match j {
            Json::Bool(b) => *b,
            _ => j.num() != "0",
        }
    }
    fn identical(a: Self, b: Self) -> bool {
        a == b
    }
    fn agree(a: Self, b: Self, _sums: bool) -> bool {
        a == b
    }
}

macro_rules! float_val {
    ($($t:ty, $tol:expr);*) => {$(
        impl Val for $t {
            fn parse(j: &Json) -> Self {
                match j {
                    Json::Str(s) if s == "nan" => <$t>::NAN,
                    Json::Str(s) if s == "inf" => <$t>::INFINITY,
                    Json::Str(s) if s == "-inf" => <$t>::NEG_INFINITY,
                    // fp32 values are written through fp64 exactly.
                    _ => j.num().parse::<f64>().expect("a float value") as $t,
                }
            }
            fn identical(a: Self, b: Self) -> bool {
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
            }
            fn agree(a: Self, b: Self, sums: bool) -> bool {
                if a == b || (a.is_nan() && b.is_nan()) {
                    return true;
                }
                sums && a.is_finite()
                    && b.is_finite()
                    && (a - b).abs() <= $tol * a.abs().max(b.abs()).max(1.0)
            }
            fn lone_nan(want: Self, got: Self) -> bool {
                want.is_infinite() && got.is_nan()
            }
        }
    )*};
}
float_val!(f32, 1e-4; f64, 1e-9);

/// A backend whose masks have shapes (both backends): what the operations ask.
pub trait Be: Backend<MaskSource: VectorShape, MatrixMaskSource: MatrixShape> {}
impl<B: Backend<MaskSource: VectorShape, MatrixMaskSource: MatrixShape>> Be for B {}

// ---------------------------------------------------------------- formats

/// The formats every case runs in (as the property tests' `FORMATS`).
pub const FORMATS: [Format; 6] = [
    Format::Csr,
    Format::B2sr(TileSize::T4),
    Format::B2sr(TileSize::T8),
    Format::B2sr(TileSize::T16),
    Format::B2sr(TileSize::T32),
    Format::B2sr(TileSize::T64),
];

/// A short name of a format (`csr`, `b2sr8`).
pub fn format_name(f: Format) -> String {
    match f {
        Format::Csr => "csr".into(),
        Format::B2sr(t) => format!("b2sr{}", t.k().unwrap_or(0)),
        Format::Auto => "auto".into(),
    }
}

/// How a semiring is built on the bitgraphblas side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Variant {
    /// The built-in semiring type (its specialised kernels).
    Builtin,
    /// `SemiringFrom` of the same monoid and operator (the generic path).
    User,
}

/// The semiring variants a case runs with (one for everything but products).
pub fn variants(c: &Json) -> Vec<Variant> {
    match c.opt_str("semiring") {
        Some("min_first" | "min_second") => vec![Variant::Builtin, Variant::User],
        Some("plus_minus") => vec![Variant::User],
        _ => vec![Variant::Builtin],
    }
}

/// One run of a case: the case, the matrix format and the semiring variant; it
/// remembers whether any matrix operand took the format (B2SR needs one value
/// for all entries).
pub struct Ctx<'a> {
    pub c: &'a Json,
    pub format: Format,
    pub variant: Variant,
    /// The storage of vector operands (varied with the format).
    pub vformat: VectorFormat,
    used: Cell<bool>,
}

impl<'a> Ctx<'a> {
    pub fn new(c: &'a Json, format: Format, variant: Variant) -> Self {
        let vformat = match format {
            Format::B2sr(TileSize::T4) | Format::B2sr(TileSize::T32) => VectorFormat::Dense,
            Format::B2sr(TileSize::T16) => VectorFormat::Bits,
            _ => VectorFormat::Sparse,
        };
        Ctx {
            c,
            format,
            variant,
            vformat,
            used: Cell::new(false),
        }
    }

    /// Whether a matrix operand was stored in the run's format.
    pub fn used_format(&self) -> bool {
        self.used.get() || self.format == Format::Csr
    }

    fn op(&self) -> &str {
        self.c.str("op")
    }
    fn vector_kind(&self) -> bool {
        self.c.opt_str("kind") == Some("v")
    }

    /// The matrix operand `key` in the run's format where it is iso-valued.
    pub fn matrix<T: Val>(&self, key: &str) -> Matrix<T> {
        let j = self.c.get(key);
        let (nr, nc) = (j.usize("r"), j.usize("c"));
        let (is, js, xs) = (j.indices("i"), j.indices("j"), j.get("x").arr());
        let t: Vec<(usize, usize, T)> = (0..is.len())
            .map(|k| (is[k], js[k], T::parse(&xs[k])))
            .collect();
        // An empty matrix converts too (B2SR with value one and no tiles).
        let iso = match t.first() {
            None => Some(T::one()),
            Some(e) => Some(e.2).filter(|&v| t.iter().all(|e| T::identical(e.2, v))),
        };
        let m = Matrix::from_triplets(nr, nc, t).expect("case triplets");
        match (self.format, iso) {
            (Format::B2sr(_), Some(v)) => {
                self.used.set(true);
                // an iso NaN included (NaN counts as one value)
                m.to_pattern(self.format, v).expect("B2SR of an iso matrix")
            }
            _ => m,
        }
    }

    /// The vector operand `key`, in the run's vector storage where it can be.
    pub fn vector<T: Val>(&self, key: &str) -> Vector<T> {
        let j = self.c.get(key);
        let (is, xs) = (j.indices("i"), j.get("x").arr());
        let e = is.iter().zip(xs).map(|(&i, x)| (i, T::parse(x))).collect();
        let v = Vector::from_entries(j.usize("n"), e).expect("case entries");
        // Bits holds only entries equal to one: elsewhere dense.
        v.to_format(self.vformat)
            .or_else(|_| v.to_format(VectorFormat::Dense))
            .expect("vector format")
    }

    fn accum(&self) -> Option<&str> {
        self.c.opt_str("accum")
    }

    /// Replace and the transposes of the case, on a descriptor.
    pub fn flags<M, A>(&self, d: Desc<M, A>) -> Desc<M, A> {
        let mut d = d;
        if self.c.flag("replace") {
            d = d.replace();
        }
        if self.c.flag("ta") {
            d = d.transpose_a();
        }
        if self.c.flag("tb") {
            d = d.transpose_b();
        }
        d
    }
}

/// The answer of one run.
pub enum Got<T> {
    Vector(Vector<T>),
    Matrix(Matrix<T>),
    Scalar(T),
}

/// What a run gives: the answer, or the library's error.
pub type Outcome<T> = Result<Got<T>, Error>;

// ---------------------------------------------------------------- masks

/// A vector mask's source on the backend: bool or the case's type.
pub enum VMask<B: Backend, T: Scalar> {
    None,
    Bool(B::Vector<bool>),
    Same(B::Vector<T>),
}

impl<B: Backend, T: Val> VMask<B, T> {
    pub fn load(b: &B, x: &Ctx) -> Result<Self, Error> {
        Ok(match (x.c.str("mask"), x.c.opt_str("mtype")) {
            ("none", _) => VMask::None,
            (_, Some("bool")) => VMask::Bool(b.upload_vector(&x.vector::<bool>("m"))?),
            _ => VMask::Same(b.upload_vector(&x.vector::<T>("m"))?),
        })
    }
    pub fn get(&self, kind: &str) -> Option<Mask<'_, B>> {
        let m = match self {
            VMask::None => return None,
            VMask::Bool(v) => B::mask(v),
            VMask::Same(v) => B::mask(v),
        };
        Some(shape_mask(kind, m, Mask::structure, Mask::complement))
    }
}

/// A matrix mask's source on the backend.
pub enum MMask<B: Backend, T: Scalar> {
    None,
    Bool(B::Matrix<bool>),
    Same(B::Matrix<T>),
}

impl<B: Backend, T: Val> MMask<B, T> {
    pub fn load(b: &B, x: &Ctx) -> Result<Self, Error> {
        Ok(match (x.c.str("mask"), x.c.opt_str("mtype")) {
            ("none", _) => MMask::None,
            (_, Some("bool")) => MMask::Bool(b.upload_matrix(&x.matrix::<bool>("m"))?),
            _ => MMask::Same(b.upload_matrix(&x.matrix::<T>("m"))?),
        })
    }
    pub fn get(&self, kind: &str) -> Option<MatrixMask<'_, B>> {
        let m = match self {
            MMask::None => return None,
            MMask::Bool(v) => B::matrix_mask(v),
            MMask::Same(v) => B::matrix_mask(v),
        };
        Some(shape_mask(
            kind,
            m,
            MatrixMask::structure,
            MatrixMask::complement,
        ))
    }
}

/// "s", "v", "sc", "vc": structural or valued, complemented or not.
fn shape_mask<M>(kind: &str, m: M, structure: fn(M) -> M, complement: fn(M) -> M) -> M {
    let m = if kind.starts_with('s') {
        structure(m)
    } else {
        m
    };
    if kind.ends_with('c') {
        complement(m)
    } else {
        m
    }
}

// ---------------------------------------------------------------- descriptors

/// `$body` with `$op` bound to the value the name `$name` stands for in the
/// table `"name" => value, ...` (a panic for a name not in it: the script and
/// this file disagree). `$what` says what the names are, for that message.
macro_rules! with_named {
    ($what:literal, $name:expr, $op:ident => $body:expr; $($key:literal => $value:expr),+) => {
        match $name {
            $($key => {
                let $op = $value;
                $body
            })+
            other => panic!("{} {other} is not in this class's list", $what),
        }
    };
}

/// The accumulators of the product classes (the script's `PRODUCT_ACCUMS`).
macro_rules! product_accums {
    ($name:expr, $op:ident => $body:expr) => {
        with_named!("accumulator", $name, $op => $body; "min" => Min, "minus" => Minus)
    };
}

/// The accumulators of the classes that also dispatch on an operator (the
/// script's `OP_ACCUMS`): one, as every accumulator is one more instantiation
/// of the operation at every operator and type (the build time of this test).
macro_rules! op_accums {
    ($name:expr, $op:ident => $body:expr) => {
        with_named!("accumulator", $name, $op => $body; "minus" => Minus)
    };
}

/// The accumulators of the classes without an operator of their own (the
/// script's `ACCUMS`).
macro_rules! all_accums {
    ($name:expr, $op:ident => $body:expr) => {
        with_named!("accumulator", $name, $op => $body;
            "plus" => Plus, "minus" => Minus, "div" => Div, "min" => Min, "first" => First,
            "second" => Second
        )
    };
}

/// `$body` with `$d` the case's descriptor: mask (an `Option`), accumulator
/// (from the list `$accums`) and flags.
macro_rules! with_desc {
    ($x:expr, $mask:expr, $accums:ident, $d:ident => $body:expr) => {
        match ($mask, $x.accum()) {
            (None, None) => {
                let $d = $x.flags(Desc::new());
                $body
            }
            (Some(m), None) => {
                let $d = $x.flags(Desc::new().mask(m));
                $body
            }
            (None, Some(a)) => $accums!(a, op => {
                let $d = $x.flags(Desc::new().accum(op));
                $body
            }),
            (Some(m), Some(a)) => $accums!(a, op => {
                let $d = $x.flags(Desc::new().mask(m).accum(op));
                $body
            }),
        }
    };
}

/// `$body` with `$op` the built-in binary operator `$name`.
macro_rules! with_binop {
    ($name:expr, $op:ident => $body:expr) => {
        with_named!("binary operator", $name, $op => $body;
            "plus" => Plus, "minus" => Minus, "times" => Times, "div" => Div, "min" => Min,
            "max" => Max, "first" => First, "second" => Second, "pair" => Pair, "lor" => Lor,
            "land" => Land, "lxor" => Lxor
        )
    };
}

/// `$body` with `$op` the binary operator `$name` of the script's `BIND_OPS`.
macro_rules! with_bind_op {
    ($name:expr, $op:ident => $body:expr) => {
        with_named!("bound operator", $name, $op => $body;
            "minus" => Minus, "div" => Div, "min" => Min, "first" => First, "second" => Second
        )
    };
}

/// `$body` with `$m` the monoid `$name`.
macro_rules! with_monoid {
    ($name:expr, $op:ident => $body:expr) => {
        with_named!("monoid", $name, $op => $body;
            "plus" => Plus, "times" => Times, "min" => Min, "max" => Max, "lor" => Lor,
            "land" => Land, "lxor" => Lxor
        )
    };
}

// ---------------------------------------------------------------- the classes

/// Runs one case on backend `b`; the element type picks the instantiation.
pub fn run<B: Be>(b: &B, x: &Ctx) -> Result<Compared, Error> {
    match x.c.str("type") {
        "bool" => run_typed::<B, bool>(b, x),
        // The script draws int32 and uint64 of the integers (the build time).
        "int32" => run_typed::<B, i32>(b, x),
        "uint64" => run_typed::<B, u64>(b, x),
        "fp32" => run_typed::<B, f32>(b, x),
        "fp64" => run_typed::<B, f64>(b, x),
        other => panic!("type {other} unknown"),
    }
}

/// The comparison of one run with SuiteSparse: `None` where they agree, else
/// the differences, written out.
pub type Compared = Option<String>;

fn run_typed<B: Be, T: Products>(b: &B, x: &Ctx) -> Result<Compared, Error> {
    let got = match x.op() {
        "mxv" | "vxm" | "mxm" => T::product(b, x)?,
        "ewise_add" | "ewise_mult" | "ewise_union" => elementwise::<B, T>(b, x)?,
        "apply" => apply::<B, T>(b, x)?,
        "select" => select::<B, T>(b, x)?,
        "reduce_rows" => reduce_rows::<B, T>(b, x)?,
        "reduce_scalar" => reduce_scalar::<B, T>(b, x)?,
        "extract" => extract::<B, T>(b, x)?,
        "assign" => assign::<B, T>(b, x)?,
        "assign_scalar" => assign_scalar::<B, T>(b, x)?,
        "transpose" => transpose::<B, T>(b, x)?,
        other => panic!("operation class {other} unknown: add its function here"),
    };
    Ok(compare(x, &got))
}

/// The semirings bitgraphblas has at an element type.
pub trait Products: Val {
    fn product<B: Be>(b: &B, x: &Ctx) -> Outcome<Self>;
}

macro_rules! products {
    ($t:ty: $($name:literal $variant:ident => $s:expr),* $(,)?) => {
        impl Products for $t {
            fn product<B: Be>(b: &B, x: &Ctx) -> Outcome<$t> {
                let _ = b;
                match (x.c.str("semiring"), x.variant) {
                    $(($name, Variant::$variant) => product(b, x, $s),)*
                    (s, v) => panic!("no {s} ({v:?}) at {}", stringify!($t)),
                }
            }
        }
    };
}

macro_rules! numeric_products {
    ($($t:ty),*) => {$(
        products!($t:
            "plus_times" Builtin => PlusTimes::<$t>::new(),
            "plus_pair" Builtin => PlusPair::<$t>::new(),
            "min_plus" Builtin => MinPlus::<$t>::new(),
            "min_second" Builtin => MinSecond::<$t>::new(),
            "min_second" User => SemiringFrom::<$t, _, _>::new(Min, Second),
            "min_first" Builtin => MinFirst::<$t>::new(),
            "min_first" User => SemiringFrom::<$t, _, _>::new(Min, First),
            "max_min" Builtin => MaxMin::<$t>::new(),
            "any_pair" Builtin => AnyPair::<$t>::new(),
            "plus_minus" User => SemiringFrom::<$t, _, _>::new(Plus, Minus),
        );
    )*};
}

products!(bool:
    "any_pair" Builtin => AnyPair::<bool>::new(),
    "lor_land" Builtin => LorLand,
);
// MAX.TIMES is built in at unsigned and float types only (the script draws it there).
numeric_products!(i32);

macro_rules! max_times_products {
    ($($t:ty),*) => {$(
        products!($t:
            "plus_times" Builtin => PlusTimes::<$t>::new(),
            "plus_pair" Builtin => PlusPair::<$t>::new(),
            "min_plus" Builtin => MinPlus::<$t>::new(),
            "min_second" Builtin => MinSecond::<$t>::new(),
            "min_second" User => SemiringFrom::<$t, _, _>::new(Min, Second),
            "min_first" Builtin => MinFirst::<$t>::new(),
            "min_first" User => SemiringFrom::<$t, _, _>::new(Min, First),
            "max_min" Builtin => MaxMin::<$t>::new(),
            "any_pair" Builtin => AnyPair::<$t>::new(),
            "plus_minus" User => SemiringFrom::<$t, _, _>::new(Plus, Minus),
            "max_times" Builtin => MaxTimes::<$t>::new(),
        );
    )*};
}
max_times_products!(u64, f64);
// The script draws no products at fp32 (the build time of this test).
products!(f32:);

/// mxv, vxm and mxm with semiring `s`.
fn product<B: Be, S: Semiring>(b: &B, x: &Ctx, s: S) -> Outcome<S::T>
where
    S::T: Val,
{
    let mask_kind = x.c.str("mask");
    let a = b.upload_matrix(&x.matrix::<S::T>("a"))?;
    if x.op() == "mxm" {
        let bm = b.upload_matrix(&x.matrix::<S::T>("b"))?;
        let mut c = b.upload_matrix(&x.matrix::<S::T>("w"))?;
        let mask = MMask::<B, S::T>::load(b, x)?;
        with_desc!(x, mask.get(mask_kind), product_accums, d =>
            ops::mxm(b, &mut c, s, &a, &bm, &d))?;
        return Ok(Got::Matrix(b.download_matrix(&c)?));
    }
    let u = b.upload_vector(&x.vector::<S::T>("u"))?;
    let mut w = b.upload_vector(&x.vector::<S::T>("w"))?;
    let mask = VMask::<B, S::T>::load(b, x)?;
    if x.op() == "mxv" {
        with_desc!(x, mask.get(mask_kind), product_accums, d =>
            ops::mxv(b, &mut w, s, &a, &u, &d))?;
    } else {
        with_desc!(x, mask.get(mask_kind), product_accums, d =>
            ops::vxm(b, &mut w, s, &u, &a, &d))?;
    }
    Ok(Got::Vector(b.download_vector(&w)?))
}

/// ewise_add, ewise_mult, ewise_union on vectors or matrices.
fn elementwise<B: Be, T: Val>(b: &B, x: &Ctx) -> Outcome<T> {
    let mask_kind = x.c.str("mask");
    let union = x.op() == "ewise_union";
    let (alpha, beta) = if union {
        (T::parse(x.c.get("alpha")), T::parse(x.c.get("beta")))
    } else {
        (T::zero(), T::zero())
    };
    if x.vector_kind() {
        let u = b.upload_vector(&x.vector::<T>("u"))?;
        let v = b.upload_vector(&x.vector::<T>("v"))?;
        let mut w = b.upload_vector(&x.vector::<T>("w"))?;
        let mask = VMask::<B, T>::load(b, x)?;
        with_binop!(x.c.str("binop"), f => with_desc!(x, mask.get(mask_kind), op_accums, d =>
        match x.op() {
            "ewise_add" => ops::ewise_add(b, &mut w, f, &u, &v, &d),
            "ewise_mult" => ops::ewise_mult(b, &mut w, f, &u, &v, &d),
            _ => ops::ewise_union(b, &mut w, f, &u, alpha, &v, beta, &d),
        }))?;
        return Ok(Got::Vector(b.download_vector(&w)?));
    }
    let a = b.upload_matrix(&x.matrix::<T>("a"))?;
    let bm = b.upload_matrix(&x.matrix::<T>("b"))?;
    let mut c = b.upload_matrix(&x.matrix::<T>("w"))?;
    let mask = MMask::<B, T>::load(b, x)?;
    with_binop!(x.c.str("binop"), f => with_desc!(x, mask.get(mask_kind), op_accums, d =>
    match x.op() {
        "ewise_add" => ops::ewise_add_matrix(b, &mut c, f, &a, &bm, &d),
        "ewise_mult" => ops::ewise_mult_matrix(b, &mut c, f, &a, &bm, &d),
        _ => ops::ewise_union_matrix(b, &mut c, f, &a, alpha, &bm, beta, &d),
    }))?;
    Ok(Got::Matrix(b.download_matrix(&c)?))
}

/// `$body` with `$f` the case's unary operator: a built-in unary one or a
/// binary operator with a bound scalar.
macro_rules! with_unary {
    ($x:expr, $t:ty, $f:ident => $body:expr) => {
        match ($x.c.opt_str("unary"), $x.c.opt_str("bind")) {
            (Some("identity"), _) => { let $f = Identity; $body }
            (Some("ainv"), _) => { let $f = Ainv; $body }
            (Some("abs"), _) => { let $f = Abs; $body }
            (Some("lnot"), _) => { let $f = Lnot; $body }
            (Some("one"), _) => { let $f = One; $body }
            (None, Some("first")) => {
                let s = <$t>::parse($x.c.get("scalar"));
                with_bind_op!($x.c.str("binop"), g => { let $f = BindFirst(g, s); $body })
            }
            (None, Some("second")) => {
                let s = <$t>::parse($x.c.get("scalar"));
                with_bind_op!($x.c.str("binop"), g => { let $f = BindSecond(g, s); $body })
            }
            other => panic!("apply operator {other:?} unknown"),
        }
    };
}

/// apply of a unary operator or a bound binary one, on a vector or a matrix.
fn apply<B: Be, T: Val>(b: &B, x: &Ctx) -> Outcome<T> {
    let mask_kind = x.c.str("mask");
    if x.vector_kind() {
        let u = b.upload_vector(&x.vector::<T>("u"))?;
        let mut w = b.upload_vector(&x.vector::<T>("w"))?;
        let mask = VMask::<B, T>::load(b, x)?;
        with_unary!(x, T, f => with_desc!(x, mask.get(mask_kind), op_accums, d =>
            ops::apply(b, &mut w, f, &u, &d)))?;
        return Ok(Got::Vector(b.download_vector(&w)?));
    }
    let a = b.upload_matrix(&x.matrix::<T>("a"))?;
    let mut c = b.upload_matrix(&x.matrix::<T>("w"))?;
    let mask = MMask::<B, T>::load(b, x)?;
    with_unary!(x, T, f => with_desc!(x, mask.get(mask_kind), op_accums, d =>
        ops::apply_matrix(b, &mut c, f, &a, &d)))?;
    Ok(Got::Matrix(b.download_matrix(&c)?))
}

/// The case's select predicate.
fn index_op<T: Val>(c: &Json) -> IndexOp<T> {
    let k = c.get("k");
    let int = || k.num().parse::<i64>().expect("an integer thunk");
    let val = || T::parse(k);
    match c.str("select") {
        "tril" => IndexOp::Tril(int()),
        "triu" => IndexOp::Triu(int()),
        "diag" => IndexOp::Diag(int()),
        "offdiag" => IndexOp::OffDiag(int()),
        "rowle" => IndexOp::RowLe(int()),
        "rowgt" => IndexOp::RowGt(int()),
        "valueeq" => IndexOp::ValueEq(val()),
        "valuene" => IndexOp::ValueNe(val()),
        "valuegt" => IndexOp::ValueGt(val()),
        "valuege" => IndexOp::ValueGe(val()),
        "valuelt" => IndexOp::ValueLt(val()),
        "valuele" => IndexOp::ValueLe(val()),
        other => panic!("select operator {other} unknown"),
    }
}

/// select with a built-in predicate, on a vector or a matrix.
fn select<B: Be, T: Val>(b: &B, x: &Ctx) -> Outcome<T> {
    let mask_kind = x.c.str("mask");
    let p = index_op::<T>(x.c);
    if x.vector_kind() {
        let u = b.upload_vector(&x.vector::<T>("u"))?;
        let mut w = b.upload_vector(&x.vector::<T>("w"))?;
        let mask = VMask::<B, T>::load(b, x)?;
        with_desc!(x, mask.get(mask_kind), all_accums, d =>
            ops::select(b, &mut w, p, &u, &d))?;
        return Ok(Got::Vector(b.download_vector(&w)?));
    }
    let a = b.upload_matrix(&x.matrix::<T>("a"))?;
    let mut c = b.upload_matrix(&x.matrix::<T>("w"))?;
    let mask = MMask::<B, T>::load(b, x)?;
    with_desc!(x, mask.get(mask_kind), all_accums, d =>
        ops::select_matrix(b, &mut c, p, &a, &d))?;
    Ok(Got::Matrix(b.download_matrix(&c)?))
}

/// reduce_rows (of A, or of A' with the transpose flag) with a monoid.
fn reduce_rows<B: Be, T: Val>(b: &B, x: &Ctx) -> Outcome<T> {
    let mask_kind = x.c.str("mask");
    let a = b.upload_matrix(&x.matrix::<T>("a"))?;
    let mut w = b.upload_vector(&x.vector::<T>("w"))?;
    let mask = VMask::<B, T>::load(b, x)?;
    with_monoid!(x.c.str("monoid"), m => with_desc!(x, mask.get(mask_kind), op_accums, d =>
        ops::reduce_rows(b, &mut w, m, &a, &d)))?;
    Ok(Got::Vector(b.download_vector(&w)?))
}

/// reduce of a vector or a matrix to one value (the identity where empty).
fn reduce_scalar<B: Be, T: Val>(b: &B, x: &Ctx) -> Outcome<T> {
    let s = if x.vector_kind() {
        let u = b.upload_vector(&x.vector::<T>("u"))?;
        with_monoid!(x.c.str("monoid"), m => ops::reduce(b, m, &u))?
    } else {
        let a = b.upload_matrix(&x.matrix::<T>("a"))?;
        with_monoid!(x.c.str("monoid"), m => ops::reduce_matrix(b, m, &a))?
    };
    Ok(Got::Scalar(s))
}

/// extract of a sub-vector or a sub-matrix (indices may repeat).
fn extract<B: Be, T: Val>(b: &B, x: &Ctx) -> Outcome<T> {
    let mask_kind = x.c.str("mask");
    let rows = x.c.indices("I");
    if x.vector_kind() {
        let u = b.upload_vector(&x.vector::<T>("u"))?;
        let mut w = b.upload_vector(&x.vector::<T>("w"))?;
        let mask = VMask::<B, T>::load(b, x)?;
        with_desc!(x, mask.get(mask_kind), all_accums, d =>
            ops::extract(b, &mut w, &u, &rows, &d))?;
        return Ok(Got::Vector(b.download_vector(&w)?));
    }
    let cols = x.c.indices("J");
    let a = b.upload_matrix(&x.matrix::<T>("a"))?;
    let mut c = b.upload_matrix(&x.matrix::<T>("w"))?;
    let mask = MMask::<B, T>::load(b, x)?;
    with_desc!(x, mask.get(mask_kind), all_accums, d =>
        ops::extract_matrix(b, &mut c, &a, &rows, &cols, &d))?;
    Ok(Got::Matrix(b.download_matrix(&c)?))
}

/// assign of a vector or a matrix at distinct indices (GrB_assign: the mask
/// spans the whole output).
fn assign<B: Be, T: Val>(b: &B, x: &Ctx) -> Outcome<T> {
    let mask_kind = x.c.str("mask");
    let rows = x.c.indices("I");
    if x.vector_kind() {
        let u = b.upload_vector(&x.vector::<T>("u"))?;
        let mut w = b.upload_vector(&x.vector::<T>("w"))?;
        let mask = VMask::<B, T>::load(b, x)?;
        with_desc!(x, mask.get(mask_kind), all_accums, d =>
            ops::assign(b, &mut w, &u, &rows, &d))?;
        return Ok(Got::Vector(b.download_vector(&w)?));
    }
    let cols = x.c.indices("J");
    let a = b.upload_matrix(&x.matrix::<T>("a"))?;
    let mut c = b.upload_matrix(&x.matrix::<T>("w"))?;
    let mask = MMask::<B, T>::load(b, x)?;
    with_desc!(x, mask.get(mask_kind), all_accums, d =>
        ops::assign_matrix(b, &mut c, &a, &rows, &cols, &d))?;
    Ok(Got::Matrix(b.download_matrix(&c)?))
}

/// assign of a scalar to a vector at distinct indices, or everywhere (`I` null).
fn assign_scalar<B: Be, T: Val>(b: &B, x: &Ctx) -> Outcome<T> {
    let mask_kind = x.c.str("mask");
    let s = T::parse(x.c.get("scalar"));
    let idx = x.c.has("I").then(|| x.c.indices("I"));
    let mut w = b.upload_vector(&x.vector::<T>("w"))?;
    let mask = VMask::<B, T>::load(b, x)?;
    with_desc!(x, mask.get(mask_kind), all_accums, d =>
        ops::assign_scalar(b, &mut w, s, idx.as_deref(), &d))?;
    Ok(Got::Vector(b.download_vector(&w)?))
}

/// C = A' (C = A with the transpose flag).
fn transpose<B: Be, T: Val>(b: &B, x: &Ctx) -> Outcome<T> {
    let mask_kind = x.c.str("mask");
    let a = b.upload_matrix(&x.matrix::<T>("a"))?;
    let mut c = b.upload_matrix(&x.matrix::<T>("w"))?;
    let mask = MMask::<B, T>::load(b, x)?;
    with_desc!(x, mask.get(mask_kind), all_accums, d =>
        ops::transpose(b, &mut c, &a, &d))?;
    Ok(Got::Matrix(b.download_matrix(&c)?))
}

// ---------------------------------------------------------------- comparing

/// Whether the case adds or multiplies floats in an order that may differ
/// from SuiteSparse's (a PLUS semiring's sums, a PLUS or TIMES reduction):
/// only there may float results differ, by rounding.
fn reorders(c: &Json) -> bool {
    matches!(c.opt_str("semiring"), Some("plus_times" | "plus_minus"))
        || matches!(c.opt_str("monoid"), Some("plus" | "times"))
}

/// `None` where the run's answer is SuiteSparse's, else the differences.
fn compare<T: Val>(x: &Ctx, got: &Got<T>) -> Compared {
    let want = x.c.get("result");
    let sums = reorders(x.c);
    let min_max = matches!(x.c.opt_str("semiring"), Some(s) if s.starts_with("min_") || s.starts_with("max_"))
        || matches!(x.c.opt_str("monoid"), Some("min" | "max"));
    let show = |v: Option<T>| v.map_or("absent".to_string(), |v| format!("{v:?}"));
    let (shape_want, shape_got, want_e, got_e): (String, String, Vec<_>, Vec<_>) = match got {
        Got::Scalar(s) => {
            let w = T::parse(want.get("scalar"));
            return (!T::agree(w, *s, sums))
                .then(|| format!("SuiteSparse {w:?}, bitgraphblas {s:?}"));
        }
        Got::Vector(v) => {
            let (is, xs) = (want.indices("i"), want.get("x").arr());
            let we = is
                .iter()
                .zip(xs)
                .map(|(&i, x)| ((i, 0), T::parse(x)))
                .collect();
            let ge = v.entries().into_iter().map(|(i, x)| ((i, 0), x)).collect();
            (
                format!("length {}", want.usize("n")),
                format!("length {}", v.len()),
                we,
                ge,
            )
        }
        Got::Matrix(m) => {
            let (is, js, xs) = (want.indices("i"), want.indices("j"), want.get("x").arr());
            let we = (0..is.len())
                .map(|k| ((is[k], js[k]), T::parse(&xs[k])))
                .collect();
            let csr = m.as_csr();
            let mut ge = Vec::with_capacity(csr.nnz());
            for i in 0..csr.nrows() {
                for p in csr.row_ptr()[i]..csr.row_ptr()[i + 1] {
                    ge.push(((i, csr.col_idx()[p] as usize), csr.values()[p]));
                }
            }
            (
                format!("{}x{}", want.usize("r"), want.usize("c")),
                format!("{}x{}", m.nrows(), m.ncols()),
                we,
                ge,
            )
        }
    };
    if shape_want != shape_got {
        return Some(format!(
            "shape: SuiteSparse {shape_want}, bitgraphblas {shape_got}"
        ));
    }
    let want_m: BTreeMap<(usize, usize), T> = want_e.into_iter().collect();
    let got_m: BTreeMap<(usize, usize), T> = got_e.into_iter().collect();
    let mut diffs = Vec::new();
    let mut count = 0;
    for k in want_m
        .keys()
        .chain(got_m.keys().filter(|k| !want_m.contains_key(k)))
    {
        let (w, g) = (want_m.get(k).copied(), got_m.get(k).copied());
        let same = match (w, g) {
            (Some(w), Some(g)) => T::agree(w, g, sums) || (min_max && T::lone_nan(w, g)),
            (None, None) => true,
            _ => false,
        };
        if !same {
            count += 1;
            if diffs.len() < 6 {
                let at = if matches!(got, Got::Vector(_)) {
                    format!("[{}]", k.0)
                } else {
                    format!("({}, {})", k.0, k.1)
                };
                diffs.push(format!(
                    "{at}: SuiteSparse {}, bitgraphblas {}",
                    show(w),
                    show(g)
                ));
            }
        }
    }
    (count > 0).then(|| {
        format!(
            "{count} of {} entries differ (bitgraphblas has {}): {}",
            want_m.len(),
            got_m.len(),
            diffs.join("; ")
        )
    })
}

// ---------------------------------------------------------------- known differences

/// A deliberate difference from SuiteSparse: a case that disagrees and that
/// `applies` picks out is counted under `name` instead of failing. A case that
/// agrees is never counted here.
pub struct Known {
    pub name: &'static str,
    pub applies: fn(&Json) -> bool,
}

/// Every deliberate difference (README.md, "Differences from SuiteSparse").
pub const KNOWN: &[Known] = &[
    // SuiteSparse reads a valued mask entry by testing its bytes for nonzero
    // (GB_mcast), so a float -0.0 allows; bitgraphblas casts the value to bool
    // as the C API says (`x != 0`), so -0.0 does not.
    Known {
        name: "valued float mask entry -0.0",
        applies: negative_zero_valued_mask,
    },
    // SuiteSparse defines integer x / 0 as the type's maximum (x > 0), minimum
    // (x < 0) or 0 (x = 0); bitgraphblas's DIV gives 0 (documented in
    // `algebra::Div`).
    Known {
        name: "integer division by zero",
        applies: integer_division,
    },
];

fn negative_zero_valued_mask(c: &Json) -> bool {
    matches!(c.opt_str("mask"), Some("v" | "vc"))
        && matches!(c.opt_str("mtype"), Some("fp32" | "fp64"))
        && c.get("m")
            .get("x")
            .arr()
            .iter()
            .any(|x| x == &Json::Num("-0.0".into()))
}

fn integer_division(c: &Json) -> bool {
    let int = matches!(c.opt_str("type"), Some("int32" | "uint64"));
    int && (c.opt_str("binop") == Some("div") || c.opt_str("accum") == Some("div"))
}

/// The known difference that explains a disagreeing case, if any.
pub fn known_difference(c: &Json) -> Option<&'static str> {
    KNOWN.iter().find(|k| (k.applies)(c)).map(|k| k.name)
}

// ---------------------------------------------------------------- reporting

/// A one-line summary of a case: class, type, operator, descriptor, operand shapes.
pub fn describe(c: &Json) -> String {
    let mut s = format!("case {} {} {}", c.int("id"), c.str("op"), c.str("type"));
    for k in ["semiring", "binop", "unary", "bind", "select", "monoid"] {
        if let Some(v) = c.opt_str(k) {
            s += &format!(" {k}={v}");
        }
    }
    for k in ["k", "scalar", "alpha", "beta"] {
        if c.has(k) {
            s += &format!(" {k}={}", scalar_text(c.get(k)));
        }
    }
    s += &format!(
        " accum={} mask={}",
        c.opt_str("accum").unwrap_or("none"),
        c.str("mask")
    );
    if let Some(t) = c.opt_str("mtype") {
        s += &format!("({t})");
    }
    for k in ["replace", "ta", "tb"] {
        if c.flag(k) {
            s += &format!(" {k}");
        }
    }
    for k in ["a", "b", "u", "v", "w", "m"] {
        let o = c.get(k);
        if o.has("r") {
            s += &format!(
                " {k}:{}x{}/{}",
                o.usize("r"),
                o.usize("c"),
                o.get("i").arr().len()
            );
        } else if o.has("n") {
            s += &format!(" {k}:{}/{}", o.usize("n"), o.get("i").arr().len());
        }
    }
    s
}

fn scalar_text(j: &Json) -> String {
    match j {
        Json::Num(s) | Json::Str(s) => s.clone(),
        other => format!("{other:?}"),
    }
}

/// The operands of a small case written out in full (`None` when large).
pub fn operands(c: &Json) -> Option<String> {
    let mut out = String::new();
    for k in ["a", "b", "u", "v", "w", "m", "I", "J", "result"] {
        let o = c.get(k);
        if matches!(o, Json::Null) {
            continue;
        }
        let n = o.get("i").arr().len() + o.arr().len();
        if n > 40 {
            return None;
        }
        out += &format!("\n    {k}: {}", compact(o));
    }
    Some(out)
}

fn compact(j: &Json) -> String {
    match j {
        Json::Null => "null".into(),
        Json::Bool(b) => b.to_string(),
        Json::Num(s) => s.clone(),
        Json::Str(s) => format!("{s:?}"),
        Json::Arr(v) => format!("[{}]", v.iter().map(compact).collect::<Vec<_>>().join(",")),
        Json::Obj(m) => format!(
            "{{{}}}",
            m.iter()
                .map(|(k, v)| format!("{k}:{}", compact(v)))
                .collect::<Vec<_>>()
                .join(" ")
        ),
    }
}

/// Per-(class, run) tallies for the summary table.
#[derive(Default)]
pub struct Tally {
    /// (class, run name) -> [agreed, disagreed, known, skipped (no operand in the format)]
    pub cells: BTreeMap<(String, String), [usize; 4]>,
    /// known difference -> count
    pub known: BTreeMap<&'static str, usize>,
}

impl Tally {
    pub fn add(&mut self, class: &str, run: &str, slot: usize) {
        self.cells
            .entry((class.to_string(), run.to_string()))
            .or_default()[slot] += 1;
    }

    /// The table: one row per class, one column per run name (agreed/total).
    pub fn table(&self) -> String {
        let mut runs: Vec<&String> = self.cells.keys().map(|k| &k.1).collect();
        runs.sort();
        runs.dedup();
        let mut classes: Vec<&String> = self.cells.keys().map(|k| &k.0).collect();
        classes.sort();
        classes.dedup();
        let mut s = format!("{:<14}", "class");
        for r in &runs {
            s += &format!(" {r:>13}");
        }
        s += "\n";
        let mut totals = vec![[0usize; 4]; runs.len()];
        for c in &classes {
            s += &format!("{c:<14}");
            for (ri, r) in runs.iter().enumerate() {
                let v = self
                    .cells
                    .get(&(c.to_string(), r.to_string()))
                    .copied()
                    .unwrap_or_default();
                for k in 0..4 {
                    totals[ri][k] += v[k];
                }
                s += &format!(" {:>13}", cell(v));
            }
            s += "\n";
        }
        s += &format!("{:<14}", "all");
        for t in &totals {
            s += &format!(" {:>13}", cell(*t));
        }
        s + "\n(agreed/run; +k known differences; !n disagreements)"
    }
}

fn cell(v: [usize; 4]) -> String {
    let run = v[0] + v[1] + v[2];
    let mut s = format!("{}/{}", v[0], run);
    if v[2] > 0 {
        s += &format!("+{}", v[2]);
    }
    if v[1] > 0 {
        s += &format!("!{}", v[1]);
    }
    s
}

/// The run names of a case: format, and "/user" for a user semiring.
pub fn run_name(format: Format, variant: Variant) -> String {
    match variant {
        Variant::Builtin => format_name(format),
        Variant::User => format!("{}/user", format_name(format)),
    }
}

/// Runs every case through `b` in every format and variant, prints the table
/// and the mismatches, and fails on any run that disagrees with SuiteSparse
/// (an error, `NoKernel` included, counts as disagreeing) unless the case is
/// a [`KNOWN`] difference. Mismatches print as they are found, with a
/// progress line every 250 cases, so a run cut short still tells what it saw.
pub fn agree_with_suitesparse<B: Be>(b: &B) {
    let (_, cases) = load_cases();
    assert!(!cases.is_empty(), "no cases");
    let start = std::time::Instant::now();
    let mut tally = Tally::default();
    let mut failures = 0usize;
    for (done, c) in cases.iter().enumerate() {
        if done % 250 == 0 && done > 0 {
            eprintln!(
                "... {done}/{} cases, {:.0} s, {failures} disagreements",
                cases.len(),
                start.elapsed().as_secs_f64()
            );
        }
        let class = c.str("op");
        for variant in variants(c) {
            // Whether some operand is iso-valued, so that B2SR can hold it:
            // known after the first B2SR run, the same at every tile size.
            let mut b2sr_used = None;
            for format in FORMATS {
                let name = run_name(format, variant);
                if format != Format::Csr && b2sr_used == Some(false) {
                    tally.add(class, &name, 3);
                    continue;
                }
                let x = Ctx::new(c, format, variant);
                let outcome = run(b, &x);
                if format != Format::Csr {
                    b2sr_used = Some(x.used_format());
                    if !x.used_format() {
                        // The CSR run covered this case.
                        tally.add(class, &name, 3);
                        continue;
                    }
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
                if failures < 40 {
                    eprintln!("MISMATCH {} [{name}]\n    {diff}", describe(c));
                    if let Some(o) = operands(c).filter(|_| failures < 10) {
                        eprintln!("  operands:{o}");
                    }
                }
                failures += 1;
            }
        }
    }
    eprintln!(
        "{}\n{} cases in {:.1} s",
        tally.table(),
        cases.len(),
        start.elapsed().as_secs_f64()
    );
    for (k, n) in &tally.known {
        eprintln!("known difference, {n} runs: {k}");
    }
    assert!(
        failures == 0,
        "{failures} runs disagree with SuiteSparse (replay one: BITGRAPHBLAS_SUITESPARSE_CASE=ID)"
    );
}
