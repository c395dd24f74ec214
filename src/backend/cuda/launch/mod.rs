//! Typed kernel launches: one function per kernel entry point, grouped by
//! module family (`pack`, `vec`, `mat`, `sr`, `push`, `transpose`, `mxm`,
//! `visit`, `bits_*`, `dense_*`, as in [`super::kernels`]). Each function's parameters are the
//! kernel's, in its order and named as in its `cuda/*.cu` signature: typed
//! device pointers ([`DevPtr`]) for pointers, `u64`/`u32`/`i32`/`i64`
//! scalars, `bool` for the kernels' `int` flags, and a few groups the
//! kernels take together ([`Tiles`] for a B2SR pattern's three arrays,
//! [`NarrowCols`] for its 16-bit tile columns, [`Segments`] for its
//! load-balance segments,
//! `visit::Search`/`visit::Pull` for the BFS parameter lists). The entry name is
//! spelled once, in the [`kernels!`] declaration that generates the function
//! and the family's `Entry` list (checked against the module table in this
//! module's tests).
//!
//! A launch function returns a [`Launch`] (the kernel and its arguments);
//! the caller picks the launch shape: [`Launch::run`] (a grid-stride grid for
//! a number of work items), [`Launch::grid`], [`Launch::shared`] or
//! [`Launch::resident`]. Only this layer builds the untyped argument lists
//! that [`Dev`] passes to the driver.

use std::marker::PhantomData;

use cudarc::driver::CudaFunction;

use super::device::{Arg, Dev, DevPtr};
use super::kernels::{semiring_instances, ModuleId, SrKey};
use super::mem::{no_kernel, seg_len, DevB2sr};
use crate::algebra::{Semiring, SemiringKind};
use crate::error::Result;
use crate::scalar::Scalar;

pub(crate) mod bits;
pub(crate) mod dense;
pub(crate) mod mat;
pub(crate) mod mxm;
pub(crate) mod pack;
pub(crate) mod push;
pub(crate) mod sr;
pub(crate) mod transpose;
pub(crate) mod vec;
pub(crate) mod visit;

/// Something a kernel takes as one or more arguments.
pub(crate) trait KernelArg {
    /// Appends the argument(s) in the kernel's order.
    fn push_to(self, args: &mut Vec<Arg>);
}

impl<T> KernelArg for DevPtr<T> {
    fn push_to(self, args: &mut Vec<Arg>) {
        args.push(Arg::U64(self.addr()));
    }
}

/// Scalars pass as themselves.
macro_rules! scalar_args {
    ($($t:ty => $v:ident),*) => {$(
        impl KernelArg for $t {
            fn push_to(self, args: &mut Vec<Arg>) {
                args.push(Arg::$v(self));
            }
        }
    )*};
}
scalar_args!(u64 => U64, u32 => U32, i32 => I32, i64 => I64);

/// Five arguments in order (argument groups push their fields this way).
impl<A: KernelArg, B: KernelArg, C: KernelArg, D: KernelArg, E: KernelArg> KernelArg
    for (A, B, C, D, E)
{
    fn push_to(self, args: &mut Vec<Arg>) {
        self.0.push_to(args);
        self.1.push_to(args);
        self.2.push_to(args);
        self.3.push_to(args);
        self.4.push_to(args);
    }
}

/// A flag: the kernels take `int` 0 or 1.
impl KernelArg for bool {
    fn push_to(self, args: &mut Vec<Arg>) {
        args.push(Arg::I32(self as i32));
    }
}

/// The three arrays of a B2SR pattern as kernels take them (`rowptr`,
/// `colidx`, `tiles`, or with a prefix: `a_rowptr, a_colidx, a_tiles`).
#[derive(Clone, Copy)]
pub(crate) struct Tiles {
    pub rowptr: DevPtr<u32>,
    pub colidx: DevPtr<u32>,
    pub tiles: DevPtr<u8>,
}

