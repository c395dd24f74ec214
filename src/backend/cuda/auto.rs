//! [`Format::Auto`] on the CUDA backend: a cost model of this backend's own
//! `mxv` kernels, fitted to their measured times (`examples/gpu_bench.rs`,
//! H100), chooses per matrix between CSR and B2SR tiles of 4x4 or 8x8, the
//! sizes whose kernels lead on every benchmark graph (16x16 and 32x32 never
//! did for a valued product: `benches/results/gpu-kernels.md`).
//!
//! The model predicts the time of an f32 `PLUS.TIMES` product on a full
//! vector (the valued product; boolean products favour tiles more, so the
//! choice is safe for them too) from the sizes of the pattern, in
//! microseconds:
//!
//! - CSR: `CSR_FIXED + CSR_PER_ENTRY * nnz` (the row-block product's time
//!   follows its entries; a per-row term fitted negative);
//! - B2SR `k`: `fixed + tiles * (per_tile + per_sparse_tile * tiles / nnz)`:
//!   a tile costs more the emptier tiles are (`tiles / nnz`), as the gathers
//!   of the input then land on scattered columns.
//!
//! Least-squares fits (relative error, `scripts/fit-auto-cost.py`) to the
//! nine graphs of the benchmark (`gpu_bench --skip-tc --ks 4,8`, H100, commit
//! `3e7f9aa`, the CSR product by row blocks). On those graphs (in sample,
//! with exact tile counts) the model picks the fastest of the three formats
//! on eight; on ego-Twitter it picks 4x4 tiles (27.9 µs) where CSR took
//! 20.3 µs (predicted 18.8 against 19.1): the tile term misses the cost of
//! that graph's scattered tiles.
//!
//! Tiles are counted exactly on the device when [`Format::Auto`] is given to
//! `convert`, or estimated by the sampling profile
//! ([`crate::storage::b2sr::Profile`]) when a client asks
//! [`crate::Backend::auto_format`] before uploading.

use crate::container::Format;
use crate::storage::b2sr::Profile;
use crate::storage::TileSize;

/// The tile sizes the model weighs (the others never led on the GPU).
pub(crate) const CANDIDATES: [TileSize; 2] = [TileSize::T4, TileSize::T8];

/// What the model reads of a pattern.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PatternSize {
    pub(crate) nnz: usize,
    /// Non-empty tiles at each of [`CANDIDATES`].
    pub(crate) tiles: [f64; CANDIDATES.len()],
}

impl PatternSize {
    /// The sizes the sampling profile estimates.
    pub(crate) fn estimated(p: &Profile) -> PatternSize {
        PatternSize {
            nnz: p.nnz,
            tiles: CANDIDATES.map(|t| p.estimate(t).map_or(f64::INFINITY, |e| e.tiles)),
        }
    }
}

// Microseconds; fitted on the GPU (see the module docs).
const CSR_FIXED: f64 = 5.57;
const CSR_PER_ENTRY: f64 = 5.05e-6;

/// `(fixed, per_tile, per_sparse_tile)` of B2SR with tiles of `k` (see the module docs).
fn b2sr_weights(k: usize) -> (f64, f64, f64) {
    match k {
        4 => (5.67, 4.5552e-6, 9.7961e-6),
        _ => (6.75, 1.1702e-5, 1.7396e-5),
    }
}

/// Predicted microseconds of the valued product on CSR.
pub(crate) fn csr_cost(s: &PatternSize) -> f64 {
    CSR_FIXED + CSR_PER_ENTRY * s.nnz as f64
}

/// Predicted microseconds of the valued product on B2SR with tiles of `t`.
pub(crate) fn b2sr_cost(s: &PatternSize, t: TileSize) -> f64 {
    let k = t.k().expect("a fixed tile size");
    let i = CANDIDATES
        .iter()
        .position(|&c| c == t)
        .expect("a candidate");
    let (fixed, per_tile, per_sparse_tile) = b2sr_weights(k);
    let tiles = s.tiles[i];
    fixed + tiles * (per_tile + per_sparse_tile * tiles / s.nnz.max(1) as f64)
}

/// The format with the least predicted time; `allow_csr: false` (a caller
/// asked for B2SR with the tile size left to Auto) weighs only tile sizes.
pub(crate) fn choose(s: &PatternSize, allow_csr: bool) -> Format {
    let (best, cost) = CANDIDATES
        .iter()
        .map(|&t| (t, b2sr_cost(s, t)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .expect("candidates");
    if allow_csr && csr_cost(s) <= cost {
        Format::Csr
    } else {
        Format::B2sr(best)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pattern whose tiles hold many entries packs; one whose tiles hold
    /// one entry each stays CSR; B2SR(Auto) never answers CSR.
    #[test]
    fn fuller_tiles_choose_b2sr() {
        let n = 1 << 20;
        let dense_tiles = PatternSize {
            nnz: 4 * n,
            tiles: [n as f64 / 4.0 * 1.25, n as f64 / 8.0 * 1.25],
        };
        assert!(matches!(choose(&dense_tiles, true), Format::B2sr(_)));
        let scattered = PatternSize {
            nnz: 16 * n,
            tiles: [16.0 * n as f64, 16.0 * n as f64],
        };
        assert_eq!(choose(&scattered, true), Format::Csr);
        assert!(matches!(choose(&scattered, false), Format::B2sr(_)));
    }
}
