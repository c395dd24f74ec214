//! The sampling profile (Bit-GraphBLAS, Algorithm 1): estimate, before
//! converting, how many tiles and bytes each tile size would need and how full
//! its tiles would be, from a random sample of rows.
//!
//! The paper counts distinct `j / k` per sampled row. We sample rows, and for
//! each tile size count the distinct tile columns of the whole tile row the
//! sampled row falls in, so the estimate counts real tiles (a tile shared by
//! several rows of one tile row is counted once). When the sample covers every
//! tile row the estimate is exact.

use super::TileSize;
use crate::generate::SplitMix64;
use crate::scalar::Scalar;
use crate::storage::csr::Csr;

/// The estimate for one tile size.
///
/// ```
/// use bitgraphblas::storage::{b2sr::Profile, Csr, TileSize};
/// // A diagonal: every tile holds k of its k * k bits.
/// let a = Csr::from_triplets(64, 64, (0..64).map(|i| (i, i, true)), |x, _| x)?;
/// let e4 = Profile::sample_with(&a, 64, 1).estimate(TileSize::T4).copied().unwrap();
/// assert_eq!((e4.tiles, e4.fill), (16.0, 0.25));
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TileEstimate {
    /// The tile size.
    pub tile: TileSize,
    /// Estimated non-empty tiles.
    pub tiles: f64,
    /// Estimated average fraction of bits set in a non-empty tile.
    pub fill: f64,
    /// Estimated bytes of the B2SR arrays (32-bit tile columns).
    pub bytes: f64,
    /// Estimated bytes with 16-bit tile columns
    /// ([`crate::storage::b2sr::columns`]).
    pub narrow_bytes: f64,
    /// Estimated work of a boolean `mxv` on this tile size (see the module
    /// docs), in units of 1/16 ns (`WORK_PER_NS` per nanosecond); only the ratios
    /// between sizes matter.
    pub cost: f64,
}

/// Work units per nanosecond of a single-threaded boolean `mxv`: the weights
/// below, in 1/16 ns, are a least-squares fit (of the relative error) of
/// `time = tiles * tile_work(k) + tile_rows * TILE_ROW_WORK` to the
/// single-thread times of the `bin_bin_bin` kernel (AVX2) at every tile size
/// 4..32 on delaunay_n14, USA-road-d.NY, ego-Twitter, cnr-2000 and the
/// 1024x1024 grid, over the products whose tiles fit in 24 MiB
/// (`cargo bench --bench mxv -- --fit` prints the data and the fit;
/// `docs/cpu-mxv-tile-size-cost-model.md`). RMS relative error 16%. On those graphs it
/// ranks 16x16 and 32x32 (within 10% of each other) first on the mesh, road,
/// web and grid graphs, and 16x16 on ego-Twitter, where 8x8 is 15% faster
/// (the early exit favours small tiles there; the model has no term for it).
pub(crate) const WORK_PER_NS: usize = 16;

/// Work of one tile row besides its tiles (loop set-up, the mispredicted
/// loop exit, the output word): about 9 ns.
pub(crate) const TILE_ROW_WORK: usize = 144;

/// Work of one `k x k` tile in a boolean `mxv`: a fixed part (index, `u`
/// slice, loop) plus a part that grows with the tile's `k * k / 8` bytes
/// (about 0.31 ns for 4x4, 0.56 ns for 16x16, 1.5 ns for 32x32, 5.2 ns for
/// 64x64).
pub(crate) const fn tile_work(k: usize) -> usize {
    5 + k * k / 52
}

/// Estimates for every tile size, and the CSR bytes they compete with.
///
/// ```
/// use bitgraphblas::storage::{b2sr::Profile, Csr};
/// // A 64x64 dense block: big tiles win (32x32, the largest size Auto
/// // considers; 64x64 is estimated too but never chosen).
/// let t = (0..64).flat_map(|i| (0..64).map(move |j| (i, j, true)));
/// let a = Csr::from_triplets(64, 64, t, |x, _| x).unwrap();
/// let p = Profile::sample(&a);
/// assert_eq!(p.best_tile().k(), Some(32));
/// assert_eq!(p.estimates.len(), 5);
/// assert!(p.recommend().is_some());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    /// One estimate per fixed tile size, smallest first.
    pub estimates: Vec<TileEstimate>,
    /// Bytes of pattern-only CSR with 32-bit indices.
    pub csr_bytes: usize,
    /// Rows of the matrix.
    pub nrows: usize,
    /// Stored entries of the matrix.
    pub nnz: usize,
    /// How many tile rows were sampled per size (the largest count).
    pub sampled_rows: usize,
    /// How unequal the rows are: the coefficient of variation (standard
    /// deviation over mean) of the row lengths, over every row (exact).
    pub row_spread: f64,
}

