//! The kernel table: every CUDA module, its compile-time defines and its entry
//! points. `tests/cuda_kernels.rs` checks it against the `.entry` set of the
//! compiled PTX in both directions; the typed launches (`launch/`, where each
//! launched entry's name is spelled once) are checked against it by a unit
//! test there.
//!
//! Modules (sources in `cuda/`, headers inlined by `build.rs`):
//! - `pack`: type-free kernels (scans, CSR <-> B2SR, segments, `bin_bin_sum`, bits).
//! - `vec_<type>`: element-wise kernels for one element type.
//! - `sr_<semiring>_<type>`: B2SR `mxv`/`mxm_dense`, CSR `mxv` and CSR
//!   `mxm_reduce` for one built-in semiring at one element type, or for a user
//!   semiring's operators given as source (`sr_user<n>_<type>`, [`SrKey::User`]).
//! - `push_<semiring>_<type>`: push products `u ⊕.⊗ A` on CSR and B2SR
//!   (scatter from the input's entries, no transpose) for the same semirings.
//! - `mat_<type>`: matrix-level kernels on CSR with values (transpose,
//!   element-wise, select, scale, extract/assign maps, the masked output phase).
//! - `transpose`: type-free B2SR transpose (tile structure and in-tile bits).
//! - `mxm`: type-free boolean product with a B2SR result, and the masked,
//!   accumulating write of a B2SR result.
//! - `visit`: breadth-first push levels, fused into one cooperative launch,
//!   pulled levels, and delta-stepping's buckets (`f64` weights).
//! - `bits_convert`, `bits_bmm`, `bits_bspmm`: type-free dense-bit kernels
//!   (conversions; BMM on the 1-bit tensor cores, by popcounts and on f32;
//!   B2SR/CSR times bits), each product at every output kind, plain and
//!   over bit planes.
//! - `dense_mxm_<semiring>_<type>`: products of dense row-major matrices
//!   over one semiring (built-in, or a user one as for `sr_*`) at one
//!   element type.
//! - `dense_rows`: type-free row kernels of `f32` dense matrices
//!   (`argmax`, `log_softmax`) and the CSR product of `i32` counts
//!   (`ext::mxm_counts_scaled`, with the pass that packs them into bytes).

use std::sync::Mutex;

use crate::algebra::{DeviceOps, SemiringKind};
use crate::error::{Error, Result};
use crate::scalar::ScalarType;

/// The embedded sources (after `build.rs` inlined the headers).
pub(crate) const PACK_SRC: &str = include_str!(concat!(env!("OUT_DIR"), "/pack.cu"));
pub(crate) const VEC_SRC: &str = include_str!(concat!(env!("OUT_DIR"), "/vec.cu"));
pub(crate) const SR_SRC: &str = include_str!(concat!(env!("OUT_DIR"), "/sr.cu"));
pub(crate) const MAT_SRC: &str = include_str!(concat!(env!("OUT_DIR"), "/matrix.cu"));
pub(crate) const TRANSPOSE_SRC: &str = include_str!(concat!(env!("OUT_DIR"), "/transpose.cu"));
pub(crate) const MXM_SRC: &str = include_str!(concat!(env!("OUT_DIR"), "/mxm.cu"));
pub(crate) const PUSH_SRC: &str = include_str!(concat!(env!("OUT_DIR"), "/push.cu"));
pub(crate) const VISIT_SRC: &str = include_str!(concat!(env!("OUT_DIR"), "/visit.cu"));
pub(crate) const BITS_CONVERT_SRC: &str =
    include_str!(concat!(env!("OUT_DIR"), "/bits_convert.cu"));
pub(crate) const BITS_BMM_SRC: &str = include_str!(concat!(env!("OUT_DIR"), "/bits_bmm.cu"));
pub(crate) const BITS_BSPMM_SRC: &str = include_str!(concat!(env!("OUT_DIR"), "/bits_bspmm.cu"));
pub(crate) const DENSE_MXM_SRC: &str = include_str!(concat!(env!("OUT_DIR"), "/dense_mxm.cu"));
pub(crate) const DENSE_ROWS_SRC: &str = include_str!(concat!(env!("OUT_DIR"), "/dense_rows.cu"));

