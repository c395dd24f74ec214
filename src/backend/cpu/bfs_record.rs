//! One level of a breadth-first search with parents recorded on the CPU
//! ([`crate::ext::bfs_record`]): one pass over the new vertices.

use crate::container::{Vector, VectorFormat, VectorRepr};
use crate::error::Result;
use crate::scalar::Scalar;
use crate::storage::BitVec;

/// `v` taken apart as dense values and presence bits (in place when it is
/// dense, else converted once); `v` is left empty until put back (for a BFS
/// `level`, its presence is the visited set).
pub(super) fn take_dense<T: Scalar>(v: &mut Vector<T>) -> Result<(Vec<T>, BitVec)> {
    let n = v.len();
    let old = std::mem::replace(v, Vector::empty(n));
    let old = match old.repr() {
        VectorRepr::Dense { .. } => old,
        _ => old.to_format(VectorFormat::Dense)?,
    };
    let VectorRepr::Dense { values, present } = old.into_repr() else {
        unreachable!("made dense above")
    };
    Ok((values, present.unwrap_or_else(|| BitVec::ones(n))))
}

/// [`crate::ext::BackendExt::bfs_record`] on the CPU (checked arguments):
/// `level` and `parent` are made dense with presence bits (in place when
/// they are), `next`'s entries written into both, and `frontier` becomes the
/// sparse vector of the new vertices with their own ids.
pub(crate) fn bfs_record(
    level: &mut Vector<i64>,
    parent: &mut Vector<u64>,
    frontier: &mut Vector<u64>,
    next: &Vector<u64>,
    depth: i64,
) -> Result<()> {
    let n = next.len();
    let (mut lv, mut lp) = take_dense(level)?;
    let (mut pv, mut pp) = take_dense(parent)?;
    let mut indices = Vec::new();
    for (v, x) in next.entries() {
        (lv[v], pv[v]) = (depth, x);
        lp.set(v, true);
        pp.set(v, true);
        indices.push(v as u32);
    }
    *level = Vector::from_repr(
        n,
        VectorRepr::Dense {
            values: lv,
            present: Some(lp),
        },
    )?;
    *parent = Vector::from_repr(
        n,
        VectorRepr::Dense {
            values: pv,
            present: Some(pp),
        },
    )?;
    let values = indices.iter().map(|&v| v as u64).collect();
    *frontier = Vector::from_repr(n, VectorRepr::Sparse { indices, values })?;
    Ok(())
}