/// The coefficient of variation (standard deviation over mean) of the row
/// lengths `lengths`; 0 for no rows or no entries. One pass of exact
/// integer sums (no dependent division a row: 16.7 M rows in a few ms).
///
/// ```
/// use bitgraphblas::storage::b2sr::row_spread;
/// assert_eq!(row_spread([2usize, 2, 2]), 0.0);
/// // lengths 0 and 2: mean 1, deviation 1
/// assert!((row_spread([0usize, 2]) - 1.0).abs() < 1e-12);
/// ```
pub fn row_spread(lengths: impl IntoIterator<Item = usize>) -> f64 {
    let (mut n, mut sum, mut squares) = (0u128, 0u128, 0u128);
    for len in lengths {
        let x = len as u128;
        n += 1;
        sum += x;
        squares += x * x;
    }
    if n == 0 || sum == 0 {
        return 0.0;
    }
    // n^2 var = n * sum(x^2) - sum(x)^2, exact; / mean = / (sum / n)
    let var_n2 = (n * squares - sum * sum) as f64;
    var_n2.sqrt() / sum as f64
}

/// Default number of rows sampled.
pub const DEFAULT_SAMPLE_ROWS: usize = 2048;

impl Profile {
    /// Samples [`DEFAULT_SAMPLE_ROWS`] rows with a fixed seed (deterministic).
    pub fn sample<T: Scalar>(csr: &Csr<T>) -> Profile {
        Profile::sample_with(csr, DEFAULT_SAMPLE_ROWS, 0x5eed)
    }

    /// Samples `rows` rows chosen by a seeded generator. With `rows >= nrows`
    /// every row is used and the estimate is exact.
    pub fn sample_with<T: Scalar>(csr: &Csr<T>, rows: usize, seed: u64) -> Profile {
        let n = csr.nrows();
        let sample: Vec<usize> = if rows >= n {
            (0..n).collect()
        } else {
            let mut rng = SplitMix64::new(seed | 1);
            (0..rows)
                .map(|_| (rng.next_u64() % n as u64) as usize)
                .collect()
        };
        let mut estimates = Vec::new();
        let mut sampled_rows = 0;
        for tile in TileSize::FIXED {
            let k = tile.k().expect("fixed");
            let tile_rows = n.div_ceil(k);
            let mut trs: Vec<usize> = sample.iter().map(|&i| i / k).collect();
            trs.sort_unstable();
            trs.dedup();
            sampled_rows = sampled_rows.max(trs.len());
            let (mut tiles, mut nnz, mut escaped) = (0usize, 0usize, 0usize);
            // seen[c]: 1 + the last sampled tile row with a tile in tile
            // column c (zeroed memory: only the columns met are touched),
            // so a tile row's distinct tiles are counted without sorting
            let mut seen = vec![0u32; csr.ncols().div_ceil(k)];
            let shift = k.trailing_zeros();
            for (stamp, &tr) in (1u32..).zip(&trs) {
                let (mut count, mut lo, mut hi) = (0usize, u32::MAX, 0u32);
                for r in tr * k..((tr + 1) * k).min(n) {
                    let c = csr.row(r).0;
                    nnz += c.len();
                    for &j in c {
                        let t = j >> shift;
                        if seen[t as usize] != stamp {
                            seen[t as usize] = stamp;
                            count += 1;
                            lo = lo.min(t);
                            hi = hi.max(t);
                        }
                    }
                }
                tiles += count;
                if count > 0 && hi - lo > u16::MAX as u32 {
                    escaped += count;
                }
            }
            let scale = if trs.is_empty() {
                0.0
            } else {
                tile_rows as f64 / trs.len() as f64
            };
            let est_tiles = tiles as f64 * scale;
            let fill = if tiles == 0 {
                0.0
            } else {
                nnz as f64 / (tiles * k * k) as f64
            };
            let row_ptr = 4.0 * (tile_rows + 1) as f64;
            let tile_bytes = est_tiles * (k * k / 8) as f64;
            let wide = 4.0 * est_tiles;
            let narrow = 4.0 * tile_rows as f64 + 2.0 * est_tiles + 4.0 * escaped as f64 * scale;
            let (bytes, narrow_bytes) =
                (row_ptr + tile_bytes + wide, row_ptr + tile_bytes + narrow);
            let cost = est_tiles * tile_work(k) as f64 + (tile_rows * TILE_ROW_WORK) as f64;
            estimates.push(TileEstimate {
                tile,
                tiles: est_tiles,
                fill,
                bytes,
                narrow_bytes,
                cost,
            });
        }
        Profile {
            estimates,
            csr_bytes: csr.pattern_bytes(),
            nrows: n,
            nnz: csr.nnz(),
            sampled_rows,
            row_spread: row_spread(csr.row_ptr().windows(2).map(|w| w[1] - w[0])),
        }
    }

