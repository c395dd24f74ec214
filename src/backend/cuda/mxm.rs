//! Matrix products and transposes with a B2SR result on the device
//! (`cuda/mxm.cu`, `cuda/transpose.cu`), the masked, accumulating write of a
//! B2SR result they share, and the device side of `mxm_reduce` and
//! `mxm_dense` with operands transposed by the descriptor.
//!
//! A B2SR result holds one iso value, so these run where the result's values
//! are all one value: an idempotent `⊕` (LOR, ANY, MIN, MAX: every entry of
//! `A ⊕.⊗ B` is `a ⊗ b`), and a mask/accumulator that keeps `C`'s entries
//! only where those carry the same value. Other cases return
//! [`Error::NoKernel`](crate::Error::NoKernel).

use std::ops::Deref;
use std::sync::atomic::{AtomicU8, Ordering};

use super::device::{bits_of, opt_arg, Arg};
use super::kernels::ModuleId;
use super::mem::{no_kernel, CudaDense, CudaMatrix, DMat, DevB2sr};
use super::{kernel_of, CudaBackend};
use crate::algebra::{Semiring, SemiringKind};
use crate::backend::cpu::b2sr::{add_class, repeat_add, AddClass};
use crate::backend::Backend;
use crate::container::{Accumulate, Flags, Format, MatrixMask};
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use crate::storage::TileSize;

/// The kernel choice of [`CudaBackend::set_tensor_cores`]: 0 default, 1 tensor cores, 2 CUDA cores.
static TENSOR_CORES: AtomicU8 = AtomicU8::new(0);

/// Whether the default masked count runs on the tensor cores: where `A`'s
/// tile rows hold at least 8 tiles on average, so a mask tile meets enough
/// tile pairs to fill the mma's 256-bit k dimension. Measured on an H200
/// (`cuda_mxm::bench_masked_count`, commit 5d19f0e, tensor-core ms against
/// CUDA-core ms, triangle counting): R-MAT scale 16 (116 tiles per 32x32 tile
/// row) 1.91 against 7.07 (k = 32) and 2.17 against 4.04 (k = 16); R-MAT 18
/// 23.4 against 73.1 and 21.1 against 36.0; a random geometric graph (5 tiles
/// per tile row) 0.034 against 0.034; the 1024^2 grid (3 tiles per tile row)
/// 0.138 against 0.113 and 0.199 against 0.190, where the tensor cores lose.
fn dense_tile_rows(a: &DevB2sr) -> bool {
    a.ntiles >= 8 * a.tile_rows
}

/// A pattern as given, or transposed into a temporary.
pub(super) enum Oriented<'a> {
    Given(&'a DevB2sr),
    Made(Box<DevB2sr>),
}

impl Deref for Oriented<'_> {
    type Target = DevB2sr;
    fn deref(&self) -> &DevB2sr {
        match self {
            Oriented::Given(p) => p,
            Oriented::Made(p) => p,
        }
    }
}

fn tile_size(k: usize) -> TileSize {
    match k {
        4 => TileSize::T4,
        8 => TileSize::T8,
        16 => TileSize::T16,
        _ => TileSize::T32,
    }
}

/// The mask of a B2SR write: none, a pattern, or a valued mask whose value is
/// zero (selects nothing).
enum MaskPat<'a> {
    None,
    Pattern(Oriented<'a>),
    Nothing,
}

