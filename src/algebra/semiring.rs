//! Semirings: an additive [`Monoid`] and a multiplicative [`BinaryOp`].

use std::marker::PhantomData;

use super::binary::{
    Any, BinaryOp, BuiltinOp, First, Flipped, Land, Lor, Max, Min, Monoid, Pair, Plus, Second,
    Times,
};
use crate::scalar::{Scalar, ScalarType};

/// The built-in semiring families a backend may specialise.
///
/// ```
/// use bitgraphblas::algebra::{MinPlus, Semiring, SemiringKind};
/// let id = <MinPlus<f32> as Semiring>::KERNEL.unwrap();
/// assert_eq!(id.kind(), SemiringKind::MinPlus);
/// assert_eq!(id.kind().name(), "min_plus");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SemiringKind {
    /// `LOR.LAND` on bool: reachability.
    LorLand,
    /// `ANY.PAIR`: "is there any path", value 1.
    AnyPair,
    /// `PLUS.TIMES`: ordinary arithmetic.
    PlusTimes,
    /// `PLUS.PAIR`: counting (triangle counting, degrees).
    PlusPair,
    /// `MIN.PLUS`: tropical, shortest paths.
    MinPlus,
    /// `MAX.TIMES`: most reliable path.
    MaxTimes,
    /// `MIN.SECOND`: smallest neighbour value (parents in BFS, FastSV).
    MinSecond,
    /// `MIN.FIRST`: smallest matrix entry; `MIN.SECOND` with its operands
    /// swapped (`vxm` over `MIN.FIRST` is `mxv` on `A'` over `MIN.SECOND`).
    MinFirst,
    /// `MAX.MIN`: bottleneck paths.
    MaxMin,
}

impl SemiringKind {
    /// The snake-case family name (`"min_plus"`).
    pub fn name(self) -> &'static str {
        match self {
            SemiringKind::LorLand => "lor_land",
            SemiringKind::AnyPair => "any_pair",
            SemiringKind::PlusTimes => "plus_times",
            SemiringKind::PlusPair => "plus_pair",
            SemiringKind::MinPlus => "min_plus",
            SemiringKind::MaxTimes => "max_times",
            SemiringKind::MinSecond => "min_second",
            SemiringKind::MinFirst => "min_first",
            SemiringKind::MaxMin => "max_min",
        }
    }

    /// The family whose multiply takes its operands the other way round:
    /// `MIN.FIRST` and `MIN.SECOND` swap, the commutative ones stay.
    ///
    /// ```
    /// use bitgraphblas::algebra::SemiringKind;
    /// assert_eq!(SemiringKind::MinSecond.flipped(), SemiringKind::MinFirst);
    /// assert_eq!(SemiringKind::PlusTimes.flipped(), SemiringKind::PlusTimes);
    /// ```
    pub const fn flipped(self) -> Self {
        match self {
            SemiringKind::MinSecond => SemiringKind::MinFirst,
            SemiringKind::MinFirst => SemiringKind::MinSecond,
            k => k,
        }
    }
}

/// Identifies a built-in semiring at a given element type. Only this crate can
/// make one, so a user semiring can never claim a specialised kernel.
///
/// ```
/// use bitgraphblas::algebra::{Max, Plus, PlusTimes, Semiring, SemiringFrom};
/// use bitgraphblas::ScalarType;
/// let id = <PlusTimes<u64> as Semiring>::KERNEL.unwrap();
/// assert_eq!(id.scalar_type(), ScalarType::U64);
/// assert_eq!(<SemiringFrom<u64, Max, Plus> as Semiring>::KERNEL, None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KernelId {
    kind: SemiringKind,
    ty: ScalarType,
}

impl KernelId {
    pub(crate) const fn new(kind: SemiringKind, ty: ScalarType) -> Self {
        KernelId { kind, ty }
    }
    /// The semiring family.
    pub fn kind(self) -> SemiringKind {
        self.kind
    }
    /// The element type.
    pub fn scalar_type(self) -> ScalarType {
        self.ty
    }
}

