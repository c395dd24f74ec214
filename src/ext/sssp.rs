//! Delta-stepping on the primitives: the split edges [`DeltaEdges`] that
//! [`super::delta_stepping`] reads, and its generic default, the LAGraph
//! formulation with `MIN.PLUS` products, `select` and masked `apply`.

use std::sync::OnceLock;

use crate::algebra::{FlippedSemiring, Identity, IndexOp, Min, MinPlus, Minus};
use crate::backend::{Backend, VectorShape};
use crate::container::{Desc, Flags, Matrix, NoAccum, VectorFormat};
use crate::error::{Error, Result};
use crate::ops::need;
use crate::{ops, Cpu};

/// A graph's weighted edges split at the bucket width `Δ` of delta-stepping
/// and kept on a backend, as [`super::delta_stepping`] reads them: the light
/// edges (`w <= Δ`) and the heavy ones (`w > Δ`), each in CSR (row `i`: the
/// out-edges of vertex `i`); their transposes are made on the backend the
/// first time a search asks for them (the generic default's pulls) and
/// kept. Built once and used for any number of searches.
///
/// ```
/// use bitgraphblas::{ext::DeltaEdges, Cpu, Matrix};
/// let w = Matrix::from_triplets(3, 3, vec![(0, 1, 5.0), (0, 2, 1.0), (2, 1, 2.0)]).unwrap();
/// let e = DeltaEdges::new(&Cpu, &w, 2.0).unwrap();
/// assert_eq!((e.order(), e.delta(), e.heavy_edges(), e.longest_light_row()), (3, 2.0, 1, 1));
/// let (_, heavy_t) = e.transposes(&Cpu).unwrap();
/// assert_eq!(heavy_t.get(1, 0), Some(5.0));
/// // weights must be finite and non-negative, the width positive
/// let bad = Matrix::from_triplets(2, 2, vec![(0, 1, -1.0)]).unwrap();
/// assert!(DeltaEdges::new(&Cpu, &bad, 1.0).is_err());
/// assert!(DeltaEdges::new(&Cpu, &w, 0.0).is_err());
/// ```
pub struct DeltaEdges<B: Backend> {
    delta: f64,
    n: usize,
    light: B::Matrix<f64>,
    heavy: B::Matrix<f64>,
    /// `(light', heavy')`, made at their first use.
    transposed: OnceLock<(B::Matrix<f64>, B::Matrix<f64>)>,
    longest_light_row: usize,
    heavy_edges: usize,
}

impl<B: Backend> DeltaEdges<B> {
    /// The weights `w` (a square host matrix: `w(i, j)` the weight of the
    /// edge `i -> j`) split at `delta` on the host and uploaded to `b`. An
    /// `Err` naming `delta_stepping` where `w` is not square, a weight is not
    /// finite and non-negative, or `delta` is not positive and finite.
    pub fn new(b: &B, w: &Matrix<f64>, delta: f64) -> Result<Self> {
        let n = w.nrows();
        need("delta_stepping", w.ncols() == n, || {
            format!("the weights are {n}x{}, not square", w.ncols())
        })?;
        if !(delta.is_finite() && delta > 0.0) {
            return Err(Error::InvalidArgument {
                op: "delta_stepping",
                detail: format!("delta must be positive and finite, not {delta}"),
            });
        }
        if let Some(&x) = w
            .as_csr()
            .values()
            .iter()
            .find(|x| !(x.is_finite() && **x >= 0.0))
        {
            return Err(Error::InvalidArgument {
                op: "delta_stepping",
                detail: format!("edge weights must be finite and non-negative, found {x}"),
            });
        }
        let Split {
            light,
            heavy,
            longest_light_row,
            heavy_edges,
        } = split(b, w, delta)?;
        Ok(DeltaEdges {
            delta,
            n,
            light,
            heavy,
            transposed: OnceLock::new(),
            longest_light_row,
            heavy_edges,
        })
    }

    /// The bucket width `Δ`.
    pub fn delta(&self) -> f64 {
        self.delta
    }
    /// The number of vertices.
    pub fn order(&self) -> usize {
        self.n
    }
    /// The light edges (`w <= Δ`), CSR as uploaded.
    pub fn light(&self) -> &B::Matrix<f64> {
        &self.light
    }
    /// The heavy edges (`w > Δ`), CSR as uploaded.
    pub fn heavy(&self) -> &B::Matrix<f64> {
        &self.heavy
    }
    /// How many heavy edges there are.
    pub fn heavy_edges(&self) -> usize {
        self.heavy_edges
    }
    /// The most light edges of one vertex.
    pub fn longest_light_row(&self) -> usize {
        self.longest_light_row
    }
    /// The transposes of the light and the heavy edges, made on `b` (the
    /// backend that holds them) at the first call and kept.
    pub fn transposes(&self, b: &B) -> Result<Pair<'_, B>> {
        if self.transposed.get().is_none() {
            let t = |a: &B::Matrix<f64>| -> Result<B::Matrix<f64>> {
                let mut c = b.upload_matrix(&Matrix::empty(self.n, self.n))?;
                let flags = Flags::default();
                b.transpose(&mut c, None, NoAccum, a, flags)?;
                Ok(c)
            };
            let made = (t(&self.light)?, t(&self.heavy)?);
            // another thread may have set it meanwhile: the same matrices
            let _ = self.transposed.set(made);
        }
        let (lt, ht) = self.transposed.get().expect("set above");
        Ok((lt, ht))
    }
}

/// Two matrices of a backend (the light edges' and the heavy edges').
type Pair<'a, B> = (
    &'a <B as Backend>::Matrix<f64>,
    &'a <B as Backend>::Matrix<f64>,
);

