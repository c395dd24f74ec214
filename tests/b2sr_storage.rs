//! B2SR storage: CSR -> B2SR -> CSR round trips at every tile size on ragged
//! random matrices, transpose, validate() (accepts packed matrices, rejects
//! each broken invariant), the documented bit order, exact byte accounting,
//! and the sampling profile.

mod common;

use bitgraphblas::storage::b2sr::{
    B2srBlocks, B2srTiles, ColumnForm, Profile, Tile16, Tile32, Tile4, Tile64, Tile8, TileBits,
    TileColumns,
};
use bitgraphblas::storage::{B2sr, Csr};
use bitgraphblas::{Error, TileSize};
use common::{dim, qc, SpMat};
use quickcheck::{Arbitrary, Gen, TestResult};
use rand::{rngs::StdRng, Rng, SeedableRng};

/// A random pattern matrix with ragged dimensions.
#[derive(Clone, Debug)]
struct Pattern(SpMat<bool>);

impl Arbitrary for Pattern {
    fn arbitrary(g: &mut Gen) -> Self {
        let (r, c) = (dim(g), dim(g));
        Pattern(SpMat::gen(g, r, c).iso(true))
    }
    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        Box::new(self.0.shrink_entries().into_iter().map(Pattern))
    }
}

fn csr(p: &SpMat<bool>) -> Csr<bool> {
    Csr::from_triplets(p.nrows, p.ncols, p.entries.clone(), |a, _| a).unwrap()
}

/// Sizes of the stored arrays: `(tile_row_ptr entries, bytes of the tile
/// columns as stored, tiles, bytes per tile)`.
fn arrays(b: &B2sr) -> (usize, usize, usize, usize) {
    fn of<L: TileBits>(x: &B2srBlocks<L>) -> (usize, usize, usize, usize) {
        assert_eq!(std::mem::size_of::<L>(), L::BYTES, "packed tile size");
        let cols = match x.columns() {
            TileColumns::Wide(c) => 4 * c.len(),
            TileColumns::Narrow(n) => {
                4 * n.base().len() + 2 * n.offset().len() + 4 * n.escaped().len()
            }
        };
        (x.tile_row_ptr().len(), cols, x.tiles().len(), L::BYTES)
    }
    match b.tiles() {
        B2srTiles::T4(x) => of(x),
        B2srTiles::T8(x) => of(x),
        B2srTiles::T16(x) => of(x),
        B2srTiles::T32(x) => of(x),
        B2srTiles::T64(x) => of(x),
    }
}

fn roundtrip(p: Pattern) -> TestResult {
    let a = csr(&p.0);
    for t in TileSize::FIXED {
        let k = t.k().unwrap();
        let packed = B2sr::from_csr(&a, t).unwrap();
        let mut tiles: Vec<(usize, usize)> =
            p.0.entries.iter().map(|e| (e.0 / k, e.1 / k)).collect();
        tiles.sort_unstable();
        tiles.dedup();
        let wide_bytes =
            4 * (p.0.nrows.div_ceil(k) + 1) + 4 * tiles.len() + tiles.len() * k * k / 8;
        // The form packing chose, and both forms forced: the same matrix.
        for form in [None, Some(ColumnForm::Wide), Some(ColumnForm::Narrow)] {
            let b = form.map_or(packed.clone(), |f| packed.clone().with_columns(f));
            if let Err(e) = b.validate() {
                return TestResult::error(format!("{t} {form:?}: packed matrix invalid: {e}"));
            }
            if b != packed || form.is_some_and(|f| b.column_form() != f) {
                return TestResult::error(format!("{t} {form:?}: the forms differ"));
            }
            if b.to_csr(true).unwrap() != a {
                return TestResult::error(format!("{t} {form:?}: round trip changed the pattern"));
            }
            if b.ntiles() != tiles.len() || b.nnz() != a.nnz() {
                return TestResult::error(format!(
                    "{t}: {} tiles / {} nnz, expected {} / {}",
                    b.ntiles(),
                    b.nnz(),
                    tiles.len(),
                    a.nnz()
                ));
            }
            if b.entries() != p.0.entries.iter().map(|e| (e.0, e.1)).collect::<Vec<_>>() {
                return TestResult::error(format!("{t} {form:?}: entries() differ"));
            }
            // Bytes: the real array sizes, and the documented formula for 32-bit columns.
            let (np, nc, nt, tb) = arrays(&b);
            let wide = b.column_form() == ColumnForm::Wide;
            if b.bytes() != 4 * np + nc + nt * tb || (wide && b.bytes() != wide_bytes) {
                return TestResult::error(format!("{t}: bytes {} formula {wide_bytes}", b.bytes()));
            }
            // Transpose commutes with packing.
            let bt = b.transpose();
            if let Err(e) = bt.validate() {
                return TestResult::error(format!("{t} {form:?}: transpose invalid: {e}"));
            }
            if bt != B2sr::from_csr(&a.transpose(), t).unwrap() {
                return TestResult::error(format!("{t} {form:?}: transpose differs from CSR's"));
            }
        }
        // Packing gives 32-bit columns.
        let narrow = packed.clone().with_columns(ColumnForm::Narrow).bytes();
        if packed.column_form() != ColumnForm::Wide {
            return TestResult::error(format!("{t}: packed with 16-bit columns"));
        }
        // The exact profile (every row sampled) equals the packed matrix.
        let prof = Profile::sample_with(&a, p.0.nrows.max(1), 7);
        let e = prof.estimate(t).unwrap();
        if e.tiles != packed.ntiles() as f64
            || e.bytes != packed.bytes() as f64
            || e.narrow_bytes != narrow as f64
            || (e.fill - packed.fill()).abs() > 1e-12
        {
            return TestResult::error(format!(
                "{t}: exact profile {e:?}, matrix tiles {} bytes {} fill {}",
                packed.ntiles(),
                packed.bytes(),
                packed.fill()
            ));
        }
    }
    TestResult::passed()
}