/// A semiring over one element type `T`: `add` is a commutative monoid whose
/// identity is the value of absent entries, `mul` combines the left operand's
/// entry with the right one's, as in the GraphBLAS C API: `mul(a_ij, u_j)` in
/// `mxv`, `mul(u_i, a_ij)` in `vxm`, `mul(a_ik, b_kj)` in `mxm`.
///
/// ```
/// use bitgraphblas::algebra::{MinPlus, Semiring};
/// let s = MinPlus::<f32>::new();
/// assert_eq!(s.zero(), f32::INFINITY);
/// assert_eq!(s.add(3.0, 2.0), 2.0);
/// assert_eq!(s.mul(1.0, 2.0), 3.0);
/// ```
pub trait Semiring: Copy + Send + Sync {
    /// The element type of inputs and outputs.
    type T: Scalar;
    /// The additive monoid.
    type Add: Monoid<Self::T>;
    /// The multiplicative operator.
    type Mul: BinaryOp<Self::T>;
    /// Name used in errors, logs and benchmark ids (`"min_plus_fp32"`).
    const NAME: &'static str;
    /// The built-in identity of this semiring, `None` for user semirings.
    const KERNEL: Option<KernelId> = None;
    /// The additive monoid.
    fn add_op(&self) -> Self::Add;
    /// The multiplicative operator.
    fn mul_op(&self) -> Self::Mul;
    /// The additive identity.
    #[inline]
    fn zero(&self) -> Self::T {
        self.add_op().identity()
    }
    /// `a ⊕ b`.
    #[inline]
    fn add(&self, a: Self::T, b: Self::T) -> Self::T {
        self.add_op().apply(a, b)
    }
    /// `a ⊗ b`.
    #[inline]
    fn mul(&self, a: Self::T, b: Self::T) -> Self::T {
        self.mul_op().apply(a, b)
    }
    /// The additive terminal value, if any.
    #[inline]
    fn terminal(&self) -> Option<Self::T> {
        self.add_op().terminal()
    }
    /// The operators as CUDA source, for a GPU backend to compile into its
    /// kernel templates; `None` where there is none. Built-in semirings need
    /// none ([`Semiring::KERNEL`]). The default gives the built-in operators'
    /// own code where both `add` and `mul` are built-in operators (a user
    /// semiring such as `MIN.FIRST` or `PLUS.MINUS` from [`SemiringFrom`]),
    /// else `None`; a semiring on user operators supplies its source with
    /// [`SemiringFrom::with_device_ops`].
    #[inline]
    fn device_ops(&self) -> Option<DeviceOps> {
        builtin_device_ops::<Self::T, Self::Add, Self::Mul>()
    }
}

/// A user semiring's operators as CUDA C++ expressions, which the CUDA
/// backend compiles with NVRTC into the same kernel templates the built-in
/// semirings use (and caches like them). `add` and `mul` are expressions in
/// `x` and `y`, `zero` an expression for the additive identity, all of the
/// element type `T` (`bool`, `i32`, `u32`, `i64`, `u64`, `f32` or `f64` in
/// CUDA: the typedefs `i32`, `u32`, `i64`, `u64`, `f32`, `f64` are there).
/// `add` must be associative and commutative, as [`Monoid`] requires, and the
/// expressions must compute what the Rust operators do: the CUDA backend is
/// checked against the CPU backend, not against this text.
///
/// ```
/// use bitgraphblas::algebra::{DeviceOps, Max, Minus, Semiring, SemiringFrom};
/// // MAX.MINUS: w_i = max_j (a_ij - u_j).
/// let s = SemiringFrom::<i64, _, _>::new(Max, Minus)
///     .with_device_ops(DeviceOps::new("x > y ? x : y", "x - y", "(i64)(-9223372036854775807LL - 1)"));
/// assert_eq!(s.mul(7, 2), 5);
/// assert_eq!(s.device_ops().unwrap().mul(), "x - y");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DeviceOps {
    add: &'static str,
    mul: &'static str,
    zero: &'static str,
    mul_flipped: bool,
}

