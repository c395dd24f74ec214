//! Device-resident matrices, vectors and dense matrices, and their transfers.

use super::device::{DBuf, Dev, DevPtr};
use super::launch::pack;
use super::transfer::{from_bytes, u32_to_words, words_to_u32};
use crate::backend::{MatrixShape, VectorShape};
use crate::container::{Matrix, MatrixRepr, Vector, VectorRepr};
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use crate::storage::b2sr::{with_blocks, B2srBlocks, B2srTiles, TileBits, TileColumns};
use crate::storage::{B2sr, BitVec, Csr, DenseMatrix, TileSize};
use std::sync::{Arc, OnceLock};

/// Tiles per load-balance segment of a long tile row: 32 rounds of a warp.
pub(crate) fn seg_len(k: usize) -> u32 {
    32 * (32 / k as u32)
}

/// Tile rows with at most this many tiles are short: one group of k lanes
/// takes each; longer ones are cut into segments for whole warps.
pub(crate) const SHORT_MAX: u32 = 16;

/// Device packing cuts a tile row into chunks of tile columns when its
/// longest row has more than this many entries (one chunk per this many).
pub(crate) const PACK_CHUNK: u32 = 256;

/// u32 words of a device bit vector of `n` bits (the host's u64 words as pairs).
pub(crate) fn bit_words(n: usize) -> usize {
    n.div_ceil(64) * 2
}

/// A B2SR pattern on the device, with its load-balance segments. Its tile
/// columns are stored in 32 bits, or in the 16-bit form where the host
/// matrix uploaded has them ([`crate::storage::b2sr::columns`]): the
/// one-launch `mxv` reads that form; other kernels get 32-bit columns made
/// from it at their first use ([`DevB2sr::colidx`]). Patterns made on the
/// device have 32-bit columns.
pub(crate) struct DevB2sr {
    pub k: usize,
    pub nrows: usize,
    pub ncols: usize,
    pub tile_rows: usize,
    pub ntiles: usize,
    pub rowptr: DBuf<u32>,
    /// The 32-bit tile columns: set from the start, or made from `narrow`.
    colidx: OnceLock<DBuf<u32>>,
    /// The 16-bit tile columns, where the pattern is stored so.
    pub narrow: Option<DevNarrow>,
    pub tiles: DBuf<u8>,
    pub nseg: usize,
    pub seg_row: DBuf<u32>,
    pub seg_off: DBuf<u32>,
    pub split_rows: DBuf<u32>,
    pub nsplit: usize,
    /// Made at the first one-launch `mxv` that needs it.
    scratch: OnceLock<MxvScratch>,
}

/// 16-bit tile columns on the device: a base per tile row, an offset per
/// tile, the escaped rows' columns (`cuda/columns.cuh`).
pub(crate) struct DevNarrow {
    pub base: DBuf<u32>,
    pub offset: DBuf<u16>,
    pub escaped: DBuf<u32>,
    /// Escaped columns.
    pub nescaped: usize,
}

/// Tile columns as a pattern is built from them.
pub(crate) enum DevCols {
    /// 32-bit.
    Wide(DBuf<u32>),
    /// 16-bit.
    Narrow(DevNarrow),
}

/// Scratch of the one-launch `mxv` (k <= 8) on a pattern with split tile
/// rows: each segment's partial (k values of up to 8 bytes, and k presence
/// bits) and a counter per tile row, zero between products (the kernel
/// resets what it counted).
pub(crate) struct MxvScratch {
    pub part_vals: DBuf<u64>,
    pub part_has: DBuf<u32>,
    pub counter: DBuf<u32>,
}

