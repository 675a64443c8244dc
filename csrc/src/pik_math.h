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

#if PIK_FLOAT
#define pik_sqrt sqrtf
#define pik_fabs fabsf
#define pik_copysign copysignf
#define PIK_HUGE HUGE_VALF
/* |x| <= PIK_REAL_BIG is the core's finiteness test (false for NaN and infinities). */
#define PIK_REAL_BIG FLT_MAX
#else
#define pik_sqrt sqrt
#define pik_fabs fabs
#define pik_copysign copysign
#define PIK_HUGE HUGE_VAL
#define PIK_REAL_BIG 1e300
#endif

#define PIK_PI PIK_R(3.14159265358979323846)
#define PIK_TWO_PI PIK_R(6.28318530717958647692)

#endif /* PIK_MATH_H */