impl CudaBackend {
    /// `op(p)`: `p`, or its transpose computed on the device.
    pub(super) fn oriented<'a>(&self, p: &'a DevB2sr, transpose: bool) -> Result<Oriented<'a>> {
        Ok(if transpose {
            Oriented::Made(Box::new(self.b2sr_transpose(p)?))
        } else {
            Oriented::Given(p)
        })
    }

    /// `p` at tile size `k` (repacked on the device when it differs).
    fn at_tile_size<'a>(&self, p: &'a DevB2sr, k: usize) -> Result<Oriented<'a>> {
        if p.k == k {
            return Ok(Oriented::Given(p));
        }
        let (rowptr, colidx, _) = self.unpack(p)?;
        Ok(Oriented::Made(Box::new(
            self.pack(&rowptr, &colidx, p.nrows, p.ncols, k)?,
        )))
    }

    /// The B2SR pattern of a matrix mask at tile size `k`.
    fn mask_pattern<'a>(
        &self,
        op: &'static str,
        mask: &MatrixMask<'a, Self>,
        k: usize,
    ) -> Result<MaskPat<'a>> {
        let Some((pm, nonzero)) = mask.source.b2sr_mask() else {
            return Err(no_kernel(op, "a CSR mask (convert it to B2SR)"));
        };
        if !mask.structural && !nonzero {
            return Ok(MaskPat::Nothing);
        }
        Ok(MaskPat::Pattern(self.at_tile_size(&pm.0, k)?))
    }

    /// The boolean tile product `A * B` (symbolic, then numeric); may hold
    /// tiles whose product is all zero.
    fn bool_product(&self, a: &DevB2sr, b: &DevB2sr) -> Result<DevB2sr> {
        let (k, tr) = (a.k, a.tile_rows);
        let id = ModuleId::Mxm;
        let hoff = self.dev.alloc::<u32>(tr + 1)?;
        let total = self.dev.zeros::<u64>(1)?;
        self.dev.run(
            id,
            "mxm_bound",
            None,
            tr + 1,
            &[
                a.rowptr.arg(),
                a.colidx.arg(),
                Arg::U32(tr as u32),
                b.rowptr.arg(),
                Arg::U32(b.ncols.div_ceil(k) as u32),
                hoff.arg(),
                total.arg(),
            ],
        )?;
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
        self.dev.run(
            id,
            "mxm_symbolic",
            None,
            (tr + 1) * 32,
            &[
                a.rowptr.arg(),
                a.colidx.arg(),
                Arg::U32(tr as u32),
                b.rowptr.arg(),
                b.colidx.arg(),
                hoff.arg(),
                keys.arg(),
                rowptr.arg(),
            ],
        )?;
        self.dev.scan(&rowptr, tr + 1)?;
        let nt = self.dev.read_u32(&rowptr, tr)? as usize;
        let colidx = self.dev.alloc::<u32>(nt)?;
        self.dev.run(
            id,
            "mxm_collect",
            None,
            tr * 32,
            &[
                Arg::U32(tr as u32),
                hoff.arg(),
                keys.arg(),
                rowptr.arg(),
                colidx.arg(),
            ],
        )?;
        drop(keys);
        let tiles = self.dev.zeros::<u8>(nt * k * k / 8)?;
        self.dev.run(
            id,
            "mxm_numeric",
            Some(k),
            tr * 32,
            &[
                a.rowptr.arg(),
                a.colidx.arg(),
                a.tiles.arg(),
                Arg::U32(tr as u32),
                b.rowptr.arg(),
                b.colidx.arg(),
                b.tiles.arg(),
                rowptr.arg(),
                colidx.arg(),
                tiles.arg(),
            ],
        )?;
        DevB2sr::new(&self.dev, k, a.nrows, b.ncols, nt, rowptr, colidx, tiles)
    }

    /// `C<mask> = accum(C, T)` (with replace) for a B2SR `T` with iso value
    /// `vt`. `clean`: `T` has no zero tiles, so without a mask or accumulator
    /// it is the result as it is.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn write_b2sr<T: Scalar, A: Accumulate<T>>(
        &self,
        op: &'static str,
        c: &mut CudaMatrix<T>,
        t: DevB2sr,
        vt: T,
        mask: Option<MatrixMask<'_, Self>>,
        accum: A,
        replace: bool,
        clean: bool,
    ) -> Result<()> {
        let (k, nrows, ncols) = (t.k, t.nrows, t.ncols);
        if mask.is_none() && !A::ACTIVE && clean {
            *c = CudaMatrix {
                nrows,
                ncols,
                repr: DMat::B2sr { pat: t, value: vt },
            };
            return Ok(());
        }
        // C's entries survive where the mask excludes them (no replace) or
        // where the accumulator keeps them.
        let need_c = A::ACTIVE || (mask.is_some() && !replace);
        let converted;
        let old: Option<(&DevB2sr, T)> = if !need_c {
            None
        } else {
            match &c.repr {
                DMat::B2sr { pat, value } if pat.k == k => Some((pat, *value)),
                _ => {
                    converted = self.convert(c, Format::B2sr(tile_size(k))).map_err(|e| {
                        no_kernel(op, format!("C as {k}x{k} B2SR with one value: {e}"))
                    })?;
                    match &converted.repr {
                        DMat::B2sr { pat, value } => Some((pat, *value)),
                        DMat::Csr { .. } => unreachable!("converted to B2SR"),
                    }
                }
            }
        };
        // The values the result can hold: T's (where T has tiles), C's
        // survivors, and where both meet under an accumulator, accum(c, t).
        let t_live = t.ntiles > 0;
        let mut values = Vec::new();
        if t_live {
            values.push(vt);
        }
        if let Some((_, vc)) = old.filter(|(p, _)| p.ntiles > 0) {
            values.push(vc);
            if A::ACTIVE && t_live {
                values.push(accum.combine(vc, vt));
            }
        }
        let value = values.first().copied().unwrap_or(vt);
        if values.iter().any(|&v| v != value) {
            return Err(no_kernel(
                op,
                "a result with more than one value (C's entries and the new ones differ)",
            ));
        }
        let (mode, mpat) = match &mask {
            None => (0, MaskPat::None),
            Some(m) => match self.mask_pattern(op, m, k)? {
                MaskPat::Nothing => (2, MaskPat::Nothing),
                p => (1, p),
            },
        };
        let comp = mask.as_ref().is_some_and(|m| m.complemented);
        let mp = match &mpat {
            MaskPat::Pattern(p) => Some(&**p),
            _ => None,
        };
        let cp = old.map(|(p, _)| p);
        let tr = t.tile_rows;
        let counts = self.dev.alloc::<u32>(tr + 1)?;
        let mut args = vec![
            t.rowptr.arg(),
            t.colidx.arg(),
            t.tiles.arg(),
            opt_arg(cp.map(|p| &p.rowptr)),
            opt_arg(cp.map(|p| &p.colidx)),
            opt_arg(cp.map(|p| &p.tiles)),
            opt_arg(mp.map(|p| &p.rowptr)),
            opt_arg(mp.map(|p| &p.colidx)),
            opt_arg(mp.map(|p| &p.tiles)),
            Arg::I32(mode),
            Arg::I32(comp as i32),
            Arg::I32(A::ACTIVE as i32),
            Arg::I32(replace as i32),
            Arg::U32(tr as u32),
        ];
        let count_args = [
            args.clone(),
            vec![counts.arg(), Arg::U64(0), Arg::U64(0), Arg::U64(0)],
        ]
        .concat();
        self.dev
            .run(ModuleId::Mxm, "b2sr_merge", Some(k), tr + 1, &count_args)?;
        self.dev.scan(&counts, tr + 1)?;
        let nt = self.dev.read_u32(&counts, tr)? as usize;
        let colidx = self.dev.alloc::<u32>(nt)?;
        let tiles = self.dev.zeros::<u8>(nt * k * k / 8)?;
        args.extend([Arg::U64(0), counts.arg(), colidx.arg(), tiles.arg()]);
        self.dev
            .run(ModuleId::Mxm, "b2sr_merge", Some(k), tr + 1, &args)?;
        let pat = DevB2sr::new(&self.dev, k, nrows, ncols, nt, counts, colidx, tiles)?;
        *c = CudaMatrix {
            nrows,
            ncols,
            repr: DMat::B2sr { pat, value },
        };
        Ok(())
    }

    /// `C<mask> = accum(C, op(A) ⊕.⊗ op(B))` with a B2SR result.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn mxm_b2sr<S: Semiring, A: Accumulate<S::T>>(
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

    /// `C<mask> = accum(C, op(A)')` for a B2SR `A`.
    pub(super) fn transpose_b2sr<T: Scalar, A: Accumulate<T>>(
        &self,
        c: &mut CudaMatrix<T>,
        mask: Option<MatrixMask<'_, Self>>,
        accum: A,
        a: &CudaMatrix<T>,
        flags: Flags,
    ) -> Result<()> {
        let DMat::B2sr { pat, value } = &a.repr else {
            return Err(no_kernel("transpose", "a CSR matrix (convert it to B2SR)"));
        };
        // A transposed input descriptor cancels the transpose.
        let t = if flags.transpose_a {
            self.copy_b2sr(pat)?
        } else {
            self.b2sr_transpose(pat)?
        };
        self.write_b2sr("transpose", c, t, *value, mask, accum, flags.replace, true)
    }

    /// `⊕` over `(op(A) ⊕.⊗ op(B))<M>` for `PLUS.PAIR`/`PLUS.TIMES` on B2SR
    /// operands of one tile size and a B2SR mask (any tile size), not
    /// complemented: the exact integer count of the fused masked kernel,
    /// turned into the result as the CPU does.
    pub(super) fn mxm_reduce_b2sr<S: Semiring>(
        &self,
        mask: MatrixMask<'_, Self>,
        s: S,
        a: &CudaMatrix<S::T>,
        b: &CudaMatrix<S::T>,
        flags: Flags,
    ) -> Result<S::T> {
        let op = "mxm_reduce";
        let kind = S::KERNEL
            .ok_or_else(|| no_kernel(op, format!("user semiring {}", S::NAME)))?
            .kind();
        if !matches!(kind, SemiringKind::PlusPair | SemiringKind::PlusTimes) {
            return Err(no_kernel(op, format!("semiring {}", S::NAME)));
        }
        let (DMat::B2sr { pat: pa, value: va }, DMat::B2sr { pat: pb, value: vb }) =
            (&a.repr, &b.repr)
        else {
            return Err(no_kernel(op, "CSR operands (convert them to B2SR)"));
        };
        if pa.k != pb.k {
            return Err(no_kernel(op, "operands of different tile sizes"));
        }
        if mask.complemented {
            return Err(no_kernel(op, "a complemented mask"));
        }
        let x = if kind == SemiringKind::PlusPair {
            S::T::one()
        } else {
            s.mul(*va, *vb)
        };
        if S::T::IS_FLOAT && x != S::T::one() {
            return Err(no_kernel(op, "float products of iso values other than one"));
        }
        let pm = match self.mask_pattern(op, &mask, pa.k)? {
            MaskPat::Pattern(p) => p,
            _ => return Ok(s.zero()),
        };
        let ao = self.oriented(pa, flags.transpose_a)?;
        // Rows of Bt are the columns of op(B).
        let bt = self.oriented(pb, !flags.transpose_b)?;
        let n = self.masked_count(&pm, &ao, &bt)?;
        if n == 0 {
            return Ok(s.zero());
        }
        if S::T::IS_FLOAT && n > 1 << 24 {
            return Err(no_kernel(op, "a float count above 2^24 (not exact)"));
        }
        Ok(repeat_add(&s, x, n as usize))
    }

    /// Which kernel computes the masked count of `mxm_reduce` for 16x16 and
    /// 32x32 tiles: `None` (the default) lets the backend choose, `Some(true)`
    /// asks for the 1-bit tensor cores (mma AND.POPC, sm_80 and later),
    /// `Some(false)` for the CUDA-core kernel. Process-wide; for benchmarks
    /// and tests that compare the two.
    #[doc(hidden)]
    pub fn set_tensor_cores(on: Option<bool>) {
        TENSOR_CORES.store(
            match on {
                None => 0,
                Some(true) => 1,
                Some(false) => 2,
            },
            Ordering::Relaxed,
        );
    }

    /// Whether the masked count runs on the tensor cores for tile size `k`.
    fn use_tensor_cores(&self, a: &DevB2sr) -> bool {
        let k = a.k;
        let sm = self.dev.arch.trim_start_matches("sm_").parse::<u32>();
        let capable = (k == 16 || k == 32) && sm.is_ok_and(|v| v >= 80);
        capable
            && match TENSOR_CORES.load(Ordering::Relaxed) {
                1 => true,
                2 => false,
                _ => dense_tile_rows(a),
            }
    }

    /// `Σ_{(i,j) ∈ M} |A(i,:) ∧ Bt(j,:)|` (`bin_bin_sum`, exact in 64 bits).
    fn masked_count(&self, m: &DevB2sr, a: &DevB2sr, bt: &DevB2sr) -> Result<u64> {
        let total = self.dev.zeros::<u64>(1)?;
        let (id, name, k) = if self.use_tensor_cores(a) {
            (ModuleId::Mxm, format!("b2sr_tc_tensor_k{}", a.k), None)
        } else {
            (ModuleId::Pack, "b2sr_tc".to_string(), Some(a.k))
        };
        self.dev.run(
            id,
            &name,
            k,
            m.ntiles * 32,
            &[
                m.rowptr.arg(),
                m.colidx.arg(),
                m.tiles.arg(),
                Arg::U32(m.tile_rows as u32),
                Arg::U64(m.ntiles as u64),
                a.rowptr.arg(),
                a.colidx.arg(),
                a.tiles.arg(),
                bt.rowptr.arg(),
                bt.colidx.arg(),
                bt.tiles.arg(),
                total.arg(),
            ],
        )?;
        self.dev.read_u64(&total)
    }

    /// `C = accum(C, op(A) ⊕.⊗ B)` with `B`, `C` dense row-major and `A` B2SR
    /// (transposed on the device where the descriptor asks).
    pub(super) fn mxm_dense_b2sr<S: Semiring, A: Accumulate<S::T>>(
        &self,
        c: &mut CudaDense<S::T>,
        s: S,
        a: &CudaMatrix<S::T>,
        b: &CudaDense<S::T>,
        flags: Flags,
    ) -> Result<()> {
        let _ = s;
        let id = kernel_of::<S>("mxm_dense")?;
        let acc = super::accum_code::<S::T, A>("mxm_dense")?;
        let DMat::B2sr { pat, value } = &a.repr else {
            return Err(no_kernel("mxm_dense", "a CSR matrix (convert it to B2SR)"));
        };
        let pat = self.oriented(pat, flags.transpose_a)?;
        let (m, nf) = (pat.nrows, b.ncols);
        let out = self.dev.alloc::<S::T>(m * nf)?;
        let f = self.dev.func(id, "b2sr_mxm_dense", Some(pat.k))?;
        let block = nf.next_multiple_of(32).clamp(32, 256) as u32;
        let grid = pat.tile_rows.clamp(1, self.dev.sm_count as usize * 64) as u32;
        if pat.tile_rows > 0 {
            self.dev.launch(
                &f,
                grid,
                block,
                &[
                    pat.rowptr.arg(),
                    pat.colidx.arg(),
                    pat.tiles.arg(),
                    Arg::U64(pat.nrows as u64),
                    Arg::U32(pat.tile_rows as u32),
                    Arg::U64(bits_of(*value)),
                    b.data.arg(),
                    Arg::U64(nf as u64),
                    out.arg(),
                ],
            )?;
        }
        if acc >= 0 {
            self.dev.run(
                ModuleId::Vec(<S::T as Scalar>::TYPE),
                "dense_accum",
                None,
                m * nf,
                &[
                    Arg::I32(acc),
                    out.arg(),
                    Arg::U64((m * nf) as u64),
                    c.data.arg(),
                ],
            )?;
        } else {
            *c = CudaDense {
                nrows: m,
                ncols: nf,
                data: out,
            };
        }
        Ok(())
    }
}