impl DevB2sr {
    /// Wraps device arrays made on the device (32-bit tile columns) and
    /// builds the segments on the device.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        dev: &Dev,
        k: usize,
        nrows: usize,
        ncols: usize,
        ntiles: usize,
        rowptr: DBuf<u32>,
        colidx: DBuf<u32>,
        tiles: DBuf<u8>,
    ) -> Result<DevB2sr> {
        let cols = DevCols::Wide(colidx);
        DevB2sr::assemble(dev, k, nrows, ncols, ntiles, rowptr, cols, tiles)
    }

    /// Wraps device arrays, tile columns in the form `cols` gives.
    #[allow(clippy::too_many_arguments)]
    pub fn assemble(
        dev: &Dev,
        k: usize,
        nrows: usize,
        ncols: usize,
        ntiles: usize,
        rowptr: DBuf<u32>,
        cols: DevCols,
        tiles: DBuf<u8>,
    ) -> Result<DevB2sr> {
        let tile_rows = nrows.div_ceil(k);
        let seg_off = dev.alloc::<u32>(tile_rows + 1)?;
        pack::seg_count(
            rowptr.ptr(),
            tile_rows as u32,
            SHORT_MAX,
            seg_len(k),
            seg_off.ptr(),
        )
        .run(dev, tile_rows + 1)?;
        dev.scan(&seg_off, tile_rows + 1)?;
        let nseg = dev.read_u32(&seg_off, tile_rows)? as usize;
        let seg_row = dev.alloc::<u32>(nseg)?;
        let split_rows = dev.alloc::<u32>(tile_rows)?;
        let counter = dev.zeros::<u32>(1)?;
        pack::seg_fill(
            seg_off.ptr(),
            tile_rows as u32,
            seg_row.ptr(),
            split_rows.ptr(),
            counter.ptr(),
        )
        .run(dev, tile_rows)?;
        let nsplit = dev.read_u32(&counter, 0)? as usize;
        let (colidx, narrow) = match cols {
            DevCols::Wide(c) => (OnceLock::from(c), None),
            DevCols::Narrow(n) => (OnceLock::new(), Some(n)),
        };
        Ok(DevB2sr {
            k,
            nrows,
            ncols,
            tile_rows,
            ntiles,
            rowptr,
            colidx,
            narrow,
            tiles,
            nseg,
            seg_row,
            seg_off,
            split_rows,
            nsplit,
            scratch: OnceLock::new(),
        })
    }

    /// The scratch of the one-launch `mxv`, made on first use.
    pub fn mxv_scratch(&self, dev: &Dev) -> Result<&MxvScratch> {
        if let Some(s) = self.scratch.get() {
            return Ok(s);
        }
        let s = MxvScratch {
            part_vals: dev.alloc(self.nseg * self.k)?,
            part_has: dev.alloc(self.nseg)?,
            counter: dev.zeros(self.tile_rows)?,
        };
        Ok(self.scratch.get_or_init(|| s))
    }

    /// The 32-bit tile columns, made from the 16-bit form at the first call
    /// where the pattern is stored in it.
    pub fn colidx(&self, dev: &Dev) -> Result<&DBuf<u32>> {
        if let Some(c) = self.colidx.get() {
            return Ok(c);
        }
        let n = self
            .narrow
            .as_ref()
            .expect("a pattern holds one form or both");
        let c = dev.alloc::<u32>(self.ntiles)?;
        pack::cols_widen(
            self.rowptr.ptr(),
            self.tile_rows as u32,
            n.base.ptr(),
            n.offset.ptr(),
            n.escaped.ptr(),
            c.ptr(),
        )
        .run(dev, self.tile_rows * 32)?;
        Ok(self.colidx.get_or_init(|| c))
    }

    /// A copy, tile columns in the same form.
    pub fn copy(&self, dev: &Dev) -> Result<DevB2sr> {
        let cols = match &self.narrow {
            Some(n) => DevCols::Narrow(DevNarrow {
                base: dev.copy(&n.base)?,
                offset: dev.copy(&n.offset)?,
                escaped: dev.copy(&n.escaped)?,
                nescaped: n.nescaped,
            }),
            None => DevCols::Wide(dev.copy(self.colidx(dev)?)?),
        };
        let (rowptr, tiles) = (dev.copy(&self.rowptr)?, dev.copy(&self.tiles)?);
        DevB2sr::assemble(
            dev,
            self.k,
            self.nrows,
            self.ncols,
            self.ntiles,
            rowptr,
            cols,
            tiles,
        )
    }

    /// The 32-bit tile columns where the pattern stores them so, else NULL
    /// (the 16-bit ones are then in [`Self::narrow`]).
    pub fn stored_colidx(&self) -> DevPtr<u32> {
        match (&self.narrow, self.colidx.get()) {
            (Some(_), _) | (None, None) => DevPtr::null(),
            (None, Some(c)) => c.ptr(),
        }
    }

    /// Bytes of the B2SR arrays as stored (what a product must read at least
    /// once): row offsets, tile columns (32-bit, or the 16-bit form) and tiles.
    pub fn bytes(&self) -> usize {
        let cols = match &self.narrow {
            Some(n) => 4 * self.tile_rows + 2 * self.ntiles + 4 * n.nescaped,
            None => 4 * self.ntiles,
        };
        4 * (self.tile_rows + 1) + cols + self.ntiles * self.k * self.k / 8
    }

    fn upload_blocks<L: TileBits>(
        dev: &Dev,
        b: &B2srBlocks<L>,
        nrows: usize,
        ncols: usize,
    ) -> Result<DevB2sr> {
        let mut bytes = Vec::with_capacity(b.tiles().len() * L::BYTES);
        for t in b.tiles() {
            t.to_le_bytes(&mut bytes);
        }
        // the host's form, as it is
        let cols = match b.columns() {
            TileColumns::Wide(c) => DevCols::Wide(dev.upload(c)?),
            TileColumns::Narrow(n) => DevCols::Narrow(DevNarrow {
                base: dev.upload(n.base())?,
                offset: dev.upload(n.offset())?,
                escaped: dev.upload(n.escaped())?,
                nescaped: n.escaped().len(),
            }),
        };
        DevB2sr::assemble(
            dev,
            L::K,
            nrows,
            ncols,
            b.tiles().len(),
            dev.upload(b.tile_row_ptr())?,
            cols,
            dev.upload(&bytes)?,
        )
    }

    /// Copies a host pattern. The device kernels take tiles of 4 to 32: a
    /// pattern of 64x64 tiles is re-tiled on the host and kept as 32x32 tiles
    /// (the same entries; the device matrix reports `B2sr(T32)`).
    pub fn upload(dev: &Dev, p: &B2sr) -> Result<DevB2sr> {
        if p.tile_size() == TileSize::T64 {
            let t32 = B2sr::from_csr(&p.to_csr(true)?, TileSize::T32)?;
            return DevB2sr::upload(dev, &t32);
        }
        with_blocks!(p.tiles(), b => DevB2sr::upload_blocks(dev, b, p.nrows(), p.ncols()))
    }

    /// Copies the pattern back.
    pub fn download(&self, dev: &Dev) -> Result<B2sr> {
        let rowptr = from_bytes::<u32>(
            &dev.download_bytes(&self.rowptr, self.tile_rows + 1)?,
            self.tile_rows + 1,
        );
        let colidx = from_bytes::<u32>(
            &dev.download_bytes(self.colidx(dev)?, self.ntiles)?,
            self.ntiles,
        );
        let tb = self.k * self.k / 8;
        let bytes = dev.download_bytes(&self.tiles, self.ntiles * tb)?;
        fn blocks<L: TileBits>(r: Vec<u32>, c: Vec<u32>, bytes: &[u8]) -> B2srBlocks<L> {
            let tiles = bytes.chunks_exact(L::BYTES).map(L::from_le_bytes).collect();
            B2srBlocks::from_raw(r, c, tiles)
        }
        let tiles = match self.k {
            4 => B2srTiles::T4(blocks(rowptr, colidx, &bytes)),
            8 => B2srTiles::T8(blocks(rowptr, colidx, &bytes)),
            16 => B2srTiles::T16(blocks(rowptr, colidx, &bytes)),
            _ => B2srTiles::T32(blocks(rowptr, colidx, &bytes)),
        };
        B2sr::from_parts(self.nrows, self.ncols, tiles)
    }
}

