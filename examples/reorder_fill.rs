//! Tile fill of a graph in each vertex order, and the time each order takes.
//!
//! ```text
//! cargo run --release --example reorder_fill -- GRAPH.mtx[.gz] ... [rmat:SCALE]
//! ```
//!
//! For each graph and each order (none, rcm, degree, locality): the seconds
//! the order took, then the number of non-empty tiles and their fill (the
//! fraction of set bits) at 4x4, 8x8, 16x16 and 32x32, counted exactly.
//! `rmat:S` is the generator's R-MAT graph of scale S, edge factor 16.

use std::time::Instant;

use bitgraphblas::reorder::Order;
use bitgraphblas::storage::b2sr::Profile;
use bitgraphblas::{Matrix, TileSize};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() {
        eprintln!("usage: reorder_fill GRAPH... (a Matrix Market file or rmat:SCALE)");
        std::process::exit(2);
    }
    let tiles = [TileSize::T4, TileSize::T8, TileSize::T16, TileSize::T32];
    for a in &args {
        let t = Instant::now();
        let g: Matrix<bool> = match a.strip_prefix("rmat:") {
            Some(s) => bitgraphblas::generate::rmat(s.parse()?, 16, 1),
            None => bitgraphblas::io::read_graph(a)?,
        };
        println!(
            "{a}: {} vertices, {} entries (loaded in {:.2} s)",
            g.nrows(),
            g.nvals(),
            t.elapsed().as_secs_f64()
        );
        print!("{:<9} {:>9}", "order", "seconds");
        for t in tiles {
            print!(" {:>10} {:>7}", format!("tiles{t}"), format!("fill{t}"));
        }
        println!();
        let mut base = Vec::new();
        for o in Order::ALL {
            let t = Instant::now();
            let p = o.compute(&g.as_csr())?;
            let dt = t.elapsed().as_secs_f64();
            let r = p.permute_symmetric(&g)?;
            let prof = Profile::sample_with(&r.as_csr(), usize::MAX, 1);
            print!("{:<9} {dt:>9.3}", o.name());
            for (i, t) in tiles.iter().enumerate() {
                let e = prof.estimate(*t).ok_or("every fixed size")?;
                if o == Order::None {
                    base.push(e.fill);
                }
                print!(" {:>10.0} {:>7.4}", e.tiles, e.fill);
                let _ = i;
            }
            let gain: Vec<String> = tiles
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let f = prof.estimate(*t).map_or(0.0, |e| e.fill);
                    format!("{:.2}", f / base[i].max(1e-300))
                })
                .collect();
            println!("  x{}", gain.join(" x"));
        }
    }
    Ok(())
}
