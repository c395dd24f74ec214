//! The command line's allocator: the system's, except that an allocation the
//! system refuses (an address-space or cgroup limit reached) ends the program
//! with a message and exit code 1 instead of Rust's abort (`SIGABRT`).
//!
//! Readers check sizes against `--max-memory` before they allocate, so most
//! inputs that are too large get a precise error first; this covers what
//! comes after reading (the backend's matrices, an algorithm's vectors).

use std::alloc::{GlobalAlloc, Layout, System};
use std::fmt::Write as _;
use std::io::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};

/// [`System`], exiting cleanly where it returns null, and counting the
/// bytes held (for the peak host memory `gnn` reports).
pub struct ExitOnOom;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn held_add(b: usize) {
    let now = HELD.fetch_add(b, Ordering::Relaxed) + b;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

fn held_sub(b: usize) {
    HELD.fetch_sub(b, Ordering::Relaxed);
}

/// Heap bytes held now and the most held since [`reset_peak`].
pub fn heap() -> (usize, usize) {
    (HELD.load(Ordering::Relaxed), PEAK.load(Ordering::Relaxed))
}

/// Starts a new peak from what is held now.
pub fn reset_peak() {
    PEAK.store(HELD.load(Ordering::Relaxed), Ordering::Relaxed);
}

// SAFETY: every call is forwarded to `System` with the same arguments; a null
// result never returns to the caller (the process exits).
unsafe impl GlobalAlloc for ExitOnOom {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is System's.
        let p = unsafe { System.alloc(layout) };
        if p.is_null() {
            out_of_memory(layout.size());
        }
        held_add(layout.size());
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as above.
        let p = unsafe { System.alloc_zeroed(layout) };
        if p.is_null() {
            out_of_memory(layout.size());
        }
        held_add(layout.size());
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) };
        held_sub(layout.size());
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as above.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if p.is_null() {
            out_of_memory(new_size);
        }
        held_sub(layout.size());
        held_add(new_size);
        p
    }
}

/// A message on the stack: nothing may be allocated here.
struct StackText {
    buf: [u8; 400],
    len: usize,
}

impl std::fmt::Write for StackText {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let n = s.len().min(self.buf.len() - self.len);
        self.buf[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        Ok(())
    }
}

#[cold]
fn out_of_memory(size: usize) -> ! {
    let mut t = StackText {
        buf: [0; 400],
        len: 0,
    };
    let (x, unit) = if size >= 1_000_000_000 {
        (size as f64 / 1e9, "GB")
    } else {
        (size as f64 / 1e6, "MB")
    };
    let _ = writeln!(
        t,
        "bitgraphblas: error: out of memory: the system refused {size} bytes ({x:.1} {unit}); \
         the graph needs more memory than this process may use (physical memory, cgroup \
         or ulimit -v)"
    );
    let _ = std::io::stderr().write_all(&t.buf[..t.len]);
    std::process::exit(1)
}