pub(crate) fn no_kernel(op: &'static str, what: impl Into<String>) -> Error {
    Error::NoKernel {
        backend: "cuda",
        op,
        what: what.into(),
    }
}

/// A sparse matrix in device memory: CSR with a value an entry, CSR whose
/// entries all hold one (nonzero) value stored once, or a B2SR pattern with
/// one iso value. A CSR pattern is never written after it is made, and the
/// matrices made from one another with the same pattern (a copy, a
/// [`crate::ext::pattern_with`]) share it.
///
/// Made by [`crate::Backend::upload_matrix`] or on the device by
/// [`crate::Backend::convert`]; read back with [`crate::Backend::download_matrix`].
///
/// ```no_run
/// use bitgraphblas::{backend::cuda::CudaBackend, Backend, Format, Matrix, TileSize};
/// let gpu = CudaBackend::new(0)?;
/// let a = Matrix::from_triplets(2, 2, vec![(0, 1, 1.0f32), (1, 0, 1.0)])?;
/// let d = gpu.upload_matrix(&a)?; // CSR on the device
/// let p = gpu.convert(&d, Format::B2sr(TileSize::T8))?; // packed on the device
/// assert_eq!((d.tile_size(), p.tile_size()), (None, Some(8)));
/// assert_eq!(gpu.download_matrix(&p)?.get(0, 1), Some(1.0));
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub struct CudaMatrix<T> {
    pub(crate) nrows: usize,
    pub(crate) ncols: usize,
    pub(crate) repr: DMat<T>,
}