/// Tile sizes with device kernels.
pub const TILE_KS: [usize; 4] = [4, 8, 16, 32];

/// Lanes a row of the CSR x bits product by vertical counters
/// (`bits_bspmm_csr_<out>_k<lanes>`): one u32 word of the features each.
pub(crate) const CSR_ROW_LANES: [usize; 6] = [1, 2, 4, 8, 16, 32];

/// Lanes a row of the CSR x bits product by lanes
/// (`bits_bspmm_lanes_<out>_k<lanes>`): an entry each.
pub(crate) const CSR_LANE_GROUPS: [usize; 4] = [4, 8, 16, 32];

/// Per-tile-size entries of `pack` (each gets `_k4`, `_k8`, `_k16`, `_k32`).
pub(crate) const PACK_TILED: [&str; 6] = [
    "csr_to_b2sr_count",
    "csr_to_b2sr_fill",
    "b2sr_to_csr_count",
    "b2sr_to_csr_fill",
    "b2sr_tc",
    "b2sr_select",
];
/// Entries of `pack` without a tile size.
pub(crate) const PACK_PLAIN: [&str; 11] = [
    "pack_chunks",
    "scan_block",
    "scan_add",
    "seg_count",
    "seg_fill",
    "cols_widen",
    "tiles_compact",
    "popc_words",
    "bits_not",
    "bits_writeback",
    "pres_flags",
];
/// Entries of `vec_<type>` (each gets `_<type>`).
pub(crate) const VEC_ENTRIES: [&str; 19] = [
    "vec_fill",
    "vec_mask",
    "vec_writeback",
    "vec_ewise",
    "vec_apply",
    "vec_select",
    "vec_reduce",
    "bits_to_vals",
    "count_ne",
    "vec_compact",
    "sparse_scatter",
    "vec_gather",
    "vec_scatter",
    "vec_assign_all",
    "reduce_rows_iso",
    "reduce_rows_csr",
    "scale_dense",
    "dense_accum",
    "vec_ewise_gather",
];
/// Entries of `mat_<type>` (each gets `_<type>`).
pub(crate) const MAT_ENTRIES: [&str; 15] = [
    "csr_row_ids",
    "col_counts",
    "radix_hist",
    "radix_scatter",
    "csr_gather",
    "ewise_count",
    "ewise_fill",
    "select_flags",
    "scale_flags",
    "region_flags",
    "csr_compact",
    "map_count",
    "map_fill",
    "mat_write_count",
    "mat_write_fill",
];
/// Per-tile-size entries of `sr_<semiring>_<type>` (`b2sr_mxm_dense_k8_plus_times_f32`).
pub(crate) const SR_TILED: [&str; 1] = ["b2sr_mxm_dense"];
/// Entries of `sr_<semiring>_<type>` for k = 4 and 8 only (`mxv` in one launch).
pub(crate) const SR_NARROW: [&str; 2] = ["b2sr_mxv_fused", "b2sr_mxv_fused_c16"];
/// Entries of `sr_<semiring>_<type>` for k = 16 and 32 only.
pub(crate) const SR_WIDE: [&str; 3] = ["b2sr_mxv_short", "b2sr_mxv", "b2sr_mxv_fix"];
/// Entries of `sr_<semiring>_<type>` without a tile size.
pub(crate) const SR_PLAIN: [&str; 9] = [
    "csr_mxv",
    "csr_mxv_long",
    "csr_mxv_fix",
    "csr_mxv_blocks",
    "csr_mxm_reduce_dot",
    "csr_mxm_merge",
    "csr_mxm_dense",
    "csr_mxm_dense_rounds",
    "csr_mxm_dense_long",
];
/// Per-tile-size entries of `push_<semiring>_<type>`.
pub(crate) const PUSH_TILED: [&str; 2] = ["b2sr_push", "b2sr_push_seg"];
/// Entries of `push_<semiring>_<type>` without a tile size.
pub(crate) const PUSH_PLAIN: [&str; 1] = ["csr_push"];
/// Per-tile-size entries of `transpose`.
pub(crate) const TRANSPOSE_TILED: [&str; 1] = ["b2sr_tr_tiles"];
/// Entries of `transpose` without a tile size.
pub(crate) const TRANSPOSE_PLAIN: [&str; 3] = ["b2sr_tr_count", "b2sr_tr_fill", "b2sr_tr_sort"];
/// Per-tile-size entries of `visit` (fused BFS push levels, pulled levels).
pub(crate) const VISIT_TILED: [&str; 3] = ["bfs_push_b2sr", "bfs_block_b2sr", "bfs_pull_b2sr"];
/// Entries of `visit` without a tile size (BFS on CSR, delta-stepping's buckets).
pub(crate) const VISIT_PLAIN: [&str; 9] = [
    "bfs_push_csr",
    "bfs_block_csr",
    "bfs_stats",
    "bfs_pull_csr",
    "sssp_sources",
    "sssp_bucket",
    "sssp_light",
    "sssp_light_wide",
    "sssp_heavy",
];
/// Per-tile-size entries of `mxm`.
pub(crate) const MXM_TILED: [&str; 2] = ["mxm_numeric", "b2sr_merge"];
/// Entries of `mxm` without a tile size.
pub(crate) const MXM_PLAIN: [&str; 5] = [
    "mxm_bound",
    "mxm_symbolic",
    "mxm_collect",
    "b2sr_tc_tensor_k16",
    "b2sr_tc_tensor_k32",
];