#[test]
fn csr_b2sr_csr_roundtrip_transpose_bytes_profile() {
    qc(300).quickcheck(roundtrip as fn(Pattern) -> TestResult);
}

/// Bit `r*k + c` of the tile's little-endian bytes is entry `(r, c)`, for
/// every position of every tile size; and `row(r)` has bit `c`.
fn bit_order<L: TileBits>() {
    for r in 0..L::K {
        for c in 0..L::K {
            let mut t = L::default();
            t.set(r, c);
            assert_eq!(t.count_ones(), 1);
            assert_eq!(t.row(r), 1u64 << c, "k={} ({r},{c})", L::K);
            let mut bytes = Vec::new();
            t.to_le_bytes(&mut bytes);
            assert_eq!(bytes.len(), L::BYTES);
            let bit = r * L::K + c;
            for (i, &byte) in bytes.iter().enumerate() {
                let want = if i == bit / 8 { 1u8 << (bit % 8) } else { 0 };
                assert_eq!(byte, want, "k={} ({r},{c}) byte {i}", L::K);
            }
            assert_eq!(L::from_le_bytes(&bytes), t);
            // Transpose moves (r, c) to (c, r).
            let mut tt = L::default();
            tt.set(c, r);
            assert_eq!(t.transpose(), tt);
        }
    }
}

#[test]
fn documented_bit_order() {
    bit_order::<Tile4>();
    bit_order::<Tile8>();
    bit_order::<Tile16>();
    bit_order::<Tile32>();
    bit_order::<Tile64>();
    // The concrete words of the table in tile.rs.
    let mut t4 = Tile4::default();
    t4.set(1, 2);
    assert_eq!(t4.0, 1 << 6);
    let mut t8 = Tile8::default();
    t8.set(3, 5);
    assert_eq!(t8.0, 1 << (8 * 3 + 5));
    let mut t16 = Tile16::default();
    t16.set(15, 0);
    assert_eq!(t16.0[15], 1);
    let mut t32 = Tile32::default();
    t32.set(2, 31);
    assert_eq!(t32.0[2], 1 << 31);
    let mut t64 = Tile64::default();
    t64.set(63, 63);
    assert_eq!(t64.0[63], 1 << 63);
}

/// A matrix entry lands in tile `(i/k, j/k)` at bit `(i%k, j%k)`.
#[test]
fn packed_entry_position() {
    let a = Csr::from_triplets(11, 13, vec![(9, 6, true)], |x, _| x).unwrap();
    let b = B2sr::from_csr(&a, TileSize::T4).unwrap();
    match b.tiles() {
        B2srTiles::T4(x) => {
            assert_eq!(x.tile_row_ptr(), &[0, 0, 0, 1]);
            assert_eq!(x.tile_col_idx(), &[1][..]);
            let (r, c) = (9 % 4, 6 % 4); // (1, 2)
            assert_eq!(x.tiles()[0].0, 1 << (4 * r + c));
        }
        _ => unreachable!(),
    }
    let b = B2sr::from_csr(&a, TileSize::T8).unwrap();
    match b.tiles() {
        B2srTiles::T8(x) => {
            assert_eq!(x.tile_row_ptr(), &[0, 0, 1]);
            assert_eq!(x.tile_col_idx(), &[0][..]);
            let (r, c) = (9 % 8, 6); // entry (9, 6) in tile (1, 0)
            assert_eq!(x.tiles()[0].0, 1 << (8 * r + c));
        }
        _ => unreachable!(),
    }
}

