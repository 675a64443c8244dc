/*
 * Internal: the table-driven trig kernels as static inline functions, so that the solvers can
 * interleave them with their own arithmetic. Public entry points are in pik_trig.c.
 * The solvers call the kernels of their own precision through pik_sincos_r, pik_atan2_r,
 * pik_atan2_unit_r and PIK_ATAN2 (out of line), defined at the end.
 *
 * Contract of every kernel, for ANY input (defence in depth: a caller bug must never become an
 * out-of-bounds table read or undefined behaviour, e.g. a NaN or huge value converted to int):
 *   - a table index is formed only from a value proven to be in range; NaN, infinities and
 *     out-of-range magnitudes take a libm path before any conversion to an integer;
 *   - sin/cos: finite results for every finite argument, NaN for NaN and infinities (libm);
 *   - atan2 and the unit atan2: a finite angle in [-pi, pi] for every finite input (and for
 *     infinities, as libm's atan2), NaN when an input is NaN. The unit variants are accurate for
 *     (near-)unit vectors only; a vector far from unit length (|(s, c)|^2 outside [1/2, 2], as
 *     a singular configuration can produce) gets the general atan2's exact angle instead.
 * These checks are predicted-not-taken branches off the critical path; results for in-range
 * inputs are bit-identical to the kernels without them.
 */
#ifndef PIK_TRIG_IMPL_H
#define PIK_TRIG_IMPL_H

#include "pik_math.h"
#include "piperik/pik_trig.h"

/* 256 / (2 pi), and 2 pi / 256 split as STEP_HI + STEP_LO with STEP_HI holding 32 significant bits so
 * that k * STEP_HI is exact for |k| < 2^20 (Cody-Waite). tables/gen_trig_tables.py --check verifies
 * these literals against its own. */
#define PIK_STEP_INV 40.74366543152521
#define PIK_STEP_HI 0.024543692605220713
#define PIK_STEP_LO 9.495469541415925e-13
#define PIK_STEP_INV_F32 40.74366543152521f
#define PIK_STEP_HI_F32 0.0245361328125f
#define PIK_STEP_LO_F32 7.559793630207423e-06f

#define PIK_PI_2_HI 1.5707963267948966
#define PIK_PI_2_LO 6.123233995736766e-17
#define PIK_PI_HI 3.141592653589793
#define PIK_PI_LO 1.2246467991473532e-16
/* pi/2 and pi as float hi + lo (hi is the float nearest, lo the float nearest the remainder). */
#define PIK_PI_2_HI_F32 1.5707963705062866f
#define PIK_PI_2_LO_F32 -4.371138828673793e-08f
#define PIK_PI_HI_F32 3.1415927410125732f
#define PIK_PI_LO_F32 -8.742277657347586e-08f

#if PIK_USE_LIBM

static inline void pik_sincos_inline(double x_rad, double *sin_out, double *cos_out)
{
    *sin_out = sin(x_rad);
    *cos_out = cos(x_rad);
}

static inline double pik_atan2_inline(double y, double x) { return atan2(y, x); }

static inline double pik_atan2_unit_inline(double s, double c) { return atan2(s, c); }

static inline void pik_sincosf_inline(float x_rad, float *sin_out, float *cos_out)
{
    *sin_out = sinf(x_rad);
    *cos_out = cosf(x_rad);
}

static inline float pik_atan2f_inline(float y, float x) { return atan2f(y, x); }

static inline float pik_atan2f_unit_inline(float s, float c) { return atan2f(s, c); }

#else

/*
 * The range test of the unit atan2 kernels: true when n2 = s^2 + c^2 is outside [lo, hi] (or
 * NaN, an input being NaN or infinite), except for the zero vector. In range, mn <= |(s, c)| /
 * sqrt(2) <= 1, so the table index estimate is at most 1.21275 * 256/(2 pi) + 0.5 < 50 (of 256
 * grid points) and the residual |sd| <= 2 keeps every term finite. The zero vector (+-0, +-0), a
 * degenerate direction, stays on the table path (index 0) and keeps its old result, +-0; any
 * other small vector, even one whose n2 underflows, gets the general kernel's exact angle.
 */
