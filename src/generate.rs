//! Graph generators for tests and benchmarks: deterministic given their
//! arguments (a seed where random), returning a symmetric pattern [`Matrix`]
//! (CSR, every entry one, no self loops, no duplicate entries).
//!
//! ```
//! use bitgraphblas::generate;
//! let g = generate::grid_2d::<bool>(4);
//! assert_eq!(g.nrows(), 16);
//! assert_eq!(g.nvals(), 2 * 2 * 4 * 3); // 2 directions x 2 axes x 4 lines x 3 edges
//! let r = generate::rmat::<f32>(8, 16, 42);
//! assert_eq!(r, generate::rmat::<f32>(8, 16, 42));
//! ```

use rayon::prelude::*;

use crate::container::Matrix;
use crate::scalar::Scalar;
use crate::storage::Csr;

/// splitmix64: a tiny, fast, well-mixed 64-bit generator (deterministic per seed).
///
/// ```
/// use bitgraphblas::generate::SplitMix64;
/// let mut r = SplitMix64::new(42);
/// let x = r.next_f64();
/// assert!((0.0..1.0).contains(&x));
/// assert_ne!(r.next_u64(), SplitMix64::new(43).next_u64());
/// ```
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator from a seed.
    ///
    /// ```
    /// use bitgraphblas::generate::SplitMix64;
    /// let mut a = SplitMix64::new(1);
    /// let mut b = SplitMix64::new(1);
    /// assert_eq!(a.next_u64(), b.next_u64());
    /// ```
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }
    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A uniform float in `[0, 1)`.
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// The symmetric pattern matrix of the undirected edges `(i, j)`: both
/// directions stored, self loops and duplicates dropped.
fn symmetric<T: Scalar>(n: usize, edges: Vec<(u32, u32)>) -> Matrix<T> {
    let mut keys: Vec<u64> = edges
        .into_par_iter()
        .filter(|&(i, j)| i != j)
        .flat_map_iter(|(i, j)| [(i as u64) << 32 | j as u64, (j as u64) << 32 | i as u64])
        .collect();
    keys.par_sort_unstable();
    keys.dedup();
    let mut row_ptr = vec![0usize; n + 1];
    for &k in &keys {
        row_ptr[(k >> 32) as usize + 1] += 1;
    }
    for i in 0..n {
        row_ptr[i + 1] += row_ptr[i];
    }
    let col_idx: Vec<u32> = keys.iter().map(|&k| k as u32).collect();
    let values = vec![T::one(); col_idx.len()];
    Matrix::from_csr(Csr::from_parts_unchecked(n, n, row_ptr, col_idx, values))
}

/// Random integer weights `1..=max` on the entries of `pattern` (any value
/// type; its values are ignored), one [`SplitMix64`] stream from `seed` over
/// the entries in CSR order: the weighted graphs of the SSSP benchmarks
/// (`max = 100`). The weights are not symmetric even where the pattern is.
///
/// ```
/// use bitgraphblas::generate;
/// let g = generate::grid_2d::<bool>(8);
/// let w = generate::integer_weights(&g, 100, 0).unwrap();
/// assert_eq!(w.nvals(), g.nvals());
/// assert!(w.as_csr().values().iter().all(|&x| (1.0..=100.0).contains(&x) && x.fract() == 0.0));
/// assert!(generate::integer_weights(&g, 0, 0).is_err());
/// ```
pub fn integer_weights<T: Scalar>(
    pattern: &Matrix<T>,
    max: u64,
    seed: u64,
) -> crate::error::Result<Matrix<f64>> {
    if max == 0 {
        return Err(crate::error::Error::invalid(
            "integer_weights",
            "the largest weight must be at least 1",
        ));
    }
    let c = pattern.as_csr();
    let mut rng = SplitMix64::new(seed);
    let values = (0..c.nnz())
        .map(|_| (rng.next_u64() % max + 1) as f64)
        .collect();
    Ok(Matrix::from_csr(Csr::from_parts_unchecked(
        c.nrows(),
        c.ncols(),
        c.row_ptr().to_vec(),
        c.col_idx().to_vec(),
        values,
    )))
}