/// The fast 8x8 transpose agrees with the bit-by-bit definition on random tiles.
#[test]
fn tile8_transpose_matches_definition() {
    let mut rng = StdRng::seed_from_u64(3);
    for _ in 0..2000 {
        let t = Tile8(rng.gen());
        let mut want = Tile8::default();
        for r in 0..8 {
            for c in 0..8 {
                if t.row(r) >> c & 1 == 1 {
                    want.set(c, r);
                }
            }
        }
        assert_eq!(t.transpose(), want);
    }
}

fn rejects(nrows: usize, ncols: usize, tiles: B2srTiles, what: &str) {
    match B2sr::from_parts(nrows, ncols, tiles) {
        Err(Error::InvalidStorage { .. }) => {}
        other => panic!("{what}: expected InvalidStorage, got {other:?}"),
    }
}

fn t4(ptr: Vec<u32>, cols: Vec<u32>, tiles: Vec<u16>) -> B2srTiles {
    B2srTiles::T4(B2srBlocks::from_raw(
        ptr,
        cols,
        tiles.into_iter().map(Tile4).collect(),
    ))
}

#[test]
fn validate_accepts_packed_and_rejects_each_broken_invariant() {
    // 6 x 7 at k = 4: 2 tile rows, 2 tile columns; the last tile row has 2
    // real rows, the last tile column 3 real columns.
    // Tiles (0,0), (0,1), (1,1).
    let good = t4(vec![0, 2, 3], vec![0, 1, 1], vec![1, 1 << 2, 1 << 4]);
    B2sr::from_parts(6, 7, good).expect("a valid matrix");
    rejects(
        6,
        7,
        t4(vec![0, 2], vec![0, 1], vec![1, 1]),
        "tile_row_ptr too short",
    );
    rejects(
        6,
        7,
        t4(vec![1, 2, 3], vec![0, 1, 1], vec![1, 1, 1]),
        "tile_row_ptr[0] != 0",
    );
    rejects(
        6,
        7,
        t4(vec![0, 2, 2], vec![0, 1, 1], vec![1, 1, 1]),
        "last offset != ntiles",
    );
    // Regression: a decreasing offset whose end is right made validate() panic
    // (it sliced tile row 0 with an offset past the end).
    rejects(
        6,
        7,
        t4(vec![0, 4, 3], vec![0, 1, 1], vec![1, 1, 1]),
        "decreasing tile_row_ptr",
    );
    rejects(
        6,
        7,
        t4(vec![0, 2, 3], vec![0, 1, 1], vec![1, 1]),
        "tiles and columns differ",
    );
    rejects(
        6,
        7,
        t4(vec![0, 2, 3], vec![1, 0, 1], vec![1, 1, 1]),
        "unsorted tile columns",
    );
    rejects(
        6,
        7,
        t4(vec![0, 2, 3], vec![1, 1, 1], vec![1, 1, 1]),
        "repeated tile column",
    );
    rejects(
        6,
        7,
        t4(vec![0, 2, 3], vec![0, 1, 2], vec![1, 1, 1]),
        "tile column out of range",
    );
    rejects(
        6,
        7,
        t4(vec![0, 2, 3], vec![0, 1, 1], vec![1, 0, 1]),
        "empty stored tile",
    );
    // Row 2 of the last tile row is padding (6 = 4 + 2).
    rejects(
        6,
        7,
        t4(vec![0, 2, 3], vec![0, 1, 1], vec![1, 1, 1 << 8]),
        "padding row bit",
    );
    // Column 3 of the last tile column is padding (7 = 4 + 3).
    rejects(
        6,
        7,
        t4(vec![0, 2, 3], vec![0, 1, 1], vec![1, 1 << 3, 1]),
        "padding column bit",
    );
    // The same at k = 64 with a ragged 70 x 70 matrix.
    let t64 = |ptr: Vec<u32>, cols: Vec<u32>, rows: Vec<(usize, usize)>| {
        let tiles = rows
            .into_iter()
            .map(|(r, c)| {
                let mut t = Tile64::default();
                t.set(r, c);
                t
            })
            .collect();
        B2srTiles::T64(B2srBlocks::from_raw(ptr, cols, tiles))
    };
    B2sr::from_parts(70, 70, t64(vec![0, 1, 2], vec![0, 1], vec![(0, 0), (5, 5)])).unwrap();
    rejects(
        70,
        70,
        t64(vec![0, 1, 2], vec![0, 1], vec![(0, 0), (6, 5)]),
        "k=64 padding row",
    );
    rejects(
        70,
        70,
        t64(vec![0, 1, 2], vec![0, 1], vec![(0, 0), (5, 6)]),
        "k=64 padding column",
    );
    rejects(
        70,
        70,
        t64(vec![0, 2, 1], vec![0, 1], vec![(0, 0), (5, 5)]),
        "k=64 decreasing",
    );
}

