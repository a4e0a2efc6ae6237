//! Four f64 lanes ([`F64x4`], [`Mask4`]), one per wheel, and the branch-free functions the
//! tyre model evaluates on them: [`atan4`] / [`atan4_batch`] and [`sin_cos4_quarter`],
//! polynomial versions within a few ulp of the library's.
//!
//! Why lanes: the Magic Formula's time is the latency of its atan chains, not its instruction
//! count, and four wheels side by side overlap those chains (see `tyre::mf61`). Lane results
//! are bit-identical to the portable reference on every run (tested).

use std::ops::Neg;

/// Four f64 lanes, one per wheel: the tyre model evaluates the four wheels side by side so
/// their independent chains (division, square root, polynomial) overlap. On x86-64 the lanes
/// are two SSE2 registers (SSE2 is part of the baseline target, so the intrinsics are always
/// there and safe to call), or one AVX register in a build for a CPU with AVX
/// (`-C target-cpu=x86-64-v3`, scripts/cpu-level.sh: half the instructions, since LLVM does
/// not merge the SSE2 pairs by itself); elsewhere, and as the reference the tests check the
/// registers against, four plain doubles (`portable_lanes`). Every operation is the scalar
/// IEEE operation lane by lane (the same bits as scalar code in the same order, whichever
/// registers hold the lanes); conditions are lane masks and [`F64x4::select`], never branches.
#[cfg(all(target_arch = "x86_64", target_feature = "avx"))]
pub use avx_lanes::{F64x4, Mask4};

#[cfg(all(
    target_arch = "x86_64",
    target_feature = "sse2",
    not(target_feature = "avx")
))]
pub use sse2_lanes::{F64x4, Mask4};

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
pub use portable_lanes::{F64x4, Mask4};

/// `fn NAME(a: REGISTER, b: REGISTER) -> REGISTER` for each two-operand intrinsic `NAME`
/// (`arch::NAME`, `arch` being the invoking module's `std::arch::x86_64`): the register
/// modules' safe wrappers; each module says why its calls are sound.
#[cfg(target_arch = "x86_64")]
macro_rules! register_binary {
    ($register:ty: $($name:ident),*) => {$(
        #[inline(always)]
        fn $name(a: $register, b: $register) -> $register {
            unsafe { arch::$name(a, b) }
        }
    )*};
}

/// Lanes in one AVX register (lane k in element k), for builds that enable AVX.
#[cfg(all(target_arch = "x86_64", target_feature = "avx"))]
mod avx_lanes {
    use std::arch::x86_64::{self as arch, __m256d};

    // SAFETY (every `unsafe` block in this module): these intrinsics need only AVX, which
    // this module is compiled for (`target_feature = "avx"`, enabled for the whole build),
    // and they only compute on registers (no memory access).
    register_binary!(
        __m256d:
        _mm256_add_pd,
        _mm256_and_pd,
        _mm256_andnot_pd,
        _mm256_div_pd,
        _mm256_max_pd,
        _mm256_min_pd,
        _mm256_mul_pd,
        _mm256_or_pd,
        _mm256_sub_pd,
        _mm256_xor_pd
    );

    /// Lane comparison with predicate `P` (ordered and quiet: false where a lane is NaN, as
    /// the SSE2 comparisons and f64's operators are).
    #[inline(always)]
    fn compare<const P: i32>(a: __m256d, b: __m256d) -> __m256d {
        unsafe { arch::_mm256_cmp_pd::<P>(a, b) }
    }

    #[inline(always)]
    fn sqrt_pd(a: __m256d) -> __m256d {
        unsafe { arch::_mm256_sqrt_pd(a) }
    }

    #[inline(always)]
    fn set1_pd(v: f64) -> __m256d {
        unsafe { arch::_mm256_set1_pd(v) }
    }

    /// Four f64 lanes (see the module's re-export).
    #[derive(Clone, Copy)]
    pub struct F64x4(__m256d);

    /// One all-ones or all-zeros lane per lane of an [`F64x4`].
    #[derive(Clone, Copy)]
    pub struct Mask4(__m256d);

    #[inline(always)]
    fn sign_bits() -> __m256d {
        set1_pd(-0.0)
    }

    impl F64x4 {
        /// Every lane `v`.
        #[inline(always)]
        pub fn splat(v: f64) -> F64x4 {
            F64x4(set1_pd(v))
        }

        /// Lanes from an array.
        #[inline(always)]
        pub fn from_array(a: [f64; 4]) -> F64x4 {
            F64x4(unsafe { arch::_mm256_set_pd(a[3], a[2], a[1], a[0]) })
        }