// One matrix holds one of these; the size difference does not matter.
#[allow(clippy::large_enum_variant)]
pub(crate) enum DMat<T> {
    Csr {
        /// Shared by the matrices made from one another with the same
        /// pattern (a copy, a view with another value type).
        pat: Arc<CsrPattern>,
        vals: CsrVals<T>,
    },
    B2sr {
        pat: DevB2sr,
        value: T,
    },
}

/// A CSR pattern on the device: row offsets, columns, and what products
/// keep for it. Never written after it is made, so matrices share it.
pub(crate) struct CsrPattern {
    pub rowptr: DBuf<u32>,
    pub colidx: DBuf<u32>,
    pub nnz: usize,
    /// What products keep for this pattern, each made at its first use.
    pub plans: CsrPlans,
}

/// A CSR matrix's values on the device.
pub(crate) enum CsrVals<T> {
    /// One value an entry.
    Each(DBuf<T>),
    /// Every entry holds this one (nonzero) value, stored once: the
    /// products read the column indices alone, other operations get the
    /// values filled in ([`crate::backend::cuda::CudaBackend::csr_input`]).
    Iso(T),
}

impl<T: Copy> CsrVals<T> {
    /// The one value of an iso-valued matrix.
    pub(crate) fn iso(&self) -> Option<T> {
        match self {
            CsrVals::Each(_) => None,
            CsrVals::Iso(v) => Some(*v),
        }
    }
}

/// A CSR matrix as a product reads it: its pattern and its values.
pub(crate) type CsrParts<'a, T> = (&'a Arc<CsrPattern>, &'a CsrVals<T>);

/// What products keep with a CSR pattern between calls (each depends on the
/// row pointers alone), made at the first product that needs it.
#[derive(Default)]
pub(crate) struct CsrPlans {
    /// The row-block `mxv`'s.
    pub blocks: OnceLock<BlockPlan>,
    /// BSpMM's long rows (`bits/bspmm.rs`).
    pub long_rows: OnceLock<LongRows>,
}

/// The rows of a CSR matrix with more than `long_min` entries, which the
/// BSpMM by vertical counters gives a block each.
pub(crate) struct LongRows {
    pub long_min: u32,
    pub rows: DBuf<u32>,
    pub count: usize,
}

/// What the row-block `mxv` on a CSR matrix (`cuda/csr_blocks.cu`) keeps
/// between products: the blocks (which depend on the row pointers alone),
/// a partial slot a block for the pieces of hub rows (values of up to 8
/// bytes), a counter a block (zero between products), and the bits of the
/// rows that hold an entry (a product's presence where every input entry is
/// present and nothing masks it).
pub(crate) struct BlockPlan {
    pub nblocks: usize,
    pub nonempty: DBuf<u32>,
    pub brow: DBuf<u32>,
    pub bpiece: DBuf<u32>,
    pub part_vals: DBuf<u64>,
    pub part_has: DBuf<u8>,
    pub count: DBuf<u32>,
}

