//! `mxv` on CSR (`cuda/sr.cu`): row blocks (`cuda/csr_blocks.cu`) for every
//! semiring but LOR and ANY, which keep the row-group kernel (a row stops at
//! its first hit), with long rows cut into chunks for whole warps.

use super::super::codes::ACCUM_NONE;
use super::super::device::{bits_of, DBuf, DevPtr};
use super::super::launch::{sr, Sr};
use super::super::mem::{bit_words, BlockPlan, CsrParts, CsrVals};
use super::super::CudaBackend;
use super::Io;
use crate::algebra::SemiringKind;
use crate::error::{Error, Result};
use crate::scalar::Scalar;

/// Threads of a block of the CSR product, and the most rows it takes
/// (`BLOCKS_NT` in `cuda/csr_blocks.cu`).
const BLOCK_ROWS: usize = 128;
/// The most entries a block of whole rows stages (`BLOCKS_CAP`).
const BLOCK_ENTRIES: u32 = 512;
/// Entries of a hub row (one of more than [`BLOCK_ENTRIES`]) a block takes
/// (`BLOCKS_PIECE`).
const HUB_PIECE: u32 = 2048;
/// Marks a block that is a piece of a hub row (`BLOCKS_HUB`).
const HUB: u32 = 1 << 31;

/// The blocks of the CSR product for the row pointers `rowptr`, made once
/// per matrix: consecutive whole rows, at most [`BLOCK_ROWS`] of them and
/// [`BLOCK_ENTRIES`] entries, or a piece of [`HUB_PIECE`] entries of a hub
/// row. Returns each block's first row (`brow`, one entry more: the row
/// count) and what it is (`bpiece`: 0 for whole rows, `HUB | j` for piece `j`
/// of a hub row; its pieces are consecutive blocks).
pub(crate) fn row_blocks(rowptr: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let n = rowptr.len().saturating_sub(1);
    let mut brow = vec![0u32];
    let mut bpiece = Vec::new();
    let mut r = 0;
    while r < n {
        let len = rowptr[r + 1] - rowptr[r];
        if len > BLOCK_ENTRIES {
            let pieces = len.div_ceil(HUB_PIECE);
            for j in 0..pieces {
                bpiece.push(HUB | j);
                brow.push(if j + 1 == pieces { r + 1 } else { r } as u32);
            }
            r += 1;
            continue;
        }
        // rows r + 1 .. hi join while the block's entries fit
        let hi = (r + BLOCK_ROWS).min(n);
        let start = rowptr[r];
        let end = r + 1 + rowptr[r + 2..=hi].partition_point(|&p| p - start <= BLOCK_ENTRIES);
        bpiece.push(0);
        brow.push(end as u32);
        r = end;
    }
    (brow, bpiece)
}

/// The presence bits (`bit_words(n)` words) of the rows of `rowptr` that
/// hold an entry.
pub(crate) fn nonempty_rows(rowptr: &[u32]) -> Vec<u32> {
    let n = rowptr.len().saturating_sub(1);
    let mut bits = vec![0u32; bit_words(n)];
    for (i, w) in rowptr.windows(2).enumerate() {
        if w[1] > w[0] {
            bits[i / 32] |= 1 << (i % 32);
        }
    }
    bits
}

/// Whether a semiring's CSR product goes by row blocks: all but LOR and
/// ANY, which stop a row at its first hit (the row kernel).
fn by_blocks<T: Scalar>(m: &Sr<T>) -> bool {
    !matches!(
        m.kind(),
        Some(SemiringKind::LorLand | SemiringKind::AnyPair)
    )
}

/// The matrix of a CSR product: row pointers, columns, values (NULL when
/// iso) and the iso value's bits.
pub(crate) type CsrOperand<T> = (DevPtr<u32>, DevPtr<u32>, DevPtr<T>, u64);

