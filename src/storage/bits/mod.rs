//! Dense bit matrices: the binary activations, weights and outputs of binary
//! neural-network layers (issue 17), packed 64 bits to a `u64` word.
//!
//! A [`BitMatrix`] is a set of *lines* of bits. In [`BitLayout::RowMajor`] a
//! line is a row (activations, outputs: what a product writes); in
//! [`BitLayout::ColMajor`] a line is a column (the weight operand of `bmm`,
//! so that a dot product is an AND and a popcount of two lines).
//!
//! **The bit order (one place):** line `l` occupies
//! `words[l * stride .. (l + 1) * stride]` with `stride = ceil(line_len / 64)`;
//! bit `p` of the line is bit `p % 64` of word `p / 64` (LSB first). The
//! padding bits after the end of each line are always 0: every constructor
//! and every kernel keeps it, and products rely on it. Read as `u32` words on
//! a little-endian machine, bit `p` is bit `p % 32` of word `p / 32` (what the
//! CUDA kernels read).
//!
//! ```
//! use bitgraphblas::storage::{BitLayout, BitMatrix};
//! // 2 x 3, row-major: rows 0b101 and 0b010
//! let m = BitMatrix::from_fn(2, 3, BitLayout::RowMajor, |i, j| (i + j) % 2 == 0)?;
//! assert_eq!(m.words(), &[0b101, 0b010]);
//! // the same matrix column-major: columns 0b01, 0b10, 0b01
//! let t = BitMatrix::from_fn(2, 3, BitLayout::ColMajor, |i, j| (i + j) % 2 == 0)?;
//! assert_eq!(t.words(), &[0b01, 0b10, 0b01]);
//! assert_eq!(t.get(1, 1), Some(true));
//! # Ok::<(), bitgraphblas::Error>(())
//! ```

use crate::backend::{BitShape, MatrixShape};
use crate::error::{Error, Result};

/// Which dimension a line of bits runs along.
///
/// ```
/// use bitgraphblas::storage::{BitLayout, BitMatrix};
/// let w = BitMatrix::zeros(600, 128, BitLayout::ColMajor)?;
/// // 128 lines (columns) of 600 bits: 10 words each
/// assert_eq!((w.lines(), w.line_len(), w.stride()), (128, 600, 10));
/// assert_eq!(BitLayout::RowMajor.other(), BitLayout::ColMajor);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BitLayout {
    /// `nrows` lines of `ncols` bits: line `i` holds row `i` (activations, outputs).
    RowMajor,
    /// `ncols` lines of `nrows` bits: line `j` holds column `j` (the weight operand of `bmm`).
    ColMajor,
}

impl BitLayout {
    /// The other layout.
    ///
    /// ```
    /// use bitgraphblas::storage::BitLayout;
    /// assert_eq!(BitLayout::ColMajor.other(), BitLayout::RowMajor);
    /// ```
    pub fn other(self) -> Self {
        match self {
            BitLayout::RowMajor => BitLayout::ColMajor,
            BitLayout::ColMajor => BitLayout::RowMajor,
        }
    }

    /// `"row-major"` or `"column-major"` (for error messages).
    ///
    /// ```
    /// use bitgraphblas::storage::BitLayout;
    /// assert_eq!(BitLayout::RowMajor.name(), "row-major");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            BitLayout::RowMajor => "row-major",
            BitLayout::ColMajor => "column-major",
        }
    }

    /// `(lines, line_len)` of an `nrows x ncols` matrix in this layout.
    pub(crate) fn lines_of(self, nrows: usize, ncols: usize) -> (usize, usize) {
        match self {
            BitLayout::RowMajor => (nrows, ncols),
            BitLayout::ColMajor => (ncols, nrows),
        }
    }
}