        /// The lanes as an array.
        #[inline(always)]
        pub fn to_array(self) -> [f64; 4] {
            let mut out = [0.0; 4];
            // SAFETY: `out` is four f64s, the 32 bytes the unaligned store writes.
            unsafe { arch::_mm256_storeu_pd(out.as_mut_ptr(), self.0) };
            out
        }

        pub(super) fn add(self, o: F64x4) -> F64x4 {
            F64x4(_mm256_add_pd(self.0, o.0))
        }

        pub(super) fn sub(self, o: F64x4) -> F64x4 {
            F64x4(_mm256_sub_pd(self.0, o.0))
        }

        pub(super) fn mul(self, o: F64x4) -> F64x4 {
            F64x4(_mm256_mul_pd(self.0, o.0))
        }

        pub(super) fn div(self, o: F64x4) -> F64x4 {
            F64x4(_mm256_div_pd(self.0, o.0))
        }

        pub(super) fn neg(self) -> F64x4 {
            F64x4(_mm256_xor_pd(self.0, sign_bits()))
        }

        /// |x| lane by lane.
        #[inline(always)]
        pub fn abs(self) -> F64x4 {
            F64x4(_mm256_andnot_pd(sign_bits(), self.0))
        }

        /// Square root lane by lane.
        #[inline(always)]
        pub fn sqrt(self) -> F64x4 {
            F64x4(sqrt_pd(self.0))
        }

        /// Lane-wise [`f64::min`] with a constant (a NaN lane gives `bound`, as there).
        #[inline(always)]
        pub fn min(self, bound: f64) -> F64x4 {
            // VMINPD returns its second operand when either is NaN.
            F64x4(_mm256_min_pd(self.0, set1_pd(bound)))
        }

        /// Lane-wise [`f64::max`] with a constant (a NaN lane gives `bound`, as there).
        #[inline(always)]
        pub fn max(self, bound: f64) -> F64x4 {
            // VMAXPD returns its second operand when either is NaN.
            F64x4(_mm256_max_pd(self.0, set1_pd(bound)))
        }

        /// Lane-wise [`f64::clamp`] (a NaN lane stays NaN, as there).
        #[inline(always)]
        pub fn clamp(self, lo: f64, hi: f64) -> F64x4 {
            let below = _mm256_min_pd(set1_pd(hi), self.0);
            F64x4(_mm256_max_pd(set1_pd(lo), below))
        }

        /// |self| with the sign of `sign`, lane by lane.
        #[inline(always)]
        pub fn copysign(self, sign: F64x4) -> F64x4 {
            F64x4(_mm256_or_pd(
                _mm256_andnot_pd(sign_bits(), self.0),
                _mm256_and_pd(sign_bits(), sign.0),
            ))
        }

        /// Lanes where `self < o`.
        #[inline(always)]
        pub fn less_than(self, o: F64x4) -> Mask4 {
            Mask4(compare::<{ arch::_CMP_LT_OQ }>(self.0, o.0))
        }

        /// Lanes where `self > o`.
        #[inline(always)]
        pub fn greater_than(self, o: F64x4) -> Mask4 {
            Mask4(compare::<{ arch::_CMP_GT_OQ }>(self.0, o.0))
        }

        /// Lanes where `self >= o`.
        #[inline(always)]
        pub fn at_least(self, o: F64x4) -> Mask4 {
            Mask4(compare::<{ arch::_CMP_GE_OQ }>(self.0, o.0))
        }

        /// Lanes where `self == o`.
        #[inline(always)]
        pub fn equal_to(self, o: F64x4) -> Mask4 {
            Mask4(compare::<{ arch::_CMP_EQ_OQ }>(self.0, o.0))
        }

        /// `if_true` where `mask` is set, else `if_false` (both already computed: a lane
        /// select, not a branch).
        #[inline(always)]
        pub fn select(mask: Mask4, if_true: F64x4, if_false: F64x4) -> F64x4 {
            F64x4(_mm256_or_pd(
                _mm256_and_pd(mask.0, if_true.0),
                _mm256_andnot_pd(mask.0, if_false.0),
            ))
        }

        /// `self` where `mask` is set, +0 elsewhere.
        #[inline(always)]
        pub fn where_set(self, mask: Mask4) -> F64x4 {
            F64x4(_mm256_and_pd(mask.0, self.0))
        }

        /// `self` where `mask` is clear, +0 elsewhere.
        #[inline(always)]
        pub fn where_clear(self, mask: Mask4) -> F64x4 {
            F64x4(_mm256_andnot_pd(mask.0, self.0))
        }
    }

    impl Mask4 {
        /// Lanes set in both masks.
        #[inline(always)]
        pub fn and(self, o: Mask4) -> Mask4 {
            Mask4(_mm256_and_pd(self.0, o.0))
        }
    }
}

