//! `mxm` with a B2SR result (`cuda/mxm.cu`): the boolean tile product
//! (bound, symbolic hash, collect, numeric), written back through
//! [`CudaBackend::write_b2sr`].

use super::super::launch::{mxm, Tiles};
use super::super::mem::{no_kernel, DMat, DevB2sr};
use super::super::{CudaBackend, CudaMatrix};
use crate::algebra::Semiring;
use crate::backend::cpu::b2sr::{add_class, AddClass};
use crate::container::{Accumulate, Flags, MatrixMask};
use crate::error::{Error, Result};

impl CudaBackend {
    /// The boolean tile product `A * B` (symbolic, then numeric); may hold
    /// tiles whose product is all zero.
    fn bool_product(&self, a: &DevB2sr, b: &DevB2sr) -> Result<DevB2sr> {
        let (k, tr) = (a.k, a.tile_rows);
        let (at, bt) = (Tiles::of(&self.dev, a)?, Tiles::of(&self.dev, b)?);
        let (a_rowptr, a_colidx, b_rowptr, b_colidx) = (at.rowptr, at.colidx, bt.rowptr, bt.colidx);
        let hoff = self.dev.alloc::<u32>(tr + 1)?;
        let total = self.dev.zeros::<u64>(1)?;
        mxm::mxm_bound(
            a_rowptr,
            a_colidx,
            tr as u32,
            b_rowptr,
            b.ncols.div_ceil(k) as u32,
            hoff.ptr(),
            total.ptr(),
        )
        .run(&self.dev, tr + 1)?;
        let slots = self.dev.read_u64(&total)?;
        if slots >= 1 << 31 {
            return Err(Error::TooLarge {
                what: "mxm",
                detail: format!("{slots} hash slots for the symbolic product"),
            });
        }
        self.dev.scan(&hoff, tr + 1)?;
        let keys = self.dev.alloc::<u32>(slots as usize)?;
        self.dev.memset(&keys, 0xff)?;
        let rowptr = self.dev.alloc::<u32>(tr + 1)?;
        mxm::mxm_symbolic(
            a_rowptr,
            a_colidx,
            tr as u32,
            b_rowptr,
            b_colidx,
            hoff.ptr(),
            keys.ptr(),
            rowptr.ptr(),
        )
        .run(&self.dev, (tr + 1) * 32)?;
        self.dev.scan(&rowptr, tr + 1)?;
        let nt = self.dev.read_u32(&rowptr, tr)? as usize;
        let colidx = self.dev.alloc::<u32>(nt)?;
        mxm::mxm_collect(
            tr as u32,
            hoff.ptr(),
            keys.ptr(),
            rowptr.ptr(),
            colidx.ptr(),
        )
        .run(&self.dev, tr * 32)?;
        drop(keys);
        let tiles = self.dev.zeros::<u8>(nt * k * k / 8)?;
        mxm::mxm_numeric(
            k,
            at,
            tr as u32,
            bt,
            Tiles {
                rowptr: rowptr.ptr(),
                colidx: colidx.ptr(),
                tiles: tiles.ptr(),
            },
        )
        .run(&self.dev, tr * 32)?;
        DevB2sr::new(&self.dev, k, a.nrows, b.ncols, nt, rowptr, colidx, tiles)
    }

    /// The `mxm` entry point: `C<mask> = accum(C, op(A) ⊕.⊗ op(B))` with a
    /// B2SR result.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn mxm_b2sr<S: Semiring, A: Accumulate<S::T>>(
        &self,
        c: &mut CudaMatrix<S::T>,
        mask: Option<MatrixMask<'_, Self>>,
        accum: A,
        s: S,
        a: &CudaMatrix<S::T>,
        b: &CudaMatrix<S::T>,
        flags: Flags,
    ) -> Result<()> {
        match add_class::<S>() {
            None => return Err(no_kernel("mxm", format!("user semiring {}", S::NAME))),
            Some(AddClass::Plus) => {
                return Err(no_kernel(
                    "mxm",
                    "a sparse result of a PLUS semiring (counts are not one iso value: \
                     use mxm_reduce or mxm_dense)",
                ))
            }
            Some(AddClass::Idempotent) => {}
        }
        let (DMat::B2sr { pat: pa, value: va }, DMat::B2sr { pat: pb, value: vb }) =
            (&a.repr, &b.repr)
        else {
            return Err(no_kernel("mxm", "CSR operands (convert them to B2SR)"));
        };
        if pa.k != pb.k {
            return Err(no_kernel("mxm", "operands of different tile sizes"));
        }
        if !self.b2sr_output_applies(c, s.mul(*va, *vb), &mask, &accum, flags.replace) {
            return Err(no_kernel(
                "mxm",
                "a CSR mask, or C's entries holding another value than the product's",
            ));
        }
        let ao = self.oriented(pa, flags.transpose_a)?;
        let bo = self.oriented(pb, flags.transpose_b)?;
        let t = self.bool_product(&ao, &bo)?;
        drop((ao, bo));
        self.write_b2sr(
            "mxm",
            c,
            t,
            s.mul(*va, *vb),
            mask,
            accum,
            flags.replace,
            false,
        )
    }
}