/// A [`DMat`] borrowed as its parts, for a match on the format.
pub(crate) enum Parts<'a, T> {
    /// CSR: its pattern and values.
    Csr(CsrParts<'a, T>),
    /// B2SR: the pattern and the iso value.
    B2sr(&'a DevB2sr, T),
}

impl<T> DMat<T> {
    /// A CSR matrix of these arrays (`vals`: one a stored entry).
    pub(crate) fn csr(rowptr: DBuf<u32>, colidx: DBuf<u32>, vals: DBuf<T>, nnz: usize) -> DMat<T> {
        DMat::csr_of(rowptr, colidx, nnz, CsrVals::Each(vals))
    }

    /// A CSR matrix of these arrays and values.
    pub(crate) fn csr_of(
        rowptr: DBuf<u32>,
        colidx: DBuf<u32>,
        nnz: usize,
        vals: CsrVals<T>,
    ) -> DMat<T> {
        DMat::Csr {
            pat: Arc::new(CsrPattern {
                rowptr,
                colidx,
                nnz,
                plans: CsrPlans::default(),
            }),
            vals,
        }
    }
}

impl<T: Copy> DMat<T> {
    /// The matrix as its parts.
    pub(crate) fn parts(&self) -> Parts<'_, T> {
        match self {
            DMat::Csr { pat, vals } => Parts::Csr((pat, vals)),
            DMat::B2sr { pat, value } => Parts::B2sr(pat, *value),
        }
    }
}

impl<T> MatrixShape for CudaMatrix<T> {
    fn nrows(&self) -> usize {
        self.nrows
    }
    fn ncols(&self) -> usize {
        self.ncols
    }
}