/// Entries of `bits_convert`.
pub(crate) const BITS_CONVERT: [&str; 10] = [
    "bits_binarize_rm",
    "bits_binarize_cm",
    "bits_mean_abs_rows",
    "bits_mean_abs_part",
    "bits_mean_abs_cols",
    "bits_unpack",
    "bits_transpose",
    "bits_quantize_rm",
    "bits_quantize_cm",
    "bits_dequantize",
];
/// Entries of `dense_mxm_<semiring>_<type>` (each gets `_<semiring>_<type>`):
/// the tiled product for narrow and for wide outputs.
pub(crate) const DENSE_MXM: [&str; 2] = ["dense_mxm_n16", "dense_mxm_n64"];
/// Entries of `dense_rows` (f32 row reductions, the product of counts).
pub(crate) const DENSE_ROWS: [&str; 6] = [
    "dense_argmax_rows",
    "dense_log_softmax_rows",
    "counts_pack",
    "csr_mxm_counts",
    "csr_mxm_counts_packed",
    "csr_mxm_counts_packed_ones",
];

/// The bit products' output kinds, as entry names spell them
/// (`BitOutput::Counts`, `Scaled`, `Bits`).
pub(crate) const BIT_OUTPUTS: [&str; 3] = ["counts", "scaled", "bits"];
/// Product families of `bits_bmm` with an entry per output kind, plain and
/// over bit planes (`bits_bmm_tc4_scaled_planes`): the tensor-core kernel
/// with 2 or 4 warps along m, the tensor-core kernel for thin k (w in shared
/// memory), the popcount kernel for thin shapes.
pub(crate) const BITS_BMM_FAMILIES: [&str; 4] = [
    "bits_bmm_tc2",
    "bits_bmm_tc4",
    "bits_bmm_thin",
    "bits_bmm_popc",
];
/// Entries of `bits_bmm` for f32 activations (no counts, no planes).
pub(crate) const BITS_BMM_F32: [&str; 2] = ["bits_bmm_f32_scaled", "bits_bmm_f32_bits"];
/// The warpgroup kernel of `bits_bmm` (plain products only, one entry per
/// output kind; an empty body where the target is not sm_90a) and the line
/// popcounts it takes.
pub(crate) const BITS_BMM_WG: [&str; 4] = [
    "bits_bmm_wg_counts",
    "bits_bmm_wg_scaled",
    "bits_bmm_wg_bits",
    "bits_line_popc",
];