/// Lanes in two SSE2 registers (lanes 0-1 in `lo`, 2-3 in `hi`).
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "sse2",
    not(target_feature = "avx")
))]
mod sse2_lanes {
    use std::arch::x86_64::{self as arch, __m128d};

    // SAFETY (every `unsafe` block in this module): these intrinsics need only SSE2, which
    // this module is compiled for (`target_feature = "sse2"`, part of the x86-64 baseline),
    // and they only compute on registers (no memory access).
    register_binary!(
        __m128d:
        _mm_add_pd,
        _mm_and_pd,
        _mm_andnot_pd,
        _mm_cmpeq_pd,
        _mm_cmpge_pd,
        _mm_cmpgt_pd,
        _mm_cmplt_pd,
        _mm_div_pd,
        _mm_max_pd,
        _mm_min_pd,
        _mm_mul_pd,
        _mm_or_pd,
        _mm_sub_pd,
        _mm_unpackhi_pd,
        _mm_xor_pd
    );

    #[inline(always)]
    fn _mm_sqrt_pd(a: __m128d) -> __m128d {
        unsafe { arch::_mm_sqrt_pd(a) }
    }

    #[inline(always)]
    fn _mm_set1_pd(v: f64) -> __m128d {
        unsafe { arch::_mm_set1_pd(v) }
    }

    #[inline(always)]
    fn _mm_set_pd(high: f64, low: f64) -> __m128d {
        unsafe { arch::_mm_set_pd(high, low) }
    }

    #[inline(always)]
    fn _mm_cvtsd_f64(a: __m128d) -> f64 {
        unsafe { arch::_mm_cvtsd_f64(a) }
    }

    /// Four f64 lanes (see the module's re-export).
    #[derive(Clone, Copy)]
    pub struct F64x4 {
        lo: __m128d,
        hi: __m128d,
    }

    /// One all-ones or all-zeros lane per lane of an [`F64x4`].
    #[derive(Clone, Copy)]
    pub struct Mask4 {
        lo: __m128d,
        hi: __m128d,
    }

    #[inline(always)]
    fn sign_bits() -> __m128d {
        _mm_set1_pd(-0.0)
    }

    impl F64x4 {
        /// Every lane `v`.
        #[inline(always)]
        pub fn splat(v: f64) -> F64x4 {
            let r = _mm_set1_pd(v);
            F64x4 { lo: r, hi: r }
        }

        /// Lanes from an array.
        #[inline(always)]
        pub fn from_array(a: [f64; 4]) -> F64x4 {
            F64x4 {
                lo: _mm_set_pd(a[1], a[0]),
                hi: _mm_set_pd(a[3], a[2]),
            }
        }

        /// The lanes as an array.
        #[inline(always)]
        pub fn to_array(self) -> [f64; 4] {
            let high = |r: __m128d| _mm_cvtsd_f64(_mm_unpackhi_pd(r, r));
            [
                _mm_cvtsd_f64(self.lo),
                high(self.lo),
                _mm_cvtsd_f64(self.hi),
                high(self.hi),
            ]
        }

        #[inline(always)]
        fn each(self, o: F64x4, f: impl Fn(__m128d, __m128d) -> __m128d) -> F64x4 {
            F64x4 {
                lo: f(self.lo, o.lo),
                hi: f(self.hi, o.hi),
            }
        }

        #[inline(always)]
        fn mask(self, o: F64x4, f: impl Fn(__m128d, __m128d) -> __m128d) -> Mask4 {
            Mask4 {
                lo: f(self.lo, o.lo),
                hi: f(self.hi, o.hi),
            }
        }

        pub(super) fn add(self, o: F64x4) -> F64x4 {
            self.each(o, _mm_add_pd)
        }

        pub(super) fn sub(self, o: F64x4) -> F64x4 {
            self.each(o, _mm_sub_pd)
        }

        pub(super) fn mul(self, o: F64x4) -> F64x4 {
            self.each(o, _mm_mul_pd)
        }

        pub(super) fn div(self, o: F64x4) -> F64x4 {
            self.each(o, _mm_div_pd)
        }

        pub(super) fn neg(self) -> F64x4 {
            self.each(self, |a, _| _mm_xor_pd(a, sign_bits()))
        }

        /// |x| lane by lane.
        #[inline(always)]
        pub fn abs(self) -> F64x4 {
            self.each(self, |a, _| _mm_andnot_pd(sign_bits(), a))
        }

        /// Square root lane by lane.
        #[inline(always)]
        pub fn sqrt(self) -> F64x4 {
            self.each(self, |a, _| _mm_sqrt_pd(a))
        }

