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
//! nine graphs of the benchmark (`gpu_bench --skip-tc --ks 4,8`, H100,
//! commit `75d842e`).
//!
//! The tile terms miss what very unequal rows cost the tile kernel (its
//! lanes a tile row follow the average row; a long row holds its group
//! while the others wait), where the CSR kernel cuts long rows into pieces:
//! on ego-Twitter and cnr-2000, whose row lengths vary most among the
//! graphs with full tiles (`row_spread`, the coefficient of variation of the
//! row lengths: 2.05 and 2.12), 4x4 tiles took 27.6 and 21.5 µs where the
//! model predicts 18.8 and 9.7, and CSR 16.1 and 17.1. So where the rows'
//! spread passes [`SPREAD_MAX`] Auto keeps CSR: above it, CSR was the
//! fastest format on every benchmark graph (ego-Twitter, cnr-2000, R-MAT 18
//! and 22: 6.5 and 11.3), below it the model picks the fastest on every
//! graph (in sample, with exact tile counts: the fit and the rule are made on
//! the same nine graphs).
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
    /// The coefficient of variation of the row lengths
    /// ([`crate::storage::b2sr::row_spread`]).
    pub(crate) row_spread: f64,
}

impl PatternSize {
    /// The sizes the sampling profile estimates.
    pub(crate) fn estimated(p: &Profile) -> PatternSize {
        PatternSize {
            nnz: p.nnz,
            tiles: CANDIDATES.map(|t| p.estimate(t).map_or(f64::INFINITY, |e| e.tiles)),
            row_spread: p.row_spread,
        }
    }
}

// Microseconds; fitted on the GPU (see the module docs).
const CSR_FIXED: f64 = 6.37;
const CSR_PER_ENTRY: f64 = 3.845e-6;

/// The spread of row lengths above which Auto keeps CSR (see the module
/// docs: cit-HepPh 1.25 is the largest below, ego-Twitter 2.05 the least
/// above).
pub(crate) const SPREAD_MAX: f64 = 1.5;

/// `(fixed, per_tile, per_sparse_tile)` of B2SR with tiles of `k` (see the module docs).
fn b2sr_weights(k: usize) -> (f64, f64, f64) {
    match k {
        4 => (5.42, 4.7173e-6, 9.7699e-6),
        _ => (6.13, 1.2445e-5, 1.6816e-5),
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

/// The format with the least predicted time, CSR where the rows' spread
/// passes [`SPREAD_MAX`]; `allow_csr: false` (a caller asked for B2SR with
/// the tile size left to Auto) weighs only tile sizes.
pub(crate) fn choose(s: &PatternSize, allow_csr: bool) -> Format {
    if allow_csr && s.row_spread > SPREAD_MAX {
        return Format::Csr;
    }
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
            row_spread: 0.0,
        };
        assert!(matches!(choose(&dense_tiles, true), Format::B2sr(_)));
        let scattered = PatternSize {
            nnz: 16 * n,
            tiles: [16.0 * n as f64, 16.0 * n as f64],
            row_spread: 0.0,
        };
        assert_eq!(choose(&scattered, true), Format::Csr);
        assert!(matches!(choose(&scattered, false), Format::B2sr(_)));
        // the same full tiles on very unequal rows stay CSR
        let unequal = PatternSize {
            row_spread: 4.0,
            ..dense_tiles
        };
        assert_eq!(choose(&unequal, true), Format::Csr);
    }
}
