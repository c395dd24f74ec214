//! Generators: density-biased sparse matrices (density = u·u, as petgraph's
//! quickcheck graphs), ragged sizes 0..~70 so tiles are often partial, empty
//! matrices, empty rows, dense blocks, bands and single entries; vectors in
//! every storage format; mask kinds and descriptor flags. Shrinking removes
//! entries (halves), which is cheap and keeps shapes consistent.

use bitgraphblas::container::MatrixRepr;
use bitgraphblas::storage::b2sr::ColumnForm;
use bitgraphblas::{Format, Matrix, Scalar, TileSize, Vector, VectorFormat};
use quickcheck::{Arbitrary, Gen};

use super::TestScalar;

/// A uniform draw in `0..n` (`n > 0`).
pub fn below(g: &mut Gen, n: usize) -> usize {
    (u64::arbitrary(g) % n as u64) as usize
}

/// A uniform draw in `[0, 1)`.
pub fn unit(g: &mut Gen) -> f64 {
    (u32::arbitrary(g) as f64) / (u32::MAX as f64 + 1.0)
}

/// A dimension: often ragged (not a multiple of any tile size), sometimes 0 or
/// tiny, sometimes just around a tile edge, at most 70.
pub fn dim(g: &mut Gen) -> usize {
    match below(g, 10) {
        0 => below(g, 3),
        1 => {
            let k = *g.choose(&[4usize, 8, 16, 32, 64]).unwrap();
            k - 1 + below(g, 3)
        }
        _ => 1 + below(g, 70),
    }
}

/// Every matrix format the suite runs: CSR and B2SR at each tile size.
pub const FORMATS: [Format; 6] = [
    Format::Csr,
    Format::B2sr(TileSize::T4),
    Format::B2sr(TileSize::T8),
    Format::B2sr(TileSize::T16),
    Format::B2sr(TileSize::T32),
    Format::B2sr(TileSize::T64),
];

/// A sparse matrix as sorted, distinct `(row, col, value)` triplets.
#[derive(Clone, Debug, PartialEq)]
pub struct SpMat<T> {
    pub nrows: usize,
    pub ncols: usize,
    pub entries: Vec<(usize, usize, T)>,
}

impl<T: TestScalar> SpMat<T> {
    /// A random `nrows x ncols` matrix: density u·u, plus at random a dense
    /// block, a band, a single entry only, or some rows cleared.
    pub fn gen(g: &mut Gen, nrows: usize, ncols: usize) -> Self {
        let mut cells = vec![false; nrows * ncols];
        let style = below(g, 12);
        match style {
            0 => {} // empty
            1 if nrows * ncols > 0 => {
                // single entry
                cells[below(g, nrows * ncols)] = true;
            }
            2 => {
                // a band of half-width w
                let w = below(g, 4) as isize;
                for i in 0..nrows {
                    for j in 0..ncols {
                        if (i as isize - j as isize).abs() <= w {
                            cells[i * ncols + j] = true;
                        }
                    }
                }
            }
            _ => {
                let p = unit(g) * unit(g);
                let p = if below(g, 15) == 0 { 1.0 } else { p };
                for c in cells.iter_mut() {
                    *c = unit(g) < p;
                }
            }
        }
        if nrows > 0 && ncols > 0 && below(g, 4) == 0 {
            // a dense block
            let (r0, c0) = (below(g, nrows), below(g, ncols));
            let (h, w) = (1 + below(g, nrows - r0), 1 + below(g, ncols - c0));
            for i in r0..r0 + h {
                for j in c0..c0 + w {
                    cells[i * ncols + j] = true;
                }
            }
        }
        if nrows > 0 && below(g, 3) == 0 {
            // empty rows
            for i in 0..nrows {
                if below(g, 3) == 0 {
                    cells[i * ncols..(i + 1) * ncols].fill(false);
                }
            }
        }
        let entries = (0..nrows * ncols)
            .filter(|&c| cells[c])
            .map(|c| (c / ncols, c % ncols, T::draw(g)))
            .collect();
        SpMat {
            nrows,
            ncols,
            entries,
        }
    }

    /// The host matrix (CSR with values).
    pub fn matrix(&self) -> Matrix<T> {
        Matrix::from_triplets(self.nrows, self.ncols, self.entries.clone())
            .expect("generated triplets are valid")
    }