        /// Lane-wise [`f64::min`] with a constant (a NaN lane gives `bound`, as there).
        #[inline(always)]
        pub fn min(self, bound: f64) -> F64x4 {
            // MINPD returns its second operand when either is NaN.
            self.each(F64x4::splat(bound), _mm_min_pd)
        }

        /// Lane-wise [`f64::max`] with a constant (a NaN lane gives `bound`, as there).
        #[inline(always)]
        pub fn max(self, bound: f64) -> F64x4 {
            // MAXPD returns its second operand when either is NaN.
            self.each(F64x4::splat(bound), _mm_max_pd)
        }

        /// Lane-wise [`f64::clamp`] (a NaN lane stays NaN, as there).
        #[inline(always)]
        pub fn clamp(self, lo: f64, hi: f64) -> F64x4 {
            let below = F64x4::splat(hi).each(self, _mm_min_pd);
            F64x4::splat(lo).each(below, _mm_max_pd)
        }

        /// |self| with the sign of `sign`, lane by lane.
        #[inline(always)]
        pub fn copysign(self, sign: F64x4) -> F64x4 {
            self.each(sign, |a, s| {
                _mm_or_pd(_mm_andnot_pd(sign_bits(), a), _mm_and_pd(sign_bits(), s))
            })
        }

        /// Lanes where `self < o`.
        #[inline(always)]
        pub fn less_than(self, o: F64x4) -> Mask4 {
            self.mask(o, _mm_cmplt_pd)
        }

        /// Lanes where `self > o`.
        #[inline(always)]
        pub fn greater_than(self, o: F64x4) -> Mask4 {
            self.mask(o, _mm_cmpgt_pd)
        }

        /// Lanes where `self >= o`.
        #[inline(always)]
        pub fn at_least(self, o: F64x4) -> Mask4 {
            self.mask(o, _mm_cmpge_pd)
        }

        /// Lanes where `self == o`.
        #[inline(always)]
        pub fn equal_to(self, o: F64x4) -> Mask4 {
            self.mask(o, _mm_cmpeq_pd)
        }

        /// `if_true` where `mask` is set, else `if_false` (both already computed: a lane
        /// select, not a branch).
        #[inline(always)]
        pub fn select(mask: Mask4, if_true: F64x4, if_false: F64x4) -> F64x4 {
            let pick = |m: __m128d, t: __m128d, f: __m128d| {
                _mm_or_pd(_mm_and_pd(m, t), _mm_andnot_pd(m, f))
            };
            F64x4 {
                lo: pick(mask.lo, if_true.lo, if_false.lo),
                hi: pick(mask.hi, if_true.hi, if_false.hi),
            }
        }
    }

    impl F64x4 {
        /// `self` where `mask` is set, +0 elsewhere.
        #[inline(always)]
        pub fn where_set(self, mask: Mask4) -> F64x4 {
            F64x4 {
                lo: _mm_and_pd(mask.lo, self.lo),
                hi: _mm_and_pd(mask.hi, self.hi),
            }
        }

        /// `self` where `mask` is clear, +0 elsewhere.
        #[inline(always)]
        pub fn where_clear(self, mask: Mask4) -> F64x4 {
            F64x4 {
                lo: _mm_andnot_pd(mask.lo, self.lo),
                hi: _mm_andnot_pd(mask.hi, self.hi),
            }
        }
    }

    impl Mask4 {
        /// Lanes set in both masks.
        #[inline(always)]
        pub fn and(self, o: Mask4) -> Mask4 {
            Mask4 {
                lo: _mm_and_pd(self.lo, o.lo),
                hi: _mm_and_pd(self.hi, o.hi),
            }
        }
    }
}

/// Lanes as four plain doubles: the implementation off x86-64 and, in the tests, the
/// reference for the SSE2 and AVX ones (same operations, same results to the bit).
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "sse2"))))]
mod portable_lanes {
    /// Four f64 lanes (see the module's re-export).
    #[derive(Clone, Copy)]
    pub struct F64x4([f64; 4]);

    /// One boolean per lane of an [`F64x4`].
    #[derive(Clone, Copy)]
    pub struct Mask4([bool; 4]);

    impl F64x4 {
        /// Every lane `v`.
        #[inline(always)]
        pub fn splat(v: f64) -> F64x4 {
            F64x4([v; 4])
        }

        /// Lanes from an array.
        #[inline(always)]
        pub fn from_array(a: [f64; 4]) -> F64x4 {
            F64x4(a)
        }

        /// The lanes as an array.
        #[inline(always)]
        pub fn to_array(self) -> [f64; 4] {
            self.0
        }

        #[inline(always)]
        fn each(self, o: F64x4, f: impl Fn(f64, f64) -> f64) -> F64x4 {
            F64x4(std::array::from_fn(|i| f(self.0[i], o.0[i])))
        }