impl DeviceOps {
    /// The operators `x ⊕ y` and `x ⊗ y` and the identity of `⊕`.
    pub const fn new(add: &'static str, mul: &'static str, zero: &'static str) -> Self {
        DeviceOps {
            add,
            mul,
            zero,
            mul_flipped: false,
        }
    }
    /// The operators of built-in `add` (a monoid) and `mul`, as the CUDA
    /// backend's own operator code computes them (the same results as the
    /// Rust operators).
    ///
    /// ```
    /// use bitgraphblas::algebra::{BuiltinOp, DeviceOps};
    /// let ops = DeviceOps::of_builtin(BuiltinOp::Min, BuiltinOp::First);
    /// assert_eq!(ops.mul(), "binop<T>(OP_FIRST, x, y)");
    /// assert_eq!(ops.zero(), "identity_of<T>(OP_MIN)");
    /// ```
    pub fn of_builtin(add: BuiltinOp, mul: BuiltinOp) -> Self {
        DeviceOps::new(
            builtin_call(add).0,
            builtin_call(mul).0,
            builtin_call(add).1,
        )
    }
    /// `x ⊕ y`.
    pub fn add(&self) -> &'static str {
        self.add
    }
    /// `x ⊗ y` (before [`DeviceOps::mul_flipped`] applies).
    pub fn mul(&self) -> &'static str {
        self.mul
    }
    /// The identity of `⊕`.
    pub fn zero(&self) -> &'static str {
        self.zero
    }
    /// Whether `⊗` takes its operands the other way round (`y ⊗ x`), as
    /// [`FlippedSemiring`] asks.
    pub fn mul_flipped(&self) -> bool {
        self.mul_flipped
    }
    /// The same operators with `⊗`'s operands swapped.
    pub fn flipped(self) -> Self {
        DeviceOps {
            mul_flipped: !self.mul_flipped,
            ..self
        }
    }
}

/// A user-defined semiring from a monoid and an operator; always runs on the
/// generic path (even when both parts are built-in operators).
///
/// ```
/// use bitgraphblas::algebra::{Max, Plus, Semiring, SemiringFrom};
/// let max_plus = SemiringFrom::<i64, _, _>::new(Max, Plus);
/// assert_eq!(max_plus.add(2, 5), 5);
/// assert_eq!(max_plus.mul(2, 5), 7);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct SemiringFrom<T, A, M> {
    add: A,
    mul: M,
    device: Option<DeviceOps>,
    _t: PhantomData<fn() -> T>,
}

impl<T: Scalar, A: Monoid<T>, M: BinaryOp<T>> SemiringFrom<T, A, M> {
    /// Pairs an additive monoid with a multiplicative operator.
    pub fn new(add: A, mul: M) -> Self {
        SemiringFrom {
            add,
            mul,
            device: None,
            _t: PhantomData,
        }
    }

    /// The same semiring with its operators as CUDA source, so that it runs
    /// on the CUDA backend too (see [`DeviceOps`]); needed where `add` or
    /// `mul` is a user operator (built-in ones bring their own).
    pub fn with_device_ops(self, ops: DeviceOps) -> Self {
        SemiringFrom {
            device: Some(ops),
            ..self
        }
    }
}

impl<T: Scalar, A: Monoid<T>, M: BinaryOp<T>> Semiring for SemiringFrom<T, A, M> {
    type T = T;
    type Add = A;
    type Mul = M;
    const NAME: &'static str = "user";
    fn add_op(&self) -> A {
        self.add
    }
    fn mul_op(&self) -> M {
        self.mul
    }
    fn device_ops(&self) -> Option<DeviceOps> {
        self.device.or_else(builtin_device_ops::<T, A, M>)
    }
}