impl<T: Scalar> CudaMatrix<T> {
    /// The B2SR tile size, `None` for CSR.
    pub fn tile_size(&self) -> Option<usize> {
        match &self.repr {
            DMat::B2sr { pat, .. } => Some(pat.k),
            DMat::Csr { .. } => None,
        }
    }
    /// Bytes of the device arrays (B2SR: row pointers, tile columns, tiles;
    /// CSR: row pointers, columns, and values unless the matrix is iso;
    /// a pattern shared with another matrix counts in each).
    pub fn bytes(&self) -> usize {
        match &self.repr {
            DMat::B2sr { pat, .. } => pat.bytes(),
            DMat::Csr { pat, vals } => {
                let each = match vals {
                    CsrVals::Each(_) => std::mem::size_of::<T>(),
                    CsrVals::Iso(_) => 0,
                };
                4 * (self.nrows + 1) + pat.nnz * (4 + each)
            }
        }
    }
    /// Whether a B2SR matrix stores its tile columns in the 16-bit form
    /// (`false` for 32-bit columns and for CSR).
    pub fn narrow_columns(&self) -> bool {
        matches!(&self.repr, DMat::B2sr { pat, .. } if pat.narrow.is_some())
    }
    /// Number of non-empty tiles (B2SR) or stored entries (CSR).
    pub fn ntiles(&self) -> usize {
        match &self.repr {
            DMat::B2sr { pat, .. } => pat.ntiles,
            DMat::Csr { pat, .. } => pat.nnz,
        }
    }
    /// The one value every stored entry holds, where the matrix stores it
    /// once: CSR with one (nonzero) value, or B2SR.
    ///
    /// ```no_run
    /// use bitgraphblas::{backend::cuda::CudaBackend, Backend, Matrix};
    /// let gpu = CudaBackend::new(0)?;
    /// let ones = Matrix::from_triplets(2, 2, vec![(0, 1, 1.0f32), (1, 0, 1.0)])?;
    /// let mixed = Matrix::from_triplets(2, 2, vec![(0, 1, 1.0f32), (1, 0, 2.0)])?;
    /// assert_eq!(gpu.upload_matrix(&ones)?.iso_value(), Some(1.0)); // no values array
    /// assert_eq!(gpu.upload_matrix(&mixed)?.iso_value(), None);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn iso_value(&self) -> Option<T> {
        match &self.repr {
            DMat::Csr { vals, .. } => vals.iso(),
            DMat::B2sr { value, .. } => Some(*value),
        }
    }
    /// CSR device arrays `(row_ptr, col_idx, values, nnz)` as raw device
    /// addresses (for handing to cuSPARSE), the values `None` where the
    /// matrix stores its one value once ([`CudaMatrix::iso_value`]); `None`
    /// for B2SR.
    pub fn csr_device_ptrs(&self) -> Option<(u64, u64, Option<u64>, usize)> {
        match &self.repr {
            DMat::Csr { pat, vals } => Some((
                pat.rowptr.ptr().addr(),
                pat.colidx.ptr().addr(),
                match vals {
                    CsrVals::Each(v) => Some(v.ptr().addr()),
                    CsrVals::Iso(_) => None,
                },
                pat.nnz,
            )),
            DMat::B2sr { .. } => None,
        }
    }

    pub(crate) fn upload(dev: &Dev, m: &Matrix<T>) -> Result<Self> {
        let repr = match m.repr() {
            MatrixRepr::B2sr { pattern, value } => DMat::B2sr {
                pat: DevB2sr::upload(dev, pattern)?,
                value: *value,
            },
            MatrixRepr::Csr(c) => {
                let rp: Vec<u32> = c
                    .row_ptr()
                    .iter()
                    .map(|&x| {
                        u32::try_from(x).map_err(|_| Error::TooLarge {
                            what: "matrix",
                            detail: "more than 2^32 - 1 entries".into(),
                        })
                    })
                    .collect::<Result<_>>()?;
                let vals = match c.iso_value() {
                    Some(v) => CsrVals::Iso(v),
                    None => CsrVals::Each(dev.upload(c.values())?),
                };
                DMat::csr_of(dev.upload(&rp)?, dev.upload(c.col_idx())?, c.nnz(), vals)
            }
        };
        Ok(CudaMatrix {
            nrows: m.nrows(),
            ncols: m.ncols(),
            repr,
        })
    }

    pub(crate) fn download(&self, dev: &Dev) -> Result<Matrix<T>> {
        match &self.repr {
            DMat::B2sr { pat, value } => Ok(Matrix::from_b2sr(pat.download(dev)?, *value)),
            DMat::Csr { pat, vals } => {
                let nnz = pat.nnz;
                let rp: Vec<usize> = from_bytes::<u32>(
                    &dev.download_bytes(&pat.rowptr, self.nrows + 1)?,
                    self.nrows + 1,
                )
                .into_iter()
                .map(|x| x as usize)
                .collect();
                let ci = from_bytes::<u32>(&dev.download_bytes(&pat.colidx, nnz)?, nnz);
                let v = match vals {
                    CsrVals::Each(v) => from_bytes::<T>(&dev.download_bytes(v, nnz)?, nnz),
                    CsrVals::Iso(v) => vec![*v; nnz],
                };
                Ok(Matrix::from_csr(Csr::try_new(
                    self.nrows, self.ncols, rp, ci, v,
                )?))
            }
        }
    }
}

/// A vector in device memory: dense values with an optional presence bit
/// vector, packed bits, or sorted indices with values.
///
/// ```no_run
/// use bitgraphblas::{backend::cuda::CudaBackend, Backend, Vector, VectorFormat};
/// let gpu = CudaBackend::new(0)?;
/// let v = gpu.upload_vector(&Vector::from_dense(vec![1.0f64, 0.0, 2.0]))?;
/// let s = gpu.convert_vector(&v, VectorFormat::Sparse)?; // compacted on the device
/// assert_eq!(s.format(), VectorFormat::Sparse);
/// assert_eq!(gpu.download_vector(&s)?.to_vec(0.0), vec![1.0, 0.0, 2.0]);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub struct CudaVector<T> {
    pub(crate) len: usize,
    pub(crate) repr: DVec<T>,
}

pub(crate) enum DVec<T> {
    Dense {
        vals: DBuf<T>,
        pres: Option<DBuf<u32>>,
    },
    Bits(DBuf<u32>),
    Sparse {
        idx: DBuf<u32>,
        vals: DBuf<T>,
        nnz: usize,
    },
}