/// `(stride, total words)` of an `nrows x ncols` bit matrix in `layout`, or
/// [`Error::TooLarge`] when the word count overflows `usize` (or exceeds what
/// a `Vec<u64>` can hold). Every backend sizes its bit buffers with this.
pub(crate) fn bit_words(nrows: usize, ncols: usize, layout: BitLayout) -> Result<(usize, usize)> {
    let (lines, len) = layout.lines_of(nrows, ncols);
    let stride = len.div_ceil(64);
    match lines.checked_mul(stride) {
        Some(n) if n <= isize::MAX as usize / 8 => Ok((stride, n)),
        _ => Err(Error::TooLarge {
            what: "bit matrix",
            detail: format!(
                "{nrows}x{ncols} ({}) needs {lines} lines of {stride} words",
                layout.name()
            ),
        }),
    }
}

/// The mask of the valid bits of a line's last word (all ones when the line
/// ends on a word boundary).
#[inline]
pub(crate) fn tail_mask(line_len: usize) -> u64 {
    match line_len % 64 {
        0 => u64::MAX,
        r => (1u64 << r) - 1,
    }
}

/// A dense `nrows x ncols` matrix of bits packed into `u64` words (see the
/// [module documentation](self) for the bit order and the padding rule).
///
/// ```
/// use bitgraphblas::storage::{BitLayout, BitMatrix};
/// let mut m = BitMatrix::zeros(3, 70, BitLayout::RowMajor)?;
/// m.set(2, 69, true)?;
/// assert_eq!(m.stride(), 2);
/// assert_eq!(m.line(2), &[0, 1 << 5]);
/// assert_eq!((m.get(2, 69), m.get(3, 0)), (Some(true), None));
/// assert_eq!(m.count_ones(), 1);
/// assert!(m.set(0, 70, true).is_err());
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BitMatrix {
    nrows: usize,
    ncols: usize,
    layout: BitLayout,
    stride: usize,
    words: Vec<u64>,
}

impl BitMatrix {
    /// An all-zero `nrows x ncols` matrix. [`Error::TooLarge`] when its word
    /// count overflows or the memory cannot be reserved.
    ///
    /// ```
    /// use bitgraphblas::storage::{BitLayout, BitMatrix};
    /// let m = BitMatrix::zeros(2, 65, BitLayout::RowMajor)?;
    /// assert_eq!(m.words(), &[0, 0, 0, 0]);
    /// assert!(BitMatrix::zeros(usize::MAX, usize::MAX, BitLayout::RowMajor).is_err());
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn zeros(nrows: usize, ncols: usize, layout: BitLayout) -> Result<Self> {
        let (stride, n) = bit_words(nrows, ncols, layout)?;
        let mut words = Vec::new();
        words.try_reserve_exact(n).map_err(|e| Error::TooLarge {
            what: "bit matrix",
            detail: format!("{nrows}x{ncols}: {n} words: {e}"),
        })?;
        words.resize(n, 0);
        Ok(BitMatrix {
            nrows,
            ncols,
            layout,
            stride,
            words,
        })
    }