/// `Profile::recommend`: keep CSR for a scattered random graph, B2SR for a band.
#[test]
fn profile_recommendation() {
    let n: usize = 4096;
    let mut rng = StdRng::seed_from_u64(11);
    let scattered: Vec<(usize, usize, bool)> = (0..n)
        .flat_map(|i| (0..4).map(move |_| i))
        .map(|i| (i, rng.gen_range(0..n), true))
        .collect();
    let a = Csr::from_triplets(n, n, scattered, |x, _| x).unwrap();
    assert_eq!(
        Profile::sample(&a).recommend(),
        None,
        "random scattered graph keeps CSR"
    );
    let band: Vec<(usize, usize, bool)> = (0..n)
        .flat_map(|i| (i.saturating_sub(3)..(i + 4).min(n)).map(move |j| (i, j, true)))
        .collect();
    let b = Csr::from_triplets(n, n, band, |x, _| x).unwrap();
    let rec = Profile::sample(&b).recommend();
    assert!(rec.is_some(), "a band converts");
    // And the recommendation is right: the packed matrix is smaller than CSR.
    let packed = B2sr::from_csr(&b, rec.unwrap()).unwrap();
    assert!(packed.bytes() < b.pattern_bytes());
}

/// An empty matrix and a 0 x n matrix pack, validate and unpack at every size.
#[test]
fn empty_shapes() {
    for (r, c) in [(0, 0), (0, 9), (9, 0), (65, 1), (1, 65)] {
        let a = Csr::<bool>::empty(r, c);
        for t in TileSize::FIXED {
            let b = B2sr::from_csr(&a, t).unwrap();
            b.validate().unwrap();
            assert_eq!(b.ntiles(), 0);
            assert_eq!(b.to_csr(true).unwrap(), a);
            assert_eq!(b.transpose().to_csr(true).unwrap(), a.transpose());
        }
    }
}

