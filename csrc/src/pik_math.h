/*
 * Internal: the elementary functions and constants of the core's precision (pik_real, see
 * pik_config.h). In the float build every name maps to the float function of C99 <math.h>, so the
 * core never computes in double (it builds warning-free with -Wdouble-promotion).
 */
#ifndef PIK_MATH_H
#define PIK_MATH_H

#include <float.h>
#include <math.h>

#include "piperik/pik_config.h"
#include "piperik/pik_types.h"

#if PIK_FLOAT
#define pik_sqrt sqrtf
#define pik_fabs fabsf
#define pik_copysign copysignf
#define pik_fmod fmodf
#define PIK_HUGE HUGE_VALF
/* |x| <= PIK_REAL_BIG is the core's finiteness test (false for NaN and infinities). */
#define PIK_REAL_BIG FLT_MAX
#define PIK_EPS FLT_EPSILON
#else
#define pik_sqrt sqrt
#define pik_fabs fabs
#define pik_copysign copysign
#define pik_fmod fmod
#define PIK_HUGE HUGE_VAL
#define PIK_REAL_BIG 1e300
#define PIK_EPS DBL_EPSILON
#endif

#define PIK_PI PIK_R(3.14159265358979323846)
#define PIK_TWO_PI PIK_R(6.28318530717958647692)

/* ---- small helpers shared by the solvers (static inline: no call, no unused-function warning) */

/* Wraps any finite angle into [-pi, pi] (NaN for NaN and infinities). For |a| < 4pi, the hot case,
 * without data-dependent branches in the arithmetic: a - 2pi k with k = ceil(a/2pi - 1/2), ceil
 * taken as 3 - trunc(3.5 - a/2pi) (valid while 3.5 - a/2pi is in (0, LONG_MAX)). Larger angles are
 * first reduced exactly by fmod (|result| < 2pi), so the cast to long never overflows (undefined
 * behaviour) and angles above 7pi no longer wrap by a wrong multiple of 2pi. The one branch is
 * predictable (never taken on solver angles). */
static inline pik_real pik_wrap_pi(pik_real a)
{
    pik_real k;
    if (!(pik_fabs(a) < 4 * PIK_PI)) {
        if (!(a - a == 0)) { /* NaN or +-inf: no wrap exists */
            return a - a;
        }
        a = pik_fmod(a, PIK_TWO_PI);
    }
    k = (pik_real)(3L - (long)(PIK_R(3.5) - a * (1 / PIK_TWO_PI)));
    return a - k * PIK_TWO_PI;
}

/* 1 when every v[i] is finite and at most PIK_REAL_BIG in magnitude (false for NaN). */
static inline int pik_finite_n(const pik_real *v, int n)
{
    int i;
    for (i = 0; i < n; ++i) {
        if (!(pik_fabs(v[i]) <= PIK_REAL_BIG)) {
            return 0;
        }
    }
    return 1;
}

/* 1 when lo - tol <= q <= hi + tol, without branches (joints are checked for every solution). */
static inline int pik_within(pik_real q, pik_real lo, pik_real hi)
{
    return (q >= lo - PIK_LIMIT_TOL_RAD) & (q <= hi + PIK_LIMIT_TOL_RAD);
}

/* Two joint vectors of n joints equal up to rounding, each joint compared modulo 2pi (the near-class
 * polish can bring two closed-form candidates to one solution). */
#define PIK_SAME_Q_TOL PIK_TOL(1e-9, 1e-4)
static inline int pik_same_q(const pik_real *a, const pik_real *b, int n)
{
    int i;
    for (i = 0; i < n; ++i) {
        if (!(pik_fabs(pik_wrap_pi(a[i] - b[i])) <= PIK_SAME_Q_TOL)) {
            return 0;
        }
    }
    return 1;
}

/* Makes *out an empty set of dof-joint solutions: what every solver writes first, so that a caller
 * reading out after an error status finds no stale solution. */
static inline void pik_solution_set_empty(pik_solution_set *out, int dof)
{
    out->count = 0;
    out->dof = dof;
    out->rejected = 0;
    out->unpolished = 0;
}

#endif /* PIK_MATH_H */