/// `<family>_<output>[_planes]` for every output kind, plain then planes.
fn bit_products(family: &str) -> Vec<String> {
    ["", "_planes"]
        .iter()
        .flat_map(|p| BIT_OUTPUTS.iter().map(move |o| format!("{family}_{o}{p}")))
        .collect()
}

/// Every element type.
pub const SCALAR_TYPES: [ScalarType; 7] = [
    ScalarType::Bool,
    ScalarType::I32,
    ScalarType::U32,
    ScalarType::I64,
    ScalarType::U64,
    ScalarType::F32,
    ScalarType::F64,
];

const NUMERIC: [ScalarType; 6] = [
    ScalarType::I32,
    ScalarType::U32,
    ScalarType::I64,
    ScalarType::U64,
    ScalarType::F32,
    ScalarType::F64,
];

/// The built-in semirings with device kernels, at each element type.
pub fn semiring_instances() -> Vec<(SemiringKind, ScalarType)> {
    let mut v = vec![(SemiringKind::LorLand, ScalarType::Bool)];
    v.extend(SCALAR_TYPES.iter().map(|&t| (SemiringKind::AnyPair, t)));
    for kind in [
        SemiringKind::PlusTimes,
        SemiringKind::PlusPair,
        SemiringKind::MinPlus,
        SemiringKind::MinSecond,
        SemiringKind::MinFirst,
        SemiringKind::MaxMin,
    ] {
        v.extend(NUMERIC.iter().map(|&t| (kind, t)));
    }
    v.extend(
        [
            ScalarType::U32,
            ScalarType::U64,
            ScalarType::F32,
            ScalarType::F64,
        ]
        .iter()
        .map(|&t| (SemiringKind::MaxTimes, t)),
    );
    v
}

/// The CUDA type name (the typedefs of `cuda/common.cuh`) and entry suffix of a type.
pub fn type_name(t: ScalarType) -> &'static str {
    match t {
        ScalarType::Bool => "bool",
        ScalarType::I32 => "i32",
        ScalarType::U32 => "u32",
        ScalarType::I64 => "i64",
        ScalarType::U64 => "u64",
        ScalarType::F32 => "f32",
        ScalarType::F64 => "f64",
    }
}

/// The (additive, multiplicative) operator codes of a semiring family
/// (the order of `BuiltinOp`, as in `cuda/common.cuh`).
pub(crate) fn semiring_ops(kind: SemiringKind) -> (u32, u32) {
    use crate::algebra::BuiltinOp as B;
    let (a, m) = match kind {
        SemiringKind::LorLand => (B::Lor, B::Land),
        SemiringKind::AnyPair => (B::Any, B::Pair),
        SemiringKind::PlusTimes => (B::Plus, B::Times),
        SemiringKind::PlusPair => (B::Plus, B::Pair),
        SemiringKind::MinPlus => (B::Min, B::Plus),
        SemiringKind::MaxTimes => (B::Max, B::Times),
        SemiringKind::MinSecond => (B::Min, B::Second),
        SemiringKind::MinFirst => (B::Min, B::First),
        SemiringKind::MaxMin => (B::Max, B::Min),
    };
    (a as u32, m as u32)
}

/// The semiring of a semiring module: a built-in family, or a user
/// semiring's operators as source ([`DeviceOps`]), numbered in the order
/// this process first met them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SrKey {
    /// A built-in family (its operators by code).
    Builtin(SemiringKind),
    /// The `n`-th distinct [`DeviceOps`] of this process.
    User(u32),
}

/// The distinct user semirings met so far; [`SrKey::User`] indexes it.
static USER_SEMIRINGS: Mutex<Vec<DeviceOps>> = Mutex::new(Vec::new());