impl Tiles {
    /// A pattern's arrays (its 32-bit tile columns made first where it
    /// stores 16-bit ones).
    pub(crate) fn of(dev: &Dev, p: &DevB2sr) -> Result<Tiles> {
        Ok(Tiles {
            rowptr: p.rowptr.ptr(),
            colidx: p.colidx(dev)?.ptr(),
            tiles: p.tiles.ptr(),
        })
    }
    /// An optional pattern's arrays (NULL when absent).
    pub(crate) fn opt(dev: &Dev, p: Option<&DevB2sr>) -> Result<Tiles> {
        p.map_or(Ok(Tiles::null()), |p| Tiles::of(dev, p))
    }
    /// A pattern's arrays as stored: `colidx` NULL where the tile columns
    /// are in 16 bits ([`NarrowCols`] then holds them), for the kernels that
    /// read either form.
    pub(crate) fn stored(p: &DevB2sr) -> Tiles {
        Tiles {
            rowptr: p.rowptr.ptr(),
            colidx: p.stored_colidx(),
            tiles: p.tiles.ptr(),
        }
    }
    /// No pattern.
    pub(crate) fn null() -> Tiles {
        Tiles {
            rowptr: DevPtr::null(),
            colidx: DevPtr::null(),
            tiles: DevPtr::null(),
        }
    }
}

impl KernelArg for Tiles {
    fn push_to(self, args: &mut Vec<Arg>) {
        self.rowptr.push_to(args);
        self.colidx.push_to(args);
        self.tiles.push_to(args);
    }
}

/// A B2SR pattern's 16-bit tile columns as kernels take them (`cbase,
/// coffset, cescaped`; all NULL where the columns are stored in 32 bits):
/// see `cuda/columns.cuh`.
#[derive(Clone, Copy)]
pub(crate) struct NarrowCols {
    pub base: DevPtr<u32>,
    pub offset: DevPtr<u16>,
    pub escaped: DevPtr<u32>,
}

impl NarrowCols {
    /// A pattern's 16-bit tile columns (NULL where it has none).
    pub(crate) fn of(p: &DevB2sr) -> NarrowCols {
        match &p.narrow {
            Some(n) => NarrowCols {
                base: n.base.ptr(),
                offset: n.offset.ptr(),
                escaped: n.escaped.ptr(),
            },
            None => NarrowCols {
                base: DevPtr::null(),
                offset: DevPtr::null(),
                escaped: DevPtr::null(),
            },
        }
    }
}

impl KernelArg for NarrowCols {
    fn push_to(self, args: &mut Vec<Arg>) {
        self.base.push_to(args);
        self.offset.push_to(args);
        self.escaped.push_to(args);
    }
}

/// The load-balance segments of a B2SR pattern's long tile rows as kernels
/// take them (`seg_row, seg_off, nseg, seg_len`).
#[derive(Clone, Copy)]
pub(crate) struct Segments {
    pub seg_row: DevPtr<u32>,
    pub seg_off: DevPtr<u32>,
    pub nseg: u32,
    pub seg_len: u32,
}

impl Segments {
    /// A pattern's segments.
    pub(crate) fn of(p: &DevB2sr) -> Segments {
        Segments {
            seg_row: p.seg_row.ptr(),
            seg_off: p.seg_off.ptr(),
            nseg: p.nseg as u32,
            seg_len: seg_len(p.k),
        }
    }
}

impl KernelArg for Segments {
    fn push_to(self, args: &mut Vec<Arg>) {
        self.seg_row.push_to(args);
        self.seg_off.push_to(args);
        self.nseg.push_to(args);
        self.seg_len.push_to(args);
    }
}

/// A kernel entry point: its module, base name and tile size.
#[derive(Clone, Copy, Debug)]
struct Kernel {
    id: ModuleId,
    base: &'static str,
    k: Option<usize>,
}

/// A kernel with its arguments, ready to launch.
#[must_use = "a launch does nothing until it is run"]
pub(crate) struct Launch {
    kernel: Kernel,
    args: Vec<Arg>,
}

impl Launch {
    /// A launch of entry `base` (`_k<k>` where `k` is given) of module `id`
    /// (for [`kernels!`]).
    pub(crate) fn new(
        id: ModuleId,
        base: &'static str,
        k: Option<usize>,
        args: Vec<Arg>,
    ) -> Launch {
        Launch {
            kernel: Kernel { id, base, k },
            args,
        }
    }

    /// The compiled function (compiling its module at first use).
    pub(crate) fn func(&self, dev: &Dev) -> Result<CudaFunction> {
        dev.func(self.kernel.id, self.kernel.base, self.kernel.k)
    }

    /// Runs on a grid sized for `work` items ([`Dev::run`], grid-stride kernels).
    pub(crate) fn run(&self, dev: &Dev, work: usize) -> Result<()> {
        let Kernel { id, base, k } = self.kernel;
        dev.run(id, base, k, work, &self.args)
    }