/// The operand of the product kernels: the values are not read when every
/// entry holds the iso value.
pub(crate) fn operand<T: Scalar>((p, vals): CsrParts<'_, T>) -> CsrOperand<T> {
    match vals {
        CsrVals::Iso(x) => (p.rowptr.ptr(), p.colidx.ptr(), DevPtr::null(), bits_of(*x)),
        CsrVals::Each(v) => (p.rowptr.ptr(), p.colidx.ptr(), v.ptr(), 0),
    }
}

impl CudaBackend {
    /// `out = A ⊕.⊗ u` on CSR into zeroed presence: by row blocks
    /// ([`Self::csr_mxv_blocks`]) for every semiring but LOR and ANY; for
    /// those, a group of lanes per row (as many as the average row length, 2
    /// to 32) that stops at the row's first hit, and rows longer than
    /// `long_min` entries cut into chunks of that many entries for whole
    /// warps, whose partials `csr_mxv_fix` folds in order. With `iso` (every
    /// entry holds that value) the values are not read. With `accum >= 0`
    /// the output is a full vector and each row with an entry in the product
    /// is folded into it in place (`out_pres` is then unused).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn csr_mxv<T: Scalar>(
        &self,
        m: Sr<T>,
        a: CsrParts<'_, T>,
        nrows: usize,
        io: Io<T>,
        accum: i32,
    ) -> Result<()> {
        let ((u_vals, u_pres), allowed, (out_vals, out_pres)) = (io.u, io.allowed, io.out);
        let nnz = a.0.nnz;
        // LOR and ANY stop a row at its first hit: the row kernel keeps them.
        // Every other semiring takes the row blocks (docs/gpu-csr-row-blocks.md).
        if by_blocks(&m) {
            return self.csr_mxv_blocks(
                m,
                a,
                nrows,
                Io {
                    u: (u_vals, u_pres),
                    allowed,
                    out: (out_vals, out_pres),
                },
                accum,
                None,
            );
        }
        let (rowptr, colidx, avals, isobits) = operand(a);
        let avg = nnz / nrows.max(1);
        let vlog = (usize::BITS - 1 - avg.max(1).leading_zeros()).clamp(1, 5);
        let long_min = (32u32 << vlog).max(256);
        let n = nrows as u64;
        sr::csr_mxv(
            m, rowptr, colidx, avals, isobits, n, u_vals, u_pres, allowed, out_vals, out_pres,
            vlog, long_min, accum,
        )
        .run(&self.dev, nrows.div_ceil(32 >> vlog) * 32)?;
        // no row can be long when the whole matrix is not
        if nnz <= long_min as usize {
            return Ok(());
        }
        let nchunks = nnz.div_ceil(long_min as usize);
        let part_vals = self.dev.alloc::<T>(2 * nchunks)?;
        let part_has = self.dev.alloc::<u8>(2 * nchunks)?;
        let (pv, ph) = (part_vals.ptr(), part_has.ptr());
        sr::csr_mxv_long(
            m, rowptr, colidx, avals, isobits, n, nnz as u32, u_vals, u_pres, allowed, long_min,
            pv, ph,
        )
        .run(&self.dev, nchunks * 32)?;
        sr::csr_mxv_fix(m, rowptr, n, long_min, pv, ph, out_vals, out_pres, accum)
            .run(&self.dev, nrows)
    }

    /// `out = A ⊕.⊗ u` on CSR with no mask or accumulator, into an output
    /// of `nrows` values and presence bits `out_pres` (any contents). Where
    /// every entry of `u` is present (`u`'s presence NULL) and the semiring
    /// goes by row blocks, a row has a value exactly when it holds an entry:
    /// the presence is copied from the matrix's plan and the kernel writes
    /// values only (writing presence costs it about a fifth of its time on
    /// ego-Twitter, docs/gpu-csr-row-blocks.md); otherwise zeroed, then
    /// [`Self::csr_mxv`].
    pub(crate) fn csr_mxv_into<T: Scalar>(
        &self,
        m: Sr<T>,
        a: CsrParts<'_, T>,
        nrows: usize,
        u: (DevPtr<T>, DevPtr<u32>),
        (out_vals, out_pres): (DevPtr<T>, &DBuf<u32>),
    ) -> Result<()> {
        if u.1.is_null() && by_blocks(&m) {
            let plan = self.block_plan(a, nrows)?;
            if plan.nonempty.elements() == out_pres.elements() {
                self.dev.copy_into(&plan.nonempty, out_pres)?;
                let io = Io {
                    u,
                    allowed: DevPtr::null(),
                    out: (out_vals, DevPtr::null()),
                };
                return self.csr_mxv_blocks(m, a, nrows, io, ACCUM_NONE, None);
            }
        }
        self.dev.memset(out_pres, 0)?;
        let io = Io {
            u,
            allowed: DevPtr::null(),
            out: (out_vals, out_pres.ptr()),
        };
        self.csr_mxv(m, a, nrows, io, ACCUM_NONE)
    }

    /// [`Self::csr_mxv`] by row blocks (`cuda/csr_blocks.cu`), into zeroed
    /// presence (or, with `out_pres` NULL and no accumulator, presence the
    /// caller has written): blocks of whole rows staged in shared memory and hub rows
    /// cut into pieces ([`row_blocks`]), one launch; every row is folded in
    /// an order that depends on the matrix alone (deterministic). The plan is
    /// made at the matrix's first product and kept with it (`a`'s plans).
    /// `affine = Some((d, c))` as in [`Self::b2sr_mxv_fused`]: the gather
    /// reads `d_j ⊗ u_j`, every row becomes `c ⊕ value` (the output full,
    /// not read).
    pub(crate) fn csr_mxv_blocks<T: Scalar>(
        &self,
        m: Sr<T>,
        a: CsrParts<'_, T>,
        nrows: usize,
        io: Io<T>,
        accum: i32,
        affine: Option<(DevPtr<T>, u64)>,
    ) -> Result<()> {
        let ((u_vals, u_pres), allowed, (out_vals, out_pres)) = (io.u, io.allowed, io.out);
        let (d_vals, cbits) = affine.unwrap_or((DevPtr::null(), 0));
        let plan = self.block_plan(a, nrows)?;
        if plan.nblocks == 0 {
            return Ok(());
        }
        let (rowptr, colidx, avals, isobits) = operand(a);
        sr::csr_mxv_blocks(
            m,
            rowptr,
            colidx,
            avals,
            isobits,
            u_vals,
            u_pres,
            allowed,
            out_vals,
            out_pres,
            accum,
            plan.brow.ptr(),
            plan.bpiece.ptr(),
            plan.part_vals.ptr().cast::<T>(),
            plan.part_has.ptr(),
            plan.count.ptr(),
            d_vals,
            affine.is_some(),
            cbits,
        )
        .grid(&self.dev, plan.nblocks as u32, BLOCK_ROWS as u32)
    }

    /// The matrix's row blocks, made at its first product from its row
    /// pointers (read back once): [`row_blocks`], a partial slot a block,
    /// the hub rows' counters (zeroed; each product leaves them zeroed) and
    /// the rows that hold an entry ([`nonempty_rows`]).
    fn block_plan<'a, T: Scalar>(&self, a: CsrParts<'a, T>, nrows: usize) -> Result<&'a BlockPlan> {
        let cell = &a.0.plans.blocks;
        if let Some(p) = cell.get() {
            return Ok(p);
        }
        let rowptr = self.dev.download_vec::<u32>(&a.0.rowptr, nrows + 1)?;
        let (brow, bpiece) = row_blocks(&rowptr);
        let nonempty = self.dev.upload(&nonempty_rows(&rowptr))?;
        let nblocks = bpiece.len();
        if nblocks > i32::MAX as usize {
            return Err(Error::TooLarge {
                what: "matrix",
                detail: format!("{nblocks} row blocks for one CSR product (at most 2^31 - 1)"),
            });
        }
        let plan = BlockPlan {
            nblocks,
            nonempty,
            brow: self.dev.upload(&brow)?,
            bpiece: self.dev.upload(&bpiece)?,
            part_vals: self.dev.alloc(nblocks)?,
            part_has: self.dev.alloc(nblocks)?,
            count: self.dev.zeros(nblocks)?,
        };
        Ok(cell.get_or_init(|| plan))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks a plan against its row pointers: every row in exactly one
    /// block of whole rows or in the pieces of its own blocks, the limits
    /// kept.
    fn check(rowptr: &[u32]) {
        let (brow, bpiece) = row_blocks(rowptr);
        let n = rowptr.len() - 1;
        assert_eq!(brow.len(), bpiece.len() + 1);
        assert_eq!((brow[0], *brow.last().unwrap()), (0, n as u32));
        let mut b = 0;
        while b < bpiece.len() {
            let (r0, r1) = (brow[b] as usize, brow[b + 1] as usize);
            let len = rowptr[r0 + 1] - rowptr[r0];
            if bpiece[b] & HUB != 0 {
                assert!(len > BLOCK_ENTRIES, "block {b}: a piece of a short row");
                let pieces = len.div_ceil(HUB_PIECE) as usize;
                for j in 0..pieces {
                    assert_eq!(bpiece[b + j], HUB | j as u32);
                    assert_eq!(
                        brow[b + j + 1] as usize,
                        if j + 1 == pieces { r0 + 1 } else { r0 }
                    );
                }
                b += pieces;
                continue;
            }
            assert_eq!(bpiece[b], 0);
            assert!(
                r1 > r0 && r1 - r0 <= BLOCK_ROWS,
                "block {b}: rows {r0}..{r1}"
            );
            assert!(
                rowptr[r1] - rowptr[r0] <= BLOCK_ENTRIES,
                "block {b}: too many entries"
            );
            b += 1;
        }
    }

    #[test]
    fn nonempty_rows_marks_rows_with_entries() {
        assert_eq!(nonempty_rows(&[0]), [0u32; 0]);
        // rows 0 (empty), 1 (2 entries), 2 (empty), 3 (1 entry)
        assert_eq!(nonempty_rows(&[0, 0, 2, 2, 3]), [0b1010, 0]);
        // 70 rows, every third one entry: three words padded to four
        let mut rowptr = vec![0u32];
        for i in 0..70 {
            rowptr.push(rowptr[i] + u32::from(i % 3 == 0));
        }
        let bits = nonempty_rows(&rowptr);
        assert_eq!(bits.len(), 4);
        for i in 0..128 {
            let set = (bits[i / 32] >> (i % 32)) & 1 == 1;
            assert_eq!(set, i < 70 && i % 3 == 0, "row {i}");
        }
    }

    #[test]
    fn row_blocks_cover_every_row_once() {
        check(&[0]);
        check(&[0, 0, 0, 0]);
        // 300 rows of 3 entries: blocks of 128 rows (384 entries)
        check(&(0..=300).map(|i| 3 * i).collect::<Vec<u32>>());
        // rows of 513, 2048, 2049 and 9000 entries among short and empty rows
        let lens = [0u32, 5, 513, 1, 2048, 2049, 0, 9000, 512, 511, 2, 0];
        let mut rowptr = vec![0u32];
        for l in lens.iter().cycle().take(200) {
            rowptr.push(rowptr.last().unwrap() + l);
        }
        check(&rowptr);
        let (_, bpiece) = row_blocks(&[0, 9000]);
        assert_eq!(bpiece, [HUB, HUB | 1, HUB | 2, HUB | 3, HUB | 4]);
        // a block stops where the next row would pass 512 entries
        let (brow, _) = row_blocks(&[0, 200, 400, 600]);
        assert_eq!(brow, [0, 2, 3]);
    }
}
