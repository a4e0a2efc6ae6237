//! Four f64 lanes in one 256-bit AVX register ([`Avx4`]): the lane type of the AVX copies of
//! the hot batches ([`super::atan4_batch`], `sin_cos4_batch` in `tyre::mf61`), which take and
//! return [`F64x4`] and work in this type in between. Each operation is the same IEEE
//! operation per lane as [`F64x4`]'s (same operand order for min/max, so the same NaN
//! results): the same bits, one instruction for four lanes instead of two.
//!
//! Only for code compiled with AVX on a CPU that has it: the methods are inlined into the
//! `#[target_feature(enable = "avx")]` copies, which run only after
//! [`super::avx_available`] found AVX. Crate-private; nothing else may use the type.

use super::{F64x4, Lanes};
use std::arch::x86_64::{self as arch, __m256d};

/// Four f64 lanes in one AVX register (see the module header).
#[derive(Clone, Copy)]
pub(crate) struct Avx4(__m256d);

/// One all-ones or all-zeros lane per lane of an [`Avx4`].
#[derive(Clone, Copy)]
pub(crate) struct AvxMask(__m256d);

// SAFETY (every `unsafe` block below): AVX intrinsics, computing on registers only; this
// module's functions run only inlined into functions compiled with AVX, which are called
// only after `avx_available()` found AVX on the CPU (module header).
#[inline(always)]
fn splat(v: f64) -> __m256d {
    unsafe { arch::_mm256_set1_pd(v) }
}

#[inline(always)]
fn sign_bits() -> __m256d {
    splat(-0.0)
}

impl Lanes for Avx4 {
    type Mask = AvxMask;

    #[inline(always)]
    fn splat(v: f64) -> Avx4 {
        Avx4(splat(v))
    }

    #[inline(always)]
    fn from_lanes(x: F64x4) -> Avx4 {
        let (lo, hi) = x.halves();
        Avx4(unsafe { arch::_mm256_set_m128d(hi, lo) })
    }

    #[inline(always)]
    fn to_lanes(self) -> F64x4 {
        unsafe {
            F64x4::from_halves(
                arch::_mm256_castpd256_pd128(self.0),
                arch::_mm256_extractf128_pd::<1>(self.0),
            )
        }
    }

    #[inline(always)]
    fn abs(self) -> Avx4 {
        Avx4(unsafe { arch::_mm256_andnot_pd(sign_bits(), self.0) })
    }

    #[inline(always)]
    fn sqrt(self) -> Avx4 {
        Avx4(unsafe { arch::_mm256_sqrt_pd(self.0) })
    }

    #[inline(always)]
    fn clamp(self, lo: f64, hi: f64) -> Avx4 {
        // As F64x4::clamp: min(hi, x) then max(lo, .), so a NaN lane stays NaN.
        unsafe {
            let below = arch::_mm256_min_pd(splat(hi), self.0);
            Avx4(arch::_mm256_max_pd(splat(lo), below))
        }
    }

    #[inline(always)]
    fn copysign(self, sign: Avx4) -> Avx4 {
        unsafe {
            let magnitude = arch::_mm256_andnot_pd(sign_bits(), self.0);
            Avx4(arch::_mm256_or_pd(magnitude, arch::_mm256_and_pd(sign_bits(), sign.0)))
        }
    }

    #[inline(always)]
    fn greater_than(self, o: Avx4) -> AvxMask {
        // Ordered: false where either lane is NaN, as SSE2's CMPGTPD.
        AvxMask(unsafe { arch::_mm256_cmp_pd::<{ arch::_CMP_GT_OQ }>(self.0, o.0) })
    }

    #[inline(always)]
    fn where_set(self, mask: AvxMask) -> Avx4 {
        Avx4(unsafe { arch::_mm256_and_pd(mask.0, self.0) })
    }

    #[inline(always)]
    fn where_clear(self, mask: AvxMask) -> Avx4 {
        Avx4(unsafe { arch::_mm256_andnot_pd(mask.0, self.0) })
    }
}

/// `+`, `-`, `*`, `/` between lanes and between lanes and a scalar on either side (the
/// scalar splat first, as [`F64x4`]'s operators do).
macro_rules! avx_operator {
    ($trait:ident, $method:ident, $intrinsic:ident) => {
        impl std::ops::$trait for Avx4 {
            type Output = Avx4;
            #[inline(always)]
            fn $method(self, o: Avx4) -> Avx4 {
                Avx4(unsafe { arch::$intrinsic(self.0, o.0) })
            }
        }
        impl std::ops::$trait<f64> for Avx4 {
            type Output = Avx4;
            #[inline(always)]
            fn $method(self, o: f64) -> Avx4 {
                Avx4(unsafe { arch::$intrinsic(self.0, splat(o)) })
            }
        }
        impl std::ops::$trait<Avx4> for f64 {
            type Output = Avx4;
            #[inline(always)]
            fn $method(self, o: Avx4) -> Avx4 {
                Avx4(unsafe { arch::$intrinsic(splat(self), o.0) })
            }
        }
    };
}
avx_operator!(Add, add, _mm256_add_pd);
avx_operator!(Sub, sub, _mm256_sub_pd);
avx_operator!(Mul, mul, _mm256_mul_pd);
avx_operator!(Div, div, _mm256_div_pd);