    /// Runs on `grid` blocks of `block` threads ([`Dev::launch`]).
    pub(crate) fn grid(&self, dev: &Dev, grid: u32, block: u32) -> Result<()> {
        dev.launch(&self.func(dev)?, grid, block, &self.args)
    }

    /// Runs on `grid` blocks of `block` threads with `shared` bytes of
    /// dynamic shared memory ([`Dev::launch_shared`]).
    pub(crate) fn shared(&self, dev: &Dev, grid: u32, block: u32, shared: u32) -> Result<()> {
        dev.launch_shared(&self.func(dev)?, grid, block, shared, &self.args)
    }

    /// Runs cooperatively on every block of `block` threads the device holds
    /// at once ([`Dev::launch_resident`]).
    pub(crate) fn resident(&self, dev: &Dev, block: u32) -> Result<()> {
        dev.launch_resident(&self.func(dev)?, block, &self.args)
    }
}

/// The module `sr_<semiring>_<type>` of a semiring with element type `T`:
/// a built-in one, or a user semiring that gives its operators as source.
pub(crate) struct Sr<T> {
    key: SrKey,
    _t: PhantomData<fn() -> T>,
}

impl<T> Clone for Sr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Sr<T> {}

impl<T: Scalar> Sr<T> {
    /// The semiring module of `s`, or [`crate::Error::NoKernel`] for `op`
    /// where there is none (a user semiring without [`DeviceOps`], a
    /// built-in without an instance at this type).
    ///
    /// [`DeviceOps`]: crate::algebra::DeviceOps
    pub(crate) fn of<S: Semiring<T = T>>(s: &S, op: &'static str) -> Result<Sr<T>> {
        let key = match (S::KERNEL, s.device_ops()) {
            (Some(id), _) => {
                if !semiring_instances().contains(&(id.kind(), id.scalar_type())) {
                    return Err(no_kernel(op, format!("semiring {}", S::NAME)));
                }
                SrKey::Builtin(id.kind())
            }
            (None, Some(ops)) => SrKey::user(ops),
            (None, None) => {
                return Err(no_kernel(
                    op,
                    format!(
                        "user semiring {} without its operators as CUDA source \
                         (SemiringFrom::with_device_ops)",
                        S::NAME
                    ),
                ))
            }
        };
        Ok(Sr {
            key,
            _t: PhantomData,
        })
    }
    /// The built-in semiring family, `None` for a user semiring.
    pub(crate) fn kind(self) -> Option<SemiringKind> {
        self.key.kind()
    }
    /// The module.
    pub(crate) fn id(self) -> ModuleId {
        ModuleId::Sr(self.key, T::TYPE)
    }
    /// The dense-product module of the same semiring
    /// (`dense_mxm_<semiring>_<type>`).
    pub(crate) fn dense_mxm_id(self) -> ModuleId {
        ModuleId::DenseMxm(self.key, T::TYPE)
    }
    /// The push-product module of the same semiring (`push_<semiring>_<type>`).
    pub(crate) fn push(self) -> Push<T> {
        Push(self)
    }
}

/// The module `push_<semiring>_<type>` of a semiring.
pub(crate) struct Push<T>(Sr<T>);

impl<T> Clone for Push<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Push<T> {}

impl<T: Scalar> Push<T> {
    /// The module.
    pub(crate) fn id(self) -> ModuleId {
        ModuleId::Push(self.0.key, T::TYPE)
    }
}

