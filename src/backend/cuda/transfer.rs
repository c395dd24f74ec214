//! Copies between host and device: uploads, downloads (large ones through
//! two pinned staging buffers, or with their host pages touched in parallel
//! first), single-element reads, and the host-side conversions of
//! downloaded bytes and bit words.

use super::device::{drv, DBuf, Dev};
use crate::error::Result;
use crate::scalar::Scalar;

/// Downloads of at least this many bytes touch their host pages in parallel
/// first ([`Dev::download_vec`]).
const PREFAULT_FROM: usize = 1 << 20;

/// Downloads of at least this many bytes go through the pinned staging
/// buffers ([`Staging`]).
const STAGED_FROM: usize = 4 << 20;

/// Bytes of each of the two pinned staging buffers.
const STAGE_BYTES: usize = 8 << 20;

/// Two page-locked host buffers and an event each: large downloads copy
/// device memory into one (DMA at the link's speed) while the other is
/// copied, by every core, into the result. Measured on the H100 host (commit
/// e19a747) the driver's pageable copy moved 134 MB in 31 ms and 32 MB in
/// 11 ms (3-4 GB/s).
pub(super) struct Staging {
    bufs: [usize; 2],
    events: [cudarc::driver::sys::CUevent; 2],
}

// SAFETY: the buffers and events are used only under the `Dev::staging`
// lock, from one thread at a time.
unsafe impl Send for Staging {}

impl Staging {
    fn new() -> Result<Staging> {
        use cudarc::driver::sys;
        let mut st = Staging {
            bufs: [0; 2],
            events: [std::ptr::null_mut(); 2],
        };
        for i in 0..2 {
            let mut p: *mut std::ffi::c_void = std::ptr::null_mut();
            // SAFETY: plain allocations in the current context; freed in `drop`.
            unsafe {
                sys::cuMemAllocHost_v2(&mut p, STAGE_BYTES)
                    .result()
                    .map_err(drv("pinned host allocation"))?;
                st.bufs[i] = p as usize;
                sys::cuEventCreate(
                    &mut st.events[i],
                    sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32,
                )
                .result()
                .map_err(drv("event"))?;
            }
        }
        Ok(st)
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        use cudarc::driver::sys;
        // SAFETY: made by `Staging::new` (null / 0 where it failed part-way).
        unsafe {
            for &b in &self.bufs {
                if b != 0 {
                    let _ = sys::cuMemFreeHost(b as *mut std::ffi::c_void);
                }
            }
            for &e in &self.events {
                if !e.is_null() {
                    let _ = sys::cuEventDestroy_v2(e);
                }
            }
        }
    }
}

impl Dev {
    /// Copies host data into a new buffer.
    pub fn upload<T: Copy>(&self, data: &[T]) -> Result<DBuf<T>> {
        let b = self.alloc::<T>(data.len())?;
        if !std::mem::size_of_val(data).is_multiple_of(4) {
            // the padding past the data must read as zero bits (tile counts)
            self.memset(&b, 0)?;
        }
        if !data.is_empty() {
            // SAFETY: plain data, viewed as bytes.
            let bytes = unsafe {
                std::slice::from_raw_parts(data.as_ptr() as *const u8, std::mem::size_of_val(data))
            };
            // SAFETY: the destination holds at least that many bytes.
            unsafe {
                cudarc::driver::result::memcpy_htod_async(
                    b.ptr().addr(),
                    bytes,
                    self.stream.cu_stream(),
                )
            }
            .map_err(drv("copy to device"))?;
            // The host slice must outlive the asynchronous copy.
            self.sync()?;
        }
        Ok(b)
    }

    /// Copies a buffer's bytes back.
    pub fn download_bytes<T>(&self, b: &DBuf<T>, len: usize) -> Result<Vec<u8>> {
        let n = len * std::mem::size_of::<T>();
        let mut out = vec![0u8; n];
        if n > 0 {
            // SAFETY: the buffer holds at least n bytes.
            unsafe {
                cudarc::driver::result::memcpy_dtoh_async(
                    &mut out,
                    b.ptr().addr(),
                    self.stream.cu_stream(),
                )
            }
            .map_err(drv("copy to host"))?;
        }
        self.sync()?;
        Ok(out)
    }

    /// The first `len` elements of a buffer, copied straight into a new host
    /// vector (no zeroed staging bytes and no second copy: for a 16.7 M-entry
    /// `f64` vector that was two passes over fresh host pages).
    pub fn download_vec<T: Scalar>(&self, b: &DBuf<T>, len: usize) -> Result<Vec<T>> {
        if T::TYPE == crate::ScalarType::Bool {
            return Ok(from_bytes::<T>(&self.download_bytes(b, len)?, len));
        }
        let bytes = len * std::mem::size_of::<T>();
        let mut out = Vec::<T>::with_capacity(len);
        if bytes >= STAGED_FROM {
            self.download_staged(b.ptr().addr(), out.as_mut_ptr() as usize, bytes)?;
            // SAFETY: the staged copy wrote all `len` elements; T is a plain
            // numeric type (bool handled above), so every bit pattern is valid.
            unsafe { out.set_len(len) };
            return Ok(out);
        }
        if bytes >= PREFAULT_FROM {
            // Fresh host pages fault on first touch, one at a time inside the
            // driver's pageable copy (measured on the H100 host: ~100 ms for
            // 134 MB, 20x the copy itself); touched first by every core they
            // fault in parallel.
            use rayon::prelude::*;
            out.spare_capacity_mut()
                .par_chunks_mut(PREFAULT_FROM / std::mem::size_of::<T>())
                .for_each(|c| c.fill(std::mem::MaybeUninit::new(T::zero())));
        }
        if bytes > 0 {
            // SAFETY: the buffer holds at least `bytes` bytes and `out` has room
            // for them; the copy completes at the synchronisation below, before
            // `out` is read or resized.
            unsafe {
                cudarc::driver::sys::cuMemcpyDtoHAsync_v2(
                    out.as_mut_ptr() as *mut std::ffi::c_void,
                    b.ptr().addr(),
                    bytes,
                    self.stream.cu_stream(),
                )
            }
            .result()
            .map_err(drv("copy to host"))?;
        }
        self.sync()?;
        // SAFETY: the copy wrote all `len` elements; T is a plain numeric type
        // (bool handled above), so every bit pattern is valid.
        unsafe { out.set_len(len) };
        Ok(out)
    }