    /// The tile size with the least estimated `mxv` work ([`TileEstimate::cost`];
    /// ties: the smaller tile): what [`TileSize::Auto`] packs to. Only 4x4 to
    /// 32x32 are candidates: 64x64 tiles paid on none of the benchmark graphs
    /// (`benches/results/cpu-mxv.md`) and have no CUDA kernels, so an `Auto` matrix
    /// runs on every backend.
    pub fn best_tile(&self) -> TileSize {
        self.estimates
            .iter()
            .filter(|e| e.tile != TileSize::T64)
            .min_by(|a, b| a.cost.total_cmp(&b.cost))
            .expect("one estimate per fixed tile size")
            .tile
    }

    /// The fewest estimated bytes over the tile sizes.
    pub fn min_bytes(&self) -> f64 {
        self.estimates
            .iter()
            .map(|e| e.bytes)
            .fold(f64::INFINITY, f64::min)
    }

    /// The tile size to convert to ([`Profile::best_tile`]), or `None` ("keep
    /// CSR") when no tile size is estimated to store fewer bytes than
    /// pattern-only CSR (the paper's rule, both sides with 32-bit indices:
    /// 16-bit tile columns make B2SR smaller without making a scattered
    /// pattern's tiles fuller, and the kernels' cost follows the tiles).
    pub fn recommend(&self) -> Option<TileSize> {
        let wide = |e: &TileEstimate| {
            let k = e.tile.k().expect("fixed");
            4.0 * (self.nrows.div_ceil(k) + 1) as f64 + e.tiles * (4 + k * k / 8) as f64
        };
        let fewest = self
            .estimates
            .iter()
            .map(wide)
            .fold(f64::INFINITY, f64::min);
        (fewest < self.csr_bytes as f64).then(|| self.best_tile())
    }

    /// The estimate for one tile size.
    pub fn estimate(&self, tile: TileSize) -> Option<&TileEstimate> {
        self.estimates.iter().find(|e| e.tile == tile)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On a grid the fewest bytes are at 8x8, but big tiles do less `mxv`
    /// work per row (fewer tile rows, as many tiles per row): the cost model
    /// picks a bigger tile, and weighs 64x64 tiles (512 bytes each) down.
    #[test]
    fn tile_choice_follows_cost_not_bytes() {
        let g = crate::generate::grid_2d::<f32>(256);
        let p = Profile::sample_with(&g.as_csr(), usize::MAX, 1);
        let fewest = p
            .estimates
            .iter()
            .min_by(|a, b| a.bytes.total_cmp(&b.bytes))
            .unwrap();
        assert_eq!(fewest.tile, TileSize::T8);
        let best = p.best_tile();
        assert!(matches!(best, TileSize::T16 | TileSize::T32), "{best:?}");
        assert_eq!(p.recommend(), Some(best));
        let cost = |t| p.estimate(t).unwrap().cost;
        assert!(cost(best) < cost(TileSize::T4) && cost(best) < cost(TileSize::T64));
        assert_eq!(p.min_bytes(), fewest.bytes);
    }
}
