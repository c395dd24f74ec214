//! A packed bit vector: bit `i` is bit `i % 64` of word `i / 64` (LSB first).
//! Bits past `len` in the last word are always 0.

/// A fixed-length packed bit vector.
///
/// ```
/// use bitgraphblas::storage::BitVec;
/// let mut b = BitVec::zeros(70);
/// b.set(3, true);
/// b.set(69, true);
/// assert_eq!(b.count_ones(), 2);
/// assert_eq!(b.iter_ones().collect::<Vec<_>>(), vec![3, 69]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct BitVec {
    len: usize,
    words: Vec<u64>,
}

impl BitVec {
    /// `len` zero bits.
    pub fn zeros(len: usize) -> Self {
        BitVec {
            len,
            words: vec![0; len.div_ceil(64)],
        }
    }
    /// `len` one bits.
    pub fn ones(len: usize) -> Self {
        let mut b = BitVec {
            len,
            words: vec![u64::MAX; len.div_ceil(64)],
        };
        b.clear_padding();
        b
    }
    /// From a slice of booleans.
    pub fn from_bools(bits: &[bool]) -> Self {
        let mut b = BitVec::zeros(bits.len());
        for (i, &x) in bits.iter().enumerate() {
            if x {
                b.words[i / 64] |= 1 << (i % 64);
            }
        }
        b
    }
    /// From words; bits past `len` are cleared. Fails if there are too few words.
    pub fn from_words(len: usize, mut words: Vec<u64>) -> Option<Self> {
        if words.len() != len.div_ceil(64) {
            return None;
        }
        words.truncate(len.div_ceil(64));
        let mut b = BitVec { len, words };
        b.clear_padding();
        Some(b)
    }
    /// From the set positions (each must be `< len`).
    pub fn from_indices(len: usize, indices: impl IntoIterator<Item = usize>) -> Self {
        let mut b = BitVec::zeros(len);
        for i in indices {
            b.set(i, true);
        }
        b
    }
    /// Number of bits.
    pub fn len(&self) -> usize {
        self.len
    }
    /// True when `len() == 0`.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Bit `i` (panics when `i >= len`, like slice indexing).
    #[inline]
    pub fn get(&self, i: usize) -> bool {
        assert!(i < self.len, "bit {i} out of range {}", self.len);
        self.words[i / 64] >> (i % 64) & 1 == 1
    }
    /// Set bit `i` to `v`.
    #[inline]
    pub fn set(&mut self, i: usize, v: bool) {
        assert!(i < self.len, "bit {i} out of range {}", self.len);
        let m = 1u64 << (i % 64);
        if v {
            self.words[i / 64] |= m;
        } else {
            self.words[i / 64] &= !m;
        }
    }
    /// The words.
    pub fn words(&self) -> &[u64] {
        &self.words
    }
    /// The words, mutably. Callers must keep bits past `len` zero
    /// (or call [`BitVec::clear_padding`]).
    pub fn words_mut(&mut self) -> &mut [u64] {
        &mut self.words
    }
    /// Number of one bits.
    pub fn count_ones(&self) -> usize {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU has `popcnt` (checked just above), the only
            // requirement of `count_ones_popcnt`.
            return unsafe { count_ones_popcnt(&self.words) };
        }
        count_ones_words(&self.words)
    }
    /// True when every bit is 0.
    pub fn none(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }
    /// Positions of one bits, ascending.
    pub fn iter_ones(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(wi, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let b = w.trailing_zeros() as usize;
                w &= w - 1;
                Some(wi * 64 + b)
            })
        })
    }
    /// Flip every bit.
    pub fn negate(&mut self) {
        for w in &mut self.words {
            *w = !*w;
        }
        self.clear_padding();
    }
    /// `self &= other` (same length).
    pub fn and_assign(&mut self, other: &BitVec) {
        debug_assert_eq!(self.len, other.len);
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a &= b;
        }
    }
    /// `self |= other` (same length).
    pub fn or_assign(&mut self, other: &BitVec) {
        debug_assert_eq!(self.len, other.len);
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a |= b;
        }
    }
    /// `self &= !other` (same length).
    pub fn and_not_assign(&mut self, other: &BitVec) {
        debug_assert_eq!(self.len, other.len);
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a &= !b;
        }
    }
    /// Zero the bits past `len` in the last word.
    pub fn clear_padding(&mut self) {
        let tail = self.len % 64;
        if tail != 0 {
            if let Some(last) = self.words.last_mut() {
                *last &= (1u64 << tail) - 1;
            }
        }
    }
    /// Heap bytes held.
    pub fn bytes(&self) -> usize {
        self.words.len() * 8
    }
}

/// One bits of `words` (the portable form).
#[inline(always)]
fn count_ones_words(words: &[u64]) -> usize {
    words.iter().map(|w| w.count_ones() as usize).sum()
}

/// [`count_ones_words`] compiled with the `popcnt` instruction (a baseline
/// x86-64 build counts bits with a dozen shifts and masks a word).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn count_ones_popcnt(words: &[u64]) -> usize {
    count_ones_words(words)
}