/// 16-bit tile columns with escaped rows: a band plus tile rows whose columns
/// span more than `u16::MAX` tiles (stored whole in the side array). The
/// escapes sit where expected, and the matrix unpacks, transposes,
/// round-trips through a file (version 2) and multiplies as the same matrix
/// with 32-bit columns.
#[test]
fn sixteen_bit_columns_escape_long_rows() {
    let n: usize = 4 * 70_000;
    let mut t: Vec<(usize, usize, bool)> = (0..n)
        .flat_map(|i| (i.saturating_sub(6)..(i + 7).min(n)).map(move |j| (i, j, true)))
        .collect();
    // Rows 1 and 4097 (tile rows 0 and 1024 at k = 4) reach the far end.
    t.extend([(1, n - 1, true), (4097, n - 3, true), (n - 1, 0, true)]);
    t.sort_unstable_by_key(|e| (e.0, e.1));
    t.dedup();
    let a = Csr::from_triplets(n, n, t.clone(), |x, _| x).unwrap();
    let b = B2sr::from_csr(&a, TileSize::T4)
        .unwrap()
        .with_columns(ColumnForm::Narrow);
    assert_eq!(b.column_form(), ColumnForm::Narrow);
    let B2srTiles::T4(blk) = b.tiles() else {
        unreachable!()
    };
    let TileColumns::Narrow(cols) = blk.columns() else {
        unreachable!()
    };
    let escaped: Vec<usize> = (0..b.tile_rows())
        .filter(|&r| cols.base()[r] & bitgraphblas::storage::b2sr::columns::ESCAPE != 0)
        .collect();
    assert_eq!(escaped, [0, 1024, b.tile_rows() - 1]);
    let esc_tiles: usize = escaped.iter().map(|&r| blk.tile_range(r).len()).sum();
    assert_eq!(cols.escaped().len(), esc_tiles);
    b.validate().unwrap();
    assert_eq!(b.to_csr(true).unwrap(), a);
    let wide = b.clone().with_columns(ColumnForm::Wide);
    assert_eq!(wide, b);
    assert_eq!(
        wide.bytes() - b.bytes(),
        2 * b.ntiles() - 4 * b.tile_rows() - 4 * esc_tiles
    );
    assert_eq!(b.transpose(), wide.transpose());

    // File round trip: version 2 for 16-bit columns, version 1 for 32-bit.
    let dir = std::env::temp_dir();
    for (m, version) in [(&b, 2u32), (&wide, 1)] {
        let path = dir.join(format!("bgb_escape_{version}_{}.b2sr", std::process::id()));
        let mat = bitgraphblas::Matrix::from_b2sr(m.clone(), true);
        bitgraphblas::io::write_b2sr(&path, &mat).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(
            u32::from_le_bytes(bytes[8..12].try_into().unwrap()),
            version
        );
        assert_eq!(
            bytes.len(),
            56 + 4 * (b.tile_rows() + 1) + m.bytes() - 4 * (b.tile_rows() + 1)
                + (if version == 2 {
                    2 * (b.ntiles() % 2)
                } else {
                    0
                })
                + 4
        );
        let back = bitgraphblas::io::read_b2sr::<bool>(&path).unwrap();
        std::fs::remove_file(&path).ok();
        assert_eq!(back, mat);
        match back.repr() {
            bitgraphblas::container::MatrixRepr::B2sr { pattern, .. } => {
                // each loads as stored
                assert_eq!(pattern.column_form(), m.column_form())
            }
            _ => unreachable!(),
        }
    }

    // Products: the same results from either form.
    use bitgraphblas::algebra::{LorLand, PlusTimes};
    use bitgraphblas::container::{Flags, NoAccum};
    use bitgraphblas::{Backend, Cpu, Vector};
    let entries = (0..n).step_by(7).map(|i| (i, 1.0f32 + (i % 5) as f32));
    let x = Vector::from_entries(n, entries.collect()).unwrap();
    let xb = Vector::from_entries(n, (0..n).step_by(7).map(|i| (i, true)).collect()).unwrap();
    let mut ys = Vec::new();
    for m in [&b, &wide] {
        let am = bitgraphblas::Matrix::from_b2sr(m.clone(), 1.0f32);
        let ab = bitgraphblas::Matrix::from_b2sr(m.clone(), true);
        let (mut y, mut yb) = (Vector::<f32>::empty(n), Vector::<bool>::empty(n));
        let f = Flags::default();
        Cpu::new()
            .mxv(&mut y, None, NoAccum, PlusTimes::<f32>::new(), &am, &x, f)
            .unwrap();
        Cpu::new()
            .mxv(&mut yb, None, NoAccum, LorLand, &ab, &xb, f)
            .unwrap();
        let mut yt = Vector::<f32>::empty(n);
        let ft = Flags {
            transpose_a: true,
            ..Flags::default()
        };
        Cpu::new()
            .mxv(&mut yt, None, NoAccum, PlusTimes::<f32>::new(), &am, &x, ft)
            .unwrap();
        ys.push((y, yb, yt));
    }
    assert_eq!(ys[0], ys[1]);
    assert!(ys[0].0.nvals() > n / 2 && ys[0].1.nvals() > n / 2);
}

/// A 16-bit column index that does not fit its row offsets is an error.
#[test]
fn validate_rejects_bad_sixteen_bit_columns() {
    // Built for 3 tile rows, given 2: the bases do not match the tile rows.
    let cols = TileColumns::build(&[0, 1, 2, 3], vec![0, 1, 1], ColumnForm::Narrow);
    let tiles = B2srTiles::T4(B2srBlocks::from_columns(
        vec![0, 2, 3],
        cols,
        vec![Tile4(1), Tile4(1), Tile4(1)],
    ));
    rejects(6, 7, tiles, "bases for another row count");
    // Offsets that leave the row unsorted (row 0: base 0, offsets 1, 0).
    let cols = TileColumns::build(&[0, 1, 2, 3], vec![1, 0, 1], ColumnForm::Narrow);
    let tiles = B2srTiles::T4(B2srBlocks::from_columns(
        vec![0, 2, 2, 3],
        cols,
        vec![Tile4(1), Tile4(1), Tile4(1)],
    ));
    rejects(10, 7, tiles, "offsets of another row split");
}