impl SrKey {
    /// The key of a user semiring's operators (the same operators, the same key).
    pub fn user(ops: DeviceOps) -> SrKey {
        let mut known = USER_SEMIRINGS.lock().unwrap_or_else(|e| e.into_inner());
        let n = match known.iter().position(|o| *o == ops) {
            Some(n) => n,
            None => {
                known.push(ops);
                known.len() - 1
            }
        };
        SrKey::User(n as u32)
    }
    /// The name inside module and entry names (`plus_times`, `user0`).
    pub fn name(self) -> String {
        match self {
            SrKey::Builtin(kind) => kind.name().into(),
            SrKey::User(n) => format!("user{n}"),
        }
    }
    /// The built-in family, `None` for a user semiring.
    pub fn kind(self) -> Option<SemiringKind> {
        match self {
            SrKey::Builtin(kind) => Some(kind),
            SrKey::User(_) => None,
        }
    }
    /// The `-D` options that define the semiring (besides `SR_T` and `SR_NAME`).
    fn options(self) -> Vec<String> {
        match self {
            SrKey::Builtin(kind) => {
                let (add, mul) = semiring_ops(kind);
                vec![format!("-DSR_ADD={add}"), format!("-DSR_MUL={mul}")]
            }
            SrKey::User(n) => {
                let ops = USER_SEMIRINGS.lock().unwrap_or_else(|e| e.into_inner())[n as usize];
                let mut o = vec![
                    "-DSR_ADD=-1".to_string(),
                    "-DSR_MUL=-1".to_string(),
                    "-DSR_USER=1".to_string(),
                    format!("-DSR_USER_ADD={}", ops.add()),
                    format!("-DSR_USER_MUL={}", ops.mul()),
                    format!("-DSR_USER_ZERO={}", ops.zero()),
                ];
                if ops.mul_flipped() {
                    o.push("-DSR_USER_MUL_FLIPPED=1".into());
                }
                o
            }
        }
    }
}

/// Which module a kernel lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ModuleId {
    /// Type-free kernels.
    Pack,
    /// Element-wise kernels for one type.
    Vec(ScalarType),
    /// Semiring kernels for one semiring and type.
    Sr(SrKey, ScalarType),
    /// Push products for one semiring and type.
    Push(SrKey, ScalarType),
    /// Matrix-level CSR kernels for one type.
    Mat(ScalarType),
    /// B2SR transpose (type-free).
    Transpose,
    /// Products with a B2SR result and the B2SR write-back (type-free).
    Mxm,
    /// Breadth-first push levels fused into one launch (type-free).
    Visit,
    /// Dense-bit conversions (type-free).
    BitsConvert,
    /// BMM on dense bits (type-free).
    BitsBmm,
    /// BSpMM: B2SR or CSR times dense bits (type-free).
    BitsBspmm,
    /// Dense times dense for one semiring and type.
    DenseMxm(SrKey, ScalarType),
    /// Row reductions of `f32` dense matrices (type-free).
    DenseRows,
}

/// A module: its name, source, NVRTC options and entry points.
#[derive(Clone, Debug)]
pub struct ModuleSpec {
    /// Which module.
    pub id: ModuleId,
    /// Unique name (`sr_plus_times_f32`).
    pub name: String,
    /// The source text.
    pub source: &'static str,
    /// `-D` options.
    pub options: Vec<String>,
    /// Entry point names.
    pub entries: Vec<String>,
}

/// A type-free module without `-D` options.
fn plain_module(
    id: ModuleId,
    name: &str,
    source: &'static str,
    tiled_entries: &[&str],
    plain: &[&str],
) -> ModuleSpec {
    let mut entries = tiled(tiled_entries, "");
    entries.extend(plain.iter().map(|s| s.to_string()));
    ModuleSpec {
        id,
        name: name.into(),
        source,
        options: vec![],
        entries,
    }
}

fn tiled(bases: &[&str], suffix: &str) -> Vec<String> {
    bases
        .iter()
        .flat_map(|b| TILE_KS.iter().map(move |k| format!("{b}_k{k}{suffix}")))
        .collect()
}