/// Declares a family of kernels: a header `{ <T> (module params) => module id }`
/// (or without `<T>` for type-free modules), then one
/// `fn name[k](param: Type, ...);` per entry point (`[k]` for entries with a
/// tile size, which get `_k<k>`; the parameters those of the kernel). Makes
/// the family's `Entry` list and one function per kernel returning its
/// [`Launch`].
macro_rules! kernels {
    (
        $module:tt
        $(
            $(#[$doc:meta])*
            fn $name:ident $([$k:ident])? ( $($arg:ident : $aty:ty),* $(,)? );
        )*
    ) => {
        /// The entry points of this family (base names; tiled ones get `_k<k>`).
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub(crate) enum Entry {
            $( $(#[$doc])* $name, )*
        }

        impl Entry {
            /// Every entry point, with whether it has a tile size.
            #[cfg_attr(not(test), allow(dead_code))]
            pub(crate) const ALL: &'static [(Entry, bool)] =
                &[$((Entry::$name, $crate::backend::cuda::launch::kernels!(@tiled $($k)?)),)*];

            /// The base name of the entry point.
            pub(crate) fn name(self) -> &'static str {
                match self {
                    $(Entry::$name => stringify!($name),)*
                }
            }
        }

        $(
            $crate::backend::cuda::launch::kernels!(@fn $module [$(#[$doc])*] $name [$($k)?] ($($arg: $aty),*));
        )*
    };
    (@tiled) => { false };
    (@tiled $k:ident) => { true };
    (@k) => { None };
    (@k $k:ident) => { Some($k) };
    (@fn { $(<$T:ident>)? ($($mp:ident: $mty:ty),*) => $id:expr }
        [$(#[$doc:meta])*] $name:ident [$($k:ident)?] ($($arg:ident: $aty:ty),*)) => {
        $(#[$doc])*
        #[allow(clippy::too_many_arguments)]
        pub(crate) fn $name$(<$T: $crate::scalar::Scalar>)?(
            $($mp: $mty,)* $($k: usize,)? $($arg: $aty),*
        ) -> $crate::backend::cuda::launch::Launch {
            #[allow(unused_mut)]
            let mut args = Vec::new();
            $($crate::backend::cuda::launch::KernelArg::push_to($arg, &mut args);)*
            $crate::backend::cuda::launch::Launch::new(
                $id, Entry::$name.name(), $crate::backend::cuda::launch::kernels!(@k $($k)?), args)
        }
    };
}
pub(crate) use kernels;

#[cfg(test)]
mod tests {
    use super::super::kernels::{ModuleId, SrKey, TILE_KS};
    use crate::algebra::SemiringKind;
    use crate::scalar::ScalarType;

    /// Every entry a launch function names is an entry of its module (at
    /// some tile size where it has one).
    #[test]
    fn entries_are_in_the_module_table() {
        let t = ScalarType::F32;
        let sr = SrKey::Builtin(SemiringKind::PlusTimes);
        let families: [(ModuleId, Vec<(&str, bool)>); 13] = [
            (ModuleId::Pack, names(super::pack::Entry::ALL, |e| e.name())),
            (
                ModuleId::Vec(t),
                names(super::vec::Entry::ALL, |e| e.name()),
            ),
            (
                ModuleId::Mat(t),
                names(super::mat::Entry::ALL, |e| e.name()),
            ),
            (
                ModuleId::Sr(sr, t),
                names(super::sr::Entry::ALL, |e| e.name()),
            ),
            (
                ModuleId::Push(sr, t),
                names(super::push::Entry::ALL, |e| e.name()),
            ),
            (
                ModuleId::Transpose,
                names(super::transpose::Entry::ALL, |e| e.name()),
            ),
            (ModuleId::Mxm, names(super::mxm::Entry::ALL, |e| e.name())),
            (
                ModuleId::Visit,
                names(super::visit::Entry::ALL, |e| e.name()),
            ),
            (
                ModuleId::BitsConvert,
                names(super::bits::convert::Entry::ALL, |e| e.name()),
            ),
            (
                ModuleId::BitsBmm,
                names(super::bits::bmm::Entry::ALL, |e| e.name()),
            ),
            (
                ModuleId::BitsBspmm,
                names(super::bits::bspmm::Entry::ALL, |e| e.name()),
            ),
            (
                ModuleId::DenseMxm(sr, t),
                names(super::dense::mxm::Entry::ALL, |e| e.name()),
            ),
            (
                ModuleId::DenseRows,
                names(super::dense::rows::Entry::ALL, |e| e.name()),
            ),
        ];
        for (id, entries) in families {
            let spec = id.spec();
            for (base, tiled) in entries {
                let found = if tiled {
                    TILE_KS
                        .iter()
                        .any(|&k| spec.entries.contains(&id.entry(base, Some(k))))
                } else {
                    spec.entries.contains(&id.entry(base, None))
                };
                assert!(found, "{base} is not an entry of {}", spec.name);
            }
        }
    }

    fn names<E: Copy>(all: &[(E, bool)], name: fn(E) -> &'static str) -> Vec<(&'static str, bool)> {
        all.iter().map(|&(e, t)| (name(e), t)).collect()
    }
}