    /// The matrix whose entry `(i, j)` is `f(i, j)` (called once per entry,
    /// in storage order).
    ///
    /// ```
    /// use bitgraphblas::storage::{BitLayout, BitMatrix};
    /// let eye = BitMatrix::from_fn(3, 3, BitLayout::ColMajor, |i, j| i == j)?;
    /// assert_eq!(eye.words(), &[0b001, 0b010, 0b100]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn from_fn(
        nrows: usize,
        ncols: usize,
        layout: BitLayout,
        mut f: impl FnMut(usize, usize) -> bool,
    ) -> Result<Self> {
        let mut m = BitMatrix::zeros(nrows, ncols, layout)?;
        let (lines, len) = layout.lines_of(nrows, ncols);
        for l in 0..lines {
            let line = &mut m.words[l * m.stride..(l + 1) * m.stride];
            for p in 0..len {
                let (i, j) = match layout {
                    BitLayout::RowMajor => (l, p),
                    BitLayout::ColMajor => (p, l),
                };
                line[p / 64] |= (f(i, j) as u64) << (p % 64);
            }
        }
        Ok(m)
    }

    /// From packed words in the documented order: `words.len()` must be
    /// `lines * stride` and every padding bit 0 (else [`Error::InvalidStorage`]).
    ///
    /// ```
    /// use bitgraphblas::storage::{BitLayout, BitMatrix};
    /// let m = BitMatrix::from_words(2, 3, BitLayout::RowMajor, vec![0b101, 0b011])?;
    /// assert_eq!(m.get(1, 1), Some(true));
    /// // bit 3 is past the end of a 3-bit row
    /// assert!(BitMatrix::from_words(2, 3, BitLayout::RowMajor, vec![0b1000, 0]).is_err());
    /// // one word short
    /// assert!(BitMatrix::from_words(2, 3, BitLayout::RowMajor, vec![0]).is_err());
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn from_words(
        nrows: usize,
        ncols: usize,
        layout: BitLayout,
        words: Vec<u64>,
    ) -> Result<Self> {
        let (stride, n) = bit_words(nrows, ncols, layout)?;
        if words.len() != n {
            return Err(Error::storage(
                "bit matrix",
                format!(
                    "{} words for a {nrows}x{ncols} {} matrix ({n} expected)",
                    words.len(),
                    layout.name()
                ),
            ));
        }
        let (_, len) = layout.lines_of(nrows, ncols);
        let mask = tail_mask(len);
        if stride > 0 && mask != u64::MAX {
            if let Some(l) = (0..n / stride).find(|l| words[l * stride + stride - 1] & !mask != 0) {
                return Err(Error::storage(
                    "bit matrix",
                    format!("line {l} has bits set past its length {len}"),
                ));
            }
        }
        Ok(BitMatrix {
            nrows,
            ncols,
            layout,
            stride,
            words,
        })
    }

    /// Number of rows.
    ///
    /// ```
    /// use bitgraphblas::storage::{BitLayout, BitMatrix};
    /// assert_eq!(BitMatrix::zeros(4, 5, BitLayout::ColMajor)?.nrows(), 4);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn nrows(&self) -> usize {
        self.nrows
    }
    /// Number of columns.
    ///
    /// ```
    /// use bitgraphblas::storage::{BitLayout, BitMatrix};
    /// assert_eq!(BitMatrix::zeros(4, 5, BitLayout::ColMajor)?.ncols(), 5);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn ncols(&self) -> usize {
        self.ncols
    }
    /// The layout.
    ///
    /// ```
    /// use bitgraphblas::storage::{BitLayout, BitMatrix};
    /// assert_eq!(BitMatrix::zeros(4, 5, BitLayout::ColMajor)?.layout(), BitLayout::ColMajor);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn layout(&self) -> BitLayout {
        self.layout
    }
    /// Words per line: `ceil(line_len / 64)`.
    ///
    /// ```
    /// use bitgraphblas::storage::{BitLayout, BitMatrix};
    /// assert_eq!(BitMatrix::zeros(4, 129, BitLayout::RowMajor)?.stride(), 3);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn stride(&self) -> usize {
        self.stride
    }
    /// Number of lines: `nrows` (row-major) or `ncols` (column-major).
    ///
    /// ```
    /// use bitgraphblas::storage::{BitLayout, BitMatrix};
    /// assert_eq!(BitMatrix::zeros(4, 5, BitLayout::ColMajor)?.lines(), 5);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn lines(&self) -> usize {
        self.layout.lines_of(self.nrows, self.ncols).0
    }
    /// Bits per line: `ncols` (row-major) or `nrows` (column-major).
    ///
    /// ```
    /// use bitgraphblas::storage::{BitLayout, BitMatrix};
    /// assert_eq!(BitMatrix::zeros(4, 5, BitLayout::ColMajor)?.line_len(), 4);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn line_len(&self) -> usize {
        self.layout.lines_of(self.nrows, self.ncols).1
    }
    /// Every word, line after line.
    ///
    /// ```
    /// use bitgraphblas::storage::{BitLayout, BitMatrix};
    /// let m = BitMatrix::from_fn(2, 2, BitLayout::RowMajor, |i, _| i == 1)?;
    /// assert_eq!(m.words(), &[0, 0b11]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn words(&self) -> &[u64] {
        &self.words
    }
    /// The words of line `l` (panics when `l >= lines()`, like slice indexing).
    ///
    /// ```
    /// use bitgraphblas::storage::{BitLayout, BitMatrix};
    /// let m = BitMatrix::from_fn(2, 2, BitLayout::ColMajor, |i, _| i == 1)?;
    /// assert_eq!(m.line(0), &[0b10]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn line(&self, l: usize) -> &[u64] {
        &self.words[l * self.stride..(l + 1) * self.stride]
    }
    /// Entry `(i, j)`, `None` out of range.
    ///
    /// ```
    /// use bitgraphblas::storage::{BitLayout, BitMatrix};
    /// let m = BitMatrix::from_fn(2, 2, BitLayout::RowMajor, |i, j| i < j)?;
    /// assert_eq!((m.get(0, 1), m.get(1, 0), m.get(2, 0)), (Some(true), Some(false), None));
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn get(&self, i: usize, j: usize) -> Option<bool> {
        let (w, b) = self.position(i, j)?;
        Some(self.words[w] >> b & 1 == 1)
    }
    /// Sets entry `(i, j)` to `v` ([`Error::IndexOutOfBounds`] out of range).
    ///
    /// ```
    /// use bitgraphblas::storage::{BitLayout, BitMatrix};
    /// let mut m = BitMatrix::zeros(2, 2, BitLayout::RowMajor)?;
    /// m.set(1, 0, true)?;
    /// assert_eq!(m.words(), &[0, 1]);
    /// assert!(m.set(0, 2, true).is_err());
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn set(&mut self, i: usize, j: usize, v: bool) -> Result<()> {
        let Some((w, b)) = self.position(i, j) else {
            let (index, len) = if i >= self.nrows {
                (i, self.nrows)
            } else {
                (j, self.ncols)
            };
            return Err(Error::IndexOutOfBounds {
                op: "BitMatrix::set",
                index,
                len,
            });
        };
        self.words[w] = self.words[w] & !(1 << b) | (v as u64) << b;
        Ok(())
    }
    /// Number of one bits.
    ///
    /// ```
    /// use bitgraphblas::storage::{BitLayout, BitMatrix};
    /// let m = BitMatrix::from_fn(65, 65, BitLayout::RowMajor, |_, _| true)?;
    /// assert_eq!(m.count_ones(), 65 * 65);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn count_ones(&self) -> u64 {
        self.words.iter().map(|w| w.count_ones() as u64).sum()
    }

    /// The words, mutably (kernels keep the padding bits 0).
    pub(crate) fn words_mut(&mut self) -> &mut [u64] {
        &mut self.words
    }

    /// `(word, bit)` of entry `(i, j)`.
    fn position(&self, i: usize, j: usize) -> Option<(usize, usize)> {
        if i >= self.nrows || j >= self.ncols {
            return None;
        }
        let (l, p) = match self.layout {
            BitLayout::RowMajor => (i, j),
            BitLayout::ColMajor => (j, i),
        };
        Some((l * self.stride + p / 64, p % 64))
    }
}

impl MatrixShape for BitMatrix {
    fn nrows(&self) -> usize {
        self.nrows
    }
    fn ncols(&self) -> usize {
        self.ncols
    }
}

impl BitShape for BitMatrix {
    fn layout(&self) -> BitLayout {
        self.layout
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_words_checks_every_lines_padding() {
        // 3 lines of 65 bits: the padding of the last line is dirty
        let mut w = vec![0u64; 6];
        w[5] = 1 << 1;
        assert!(BitMatrix::from_words(3, 65, BitLayout::RowMajor, w.clone()).is_err());
        w[5] = 1;
        assert!(BitMatrix::from_words(3, 65, BitLayout::RowMajor, w).is_ok());
    }

    #[test]
    fn empty_shapes() {
        for (r, c) in [(0, 0), (0, 5), (5, 0)] {
            for l in [BitLayout::RowMajor, BitLayout::ColMajor] {
                let m = BitMatrix::zeros(r, c, l).unwrap();
                assert_eq!(m.words().len(), m.lines() * m.stride());
                assert_eq!(
                    BitMatrix::from_words(r, c, l, m.words().to_vec()).unwrap(),
                    m
                );
            }
        }
    }
}