    /// Copies `bytes` bytes at device address `src` to host address `dst`
    /// through the two pinned staging buffers: chunk `i + 1` is in flight on
    /// the stream while chunk `i` is copied into `dst` by every core (which
    /// also faults fresh destination pages in parallel). Waits for the
    /// stream's earlier work first, as any download does.
    fn download_staged(&self, src: u64, dst: usize, bytes: usize) -> Result<()> {
        use cudarc::driver::sys;
        use rayon::prelude::*;
        self.ctx.bind_to_thread().map_err(drv("bind context"))?;
        let mut guard = self.staging.lock().expect("staging lock");
        if guard.is_none() {
            *guard = Some(Staging::new()?);
        }
        let st = guard.as_ref().expect("made above");
        let stream = self.stream.cu_stream();
        let chunks = bytes.div_ceil(STAGE_BYTES);
        let span = |i: usize| (i * STAGE_BYTES, STAGE_BYTES.min(bytes - i * STAGE_BYTES));
        let issue = |i: usize| -> Result<()> {
            let (off, len) = span(i);
            // SAFETY: `src` holds `bytes` bytes; the staging buffer holds
            // STAGE_BYTES >= len; it is not read until its event completes.
            unsafe {
                sys::cuMemcpyDtoHAsync_v2(
                    st.bufs[i % 2] as *mut std::ffi::c_void,
                    src + off as u64,
                    len,
                    stream,
                )
                .result()
                .map_err(drv("copy to host"))?;
                sys::cuEventRecord(st.events[i % 2], stream)
                    .result()
                    .map_err(drv("event"))
            }
        };
        issue(0)?;
        for i in 0..chunks {
            if i + 1 < chunks {
                // into the other buffer, whose chunk (i - 1) was copied out
                issue(i + 1)?;
            }
            // SAFETY: an event recorded above.
            unsafe { sys::cuEventSynchronize(st.events[i % 2]) }
                .result()
                .map_err(drv("copy to host"))?;
            let (off, len) = span(i);
            let from = st.bufs[i % 2];
            const PIECE: usize = 256 << 10;
            (0..len.div_ceil(PIECE)).into_par_iter().for_each(|k| {
                let (a, n) = (k * PIECE, PIECE.min(len - k * PIECE));
                // SAFETY: disjoint pieces of the staged chunk and of `dst`,
                // which the caller sized for `bytes` bytes.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        (from + a) as *const u8,
                        (dst + off + a) as *mut u8,
                        n,
                    )
                };
            });
        }
        Ok(())
    }

    /// Element `i` of a u32 buffer.
    pub fn read_u32(&self, b: &DBuf<u32>, i: usize) -> Result<u32> {
        let mut out = [0u8; 4];
        // SAFETY: i < len.
        unsafe {
            cudarc::driver::result::memcpy_dtoh_async(
                &mut out,
                b.ptr().addr() + 4 * i as u64,
                self.stream.cu_stream(),
            )
        }
        .map_err(drv("copy to host"))?;
        self.sync()?;
        Ok(u32::from_le_bytes(out))
    }

    /// Element 0 of a u64 buffer.
    pub fn read_u64(&self, b: &DBuf<u64>) -> Result<u64> {
        let v = self.download_bytes(b, 1)?;
        Ok(u64::from_le_bytes(v[..8].try_into().expect("8 bytes")))
    }
}

/// Host data from downloaded bytes (bools normalised to 0/1).
pub(crate) fn from_bytes<T: Scalar>(bytes: &[u8], len: usize) -> Vec<T> {
    let sz = std::mem::size_of::<T>();
    assert!(bytes.len() >= len * sz, "short download");
    let mut out = Vec::<T>::with_capacity(len);
    if T::TYPE == crate::ScalarType::Bool {
        for &b in &bytes[..len] {
            out.push(T::from_usize((b != 0) as usize));
        }
        return out;
    }
    // SAFETY: T is a plain numeric type; every bit pattern is valid.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), out.as_mut_ptr() as *mut u8, len * sz);
        out.set_len(len);
    }
    out
}

/// Host bit vector words as the device's u32 words.
pub(crate) fn words_to_u32(words: &[u64]) -> Vec<u32> {
    words
        .iter()
        .flat_map(|&w| [w as u32, (w >> 32) as u32])
        .collect()
}

/// Device u32 words back to host u64 words.
pub(crate) fn u32_to_words(w: &[u32]) -> Vec<u64> {
    w.chunks(2)
        .map(|c| c[0] as u64 | (c.get(1).copied().unwrap_or(0) as u64) << 32)
        .collect()
}
