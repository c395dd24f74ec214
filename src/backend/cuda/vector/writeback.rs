//! The output phase of vector operations: `w<allowed> = accum(w, t)` with
//! replace, on packed bits, in place into a full vector, or into new dense
//! values with presence bits.

use super::super::device::{opt_ptr, DBuf, DevPtr};
use super::super::launch::{pack, vec};
use super::super::mem::{bit_words, DVec};
use super::super::{CudaBackend, CudaVector};
use crate::error::Result;
use crate::scalar::Scalar;

impl CudaBackend {
    /// `w<allowed> = accum(w, t)` with replace (`accum < 0`: none).
    pub(crate) fn write_vector<T: Scalar>(
        &self,
        w: &mut CudaVector<T>,
        t: CudaVector<T>,
        allowed: Option<&DBuf<u32>>,
        accum: i32,
        replace: bool,
    ) -> Result<()> {
        let n = w.len;
        if allowed.is_none() && accum < 0 {
            *w = t;
            return Ok(());
        }
        if let (DVec::Bits(tb), DVec::Bits(wb), Some(m), true) =
            (&t.repr, &w.repr, allowed, accum < 0)
        {
            let out = self.dev.alloc::<u32>(bit_words(n))?;
            pack::bits_writeback(
                tb.ptr(),
                wb.ptr(),
                m.ptr(),
                replace,
                bit_words(n) as u64,
                out.ptr(),
            )
            .run(&self.dev, bit_words(n))?;
            w.repr = DVec::Bits(out);
            return Ok(());
        }
        // Accumulating into a full vector with no mask keeps it full: the
        // result needs no presence bits (downloads and views stay plain).
        let stays_full =
            allowed.is_none() && accum >= 0 && matches!(w.repr, DVec::Dense { pres: None, .. });
        let tv = self.view(&t)?;
        if stays_full {
            // In place: `w(i) = accum(w(i), t(i))` where `t` has an entry, no
            // new buffers and no presence bits written.
            let DVec::Dense { vals, .. } = &w.repr else {
                unreachable!("stays_full matched a full dense w")
            };
            let w_vals = vals.ptr();
            let none = DevPtr::null();
            vec::vec_writeback(
                tv.vals, tv.pres, w_vals, none, none, accum, replace, n as u64, w_vals, none,
            )
            .run(&self.dev, bit_words(n) * 32)?;
            drop(tv);
            return Ok(());
        }
        let wv = self.view(w)?;
        let vals = self.dev.alloc::<T>(n)?;
        let pres = self.dev.alloc::<u32>(bit_words(n))?;
        vec::vec_writeback(
            tv.vals,
            tv.pres,
            wv.vals,
            wv.pres,
            opt_ptr(allowed),
            accum,
            replace,
            n as u64,
            vals.ptr(),
            pres.ptr(),
        )
        .run(&self.dev, bit_words(n) * 32)?;
        drop((tv, wv));
        w.repr = DVec::Dense {
            vals,
            pres: Some(pres),
        };
        Ok(())
    }
}
