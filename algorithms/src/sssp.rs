//! Single-source shortest paths: delta-stepping on real weights, and a
//! level-synchronous `MIN.PLUS` search on B2SR for unweighted graphs.

use bitgraphblas::algebra::{Identity, IndexOp, Min, MinPlus, Minus};
use bitgraphblas::backend::{Backend, MatrixShape, VectorShape};
use bitgraphblas::storage::BitVec;
use bitgraphblas::{ops, Cpu, Desc, Error, Matrix, Result, Vector, VectorFormat};

use crate::bfs::push_or_pull;
use crate::graph::Graph;

/// Shortest-path distances from `source` (`f64::INFINITY` where unreachable).
///
/// Edge weights come from the graph ([`Graph::weights`]); a graph without
/// weights weighs every edge 1. Weights must be non-negative and finite.
///
/// **Unweighted graphs** (every weight 1) take the B2SR `MIN.PLUS` path: `A`
/// and `A'` in the graph's format with iso value `1.0` (`f64`), a frontier `f`
/// holding the vertices whose distance changed in the last step (with their
/// distances), and per step
/// `t<¬settled, replace> = f min.+ A` (the settled set, every vertex with a
/// finite distance, as a complemented structural mask), `d = min(d, t)`,
/// `f = t`, until `t` is empty. With unit weights the first distance a vertex
/// gets is final (a Bellman-Ford pass over the frontier, level-synchronous).
/// **Direction**: push (`vxm(f, A)`, the frontier's rows of `A` scatter
/// `f_i + 1`) while the frontier is small, pull (`mxv(A', f)`, each unsettled
/// row takes the minimum over its in-edges) once the frontier holds `n / 16`
/// vertices (a valued result is `O(n)`, so a small frontier pushes even when
/// few vertices are left). On a backend whose vectors live in host memory `d`
/// and the settled set stay on the host (`O(|t|)` per step, plus `n / 64`
/// words for the mask), and a pull, or a push of a frontier with at least
/// `n / 4` out-edges, takes the frontier as packed bits: every entry of `f`
/// equals the step's distance `s`, so it goes in as `f - (s - 1)` (bits,
/// each entry one; `min.+` commutes with the shift, the result reads back as
/// `s - 1 + t`); a pull's bit kernel stops each row at its first frontier
/// hit, a push ORs the frontier's tile rows. Elsewhere `d` is a backend vector (its structure is the
/// settled set) updated with `d = min(d, t)` by a `MIN`-accumulated apply.
/// Cost `O(n + m)` over the search (the frontier's tile rows per push, the
/// unsettled tile rows per pull).
///
/// **Weighted graphs** use delta-stepping (Meyer and Sanders) in the
/// LAGraph formulation, on CSR with `MIN.PLUS` (`f64`). The edges split into
/// light (`w <= Δ`) and heavy (`w > Δ`) by `select`. A bucket holds the
/// unsettled vertices with tentative distance in `[m, m + Δ)` (`m` the smallest
/// unsettled distance); its vertices relax their light edges until no distance in
/// the bucket improves (`t_req = t_B min.+ A_L`, improvements found by
/// `select(t_req - t < 0)`), then every vertex the bucket settled relaxes its heavy
/// edges once. `Δ` defaults to the mean edge weight. Cost: `O(n + m)` per
/// bucket pass in the worst case, near `O((n + m) (1 + L / Δ))` in practice
/// (`L` the largest distance).
///
/// ```
/// use bitgraphblas::{Cpu, Format, Matrix};
/// use bitgraphblas_algorithms::{sssp, Graph};
/// let a = Matrix::from_triplets(3, 3, vec![(0, 1, 5.0), (0, 2, 1.0), (2, 1, 2.0)]).unwrap();
/// let g = Graph::from_weighted(&Cpu, a, Format::Csr).unwrap();
/// assert_eq!(sssp(&g, 0, None).unwrap(), vec![0.0, 3.0, 1.0]);
/// ```
pub fn sssp<B>(g: &Graph<'_, B>, source: usize, delta: Option<f64>) -> Result<Vec<f64>>
where
    B: Backend,
    B::MaskSource: VectorShape,
    B::MatrixMaskSource: MatrixShape,
{
    let n = g.nvertices();
    if source >= n {
        return Err(Error::IndexOutOfBounds {
            op: "sssp",
            index: source,
            len: n,
        });
    }
    match g.weights() {
        None => sssp_unweighted(g, source),
        Some(w) => {
            let vals = w.as_csr();
            if let Some(bad) = vals
                .values()
                .iter()
                .find(|x| !(x.is_finite() && **x >= 0.0))
            {
                return Err(Error::InvalidArgument {
                    op: "sssp",
                    detail: format!("edge weights must be finite and non-negative, found {bad}"),
                });
            }
            let mean = if vals.nnz() == 0 {
                1.0
            } else {
                vals.values().iter().sum::<f64>() / vals.nnz() as f64
            };
            let delta = delta.unwrap_or(if mean > 0.0 { mean } else { 1.0 });
            if !(delta.is_finite() && delta > 0.0) {
                return Err(Error::InvalidArgument {
                    op: "sssp",
                    detail: format!("delta must be positive and finite, not {delta}"),
                });
            }
            delta_stepping(g, source, delta)
        }
    }
}

/// True when the next step should pull: once the frontier holds a sixteenth
/// of the vertices. (Unlike the bit steps of BFS, a pull here writes a valued
/// `O(n)` result whatever the frontier, so a small frontier pushes even when
/// few vertices are left unsettled.)
fn pull_valued(frontier: usize, n: usize) -> bool {
    frontier * 16 >= n
}

/// On the host, a frontier whose out-edges number at least `n /
/// PUSH_BITS_EDGES` pushes as packed bits (the tile rows of the frontier
/// ORed, plus `O(n)` for the iso result); a lighter one pushes its valued
/// entries (`O(edges)`, sorted).
const PUSH_BITS_EDGES: usize = 4;

/// Where the unweighted search keeps the distances and the settled set.
enum Dist<B: Backend> {
    /// On the host: distances, and the settled set as packed bits (uploaded
    /// once per step as the mask).
    Host {
        dist: Vec<f64>,
        settled_h: BitVec,
        settled: B::Vector<bool>,
    },
    /// On the backend: the distance vector, absent where unreached (its
    /// structure is the settled set).
    Device(B::Vector<f64>),
}

fn sssp_unweighted<B>(g: &Graph<'_, B>, source: usize) -> Result<Vec<f64>>
where
    B: Backend,
    B::MaskSource: VectorShape,
    B::MatrixMaskSource: MatrixShape,
{
    let b = g.backend();
    let n = g.nvertices();
    let (a, at) = (g.a_f64_tiled()?, g.at_f64_tiled()?);
    let s = MinPlus::<f64>::new();
    let mut f: B::Vector<f64> = b.upload_vector(&Vector::from_entries(n, vec![(source, 0.0)])?)?;
    let mut t: B::Vector<f64> = b.vector_new(n, None, VectorFormat::Sparse)?;
    let mut rec: Dist<B> = if B::HOST_MEMORY {
        let mut dist = vec![f64::INFINITY; n];
        dist[source] = 0.0;
        let settled_h = BitVec::from_indices(n, [source]);
        Dist::Host {
            dist,
            settled: b.upload_vector(&Vector::from_bits(settled_h.clone()))?,
            settled_h,
        }
    } else {
        let mut d: B::Vector<f64> = b.vector_new(n, None, VectorFormat::Dense)?;
        ops::assign_scalar(b, &mut d, 0.0, Some(&[source]), &Desc::new())?;
        Dist::Device(d)
    };
    // The frontier's vertices (host only) and the distance of the frontier.
    let mut front = vec![source];
    let (mut nf, mut step) = (1usize, 0.0f64);
    // Out-edge counts for the host's choice of frontier form.
    let host = g.pattern().as_csr();
    let rp = host.row_ptr();
    // Whether t holds distances less `step - 1` (a packed-bit frontier).
    let mut shifted;
    loop {
        {
            let settled = match &rec {
                Dist::Host { settled, .. } => B::mask(settled),
                Dist::Device(d) => B::mask(d),
            };
            let desc = Desc::new().mask(settled.structure().complement()).replace();
            shifted = false;
            match &rec {
                Dist::Host { .. } => {
                    let edges: usize = front.iter().map(|&v| rp[v + 1] - rp[v]).sum();
                    if pull_valued(nf, n) || edges * PUSH_BITS_EDGES >= n {
                        // Every entry of f is `step`: the product takes
                        // f - (step - 1), packed bits.
                        let bits = b.upload_vector(&Vector::from_bits(BitVec::from_indices(
                            n,
                            front.iter().copied(),
                        )))?;
                        if pull_valued(nf, n) {
                            ops::mxv(b, &mut t, s, at, &bits, &desc)?;
                        } else {
                            push_or_pull(b, &mut t, s, &bits, a, at, &desc)?;
                        }
                        shifted = true;
                    } else {
                        // A light frontier pushes its distances (`O(edges)`).
                        let e = front.iter().map(|&v| (v, step)).collect();
                        f = b.upload_vector(&Vector::from_entries(n, e)?)?;
                        push_or_pull(b, &mut t, s, &f, a, at, &desc)?;
                    }
                }
                Dist::Device(_) if pull_valued(nf, n) => {
                    ops::mxv(b, &mut t, s, at, &f, &desc)?;
                }
                _ => push_or_pull(b, &mut t, s, &f, a, at, &desc)?,
            }
        }
        nf = b.vector_nvals(&t)?;
        if nf == 0 {
            break;
        }
        match &mut rec {
            Dist::Host {
                dist,
                settled_h,
                settled,
            } => {
                let shift = if shifted { step - 1.0 } else { 0.0 };
                front.clear();
                for (v, x) in b.download_vector(&t)?.entries() {
                    dist[v] = shift + x;
                    settled_h.set(v, true);
                    front.push(v);
                }
                *settled = b.upload_vector(&Vector::from_bits(settled_h.clone()))?;
            }
            Dist::Device(d) => {
                ops::apply(b, d, Identity, &t, &Desc::new().accum(Min))?;
            }
        }
        step += 1.0;
        std::mem::swap(&mut f, &mut t);
    }
    match rec {
        Dist::Host { dist, .. } => Ok(dist),
        Dist::Device(d) => Ok(b.download_vector(&d)?.to_vec(f64::INFINITY)),
    }
}

/// The light and heavy parts of a host weight matrix (split on the host with
/// the CPU backend's `select`), uploaded.
fn split<B: Backend>(
    b: &B,
    w: &Matrix<f64>,
    delta: f64,
) -> Result<(B::Matrix<f64>, B::Matrix<f64>)> {
    let (cpu, n) = (Cpu::new(), w.nrows());
    let mut light = Matrix::<f64>::empty(n, n);
    let mut heavy = Matrix::<f64>::empty(n, n);
    ops::select_matrix(&cpu, &mut light, IndexOp::ValueLe(delta), w, &Desc::new())?;
    ops::select_matrix(&cpu, &mut heavy, IndexOp::ValueGt(delta), w, &Desc::new())?;
    Ok((b.upload_matrix(&light)?, b.upload_matrix(&heavy)?))
}

/// Relaxation `t_req = t_B min.+ A`: push along the CSR rows of `A` while
/// `t_B` is sparse, pull on `A'` otherwise.
struct Relax<B: Backend> {
    a: B::Matrix<f64>,
    at: Option<B::Matrix<f64>>,
}

impl<B: Backend> Relax<B>
where
    B::MaskSource: VectorShape,
{
    fn run(&self, b: &B, out: &mut B::Vector<f64>, t: &B::Vector<f64>, nvals: usize) -> Result<()> {
        let s = MinPlus::<f64>::new();
        match &self.at {
            Some(at) if nvals * 16 >= t.len() => ops::mxv(b, out, s, at, t, &Desc::new()),
            None if nvals * 16 >= t.len() => ops::mxv(b, out, s, &self.a, t, &Desc::new()),
            _ => crate::bfs::push_or_pull(
                b,
                out,
                s,
                t,
                &self.a,
                self.at.as_ref().unwrap_or(&self.a),
                &Desc::new(),
            ),
        }
    }
    fn nvals(&self, b: &B) -> Result<usize> {
        b.matrix_nvals(&self.a)
    }
}

/// `t<improved> = t_req` where `t_req < t`; returns the improved entries (values of `t_req`).
fn improve<B: Backend>(
    b: &B,
    t: &mut B::Vector<f64>,
    t_req: &B::Vector<f64>,
) -> Result<B::Vector<f64>>
where
    B::MaskSource: VectorShape,
{
    let n = t.len();
    let mut diff: B::Vector<f64> = b.vector_new(n, None, VectorFormat::Sparse)?;
    ops::ewise_mult(b, &mut diff, Minus, t_req, t, &Desc::new())?;
    let mut better: B::Vector<f64> = b.vector_new(n, None, VectorFormat::Sparse)?;
    ops::select(b, &mut better, IndexOp::ValueLt(0.0), &diff, &Desc::new())?;
    let mut out: B::Vector<f64> = b.vector_new(n, None, VectorFormat::Sparse)?;
    ops::apply(
        b,
        &mut out,
        Identity,
        t_req,
        &Desc::new().mask(B::mask(&better).structure()).replace(),
    )?;
    ops::apply(
        b,
        t,
        Identity,
        &out,
        &Desc::new().mask(B::mask(&out).structure()),
    )?;
    Ok(out)
}

fn delta_stepping<B>(g: &Graph<'_, B>, source: usize, delta: f64) -> Result<Vec<f64>>
where
    B: Backend,
    B::MaskSource: VectorShape,
    B::MatrixMaskSource: MatrixShape,
{
    let b = g.backend();
    let n = g.nvertices();
    let w = g.weights().ok_or_else(|| Error::InvalidArgument {
        op: "sssp",
        detail: "delta-stepping needs edge weights".into(),
    })?;
    let (al, ah) = split(b, w, delta)?;
    let (alt, aht) = if g.weights_symmetric() {
        (None, None)
    } else {
        let (l, h) = split(b, &Matrix::from_csr(w.as_csr().transpose()), delta)?;
        (Some(l), Some(h))
    };
    let light = Relax::<B> { a: al, at: alt };
    let heavy = Relax::<B> { a: ah, at: aht };
    let has_heavy = heavy.nvals(b)? > 0;

    let mut t: B::Vector<f64> = b.vector_new(n, Some(f64::INFINITY), VectorFormat::Dense)?;
    ops::assign_scalar(b, &mut t, 0.0, Some(&[source]), &Desc::new())?;
    let mut lo = 0.0f64;
    let mut t_b: B::Vector<f64> = b.vector_new(n, None, VectorFormat::Sparse)?;
    let mut tmp: B::Vector<f64> = b.vector_new(n, None, VectorFormat::Sparse)?;
    let mut t_req: B::Vector<f64> = b.vector_new(n, None, VectorFormat::Sparse)?;
    loop {
        let hi = lo + delta;
        // The bucket: unsettled vertices with lo <= t < hi (all smaller ones are settled).
        ops::select(b, &mut tmp, IndexOp::ValueGe(lo), &t, &Desc::new())?;
        ops::select(b, &mut t_b, IndexOp::ValueLt(hi), &tmp, &Desc::new())?;
        let mut settled: B::Vector<bool> = b.vector_new(n, None, VectorFormat::Bits)?;
        let mut nb = b.vector_nvals(&t_b)?;
        while nb > 0 {
            ops::assign_scalar(
                b,
                &mut settled,
                true,
                None,
                &Desc::new().mask(B::mask(&t_b).structure()),
            )?;
            light.run(b, &mut t_req, &t_b, nb)?;
            let better = improve(b, &mut t, &t_req)?;
            ops::select(b, &mut t_b, IndexOp::ValueLt(hi), &better, &Desc::new())?;
            nb = b.vector_nvals(&t_b)?;
        }
        if has_heavy {
            let mut t_s: B::Vector<f64> = b.vector_new(n, None, VectorFormat::Sparse)?;
            ops::apply(
                b,
                &mut t_s,
                Identity,
                &t,
                &Desc::new().mask(B::mask(&settled).structure()).replace(),
            )?;
            let ns = b.vector_nvals(&t_s)?;
            heavy.run(b, &mut t_req, &t_s, ns)?;
            improve(b, &mut t, &t_req)?;
        }
        // The next bucket starts at the smallest finite distance >= hi.
        ops::select(b, &mut tmp, IndexOp::ValueGe(hi), &t, &Desc::new())?;
        ops::select(
            b,
            &mut t_b,
            IndexOp::ValueLt(f64::INFINITY),
            &tmp,
            &Desc::new(),
        )?;
        if b.vector_nvals(&t_b)? == 0 {
            break;
        }
        lo = ops::reduce(b, Min, &t_b)?;
    }
    Ok(b.download_vector(&t)?.to_vec(f64::INFINITY))
}