impl ModuleId {
    /// The module's specification.
    pub fn spec(self) -> ModuleSpec {
        match self {
            ModuleId::Pack => {
                let mut entries = tiled(&PACK_TILED, "");
                entries.extend(PACK_PLAIN.iter().map(|s| s.to_string()));
                ModuleSpec {
                    id: self,
                    name: "pack".into(),
                    source: PACK_SRC,
                    options: vec![],
                    entries,
                }
            }
            ModuleId::Vec(t) => {
                let tn = type_name(t);
                ModuleSpec {
                    id: self,
                    name: format!("vec_{tn}"),
                    source: VEC_SRC,
                    options: vec![format!("-DVT={tn}"), format!("-DVT_NAME={tn}")],
                    entries: VEC_ENTRIES.iter().map(|e| format!("{e}_{tn}")).collect(),
                }
            }
            ModuleId::Mat(t) => {
                let tn = type_name(t);
                ModuleSpec {
                    id: self,
                    name: format!("mat_{tn}"),
                    source: MAT_SRC,
                    options: vec![format!("-DMT={tn}"), format!("-DMT_NAME={tn}")],
                    entries: MAT_ENTRIES.iter().map(|e| format!("{e}_{tn}")).collect(),
                }
            }
            ModuleId::Sr(key, t) | ModuleId::Push(key, t) => {
                let tn = type_name(t);
                let name = format!("{}_{tn}", key.name());
                let (prefix, source, tiled_e, plain): (_, _, &[&str], &[&str]) = match self {
                    ModuleId::Push(..) => ("push", PUSH_SRC, &PUSH_TILED, &PUSH_PLAIN),
                    _ => ("sr", SR_SRC, &SR_TILED, &SR_PLAIN),
                };
                let mut entries = tiled(tiled_e, &format!("_{name}"));
                if let ModuleId::Sr(..) = self {
                    for (bases, ks) in [(&SR_NARROW[..], [4, 8]), (&SR_WIDE[..], [16, 32])] {
                        for b in bases {
                            entries.extend(ks.iter().map(|k| format!("{b}_k{k}_{name}")));
                        }
                    }
                }
                entries.extend(plain.iter().map(|e| format!("{e}_{name}")));
                ModuleSpec {
                    id: self,
                    name: format!("{prefix}_{name}"),
                    source,
                    // No FMA contraction: `acc ⊕ (a ⊗ b)` rounds the product
                    // first, as the CPU backend does, so float results match
                    // it exactly (these kernels are bound by memory, not flops).
                    options: [
                        format!("-DSR_T={tn}"),
                        format!("-DSR_NAME={name}"),
                        "--fmad=false".to_string(),
                    ]
                    .into_iter()
                    .chain(key.options())
                    .collect(),
                    entries,
                }
            }
            ModuleId::DenseMxm(key, t) => {
                let tn = type_name(t);
                let name = format!("{}_{tn}", key.name());
                let mut options = vec![format!("-DSR_T={tn}"), format!("-DSR_NAME={name}")];
                // A user semiring's `acc ⊕ (a ⊗ b)` rounds the product first, as
                // the CPU's generic loop does, so its float results match it
                // exactly. The built-in families keep FMA contraction: the
                // product is bound by flops, and the CPU's own `PLUS_TIMES`
                // is a GEMM with its own rounding (the tests allow for it).
                if key.kind().is_none() {
                    options.push("--fmad=false".to_string());
                }
                options.extend(key.options());
                ModuleSpec {
                    id: self,
                    name: format!("dense_mxm_{name}"),
                    source: DENSE_MXM_SRC,
                    options,
                    entries: DENSE_MXM.iter().map(|e| format!("{e}_{name}")).collect(),
                }
            }
            ModuleId::DenseRows => {
                plain_module(self, "dense_rows", DENSE_ROWS_SRC, &[], &DENSE_ROWS)
            }
            ModuleId::Transpose => plain_module(
                self,
                "transpose",
                TRANSPOSE_SRC,
                &TRANSPOSE_TILED,
                &TRANSPOSE_PLAIN,
            ),
            ModuleId::Mxm => plain_module(self, "mxm", MXM_SRC, &MXM_TILED, &MXM_PLAIN),
            ModuleId::Visit => plain_module(self, "visit", VISIT_SRC, &VISIT_TILED, &VISIT_PLAIN),
            ModuleId::BitsConvert => {
                plain_module(self, "bits_convert", BITS_CONVERT_SRC, &[], &BITS_CONVERT)
            }
            ModuleId::BitsBmm => {
                let mut entries: Vec<String> = BITS_BMM_FAMILIES
                    .iter()
                    .flat_map(|f| bit_products(f))
                    .collect();
                entries.extend(BITS_BMM_F32.iter().map(|s| s.to_string()));
                entries.extend(BITS_BMM_WG.iter().map(|s| s.to_string()));
                ModuleSpec {
                    id: self,
                    name: "bits_bmm".into(),
                    source: BITS_BMM_SRC,
                    options: vec![],
                    entries,
                }
            }
            ModuleId::BitsBspmm => {
                let products = bit_products("bits_bspmm");
                let bases: Vec<&str> = products.iter().map(String::as_str).collect();
                let mut entries = tiled(&bases, "");
                // CSR: by vertical counters at every group width, planes by the warp kernel
                entries.extend(BIT_OUTPUTS.iter().flat_map(|o| {
                    CSR_ROW_LANES
                        .iter()
                        .map(move |g| format!("bits_bspmm_csr_{o}_k{g}"))
                }));
                // CSR into bits then a BMM into counts or f32, at every group width
                entries.extend(BIT_OUTPUTS[..2].iter().flat_map(|o| {
                    CSR_ROW_LANES
                        .iter()
                        .map(move |g| format!("bits_bspmm_csr_bits_then_{o}_k{g}"))
                }));
                // CSR with lines of one word: by lanes, the same two families
                entries.extend(BIT_OUTPUTS.iter().flat_map(|o| {
                    CSR_LANE_GROUPS
                        .iter()
                        .map(move |g| format!("bits_bspmm_lanes_{o}_k{g}"))
                }));
                entries.extend(BIT_OUTPUTS[..2].iter().flat_map(|o| {
                    CSR_LANE_GROUPS
                        .iter()
                        .map(move |g| format!("bits_bspmm_lanes_bits_then_{o}_k{g}"))
                }));
                entries.extend(
                    BIT_OUTPUTS
                        .iter()
                        .map(|o| format!("bits_bspmm_csr_{o}_planes")),
                );
                ModuleSpec {
                    id: self,
                    name: "bits_bspmm".into(),
                    source: BITS_BSPMM_SRC,
                    options: vec![],
                    entries,
                }
            }
        }
    }
    /// The full entry name of `base` (with `_k<k>` where `k` is given) in this module.
    pub(crate) fn entry(self, base: &str, k: Option<usize>) -> String {
        let kk = k.map(|k| format!("_k{k}")).unwrap_or_default();
        match self {
            ModuleId::Pack
            | ModuleId::Transpose
            | ModuleId::Mxm
            | ModuleId::Visit
            | ModuleId::BitsConvert
            | ModuleId::BitsBmm
            | ModuleId::BitsBspmm
            | ModuleId::DenseRows => format!("{base}{kk}"),
            ModuleId::Vec(t) | ModuleId::Mat(t) => format!("{base}{kk}_{}", type_name(t)),
            ModuleId::Sr(key, t) | ModuleId::Push(key, t) | ModuleId::DenseMxm(key, t) => {
                format!("{base}{kk}_{}_{}", key.name(), type_name(t))
            }
        }
    }
}