#if defined(__GNUC__)
#define PIK_COLD __attribute__((noinline, cold, unused))
#else
#define PIK_COLD
#endif

#define PIK_UNIT_OUT_OF_RANGE(n2, s, c, lo, hi) (!((n2) <= (hi)) || ((n2) < (lo) && ((s) != 0 || (c) != 0)))

/* The kernels of both precisions from one template (pik_trig_kernels.h, which undefines these). */
#define PIK_TK_T double
#define PIK_TK_FN(name) name
#define PIK_TK_K(base, tail) pik_##base##tail
#define PIK_TK_LIT(x) x
#define PIK_TK_C(name) name
#define PIK_TK_SINCOS_TABLE pik_sincos_table
#define PIK_TK_ATAN_TABLE pik_atan_table
#define PIK_TK_TABLE_MAX_ARG PIK_TRIG_TABLE_MAX_ARG
#define PIK_TK_MAX 1.7976931348623157e308
/* z^9/9 (|z| <= 1/128) is below 1e-20. */
#define PIK_TK_ATAN_POLY(z2) (-1.0 / 3.0 + (z2) * (1.0 / 5.0 - (z2) * (1.0 / 7.0)))
/* series to the 7th power: the next term is below 2e-18 (|s| <= 0.0154). */
#define PIK_TK_ASIN_POLY(s2) (1.0 / 6.0 + (s2) * (3.0 / 40.0 + (s2) * (5.0 / 112.0)))
#include "pik_trig_kernels.h"

/* Float: the table path for |x_rad| <= PIK_SINCOSF_TABLE_MAX_ARG (k * STEP_HI_F32 is exact below
 * 2^12 steps, about 100 rad). The atan2's z^5/5 (|z| <= 1/128) is below 6e-12, so its series stops
 * at z^3: error <= 3e-7 (measured by csrc/tests/test_core.c: about one float ulp of pi, from the
 * final rounding); the unit kernel's residual series stops at s^5 (the next term is below 1e-14). */
#define PIK_SINCOSF_TABLE_MAX_ARG (4096.0f * PIK_STEP_HI_F32)
#define PIK_TK_T float
#define PIK_TK_FN(name) name##f
#define PIK_TK_K(base, tail) pik_##base##f##tail
#define PIK_TK_LIT(x) x##f
#define PIK_TK_C(name) name##_F32
#define PIK_TK_SINCOS_TABLE pik_sincos_table_f32
#define PIK_TK_ATAN_TABLE pik_atan_table_f32
#define PIK_TK_TABLE_MAX_ARG PIK_SINCOSF_TABLE_MAX_ARG
#define PIK_TK_MAX FLT_MAX
#define PIK_TK_ATAN_POLY(z2) (-1.0f / 3.0f)
#define PIK_TK_ASIN_POLY(s2) (1.0f / 6.0f + (s2) * (3.0f / 40.0f))
#include "pik_trig_kernels.h"

#if defined(__GNUC__) && !defined(PIK_NO_VECTOR_EXT) && !PIK_FLOAT && (defined(__SSE2__) || defined(__aarch64__))
/* Two lanes of pik_atan2_unit_inline with GCC/Clang vector extensions (SSE2 on x86-64, NEON on
 * aarch64): the same operations in the same order, so results are bit-identical to the scalar.
 * Double build only: the float build has no use for two double lanes. Only where the CPU has two
 * double lanes: elsewhere (a Cortex-M7's FPU is scalar) GCC splits the vectors into scalar code
 * through 256 bytes of stack temporaries, more instructions and stack than the scalar loop. */
#define PIK_HAVE_ATAN2_UNIT_X2 1
typedef double pik_v2d __attribute__((vector_size(16)));
typedef long long pik_v2l __attribute__((vector_size(16)));

static PIK_COLD void pik_atan2_unit_x2_far(const double *s, const double *c, double *out)
{
    out[0] = pik_atan2_unit_inline(s[0], c[0]);
    out[1] = pik_atan2_unit_inline(s[1], c[1]);
}