        #[inline(always)]
        fn mask(self, o: F64x4, f: impl Fn(f64, f64) -> bool) -> Mask4 {
            Mask4(std::array::from_fn(|i| f(self.0[i], o.0[i])))
        }

        pub(super) fn add(self, o: F64x4) -> F64x4 {
            self.each(o, |a, b| a + b)
        }

        pub(super) fn sub(self, o: F64x4) -> F64x4 {
            self.each(o, |a, b| a - b)
        }

        pub(super) fn mul(self, o: F64x4) -> F64x4 {
            self.each(o, |a, b| a * b)
        }

        pub(super) fn div(self, o: F64x4) -> F64x4 {
            self.each(o, |a, b| a / b)
        }

        pub(super) fn neg(self) -> F64x4 {
            self.each(self, |a, _| -a)
        }

        /// |x| lane by lane.
        #[inline(always)]
        pub fn abs(self) -> F64x4 {
            self.each(self, |a, _| a.abs())
        }

        /// Square root lane by lane.
        #[inline(always)]
        pub fn sqrt(self) -> F64x4 {
            self.each(self, |a, _| a.sqrt())
        }

        /// Lane-wise [`f64::min`] with a constant.
        #[inline(always)]
        pub fn min(self, bound: f64) -> F64x4 {
            self.each(self, |a, _| a.min(bound))
        }

        /// Lane-wise [`f64::max`] with a constant.
        #[inline(always)]
        pub fn max(self, bound: f64) -> F64x4 {
            self.each(self, |a, _| a.max(bound))
        }

        /// Lane-wise [`f64::clamp`] (a NaN lane stays NaN).
        #[inline(always)]
        pub fn clamp(self, lo: f64, hi: f64) -> F64x4 {
            self.each(self, |a, _| a.clamp(lo, hi))
        }

        /// |self| with the sign of `sign`, lane by lane.
        #[inline(always)]
        pub fn copysign(self, sign: F64x4) -> F64x4 {
            self.each(sign, f64::copysign)
        }

        /// Lanes where `self < o`.
        #[inline(always)]
        pub fn less_than(self, o: F64x4) -> Mask4 {
            self.mask(o, |a, b| a < b)
        }

        /// Lanes where `self > o`.
        #[inline(always)]
        pub fn greater_than(self, o: F64x4) -> Mask4 {
            self.mask(o, |a, b| a > b)
        }

        /// Lanes where `self >= o`.
        #[inline(always)]
        pub fn at_least(self, o: F64x4) -> Mask4 {
            self.mask(o, |a, b| a >= b)
        }

        /// Lanes where `self == o`.
        #[inline(always)]
        pub fn equal_to(self, o: F64x4) -> Mask4 {
            self.mask(o, |a, b| a == b)
        }

        /// `if_true` where `mask` is set, else `if_false`.
        #[inline(always)]
        pub fn select(mask: Mask4, if_true: F64x4, if_false: F64x4) -> F64x4 {
            F64x4(std::array::from_fn(|i| {
                if mask.0[i] {
                    if_true.0[i]
                } else {
                    if_false.0[i]
                }
            }))
        }
    }

    impl F64x4 {
        /// `self` where `mask` is set, +0 elsewhere.
        #[inline(always)]
        pub fn where_set(self, mask: Mask4) -> F64x4 {
            F64x4::select(mask, self, F64x4::splat(0.0))
        }

        /// `self` where `mask` is clear, +0 elsewhere.
        #[inline(always)]
        pub fn where_clear(self, mask: Mask4) -> F64x4 {
            F64x4::select(mask, F64x4::splat(0.0), self)
        }
    }

    impl Mask4 {
        /// Lanes set in both masks.
        #[inline(always)]
        pub fn and(self, o: Mask4) -> Mask4 {
            Mask4(std::array::from_fn(|i| self.0[i] && o.0[i]))
        }
    }
}

/// The lanes' values, whichever registers hold them: `Debug` text is what the identity
/// digests hash (`identity::digest_of`), so it must not depend on the build's CPU level.
impl std::fmt::Debug for F64x4 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("F64x4").field(&self.to_array()).finish()
    }
}

/// Which lanes are set (see [`F64x4`]'s `Debug`).
impl std::fmt::Debug for Mask4 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let set = F64x4::splat(1.0)
            .where_set(*self)
            .to_array()
            .map(|v| v != 0.0);
        f.debug_tuple("Mask4").field(&set).finish()
    }
}

