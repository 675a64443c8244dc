/*
 * piperik compile-time options. Every option can be set with -D on the compiler command line;
 * the defaults below are what the Python package builds.
 *
 *   PIK_USE_LIBM        0: sin/cos/atan2 come from piperik's const lookup tables plus a short
 *                          Taylor correction (default; ~1e-16 error, no libm trig calls).
 *                       1: use the C library's sin, cos and atan2 instead.
 *   PIK_TABLE_ATTR      placement attribute put on every const table, e.g.
 *                       -DPIK_TABLE_ATTR='__attribute__((section(".dtcm_data")))' to pin the
 *                       tables in tightly coupled memory on a Cortex-M7. Empty by default.
 *   PIK_WITH_STATUS_STRINGS
 *                       1: pik_status_str() returns a sentence per status (default).
 *                       0: it returns "" and the message table is compiled out (saves flash).
 */
#ifndef PIK_CONFIG_H
#define PIK_CONFIG_H

#ifndef PIK_USE_LIBM
#define PIK_USE_LIBM 0
#endif

#ifndef PIK_TABLE_ATTR
#define PIK_TABLE_ATTR
#endif

#ifndef PIK_WITH_STATUS_STRINGS
#define PIK_WITH_STATUS_STRINGS 1
#endif

/* Largest number of closed-form solutions any supported arm has for one pose (and one arm angle). */
#define PIK_MAX_SOLUTIONS 8
/* Largest joint count of any supported arm. */
#define PIK_MAX_DOF 7

/* A rotation whose max |R^T R - I| exceeds this is refused (PIK_ERR_NOT_ORTHONORMAL). Below it the
 * rotation is projected onto SO(3) before solving, so solutions are exact for the projected pose. */
#define PIK_ORTHONORMAL_TOL 1e-6
/* Bottom row of a homogeneous transform must be [0 0 0 1] within this. */
#define PIK_BOTTOM_ROW_TOL 1e-12
/* A joint within this of a limit counts as inside it; selection clamps it onto the limit. Rounding
 * alone puts e.g. q2 of the PiPER's rest pose (q = 0, on its lower limit) at -1e-17. */
#define PIK_LIMIT_TOL_RAD 1e-10
/* Every returned solution reproduces the (projected) target to within these, or it is dropped. */
#define PIK_SELFCHECK_POS_TOL_M 1e-9
#define PIK_SELFCHECK_ROT_TOL_RAD 1e-9

#endif /* PIK_CONFIG_H */