macro_rules! builtin_semiring {
    ($(#[$doc:meta])* $name:ident, $kind:ident, $add:ident, $mul:ident, $prefix:literal, [$($t:ty),*]) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name<T = f32>(PhantomData<fn() -> T>);
        impl<T> $name<T> {
            /// The semiring at element type `T`.
            pub const fn new() -> Self {
                $name(PhantomData)
            }
        }
        $(
            impl Semiring for $name<$t> {
                type T = $t;
                type Add = $add;
                type Mul = $mul;
                const NAME: &'static str = concat!($prefix, "_", stringify!($t));
                const KERNEL: Option<KernelId> =
                    Some(KernelId::new(SemiringKind::$kind, <$t as Scalar>::TYPE));
                #[inline] fn add_op(&self) -> $add { $add }
                #[inline] fn mul_op(&self) -> $mul { $mul }
            }
        )*
    };
}

builtin_semiring!(/// `PLUS.TIMES`: `w_i = Σ_j a_ij · u_j`; ordinary linear algebra.
    ///
    /// ```
    /// use bitgraphblas::{ops, algebra::PlusTimes, Cpu, Desc, Matrix, Vector};
    /// // A random walk on 0 <-> 1 that stays at 1 half the time.
    /// let p = Matrix::from_triplets(2, 2, vec![(0, 1, 1.0f64), (1, 0, 0.5), (1, 1, 0.5)])?;
    /// let x = Vector::from_dense(vec![0.5f64, 0.5]);
    /// let mut next = Vector::empty(2);
    /// ops::vxm(&Cpu::new(), &mut next, PlusTimes::<f64>::new(), &x, &p, &Desc::new())?;
    /// assert_eq!(next.to_vec(0.0), vec![0.25, 0.75]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    PlusTimes, PlusTimes, Plus, Times, "plus_times", [i32, u32, i64, u64, f32, f64]);
builtin_semiring!(/// `PLUS.PAIR`: `w_i` = number of `j` with both `a_ij` and `u_j` present
    /// (the values are ignored).
    ///
    /// ```
    /// use bitgraphblas::{ops, algebra::PlusPair, Cpu, Desc, Matrix, Vector};
    /// // How many neighbours of each vertex are in the set {1, 3}?
    /// let a = Matrix::from_triplets(4, 4, vec![(0, 1, 5u32), (0, 2, 6), (0, 3, 8), (2, 3, 4)])?;
    /// let set = Vector::from_entries(4, vec![(1, 70u32), (3, 90)])?;
    /// let mut w = Vector::empty(4);
    /// ops::mxv(&Cpu::new(), &mut w, PlusPair::<u32>::new(), &a, &set, &Desc::new())?;
    /// assert_eq!(w.entries(), vec![(0, 2), (2, 1)]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    PlusPair, PlusPair, Plus, Pair, "plus_pair", [i32, u32, i64, u64, f32, f64]);
builtin_semiring!(/// `MIN.PLUS`: `w_i = min_j (a_ij + u_j)`; shortest paths.
    ///
    /// ```
    /// use bitgraphblas::{ops, algebra::{Min, MinPlus}, Cpu, Desc, Matrix, Vector};
    /// // 0 -> 2 costs 5 directly, 1 + 2 through vertex 1.
    /// let a = Matrix::from_triplets(3, 3, vec![(0, 1, 1.0f32), (1, 2, 2.0), (0, 2, 5.0)])?;
    /// let mut dist = Vector::from_entries(3, vec![(0, 0.0f32)])?;
    /// for _ in 0..2 {
    ///     let d = dist.clone(); // dist = min(dist, dist A)
    ///     ops::vxm(&Cpu::new(), &mut dist, MinPlus::<f32>::new(), &d, &a, &Desc::new().accum(Min))?;
    /// }
    /// assert_eq!(dist.to_vec(f32::INFINITY), vec![0.0, 1.0, 3.0]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    MinPlus, MinPlus, Min, Plus, "min_plus", [i32, u32, i64, u64, f32, f64]);
builtin_semiring!(/// `MAX.TIMES`: `w_i = max_j (a_ij · u_j)`. Unsigned and float types only,
    /// where the identity (0 or -inf) behaves.
    ///
    /// ```
    /// use bitgraphblas::{ops, algebra::MaxTimes, Cpu, Desc, Matrix};
    /// // Edge values are success probabilities; two routes 0 -> 2 in two hops.
    /// let e = vec![(0, 1, 0.75f64), (1, 2, 0.75), (0, 3, 0.5), (3, 2, 1.0)];
    /// let a = Matrix::from_triplets(4, 4, e)?;
    /// let mut two_hop = Matrix::empty(4, 4);
    /// ops::mxm(&Cpu::new(), &mut two_hop, MaxTimes::<f64>::new(), &a, &a, &Desc::new())?;
    /// assert_eq!(two_hop.get(0, 2), Some(0.5625)); // 0.75 * 0.75 beats 0.5 * 1.0
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    MaxTimes, MaxTimes, Max, Times, "max_times", [u32, u64, f32, f64]);
builtin_semiring!(/// `MIN.SECOND`: `w_i = min_j u_j` over the neighbours `j` of `i`.
    ///
    /// ```
    /// use bitgraphblas::{ops, algebra::MinSecond, Cpu, Desc, Matrix, Vector};
    /// // Label propagation on the path 1 - 2 - 3 (vertex 0 is isolated).
    /// let e = vec![(1, 2, 1u64), (2, 1, 1), (2, 3, 1), (3, 2, 1)];
    /// let a = Matrix::from_triplets(4, 4, e)?;
    /// let labels = Vector::from_dense(vec![0u64, 1, 2, 3]);
    /// let mut w = Vector::empty(4);
    /// ops::mxv(&Cpu::new(), &mut w, MinSecond::<u64>::new(), &a, &labels, &Desc::new())?;
    /// assert_eq!(w.entries(), vec![(1, 2), (2, 1), (3, 2)]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    MinSecond, MinSecond, Min, Second, "min_second", [i32, u32, i64, u64, f32, f64]);
builtin_semiring!(/// `MIN.FIRST`: `w_i = min_j a_ij` over the `j` where `u_j` is present in
    /// `mxv`; in `vxm` (`w_j = min_i u_i` over the `i` with `a_ij` present) it
    /// carries the vector's values along the edges: parents in a pushed BFS.
    ///
    /// ```
    /// use bitgraphblas::{ops, algebra::MinFirst, Cpu, Desc, Matrix, Vector};
    /// // Edges 0 -> 2 and 1 -> 2; the frontier {0, 1} holds its own ids.
    /// let a = Matrix::from_triplets(3, 3, vec![(0, 2, 1u64), (1, 2, 1)])?;
    /// let frontier = Vector::from_entries(3, vec![(0, 0u64), (1, 1)])?;
    /// let mut parent = Vector::empty(3);
    /// ops::vxm(&Cpu::new(), &mut parent, MinFirst::<u64>::new(), &frontier, &a, &Desc::new())?;
    /// assert_eq!(parent.entries(), vec![(2, 0)]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    MinFirst, MinFirst, Min, First, "min_first", [i32, u32, i64, u64, f32, f64]);
builtin_semiring!(/// `MAX.MIN`: `w_i = max_j min(a_ij, u_j)`; bottleneck (widest) paths.
    ///
    /// ```
    /// use bitgraphblas::{ops, algebra::MaxMin, Cpu, Desc, Matrix, Vector};
    /// // Capacities: 0 -> 1 -> 2 carries min(5, 3), 0 -> 3 -> 2 carries min(2, 9).
    /// let a = Matrix::from_triplets(4, 4, vec![(0, 1, 5u32), (1, 2, 3), (0, 3, 2), (3, 2, 9)])?;
    /// let source = Vector::from_entries(4, vec![(0, u32::MAX)])?;
    /// let (cpu, mut one, mut two) = (Cpu::new(), Vector::empty(4), Vector::empty(4));
    /// ops::vxm(&cpu, &mut one, MaxMin::<u32>::new(), &source, &a, &Desc::new())?;
    /// ops::vxm(&cpu, &mut two, MaxMin::<u32>::new(), &one, &a, &Desc::new())?;
    /// assert_eq!(two.get(2), Some(3));
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    MaxMin, MaxMin, Max, Min, "max_min", [i32, u32, i64, u64, f32, f64]);
builtin_semiring!(/// `ANY.PAIR`: `w_i = 1` wherever some `j` has both `a_ij` and `u_j`;
    /// reachability at any element type, and a reduction may stop at the first `j`.
    ///
    /// ```
    /// use bitgraphblas::{ops, algebra::AnyPair, Cpu, Desc, Matrix, Vector};
    /// let a = Matrix::from_triplets(3, 3, vec![(0, 1, 4.0f32), (0, 2, 9.0), (2, 2, 3.0)])?;
    /// let u = Vector::from_entries(3, vec![(1, 0.5f32), (2, 7.0)])?;
    /// let mut w = Vector::empty(3);
    /// ops::mxv(&Cpu::new(), &mut w, AnyPair::<f32>::new(), &a, &u, &Desc::new())?;
    /// assert_eq!(w.entries(), vec![(0, 1.0), (2, 1.0)]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    AnyPair, AnyPair, Any, Pair, "any_pair", [bool, i32, u32, i64, u64, f32, f64]);

/// `LOR.LAND` on bool: `w_i = ∨_j (a_ij ∧ u_j)`; the reachability semiring,
/// and the one the B2SR bit kernels are built for.
///
/// ```
/// use bitgraphblas::{ops, algebra::LorLand, Cpu, Desc, Format, Matrix, TileSize, Vector};
/// let a = Matrix::from_triplets(3, 3, vec![(0, 1, true), (1, 2, true), (2, 2, true)])?
///     .to_format(Format::B2sr(TileSize::T8))?;
/// let target = Vector::from_entries(3, vec![(2, true)])?;
/// let mut w = Vector::empty(3);
/// // Pull: the vertices with an edge into vertex 2.
/// ops::mxv(&Cpu::new(), &mut w, LorLand, &a, &target, &Desc::new())?;
/// assert_eq!(w.entries(), vec![(1, true), (2, true)]);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LorLand;

impl Semiring for LorLand {
    type T = bool;
    type Add = Lor;
    type Mul = Land;
    const NAME: &'static str = "lor_land_bool";
    const KERNEL: Option<KernelId> = Some(KernelId::new(SemiringKind::LorLand, ScalarType::Bool));
    #[inline]
    fn add_op(&self) -> Lor {
        Lor
    }
    #[inline]
    fn mul_op(&self) -> Land {
        Land
    }
}

/// A semiring with its multiply's operands swapped: `⊗'(x, y) = ⊗(y, x)`, the
/// same monoid. `u ⊕.⊗ A` equals `A' ⊕.⊗' u`, which is how `vxm` runs as an
/// `mxv` on the transpose; a built-in semiring keeps a built-in kernel
/// ([`SemiringKind::flipped`]).
///
/// ```
/// use bitgraphblas::algebra::{FlippedSemiring, MinFirst, MinSecond, Semiring};
/// let s = FlippedSemiring(MinSecond::<u32>::new());
/// assert_eq!(s.mul(3, 8), 3); // SECOND(8, 3)
/// assert_eq!(<FlippedSemiring<MinSecond<u32>> as Semiring>::KERNEL, <MinFirst<u32> as Semiring>::KERNEL);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FlippedSemiring<S>(pub S);

impl<S: Semiring> Semiring for FlippedSemiring<S> {
    type T = S::T;
    type Add = S::Add;
    type Mul = Flipped<S::Mul>;
    const NAME: &'static str = S::NAME;
    const KERNEL: Option<KernelId> = match S::KERNEL {
        Some(id) => Some(KernelId::new(id.kind.flipped(), id.ty)),
        None => None,
    };
    #[inline]
    fn add_op(&self) -> S::Add {
        self.0.add_op()
    }
    #[inline]
    fn mul_op(&self) -> Flipped<S::Mul> {
        Flipped(self.0.mul_op())
    }
    #[inline]
    fn terminal(&self) -> Option<S::T> {
        self.0.terminal()
    }
    #[inline]
    fn device_ops(&self) -> Option<DeviceOps> {
        self.0.device_ops().map(DeviceOps::flipped)
    }
}

/// The device operators of a semiring whose `add` and `mul` are built-in.
fn builtin_device_ops<T: Scalar, A: BinaryOp<T>, M: BinaryOp<T>>() -> Option<DeviceOps> {
    Some(DeviceOps::of_builtin(A::BUILTIN?, M::BUILTIN?))
}

/// A built-in operator applied to `x` and `y`, and its identity as a monoid,
/// in the CUDA backend's operator code (`cuda/common.cuh`).
fn builtin_call(op: BuiltinOp) -> (&'static str, &'static str) {
    macro_rules! calls {
        ($($op:ident => $code:literal),*) => {
            match op {
                $(BuiltinOp::$op => (
                    concat!("binop<T>(", $code, ", x, y)"),
                    concat!("identity_of<T>(", $code, ")"),
                ),)*
            }
        };
    }
    calls!(Plus => "OP_PLUS", Minus => "OP_MINUS", Times => "OP_TIMES", Div => "OP_DIV",
        Min => "OP_MIN", Max => "OP_MAX", Lor => "OP_LOR", Land => "OP_LAND", Lxor => "OP_LXOR",
        First => "OP_FIRST", Second => "OP_SECOND", Pair => "OP_PAIR", Any => "OP_ANY",
        AbsDiff => "OP_ABSDIFF")
}