impl F64x4 {
    /// `f` applied to every lane (a scalar call per lane: for what has no lane form).
    #[inline(always)]
    pub fn map(self, f: impl Fn(f64) -> f64) -> F64x4 {
        let [a, b, c, d] = self.to_array();
        F64x4::from_array([f(a), f(b), f(c), f(d)])
    }
}

/// `+`, `-`, `*`, `/` between lanes, and between lanes and a scalar on either side.
macro_rules! lane_operator {
    ($trait:ident, $method:ident) => {
        impl std::ops::$trait for F64x4 {
            type Output = F64x4;
            #[inline(always)]
            fn $method(self, o: F64x4) -> F64x4 {
                F64x4::$method(self, o)
            }
        }
        impl std::ops::$trait<f64> for F64x4 {
            type Output = F64x4;
            #[inline(always)]
            fn $method(self, o: f64) -> F64x4 {
                F64x4::$method(self, F64x4::splat(o))
            }
        }
        impl std::ops::$trait<F64x4> for f64 {
            type Output = F64x4;
            #[inline(always)]
            fn $method(self, o: F64x4) -> F64x4 {
                F64x4::$method(F64x4::splat(self), o)
            }
        }
    };
}
lane_operator!(Add, add);
lane_operator!(Sub, sub);
lane_operator!(Mul, mul);
lane_operator!(Div, div);

impl Neg for F64x4 {
    type Output = F64x4;
    #[inline(always)]
    fn neg(self) -> F64x4 {
        F64x4::neg(self)
    }
}

/// tan(pi/8) and tan(3 pi/8): the bounds of [`atan4`]'s three reduction ranges.
const TAN_PI_8: f64 = 0.414_213_562_373_095_03;
const TAN_3PI_8: f64 = 2.414_213_562_373_095;
/// pi/4 as a double plus the rest (the range offsets of [`atan4`] are 0, 1 and 2 of it).
const PIO4_HI: f64 = std::f64::consts::FRAC_PI_4;
const PIO4_LO: f64 = 3.061_616_997_868_383e-17;
/// atan(u) = u + u z P(z), z = u^2, on |u| <= tan(pi/8): P's coefficients, a Chebyshev fit of
/// degree 10 in z (mpmath `chebyfit` at 60 digits, rounded to doubles; approximation error
/// below 1e-17 relative, so the total is a few ulp).
const ATAN_POLY: [f64; 11] = [
    -0.333_333_333_333_333_3,
    0.199_999_999_999_955_2,
    -0.142_857_142_846_665_42,
    0.111_111_110_152_563_61,
    -0.090_909_045_781_239_03,
    0.076_921_831_908_260_87,
    -0.066_645_114_473_819_48,
    0.058_581_489_128_022_1,
    -0.050_854_497_379_402_6,
    0.039_231_658_295_587_19,
    -0.019_176_887_119_062_26,
];

/// `[f(0), .., f(N - 1)]`: one lane operation for each of N groups (the batched functions'
/// building block).
#[inline(always)]
pub fn each<const N: usize>(f: impl FnMut(usize) -> F64x4) -> [F64x4; N] {
    std::array::from_fn(f)
}

/// atan of four lanes without branches or library calls, within a few ulp of the library
/// everywhere (module test: <= 1e-13 relative is the contract, a few 1e-16 is what it does).
/// See [`atan4_batch`].
#[inline(never)]
pub fn atan4(x: F64x4) -> F64x4 {
    let [angle] = atan4_batch([x]);
    angle
}

/// [`atan4`] of N groups of four lanes, written operation by operation across the groups so
/// their independent chains (a division, then an 11-term polynomial) are interleaved in one
/// instruction stream and overlap, instead of queueing one group behind the other.
/// Reduction by symmetry (odd) and one division onto |u| <= tan(pi/8):
/// |x| <= tan(pi/8): u = |x|; up to tan(3 pi/8): atan|x| = pi/4 + atan((|x| - 1) / (|x| + 1));
/// beyond: pi/2 + atan(-1 / |x|) (infinity gives pi/2 exactly); then the polynomial by
/// Estrin's scheme. NaN lanes stay NaN; -0 stays -0.
#[inline(never)]
pub fn atan4_batch<const N: usize>(x: [F64x4; N]) -> [F64x4; N] {
    let one = F64x4::splat(1.0);
    let a = x.map(F64x4::abs);
    // Masks instead of selects: `middle` is set in the upper two ranges, `high` in the top
    // one, so each term below is a masked constant or lane.
    let middle = a.map(|a| a.greater_than(F64x4::splat(TAN_PI_8)));
    let high = a.map(|a| a.greater_than(F64x4::splat(TAN_3PI_8)));
    // a, a - 1, -1 over 1, a + 1, a for the three ranges.
    let u = each::<N>(|i| {
        let numerator = a[i].where_clear(high[i]) - one.where_set(middle[i]);
        let denominator = a[i].where_set(middle[i]) + one.where_clear(high[i]);
        numerator / denominator
    });
    let z = u.map(|u| u * u);
    let z2 = z.map(|z| z * z);
    let z4 = z2.map(|z2| z2 * z2);
    let c = &ATAN_POLY;
    let pair = |k: usize| each::<N>(|i| c[k] + z[i] * c[k + 1]);
    let (p0, p2, p4, p6, p8) = (pair(0), pair(2), pair(4), pair(6), pair(8));
    let high_terms = each::<N>(|i| (p4[i] + z2[i] * p6[i]) + z4[i] * (p8[i] + z2[i] * c[10]));
    let p = each::<N>(|i| (p0[i] + z2[i] * p2[i]) + z4[i] * high_terms[i]);
    // 0, pi/4, pi/4 + pi/4 = pi/2 (exact doubling), each as double plus rest.
    each::<N>(|i| {
        let quarter_turns = |part: f64| {
            F64x4::splat(part).where_set(middle[i]) + F64x4::splat(part).where_set(high[i])
        };
        let angle = quarter_turns(PIO4_HI) + (u[i] + (u[i] * z[i] * p[i] + quarter_turns(PIO4_LO)));
        angle.copysign(x[i])
    })
}