/// A Graph500 R-MAT graph: `2^scale` vertices, `edge_factor * 2^scale` edges
/// drawn with quadrant probabilities `a = 0.57, b = 0.19, c = 0.19`
/// (`d = 0.05`), then symmetrised, without self loops and duplicates. Vertex
/// ids are not permuted (low ids are the hubs).
///
/// ```
/// let g = bitgraphblas::generate::rmat::<bool>(10, 16, 1);
/// assert_eq!(g.nrows(), 1024);
/// assert!(g.nvals() > 10_000 && g.nvals() <= 2 * 16 * 1024);
/// ```
pub fn rmat<T: Scalar>(scale: u32, edge_factor: usize, seed: u64) -> Matrix<T> {
    assert!(scale <= 31, "R-MAT scale {scale} exceeds 32-bit vertex ids");
    let n = 1usize << scale;
    let m = edge_factor * n;
    let (a, b, c) = (0.57, 0.19, 0.19);
    // Edges are drawn in chunks, each from its own stream, so the result does
    // not depend on the thread count.
    const CHUNK: usize = 1 << 16;
    let edges: Vec<(u32, u32)> = (0..m.div_ceil(CHUNK))
        .into_par_iter()
        .flat_map_iter(|chunk| {
            let mut rng =
                SplitMix64::new(seed ^ (chunk as u64).wrapping_mul(0xA076_1D64_78BD_642F));
            let count = CHUNK.min(m - chunk * CHUNK);
            (0..count)
                .map(move |_| {
                    let (mut i, mut j) = (0u32, 0u32);
                    for _ in 0..scale {
                        let r = rng.next_f64();
                        let (bi, bj) = if r < a {
                            (0, 0)
                        } else if r < a + b {
                            (0, 1)
                        } else if r < a + b + c {
                            (1, 0)
                        } else {
                            (1, 1)
                        };
                        i = i << 1 | bi;
                        j = j << 1 | bj;
                    }
                    (i, j)
                })
                .collect::<Vec<_>>()
        })
        .collect();
    symmetric(n, edges)
}

/// A stochastic block model: `n` vertices in `blocks` blocks of consecutive
/// ids (block `b` holds `b * n / blocks .. (b + 1) * n / blocks`), `edges`
/// undirected edges drawn one by one: a uniform vertex `u`, then with
/// probability `p_in` a uniform vertex of `u`'s block, otherwise a uniform
/// vertex of the whole graph; then symmetrised, without self loops and
/// duplicates (so the pattern holds at most `2 * edges` entries). Vertices
/// are numbered block by block, so the dense diagonal blocks fill B2SR tiles
/// as a community-ordered graph does.
///
/// ```
/// let g = bitgraphblas::generate::sbm::<bool>(1000, 10, 5000, 0.9, 7);
/// assert_eq!(g.nrows(), 1000);
/// assert!(g.nvals() > 9000 && g.nvals() <= 10_000);
/// assert_eq!(g, bitgraphblas::generate::sbm::<bool>(1000, 10, 5000, 0.9, 7));
/// // most entries lie in the diagonal blocks (100 x 100 here)
/// let c = g.as_csr();
/// let inside = (0..1000)
///     .map(|i| c.row(i).0.iter().filter(|&&j| j as usize / 100 == i / 100).count())
///     .sum::<usize>();
/// assert!(inside > g.nvals() * 8 / 10);
/// ```
pub fn sbm<T: Scalar>(n: usize, blocks: usize, edges: usize, p_in: f64, seed: u64) -> Matrix<T> {
    assert!(
        n <= 1 << 32,
        "SBM with {n} vertices exceeds 32-bit vertex ids"
    );
    assert!(
        blocks >= 1 && blocks <= n.max(1),
        "SBM needs 1..=n blocks, got {blocks}"
    );
    assert!(
        (0.0..=1.0).contains(&p_in),
        "p_in {p_in} is not a probability"
    );
    if n == 0 {
        return symmetric(0, Vec::new());
    }
    let start = |b: usize| (b as u128 * n as u128 / blocks as u128) as usize;
    let uniform =
        |rng: &mut SplitMix64, len: usize| ((rng.next_u64() as u128 * len as u128) >> 64) as usize;
    // Drawn in chunks, each from its own stream, as in `rmat`.
    const CHUNK: usize = 1 << 16;
    let e: Vec<(u32, u32)> = (0..edges.div_ceil(CHUNK))
        .into_par_iter()
        .flat_map_iter(|chunk| {
            let mut rng =
                SplitMix64::new(seed ^ (chunk as u64).wrapping_mul(0xA076_1D64_78BD_642F));
            let count = CHUNK.min(edges - chunk * CHUNK);
            (0..count)
                .map(move |_| {
                    let u = uniform(&mut rng, n);
                    let v = if rng.next_f64() < p_in {
                        // u's block: the b with start(b) <= u < start(b + 1)
                        // (start(b) <= u for this b; start(b + 1) may still be u)
                        let mut b = (u as u128 * blocks as u128 / n as u128) as usize;
                        while start(b + 1) <= u {
                            b += 1;
                        }
                        start(b) + uniform(&mut rng, start(b + 1) - start(b))
                    } else {
                        uniform(&mut rng, n)
                    };
                    (u as u32, v as u32)
                })
                .collect::<Vec<_>>()
        })
        .collect();
    symmetric(n, e)
}

/// The `n x n` 2D grid (4-neighbour), vertex `(x, y)` numbered `y * n + x`.
///
/// ```
/// let g = bitgraphblas::generate::grid_2d::<f32>(3);
/// assert_eq!(g.get(4, 1), Some(1.0));
/// assert_eq!(g.get(4, 0), None);
/// ```
pub fn grid_2d<T: Scalar>(n: usize) -> Matrix<T> {
    let id = |x: usize, y: usize| (y * n + x) as u32;
    let mut e = Vec::with_capacity(2 * n * n);
    for y in 0..n {
        for x in 0..n {
            if x + 1 < n {
                e.push((id(x, y), id(x + 1, y)));
            }
            if y + 1 < n {
                e.push((id(x, y), id(x, y + 1)));
            }
        }
    }
    symmetric(n * n, e)
}