static inline void pik_atan2_unit_x2(const double *s, const double *c, double *out)
{
    const pik_v2d one = {1.0, 1.0}, two = {2.0, 2.0};
    pik_v2d vs = {s[0], s[1]}, vc = {c[0], c[1]};
    pik_v2l sign_mask = {(long long)0x8000000000000000ULL, (long long)0x8000000000000000ULL};
    pik_v2d as = (pik_v2d)((pik_v2l)vs & ~sign_mask), ac = (pik_v2d)((pik_v2l)vc & ~sign_mask);
    pik_v2l swap_m = as > ac;
    pik_v2d mx = (pik_v2d)((swap_m & (pik_v2l)as) | (~swap_m & (pik_v2l)ac));
    pik_v2d mn = (pik_v2d)((swap_m & (pik_v2l)ac) | (~swap_m & (pik_v2l)as));
    pik_v2d n2 = vs * vs + vc * vc;
    pik_v2d est = mn * (one + 0.21275 * mn * mn) * PIK_STEP_INV + 0.5;
    int k0, k1;
    if (PIK_UNIT_OUT_OF_RANGE(n2[0], s[0], c[0], 0.5, 2.0) || PIK_UNIT_OUT_OF_RANGE(n2[1], s[1], c[1], 0.5, 2.0)) {
        /* rare (a caller's non-unit pair): each lane through the scalar kernel and its fallback */
        pik_atan2_unit_x2_far(s, c, out);
        return;
    }
    k0 = (int)est[0];
    k1 = (int)est[1];
    pik_v2d sk = {pik_sincos_table[2 * k0], pik_sincos_table[2 * k1]};
    pik_v2d ck = {pik_sincos_table[2 * k0 + 1], pik_sincos_table[2 * k1 + 1]};
    pik_v2d kf = {(double)k0, (double)k1};
    pik_v2d sd = mn * ck - mx * sk, sd2 = sd * sd, d, r, swapped, cneg;
    pik_v2l cneg_m = vc < 0.0;
    d = sd + sd * sd2 * (1.0 / 6.0 + sd2 * (3.0 / 40.0 + sd2 * (5.0 / 112.0)));
    r = (kf * PIK_STEP_HI + d) + kf * PIK_STEP_LO;
    swapped = (pik_v2d)(swap_m & (pik_v2l)one);
    cneg = (pik_v2d)(cneg_m & (pik_v2l)one);
    r = swapped * PIK_PI_2_HI + (one - two * swapped) * r + swapped * PIK_PI_2_LO;
    r = cneg * PIK_PI_HI + (one - two * cneg) * r + cneg * PIK_PI_LO;
    r = (pik_v2d)(((pik_v2l)r & ~sign_mask) | ((pik_v2l)vs & sign_mask)); /* copysign */
    out[0] = r[0];
    out[1] = r[1];
}
#endif

#endif /* PIK_USE_LIBM */

/* The kernels of the core's own precision. */
#if PIK_USE_LIBM /* libm throughout */
#define pik_sincosf_core_inline pik_sincosf_inline
#define pik_sincos_core_inline pik_sincos_inline
#endif
#if PIK_FLOAT
#define pik_sincos_r pik_sincosf_core_inline
#define pik_atan2_r pik_atan2f_inline
#define pik_atan2_unit_r pik_atan2f_unit_inline
#define PIK_ATAN2 pik_atan2f
#else
#define pik_sincos_r pik_sincos_core_inline
#define pik_atan2_r pik_atan2_inline
#define pik_atan2_unit_r pik_atan2_unit_inline
#define PIK_ATAN2 pik_atan2
#endif

/* Angles of (near-)unit (sin, cos) pairs, all at once: independent calls back to back let the CPU
 * overlap their latencies, which it cannot do when each is interleaved with dependent algebra. */
static inline void pik_atan2_unit_many(const pik_real *s, const pik_real *c, pik_real *out, int n)
{
    int i = 0;
#ifdef PIK_HAVE_ATAN2_UNIT_X2
    for (; i + 1 < n; i += 2) {
        pik_atan2_unit_x2(s + i, c + i, out + i);
    }
#endif
    for (; i < n; ++i) {
        out[i] = pik_atan2_unit_r(s[i], c[i]);
    }
}

#endif /* PIK_TRIG_IMPL_H */