impl<T> VectorShape for CudaVector<T> {
    fn len(&self) -> usize {
        self.len
    }
}

impl<T: Scalar> CudaVector<T> {
    /// The storage format.
    pub fn format(&self) -> crate::VectorFormat {
        match &self.repr {
            DVec::Dense { .. } => crate::VectorFormat::Dense,
            DVec::Bits(_) => crate::VectorFormat::Bits,
            DVec::Sparse { .. } => crate::VectorFormat::Sparse,
        }
    }

    pub(crate) fn upload(dev: &Dev, v: &Vector<T>) -> Result<Self> {
        let repr = match v.repr() {
            VectorRepr::Dense { values, present } => DVec::Dense {
                vals: dev.upload(values)?,
                pres: match present {
                    Some(p) => Some(dev.upload(&words_to_u32(p.words()))?),
                    None => None,
                },
            },
            VectorRepr::Bits(b) => DVec::Bits(dev.upload(&words_to_u32(b.words()))?),
            VectorRepr::Sparse { indices, values } => DVec::Sparse {
                idx: dev.upload(indices)?,
                vals: dev.upload(values)?,
                nnz: indices.len(),
            },
        };
        Ok(CudaVector { len: v.len(), repr })
    }

    pub(crate) fn download(&self, dev: &Dev) -> Result<Vector<T>> {
        let n = self.len;
        let bits = |b: &DBuf<u32>| -> Result<BitVec> {
            let w = from_bytes::<u32>(&dev.download_bytes(b, bit_words(n))?, bit_words(n));
            BitVec::from_words(n, u32_to_words(&w))
                .ok_or_else(|| Error::storage("device vector", "bit vector length"))
        };
        let repr = match &self.repr {
            DVec::Dense { vals, pres } => VectorRepr::Dense {
                values: dev.download_vec(vals, n)?,
                present: match pres {
                    Some(p) => Some(bits(p)?),
                    None => None,
                },
            },
            DVec::Bits(b) => VectorRepr::Bits(bits(b)?),
            DVec::Sparse { idx, vals, nnz } => VectorRepr::Sparse {
                indices: dev.download_vec(idx, *nnz)?,
                values: dev.download_vec(vals, *nnz)?,
            },
        };
        Vector::from_repr(n, repr)
    }
}

/// A dense row-major matrix in device memory.
///
/// ```no_run
/// use bitgraphblas::{backend::cuda::CudaBackend, Backend, DenseMatrix};
/// let gpu = CudaBackend::new(0)?;
/// let x = gpu.upload_dense(&DenseMatrix::from_vec(2, 2, vec![1.0f32, 2.0, 3.0, 4.0])?)?;
/// let z = gpu.dense_new(2, 2, 0.0f32)?; // filled on the device
/// assert_eq!(gpu.download_dense(&x)?.as_slice(), &[1.0, 2.0, 3.0, 4.0]);
/// # let _ = z;
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub struct CudaDense<T> {
    pub(crate) nrows: usize,
    pub(crate) ncols: usize,
    pub(crate) data: DBuf<T>,
}

impl<T> MatrixShape for CudaDense<T> {
    fn nrows(&self) -> usize {
        self.nrows
    }
    fn ncols(&self) -> usize {
        self.ncols
    }
}

impl<T: Scalar> CudaDense<T> {
    pub(crate) fn upload(dev: &Dev, m: &DenseMatrix<T>) -> Result<Self> {
        Ok(CudaDense {
            nrows: m.nrows(),
            ncols: m.ncols(),
            data: dev.upload(m.as_slice())?,
        })
    }
    pub(crate) fn download(&self, dev: &Dev) -> Result<DenseMatrix<T>> {
        let n = self.nrows * self.ncols;
        DenseMatrix::from_vec(
            self.nrows,
            self.ncols,
            from_bytes::<T>(&dev.download_bytes(&self.data, n)?, n),
        )
    }
    /// The device address of the data (row-major), for benchmarks and interop.
    pub fn device_ptr(&self) -> u64 {
        self.data.ptr().addr()
    }
}