/// The `n x n x n` 3D grid (6-neighbour), vertex `(x, y, z)` numbered
/// `(z * n + y) * n + x`.
///
/// ```
/// let g = bitgraphblas::generate::grid_3d::<bool>(3);
/// assert_eq!(g.nrows(), 27);
/// assert_eq!(g.nvals(), 2 * 3 * 9 * 2);
/// ```
pub fn grid_3d<T: Scalar>(n: usize) -> Matrix<T> {
    let id = |x: usize, y: usize, z: usize| ((z * n + y) * n + x) as u32;
    let mut e = Vec::with_capacity(3 * n * n * n);
    for z in 0..n {
        for y in 0..n {
            for x in 0..n {
                if x + 1 < n {
                    e.push((id(x, y, z), id(x + 1, y, z)));
                }
                if y + 1 < n {
                    e.push((id(x, y, z), id(x, y + 1, z)));
                }
                if z + 1 < n {
                    e.push((id(x, y, z), id(x, y, z + 1)));
                }
            }
        }
    }
    symmetric(n * n * n, e)
}

/// A random geometric graph: `n` points uniform in the unit square, an edge
/// between every two points closer than `radius`. Points are numbered in
/// row-major order of a `radius`-sized cell grid (so nearby points get nearby
/// ids, as a mesh partitioner would number them).
///
/// ```
/// let g = bitgraphblas::generate::random_geometric::<bool>(1000, 0.05, 3);
/// assert_eq!(g.nrows(), 1000);
/// assert_eq!(g, bitgraphblas::generate::random_geometric::<bool>(1000, 0.05, 3));
/// ```
pub fn random_geometric<T: Scalar>(n: usize, radius: f64, seed: u64) -> Matrix<T> {
    assert!(radius > 0.0, "radius must be positive");
    let cells = ((1.0 / radius).floor() as usize).clamp(1, 1 << 15);
    let mut rng = SplitMix64::new(seed);
    let cell_of = |p: (f64, f64)| {
        let cx = ((p.0 * cells as f64) as usize).min(cells - 1);
        let cy = ((p.1 * cells as f64) as usize).min(cells - 1);
        (cx, cy)
    };
    let mut pts: Vec<(f64, f64)> = (0..n).map(|_| (rng.next_f64(), rng.next_f64())).collect();
    pts.sort_by_key(|&p| {
        let (cx, cy) = cell_of(p);
        cy * cells + cx
    });
    // Start of each cell's points (points are sorted by cell).
    let mut start = vec![0usize; cells * cells + 1];
    for &p in &pts {
        let (cx, cy) = cell_of(p);
        start[cy * cells + cx + 1] += 1;
    }
    for c in 0..cells * cells {
        start[c + 1] += start[c];
    }
    let r2 = radius * radius;
    let edges: Vec<(u32, u32)> = (0..n)
        .into_par_iter()
        .flat_map_iter(|i| {
            let p = pts[i];
            let (cx, cy) = cell_of(p);
            let mut out = Vec::new();
            for ny in cy.saturating_sub(1)..(cy + 2).min(cells) {
                for nx in cx.saturating_sub(1)..(cx + 2).min(cells) {
                    let c = ny * cells + nx;
                    for (j, q) in pts.iter().enumerate().take(start[c + 1]).skip(start[c]) {
                        if j > i && (p.0 - q.0).powi(2) + (p.1 - q.1).powi(2) < r2 {
                            out.push((i as u32, j as u32));
                        }
                    }
                }
            }
            out
        })
        .collect();
    symmetric(n, edges)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_graphs_are_symmetric_simple() {
        for g in [
            rmat::<bool>(9, 16, 5),
            grid_2d::<bool>(7),
            grid_3d::<bool>(4),
            random_geometric::<bool>(500, 0.08, 9),
            sbm::<bool>(700, 7, 4000, 0.8, 3),
            sbm::<bool>(5, 5, 50, 1.0, 1),
        ] {
            let c = g.as_csr();
            assert_eq!(*c, c.transpose());
            for i in 0..c.nrows() {
                assert!(c.row(i).0.binary_search(&(i as u32)).is_err());
            }
        }
    }

    #[test]
    fn rmat_is_skewed_and_seeded() {
        let g = rmat::<bool>(12, 16, 1);
        let c = g.as_csr();
        let max = (0..c.nrows()).map(|i| c.row(i).0.len()).max().unwrap();
        assert!(max > 50 * c.nnz() / c.nrows(), "hubs exist");
        assert_ne!(g, rmat::<bool>(12, 16, 2));
    }

    #[test]
    fn geometric_degree_matches_area() {
        let (n, r) = (20_000, 0.01);
        let g = random_geometric::<bool>(n, r, 4);
        let mean = g.nvals() as f64 / n as f64;
        let want = n as f64 * std::f64::consts::PI * r * r;
        assert!((mean - want).abs() < 0.1 * want, "{mean} vs {want}");
    }
}