    /// The same pattern with every value set to `v`.
    pub fn iso(&self, v: T) -> SpMat<T> {
        SpMat {
            nrows: self.nrows,
            ncols: self.ncols,
            entries: self.entries.iter().map(|&(i, j, _)| (i, j, v)).collect(),
        }
    }

    /// The matrix in `format`: CSR keeps the values, B2SR uses the iso value `iso`.
    /// Returns the matrix and the triplets it really holds. A B2SR with an odd
    /// number of entries has its tile columns in 16 bits whatever packing
    /// chose, so that every operation meets both column forms.
    pub fn in_format(&self, format: Format, iso: T) -> (Matrix<T>, SpMat<T>) {
        match format {
            Format::Csr => (self.matrix(), self.clone()),
            f => {
                let s = self.iso(iso);
                let m = s
                    .matrix()
                    .to_format(f)
                    .expect("iso matrices convert to B2SR");
                let narrow = match m.repr() {
                    MatrixRepr::B2sr { pattern, value } if s.entries.len() % 2 == 1 => Some(
                        Matrix::from_b2sr(pattern.clone().with_columns(ColumnForm::Narrow), *value),
                    ),
                    _ => None,
                };
                (narrow.unwrap_or(m), s)
            }
        }
    }

    /// The transpose.
    pub fn transpose(&self) -> SpMat<T> {
        let mut entries: Vec<_> = self.entries.iter().map(|&(i, j, v)| (j, i, v)).collect();
        entries.sort_by_key(|e| (e.0, e.1));
        SpMat {
            nrows: self.ncols,
            ncols: self.nrows,
            entries,
        }
    }

    /// Dense cells, row-major.
    pub fn cells(&self) -> Vec<Option<T>> {
        let mut c = vec![None; self.nrows * self.ncols];
        for &(i, j, v) in &self.entries {
            c[i * self.ncols + j] = Some(v);
        }
        c
    }

    /// Halves of the entry list (for shrinking).
    pub fn shrink_entries(&self) -> Vec<SpMat<T>> {
        let n = self.entries.len();
        if n == 0 {
            return vec![];
        }
        let mut out = vec![SpMat {
            entries: vec![],
            ..self.clone()
        }];
        if n > 1 {
            out.push(SpMat {
                entries: self.entries[..n / 2].to_vec(),
                ..self.clone()
            });
            out.push(SpMat {
                entries: self.entries[n / 2..].to_vec(),
                ..self.clone()
            });
        }
        out
    }
}

/// A vector: per-index optional values and the storage format to build it in.
/// With [`VectorFormat::Bits`] every present value is one.
#[derive(Clone, Debug, PartialEq)]
pub struct SpVec<T> {
    pub vals: Vec<Option<T>>,
    pub format: VectorFormat,
}

impl<T: TestScalar> SpVec<T> {
    /// A random vector of length `len`: density u·u (full in 1 of 5), any format
    /// (dense full, dense with holes, bits, sparse).
    pub fn gen(g: &mut Gen, len: usize) -> Self {
        let format = *g
            .choose(&[
                VectorFormat::Dense,
                VectorFormat::Bits,
                VectorFormat::Sparse,
            ])
            .unwrap();
        let p = match below(g, 5) {
            0 => 1.0,
            1 => 0.0,
            _ => unit(g) * unit(g) * 1.2,
        };
        let vals = (0..len)
            .map(|_| {
                (unit(g) < p).then(|| {
                    if format == VectorFormat::Bits {
                        T::one()
                    } else {
                        T::draw(g)
                    }
                })
            })
            .collect();
        SpVec { vals, format }
    }

    /// Length.
    pub fn len(&self) -> usize {
        self.vals.len()
    }

    /// The host vector in this format.
    pub fn vector(&self) -> Vector<T> {
        let e = self
            .vals
            .iter()
            .enumerate()
            .filter_map(|(i, v)| v.map(|x| (i, x)))
            .collect();
        Vector::from_entries(self.len(), e)
            .expect("valid entries")
            .to_format(self.format)
            .expect("bits vectors hold ones")
    }

