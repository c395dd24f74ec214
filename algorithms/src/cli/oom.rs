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

/// [`System`], exiting cleanly where it returns null.
pub struct ExitOnOom;

// SAFETY: every call is forwarded to `System` with the same arguments; a null
// result never returns to the caller (the process exits).
unsafe impl GlobalAlloc for ExitOnOom {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is System's.
        let p = unsafe { System.alloc(layout) };
        if p.is_null() {
            out_of_memory(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as above.
        let p = unsafe { System.alloc_zeroed(layout) };
        if p.is_null() {
            out_of_memory(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as above.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if p.is_null() {
            out_of_memory(new_size);
        }
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