/// Every module of the crate.
pub fn all_modules() -> Vec<ModuleSpec> {
    let mut v = vec![
        ModuleId::Pack.spec(),
        ModuleId::Transpose.spec(),
        ModuleId::Mxm.spec(),
        ModuleId::Visit.spec(),
        ModuleId::BitsConvert.spec(),
        ModuleId::BitsBmm.spec(),
        ModuleId::BitsBspmm.spec(),
        ModuleId::DenseRows.spec(),
    ];
    v.extend(SCALAR_TYPES.iter().map(|&t| ModuleId::Vec(t).spec()));
    v.extend(SCALAR_TYPES.iter().map(|&t| ModuleId::Mat(t).spec()));
    v.extend(
        semiring_instances()
            .into_iter()
            .map(|(k, t)| (SrKey::Builtin(k), t))
            .flat_map(|(k, t)| {
                [
                    ModuleId::Sr(k, t).spec(),
                    ModuleId::Push(k, t).spec(),
                    ModuleId::DenseMxm(k, t).spec(),
                ]
            }),
    );
    v
}

/// Compiles a module to PTX with NVRTC for `arch` (`"sm_90a"`). Needs only
/// libnvrtc (no GPU). A compile error carries the NVRTC log.
pub fn compile_ptx(spec: &ModuleSpec, arch: &'static str) -> Result<String> {
    // cudarc panics when the library is missing: probe first.
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        return Err(Error::GpuUnavailable("libnvrtc not found".into()));
    }
    let opts = cudarc::nvrtc::CompileOptions {
        arch: Some(arch),
        options: spec.options.clone(),
        name: Some(format!("{}.cu", spec.name)),
        ..Default::default()
    };
    let ptx = cudarc::nvrtc::compile_ptx_with_opts(spec.source, opts).map_err(|e| {
        let detail = match &e {
            cudarc::nvrtc::CompileError::CompileError { log, options, .. } => format!(
                "{}: NVRTC failed with {:?}:\n{}",
                spec.name,
                options,
                log.to_string_lossy()
            ),
            other => format!("{}: {other:?}", spec.name),
        };
        Error::Cuda {
            op: "nvrtc",
            detail,
        }
    })?;
    Ok(ptx.to_src())
}