    /// Smaller versions: fewer entries (format kept), or Sparse format.
    pub fn shrink_entries(&self) -> Vec<SpVec<T>> {
        let present: Vec<usize> = (0..self.len())
            .filter(|&i| self.vals[i].is_some())
            .collect();
        let mut out = Vec::new();
        if !present.is_empty() {
            let mut none = self.clone();
            none.vals.iter_mut().for_each(|v| *v = None);
            out.push(none);
            if present.len() > 1 {
                let mut half = self.clone();
                for &i in &present[..present.len() / 2] {
                    half.vals[i] = None;
                }
                out.push(half);
            }
        }
        out
    }
}

/// Reads a vector back as per-index options.
pub fn cells_of_vector<T: Scalar>(v: &Vector<T>) -> Vec<Option<T>> {
    (0..v.len()).map(|i| v.get(i)).collect()
}

/// Reads a matrix back as row-major dense cells.
pub fn cells_of_matrix<T: Scalar>(m: &Matrix<T>) -> Vec<Option<T>> {
    let c = m.as_csr();
    let mut out = vec![None; c.nrows() * c.ncols()];
    for i in 0..c.nrows() {
        let (cols, vals) = c.row(i);
        for (&j, &v) in cols.iter().zip(vals) {
            out[i * c.ncols() + j as usize] = Some(v);
        }
    }
    out
}

/// Which mask an operation gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaskKind {
    None,
    Valued,
    Structural,
    ValuedComplement,
    StructuralComplement,
}

impl MaskKind {
    pub const ALL: [MaskKind; 5] = [
        MaskKind::None,
        MaskKind::Valued,
        MaskKind::Structural,
        MaskKind::ValuedComplement,
        MaskKind::StructuralComplement,
    ];
    /// Reads presence only.
    pub fn structural(self) -> bool {
        matches!(self, MaskKind::Structural | MaskKind::StructuralComplement)
    }
    /// Complemented.
    pub fn complemented(self) -> bool {
        matches!(
            self,
            MaskKind::ValuedComplement | MaskKind::StructuralComplement
        )
    }
}

/// Mask kind, replace, accumulate and transpose flags of one call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DescCfg {
    pub mask: MaskKind,
    pub replace: bool,
    pub accum: bool,
    pub ta: bool,
    pub tb: bool,
}

impl Arbitrary for DescCfg {
    fn arbitrary(g: &mut Gen) -> Self {
        DescCfg {
            mask: *g.choose(&MaskKind::ALL).unwrap(),
            replace: bool::arbitrary(g),
            accum: bool::arbitrary(g),
            ta: bool::arbitrary(g),
            tb: bool::arbitrary(g),
        }
    }
    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        let mut v = Vec::new();
        if self.mask != MaskKind::None {
            v.push(DescCfg {
                mask: MaskKind::None,
                ..*self
            });
        }
        if self.replace {
            v.push(DescCfg {
                replace: false,
                ..*self
            });
        }
        if self.accum {
            v.push(DescCfg {
                accum: false,
                ..*self
            });
        }
        Box::new(v.into_iter())
    }
}

/// Builds a `Desc` from a [`DescCfg`], a mask option and an accumulator
/// operator, and runs `$body` with it bound to `$d` (one branch per type).
macro_rules! with_desc {
    ($cfg:expr, $mask:expr, $accum:expr, |$d:ident| $body:expr) => {{
        let cfg: &$crate::common::DescCfg = $cfg;
        let mut base = bitgraphblas::Desc::new();
        if cfg.replace {
            base = base.replace();
        }
        if cfg.ta {
            base = base.transpose_a();
        }
        if cfg.tb {
            base = base.transpose_b();
        }
        match ($mask, cfg.accum) {
            (None, false) => {
                let $d = base;
                $body
            }
            (Some(m), false) => {
                let $d = base.mask(m);
                $body
            }
            (None, true) => {
                let $d = base.accum($accum);
                $body
            }
            (Some(m), true) => {
                let $d = base.mask(m).accum($accum);
                $body
            }
        }
    }};
}
pub(crate) use with_desc;

/// Cases with a size parameter bigger than quickcheck's default shrink to
/// nothing interesting; a fixed-size `Gen` keeps all sizes reachable.
pub fn qc(tests: u64) -> quickcheck::QuickCheck {
    quickcheck::QuickCheck::new()
        .tests(tests)
        .max_tests(tests * 10)
        .rng(Gen::new(100))
}