/// sin(r) = r + r z S(z) and cos(r) = 1 - z/2 + z^2 C(z), z = r^2, on |r| <= pi/4: S's and
/// C's coefficients, Chebyshev fits of degree 5 in z (mpmath `chebyfit` at 60 digits, rounded
/// to doubles; approximation error below 2e-17).
const SIN_POLY: [f64; 6] = [
    -0.166_666_666_666_666_66,
    0.008_333_333_333_330_948,
    -0.000_198_412_698_367_585_74,
    2.755_731_610_255_244e-6,
    -2.505_113_184_500_362_4e-8,
    1.591_812_929_486_660_8e-10,
];
const COS_POLY: [f64; 6] = [
    0.041_666_666_666_666_664,
    -0.001_388_888_888_888_739_8,
    2.480_158_729_876_569e-5,
    -2.755_731_727_172_979_3e-7,
    2.087_614_626_840_32e-9,
    -1.138_263_242_552_171_7e-11,
];

/// Sine and cosine of four angles with |r| <= pi/4 (the polynomials above by Estrin's scheme;
/// within a couple of ulp of the library, module test; no reduction: larger angles lose
/// accuracy), for N groups side by side as in [`atan4_batch`].
#[inline(always)]
pub fn sin_cos4_quarter<const N: usize>(r: [F64x4; N]) -> [(F64x4, F64x4); N] {
    let z = r.map(|r| r * r);
    let z2 = z.map(|z| z * z);
    let z4 = z2.map(|z2| z2 * z2);
    let estrin = |c: &[f64; 6]| {
        let low = each::<N>(|i| (c[0] + z[i] * c[1]) + z2[i] * (c[2] + z[i] * c[3]));
        each::<N>(|i| low[i] + z4[i] * (c[4] + z[i] * c[5]))
    };
    let (s, c) = (estrin(&SIN_POLY), estrin(&COS_POLY));
    std::array::from_fn(|i| (r[i] + r[i] * z[i] * s[i], 1.0 - 0.5 * z[i] + z2[i] * c[i]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::tests::ulps;

    /// Relative error of `ours` against `reference` (absolute below 1e-300, where both are 0
    /// or subnormal).
    fn relative(ours: f64, reference: f64) -> f64 {
        (ours - reference).abs() / reference.abs().max(1e-300)
    }

    #[test]
    fn atan4_matches_the_library_within_1e13_relative_everywhere() {
        let mut points = vec![
            0.0,
            f64::MIN_POSITIVE,
            5e-324,
            1e-310,
            1e-200,
            1e-20,
            1e-8,
            0.1,
            1.0,
            1.0 - f64::EPSILON,
            1.0 + f64::EPSILON,
            TAN_PI_8,
            TAN_3PI_8,
            1e8,
            1e20,
            1e200,
            f64::MAX,
        ];
        for edge in [TAN_PI_8, TAN_3PI_8, 1.0, 0.1] {
            let bits = edge.to_bits();
            points
                .extend((0..64).flat_map(|k| [f64::from_bits(bits - k), f64::from_bits(bits + k)]));
        }
        // Logarithmic sweep over the whole positive range, and dense across the reductions.
        let mut x = 1e-320;
        while x < 1e308 {
            points.push(x);
            x *= 1.003;
        }
        points.extend((0..=400_000).map(|i| 4.0 * i as f64 / 400_000.0));
        let mut worst = 0.0f64;
        for chunk in points.chunks(2) {
            let lanes = [
                chunk[0],
                -chunk[0],
                chunk[chunk.len() - 1],
                -chunk[chunk.len() - 1],
            ];
            let ours = atan4(F64x4::from_array(lanes)).to_array();
            for (x, ours) in lanes.iter().zip(ours) {
                let reference = x.atan();
                worst = worst.max(relative(ours, reference));
                assert_eq!(
                    ours.is_sign_negative(),
                    x.is_sign_negative(),
                    "atan4({x:e}) sign"
                );
            }
        }
        // The contract is 1e-13; what the fit gives is a few ulp (catches a broken table).
        assert!(worst <= 1e-13, "worst relative error {worst:e}");
        assert!(
            worst <= 4.0 * f64::EPSILON,
            "worst relative error {worst:e}"
        );
        let half_pi = std::f64::consts::FRAC_PI_2;
        let special = atan4(F64x4::from_array([
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            -0.0,
        ]))
        .to_array();
        assert_eq!(special[0], half_pi);
        assert_eq!(special[1], -half_pi);
        assert!(special[2].is_nan());
        assert_eq!(special[3].to_bits(), (-0.0f64).to_bits());
    }

    #[test]
    fn quarter_turn_sin_cos4_match_the_library_within_a_few_ulps() {
        let n = 100_000;
        let mut worst = 0.0f64;
        let quarter = std::f64::consts::FRAC_PI_4;
        for i in 0..=n {
            let r = -quarter + 2.0 * quarter * i as f64 / n as f64;
            let lanes = [r, r * 0.5, r * 1e-3, r * 1e-9];
            let [(s, c)] = sin_cos4_quarter([F64x4::from_array(lanes)]);
            for ((r, s), c) in lanes.iter().zip(s.to_array()).zip(c.to_array()) {
                worst = worst.max(ulps(s, r.sin())).max(ulps(c, r.cos()));
            }
        }
        assert!(worst <= 2.0, "worst {worst} ulps");
    }

    /// The register lanes (SSE2, or AVX in a build for such a CPU) against the portable ones,
    /// operation by operation, on ordinary and special values (NaN, signed zeros,
    /// infinities, subnormals): the same bits.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[test]
    fn register_lanes_give_the_portable_lanes_bits() {
        use portable_lanes::F64x4 as Portable;
        let values = [
            0.0,
            -0.0,
            1.5,
            -2.25,
            1e-310,
            -3e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            0.1,
            7.0,
            -1e-3,
        ];
        let same = |ours: F64x4, reference: Portable, what: &str| {
            for (a, b) in ours.to_array().iter().zip(reference.to_array()) {
                assert!(
                    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                    "{what}: {a:e} vs {b:e}"
                );
            }
        };
        for a in values.windows(4) {
            for b in values.windows(4).rev() {
                let a = [a[0], a[1], a[2], a[3]];
                let b = [b[0], b[1], b[2], b[3]];
                let (x, y) = (F64x4::from_array(a), F64x4::from_array(b));
                let (p, q) = (Portable::from_array(a), Portable::from_array(b));
                same(x + y, p.add(q), "add");
                same(x - y, p.sub(q), "sub");
                same(x * y, p.mul(q), "mul");
                same(x / y, p.div(q), "div");
                same(-x, p.neg(), "neg");
                same(x.abs(), p.abs(), "abs");
                same(x.sqrt(), p.sqrt(), "sqrt");
                same(x.min(0.5), p.min(0.5), "min");
                same(x.max(0.5), p.max(0.5), "max");
                same(x.clamp(-1.0, 2.0), p.clamp(-1.0, 2.0), "clamp");
                same(x.copysign(y), p.copysign(q), "copysign");
                same(
                    x.map(f64::exp),
                    Portable::from_array(a.map(f64::exp)),
                    "map",
                );
                let masks = [
                    (x.less_than(y), p.less_than(q)),
                    (x.greater_than(y), p.greater_than(q)),
                    (x.at_least(y), p.at_least(q)),
                    (x.equal_to(y), p.equal_to(q)),
                ];
                for (m, pm) in masks {
                    same(F64x4::select(m, x, y), Portable::select(pm, p, q), "select");
                    same(x.where_set(m), p.where_set(pm), "where_set");
                    same(x.where_clear(m), p.where_clear(pm), "where_clear");
                    let both = m.and(x.less_than(F64x4::splat(1.0)));
                    let portable_both = pm.and(p.less_than(Portable::splat(1.0)));
                    same(
                        F64x4::select(both, x, y),
                        Portable::select(portable_both, p, q),
                        "and",
                    );
                }
            }
        }
    }
}