/// The machine code (CUBIN) of `spec` for `arch`, a real architecture
/// (`sm_90`): what the driver loads without a JIT step, so a module read from
/// the kernel cache is ready at once. Same options as [`compile_ptx`].
pub fn compile_cubin(spec: &ModuleSpec, arch: &'static str) -> Result<Vec<u8>> {
    use cudarc::nvrtc::{result, sys};
    use std::ffi::CString;
    if !unsafe { sys::is_culib_present() } {
        return Err(Error::GpuUnavailable("libnvrtc not found".into()));
    }
    let fail = |detail: String| Error::Cuda {
        op: "nvrtc",
        detail: format!("{}: {detail}", spec.name),
    };
    let source = CString::new(spec.source).map_err(|e| fail(e.to_string()))?;
    let name = CString::new(format!("{}.cu", spec.name)).map_err(|e| fail(e.to_string()))?;
    let mut options = vec![format!("--gpu-architecture={arch}")];
    options.extend(spec.options.iter().cloned());
    let prog = result::create_program(&source, Some(&name)).map_err(|e| fail(format!("{e:?}")))?;
    // SAFETY: `prog` was created above and is destroyed once, at the end;
    // the CUBIN buffer has the size NVRTC reports.
    let cubin = unsafe {
        let compiled = match result::compile_program(prog, &options) {
            Err(e) => {
                let log = result::get_program_log(prog)
                    .map(|l| {
                        std::ffi::CStr::from_ptr(l.as_ptr())
                            .to_string_lossy()
                            .into_owned()
                    })
                    .unwrap_or_default();
                Err(fail(format!(
                    "NVRTC failed with {e:?} ({options:?}):\n{log}"
                )))
            }
            Ok(()) => {
                let mut size = 0usize;
                sys::nvrtcGetCUBINSize(prog, &mut size)
                    .result()
                    .map_err(|e| fail(format!("CUBIN size: {e:?}")))
                    .and_then(|()| {
                        let mut buf = vec![0u8; size];
                        sys::nvrtcGetCUBIN(prog, buf.as_mut_ptr().cast())
                            .result()
                            .map_err(|e| fail(format!("CUBIN: {e:?}")))?;
                        Ok(buf)
                    })
            }
        };
        let _ = result::destroy_program(prog);
        compiled
    }?;
    Ok(cubin)
}

/// The `.entry` names of a PTX text.
pub fn ptx_entries(ptx: &str) -> Vec<String> {
    ptx.lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let rest = l
                .strip_prefix(".visible .entry ")
                .or_else(|| l.strip_prefix(".entry "))?;
            Some(rest.split('(').next()?.trim().to_string())
        })
        .collect()
}