/// The split of a host weight matrix on its way to a backend.
struct Split<B: Backend> {
    light: B::Matrix<f64>,
    heavy: B::Matrix<f64>,
    longest_light_row: usize,
    heavy_edges: usize,
}

/// The light and heavy parts of a host weight matrix (split on the host with
/// the CPU backend's `select`), uploaded, with what the searches plan by.
fn split<B: Backend>(b: &B, w: &Matrix<f64>, delta: f64) -> Result<Split<B>> {
    let (cpu, n) = (Cpu::new(), w.nrows());
    let mut light = Matrix::<f64>::empty(n, n);
    let mut heavy = Matrix::<f64>::empty(n, n);
    ops::select_matrix(&cpu, &mut light, IndexOp::ValueLe(delta), w, &Desc::new())?;
    ops::select_matrix(&cpu, &mut heavy, IndexOp::ValueGt(delta), w, &Desc::new())?;
    let longest_light_row = light
        .as_csr()
        .row_ptr()
        .windows(2)
        .map(|r| r[1] - r[0])
        .max()
        .unwrap_or(0);
    Ok(Split {
        longest_light_row,
        heavy_edges: heavy.nvals(),
        light: b.upload_matrix(&light)?,
        heavy: b.upload_matrix(&heavy)?,
    })
}

/// Relaxation `t_req = t_B min.+ A`: pulled on `A'` while `t_B` holds at
/// least a sixteenth of the vertices, else pushed along the rows of `A`
/// where the backend pushes ([`Backend::pushes`]), else pulled.
fn relax<B: Backend>(
    b: &B,
    out: &mut B::Vector<f64>,
    t: &B::Vector<f64>,
    nvals: usize,
    (a, at): (&B::Matrix<f64>, &B::Matrix<f64>),
) -> Result<()>
where
    B::MaskSource: VectorShape,
{
    let s = MinPlus::<f64>::new();
    if nvals * 16 < t.len() && b.pushes(&s, a) {
        ops::vxm(b, out, FlippedSemiring(s), t, a, &Desc::new())
    } else {
        ops::mxv(b, out, s, at, t, &Desc::new())
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

/// [`super::BackendExt::delta_stepping`] on the primitives (checked
/// arguments): Meyer and Sanders' delta-stepping in the LAGraph
/// formulation. A bucket holds the unsettled vertices with tentative
/// distance in `[m, m + Δ)` (`m` the smallest unsettled distance); its
/// vertices relax their light edges until no distance in the bucket improves
/// (`t_req = t_B min.+ A_L`, improvements found by `select(t_req - t < 0)`),
/// then every vertex the bucket settled relaxes its heavy edges once. Cost:
/// `O(n + m)` per bucket pass in the worst case.
///
/// ```
/// use bitgraphblas::ext::{sssp::delta_stepping_generic, DeltaEdges};
/// use bitgraphblas::{Backend, Cpu, Matrix};
/// let w = Matrix::from_triplets(3, 3, vec![(0, 1, 5.0), (0, 2, 1.0), (2, 1, 2.0)]).unwrap();
/// let e = DeltaEdges::new(&Cpu, &w, 2.0).unwrap();
/// let d = delta_stepping_generic(&Cpu, &e, &[0]).unwrap();
/// assert_eq!(Cpu.download_vector(&d).unwrap().to_vec(f64::NAN), vec![0.0, 3.0, 1.0]);
/// ```
pub fn delta_stepping_generic<B: Backend>(
    b: &B,
    edges: &DeltaEdges<B>,
    sources: &[usize],
) -> Result<B::Vector<f64>>
where
    B::MaskSource: VectorShape,
{
    let n = edges.order();
    let delta = edges.delta();
    let (light_t, heavy_t) = edges.transposes(b)?;
    let light = (edges.light(), light_t);
    let heavy = (edges.heavy(), heavy_t);
    let mut t: B::Vector<f64> = b.vector_new(n, Some(f64::INFINITY), VectorFormat::Dense)?;
    // a source named twice is one source
    let mut sources = sources.to_vec();
    sources.sort_unstable();
    sources.dedup();
    ops::assign_scalar(b, &mut t, 0.0, Some(&sources), &Desc::new())?;
    let mut lo = 0.0f64;
    let mut t_b: B::Vector<f64> = b.vector_new(n, None, VectorFormat::Sparse)?;
    let mut tmp: B::Vector<f64> = b.vector_new(n, None, VectorFormat::Sparse)?;
    let mut t_req: B::Vector<f64> = b.vector_new(n, None, VectorFormat::Sparse)?;
    loop {
        // lo + delta moves past lo (callers keep delta above lo's precision);
        // should it not, the bucket still holds lo itself.
        let hi = match lo + delta {
            hi if hi > lo => hi,
            _ if lo == 0.0 => f64::from_bits(1),
            _ => f64::from_bits(lo.to_bits() + 1),
        };
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
            relax(b, &mut t_req, &t_b, nb, light)?;
            let better = improve(b, &mut t, &t_req)?;
            ops::select(b, &mut t_b, IndexOp::ValueLt(hi), &better, &Desc::new())?;
            nb = b.vector_nvals(&t_b)?;
        }
        if edges.heavy_edges() > 0 {
            let mut t_s: B::Vector<f64> = b.vector_new(n, None, VectorFormat::Sparse)?;
            ops::apply(
                b,
                &mut t_s,
                Identity,
                &t,
                &Desc::new().mask(B::mask(&settled).structure()).replace(),
            )?;
            let ns = b.vector_nvals(&t_s)?;
            relax(b, &mut t_req, &t_s, ns, heavy)?;
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
    Ok(t)
}
